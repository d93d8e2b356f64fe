"""Where a board is in a picture: `Located` (the homography mat millimetres -> image pixels)
and the plain ways to make and compare one - from the playing area's four corners in image
pixels (typed, tapped, or found from the grid by `vision.find`), and how far a board moved.
Finding a board by its markers is `vision.locate`'s, which builds on this module as
`vision.find` does."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.errors import UserError
from companion.i18n import _
from vision.exposure import BLOCK, all_but_black
from vision.layouts import Layout

# --corners whose cells come out narrower than this in the picture are a slip, or a board too
# far to read: the reader samples each cell on a 12 x 12 grid
MIN_CELL_PX = 8
# a board may reach a little past the picture (its cells there read unknown); corners that
# put more than half of it outside are a slip - nothing much could be read or learned
MIN_PART_IN_VIEW = 0.5


@dataclass(frozen=True)
class Located:
    """Where the board is: `homography` maps mat millimetres to image pixels."""

    layout: Layout
    homography: np.ndarray  # 3x3 float64
    markers_seen: tuple[int, ...] = ()  # ids of this layout's markers used (empty: from corners)
    marker_corners: dict[int, np.ndarray] = field(default_factory=dict)  # id -> 4x2 image px
    error_px: float = 0.0  # mean reprojection error of the marker corners
    image_size: tuple[int, int] = (0, 0)  # (width, height) of the image it was found in

    def to_image(self, points_mm) -> np.ndarray:
        """Mat points (N x 2, mm) -> image pixels (N x 2)."""
        pts = np.asarray(points_mm, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)

    def board_corners_px(self) -> np.ndarray:
        """The playing area's corners TL, TR, BR, BL in image pixels."""
        return self.to_image(self.layout.board_corners())

    def px_per_mm(self) -> float:
        """The board's mean scale in the image (pixels per millimetre)."""
        corners = self.board_corners_px()
        w, h = self.layout.board_size
        sides = [np.linalg.norm(corners[i] - corners[(i + 1) % 4]) for i in range(4)]
        return float((sides[0] + sides[2]) / (2 * w) + (sides[1] + sides[3]) / (2 * h)) / 2


def to_gray(image: np.ndarray) -> np.ndarray:
    if image is None or not isinstance(image, np.ndarray) or image.size == 0:
        raise UserError(_("the camera image is empty or unreadable"))
    if image.ndim == 2:
        return image
    if image.ndim == 3 and image.shape[2] in (3, 4):
        code = cv2.COLOR_BGR2GRAY if image.shape[2] == 3 else cv2.COLOR_BGRA2GRAY
        return cv2.cvtColor(image, code)
    raise UserError(
        _("cannot read an image of shape {shape}: expected a colour or grey image").format(
            shape=image.shape
        )
    )


def nothing_to_read(image: np.ndarray, located: Located) -> str:
    """Why nothing of the board can be read in `image` where `located` puts it - "" when
    something can: its region all but black (a covered lens, the light off), or one flat
    colour (a frame with nothing in it). A board found by its markers or grid cannot be
    either; typed or saved corners put it wherever they say.

        >>> from vision.layouts import get_layout
        >>> board = from_corners(get_layout("grid:8x8"), "10,10 90,10 90,90 10,90", (100, 100))
        >>> nothing_to_read(np.zeros((100, 100, 3), np.uint8), board)[:45]
        "the board's part of the picture is all but bl"
        >>> nothing_to_read(np.full((100, 100, 3), 128, np.uint8), board)[:45]
        "the board's part of the picture is one flat c"
        >>> nothing_to_read(np.random.default_rng(1).integers(0, 255, (100, 100, 3), np.uint8), board)
        ''
    """
    grey = to_gray(image)
    mask = np.zeros(grey.shape, np.uint8)
    cv2.fillConvexPoly(mask, np.round(located.board_corners_px()).astype(np.int32), 1)
    seen = grey[mask > 0]
    if seen.size == 0:
        return ""
    if all_but_black(cv2.blur(grey, (BLOCK, BLOCK))[mask > 0]):  # (local means: noise aside)
        return (
            "the board's part of the picture is all but black (is the lens covered, or the "
            "light off?): light the board and take the picture again"
        )
    low, high = np.percentile(seen, (5, 95))
    if high - low < 1:
        return (
            "the board's part of the picture is one flat colour - nothing of the board shows: "
            "check the camera and the corners"
        )
    return ""


