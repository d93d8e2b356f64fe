"""The Aranea referee: ROLL, the uses of the value, the landing cascade, knock-offs, void
moves, passes and the win, driven by hand-made observations (positions from seeded games)."""

from companion import games
from companion.dice import Dice
from companion.records import Records
from companion.referee.core import Referee, observation_of
from companion.referee.protocol import DONE, ROLL, UNDO, PlayerInput

# Move lists of seeded random games (underscores stand for spaces), each stopping at a roll
# whose use shows one rule.
CASCADE = "roll_4-4 place roll_1-3 place roll_5-4 place roll_4-3 r1-4 roll_4-3"
CASCADE_KNOCK = "roll_5-1 place roll_4-3 place roll_1-1 r1-6 roll_2-6 place roll_5-4 place roll_6-3 place roll_3-1 place roll_3-4 r1-8 roll_2-6 r1-4 roll_4-5 place roll_5-6 r1-12 roll_1-2 r2-9 roll_5-5 place roll_6-6 place roll_3-6 r1-11 roll_5-6 r2-12 roll_1-4 r1-10 roll_3-1 place roll_3-4 place roll_3-4 r2-11 roll_6-1 r1-3 roll_2-6 r3-9 roll_6-3 place roll_1-1 r2-12 roll_5-2 r1-8 roll_6-3 place roll_4-2 r1-3 roll_5-5 r2-2 roll_6-6 place roll_5-1 r3-5 roll_6-3 place roll_2-5 r1-4 roll_4-3 r2-9 roll_3-5 r2-12 roll_1-1 place roll_5-6 place roll_5-2 r1-10 roll_1-5 r1-11 roll_6-3 r2-10 roll_3-6 r2-8 roll_2-4 r1-9 roll_4-2 r1-5 roll_2-5 r1-12 roll_2-6 r3-11 roll_5-1"
VOID = "roll_3-2 place roll_4-6 place roll_1-1 r1-5 roll_5-1 place roll_3-5 place roll_1-5 r1-10 roll_2-1 place roll_1-4 r1-4 roll_4-1 place roll_2-1 r1-9 roll_5-4 r1-3 roll_1-5 place roll_1-2 place roll_6-6 place roll_5-1 r1-7 roll_5-5 place roll_4-1 r1-1 roll_2-1 place roll_5-2 r1-8 roll_3-4 place roll_2-5 place roll_1-5 r1-1 roll_3-5 place roll_6-2 r2-6 roll_1-5 r1-8 roll_5-6 r1-12 roll_2-3 place roll_1-5 r1-7 roll_6-1 place roll_5-1 r2-2 roll_5-2 r2-5 roll_4-6 r1-1 roll_5-4 r1-3 roll_3-4 r2-8 roll_5-4 r1-2 roll_3-3 place roll_2-2 r1-12 roll_6-2 r1-10 roll_1-5 r1-11 roll_3-5 r1-6 roll_4-3 place roll_6-4 r2-11 roll_3-5 r1-7 roll_1-1 r1-2 roll_5-4 r1-3 roll_2-3 place roll_2-4 r2-12 roll_4-1 place roll_6-1 place roll_5-5 r2-9 roll_3-3 r1-1 roll_6-3 r2-5 roll_5-4 r2-7 roll_5-4 r2-2 roll_1-1 r1-12 roll_3-4 r2-11 roll_6-6 place roll_1-1 r1-5 roll_6-6 place roll_3-6 r1-4 roll_5-6 r1-2 roll_4-3 r3-9 roll_6-4 r1-1 roll_6-3 place roll_1-4 r2-6 roll_3-2 r1-9 roll_5-1 r2-11 roll_4-1 r3-10 roll_2-3 r1-12 roll_2-6 r3-3 roll_2-4 r1-11 roll_4-4 place roll_1-2 place roll_4-4 r3-11 roll_5-3 r2-4 roll_2-4 r1-2 roll_5-3 r3-12 roll_6-4 r1-8 roll_3-6 r1-3 roll_4-2 r2-8 roll_2-1 r2-5 roll_2-2 place roll_2-6 r3-5 roll_2-1 place roll_4-5 r3-8 roll_2-3 r1-7 roll_3-1 r3-1 roll_2-4 r3-7 roll_5-3 r2-8 roll_5-5 r1-4 roll_3-2 r2-4 roll_6-5 r1-12 roll_5-6 r2-12 roll_6-6 place roll_1-4 place roll_6-5 r1-2 roll_4-4"


