"""Calibration's augmented copies: the players' photo as another moment at the table.

Each copy takes another exposure, tone curve and white balance, a little blur, corners a
little off (`augmented`), soft shadows across some cells (`shadowed`), on a board of stones a
lamp's highlight on some stones (`highlighted`), and flat prints on some of its empty light
cells (`flat_prints`: a logo, a label, a number); `vision.standing` also samples its columns
at another height (COLUMN_SCALES: another elevation). The copies teach the model how
a table's photos and cells spread; the class means stay the photos' own
(`vision.discriminant`). The draws come from a random stream (`copy_draws`) kept in the
calibration: the same photo gives the same model. docs/vision.md, calibration 4.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.cell_kinds import CHECKERED_CONTRAST
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
PRINT_SHARE = 0.35  # of the empty cells that may take a flat print: printed on in each copy
PRINT_COVER = (0.1, 0.5)  # the share of its cell a flat print's marks cover
PRINT_CANVAS = 96  # px across a cell: where a print's marks are drawn before they are warped
PRINT_LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"


def copy_draws(seed: int) -> tuple[np.random.Generator, ...]:
    """The random streams of the augmented copies: colours and corners, column heights,
    shadows, highlights, flat prints (apart: adding one kept the others' draws as they were)."""
    return tuple(np.random.default_rng(seed + offset) for offset in range(5))


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


def flat_prints(
    image: np.ndarray,
    homography: np.ndarray,
    layout: Layout,
    kinds: np.ndarray,
    surface: np.ndarray,
    empty: np.ndarray,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """The photo with generic flat prints on some of its `empty` cells, and which cells
    (bool per cell): marks in a darker kind's ink as the photo shows it on the nearest empty
    cell of that kind (`surface`: each kind's log colour), on PRINT_SHARE of the empty cells
    of every kind that has a darker one - the light squares of a checkered board. A board's
    own print on a square is in its other ink: the US Chess logo on h1 in the dark squares'
    green. Strokes, small checkered patches, letters and digits, rings and blobs over
    PRINT_COVER of the cell, anywhere on it (`_print_marks`), blurred as a photo blurs them.

    Only darker ink on a lighter cell: a light print on a dark square looks like the top of a
    light piece standing there, and prints of that kind took white pieces on chess-ray-vision's
    dark squares for empty ones (docs/vision.md, calibration 4.). A board of one kind (Go, a
    board of one colour) has no other ink and takes none. A one-colour board whose light
    splits its cells in two by parity may take a few; fewer than `vision.standing.MIN_PRINTED`
    fit no group (the real Othello photo fits none)."""
    brightness = surface.mean(axis=1)
    darker = brightness[None, :] < brightness[:, None] - CHECKERED_CONTRAST  # [kind, ink kind]
    centres = np.array([c.center for c in layout.cells], np.float64)
    # a kind takes prints where the photo shows an empty cell of a darker kind to take the ink
    # from (a refit's board, a second photo: all of them may be covered or out of view)
    has_ink = np.array([(empty & darker[k][kinds]).any() for k in range(len(surface))])
    inkable = empty & has_ink[kinds]
    marked = inkable & (rng.random(len(kinds)) < PRINT_SHARE)
    if not marked.any():
        return image, marked
    out = image.copy()
    height, width = image.shape[:2]
    for i in np.flatnonzero(marked):
        cell = layout.cells[i]
        w = 2.0 * cell.radius
        sources = np.flatnonzero(empty & darker[kinds[i]][kinds])
        source = sources[np.argmin(np.linalg.norm(centres[sources] - centres[i], axis=1))]
        pts = cv2.perspectiveTransform(
            np.array([[centres[source], centres[source] + (0.2 * w, 0.0)]]), homography
        )[0]
        r = max(int(np.linalg.norm(pts[1] - pts[0])), 2)
        x, y = int(round(pts[0][0])), int(round(pts[0][1]))
        patch = image[max(y - r, 0) : y + r, max(x - r, 0) : x + r].reshape(-1, 3)
        marks = _print_marks(rng)
        if not len(patch):
            marked[i] = False
            continue
        ink = np.median(patch, axis=0).astype(np.float32)
        size = PRINT_CANVAS
        to_board = np.array(
            [
                [w / size, 0, cell.center[0] - w / 2],
                [0, w / size, cell.center[1] - w / 2],
                [0, 0, 1],
            ]
        )
        square = np.array([[[0, 0], [size, 0], [size, size], [0, size]]], np.float64)
        corners = cv2.perspectiveTransform(square, homography @ to_board)[0]
        x0, y0 = np.clip(np.floor(corners.min(axis=0)) - 1, 0, [width, height]).astype(int)
        x1, y1 = np.clip(np.ceil(corners.max(axis=0)) + 1, 0, [width, height]).astype(int)
        if x1 - x0 < 2 or y1 - y0 < 2:
            marked[i] = False
            continue
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
        warped = cv2.warpPerspective(marks, shift @ homography @ to_board, (x1 - x0, y1 - y0))
        alpha = (warped * rng.uniform(0.75, 1.0))[:, :, None]
        region = out[y0:y1, x0:x1].astype(np.float32)
        out[y0:y1, x0:x1] = np.clip(region * (1 - alpha) + ink * alpha, 0, 255).astype(np.uint8)
    return out, marked


def _print_marks(rng: np.random.Generator) -> np.ndarray:
    """(PRINT_CANVAS, PRINT_CANVAS) float 0..1: generic flat marks over one cell - strokes, a
    small checkered patch, letters or digits, rings, blobs - covering a share in PRINT_COVER."""
    size = PRINT_CANVAS
    low, high = PRINT_COVER
    marks = np.zeros((size, size), np.float32)
    for _ in range(20):
        target = rng.uniform(low, high)
        marks = np.zeros((size, size), np.float32)
        for _ in range(12):
            if marks.mean() >= target:
                break
            np.maximum(marks, _one_mark(rng, size), out=marks)
        if low <= marks.mean() <= high + 0.1:
            break
    return cv2.GaussianBlur(marks, (0, 0), rng.uniform(0.5, 1.5))


def _one_mark(rng: np.random.Generator, size: int) -> np.ndarray:
    """One mark of a print on a (size, size) canvas, 0..1."""
    layer = np.zeros((size, size), np.float32)
    shape = rng.integers(5)
    if shape == 0:  # a stroke
        points = rng.uniform(0.05, 0.95, (int(rng.integers(2, 5)), 2)) * size
        thick = max(int(rng.uniform(0.04, 0.12) * size), 1)
        cv2.polylines(layer, [np.round(points).astype(np.int32)], False, 1.0, thick)
    elif shape == 1:  # a small checkered patch, turned
        side = rng.uniform(0.25, 0.6) * size
        n = int(rng.integers(2, 6))
        x0, y0 = rng.uniform(0.05 * size, 0.95 * size - side, 2)
        step = side / n
        for a in range(n):
            for b in range(n):
                if (a + b) % 2 == 0:
                    p0 = (int(x0 + a * step), int(y0 + b * step))
                    p1 = (int(x0 + (a + 1) * step), int(y0 + (b + 1) * step))
                    cv2.rectangle(layer, p0, p1, 1.0, -1)
        turn = cv2.getRotationMatrix2D((x0 + side / 2, y0 + side / 2), rng.uniform(0, 90), 1.0)
        layer = cv2.warpAffine(layer, turn, (size, size))
    elif shape == 2:  # letters or digits
        text = "".join(rng.choice(list(PRINT_LETTERS), int(rng.integers(1, 4))))
        scale = rng.uniform(0.4, 1.1) * size / 64
        thick = int(rng.integers(1, 5))
        (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        x = int(rng.uniform(0, max(size - w, 1)))
        y = int(rng.uniform(h, size))
        letters = np.zeros((size, size), np.uint8)
        cv2.putText(letters, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, 255, thick)
        turn = cv2.getRotationMatrix2D((size / 2, size / 2), rng.uniform(-40, 40), 1.0)
        layer = cv2.warpAffine(letters.astype(np.float32) / 255.0, turn, (size, size))
    elif shape == 3:  # a ring
        centre = tuple(int(v) for v in np.round(rng.uniform(0.2, 0.8, 2) * size))
        radius = int(rng.uniform(0.1, 0.4) * size)
        thick = max(int(rng.uniform(0.03, 0.1) * size), 1)
        cv2.circle(layer, centre, radius, 1.0, thick)
    else:  # a blob
        centre = tuple(int(v) for v in np.round(rng.uniform(0.15, 0.85, 2) * size))
        axes = tuple(int(v) for v in rng.uniform(0.05, 0.25, 2) * size)
        cv2.ellipse(layer, centre, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
    return layer
