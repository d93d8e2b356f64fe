"""Arinama: one test per rule of rules.md section 1, then random-game properties."""

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import IllegalMoveError, NotationError, OptionError, RecordError
from companion.games import get
from companion.games.arinama import ArinamaOptions, ArinamaPosition, PlacementEffects
from companion.games.base import game_from_json, game_to_json

SYMBOLS = {"X": "black", "O": "white"}


def setup(picture: str, turn: str = "black", placements=None, **options) -> ArinamaPosition:
    """A position from a picture: top line is the highest rank, X black, O white, . empty."""
    lines = [line.split() for line in picture.strip().splitlines()]
    rows, cols = len(lines), len(lines[0])
    stones = {}
    for r, line in enumerate(lines):
        for f, symbol in enumerate(line):
            if symbol in SYMBOLS:
                stones[f"{'abcdefghijkl'[f]}{rows - r}"] = SYMBOLS[symbol]
    data = {"options": {"rows": rows, "cols": cols, **options}, "turn": turn, "stones": stones}
    if placements is not None:  # default: whoever has stones has placed them
        data["placements"] = placements
    return ArinamaPosition.from_json(data)


def picture(pos: ArinamaPosition) -> str:
    board = pos.diagram().splitlines()[: pos.rows]
    return "\n".join(line.split(" ", 1)[1] for line in board)


# -- board ----------------------------------------------------------------------------------------
def test_default_board_is_8x8_and_presets_are_5x5_and_8x8():
    assert len(ArinamaPosition.new().cell_names()) == 64
    assert len(ArinamaPosition.new(ArinamaOptions.preset("5x5")).cell_names()) == 25
    assert ArinamaOptions.preset("8x8") == ArinamaOptions()


@pytest.mark.parametrize("rows,cols", [(3, 3), (3, 12), (12, 12), (7, 4)])
def test_any_board_size_from_3_to_12_is_allowed(rows, cols):
    pos = ArinamaPosition.new({"rows": rows, "cols": cols})
    assert len(pos.cell_names()) == rows * cols
    assert len(pos.legal_moves()) == rows * cols


@pytest.mark.parametrize("bad", [{"rows": 2}, {"cols": 13}, {"rows": "x"}, {"size": 5}])
def test_board_sizes_outside_3_to_12_are_option_errors(bad):
    with pytest.raises(OptionError):
        ArinamaPosition.options_from(bad)


def test_cells_are_named_files_from_the_left_and_ranks_from_the_bottom():
    pos = ArinamaPosition.new({"rows": 3, "cols": 4})
    assert pos.cell_names()[:5] == ["a1", "b1", "c1", "d1", "a2"]
    assert pos.cell_names()[-1] == "d3"
    pos.push("d1")
    assert picture(pos).splitlines()[-1] == ". . . X"


# -- turns ----------------------------------------------------------------------------------------
def test_black_moves_first_by_default():
    pos = ArinamaPosition.new()
    assert pos.turn == "black"
    pos.push("d4")
    assert pos.cells() == {"d4": "black"}
    assert pos.turn == "white"


def test_first_player_is_configurable():
    pos = ArinamaPosition.new({"first": "white"})
    assert pos.turn == "white"
    pos.push("a1")
    assert pos.cells() == {"a1": "white"}


def test_first_stone_of_each_player_may_go_anywhere():
    pos = ArinamaPosition.new({"rows": 5, "cols": 5})
    pos.push("a1")
    assert len(pos.legal_moves()) == 24  # white's first stone: any empty cell
    pos.push("e5")
    assert sorted(pos.legal_moves()) == ["a2", "b1", "b2"]


def test_later_stones_must_touch_an_own_stone_by_edge_or_corner():
    pos = setup(
        """
        . . . . .
        . . . . .
        . . X . .
        . . . . .
        O . . . .
        """,
        placements={"black": 1, "white": 1},
    )
    corner_and_edge = {"b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4"}
    assert set(pos.legal_moves()) == corner_and_edge
    pos.push("d4")  # a corner touch is enough
    pos.push("a2")  # white next to its own a1


def test_placement_not_touching_an_own_stone_is_illegal_with_a_reason():
    pos = setup(". . .\n. . .\nX . .", placements={"black": 1, "white": 0})
    with pytest.raises(IllegalMoveError, match="does not touch a black stone"):
        pos.push("c3")


