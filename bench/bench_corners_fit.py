"""Does `companion vision read` say when a lined board's corners do not fit the photo?

`vision read` with typed corners, or corners saved beside the calibration, checks that the
board is where they put it (`companion.commands.vision._check_corners_fit`); on a lined board
(Go, Othello, a grid of your own, no markers) that is `vision.find.lined_board_elsewhere`. This
measures both ways it can be wrong:

- *real photos* (../shared/data/real, read from beside the repository, never copied into it):
  the Go photo with stones (read on its crossings, as grid:19x19) and the Othello photo, each
  calibrated on itself at its labelled corners, then read at those corners: as it is (must
  fit), darkened to 0.3, 0.15 and 0.05 of its light, the last with a sensor's noise too (must
  fit: a dim photo is no sign), a black frame with that noise (must not fit), moved
  under the corners by a third of a cell and by 150-300 px (must not fit), and three chess
  photos read at the lined board's corners (must not fit);
- *synthetic lined boards* (`vision.sim`, the Othello and Go styles, 6x6 to 13x13, each
  calibrated on its calibration position) read at their true corners with random positions
  filled 20, 50, 80 and 95 %: every warning there is a false one.

Prints each real case with the shares of `vision.find.lines_round_empty` (on the lines, a
quarter of a cell off them) and the verdict, then the synthetic false warnings.

    python bench/bench_corners_fit.py [--tables N]
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

from bench_real import layout_and_homography, load_photo, real_data  # noqa: E402

from companion.observation import EMPTY  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.find import grid_shape, lined_board_elsewhere, lines_round_empty  # noqa: E402
from vision.layouts import get_layout  # noqa: E402
from vision.location import from_corners  # noqa: E402
from vision.reader import read_cells  # noqa: E402
from vision.sim import SimTable, calibration_position, random_cells  # noqa: E402
from vision.standing import calibrate_standing, read_standing  # noqa: E402

SYNTHETIC = (
    ("othello", "grid:8x8"),
    ("go", "grid:9x9"),
    ("othello", "grid:6x6"),
    ("go", "grid:13x13"),
)
FILLS = (0.2, 0.5, 0.8, 0.95)


def crossings(entry: dict) -> dict:
    """A Go photo's entry read on its 19 x 19 crossings: corners half a cell outside the
    labelled outer intersections, as a player gives them (`grid:19x19`, docs/vision.md)."""
    lines = np.array([[0, 0], [18, 0], [18, 18], [0, 18]], np.float32)
    to_image = cv2.getPerspectiveTransform(lines, np.array(entry["corners"], np.float32))
    outer = np.array([[[-0.5, -0.5], [18.5, -0.5], [18.5, 18.5], [-0.5, 18.5]]])
    corners = cv2.perspectiveTransform(outer, to_image)[0]
    return {**entry, "game": "grid", "corners": corners.tolist()}


def verdict(image: np.ndarray, located, read) -> tuple[str, bool]:
    """The shares and whether the corners are said not to fit, for the cells read empty."""
    empty = [c for c, v in read.cells.items() if v == EMPTY]
    shares = lines_round_empty(image, located, empty)
    text = "no sign" if shares is None else f"{shares[0]:.2f} on, {shares[1]:.2f} off"
    return f"{len(empty):3d} empty, {text}", lined_board_elsewhere(image, located, empty)


def real_cases(data: Path) -> int:
    """Print every real case; the number read the wrong way."""
    manifest = json.loads((data / "manifest.json").read_text())
    chess = [e for e in manifest if e["game"] == "chess"][:3]
    wrong = 0
    for entry in manifest:
        if entry["game"] not in ("go", "othello") or not entry["cells"]:
            continue
        photo = load_photo(data, entry)
        if entry["game"] == "go":
            layout = get_layout("grid:19x19")
            located = from_corners(layout, crossings(entry)["corners"], photo.shape[1::-1])
        else:
            layout, _ = layout_and_homography(entry)
            located = from_corners(layout, entry["corners"], photo.shape[1::-1])
        calibration = calibrate_standing(photo, located.homography, layout, entry["cells"])
        top = located.board_corners_px()[:2]  # a cell's width along the top edge, px
        cell = float(np.linalg.norm(top[1] - top[0])) / grid_shape(layout)[0]
        cases = [("as it is", photo, True)]
        cases += [
            (f"{f} of its light", (photo * f).astype(np.uint8), True) for f in (0.3, 0.15, 0.05)
        ]
        noise = np.random.default_rng(0).normal(0.0, 2.0, photo.shape)  # a sensor's, 2 levels
        dim = np.clip(photo * 0.05 + noise, 0, 255).astype(np.uint8)
        cases.append(("0.05 of its light, noisy", dim, True))
        black = np.clip(8 + noise, 0, 255).astype(np.uint8)
        cases.append(("a black frame, noisy", black, False))
        for dx, dy, what in (
            (0, cell / 3, "a third of a cell"),
            (150, 150, "150 px"),
            (300, 0, "300 px"),
            (0, 300, "300 px down"),
        ):
            moved = cv2.warpAffine(photo, np.float32([[1, 0, dx], [0, 1, dy]]), photo.shape[1::-1])
            cases.append((f"moved {what}", moved, False))
        cases += [
            (f"chess photo {e['file'].split('/')[-1]}", load_photo(data, e), False) for e in chess
        ]
        for name, image, fits in cases:
            read = read_standing(image, located.homography, layout, calibration)
            text, elsewhere = verdict(image, located, read)
            ok = elsewhere != fits
            wrong += not ok
            said = "said not to fit" if elsewhere else "fits"
            print(
                f"{entry['file'].split('/')[-1]:22} {name:26} {text:32} {said:16} {'' if ok else '<- wrong'}"
            )
    return wrong


def synthetic_cases(tables: int) -> tuple[int, int]:
    """Synthetic lined boards at their true corners: (false warnings, boards)."""
    said = boards = 0
    for board, name in SYNTHETIC:
        layout = get_layout(name)
        for seed in range(tables):
            table = SimTable(name, seed=seed * 97 + 5, realism={"board": board})
            position = calibration_position(layout)
            located = from_corners(layout, table.board_corners_px(), table.size)
            calibration = calibrate(table.render(position), located.homography, layout, position)
            rng = np.random.default_rng(seed + 100)
            for fill in FILLS:
                image = table.render(random_cells(layout, rng, fill))
                read = read_cells(image, located.homography, layout, calibration, covered=())
                text, elsewhere = verdict(image, located, read)
                boards += 1
                said += elsewhere
                if elsewhere:
                    print(
                        f"  false warning: {board} {name} table {seed}, {fill:.0%} filled: {text}"
                    )
    return said, boards


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=6, help="synthetic tables a style and size")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    wrong = real_cases(real_data())
    said, boards = synthetic_cases(args.tables)
    print(f"real photos: {wrong} case(s) judged the wrong way")
    print(f"synthetic lined boards at their true corners: {said} of {boards} said not to fit")
    print(f"time: {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
