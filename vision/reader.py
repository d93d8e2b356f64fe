"""Reading the cells of a located board: every cell -> a class, or "unknown", never a guess.

How a frame is read (all vectorised, a few milliseconds at 1280x720):

1. **Top view.** The board is warped to a small canonical top view (about 14 pixels per cell
   radius), so every cell is a fixed set of pixels whatever the camera's angle.
2. **Zones.** Each cell gives three means: its *core* (the inner quarter of its circle - where
   a Sensei character stands on its stone), its *body* (a ring at half to 0.7 of its circle -
   the stone itself) and its *background* (the board visible outside the circle, in the cell's
   corners, without lines, names or marks).
3. **Light.** The backgrounds of all cells are fitted with a smooth light field per colour
   channel (a quadratic in log-brightness, refitted without the cells a piece or its shadow
   covers), so a lamp at one side, a window, a warm or a cool light are all known per cell.
4. **Classes.** The calibration holds, per class, the colour of core and body *relative to
   the board* (`Calibration.albedo`). The reader predicts what each class would look like
   under the light of each cell - clipped at 255, as the camera clips - and scores the
   observation against each prediction (Gaussian with noise that grows with brightness).

A cell is reported "unknown" when the best class is not clearly better than the second
(posterior below `MIN_POSTERIOR`) or fits badly in absolute terms (a hand, a cup, a piece the
calibration never saw); its confidence says how sure the reader was. A hand can look just
like a stone, so before classifying, the printed mat round the cells is checked for anything
over it (`vision.top_view.covered_cells`): cells it reaches read "unknown" too.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from companion.errors import UserError
from companion.observation import UNKNOWN, Observation
from vision import messages
from vision.layouts import Layout
from vision.locate import to_gray
from vision.mat import BOARD_TONE, render_mat
from vision.standing import StandingCalibration, read_standing, reading_observation
from vision.top_view import covered_cells

if TYPE_CHECKING:
    from vision.calibration import Calibration

CELL_RADIUS_PX = 14.0  # the top view's scale: the smallest cell radius in top-view pixels
CORE = (0.0, 0.25)  # zone radii as fractions of the cell's inner radius
BODY = (0.47, 0.70)
BACKGROUND_FROM = 1.02  # background: outside this fraction, inside the cell
LINE_CLEARANCE_MM = 1.6  # background keeps this far from the cell's edge (its lines)
MIN_BACKGROUND_PX = 8
CLIP_PIXEL = 250  # a pixel this bright in any channel may have been clipped by the camera

NOISE_ABS = 4.0  # sensor noise of a zone mean, 8-bit levels
NOISE_REL = 0.10  # relative error: light-field fit, blur, a piece not quite centred
MIN_POSTERIOR = 0.95
MAX_DISTANCE = 36.0  # chi-square (6 values) above which a cell fits no class: p < 3e-6
FEATURES = ("core_b", "core_g", "core_r", "body_b", "body_g", "body_r")


@dataclass(frozen=True)
class CellSamples:
    """What the top view shows in each cell, in `layout.cells` order."""

    observed: np.ndarray  # (n, 6) mean B, G, R of core then body, 8-bit levels
    light: np.ndarray  # (n, 3) the board's own colour under the light at each cell
    background: np.ndarray  # (n, 3) measured background (nan where none is visible)
    clipped: (
        np.ndarray
    )  # (n, 6) fraction of each zone's pixels the camera clipped (>= 250), per channel


@dataclass(frozen=True)
class _Sampler:
    """Precomputed pixel sets of one layout's top view."""

    scale: float  # top-view pixels per mm
    origin: tuple[float, float]  # mat mm at the top view's (0, 0) corner
    shape: tuple[int, int]  # (height, width)
    zones: tuple[
        tuple[np.ndarray, np.ndarray, np.ndarray], ...
    ]  # core, body, background: (flat pixel index, cell index, counts)
    centres: np.ndarray  # (n, 2) cell centres in -1..1 over the board, for the light fit

    def to_image(self, homography: np.ndarray) -> np.ndarray:
        """Top-view pixel -> image pixel."""
        s = self.scale
        ox, oy = self.origin
        view_to_mat = np.array([[1 / s, 0, ox + 0.5 / s], [0, 1 / s, oy + 0.5 / s], [0, 0, 1]])
        return homography @ view_to_mat