def test_placement_on_an_occupied_cell_is_illegal():
    pos = setup(". . .\n. . .\nX . .")
    with pytest.raises(IllegalMoveError, match="a1 is taken by a black stone"):
        pos.push("a1")


# -- flips ----------------------------------------------------------------------------------------
def test_opponent_stone_touching_exactly_three_of_the_movers_stones_flips():
    pos = setup(
        """
        . . . .
        . . . .
        . O . .
        X X . .
        """
    )
    assert pos.placement_effects("c2") == PlacementEffects("c2", "black", ("b2",), False)
    pos.push("c2")
    assert pos.cells() == {"a1": "black", "b1": "black", "b2": "black", "c2": "black"}


def test_opponent_stone_touching_four_or_more_does_not_flip():
    pos = setup(
        """
        . . . .
        . . . .
        . O . .
        X X X .
        """
    )
    pos.push("c2")  # b2 now touches a1 b1 c1 c2: four
    assert pos.cells()["b2"] == "white"


def test_opponent_stone_touching_only_two_does_not_flip():
    pos = setup(". . . .\n. . . .\n. O . .\n. X . .")
    pos.push("c2")
    assert pos.cells()["b2"] == "white"


def test_placed_stone_touching_exactly_three_opponent_stones_flips_itself():
    pos = setup(". . .\nO O .\n. O .", placements={"black": 0, "white": 3})
    effects = pos.placement_effects("a1")
    assert effects.self_flip and effects.flipped == ()
    assert effects.after() == {"a1": "white"}
    pos.push("a1")
    assert pos.cells()["a1"] == "white"


def test_placed_stone_touching_four_or_more_opponent_stones_does_not_flip_itself():
    pos = setup(". . .\nO O O\nO . .", placements={"black": 0, "white": 4})
    pos.push("b1")  # touches a1 a2 b2 c2: four
    assert pos.cells()["b1"] == "black"
    pos = setup(". . .\nO O O\nO . O", placements={"black": 0, "white": 5})
    pos.push("b1")  # five
    assert pos.cells()["b1"] == "black"


def test_several_opponent_stones_may_flip_at_once():
    pos = setup(
        """
        . . X . .
        X . . . X
        . O . O .
        X . . . X
        """
    )
    effects = pos.placement_effects("c3")  # b2: a1 a3 c3; d2: e1 e3 c3
    assert effects.flipped == ("b2", "d2")
    pos.push("c3")
    assert pos.cells()["b2"] == pos.cells()["d2"] == "black"


def test_flips_never_chain():
    # c3 flips b3 (a2, a4, c3); that makes b4 touch three black stones, but b4 stays white.
    pos = setup(
        """
        . . . . .
        X O . . .
        . O . . .
        X . . X .
        . . . . .
        """
    )
    pos.push("c3")
    assert pos.cells()["b3"] == "black"
    assert pos.cells()["b4"] == "white"
    assert sum(pos.cells().get(n) == "black" for n in pos.neighbours("b4")) == 3


SELF_FLIP_AND_CAPTURE = """
. . . . .
X O . . .
. O . O .
X . . X .
. . . . .
"""


def test_flips_are_judged_simultaneously_by_default():
    # c3 touches b3 c4 d3 (three white: self-flip) and b3 touches a2 a4 c3 (three black: flip).
    pos = setup(SELF_FLIP_AND_CAPTURE.replace("X O . . .", "X . O . ."))
    assert pos.options.flip_check == "simultaneous"
    effects = pos.placement_effects("c3")
    assert effects == PlacementEffects("c3", "black", ("b3",), True)
    pos.push("c3")
    assert pos.cells()["b3"] == "black" and pos.cells()["c3"] == "white"


def test_flip_check_captures_first_option_rechecks_the_self_flip_after_captures():
    pos = setup(
        SELF_FLIP_AND_CAPTURE.replace("X O . . .", "X . O . ."), flip_check="captures-first"
    )
    effects = pos.placement_effects("c3")
    assert effects == PlacementEffects("c3", "black", ("b3",), False)
    pos.push("c3")
    assert pos.cells()["b3"] == "black" and pos.cells()["c3"] == "black"


def test_only_stones_touching_the_placed_stone_can_flip():
    board = ". . . X O\n. . . X X\n. . . . .\n. . . . .\nX . . . ."
    pos = setup(board)
    pos.push("a2")  # e5 already touches exactly three black stones but is far from a2
    assert pos.cells()["e5"] == "white"


