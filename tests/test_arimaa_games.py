"""Real arimaa.com games and published turn counts (shared/data/arimaa)."""

import json

import pytest
from shared_data import ARIMAA_DATA

from companion.games.arimaa import ArimaaPosition, parse_position
from companion.games.arimaa_notation import game_from_move_list, replay_move_list

DATA = ARIMAA_DATA
GAMES = [
    json.loads(line) for line in (DATA / "games.jsonl").read_text().splitlines() if line.strip()
]
POSITIONS = [
    json.loads(line)
    for line in (DATA / "test_positions.jsonl").read_text().splitlines()
    if line.strip()
]
REASON_CODES = {"goal": "g", "elimination": "e", "immobilisation": "m"}


def test_the_data_has_the_expected_games():
    assert len(GAMES) == 251
    assert sum("flag" in g for g in GAMES) == 7


@pytest.mark.parametrize("record", [g for g in GAMES if "flag" not in g], ids=lambda g: g["id"])
def test_unflagged_game_replays_with_the_recorded_result(record):
    replay = replay_move_list(record)
    pos = replay.position
    assert replay.error is None
    assert len(pos.move_stack) == len(record["moves"])
    oracle = record["oracle"]
    assert pos.to_aei() == f"{oracle['side_to_move']} {oracle['final_position_short']}"
    outcome = pos.outcome()
    got = (outcome.winner[0], REASON_CODES[outcome.reason]) if outcome else (None, None)
    assert got == (oracle["end"]["winner"], oracle["end"]["reason"])
    # Where the server recorded a result the rules decide (goal, elimination, immobilisation),
    # it agrees with ours.
    result = record["result"]
    if result.get("termination") in ("g", "e", "m") and outcome is not None:
        assert (outcome.winner[0], REASON_CODES[outcome.reason]) == (
            result["winner"],
            result["termination"],
        )


@pytest.mark.parametrize("record", [g for g in GAMES if "flag" in g], ids=lambda g: g["id"])
def test_flagged_game_is_rejected_at_the_flagged_turn(record):
    error = record["oracle"]["error"]
    replay = replay_move_list(record)
    pos = replay.position
    assert replay.error_index == error["ply"]
    assert f"turn {error['label']} " in str(replay.error)
    assert len(pos.move_stack) == error["ply"]
    with pytest.raises(Exception, match=error["label"]):
        game_from_move_list(record)


def test_flag_reasons_are_explained():
    messages = {g["id"]: str(replay_move_list(g).error) for g in GAMES if "flag" in g}
    assert "frozen" in messages["arimaa.com:55"]
    assert "game is already over" in messages["arimaa.com:46"]
    assert "third time" in messages["arimaa.com:40260"]


def _position(entry) -> ArimaaPosition:
    aei = entry["aei"]
    return parse_position(f"{aei['side_to_move']} {aei['short']}")


# The two hardest published counts take about a second each; the others are quick.
COUNTED = [p for p in POSITIONS if "unique_moves" in p["expected"]]


@pytest.mark.parametrize("entry", COUNTED, ids=lambda p: p["id"])
def test_published_turn_counts(entry):
    assert _position(entry).count_legal_moves() == entry["expected"]["unique_moves"]


@pytest.mark.parametrize(
    "entry", [p for p in POSITIONS if "is_end_state" in p["expected"]], ids=lambda p: p["id"]
)
def test_published_end_states(entry):
    pos = _position(entry)
    outcome = pos.outcome()
    expected = entry["expected"]["is_end_state"]
    assert outcome is not None
    assert outcome.winner == ("gold" if expected == 1 else "silver")


GOAL_CASES = [
    p for p in POSITIONS if "goal_this_turn" in p["expected"] and p["aei"]["unique_moves"] < 2500
]


@pytest.mark.parametrize("entry", GOAL_CASES, ids=lambda p: p["id"])
def test_goal_in_one_cases(entry):
    pos = _position(entry)
    mover = pos.turn
    reaches_goal = False
    for move in pos.legal_moves():
        pos.push(move)
        outcome = pos.outcome()
        pos.pop()
        if outcome is not None and outcome.reason == "goal" and outcome.winner == mover:
            reaches_goal = True
            break
    assert reaches_goal == entry["expected"]["goal_this_turn"]


def test_long_diagram_and_aei_forms_agree():
    for entry in POSITIONS:
        aei = entry["aei"]
        label = "2" + aei["side_to_move"]
        from_diagram = parse_position(label + "\n" + aei["long"])
        assert from_diagram.to_aei() == f"{aei['side_to_move']} {aei['short']}"
        assert from_diagram.diagram() == label + "\n" + aei["long"]


# Positions whose count only aei recorded (no published figure), up to 20,000 turns.
AEI_COUNTED = [
    p
    for p in POSITIONS
    if "unique_moves" not in p["expected"]
    and p["aei"].get("unique_moves", 0) <= 20000
    and p["aei"].get("unique_moves")
    and p["id"] != "akimot:goalcheck/t008.txt"
]


@pytest.mark.parametrize("entry", AEI_COUNTED, ids=lambda p: p["id"])
def test_turn_counts_recorded_by_aei(entry):
    assert _position(entry).count_legal_moves() == entry["aei"]["unique_moves"]


def test_composed_position_with_an_unguarded_piece_on_a_trap():
    """akimot t008 starts with Gold's elephant alone on the c6 trap, which no game can reach.
    Here it stays until a step next to c6 is made; aei's generator removes it whenever any step
    passes any trap, and so lists 3,950 turns (aei's own step-by-step replay agrees with ours)."""
    entry = next(p for p in POSITIONS if p["id"] == "akimot:goalcheck/t008.txt")
    pos = _position(entry)
    assert pos.piece_at("c6") == "E"
    assert pos.count_legal_moves() == 3919
    move = pos.parse_move("Mc2e cc3s Mg4s")  # a pull far from c6: the elephant stays
    pos.push(move)
    assert pos.piece_at("c6") == "E"
