"""Aranea: one test per rule of rules.md section 3, then random-game properties."""

import json
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.dice import Dice, Roll
from companion.errors import IllegalMoveError, NotationError, OptionError, RecordError
from companion.games import get
from companion.games.aranea import (
    CENTRE_CELLS,
    RING_CELLS,
    WEB,
    WIN_LINES,
    AraneaMove,
    AraneaOptions,
    AraneaPosition,
    Knock,
)
from companion.games.base import Outcome, game_from_json, game_to_json

# A roll for each value 1..12 (3-4 is the only 1).
ROLL_FOR = {1: "3-4", **{v: f"{v - 6}-6" if v > 6 else f"{v - 1}-1" for v in range(2, 13)}}


def position(stones=None, turn="amber", value=None, first="amber", **options) -> AraneaPosition:
    """A position with `turn` to use a roll of `value` (or to roll, when value is None)."""
    data = {
        "options": {"first": first, **options},
        "phase": "use" if value else "roll",
        "turn": turn,
        "first_player": first,
        "roll": ROLL_FOR[value] if value else None,
        "stones": stones or {},
    }
    return AraneaPosition.from_json(data)


def play(pos: AraneaPosition, *texts: str) -> AraneaPosition:
    for text in texts:
        pos.push(pos.parse_move(text))
    return pos


# -- the web ----------------------------------------------------------------------------------
def test_web_has_three_rings_of_twelve_and_a_centre_of_twelve():
    assert len(RING_CELLS) == 36 and len(CENTRE_CELLS) == 12
    assert RING_CELLS[0] == "r1-1" and RING_CELLS[-1] == "r3-12"
    assert set(CENTRE_CELLS) == {f"c{n}" for n in range(1, 13)}
    assert AraneaPosition.new().cell_names() == list(WEB)


def test_ring_squares_are_numbered_clockwise_and_wrap_from_12_to_1():
    assert WEB["r1-1"].clockwise == "r1-2"
    assert WEB["r2-12"].clockwise == "r2-1"
    assert WEB["r3-1"].counter_clockwise == "r3-12"


def test_equal_numbers_lie_on_one_ray_from_ring_1_to_the_centre():
    assert WEB["r1-7"].inward == "r2-7"
    assert WEB["r2-7"].inward == "r3-7"
    assert WEB["r3-7"].inward == "c7"


def test_centre_is_3_rows_by_4_columns_numbered_row_by_row():
    assert (WEB["c1"].row, WEB["c1"].col) == (0, 0)
    assert (WEB["c4"].row, WEB["c4"].col) == (0, 3)
    assert (WEB["c5"].row, WEB["c5"].col) == (1, 0)
    assert (WEB["c12"].row, WEB["c12"].col) == (2, 3)


def test_winning_lines_are_rows_columns_and_diagonals_of_three_consecutive():
    lines = {frozenset(line) for line in WIN_LINES}
    assert len(WIN_LINES) == 14  # 6 in rows, 4 columns, 4 diagonals
    assert frozenset({"c1", "c2", "c3"}) in lines and frozenset({"c2", "c3", "c4"}) in lines
    assert frozenset({"c4", "c8", "c12"}) in lines
    assert frozenset({"c1", "c6", "c11"}) in lines and frozenset({"c4", "c7", "c10"}) in lines
    assert (
        frozenset({"c1", "c2", "c4"}) not in lines and frozenset({"c1", "c6", "c12"}) not in lines
    )


# -- stock and dice ---------------------------------------------------------------------------
def test_each_player_has_a_stock_of_12_stones():
    pos = AraneaPosition.new()
    assert pos.stock == {"amber": 12, "blue": 12}
    assert pos.to_json()["stock"] == {"amber": 12, "blue": 12}


def test_stock_size_is_an_option():
    assert AraneaPosition.new({"stock": 8}).stock == {"amber": 8, "blue": 8}
    with pytest.raises(OptionError):
        AraneaPosition.options_from({"stock": 7})


def test_a_three_and_a_four_count_as_one():
    pos = play(position(), "roll 4-3", "place")
    assert pos.cells() == {"r1-1": "amber"}