def test_flip_scope_board_option_flips_any_stone_touching_exactly_three():
    board = ". . . X O\n. . . X X\n. . . . .\n. . . . .\nX . . . ."
    pos = setup(board, flip_scope="board")
    assert pos.placement_effects("a2").flipped == ("e5",)
    pos.push("a2")
    assert pos.cells()["e5"] == "black"


# -- the end --------------------------------------------------------------------------------------
def test_player_who_cannot_place_loses():
    pos = setup(". . .\nO O .\nX O .", turn="black")
    outcome = pos.outcome()
    assert outcome.winner == "white" and outcome.reason == "no-placement"
    assert pos.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        pos.push("c3")


def test_player_with_no_stones_left_loses_literal_reading():
    pos = setup(". . .\nO O .\nO O .", turn="black", placements={"black": 1, "white": 3})
    outcome = pos.outcome()
    assert (outcome.winner, outcome.reason) == ("white", "no-stones")


def test_no_stones_loses_false_lets_a_player_without_stones_place_anywhere():
    pos = setup(
        ". . .\nO O .\nO O .",
        turn="black",
        placements={"black": 1, "white": 3},
        no_stones_loses=False,
    )
    assert pos.outcome() is None
    assert sorted(pos.legal_moves()) == ["a3", "b3", "c1", "c2", "c3"]


def test_a_game_lost_by_having_every_stone_turned():
    pos = ArinamaPosition.new({"rows": 3, "cols": 3})
    for move in ["b1", "b2", "c1", "c3", "a2"]:
        pos.push(move)
    assert pos.cells()["b2"] == "black"  # a2 gave b2 its third black neighbour (a2 b1 c1)
    pos.push("c2")  # white's stone touches b1 c1 b2: three black - it turns black
    assert pos.cells()["c2"] == "black"
    pos.push("b3")  # c3, white's last stone, touches b2 b3 c2: three black
    assert set(pos.cells().values()) == {"black"}
    outcome = pos.outcome()
    assert (outcome.winner, outcome.reason) == ("black", "no-stones")
    assert pos.legal_moves() == []


def test_full_board_more_stones_wins():
    pos = setup("X X X\nX X O\nO O O", turn="white")
    outcome = pos.outcome()
    assert (outcome.winner, outcome.reason) == ("black", "full-board")
    assert "5 black, 4 white" in outcome.detail


def test_full_board_equal_counts_is_a_draw():
    pos = setup("X X X X\nO O O O\nX X O O", turn="black")
    outcome = pos.outcome()
    assert (outcome.winner, outcome.reason) == (None, "full-board")


def test_full_board_tie_option_can_give_equal_counts_to_the_second_player():
    pos = setup("X X X X\nO O O O\nX X O O", full_board_tie="second-player-wins")
    assert pos.outcome().winner == "white"


# -- notation, JSON, undo -----------------------------------------------------------------------
def test_move_text_is_the_cell_and_parsing_forgives_case_and_spaces():
    pos = ArinamaPosition.new()
    assert pos.parse_move(" C3 ") == "c3"
    assert pos.move_text("c3") == "c3"


@pytest.mark.parametrize("text", ["z1", "a9", "i1", "a0", "c", "", "3c", "c3x"])
def test_unknown_cells_are_notation_errors_naming_the_board(text):
    pos = ArinamaPosition.new()
    with pytest.raises(NotationError, match="a1 to h8|cell to place"):
        pos.parse_move(text)


@pytest.mark.parametrize(
    "data",
    [
        [],
        {"game": "aranea"},
        {"turn": "red"},
        {"stones": {"z9": "black"}},
        {"stones": {"a1": "green"}},
        {"stones": ["a1"]},
        {"placements": {"black": -1, "white": 0}},
        {"placements": {"black": True, "white": 0}},
        {"stones": {"a1": "black", "A1": "white"}},  # one cell given twice
        {"options": {"rows": 99}},
    ],
)
def test_malformed_positions_are_record_errors(data):
    with pytest.raises((RecordError, OptionError)):
        ArinamaPosition.from_json(data)


