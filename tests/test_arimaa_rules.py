"""Arimaa rules (rules.md section 2) through the step-level API and whole turns."""

import random

import pytest

from companion.errors import IllegalMoveError, UserError
from companion.games.arimaa import (
    SQUARE_INDEX,
    ArimaaPosition,
    Capture,
    PendingPush,
    Placement,
    Step,
    random_setup,
)


def at(pieces: str, side: str = "gold") -> ArimaaPosition:
    """A position from 'Dd4 md5 ...' (letter + square); rabbits far away keep the game alive."""
    board = {tok[1:]: tok[0] for tok in pieces.split()}
    board.setdefault("h1", "R")
    board.setdefault("a8", "r")
    return ArimaaPosition.from_board(board, side)


def step(pos: ArimaaPosition, text: str) -> Step:
    return pos.parse_step(text)


def steps(*names: str) -> set[Step]:
    out = set()
    for name in names:
        origin, dest = name.split("-")
        out.add(Step(SQUARE_INDEX[origin], SQUARE_INDEX[dest]))
    return out


# -- single steps ----------------------------------------------------------------------------------
def test_opening_position_has_the_published_number_of_turns():
    pos = ArimaaPosition.parse_position(
        "g [rrrrrrrrdhcemchd                                DHCMECHDRRRRRRRR]"
    )
    assert pos.count_legal_moves() == 3353
    assert len(pos.legal_steps()) == 8  # only the second rank can move, one square north each
    # legal_moves gives the shortest steps to each board: the 8 one-step turns are one step long.
    moves = pos.legal_moves()
    assert len(moves) == 3353
    assert sorted(m for m in moves if len(m) == 1) == [(s,) for s in pos.legal_steps()]
    one, two = set(), set()
    for first in pos.legal_steps():
        pos.push_step(first)
        one.add(pos.to_aei())
        for second in pos.legal_steps():
            pos.push_step(second)
            two.add(pos.to_aei())
            pos.pop_step()
        pos.pop_step()
    two -= one | {pos.to_aei()}
    assert sum(len(m) == 2 for m in moves) == len(two)


def test_frozen_piece_is_explained():
    pos = at("Dd4 md5")
    assert (
        pos.step_error(step(pos, "Dd4w"))
        == "the gold dog on d4 is frozen by the silver camel on d5"
    )
    assert not any(s.origin == SQUARE_INDEX["d4"] for s in pos.legal_steps())
    # A friendly neighbour unfreezes it.
    pos = at("Dd4 md5 Rc4")
    assert pos.step_error(step(pos, "Dd4s")) is None


def test_rabbits_never_step_backwards_on_their_own():
    pos = at("Rd4")
    assert pos.step_error(step(pos, "Rd4s")) == "rabbits cannot step backwards"
    assert pos.step_error(step(pos, "Rd4n")) is None
    silver = at("rd5", side="silver")
    assert silver.step_error(step(silver, "rd5n")) == "rabbits cannot step backwards"
    assert silver.step_error(step(silver, "rd5s")) is None


def test_a_turn_has_at_most_four_steps():
    pos = at("Ed4")
    for text in ("Ed4n", "Ed5n", "Ed6e", "Ee6s"):
        pos.push_step(step(pos, text))
    assert pos.legal_steps() == []
    assert pos.step_error(step(pos, "Ee5s")) == "a turn has at most four steps"
    assert pos.can_end_turn()


def test_empty_origin_occupied_destination_and_distance():
    pos = at("Ed4 Rd5")
    assert pos.step_error(Step(SQUARE_INDEX["c4"], SQUARE_INDEX["c5"])) == "there is no piece on c4"
    assert pos.step_error(step(pos, "Ed4n")) == "d5 is occupied by the gold rabbit"
    assert "not neighbours" in pos.step_error(Step(SQUARE_INDEX["d4"], SQUARE_INDEX["f6"]))


# -- push and pull ---------------------------------------------------------------------------------
def test_push_must_be_finished_by_a_stronger_piece_moving_in():
    pos = at("Ed4 cd5 Rb2")
    assert steps("d5-d6", "d5-c5", "d5-e5") <= set(pos.legal_steps())
    pos.push_step(step(pos, "cd5n"))
    assert pos.pending_push == PendingPush(SQUARE_INDEX["d5"], "c")
    finish = "the push from d5 must be finished by a stronger gold piece moving into d5"
    assert pos.step_error(step(pos, "Rb2n")) == finish
    assert pos.end_turn_error() == finish
    assert set(pos.legal_steps()) == steps("d4-d5")
    pos.push_step(step(pos, "Ed4n"))
    assert pos.pending_push is None
    assert pos.can_end_turn()
    assert pos.move_text(pos.end_turn()) == "cd5n Ed4n"


