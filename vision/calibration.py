"""Calibration: the colour of each class, learned from one photo of a known position.

The players put the pieces as a position file says (``{"cells": {"a1": "gold", ...}}``; cells
not named are empty) and take one picture. For every class the calibration stores the colour
of a cell's core and body *relative to the board's own colour under the same light*
(`albedo`), and how much that varied between the cells of the class (`spread`). Relative
colours are what survives a change of light: a lamp instead of daylight, a gradient across the
table, a warm or a cool bulb all scale the board and the pieces alike (see `vision.reader`).

Any real set works - the colours are learned, not assumed - and ``grid:RxC`` boards get
whatever class names the position uses (e.g. "black" and "white" on a board the players own).

The file is JSON with a format name and a version, so a newer file is refused with a clear
message rather than misread.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.errors import (
    ColoursSwapped,
    EmptyPhotoNotEmpty,
    PositionMismatch,
    UserError,
    excerpt,
)
from companion.observation import EMPTY, UNKNOWN
from vision import messages
from vision.copies import AUGMENT_SEED
from vision.find import nearest_turn, turned, turned_homography, untold_turns
from vision.jsonfile import json_field, read_json, write_json
from vision.layouts import CLASS_COLOURS, Layout
from vision.location import Located
from vision.reader import FEATURES, class_scores, classify, read_cells, sample_cells
from vision.standing import (
    FORMAT,
    Photo,
    StandingCalibration,
    calibrate_standing,
    colours_swapped,
)
from vision.standing import MODEL as STANDING_MODEL

VERSION = 1
DOUBTFUL_CONFIDENCE = 0.99  # a calibration cell read less surely than this is doubtful
CLIP_FRACTION = 0.01  # a cell with more of its pixels clipped does not tell a class's colour


@dataclass(frozen=True)
class Calibration:
    layout: str  # the layout name it was learned on
    classes: tuple[str, ...]  # "empty" first, then the classes the position showed
    albedo: dict[str, list[float]]  # class -> 6 values: core B G R, body B G R / board colour
    spread: dict[str, list[float]]  # class -> 6 standard deviations of those ratios
    samples: dict[str, int]  # class -> how many cells showed it
    # class -> features seen only clipped (overexposed) at calibration: their albedo is a lower bound
    saturated: dict[str, tuple[str, ...]] = field(default_factory=dict)
    version: int = VERSION
    notes: tuple[str, ...] = field(default=(), compare=False)  # warnings from calibrating
    # How good it is, as calibrating measured it on its own photo (not saved):
    margin: float = field(default=0.0, compare=False)  # smallest gap own class -> next (std devs)
    doubtful: tuple[str, ...] = field(default=(), compare=False)  # cells not clearly their class

    def check_layout(self, layout: Layout) -> None:
        """A calibration learned on one layout reads only that layout (same cells, same mat)."""
        if layout.name != self.layout:
            raise UserError(
                f"this calibration was made for layout {self.layout}, not {layout.name}: "
                f"calibrate again with --layout {layout.name}"
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": self.version,
            "layout": self.layout,
            "features": list(FEATURES),
            "classes": list(self.classes),
            "albedo": {c: [round(v, 5) for v in self.albedo[c]] for c in self.classes},
            "spread": {c: [round(v, 5) for v in self.spread[c]] for c in self.classes},
            "samples": {c: self.samples[c] for c in self.classes},
            "saturated": {c: list(f) for c, f in self.saturated.items() if f},
        }

    @classmethod
    def from_json(cls, data: Any, source: str = "calibration") -> Calibration:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise UserError(
                f"{source} is not a calibration file (make one with `companion vision calibrate`)"
            )
        version = data.get("version")
        _check_version_written(version, source)
        if version > VERSION:
            raise UserError(
                f"{source} is calibration version {version!r}, newer than this companion reads "
                f"({VERSION}): update the companion or calibrate again"
            )
        try:
            classes = json_field(data, "classes", lambda v: tuple(str(c) for c in v))
            albedo = json_field(data, "albedo", lambda v: {c: _six(v[c]) for c in classes})
            spread = json_field(data, "spread", lambda v: {c: _six(v[c]) for c in classes})
            samples = json_field(data, "samples", lambda v: {c: int(v[c]) for c in classes})
            layout = json_field(data, "layout", str)
            saturated = json_field(
                data,
                "saturated",
                lambda v: {
                    str(c): tuple(str(f) for f in feats if f in FEATURES)
                    for c, feats in dict(v).items()
                    if c in classes
                },
                {},
            )
        except (KeyError, TypeError, ValueError) as exc:  # json_field names the field
            raise UserError(
                f"{source} is damaged (bad or missing {exc}): calibrate again"
            ) from None
        if not classes or classes[0] != EMPTY:
            raise UserError(
                f"{source} is damaged (its classes must start with empty): calibrate again"
            )
        return cls(layout, classes, albedo, spread, samples, saturated, version)

    def save(self, path: str | Path, *, overwrite: bool = False) -> None:
        write_json(path, self.to_json(), overwrite=overwrite)


def _check_version_written(version: Any, source: Any) -> None:
    """:raises UserError: a calibration's version that is no whole number (changed by hand:
    a trial's file without one was "version None, newer than this companion reads")."""
    if isinstance(version, bool) or not isinstance(version, int):
        what = "missing" if version is None else f"{excerpt(repr(version))}, not a whole number"
        raise UserError(f"{source} is damaged (its version is {what}): calibrate again")


