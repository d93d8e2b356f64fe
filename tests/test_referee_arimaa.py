"""The Arimaa referee: setup choices, each physical step checked from colours alone, captures,
questions when two pieces could be where, the end of the turn and of the game."""

import pytest
from shared_data import ARIMAA_GAMES

from companion import games
from companion.errors import UserError
from companion.games.arimaa import STANDARD_SETUP, ArimaaPosition
from companion.referee.core import Referee, observation_of
from companion.referee.protocol import ASKED, CHOOSE, DONE, UNDO, PlayerInput

FAR = {"h1": "R", "h8": "r", "g8": "e"}  # rabbits for both sides far away: no game-over


class Table:
    def __init__(self, position):
        self.referee = Referee(position.copy())
        self.board = dict(position.cells())
        self.names = position.cell_names()
        self.show()

    def show(self, **changes):
        for cell, kind in changes.items():
            if kind is None:
                self.board.pop(cell, None)
            else:
                self.board[cell] = kind
        return self.referee.observe(observation_of(self.names, self.board))

    def step(self, origin, dest):
        colour = self.board.pop(origin)
        self.board[dest] = colour
        return self.show()

    def press(self, kind, value=None):
        return self.referee.handle(PlayerInput(kind, value))

    @property
    def instruction(self):
        return self.referee.instruction


def position(pieces, side="gold"):
    return ArimaaPosition.from_board({**FAR, **pieces}, side=side)


def test_setup_by_choice_then_by_typed_line():
    table = Table(games.get("arimaa").new())
    assert table.instruction.kind == "choose"
    assert table.instruction.choices == ("standard",)
    table.press(CHOOSE, "standard")
    assert table.instruction.text == "Gold: set up your pieces as shown"
    assert table.instruction.detail == STANDARD_SETUP["gold"]
    for cell in table.instruction.expected:
        table.board[cell] = "gold"
    events = table.show()
    assert events[0].kind == "move" and events[0].data["move"] == STANDARD_SETUP["gold"]
    line = "ra8 rb8 rc8 rd8 re8 rf8 rg8 rh8 ha7 db7 cc7 md7 ee7 cf7 dg7 hh7"
    for cell in [f"{f}{r}" for f in "abcdefgh" for r in (7, 8)]:
        table.board[cell] = "silver"
    table.show()  # the board first, the types after: accepted when they are given
    events = table.press(CHOOSE, line)
    assert [e.kind for e in events] == ["answer", "move"]
    assert table.instruction.text == "Gold: move up to four steps, then press DONE"


def test_a_bad_setup_line_is_refused_with_the_reason():
    table = Table(games.get("arimaa").new())
    with pytest.raises(UserError, match="must place 8 rabbits"):
        table.press(CHOOSE, "Ra1 Rb1 Da2 Hb2 Cc2 Md2 Ee2 Cf2 Hg2 Dh2 Rc1 Rd1 Re1 Rf1 Rg1 Ch1")


def test_each_step_is_followed_and_done_ends_the_turn():
    table = Table(position({"d2": "D", "e2": "R"}))
    events = table.step("d2", "d3")
    assert [e.data["step"] for e in events] == ["Dd2n"]
    assert table.instruction.text == "Gold: press DONE, or go on (3 steps left)"
    events = table.press(DONE)
    assert events[0].data["move"] == "Dd2n"
    assert table.instruction.text == "Silver: move up to four steps, then press DONE"


def test_the_fourth_step_ends_the_turn_by_itself():
    table = Table(position({"d2": "D"}))
    for origin, dest in [("d2", "d3"), ("d3", "d4"), ("d4", "d5")]:
        table.step(origin, dest)
    events = table.step("d5", "e5")
    assert [e.kind for e in events] == ["step", "move"]
    assert events[-1].data["move"] == "Dd2n Dd3n Dd4n Dd5e"
    events = table.step("e5", "e4")  # a fifth step is not Gold's to make
    assert table.instruction.kind == "illegal"
    assert table.instruction.text == "Put the gold dog back on e5"


def test_frozen_piece_and_rabbit_backwards_are_named():
    table = Table(position({"d4": "D", "d5": "m", "b4": "R"}))
    table.step("d4", "c4")
    assert table.instruction.kind == "illegal"
    assert table.instruction.text == "Put the gold dog back on d4"
    assert "frozen" in table.instruction.detail
    table.step("c4", "d4")
    assert table.instruction.kind == "move"
    table.step("b4", "b3")
    assert table.instruction.text == "Put the gold rabbit back on b4"
    assert "backward" in table.instruction.detail.lower()