# -- a turn -----------------------------------------------------------------------------------
def test_a_turn_is_a_roll_then_one_use_of_it():
    pos = position()
    assert pos.awaiting_roll and pos.turn == "amber"
    with pytest.raises(IllegalMoveError, match="must roll the dice first"):
        pos.push(AraneaMove("place"))
    play(pos, "roll 2-3")
    assert not pos.awaiting_roll and pos.roll == Roll(2, 3)
    with pytest.raises(IllegalMoveError, match="rolled 2 and 3 already"):
        play(pos, "roll 1-1")
    play(pos, "place")
    assert pos.turn == "blue" and pos.awaiting_roll


def test_roll_move_uses_the_dice():
    pos = position()
    move = pos.roll_move(Dice(seed=4))
    assert move == AraneaMove("roll", Dice(seed=4).roll())


def test_place_puts_a_stock_stone_on_ring_1_square_n():
    pos = play(position(value=9), "place")
    assert pos.cells() == {"r1-9": "amber"}
    assert pos.stock["amber"] == 11


def test_place_needs_a_stone_in_stock():
    stones = {f"r{r}-{n}": "amber" for r in (1, 2) for n in range(1, 7)}  # all 12 on the web
    pos = position(stones, value=8)
    assert pos.stock["amber"] == 0
    with pytest.raises(IllegalMoveError, match="no stones left in stock"):
        play(pos, "place")


def test_ring_stone_moves_n_squares_clockwise_within_its_ring():
    pos = play(position({"r2-3": "amber"}, value=5), "r2-3")
    assert pos.cells() == {"r2-8": "amber"}


def test_ring_move_wraps_past_12():
    pos = play(position({"r1-10": "amber"}, value=4), "r1-10")
    assert pos.cells() == {"r1-2": "amber"}


def test_only_your_own_ring_stones_move():
    pos = position({"r1-1": "blue"}, value=2)
    with pytest.raises(IllegalMoveError, match="r1-1 is a blue stone"):
        play(pos, "r1-1")
    with pytest.raises(IllegalMoveError, match="r1-5 is empty"):
        play(pos, "r1-5")


def test_clash_mode_second_player_moves_counter_clockwise():
    pos = play(position({"r1-2": "blue"}, turn="blue", value=3, clash=True), "r1-2")
    assert pos.cells() == {"r1-11": "blue"}
    assert pos.direction("amber") == "clockwise"


def test_clash_mode_first_player_still_moves_clockwise():
    pos = play(position({"r1-2": "amber"}, value=3, clash=True), "r1-2")
    assert pos.cells() == {"r1-5": "amber"}


def test_without_clash_both_players_move_clockwise():
    pos = play(position({"r1-2": "blue"}, turn="blue", value=3), "r1-2")
    assert pos.cells() == {"r1-5": "blue"}


def test_passing_over_stones_is_free():
    stones = {"r1-1": "amber", "r1-2": "blue", "r1-3": "amber", "r1-4": "blue"}
    pos = play(position(stones, value=4), "r1-1")
    assert pos.cells() == {"r1-2": "blue", "r1-3": "amber", "r1-4": "blue", "r1-5": "amber"}


# -- landing ----------------------------------------------------------------------------------
def test_landing_on_an_empty_square_stays():
    pos = position({"r3-1": "amber"}, value=2)
    effects = pos.use_effects("r3-1")
    assert (effects.origin, effects.path, effects.final) == ("r3-1", ("r3-3",), "r3-3")


def test_landing_on_an_opponent_knocks_it_back_to_its_owners_stock():
    pos = position({"r1-4": "amber", "r1-6": "blue"}, value=2)
    effects = pos.use_effects("r1-4")
    assert effects.knocked_off == (Knock("r1-6", "blue"),) and effects.final == "r1-6"
    play(pos, "r1-4")
    assert pos.cells() == {"r1-6": "amber"}
    assert pos.stock == {"amber": 11, "blue": 12}


def test_placing_on_an_opponent_knocks_it_off_too():
    pos = play(position({"r1-6": "blue"}, value=6), "place")
    assert pos.cells() == {"r1-6": "amber"} and pos.stock == {"amber": 11, "blue": 12}


