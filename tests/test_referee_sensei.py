"""The Sensei referee driven by hand-made observations: actions in any order, DONE, wins."""

from companion import games
from companion.games.sensei import SenseiPosition
from companion.records import Records
from companion.referee.core import Referee, observation_of
from companion.referee.protocol import CANCEL, DONE, ERROR, PlayerInput


class Table:
    def __init__(self, position=None, records=None):
        self.position = position or games.get("sensei").new()
        self.board = dict(self.position.cells())
        self.referee = Referee(self.position.copy(), records=records)
        self.names = self.position.cell_names()
        self.show()

    def show(self, **changes):
        for cell, kind in changes.items():
            if kind is None:
                self.board.pop(cell, None)
            else:
                self.board[cell] = kind
        return self.referee.observe(observation_of(self.names, self.board))

    def done(self, player=None):
        return self.referee.handle(PlayerInput(DONE, player=player))

    @property
    def text(self):
        return self.referee.instruction.text


def test_actions_in_any_order_then_done_records_the_turn():
    table = Table()
    assert table.text == "Green: move a stone or your character"
    events = table.show(b1=None, b4="green")
    assert [e.data["action"] for e in events] == ["b1-b4"]
    assert table.text == "Green: press DONE to end your turn"
    # the character first lands on c1, then its stone cannot move - so c1 moved first
    events = table.show(c1=None, c2="green")
    events = table.show(d1="green", c2="green-character")
    assert [e.data["action"] for e in events] == ["@d1-c2"]
    assert "So far b1-b4 c1-c2 @d1-c2" in table.referee.instruction.detail
    events = table.done()
    assert events[0].kind == "move" and events[0].data["move"] == "b1-b4 c1-c2 @d1-c2"
    assert table.text == "Red: move a stone or your character"


def test_two_actions_between_two_looks_are_both_found():
    table = Table()
    events = table.show(b1=None, b3="green", f1=None, f5="green")
    assert sorted(e.data["action"] for e in events) == ["b1-b3", "f1-f5"]


def test_a_stone_moved_back_is_no_action():
    table = Table()
    table.show(b1=None, b4="green")
    table.show(b4=None, b1="green")
    assert table.referee.position.actions_this_turn == ()
    assert table.done() == []  # one DONE ends no turn: nothing was seen to move
    assert table.text == "Green: press DONE again to end your turn with every piece where it was"


def test_a_second_done_ends_a_turn_that_left_every_piece_where_it_was(tmp_path):
    """A stone moved and moved straight back is a legal turn (a stone's second move may be
    the same stone again); the camera cannot see it, so DONE is asked twice and the turn is
    the engine's own there-and-back turn."""
    records = Records(tmp_path / "r.sqlite3")
    table = Table(records=records)
    assert table.done() == []
    instruction = table.referee.instruction
    assert (instruction.kind, instruction.player) == ("confirm", "green")
    assert instruction.detail.startswith("Nothing has moved")
    events = table.done()
    assert [e.kind for e in events] == ["move"]
    assert events[0].data["move"] == "a1-a2 a2-a1"
    assert table.text == "Red: move a stone or your character"
    assert table.referee.position.cells() == table.board
    stored = records.game(table.referee.game_id, images=False)
    assert [m.text for m in stored.moves] == ["a1-a2 a2-a1"]
    assert records.resume(table.referee.game_id).cells() == table.board
    # a take-back names it as what it was (a trial: "take back a1-a2 a2-a1" read as a move
    # nobody made)
    table.referee.handle(PlayerInput("undo"))
    assert table.text == (
        "Press DONE to take back the turn with every piece where it was (a1-a2 a2-a1)"
    )


def test_a_second_done_held_under_a_hand_is_taken_on_the_same_board():
    """A review: every still board withdrew the question, the same board too - so a second
    DONE held while a hand was over the board only asked again once the hand left."""
    table = Table()
    table.done()
    table.referee.hands(True)
    assert [e.kind for e in table.done()] == ["held"]
    table.referee.hands(False)
    events = table.show()  # the same board, read once the hand has gone
    assert [e.kind for e in events] == ["move"] and events[0].data["move"] == "a1-a2 a2-a1"


