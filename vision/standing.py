"""Reading a board of your own: pieces that stand up, a model learned from the players' photo.

The flat-disc reader (`vision.reader`) knows our printed mats: one board colour, stones lying
flat. A chess set on a roll-up vinyl board, a goban or an Othello board breaks all of that:
checkered cells of two colours, pieces taller than a cell that lean away from the camera over
the cells behind, shadows, phone cameras whose tone curve is not linear. This reader looks at
each cell the way the pieces stand, in four steps, each in its own module:

1. **Where a piece stands** (`vision.cell_views`): for every cell, from the camera's pose
   (`vision.pose`), an upright column over its centre where a piece appears standing on its
   own base, the footprint where its base stands, the ground in front of it and the outlines
   there at full resolution.
2. **The cell's own empty look** (`vision.cell_kinds`, `vision.light_field`): cells come in
   kinds (the two colours of a checkered board; a printed mat's prints), each kind's colour
   learned from the calibration photo; on every photo a smooth light field fitted robustly
   to the grounds (and a printed mat's rim) gives each cell its expected empty colour under
   today's light. Every cell a calibration photo shows empty also learns its own look (a
   printed logo, a label, a stain): the start position teaches the middle of the board, a
   photo of the empty board every cell.
3. **Features of the cell alone** (`vision.cell_features`): log colour ratios and contrasts
   against that colour, and the outlines - nothing that shows the neighbours.
4. **Learned at calibration** (here, with `vision.discriminant` and `vision.copies`): the
   players' photo of a known position (every class on the board) gives each class's mean
   per kind of cell - the photo's own - and augmented copies of it (other exposures, white
   balances, corner errors, elevations, shadows; highlights on stones) give two covariances
   shared by all classes: the spread *within one picture* picks a cell's class (linear
   discriminant analysis), the spread over all the pictures says whether it resembles a
   class at all. A class the calibration shows all over the board also learns how its look
   changes across it (`piece_gradient`: a glossy stone mirrors the lamp on one side), which
   picks a piece's colour - and, for stones (all alike but for their colour), whether one is
   there; for figures the means alone decide that. A cell is
   "unknown" when no class is more likely than the others together, when it resembles none,
   or when it lies outside the picture; a stricter posterior turned pieces in plain view into
   unknowns (bench_real: at 0.7, 114 unknown cells where 0.5 reads them right). Hands are
   kept out by the tracker (motion, stillness), not by this reader.

During a game the boards the referee takes teach the model more (`vision.relearn`): the
empty look of cells no calibration photo showed empty, how an empty cell looks under a nearer
piece's lean, and now and then the whole model fitted again with such a board.
docs/vision.md, "Calibration and reading", says what each step measured on real photos.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np

from companion.errors import ColoursSwapped, EmptyPhotoNotEmpty, PositionMismatch, UserError
from companion.observation import DOUBTFUL, EMPTY, UNKNOWN, Observation
from vision import messages
from vision.cell_features import FEATURE_COUNT, features, light_direction, measured_features
from vision.cell_kinds import learn_surface
from vision.cell_views import CellViews, cell_views
from vision.copies import (
    AUGMENT_SEED,
    AUGMENTED_COPIES,
    COLUMN_SCALES,
    augmented,
    copy_draws,
    flat_prints,
    highlighted,
    shadowed,
)
from vision.discriminant import fit_discriminant, own_distances, picture_move, picture_spreads
from vision.jsonfile import json_field, write_json
from vision.layouts import STONE_HEIGHT, Layout, get_layout
from vision.light_field import INLIER_CUT, Rim, fit_light, light_terms, rim_geometry, robust_spread
from vision.occlusion import band_above_front, hidden_cells
from vision.pose import CameraPose

# calibration's label of an empty cell with a flat print drawn on it in a copy (`flat_prints`):
# fitted as a group of its own, then read as empty
PRINTED = "empty, printed"
FORMAT = "tabletop-companion/calibration"  # the calibration files' format name (both readers)
MODEL = "standing"  # the calibration file's "model" for this reader
# A cell a nearer piece may hide, read as a piece but nearer a lean look it showed than the
# class's mean by this factor (squared distances), reads empty. bench_leans.py, own
# chessboards from 30 and 40 degrees: at 4 (LABEL_CONTRAST), 7 of 470 pieces that stepped
# behind a learned lean read empty where they read right without it; at 8, 1 (2 of 649 on more
# seeds). The referee takes such a cell as first read (`Observation.leaned`) when that is a move.
LEAN_CONTRAST = 8.0
# the fewest cells with a flat print, over the copies, that fit a group of prints: its own
# spread is fitted from them (fewer: a spread that is all floor, and a print group that takes
# every cell near its few samples - a review); a chess start prints on about 45
MIN_PRINTED = FEATURE_COUNT
MIN_KIND_CELLS = 3  # empty cells of a kind a photo must show to measure a cell's own look
LEAN_LOOKS = 4  # the latest looks kept per cell of how it looked, empty, under a lean
LABEL_ROUNDS = 3  # rounds of re-judging: a photo may have many cells the position gets wrong
LABEL_SLACK = 1.5  # x the 99th percentile of a class's own cells: "as near to it as they are"
# A calibration cell is labelled wrong when it is nearer another class than its own by this
# factor (squared distances), and as near to it as that class's cells are (`_wrongly_labelled`)
LABEL_CONTRAST = 4.0
OUTLIER_FACTOR = (
    8.0  # calibration cells this many times farther than typical from their class are re-judged
)
NOVELTY_FLOOR = (
    250.0  # squared distance: well beyond the real photos' own spread (bench_real: <= 148)
)
NOVELTY_FACTOR = 5.0  # x the farthest calibration sample (augmented copies included) from its class
# A shadow over a cell alone that the light field does not follow (`_distances`): one cell in
# SHADE_PRIOR, a priori, at most as deep as SHADE_DEEPEST (log: a fifth of the light left)
SHADE_PRIOR = 0.05
SHADE_COST = -2.0 * float(np.log(SHADE_PRIOR))  # squared distance: about 6
SHADE_DEEPEST = float(np.log(0.2))
DOUBTFUL_GAP = 1.0  # standard deviations between a calibration cell's class and the next
DOUBTFUL_SHARE = 0.2  # more doubtful calibration cells than this share: the photo is refused
DOUBTFUL_FEW = 4  # ... or than this many, on a small board (real photos: at most 3 of 64)
FEW_CELLS = 2  # a class learned from this many cells or fewer has no spread of its own
MIN_POSTERIOR = 0.5  # below this no class is more likely than the rest together: "unknown"
# a cell read this surely shows how its picture moved its class's look (`classify_cells`): a
# cell nearly as near another class would pull the look towards that class. chess-ray-vision
# found and read as one game (three streams): 12 of 13 boards at 0.5, 12.3 at 0.8, 13 at 0.9
# and at 0.99 (its e2 pawn, read empty at first, pulled the empty squares' look its way)
SURE_OF_CLASS = 0.95
LIGHT_ROUNDS = 3  # fits of the light while reading: all grounds, then the cells read empty
CROWDED = 1 / 3  # read occupied: more than this share of the cells seen
MIN_LIGHT_CELLS = 6  # fewer cells read empty: the light stays fitted to every ground
RIM_KNOWN = 0.5  # the share of the rim whose look must be known for the rim to be used
GRADIENT_CELLS = 4  # a class shown on fewer cells learns no slope across the board (3 numbers fit)
GRADIENT_SPREAD = 0.5  # ... or on cells whose places vary less than this share of all cells'


@dataclass(frozen=True)
class Photo:
    """A calibration photo: the picture, its homography and the position it shows."""

    image: np.ndarray
    homography: np.ndarray
    position: dict[str, str]  # cell -> class; cells not named are empty
    unlabelled: tuple[str, ...] = ()  # cells it teaches nothing about (what is there is not known)
    # the players said it shows the board empty (the setup screen's Empty board, `--empty`):
    # checked against the first photo (`calibrate_standing`)
    said_empty: bool = False


@dataclass(frozen=True)
class StandingCalibration:
    """What `calibrate_standing` learned; saved in the calibration file (model "standing")."""

    layout: str
    classes: tuple[str, ...]  # "empty" first
    samples: dict[str, int]  # class -> cells it was learned from
    cell_kinds: list[int]  # every cell's kind, in layout order (see `cell_kinds`)
    surface: list[list[float]]  # per kind: log colour relative to kind 0
    groups: list[tuple[str, int]]  # (class, kind) of every mean
    means: list[list[float]]
    precision: list[list[float]]  # the inverse of the covariance over all pictures
    own_look: dict[str, list[float]]  # cell -> its empty look's offset from its kind's mean
    novelty: float  # a cell farther than this from every class resembles none: unknown
    margin: float  # the smallest gap (in standard deviations) between a calibration cell's class and the next
    doubtful: tuple[str, ...] = ()  # calibration cells not clearly what the position says
    # cells no photo showed empty: their empty look is their kind's until
    # `vision.relearn.learn_from_board`
    unlearned: tuple[str, ...] = ()
    # how each unlearned cell looked at calibration, with its piece (mean features), and the
    # class of that piece; both follow the boards the referee takes
    # (`vision.relearn.learn_from_board`)
    piece_look: dict[str, list[float]] = field(default_factory=dict)
    piece_class: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = field(default=(), compare=False)
    # the players' calibration photos as learned (their features, saved; not the pictures),
    # for `vision.relearn.refit_to_board` to fit again with a board of the game added; and how
    # many cells of the last board it was fitted with (or tried) differed from the first photo's
    # position
    learned: tuple[LearnedPhoto, ...] = field(default=(), compare=False, repr=False)
    refit_changes: int = 0
    stream: int = AUGMENT_SEED  # the augmented copies' random stream (`calibrate_standing`)
    # cell -> how it looked, empty, under a nearer piece's lean on boards the referee took:
    # (the class the camera read there, the features), the latest LEAN_LOOKS
    # (`vision.relearn._learn_leans`)
    lean_looks: dict[str, list[tuple[str, list[float]]]] = field(default_factory=dict)
    # the inverse of the covariance within one picture, which picks the class
    # (`fit_discriminant`); a file written before it had none: `precision` then picks it too
    class_precision: list[list[float]] = field(default_factory=list, repr=False)
    # class -> how its look changes across the board: two rows of FEATURE_COUNT, the change
    # per unit of the board's x and y (`light_terms`'s), where the calibration showed that class
    # all over the board (`_piece_gradients`); it picks a piece's colour, and whether a stone
    # is there - not a figure (`classify_cells`)
    piece_gradient: dict[str, list[list[float]]] = field(default_factory=dict)
    # each rim point's own look (`rim_points`, `_learn_rim`; None where the calibration photo
    # did not show it): the rim anchors the light on a crowded board. A file without: no rim
    rim_look: list[list[float] | None] = field(default_factory=list)
    # the empty groups learned from calibration's flat prints (`vision.copies.flat_prints`),
    # indices into `groups`, and their own spread's inverse (`fit_discriminant`'s `apart`): a
    # cell never seen empty may show a print no photo showed (a logo under the start's rook)
    printed: tuple[int, ...] = ()
    print_precision: list[list[float]] = field(default_factory=list, repr=False)
    # 3: the edge energies joined the features; 4: piece_gradient, rim_look; 5: the darkest
    # and brightest tenth of the column and the footprint joined the features; 6: a stone's
    # own colour (the darker half of its footprint) joined them; 7: a board whose cells span
    # fewer than READING_CELL_PX pixels is sampled enlarged (`at_reading_scale`); 8: flat
    # prints (`printed`; a file of version 7 has none and reads as before)
    version: ClassVar[int] = 8
    oldest: ClassVar[int] = 7  # the oldest version read (older: other features)

    def check_layout(self, layout: Layout) -> None:
        if layout.name != self.layout:
            raise UserError(
                f"this calibration was made for layout {self.layout}, not {layout.name}: "
                f"calibrate again with --layout {layout.name}"
            )

    def kinds(self, layout: Layout) -> np.ndarray:
        return np.array(self.cell_kinds, np.int64)

    def rim(self) -> np.ndarray | None:
        """`rim_look` as an array (NaN where unknown), or None without one - or with one known
        on less than RIM_KNOWN of its points: a calibration position standing its pieces along
        the sides leaves a rim that learned little (on a chess start, 8 of 32 points: what was
        left of it disturbed the grounds' fit)."""
        looks = [r for r in self.rim_look if r is not None]
        if not self.rim_look or len(looks) < RIM_KNOWN * len(self.rim_look):
            return None
        return np.array([[np.nan] * 3 if r is None else r for r in self.rim_look], np.float64)

    @cached_property
    def spreads(self) -> tuple[np.ndarray, np.ndarray]:
        """A cell's spread round its class's look in its own picture, and how far a picture
        moves a class's look (`vision.discriminant.picture_spreads`); a file without
        `class_precision` knows no move (both its spread)."""
        precision = np.array(self.precision)
        return picture_spreads(precision, np.array(self.class_precision or self.precision))

    def own_offsets(self, cells: list[str]) -> np.ndarray:
        """(n, FEATURE_COUNT): how each of `cells` looks empty against its kind's empty mean
        (`own_look`; 0 where no picture showed it empty) - what an empty cell is measured from."""
        return np.array([self.own_look.get(c, [0.0] * FEATURE_COUNT) for c in cells])

    def picks(self) -> np.ndarray:
        """The precision that picks a cell's class (`class_precision`, else `precision`)."""
        return np.array(self.class_precision or self.precision)

    def save(self, path: str | Path, *, overwrite: bool = False) -> None:
        write_json(path, self.to_json(), overwrite=overwrite)

    def to_json(self) -> dict[str, Any]:
        def as_floats(values: list[float]) -> list[float]:
            return [float(v) for v in values]  # exact: a saved file reads back the same model

        return {
            "format": FORMAT,
            "version": self.version,
            "model": MODEL,
            "layout": self.layout,
            "classes": list(self.classes),
            "samples": dict(self.samples),
            "cell_kinds": [int(k) for k in self.cell_kinds],
            "surface": [as_floats(row) for row in self.surface],
            "groups": [[c, k] for c, k in self.groups],
            "means": [as_floats(row) for row in self.means],
            "precision": [[float(v) for v in row] for row in self.precision],
            "class_precision": [[float(v) for v in row] for row in self.class_precision],
            "own_look": {c: as_floats(v) for c, v in self.own_look.items()},
            "novelty": float(self.novelty),
            "margin": float(self.margin),
            "doubtful": list(self.doubtful),
            "unlearned": list(self.unlearned),
            "piece_look": {c: as_floats(v) for c, v in self.piece_look.items()},
            "piece_class": dict(self.piece_class),
            # what it was learned from, to fit again to a board of the game
            # (`vision.relearn.refit_to_board`)
            "learned": [photo.to_json() for photo in self.learned],
            "refit_changes": int(self.refit_changes),
            "stream": int(self.stream),
            "lean_looks": {
                c: [[k, as_floats(x)] for k, x in looks] for c, looks in self.lean_looks.items()
            },
            "piece_gradient": {
                c: [as_floats(row) for row in rows] for c, rows in self.piece_gradient.items()
            },
            "rim_look": [None if r is None else as_floats(r) for r in self.rim_look],
            "printed": [int(g) for g in self.printed],
            "print_precision": [[float(v) for v in row] for row in self.print_precision],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StandingCalibration:
        """:raises ValueError: a damaged file, naming the field (the caller says so)."""
        classes = json_field(data, "classes", _names)
        means = json_field(data, "means", _rows)
        precision = json_field(data, "precision", _rows)
        class_precision = json_field(data, "class_precision", _rows, [])
        own_look = json_field(data, "own_look", _looks)
        piece_look = json_field(data, "piece_look", _looks, {})
        unlearned = data.get("unlearned", [])
        if not isinstance(unlearned, list) or not all(isinstance(c, str) for c in unlearned):
            raise ValueError("unlearned")
        groups = json_field(data, "groups", lambda v: [(str(c), int(k)) for c, k in v])
        layout = json_field(data, "layout", _layout_name)
        cell_kinds = json_field(data, "cell_kinds", lambda v: [int(k) for k in v])
        cells = len(cell_kinds)
        if cells != len(get_layout(layout).cells):  # a kind for every cell of the board
            raise ValueError("cell_kinds")
        photos = data.get("learned", [])
        if not isinstance(photos, list):
            raise ValueError("learned")
        try:
            learned = tuple(LearnedPhoto.from_json(p, cells) for p in photos)
        except (KeyError, TypeError, ValueError, OverflowError):
            raise ValueError("learned") from None  # binascii's own words name no key
        refit_changes = json_field(data, "refit_changes", int, 0)
        stream = json_field(data, "stream", int, AUGMENT_SEED)
        if stream < 0:
            raise ValueError("stream")
        if any(str(t) not in classes for p in learned for t in p.truth):
            raise ValueError("classes")  # the photos' labels name a class the model lacks
        lean_looks = _lean_looks_from_json(data.get("lean_looks", {}), classes)
        piece_gradient = json_field(data, "piece_gradient", _gradients, {})
        rim_look = json_field(data, "rim_look", _rim_looks, [])
        if any(c not in classes or c == EMPTY for c in piece_gradient):
            raise ValueError("piece_gradient")
        novelty = json_field(data, "novelty", _number)
        surface = json_field(data, "surface", _rows)
        if not surface or any(len(row) != 3 for row in surface) or not np.all(np.isfinite(surface)):
            raise ValueError("surface")  # a log colour (B, G, R) for every kind of cell
        if any(not 0 <= k < len(surface) for k in cell_kinds):
            raise ValueError("cell_kinds")
        if any(not 0 <= k < len(surface) for _, k in groups):
            raise ValueError("groups")
        looks = [*own_look.values(), *piece_look.values()]
        if not _model_whole(classes, groups, means, precision, class_precision, looks, novelty):
            raise ValueError("model")
        printed = json_field(data, "printed", lambda v: _printed(v, groups), ())
        print_precision = json_field(data, "print_precision", _rows, [])
        if printed and not _positive_definite(print_precision):
            raise ValueError("print_precision")
        return cls(
            layout=layout,
            classes=classes,
            samples=json_field(data, "samples", lambda v: {c: int(v[c]) for c in classes}),
            cell_kinds=cell_kinds,
            surface=surface,
            groups=groups,
            means=means,
            precision=precision,
            class_precision=class_precision,
            own_look=own_look,
            novelty=novelty,
            margin=json_field(data, "margin", _number),
            doubtful=json_field(data, "doubtful", _names, ()),
            unlearned=tuple(unlearned),
            piece_look=piece_look,
            piece_class=json_field(
                data, "piece_class", lambda v: {str(c): str(k) for c, k in dict(v).items()}, {}
            ),
            learned=learned,
            refit_changes=refit_changes,
            stream=stream,
            lean_looks=lean_looks,
            piece_gradient=piece_gradient,
            rim_look=rim_look,
            printed=printed,
            print_precision=print_precision,
        )


def _model_whole(
    classes: tuple[str, ...],
    groups: list[tuple[str, int]],
    means: list[list[float]],
    precision: list[list[float]],
    class_precision: list[list[float]],
    looks: list[list[float]],
    novelty: float,
) -> bool:
    """Whether a calibration file's model fits together: a mean per group of a known class,
    square precisions and looks of FEATURE_COUNT finite numbers, a positive novelty."""
    return bool(
        classes
        and classes[0] == EMPTY
        and means
        and len(means) == len(groups)
        and all(c in classes for c, _ in groups)
        and all(len(row) == FEATURE_COUNT for row in means)  # rows of unequal length too
        and np.all(np.isfinite(means))
        and _square(precision)
        and (not class_precision or _square(class_precision))
        and all(len(v) == FEATURE_COUNT for v in looks)
        and all(np.all(np.isfinite(v)) for v in looks)
        and novelty > 0
    )


def _square(rows: list[list[float]]) -> bool:
    """FEATURE_COUNT rows of FEATURE_COUNT finite numbers: a precision."""
    return (
        len(rows) == FEATURE_COUNT
        and all(len(row) == FEATURE_COUNT for row in rows)
        and bool(np.all(np.isfinite(rows)))
    )


def _printed(value: Any, groups: list[tuple[str, int]]) -> tuple[int, ...]:
    """A calibration file's `printed`: distinct indices of empty groups, each a kind's second
    (its flat prints, fitted after the classes the photos show)."""
    if not isinstance(value, list) or any(type(g) is not int for g in value):
        raise ValueError("printed")
    if len(set(value)) != len(value):
        raise ValueError("printed")
    for g in value:
        if not 0 <= g < len(groups) or groups[g][0] != EMPTY:
            raise ValueError("printed")
        if (EMPTY, groups[g][1]) not in groups[:g]:
            raise ValueError("printed")
    return tuple(value)


def _positive_definite(rows: list[list[float]]) -> bool:
    """A precision: FEATURE_COUNT rows of finite numbers, symmetric and positive definite."""
    if not _square(rows):
        return False
    matrix = np.array(rows, np.float64)
    if not np.allclose(matrix, matrix.T, rtol=1e-6, atol=1e-9):
        return False
    try:
        np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        return False
    return True


def _layout_name(value: Any) -> str:
    """A layout's name as a calibration file gives it; ValueError when there is no such layout
    (a damaged file, not the player's --layout)."""
    try:
        return get_layout(str(value)).name
    except UserError:
        raise ValueError("layout") from None


def _number(value: Any) -> float:
    """A finite number as a calibration file gives it (not text, not true or false)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        raise ValueError("not a finite number")
    return float(value)


def _names(value: Any) -> tuple[str, ...]:
    """A list of names (classes, cells) as a calibration file gives it: text, never a string
    taken letter by letter."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("not a list of names")
    return tuple(value)


def _rows(value: Any) -> list[list[float]]:
    return [[float(v) for v in row] for row in value]


def _gradients(value: Any) -> dict[str, list[list[float]]]:
    gradients = {str(c): _rows(rows) for c, rows in dict(value).items()}
    for rows in gradients.values():
        shape = np.array(rows, np.float64).shape
        if shape != (2, FEATURE_COUNT) or not np.all(np.isfinite(rows)):
            raise ValueError("piece_gradient")
    return gradients


def _rim_looks(value: Any) -> list[list[float] | None]:
    looks = [None if r is None else [float(v) for v in r] for r in list(value)]
    if any(r is not None and (len(r) != 3 or not np.all(np.isfinite(r))) for r in looks):
        raise ValueError("rim_look")
    return looks


def _looks(value: Any) -> dict[str, list[float]]:
    return {str(c): [float(v) for v in row] for c, row in dict(value).items()}


def _lean_looks_from_json(
    data: Any, classes: tuple[str, ...]
) -> dict[str, list[tuple[str, list[float]]]]:
    """:raises ValueError: a damaged record (a class the calibration does not know, a look
    of the wrong length or not finite)."""
    try:
        looks = {
            str(cell): [(str(k), [float(v) for v in x]) for k, x in entries]
            for cell, entries in dict(data).items()
        }
    except (TypeError, ValueError, OverflowError):
        raise ValueError("lean_looks") from None
    for entries in looks.values():
        for k, x in entries:
            if (
                k not in classes
                or k == EMPTY
                or len(x) != FEATURE_COUNT
                or not np.all(np.isfinite(x))
            ):
                raise ValueError("lean_looks")
    return looks


def features_of(
    views: CellViews,
    layout: Layout,
    kinds: np.ndarray,
    surface: np.ndarray,
    use: np.ndarray | None = None,
    start: np.ndarray | None = None,
    rim_look: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Features of every cell, which cells the picture shows, how deep a shadow the light
    field does not follow each may lie in (`_deepest_shade`), and each cell's expected empty
    colour under the fitted light (log BGR, what the features are measured against); the
    light is fitted to the
    grounds of the cells in `use` (those the position has empty) that the picture shows, and
    to the rim round the board where its look was learned (`rim_look`, NaN where not)."""
    seen = ~views.unseen
    light_from = seen if use is None else seen & use
    rim = None
    if rim_look is not None and len(rim_look) and len(rim_look) == len(views.rim):
        known = np.isfinite(rim_look).all(axis=1) & ~views.rim_unseen
        rim = Rim(np.nan_to_num(views.rim - rim_look), rim_geometry(layout.name)[1], known)
    expected, _ = fit_light(
        views.ground, kinds, surface, light_terms(layout), light_from, start, rim
    )
    shade = _deepest_shade(views.ground - expected, layout, light_from, seen)
    return features(views, expected, not layout.figures), seen, shade, expected


def _deepest_shade(
    residual: np.ndarray, layout: Layout, fitted: np.ndarray, seen: np.ndarray
) -> np.ndarray:
    """(n,): how deep a shadow the light field does not follow each cell may lie in (log, at
    most 0; `_distances`): as deep as the board round it shows one - the median, over the
    cell and its neighbours in view, of how much darker each one's ground is than the field
    gives it (`residual`, log colour) - and the field's own scatter deeper (INLIER_CUT robust
    deviations of the grounds it was `fitted` to, as the fit itself cuts); never past
    SHADE_DEEPEST. The shadows it is for - the photographer's, an arm's, a lamp's fall-off in
    a corner - are wider than a cell; a piece's own shadow, which falls over its ground, is
    one ground among its neighbours'."""
    darker = residual.mean(axis=1)
    used = fitted if fitted.any() else seen
    spread = robust_spread(np.abs(darker[used] - np.median(darker[used])))
    near = _neighbourhood(layout.name)  # (n, k), -1 past a cell's last neighbour
    shown = (near >= 0) & seen[near]
    values = np.where(shown, darker[near], np.nan)
    around = np.zeros(len(darker))
    some = shown.any(axis=1)
    around[some] = np.nanmedian(values[some], axis=1)
    return np.maximum(np.minimum(around, 0.0) - INLIER_CUT * spread, SHADE_DEEPEST)


@lru_cache(maxsize=32)
def _neighbourhood(layout_name: str) -> np.ndarray:
    """(n, k) int: each cell and the cells round it (centres within one and a half of its
    width), -1 past the last - worked out once a layout (a 19 x 19 grid's 361 cells have at
    most 9 each: the median over them is read on every still board)."""
    layout = get_layout(layout_name)
    centres = np.array([c.center for c in layout.cells], np.float64)
    width = np.array([2.0 * c.radius for c in layout.cells])
    near = np.linalg.norm(centres[:, None] - centres[None], axis=2) <= 1.5 * width[:, None]
    index = np.full((len(centres), int(near.sum(axis=1).max())), -1, np.int64)
    for i, row in enumerate(near):
        cells = np.flatnonzero(row)
        index[i, : len(cells)] = cells
    return index


def _learn_rim(
    views: CellViews,
    layout: Layout,
    kinds: np.ndarray,
    surface: np.ndarray,
    empty: np.ndarray,
    occupied: np.ndarray,
) -> np.ndarray:
    """Each rim point's own look (log colour less the light there, `fit_light`), from the
    calibration photo's empty cells' light; NaN where the picture does not show it, and beside
    a cell the photo has `occupied` (that piece's lean or shadow may lie over it: a chess
    start's far rank leans over the rim behind it, and the rim would learn the pieces).
    """
    _, terms, beside = rim_geometry(layout.name)
    rim = Rim(views.rim, terms, np.zeros(len(terms), bool))
    _, light = fit_light(views.ground, kinds, surface, light_terms(layout), empty, rim=rim)
    look = views.rim - light
    look[views.rim_unseen | occupied[beside]] = np.nan
    return look


def _distances(
    x: np.ndarray,
    calibration: StandingCalibration,
    cells: list[str],
    precision: np.ndarray | None = None,
    *,
    across: bool = False,
    shade: np.ndarray | None = None,
) -> np.ndarray:
    """Squared Mahalanobis distance of every cell to every (class, kind) mean, (n, groups);
    the empty class measured from each cell's own empty look where it is known. `precision`:
    the calibration's `precision` (between pictures too) unless another is given. `across`:
    each piece class's mean moved to how that class looks on the cell (`piece_gradient`).

    `shade` (log, per cell, `_deepest_shade`): the deepest shadow the light field does not
    follow that each cell may lie in - the photographer's, an arm's, a lamp's fall-off in a
    corner. The field is smooth and fitted robustly, so such a shadow is left out of it as if
    pieces had spoiled those grounds. A shadow over a cell lowers its light, which moves the
    features measured against the cell's expected colour by its log (`light_direction`) -
    every class alike. With `shade`, each distance is also taken with the cell's light
    lowered by what fits that class best, down to the cell's `shade` (`_in_shade`), at the
    cost of a shadow's prior (SHADE_COST); the nearer of the two is the distance. Only
    lowered: a cell brighter than its light is no shadow. docs/vision.md, calibration 2.,
    has the measurements."""
    means = np.array(calibration.means)
    offsets = calibration.own_offsets(cells)
    empty = np.array([c == EMPTY for c, _ in calibration.groups])
    empty[list(calibration.printed)] = False  # a print's look is its own, not the cell's
    diff = x[:, None, :] - means[None, :, :]
    diff[:, empty, :] -= offsets[:, None, :]
    if across and calibration.piece_gradient:
        where = _board_terms(calibration.layout, tuple(cells))
        for g, (cls, _) in enumerate(calibration.groups):
            if cls in calibration.piece_gradient:
                diff[:, g, :] -= where @ np.array(calibration.piece_gradient[cls])
    if precision is None:
        precision = np.array(calibration.precision)
    plain = np.einsum("nkd,de,nke->nk", diff, precision, diff)
    if shade is not None:
        shaded = _in_shade(diff, plain, precision, calibration, shade) + SHADE_COST
        plain = np.minimum(plain, shaded)
    if calibration.printed:
        _print_distances(plain, diff, precision, calibration, cells)
    return plain


def _print_distances(
    distance: np.ndarray,
    diff: np.ndarray,
    precision: np.ndarray,
    calibration: StandingCalibration,
    cells: list[str],
) -> None:
    """`distance`'s columns of the printed groups (`StandingCalibration.printed`), in place:
    measured with the prints' own spread (`print_precision`), plus what that wider spread
    costs against `precision` (half the log of the ratio of their determinants, doubled as a
    squared distance is: the two Gaussians' likelihoods compared) - where the cell was never
    seen empty (`unlearned`); infinite where its own empty look is known, which shows any
    print on it. The sum may be negative (a cell much likelier a print than anything): it is a
    log-likelihood ratio, and `_posterior` and the novelty take it as such. Not under a
    shadow (`_in_shade`): a print is scored as measured. A kind's two empty groups add up in
    the posterior, so a cell never seen empty weighs empty a little more than before. Tried
    and not kept: only where the cell no longer looks as the piece that stood there did, or
    also nearest that piece's class (docs/vision-history.md)."""
    own = np.asarray(calibration.print_precision)
    cost = float(np.linalg.slogdet(precision)[1] - np.linalg.slogdet(own)[1])
    printed = list(calibration.printed)
    unseen = np.isin(cells, calibration.unlearned)
    distance[:, printed] = np.inf
    if unseen.any():
        d = diff[unseen][:, printed]
        distance[np.ix_(unseen, printed)] = np.einsum("nkd,de,nke->nk", d, own, d) + cost


def _left(x: np.ndarray, look: list[float], precision: np.ndarray, on_average: float) -> bool:
    """Whether a cell's features `x` lie farther from `look` (how it looked with its piece)
    than a cell lies from its class's mean on average (`on_average`, in squared standard
    deviations of `precision`): its piece left, or another came."""
    diff = x - np.array(look)
    return float(diff @ precision @ diff) > on_average


def _in_shade(
    diff: np.ndarray,
    plain: np.ndarray,
    precision: np.ndarray,
    calibration: StandingCalibration,
    shade: np.ndarray,
) -> np.ndarray:
    """(n, groups): each squared distance (`plain`, of the differences `diff`) with the cell's
    light lowered by as much as brings it nearest that mean - between none and the cell's
    `shade` (log, `_deepest_shade`), along `light_direction`: the class as it would look in a
    shadow over the cell. `_distances` takes it, at SHADE_COST more, where it is nearer than
    as measured."""
    direction = light_direction(not get_layout(calibration.layout).figures)
    pulled = precision @ direction
    along = np.einsum("nkd,d->nk", diff, pulled)
    shift = np.clip(along / float(direction @ pulled), shade[:, None], 0.0)
    return plain - 2.0 * shift * along + shift * shift * float(direction @ pulled)


def _posterior(
    distance: np.ndarray, allowed: np.ndarray, calibration: StandingCalibration
) -> np.ndarray:
    """(n, classes): each class's posterior among the `allowed` groups, from their squared
    distances (equal priors; a class's groups add up)."""
    score = np.where(allowed, -0.5 * distance, -np.inf)
    score -= score.max(axis=1, keepdims=True)
    weight = np.exp(score)
    classes = calibration.classes
    per_class = np.zeros((len(distance), len(classes)))
    for g, (cls, _) in enumerate(calibration.groups):
        per_class[:, classes.index(cls)] += weight[:, g]
    return per_class / per_class.sum(axis=1, keepdims=True)


@lru_cache(maxsize=64)
def _board_terms(layout_name: str, cells: tuple[str, ...]) -> np.ndarray:
    """(n, 2): where each of `cells` lies on its board, x and y (`light_terms`: -1..1 across)."""
    layout = get_layout(layout_name)
    terms = light_terms(layout)[:, 1:3]
    index = {name: i for i, name in enumerate(layout.cell_names())}
    return terms[[index[c] for c in cells]]


def _allowed(kinds: np.ndarray, calibration: StandingCalibration) -> np.ndarray:
    """(n, groups): the means a cell may be scored against - its class's mean on its own kind
    of cell, or, where the calibration never showed that class on that kind (a blue stone in
    Aranea's centre), the class's means on the other kinds."""
    group_kind = np.array([k for _, k in calibration.groups])
    group_class = [c for c, _ in calibration.groups]
    same = group_kind[None, :] == kinds[:, None]
    allowed = same.copy()
    for cls in set(group_class):
        of_class = np.array([c == cls for c in group_class])
        missing = ~(same & of_class[None, :]).any(axis=1)  # cells whose kind lacks this class
        allowed[missing] |= of_class[None, :]
    return allowed


def classify_cells(
    x: np.ndarray,
    kinds: np.ndarray,
    calibration: StandingCalibration,
    cells: list[str],
    shade: np.ndarray | None = None,
    seen: np.ndarray | None = None,
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Class (or unknown), posterior of the best class, and the (n, classes) posteriors. The
    class is picked within the picture (`class_precision`); whether a cell resembles any class
    at all is judged with the spread between pictures too (`novelty`): a later photo's cells
    all lie a little off the calibration's, as the light and the camera's settings differ.
    `shade`: how deep a shadow the light field does not follow each cell may lie in
    (`_deepest_shade`; None: none - the calibration photo's own cells are judged as seen).

    Read twice: the cells read surely as each class the first time (SURE_OF_CLASS) show how
    this picture moved that class's look (`moved_to_picture`; `seen`: the cells the picture
    shows, None: all), and the second reading, the one returned, measures every cell from the
    moved looks - the spread that picks the class is the spread round a picture's own look."""
    names, confidence, _ = _classify(x, kinds, calibration, cells, shade)
    return _read_in_picture(x, kinds, calibration, cells, shade, seen, names, confidence)


def _read_in_picture(
    x: np.ndarray,
    kinds: np.ndarray,
    calibration: StandingCalibration,
    cells: list[str],
    shade: np.ndarray | None,
    seen: np.ndarray | None,
    names: list[str],
    confidence: np.ndarray,
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """`classify_cells`' second reading, from its first (`names`, `confidence`)."""
    sure = [n if c >= SURE_OF_CLASS else UNKNOWN for n, c in zip(names, confidence, strict=True)]
    moved = moved_to_picture(calibration, x, kinds, cells, sure, seen)
    return _classify(x, kinds, moved, cells, shade)


def moved_to_picture(
    calibration: StandingCalibration,
    x: np.ndarray,
    kinds: np.ndarray,
    cells: list[str],
    names: list[str],
    seen: np.ndarray | None = None,
) -> StandingCalibration:
    """`calibration` with each class's mean on each kind of cell moved to its look in this
    picture, as far as the cells read as that class there (`names`, of the cells `seen`) show
    it (`vision.discriminant.picture_move`; an empty cell measured from its own empty look).

    A picture moves every cell of a class alike - its tone curve and sharpness, which the
    light's fit does not take out, and a light from another side, which shows a white pawn
    brighter than its square in one photo and as bright in another - and the spread that
    picks the class (`class_precision`) is the spread round a picture's own look, so a cell
    measured from the calibration's look lay a whole move off. On chess-ray-vision (photos
    from every side in daylight) the white pawn on e2 is a third brighter than its square in
    crv_07 and crv_11, where the calibration photo's white pieces on light squares were about
    as bright as theirs: it read empty. docs/vision.md, calibration 4., has the measurements.
    The prints' groups are not moved: a print's look is its own."""
    within, between = calibration.spreads
    means = np.array(calibration.means, dtype=float)
    offsets = calibration.own_offsets(cells)
    read = np.array(names)
    shown = np.ones(len(cells), bool) if seen is None else seen
    for g, (cls, kind) in enumerate(calibration.groups):
        if g in calibration.printed:
            continue
        members = (read == cls) & (kinds == kind) & shown
        deviations = x[members] - means[g]
        if cls == EMPTY:
            deviations -= offsets[members]
        means[g] += picture_move(deviations, within, between)
    return replace(calibration, means=means.tolist())


def _classify(
    x: np.ndarray,
    kinds: np.ndarray,
    calibration: StandingCalibration,
    cells: list[str],
    shade: np.ndarray | None,
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """`classify_cells`' reading from `calibration`'s looks as they are."""
    distance = _distances(x, calibration, cells, shade=shade)
    allowed = _allowed(kinds, calibration)
    picking = _distances(x, calibration, cells, calibration.picks())
    shaded = (
        picking
        if shade is None
        else _distances(x, calibration, cells, calibration.picks(), shade=shade)
    )
    piece = np.array([c != EMPTY for c, _ in calibration.groups])
    looks = picking  # which piece: as measured - a shadow says whether one is there, not which
    if calibration.piece_gradient:
        moved = _distances(x, calibration, cells, calibration.picks(), across=True)
        if get_layout(calibration.layout).figures:
            # Figures: whether a piece is there, from the classes' means (a class's slope
            # also carries one figure's shape against another's: a chess start has the
            # pawns on one rank, the other figures behind); which piece, from how each class
            # looks on this cell.
            looks = moved
        else:
            # Stones all look alike but for their colour: a class's slope is the light on its
            # stones alone (a glossy stone mirroring the lamp), so it says whether one is there
            # too - as a look the stone may have here besides its mean: the slope is fitted
            # where the class stood and carried beyond (a 5x5 board's far corner), so it adds
            # a look to the class and never takes its mean's away.
            looks = np.minimum(moved, picking)
            shaded = np.minimum(moved, shaded)
    # P(class) = P(a piece) x P(class | a piece): without `shade` the same as one posterior
    # over every class; with it, a shadow may explain a cell's darkness as an empty one's
    # or a piece's, but no piece's darkness as another piece's (a light wooden figure in a
    # shadow is no dark one: the realistic own chessboards read black figures as white).
    empty = _posterior(shaded, allowed, calibration)[:, :1]
    colour = _posterior(looks, allowed & piece[None, :], calibration)
    per_class = np.hstack([empty, (1.0 - empty) * colour[:, 1:]])
    best = per_class.argmax(axis=1)
    p_best = per_class[np.arange(len(x)), best]
    nearest = np.where(allowed, distance, np.inf).min(axis=1)
    sure = (p_best >= MIN_POSTERIOR) & (nearest <= calibration.novelty)
    classes = calibration.classes
    names = [classes[b] if ok else UNKNOWN for b, ok in zip(best, sure, strict=True)]
    return names, np.where(nearest <= calibration.novelty, p_best, 0.0), per_class


def calibrate_standing(
    image: np.ndarray,
    homography: np.ndarray,
    layout: Layout,
    position: dict[str, str],
    more: tuple[Photo, ...] = (),
    *,
    stream: int = AUGMENT_SEED,
    refuse_swapped: bool = False,
) -> StandingCalibration:
    """Learn the table from `image` showing `position` (cell -> class; others empty), and from
    `more` photos of known positions if the players have them - an empty board above all:
    every cell empty in some photo - the start photo's empty cells too - has its own empty
    look learned (a printed logo, a label).
    A `Photo`'s `unlabelled` cells teach nothing (a piece nobody named, a hand over a cell).
    `stream`: the random stream the augmented copies are drawn from (kept in the calibration:
    a fit to a board of the game draws from it too). `refuse_swapped`: a grid the companion
    found - a first photo whose white looks darker than its black is taken turned round
    (`colours_swapped`), and refused before a photo said to be empty is judged on it (a
    review: the wrong way round named the wrong cells).

    :raises UserError: the position leaves no cell empty, or none in view.
    :raises PositionMismatch: the picture does not show the position (a cell clearly another
        class, or a wrongly labelled cell that taught its class its look - `_wrongly_labelled`).
    :raises EmptyPhotoNotEmpty: a photo said to show the board empty shows pieces.
    :raises ColoursSwapped: `refuse_swapped`, and the first photo's colours say it is turned
        round (judged here only with a photo said to be empty; the caller judges the rest).
    """
    if stream < 0:
        raise ValueError(f"a random stream is a number from 0 up, not {stream}")
    photos = (Photo(image, homography, position), *more)
    names = layout.cell_names()
    views = cell_views(image, homography, layout)
    truth = np.array([position.get(n, EMPTY) for n in names])
    if not (truth == EMPTY).any():
        raise UserError(messages.no_empty_cell())
    empty = (truth == EMPTY) & ~views.unseen
    if not empty.any():  # nothing to learn the board's look or the light from
        raise UserError(messages.no_empty_cell_in_view())
    kinds, surface = learn_surface(layout, views.ground, empty)
    rim_look = _learn_rim(views, layout, kinds, surface, empty, truth != EMPTY)
    draws = copy_draws(stream)
    learned = tuple(
        learn_photo(photo, views if index == 0 else None, layout, kinds, surface, draws, rim_look)
        for index, photo in enumerate(photos)
    )
    said_empty = [photo for photo in more if photo.said_empty]
    if said_empty:
        first = model_from_photos(
            learned[:1], layout, kinds, surface, given=1, stream=stream, rim_look=rim_look
        )
        if refuse_swapped and colours_swapped(first):
            raise ColoursSwapped(messages.colours_swapped())
        for photo in said_empty:
            _check_said_empty(photo, first, layout, truth)
    return model_from_photos(
        learned, layout, kinds, surface, given=len(learned), stream=stream, rim_look=rim_look
    )


def _check_said_empty(
    photo: Photo, first: StandingCalibration, layout: Layout, first_truth: np.ndarray
) -> None:
    """A photo said to show the board empty, read by what the first photo alone taught: a
    piece read for certain (`DOUBTFUL`) means pieces were left on the board, or it shows
    another board - learned as empty, they would teach the empty class a piece's look (a
    trial: such photos were taken, and the board then read pieces where it had none, or none
    at all). Judged are the cells the first photo shows empty, and those it shows a piece on
    where that piece still looks as it did (`_changed`; a trial's "empty" photo was the
    start position again). A cell whose look has changed under its piece is not judged: its
    own empty look (a logo under a rook) is what the photo is for. Measured (7 Dec 2026):
    no empty photo refused on 72 realistic synthetic tables in the same light or 30 % darker,
    the start position photographed again refused on all 72; every piece found on three of
    chesscog's photos where the first photo shows the board empty.

    :raises EmptyPhotoNotEmpty: naming those cells."""
    cells = layout.cell_names()
    x, names, confidence, seen, _ = read_views(
        cell_views(photo.image, photo.homography, layout), layout, first
    )
    changed = set(_changed(x, cells, names, seen, first))
    pieces = tuple(
        cell
        for cell, was, now, sure in zip(cells, first_truth, names, confidence, strict=True)
        if now not in (EMPTY, UNKNOWN)
        and sure >= DOUBTFUL
        and (was == EMPTY or (now == was and cell not in changed))
    )
    if pieces:
        raise EmptyPhotoNotEmpty(messages.empty_photo_not_empty(pieces), pieces)


def colours_swapped(calibration: StandingCalibration) -> bool:
    """Whether the pieces the position calls white look darker than those it calls black on
    every kind of cell showing both (the column's colour against the cell's empty colour): a
    chess start position turned round - a checkered board found from the other side - looks
    just like itself with its colours swapped, and would be learned that way. The callers
    refuse such a calibration on a grid they found (`messages.colours_swapped`), not on
    corners the players gave: a set whose white side is darker (gold and silver metal) is
    theirs to name.

    On the real photos, on their labelled corners, white comes out lighter than black by 4.3
    to 8.5 (summed log colour) on every kind of square."""
    means = {
        group: np.array(mean)
        for group, mean in zip(calibration.groups, calibration.means, strict=True)
    }
    kinds = {k for _, k in calibration.groups}
    lighter = [
        float(means[("white", k)][:3].sum() - means[("black", k)][:3].sum())
        for k in kinds
        if ("white", k) in means and ("black", k) in means
    ]
    return bool(lighter) and max(lighter) < 0


@dataclass(frozen=True)
class LearnedPhoto:
    """What calibration took from one photo: the features of its cells, then of its augmented
    copies' cells, with each cell's class and whether it teaches it (in view, labelled)."""

    x: np.ndarray  # (1 + AUGMENTED_COPIES, cells, FEATURE_COUNT)
    truth: np.ndarray  # (cells,) class
    seen: np.ndarray  # (1 + AUGMENTED_COPIES, cells) bool
    # (1 + AUGMENTED_COPIES, cells) bool: the empty cells with a flat print drawn on them in
    # each copy (`vision.copies.flat_prints`; never in the photo itself); None: none
    printed: np.ndarray | None = None

    def truths(self, copy: int) -> np.ndarray:
        """(cells,) each cell's class in picture `copy` (0: the photo): PRINTED where a flat
        print was drawn on the empty cell."""
        if self.printed is None or not self.printed[copy].any():
            return self.truth
        return np.where(self.printed[copy], PRINTED, self.truth)

    def to_json(self) -> dict[str, Any]:
        """The features as base64 little-endian float32 (a chess set's photo: about 50 kB)."""
        printed = () if self.printed is None else self.printed.ravel()
        return {
            "copies": int(self.x.shape[0]),
            "x": base64.b64encode(self.x.astype("<f4").tobytes()).decode("ascii"),
            "truth": [str(t) for t in self.truth],
            "seen": "".join("1" if v else "0" for v in self.seen.ravel()),
            "printed": "".join("1" if v else "0" for v in printed),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], cells: int) -> LearnedPhoto:
        """:raises KeyError, TypeError, ValueError: a damaged file (the caller says so)."""
        copies, truth, seen = int(data["copies"]), data["truth"], str(data["seen"])
        if not isinstance(truth, list):
            raise ValueError("learned")
        raw = base64.b64decode(str(data["x"]), validate=True)
        if (
            copies < 1
            or len(truth) != cells
            or len(seen) != copies * cells
            or set(seen) - {"0", "1"}
            or len(raw) != 4 * copies * cells * FEATURE_COUNT
        ):
            raise ValueError("learned")
        x = np.frombuffer(raw, "<f4").astype(np.float64).reshape(copies, cells, FEATURE_COUNT)
        if not np.all(np.isfinite(x)):
            raise ValueError("learned")
        flags = np.array([c == "1" for c in seen]).reshape(copies, cells)
        printed = str(data.get("printed", ""))  # a file of version 7: none
        if printed and (len(printed) != copies * cells or set(printed) - {"0", "1"}):
            raise ValueError("learned")
        prints = np.array([c == "1" for c in printed]).reshape(copies, cells) if printed else None
        return cls(x, np.array([str(t) for t in truth]), flags, prints)


def learn_photo(
    photo: Photo,
    views: CellViews | None,
    layout: Layout,
    kinds: np.ndarray,
    surface: np.ndarray,
    draws: tuple[np.random.Generator, ...],
    rim_look: np.ndarray | None = None,
) -> LearnedPhoto:
    """The features of `photo` (its `views`, when already sampled) and of AUGMENTED_COPIES
    copies of it under other exposures, white balances, corners, elevations and shadows, with
    flat prints on some empty cells (`flat_prints`)."""
    names = layout.cell_names()
    truth = np.array([photo.position.get(n, EMPTY) for n in names])
    labelled = ~np.isin(names, photo.unlabelled)
    rng, heights, shadows, highlights, marks = draws
    stones = layout.piece_height <= STONE_HEIGHT
    xs, seens, prints = [], [], []
    in_view = np.ones(len(names), bool)
    for copy in range(1 + AUGMENTED_COPIES):
        printed = np.zeros(len(names), bool)
        if copy == 0:
            image_views = views or cell_views(photo.image, photo.homography, layout)
            in_view = ~image_views.unseen
        else:
            empty = (truth == EMPTY) & labelled & in_view
            image, printed = flat_prints(
                photo.image, photo.homography, layout, kinds, surface, empty, marks
            )
            image, homography = augmented(image, photo.homography, layout, rng)
            image = shadowed(image, homography, layout, shadows)
            if stones:
                image = highlighted(image, homography, layout, truth != EMPTY, highlights)
            image_views = cell_views(image, homography, layout, heights.uniform(*COLUMN_SCALES))
        x, seen, _, _ = features_of(
            image_views, layout, kinds, surface, (truth == EMPTY) & labelled, rim_look=rim_look
        )
        xs.append(x)
        seens.append(seen & labelled)
        prints.append(printed)
    return LearnedPhoto(np.array(xs), truth, np.array(seens), np.array(prints))


def model_from_photos(
    learned: tuple[LearnedPhoto, ...],
    layout: Layout,
    kinds: np.ndarray,
    surface: np.ndarray,
    given: int,
    stream: int,
    rim_look: np.ndarray | None = None,
) -> StandingCalibration:
    """The model fitted to the photos `learned` (the first is the one checked: its margin,
    doubtful cells, wrongly labelled cells), of which the last `given` are the players', their
    copies drawn from the random `stream`.

    :raises PositionMismatch: the first photo does not show its position."""
    names = layout.cell_names()
    samples = [photo.x[0] for photo in learned]
    truths = [photo.truth for photo in learned]
    seens = [photo.seen[0] for photo in learned]
    x_all, t_all, seen_all, k_all = _pictures(learned, kinds)
    present = [EMPTY, *sorted(set(t_all[seen_all].tolist()) - {EMPTY, PRINTED})]
    prints = int((seen_all & (t_all == PRINTED)).sum())
    fitted = present + ([PRINTED] if prints >= MIN_PRINTED else [])
    apart = frozenset({PRINTED})
    fit = fit_discriminant(x_all, t_all, k_all, seen_all, fitted, kinds, len(learned), apart)
    groups, means = fit.groups, fit.means
    wrong_cells = _wrongly_labelled(
        x_all,
        t_all,
        k_all,
        seen_all,
        fitted,
        kinds,
        own_distances(x_all, t_all, k_all, groups, means, fit.class_precision),
        names,
        len(learned),
    )
    if wrong_cells:
        raise PositionMismatch(
            messages.position_mismatch(wrong_cells), tuple(n for n, _, _ in wrong_cells)
        )
    own_distance = own_distances(x_all, t_all, k_all, groups, means, fit.precision)[
        seen_all & (t_all != PRINTED)
    ]
    printed = tuple(g for g, (c, _) in enumerate(groups) if c == PRINTED)
    groups = [(EMPTY if c == PRINTED else c, k) for c, k in groups]
    own_look, looks_of_others = _photos_own_looks(names, learned, kinds)
    never_empty = _never_empty(names, truths, seens)
    novelty = max(NOVELTY_FLOOR, NOVELTY_FACTOR * float(own_distance.max()))
    calibration = StandingCalibration(
        layout=layout.name,
        classes=tuple(present),
        samples={
            c: int(sum(((t == c) & s).sum() for t, s in zip(truths, seens, strict=True)))
            for c in present
        },
        cell_kinds=kinds.tolist(),
        surface=surface.tolist(),
        groups=groups,
        means=[m.tolist() for m in means],
        precision=fit.precision.tolist(),
        class_precision=fit.class_precision.tolist(),
        printed=printed,
        print_precision=[] if fit.apart_precision is None else fit.apart_precision.tolist(),
        own_look=looks_of_others,
        novelty=novelty,
        margin=0.0,
        unlearned=never_empty,
        **_piece_looks(names, learned, never_empty),
        piece_gradient=_piece_gradients(x_all, t_all, k_all, seen_all, layout),
        rim_look=[]
        if rim_look is None
        else [None if not np.all(np.isfinite(r)) else r.tolist() for r in rim_look],
        learned=learned[len(learned) - given :],
        stream=stream,
    )
    classes_of_layout = () if layout.game == "grid" else tuple(layout.classes)
    checked = _checked(
        calibration, samples[0], truths[0], seens[0], kinds, names, classes_of_layout
    )
    return replace(checked, own_look=own_look)


def _pictures(
    learned: tuple[LearnedPhoto, ...], kinds: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every picture's cells stacked - features, classes, seen, kinds: the photos first, then
    their copies, photo by photo (`fit_discriminant` and `_wrongly_labelled` take every block of
    `len(kinds)` rows as one picture, the first `len(learned)` as the photos)."""
    blocks = [(photo.x[0], photo.truth, photo.seen[0]) for photo in learned] + [
        (photo.x[c], photo.truths(c), photo.seen[c])
        for photo in learned
        for c in range(1, len(photo.x))
    ]
    return (
        np.vstack([x for x, _, _ in blocks]),
        np.concatenate([t for _, t, _ in blocks]),
        np.concatenate([s for _, _, s in blocks]),
        np.tile(kinds, len(blocks)),
    )


def _piece_gradients(
    x: np.ndarray, truth: np.ndarray, kinds: np.ndarray, seen: np.ndarray, layout: Layout
) -> dict[str, list[list[float]]]:
    """How each piece class's look changes across the board (`piece_gradient`): its features
    regressed on where its cells lie, within each kind of cell (`x` holds pictures of
    `len(layout.cells)` rows each). A glossy stone mirrors the lamp on one side of the board
    and a tall piece shows its lit or its shaded side, so a class looks brighter or darker
    relative to the board from one side to the other (a dark wooden stone near the lamp's
    reflection looked as bright as the board and was read as a light one).
    Only for a class the calibration shows all over the board: on GRADIENT_CELLS cells or more,
    spread in both directions with at least GRADIENT_SPREAD times the variance of the board's
    cells' places. A chess start stands each colour on two ranks - a slope learned there would
    be a pawn's look against a rook's, carried to the far side of the board."""
    cells = len(layout.cells)
    where = np.tile(light_terms(layout)[:, 1:3], (len(x) // cells, 1))
    even = light_terms(layout)[:, 1:3].var(axis=0)
    gradients: dict[str, list[list[float]]] = {}
    for cls in sorted(set(truth[seen].tolist()) - {EMPTY, PRINTED}):
        features, places = [], []
        for kind in np.unique(kinds):
            rows = seen & (truth == cls) & (kinds == kind)
            if rows.sum() >= 2:
                features.append(x[rows] - x[rows].mean(axis=0))
                places.append(where[rows] - where[rows].mean(axis=0))
        shown = np.unique(np.flatnonzero(seen & (truth == cls)) % cells)
        if len(shown) < GRADIENT_CELLS or not places:
            continue
        places_all = np.vstack(places)
        if np.any(places_all.var(axis=0) < GRADIENT_SPREAD * even):
            continue
        slope, *_ = np.linalg.lstsq(places_all, np.vstack(features), rcond=None)
        gradients[cls] = slope.tolist()
    return gradients


def _wrongly_labelled(
    x: np.ndarray,
    truth: np.ndarray,
    kinds: np.ndarray,
    seen: np.ndarray,
    present: list[str],
    cell_kinds_: np.ndarray,
    own_distance: np.ndarray,
    names: list[str],
    photos: int,
) -> list[tuple[str, str, str]]:
    """Cells of the first calibration photo whose label the picture contradicts: (cell, the
    class it looks like, the position's class). A wrongly labelled cell teaches its class to
    look like it, so each cell far from its own class (beyond OUTLIER_FACTOR x the typical) is
    judged by a fit without it and its augmented copies: wrong when it is then nearer another
    class *and* as near to that class as that class's own cells are (a stone the players left
    on a cell the position has empty). A real piece that is merely odd (lit apart, half
    hidden) is near no class, and stays a doubtful cell. Distances as the class is picked
    (`class_precision`); `own_distance` each row's to its own class; `photos` as
    `fit_discriminant`'s."""
    n = len(names)
    typical = float(np.median(own_distance[seen]))
    suspects = [
        i for i in range(n) if seen[i] and own_distance[i] > max(OUTLIER_FACTOR * typical, 1.0)
    ]
    wrong: dict[int, str] = {}  # cell index -> the class it looks like
    for _ in range(LABEL_ROUNDS):  # the cells found wrong leave the fit for the next round
        found = False
        for i in suspects:
            if i in wrong:
                continue
            without = seen.copy()
            for j in (i, *wrong):
                without[j::n] = False
            fit = fit_discriminant(
                x, truth, kinds, without, present, cell_kinds_, photos, frozenset({PRINTED})
            )
            precision = fit.class_precision
            # the flat prints are read as empty
            groups = [(EMPTY if c == PRINTED else c, k) for c, k in fit.groups]
            others = [(g, m) for g, m in zip(groups, fit.means, strict=True) if g[1] == kinds[i]]
            if not others:
                continue
            distances: dict[tuple[str, int], float] = {}
            for g, m in others:  # the nearer of a kind's two empty groups
                d = float((x[i] - m) @ precision @ (x[i] - m))
                distances[g] = min(d, distances.get(g, np.inf))
            (cls, _), nearest = min(distances.items(), key=lambda item: item[1])
            own = min((d for (c, _), d in distances.items() if c == truth[i]), default=np.inf)
            class_spread = own_distances(x, truth, kinds, fit.groups, fit.means, precision)
            usual = np.quantile(class_spread[without & (truth == cls)], 0.99)
            if (
                cls != truth[i]
                and nearest * LABEL_CONTRAST < own
                and nearest <= LABEL_SLACK * usual
            ):
                wrong[i] = cls
                found = True
        if not found:
            break
    return [(names[i], cls, str(truth[i])) for i, cls in sorted(wrong.items())]


def _photos_own_looks(
    names: list[str], learned: tuple[LearnedPhoto, ...], kinds: np.ndarray
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each cell's own empty look from every photo that shows it empty (`_own_looks`), and
    from the photos but the first: the first photo is judged (`_checked`) by the looks the
    others teach, never by its own - a stone on a cell the position has empty would otherwise
    be that cell's "empty" look. A cell a nearer piece may lean over in a photo learns its
    look there too: leaving those out (as a board of the game teaches them nothing) read the
    real photos a little worse - chess-ray-vision from one photo 10.4 -> 10.0 boards over
    five streams, chesscog with two photos 89.0 -> 88.6, the rest and the realistic synthetic
    table the same - the model of what a piece may hide is cautious (from near straight
    above it marks f1 behind the pawn on f2), and what it marks may well be the cell."""
    samples = [photo.x[0] for photo in learned]
    truths = [photo.truth for photo in learned]
    seens = [photo.seen[0] for photo in learned]
    return (
        _own_looks(names, samples, truths, seens, kinds),
        _own_looks(names, samples[1:], truths[1:], seens[1:], kinds),
    )


def _own_looks(
    names: list[str],
    samples: list[np.ndarray],
    truths: list[np.ndarray],
    seens: list[np.ndarray],
    kinds: np.ndarray,
) -> dict[str, list[float]]:
    """Each cell's empty look: how its features differ from the mean of the empty cells of its
    kind *in the same photo* (so one photo's light does not shift every cell), averaged over
    the photos that show it empty."""
    offsets: dict[int, list[np.ndarray]] = {}
    for x, t, seen in zip(samples, truths, seens, strict=True):
        for kind in np.unique(kinds):
            rows = (t == EMPTY) & seen & (kinds == kind)
            if rows.sum() < MIN_KIND_CELLS:
                continue
            mean = x[rows].mean(axis=0)
            for i in np.flatnonzero(rows):
                offsets.setdefault(int(i), []).append(x[i] - mean)
    return {names[i]: np.mean(v, axis=0).tolist() for i, v in offsets.items()}


def _never_empty(
    names: list[str], truths: list[np.ndarray], seens: list[np.ndarray]
) -> tuple[str, ...]:
    """The cells no calibration photo showed empty (and in view): their look is unlearned."""
    shown = np.any([(t == EMPTY) & s for t, s in zip(truths, seens, strict=True)], axis=0)
    return tuple(n for n, empty in zip(names, shown, strict=True) if not empty)


def _piece_looks(
    names: list[str], learned: tuple[LearnedPhoto, ...], cells: tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """How each of `cells` looked at calibration, with the piece that stood there, and that
    piece's class (`piece_look`, `piece_class`): from the first photo that shows it (its mean
    features over the photo and its copies) - the board of the game when the model is fitted
    again, where another piece may stand than at calibration."""
    looks: dict[str, list[float]] = {}
    classes: dict[str, str] = {}
    for name in cells:
        i = names.index(name)
        photo = next((p for p in learned if p.seen[:, i].any()), None)
        if photo is not None:
            looks[name] = photo.x[photo.seen[:, i], i].mean(axis=0).tolist()
            classes[name] = str(photo.truth[i])
    return {"piece_look": looks, "piece_class": classes}


def _changed(
    x: np.ndarray,
    names: list[str],
    read: list[str],
    seen: np.ndarray,
    calibration: StandingCalibration,
) -> tuple[str, ...]:
    """The unlearned cells that may be empty now: read as the piece that stood there at
    calibration (or on the last board the referee took), or unknown, but no longer looking as
    they did then (a piece of another class is a piece) - farther from that look than a cell
    is from its class's mean on average (in squared standard deviations of the spread between
    pictures, `precision`: the number of features the board measures, `measured_features`). A
    piece that stayed where
    it stood looks as it did; one that left shows what is under it - a print the camera never
    saw empty. On chesscog's photos, taken over several games with the phone moved between
    them, the rook on h1 came out 1-27
    from its look in the calibration photo (median 6), the US Chess logo under it 27-96
    (median 37); on a fixed camera a piece that did not move differs by the noise alone."""
    precision = np.array(calibration.precision)
    on_average = float(measured_features(not get_layout(calibration.layout).figures))
    changed = []
    for name in calibration.unlearned:
        if name not in names:
            continue
        i = names.index(name)
        look = calibration.piece_look.get(name)
        was = calibration.piece_class.get(name)
        if look is None or was is None or not seen[i] or read[i] not in (was, UNKNOWN):
            continue
        if _left(x[i], look, precision, on_average):
            changed.append(name)
    return tuple(changed)


def _checked(
    calibration: StandingCalibration,
    x: np.ndarray,
    truth: np.ndarray,
    seen: np.ndarray,
    kinds: np.ndarray,
    names: list[str],
    layout_classes: tuple[str, ...] = (),
) -> StandingCalibration:
    """The calibration read back on its own photo: its margin, its doubtful cells (read right
    by less than DOUBTFUL_GAP standard deviations), notes, and an error naming the cells when
    the photo does not show the position (a piece where the position has none, another
    colour, ...): a model learned from a wrong position would misread every game after.

    :raises PositionMismatch: a cell clearly read as another class, or too many doubtful cells.
    """
    read, _, _ = classify_cells(x, kinds, calibration, names)
    own, gap, nearest = _own_and_gap(calibration, x, truth, kinds, names)
    margin = float(np.min(gap[seen])) if seen.any() else 0.0
    # Read as another class by more than DOUBTFUL_GAP: the photo does not show the position.
    # Closer than that either way, the cell is doubtful (a borderline piece of a real set).
    misread = [
        n
        for n, r, t, s, g in zip(names, read, truth, seen, gap, strict=True)
        if s and r not in (t, UNKNOWN) and g < -DOUBTFUL_GAP
    ]
    if misread:
        looks = [(n, read[names.index(n)], truth[names.index(n)]) for n in misread]
        raise PositionMismatch(messages.position_mismatch(looks), tuple(misread))
    wrong = [n for n, r, t, s in zip(names, read, truth, seen, strict=True) if s and r != t]
    doubtful = [
        n
        for n, g, s in zip(names, gap, seen, strict=True)
        if s and g < DOUBTFUL_GAP and n not in wrong
    ]
    _refuse_when_unsure(len(wrong) + len(doubtful), own, seen, names)
    notes = _notes(calibration, wrong + doubtful, seen, names, layout_classes)
    notes += _few_cells_notes(calibration, wrong + doubtful, nearest, truth, names)
    return replace(calibration, margin=margin, doubtful=tuple(wrong + doubtful), notes=tuple(notes))


def _own_and_gap(
    calibration: StandingCalibration,
    x: np.ndarray,
    truth: np.ndarray,
    kinds: np.ndarray,
    names: list[str],
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Each calibration cell's squared distance to its own class (on its kind of cell), how
    much nearer it is to that class than to the nearest other (standard deviations), as the
    class is picked (`class_precision`), and which class that nearest other is. The classes the
    photo shows: not the flat prints (`printed`), which no cell of it holds - a white piece on
    a light square lies nearer them than to an empty square, and the margin would say how far
    the prints lie from the pieces, not how well the photo's own classes part."""
    distance = _distances(x, calibration, names, calibration.picks())
    distance[:, list(calibration.printed)] = np.inf
    own_group = np.array(
        [
            [c == t and k == kind for c, k in calibration.groups]
            for t, kind in zip(truth, kinds, strict=True)
        ]
    )
    allowed = _allowed(kinds, calibration)
    own = np.where(own_group, distance, np.inf).min(axis=1)
    others = np.where(allowed & ~own_group, distance, np.inf)
    other = others.min(axis=1)
    nearest = [calibration.groups[g][0] for g in others.argmin(axis=1)]
    return own, np.sqrt(other) - np.sqrt(own), nearest


def _few_cells_notes(
    calibration: StandingCalibration,
    unclear: list[str],
    nearest: list[str],
    truth: np.ndarray,
    names: list[str],
) -> list[str]:
    """A class learned from FEW_CELLS cells or fewer that the unclear cells of another class
    lie near: the position may name those cells wrongly (a white pawn typed as "gold"), or
    the class may be one piece that looks like the others (a Sensei character seen from
    above) - either way the players should look."""
    notes = []
    for cls in calibration.classes:
        if cls == EMPTY or calibration.samples.get(cls, 0) > FEW_CELLS:
            continue
        near = [n for n in unclear if nearest[names.index(n)] == cls]
        if near:
            own = [n for n, t in zip(names, truth, strict=True) if t == cls]
            others = sorted({str(truth[names.index(n)]) for n in near})
            notes.append(messages.few_cells_note(cls, own, others, near))
    return notes


def _refuse_when_unsure(unclear: int, own: np.ndarray, seen: np.ndarray, names: list[str]) -> None:
    """A model unsure of its own photo learned a position the photo does not show (a position
    file for another board, stones it does not name): refused, naming the cells that stand out
    most - those farthest from the class the position gives them.

    :raises PositionMismatch: more than DOUBTFUL_SHARE of the cells (and DOUBTFUL_FEW) unclear.
    """
    if unclear <= max(DOUBTFUL_FEW, DOUBTFUL_SHARE * int(seen.sum())):
        return
    typical = float(np.median(own[seen]))
    order = sorted(np.flatnonzero(seen), key=lambda i: -own[i])
    worst = [names[i] for i in order if own[i] > OUTLIER_FACTOR * typical] or [
        names[i] for i in order[:DOUBTFUL_FEW]
    ]
    raise PositionMismatch(
        messages.position_unclear(unclear, int(seen.sum()), worst[:8]), tuple(worst)
    )


def _notes(
    calibration: StandingCalibration,
    unclear: list[str],
    seen: np.ndarray,
    names: list[str],
    layout_classes: tuple[str, ...],
) -> list[str]:
    """What the players should know about a calibration that was accepted."""
    notes = []
    if unclear:
        notes.append(messages.doubtful_note(unclear))
    if layout_classes:
        missing = [c for c in layout_classes if c not in calibration.classes]
        if missing:
            notes.append(messages.missing_classes_note(missing))
    unseen = [n for n, s in zip(names, seen, strict=True) if not s]
    if unseen:
        notes.append(messages.unseen_note(unseen))
    return notes


def read_standing(
    image: np.ndarray,
    homography: np.ndarray,
    layout: Layout,
    calibration: StandingCalibration,
    *,
    frame: int = 0,
    timestamp: float = 0.0,
    markers_seen: int = 0,
) -> Observation:
    """Every cell of `layout` in `image`: a class of the calibration, or "unknown" (not sure,
    or outside the picture)."""
    calibration.check_layout(layout)
    cells = layout.cell_names()
    x, names, confidence, seen, expected = read_views(
        cell_views(image, homography, layout), layout, calibration
    )
    size = (image.shape[1], image.shape[0])
    hidden = hidden_cells(homography, size, layout, _occupied(cells, names))
    names, confidence, leaned = _read_leans(x, calibration, layout, names, confidence, hidden)
    names, confidence, above = _read_above_front(
        image, homography, layout, calibration, expected, names, confidence, hidden
    )
    leaned = {**leaned, **above}
    return reading_observation(
        layout,
        names,
        confidence,
        homography,
        size,
        frame=frame,
        timestamp=timestamp,
        markers_seen=markers_seen,
        unlearned=_changed(x, cells, names, seen, calibration),
        leaned=leaned,
    )


def reading_observation(
    layout: Layout,
    names: list[str],
    confidence: np.ndarray,
    homography: np.ndarray,
    image_size: tuple[int, int],
    *,
    frame: int,
    timestamp: float,
    markers_seen: int,
    unlearned: tuple[str, ...] = (),
    leaned: dict[str, str] | None = None,
    hidden: dict[str, str] | None = None,
) -> Observation:
    """The Observation of `layout`'s cells read as `names` with `confidence` (in the layout's
    order), in a picture of `image_size` seen through `homography`; the cells a nearer piece
    may hide worked out from the cells read occupied unless `hidden` is given."""
    cells = layout.cell_names()
    observation = Observation(
        cells=dict(zip(cells, names, strict=True)),
        confidence={c: float(v) for c, v in zip(cells, confidence, strict=True)},
        frame=frame,
        timestamp=timestamp,
        markers_seen=markers_seen,
        layout=layout.name,
        unlearned=unlearned,
        leaned=dict(leaned or {}),
    )
    if hidden is None:
        hidden = hidden_cells(homography, image_size, layout, observation.occupied())
    return replace(observation, hidden=hidden)


def read_views(
    views: CellViews, layout: Layout, calibration: StandingCalibration
) -> tuple[np.ndarray, list[str], np.ndarray, np.ndarray, np.ndarray]:
    """The features, classes (unknown outside the picture), confidences, which cells are
    seen and their expected empty colours (`features_of`), read from `views` by the
    discriminant alone."""
    kinds = calibration.kinds(layout)
    surface = np.array(calibration.surface)
    cells = layout.cell_names()
    rim = calibration.rim()
    # The light is fitted to the grounds of every cell, robustly: a piece spoils its cell's
    # ground, and a robust fit leaves out a minority of spoiled grounds - not a majority. So
    # it starts from the rim round the board, where no piece stands (the grounds it explains
    # join); without a rim, from every ground. On a crowded board (more than CROWDED of the
    # cells read occupied) the light is fitted again to the cells read empty (and the rim),
    # until the reading settles.
    empty = None if rim is None else np.zeros(len(cells), bool)
    for _ in range(LIGHT_ROUNDS):
        x, seen, shade, expected = features_of(
            views, layout, kinds, surface, start=empty, rim_look=rim
        )
        names, confidence, _ = _classify(x, kinds, calibration, cells, shade)
        now_empty = np.array([n == EMPTY for n in names]) & seen
        crowded = now_empty.sum() < (1 - CROWDED) * seen.sum()
        if not crowded or now_empty.sum() < MIN_LIGHT_CELLS:
            break
        if empty is not None and np.array_equal(now_empty, empty):
            break
        empty = now_empty
    # the light settled on the first reading; each class read again from its look in this
    # picture once, not in every round (`classify_cells`)
    names, confidence, _ = _read_in_picture(
        x, kinds, calibration, cells, shade, seen, names, confidence
    )
    names = [n if s else UNKNOWN for n, s in zip(names, seen, strict=True)]
    return x, names, np.where(seen, confidence, 0.0), seen, expected


def _occupied(cells: list[str], names: list[str]) -> set[str]:
    return {c for c, n in zip(cells, names, strict=True) if n not in (EMPTY, UNKNOWN)}


def _read_leans(
    x: np.ndarray,
    calibration: StandingCalibration,
    layout: Layout,
    names: list[str],
    confidence: np.ndarray,
    hidden: dict[str, str],
) -> tuple[list[str], np.ndarray, dict[str, str]]:
    """`names` and `confidence` with the cells a nearer piece may hide (`hidden`) that read
    as a piece but look like a lean the cell showed, empty, on a board the referee took
    (`lean_looks`, of the class read) read empty: nearer that look than the class's mean by
    LEAN_CONTRAST (squared distances) - and those cells -> the class they read before. A
    piece that steps behind the leaning piece mostly shows its own body where the lean showed
    the board; one hidden there almost wholly (a pawn behind a queen) looks like the lean, and
    the referee takes the cell as first read when that makes the board a legal move."""
    if not calibration.lean_looks or not hidden:
        return names, confidence, {}
    cells = layout.cell_names()
    kinds = calibration.kinds(layout)
    precision = np.array(calibration.precision)
    allowed = _allowed(kinds, calibration)
    names, confidence, leaned = list(names), confidence.copy(), {}
    for cell in hidden:
        i = cells.index(cell)
        looks = [look for k, look in calibration.lean_looks.get(cell, ()) if k == names[i]]
        if not looks:
            continue
        of_class = allowed[i] & np.array([c == names[i] for c, _ in calibration.groups])
        lean = _nearest(x[i], np.array(looks), precision)
        piece = _nearest(x[i], np.array(calibration.means)[of_class], precision)
        if LEAN_CONTRAST * lean < piece:
            leaned[cell] = names[i]
            names[i] = EMPTY
            confidence[i] = 1.0 / (1.0 + np.exp(-0.5 * (piece - lean)))  # (the two's posterior)
    return names, confidence, leaned


def _nearest(x: np.ndarray, to: np.ndarray, precision: np.ndarray) -> float:
    """The squared Mahalanobis distance from `x` to the nearest row of `to`."""
    diff = x[None, :] - to
    return float(np.einsum("nd,de,ne->n", diff, precision, diff).min())


OF_CLASS_SHARE = 0.02  # of a band's samples may look like the class: noise, not a piece


def _read_above_front(
    image: np.ndarray,
    homography: np.ndarray,
    layout: Layout,
    calibration: StandingCalibration,
    expected: np.ndarray,
    names: list[str],
    confidence: np.ndarray,
    hidden: dict[str, str],
) -> tuple[list[str], np.ndarray, dict[str, str]]:
    """`names` and `confidence` with the cells a nearer piece may hide (`hidden`) that read as
    that piece's class read empty when nothing of the class's colour shows where a piece
    standing on the cell would rise above the piece in front
    (`vision.occlusion.band_above_front`; the confidence: the share of the band that does not
    show it) - and those cells -> the class they read before. `expected`: (n, 3) each cell's
    expected empty colour (log BGR, `features_of`)."""
    cells = layout.cell_names()
    index = {c: i for i, c in enumerate(cells)}
    pairs = [
        (b, f)
        for b, f in hidden.items()
        if names[index[b]] not in (EMPTY, UNKNOWN) and names[index[b]] == names[index[f]]
    ]
    if not pairs:
        return names, confidence, {}
    pose = CameraPose.from_homography(homography, (image.shape[1], image.shape[0]))
    kinds = calibration.kinds(layout)
    allowed = _allowed(kinds, calibration)
    names, confidence, above = list(names), confidence.copy(), {}
    for behind, front in pairs:
        i = index[behind]
        band = band_above_front(pose, layout, behind, front)
        if band is None:
            continue
        of_class = allowed[i] & np.array([c == names[i] for c, _ in calibration.groups])
        share = _share_of_class(image, pose, band, calibration, expected[i], kinds[i], of_class)
        if share is not None and share <= OF_CLASS_SHARE:
            above[behind] = names[i]
            names[i] = EMPTY
            confidence[i] = 1.0 - share
    return names, confidence, above


def _share_of_class(
    image: np.ndarray,
    pose: CameraPose,
    band: tuple[np.ndarray, np.ndarray],
    calibration: StandingCalibration,
    expected: np.ndarray,
    kind: int,
    of_class: np.ndarray,
) -> float | None:
    """The share of the `band`'s samples the picture shows above the piece in front that have
    the colour of the class whose groups are `of_class`, at a cell of `kind` whose expected
    empty colour is `expected` (log BGR): nearer, in log brightness, the class's colour there
    (`expected` plus the class's mean lower column) than the nearest kind of cell's under the
    same light. None for a class as dark or as bright as some kind of cell (the board beyond
    may show its colour), and for a band the picture does not show whole (a board reaching
    past the frame)."""
    piece = float((expected + np.array(calibration.means)[of_class][:, :3]).mean())
    surface = np.array(calibration.surface)
    boards = (expected - surface[kind] + surface).mean(axis=1)
    if piece < boards.min():
        side, edge = -1.0, float(boards.min())
    elif piece > boards.max():
        side, edge = 1.0, float(boards.max())
    else:
        return None
    points, shows = band
    px = pose.project(points[shows])
    height, width = image.shape[:2]
    if not np.all((px >= 0) & (px <= [width - 1, height - 1])):
        return None
    levels = _brightness_at(image, px)
    return float(np.mean(side * (levels - 0.5 * (piece + edge)) > 0.0))


def _brightness_at(image: np.ndarray, px: np.ndarray) -> np.ndarray:
    """(m,): the log brightness of `image` at the points `px` (m, 2) inside it, smoothed over
    3 x 3 as the cells' views are."""
    height, width = image.shape[:2]
    low = np.clip(np.floor(px.min(axis=0)) - 3, 0, [width - 1, height - 1]).astype(int)
    high = np.clip(np.ceil(px.max(axis=0)) + 4, 1, [width, height]).astype(int)
    crop = cv2.GaussianBlur(image[low[1] : high[1], low[0] : high[0]], (3, 3), 0)
    at = (px - low).astype(np.float32).reshape(1, -1, 2)
    values = cv2.remap(
        crop, at[..., 0], at[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return np.log1p(values.reshape(-1, 3).astype(np.float32)).mean(axis=1)
