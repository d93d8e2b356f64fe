"""Differential test against the `aei` package's rules engine (pyrimaa.board, a dev dependency).

Positions come from random playouts and from the real games. At every turn start of every
unflagged real game and of 40 seeded random playouts (about 17,500 positions) both engines must
give the same legal steps and the same end state; along sampled turns - the states in the middle
of a turn, pushes and pulls included - the same legal steps and the same board after each step;
and on 184 positions (openings, endgames, about 170 blocked midgames of real games and
random playouts, three ordinary midgames) the same set of distinct turns (compared as final
boards).
"""

import functools
import json
import random

import pyrimaa.board as aei
import pytest
from shared_data import ARIMAA_DATA

from companion.games.arimaa import (
    ArimaaPosition,
    Step,
    board_hash,
)

GAMES = [
    json.loads(line)
    for line in (ARIMAA_DATA / "games.jsonl").read_text().splitlines()
    if line.strip()
]


def to_aei(pos: ArimaaPosition) -> aei.Position:
    """The same turn-start position in aei (side to move, four steps left)."""
    side, short = pos.to_aei().split(" ", 1)
    return aei.parse_short_pos(0 if side == "g" else 1, 4, short)


def aei_codes(apos: aei.Position) -> list[int]:
    board = [0] * 64
    for piece in range(1, 15):
        bits = apos.bitBoards[piece] or 0
        while bits:
            low = bits & -bits
            board[low.bit_length() - 1] = piece
            bits ^= low
    return board


def aei_end(apos: aei.Position, steps) -> int:
    """aei's is_end_state, reusing the steps already generated (1 gold wins, -1 silver)."""
    result = apos.is_goal() or apos.is_rabbit_loss()
    if result:
        return result
    if not steps:
        return -1 if apos.color == 0 else 1
    return 0


def our_end(pos: ArimaaPosition) -> int:
    outcome = pos.outcome()
    if outcome is None:
        return 0
    return 1 if outcome.winner == "gold" else -1


class Counter:
    states = 0


def walk_turn(pos: ArimaaPosition, turn, rng: random.Random | None = None) -> None:
    """Compare both engines along a turn's steps (or random steps when `turn` is None)."""
    apos = to_aei(pos)
    theirs = apos.get_steps()
    assert our_end(pos) == aei_end(apos, theirs)
    if pos.is_game_over():
        assert pos.legal_steps() == []  # ours stops at the end; aei would go on
        return
    assert {tuple(s) for s in pos.legal_steps()} == {s for s, _ in theirs}
    Counter.states += 1
    steps = list(turn) if turn is not None else []
    played = 0
    while True:
        if turn is None:
            if (
                not theirs
                or played == 4
                or (played and rng.random() < 0.2 and pos.pending_push is None)
            ):
                break
            step = Step(*rng.choice(theirs)[0])
        else:
            if played == len(steps):
                break
            step = steps[played]
        pos.push_step(step)
        apos = apos.do_step(tuple(step))
        played += 1
        assert pos.board_codes() == aei_codes(apos)
        if played < 4:
            theirs = apos.get_steps()
            assert {tuple(s) for s in pos.legal_steps()} == {s for s, _ in theirs}, (
                pos.steps_this_turn
            )
            Counter.states += 1
    for _ in range(played):
        pos.pop_step()


@pytest.mark.parametrize("seed", range(6))
def test_random_playouts_agree_step_by_step(seed):
    rng = random.Random(seed)
    pos = ArimaaPosition.new()
    Counter.states = 0
    while not pos.is_game_over() and len(pos.move_stack) < 120:
        if not pos.in_setup:
            walk_turn(pos, None, rng)  # random steps, taken back
        pos.push(pos.random_move(rng))
    if not pos.in_setup:
        walk_turn(pos, None, rng)
    assert Counter.states > 150


@pytest.mark.parametrize("part", range(2))
def test_real_games_agree_step_by_step(part):
    """Every 16th unflagged game (in 2 parts), every turn, step by step (real pushes and pulls)."""
    games = [g for g in GAMES if "flag" not in g][part::16]
    Counter.states = 0
    for record in games:
        pos = ArimaaPosition.new()
        for text in record["moves"]:
            move = pos.parse_move(text)
            if not pos.in_setup:
                walk_turn(pos, move)
            pos.push(move)
        walk_turn(pos, None, random.Random(1))
    assert Counter.states > 1500


UNFLAGGED = [g for g in GAMES if "flag" not in g]
PARTS = 4


def random_game_positions(seed: int, turns: int = 150):
    """The turn starts of a seeded random playout (setups done), as they are played."""
    rng = random.Random(seed)
    pos = ArimaaPosition.new()
    while not pos.is_game_over() and len(pos.move_stack) < turns:
        pos.push(pos.random_move(rng))
        if not pos.in_setup:
            yield pos