def test_cancel_withdraws_the_question_of_a_second_done():
    """A trial: the play screen shows Cancel beside every question, and Cancel left "press
    DONE again" standing."""
    table = Table()
    table.done()
    table.referee.handle(PlayerInput(CANCEL))
    assert table.text == "Green: move a stone or your character"
    assert table.done() == [] and "DONE again" in table.text  # asked again, not taken


def test_a_move_after_the_first_done_withdraws_the_offer():
    table = Table()
    table.done()
    table.show(b1=None, b4="green")
    table.show(b4=None, b1="green")  # and back: the offer is gone, DONE asks again
    assert table.text == "Green: move a stone or your character"
    assert table.done() == []
    assert table.text == "Green: press DONE again to end your turn with every piece where it was"
    table.show(c1=None, c3="green")
    assert [e.kind for e in table.done()] == ["move"]
    assert table.referee.position.move_stack[-1] != ()


def test_illegal_actions_are_named():
    table = Table()
    events = table.show(d1=None, d3="green-character")  # the character's stone moves
    assert events[0].kind == "illegal"
    instruction = table.referee.instruction
    assert instruction.detail == "The stone on d1 carries the character and cannot move"
    # one piece moved, one sentence (a trial: "Take the green stone with its character off
    # d3. Put the green stone with its character back on d1")
    assert instruction.text == "Move the green stone with its character from d3 back to d1"
    assert instruction.highlights == {"d1": ERROR, "d3": ERROR}
    table.show(d3=None, d1="green-character")
    table.show(g1=None, g3="green")
    table.show(b1=None, c2="green")  # diagonal (and one stone move left, so not b1-b2-c2)
    assert table.referee.instruction.detail == "Stones move along a row or column, never diagonally"
    assert table.done() == []  # no DONE on an illegal board
    table.show(c2=None, b1="green", g3=None, g1="green")
    table.show(a7=None, a5="red")  # the other player's stone
    assert table.referee.instruction.detail == "The stone on a7 is red: it is Green's turn"


def test_a_third_stone_move_is_refused():
    table = Table()
    table.show(a1=None, a3="green")
    table.show(b1=None, b3="green")
    table.show(c1=None, c3="green")
    assert table.referee.instruction.detail == "You already moved two stones this turn"
    assert table.referee.position.actions_this_turn != ()


def test_character_home_wins_at_once(tmp_path):
    records = Records(tmp_path / "r.sqlite3")
    position = SenseiPosition.from_rows("""
        g r r R r r r
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        G g g g g g .
    """)
    table = Table(position, records=records)
    events = table.show(a1="green", a7="green-character")
    assert [e.kind for e in events] == ["action", "move", "game-over"]
    assert table.text == "Green wins"
    assert "reached a7" in table.referee.instruction.detail
    record = records.game(table.referee.game_id)
    assert [m.text for m in record.moves] == ["@a1-a7"]
    assert record.summary.status == "finished"


def test_unfair_game_is_announced_with_the_reason():
    position = SenseiPosition.from_rows("""
        . . . R r r .
        . . . . . . .
        r r r . . . .
        g g g G g g .
        . . . . . . .
        . . . . . . g
        . . . . . . .
    """)
    table = Table(position)
    table.show(g2=None, g3="green")
    assert table.referee.instruction.kind == "move"  # not over until DONE ends the turn
    events = table.done()
    assert [e.kind for e in events] == ["move", "game-over"]
    assert table.text == "Red wins"
    assert "cannot be crossed" in table.referee.instruction.detail


def test_restart_mid_turn_carries_on_with_the_actions_on_the_board(tmp_path):
    path = tmp_path / "r.sqlite3"
    table = Table(records=Records(path))
    table.show(b1=None, b4="green")
    game_id = table.referee.game_id
    again = Referee.resume(Records(path), game_id)
    again.observe(observation_of(table.names, table.board))
    assert again.position.actions_this_turn == table.referee.position.actions_this_turn
    assert again.instruction.text == "Green: press DONE to end your turn"


