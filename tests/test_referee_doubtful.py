"""Cells the reader was unsure of (`Observation.doubtful`: the best class's posterior below
DOUBTFUL). A white pawn standing off the centre of a white square is the camera's least
certain look: on the real photos it reads empty at 0.6-0.78 where it has stood all game. In
any game the referee reads such a cell as it was on the last board (or, the board showing the
position, a piece read there as empty) when that alone makes the board the position or a legal
move - never a guess between two, never a change it asked the players to make."""

from board_table import Table

from companion.games.arimaa import ArimaaPosition
from companion.observation import DOUBTFUL, EMPTY, Observation
from companion.referee.core import observation_of
from companion.referee.runner import observation_from_json

FAR = {"h1": "R", "h8": "r", "g8": "e"}  # rabbits for both sides far away: no game-over


def arimaa(pieces, side="gold"):
    return ArimaaPosition.from_board({**FAR, **pieces}, side=side)


def steps(events):
    return [e.data["step"] for e in events if e.kind == "step"]


def test_a_piece_read_empty_where_the_reader_was_unsure_is_kept_while_a_move_is_taken():
    # Silver's turn: its elephant steps g8-g7; Gold's rabbit on d2 (no silver piece near it
    # to push or pull it) reads empty at 0.6 - it is where it was.
    table = Table(arimaa({"d2": "R"}, side="silver"))
    events = table.show(g8=None, g7="silver", misread={"d2": None}, unsure={"d2": 0.6})
    assert steps(events) == ["eg8s"]
    assert table.referee.board["d2"] == "gold"


def test_the_same_reading_made_with_confidence_is_a_board_to_fix():
    table = Table(arimaa({"d2": "R"}, side="silver"))
    events = table.show(g8=None, g7="silver", misread={"d2": None}, unsure={"d2": DOUBTFUL})
    assert steps(events) == []
    assert table.instruction.kind == "restore" and "d2" in table.instruction.highlights
    assert "not sure" not in table.instruction.detail  # sure of it: no note


def test_an_unsure_piece_on_an_empty_square_of_the_position_is_taken_as_empty():
    # A lamp's shadow on the empty d4 read as a gold piece at 0.7: nothing moved.
    table = Table(arimaa({"d2": "R"}, side="silver"))
    assert table.show(misread={"d4": "gold"}, unsure={"d4": 0.7}) == []
    assert table.instruction.kind == "move" and "d4" not in table.referee.board


def test_when_two_unsure_cells_would_each_do_the_referee_does_not_guess():
    # tests/test_referee_unlearned.py's tie: Gold's rabbit steps g2-g3, the cat g1-g2 and the
    # horse h1-g1, and the camera reads h1 occupied too. Taking h1 as empty makes it that
    # move; taking g1 as empty makes it another (g2-g3, g1-g2): unsure of both, no guess.
    pieces = {"g1": "C", "h1": "H", "g2": "R", "e7": "r", "g8": "e"}
    table = Table(ArimaaPosition.from_board(pieces))
    move = {"g2": "gold", "g3": "gold", "h1": None, "g1": "gold"}
    events = table.show(misread={"h1": "gold"}, unsure={"g1": 0.7, "h1": 0.7}, **move)
    assert steps(events) == []
    assert table.instruction.kind == "restore"
    # Unsure of h1 alone: h1 is taken as empty (the referee then asks which piece is on g1).
    table = Table(ArimaaPosition.from_board(pieces))
    events = table.show(misread={"h1": "gold"}, unsure={"h1": 0.7}, **move)
    assert [e.kind for e in events] == ["question"] and "h1" not in table.referee.board


def test_a_change_the_referee_asked_for_is_never_taken_as_done_from_an_unsure_reading():
    # Asked to take the silver piece put on d5 off, the players leave it: read there again,
    # unsure, it is not taken as gone.
    table = Table(arimaa({"d2": "R"}, side="silver"))
    table.show(d5="silver")
    assert table.instruction.kind == "restore"
    table.show(unsure={"d5": 0.6})
    assert table.instruction.kind == "restore" and "d5" in table.instruction.highlights
    assert table.instruction.detail.endswith("The camera is not sure of d5: check by eye")


def test_a_board_to_fix_names_the_cells_the_camera_is_not_sure_of():
    # A piece from nowhere on a4 and the rabbit on d2 read empty, unsure: no legal move makes
    # that board, so the referee asks to fix it - and says it is unsure of d2.
    table = Table(arimaa({"d2": "R"}, side="silver"))
    table.show(a4="gold", misread={"d2": None}, unsure={"d2": 0.6})
    assert table.instruction.kind == "restore"
    assert table.instruction.detail == (
        "Put the board back as it was. The camera is not sure of d2: check by eye"
    )


def test_the_doubtful_cells_cross_the_json_lines_companion_referee_reads():
    seen = observation_of(["d2", "d3"], {"d3": "gold"}, confidence={"d2": 0.6})
    assert observation_from_json(seen.to_json()).doubtful() == ("d2",)
    unknown = Observation(cells={"d2": "unknown", "d3": EMPTY}, confidence={"d2": 0.3})
    assert unknown.doubtful() == ()  # an unknown cell is unclear, not doubtful


def test_a_cell_the_turn_only_points_at_is_no_change_asked_for():
    """Found by a review: Arinama's turn marks every cell a stone may go (targets). A stone
    read unsure on one of them beside the real placement refused the move ("One stone per
    turn") where on any other cell it was read as it was - the targets were taken for
    changes the players had been asked to make."""
    from companion import games
    from companion.referee.core import Referee

    position = games.get("arinama").new({"rows": 5, "cols": 5})
    for move in ("c3", "e5"):
        position.push(move)
    referee = Referee(position.copy())
    names = position.cell_names()
    referee.observe(observation_of(names, position.cells()))
    assert referee.instruction.highlights.get("b3") == "target"
    board = {**position.cells(), "d2": "black", "b3": "black"}  # b3: a shadow, read unsure
    events = referee.observe(observation_of(names, board, confidence={"b3": 0.6}))
    assert [e.data["move"] for e in events if e.kind == "move"] == ["d2"]