def test_a_capture_must_be_taken_off_the_trap():
    table = Table(position({"c4": "E", "c5": "c"}))
    table.show(c4=None, c5="gold", c6="silver")  # the push, cat onto the trap c6
    instruction = table.instruction
    assert instruction.text == "Remove the silver cat from c6"
    assert instruction.kind == "remove"
    assert instruction.highlights == {"c6": "remove"}
    table.show(c6=None)
    assert table.instruction.text == "Gold: press DONE, or go on (2 steps left)"
    events = table.press(DONE)
    assert events[0].data["move"] == "cc5n cc6x Ec4n"


def test_a_capture_whose_last_friend_came_back_says_how_it_was_captured():
    """The camel steps away from the horse's trap (the horse is captured then) and back: the
    reason must not say no friendly piece is beside the horse, with the camel beside it."""
    from companion import i18n

    table = Table(position({"f6": "h", "e6": "m", "a2": "E"}, side="silver"))
    table.step("e6", "e5")
    assert table.instruction.text == "Remove the silver horse from f6"
    assert table.instruction.detail == "Captured on a trap with no friendly piece beside it"
    table.step("e5", "e6")
    assert table.instruction.text == "Remove the silver horse from f6"
    assert table.instruction.detail == (
        "Captured on f6 when its last friendly neighbour, the silver camel, stepped away from e6"
    )
    i18n.set_language("de")
    try:
        table.show()  # the instruction is made in the table's language when the board is seen
        assert table.instruction.detail == (
            "Auf f6 gefangen, als das silberne Kamel als letzte eigene Figur daneben von e6 wegzog"
        )
    finally:
        i18n.set_language("en")
    table.show(f6=None)
    assert table.press(DONE)[0].data["move"] == "me6s hf6x me5n"


def test_a_piece_pushed_onto_a_trap_alone_then_given_a_friend_says_when_it_was_captured():
    table = Table(position({"c4": "E", "c5": "c", "d5": "r"}))
    table.show(c5=None, c6="silver")  # the cat pushed onto c6 with no silver piece beside it
    assert table.instruction.detail == "Captured on a trap with no friendly piece beside it"
    table.step("c4", "c5")
    table.step("d5", "d6")  # the elephant pushes a silver rabbit beside the trap
    assert table.instruction.text == "Remove the silver cat from c6"
    assert table.instruction.detail == (
        "Captured on c6: no friendly piece was beside it when it came onto the trap"
    )
    table.step("c5", "d5")
    table.show(c6=None)
    assert table.referee.position.move_stack[-1].text == "cc5n cc6x Ec4n rd5n Ec5e"


def test_two_captures_on_one_trap_in_a_turn_each_get_their_own_reason():
    """The horse is captured on f6 when the camel steps away; later the dog steps onto f6 alone
    and the camel comes back beside it. The causes were kept by trap, so the dog's reason named
    the camel stepping away - which captured the horse, not the dog."""
    table = Table(position({"f6": "h", "e6": "m", "g7": "d", "a2": "E"}, side="silver"))
    table.step("e6", "e5")  # the horse's last friend steps away
    assert table.instruction.text == "Remove the silver horse from f6"
    table.show(f6=None)
    table.step("g7", "f7")
    table.step("f7", "f6")  # the dog onto the trap, no silver piece beside it
    assert table.instruction.text == "Remove the silver dog from f6"
    assert table.instruction.detail == "Captured on a trap with no friendly piece beside it"
    table.step("e5", "e6")  # the camel back beside the trap
    assert table.instruction.text == "Remove the silver dog from f6"
    assert table.instruction.detail == (
        "Captured on f6: no friendly piece was beside it when it came onto the trap"
    )
    assert table.referee.name_at("f6", "silver") == "the silver dog"  # not the horse before it
    events = table.show(f6=None)  # four steps: the turn ends when the trap is cleared
    assert events[0].data["move"] == "me6s hf6x dg7w df7s df6x me5n"


def test_an_unfinished_push_cannot_end_the_turn():
    table = Table(position({"a4": "E", "c5": "c", "d6": "d"}))
    table.step("a4", "b4")
    table.step("b4", "c4")
    table.show(c5=None, c6="silver")  # the cat pushed, the elephant not yet in
    assert table.instruction.text == "Gold: finish the push into c5"
    assert table.press(DONE) == []  # no other way to these colours in the steps left
    events = table.show(c4=None, c5="gold")  # the fourth step ends the turn by itself
    assert events[-1].data["move"] == "Ea4e Eb4e cc5n Ec4n"


