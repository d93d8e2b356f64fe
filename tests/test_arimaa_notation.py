"""Arimaa notation: turns, arimaa.com move lists (with the archive's quirks), positions."""

import json
import random

import pyrimaa.board as aei
import pytest

from companion.errors import NotationError, RecordError, UserError
from companion.games.arimaa import (
    CHESS_SETUP,
    SQUARE_INDEX,
    STANDARD_SETUP,
    ArimaaPosition,
    Step,
    board_diagram,
    parse_position,
)
from companion.games.arimaa_notation import (
    game_from_move_list,
    game_to_move_list,
    replay_move_list,
)
from companion.games.base import game_from_json, game_to_json

GOLD_SETUP = "Ra1 Rb1 Rc1 Rd1 Re1 Rf1 Rg1 Rh1 Da2 Hb2 Cc2 Md2 Ee2 Cf2 Hg2 Dh2"
SILVER_SETUP = "ra8 rb8 rc8 rd8 re8 rf8 rg8 rh8 da7 hb7 cc7 ed7 me7 cf7 hg7 dh7"
OPENING_AEI = "g [rrrrrrrrdhcemchd                                DHCMECHDRRRRRRRR]"


def opening() -> ArimaaPosition:
    pos = ArimaaPosition.new()
    pos.push(pos.parse_move(GOLD_SETUP))
    pos.push(pos.parse_move(SILVER_SETUP))
    return pos


def random_game(seed: int, turns: int) -> ArimaaPosition:
    rng = random.Random(seed)
    pos = ArimaaPosition.new()
    while len(pos.move_stack) < turns and not pos.is_game_over():
        pos.push(pos.random_move(rng))
    return pos


# -- turns ------------------------------------------------------------------------------------------
def test_turn_text_round_trips_with_capture_tokens():
    pos = ArimaaPosition.from_board({"d5": "E", "d6": "c", "h1": "R", "a8": "r"})
    move = pos.parse_move("cd6w cc6x Ed5n")
    assert move == (
        Step(SQUARE_INDEX["d6"], SQUARE_INDEX["c6"]),
        Step(SQUARE_INDEX["d5"], SQUARE_INDEX["d6"]),
    )
    assert pos.move_text(move) == "cd6w cc6x Ed5n"
    # Capture tokens may be left out (some old records), but a false one is an error.
    assert pos.parse_move("cd6w Ed5n") == move
    with pytest.raises(UserError, match="no piece is captured"):
        pos.parse_move("cd6e ce6x Ed5n")


@pytest.mark.parametrize(
    "text, message",
    [
        ("Ed2n", "d2 holds the gold camel, not the gold elephant"),
        ("Ee3n", "no piece on e3"),
        ("Ee2q", "not a step"),
        ("Ee2n Ee3n Ee4n Ee5n Ee6n", "at most four steps"),
        ("Ra3n", "no piece on a3"),
        ("Ee2n Ee3s", "must change the position"),
        ("Ra1", "setup is over"),
        ("", "empty turn"),
    ],
)
def test_bad_turns_are_explained(text, message):
    pos = opening()
    with pytest.raises(UserError, match=message):
        pos.push(pos.parse_move(text))
    assert pos.to_aei() == OPENING_AEI  # nothing was left half-played


def test_a_leading_label_is_accepted():
    pos = opening()
    assert pos.parse_move("2g Ee2n Ee3n") == pos.parse_move("Ee2n Ee3n")


def test_random_games_round_trip_through_move_lists_and_json():
    for seed in range(4):
        pos = random_game(seed, 40)
        text = game_to_move_list(pos)
        assert text.splitlines()[0].startswith("1g ") and text.splitlines()[1].startswith("1s ")
        again = game_from_move_list(text)
        assert again.to_aei() == pos.to_aei()
        assert game_to_move_list(again) == text
        record = json.loads(json.dumps(game_to_json(pos)))
        assert game_from_json(record).to_aei() == pos.to_aei()


def test_our_move_lists_are_read_by_aei():
    pos = random_game(3, 50)
    apos = aei.Position(aei.Color.GOLD, 4, aei.BLANK_BOARD)
    for line in game_to_move_list(pos).splitlines():
        apos = apos.do_move_str(line.split(" ", 1)[1])
    assert f"{'gs'[apos.color]} {apos.board_to_str('short')}" == pos.to_aei()


