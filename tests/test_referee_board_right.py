"""The players say the board is right (BOARD_RIGHT): the camera misreads a cell for as long as
what causes it stays - a desk lamp's hard shadow of a piece on an empty light square reads as a
piece - so the referee asks to put back a board that is right, and the game would stall. Said
while told to put the board back, the board is taken as the position, the camera is taught
from that frame, and the cells read otherwise are read as the position has them while the
camera still reads them so and that makes the board the position or a legal move."""

from board_table import Table

from companion import games
from companion.games.arimaa import ArimaaPosition
from companion.records import Records
from companion.referee.core import Referee, observation_of
from companion.referee.protocol import BOARD_RIGHT, UNDO, PlayerInput
from companion.referee.runner import parse_input

# Gold's horse on a1 and rabbits on d3 and h4; Silver's rabbit on e7 and elephant on g8.
PIECES = {"a1": "H", "d3": "R", "h4": "R", "e7": "r", "g8": "e"}
SHADOW = {"h5": "gold"}  # the lamp's shadow of the rabbit on h4 reads as a gold piece on h5
RIGHT = PlayerInput(BOARD_RIGHT)


def arimaa(records=None):
    return Table(ArimaaPosition.from_board(PIECES), records=records)


def steps(events):
    return [e.data["step"] for e in events if e.kind == "step"]


def test_a_persistent_misread_asks_to_put_back_a_board_that_is_right():
    table = arimaa()
    for _ in range(3):  # as long as the rabbit on h4 stays, so does its shadow
        table.show(misread=SHADOW)
        assert table.instruction.kind == "restore"
        assert table.instruction.text == "Take the gold piece off h5"


def test_board_right_takes_the_position_and_reads_the_same_misread_as_the_position():
    table = arimaa()
    table.show(misread=SHADOW)
    events = table.referee.handle(RIGHT)
    assert [(e.kind, e.data) for e in events] == [("board-right", {"cells": ["h5"]})]
    assert table.referee.board == table.referee.expected()
    assert table.instruction.kind == "move"  # Gold's turn again
    assert set(table.referee.misread) == {"h5"}
    assert table.show(misread=SHADOW) == []  # the shadow is still there: still the position
    assert table.instruction.kind == "move"
    assert table.referee.board == table.referee.expected()


def test_a_real_step_elsewhere_is_taken_while_the_misread_stays():
    table = arimaa()
    table.show(misread=SHADOW)
    table.referee.handle(RIGHT)
    events = table.show(misread=SHADOW, d3=None, d4="gold")
    assert steps(events) == ["Rd3n"]
    assert table.instruction.kind == "move"
    assert table.referee.board == table.referee.expected()
    assert "h5" in table.referee.misread  # the shadow's cell is still read as the players said


def test_a_step_onto_the_remembered_cell_is_seen_as_read_and_it_is_forgotten():
    table = arimaa()
    table.show(misread=SHADOW)
    table.referee.handle(RIGHT)
    events = table.show(misread=SHADOW, h4=None, h5="gold")  # the rabbit steps into it
    assert steps(events) == ["Rh4n"]
    assert table.referee.expected()["h5"] == "gold"
    assert table.referee.misread == {}  # what is read there is real now


def test_a_step_off_a_remembered_cell_is_seen_as_read():
    # The camera reads the gold rabbit on d3 as silver (a misread of a piece, not a shadow).
    table = arimaa()
    table.show(misread={"d3": "silver"})
    assert table.instruction.kind == "restore"
    table.referee.handle(RIGHT)
    assert table.show(misread={"d3": "silver"}) == []
    events = table.show(d3=None, d4="gold")  # it steps off: d3 reads empty, as it is
    assert steps(events) == ["Rd3n"]
    assert table.referee.misread == {}


def test_a_remembered_cell_is_forgotten_once_the_camera_reads_it_right():
    table = arimaa()
    table.show(misread=SHADOW)
    table.referee.handle(RIGHT)
    assert table.show() == []  # the lamp was moved: h5 reads empty, as the position has it
    assert table.referee.misread == {}
    table.show(misread=SHADOW)  # and back: said once, not for ever
    assert table.instruction.kind == "restore"


def test_a_remembered_cell_never_makes_a_board_that_is_no_move():
    # The shadow stays, and a silver piece appears on c5 (Gold's turn): nothing explains it.
    table = arimaa()
    table.show(misread=SHADOW)
    table.referee.handle(RIGHT)
    table.show(misread=SHADOW, c5="silver")
    assert table.instruction.kind == "restore"
    assert "h5" in table.referee.board  # the reading stands: named as read


