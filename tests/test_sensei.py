"""Sensei (rules.md section 4): one test per rule, then the two APIs, notation, JSON and
properties of random games."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import games
from companion.errors import IllegalMoveError, NotationError, OptionError, RecordError
from companion.games.base import game_from_json, game_to_json
from companion.games.sensei import (
    CELLS,
    Action,
    SenseiOptions,
    SenseiPosition,
    parse_turn,
    turn_text,
)


def stone(src, dst):
    return Action("stone", src, dst)


def character(src, dst):
    return Action("character", src, dst)


def board(rows, turn="green", **options):
    return SenseiPosition.from_rows(rows, turn=turn, options=SenseiOptions(**options))


# Every action a person could try, legal or not.
EVERY_ACTION = [
    Action(piece, a, b) for piece in ("stone", "character") for a in CELLS for b in CELLS
]


def play(pos, text):
    pos.push(pos.parse_move(text))
    return pos


def targets(pos, src):
    return sorted(a.dst for a in pos.legal_actions() if a.src == src and a.piece == "stone")


# -- set-up ---------------------------------------------------------------------------------------
def test_start_position_seven_stones_on_each_edge_with_the_characters_on_the_middle_stones():
    pos = SenseiPosition.new()
    cells = pos.cells()
    assert [c for c, k in cells.items() if k.startswith("green")] == [f"{f}1" for f in "abcdefg"]
    assert [c for c, k in cells.items() if k.startswith("red")] == [f"{f}7" for f in "abcdefg"]
    assert cells["d1"] == "green-character" and cells["d7"] == "red-character"
    assert cells["c1"] == "green" and cells["c7"] == "red"
    assert len(pos.cell_names()) == 49
    assert pos.outcome() is None


def test_green_moves_first_by_default_and_first_is_an_option():
    assert SenseiPosition.new().turn == "green"
    assert SenseiPosition.new(SenseiOptions(first="red")).turn == "red"
    pos = play(SenseiPosition.new(), "a1-a3")
    assert pos.turn == "red"


def test_variant_start_swaps_the_b_and_f_file_stones_between_the_start_rows():
    cells = SenseiPosition.new(SenseiOptions(variant_start=True)).cells()
    assert cells["b1"] == cells["f1"] == "red"
    assert cells["b7"] == cells["f7"] == "green"
    assert cells["a1"] == cells["c1"] == cells["e1"] == cells["g1"] == "green"
    assert cells["d1"] == "green-character" and cells["d7"] == "red-character"
    assert sum(1 for k in cells.values() if k.startswith("green")) == 7
    assert SenseiPosition.new().cells()["b1"] == "green"  # off by default


# -- stone moves ------------------------------------------------------------------------------------
def test_arashi_stone_slides_any_number_of_free_squares_in_one_straight_direction():
    pos = SenseiPosition.new()  # movement defaults to arashi
    assert pos.options.movement == "arashi"
    assert targets(pos, "a1") == ["a2", "a3", "a4", "a5", "a6"]
    assert pos.action_error(stone("a1", "a6")) is None
    assert (
        pos.action_error(stone("a1", "b2")) == "stones move along a row or column, never diagonally"
    )
    assert "straight line" in pos.action_error(stone("a1", "b3"))


def test_shizukana_stone_moves_exactly_one_square():
    pos = SenseiPosition.new(SenseiOptions(movement="shizukana"))
    assert targets(pos, "a1") == ["a2"]
    assert pos.action_error(stone("a1", "a3")) == "in Shizukana a stone moves exactly one square"
    pos.push_action(stone("a1", "a2"))
    pos.push_action(stone("a2", "a3"))  # the same stone again: its second move
    assert pos.cells()["a3"] == "green"


def test_stone_never_enters_or_passes_an_occupied_square():
    pos = board(
        """
        . . . R . . .
        . . . r . . .
        . . . . . . .
        . g . r . . .
        . . . . . . .
        . . . g . . .
        . . . G . . .
        """
    )
    assert targets(pos, "d2") == ["a2", "b2", "c2", "d3", "e2", "f2", "g2"]
    assert pos.action_error(stone("d2", "d4")) == "a red stone blocks the way at d4"
    assert pos.action_error(stone("d2", "d5")) == "a red stone blocks the way at d4"
    assert targets(pos, "b4") == ["a4", "b1", "b2", "b3", "b5", "b6", "b7", "c4"]
    assert pos.action_error(stone("b4", "e4")) == "a red stone blocks the way at d4"
    pos.push_action(stone("d2", "b2"))
    assert pos.action_error(stone("b4", "b1")) == "your own stone blocks the way at b2"


def test_stone_carrying_the_character_cannot_move():
    pos = SenseiPosition.new()
    assert (
        pos.action_error(stone("d1", "d2"))
        == "the stone on d1 carries the character and cannot move"
    )
    assert targets(pos, "d1") == []
    pos.push_action(character("d1", "a1"))  # once the character has left, the stone is free
    assert pos.action_error(stone("d1", "d2")) is None
    assert pos.action_error(stone("a1", "a2")) == (
        "the stone on a1 carries the character and cannot move"
    )


def test_only_your_own_existing_stones_move():
    pos = SenseiPosition.new()
    assert pos.action_error(stone("a3", "a4")) == "there is no stone on a3"
    assert pos.action_error(stone("a7", "a6")) == "the stone on a7 is red: it is Green's turn"


# -- the turn: 1 to 3 actions, each at most once, any order ----------------------------------------
def test_turn_has_at_most_two_stone_moves_and_one_character_move_in_any_order():
    pos = SenseiPosition.new()
    pos.push_action(stone("a1", "a3"))
    pos.push_action(character("d1", "g1"))  # the character between two stone moves
    pos.push_action(stone("b1", "b4"))
    assert pos.legal_actions() == []
    assert pos.action_error(stone("c1", "c2")) == "you already moved two stones this turn"
    assert pos.action_error(character("g1", "c1")) == "you already moved your character this turn"
    assert pos.actions_this_turn == (stone("a1", "a3"), character("d1", "g1"), stone("b1", "b4"))
    pos.end_turn()
    assert pos.turn == "red"
    assert pos.move_text(pos.move_stack[-1]) == "a1-a3 @d1-g1 b1-b4"


def test_a_turn_needs_at_least_one_action():
    pos = SenseiPosition.new()
    assert not pos.can_end_turn()
    with pytest.raises(IllegalMoveError, match="at least one action"):
        pos.end_turn()
    with pytest.raises(IllegalMoveError, match="cannot pass"):
        pos.push(())
    pos.push_action(stone("c1", "c2"))
    assert pos.can_end_turn()


def test_pop_action_takes_back_the_last_action_of_the_turn():
    pos = SenseiPosition.new()
    before = pos.to_json()
    pos.push_action(stone("a1", "a4"))
    pos.push_action(character("d1", "b1"))
    assert pos.pop_action() == character("d1", "b1")
    assert pos.cells()["d1"] == "green-character"
    assert pos.pop_action() == stone("a1", "a4")
    assert pos.to_json() == before
    with pytest.raises(IndexError):
        pos.pop_action()


# -- character moves --------------------------------------------------------------------------------
CHARACTER_BOARD = """
    . . . R . . g
    . . . r . . .
    . . . . . . .
    . . . G . . g
    . . r . . . .
    . . . . . . .
    g . . g . . .
