"""Arimaa move inference on real games: how long the referee waits to explain a still board.

    .venv/bin/python bench/bench_arimaa_infer.py            # 400 turns from the real games
    .venv/bin/python bench/bench_arimaa_infer.py --turns 100

Turns are drawn from the unflagged real games in shared/data/arimaa. Two parts, each printed
as median / p99 / max per observation against the goal on this machine (median <= 20 ms,
p99 <= 200 ms; a Pi is several times slower):

1. `companion.games.arimaa_infer.infer` from the turn start, on the board after the whole
   turn (the camera saw none of the intermediate steps), after 1, 2 and 3 steps of a longer
   turn (partial turns: the search must still consider every way to use the steps left), and
   in the middle of a push (the enemy piece moved, the pusher not yet). As a peer measured on
   the same observations in the same run: the obvious method - list every distinct turn with
   the engine and keep those that show the observed colours - and the ratio between the two
   (the machine is shared and noisy, so the ratio is what to compare).
2. What the referee runs: `Referee.observe` of an `ArimaaReferee` (which explains each board
   with `infer`, from the steps it has already accepted) - once with only the board after the
   whole turn, once step by step as the players move.

The sampled positions are frozen out of the garbage collector (`gc.freeze`) before timing, so
that a full collection of the benchmark's own few hundred positions is not charged to
whichever observation happens to trigger it.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared_data import arimaa_data  # noqa: E402

from companion.games.arimaa import Step  # noqa: E402
from companion.games.arimaa_infer import infer  # noqa: E402
from companion.games.arimaa_notation import replay_move_list  # noqa: E402
from companion.referee.core import Referee, observation_of  # noqa: E402

GOAL_MEDIAN_MS, GOAL_P99_MS = 20.0, 200.0


def data_dir() -> Path:
    """shared/data/arimaa, found as the tests find it (`shared_data`); exits saying where it
    looked when it is not there."""
    try:
        return arimaa_data()
    except FileNotFoundError as exc:
        raise SystemExit(f"bench: {exc}") from None


def sample_turns(count: int, seed: int):
    games = [json.loads(line) for line in (data_dir() / "games.jsonl").read_text().splitlines()]
    games = [g for g in games if "flag" not in g and len(g["moves"]) > 4]
    rng = random.Random(seed)
    picks = []
    while len(picks) < count:
        record = rng.choice(games)
        stop = rng.randrange(2, len(record["moves"]))
        replay = replay_move_list(record["moves"][:stop])
        pos = replay.position
        if replay.error or pos.is_game_over():
            continue
        move = pos.parse_move(record["moves"][stop]) if stop < len(record["moves"]) else None
        if move and all(isinstance(s, Step) for s in move):
            picks.append((pos, move))
    return picks


def naive(before, seen):
    """The peer: every distinct turn, filtered by colours."""
    hits = []
    for turn in before.legal_moves():
        board = before.copy()
        for step in turn:
            board.push_step(step)
        if board.cells() == seen:
            hits.append(turn)
    return hits


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def line(name: str, samples: list[float]) -> str:
    ms = 1000.0
    median, p99 = statistics.median(samples) * ms, percentile(samples, 0.99) * ms
    verdict = "ok" if median <= GOAL_MEDIAN_MS and p99 <= GOAL_P99_MS else "OVER GOAL"
    return (
        f"  {name:28} n={len(samples):4d}  median {median:6.1f} ms  p99 {p99:6.1f} ms  "
        f"max {max(samples) * ms:6.1f} ms  (goal {GOAL_MEDIAN_MS:.0f} / {GOAL_P99_MS:.0f} ms: "
        f"{verdict})"
    )


def timed(function, *args, **kwargs):
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def bench_infer(turns, peer_turns: int) -> None:
    cases: dict[str, list[float]] = {
        "whole turn": [],
        "after 1 step": [],
        "after 2 steps": [],
        "after 3 steps": [],
        "mid-push": [],
    }
    peer_ours, peer_naive = [], []
    for i, (before, move) in enumerate(turns):
        board = before.copy()
        for n, step in enumerate(move, start=1):
            board.push_step(step)
            seen = board.cells()
            elapsed, result = timed(infer, before, seen)
            assert result.found, f"{before.move_text(move)} after {n} steps not explained"
            if n == len(move):
                cases["whole turn"].append(elapsed)
                if i < peer_turns:
                    peer_ours.append(elapsed)
                    peer_naive.append(timed(naive, before, seen)[0])
            else:
                cases[f"after {n} step{'s' if n > 1 else ''}"].append(elapsed)
            if board.pending_push is not None:
                cases["mid-push"].append(elapsed)
    print("1. infer(position at the turn start, colours seen)")
    for name, samples in cases.items():
        if samples:
            print(line(name, samples))
    ratio = sum(peer_naive) / sum(peer_ours)
    print(
        f"  peer (list every turn, filter by colour) on {len(peer_naive)} whole turns: "
        f"{sum(peer_naive) / len(peer_naive) * 1000:.0f} ms mean against "
        f"{sum(peer_ours) / len(peer_ours) * 1000:.1f} ms: inference is {ratio:.0f}x faster"
    )


def settled_referee(before):
    referee = Referee(before.copy())
    referee.observe(observation_of(before.cell_names(), before.cells()))
    return referee


def bench_referee(turns) -> None:
    whole, steps = [], []
    for before, move in turns:
        names = before.cell_names()
        after = before.copy()
        after.push(move)
        referee = settled_referee(before)
        elapsed, _ = timed(referee.observe, observation_of(names, after.cells()))
        whole.append(elapsed)
        referee = settled_referee(before)
        board = before.copy()
        for step in move:
            board.push_step(step)
            elapsed, _ = timed(referee.observe, observation_of(names, board.cells()))
            steps.append(elapsed)
    print("2. the referee: Referee.observe(board) -> events and instruction")
    print(line("only the whole turn seen", whole))
    print(line("every step seen", steps))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument(
        "--peer-turns", type=int, default=40, help="how many turns also get the naive peer"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    turns = sample_turns(args.turns, args.seed)
    gc.collect()
    gc.freeze()
    bench_infer(turns, args.peer_turns)
    bench_referee(turns)


if __name__ == "__main__":
    main()