def test_landing_on_your_own_stone_goes_inward_to_the_same_number():
    pos = position({"r1-1": "amber", "r1-4": "amber"}, value=3)
    assert pos.use_effects("r1-1").path == ("r1-4", "r2-4")
    play(pos, "r1-1")
    assert pos.cells() == {"r1-4": "amber", "r2-4": "amber"}


def test_landing_rules_apply_again_after_going_inward():
    # Lands on own r1-4, goes in to r2-4: Blue's stone there is knocked off.
    pos = position({"r1-4": "amber", "r2-4": "blue"}, value=4)
    effects = pos.use_effects("place")
    assert effects.path == ("r1-4", "r2-4")
    assert effects.knocked_off == (Knock("r2-4", "blue"),)
    play(pos, "place")
    assert pos.cells() == {"r1-4": "amber", "r2-4": "amber"}
    assert pos.stock == {"amber": 10, "blue": 12}


def test_cascade_through_every_ring_into_the_centre():
    stones = {"r1-2": "amber", "r2-2": "amber", "r3-2": "amber"}
    pos = position(stones, value=2)
    effects = pos.use_effects("place")
    assert effects.path == ("r1-2", "r2-2", "r3-2", "c2") and effects.final == "c2"
    play(pos, "place")
    assert pos.cells()["c2"] == "amber"


def test_from_ring_3_an_own_stone_sends_the_mover_to_centre_square_n():
    pos = play(position({"r3-1": "amber", "r3-5": "amber"}, value=4), "r3-1")
    assert pos.cells() == {"r3-5": "amber", "c5": "amber"}


def test_occupied_centre_square_makes_the_move_void_and_nothing_changes():
    stones = {"r3-1": "amber", "r3-5": "amber", "c5": "blue"}
    pos = position(stones, value=4)
    effects = pos.use_effects("r3-1")
    assert effects.void and effects.blocked_by == "c5" and effects.final is None
    before = pos.to_json()
    with pytest.raises(IllegalMoveError, match="centre 5 is taken: use the roll another way"):
        play(pos, "r3-1")
    assert pos.to_json() == before
    assert AraneaMove("move", cell="r3-1") not in pos.legal_moves()


def test_own_stone_in_the_centre_blocks_too():
    pos = position({"r2-2": "amber", "r3-2": "amber", "c2": "amber"}, value=2)
    assert pos.use_effects("place").blocked_by is None  # r1-2 is empty: stays
    pos = position({"r1-2": "amber", "r2-2": "amber", "r3-2": "amber", "c2": "amber"}, value=2)
    assert pos.use_effects("place").blocked_by == "c2"


def test_centre_stones_never_move():
    pos = position({"c3": "amber"}, value=3)
    with pytest.raises(NotationError, match="centre stones never move"):
        pos.parse_move("c3")
    with pytest.raises(IllegalMoveError, match="centre stones never move"):
        pos.push(AraneaMove("move", cell="c3"))
    assert pos.legal_moves() == [AraneaMove("place")]


def test_centre_stones_cannot_be_removed():
    # Nothing can land on a centre stone: a cascade into it is void, never a knock-off.
    pos = position({"r1-6": "blue", "r2-6": "blue", "r3-6": "blue", "c6": "amber"}, "blue", 6)
    assert pos.use_effects("place").blocked_by == "c6"
    assert AraneaMove("place") not in pos.legal_moves()
    assert pos.cells()["c6"] == "amber"


def test_a_twelve_may_not_move_a_stone_round_to_its_own_square():
    pos = position({"r2-5": "amber"}, value=12)
    # (a trial: it said "place a stone or pass instead", where the roll must be used)
    with pytest.raises(IllegalMoveError, match="back to its own square: use the 12 another way$"):
        play(pos, "r2-5")
    assert pos.legal_moves() == [AraneaMove("place")]
    free = position({"r2-5": "amber"}, value=12, must_use_roll=False)
    with pytest.raises(IllegalMoveError, match="use the 12 another way, or pass$"):
        play(free, "r2-5")