def test_done_on_a_half_push_takes_an_equal_complete_turn():
    """The fewest steps said "half a push"; a longer turn gives the same board and ends."""
    table = Table(position({"c4": "E", "c5": "c", "d6": "d"}))
    table.show(c5=None, c6="silver")
    # The screen says DONE may end it: players who made the longer turn are not left stuck.
    instruction = table.instruction
    assert instruction.text == "Gold: finish the push into c5, or press DONE if it is finished"
    assert instruction.detail == (
        "A stronger gold piece steps into c5; if one already stepped in and away again, the "
        "push is finished"
    )  # (a trial: it named no square, and said "The pushing piece may already have ...")
    assert instruction.highlights["c5"] == "to"
    assert table.press(DONE)[0].data["move"] == "cc5n Ec4n Ec5s"


def test_a_push_whose_pusher_stepped_back_is_offered_done():
    """The demo's seed 1 at move 26: ``dh3w Eh4s Eh3n Hc5w`` looks like ``Hc5w dh3w``, half a
    push. The players made a legal turn and wait; the instruction must tell them DONE ends it."""
    table = Table(position({"h4": "E", "h3": "d", "c5": "H", "a8": "r"}))
    table.show(h3=None, g3="silver", c5=None, b5="gold")
    assert table.referee.position.pending_push is not None
    assert "press DONE" in table.instruction.text
    events = table.press(DONE)
    assert events[-1].data["move"] == "Hc5w dh3w Eh4s Eh3n"  # the same turn
    assert table.instruction.text.startswith("Silver: move up to four steps")


def test_two_pieces_that_could_be_where_are_asked_about():
    table = Table(position({"a1": "D", "b1": "C"}))
    table.show(b1=None, a2="gold")  # Da1n Cb1w or Cb1n Cb2w: the colours are the same
    instruction = table.instruction
    assert instruction.kind == "choose"
    assert instruction.text == "Which gold piece is on a1 now?"
    assert instruction.choices == ("cat", "dog")
    # the piece asked about, not a cell to put something on ("put here": a trial)
    assert instruction.highlights == {"a1": ASKED}
    with pytest.raises(UserError, match="on a1 the piece can be: cat, dog"):
        table.press(CHOOSE, "horse")
    table.press(CHOOSE, "cat")
    assert table.referee.position.piece_at("a1") == "C"
    assert table.referee.position.piece_at("a2") == "D"
    assert table.instruction.text == "Gold: press DONE, or go on (2 steps left)"


def test_goal_ends_the_game_with_the_reason():
    table = Table(position({"a7": "R"}))
    table.step("a7", "a8")
    events = table.press(DONE)
    assert [e.kind for e in events] == ["move", "game-over"]
    assert table.instruction.text == "Gold wins"
    outcome = table.referee.position.outcome()
    assert outcome.reason == "goal"
    assert table.instruction.detail == outcome.detail


def test_the_previous_games_setup_can_be_chosen(tmp_path):
    from companion.records import Records

    records = Records(tmp_path / "r.sqlite3")
    gold = "Da1 Eb1 Cc1 Rd1 Re1 Rf1 Cg1 Hh1 Ra2 Mb2 Rc2 Dd2 Re2 Rf2 Rg2 Hh2"
    first = games.get("arimaa").new()
    first.push(first.parse_move(gold))
    first.push(first.parse_move(STANDARD_SETUP["silver"]))
    records.new_game(first)  # last week's game, stored with its two setups
    referee = Referee(games.get("arimaa").new(), records=records)
    assert referee.instruction.choices == ("standard", "previous")
    referee.handle(PlayerInput(CHOOSE, "previous"))
    assert referee.instruction.detail == gold


def test_a_turn_the_camera_cannot_see_can_be_typed():
    # The dog and the cat change places while nobody looks: the colours are as before.
    table = Table(position({"a1": "D", "b1": "C"}))
    table.show()
    assert table.referee.position.steps_this_turn == ()  # looks like nothing happened
    with pytest.raises(UserError, match="does not show"):
        table.press(CHOOSE, "Da1n")
    events = table.press(CHOOSE, "Da1n Cb1w Da2e Db2s")
    assert events[-1].kind == "move" and events[-1].data["move"] == "Da1n Cb1w Da2e Db2s"
    assert table.referee.position.piece_at("a1") == "C"
    assert table.instruction.text == "Silver: move up to four steps, then press DONE"


