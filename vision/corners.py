"""The corners of a board without markers, kept beside its calibration.

A chessboard or grid board of one's own is found from its grid (`vision.find`); when it is not
(a busy cloth, a board packed with pieces) the player gives its four corners - tapped on the
setup screen, or typed with ``--corners``. Those corners belong to the calibration: the
camera and the board stay where they were, so the next game uses them again.

``companion vision calibrate PHOTO --layout chessboard --corners "..." --output cal.json``
writes them to ``cal.corners.json`` beside the calibration; ``companion vision read``,
``track`` and ``companion referee`` with ``--calibration cal.json`` and no ``--corners`` use
them (`corners_for`). The
setup screen keeps the tapped corners in the settings instead (`companion.app.Settings`).

A grid the companion found, but the other way round than the finder's own choice (the
calibration position said so: `vision.calibration.calibrate_found`), is kept as ``"found":
true``: the board is still found by its grid each time, taken the way round nearest these
corners (`vision.find.find_board`'s ``near``) - a photo taken from elsewhere finds it too.

    {"format": "tabletop-companion/corners", "version": 1, "layout": "chessboard",
     "corners": [[x, y], [x, y], [x, y], [x, y]], "found": false}   # image px: TL, TR, BR, BL
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from companion.errors import UserError, excerpt
from vision.jsonfile import read_json, write_json
from vision.layouts import Layout
from vision.location import parse_corners

FORMAT = "tabletop-companion/corners"
VERSION = 1


def corners_path(calibration: str | Path) -> Path:
    """``cal.json`` -> ``cal.corners.json`` (beside the calibration)."""
    path = Path(calibration)
    return path.with_name(f"{path.stem}.corners.json")


def check_corners(value: Any, source: str = "corners") -> np.ndarray:
    """Four finite image points as a 4 x 2 array; UserError naming what is wrong."""
    try:
        points = np.array(value, np.float64)
    except (TypeError, ValueError):
        points = np.zeros((0,))
    if points.shape != (4, 2) or not all(math.isfinite(v) for v in points.ravel()):
        raise UserError(
            f"{source} must be four image points [[x, y], ...] (top-left, top-right, "
            "bottom-right, bottom-left): give --corners again"
        )
    return points


def is_corners_file(path: str | Path) -> bool:
    """Whether `path` is a corners file (one `save_corners` wrote): its format says so."""
    try:
        data = read_json(Path(path), "corners", "")
    except UserError:
        return False
    return isinstance(data, dict) and data.get("format") == FORMAT


def check_corners_place(calibration: str | Path) -> None:
    """The corners are saved beside the calibration (`corners_path`): a file there that is not
    a corners file is the user's, never replaced nor removed.

    :raises UserError: such a file is in the way (naming it and what to do)."""
    path = corners_path(calibration)
    if path.exists() and not is_corners_file(path):
        raise UserError(
            f"{path} is in the way: the calibration's corners are kept there, and it is not a "
            "corners file - move it, or choose another -o"
        )


def save_corners(
    calibration: str | Path, layout: str, corners: Any, *, found: bool = False
) -> Path:
    """Write the corners beside the calibration file (replacing older ones); the path.
    `found`: a grid the companion found, kept for which way round it was taken."""
    points = check_corners(corners)
    path = corners_path(calibration)
    data = {
        "format": FORMAT,
        "version": VERSION,
        "layout": layout,
        "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in points],
        "found": found,
    }
    write_json(path, data, overwrite=True)
    return path


def saved_corners(calibration: str | Path, layout: str) -> tuple[np.ndarray, bool] | None:
    """The corners saved beside the calibration for `layout`, and whether they are a grid
    found (`save_corners`); None when there are none.

    :raises UserError: a damaged file, or one that names another layout than the calibration
        it was saved with (changed by hand: ignored, the board was found by its grid, maybe
        turned - a player's trial read a chess set with the colours swapped)."""
    path = corners_path(calibration)
    if not path.exists():
        return None
    data = read_json(
        path,
        "corners",
        "give --corners, or remove the file",
        if_damaged="give --corners, or remove the file",
    )
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UserError(f"{path} is not a corners file: remove it, or give --corners")
    if not isinstance(data.get("version"), int) or data["version"] > VERSION:
        raise UserError(
            f"{path} was written by a newer companion: update it, or give --corners again"
        )
    if data.get("layout") != layout:
        raise UserError(
            f"{path} holds corners for layout {excerpt(repr(data.get('layout')))}, not "
            f"{layout} as its calibration: it was changed by hand - remove it (the board is "
            "then found by its grid), or give --corners"
        )
    if not isinstance(data.get("found", False), bool):
        raise UserError(
            f'{path}: "found" must be true or false - remove the file, or give --corners'
        )
    return check_corners(data.get("corners"), str(path)), bool(data.get("found", False))


def corners_for(
    given: str | None, calibration: str | Path, layout: Layout | None
) -> tuple[np.ndarray | None, str, np.ndarray | None]:
    """How to locate a board: the corners - `given` (``--corners`` as typed) when there are
    some, else those saved beside `calibration` for `layout` when it has no markers (None: any
    layout in view, "auto") -, a line saying so when the saved ones are used ("" otherwise),
    and the `near` of a grid found the other way round (its saved corners: the board is found
    by its grid, taken the way round nearest them; the corners are None then).

    :raises UserError: corners typed wrong, or a damaged corners file."""
    if given:
        return parse_corners(given), "", None
    if layout is None or layout.has_markers:
        return None, "", None
    saved = saved_corners(calibration, layout.name)
    if saved is None:
        return None, "", None
    corners, found = saved
    if found:
        return (
            None,
            (
                f"finding the board by its grid the way round the calibration took it "
                f"({corners_path(calibration)}); --corners gives the corners instead"
            ),
            corners,
        )
    return (
        corners,
        (
            f"using the corners saved with the calibration ({corners_path(calibration)}); "
            "--corners gives others"
        ),
        None,
    )