def test_board_right_in_a_game_of_flat_stones():
    # Arinama's stones lie flat (no hidden cells): glare on e3 reads its white stone as empty.
    position = games.get("arinama").new({"rows": 5, "cols": 5})
    for move in ("c3", "e3"):
        position.push(move)
    table = Table(position)
    table.show(misread={"e3": None})
    assert table.instruction.text == "Put the white stone back on e3"
    table.referee.handle(RIGHT)
    assert table.instruction.text == "Black: place a stone"
    assert table.show(misread={"e3": None}) == []
    events = table.show(misread={"e3": None}, b2="black")  # Black places a stone
    assert [e.data["move"] for e in events if e.kind == "move"] == ["b2"]
    assert table.instruction.text == "White: place a stone"


def test_board_right_does_nothing_unless_told_to_put_the_board_back():
    table = arimaa()
    assert table.instruction.kind == "move"  # during the turn: the board is the position
    assert table.referee.handle(RIGHT) == []
    # a cell the camera cannot read: "Clear the view", never taken as right
    table.show(misread=SHADOW, unknown=("b2",))
    assert table.instruction.kind == "wait"
    assert table.referee.handle(RIGHT) == []
    assert table.instruction.kind == "wait" and table.referee.misread == {}
    table.show(misread=SHADOW)
    table.referee.hands(True)  # a hand over the board: what is there now is not yet seen
    assert table.referee.handle(RIGHT) == []
    table.referee.hands(False)
    assert [e.kind for e in table.referee.handle(RIGHT)] == ["board-right"]


def test_board_right_does_nothing_while_a_take_back_waits():
    position = games.get("arinama").new({"rows": 5, "cols": 5})
    table = Table(position)
    table.show(c3="black")
    table.show(d4="white")
    table.referee.handle(PlayerInput(UNDO))
    table.show(misread={"b2": "white"})
    assert table.instruction.kind == "confirm"
    assert table.referee.handle(RIGHT) == []
    assert table.referee.undo_request is not None
    table.referee.handle(PlayerInput(UNDO, player="other"))  # taken back; d4 still on the board
    assert table.referee.misread == {}


def test_board_right_after_a_shadow_taken_for_a_move_is_taken_back():
    # A lamp's shadow reads as a white stone on b4 where White may place one: the camera's
    # reading is a legal move, and it is taken. The players take it back (UNDO, both agree),
    # but the shadow stays: "take the white stone off b4" could never be done. They say the
    # board is right; the game goes on from before the phantom move.
    position = games.get("arinama").new({"rows": 5, "cols": 5})
    table = Table(position)
    table.show(c3="black")
    events = table.show(misread={"b4": "white"})
    assert [e.data["move"] for e in events if e.kind == "move"] == ["b4"]
    table.referee.handle(PlayerInput(UNDO))
    table.referee.handle(PlayerInput(UNDO, player="other"))
    table.show(misread={"b4": "white"})
    assert table.instruction.kind == "restore" and not table.referee.settled
    assert table.referee.may_say_board_right()
    assert [e.data for e in table.referee.handle(RIGHT)] == [{"cells": ["b4"]}]
    assert table.referee.settled and table.instruction.text == "White: place a stone"
    events = table.show(misread={"b4": "white"}, d4="white")  # White's real stone
    assert [e.data["move"] for e in events if e.kind == "move"] == ["d4"]


def test_board_right_is_not_offered_while_the_calibration_pieces_come_off():
    position = games.get("arinama").new({"rows": 5, "cols": 5})
    referee = Referee(position, clear_first=True)
    names = position.cell_names()
    referee.observe(observation_of(names, {"a1": "black", "e5": "white"}))
    assert referee.instruction.kind == "restore"
    assert not referee.may_say_board_right()
    assert referee.handle(RIGHT) == []


def test_teach_hands_the_position_with_the_frame_the_players_said_is_right():
    table = arimaa()
    table.show(misread=SHADOW)
    taught = []
    table.referee.teach(lambda frame, board: taught.append((frame, board)))
    assert taught == []  # a board to put back teaches nothing
    table.referee.handle(RIGHT)
    table.referee.teach(lambda frame, board: taught.append((frame, board)))
    assert taught == [(table.frame, table.referee.expected())]
    assert "h5" not in taught[0][1]


def test_the_event_is_recorded_and_a_resumed_referee_remembers_nothing(tmp_path):
    records = Records(tmp_path / "games.sqlite3")
    table = arimaa(records)
    table.show(misread=SHADOW)
    table.referee.handle(RIGHT)
    record = records.game(table.referee.game_id, images=False)
    assert [(e.kind, e.data) for e in record.events if e.kind == "board-right"] == [
        ("board-right", {"cells": ["h5"]})
    ]
    again = Referee.resume(records, table.referee.game_id)
    assert again.misread == {}
    again.observe(observation_of(table.names, {**table.board, **SHADOW}, frame=99))
    assert again.instruction.kind == "restore"


