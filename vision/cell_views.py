"""What the picture shows at each cell, sampled where a standing piece shows itself.

For every cell (`cell_views`): an upright *column* - a vertical plane over the cell's centre,
facing the camera, as high as an empty cell still shows itself through it - where a piece
appears standing on its own base whatever the camera's angle; the *footprint*, the board
plane round the centre where a piece's base stands; the *ground* in front of the cell, for
the light (`vision.light_field`); the outlines (gradient energy) over the column and the
footprint at full resolution; and the rim round a printed mat. The camera's pose comes from
the homography (`vision.pose`). docs/vision.md, calibration 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.errors import UserError
from vision.layouts import Layout
from vision.light_field import rim_points
from vision.pose import CameraPose

COLUMN_SIZE = (12, 12)  # samples across x up the column
COLUMN_HEIGHT = 0.6  # cell widths at most: a piece's body
REACH = 0.33  # cell widths behind the centre that the column's top may see on an empty cell
COLUMN_HALF_WIDTH = 0.45  # cell widths either side of the centre
GROUND_DISTANCE = (0.36, 0.48)  # cell widths in front of the centre, towards the camera
GROUND_HALF_WIDTH = 0.3
FOOTPRINT_SIZE = (8, 16)  # radii x angles of the board plane sampled round a cell's centre
FOOTPRINT_RADIUS = 0.46  # cell widths
FOOTPRINT_INNER = 5  # the inner radii (to 0.26 cell widths): where a piece's base stands;
# the next (0.33) is a gap left out, the rest (0.39-0.46) the footprint's rim
OUTSIDE_FRACTION = 0.25  # a cell with more of its samples outside the picture is not seen
RIM_PATCH = 0.08  # cell widths: half the side of the patch sampled at each rim point
READING_CELL_PX = 72.0  # a board whose cells span fewer pixels is read enlarged to this
MOST_ENLARGED = 4.0  # (at most: a board far too small in the picture stays unreadable, not slow)
_LOG_LEVELS = np.log1p(np.arange(256, dtype=np.float32))  # log brightness of each 8-bit level


@dataclass(frozen=True)
class CellViews:
    """What the picture shows at each cell, in `layout.cells` order (log colours, BGR)."""

    column: np.ndarray  # (n, H, W, 3) the upright column, top row highest
    ground: np.ndarray  # (n, 3) median of the ground in front of the cell
    footprint: np.ndarray  # (n, radii, angles, 3) the board plane round the cell's centre
    unseen: np.ndarray  # (n,) bool: the cell lies (partly) outside the picture
    column_edges: np.ndarray  # (n, H, W) gradient magnitude of log brightness up the column
    footprint_edges: np.ndarray  # (n, radii, angles) the same over the footprint
    pixel_scale: np.ndarray  # (n,) each cell's size in the picture / the median cell's
    rim: np.ndarray  # (m, 3) median log colour round each rim point (`rim_points`)
    rim_unseen: np.ndarray  # (m,) bool: the rim point lies outside the picture


def cell_views(
    image: np.ndarray, homography: np.ndarray, layout: Layout, column_scale: float = 1.0
) -> CellViews:
    """Sample every cell's column and ground (see the module's text). `column_scale`: the
    columns this much higher or lower (calibration's augmented copies: another elevation)."""
    if image.ndim != 3 or image.shape[2] != 3:
        raise UserError("reading cells needs a colour (BGR) image")
    # the camera's pose from the whole picture (its centre is the principal point), then
    # the board's region as the reader reads it (`at_reading_scale`)
    pose = CameraPose.from_homography(homography, (image.shape[1], image.shape[0]))
    last = [image.shape[1] - 1.0, image.shape[0] - 1.0]
    image, moved = at_reading_scale(image, homography, layout)
    pose = pose.seen_through(moved)
    # the picture's first and last pixel centres, where they lie in what is read
    shown = cv2.perspectiveTransform(np.array([[[0.0, 0.0], last]]), moved)[0]
    centres = np.array([c.center for c in layout.cells], np.float64)
    size = np.array([2.0 * c.radius for c in layout.cells])[:, None, None]  # each cell's width
    towards = pose.centre()[None, :2] - centres
    towards /= np.linalg.norm(towards, axis=1, keepdims=True) + 1e-9
    across = np.stack([-towards[:, 1], towards[:, 0]], axis=1)
    cols, rows = COLUMN_SIZE
    u = np.linspace(-COLUMN_HALF_WIDTH, COLUMN_HALF_WIDTH, cols)[None, None, :] * size
    # The column rises only as high as an empty cell still shows itself behind it: a ray
    # through its top meets the board REACH of a cell behind the centre, not the next cell or
    # the board's frame (a low camera sees farther behind; a camera straight above, not at all).
    camera = pose.centre()
    distance = np.hypot(camera[0] - centres[:, 0], camera[1] - centres[:, 1])
    slope = np.maximum(camera[2], 1e-9) / np.maximum(distance, 1e-9)  # tan(elevation)
    top = column_scale * np.minimum(COLUMN_HEIGHT, REACH * slope)[:, None, None]
    z = np.linspace(1.0, 0.0, rows)[None, :, None] * top * size
    column = np.empty((len(centres), rows, cols, 3))
    for axis in (0, 1):
        column[..., axis] = centres[:, axis, None, None] + u * across[:, axis, None, None]
    column[..., 2] = z
    d = np.linspace(*GROUND_DISTANCE, 3)[None, :, None] * size
    g_u = np.linspace(-GROUND_HALF_WIDTH, GROUND_HALF_WIDTH, cols)[None, None, :] * size
    ground = np.zeros((len(centres), 3, cols, 3))
    for axis in (0, 1):
        ground[..., axis] = (
            centres[:, axis, None, None]
            + d * towards[:, axis, None, None]
            + g_u * across[:, axis, None, None]
        )
    radii = np.linspace(0.0, FOOTPRINT_RADIUS, FOOTPRINT_SIZE[0])[None, :, None] * size
    angles = np.linspace(0.0, 2 * np.pi, FOOTPRINT_SIZE[1], endpoint=False)[None, None, :]
    footprint = np.zeros((len(centres), *FOOTPRINT_SIZE, 3))
    footprint[..., 0] = centres[:, 0, None, None] + radii * np.cos(angles)
    footprint[..., 1] = centres[:, 1, None, None] + radii * np.sin(angles)
    column_px = pose.project(column).astype(np.float32)
    ground_px = pose.project(ground).astype(np.float32)
    smooth = cv2.GaussianBlur(image, (3, 3), 0)
    column_values = np.log1p(_remap(smooth, column_px).astype(np.float32))
    ground_values = np.log1p(_remap(smooth, ground_px).astype(np.float32)).reshape(
        len(centres), -1, 3
    )
    base = column_px[:, rows // 2 :].reshape(len(centres), -1, 2)
    outside = _outside(base, shown).mean(axis=1)
    footprint_px = pose.project(footprint).astype(np.float32)
    footprint_values = np.log1p(_remap(smooth, footprint_px).astype(np.float32))
    column_edges, footprint_edges = _edge_samples(image, column_px, footprint_px)
    rim, rim_unseen = _rim_views(smooth, pose, layout, shown)
    return CellViews(
        column_values,
        np.median(ground_values, axis=1),
        footprint_values,
        outside > OUTSIDE_FRACTION,
        column_edges,
        footprint_edges,
        _pixel_scale(column_px),
        rim,
        rim_unseen,
    )


def _outside(points: np.ndarray, shown: np.ndarray) -> np.ndarray:
    """Which `points` (..., 2) lie outside the picture, whose first and last pixel centres lie
    at `shown` (2 x 2) in what is read."""
    return (
        (points[..., 0] < shown[0, 0])
        | (points[..., 0] > shown[1, 0])
        | (points[..., 1] < shown[0, 1])
        | (points[..., 1] > shown[1, 1])
    )


def _rim_views(
    smooth: np.ndarray, pose: CameraPose, layout: Layout, shown: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The median log colour of a small patch round each rim point, and which lie outside
    the picture (its first and last pixel centres at `shown`)."""
    points = rim_points(layout)
    if not len(points):
        return np.zeros((0, 3)), np.zeros(0, bool)
    offsets = np.linspace(-RIM_PATCH, RIM_PATCH, 3) * layout.pitch
    dx, dy = np.meshgrid(offsets, offsets)
    patch = np.zeros((len(points), 3, 3, 3))
    patch[..., 0] = points[:, 0, None, None] + dx
    patch[..., 1] = points[:, 1, None, None] + dy
    px = pose.project(patch).astype(np.float32)
    values = np.log1p(_remap(smooth, px).astype(np.float32)).reshape(len(points), -1, 3)
    return np.median(values, axis=1), _outside(px[:, 1, 1], shown)


def reading_enlargement(homography: np.ndarray, layout: Layout) -> float:
    """How many times the reader enlarges the board's region of a picture seen through
    `homography` (`at_reading_scale`): READING_CELL_PX over the median cell's width in
    pixels, at most MOST_ENLARGED; 1 when the cells are as wide or wider."""
    centres = np.array([c.center for c in layout.cells], np.float64)
    widths = np.array([2.0 * c.radius for c in layout.cells])
    ends = np.stack([centres, centres + np.stack([widths, np.zeros_like(widths)], 1)], 1)
    px = cv2.perspectiveTransform(ends.reshape(1, -1, 2), homography).reshape(-1, 2, 2)
    across = float(np.median(np.linalg.norm(px[:, 1] - px[:, 0], axis=1)))
    if not np.isfinite(across) or across <= 0:
        return 1.0
    return float(np.clip(READING_CELL_PX / across, 1.0, MOST_ENLARGED))


def at_reading_scale(
    image: np.ndarray, homography: np.ndarray, layout: Layout
) -> tuple[np.ndarray, np.ndarray]:
    """The part of `image` the reader reads and the 3x3 map from `image`'s pixels to it: when
    the board's cells span fewer than READING_CELL_PX pixels (the median cell's width), the
    board's region - the mat and two cells round it, all any sample reaches - cut out and
    enlarged (cubic) until they span that many, at most MOST_ENLARGED times; else `image`
    itself and the identity.

    The reader's finest steps are pixels - the smoothing before sampling, the gradient of an
    outline, the floor under an edge - and a white piece on a light square shows mostly by
    its outline: they were measured on photos whose squares span about 70 pixels. Read from
    the same photos shrunk to half (36 pixels a square: a camera farther away, or with fewer
    pixels) and found by its grid, chesscog as one game read 51 of 112 boards instead of 103
    (docs/vision.md, calibration 1., has the measurements)."""
    scale = reading_enlargement(homography, layout)
    if scale <= 1.0:
        return image, np.eye(3)
    width, height = layout.size
    margin = 2.0 * layout.pitch
    outline = np.array(
        [[[-margin, -margin], [width + margin, -margin], [width + margin, height + margin],
          [-margin, height + margin]]]
    )  # fmt: skip
    corners = cv2.perspectiveTransform(outline, homography)[0]
    size = np.array([image.shape[1], image.shape[0]])
    low = np.clip(np.floor(corners.min(axis=0)), 0, size).astype(int)
    high = np.clip(np.ceil(corners.max(axis=0)), 0, size).astype(int)
    if (high - low).min() < 2:  # the board lies (nearly) wholly outside the picture
        return image, np.eye(3)
    region = image[low[1] : high[1], low[0] : high[0]]
    shape = np.round((high - low) * scale).astype(int)
    bigger = cv2.resize(region, (int(shape[0]), int(shape[1])), interpolation=cv2.INTER_CUBIC)
    sx, sy = shape / (high - low)
    # pixel centres: the picture's pixel x lies at (x - low + 0.5) * s - 0.5 in the region
    moved = np.array(
        [[sx, 0.0, (0.5 - low[0]) * sx - 0.5], [0.0, sy, (0.5 - low[1]) * sy - 0.5], [0, 0, 1.0]]
    )
    return bigger, moved


def _pixel_scale(column_px: np.ndarray) -> np.ndarray:
    step = np.median(np.linalg.norm(np.diff(column_px, axis=2), axis=3), axis=(1, 2))
    return np.maximum(step, 1e-6) / max(float(np.median(step)), 1e-6)


def _edge_samples(image: np.ndarray, *points: np.ndarray) -> list[np.ndarray]:
    """The gradient magnitude of log brightness (per pixel) at each set of `points` (n, h, w,
    2; the first set a column, whose sample step sets the scale): a piece's outline is a line
    a pixel or two wide that point samples miss or catch by chance. The magnitude is taken at
    the picture's full resolution over the board's region, then averaged down to about two
    pixels a step and blurred over half a step. Taken on a picture shrunk first, the fine
    outlines are lost (bench_real, two photos: 98.7 % of chesscog's cells instead of 99.5 %)."""
    step = float(np.median(np.linalg.norm(np.diff(points[0], axis=2), axis=3)))
    height, width = image.shape[:2]
    every = np.concatenate([p.reshape(-1, 2) for p in points])
    margin = 2 * step + 2
    low = np.floor(np.clip(every.min(axis=0) - margin, 0, [width, height])).astype(int)
    high = np.ceil(np.clip(every.max(axis=0) + margin, 0, [width, height])).astype(int)
    if (high - low).min() < 3:  # the board lies wholly outside the picture
        return [np.zeros(p.shape[:-1], np.float32) for p in points]
    crop = image[low[1] : high[1], low[0] : high[0]]
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    gray = _LOG_LEVELS[gray] if gray.dtype == np.uint8 else np.log1p(gray.astype(np.float32))
    gx = cv2.Scharr(gray, cv2.CV_32F, 1, 0)
    gy = cv2.Scharr(gray, cv2.CV_32F, 0, 1)
    magnitude = cv2.magnitude(gx, gy) / 32.0  # Scharr's kernel weighs 32
    scale = min(1.0, 2.0 / max(step, 1e-3))
    if scale < 1.0:
        magnitude = cv2.resize(magnitude, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    magnitude = cv2.GaussianBlur(magnitude, (0, 0), max(0.5 * step * scale, 0.8))[..., None]
    offset = low.astype(np.float32)
    return [
        _remap(magnitude, ((p - offset + 0.5) * scale - 0.5).astype(np.float32))[..., 0]
        for p in points
    ]


def cells_outside(image: np.ndarray, homography: np.ndarray, layout: Layout) -> list[str]:
    """The cells a picture does not show (the board reaches past its edge): they read unknown."""
    unseen = cell_views(image, homography, layout).unseen
    return [c.name for c, u in zip(layout.cells, unseen, strict=True) if u]


def _remap(image: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Bilinear samples of `image` at `points` (n, h, w, 2) -> (n, h, w, channels)."""
    n, h, w, _ = points.shape
    flat = points.reshape(n * h, w, 2)  # remap wants each side below 32767
    values = cv2.remap(
        image, flat[..., 0], flat[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return values.reshape(n, h, w, -1)
