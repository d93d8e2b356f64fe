"""Distinct-turn generation: the companion's Arimaa engine against aei's pyrimaa, same positions.

    .venv/bin/python bench/bench_arimaa_turns.py            # ~30 positions, a minute or two
    .venv/bin/python bench/bench_arimaa_turns.py --quick    # 6 positions
    .venv/bin/python bench/bench_arimaa_turns.py --hardest  # also the 88,040 / 68,891 positions
    .venv/bin/python bench/bench_arimaa_turns.py --repeat 3 # best of 3 per engine and position

Two ratios against aei's `Position.get_moves` (which builds every turn: a position and a step
list for each):

- counting: `count_legal_moves` walks the same turns but keeps only the 64-bit hash of each
  final board;
- turn generation: `legal_moves()` builds every turn - one step sequence (a tuple of `Step`) per
  distinct final board, sorted - the like-for-like comparison with `get_moves`.

Turns per second are summed over all positions and measured in the same run, the engines one
right after the other on each position, so the printed ratios hold on a busy machine even when
the absolute numbers do not. The counts must agree (the script stops if they do not).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import pyrimaa.board as aei

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared_data import arimaa_data  # noqa: E402

from companion.games.arimaa import ArimaaPosition  # noqa: E402


def data_dir() -> Path:
    """shared/data/arimaa, found as the tests find it (`shared_data`); exits saying where it
    looked when it is not there."""
    try:
        return arimaa_data()
    except FileNotFoundError as exc:
        raise SystemExit(f"bench: {exc}") from None


def positions(quick: bool, hardest: bool) -> list[tuple[str, str]]:
    """(name, AEI string) pairs: published test positions and turn starts of real games."""
    data = data_dir()
    out = []
    for line in (data / "test_positions.jsonl").read_text().splitlines():
        entry = json.loads(line)
        a = entry["aei"]
        if not a.get("unique_moves") or a.get("is_end_state"):
            continue
        if entry["id"].startswith("arimaa-rs:pos1") and not hardest:
            continue
        if entry["id"] == "akimot:goalcheck/t008.txt":
            continue  # a composed position with an unguarded piece on a trap: aei's generator
            # captures it only when some step passes by (see docs/arimaa.md)
        out.append((entry["id"], f"{a['side_to_move']} {a['short']}"))
    games = [json.loads(line) for line in (data / "games.jsonl").read_text().splitlines()]
    for record in games[::25]:
        if "flag" in record or len(record["moves"]) < 30:
            continue
        pos = ArimaaPosition.new()
        for text in record["moves"][:20]:
            pos.push(pos.parse_move(text))
        out.append((f"{record['id']}@20", pos.to_aei()))
    if quick:
        out = out[:3] + out[-3:]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="only 6 positions")
    parser.add_argument("--hardest", action="store_true", help="add the two 70-90k turn positions")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        metavar="N",
        help="time each engine N times per position, alternating, and keep the fastest (less noise)",
    )
    args = parser.parse_args()

    count_time = list_time = aei_time = 0.0
    turns = 0
    print(
        f"{'position':34} {'turns':>7} {'count s':>8} {'list s':>8} {'aei s':>8} "
        f"{'count':>6} {'list':>6}"
    )
    for name, text in positions(args.quick, args.hardest):
        pos = ArimaaPosition.parse_position(text)
        side, short = text.split(" ", 1)
        apos = aei.parse_short_pos(0 if side == "g" else 1, 4, short)

        counting = listing = theirs_s = float("inf")
        for _ in range(max(1, args.repeat)):
            start = time.perf_counter()
            count = pos.count_legal_moves()
            counting = min(counting, time.perf_counter() - start)

            start = time.perf_counter()
            listed = len(pos.legal_moves())
            listing = min(listing, time.perf_counter() - start)

            start = time.perf_counter()
            theirs = len(apos.get_moves())
            theirs_s = min(theirs_s, time.perf_counter() - start)

        if not count == listed == theirs:
            print(f"bench: {name}: {count} / {listed} turns here, {theirs} in aei", file=sys.stderr)
            return 1
        count_time += counting
        list_time += listing
        aei_time += theirs_s
        turns += count
        print(
            f"{name:34} {count:7d} {counting:8.3f} {listing:8.3f} {theirs_s:8.3f} "
            f"{theirs_s / counting:6.1f} {theirs_s / listing:6.1f}"
        )

    print()
    print(f"companion, counting (count_legal_moves): {turns / count_time:10,.0f} turns/s")
    print(f"companion, listing (legal_moves):        {turns / list_time:10,.0f} turns/s")
    print(f"aei (get_moves, builds every turn):      {turns / aei_time:10,.0f} turns/s")
    print(f"ratio counting / aei:         {aei_time / count_time:5.1f}x")
    print(f"ratio turn generation / aei:  {aei_time / list_time:5.1f}x  (goal >= 3x, stretch 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