def test_pull_follows_the_stronger_piece_that_stepped_away():
    pos = at("Ed4 cd5")
    pos.push_step(step(pos, "Ed4s"))
    assert Step(SQUARE_INDEX["d5"], SQUARE_INDEX["d4"]) in pos.legal_steps()
    pos.push_step(step(pos, "cd5s"))
    assert pos.piece_at("d4") == "c" and pos.piece_at("d3") == "E"
    assert pos.can_end_turn()


def test_a_step_cannot_both_push_and_pull():
    # The elephant finishes a push into d5; the dog on c4 next to d4 may not follow as a pull.
    pos = at("Ed4 cd5 dc4 Rh2")
    pos.push_step(step(pos, "cd5n"))
    pos.push_step(step(pos, "Ed4n"))
    error = pos.step_error(step(pos, "dc4e"))
    assert error is not None and "push" in error
    # Without the push, the same elephant step lets the dog be pulled.
    pos = at("Ed4 dc4 Rh2")
    pos.push_step(step(pos, "Ed4n"))
    assert pos.step_error(step(pos, "dc4e")) is None


def test_push_needs_two_steps_left_and_an_unfrozen_stronger_piece():
    pos = at("Ed4 cd5 Rb2")
    for text in ("Rb2n", "Rb3n", "Rb4n"):
        pos.push_step(step(pos, text))
    assert (
        pos.step_error(step(pos, "cd5n"))
        == "a push takes two steps and this turn has only one step left"
    )
    weak = at("Cd4 dd5")
    assert "moves only when a stronger gold piece" in weak.step_error(step(weak, "dd5n"))
    frozen = at("Dd4 cd5 ee4")  # the dog is frozen by the elephant: it cannot push
    assert "not frozen" in frozen.step_error(step(frozen, "cd5n"))
    elephant = at("Ed4 ed5")
    assert "nothing is stronger" in elephant.step_error(step(elephant, "ed5n"))


def test_rabbits_may_be_pushed_and_pulled_backwards():
    pos = at("Ed4 rd3 Rh2")  # a silver rabbit south of the elephant: pull it north, push it south
    pos.push_step(step(pos, "Ed4n"))
    pos.push_step(step(pos, "rd3n"))  # pulled towards Silver's own side
    assert pos.piece_at("d4") == "r"
    pos = at("Ed4 rd5 Rh2")
    pos.push_step(step(pos, "rd5n"))  # pushed backwards
    pos.push_step(step(pos, "Ed4n"))
    assert pos.piece_at("d6") == "r"


# -- traps -------------------------------------------------------------------------------------------
def test_trap_captures_mid_push_before_the_pusher_moves_in():
    pos = at("Ed5 cd6 Rh2")
    captures = pos.push_step(step(pos, "cd6w"))  # onto the c6 trap, no silver friend next to it
    assert captures == [Capture("c", SQUARE_INDEX["c6"])]
    assert pos.piece_at("c6") is None
    pos.push_step(step(pos, "Ed5n"))
    turn = pos.end_turn()
    assert pos.move_text(turn) == "cd6w cc6x Ed5n"


def test_leaving_a_trap_guard_captures_own_piece_and_sacrifice_is_legal():
    pos = at("Dc3 Rc4 Rh2")
    captures = pos.push_step(step(pos, "Rc4n"))
    assert captures == [Capture("D", SQUARE_INDEX["c3"])]
    pos.pop_step()
    assert pos.piece_at("c3") == "D" and pos.piece_at("c4") == "R"


def test_pull_completes_even_when_the_puller_is_captured():
    pos = at("Hc4 dd4 Rh2")  # the horse steps onto c3 (no friend there) and is captured
    assert pos.push_step(step(pos, "Hc4s")) == [Capture("H", SQUARE_INDEX["c3"])]
    assert pos.step_error(step(pos, "dd4w")) is None


# -- turns -------------------------------------------------------------------------------------------
def test_turn_must_change_the_position():
    pos = at("Ed4")
    pos.push_step(step(pos, "Ed4n"))
    pos.push_step(step(pos, "Ed5s"))
    assert pos.end_turn_error() == "the turn must change the position"
    with pytest.raises(IllegalMoveError, match="must change"):
        pos.end_turn()
    assert pos.pop_step() == Step(SQUARE_INDEX["d5"], SQUARE_INDEX["d4"])
    assert pos.end_turn_error() is None