def real_games(count):
    import json

    with open(ARIMAA_GAMES) as handle:
        records = [json.loads(line) for line in handle]
    return [r for r in records if r.get("complete") and not r.get("flag")][:count]


@pytest.mark.parametrize("record", real_games(3), ids=lambda r: r["id"])
def test_real_games_are_followed_step_by_step(record):
    """Whole arimaa.com games, every physical step shown to the referee in colours only."""
    truth = games.get("arimaa").new()
    table = Table(games.get("arimaa").new())
    for text in record["moves"]:
        if truth.is_game_over():
            break
        move = truth.parse_move(text)
        if truth.in_setup:
            table.press(CHOOSE, text)
            truth.push(move)
            table.board = truth.cells()
            table.show()
            continue
        board = truth.copy()
        for step in move:
            board.push_step(step)
            table.board = board.cells()
            table.show()
        truth.push(move)
        if len(table.referee.position.move_stack) < len(truth.move_stack):
            table.press(DONE)
        assert table.referee.position.to_json() == truth.to_json(), text
    assert _texts(table.referee.position) == _texts(truth)
    assert len(truth.move_stack) > 20


def _texts(position):
    board, texts = position.root(), []
    for move in position.move_stack:
        texts.append(board.move_text(move))
        board.push(move)
    return texts


# The three slowest whole turns for the referee's own search (0.3-0.6 s each, 40,000 steps
# budget) before it used arimaa_infer.
SLOW_WHOLE_TURNS = [
    (
        "g [rrrc rrrrc d  M  H    e      E       r   D  DhR   CR  CRRRR R R ]",
        "rf4w hf3x Ef5s Ef4n re4e",
    ),
    ("g [rrr rrc h cHdrmr M ed Eh  R  D          RC     H  R RC  R RRR D ]", "Rc5n Rc2n Rc3n Rc4n"),
    ("s [d c   c rh   r rRr md hRRrRr r RRH     r      e   DMEDH    CC   ]", "eg3n Hg2n Hg3w eg4s"),
]


def settled_table(before):
    table = Table(before)
    assert table.referee.settled
    return table


@pytest.mark.parametrize("aei, turn", SLOW_WHOLE_TURNS)
def test_a_whole_turn_is_explained_by_arimaa_infer_with_few_nodes(monkeypatch, aei, turn):
    """explain is arimaa_infer.infer from the steps already seen (what the benchmark times)."""
    import companion.referee.arimaa as referee_module
    from companion.games import arimaa_infer

    calls = []

    def counting(position, observed, **options):
        result = arimaa_infer.infer(position, observed, **options)
        calls.append((options, result.nodes))
        return result

    monkeypatch.setattr(referee_module, "infer", counting)
    before = ArimaaPosition.parse_position(aei)
    after = before.copy()
    after.push(before.parse_move(turn))
    table = settled_table(before)
    table.board = after.cells()
    events = table.show()
    assert events[-1].kind == "move"  # four steps found: the turn ended by itself
    assert table.referee.position.to_aei() == after.to_aei()
    assert calls and all(options.get("keep_steps") for options, _ in calls)
    assert sum(nodes for _, nodes in calls) < 2000  # the old search tried up to 40,000 steps


def test_whole_real_turns_get_the_explanations_infer_gives():
    """The referee shown only the board after a whole turn picks among exactly the fewest-step
    explanations of arimaa_infer."""
    from companion.games.arimaa_infer import infer

    with open(ARIMAA_GAMES) as handle:
        import json

        records = [json.loads(line) for line in handle]
    checked = 0
    for record in [r for r in records if "flag" not in r][::12]:
        truth = games.get("arimaa").new()
        for number, text in enumerate(record["moves"][:40]):
            move = truth.parse_move(text)
            if not truth.in_setup and number % 7 == 3 and not truth.is_game_over():
                after = truth.copy()
                after.push(move)
                referee = Referee(truth.copy())
                referee.observe(observation_of(truth.cell_names(), truth.cells()))
                typed = {e.typed for e in referee.explain(after.cells())}
                fewest = infer(truth, after.cells()).fewest
                assert typed == {
                    tuple((f"{'abcdefgh'[sq % 8]}{sq // 8 + 1}", p) for sq, p in c.pieces)
                    for c in fewest
                }
                checked += 1
            truth.push(move)
    assert checked > 60