def test_full_circle_inward_option_sends_the_stone_inward():
    pos = play(position({"r2-5": "amber"}, value=12, full_circle="inward"), "r2-5")
    assert pos.cells() == {"r3-5": "amber"}


def test_no_legal_use_means_the_turn_passes():
    stones = {f"r{r}-{n}": "amber" for r in (1, 2) for n in range(1, 7)}
    pos = position(stones, value=12)  # no stock; every 12 is a full circle
    assert pos.legal_moves() == [AraneaMove("pass")]
    play(pos, "pass")
    assert pos.turn == "blue" and pos.awaiting_roll


def test_a_player_must_use_the_roll_if_any_legal_use_exists():
    pos = position(value=5)
    with pytest.raises(IllegalMoveError, match="may not pass"):
        play(pos, "pass")


def test_must_use_roll_false_lets_a_player_pass_any_time():
    pos = position(value=5, must_use_roll=False)
    assert AraneaMove("pass") in pos.legal_moves()
    play(pos, "pass")
    assert pos.turn == "blue"


# -- winning ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "line", [("c5", "c6", "c7"), ("c4", "c8", "c12"), ("c3", "c6", "c9"), ("c2", "c7", "c12")]
)
def test_three_in_a_straight_line_in_the_centre_wins(line):
    # The last stone of the line comes in from r3-n, pushed by an own stone.
    last = WEB[line[-1]].number
    stones = {cell: "amber" for cell in line[:-1]}
    stones.update({f"r3-{last}": "amber", f"r3-{(last - 3) % 12 + 1}": "amber"})
    pos = position(stones, value=2)
    play(pos, f"r3-{(last - 3) % 12 + 1}")
    outcome = pos.outcome()
    assert (outcome.winner, outcome.reason) == ("amber", "three-in-line")
    assert pos.legal_moves() == [] and not pos.awaiting_roll


def test_three_in_the_centre_not_in_a_line_does_not_win():
    pos = position({"c1": "amber", "c2": "amber", "c4": "amber"})
    assert pos.outcome() is None


def test_five_anywhere_in_the_centre_wins():
    stones = {"c1": "blue", "c3": "blue", "c9": "blue", "c12": "blue", "r3-8": "blue"}
    stones["r3-6"] = "blue"
    pos = position(stones, turn="blue", value=2)
    assert pos.outcome() is None
    play(pos, "r3-6")  # lands on own r3-8, goes in to c8: five, and no line of three
    outcome = pos.outcome()
    assert (outcome.winner, outcome.reason) == ("blue", "five-in-centre")


def test_a_mixed_line_does_not_win():
    pos = position({"c1": "amber", "c2": "blue", "c3": "amber"})
    assert pos.outcome() is None


# -- who starts -------------------------------------------------------------------------------
def test_opening_roll_higher_value_starts():
    pos = AraneaPosition.new()
    assert pos.awaiting_roll and pos.turn == "amber"
    play(pos, "roll 2-2")
    assert pos.turn == "blue"
    play(pos, "roll 5-6")
    assert pos.first_player == "blue" and pos.turn == "blue" and pos.awaiting_roll


def test_opening_roll_three_four_counts_as_one():
    pos = play(AraneaPosition.new(), "roll 3-4", "roll 1-1")
    assert pos.first_player == "blue"


def test_opening_roll_ties_roll_again():
    pos = play(AraneaPosition.new(), "roll 3-3", "roll 5-1")
    assert pos.first_player is None and pos.turn == "amber"
    play(pos, "roll 6-6", "roll 1-2")
    assert pos.first_player == "amber" and pos.turn == "amber"
    assert len(pos.move_stack) == 4  # every roll is part of the record


def test_first_player_can_be_given_for_later_games():
    pos = AraneaPosition.new({"first": "blue"})
    assert pos.turn == "blue" and pos.first_player == "blue" and pos.phase == "roll"


