"""Arimaa move inference on real games: how long the referee waits to explain a still board.

    .venv/bin/python bench/bench_arimaa_infer.py            # 400 turns from the real games
    .venv/bin/python bench/bench_arimaa_infer.py --turns 100

For turns drawn from the unflagged real games in shared/data/arimaa, the board after the whole
turn (the hardest case: the camera saw none of the intermediate steps) and after its first step
are explained by `companion.games.arimaa_infer.infer`. Printed: median and p99 per observation
(goal on this machine: median <= 20 ms, p99 <= 200 ms; a Pi is several times slower), and, as a
peer measured on the same observations in the same run, the obvious method - list every distinct
turn of the position with the engine and keep those that show the observed colours - with the
ratio between the two (the machine is shared and noisy, so the ratio is what to compare).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.games.arimaa import Step, game_from_move_list  # noqa: E402
from companion.games.arimaa_infer import infer  # noqa: E402


def data_dir() -> Path:
    for base in (Path(__file__).resolve().parents[2] / "shared", Path("/work/shared")):
        if (base / "data" / "arimaa").exists():
            return base / "data" / "arimaa"
    raise SystemExit("bench: shared/data/arimaa not found beside the repository")


def sample_turns(count: int, seed: int):
    games = [json.loads(line) for line in (data_dir() / "games.jsonl").read_text().splitlines()]
    games = [g for g in games if "flag" not in g and len(g["moves"]) > 4]
    rng = random.Random(seed)
    picks = []
    while len(picks) < count:
        record = rng.choice(games)
        stop = rng.randrange(2, len(record["moves"]))
        pos = game_from_move_list(record["moves"][:stop])
        if pos.replay_error or pos.is_game_over():
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=400)
    parser.add_argument("--peer-turns", type=int, default=40, help="how many turns also get the naive peer")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    whole, first, peer_ours, peer_naive = [], [], [], []
    for i, (before, move) in enumerate(sample_turns(args.turns, args.seed)):
        after = before.copy()
        after.push(move)
        seen = after.cells()
        t0 = time.perf_counter()
        result = infer(before, seen)
        t1 = time.perf_counter()
        assert result.found, f"turn {before.turn_label} {before.move_text(move)} not explained"
        whole.append(t1 - t0)
        one = before.copy()
        one.push_step(move[0])
        t2 = time.perf_counter()
        infer(before, one.cells())
        first.append(time.perf_counter() - t2)
        if i < args.peer_turns:
            t3 = time.perf_counter()
            naive(before, seen)
            peer_naive.append(time.perf_counter() - t3)
            peer_ours.append(t1 - t0)

    ms = 1000.0
    print(f"observations of a whole turn ({len(whole)}): median {statistics.median(whole) * ms:.1f} ms, "
          f"p99 {percentile(whole, 0.99) * ms:.1f} ms, max {max(whole) * ms:.1f} ms  (goal: 20 / 200 ms)")
    print(f"observations after one step ({len(first)}): median {statistics.median(first) * ms:.1f} ms, "
          f"p99 {percentile(first, 0.99) * ms:.1f} ms")
    ratio = sum(peer_naive) / sum(peer_ours)
    print(f"peer (list every turn, filter by colour) on {len(peer_naive)} of them: "
          f"{sum(peer_naive) / len(peer_naive) * ms:.0f} ms mean against {sum(peer_ours) / len(peer_ours) * ms:.1f} ms: "
          f"inference is {ratio:.0f}x faster")


if __name__ == "__main__":
    main()
