"""Cells whose empty look the camera has not learned (`Observation.unlearned`): a piece stood
there in every calibration photo, so a print on the square (the US Chess board's logo on h1)
reads as a piece - or as nothing known, unknown - once the piece leaves. The referee takes such
a cell as empty when that alone makes the board the position or a legal move, and hands the
board it took to the camera to learn from (`Referee.board_to_learn`)."""

import pytest

from companion.games.arimaa import ArimaaPosition
from companion.referee.core import Referee, observation_of

PIECES = {"a1": "H", "d3": "R", "e7": "r", "g8": "e"}  # Gold's horse on a1, a rabbit each
# (the rabbit beside the trap c3 keeps the horse alive there: no four steps make it vanish)


class Table:
    """A board the camera reads as `seen`: the board with a print on a cell read as a piece."""

    def __init__(self, position):
        self.referee = Referee(position.copy())
        self.board = dict(position.cells())
        self.names = position.cell_names()
        self.frame = 0
        self.show()

    def show(self, misread=None, unlearned=(), unknown=(), **changes):
        for cell, kind in changes.items():
            if kind is None:
                self.board.pop(cell, None)
            else:
                self.board[cell] = kind
        seen = {**self.board, **(misread or {})}
        self.frame += 1
        observation = observation_of(
            self.names, seen, unknown=unknown, unlearned=unlearned, frame=self.frame
        )
        return self.referee.observe(observation)

    def learnable(self):
        return self.referee.board_to_learn(self.referee.last_observation)


def steps(events):
    return [e.data["step"] for e in events if e.kind == "step"]


def test_a_piece_leaving_a_cell_never_seen_empty_is_a_step_though_its_print_reads_as_a_piece():
    table = Table(ArimaaPosition.from_board(PIECES))
    events = table.show(a1=None, a2="gold", misread={"a1": "gold"}, unlearned=("a1",))
    assert steps(events) == ["Ha1n"]
    assert "a1" not in table.referee.board
    assert table.referee.instruction.kind == "move"  # Gold's turn goes on
    # The board taken is the position: the camera may learn a1's empty look from it.
    assert table.learnable() == table.referee.expected()
    assert "a1" not in table.learnable()


def test_without_the_mark_the_same_reading_is_a_board_to_fix_and_teaches_nothing():
    table = Table(ArimaaPosition.from_board(PIECES))
    table.show(a1=None, a2="gold", misread={"a1": "gold"})
    assert table.referee.instruction.kind == "restore"
    assert table.learnable() is None


def test_an_unknown_on_an_unlearned_cell_is_taken_as_empty_when_that_makes_a_step():
    table = Table(ArimaaPosition.from_board(PIECES))
    events = table.show(a1=None, a2="gold", unknown=("a1",), unlearned=("a1",))
    assert steps(events) == ["Ha1n"]
    assert table.referee.unclear == []


def test_an_unknown_cell_that_no_legal_move_explains_stays_unclear():
    table = Table(ArimaaPosition.from_board(PIECES))
    # Nothing moved, but a1 - where the horse stands - reads unknown: no step empties it.
    events = table.show(unknown=("a1",), unlearned=("a1",))
    assert [e.kind for e in events] == ["unclear"]
    assert table.learnable() is None
    # An unknown cell that is not unlearned is unclear as before, even when empty would do.
    table = Table(ArimaaPosition.from_board(PIECES))
    events = table.show(a1=None, a2="gold", unknown=("a1",))
    assert [e.kind for e in events] == ["unclear"]


def test_a_piece_read_on_an_unlearned_cell_stays_when_the_board_is_legal_as_read():
    # A reading that is a legal move as it is, is taken as it is: the mark changes nothing.
    table = Table(ArimaaPosition.from_board(PIECES))
    events = table.show(d3=None, d4="gold", unlearned=("a1", "d4"))
    assert steps(events) == ["Rd3n"]
    assert table.referee.board["a1"] == "gold" and table.referee.board["d4"] == "gold"


def test_the_camera_learns_only_from_the_last_board_taken_and_only_a_position():
    table = Table(ArimaaPosition.from_board(PIECES))
    table.show(a1=None, a2="gold", misread={"a1": "gold"}, unlearned=("a1",))
    taken = table.referee.last_observation
    table.show(a2=None, b2="gold", misread={"a1": "gold"}, unlearned=("a1",))
    assert table.referee.board_to_learn(taken) is None  # not the board taken last
    assert table.learnable() == table.referee.expected()
    table.show(unknown=("c5",))  # a cup on c5: the board is unclear, nothing to learn
    assert table.learnable() is None


def test_unlearned_cells_cross_the_json_lines_and_a_bad_list_is_one_line():
    from companion.errors import UserError
    from companion.referee.runner import observation_from_json

    names = ArimaaPosition.from_board(PIECES).cell_names()
    seen = observation_of(names, {"a1": "gold"}, unlearned=("a1",))
    assert seen.to_json()["unlearned"] == ["a1"]
    assert observation_from_json(seen.to_json()).unlearned == ("a1",)
    assert "unlearned" not in observation_of(names, {}).to_json()
    line = {**seen.to_json(), "unlearned": "a1"}
    with pytest.raises(UserError, match='"unlearned" must be a list of cells'):
        observation_from_json(line)