def _six(values: Any) -> list[float]:
    out = [float(v) for v in values]
    if len(out) != len(FEATURES) or not all(np.isfinite(out)):
        raise ValueError("values")
    return out


def load_calibration(path: str | Path) -> Calibration | StandingCalibration:
    """A calibration file of either reader: the flat stones of a printed mat, or the standing
    pieces of a board of your own (``"model": "standing"``, see `vision.standing`)."""
    hint = "make one with `companion vision calibrate`, or check the path"
    data = read_json(path, "calibration", hint, if_damaged="calibrate again")
    if (
        isinstance(data, dict)
        and data.get("format") == FORMAT
        and data.get("model") == STANDING_MODEL
    ):
        _check_version_written(data.get("version"), path)
        if data["version"] > StandingCalibration.version:
            raise UserError(
                f"{path} is calibration version {data.get('version')!r}, newer than this companion "
                f"reads ({StandingCalibration.version}): update the companion or calibrate again"
            )
        if data["version"] < StandingCalibration.oldest:
            raise UserError(
                f"{path} was made by an older companion (calibration version {data['version']}), "
                "whose reader learned other features: calibrate again with the same photos"
            )
        try:
            return StandingCalibration.from_json(data)
        except (KeyError, TypeError, ValueError, IndexError, OverflowError) as exc:
            raise UserError(f"{path} is damaged (bad or missing {exc}): calibrate again") from None
    if (
        isinstance(data, dict)
        and data.get("format") == FORMAT
        and "model" not in data
        and isinstance(data.get("version"), int)
        and VERSION < data["version"] <= StandingCalibration.version
    ):  # a trial: a board of your own's file without its "model" was "newer than (1)"
        raise UserError(f'{path} is damaged (its "model" is missing): calibrate again')
    if isinstance(data, dict) and data.get("format") == FORMAT and "model" in data:
        # the flat-stone files have no "model": another one is no model this companion knows
        raise UserError(
            f"{path} says model {excerpt(repr(data['model']))}, which no companion reader has "
            f"(this one reads {STANDING_MODEL!r}, or files without a model): it was changed "
            "by hand or is damaged - calibrate again"
        )
    return Calibration.from_json(data, str(path))


def load_position(path: str | Path, layout: Layout) -> dict[str, str]:
    """A position file ``{"cells": {"a1": "gold", ...}}`` checked against the layout - or, on
    an 8 x 8 board, a chess position in FEN given instead of a file (`fen_cells`)."""
    fen = None if Path(path).exists() else fen_cells(str(path))
    problem = None if Path(path).exists() else fen_problem(str(path))
    if problem is not None:
        raise UserError(
            f"--position {excerpt(str(path))} is not a chess position (FEN) this reads: "
            f"{problem} - write the board as {FEN_START!r} is written, or give a position file"
        )
    if fen is not None:
        squares = {f"{file}{rank}" for file in "abcdefgh" for rank in range(1, 9)}
        if set(layout.cell_names()) != squares:
            raise UserError(
                f"a chess position (FEN) is for an 8x8 board, not layout {layout.name}: give a "
                'position file {"cells": {...}}'
            )
        return check_position({"cells": fen}, layout, "the FEN position")
    data = read_json(
        path,
        "position",
        'write one like {"cells": {"a1": "gold"}}, or check the path',
        give='JSON naming the class on each occupied cell, {"cells": {"a1": "gold"}}, as '
        "`companion vision snapshot --position` writes",
    )
    return check_position(data, layout, str(path))


