"""The linear discriminant that reads a cell: a mean per class and kind, two spreads.

`fit_discriminant` fits it to the features (`vision.cell_features`) of the players' photos
and their augmented copies (`vision.copies`): each class's mean on each kind of cell from
the photos themselves, and two covariances shared by all classes, shrunk towards their
diagonal - the spread within one picture, which picks a cell's class, and the spread over
all the pictures, which says whether a cell resembles a class at all. docs/vision.md,
calibration 4.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.cell_features import FEATURE_COUNT

SHRINK = 0.3  # covariance shrinkage towards its diagonal
FLOOR = 0.02  # the smallest spread of a feature (log colour): sensor noise and JPEG


@dataclass(frozen=True)
class Discriminant:
    """A mean per (class, kind of cell) and two inverse covariances (`fit_discriminant`)."""

    groups: list[tuple[str, int]]
    means: list[np.ndarray]
    precision: np.ndarray  # the spread between pictures too: does a cell resemble a class?
    class_precision: np.ndarray  # the spread within one picture: which class is it?
    # the classes fitted `apart`: their own spread over all their pictures (None: none)
    apart_precision: np.ndarray | None = None


def fit_discriminant(
    x: np.ndarray,
    truth: np.ndarray,
    kinds: np.ndarray,
    use: np.ndarray,
    present: list[str],
    cell_kinds_: np.ndarray,
    photos: int = 0,
    apart: frozenset[str] = frozenset(),
) -> Discriminant:
    """The discriminant: a mean per (class, kind of cell) and the inverses of two covariances
    shared by all (shrunk towards their diagonal, floored at sensor noise). `x` holds pictures
    of `len(cell_kinds_)` rows each: the first `photos` the players' photos themselves, then
    the copies.

    The means are the photos' own (`photos`; where none shows a class on a kind, and with
    `photos` 0, every picture's): the copies teach how a class's look spreads, not where it
    lies. A mean over the copies moved with their random draws - a shadow or a blur drawn on
    two of a calibration photo's five white pawns on light squares moved that class's mean -
    and which white pawns of chess-ray-vision read empty depended on the draw; the copies'
    draws also lean all one way (a blur only ever softens). Over 12 streams (`bench_real.py`)
    chess-ray-vision from one photo 11.8 -> 12.3 of 13 boards (17 -> 9 wrong cells), read as
    one game 12.4 -> 13.0 (8 -> 0 wrong cells); docs/vision.md, calibration 4.

    `precision` is the spread of every cell round its class's mean over all the pictures;
    `class_precision` the spread *within one picture*: each picture's cells measured from that
    picture's own mean of their class and kind. What moves a whole picture - its exposure,
    tone curve, white balance, sharpness: the copies' draws, another moment at the table -
    moves every cell of a class alike and says little about which class a cell is; pooled
    into the spread that picks the class it hid the small differences that tell a white pawn
    from its cream square (bench_real --streams 5: chesscog read as one game from 100.8 to
    102.0 of its 112 boards on average, with a second photo too from 97.3 to 99.6, and the
    calibration one stream refused is taken; docs/vision.md, calibration 4.). A class a
    picture shows on one cell only (a Sensei character) has no spread within a picture: how
    its copies spread round its mean, less the picture's own move (its other cells' mean
    shift), is added, as the only measure of how its look varies (its mark fills more of the
    column where the camera looks down more steeply).

    The classes `apart` (the flat prints of calibration's copies, `vision.copies.flat_prints`)
    have means of their own and a spread of their own (`apart_precision`, over all their
    pictures), and stay out of the shared spreads: a print's look varies as no piece's does,
    and widening the shared spreads by it took white pieces on dark squares for empty ones."""
    per_picture = len(cell_kinds_)
    groups, means, residuals, apart_residuals = [], [], [], []
    for cls in present:
        for kind in np.unique(cell_kinds_):
            rows = (truth == cls) & (kinds == kind) & use
            if rows.any():
                shown = rows.copy()
                shown[photos * per_picture :] = False  # the photos' own cells
                groups.append((cls, int(kind)))
                means.append(x[shown if shown.any() else rows].mean(axis=0))
                (apart_residuals if cls in apart else residuals).append(x[rows] - means[-1])
    residual = np.vstack(residuals)
    between = residual.T @ residual / max(len(residual) - len(residuals), 1)
    covariance = _within_pictures(x, truth, kinds, use, groups, means, per_picture, apart)
    apart_precision = None
    if apart_residuals:
        own = np.vstack(apart_residuals)
        apart_precision = shrunk_inverse(own.T @ own / max(len(own) - len(apart_residuals), 1))
    return Discriminant(
        groups, means, shrunk_inverse(between), shrunk_inverse(covariance), apart_precision
    )


def _within_pictures(
    x: np.ndarray,
    truth: np.ndarray,
    kinds: np.ndarray,
    use: np.ndarray,
    groups: list[tuple[str, int]],
    means: list[np.ndarray],
    per_picture: int,
    apart: frozenset[str],
) -> np.ndarray:
    """`fit_discriminant`'s spread within one picture: each picture's cells round that
    picture's own mean of their class and kind, and a class shown on one cell only round its
    mean less the picture's own move (the classes `apart` left out)."""
    within, picture_means = [], 0
    one_cell: dict[int, list[np.ndarray]] = {}  # group -> its cell's residual, picture by picture
    spread_within: set[int] = set()  # groups some picture shows on two cells or more
    for start in range(0, len(x), per_picture):
        picture = slice(start, start + per_picture)
        shifts, single = [], {}
        for g, (cls, kind) in enumerate(groups):
            if cls in apart:
                continue
            rows = (truth[picture] == cls) & (kinds[picture] == kind) & use[picture]
            if rows.sum() >= 2:
                cells = x[picture][rows]
                within.append(cells - cells.mean(axis=0))
                shifts.append(cells - means[g])
                picture_means += 1
                spread_within.add(g)
            elif rows.any():
                single[g] = x[picture][rows][0] - means[g]
        # what moved the whole picture (its cells' mean shift) is no spread of the class
        shift = np.vstack(shifts).mean(axis=0) if shifts else 0.0
        for g, offset in single.items():
            one_cell.setdefault(g, []).append(offset - shift)
    residual = np.vstack(within) if within else np.zeros((0, FEATURE_COUNT))
    covariance = residual.T @ residual / max(len(residual) - picture_means, 1)
    alone = [np.array(rows) for g, rows in one_cell.items() if g not in spread_within]
    for rows in alone:
        covariance = covariance + rows.T @ rows / max(len(rows) - 1, 1) / len(alone)
    return covariance


def shrunk_inverse(covariance: np.ndarray) -> np.ndarray:
    """The inverse of `covariance` shrunk SHRINK towards its diagonal, floored at FLOOR."""
    covariance = (1 - SHRINK) * covariance + SHRINK * np.diag(np.diag(covariance))
    return np.linalg.inv(covariance + FLOOR**2 * np.eye(FEATURE_COUNT))


def picture_spreads(
    precision: np.ndarray, class_precision: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The two covariances behind `fit_discriminant`'s two inverses: a cell's spread round
    its class's look *in its own picture* (`class_precision`'s), and how far a picture moves
    a class's look from its mean (`between`) - what the spread over all the pictures
    (`precision`'s) holds beyond the first. The two are shrunk apart, so their difference may
    dip below zero along a few directions: those are taken as no move.

    >>> within, between = picture_spreads(np.diag([1 / 5.0, 1 / 2.0]), np.diag([1.0, 1.0]))
    >>> np.diag(within).tolist(), np.diag(between).round(6).tolist()
    ([1.0, 1.0], [4.0, 1.0])
    """
    within = np.linalg.inv(class_precision)
    values, vectors = np.linalg.eigh(np.linalg.inv(precision) - within)
    between = (vectors * np.clip(values, 0.0, None)) @ vectors.T
    return within, between


def picture_move(deviations: np.ndarray, within: np.ndarray, between: np.ndarray) -> np.ndarray:
    """How far a class's look in one picture lies from its mean, from the `deviations` (n, d)
    of that picture's cells read as the class: their mean, shrunk towards no move as far as
    n cells cannot tell it from their spread within the picture - a picture moves a class's
    look by `between` as a prior, and its cells lie round the moved look by `within`
    (`picture_spreads`), so the move is between @ (between + within / n)^-1 @ their mean.
    Many cells show the move whole, one cell little of it.

    >>> one = np.eye(1)
    >>> picture_move(np.full((4, 1), 1.0), one, one).round(2).tolist()
    [0.8]
    >>> picture_move(np.full((1, 1), 1.0), one, one).round(2).tolist()
    [0.5]
    >>> picture_move(np.zeros((0, 1)), one, one).tolist()
    [0.0]
    """
    if not len(deviations):
        return np.zeros(deviations.shape[1])
    mean = deviations.mean(axis=0)
    return between @ np.linalg.solve(between + within / len(deviations), mean)


def own_distances(
    x: np.ndarray,
    truth: np.ndarray,
    kinds: np.ndarray,
    groups: list[tuple[str, int]],
    means: list[np.ndarray],
    precision: np.ndarray,
) -> np.ndarray:
    """Each sample's squared distance to its own class's mean on its kind of cell (inf where
    the fit has none: a class seen only on excluded cells)."""
    out = np.full(len(x), np.inf)
    for (cls, kind), mean in zip(groups, means, strict=True):
        rows = (truth == cls) & (kinds == kind)
        diff = x[rows] - mean
        out[rows] = np.einsum("nd,de,ne->n", diff, precision, diff)
    return out
