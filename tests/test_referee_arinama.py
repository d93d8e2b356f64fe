"""The Arinama referee driven by hand-made observations: placements, flips, mistakes."""

import pytest

from companion import games
from companion.errors import UserError
from companion.referee.core import Referee, observation_of
from companion.referee.protocol import DONE, ERROR, FLIP, RESTORE, UNCLEAR, UNDO, PlayerInput

# A 5x5 game where Black's d4 turns c4 to black and then turns itself white (a self-flip).
OPENING = ["c3", "e3", "b2", "d3", "b4", "c4"]


class Table:
    """A physical board the test plays on, shown to the referee after every change."""

    def __init__(self, moves=(), **options):
        self.position = games.get("arinama").new({"rows": 5, "cols": 5, **options})
        for move in moves:
            self.position.push(move)
        self.board = dict(self.position.cells())
        self.referee = Referee(self.position.copy())
        self.names = self.position.cell_names()
        self.show()  # a referee given a game in progress waits to see that board first

    def show(self, **changes):
        for cell, colour in changes.items():
            if colour is None:
                self.board.pop(cell, None)
            else:
                self.board[cell] = colour
        return self.referee.observe(observation_of(self.names, self.board))

    @property
    def text(self):
        return self.referee.instruction.text


def test_a_placement_without_flips_is_accepted_and_passes_the_turn():
    table = Table()
    assert table.text == "Black: place a stone"
    events = table.show(c3="black")
    assert [e.kind for e in events] == ["move"]
    assert events[0].data["move"] == "c3"
    assert table.text == "White: place a stone"
    assert table.referee.position.move_stack == ["c3"]


def test_flips_and_self_flip_are_announced_and_awaited():
    table = Table(OPENING)
    events = table.show(d4="black")
    assert events[0].data == {
        "move": "d4",
        "player": "black",
        "flips": ["c4"],
        "self_flip": True,
    }
    instruction = table.referee.instruction
    assert instruction.text == "Turn c4 to black. Turn d4 to white"
    assert instruction.kind == "flip"
    assert instruction.highlights == {"c4": FLIP, "d4": FLIP}
    assert instruction.expected["c4"] == "black" and instruction.expected["d4"] == "white"
    assert instruction.detail == (  # why, in the rule's words
        "The white stone on c4 touches exactly three black stones now. "
        "The black stone on d4 touches exactly three white stones"
    )
    table.show(c4="black")  # one of two flips done
    assert table.text == "Turn d4 to white"
    table.show(d4="white")
    assert table.text == "White: place a stone"


def test_two_flips_are_named_in_one_sentence():
    moves = ["c3", "e3", "b2", "d3", "b4", "c4", "a3", "d4", "a5", "b5", "c2", "a4", "a2"]
    table = Table(moves)
    table.show(b3="white")
    assert table.text == "Turn a3 and c2 to white"
    assert table.referee.instruction.detail == (
        "The black stones on a3 and c2 each touch exactly three white stones now"
    )


def test_placing_and_flipping_in_one_go_is_fine():
    table = Table(OPENING)
    events = table.show(d4="white", c4="black")  # the player already did everything
    assert [e.kind for e in events] == ["move"]
    assert table.text == "White: place a stone"


def test_illegal_placement_is_named_and_waits_for_the_fix():
    table = Table(["c3", "e3"])
    events = table.show(a5="black")  # does not touch a black stone
    assert [e.kind for e in events] == ["illegal"]
    instruction = table.referee.instruction
    assert instruction.text == "Take the black stone off a5"
    assert "does not touch a black stone" in instruction.detail
    assert instruction.highlights == {"a5": ERROR}
    table.show(a5=None)
    assert table.text == "Black: place a stone"
    assert table.referee.position.move_stack == ["c3", "e3"]