"""


def test_character_moves_along_a_row_column_or_diagonal_to_one_of_its_own_stones():
    pos = board(CHARACTER_BOARD)
    moves = sorted(a.dst for a in pos.legal_actions() if a.piece == "character")
    assert moves == ["d1", "g4", "g7"]  # row to g4, column to d1, diagonal to g7
    assert pos.action_error(character("d4", "a1")) == "a red stone blocks the character's way at c3"
    assert pos.action_error(character("d4", "d3")) == (
        "a character must land on one of your own stones, and d3 is empty"
    )
    assert pos.action_error(character("d4", "d6")) == (
        "a character must land on one of your own stones, and d6 is a red stone"
    )
    assert (
        pos.action_error(character("d4", "e6"))
        == "a character moves along a row, column or diagonal"
    )
    assert pos.action_error(character("d1", "d4")) == "Green's character is on d4, not on d1"
    assert (
        pos.action_error(character("d7", "d6")) == "that is the red character: it is Green's turn"
    )


def test_character_line_of_sight_is_blocked_only_by_opponent_stones():
    pos = board(
        """
        . . . R . . .
        . . . r . . .
        . . . . . . .
        . . . g . . .
        . . . . . . .
        . . . g . . .
        . . . G . r g
        """
    )
    # Own stones (d2, d4) and empty squares do not block; the red stone on f1 does.
    assert pos.action_error(character("d1", "d4")) is None
    assert pos.action_error(character("d1", "d2")) is None
    assert pos.action_error(character("d1", "g1")) == "a red stone blocks the character's way at f1"


def test_character_win_is_immediate_when_it_reaches_an_own_stone_on_the_opponent_start_row():
    pos = board(CHARACTER_BOARD)
    pos.push_action(stone("a1", "a2"))
    pos.push_action(character("d4", "g7"))  # g7 is on Red's start row
    outcome = pos.outcome()
    assert outcome.winner == "green" and outcome.reason == "character-home"
    assert "g7" in outcome.detail
    # The game ends mid-turn: the turn is recorded, no third action, no DONE needed.
    assert pos.move_text(pos.move_stack[-1]) == "a1-a2 @d4-g7"
    assert pos.actions_this_turn == ()
    assert pos.legal_actions() == [] and pos.legal_moves() == []
    assert not pos.can_end_turn()
    assert pos.action_error(stone("g4", "g3")).startswith("the game is over")


def test_nothing_may_follow_the_winning_action_in_a_turn():
    pos = board(CHARACTER_BOARD)
    before = pos.to_json()
    with pytest.raises(IllegalMoveError, match="nothing can follow"):
        pos.push(pos.parse_move("@d4-g7 a1-a2"))
    assert pos.to_json() == before and pos.outcome() is None


def test_legal_moves_stop_at_a_winning_action():
    pos = board(CHARACTER_BOARD)
    winning = [m for m in pos.legal_moves() if character("d4", "g7") in m]
    assert winning and all(m[-1] == character("d4", "g7") for m in winning)
    assert (character("d4", "g7"),) in winning


def test_random_move_takes_an_immediately_winning_action():
    for seed in range(10):
        pos = board(CHARACTER_BOARD)
        pos.push(pos.random_move(random.Random(seed)))
        assert pos.outcome().winner == "green"


# -- unfair game ------------------------------------------------------------------------------------
def test_unfair_game_the_blocking_player_loses_when_three_opponent_stones_touch_the_line():
    rows = """
        . . . R r r r
        . . . . . . .
        . . r . . . .
        r r . . . . .
        g g g G g g g
        . . . . . . .
        . . . . . . .
    """
    pos = board(rows, turn="red")
    assert pos.outcome() is None  # only two red stones touch Green's line
    assert pos.unfair_line("green") is None
    play(pos, "c5-c4")  # the third
    outcome = pos.outcome()
    assert outcome.winner == "red" and outcome.reason == "unfair-game"
    assert "Green's line" in outcome.detail


def test_unfair_game_line_is_8_connected_and_touching_is_orthogonal():
    rows = """
        . . . R r r r
        . . . . . . .
        . . . . . . .
        r r . ? . . .
        g g g ! . . .
        . . . G g g g
        . . . . . . .
    """
    # Green's line steps diagonally from c3 to d2: it still runs from the a-file to the g-file.
    touching = board(rows.replace("?", ".").replace("!", "r"), turn="red")
    assert touching.unfair_line("green") == ["d2", "e2", "f2", "g2", "a3", "b3", "c3"]
    assert touching.outcome().winner == "red"  # a4, b4 and d3 touch the line
    # d4 only touches c3 at a corner: two stones touch, no unfair game.
    corner = board(rows.replace("?", "r").replace("!", "."), turn="red")
    assert corner.unfair_line("green") is None
    assert corner.outcome() is None


def test_unfair_game_needs_a_line_from_the_left_edge_to_the_right_edge():
    rows = """
        . . . R r r .
        . . . . . . .
        . . . . . . .
        r r r r . . .
        g g g G g g .
        . . . . . . ?
        . . . . . . !
    """
    gap = board(rows.replace("?", ".").replace("!", "g"), turn="red")
    assert gap.unfair_line("green") is None  # f3 and g1 do not touch
    assert gap.outcome() is None
    joined = board(rows.replace("?", "g").replace("!", "."), turn="red")
    assert joined.unfair_line("green") is not None  # f3 and g2 touch at a corner
    assert joined.outcome().winner == "red"


def test_unfair_game_when_both_players_qualify_the_player_who_just_moved_wins():
    pos = board(
        """
        . . . . . . .
        . . . . . . .
        r r r R r r r
        g g . . . . .
        . . g g g g G
        . . . . . . .
        . . . . . . .
        """
    )
    assert pos.outcome() is None  # two stones touch each line
    play(pos, "c3-c4")  # a third green stone touches Red's line, and Green's line gets a third red
    outcome = pos.outcome()
    assert outcome.winner == "green" and outcome.reason == "unfair-game"
    assert "both players" in outcome.detail
    assert pos.unfair_line("green") and pos.unfair_line("red")


def test_unfair_game_is_checked_only_at_the_end_of_the_turn():
    pos = board(
        """
        . . . R r r r
        . . . . . . .
        . . r . . . .
        r r . . . . .
        g g g G g g g
        . . . . . . .
        . . . . . . .
        """,
        turn="red",
    )
    pos.push_action(stone("c5", "c4"))
    assert pos.outcome() is None  # mid-turn: Red may still move a stone away
    pos.push_action(stone("c4", "c5"))
    pos.end_turn()
    assert pos.outcome() is None


# -- the storm side ---------------------------------------------------------------------------------
def test_storm_pits_block_stones_but_not_characters():
    pos = board(
        """
        . . . R . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . x . x . .
        . . G . . . .
        . . g . . . .
        """,
        side="storm",
    )
    assert pos.pit_cells() == ["c3", "e3", "c5", "e5"]
    pos.push_action(stone("c1", "d1"))
    pos.push_action(stone("d1", "d4"))
    assert pos.action_error(character("c2", "d1")) is not None  # the stone left d1
    assert pos.pop_action() == stone("d1", "d4")
    # A character passes over a pit: c2 -> e4? not in line; use a column: put a stone on c4.
    pos = board(
        """
        . . . R . . .
        . . . . . . .
        . . . . . . .
        . . g . . . .
        . . . . x . .
        . . G . . . .
        . . . . . . .
        """,
        side="storm",
        pits=("c3", "e3"),
    )
    assert pos.action_error(character("c2", "c4")) is None  # over the pit on c3
    assert pos.action_error(stone("c4", "c2")) == (
        "the pit at c3 blocks the way: stones cannot enter or cross pits"
    )
    assert pos.action_error(stone("c4", "c3")) == (
        "the pit at c3 blocks the way: stones cannot enter or cross pits"
    )
    assert "c3" not in targets(pos, "c4")
    plain = board(
        """
        . . . R . . .
        . . . . . . .
        . . . . . . .
        . . g . . . .
        . . . . . . .
        . . G . . . .
        . . . . . . .
        """
    )
    assert plain.action_error(stone("c4", "c3")) is None  # the plain side has no pits


def test_storm_pits_count_as_part_of_a_blocking_line():
    rows = """
        . . . R r r r
        . . . . . . .
        . . . r . . .
        r r . . . . .
        g g . g . G g
        . . . . . . .
        . . . . . . .
    """
    storm = board(rows, turn="red", side="storm")
    assert storm.outcome() is None  # the line a3-g3 (pits c3, e3) has only two red stones touching
    play(storm, "d5-d4")
    assert storm.unfair_line("green") == ["a3", "b3", "c3", "d3", "e3", "f3", "g3"]
    assert storm.outcome().winner == "red" and storm.outcome().reason == "unfair-game"
    plain = board(rows, turn="red")
    play(plain, "d5-d4")
    assert plain.outcome() is None  # without pits there is no line


def test_pits_are_configurable():
    pos = SenseiPosition.new(SenseiOptions(side="storm", pits=("D4",)))
    assert pos.pit_cells() == ["d4"]
    assert "x" in pos.diagram()


# -- passing and the turn cap -----------------------------------------------------------------------
def test_player_with_no_legal_action_passes():
    pos = board(
        """
        . . . R . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        r . . . . . .
        G r . . . . .
        """
    )
    # Green's only stone carries the character, and the character has no other stone to go to.
    assert pos.legal_actions() == []
    assert pos.legal_moves() == [()]
    assert pos.can_end_turn()
    assert pos.move_text(()) == "pass" and parse_turn("pass") == ()
    pos.push(())
    assert pos.turn == "red" and pos.move_stack == [()] and pos.outcome() is None


@pytest.mark.parametrize("movement, side", [("arashi", "plain"), ("shizukana", "storm")])
def test_the_empty_turn_is_the_turn_legal_moves_lists_for_the_unchanged_board(movement, side):
    """`empty_turn` (a stone there and back: what the referee ends on a second DONE) is the
    very turn `legal_moves` lists for the position it leaves unchanged, in random games."""
    rng = random.Random(7)
    pos = SenseiPosition.new(SenseiOptions(movement=movement, side=side))
    for _turn in range(20):
        if pos.outcome() is not None:
            break
        unchanged = [t for t in pos.legal_moves() if _after(pos, t).board_key() == pos.board_key()]
        assert unchanged == [pos.empty_turn()]
        pos.push(pos.random_move(rng))


def _after(pos, turn):
    after = pos.copy()
    after.push(turn)
    return after


def test_no_empty_turn_once_the_turn_has_begun_or_when_no_stone_can_move():
    pos = SenseiPosition.new()
    pos.push_action(stone("b1", "b2"))
    assert pos.empty_turn() is None
    stuck = board(
        """
        . . . R . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        r . . . . . .
        G r . . . . .
        """
    )
    assert stuck.empty_turn() is None and stuck.legal_moves() == [()]


def test_no_action_lose_option_ends_the_game_instead_of_passing():
    stuck = """
        . . . R . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        r . . . . . .
        G r . . . . .
        """
    pos = board(stuck, no_action="lose")
    outcome = pos.outcome()
    assert outcome.winner == "red" and outcome.reason == "no-action"
    assert pos.legal_moves() == []
    # The Decision (pass) stays the default, and a player who can act is not affected.
    assert board(stuck).outcome() is None
    assert SenseiPosition.new(SenseiOptions(no_action="lose")).outcome() is None


def test_turn_cap_makes_a_draw():
    pos = SenseiPosition.new(SenseiOptions(turn_cap=2))
    play(pos, "a1-a2")
    assert pos.outcome() is None
    play(pos, "a7-a6")
    outcome = pos.outcome()
    assert outcome.winner is None and outcome.reason == "turn-cap"
    assert pos.turns_played == 2
    pos.pop()
    assert pos.outcome() is None


# -- options ----------------------------------------------------------------------------------------
def test_options_defaults_are_the_decisions():
    opts = SenseiOptions()
    assert (opts.movement, opts.side, opts.pits, opts.variant_start, opts.first, opts.turn_cap) == (
        "arashi",
        "plain",
        ("c3", "e3", "c5", "e5"),
        False,
        "green",
        None,
    )
    assert opts.no_action == "pass"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"movement": "fast"}, "'movement' must be one of arashi, shizukana"),
        ({"side": "stormy"}, "'side' must be one of plain, storm"),
        ({"pits": "c3 h9"}, "'h9' is not a cell"),
        ({"pits": "c1"}, "c1 is on a start row"),
        ({"pits": "c3,c3"}, "lists a cell twice"),
        ({"turn_cap": 0}, "turn_cap must be a whole number of turns >= 1"),
        ({"turn_cap": "many"}, "must be a whole number"),
        ({"colour": "blue"}, "unknown sensei option 'colour'"),
    ],
)
def test_bad_options_are_named(options, message):
    with pytest.raises(OptionError, match=message):
        SenseiPosition.options_from(options)


def test_an_option_s_word_is_taken_in_any_case():
    """A trial: `-o movement=Shizukana`, as the docs write the version, was refused."""
    options = SenseiPosition.options_from({"movement": "Shizukana", "side": " STORM"})
    assert (options.movement, options.side) == ("shizukana", "storm")


def test_options_from_cli_strings():
    opts = SenseiPosition.options_from(
        {
            "movement": "shizukana",
            "side": "storm",
            "pits": "c4 e4",
            "variant-start": "yes",
            "turn-cap": "40",
        }
    )
    assert opts == SenseiOptions("shizukana", "storm", ("c4", "e4"), True, "green", 40)


# -- whole turns: listing, playing, notation ---------------------------------------------------------
def brute_force_results(pos):
    """Every position reachable with 1-3 actions, explored with the action API: resulting
    board -> the length of the shortest action sequence reaching it."""
    results = {}

    def record(p, length):
        key = p.board_key()
        results[key] = min(results.get(key, 9), length)

    def explore(p, depth):
        for action in p.legal_actions():
            if action.piece == "character":  # it may win, which closes the turn: use a copy
                after = p.copy()
                after.push_action(action)
                record(after, depth + 1)
                if after.outcome() is None and depth < 2:
                    explore(after, depth + 1)
                continue
            p.push_action(action)
            record(p, depth + 1)
            if depth < 2:
                explore(p, depth + 1)
            p.pop_action()

    explore(pos, 0)
    return results


@pytest.mark.parametrize(
    "movement, side, turns",
    [
        ("arashi", "plain", 4),
        ("arashi", "storm", 6),
        ("shizukana", "plain", 12),
        ("shizukana", "storm", 12),
    ],
)
def test_legal_moves_are_exactly_the_distinct_results_of_every_action_sequence(
    movement, side, turns
):
    rng = random.Random(turns)
    pos = SenseiPosition.new(SenseiOptions(movement=movement, side=side))
    for _ in range(turns):
        pos.push(pos.random_move(rng))
    assert pos.outcome() is None
    expected = brute_force_results(pos)
    seen = {}
    for turn in pos.legal_moves():
        after = pos.copy()
        after.push(turn)
        k = after.board_key()
        assert k not in seen, (
            f"{turn_text(turn)} and {turn_text(seen.get(k, ()))} give one position"
        )
        seen[k] = turn
        assert len(turn) == expected[k], f"{turn_text(turn)} is not a shortest way"
    assert set(seen) == set(expected)


def test_legal_actions_agree_with_action_error():
    rng = random.Random(3)
    for options in (SenseiOptions(), SenseiOptions(movement="shizukana", side="storm")):
        pos = SenseiPosition.new(options)
        for _ in range(4):
            pos.push(pos.random_move(rng))
            if pos.outcome():
                break
            pos.push_action(rng.choice(pos.legal_actions()))
            legal = set(pos.legal_actions())
            assert legal == {a for a in EVERY_ACTION if pos.action_error(a) is None}
            pos.pop_action()


def test_start_position_counts():
    # Actions: 6 free stones x 5 squares up, the character to 6 stones. Turn counts are the
    # distinct positions, checked once against brute_force_results (4350 and 290).
    arashi = SenseiPosition.new()
    assert len(arashi.legal_actions()) == 6 * 5 + 6
    assert arashi.count_legal_moves() == len(arashi.legal_moves()) == 4350
    assert SenseiPosition.new(SenseiOptions(movement="shizukana")).count_legal_moves() == 290


def test_move_text_round_trips_and_reads_loosely():
    pos = SenseiPosition.new()
    for move in pos.legal_moves():
        assert pos.parse_move(pos.move_text(move)) == move
    assert parse_turn(" B1-B3, @d1-b3 ") == (stone("b1", "b3"), character("d1", "b3"))
    assert parse_turn("b1b3") == (stone("b1", "b3"),)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "empty Sensei turn"),
        ("b1-b9", "no cell b9"),
        ("b1", "cannot read the Sensei action 'b1'"),
        ("a1-a2 b1-b2 c1-c2 @d1-a1", "at most 3"),
        ("@@d1-a1", "cannot read"),
    ],
)
def test_unreadable_moves_are_named(text, message):
    with pytest.raises(NotationError, match=message):
        SenseiPosition.new().parse_move(text)


def test_an_illegal_turn_changes_nothing_and_says_why():
    pos = SenseiPosition.new()
    before = pos.to_json()
    with pytest.raises(IllegalMoveError, match=r"action 2 \(d1-d2\): the stone on d1 carries"):
        pos.push(pos.parse_move("a1-a3 d1-d2"))
    with pytest.raises(IllegalMoveError, match="you already moved two stones"):
        pos.push(pos.parse_move("a1-a3 b1-b3 c1-c3"))
    assert pos.to_json() == before and pos.move_stack == []


def test_whole_turn_api_refuses_while_a_turn_is_in_progress():
    pos = SenseiPosition.new()
    pos.push_action(stone("a1", "a2"))
    with pytest.raises(IllegalMoveError, match="a turn is in progress"):
        pos.legal_moves()
    with pytest.raises(IllegalMoveError, match="a turn is in progress"):
        pos.push((stone("b1", "b2"),))


def test_describe_action_in_plain_words():
    pos = board(CHARACTER_BOARD)
    assert pos.describe_action(stone("a1", "a2")) == "Green moves the stone on a1 to a2"
    assert pos.describe_action(character("d4", "g7")) == (
        "Green moves the character from d4 to g7, home on Red's start row"
    )


def test_diagram_shows_stones_characters_pits_and_the_turn():
    pos = SenseiPosition.new(SenseiOptions(side="storm"))
    pos.push_action(stone("a1", "a2"))
    lines = pos.diagram().splitlines()
    assert lines[0] == "Sensei (Arashi, storm side)"
    assert lines[1] == "7  r r r R r r r"
    assert lines[3] == "5  . . x . x . ."
    assert lines[6] == "2  g . . . . . ."
    assert lines[7] == "1  . g g G g g g"
    assert lines[9] == "Green to move (turn 1), this turn so far: a1-a2"


# -- JSON ---------------------------------------------------------------------------------------------
def test_position_json_keeps_a_turn_in_progress():
    pos = SenseiPosition.new(SenseiOptions(side="storm", turn_cap=50))
    play(pos, "a1-a4 @d1-a4")
    pos.push_action(stone("a7", "a5"))
    data = json.loads(json.dumps(pos.to_json()))
    again = SenseiPosition.from_json(data)
    assert again.to_json() == data
    assert again.actions_this_turn == (stone("a7", "a5"),)
    assert again.turns_played == 1 and again.turn == "red"
    assert again.pop_action() == stone("a7", "a5")


@pytest.mark.parametrize(
    "change, message",
    [
        ({"turn": "blue"}, '"turn" must be'),
        ({"turns_played": -1}, '"turns_played"'),
        ({"stones": {"green": ["a1", "z9"], "red": ["a7"]}}, "'z9' is not a cell"),
        ({"stones": {"green": ["a1", "a1"], "red": ["a7"]}}, "two stones on a1"),
        ({"stones": {"green": ["a1", "d1"], "red": ["d1"]}}, "two stones on d1"),
        ({"characters": {"green": "b2", "red": "a7"}}, '"characters.green"'),
        ({"actions": ["d1-d2"]}, "carries the character"),
        ({"stones": None}, '"stones" and "characters"'),
    ],
)
def test_malformed_position_json_is_a_record_error(change, message):
    data = {
        "game": "sensei",
        "turn": "green",
        "stones": {"green": ["a1", "d1"], "red": ["a7"]},
        "characters": {"green": "d1", "red": "a7"},
    }
    data.update(change)
    with pytest.raises(RecordError, match=message):
        SenseiPosition.from_json(data)
    with pytest.raises(RecordError, match="invalid JSON"):
        SenseiPosition.parse_position("{not json")


def test_stone_in_a_pit_is_a_record_error():
    with pytest.raises(RecordError, match="cannot stand in the pit c3"):
        SenseiPosition.from_json(
            {
                "options": {"side": "storm"},
                "stones": {"green": ["c3", "d1"], "red": ["a7"]},
                "characters": {"green": "d1", "red": "a7"},
            }
        )


def test_parse_position_reads_the_diagram_back():
    rng = random.Random(2)
    for options in (SenseiOptions(), SenseiOptions(movement="shizukana", side="storm")):
        pos = SenseiPosition.new(options)
        for _ in range(7):
            pos.push(pos.random_move(rng))
        again = SenseiPosition.parse_position(pos.diagram())
        assert again.to_json() == pos.to_json()
        assert again.diagram() == pos.diagram()
    rows_only = SenseiPosition.parse_position("rrrRrrr\n" + ".......\n" * 5 + "gggGggg")
    assert rows_only.to_json() == SenseiPosition.new().to_json()


@pytest.mark.parametrize(
    "text, message",
    [
        ("hello", "cannot read 'hello' as a row of a Sensei board"),
        ("rrrRrrr\n.......\ngggGggg", "needs 7 rows of 7 cells"),
        ("rrrRrrx\n" + ".......\n" * 5 + "gggGggg", "g7 is on a start row"),
    ],
)
def test_unreadable_board_text_is_a_record_error(text, message):
    with pytest.raises(RecordError, match=message):
        SenseiPosition.parse_position(text)


def test_diagram_of_a_turn_in_progress_is_refused_with_a_pointer_to_json():
    pos = SenseiPosition.new()
    pos.push_action(stone("a1", "a2"))
    with pytest.raises(RecordError, match="use the JSON form"):
        SenseiPosition.parse_position(pos.diagram())


# -- properties of random games ---------------------------------------------------------------------
option_sets = st.builds(
    SenseiOptions,
    movement=st.sampled_from(["arashi", "shizukana"]),
    side=st.sampled_from(["plain", "storm"]),
    variant_start=st.booleans(),
    first=st.sampled_from(["green", "red"]),
)


@settings(max_examples=25, deadline=None)
@given(options=option_sets, seed=st.integers(0, 10**6))
def test_random_games_never_crash_and_always_end(options, seed):
    rng = random.Random(seed)
    pos = SenseiPosition.new(options)
    for _ in range(2000):
        if pos.is_game_over():
            break
        pos.push(pos.random_move(rng))
    assert pos.outcome() is not None
    assert pos.outcome().reason in ("character-home", "unfair-game")


@settings(max_examples=15, deadline=None)
@given(options=option_sets, seed=st.integers(0, 10**6))
def test_random_games_with_a_turn_cap_end_by_the_cap_at_the_latest(options, seed):
    capped = SenseiOptions(
        options.movement, options.side, options.pits, options.variant_start, options.first, 10
    )
    rng = random.Random(seed)
    pos = SenseiPosition.new(capped)
    while not pos.is_game_over():
        pos.push(pos.random_move(rng))
    assert pos.turns_played <= 10
    assert (pos.outcome().reason == "turn-cap") == (pos.outcome().winner is None)


@settings(max_examples=15, deadline=None)
@given(options=option_sets, seed=st.integers(0, 10**6))
def test_push_pop_and_json_round_trips(options, seed):
    rng = random.Random(seed)
    pos = SenseiPosition.new(options)
    snapshots = []
    while not pos.is_game_over() and len(snapshots) < 40:
        snapshots.append(pos.to_json())
        pos.push(pos.random_move(rng))
    record = json.loads(json.dumps(game_to_json(pos)))
    again = game_from_json(record)
    assert again.to_json() == pos.to_json() and again.outcome() == pos.outcome()
    data = json.loads(json.dumps(pos.to_json()))
    assert SenseiPosition.from_json(data).to_json() == data
    for expected in reversed(snapshots):
        pos.pop()
        assert pos.to_json() == expected


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_push_action_pop_action_round_trip(seed):
    rng = random.Random(seed)
    pos = SenseiPosition.new(SenseiOptions(side="storm"))
    for _ in range(5):
        pos.push(pos.random_move(rng))
        if pos.outcome():
            return
    before = pos.to_json()
    pushed = 0
    while pos.legal_actions() and pushed < 3:
        action = rng.choice(pos.legal_actions())
        if pos.describe_action(action).endswith("start row"):
            break
        pos.push_action(action)
        pushed += 1
    for _ in range(pushed):
        pos.pop_action()
    assert pos.to_json() == before


def test_registered_as_sensei():
    assert games.get("sensei") is SenseiPosition
    assert SenseiPosition.players == ("green", "red")
    assert SenseiPosition.cell_classes() == ["green", "red", "green-character", "red-character"]


def test_a_finished_diagram_says_game_over_like_every_game():
    import random

    position = SenseiPosition.new()
    rng = random.Random(1)
    while not position.is_game_over():
        position.push(position.random_move(rng))
    last = position.diagram().splitlines()[-1]
    assert last.startswith("game over: ")
    assert SenseiPosition.parse_position(position.diagram()).cells() == position.cells()
    old = position.diagram().replace("game over:", "Game over:")  # diagrams of older versions
    assert SenseiPosition.parse_position(old).cells() == position.cells()


def test_a_finished_diagram_reads_back_with_whose_turn_it_was_and_the_same_result():
    """Both players block the board: the one who moved last wins - so the diagram of a
    finished game must keep whose turn it is (a review found it read back as Green's turn 1,
    and the winner changed)."""
    rows = ["rrrRrrr", "gggGggg", ".......", ".......", ".......", ".......", "......."]
    position = SenseiPosition.from_rows(rows, turn="red", turns_played=9)
    assert "Green moved last" in str(position.outcome())
    again = SenseiPosition.parse_position(position.diagram())
    assert (again.turn, again.turns_played) == ("red", 9)
    assert again.outcome() == position.outcome()


def test_two_blocking_lines_are_counted_apart():
    """rules.md: the opponent's 3 stones must touch *that* chain. With custom pits a player
    may have two lines from the a-file to the g-file; 2 stones touching each is no loss (a
    review found the two counted together, 4, and Red losing)."""
    pits = ["a4", "b4", "c4", "d4", "e4", "f4", "g6"]
    position = SenseiPosition.from_json(
        {
            "options": {"side": "storm", "pits": pits},
            "turn": "green",
            "stones": {
                # two lines: the pits of rank 4 with Red's g4, Red's rank 6 with the pit g6
                "red": ["g4", "a6", "b6", "c6", "d6", "e6", "f6"],
                "green": ["c3", "d3", "a7", "b7", "e1", "f1", "g1"],  # 2 by each line
            },
            "characters": {"red": "d6", "green": "e1"},
        }
    )
    assert position.unfair_line("red") is None
    assert position.outcome() is None
    # a third Green stone by the line of rank 4: that line blocks, and only its cells are named
    more = position.to_json()
    more["stones"]["green"] = ["c3", "d3", "f3", "a7", "b7", "e1", "g1"]
    blocked = SenseiPosition.from_json(more)
    assert blocked.unfair_line("red") == ["a4", "b4", "c4", "d4", "e4", "f4", "g4"]
    assert blocked.outcome().winner == "green"


def test_a_line_of_pits_alone_is_nobody_s():
    """rules.md: the line is "the blocker's stones (plus pits)": custom pits across the
    board with no red stone by them are no line of Red's, however many green stones touch
    them (those make them Green's line, which no red stone touches)."""
    position = SenseiPosition.from_json(
        {
            "options": {"side": "storm", "pits": ["a4", "b4", "c4", "d4", "e4", "f4", "g4"]},
            "turn": "green",
            "stones": {
                "red": ["a7", "b7", "c7", "d7", "e7", "f6", "g6"],  # none by the pits
                "green": ["a1", "b1", "c1", "d1", "e3", "f3", "g3"],  # 3 touching them
            },
            "characters": {"red": "d7", "green": "d1"},
        }
    )
    assert position.unfair_line("red") is None and position.unfair_line("green") is None
    assert position.outcome() is None
