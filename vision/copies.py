"""Calibration's augmented copies: the players' photo as another moment at the table.

Each copy takes another exposure, tone curve and white balance, a little blur, corners a
little off (`augmented`), soft shadows across some cells (`shadowed`) and, on a board of
stones, a lamp's highlight on some stones (`highlighted`); `vision.standing` also samples its
columns at another height (COLUMN_SCALES: another elevation). The copies teach the model how
a table's photos and cells spread; the class means stay the photos' own
(`vision.discriminant`). The draws come from a random stream (`copy_draws`) kept in the
calibration: the same photo gives the same model. docs/vision.md, calibration 4.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.cell_views import reading_enlargement
from vision.layouts import Layout

COLUMN_SCALES = (0.6, 1.4)  # augmented copies: columns as another camera elevation makes them
AUGMENTED_COPIES = 8  # per calibration photo: other exposures, white balances, corner errors
# the copies' random stream unless another is asked for: calibration is repeatable, the same
# photos give the same file (bench_real.py --streams measures other streams too)
AUGMENT_SEED = 20261124
SHADOW_EVERY = 6  # augmented copies: a shadow for every this many cells
SHADOW_LENGTH = (0.5, 2.0)  # cell widths
SHADOW_WIDTH = (0.2, 0.7)  # cell widths
SHADOW_DEPTH = (0.2, 0.55)  # the share of the light a shadow takes
SHADOW_SOFTNESS = (0.02, 0.12)  # cell widths: the blur of a shadow's edge (penumbra)
SHADOW_MASK_SIGMA = 3.0  # px: a penumbra this wide or wider is blurred on a coarser mask
HIGHLIGHT_EVERY = 4  # augmented copies of a board of stones: a lamp's highlight on one in this many
HIGHLIGHT_SIZE = (0.08, 0.3)  # cell widths: the highlight's radius
HIGHLIGHT_STRENGTH = (0.3, 0.9)  # how far the highlight's middle goes towards the lamp's white
CORNER_JITTER = 0.04  # cell widths: how far a corner may be off (hand-typed or found)


def copy_draws(seed: int) -> tuple[np.random.Generator, ...]:
    """The random streams of the augmented copies: colours and corners, column heights,
    shadows, highlights (apart: adding one kept the others' draws as they were)."""
    return tuple(np.random.default_rng(seed + offset) for offset in range(4))


def augmented(
    image: np.ndarray, homography: np.ndarray, layout: Layout, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The photo as another moment at the same table might show it: another exposure and tone
    curve, another white balance, a little blur, the corners a little off."""
    gain = rng.uniform(0.6, 1.4) * rng.uniform(0.88, 1.12, 3)
    gamma = rng.uniform(0.75, 1.35)
    if image.dtype == np.uint8:  # a table of the 256 levels per channel: the same, faster
        levels = np.arange(256, dtype=np.float32)[:, None]
        table = np.clip((levels / 255.0) ** gamma * gain * 255.0, 0, 255).astype(np.uint8)
        out = cv2.LUT(image, table[:, None, :])
    else:
        scaled = (image.astype(np.float32) / 255.0) ** gamma * gain * 255.0
        out = np.clip(scaled, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:  # as a cell at the reader's scale blurs (`at_reading_scale`)
        sigma = rng.uniform(0.5, 1.5) / reading_enlargement(homography, layout)
        out = cv2.GaussianBlur(out, (5, 5), sigma)
    corners = np.array(layout.board_corners(), np.float64)
    jitter = rng.normal(0.0, CORNER_JITTER * layout.pitch, (4, 2))
    moved = cv2.getPerspectiveTransform(
        corners.astype(np.float32), (corners + jitter).astype(np.float32)
    )
    return out, homography @ moved


def shadowed(
    image: np.ndarray, homography: np.ndarray, layout: Layout, rng: np.random.Generator
) -> np.ndarray:
    """The photo with soft shadows laid across some cells, as a lamp makes the pieces cast
    them (or an arm, a cup): a shadow on an empty cell darkens part of it and draws an edge
    across it, and a start position shows few (its pieces stand on four ranks together).
    Only the board's region (and a cell round it) is shaded - nothing else is read - and a
    wide penumbra is blurred on a coarser copy of the mask (calibration makes many copies:
    on a Pi each costs)."""
    pitch = layout.pitch
    centres = np.array([c.center for c in layout.cells], np.float64)
    middle = centres.mean(axis=0)
    span = cv2.perspectiveTransform(np.array([[middle, middle + (pitch, 0.0)]]), homography)[0]
    cell_px = float(np.linalg.norm(span[1] - span[0]))  # a cell's width in the picture
    polygons, depths = [], []
    for i in rng.choice(len(centres), size=len(centres) // SHADOW_EVERY, replace=False):
        angle = rng.uniform(0, 2 * np.pi)
        along = np.array([np.cos(angle), np.sin(angle)])
        across = np.array([-along[1], along[0]])
        length = rng.uniform(*SHADOW_LENGTH) * pitch
        width = rng.uniform(*SHADOW_WIDTH) * pitch / 2
        start = centres[i] + rng.uniform(-0.5, 0.5, 2) * pitch
        corners = np.array(
            [
                start + width * across,
                start + width * across + length * along,
                start - width * across + length * along,
                start - width * across,
            ]
        )
        polygons.append(cv2.perspectiveTransform(corners[None], homography)[0])
        depths.append(float(rng.uniform(*SHADOW_DEPTH)))
    sigma = max(rng.uniform(*SHADOW_SOFTNESS) * cell_px, 0.8)
    board = cv2.perspectiveTransform(np.array([layout.board_corners()], np.float64), homography)[0]
    margin = cell_px + 4 * sigma + 2
    height, width = image.shape[:2]
    x0, y0 = np.clip(np.floor(board.min(axis=0) - margin), 0, [width, height]).astype(int)
    x1, y1 = np.clip(np.ceil(board.max(axis=0) + margin), 0, [width, height]).astype(int)
    out = image.copy()
    if x1 - x0 < 2 or y1 - y0 < 2:
        return out
    # A penumbra this many pixels wide loses nothing on a mask `step` times coarser.
    step = max(1, int(sigma // SHADOW_MASK_SIGMA))
    size = (max((x1 - x0) // step, 1), max((y1 - y0) // step, 1))
    mask = np.zeros((size[1], size[0]), np.float32)
    for polygon, depth in zip(polygons, depths, strict=True):
        points = (polygon - (x0, y0)) / ((x1 - x0) / size[0], (y1 - y0) / size[1])
        cv2.fillConvexPoly(mask, np.round(points).astype(np.int32), depth)
    mask = cv2.GaussianBlur(mask, (0, 0), sigma * size[0] / (x1 - x0))
    if step > 1:
        mask = cv2.resize(mask, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
    # A shadow keeps the skylight: it takes a little less blue than red.
    shade = 1.0 - cv2.merge([mask * 0.9, mask * 0.95, mask])
    out[y0:y1, x0:x1] = cv2.multiply(image[y0:y1, x0:x1], shade, dtype=cv2.CV_8U)
    return out


def highlighted(
    image: np.ndarray,
    homography: np.ndarray,
    layout: Layout,
    occupied: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """The photo with a lamp's highlight on some of its stones (`occupied` cells): a soft spot
    of the lamp's white on the stone. A glossy stone's top mirrors the lamp over much of its
    face where the angles meet - a black one then shows a patch as light as a white stone -
    and the angles change across the board, so a start position shows each colour under a few
    of them only."""
    cells = np.flatnonzero(occupied)
    chosen = cells[rng.random(len(cells)) < 1.0 / HIGHLIGHT_EVERY]
    if not len(chosen):
        return image
    height, width = image.shape[:2]
    pitch = layout.pitch
    mask = np.zeros((height, width), np.float32)
    low, high = np.array([width, height]), np.zeros(2, int)  # the spots' box: the rest is as it was
    for i in chosen:
        spot = np.array(layout.cells[i].center, np.float64) + rng.uniform(-0.2, 0.2, 2) * pitch
        px = cv2.perspectiveTransform(np.array([[spot, spot + (pitch, 0.0)]]), homography)[0]
        radius = rng.uniform(*HIGHLIGHT_SIZE) * float(np.linalg.norm(px[1] - px[0]))
        strength = float(rng.uniform(*HIGHLIGHT_STRENGTH))
        reach = int(np.ceil(2.5 * radius)) + 2  # the blurred spot's extent round its middle
        x, y = int(round(px[0][0])), int(round(px[0][1]))
        x0, y0 = max(x - reach, 0), max(y - reach, 0)
        x1, y1 = min(x + reach, width), min(y + reach, height)
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        spot_mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.circle(spot_mask, (x - x0, y - y0), max(int(round(radius)), 1), 1.0, -1)
        spot_mask = cv2.GaussianBlur(spot_mask, (0, 0), max(radius / 2, 0.8))
        spot_mask *= strength / max(float(spot_mask.max()), 1e-6)
        np.maximum(mask[y0:y1, x0:x1], spot_mask, out=mask[y0:y1, x0:x1])
        low, high = np.minimum(low, (x0, y0)), np.maximum(high, (x1, y1))
    if (high <= low).any():
        return image
    (x0, y0), (x1, y1) = low, high
    out = image.copy()
    region = out[y0:y1, x0:x1].astype(np.float32)
    region += (255.0 - region) * mask[y0:y1, x0:x1, None]
    out[y0:y1, x0:x1] = np.clip(region, 0, 255).astype(np.uint8)
    return out
