"""The demo over many seeds of every game: its simulated players against the referee (no
camera), then a few whole demos through the synthetic camera. Every game must end; prints how
each ended and how long it took.

    python bench/bench_demo_sweep.py [SEEDS] [WHOLE]   (default 40 seeds, 2 whole demos a game)
"""

import collections
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from companion.app import run_demo, simulate_game  # noqa: E402
from companion.commands.run import DEMO_GAMES  # noqa: E402
from companion.records import Records  # noqa: E402


def main() -> int:
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    whole = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    failures = 0
    for game, options in DEMO_GAMES.items():
        started = time.monotonic()
        ends: collections.Counter[str] = collections.Counter()
        lengths = []
        for seed in range(1, seeds + 1):
            try:
                moves, outcome = simulate_game(game, options=options or None, seed=seed)
            except RuntimeError as exc:
                print(f"  FAIL {exc}")
                failures += 1
                continue
            lengths.append(moves)
            ends[outcome.split(":")[0]] += 1
            if outcome == "unfinished":
                print(f"  FAIL {game} seed {seed}: unfinished after {moves} moves")
                failures += 1
        took = time.monotonic() - started
        if seeds:
            print(
                f"{game:8s} {seeds} seeds without camera: {took:5.1f} s, moves "
                f"{min(lengths, default=0)}-{max(lengths, default=0)}; {dict(ends)}"
            )
        for seed in range(1, whole + 1):
            with (
                tempfile.TemporaryDirectory() as folder,
                Records(Path(folder) / "r.sqlite3") as records,
            ):
                result = run_demo(game, options=options or None, seed=seed, records=records)
            ok = result.outcome != "unfinished"
            failures += not ok
            print(
                f"{game:8s} whole demo seed {seed}: {'ok' if ok else 'FAIL'} {result.outcome} "
                f"after {result.moves} moves, {result.seconds:.1f} s"
            )
    print("all demo games ended" if not failures else f"{failures} demo games did not end")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
