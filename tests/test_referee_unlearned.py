"""Cells whose empty look the camera has not learned (`Observation.unlearned`): a piece stood
there in every calibration photo, so a print on the square (the US Chess board's logo on h1)
reads as a piece - or as nothing known, unknown - once the piece leaves. The referee takes such
a cell as empty when that alone makes the board the position or a legal move, and hands the
board it took to the camera to learn from (`Referee.board_to_learn`)."""

import pytest

from companion.games.arimaa import ArimaaPosition
from companion.records import Records
from companion.referee.core import Referee, observation_of
from companion.referee.protocol import PlayerInput

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


def test_an_unknown_cell_is_never_taken_as_empty_even_an_unlearned_one():
    # A cup put down on h1 as the rook leaves reads unknown: "Clear the view", as always -
    # taken as empty, the camera would learn the cup as h1's empty look.
    table = Table(ArimaaPosition.from_board(PIECES))
    events = table.show(a1=None, a2="gold", unknown=("a1",), unlearned=("a1",))
    assert [e.kind for e in events] == ["unclear"]
    assert table.learnable() is None
    table = Table(ArimaaPosition.from_board(PIECES))
    events = table.show(unknown=("a1",), unlearned=("a1",))
    assert [e.kind for e in events] == ["unclear"]


def test_when_two_marked_cells_would_each_do_the_referee_does_not_guess():
    # Gold's cat on g1 and horse on h1, both over cells never seen empty. In one go the
    # rabbit steps g2-g3, the cat g1-g2 and the horse h1-g1: the camera reads g1, g2, g3 and
    # h1 occupied (h1's logo) and marks g1 (the horse is not the cat it saw) and h1. Taking g1
    # as empty is a legal turn too (g2-g3, g1-g2): two boards would do, so neither is taken.
    pieces = {"g1": "C", "h1": "H", "g2": "R", "e7": "r", "g8": "e"}
    table = Table(ArimaaPosition.from_board(pieces))
    events = table.show(
        g2="gold", g3="gold", h1=None, g1="gold", misread={"h1": "gold"}, unlearned=("g1", "h1")
    )
    assert steps(events) == []
    assert table.referee.instruction.kind == "restore"
    assert table.learnable() is None
    # Only h1 marked: h1 is taken as empty (the referee then asks which piece is on g1).
    table = Table(ArimaaPosition.from_board(pieces))
    events = table.show(g2="gold", g3="gold", h1=None, g1="gold", misread={"h1": "gold"},
                        unlearned=("h1",))  # fmt: skip
    assert [e.kind for e in events] == ["question"] and "h1" not in table.referee.board


def restarted_after_a_step(tmp_path):
    """A recorded game in which Gold's horse stepped a1-a2 (a turn of one step), resumed:
    a new referee for it, the cells, and the board after the step."""
    records = Records(tmp_path / "r.sqlite3")
    referee = Referee(ArimaaPosition.from_board(PIECES), records=records)
    names = referee.position.cell_names()
    referee.observe(observation_of(names, dict(referee.position.cells()), frame=1))
    moved = {**{c: k for c, k in referee.position.cells().items() if c != "a1"}, "a2": "gold"}
    referee.observe(observation_of(names, moved, frame=2))
    referee.handle(PlayerInput("done"))
    return (lambda: Referee.resume(records, referee.game_id)), names, moved


def test_a_resumed_game_takes_the_logo_as_empty_when_that_is_the_position(tmp_path):
    # The camera's learning is not saved: after a restart a1 is marked again. The resumed
    # referee has not seen the position yet, and takes a1 as empty when that makes it so.
    resume, names, moved = restarted_after_a_step(tmp_path)
    resumed = resume()
    logo = {**moved, "a1": "gold"}
    resumed.observe(observation_of(names, logo, unlearned=("a1",), frame=3))
    assert resumed.settled and resumed.board == resumed.expected()
    assert resumed.board_to_learn(resumed.last_observation) == resumed.expected()
    unmarked = resume()
    unmarked.observe(observation_of(names, logo, frame=3))
    assert not unmarked.settled


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


def test_a_piece_to_take_off_a_cell_never_seen_empty_says_to_check_by_eye(tmp_path):
    resume, names, moved = restarted_after_a_step(tmp_path)
    resumed = resume()
    # The logo on a1 and a stray piece on b5: not the position, even with a1 taken as empty.
    stray = {**moved, "a1": "gold", "b5": "gold"}
    resumed.observe(observation_of(names, stray, unlearned=("a1",), frame=3))
    assert resumed.instruction.kind == "restore"
    assert "a1" in resumed.instruction.text and "b5" in resumed.instruction.text
    assert resumed.instruction.detail.endswith(
        "The camera has never seen a1 empty: a print there may look like a piece to it - "
        "check by eye"
    )


def test_on_a_chess_set_the_camera_learns_the_board_in_its_own_colours():
    # The camera learned white and black; the referee plays gold and silver. A board handed
    # back in the referee's sides would have fitted the camera's model to two new classes.
    from companion import games
    from vision.sim import chess_start

    arimaa = games.get("arimaa")
    referee = Referee(arimaa.new(arimaa.options_from({"equipment": "chess"})))
    start, _ = chess_start("chessboard")
    names = referee.position.cell_names()
    for _ in range(2):
        referee.handle(PlayerInput("choose", "chess"))
    referee.observe(observation_of(names, start, frame=1))
    assert referee.expected() == {
        c: {"white": "gold", "black": "silver"}[k] for c, k in start.items()
    }
    assert referee.board_to_learn(referee.last_observation) == start