def test_wrong_colour_and_second_stone():
    table = Table(["c3"])
    table.show(d4="black")
    assert table.text == "It is White's turn: take the black stone off d4"
    table.show(d4=None, b4="white", e5="white")
    assert table.text == "One stone per turn: take the stones off b4 and e5"
    assert table.referee.position.move_stack == ["c3"]


def test_a_stone_of_each_colour_at_once_names_the_other_player_s():
    """A trial: "One stone per turn: take the stones off b5 and c4" named no colour and took
    the mover's legal stone off too."""
    table = Table(["c3"])
    events = table.show(b2="white", d4="black")  # White's move; Black's stone put down too
    instruction = table.referee.instruction
    assert (instruction.kind, instruction.text) == (
        "illegal",
        "It is White's turn: take the black stone off d4",
    )
    assert instruction.highlights == {"d4": "error"} and instruction.expected["b2"] == "white"
    assert not any(e.kind == "move" for e in events)
    events = table.show(d4=None)
    assert [e.kind for e in events] == ["move"] and events[0].data["move"] == "b2"


def test_forgotten_flip_then_next_stone_is_not_a_move():
    table = Table(OPENING)
    table.show(d4="black")  # flips not done yet
    events = table.show(e5="white")  # White plays on regardless
    assert not any(e.kind == "move" for e in events)
    assert table.text == "Take the white stone off e5. Turn c4 to black. Turn d4 to white"
    # (a trial: the detail said "Put the board back as it was" - c4 had never been black)
    assert table.referee.instruction.detail == (
        "First the stones the last move turns, as the board must show them; then White "
        "places a stone"
    )
    table.show(e5=None, c4="black", d4="white")
    assert table.text == "White: place a stone"
    table.show(e5="white")
    assert table.referee.position.move_stack[-1] == "e5"
    # after a take-back whose board shows the flips made, a stone is put back as it was (a
    # review: the detail spoke of flips still to make)
    table.referee.handle(PlayerInput(UNDO))
    table.referee.handle(PlayerInput(DONE))
    assert table.text == "Take the white stone off e5"
    assert table.referee.instruction.detail == "Put the board back as it was"


def test_wrong_flip_is_turned_back():
    table = Table(OPENING)
    table.show(d4="black", b4="white")  # b4 must not flip
    assert table.text == "Turn c4 to black. Turn b4 back to black. Turn d4 to white"
    table.show(c4="black", d4="white")
    assert table.text == "Turn b4 back to black"
    assert table.referee.instruction.kind == "flip"


def test_disturbed_board_shows_what_to_restore():
    table = Table(["c3", "e3"])
    events = table.show(c3=None, d2="black")  # a stone knocked from c3 to d2
    assert [e.kind for e in events] == ["disturbed"]
    instruction = table.referee.instruction
    assert instruction.kind == "restore"
    assert instruction.text == "Move the black stone from d2 back to c3"
    assert instruction.highlights["c3"] == RESTORE
    assert instruction.expected == {"c3": "black", "e3": "white"}
    events = table.show(c3="black", d2=None)
    assert [e.kind for e in events] == ["restored"]
    assert table.text == "Black: place a stone"


def test_unknown_cells_ask_to_clear_the_view_and_never_guess():
    table = Table()
    board = {"c3": "black"}
    events = table.referee.observe(observation_of(table.names, board, unknown=("d4",)))
    assert [e.kind for e in events] == ["unclear"]
    assert table.text == "Clear the view: I cannot see d4"
    # keyed "cannot see", not "not allowed": the players did nothing wrong there (a trial)
    assert table.referee.instruction.highlights == {"d4": UNCLEAR}
    assert table.referee.position.move_stack == []
    table.show(c3="black")
    assert table.referee.position.move_stack == ["c3"]


def test_a_hand_over_the_board_is_never_a_move():
    table = Table()
    assert [e.kind for e in table.referee.hands(True)] == ["hands"]
    table.show(c3="black")
    assert table.referee.position.move_stack == []
    table.referee.hands(False)
    table.show(c3="black")
    assert table.referee.position.move_stack == ["c3"]