# The start of a game of chess, as `--position` takes it on a chess set (`fen_cells`).
FEN_START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"


def fen_cells(text: str) -> dict[str, str] | None:
    """The cells of a chess position in FEN (its board field; the rest of the line is left
    out): white for White's pieces, black for Black's - for a chess set, whose position
    would take 32 lines of JSON. None when `text` is no FEN board (eight ranks of eight).

        >>> cells = fen_cells(FEN_START)
        >>> len(cells), cells["e1"], cells["d8"], cells.get("e4")
        (32, 'white', 'black', None)
        >>> fen_cells("8/8/8/8/4P3/8/8/8 b - - 0 1")
        {'e4': 'white'}
        >>> fen_cells("start.json") is None, fen_cells("8/8/8/8/8/8/8/9") is None
        (True, True)
    """
    cells, _problem = _read_fen(text)
    return cells


def fen_problem(text: str) -> str | None:
    """What is wrong with `text` as a FEN board, when it looks like one (ranks between
    slashes, no file extension) and is not; None otherwise - a path, or a good FEN.

        >>> fen_problem("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR")
        'rank 6 has 9 squares, not 8'
        >>> fen_problem("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR")
        'it has 7 ranks between slashes, not 8'
        >>> fen_problem("rnbqkbnr/pppppppp/8/8/3x4/8/PPPPPPPP/RNBQKBNR")
        "rank 4 has 'x': a piece is one of p n b r q k (upper case for White), empty squares a number"
        >>> fen_problem(FEN_START) is None, fen_problem("positions/start.json") is None
        (True, True)
    """
    fields = text.split()
    board = fields[0] if fields else ""
    if board.count("/") < 3 or "." in board or "\\" in board:
        return None  # a path
    return _read_fen(text)[1]


def _read_fen(text: str) -> tuple[dict[str, str] | None, str | None]:
    """(the cells, None) of a FEN board, or (None, what is wrong with it)."""
    fields = text.split()
    ranks = fields[0].split("/") if fields else []
    if len(ranks) != 8:
        return None, f"it has {len(ranks)} ranks between slashes, not 8"
    cells: dict[str, str] = {}
    for row, rank in enumerate(ranks):
        column = 0
        for char in rank:
            if char in "0123456789":
                column += int(char)
            elif char.lower() in "pnbrqk":
                if column < 8:
                    cells[f"{'abcdefgh'[column]}{8 - row}"] = "white" if char.isupper() else "black"
                column += 1
            else:
                return None, (
                    f"rank {8 - row} has {char!r}: a piece is one of p n b r q k (upper case "
                    "for White), empty squares a number"
                )
        if column != 8:
            return None, f"rank {8 - row} has {column} squares, not 8"
    return cells, None


def check_position(data: Any, layout: Layout, source: str = "position") -> dict[str, str]:
    example = f'{{"cells": {{"{layout.cells[0].name}": "{_example_class(layout)}", ...}}}}'
    if isinstance(data, dict) and isinstance(data.get("cells"), dict):
        data = data["cells"]
    elif isinstance(data, dict) and data.get("format") == "tabletop-companion/game":
        raise UserError(  # a trial: a game record given for the position on the board
            f"{source} is a game record, not a position: a position file names what stands "
            f"on each cell, as {example} (`companion vision snapshot --position` writes one)"
        )
    elif isinstance(data, dict) and "cells" not in data:
        raise UserError(f'{source} has no "cells": write the cells inside it, as {example}')
    else:
        raise UserError(f"{source} must be a JSON object {example}")
    names = set(layout.cell_names())
    cells: dict[str, str] = {}
    given: dict[str, str] = {}  # cell -> as the file wrote it
    for written, cls in data.items():
        cell = written if written in names else str(written).strip().lower()  # "E4" is e4
        if cell not in names:
            raise UserError(
                f"{source}: no cell {written!r} on layout {layout.name} (cells like {layout.cells[0].name})"
            )
        if cell in given:  # (name the spelling that is not the cell's own: "E2", not "e2")
            other = written if written != cell else given[cell]
            raise UserError(f"{source}: cell {cell} is given twice (as {other!r} too): keep one")
        given[cell] = written
        if not isinstance(cls, str) or not cls or cls == UNKNOWN:
            raise UserError(f"{source}: cell {cell} needs a class name, not {cls!r}")
        if layout.game != "grid" and cls not in layout.classes:
            raise UserError(
                f"{source}: {cls!r} on {cell} is not a class of layout {layout.name} "
                f"({', '.join(layout.classes)})"
            )
        if cls != EMPTY:
            cells[cell] = cls
    return cells