def test_third_repetition_is_forbidden_and_not_counted():
    pos = at("Ed4 ee5 Rh2 ra8")
    cycle = ["Ed4s", "ee5n", "Ed3n", "ee6s"]
    for text in cycle + cycle[:3]:
        pos.push(pos.parse_move(text))
    # The start occurred twice (at the start, after one cycle): Silver's "ee6s" would create it
    # a third time.
    before = pos.count_legal_moves()
    pos.push_step(step(pos, "ee6s"))
    assert pos.end_turn_error() == "this turn would create the same position for the third time"
    pos.pop_step()
    assert Step(SQUARE_INDEX["e6"], SQUARE_INDEX["e5"]) not in [
        m[0] for m in pos.legal_moves() if len(m) == 1
    ]
    fresh = ArimaaPosition.from_board(_board_of(pos), "silver")  # the same board, no history
    assert before == fresh.count_legal_moves() - 1


def _board_of(pos: ArimaaPosition) -> dict[str, str]:
    return {name: pos.piece_at(name) for name in pos.cell_names() if pos.piece_at(name)}


def test_pop_restores_everything_after_turns_with_captures():
    rng = random.Random(5)
    pos = ArimaaPosition.new()
    snapshots = []
    for _ in range(40):
        if pos.is_game_over():
            break
        snapshots.append((pos.to_aei(), pos.turn_label, sorted(pos.legal_steps())))
        pos.push(pos.random_move(rng))
    while snapshots:
        pos.pop()
        aei, label, legal = snapshots.pop()
        assert (pos.to_aei(), pos.turn_label, pos.legal_steps()) == (aei, label, legal)


def test_legal_moves_are_distinct_and_each_is_legal():
    pos = at("Ed4 cd5 Rb2 Rc2 Mf4 hf5 rg7 Dc3 dc4")
    moves = pos.legal_moves()
    assert len(moves) == pos.count_legal_moves()
    finals = set()
    for move in moves[::37]:
        pos.push(move)
        finals.add(pos.to_aei())
        pos.pop()
    assert len(finals) == len(moves[::37])


# -- end of the game -----------------------------------------------------------------------------------
def test_goal_mid_turn_does_not_count_until_the_turn_ends():
    # Silver pushes Gold's rabbit onto rank 8: nothing yet; when Silver's turn ends, Gold wins
    # (the opponent's goal counts too, after the mover's own goal check).
    pos = at("Rd7 ed6", side="silver")
    pos.push_step(step(pos, "Rd7n"))
    pos.push_step(step(pos, "ed6n"))
    assert pos.outcome() is None and not pos.is_game_over()
    pos.end_turn()
    outcome = pos.outcome()
    assert (outcome.winner, outcome.reason) == ("gold", "goal")
    assert pos.legal_steps() == [] and pos.count_legal_moves() == 0
    with pytest.raises(IllegalMoveError, match="game is over"):
        pos.push(((0, 8),))


def test_own_goal_is_checked_before_the_opponents():
    pos = ArimaaPosition.from_board({"a8": "R", "a1": "r", "h4": "e"}, "silver")
    assert pos.outcome().winner == "gold"  # Gold just moved: Gold's goal first
    pos = ArimaaPosition.from_board({"a8": "R", "a1": "r", "h4": "e"}, "gold")
    assert pos.outcome().winner == "silver"


def test_elimination_and_immobilisation():
    pos = ArimaaPosition.from_board({"d4": "E", "a8": "r", "h8": "r"}, "silver")
    outcome = pos.outcome()
    assert (outcome.winner, outcome.reason) == ("silver", "elimination")
    # Gold's only rabbit is frozen on a1 and cannot step: immobilised.
    pos = ArimaaPosition.from_board({"a1": "R", "b1": "e", "a2": "m", "h8": "r"}, "gold")
    outcome = pos.outcome()
    assert (outcome.winner, outcome.reason) == ("silver", "immobilisation")


def test_immobilised_when_only_third_repetitions_are_left():
    # Gold's only piece, a rabbit, runs along a2-b2-c2 (walled in by silver rabbits); Silver's
    # elephant shuttles h8-h7. After this dance, both boards Gold could make from a2 (rabbit on
    # b2 or on c2, elephant on h8, Silver to move) have occurred twice: Gold has no legal turn.
    walls = {"a3": "r", "b3": "r", "c3": "r", "d2": "r", "h8": "e"}
    pos = ArimaaPosition.from_board({**walls, "c2": "R"}, "gold")
    dance = [
        "Rc2w",
        "eh8s",
        "Rb2e",
        "eh7n",
        "Rc2w",
        "eh8s",
        "Rb2w",
        "eh7n",
        "Ra2e Rb2e",
        "eh8s",
        "Rc2w",
        "eh7n",
        "Rb2e",
        "eh8s",
        "Rc2w Rb2w",
        "eh7n",
    ]
    for text in dance:
        assert not pos.is_game_over(), text
        pos.push(pos.parse_move(text))
    assert pos.piece_at("a2") == "R" and pos.piece_at("h8") == "e"
    assert pos.legal_steps() == [] and pos.legal_moves() == [] and pos.count_legal_moves() == 0
    outcome = pos.outcome()
    assert (outcome.winner, outcome.reason) == ("silver", "immobilisation")
    assert "third time" in outcome.detail
    # The same board without the history is an ordinary position with two turns.
    assert ArimaaPosition.parse_position(pos.to_aei()).count_legal_moves() == 2