def test_parse_position_reads_a_picture_with_whose_turn():
    pos = ArinamaPosition.parse_position(
        """
        3 . . O
        2 . X .
        1 X . .
          a b c
        white to play
        """
    )
    assert (pos.rows, pos.cols, pos.turn) == (3, 3, "white")
    assert pos.cells() == {"a1": "black", "b2": "black", "c3": "white"}
    assert ArinamaPosition.parse_position("x..o\n....\n....").cells() == {
        "a3": "black",
        "d3": "white",
    }
    again = ArinamaPosition.parse_position(pos.diagram())
    assert again.cells() == pos.cells() and again.turn == "white"  # the diagram's turn line
    assert pos.diagram().endswith("\nwhite to play")
    no_turn_line = "\n".join(pos.diagram().splitlines()[:-1])
    assert ArinamaPosition.parse_position(no_turn_line).turn == "black"  # none: the first


@pytest.mark.parametrize(
    "text,words",
    [
        ("X . Q\n. . .\n. . .", "row of an Arinama board"),
        ("X . .\n. .\n. . .", "different lengths"),
        ("X .\n. .", "rows must be 3..12"),
        ("", "no Arinama board"),
        ("{not json", "invalid JSON"),
    ],
)
def test_parse_position_rejects_bad_pictures(text, words):
    with pytest.raises(RecordError, match=words):
        ArinamaPosition.parse_position(text)


def test_pop_restores_flips_and_turn():
    pos = setup(SELF_FLIP_AND_CAPTURE.replace("X O . . .", "X . O . ."))
    before = pos.to_json()
    pos.push("c3")
    assert pos.pop() == "c3"
    assert pos.to_json() == before
    with pytest.raises(IllegalMoveError):
        ArinamaPosition.new().pop()


def test_registry_finds_arinama():
    assert get("Arinama") is ArinamaPosition


# -- properties -----------------------------------------------------------------------------------
options_strategy = st.builds(
    ArinamaOptions,
    rows=st.integers(3, 12),
    cols=st.integers(3, 12),
    first=st.sampled_from(["black", "white"]),
    flip_check=st.sampled_from(["simultaneous", "captures-first"]),
    flip_scope=st.sampled_from(["touching", "board"]),
    no_stones_loses=st.booleans(),
)


@settings(max_examples=40, deadline=None)
@given(options=options_strategy, seed=st.integers(0, 10**6))
def test_random_games_never_crash_always_end_and_flips_never_chain(options, seed):
    rng = random.Random(seed)
    pos = ArinamaPosition.new(options)
    for _ in range(options.rows * options.cols):  # every placement fills a cell for good
        if pos.is_game_over():
            break
        move = pos.random_move(rng)
        mover = pos.turn
        before = pos.cells()
        effects = pos.placement_effects(move)
        placed = dict(before, **{move: mover})
        pos.push(move)
        after = pos.cells()
        changed = {c for c in after if before.get(c) != after[c]}
        assert changed == set(effects.after())
        for cell in effects.flipped:  # judged on the board right after placing: no chains
            assert sum(placed.get(n) == mover for n in pos.neighbours(cell)) == 3
            if options.flip_scope == "touching":
                assert cell in pos.neighbours(move)
    assert pos.is_game_over()
    assert pos.outcome().reason in ("no-placement", "no-stones", "full-board")


@settings(max_examples=25, deadline=None)
@given(options=options_strategy, seed=st.integers(0, 10**6), length=st.integers(0, 30))
def test_push_pop_and_json_round_trips(options, seed, length):
    rng = random.Random(seed)
    pos = ArinamaPosition.new(options)
    snapshots = []
    for _ in range(length):
        if pos.is_game_over():
            break
        snapshots.append(pos.to_json())
        pos.push(pos.random_move(rng))
    data = json.loads(json.dumps(pos.to_json()))
    assert ArinamaPosition.from_json(data).to_json() == data
    assert ArinamaPosition.from_json(data).diagram() == pos.diagram()
    record = json.loads(json.dumps(game_to_json(pos)))
    assert game_from_json(record).to_json() == pos.to_json()
    for expected in reversed(snapshots):
        pos.pop()
        assert pos.to_json() == expected


def test_diagram_round_trips_the_turn_and_a_finished_game_reads_back():
    rng = random.Random(3)
    pos = ArinamaPosition.new(ArinamaOptions(rows=5, cols=5))
    while not pos.is_game_over():
        pos.push(rng.choice(pos.legal_moves()))
        again = ArinamaPosition.parse_position(pos.diagram())
        assert (again.cells(), again.turn) == (pos.cells(), pos.turn)
    assert pos.diagram().splitlines()[-1] == f"game over: {pos.outcome()}"
    assert ArinamaPosition.parse_position(pos.diagram()).outcome() == pos.outcome()