@pytest.mark.parametrize("second", [None, "white"])
def test_undo_needs_both_players_and_then_the_board_restored(second):
    table = Table(OPENING)
    table.show(d4="white", c4="black")
    referee = table.referee
    assert referee.handle(PlayerInput(UNDO, player="black"))[0].data["state"] == "requested"
    assert referee.instruction.kind == "confirm"
    assert referee.instruction.text == "White: press DONE to take back d4"
    assert referee.handle(PlayerInput(DONE, player="black")) == []  # the asker cannot agree
    events = referee.handle(PlayerInput(DONE, player=second))
    assert events[0].data == {"state": "done", "move": "d4"}
    assert referee.position.move_stack == OPENING
    assert table.text == "Take the white stone off d4. Turn c4 back to white"
    table.show(d4=None, c4="white")
    assert table.text == "Black: place a stone"


@pytest.mark.parametrize("press", ["cancel", "roll"])
def test_undo_can_be_refused(press):
    """On the screen by Cancel; at the table by ROLL (a trial: the buttons had no way to keep
    the move, though the instruction named CANCEL)."""
    table = Table(["c3"])
    table.referee.handle(PlayerInput(UNDO))
    assert "ROLL or CANCEL keeps the move" in table.referee.instruction.detail
    table.referee.handle(PlayerInput(press))
    assert table.referee.position.move_stack == ["c3"]
    assert table.text == "White: place a stone"


def test_a_stone_placed_while_a_take_back_waits_is_the_move_once_it_is_refused():
    """Found by a review: Black asked to take c3 back, White played d4 meanwhile and refused
    the take-back - and was told to take the white stone off d4 (a "disturbance", with Board
    is right offered), as the board seen while the request waited was never judged."""
    table = Table(["c3"])
    table.referee.handle(PlayerInput(UNDO, player="black"))
    table.show(d4="white")  # White plays on
    events = table.referee.handle(PlayerInput("cancel", player="white"))
    assert [e.kind for e in events] == ["undo", "move"]
    assert table.referee.position.move_stack == ["c3", "d4"]
    assert table.text == "Black: place a stone"


def test_game_over_is_announced_with_the_reason():
    # 3x3: fill the board; the referee announces the result from the engine.
    position = games.get("arinama").new({"rows": 3, "cols": 3})
    referee = Referee(position)
    names = position.cell_names()
    board = {}
    kinds = []
    while not referee.position.is_game_over():
        cell = referee.position.legal_moves()[0]
        board[cell] = referee.position.turn
        kinds += [e.kind for e in referee.observe(observation_of(names, board))]
        board = dict(referee.instruction.expected or referee.position.cells())
        kinds += [e.kind for e in referee.observe(observation_of(names, board))]
    assert kinds.count("game-over") == 1
    assert referee.instruction.kind == "game-over"
    outcome = referee.position.outcome()
    assert referee.instruction.detail == outcome.detail


def test_a_game_continued_at_its_start_clears_the_calibration_pieces_as_a_new_one(tmp_path):
    """A demo stopped before its first move and continued: the setup screen calibrated again
    and the play screen called its stones "One stone per turn" - an illegal move - offering
    Board is right (a player's trial)."""
    from companion.records import Records

    options = {"rows": 5, "cols": 5}
    board = {"c1": "black", "c2": "black", "c3": "white", "c4": "white"}
    position = games.get("arinama").new(options)
    assert position.calibration_pieces_stay(("empty", "black", "white"))
    names = position.cell_names()
    fresh = Referee(games.get("arinama").new(options), clear_first=True)
    with Records(tmp_path / "r.sqlite3") as records:
        game_id = Referee(position, records=records).game_id
        resumed = Referee.resume(records, game_id, calibrated=("empty", "black", "white"))
        for referee in (resumed, fresh):
            assert referee.observe(observation_of(names, board)) == []  # nothing illegal
    assert resumed.instruction == fresh.instruction
    assert resumed.instruction.text.startswith("Take the black stones off c1 and c2")
    assert not resumed.may_say_board_right()