def test_an_action_made_while_a_take_back_waits_counts_once_it_is_refused():
    """Found by a review: Red played b7-b5 while Green's take-back of b1-b4 waited, refused
    it, and pressed DONE - which did nothing: the action was never judged, and Red was told
    to put the stone back."""
    from companion.referee.protocol import CANCEL, UNDO

    table = Table()
    table.show(b1=None, b4="green")
    table.done()
    table.referee.handle(PlayerInput(UNDO, player="green"))
    table.show(b7=None, b5="red")  # Red plays on
    table.referee.handle(PlayerInput(CANCEL, player="red"))
    assert table.referee.instruction.kind == "move", table.text
    events = table.done(player="red")
    assert [e.data.get("move") for e in events if e.kind == "move"] == ["b7-b5"]


def test_done_pressed_while_cells_are_unclear_waits_for_the_board_and_ends_the_turn_then():
    """Found by a review: DONE pressed while glare hid the turn's second action ended the
    turn with the first alone, and the second then read as the other player's illegal
    change. Held until the board is read in full, it ends the turn with both."""
    table = Table()
    table.show(b1=None, b4="green")
    table.board.pop("f1")
    table.board["f4"] = "green"
    table.referee.observe(observation_of(table.names, table.board, unknown=("f1", "f4")))
    events = table.done()
    assert [e.kind for e in events] == ["held"]
    assert "as soon as the camera sees the board still" in table.referee.instruction.detail
    assert table.referee.position.move_stack == []
    events = table.show()  # the view clears
    moves = [e.data["move"] for e in events if e.kind == "move"]
    assert moves == ["b1-b4 f1-f4"], events
    assert table.referee.held is None


def test_a_press_held_is_dropped_by_any_other_input():
    from companion.referee.protocol import CANCEL

    table = Table()
    table.show(b1=None, b4="green")
    table.referee.hands(True)
    assert [e.kind for e in table.done()] == ["held"]
    table.referee.handle(PlayerInput(CANCEL))
    table.referee.hands(False)
    table.show()
    assert table.referee.position.move_stack == []  # the turn goes on: DONE not taken


def test_a_character_moved_on_its_own_is_named_as_the_figurine():
    """A trial: a lifted character was "Swap the green stone on d1 for the green stone with its
    character", and one put on an empty cell gave no rule."""
    table = Table()
    table.show(d1="green")  # the figurine lifted off its stone
    assert table.text == "Put Green's character back on d1"
    table.show(d4="green-character")  # put down on an empty cell
    instruction = table.referee.instruction
    assert (instruction.kind, instruction.text) == (
        "illegal",
        "Move Green's character from d4 back to d1",
    )
    assert instruction.detail == "A character must land on one of your own stones, and d4 is empty"
    table.show(d4=None, d1="green-character")
    assert table.text == "Green: move a stone or your character"
    table.show(d1="green", c7="green-character")  # onto a red stone (a review: "Swap ...")
    assert table.text == "Move Green's character from c7 back to d1"
    table.show(d1="green-character", c7="red")
    assert table.text == "Green: move a stone or your character"


def test_a_character_that_jumped_over_an_opponent_stone_is_moved_back():
    position = SenseiPosition.from_rows(
        ["...R...", ".......", ".......", ".......", ".....g.", "....r..", "gg.Gggg"]
    )
    table = Table(position)
    table.show(d1="green", f3="green-character")
    instruction = table.referee.instruction
    assert instruction.text == "Move Green's character from f3 back to d1"
    assert instruction.detail == "A red stone blocks the character's way at e2"


def test_a_take_back_mid_turn_says_this_turn_s_actions_go_too():
    """A trial: UNDO in the middle of Red's turn asked "Press DONE to take back b1-b3" - not
    that Red's actions so far go back too (Arimaa's prompt says so of its steps)."""
    table = Table()
    table.show(b1=None, b3="green")
    table.done()
    table.show(c7=None, c5="red")  # Red's first action
    table.referee.handle(PlayerInput("undo"))
    instruction = table.referee.instruction
    assert (instruction.kind, instruction.text) == ("confirm", "Press DONE to take back b1-b3")
    assert instruction.detail.startswith("The actions made this turn go back too")
