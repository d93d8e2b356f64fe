"""Differential test against the `aei` package's rules engine (pyrimaa.board, a dev dependency).

Positions come from random playouts and from the real games. At every sampled state - turn
starts and the states in the middle of a turn, pushes and pulls included - both engines must
give the same legal steps and the same board after each step; at turn starts the same end state;
on a sample of positions the same set of distinct turns (compared as final boards).
"""

import functools
import json
import random
from pathlib import Path

import pyrimaa.board as aei
import pytest

from companion.games.arimaa import (
    ArimaaPosition,
    Step,
    board_hash,
)


def _data_dir() -> Path:
    for base in (Path(__file__).resolve().parents[2] / "shared", Path("/work/shared")):
        if (base / "data" / "arimaa" / "games.jsonl").exists():
            return base / "data" / "arimaa"
    raise FileNotFoundError("shared/data/arimaa beside the repository")


GAMES = [
    json.loads(line)
    for line in (_data_dir() / "games.jsonl").read_text().splitlines()
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


def aei_final_hashes(apos: aei.Position) -> set[int]:
    return {board_hash(aei_codes(final)) for final in apos.get_moves()}


@functools.cache
def sample_positions() -> list[ArimaaPosition]:
    """Turn starts with a few thousand turns at most (aei needs ~0.1 s per 1,000): openings of
    real games and of random playouts, and the endgames (14 pieces or fewer) the games ended in."""
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
    return out


def game_from_record_prefix(record, turns: int) -> ArimaaPosition:
    pos = ArimaaPosition.new()
    for text in record["moves"][:turns]:
        pos.push(pos.parse_move(text))
    return ArimaaPosition.parse_position(pos.to_aei())


def test_distinct_turns_agree_with_aei():
    """The same set of final boards, so the same count; each recorded step path is real."""
    compared = 0
    for pos in sample_positions():
        paths = pos._final_hashes(paths={})
        theirs = aei_final_hashes(to_aei(pos))
        theirs.discard(pos.board_hash())
        assert set(paths) == theirs
        assert pos.count_legal_moves() == len(theirs)
        for final, path in list(paths.items())[::97]:  # the recorded steps lead to that board
            assert board_hash(_final_board(pos, [Step(*s) for s in path])) == final
        compared += 1
    assert compared >= 8


def _final_board(pos: ArimaaPosition, move) -> list[int]:
    for step in move:
        pos.push_step(step)
    board = pos.board_codes()
    for _ in move:
        pos.pop_step()
    return board