def test_right_is_typed_to_companion_referee():
    assert parse_input("right") == RIGHT


def test_board_right_when_told_to_take_off_a_stone_that_may_not_go_there():
    # A lamp's shadow of the black stone on c3 reads as a black stone on d3 while White is to
    # place: "take the black stone off d3" (an illegal move, not a board to put back) - the
    # players may say the board is right then too, and the game goes on.
    position = games.get("arinama").new({"rows": 5, "cols": 5})
    position.push("c3")
    table = Table(position)
    table.show(misread={"d3": "black"})
    assert table.instruction.kind == "illegal"
    assert table.referee.may_say_board_right()
    assert [e.data for e in table.referee.handle(RIGHT)] == [{"cells": ["d3"]}]
    assert table.instruction.text == "White: place a stone"
    assert not table.referee.may_say_board_right()
    assert table.show(misread={"d3": "black"}) == []  # the shadow stays
    events = table.show(misread={"d3": "black"}, b2="white")  # White places a stone
    assert [e.data["move"] for e in events if e.kind == "move"] == ["b2"]


def test_teach_hands_each_observation_once():
    # The front end teaches after each observation and each input: an input that leaves the
    # board as it was (a DONE with nothing to end) must not teach the same frame again - the
    # camera would learn its leans twice.
    table = arimaa()
    taught = []

    def teach():
        table.referee.teach(lambda frame, board: taught.append(frame))

    table.show()
    teach()
    teach()
    assert taught == [table.frame]
    table.show()
    teach()
    assert taught == [table.frame - 1, table.frame]


def test_board_right_when_a_captured_piece_is_off_but_its_trap_still_reads_it():
    """Found by a review: a captured piece taken off a trap that the camera still read as
    occupied (a neighbour's shadow) left "Remove the silver horse from f6" up for good:
    Board is right was offered only to put a board back."""
    position = ArimaaPosition.from_board(
        {"h1": "R", "h8": "r", "g8": "e", "f6": "h", "e6": "m", "a2": "E"}, side="silver"
    )
    table = Table(position)
    table.show(e6=None, e5="silver")  # the camel leaves: the horse on the trap is captured
    assert table.instruction.kind == "remove"
    assert not table.referee.may_say_board_right()  # not before anyone has acted on it
    table.referee.hands(True)
    table.referee.hands(False)
    table.show(f6=None, misread={"f6": "silver"})  # taken off; the trap still reads it
    assert table.instruction.kind == "remove" and table.referee.may_say_board_right()
    assert [e.kind for e in table.referee.handle(RIGHT)] == ["board-right"]
    assert table.instruction.kind == "move" and table.instruction.player == "silver"
    assert steps(table.show(misread={"f6": "silver"}, e5=None, e4="silver")) == ["me5s"]


def test_board_right_when_a_stone_turned_still_reads_as_before():
    position = games.get("arinama").new({"rows": 5, "cols": 5})
    for move in ("c3", "e3", "b2", "d3", "b4", "c4"):
        position.push(move)
    table = Table(position)
    table.show(d4="black")  # turns c4 to black, and then itself to white
    assert table.instruction.kind == "flip"
    assert not table.referee.may_say_board_right()  # a review: one tap took it as done
    table.referee.hands(True)
    table.referee.hands(False)
    table.show(d4="white", c4="black", misread={"c4": "white"})  # glare on c4
    assert table.instruction.kind == "flip" and table.referee.may_say_board_right()
    table.referee.handle(RIGHT)
    assert table.instruction.text.startswith("White: place a stone")
    assert table.referee.position.move_stack[-1] == "d4"


def test_board_right_takes_an_arimaa_setup_that_a_shadow_spoils():
    from companion.referee.protocol import CHOOSE

    table = Table(games.get("arimaa").new())
    table.referee.handle(PlayerInput(CHOOSE, "standard"))
    made = {c: "gold" for c in table.instruction.expected}
    assert not table.referee.may_say_board_right()  # the empty board: nothing set up yet
    table.referee.hands(True)
    table.referee.hands(False)
    table.show(**made, misread={"d3": "gold"})  # a hard shadow before the dog on d2
    assert table.instruction.kind == "setup" and table.referee.may_say_board_right()
    events = table.referee.handle(RIGHT)
    assert [e.kind for e in events][:2] == ["board-right", "move"]  # then Silver's choice
    assert table.referee.position.turn == "silver" and "d3" in table.referee.misread