# -- move lists as found in the archive ---------------------------------------------------------------
def test_takeback_resign_stray_break_and_log_lines():
    text = "\n".join(
        [
            "[Wed Mar 11 19:51:38 2009] **** bot started",
            f"1w {GOLD_SETUP}",
            f"1b {SILVER_SETUP}",
            "2w Ee2n Ee3n",
            "Ee4n Md2n",  # a stray line break inside 2w
            "2b ed7s ed6s",
            "3w takeback",  # undoes 2b
            "2b hb7s hb6s",
            "3w Ee5e Ef5e",
            "3b takeback",  # undoes 3w
            "3w takeback",  # undoes the second 2b
            "2b ed7s ed6s",
            "3w Ee5e",
            "3b resign",
            "4w",
        ]
    )
    replay = replay_move_list(text)
    pos = replay.position
    assert pos.turn_label == "3s" and replay.error is None
    assert replay.recorded_result == ("gold", "r")
    assert any("ignored" in note for note in replay.notes)
    assert any("joined to turn 2w" in note for note in replay.notes)
    assert (pos.piece_at("f5"), pos.piece_at("d3"), pos.piece_at("d5"), pos.piece_at("b7")) == (
        "E",
        "M",
        "e",
        "h",
    )


def test_plain_list_of_turns_and_old_labels():
    turns = [GOLD_SETUP, SILVER_SETUP, "Ee2n Ee3n Ee4n Ee5n", "ed7s ed6w"]
    pos = game_from_move_list(turns)
    assert pos.turn_label == "3g"
    labelled = game_from_move_list([f"1w {GOLD_SETUP}", f"1b {SILVER_SETUP}", "2w Ee2n"])
    assert labelled.turn_label == "2s"


def test_illegal_turn_is_named_by_label_text_and_reason():
    text = f"1g {GOLD_SETUP}\n1s {SILVER_SETUP}\n2g Ee2n Ee3n Ee4n Ee5n Ee6n\n"
    with pytest.raises(RecordError) as info:
        game_from_move_list(text)
    message = str(info.value)
    assert message.startswith("turn 2g on line 3 ('Ee2n Ee3n Ee4n Ee5n Ee6n'): ")
    assert "at most four steps" in message
    replay = replay_move_list(text)
    assert replay.error_index == 2 and len(replay.position.move_stack) == 2
    assert replay.error is not None


def test_wrong_side_label_and_bad_tokens():
    with pytest.raises(RecordError, match="it is Gold's turn"):
        game_from_move_list(f"1s {SILVER_SETUP}")
    with pytest.raises(RecordError, match="'Ee3k' is not a step"):
        game_from_move_list(f"1g {GOLD_SETUP}\n1s {SILVER_SETUP}\n2g Ee2n Ee3k")
    with pytest.raises(RecordError, match="takeback with no turn"):
        game_from_move_list("1g takeback")
    with pytest.raises(RecordError, match="move list"):
        game_from_move_list(42)


def test_game_from_a_set_position_cannot_be_a_move_list():
    pos = ArimaaPosition.parse_position(OPENING_AEI)
    pos.push(pos.parse_move("Ee2n"))
    with pytest.raises(UserError, match="JSON record"):
        game_to_move_list(pos)


# -- positions ----------------------------------------------------------------------------------------
def test_position_forms_round_trip():
    pos = random_game(2, 16)
    for text in (
        pos.to_aei(),
        pos.diagram(),
        json.dumps(pos.to_json()),
        "setposition " + pos.to_aei(),
    ):
        again = parse_position(text)
        assert again.to_aei() == pos.to_aei()
        assert again.turn == pos.turn


def test_mid_turn_position_keeps_its_steps():
    pos = opening()
    pos.push_step(pos.parse_step("Ee2n"))
    pos.push_step(pos.parse_step("Ee3n"))
    data = pos.to_json()
    assert data["steps"] == ["Ee2n", "Ee3n"]
    again = ArimaaPosition.from_json(json.loads(json.dumps(data)))
    assert again.steps_this_turn == pos.steps_this_turn and again.to_aei() == pos.to_aei()
    assert pos.diagram().splitlines()[0] == "2g"
    assert pos.diagram().splitlines()[-1] == "steps this turn: Ee2n Ee3n"
    assert parse_position(pos.diagram()).to_aei() == pos.to_aei()
    start = pos.turn_start_position()
    # Steps written after the label are played on the board shown.
    with_steps = "2g Ee2n Ee3n\n" + board_diagram(start, label=False)
    assert parse_position(with_steps).steps_this_turn == pos.steps_this_turn