def _example_class(layout: Layout) -> str:
    """A class of `layout` for an example ("white" on a board of one's own)."""
    pieces = [c for c in layout.classes if c != EMPTY] if layout.game != "grid" else []
    return pieces[0] if pieces else "white"


# Learn the table from a photo of a known position (and `more` photos: an empty board): the
# standing-piece model of `vision.standing`, for printed mats and boards of your own alike.
calibrate = calibrate_standing


def refuse_turned_round(calibration: Calibration | StandingCalibration) -> None:
    """For a calibration on a grid the companion found (not corners the players gave): a
    chess start position found turned round looks like itself with its colours swapped, and
    is learned so (`vision.standing.colours_swapped`).

    :raises ColoursSwapped: saying the board was probably taken turned round, and to give its
        corners."""
    if isinstance(calibration, StandingCalibration) and colours_swapped(calibration):
        raise ColoursSwapped(messages.colours_swapped())


@dataclass(frozen=True)
class FoundCalibration:
    """A calibration learned on a board the companion found by its grid (`calibrate_found`)."""

    calibration: StandingCalibration
    turn: int  # quarter turns from the finder's choice (0: its own); `vision.find.turned`
    # The finder's way round was refused only for the pieces called white looking darker than
    # those called black: a set whose white pieces are the darker ones looks just the same
    # (the players are to confirm the turn, or give the corners).
    colours_only: bool = False


def calibrate_found(
    image: np.ndarray,
    located: Located,
    position: dict[str, str],
    more: Sequence[Photo] = (),
    *,
    more_found: bool = True,
    stream: int = AUGMENT_SEED,
) -> FoundCalibration:
    """Learn the table from a board the companion found by its own grid (`vision.find`), the
    right way round: the finder's choice of where a1 lies first, then each other turn its
    picture cannot tell (`vision.find.untold_turns`: a chessboard turned by 180 degrees, a
    square lined board by any quarter turn). The first the position fits - no cell out of
    place, and a chess set's white no darker than its black (`refuse_turned_round`) - is
    learned. A position that fits more than one way (a board symmetric under the turn) keeps
    the finder's choice. `more` photos (an empty board) found by their grid too
    (`more_found`) are each turned the way that lies nearest the board as tried (the same
    camera; `vision.find.nearest_turn`); photos whose corners were given are not turned.
    `stream`: the random stream of calibration's copies (`calibrate_standing`).

    :raises PositionMismatch: the position fits the board no way round, and the finder's
        own way has cells out of place (they are named for the board as the finder took it).
    :raises ColoursSwapped: no way fits, and the finder's own way only for white looking
        darker than black.
    :raises EmptyPhotoNotEmpty: the position fits a way round, and a photo said to show the
        board empty shows pieces (`calibrate_standing`).
    :raises UserError: another reason calibration refuses the photo (the same every way).
    """
    refusals: list[UserError] = []
    for turn in untold_turns(located.layout):
        board = turned(located, turn)
        corners = board.board_corners_px()
        photos = tuple(
            replace(
                photo,
                homography=turned_homography(
                    located.layout,
                    photo.homography,
                    nearest_turn(located.layout, photo.homography, corners),
                ),
            )
            if more_found
            else photo
            for photo in more
        )
        try:
            calibration = calibrate(
                image,
                board.homography,
                located.layout,
                position,
                photos,
                stream=stream,
                refuse_swapped=True,
            )
            refuse_turned_round(calibration)
        except EmptyPhotoNotEmpty:
            raise  # the position fits this way; the empty board's photo does not show it empty
        except (PositionMismatch, ColoursSwapped) as exc:
            refusals.append(exc)
            continue
        colours_only = bool(refusals) and isinstance(refusals[0], ColoursSwapped)
        return FoundCalibration(calibration, turn, colours_only)
    raise refusals[0]  # the finder's own way round: what a --view or a screen draws


