"""Arimaa move inference (companion.games.arimaa_infer): exact, complete, and honest about doubt."""

import json
import random

import pytest
from shared_data import ARIMAA_DATA

from companion.errors import NotationError
from companion.games.arimaa import (
    PIECE_LETTERS,
    SQUARE_INDEX,
    SQUARE_NAMES,
    ArimaaPosition,
    Step,
    _walk_turns,
)
from companion.games.arimaa_infer import infer
from companion.games.arimaa_notation import game_from_move_list

GAMES = [
    json.loads(line)
    for line in (ARIMAA_DATA / "games.jsonl").read_text().splitlines()
    if line.strip()
]


def typed(pos: ArimaaPosition) -> tuple:
    return tuple((sq, pos.piece_at(sq)) for sq in range(64) if pos.piece_at(sq))


def position(rows: str, side: str = "gold") -> ArimaaPosition:
    """A position from an 8-row picture (rank 8 first), '.' for empty. A side with no rabbit in
    the picture gets one in its own far corner (h1 / h8), so the game is not already over."""
    cells = {}
    for r, row in enumerate(rows.split()):
        for f, ch in enumerate(row):
            if ch != ".":
                cells[f"{'abcdefgh'[f]}{8 - r}"] = ch
    if "R" not in cells.values():
        cells["h1"] = "R"
    if "r" not in cells.values():
        cells["h8"] = "r"
    return ArimaaPosition.from_board(cells, side)


def real_turns(count: int, seed: int = 0):
    """(position before, turn) pairs drawn from the unflagged real games."""
    rng = random.Random(seed)
    games = [g for g in GAMES if "flag" not in g and len(g["moves"]) > 6]
    out = []
    while len(out) < count:
        record = rng.choice(games)
        pos = game_from_move_list(record["moves"][:2])
        stop = rng.randrange(3, len(record["moves"]))
        for text in record["moves"][2:stop]:
            pos.push(pos.parse_move(text))
            if pos.is_game_over():
                break
        if pos.is_game_over() or pos.in_setup:
            continue
        nxt = record["moves"][stop] if stop < len(record["moves"]) else None
        if nxt is None:
            continue
        try:
            move = pos.parse_move(nxt)
        except Exception:
            continue
        out.append((pos, move))
    return out


@pytest.mark.parametrize("before,move", real_turns(60), ids=lambda x: None)
def test_a_whole_real_turn_seen_at_once_is_found(before, move):
    after = before.copy()
    after.push(move)
    result = infer(before, after.cells())
    assert typed(after) in [c.pieces for c in result.candidates]
    # Fewest steps first, and never more than the turn took.
    lengths = [len(c.steps) for c in result.candidates]
    assert lengths == sorted(lengths)
    match = next(c for c in result.candidates if c.pieces == typed(after))
    assert len(match.steps) <= len(move)


@pytest.mark.parametrize("before,move", real_turns(25, seed=1), ids=lambda x: None)
def test_every_candidate_is_legal_and_shows_the_observation(before, move):
    after = before.copy()
    after.push(move)
    seen = after.cells()
    for candidate in infer(before, seen).candidates:
        board = before.copy()
        for step in candidate.steps:
            board.push_step(step)  # raises if any step were illegal
        shown = board.cells()
        for sq in candidate.uncleared:
            shown[SQUARE_NAMES[sq]] = seen[SQUARE_NAMES[sq]]
        assert shown == seen
        assert typed(board) == candidate.pieces


def test_observations_mid_turn_are_found_after_each_step():
    for before, move in real_turns(15, seed=2):
        board = before.copy()
        for n, step in enumerate(move, start=1):
            board.push_step(step)
            result = infer(before, board.cells())
            pending = board.pending_push is not None
            hit = [
                c
                for c in result.candidates
                if c.pieces == typed(board) and c.pending_push == pending
            ]
            assert hit, f"after {n} steps of {before.move_text(move)}"
            assert len(hit[0].steps) <= n


def test_half_a_push_is_seen_as_a_pending_push():
    pos = position(
        """........
           ........
           ........
           ...c....
           ...E....
           ........
           ........
           R.......""",
    )
    seen = pos.cells()
    del seen["d5"]
    seen["e5"] = "silver"  # the cat was pushed east; the elephant has not stepped in yet
    result = infer(pos, seen)
    assert result.best.pending_push
    assert result.best.steps == (Step(SQUARE_INDEX["d5"], SQUARE_INDEX["e5"]),)
    # The same board after a whole push and the elephant stepping back is a complete turn too.
    assert [len(c.steps) for c in result.candidates if not c.pending_push] == [3]


def test_a_captured_piece_still_on_its_trap_is_explained_and_reported():
    # Gold's rabbit on the c3 trap loses its only guard when the dog on d3 steps away.
    pos = position(
        """........
           ........
           ........
           ........
           ........
           ..RD....
           ........
           ........""",
    )
    seen = pos.cells()
    del seen["d3"]
    seen["e3"] = "gold"  # the dog stepped east; the rabbit on c3 is captured but still there
    result = infer(pos, seen)
    best = result.best
    assert [str(c) for c in best.captures] and best.uncleared == (SQUARE_INDEX["c3"],)
    # Once the players take it off, the same explanation fits with nothing left to clear.
    del seen["c3"]
    assert infer(pos, seen).best.uncleared == ()


