"""Which cells a nearer piece may hide: a tall piece seen from the side covers the cell behind it.

A camera that looks at the board from the side sees a chess king on e7 lean over e8: its
crown covers e8's centre, and what is left of e8 beside the crown cannot tell a pawn standing
there from an empty square (measured on the real photos, docs/vision.md). No reading of e8's
pixels settles that; the reader can only say that e8 *may be hidden*, and by which cell's
piece. The referee, who knows what stood on e8, then takes e8 as it was when the board seen
is otherwise no legal move (`companion.referee.core`).

A cell is possibly hidden by a nearer occupied cell when the camera's ray to its centre passes
through a piece of the board's tallest height (`Layout.piece_height`, in cell widths) standing
on the nearer cell - anywhere within OFF_CENTRE of its centre, since players do not centre
their pieces (on the real photos a king stands at the left of e7 and its crown covers half of
e8). The pose comes from the homography (`vision.pose`): straight above the board nothing is
hidden; the lower the camera, the farther a piece's shadow of sight reaches.

What is hidden may still show above the piece in front: a piece standing on e8 rises, and from
the side its top shows above a king on e7 unless the camera is low. `band_above_front` says
where, for the reader to look (`vision.standing`: e8 reads empty when nothing of the king's
colour shows there) - on a chessboard only, whose shortest piece is a pawn 0.9 of a cell tall;
where flat stones may stand, nothing behind need rise above anything.

    >>> import numpy as np
    >>> from vision.layouts import get_layout
    >>> layout = get_layout("chessboard")
    >>> above = np.array([[2.0, 0, 260], [0, 2.0, 260], [0, 0, 1]])  # straight down on its centre
    >>> hidden_cells(above, (1000, 1000), layout, {"e7"})
    {}
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from vision.layouts import Layout
from vision.pose import CameraPose

PIECE_RADIUS = 0.35  # cell widths: a piece's body round its axis (a chess piece's base: 0.37)
OFF_CENTRE = 0.1  # cell widths: how far players leave a piece off its cell's centre


def hidden_cells(
    homography: np.ndarray,
    image_size: tuple[int, int],
    layout: Layout,
    occupied: Collection[str],
) -> dict[str, str]:
    """Cell -> the nearest `occupied` cell whose piece, as tall as `layout.piece_height`, may
    cover that cell's centre in a picture of `image_size` (width, height) seen through
    `homography` (mat mm -> image px)."""
    H = np.asarray(homography, np.float64)
    if not occupied or layout.piece_height <= 0 or not np.all(np.isfinite(H)):
        return {}
    if abs(np.linalg.det(H)) <= 1e-12 * float(np.linalg.norm(H)) ** 3:
        return {}  # no camera sees a board through it (a degenerate homography)
    try:
        with np.errstate(all="ignore"):
            camera = CameraPose.from_homography(H, image_size).centre()
    except np.linalg.LinAlgError:
        return {}
    if not np.all(np.isfinite(camera)) or camera[2] <= 0:
        return {}
    names = layout.cell_names()
    centres = np.array([c.center for c in layout.cells], np.float64)
    widths = np.array([2.0 * c.radius for c in layout.cells])
    towards = camera[None, :2] - centres
    distance = np.linalg.norm(towards, axis=1)
    towards /= np.maximum(distance, 1e-9)[:, None]
    slope = max(float(camera[2]), 0.0) / np.maximum(distance, 1e-9)  # tan(elevation) at each cell
    front = np.flatnonzero([n in occupied for n in names])
    if len(front) == 0:
        return {}
    offset = centres[None, front] - centres[:, None]  # (cell, occupied cell, xy)
    along = np.einsum("cox,cx->co", offset, towards)  # how far towards the camera
    aside = np.abs(offset[..., 0] * towards[:, None, 1] - offset[..., 1] * towards[:, None, 0])
    radius = (PIECE_RADIUS + OFF_CENTRE) * widths[front][None, :]
    near_side = along - np.sqrt(np.clip(radius**2 - aside**2, 0.0, None))
    # The ray to a cell's centre enters the piece's body `near_side` from that centre, where it
    # is `near_side * slope` above the board: below the piece's top, the centre is covered.
    covers = (
        (along > 0)
        & (along < distance[:, None])
        & (aside < radius)
        & (near_side * slope[:, None] < layout.piece_height * widths[front][None, :])
    )
    nearest = np.where(covers, along, np.inf).argmin(axis=1)  # the piece right in front
    return {names[i]: names[int(front[nearest[i]])] for i in np.flatnonzero(covers.any(axis=1))}


BAND_HALF_WIDTH = 0.25  # cell widths either side of a hidden cell's upright axis
BAND_SIZE = (9, 96)  # samples across x up the band, from the board to the shortest piece's top
MIN_BAND_ROWS = 3  # rows of samples that must show above the front piece, at the least


def band_above_front(
    pose: CameraPose, layout: Layout, behind: str, front: str
) -> tuple[np.ndarray, np.ndarray] | None:
    """Where a piece standing on `behind` would show above the piece on `front` (a nearer
    cell, `hidden_cells`), wherever on its cell it stands: board points (rows, cols, 3) up
    `behind`'s upright axis, half a cell wide across the view, from the board to the shortest
    piece's height (`Layout.shortest_piece`), and which of them the picture shows above the
    top of `front`'s piece (as tall as the board's tallest, standing OFF_CENTRE towards
    `behind`) and below the top of the shortest piece standing OFF_CENTRE towards the camera
    (there every placement of it shows). None when fewer than MIN_BAND_ROWS rows of samples
    are left - no band then tells whether a piece stands there - and always where flat stones
    may stand (`Layout.shortest_piece` 0)."""
    shortest = min(layout.shortest_piece, layout.piece_height)
    camera = pose.centre()
    if shortest <= 0 or not np.all(np.isfinite(camera)) or camera[2] <= 0:
        return None
    b, f = layout.cell(behind), layout.cell(front)
    width = 2.0 * b.radius
    at, there = np.array(b.center, np.float64), np.array(f.center, np.float64)
    towards = camera[:2] - at
    distance = float(np.linalg.norm(towards))
    if distance <= 1e-9:
        return None
    towards /= distance
    across = np.array([-towards[1], towards[0]])
    back = at - there
    back /= max(float(np.linalg.norm(back)), 1e-9)
    front_top = np.array([*(there + OFF_CENTRE * 2.0 * f.radius * back), 0.0])
    front_top[2] = layout.piece_height * 2.0 * f.radius
    base = pose.project(np.array([*at, 0.0]))
    up = pose.project(np.array([*at, width])) - base
    up /= max(float(np.linalg.norm(up)), 1e-9)
    low = float(pose.project(front_top) @ up)
    high = float(
        pose.project(np.array([*(at + OFF_CENTRE * width * towards), shortest * width])) @ up
    )
    cols, rows = BAND_SIZE
    u = np.linspace(-BAND_HALF_WIDTH, BAND_HALF_WIDTH, cols) * width
    z = np.linspace(shortest * width, 0.0, rows)
    points = np.empty((rows, cols, 3))
    points[..., 0] = at[0] + u[None, :] * across[0]
    points[..., 1] = at[1] + u[None, :] * across[1]
    points[..., 2] = z[:, None]
    height = pose.project(points) @ up
    shows = (height > low) & (height < high)
    if int(shows.any(axis=1).sum()) < MIN_BAND_ROWS:
        return None
    return points, shows