def position_after(moves: str, **options):
    position = games.get("aranea").new({"first": "amber", **options})
    for text in moves.split():
        position.push(position.parse_move(text.replace("_", " ")))
    return position


class Table:
    def __init__(self, position=None, records=None, seed=1):
        self.position = position or games.get("aranea").new({"first": "amber"})
        self.board = dict(self.position.cells())
        self.referee = Referee(self.position.copy(), records=records, dice=Dice(seed=seed))
        self.names = self.position.cell_names()
        self.show()

    def show(self, **changes):
        for cell, kind in changes.items():
            cell = cell.replace("_", "-")
            if kind is None:
                self.board.pop(cell, None)
            else:
                self.board[cell] = kind
        return self.referee.observe(observation_of(self.names, self.board))

    def press(self, kind, player=None):
        return self.referee.handle(PlayerInput(kind, player=player))

    @property
    def text(self):
        return self.referee.instruction.text


def test_roll_shows_the_value_and_its_uses_and_is_recorded(tmp_path):
    records = Records(tmp_path / "r.sqlite3")
    table = Table(records=records, seed=1)
    assert table.text == "Amber: press ROLL"
    events = table.press(ROLL)
    roll = events[0]
    assert roll.kind == "roll" and roll.data["value"] == 7
    assert table.text == "Amber rolled 7: place a stone on r1-7"
    # the dice never as "2-5", which reads like a cell beside "r1-7"
    assert table.referee.instruction.detail == "The dice: 2 and 5"  # ("Roll": an order)
    assert table.referee.instruction.highlights == {"r1-7": "target"}
    events = table.show(r1_7="amber")
    assert events[0].data["move"] == "place"
    assert table.text == "Blue: press ROLL"
    record = records.game(table.referee.game_id)
    assert [r.value for r in record.rolls] == [7]
    assert [m.text for m in record.moves] == ["roll 2-5", "place"]


def test_a_move_before_the_roll_is_refused():
    table = Table()
    table.show(r1_5="amber")
    instruction = table.referee.instruction
    assert instruction.kind == "illegal"
    assert instruction.text == "Take the amber stone off r1-5"
    assert instruction.detail == "Roll first: Amber presses ROLL"
    assert table.press(ROLL) == []  # no roll until the board is right
    table.show(r1_5=None)
    assert table.press(ROLL)[0].kind == "roll"


def test_the_landing_cascade_is_announced():
    table = Table(position_after(CASCADE))
    assert table.text == "Amber rolled 1: place a stone on r1-1 or move r1-8 or r1-9"
    table.show(r1_8=None)  # the stone is lifted: it lands on its own stone on r1-9
    assert table.text == "Your stone goes on inward to r2-9"
    assert table.referee.instruction.expected["r2-9"] == "amber"
    events = table.show(r2_9="amber")
    assert events[0].data == {
        "move": "r1-8",
        "player": "amber",
        "path": ["r1-9", "r2-9"],
        "knocked_off": [],
    }
    assert table.text == "Blue: press ROLL"


def test_knock_off_and_cascade_together():
    table = Table(position_after(CASCADE_KNOCK))
    table.show(r1_1=None)
    assert table.text == (
        "Give the blue stone on r3-7 back to Blue. Your stone goes on inward to r3-7"
    )
    assert table.referee.instruction.highlights == {"r3-7": "remove"}  # first the blue one
    table.show(r3_7=None)
    assert table.text == "Your stone goes on inward to r3-7"
    events = table.show(r3_7="amber")
    assert events[0].data["knocked_off"] == ["r3-7"]
    assert table.referee.position.stock["blue"] == position_after(CASCADE_KNOCK).stock["blue"] + 1