def test_setup_phase_positions_round_trip():
    pos = ArimaaPosition.new()
    pos.push(pos.parse_move(GOLD_SETUP))
    again = ArimaaPosition.from_json(pos.to_json())
    assert again.in_setup and again.turn == "silver" and again.turn_label == "1s"
    again.push(again.parse_move(SILVER_SETUP))
    assert again.to_aei() == OPENING_AEI and again.turn_label == "2g"


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty"),
        ("hello", "not an Arimaa position"),
        ("g [rrrrrrrrdhcemchd]", "64 squares between the brackets, this one 16"),
        ("g [" + " " * 65 + "]", "this one 65"),
        (OPENING_AEI.replace("rrrrrrrr", "rrrrrrr"), "this one 63"),
        ("q [" + " " * 64 + "]", "not an Arimaa position"),
        (
            " +-----------------+\n8| r r r r r r r r r |\n",
            "rank 8 has 9 squares, not 8",
        ),
        ("0g\n" + ArimaaPosition.parse_position(OPENING_AEI).diagram(), "label 0g"),
        ("1s\n" + ArimaaPosition.parse_position(OPENING_AEI).diagram(), "label 1s"),
        ("q [" + " " * 64 + "]", "not an Arimaa position"),
        ("g [" + "Z" + " " * 63 + "]", "unknown piece 'Z' on a8"),
        (" +---+\n8| r r r r r r r r |\n", "rank 1 is missing"),
        ('{"game": "arimaa", "board": "oops"}', "list of 8 texts"),
        ('{"game": "arimaa", "board": ', "invalid JSON"),
        ('{"game": "arimaa", "options": {"x": 1}, "board": []}', "unknown arimaa option"),
    ],
)
def test_bad_positions_are_explained(text, message):
    with pytest.raises(UserError, match=message):
        ArimaaPosition.parse_position(text)


def test_step_text_errors():
    pos = opening()
    with pytest.raises(NotationError, match="no piece on e4"):
        pos.step_text((SQUARE_INDEX["e4"], SQUARE_INDEX["e5"]))
    with pytest.raises(NotationError, match="leaves the board"):
        pos.parse_step("Ra1w")


def test_a_parsed_turn_keeps_its_text_after_it_is_played():
    pos = ArimaaPosition.from_board({"d5": "E", "d6": "c", "h1": "R", "a8": "r"})
    move = pos.parse_move("cd6w Ed5n")  # the capture token left out
    pos.push(move)
    assert pos.move_text(move) == "cd6w cc6x Ed5n"
    assert pos.move_text(pos.pop()) == "cd6w cc6x Ed5n"


def test_mangled_input_is_a_user_error_never_a_crash():
    """Random edits of a good position (three forms) and of a good move list: each is read or
    rejected with a UserError, never another exception."""
    rng = random.Random(0)
    alphabet = 'RCDHMErcdhmeabcdefgh12345678nsewx .|+-\n[]{}":,gswb0123456789'
    start = ArimaaPosition.parse_position(OPENING_AEI)
    positions = [OPENING_AEI, start.diagram(), json.dumps(start.to_json())]
    move_list = f"1g {GOLD_SETUP}\n1s {SILVER_SETUP}\n2g Ee2n Ee3n Ee4n\n2s ed7s\n3g takeback\n"

    def mangle(text: str) -> str:
        chars = list(text)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(chars))
            roll = rng.random()
            if roll < 0.4:
                chars[i] = rng.choice(alphabet)
            elif roll < 0.7:
                chars.insert(i, rng.choice(alphabet))
            else:
                del chars[i]
        return "".join(chars)

    outcomes = set()
    for _ in range(600):
        for read, text in (
            (parse_position, rng.choice(positions)),
            (game_from_move_list, move_list),
        ):
            try:
                read(mangle(text))
                outcomes.add("read")
            except UserError:
                outcomes.add("rejected")
    assert outcomes == {"read", "rejected"}


def test_a_game_with_no_turn_is_a_move_list_that_reads_back():
    text = game_to_move_list(ArimaaPosition.new())
    assert text == "1g\n"
    again = replay_move_list(text)
    assert again.position.move_stack == [] and again.error is None


# -- malformed records: one clear error, never a crash ------------------------------------------------
def _opening_record(**extra):
    return {"moves": [GOLD_SETUP, SILVER_SETUP, "Ee2n Ee3n"], **extra}


@pytest.mark.parametrize("bad", [5, 1.5, True, None, ["2g"]])
def test_turn_labels_that_are_not_text_are_a_record_error(bad):
    record = _opening_record(turn_labels=["1g", bad, "2g"])
    with pytest.raises(RecordError, match=r'"turn_labels" item 2 is .*not text'):
        replay_move_list(record)