def test_who_starts_later_games_the_previous_loser_starts():
    """rules.md 3: the opening roll decides the first game; later, the previous loser starts."""
    defaults = AraneaPosition.options_from({})
    assert AraneaPosition.options_for_next_game(defaults, None).first == "roll"
    amber_won = Outcome("amber", "three-in-line")
    later = AraneaPosition.new(AraneaPosition.options_for_next_game(defaults, amber_won))
    assert later.turn == "blue" and later.phase == "roll" and later.first_player == "blue"
    blue_won = AraneaPosition.options_for_next_game(defaults, Outcome("blue", "five-in-centre"))
    assert blue_won.first == "amber"
    # A table that chose who starts keeps its choice.
    chosen = AraneaPosition.options_from({"first": "amber"})
    assert AraneaPosition.options_for_next_game(chosen, amber_won).first == "amber"


# -- notation, JSON, undo -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,move",
    [
        ("roll 3-4", AraneaMove("roll", Roll(3, 4))),
        ("3-4", AraneaMove("roll", Roll(3, 4))),
        ("Place", AraneaMove("place")),
        ("r2-5", AraneaMove("move", cell="r2-5")),
        ("move r2-5", AraneaMove("move", cell="r2-5")),
        (" pass ", AraneaMove("pass")),
    ],
)
def test_notation(text, move):
    pos = AraneaPosition.new()
    assert pos.parse_move(text) == move
    assert pos.parse_move(pos.move_text(move)) == move


@pytest.mark.parametrize("text", ["", "roll 7-1", "r4-1", "r1-13", "jump", "place r1-3", "c13"])
def test_unreadable_moves_are_notation_errors(text):
    with pytest.raises(NotationError):
        AraneaPosition.new().parse_move(text)


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"game": "arinama"},
        {"phase": "later"},
        {"phase": "use"},
        {"turn": "red"},
        {"first_player": "red"},
        {"stones": {"r9-1": "amber"}},
        {"stones": {"r1-1": "green"}},
        {"stock": {"amber": 3, "blue": 12}},
        {"roll": "9-9", "phase": "use", "first_player": "amber"},
        {"options": {"clash": "maybe"}},
        {"opening_rolls": ["1-1", "2-2", "3-3"]},  # only Amber's roll waits for Blue's
        {"opening_rolls": ["1-1"], "turn": "amber"},
        {"opening_rolls": ["1-1"], "turn": "blue", "phase": "roll", "first_player": "blue"},
        {"turn_number": 0},
        {"turn_number": "2"},
        {"turn_number": True},
    ],
)
def test_malformed_positions_are_record_errors(data):
    with pytest.raises((RecordError, OptionError)):
        AraneaPosition.from_json(data)


def test_stocks_are_part_of_the_position_json():
    pos = play(position({"r1-6": "blue"}, value=6), "place")
    data = pos.to_json()
    assert data["stock"] == {"amber": 11, "blue": 12}
    assert AraneaPosition.from_json(data).stock == pos.stock


def test_diagram_shows_the_web_stock_and_whose_turn():
    pos = play(position({"c6": "blue", "r3-12": "amber"}, value=4), "place")
    text = pos.diagram()
    assert "ring 1" in text and "centre" in text
    assert "amber (A) 10, blue (B) 11" in text
    assert "blue to roll" in text


def test_registry_finds_aranea():
    assert get("aranea") is AraneaPosition


# -- properties -----------------------------------------------------------------------------------
options_strategy = st.builds(
    AraneaOptions,
    stock=st.integers(8, 14),
    clash=st.booleans(),
    first=st.sampled_from(["roll", "amber", "blue"]),
    full_circle=st.sampled_from(["forbidden", "inward"]),
)


def total_stones(pos: AraneaPosition, player: str) -> int:
    return pos.on_board(player) + pos.stock[player]


@settings(max_examples=10, deadline=None)
@given(options=options_strategy, seed=st.integers(0, 10**6))
def test_random_games_never_crash_always_end_and_conserve_stones(options, seed):
    rng = random.Random(seed)
    dice = Dice(seed=seed)
    pos = AraneaPosition.new(options)
    for _ in range(20_000):  # random games of 8+ stones take ~1,000-5,000 moves
        if pos.is_game_over():
            break
        if pos.awaiting_roll:
            pos.push(pos.roll_move(dice))
            continue
        move = pos.random_move(rng)
        if move.kind != "pass":
            effects = pos.use_effects(move)
            assert not effects.void
        pos.push(move)
        for player in ("amber", "blue"):
            assert total_stones(pos, player) == options.stock
    assert pos.is_game_over()
    assert pos.outcome().reason in ("three-in-line", "five-in-centre")