def test_the_knocked_off_stone_taken_off_first_is_part_of_the_move():
    """Players often take the opponent's stone off before moving their own onto its cell: the
    referee called that "not a use of the 4" and asked for the blue stone back (a trial)."""
    table = Table(position_after(CASCADE_KNOCK))
    events = table.show(r3_7=None)  # the blue stone first; Amber's stone is still on r1-1
    assert events == []  # (not "disturbed")
    instruction = table.referee.instruction
    assert instruction.text == "Move your stone from r1-1 to r3-7"
    assert (instruction.kind, instruction.highlights["r1-1"]) == ("move", "from")
    # where it goes is "put here"; the own stones it passes inward stay, and are not marked
    # (a trial: "moved from" on them, "just moved" on the empty r3-7)
    assert instruction.highlights == {"r1-1": "from", "r3-7": "target"}
    table.show(r1_1=None)
    assert table.text == "Your stone goes on inward to r3-7"
    assert table.referee.instruction.highlights == {"r3-7": "target"}
    events = table.show(r3_7="amber")
    assert events[0].kind == "move" and events[0].data["knocked_off"] == ["r3-7"]


# a seeded game stopping at a roll of 7 that two of Blue's stones (r1-6, r2-6) could use to
# land on r2-1 and knock off the amber stone there
TWO_KNOCK = "roll_4-5 place roll_3-3 place roll_2-2 r1-9 roll_6-1 place roll_3-5 place roll_4-5 r1-7 roll_1-3 place roll_5-5 r1-6 roll_6-1 r1-8 roll_6-4 r1-4 roll_2-6 r1-3 roll_4-6 place roll_4-2 r1-1 roll_2-2 r1-10 roll_1-1 r1-11 roll_2-5 r2-2 roll_5-1 place roll_6-4 r2-9 roll_6-1 r1-7 roll_3-2 place roll_6-2 r1-6 roll_6-4 r2-7 roll_1-3 r2-2 roll_2-4 place roll_3-3 r1-1 roll_1-2 r1-5 roll_6-1 place roll_4-1 place roll_4-4 r1-2 roll_2-1 r2-5 roll_2-4 r2-7 roll_6-1 place roll_5-1 r2-6 roll_1-5 r2-8 roll_2-2 place roll_3-1 r1-6 roll_1-2 r1-4 roll_5-1 r1-5 roll_5-1 r2-12 roll_5-4 place roll_5-2 r2-1 roll_4-1 r1-8 roll_4-2 r2-8 roll_6-1 r1-9 roll_6-5 r2-2 roll_2-2 place roll_5-6 r1-7 roll_1-1 r2-4 roll_3-5 place roll_6-5 r1-10 roll_2-6 place roll_3-6 r1-9 roll_5-1 r2-8 roll_1-6"


def test_a_stone_knocked_off_first_that_two_stones_could_land_on_names_both():
    """A review: the board with the amber stone taken off first was read as the first use
    that fits, and "Move your stone from r1-6 to r2-1" named one stone as if the board had
    said which."""
    table = Table(position_after(TWO_KNOCK))
    table.show(r2_1=None)
    instruction = table.referee.instruction
    assert instruction.text == "Move your stone from r1-6 or r2-6 to r2-1"
    assert {c: r for c, r in instruction.highlights.items() if r == "from"} == {
        "r1-6": "from",
        "r2-6": "from",
    }
    events = table.show(r2_6=None, r2_1="blue")  # either is the move
    assert events[0].kind == "move" and events[0].data["knocked_off"] == ["r2-1"]


