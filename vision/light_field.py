"""The light over a board: every cell's expected empty colour in today's light.

A smooth light field - quadratic in log brightness per channel - is fitted robustly to what
shows the board itself: the *ground* just in front of each cell (towards the camera, where
the cell's own piece cannot lean) and, on a printed mat, the *rim* round the board, where no
piece stands (`rim_points`). Cells a piece covers disagree with the field and are dropped.
`vision.standing` reads every cell against the colour this gives it (docs/vision.md,
calibration 2.).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from vision.layouts import Layout, get_layout

RIM_DISTANCE = 0.25  # cell widths outside the board's edge: the rim that anchors the light
LIGHT_TERMS = (1, 3, 6)  # the light field's terms, coarse to fine: level, gradient, quadratic
LIGHT_ITERATIONS = 8  # re-weightings of the light's robust fit at most
INLIER_CUT = 2.5  # robust deviations: a ground farther than this from the field is spoiled
SPREAD_FLOOR = 0.03  # log: the grounds' scatter is never taken as less (sensor, JPEG)


def robust_spread(residual: np.ndarray) -> float:
    """The scatter of `residual` (absolute deviations from a fit) as one standard deviation
    of a normal scatter (1.4826 x their median), at least SPREAD_FLOOR.

    >>> robust_spread(np.array([0.1, 0.2, 0.3])), robust_spread(np.zeros(3))
    (0.29652, 0.03)
    """
    return max(1.4826 * float(np.median(residual)), SPREAD_FLOOR)


def rim_points(layout: Layout) -> np.ndarray:
    """(m, 2) board points (mm) on a ring RIM_DISTANCE of a cell outside the cells' outer
    edge, one beside each cell width of every side: the margin of a printed mat. No piece
    stands there, so on a crowded board - where nearly every cell's ground shows a
    neighbour's piece - it still shows the light. None (0 points) round a board of your own:
    whatever lies round it - a printed coordinate, a curled vinyl edge, the table - did not
    help there (docs/vision.md, calibration 2.)."""
    return rim_geometry(layout.name)[0]


@lru_cache(maxsize=32)
def rim_geometry(layout_name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rim's points (`rim_points`), their light terms (`light_terms`) and each one's nearest
    cell: worked out once a layout, not on every frame."""
    layout = get_layout(layout_name)
    if not layout.has_markers:
        return np.zeros((0, 2)), np.zeros((0, LIGHT_TERMS[-1])), np.zeros(0, np.int64)
    pitch = layout.pitch
    corners = np.array([p for c in layout.cells for p in c.polygon], np.float64)
    low, high = corners.min(axis=0), corners.max(axis=0)
    out = RIM_DISTANCE * pitch
    points = []
    for axis in (0, 1):
        count = max(int(round((high[axis] - low[axis]) / pitch)), 1)
        along = low[axis] + (np.arange(count) + 0.5) * (high[axis] - low[axis]) / count
        for edge in (low[1 - axis] - out, high[1 - axis] + out):
            for a in along:
                points.append((a, edge) if axis == 0 else (edge, a))
    rim = np.array(points)
    centres = np.array([c.center for c in layout.cells], np.float64)
    beside = np.linalg.norm(rim[:, None, :] - centres[None, :, :], axis=2).argmin(axis=1)
    return rim, light_terms(layout, rim), beside


def light_terms(layout: Layout, points: np.ndarray | None = None) -> np.ndarray:
    """The light field's terms (1, x, y, x², xy, y²) at each cell's centre, or at `points`
    (mm), x and y from -1 to 1 across the cells' centres."""
    centres = np.array([c.center for c in layout.cells], np.float64)
    span = max(float(np.ptp(centres, axis=0).max()) / 2.0, 1e-9)
    where = centres if points is None else points
    x, y = ((where - centres.mean(axis=0)) / span).T
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)


@dataclass(frozen=True)
class Rim:
    """The rim round the board as the light's fit takes it: what each point shows less its
    own look (`StandingCalibration.rim_look`), where it lies (`light_terms`), and which to use."""

    target: np.ndarray  # (m, 3)
    terms: np.ndarray  # (m, LIGHT_TERMS[-1])
    use: np.ndarray  # (m,) bool


def fit_light(
    ground: np.ndarray,
    kinds: np.ndarray,
    surface: np.ndarray,
    terms: np.ndarray,
    use: np.ndarray,
    start: np.ndarray | None = None,
    rim: Rim | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The expected empty colour of every cell (log BGR): its kind's colour under a smooth
    light field fitted robustly to the grounds of the cells in `use` (a piece or shadow spoils
    some), first to those in `start` (default: all of `use`) - any ground of `use` that the
    field explains then joins - and to the `rim` points in use, from the start; when those
    are fewer than three (a rim the picture hardly shows), from every ground of `use` and the
    rim. Also the light at each rim point (empty without a rim)."""
    target = ground - surface[kinds]
    weights = (use if start is None else use & start).astype(np.float64)
    if rim is not None:
        target = np.vstack([target, rim.target])
        terms = np.vstack([terms, rim.terms])
        use = np.concatenate([use, rim.use])
        weights = np.concatenate([weights, rim.use.astype(np.float64)])
    if start is not None and weights.sum() < 3:
        # too few to start from (a rim the picture hardly shows): every ground of `use`
        weights = use.astype(np.float64)
    fitted = np.zeros_like(target)
    # Coarse to fine: the level (a median), a gradient, then the quadratic, each fitted to the
    # grounds the coarser one explains - a quadratic fitted to every ground at once bends to
    # follow a cluster of dark stones, and then it explains them.
    step = 0
    for _ in range(LIGHT_ITERATIONS):
        if weights.sum() < 3:
            break
        most = 6 if weights.sum() >= 12 else 3 if weights.sum() >= 5 else 1
        columns = min(LIGHT_TERMS[step], most)
        if columns == 1:
            fitted = np.broadcast_to(np.median(target[weights > 0], axis=0), target.shape)
        else:
            root = np.sqrt(weights)[:, None]
            coeffs, *_ = np.linalg.lstsq(terms[:, :columns] * root, target * root, rcond=None)
            fitted = terms[:, :columns] @ coeffs
        residual = np.abs(target - fitted).max(axis=1)
        spread = robust_spread(residual[weights > 0])
        new = (use & (residual < INLIER_CUT * spread)).astype(np.float64)
        if columns == most and np.array_equal(new, weights):
            break
        weights = new
        step = min(step + 1, len(LIGHT_TERMS) - 1)
    cells = len(ground)
    return fitted[:cells] + surface[kinds], np.array(fitted[cells:])