def test_turn_labels_left_out_or_null_are_the_turns_in_order():
    assert game_from_move_list(_opening_record()).turn_label == "2s"
    assert game_from_move_list(_opening_record(turn_labels=None)).turn_label == "2s"
    with pytest.raises(RecordError, match="as long as"):
        game_from_move_list(_opening_record(turn_labels=["1g"]))


@pytest.mark.parametrize("empty", [[], {"moves": []}, {"moves": [], "turn_labels": []}])
def test_a_record_with_no_turns_is_an_error_not_an_empty_game(empty):
    with pytest.raises(RecordError, match="no turns"):
        replay_move_list(empty)


OPENING_LINES = [f"1g {GOLD_SETUP}", f"1s {SILVER_SETUP}", "2g Ee2n Ee3n"]


def test_a_labelled_line_of_bad_tokens_is_that_turns_error_at_the_end():
    text = "\n".join([*OPENING_LINES, "2s ed7ss"])
    replay = replay_move_list(text)
    assert replay.error_index == 3 and len(replay.position.move_stack) == 3
    assert str(replay.error).startswith("turn 2s on line 4 ('ed7ss'): 'ed7ss' is not a step")
    with pytest.raises(RecordError, match="'ed7ss' is not a step"):
        game_from_move_list(text)


def test_a_labelled_line_of_bad_tokens_in_the_middle_is_blamed_not_the_next_turn():
    text = "\n".join([*OPENING_LINES, "2s garbage!! tokens", "2s ed7s", "3g Ee4n"])
    replay = replay_move_list(text)
    assert replay.error_index == 3
    assert "turn 2s on line 4 ('garbage!! tokens'): 'garbage!!' is not a step" in str(replay.error)


def test_lines_that_are_not_turns_are_all_noted():
    text = "\n".join(
        ["bot log line", *OPENING_LINES, "2s ed7s", "3g takeback", "2s ed7s ed6s", "3g"]
    )
    replay = replay_move_list(text)
    assert replay.error is None and replay.position.turn_label == "3g"
    notes = " | ".join(replay.notes)
    assert "line 1 ignored (no move in it): bot log line" in notes
    assert "line 6 (3g takeback) took back turn 2s" in notes
    assert "line 8 (3g with no steps" in notes


@pytest.mark.parametrize(
    "lines, words",
    [
        ([OPENING_LINES[0], OPENING_LINES[1], "7g Ee2n"], "label says turn 7 but this is turn 2g"),
        ([f"0g {GOLD_SETUP}"], "label says turn 0 but this is turn 1g"),
        ([*OPENING_LINES, "3s ed7s"], "label says turn 3 but this is turn 2s"),
    ],
)
def test_turn_numbers_in_labels_are_checked(lines, words):
    replay = replay_move_list("\n".join(lines))
    assert words in str(replay.error)
    assert replay.error_index == len(lines) - 1
    record = {"moves": [line.split(" ", 1)[1] for line in lines]}
    record["turn_labels"] = [line.split(" ", 1)[0] for line in lines]
    assert words in str(replay_move_list(record).error)


def test_a_diagram_with_padding_after_the_last_square_still_reads():
    diagram = ArimaaPosition.parse_position(OPENING_AEI).diagram()
    padded = "\n".join(line + "  " if "|" in line else line for line in diagram.splitlines())
    assert ArimaaPosition.parse_position(padded).to_aei() == OPENING_AEI
    squeezed = "\n".join(
        f"{line[0]}|{line[3:-2].replace(' ', '')}|" if "|" in line else line
        for line in diagram.splitlines()
    )
    assert ArimaaPosition.parse_position(squeezed).to_aei() == OPENING_AEI


def test_a_setup_turn_may_be_named_standard_or_chess():
    """A new player's trial: `play arimaa` wanted all sixteen placements typed, where the
    referee offers "choose standard". A setup turn is one of the named setups too, written
    out as its placements."""
    position = ArimaaPosition.new()
    gold = position.parse_move("standard")
    assert position.move_text(gold) == STANDARD_SETUP["gold"]
    position.push(gold)
    silver = position.parse_move("Chess")
    assert position.move_text(silver) == CHESS_SETUP["silver"]
    position.push(silver)
    with pytest.raises(NotationError, match="standard"):  # the steps' turn knows no names
        position.parse_move("standard")
    with pytest.raises(NotationError, match=r"or standard \(rabbits behind"):
        ArimaaPosition.new().parse_move("Ra1 stnadard")