# a seeded game stopping at a roll that places Amber's stone on r1-11 or moves r1-12 there,
# either knocking off the blue stone on r1-11
PLACE_OR_MOVE = "roll_4-4 place roll_1-3 place roll_5-4 place roll_4-3 r1-4 roll_4-3 r1-9 roll_5-2 r1-5 roll_5-2 r1-8 roll_3-2 r1-12 roll_1-5 r1-3 roll_3-5 r1-5 roll_6-5 r1-10 roll_2-3 place roll_1-6 r2-9 roll_1-6 place roll_3-4 r1-9 roll_5-1 r1-1 roll_3-4 place roll_3-5 r1-7 roll_6-2 r1-1 roll_5-4 r1-5 roll_4-5 place roll_3-1 place roll_5-1 r1-10 roll_1-6 r2-7 roll_4-6 r2-9 roll_6-6 place roll_1-5 r1-9 roll_4-3 r2-2 roll_2-6 r1-4 roll_3-6 r2-3 roll_1-2 r1-3 roll_5-2 r2-12 roll_2-2 r2-4 roll_5-4 r1-2 roll_1-1 r1-12 roll_3-5 place roll_4-1 place roll_3-5 place roll_3-6 r1-6 roll_1-5 place roll_3-5 r1-5 roll_2-5 r1-8 roll_5-5 place roll_3-4 r2-8 roll_1-5 r1-2 roll_4-3 r2-9 roll_5-2 place roll_3-2 r1-3 roll_2-2 r1-1 roll_1-5 r1-6 roll_6-3 r1-5 roll_4-1 r2-7 roll_1-6 r1-10 roll_2-2 place roll_1-1 place roll_6-5 r1-8 roll_6-4 r2-2 roll_6-5 place roll_3-5 r1-5 roll_2-2 r1-12 roll_6-5 r1-2 roll_4-5 r2-10 roll_3-4 place roll_4-6 r2-4 roll_6-6 place roll_3-1 r2-11 roll_3-5 r2-12 roll_1-4 r1-4 roll_5-6"


def test_a_stone_knocked_off_first_that_a_placement_or_a_move_could_take_names_both():
    """A review: "Put your stone on r1-11" alone, where moving r1-12 there was the other use
    the board could be on its way to."""
    table = Table(position_after(PLACE_OR_MOVE))
    table.show(r1_11=None)
    instruction = table.referee.instruction
    assert instruction.text == "Put a stone on r1-11, or move your stone from r1-12 there"
    assert instruction.highlights == {"r1-12": "from", "r1-11": "target"}


def test_a_stone_taken_off_that_no_use_knocks_off_is_put_back():
    table = Table(position_after(CASCADE_KNOCK))
    blue = next(c for c, k in table.board.items() if k == "blue" and c != "r3-7")
    table.show(**{blue.replace("-", "_"): None})
    assert table.referee.instruction.kind == "restore"
    assert table.text == f"Put the blue stone back on {blue}"


def test_a_void_move_asks_for_another_use():
    table = Table(position_after(VOID))
    table.show(r2_9=None)  # its way inward ends on centre 5, which is taken
    instruction = table.referee.instruction
    assert instruction.text == "Centre 5 is taken: use the roll another way"
    assert instruction.kind == "illegal"
    assert instruction.detail == "Put the amber stone back on r2-9"
    table.show(r2_9="amber")
    assert table.text.startswith("Amber rolled 8:")


def test_a_wrong_destination_is_put_back():
    table = Table(position_after(CASCADE))
    table.show(r1_8=None, r1_10="amber")
    instruction = table.referee.instruction
    assert instruction.kind == "restore"
    assert instruction.text == "Move the amber stone from r1-10 back to r1-8"
    assert instruction.detail == "That is not a use of the 1"


def test_undo_takes_back_the_use_but_never_the_roll():
    table = Table(position_after(CASCADE))
    table.show(r1_8=None, r2_9="amber")
    assert table.press(UNDO, "amber")[0].data["state"] == "requested"
    assert table.text == "Blue: press DONE to take back r1-8"  # a ring move keeps its square
    assert table.referee.move_words("place") == "the stone placed"  # Aranea's notation in words
    assert table.referee.move_words("roll 3-4") == "the roll 3 and 4"
    table.press(DONE, "blue")
    assert table.referee.position.move_stack[-1].kind == "roll"
    assert table.text == "Move the amber stone from r2-9 back to r1-8"
    table.show(r2_9=None, r1_8="amber")
    assert table.text.startswith("Amber rolled 1:")
    assert table.press(UNDO) == []  # a roll stands


def test_no_legal_use_passes_by_itself():
    # Amber's only stone sits where every use is impossible: find a seed whose roll is unusable.
    position = position_after(VOID)
    position.pop()  # back to before Amber's roll... then take away Amber's stock
    position.stock["amber"] = 0
    for seed in range(50):
        board = position.copy()
        move = board.roll_move(Dice(seed=seed))
        board.push(move)
        if [str(m) for m in board.legal_moves()] == ["pass"]:
            break
    table = Table(position, seed=seed)
    events = table.press(ROLL)
    assert [e.kind for e in events] == ["roll", "move", "move"]
    assert events[-1].data["move"] == "pass"
    assert table.text == "Blue: press ROLL"
    assert table.referee.instruction.detail.startswith("Amber could not use the")