def test_the_setup_question_has_no_terminal_syntax_for_the_screen():
    """The instruction is shown on the touchscreen: no backticks or typed commands in it; the
    terminal front end adds how to type one's own setup."""
    from companion.referee.runner import Session

    table = Table(games.get("arimaa").new())
    instruction = table.instruction
    assert "`" not in instruction.text + instruction.detail
    assert "choose Ra1" not in instruction.detail
    lines = []
    runner = Session(table.referee, emit=lines.append)
    runner.flush()
    assert "choose standard" in lines[-1] and "choose Ra1 Rb1 ..." in lines[-1]


def test_pieces_where_a_setup_has_none_are_named_in_the_setup_line():
    """Both sides' pieces on the mat before Gold's setup was taken: the line said only "Gold:
    set up your pieces as shown", board after board, the silver pieces marked on the screen
    but named nowhere (a player's trial)."""
    position = ArimaaPosition.new()
    referee = Referee(position)
    for side in ("gold", "silver"):
        referee.set_setup(side, STANDARD_SETUP[side])
    board = {tok[1:3]: side for side in ("gold", "silver") for tok in STANDARD_SETUP[side].split()}
    referee.observe(observation_of(position.cell_names(), board))
    assert referee.instruction.text.startswith(
        "Gold: set up your pieces as shown. Take the silver pieces off a7, a8, b7"
    )
    gold = {cell: side for cell, side in board.items() if side == "gold"}
    referee.observe(observation_of(position.cell_names(), gold))
    assert len(referee.position.move_stack) == 1  # Gold's setup taken


def test_a_take_back_while_the_referee_asks_which_piece_leaves_no_question_behind():
    """Found by a review: a take-back agreed while the referee asked "Which gold piece is on
    a2 now?" (a cat or a dog could have stepped there) left the question up - worded for the
    other side, about a turn no longer played - instead of saying what to put back."""
    from companion.referee.protocol import UNDO

    table = Table(ArimaaPosition.from_board({**FAR, "a1": "D", "b1": "C", "d8": "c"}))
    table.step("h1", "g1")
    table.press(DONE)
    table.step("d8", "e8")
    table.press(DONE)
    table.step("b1", "a2")  # the cat b1-a2, or the dog a1-a2 and the cat b1-a1
    assert table.instruction.kind == "choose"
    table.referee.handle(PlayerInput(UNDO, player="gold"))  # Silver's turn taken back
    # ... and the piece moved, asked about, goes back too: said so (a trial: only the turn
    # before was named)
    assert table.instruction.detail.startswith("The steps made this turn go back too")
    table.referee.handle(PlayerInput(DONE, player="silver"))
    assert table.referee.position.turn == "silver"
    assert table.instruction.kind == "restore", table.instruction
    assert "d8" in table.instruction.text and not table.instruction.choices
    table.step("a2", "b1")
    table.step("e8", "d8")  # the board as it was before Silver's turn
    assert table.instruction.kind == "move" and table.referee.position.turn == "silver"


def test_done_pressed_with_a_hand_still_over_the_board_ends_the_turn_with_the_last_step():
    """Found by a review: a player who made the last step and pressed DONE before the camera
    saw the board still ended the turn without that step (then read as Silver's illegal
    change). DONE is held until the next still board, and taken with it."""
    table = Table(ArimaaPosition.from_board({**FAR, "d2": "D", "e2": "C"}))
    table.step("d2", "d3")
    table.referee.hands(True)  # the hand makes the second step
    assert [e.kind for e in table.press(DONE)] == ["held"]
    table.referee.hands(False)
    events = table.step("e2", "e3")  # the still board, read in full
    assert [e.data["move"] for e in events if e.kind == "move"] == ["Dd2n Ce2n"]
    assert table.referee.position.turn == "silver"


def test_done_held_over_a_turn_that_ends_by_itself_is_not_taken_for_the_next_player():
    table = Table(ArimaaPosition.from_board({**FAR, "d2": "D", "e2": "C"}))
    table.step("d2", "d3")
    table.step("d3", "d4")
    table.step("e2", "e3")
    table.referee.hands(True)
    table.press(DONE)
    table.referee.hands(False)
    inputs = []  # what reaches the game after the turn ended by itself: nothing
    game_input = table.referee._on_input
    table.referee._on_input = lambda i: inputs.append(i) or game_input(i)
    events = table.step("e3", "e4")  # the fourth step ends Gold's turn by itself
    assert [e.data["move"] for e in events if e.kind == "move"] == ["Dd2n Dd3n Ce2n Ce3n"]
    assert table.referee.held is None and table.instruction.kind == "move"
    assert inputs == []  # the held DONE was dropped, not handed to Silver's turn
    assert table.referee.position.turn == "silver" and not table.referee.position.steps_this_turn