def _layout_key(layout: Layout) -> tuple:
    return (layout.name, layout.size, layout.board_origin, layout.board_size, len(layout.cells))


_SAMPLERS: dict[tuple, _Sampler] = {}


def sampler_for(layout: Layout) -> _Sampler:
    key = _layout_key(layout)
    if key not in _SAMPLERS:
        _SAMPLERS[key] = _build_sampler(layout)
    return _SAMPLERS[key]


def _build_sampler(layout: Layout) -> _Sampler:
    min_radius = min(c.radius for c in layout.cells)
    scale = float(np.clip(CELL_RADIUS_PX / min_radius, 0.6, 3.0))
    ox, oy = layout.board_origin
    bw, bh = layout.board_size
    width, height = int(math.ceil(bw * scale)), int(math.ceil(bh * scale))
    plain = _plain_board_mask(layout, scale, (height, width))
    ys, xs = np.mgrid[0:height, 0:width]
    mm_x = ox + (xs + 0.5) / scale
    mm_y = oy + (ys + 0.5) / scale
    core = np.full((height, width), -1, np.int32)
    body = np.full((height, width), -1, np.int32)
    back = np.full((height, width), -1, np.int32)
    clearance = max(1, int(round(LINE_CLEARANCE_MM * scale)))
    kernel = np.ones((2 * clearance + 1, 2 * clearance + 1), np.uint8)
    for index, cell in enumerate(layout.cells):
        inside = np.zeros((height, width), np.uint8)
        poly = np.array([[(x - ox) * scale - 0.5, (y - oy) * scale - 0.5] for x, y in cell.polygon])
        cv2.fillPoly(inside, [np.round(poly * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
        x0, y0 = np.floor(poly.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(poly.max(axis=0)).astype(int) + 2
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
        window = (slice(y0, y1), slice(x0, x1))
        d = np.hypot(mm_x[window] - cell.center[0], mm_y[window] - cell.center[1]) / cell.radius
        cell_in = inside[window] > 0
        core[window][cell_in & (d < CORE[1])] = index
        body[window][cell_in & (d >= BODY[0]) & (d < BODY[1])] = index
        # Outside the top view is the board's frame, a line like any other: erode from it too
        # (OpenCV's default border would treat it as inside and keep the frame's pixels).
        away_from_lines = cv2.erode(inside, kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)
        away_from_lines = away_from_lines[window] > 0
        back[window][away_from_lines & (d > BACKGROUND_FROM) & plain[window]] = index
    zones = []
    n = len(layout.cells)
    for labels in (core, body, back):
        flat = labels.ravel()
        pixels = np.flatnonzero(flat >= 0)
        cells = flat[pixels]
        zones.append((pixels, cells, np.bincount(cells, minlength=n).astype(np.float64)))
    if np.any(zones[0][2] == 0) or np.any(zones[1][2] == 0):
        raise UserError(f"layout {layout.name}: a cell is too small to read")
    centres = np.array([c.center for c in layout.cells], np.float64)
    centres = (centres - (ox + bw / 2, oy + bh / 2)) / (max(bw, bh) / 2)
    return _Sampler(scale, (ox, oy), (height, width), tuple(zones), centres)


def _plain_board_mask(layout: Layout, scale: float, shape: tuple[int, int]) -> np.ndarray:
    """Top-view pixels showing plain board tone on the printed mat (no line, name or mark).
    Boards without a mat of ours (grid:RxC) have no such knowledge: everything counts."""
    if not layout.markers:
        return np.ones(shape, bool)
    mat = render_mat(layout, px_per_mm=scale)
    ox, oy = layout.board_origin
    u0, v0 = int(round(ox * scale)), int(round(oy * scale))
    crop = mat[v0 : v0 + shape[0], u0 : u0 + shape[1]].astype(np.int16)
    pad = ((0, shape[0] - crop.shape[0]), (0, shape[1] - crop.shape[1]), (0, 0))
    crop = np.pad(crop, pad, constant_values=0)
    plain = (np.abs(crop - np.array(BOARD_TONE, np.int16)).max(axis=2) < 14).astype(np.uint8)
    return cv2.erode(plain, np.ones((3, 3), np.uint8)) > 0


def top_view(image: np.ndarray, homography: np.ndarray, layout: Layout) -> np.ndarray:
    """The board warped to the reader's canonical top view (BGR)."""
    to_gray(image)  # validates
    if image.ndim != 3 or image.shape[2] != 3:
        raise UserError("reading cells needs a colour (BGR) image")
    sampler = sampler_for(layout)
    height, width = sampler.shape
    return cv2.warpPerspective(
        image,
        sampler.to_image(np.asarray(homography, np.float64)),
        (width, height),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def sample_cells(image: np.ndarray, homography: np.ndarray, layout: Layout) -> CellSamples:
    """Core, body and background means of every cell, and the fitted light at each."""
    sampler = sampler_for(layout)
    view = top_view(image, homography, layout).reshape(-1, 3).astype(np.float64)
    n = len(layout.cells)
    means, clipped = [], []
    for zone, (pixels, cells, counts) in enumerate(sampler.zones):
        values = view[pixels]
        sums = np.stack(
            [np.bincount(cells, weights=values[:, c], minlength=n) for c in range(3)], axis=1
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            means.append(sums / counts[:, None])
        if zone < 2:
            bright = values >= CLIP_PIXEL
            hits = [np.bincount(cells, weights=bright[:, c], minlength=n) for c in range(3)]
            clipped.append(np.stack(hits, axis=1) / counts[:, None])
    core, body, background = means
    back_counts = sampler.zones[2][2]
    background = np.where(back_counts[:, None] >= MIN_BACKGROUND_PX, background, np.nan)
    light = fit_background_light(sampler.centres, background)
    return CellSamples(np.hstack([core, body]), light, background, np.hstack(clipped))


def fit_background_light(
    centres: np.ndarray, background: np.ndarray, rounds: int = 4
) -> np.ndarray:
    """The board's colour under the light at every cell: a smooth field (quadratic in log
    brightness, per channel) fitted to the cells' backgrounds, dropping the cells whose
    background a piece, its shadow or a mark spoils (they disagree with the field)."""
    x, y = centres[:, 0], centres[:, 1]
    terms = np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)
    valid = np.all(np.isfinite(background), axis=1) & np.all(background > 1.0, axis=1)
    logs = np.log(np.where(np.isfinite(background), np.maximum(background, 1.0), 1.0))
    use = valid.copy()
    fitted = None
    for _ in range(rounds):
        count = int(use.sum())
        if count == 0:
            raise UserError(messages.board_hidden())
        columns = 6 if count >= 12 else 3 if count >= 4 else 1
        coeffs, *_ = np.linalg.lstsq(terms[use, :columns], logs[use], rcond=None)
        fitted = terms[:, :columns] @ coeffs
        residual = np.abs(logs - fitted).max(axis=1)
        spread = 1.4826 * float(np.median(residual[use]))
        keep = valid & (residual <= max(0.08, 3.0 * spread))
        if np.array_equal(keep, use) or keep.sum() < 4:
            break
        use = keep
    return np.exp(fitted)


# -- classifying ----------------------------------------------------------------------------------
def chi2_survival_6(x: np.ndarray) -> np.ndarray:
    """P(chi-square with 6 degrees of freedom > x), exactly."""
    h = np.asarray(x, np.float64) / 2
    return np.exp(-h) * (1 + h + h * h / 2)


def class_scores(samples: CellSamples, calibration: Calibration) -> tuple[np.ndarray, np.ndarray]:
    """(log-likelihood, chi-square distance) of every cell under every class: (n, k) each."""
    albedo = np.array([calibration.albedo[c] for c in calibration.classes], np.float64)  # (k, 6)
    spread = np.array([calibration.spread[c] for c in calibration.classes], np.float64)
    light = np.hstack([samples.light, samples.light])[:, None, :]  # (n, 1, 6)
    raw = albedo[None, :, :] * light
    predicted = np.minimum(raw, 255.0)
    sigma = np.sqrt(NOISE_ABS**2 + (NOISE_REL * predicted) ** 2 + (spread[None, :, :] * light) ** 2)
    # A prediction at the clipping limit may be seen somewhat below it (a highlight clips, the
    # rim does not): allow the shortfall.
    clipped = raw > 255.0
    sigma = np.where(clipped, sigma + 0.12 * 255.0, sigma)
    residual = (samples.observed[:, None, :] - predicted) / sigma
    # A colour channel seen only clipped at calibration is at least as bright as its albedo.
    saturated = np.array(
        [[f in calibration.saturated.get(c, ()) for f in FEATURES] for c in calibration.classes]
    )
    residual = np.where(saturated[None, :, :], np.minimum(residual, 0.0), residual)
    distance = np.sum(residual**2, axis=2)
    loglik = -0.5 * distance - np.sum(np.log(sigma), axis=2)
    return loglik, distance


def classify(samples: CellSamples, calibration: Calibration) -> tuple[list[str], np.ndarray]:
    """Class name (or "unknown") and confidence 0..1 for every cell."""
    loglik, distance = class_scores(samples, calibration)
    loglik = loglik - loglik.max(axis=1, keepdims=True)
    posterior = np.exp(loglik)
    posterior /= posterior.sum(axis=1, keepdims=True)
    best = posterior.argmax(axis=1)
    rows = np.arange(len(best))
    p_best = posterior[rows, best]
    fit = np.minimum(1.0, chi2_survival_6(distance[rows, best]) / chi2_survival_6(MAX_DISTANCE))
    confidence = p_best * fit
    sure = (p_best >= MIN_POSTERIOR) & (distance[rows, best] <= MAX_DISTANCE)
    names = [calibration.classes[b] if ok else UNKNOWN for b, ok in zip(best, sure, strict=True)]
    return names, confidence


def read_cells(
    image: np.ndarray,
    homography: np.ndarray,
    layout: Layout,
    calibration: Calibration,
    *,
    markers_seen: int = 0,
    frame: int = 0,
    timestamp: float = 0.0,
    covered: Iterable[str] | None = None,
) -> Observation:
    """Every cell of `layout` in `image` (BGR), the board located by `homography` (mat mm ->
    image px): a class of the calibration, or "unknown" with its confidence.

    Cells with something over them - a hand, a cup - read "unknown" (confidence 0): `covered`
    names them, or, when None, the printed mat is checked for occluders here
    (`vision.top_view.covered_cells`; `markers_seen` below the layout's markers loosens it).
    The tracker passes () - it never reads a board with anything over it.
    A calibration of a board of your own reads with `vision.standing.read_standing`."""
    calibration.check_layout(layout)
    if covered is None:
        loose = 0 < markers_seen < len(layout.markers)
        covered = covered_cells(image, homography, layout, loose=loose)[1]
    cells = layout.cell_names()
    hidden = None  # which cells a nearer piece may hide: the standing reader says
    unlearned: tuple[str, ...] = ()  # the flat-stone model learns every cell alike
    leaned: dict[str, str] = {}  # nor does it learn how a lean looks
    if isinstance(calibration, StandingCalibration):
        seen = read_standing(image, homography, layout, calibration)
        names = [seen.cells[c] for c in cells]
        confidence = np.array([seen.confidence[c] for c in cells])
        hidden = seen.hidden
        unlearned = seen.unlearned
        leaned = seen.leaned
    else:
        names, confidence = classify(sample_cells(image, homography, layout), calibration)
    under = set(covered)
    if under:
        names = [UNKNOWN if c in under else n for c, n in zip(cells, names, strict=True)]
        confidence = np.where([c in under for c in cells], 0.0, confidence)
        hidden = None  # fewer cells read occupied now: worked out again from them below
        leaned = {c: k for c, k in leaned.items() if c not in under}
    return reading_observation(
        layout,
        names,
        confidence,
        homography,
        (image.shape[1], image.shape[0]),
        frame=frame,
        timestamp=timestamp,
        markers_seen=markers_seen,
        unlearned=unlearned,
        leaned=leaned,
        hidden=hidden,
    )