def test_the_win_is_announced():
    for seed in range(400):
        position = games.get("aranea").new({"first": "amber"})
        dice, rng = Dice(seed=seed), __import__("random").Random(seed)
        while not position.is_game_over() and len(position.move_stack) < 600:
            position.push(
                position.roll_move(dice) if position.awaiting_roll else position.random_move(rng)
            )
        if position.is_game_over():
            break
    last = position.pop()
    table = Table(position)
    board = dict(table.board)
    after = position.copy()
    after.push(last)
    table.board = after.cells()
    events = table.show()
    assert [e.kind for e in events] == ["move", "game-over"]
    outcome = after.outcome()
    assert table.text == f"{outcome.winner.capitalize()} wins"
    assert table.referee.instruction.detail == outcome.detail
    assert board != table.board


def test_after_the_opening_rolls_the_screen_says_who_starts_and_why():
    """A trial: after the roll-off the screen went on to "Blue: press ROLL" and nothing said
    who had won it, nor with what."""
    table = Table(games.get("aranea").new(), seed=3)  # the opening roll decides who starts
    assert table.text == "Amber: press ROLL to see who starts"
    rolls = []
    while table.referee.position.in_opening_roll:
        rolls.append(table.press(ROLL)[0].data["value"])
    amber, blue = rolls[-2:]
    starter = "Amber" if amber > blue else "Blue"
    assert table.text == f"{starter}: press ROLL"
    won, lost = (amber, blue) if starter == "Amber" else (blue, amber)
    assert table.referee.instruction.detail == f"{starter} starts: {won} against {lost}"
    table.press(ROLL)
    assert "starts" not in table.referee.instruction.detail


def test_a_pass_chosen_with_a_usable_roll_is_not_said_as_could_not_use():
    """A trial: with -o must_use_roll=false, Amber rolled 7, could place a stone and passed -
    and the screen said "Amber could not use the 7"."""
    table = Table(games.get("aranea").new({"first": "amber", "must_use_roll": False}), seed=1)
    table.press(ROLL)
    assert "press DONE to pass" in table.text
    table.press(DONE)
    assert table.text == "Blue: press ROLL"
    assert table.referee.instruction.detail == "Amber passed with the 7"


def test_undo_that_takes_nothing_back_says_why():
    """A trial: Undo after the next player had rolled (or before the first move) changed
    nothing, without a word. `nothing_to_undo` says why; the app and `companion referee` say
    it."""
    table = Table(seed=1)
    assert table.referee.nothing_to_undo() == "There is no move to take back yet"
    table.press(ROLL)
    table.show(r1_7="amber")
    assert table.referee.nothing_to_undo() == ""  # the placement may be taken back
    table.press(ROLL)
    assert table.press(UNDO) == []
    assert table.referee.nothing_to_undo() == (
        "The dice are rolled: a roll is never taken back, nor the move before it"
    )


def test_undo_during_the_opening_rolls_says_there_is_no_move_yet():
    """A review: after the opening rolls (a tie among them) UNDO said "The dice are rolled: a
    roll is never taken back, nor the move before it" - there was no move before."""
    table = Table(games.get("aranea").new(), seed=3)  # seed 3: the first opening rolls tie
    table.press(ROLL)
    table.press(ROLL)
    assert table.referee.position.in_opening_roll  # a tie: rolled again
    assert table.referee.nothing_to_undo() == "There is no move to take back yet"


def test_done_with_a_roll_that_must_be_used_says_why_nothing_happened():
    """A trial: DONE with a usable roll (the roll must be used, rules.md's Decision) did
    nothing and said nothing. The instruction now says when DONE passes - on that turn only."""
    table = Table(seed=1)
    table.press(ROLL)
    assert table.text == "Amber rolled 7: place a stone on r1-7"
    assert table.press(DONE) == []
    assert table.text == "Amber rolled 7: place a stone on r1-7"
    assert table.referee.instruction.detail == "DONE passes only when the 7 cannot be used"
    table.show(r1_7="amber")
    table.press(ROLL)
    assert "DONE passes" not in table.referee.instruction.detail  # Blue's turn: not said
