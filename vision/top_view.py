"""The board seen from straight above - the mat and the apron of table round it, from the
half-size frame - and what covers it: the top view's masks and occluder check for one layout
(`BoardModel`), and `covered_cells`, which judges one photo against the printed mat alone.
The tracker watches the same top view frame after frame; the reader asks `covered_cells` when
it reads a single photo."""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any

import cv2
import numpy as np

from vision.layouts import Layout
from vision.mat import render_mat
from vision.pose import CameraPose
from vision.stillness import OccluderCheck, colour_view, gray_of

LEAN_HEIGHT = 1.7  # cell widths: the tallest piece (a chess set's king is 1.6-1.7 squares)
CROWN_RADIUS = 0.25  # cell widths: a tall piece's top is narrow (a king's crown: 0.2)
SHADOW_REACH = 1.0  # cell widths beyond a piece's disc its shadow may fall, at the least
LOWEST_LAMP = 30.0  # degrees above the table: the lowest lamp a piece's shadow is allowed for
MAX_LEAN = 4.0  # how far a piece may lean at most, in distances from the camera's foot
PIECE_DISC = 1.12  # piece discs in the top view: this times the cell's inscribed radius
EDGE_MM = 5.0  # the strip along the mat's edge that only the last still board can judge
APRON_MM = 10.0  # the table round the mat in the top view: hands come in across it
RIM_PX = 1  # the top view's outermost pixels, which show the table too: never judged


@dataclasses.dataclass
class BoardModel:
    """Everything precomputed for one located layout: the top view and its masks."""

    layout: Layout
    scale: float  # top-view pixels per mm
    size: tuple[int, int]  # top-view (width, height), the mat and the apron round it
    margin: int  # top-view pixels of apron (the table round the mat) on each side
    occluders: OccluderCheck

    @property
    def mat(self) -> tuple[slice, slice]:
        """The mat's part of the top view (rows, columns)."""
        m = self.margin
        return slice(m, self.size[1] - m), slice(m, self.size[0] - m)