def pieces_in(
    photo: Photo,
    calibration: Calibration | StandingCalibration,
    layout: Layout,
    board_corners: np.ndarray | None = None,
) -> tuple[Photo, tuple[str, ...]]:
    """An empty board's photo as `calibration` reads it: the photo (turned, see below) and
    the cells read as pieces there. A calibration that learns without the photo but not with
    it was spoilt by it - a photo taken with pieces still on the board, or of another board -
    and these cells say where (the command line's `--empty`, the setup screen's Empty board).
    `board_corners`: where (px) the board was learned on a grid found by the companion - the
    photo is turned the way that lies nearest, as `calibrate_found` turns it."""
    if board_corners is not None:
        turn = nearest_turn(layout, photo.homography, board_corners)
        photo = replace(photo, homography=turned_homography(layout, photo.homography, turn))
    reading = read_cells(photo.image, photo.homography, layout, calibration, covered=())
    return photo, tuple(c for c, v in reading.cells.items() if v not in (EMPTY, UNKNOWN))


def calibrate_flat_stones(
    image: np.ndarray, homography: np.ndarray, layout: Layout, position: dict[str, str]
) -> Calibration:
    """The model before issue 9 (flat stones on a printed mat, each class's colour relative to
    the board's), as calibration files of version 1 hold it: such files still load and read
    (`Calibration.from_json`, `vision.reader`); nothing calibrates so any more but the tests,
    which write one to check that.

    :raises PositionMismatch: a cell does not look like what the position says.
    """
    samples = sample_cells(image, homography, layout)
    names = layout.cell_names()
    truth = [position.get(n, EMPTY) for n in names]
    present = [
        c for c in dict.fromkeys([EMPTY, *sorted(set(truth) - {EMPTY}, key=_class_order(layout))])
    ]
    if EMPTY not in truth:
        raise UserError(messages.no_empty_cell())
    light = np.hstack([samples.light, samples.light])
    ratios = samples.observed / light
    clipped = samples.clipped > CLIP_FRACTION  # (n, 6)
    albedo, spread, counts, saturated = {}, {}, {}, {}
    for cls in present:
        rows = np.array([t == cls for t in truth])
        counts[cls] = int(rows.sum())
        values, spreads, overexposed = [], [], []
        for f, feature in enumerate(FEATURES):
            clean = rows & ~clipped[:, f]
            use = clean if clean.any() else rows  # unclipped cells tell the true colour
            if not clean.any():
                overexposed.append(feature)
            column = ratios[use, f]
            middle = float(np.median(column))
            values.append(middle)
            spreads.append(
                float(1.4826 * np.median(np.abs(column - middle))) if len(column) >= 3 else 0.0
            )
        albedo[cls], spread[cls] = values, spreads
        if overexposed:
            saturated[cls] = tuple(overexposed)
    notes = []
    if layout.game != "grid":
        missing = [c for c in layout.classes if c not in present]
        if missing:
            notes.append(messages.missing_classes_note(missing))
    if saturated:
        notes.append(messages.overexposed_note(saturated))
    calibration = Calibration(
        layout.name, tuple(present), albedo, spread, counts, saturated, VERSION, tuple(notes)
    )
    read, confidence = classify(samples, calibration)
    wrong = [(n, r, t) for n, r, t in zip(names, read, truth, strict=True) if r != t]
    if wrong:
        raise PositionMismatch(
            messages.position_mismatch(wrong, corners=False), tuple(n for n, _, _ in wrong)
        )
    _, distance = class_scores(samples, calibration)
    own = np.array([distance[i, present.index(t)] for i, t in enumerate(truth)])
    others = np.array(
        [
            min((distance[i, j] for j, c in enumerate(present) if c != t), default=np.inf)
            for i, t in enumerate(truth)
        ]
    )
    margin = float(np.min(np.sqrt(others) - np.sqrt(own))) if len(present) > 1 else 0.0
    doubtful = tuple(n for n, c in zip(names, confidence, strict=True) if c < DOUBTFUL_CONFIDENCE)
    return replace(calibration, margin=margin, doubtful=doubtful)