def test_a_press_held_leaves_the_setup_s_notation_as_it_was():
    """Found by a review: the held note was joined to the detail by `join_sentences`, which
    capitalised Silver's setup "ra8 rb8 ..." into "Ra8" - a gold rabbit."""
    table = Table(games.get("arimaa").new())
    table.press(CHOOSE, "standard")
    table.board = {c: "gold" for c in table.instruction.expected}
    table.show()
    table.press(CHOOSE, "standard")  # Silver's
    silver = table.instruction.detail
    assert silver.startswith("r")  # (lower case: Silver's pieces)
    table.referee.hands(True)
    assert [e.kind for e in table.press(DONE)] == ["held"]
    assert table.instruction.detail.startswith(silver + ". DONE is taken as soon as")


def test_undo_takes_back_a_chosen_setup_not_yet_put_down():
    """A trial: after choosing Standard, Undo (and BACK) changed nothing - the choice could
    not be changed - and Silver's Undo, its setup chosen, offered to take back Gold's whole
    setup. UNDO on "set up as shown" asks "which setup?" again; Gold's setup stays."""
    table = Table(games.get("arimaa").new())
    table.press(CHOOSE, "standard")
    assert table.instruction.text == "Gold: set up your pieces as shown"
    assert table.referee.nothing_to_undo() == ""
    table.press(UNDO)
    assert table.instruction.text == "Gold: which setup?"
    table.press(CHOOSE, "standard")
    for cell in table.instruction.expected:
        table.board[cell] = "gold"
    table.show()
    assert table.referee.position.turn == "silver"
    table.press(CHOOSE, "standard")
    assert table.instruction.text == "Silver: set up your pieces as shown"
    table.press(UNDO)
    assert table.instruction.text == "Silver: which setup?"
    assert table.referee.undo_request is None and len(table.referee.position.move_stack) == 1


def test_a_setup_taken_back_is_chosen_again():
    """A review: Silver's UNDO at "which setup?" took back Gold's setup, and Gold was asked to
    put the very same setup back. The side whose setup was taken back chooses again."""
    table = Table(games.get("arimaa").new())
    table.press(CHOOSE, "standard")
    for cell in table.instruction.expected:
        table.board[cell] = "gold"
    table.show()
    assert table.instruction.text == "Silver: which setup?"
    table.press(UNDO)
    table.press(DONE)  # both agree
    assert table.referee.position.move_stack == [] and "gold" not in table.referee.setups
    table.board = {}
    table.show()
    assert table.instruction.text == "Gold: which setup?"


def test_a_piece_to_move_back_after_a_take_back_is_named_by_its_type():
    """A review: the one sentence for one piece moved named it where it wrongly stood, where
    the position has nothing: "Move the gold piece from d3 back to d2", not the dog."""
    table = Table(position({"d2": "D", "e2": "R"}))
    table.step("d2", "d3")
    table.press(DONE)
    table.press(UNDO)
    table.press(DONE)  # both agree; the board still shows the dog on d3
    assert table.instruction.text == "Move the gold dog from d3 back to d2"


def test_a_setup_to_take_back_is_named_as_the_side_s_setup():
    """A trial: a take-back asked for during 2g listed Silver's sixteen placements ("take
    back ra8 rb8 rc8 ... dh7")."""
    table = Table(games.get("arimaa").new())
    for _setup in range(2):  # Gold's, then Silver's
        table.press(CHOOSE, "standard")
        table.board = dict(table.instruction.expected)
        table.show()
    assert table.instruction.text.startswith("Gold: move up to four steps")
    table.press(UNDO)
    assert table.instruction.text == "Press DONE to take back Silver's setup"


def test_a_take_back_mid_turn_says_this_turn_s_steps_go_too():
    """A trial: UNDO after one step of Gold's turn asked to take back Silver's turn before, and
    confirming dropped Gold's step as well, without a word."""
    table = Table(position({"a2": "R", "e2": "E", "h7": "r", "d7": "e"}, side="silver"))
    table.step("h7", "h6")
    table.press(DONE)
    table.step("e2", "e3")  # Gold's first step
    table.press(UNDO)
    instruction = table.instruction
    assert instruction.kind == "confirm"
    assert instruction.detail.startswith("The steps made this turn go back too")