def top_view(frame: np.ndarray, homography: np.ndarray, model: BoardModel) -> np.ndarray:
    """The mat and its apron seen from straight above at `scale` px/mm, from the half-size
    frame."""
    height, width = frame.shape[:2]
    small = cv2.resize(frame, (width // 2, height // 2), interpolation=cv2.INTER_AREA)
    # Half-size pixel centres: full = 2 * small + 0.5. Top-view pixel u shows mm (u+0.5)/s.
    to_small = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1.0]])
    s = model.scale
    o = (0.5 - model.margin) / s
    from_view = np.array([[1 / s, 0, o], [0, 1 / s, o], [0, 0, 1.0]])
    view_to_small = to_small @ np.asarray(homography, np.float64) @ from_view
    return cv2.warpPerspective(
        small,
        view_to_small,
        model.size,
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def covered_cells(
    frame: np.ndarray, homography: np.ndarray, layout: Layout, *, loose: bool = False
) -> tuple[int, list[str]]:
    """What is over the board in one photo, judged against the printed mat alone (there is
    no earlier board to compare with): (occluder pixels in the top view, the cells that may
    be covered). Occluders can only be seen outside the piece discs - on the paper, the lines,
    the cells' corners - and an arm may cross the board unseen (a white sleeve on white paper)
    between the parts that are seen, so once anything is over the mat every cell may be
    covered. `loose`: a marker was not seen (the location is extrapolated). Boards without a
    printed mat (grid:RxC) cannot be judged: (0, [])."""
    if not layout.markers:
        return 0, []
    model = _read_model(layout)
    colour = colour_view(top_view(frame, homography, model))
    size = (frame.shape[1], frame.shape[0])
    standing = standing_zone(layout, homography, size, 256)
    found = model.occluders.against_mat(gray_of(colour), colour, loose=loose, standing=standing)
    return found, layout.cell_names() if found else []


def standing_zone(
    layout: Layout, homography: np.ndarray, image_size: tuple[int, int], view_px: int
) -> np.ndarray:
    """Where in the top view (bool) a piece standing on a cell, or its shadow, may show from
    this camera.

    The top view maps the board plane; a piece rises above it, and the camera sees its upper
    part over the board behind it, away from the camera - the taller the piece and the lower the
    camera, the farther (a king of a chess set leans over the paper beyond the last row). For
    every cell: the piece disc, and a crown LEAN_HEIGHT above it as the camera's rays carry it
    down to the board (`CameraPose` from the homography), and all between; and its shadow
    round its disc, as far as a lamp LOWEST_LAMP degrees high throws the top of the board's
    tallest piece (`Layout.piece_height`), SHADOW_REACH at the least: a lamp 36 degrees low
    threw a Sensei figure's shadow 1.3 cells off its disc on the realistic tables, past the
    1 cell allowed before. A change there that does not reach the mat's edge where something
    crosses it is the pieces, not a hand (`OccluderCheck._not_the_pieces`)."""
    scale, (width, height), margin, _, _ = _view_masks(layout, view_px)
    if not image_size[0] or not image_size[1]:
        return np.zeros((height, width), bool)
    camera = CameraPose.from_homography(homography, image_size).centre()
    pitch = layout.pitch
    rise = LEAN_HEIGHT * pitch
    # A camera hardly higher than the pieces sees them lean without end: bounded at
    # MAX_LEAN times the distance (the view is useless for reading long before).
    stretch = rise / (camera[2] - rise) if camera[2] > rise * (1 + 1 / MAX_LEAN) else MAX_LEAN
    reach = max(SHADOW_REACH, layout.piece_height / math.tan(math.radians(LOWEST_LAMP)))
    angles = np.linspace(0.0, 2 * np.pi, 24, endpoint=False)
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    zone = np.zeros((height, width), np.uint8)
    for cell in layout.cells:
        base = np.array(cell.center, np.float64)
        radius = cell.radius * PIECE_DISC
        top = base + (base - camera[:2]) * stretch
        crown = CROWN_RADIUS * pitch * (1 + stretch)  # nearer the camera, larger
        outline = np.vstack([base + radius * ring, top + crown * ring])
        px = np.round((outline * scale + margin - 0.5) * 4).astype(np.int32)
        cv2.fillConvexPoly(zone, cv2.convexHull(px), 1, cv2.LINE_8, 2)
        centre = tuple(int(v) for v in np.round((base * scale + margin - 0.5) * 4))
        shade = int(round((radius + reach * pitch) * scale * 4))
        cv2.circle(zone, centre, shade, 1, -1, cv2.LINE_8, 2)
    return zone > 0


@functools.lru_cache(maxsize=8)
def _read_model(layout: Layout) -> BoardModel:
    return board_model(layout, 256)


def board_model(layout: Layout, view_px: int) -> BoardModel:
    """The top view of a layout with a fresh occluder check (no reference yet)."""
    scale, size, margin, masks, printed = _view_masks(layout, view_px)
    min_area = max(20, int(150 * scale * scale))  # about 12 x 12 mm
    paper, rim, apron, mat = masks
    occluders = OccluderCheck(paper, printed, rim=rim, apron=apron, mat=mat, min_area_px=min_area)
    return BoardModel(layout, scale, size, margin, occluders)


@functools.lru_cache(maxsize=16)
def _view_masks(layout: Layout, view_px: int) -> tuple[float, tuple[int, int], int, Any, Any]:
    """The top view of a layout: its scale, size and margin (the apron: APRON_MM of table
    round the mat), its masks (paper, rim, apron, mat - see `OccluderCheck`) and, for printed
    mats, the printed mat's colour as the camera should see it.

    Paper is where no piece can ever be (outside every piece disc), away from the mat's edge:
    the edge blends with the table under blur and a homography off by a pixel, so the printed
    mat cannot say what a strip of EDGE_MM along it looks like. The last still board can (the
    rim), except for the outermost RIM_PX, which the table shows through. The apron is the
    table just round the mat: a hand always comes in across it."""
    w_mm, h_mm = layout.size
    scale = view_px / max(w_mm, h_mm)
    margin = max(2, int(round(APRON_MM * scale)))
    mat_w, mat_h = max(8, int(round(w_mm * scale))), max(8, int(round(h_mm * scale)))
    width, height = mat_w + 2 * margin, mat_h + 2 * margin
    free = np.full((height, width), 255, np.uint8)
    for cell in layout.cells:
        cx, cy = ((v * scale + margin - 0.5) for v in cell.center)
        radius = cell.radius * PIECE_DISC * scale + 1.0
        centre = (int(round(cx * 4)), int(round(cy * 4)))
        cv2.circle(free, centre, int(radius * 4), 0, -1, cv2.LINE_8, 2)

    def box(inset: int) -> np.ndarray:
        inner = np.zeros((height, width), bool)
        inner[margin + inset : height - margin - inset, margin + inset : width - margin - inset] = 1
        return inner

    edge = max(2, int(round(EDGE_MM * scale)))
    mat = box(0)
    paper = (free > 0) & box(edge)
    rim = (free > 0) & box(RIM_PX) & ~box(edge)
    apron = ~box(RIM_PX)  # the table and the mat's outermost pixels, blended with it
    printed = None
    if layout.markers:
        image = render_mat(layout, px_per_mm=4 * scale, labels=True)
        image = cv2.resize(image, (mat_w, mat_h), interpolation=cv2.INTER_AREA)
        image = cv2.copyMakeBorder(image, *(margin,) * 4, cv2.BORDER_REPLICATE)
        printed = colour_view(image)
    return scale, (width, height), margin, (paper, rim, apron, mat), printed