@settings(max_examples=15, deadline=None)
@given(options=options_strategy, seed=st.integers(0, 10**6), length=st.integers(0, 120))
def test_push_pop_and_json_round_trips(options, seed, length):
    rng = random.Random(seed)
    pos = AraneaPosition.new(options)
    snapshots = []
    for _ in range(length):
        if pos.is_game_over():
            break
        snapshots.append(pos.to_json())
        pos.push(pos.random_move(rng))  # rolls too: legal_moves lists the 36 rolls
    data = json.loads(json.dumps(pos.to_json()))
    again = AraneaPosition.from_json(data)
    assert again.to_json() == data and again.diagram() == pos.diagram()
    record = json.loads(json.dumps(game_to_json(pos)))
    assert game_from_json(record).to_json() == pos.to_json()
    for expected in reversed(snapshots):
        pos.pop()
        assert pos.to_json() == expected


def test_clash_diagram_names_the_player_who_goes_counter_clockwise():
    for first, second in (("amber", "blue"), ("blue", "amber")):
        pos = AraneaPosition.new(AraneaOptions(clash=True, first=first))
        assert f"Clash: {second} moves counter-clockwise" in pos.diagram()
        assert pos.direction(second) == "counter-clockwise" and pos.direction(first) == "clockwise"
    opening = AraneaPosition.new(AraneaOptions(clash=True))
    assert "Clash: the second player moves counter-clockwise" in opening.diagram()
    assert "Clash" not in AraneaPosition.new().diagram()


def test_the_diagram_numbers_each_ring_square_over_its_column():
    """A new player's trial: the ring squares' numbers stood one column right of the squares."""
    game = get("aranea").new()
    for move in ("4-5", "2-5", "1-3", "place"):  # the opening rolls, then amber places a stone
        game.push(game.parse_move(move))
    header, *rings = game.diagram().splitlines()[:4]
    numbers = [m.end() - 1 for m in re.finditer(r"\d+", header)]  # each number's last digit
    assert len(numbers) == 12
    for row in rings:
        squares = [i for i, ch in enumerate(row) if ch in ".AB" and i >= len("ring 1 ")]
        assert squares == numbers, (header, row)
    assert "A" in rings[0] + rings[1] + rings[2]


def test_what_a_roll_allows_is_said_as_the_legal_moves_are():
    """A new player's trial: after a roll the screen offered "place, move or pass", and "pass"
    was then refused; "roll" alone said "'' is not a roll of two dice"."""
    game = get("aranea").new()
    for move in ("4-5", "2-5", "1-3"):  # the opening rolls, then amber's roll: a 4
        game.push(game.parse_move(move))
    assert [game.move_text(m) for m in game.legal_moves()] == ["place"]
    assert game.diagram().splitlines()[-1] == "amber rolled 1 and 3 = 4: place"
    with pytest.raises(IllegalMoveError, match="amber has rolled 1 and 3 already: now place$"):
        game.push(game.parse_move("roll 3-4"))
    with pytest.raises(NotationError, match='"roll" wants the two dice it shows: .*"roll 3-4"'):
        game.parse_move("roll")


def test_the_position_says_the_dice_in_words_and_the_record_keeps_the_notation():
    """`companion play aranea` said "amber rolled 5-2 = 7: place" under the board, beside cells
    such as r5-2, after the screen and the referee had moved to "5 and 2"."""
    game = get("aranea").new()
    game.push(game.parse_move("roll 3-4"))  # amber's opening roll
    assert game.diagram().splitlines()[-1] == "opening roll: blue to roll (amber rolled 3 and 4)"
    for move in ("roll 2-5", "roll 5-2"):
        game.push(game.parse_move(move))
    assert game.diagram().splitlines()[-1] == "blue rolled 5 and 2 = 7: place"  # 7 beats 1
    assert [game.move_text(m) for m in game.move_stack] == ["roll 3-4", "roll 2-5", "roll 5-2"]
    assert game.to_json()["roll"] == "5-2"