def learned_picture(
    image: np.ndarray,
    homography: np.ndarray,
    layout: Layout,
    calibration: Calibration | StandingCalibration,
    position: dict[str, str],
) -> np.ndarray:
    """The calibration photo with the board's outline as located and every cell as the
    calibration reads it (a dot of the class's colour with its label; empty cells a small grey
    dot ringed in white, seen on dark squares too), cells read otherwise than the position
    says or doubtful ringed in red, and a caption: which label is which class, the margin."""
    observation = read_cells(image, homography, layout, calibration, covered=())
    picture = image.copy()
    scale = view_scale(image)
    palette = [(60, 60, 60), (0, 200, 255), (255, 160, 0), (0, 255, 0), (255, 0, 255), (0, 0, 255)]
    labels = class_labels(calibration.classes)
    outline = cv2.perspectiveTransform(np.array([layout.board_corners()], np.float64), homography)
    cv2.polylines(
        picture, [outline[0].round().astype(np.int32)], True, (255, 160, 0), max(1, int(scale))
    )
    for cell in layout.cells:
        x, y = cv2.perspectiveTransform(np.array([[cell.center]], np.float64), homography)[0, 0]
        if not (0 <= x < image.shape[1] and 0 <= y < image.shape[0]):
            continue
        centre = (int(round(x)), int(round(y)))
        read = observation.cells[cell.name]
        if read == EMPTY:
            cv2.circle(picture, centre, int(4 * scale), (255, 255, 255), -1, cv2.LINE_AA)
            cv2.circle(picture, centre, int(3 * scale), palette[0], -1, cv2.LINE_AA)
        else:
            index = calibration.classes.index(read) if read in calibration.classes else -1
            label = labels.get(read, "?")
            # a class named for a colour is drawn in it (a trial read yellow "b" discs as
            # the black pieces' mark as something else); others from the palette
            colour = CLASS_COLOURS.get(
                read, palette[index % len(palette)] if index > 0 else (255, 255, 255)
            )
            cv2.circle(picture, centre, int(9 * scale), colour, -1, cv2.LINE_AA)
            cv2.circle(picture, centre, int(9 * scale), (128, 128, 128), 1, cv2.LINE_AA)
            ink = (0, 0, 0) if sum(colour) > 3 * 110 else (255, 255, 255)
            cv2.putText(
                picture,
                label,
                (centre[0] - int(5 * scale * len(label)), centre[1] + int(5 * scale)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.5 * scale,
                ink,
                max(1, int(scale)),
                cv2.LINE_AA,
            )
        if read != position.get(cell.name, EMPTY) or cell.name in calibration.doubtful:
            cv2.circle(
                picture, centre, int(15 * scale), (0, 0, 255), max(2, int(2 * scale)), cv2.LINE_AA
            )
    key = ", ".join(f"{labels[c]} {c}" for c in calibration.classes if c != EMPTY)
    caption = (
        f"{key}; margin {calibration.margin:.2f}; doubtful: "
        f"{', '.join(calibration.doubtful) or 'none'}"
    )
    return captioned(picture, caption, scale)


def class_labels(classes: tuple[str, ...] | list[str]) -> dict[str, str]:
    """A short label for each class of pieces, no two alike: the initials of its words
    ("green-character" -> "gc"), longer where two would be alike ("blak" and "black").

    >>> class_labels(("empty", "black", "white"))
    {'black': 'b', 'white': 'w'}
    >>> class_labels(("empty", "green", "green-character", "red", "red-character"))
    {'green': 'g', 'green-character': 'gc', 'red': 'r', 'red-character': 'rc'}
    >>> class_labels(("empty", "black", "blue"))
    {'black': 'bla', 'blue': 'blu'}
    """
    pieces = [c for c in classes if c != EMPTY]
    labels = {
        c: "".join(word[:1] for word in c.replace("_", "-").split("-")) or "?" for c in pieces
    }
    for length in range(2, 1 + max((len(c) for c in pieces), default=0)):
        alike = [c for c in pieces if sum(v == labels[c] for v in labels.values()) > 1]
        if not alike:
            break
        for c in alike:
            labels[c] = c[:length]
    return labels


def refused_picture(
    image: np.ndarray, homography: np.ndarray, layout: Layout, cells: tuple[str, ...]
) -> np.ndarray:
    """The calibration photo of a refused calibration (`PositionMismatch`): the cell grid as
    located, the cells that do not look as the position says ringed in red - what to look at
    on the board (a piece the position forgot, the grid a cell off) - and the board's corner
    cells named where the grid put them: corners given from the wrong corner show a1 where
    it is not (a trial: the refusal named 64 doubtful cells, and the picture did not say)."""
    picture = image.copy()
    scale = view_scale(image)
    for name, (x, y) in corner_labels(layout, homography):
        for colour, weight in (((255, 255, 255), 4), ((0, 0, 160), 1)):  # (a halo, then ink)
            cv2.putText(
                picture,
                name,
                (int(round(x - 14 * scale)), int(round(y + 8 * scale))),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.8 * scale,
                colour,
                max(1, int(weight * scale)),
                cv2.LINE_AA,
            )
    for cell in layout.cells:
        corners = np.array([cell.polygon], np.float64)
        outline = cv2.perspectiveTransform(corners, homography)[0].round().astype(np.int32)
        cv2.polylines(picture, [outline], True, (255, 160, 0), max(1, int(scale)), cv2.LINE_AA)
        if cell.name in cells:
            x, y = cv2.perspectiveTransform(np.array([[cell.center]], np.float64), homography)[0, 0]
            cv2.circle(
                picture,
                (int(round(x)), int(round(y))),
                int(15 * scale),
                (0, 0, 255),
                max(2, int(2 * scale)),
                cv2.LINE_AA,
            )
    caption = f"refused - not as the position says: {', '.join(cells) or 'see the message'}"
    return captioned(picture, caption, scale)


def corner_labels(layout: Layout, homography: np.ndarray) -> list[tuple[str, tuple[float, float]]]:
    """The cells nearest the board's four corners (a1, h1, a8, h8 on a chessboard; four outer
    cells a quarter turn apart on Aranea's web), each with where its centre lies in the
    picture: what a refused calibration's picture names."""
    centres = np.array([cell.center for cell in layout.cells], np.float64)
    picks = {
        int(np.argmin(centres.sum(axis=1))),
        int(np.argmax(centres.sum(axis=1))),
        int(np.argmin(centres[:, 0] - centres[:, 1])),
        int(np.argmax(centres[:, 0] - centres[:, 1])),
    }
    cells = [layout.cells[i] for i in sorted(picks)]
    at = cv2.perspectiveTransform(np.array([[c.center for c in cells]], np.float64), homography)
    return [(c.name, (float(x), float(y))) for c, (x, y) in zip(cells, at[0], strict=True)]


def view_scale(picture: np.ndarray) -> float:
    """How large a --view picture's marks and words are drawn: 1 up to 1000 px, then as the
    picture (a phone's photo is seen shrunk)."""
    return max(1.0, max(picture.shape[:2]) / 1000.0)


def captioned(picture: np.ndarray, caption: str, scale: float | None = None) -> np.ndarray:
    """`picture` under a white band with `caption` in it (the --view pictures say what they
    draw), in as many lines as the picture's width needs; `scale`: the text's size, by
    default the picture's `view_scale`."""
    if scale is None:
        scale = view_scale(picture)
    font, size, weight = cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale, max(1, int(scale))
    room = picture.shape[1] - int(12 * scale)
    lines: list[str] = []
    for word in caption[:240].split():
        wider = f"{lines[-1]} {word}" if lines else word
        if lines and cv2.getTextSize(wider, font, size, weight)[0][0] <= room:
            lines[-1] = wider
        else:
            lines.append(word)
    step = int(24 * scale)
    band = int(4 * scale) + step * max(1, len(lines))
    picture = cv2.copyMakeBorder(picture, band, 0, 0, 0, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    for row, line in enumerate(lines):
        origin = (int(6 * scale), int(20 * scale) + row * step)
        cv2.putText(picture, line, origin, font, size, (0, 0, 0), weight, cv2.LINE_AA)
    return picture


def _class_order(layout: Layout):
    order = {c: i for i, c in enumerate(layout.classes)}
    return lambda c: (order.get(c, len(order)), c)
