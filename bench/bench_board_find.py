"""Board finding without markers on real photos (issue 10, point 6).

For every photo of ../shared/data/real (beside the repository, as tests/shared_data.py finds
../shared; never copied into the repository) the board is found with `vision.find.find_board`
- chess photos as layout ``chessboard``, Go as ``grid:18x18`` (19 lines: its corners are the
outer intersections), Othello as ``grid:8x8`` - and its four corners are compared with the
labelled ones (a8, h8, h1, a1 = TL, TR, BR, BL seen from the first player).

Corner error is in cell widths (a cell = the labelled board's mean side / cells), and up to the
symmetry the photo cannot tell: a checkerboard's dark corner square settles two of the four
turns, so chess is measured up to a 180-degree turn (`turned` counts the photos where the
finder's choice - a1 nearer the bottom of the picture - was the other one); a lined board has no
colours, so Go and Othello are measured up to any of the four turns.

Prints per board set and in total: found at all, mean and worst corner error (cells), the share
with every corner within 0.25 cell, and seconds per photo.

    python bench/bench_board_find.py [--only SUBSTRING] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.errors import UserError  # noqa: E402
from vision.find import find_board  # noqa: E402

BAR = 0.25  # cells
LAYOUT = {"chess": "chessboard", "go": "grid:18x18", "othello": "grid:8x8"}
CELLS = {"chess": 8, "go": 18, "othello": 8}


def real_data() -> Path | None:
    """../shared/data/real beside the repository, else the workplace's /work/shared."""
    for base in (Path(__file__).resolve().parents[2] / "shared", Path("/work/shared")):
        if (base / "data" / "real" / "manifest.json").exists():
            return base / "data" / "real"
    return None


def board_set(entry: dict) -> str:
    """chesscog, chess-ray-vision, go, othello."""
    if entry["game"] != "chess":
        return entry["game"]
    return "chesscog" if "chesscog" in entry["file"] else "chess-ray-vision"


def corner_error(found: np.ndarray, truth: np.ndarray, game: str) -> tuple[float, float, bool]:
    """(mean, worst) corner error in cells, minimised over the turns the photo cannot tell, and
    whether the best turn was not the finder's own choice."""
    cells = CELLS[game]
    sides = [np.linalg.norm(truth[k] - truth[(k + 1) % 4]) for k in range(4)]
    cell = float(np.mean(sides)) / cells
    turns = (0, 2) if game == "chess" else (0, 1, 2, 3)
    best = None
    for turn in turns:
        err = np.linalg.norm(np.roll(found, -turn, axis=0) - truth, axis=1) / cell
        key = (float(err.max()), float(err.mean()), turn != 0)
        if best is None or key[0] < best[0]:
            best = key
    worst, mean, turned = best
    return mean, worst, turned


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="", help="only photos whose file contains this")
    parser.add_argument("--verbose", action="store_true", help="one line per photo")
    args = parser.parse_args(argv)
    root = real_data()
    if root is None:
        print("no ../shared/data/real beside the repository: nothing to measure")
        return 0
    manifest = json.loads((root / "manifest.json").read_text())
    rows: dict[str, list[dict]] = {}
    for entry in manifest:
        if args.only not in entry["file"]:
            continue
        image = cv2.imread(str(root / entry["file"]), cv2.IMREAD_COLOR)
        start = time.perf_counter()
        try:
            located = find_board(image, LAYOUT[entry["game"]])
            found = located.board_corners_px()
            problem = ""
        except UserError as exc:
            found, problem = None, str(exc)
        seconds = time.perf_counter() - start
        row = {"file": entry["file"], "seconds": seconds, "found": found is not None}
        if found is not None:
            mean, worst, turned = corner_error(found, np.array(entry["corners"]), entry["game"])
            row.update(mean=mean, worst=worst, turned=turned)
        rows.setdefault(board_set(entry), []).append(row)
        if args.verbose:
            text = (
                f"mean {row['mean']:.3f} worst {row['worst']:.3f}{' turned' if row['turned'] else ''}"
                if found is not None
                else f"NOT FOUND: {problem}"
            )
            print(f"  {entry['file']}: {seconds:.2f} s {text}", flush=True)
    print(
        f"{'set':<18}{'photos':>7}{'found':>8}{'mean':>8}{'worst':>8}"
        f"{'<=' + str(BAR):>9}{'turned':>8}{'s/photo':>9}"
    )
    everything = []
    for name in ("chesscog", "chess-ray-vision", "go", "othello"):
        if name in rows:
            _line(name, rows[name])
            everything += rows[name]
    chess = rows.get("chesscog", []) + rows.get("chess-ray-vision", [])
    if chess:
        _line("all chess", chess)
    if everything:
        _line("total", everything)
    if chess:
        share = sum(1 for r in chess if r["found"] and r["worst"] <= BAR) / len(chess)
        verdict = "meets" if share >= 0.95 else "MISSES"
        print(f"bar: {share:.1%} of the real chess photos within {BAR} cell ({verdict} >= 95 %)")
    return 0


def _line(name: str, rows: list[dict]) -> None:
    found = [r for r in rows if r["found"]]
    within = sum(1 for r in found if r["worst"] <= BAR)
    mean = np.mean([r["mean"] for r in found]) if found else float("nan")
    worst = max((r["worst"] for r in found), default=float("nan"))
    turned = sum(1 for r in found if r["turned"])
    seconds = np.mean([r["seconds"] for r in rows])
    print(
        f"{name:<18}{len(rows):>7}{len(found) / len(rows):>8.0%}{mean:>8.3f}{worst:>8.2f}"
        f"{within / len(rows):>9.0%}{turned:>8}{seconds:>9.3f}"
    )


if __name__ == "__main__":
    sys.exit(main())