def test_calibration_pieces_are_cleared_without_an_illegal_move():
    """The app starts the referee with the pieces the camera learned colours from still down."""
    position = games.get("arinama").new({"rows": 5, "cols": 5})
    referee = Referee(position, clear_first=True)
    names = position.cell_names()
    board = {"c1": "black", "c2": "black", "c3": "white", "c4": "white"}
    events = referee.observe(observation_of(names, board))
    assert [e.kind for e in events] == []  # no "illegal": nothing to buzz about
    instruction = referee.instruction
    assert instruction.kind == "restore"
    assert (
        instruction.text
        == "Take the black stones off c1 and c2. Take the white stones off c3 and c4"
    )
    assert "learned the colours" in instruction.detail
    events = referee.observe(observation_of(names, {}))
    assert [e.kind for e in events] == ["restored"]
    assert referee.instruction.text == "Black: place a stone"
    assert referee.position.move_stack == []
    # Later, with no move on the record (the first one taken back), a stone left on the board
    # is just something to take off: the calibration is long done.
    referee.observe(observation_of(names, {"c3": "black"}))
    referee.handle(PlayerInput(UNDO, player="black"))
    referee.handle(PlayerInput(UNDO, player="white"))
    assert referee.position.move_stack == []
    referee.observe(observation_of(names, {"c3": "black"}))
    assert referee.instruction.kind == "restore"
    assert referee.instruction.detail == "Put the board back as it was"


def test_a_colour_the_game_does_not_have_is_a_calibration_problem_not_a_move():
    table = Table()
    with pytest.raises(UserError, match="purple pieces, which Arinama does not have"):
        table.show(c3="purple")
    assert table.referee.position.move_stack == []


def test_the_last_move_s_flips_are_asked_for_before_the_game_over():
    """A player's trial: the winning stone's flip was never asked for - the screen went from
    "place a stone" to "Black wins", and the board left on the table was not the game's end
    (nor the count a full board is decided by)."""
    import random

    for seed in range(40):
        rng = random.Random(seed)
        position = games.get("arinama").new({"rows": 5, "cols": 5})
        referee = Referee(position)
        names = position.cell_names()
        board: dict[str, str] = {}
        referee.observe(observation_of(names, board))
        while not referee.position.is_game_over():
            cell = rng.choice(referee.position.legal_moves())
            effects = referee.position.placement_effects(cell)
            referee.observe(observation_of(names, {**board, cell: effects.mover}))
            board = {**board, **effects.after()}
            if not referee.position.is_game_over():
                referee.observe(observation_of(names, board))
        if effects.flipped:
            break
    else:
        pytest.fail("no game of 40 ended with a flip")
    last = referee.instruction
    assert last.kind == "flip" and last.text.startswith("Turn ")
    referee.observe(observation_of(names, board))  # the flips made
    assert referee.instruction.kind == "game-over"
    assert last.detail.endswith(f"Then: {referee.instruction.text}")  # "Black wins"


def test_a_stone_turned_by_mistake_is_not_given_the_last_flip_s_reason():
    """A trial: the right stone turned, and another turned too - "Turn d4 back to white (The
    white stone on c4 touches exactly three black stones now)", the reason for c4, not d4."""
    table = Table(OPENING)
    table.show(d4="black")  # c4 turns to black, d4 itself to white
    table.show(c4="black")
    assert table.text == "Turn d4 to white"
    assert table.referee.instruction.detail == (
        "The black stone on d4 touches exactly three white stones"
    )
    table.show(d4="white")
    assert table.text == "White: place a stone"
    # White places e5, which turns nothing; a black stone turned as well by mistake
    table.show(e5="white", c3="white")
    assert table.text == "Turn c3 back to black"
    assert table.referee.instruction.detail == (
        "Only stones that touch exactly three white stones turn over"
    )