def real_game_positions(record):
    """The turn starts of a real game (setups done), as they are played."""
    pos = ArimaaPosition.new()
    for text in record["moves"]:
        pos.push(pos.parse_move(text))
        if not pos.in_setup:
            yield pos


def compare_turn_start(pos: ArimaaPosition) -> None:
    apos = to_aei(pos)
    theirs = apos.get_steps()
    assert our_end(pos) == aei_end(apos, theirs), pos.to_aei()
    if not pos.is_game_over():
        assert {tuple(s) for s in pos.legal_steps()} == {s for s, _ in theirs}, pos.to_aei()


@pytest.mark.parametrize("part", range(PARTS))
def test_every_turn_start_of_the_real_games_and_of_random_playouts_agrees(part):
    """Legal steps and end state at every turn start of all 244 unflagged real games (about
    14,400 positions) and of 40 seeded random playouts (about 3,100), in 4 parts."""
    compared = 0
    for record in UNFLAGGED[part::PARTS]:
        for pos in real_game_positions(record):
            compare_turn_start(pos)
            compared += 1
    for seed in range(100 + part, 140, PARTS):
        for pos in random_game_positions(seed):
            compare_turn_start(pos)
            compared += 1
    assert compared > 3000


def aei_final_hashes(apos: aei.Position) -> set[int]:
    return {board_hash(aei_codes(final)) for final in apos.get_moves()}


@functools.cache
def sample_positions() -> list[ArimaaPosition]:
    """Turn starts whose turns aei can list quickly (it needs ~0.03 s per 1,000 turns):
    - openings of real games and of random playouts, and the endgames (14 pieces or fewer) the
      real games ended in;
    - midgame turn starts (from the 11th turn, every 3rd) of all real games and of 30 seeded
      random playouts where the side to move has at most 11 legal steps (blocked, frozen,
      crowded positions: a few hundred to a few thousand turns each, about 170 positions);
    - three ordinary midgames (after the first 20 moves of every 25th real game, the first three
      with at most 20,000 turns; a turn of the 2002-2005 server games had 17,281 on average).
    Each is read back from its AEI string (no history: no repetition rule in play)."""
    out = []
    for record in GAMES[::100]:
        out.append(game_from_record_prefix(record, 2))
        out.append(game_from_record_prefix(record, 3))
    for record in GAMES[::6]:
        final = game_from_record_prefix(record, len(record["moves"]))
        if len(final.cells()) <= 14 and not final.is_game_over():
            out.append(final)
    for seed in range(2):
        rng = random.Random(seed)
        pos = ArimaaPosition.new()
        for _ in range(3):
            pos.push(pos.random_move(rng))
        out.append(ArimaaPosition.parse_position(pos.to_aei()))

    def midgame(pos: ArimaaPosition, ply: int) -> bool:
        return (
            ply >= 10 and ply % 3 == 0 and not pos.is_game_over() and len(pos.legal_steps()) <= 11
        )

    for record in UNFLAGGED:
        for ply, pos in enumerate(real_game_positions(record), start=2):
            if midgame(pos, ply):
                out.append(ArimaaPosition.parse_position(pos.to_aei()))
    for seed in range(30):
        for ply, pos in enumerate(random_game_positions(seed), start=2):
            if midgame(pos, ply):
                out.append(ArimaaPosition.parse_position(pos.to_aei()))
    full = 0
    for record in UNFLAGGED[::25]:
        pos = game_from_record_prefix(record, 20)
        if full < 3 and not pos.is_game_over() and pos.count_legal_moves() <= 20000:
            out.append(pos)
            full += 1
    return out


def game_from_record_prefix(record, turns: int) -> ArimaaPosition:
    pos = ArimaaPosition.new()
    for text in record["moves"][:turns]:
        pos.push(pos.parse_move(text))
    return ArimaaPosition.parse_position(pos.to_aei())


TURN_PARTS = 6


@pytest.mark.parametrize("part", range(TURN_PARTS))
def test_distinct_turns_agree_with_aei(part):
    """The same set of final boards, so the same count; each recorded step path is real."""
    positions = sample_positions()
    assert len(positions) > 150
    compared = 0
    for pos in positions[part::TURN_PARTS]:
        paths = pos._turn_paths()
        theirs = aei_final_hashes(to_aei(pos))
        theirs.discard(pos.board_hash())
        assert set(paths) == theirs, pos.to_aei()
        assert pos.count_legal_moves() == len(theirs)
        for final, path in list(paths.items())[::97]:  # the recorded steps lead to that board
            assert board_hash(_final_board(pos, [Step(*s) for s in path])) == final
        compared += 1
    assert compared >= 30


def _final_board(pos: ArimaaPosition, move) -> list[int]:
    for step in move:
        pos.push_step(step)
    board = pos.board_codes()
    for _ in move:
        pos.pop_step()
    return board
