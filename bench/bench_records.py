"""What durability costs: recording a move with synchronous=FULL (what the referee gets) against
the same commit with synchronous=NORMAL (the peer, measured in the same run on the same disk).

    .venv/bin/python bench/bench_records.py [--moves 200] [--dir DIR]

Run it on the disk that will hold the records (an SD card on a Pi): the FULL commit waits for
an fsync of the WAL, which is the whole difference. Also times reading a game back and
exporting it as HTML (the review screen and `companion export`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from companion import games
from companion.export import game_html
from companion.records import Records


class NormalRecords(Records):
    """The peer: every commit with synchronous=NORMAL (atomic, but not fsync'ed at commit)."""

    @contextmanager
    def _write(self, *, durable: bool):
        with super()._write(durable=False) as conn:
            yield conn


def time_moves(db: Records, moves: int, seed: int, photo: bytes) -> list[float]:
    rng = random.Random(seed)
    arinama = games.get("arinama")
    pos = arinama.new(arinama.options_from({"rows": 12, "cols": 12}))
    game_id = db.new_game(pos)
    times = []
    for _ in range(moves):
        if pos.is_game_over():
            pos = arinama.new(pos.options)
            game_id = db.new_game(pos)
        move = pos.random_move(rng)
        text = pos.move_text(move)
        pos.push(move)
        start = time.perf_counter()
        db.add_move(game_id, pos, text, image_jpeg=photo)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200, help="moves recorded per database")
    parser.add_argument("--dir", help="where to put the databases (default: a temp dir)")
    args = parser.parse_args()
    photo = b"\xff\xd8\xff" + bytes(random.Random(0).randbytes(30_000))  # a 30 KB "photo"
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        full_db = Records(Path(tmp) / "full.sqlite3")
        normal_db = NormalRecords(Path(tmp) / "normal.sqlite3")
        full, normal = [], []
        for round_ in range(4):  # interleaved so both see the same disk and load
            full += time_moves(full_db, args.moves // 4, round_, photo)
            normal += time_moves(normal_db, args.moves // 4, round_, photo)
        game_id = full_db.games()[-1].id
        start = time.perf_counter()
        record = full_db.game(game_id)
        read = time.perf_counter() - start
        start = time.perf_counter()
        html = game_html(record)
        export = time.perf_counter() - start
        full_db.close()
        normal_db.close()
    f, n = statistics.median(full), statistics.median(normal)
    print(
        f"add_move, synchronous=FULL  : median {f * 1000:7.2f} ms  p95 {_p95(full) * 1000:7.2f} ms"
    )
    print(
        f"add_move, synchronous=NORMAL: median {n * 1000:7.2f} ms  p95 {_p95(normal) * 1000:7.2f} ms"
    )
    print(f"ratio FULL / NORMAL          : {f / n:7.2f}x  (the price of never losing a move)")
    print(
        f"read game {game_id} ({len(record.moves)} moves): {read * 1000:.1f} ms; "
        f"HTML export: {export * 1000:.1f} ms, {len(html) // 1024} KB"
    )


def _p95(values: list[float]) -> float:
    return sorted(values)[int(len(values) * 0.95) - 1]


if __name__ == "__main__":
    main()