def from_corners(
    layout: Layout, corners, image_size: tuple[int, int] = (0, 0), *, saved_in: str = ""
) -> Located:
    """The homography from the playing area's four corners in image pixels: typed (a str, as
    `--corners` gives them, "x,y x,y x,y x,y"), tapped, found or saved beside a calibration
    (`saved_in`: that file, named where they do not fit this picture).

    :raises UserError: not four points going round the board, a corner far outside the
        picture, or - typed - cells narrower than MIN_CELL_PX (a slip: the reader would read
        a few pixels of whatever lies there as a board)."""
    typed = isinstance(corners, str)
    points = parse_corners(corners) if typed else np.asarray(corners, np.float64)
    if points.shape != (4, 2) or not np.all(np.isfinite(points)):
        raise UserError(
            "--corners needs four points x,y: top-left, top-right, bottom-right, bottom-left"
        )
    w, h = image_size
    # A board may reach a little past the frame (its edge cells then read unknown), but a
    # corner far outside is a typing slip.
    if (
        w
        and h
        and (
            np.any(points[:, 0] < -w / 2)
            or np.any(points[:, 0] > 1.5 * w)
            or np.any(points[:, 1] < -h / 2)
            or np.any(points[:, 1] > 1.5 * h)
        )
    ):
        if saved_in:  # a trial: corners the player never typed were blamed on --corners
            raise UserError(
                f"a corner saved in {saved_in} lies far outside this {w}x{h} picture: were "
                "they saved from a picture of another size (another camera, or another "
                "resolution)? Give --corners for this picture, or calibrate again"
            )
        raise UserError(
            f"a corner in --corners lies far outside the {w}x{h} image: give the corners in "
            "image pixels (a board reaching a little past the picture is fine)"
        )
    # The four corners must go round the board clockwise (as seen in the image) without crossing.
    cross = [
        _cross(points[(i + 1) % 4] - points[i], points[(i + 2) % 4] - points[(i + 1) % 4])
        for i in range(4)
    ]
    if all(c < 0 for c in cross):
        # A camera looks down on the board, so the first player's top-left, top-right,
        # bottom-right, bottom-left go round it clockwise in its picture too; the other way
        # round is a mirror - every file read back to front (a trial's typed corners: White's
        # king read on b1).
        raise UserError(
            "the --corners go round the board anticlockwise in the picture, which would read it "
            "mirrored (a to h swapped): give them clockwise - top-left, top-right, "
            "bottom-right, bottom-left as the first player sees the board"
        )
    if not all(c > 0 for c in cross):
        raise UserError(
            "the --corners do not go round the board: give them in the order top-left, "
            "top-right, bottom-right, bottom-left"
        )
    if w and h and _part_in_view(points, (w, h)) < MIN_PART_IN_VIEW:
        if saved_in:
            raise UserError(
                f"the corners saved in {saved_in} put most of the board outside this {w}x{h} "
                "picture: give --corners for this picture, or calibrate again"
            )
        raise UserError(
            f"the --corners put most of the board outside the {w}x{h} image: give the "
            "playing area's corners in image pixels (a board reaching a little past the "
            "picture is fine)"
        )
    cell_px = _smallest_cell_px(layout, points) if typed else MIN_CELL_PX  # (found: fine)
    if cell_px < MIN_CELL_PX:
        raise UserError(
            f"the --corners make the board's cells about {cell_px:.0f} px wide, too small to "
            f"read ({MIN_CELL_PX} px at least): give the playing area's corners in image "
            "pixels, or bring the camera nearer"
        )
    src = np.array(layout.board_corners(), np.float64)
    homography = cv2.getPerspectiveTransform(src.astype(np.float32), points.astype(np.float32))
    return Located(layout, homography.astype(np.float64), (), {}, 0.0, image_size)


def _part_in_view(points: np.ndarray, image_size: tuple[int, int]) -> float:
    """How much of the quadrilateral `points` (TL, TR, BR, BL px) lies inside the picture, as
    a part of its area; the four go round it without crossing (`from_corners` checks).

    >>> _part_in_view(np.array([[-50.0, 0], [50, 0], [50, 100], [-50, 100]]), (640, 480))
    0.5
    """
    quad = points.astype(np.float32)
    area = abs(cv2.contourArea(quad))
    w, h = image_size
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    inside, _ = cv2.intersectConvexConvex(quad, frame)
    return float(inside) / area


def _smallest_cell_px(layout: Layout, points: np.ndarray) -> float:
    """The width in pixels of a cell along the shortest side of the playing area that the
    corners `points` (TL, TR, BR, BL) make: each side's length over its cells."""
    width, height = layout.board_size
    cells = np.array([width, height, width, height]) / layout.pitch  # top, right, bottom, left
    sides = np.linalg.norm(np.roll(points, -1, axis=0) - points, axis=1)
    return float(np.min(sides / cells))


def parse_corners(text: str) -> np.ndarray:
    """ "x,y x,y x,y x,y" -> 4 x 2 array; UserError showing the expected form."""
    parts = text.replace(";", " ").split()
    try:
        points = [tuple(float(v) for v in part.split(",")) for part in parts]
    except ValueError:
        points = []
    if len(points) != 4 or any(len(p) != 2 or not all(map(math.isfinite, p)) for p in points):
        raise UserError(
            f'bad --corners {text!r}: give four points "x,y x,y x,y x,y" in image pixels '
            "(top-left, top-right, bottom-right, bottom-left)"
        )
    return np.array(points, np.float64)


def corner_shift(a: Located, b: Located) -> float:
    """How far (max, image pixels) the board's corners moved from `a` to `b`."""
    return float(np.max(np.linalg.norm(a.board_corners_px() - b.board_corners_px(), axis=1)))


def _cross(a: np.ndarray, b: np.ndarray) -> float:
    return float(a[0] * b[1] - a[1] * b[0])