# -- setup ------------------------------------------------------------------------------------------------
def test_setup_phase_then_gold_moves_first():
    pos = ArimaaPosition.new()
    assert pos.in_setup and pos.turn == "gold" and pos.turn_label == "1g"
    assert pos.count_legal_moves() == 64_864_800
    with pytest.raises(UserError, match="too many to list"):
        pos.legal_moves()
    pos.push(pos.parse_move("Ra1 Rb1 Rc1 Rd1 Re1 Rf1 Rg1 Rh1 Da2 Hb2 Cc2 Md2 Ee2 Cf2 Hg2 Dh2"))
    assert pos.turn == "silver" and pos.turn_label == "1s"
    pos.push(random_setup(1, random.Random(1)))
    assert not pos.in_setup and pos.turn == "gold" and pos.turn_label == "2g"
    assert pos.outcome() is None


@pytest.mark.parametrize(
    "text, message",
    [
        ("Ra1 Rb1 Rc1 Rd1 Re1 Rf1 Rg1 Rh1 Da2 Hb2 Cc2 Md2 Ee2 Cf2 Hg2 Dh3", "ranks 1 and 2"),
        ("Ra1 Rb1 Rc1 Rd1 Re1 Rf1 Rg1 Rh1 Da2 Hb2 Cc2 Md2 Ee2 Cf2 Hg2", "2 dogs, not 1"),
        ("Ra1 Rb1 Rc1 Rd1 Re1 Rf1 Rg1 Rh1 Da2 Hb2 Cc2 Md2 Ee2 Cf2 Hg2 da1", "own pieces"),
        ("Ra1 Rb1 Rc1 Rd1 Re1 Rf1 Rg1 Rh1 Da2 Hb2 Cc2 Md2 Ee2 Cf2 Hg2 Da1", "two pieces"),
    ],
)
def test_bad_setups_are_explained(text, message):
    pos = ArimaaPosition.new()
    with pytest.raises(IllegalMoveError, match=message):
        pos.push(pos.parse_move(text))
    assert pos.move_stack == [] and pos.cells() == {}


def test_cells_report_colours_only():
    pos = at("Ed4 cd5")
    assert pos.cells() == {"d4": "gold", "d5": "silver", "h1": "gold", "a8": "silver"}
    assert pos.piece_at("d4") == "E" and pos.piece_at(SQUARE_INDEX["e4"]) is None
    assert ArimaaPosition.cell_classes() == ["gold", "silver"]


def test_random_game_reaches_a_result():
    rng = random.Random(1)
    pos = ArimaaPosition.new()
    while not pos.is_game_over() and len(pos.move_stack) < 1000:
        pos.push(pos.random_move(rng))
    assert pos.outcome() is not None


def test_placement_and_step_texts():
    assert str(Placement("R", 0)) == "Ra1"
    assert str(Step(SQUARE_INDEX["d2"], SQUARE_INDEX["d3"])) == "d2n"
    assert str(Capture("r", SQUARE_INDEX["c3"])) == "rc3x"


def test_step_error_agrees_with_legal_steps_everywhere():
    """For every pair of neighbouring squares, in states along random games (mid-push and
    mid-pull included): step_error is None exactly for the legal steps."""
    from companion.games.arimaa import NEIGHBOURS

    all_steps = [Step(o, d) for o in range(64) for d in NEIGHBOURS[o]]
    rng = random.Random(3)
    pos = ArimaaPosition.new()
    checked = 0
    while not pos.is_game_over() and len(pos.move_stack) < 40:
        if not pos.in_setup:
            for _ in range(4):
                legal = set(pos.legal_steps())
                assert {s for s in all_steps if pos.step_error(s) is None} == legal
                checked += 1
                if not legal:
                    break
                pos.push_step(rng.choice(sorted(legal)))
            while pos.steps_this_turn:
                pos.pop_step()
        pos.push(pos.random_move(rng))
    assert checked > 100