def test_two_pieces_that_could_have_exchanged_roles_make_the_observation_ambiguous():
    pos = position(
        """........
           ........
           ........
           ........
           ........
           ........
           ...EM...
           ........""",
    )
    seen = {**pos.cells(), "e3": "gold"}
    del seen["d2"]  # d2 emptied, e3 filled
    result = infer(pos, seen)
    assert result.ambiguous
    doubt = result.squares_in_doubt()
    assert set(doubt) == {"e2", "e3"} and doubt["e3"] == ("E", "M")


def test_one_step_with_only_longer_alternatives_is_not_ambiguous():
    # Ed2n is the one one-step explanation; the camel could also have walked round to d3 with
    # the elephant stepping into e2 (three steps) - a longer way, so no doubt.
    pos = position(
        """........
           ........
           ........
           ........
           ........
           ........
           ...EM...
           ........""",
    )
    seen = {**pos.cells(), "d3": "gold"}
    del seen["d2"]
    result = infer(pos, seen)
    assert len({c.pieces for c in result.candidates}) > 1  # longer explanations exist
    assert not result.ambiguous and result.squares_in_doubt() == {}
    assert [len(c.steps) for c in result.fewest] == [1]


def test_real_one_step_observations_are_rarely_ambiguous():
    """A single step of a real turn: fewest-step doubt only when two pieces could have made it."""
    ambiguous = 0
    turns = real_turns(40, seed=4)
    for before, move in turns:
        after = before.copy()
        after.push_step(move[0])
        result = infer(before, after.cells())
        one_step = {c.pieces for c in result.candidates if len(c.steps) == 1}
        assert result.ambiguous == (len(one_step) > 1)
        ambiguous += result.ambiguous
    assert ambiguous <= len(turns) // 10


def test_an_illegal_change_has_no_explanation():
    # The gold rabbit on a2 is frozen next to the silver camel on a3 with no friend near it.
    pos = position(
        """........
           ........
           ........
           ........
           ........
           m.......
           R.......
           ........""",
    )
    seen = {**pos.cells(), "b2": "gold"}
    del seen["a2"]
    assert not infer(pos, seen).found
    # Five steps of change cannot be one turn.
    far = position(
        """........
           ........
           ........
           ........
           ........
           ........
           ........
           E.......""",
    )
    assert not infer(far, {"f1": "gold", "h1": "gold", "h8": "silver"}).found
    assert infer(
        far, {"e1": "gold", "h1": "gold", "h8": "silver"}
    ).best.steps  # four steps east is fine


def test_inference_finds_exactly_the_boards_a_full_walk_finds():
    """Against a brute-force walk of every step sequence (the engine's own turn walker)."""
    rng = random.Random(5)
    for before, _move in real_turns(6, seed=3):
        paths = _walk_turns(list(before._board), before._side, before._hash, 4, None, None, {})
        walker = before.copy()
        boards = []  # (colours, piece codes) of every final board
        for path in paths.values():
            for step in path:
                walker._apply_step(Step(*step))
            codes = tuple(walker._board)
            boards.append((tuple(p >> 3 if p else -1 for p in codes), codes))
            for _ in path:
                walker.pop_step()
        for colours, _codes in rng.sample(boards, 4):
            seen = {
                SQUARE_NAMES[sq]: ("gold", "silver")[c] for sq, c in enumerate(colours) if c >= 0
            }
            expected = {
                tuple((sq, PIECE_LETTERS[p]) for sq, p in enumerate(other) if p)
                for key, other in boards
                if key == colours
            }
            got = {
                c.pieces
                for c in infer(before, seen).candidates
                if not c.pending_push and not c.uncleared
            }
            assert got == expected


def test_unknown_cells_match_anything_and_bad_observations_are_named():
    pos = position(
        """........
           ........
           ........
           ........
           ........
           ........
           ...E....
           ........""",
    )
    assert infer(pos, {"d3": "gold", "h1": "gold", "h8": "unknown"}).found
    with pytest.raises(NotationError, match="z9"):
        infer(pos, {"z9": "gold"})
    with pytest.raises(NotationError, match="purple"):
        infer(pos, {"d2": "purple"})


def test_keep_steps_searches_from_the_steps_played_and_counts_their_captures():
    # The dog steps away from c3's only guard (the rabbit is captured), then the camera sees
    # the dog one more step on and the rabbit still standing on the trap.
    pos = position(
        """........
           ........
           ........
           ........
           ........
           ..RD....
           ........
           ........""",
    )
    pos.push_step(pos.parse_step("Dd3e"))
    seen = {**pos.cells(), "c3": "gold", "f3": None}
    seen = {cell: cls for cell, cls in seen.items() if cls}
    seen.pop("e3")
    seen["e4"] = "gold"
    result = infer(pos, seen, keep_steps=True)
    assert [[str(s) for s in c.steps] for c in result.fewest] == [["d3e", "e3n"]]
    assert result.best.uncleared == (SQUARE_INDEX["c3"],)
    assert [str(c) for c in result.best.captures] == ["Rc3x"]
    # From the turn start the same board has the same explanation. The turn start's board
    # itself: with the step kept, the dog stepped back and the captured rabbit is still there;
    # from the turn start, nothing happened.
    assert infer(pos, seen).best.steps == result.best.steps
    back = pos.turn_start_position().cells()
    kept = infer(pos, back, keep_steps=True).best
    assert [str(s) for s in kept.steps] == ["d3e", "e3w"] and kept.uncleared == (
        SQUARE_INDEX["c3"],
    )
    assert infer(pos, back).best.steps == ()
