"""Following the board frame by frame, and reading it only when it is still and uncovered.

    tracker = Tracker("arimaa", calibration)
    for frame in frames:
        observation = tracker.feed(frame)     # None almost always
        if observation:
            referee.observe(observation)
        screen.show_hands(tracker.status == "hands")

Per frame (a few milliseconds at 1280x720 on one core):

1. While the board has not been found, a full marker detection (`vision.locate.locate`) runs
   at most every `search_interval` seconds (status ``"searching"``).
2. Once found, the frame is halved (area averaging, which also halves the noise) and warped
   to a small *top view* of the mat and an apron of table round it through the known
   homography - no marker detection per frame.
3. `vision.stillness` measures the motion on the mat since the previous frame and looks for
   occluders: anything that differs, outside the piece discs, from the printed mat under a
   fitted light (brightness and colour) or from the last accepted still board, and anything
   that reaches onto the mat across the apron. Status ``"hands"`` or ``"moving"``.
4. When the view has been free of motion *and* occluders for `still_seconds`, and something
   happened since the last reading (or a reading was requested), the markers are looked for in
   small windows where they were (`vision.locate.relocate`) - or, for a board without markers
   found from its grid (``chessboard``, ``grid:RxC``), the grid is checked where it was
   (`vision.find.grid_still_there`): if the board itself moved, it is found again, the new
   homography is adopted and status becomes ``"board-moved"`` until the next reading. Then the
   cells are read (`vision.reader.read_cells`) and an Observation is returned if the board
   differs from the last one returned (or one was requested with `request()`).

A frame with a hand in it never yields an observation: occluded frames return before reading.
Dropped frames (None) are skipped; black frames (a glitching camera) restart the stillness
window, since the board may have changed while the camera was blind. Neither ever raises.

Limits: boards without markers have no printed mat to compare with, so the first reading
trusts stillness alone; when their corners were typed (`--corners`) a board moved on the table
is not noticed (one found from its grid is, when no hand is over it).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from companion.errors import UserError
from companion.observation import Observation
from vision.find import board_kind, grid_still_there
from vision.layouts import Layout
from vision.locate import Located, corner_shift, locate, relocate, resolve_layout
from vision.pose import CameraPose
from vision.sources import is_black
from vision.stillness import MotionMeter, OccluderCheck, StillnessClock, colour_view, gray_of

SEARCHING = "searching"  # the board has not been found (yet, or again)
MOVING = "moving"  # something on the board is changing, nothing over it
HANDS = "hands"  # something is over the board: a hand, an arm, its shadow
STILL = "still"  # still and uncovered: what the last observation says is on the board
BOARD_MOVED = "board-moved"  # the mat itself moved on the table; re-located

LEAN_HEIGHT = 1.7  # cell widths: the tallest piece (a chess set's king is 1.6-1.7 squares)
CROWN_RADIUS = 0.25  # cell widths: a tall piece's top is narrow (a king's crown: 0.2)
SHADOW_REACH = 1.0  # cell widths beyond a piece's disc its shadow may fall (lamp >= 60 deg)
MAX_LEAN = 4.0  # how far a piece may lean at most, in distances from the camera's foot
PIECE_DISC = 1.12  # piece discs in the top view: this times the cell's inscribed radius
EDGE_MM = 5.0  # the strip along the mat's edge that only the last still board can judge
COLOUR_EVERY = 4  # frames between colour checks, unless the board is about to be read
APRON_MM = 10.0  # the table round the mat in the top view: hands come in across it
RIM_PX = 1  # the top view's outermost pixels, which show the table too: never judged
MOVED_PX = 2.5  # the board's corners moved more than this (image px): the board moved
LIGHT_REBASE_SECONDS = 0.5  # still, mat clean, only the old reference differs: light changed
GRID_REBASE_SECONDS = 10.0  # the same without a printed mat to confirm (grid boards)
PHOTO_WIDTH_PX = 480  # the board photo kept with each move (the records cap its bytes)


@dataclasses.dataclass
class _BoardModel:
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


class Tracker:
    """Turns a stream of frames into Observations of a still, uncovered board.

    `layout` is a Layout or a name (``auto`` works where markers are present); `calibration`
    is what `vision.reader.read_cells` needs (None: follow the board and report `status`, but
    never read it - e.g. before the players have calibrated). `corners` (image px, TL TR BR BL of the playing
    area) locates a board without markers. `fps` turns frame counts into time when `feed` is
    given no timestamp.
    """

    def __init__(
        self,
        layout: Layout | str,
        calibration: Any,
        *,
        corners: Any = None,
        still_seconds: float = 0.5,
        fps: float = 30.0,
        view_px: int = 256,
        search_interval: float = 0.2,
    ) -> None:
        if still_seconds < 0 or fps <= 0:
            raise UserError("still_seconds must be >= 0 and fps > 0")
        self.layout_spec = layout
        self.layout: Layout | None = layout if isinstance(layout, Layout) else None
        if isinstance(layout, str) and layout.strip().lower() != "auto":
            self.layout = resolve_layout(layout)
        self.calibration = calibration
        self.corners = corners
        self.still_seconds = still_seconds
        self.fps = fps
        self.view_px = view_px
        self.search_interval = search_interval

        self.status = SEARCHING
        self.located: Located | None = None
        self.problem = ""  # why the board is not found, for the screen / log
        self.frame_index = -1
        self.last_observation: Observation | None = None
        self.board_moves = 0  # how often the board was found moved on the table
        self.detections = 0  # full marker detections run (for the benchmark)
        self.motion = 0.0  # the last frame's motion (fraction of the view that changed)
        self.occluder_px = 0  # the last frame's occluder size (top-view pixels)

        self._model: _BoardModel | None = None
        self._standing: tuple[Located, np.ndarray] | None = None  # see _standing_zone
        self._motion = MotionMeter()
        self._clean = StillnessClock(still_seconds)  # still AND nothing over the board
        self._still = StillnessClock(still_seconds)  # still, covered or not
        self._last_search = -1e9
        self._checked_since: float | None = None  # the still period already re-checked
        self._dirty = True  # something happened since the last reading
        self._wanted = True  # an observation is due even if the board looks the same
        self._occluded_since: float | None = None
        self._moved = False  # the board moved and has not been read since
        self._colour_frame = -COLOUR_EVERY  # the last frame whose colour was judged
        self._colour_found = (0, 0)  # and what it found (see `_occluders`)

    # -- the public API -----------------------------------------------------------------------------
    def request(self) -> None:
        """Return the next still board even if it is the same as the last one returned."""
        self._wanted = True

    def reset(self) -> None:
        """Forget the board's location (search again) and the last observation."""
        self.located = None
        self._model = None
        self._standing = None
        self.last_observation = None
        self.status = SEARCHING
        self._restart_window()
        self._wanted = True

    def feed(self, frame: np.ndarray | None, t: float | None = None) -> Observation | None:
        """Take the next camera frame (None: dropped). `t` is its time in seconds (default: the
        frame count / fps). Returns an Observation when a new still board was read."""
        self.frame_index += 1
        now = self.frame_index / self.fps if t is None else float(t)
        if not _usable(frame):
            return None
        if is_black(frame):
            self._restart_window()
            return None
        if self.located is not None and _size_changed(self.located, frame):
            self.located = None  # the camera came back at another resolution: find it again
            self._restart_window()
        if self.located is None and not self._search(frame, now):
            return None
        model = self._model
        colour, gray = self._views(frame)
        self.motion = self._motion.update(gray[model.mat])  # the table round it may move
        moving = self.motion > self._clean.max_motion
        on_mat, on_reference = self._occluders(colour, gray, now, moving)
        self.occluder_px = on_mat + on_reference
        occluded = self.occluder_px > 0
        if moving or occluded:
            self._dirty = True
        if occluded:
            self.status = HANDS
        elif self._moved:
            self.status = BOARD_MOVED  # shown until the moved board has been read
        else:
            self.status = MOVING if moving else STILL
        still = self._still.update(self.motion, now)
        clean = self._clean.update(1.0 if occluded else self.motion, now)
        if not still:
            self._occluded_since = None
            return None
        if occluded:
            return self._still_but_covered(frame, colour, gray, now, on_mat, on_reference)
        # (_occluded_since stays: a difference that flickers, as a changed light can near the
        # thresholds, is still "covered since" its first frame in this still period.)
        if not clean or not (self._dirty or self._wanted) or self.calibration is None:
            return None
        located = self.located
        if not self._board_in_place(frame, now):
            return None
        if self.located is not located:  # a better homography: look again through it
            colour, gray = self._views(frame)
        return self._read(frame, colour, gray, now)

    def _occluders(self, colour, gray, now: float, moving: bool) -> tuple[int, int]:
        """(occluder pixels against the printed mat, against the last still board).

        Brightness is judged on every frame. Colour (pale skin on white paper) costs more: it
        is judged on every COLOUR_EVERY-th frame, its verdict held in between, and always
        when the board is about to be read - a still view is the same picture throughout the
        stillness window, so judging its last frame is judging them all."""
        checks = self._model.occluders
        loose = len(self.located.markers_seen) < len(self._model.layout.markers)
        standing = self._standing_zone()
        on_mat = checks.against_mat(gray, loose=loose, standing=standing)
        on_reference = checks.against_reference(gray, standing=standing)
        if on_mat or on_reference:
            return on_mat, on_reference
        since = self._clean.since if self._clean.since is not None else now
        ready = not moving and now - since >= self.still_seconds - 1e-9
        if ready or self.frame_index - self._colour_frame >= COLOUR_EVERY:
            self._colour_frame = self.frame_index
            self._colour_found = (
                checks.against_mat(gray, colour, loose=loose, standing=standing),
                checks.against_reference(gray, colour, standing=standing),
            )
        return self._colour_found

    def _standing_zone(self) -> np.ndarray:
        """Where the pieces may show over the paper from where the camera is (per location)."""
        located = self.located
        if self._standing is None or self._standing[0] is not located:
            zone = standing_zone(
                located.layout, located.homography, located.image_size, self.view_px
            )
            self._standing = (located, zone)
        return self._standing[1]

    # -- finding the board ----------------------------------------------------------------------------
    def _search(self, frame: np.ndarray, now: float) -> bool:
        if now - self._last_search < self.search_interval:
            return False
        self._last_search = now
        self.detections += 1
        try:
            located = locate(frame, self.layout or self.layout_spec, self.corners)
        except UserError as exc:
            self.problem = str(exc)
            self.status = SEARCHING
            return False
        self._adopt(located)
        return True

    def _adopt(self, located: Located) -> None:
        """Use a (new) location: rebuild the top view if the layout changed."""
        self.located = located
        self.problem = ""
        if self._model is None or self._model.layout.name != located.layout.name:
            self.layout = located.layout
            self._model = _board_model(located.layout, self.view_px)
        self._model.occluders.reference = None  # the old view no longer lines up
        self._restart_window()

    def _restart_window(self) -> None:
        self._colour_frame = -COLOUR_EVERY  # judge the colour again at once
        self._colour_found = (0, 0)
        self._motion.reset()
        self._clean.reset()
        self._still.reset()
        self._checked_since = None
        self._dirty = True

    def _board_in_place(self, frame: np.ndarray, now: float, *, covered: bool = False) -> bool:
        """Before reading: are the markers where they were? Re-locate if not (board moved).

        Returns False when the board was moved (the next still window reads it) or lost. A
        board found from its grid that is not found again while something is over it
        (`covered`) keeps its location: the hand may hide the grid."""
        located = self.located
        if located.markers_seen:
            found = relocate(frame, located)
        elif self._found_from_grid():
            found = grid_still_there(frame, located)  # found from its grid: is it still there?
        else:  # typed corners: nothing to compare them with
            return True
        if found is None:
            self.detections += 1
            try:
                found = locate(frame, located.layout)
            except UserError as exc:
                if covered and not located.markers_seen:
                    return False
                self.problem = str(exc)
                self.located = None
                self.status = SEARCHING
                return False
        if board_shift(located, found) > MOVED_PX:
            self.board_moves += 1
            self._adopt(found)
            self._moved = True
            self.status = BOARD_MOVED
            return False
        if len(found.markers_seen) > len(located.markers_seen):
            self.located = found  # more markers in view than when it was found: more accurate
        return True

    def _found_from_grid(self) -> bool:
        """A board without markers whose grid was found (not typed corners): it can be checked."""
        return self.corners is None and bool(board_kind(self.located.layout))

    def _still_but_covered(
        self, frame, colour, gray, now: float, on_mat: int, on_reference: int
    ) -> None:
        """Still but something differs. A hand resting on the board, or: the board moved (the
        reference no longer lines up), or the light changed (only the reference differs, and a
        smooth change of light explains all of it - a hand never does)."""
        if self._occluded_since is None:
            self._occluded_since = now
        if self._checked_since != self._still.since:
            self._checked_since = self._still.since
            if (self.located.markers_seen or self._found_from_grid()) and not self._board_in_place(
                frame, now, covered=True
            ):
                return None
        covered_for = now - self._occluded_since
        has_mat = self._model.occluders.printed is not None
        if on_mat == 0 and on_reference > 0:
            limit = LIGHT_REBASE_SECONDS if has_mat else GRID_REBASE_SECONDS
            relit = self._model.occluders.against_relit_reference
            if covered_for >= limit and relit(gray, colour, standing=self._standing_zone()) == 0:
                self._model.occluders.reference = None  # the next frame is judged on the mat
                self._dirty = True
        return None

    # -- reading ----------------------------------------------------------------------------------------
    def _read(
        self, frame: np.ndarray, colour: np.ndarray, gray: np.ndarray, now: float
    ) -> Observation | None:
        from vision.reader import read_cells

        observation = read_cells(
            frame, self.located.homography, self.layout, self.calibration, covered=()
        )
        observation = dataclasses.replace(
            observation,
            frame=self.frame_index,
            timestamp=now,
            markers_seen=len(self.located.markers_seen),
            layout=self.layout.name,
            photo=board_photo(frame, self.located.homography, self.layout),
        )
        self._model.occluders.set_reference(gray, colour)
        self._occluded_since = None
        self._dirty = False
        self._moved = False
        self.status = STILL
        same = self.last_observation is not None and (
            self.last_observation.cells == observation.cells
        )
        if same and not self._wanted:
            return None
        self._wanted = False
        self.last_observation = observation
        return observation

    def _views(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The top view's colour and brightness, smoothed (see `vision.stillness`)."""
        colour = colour_view(self._top_view(frame))
        return colour, gray_of(colour)

    def _top_view(self, frame: np.ndarray) -> np.ndarray:
        return _top_view(frame, self.located.homography, self._model)


def _top_view(frame: np.ndarray, homography: np.ndarray, model: _BoardModel) -> np.ndarray:
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
    colour = colour_view(_top_view(frame, homography, model))
    size = (frame.shape[1], frame.shape[0])
    standing = standing_zone(layout, homography, size, 256)
    found = model.occluders.against_mat(gray_of(colour), colour, loose=loose, standing=standing)
    return found, layout.cell_names() if found else []


@functools.lru_cache(maxsize=8)
def _read_model(layout: Layout) -> _BoardModel:
    return _board_model(layout, 256)


def _usable(frame: Any) -> bool:
    return (
        isinstance(frame, np.ndarray)
        and frame.ndim == 3
        and frame.shape[2] == 3
        and frame.shape[0] >= 16
        and frame.shape[1] >= 16
        and frame.dtype == np.uint8
    )


def board_shift(a: Located, b: Located) -> float:
    """How far the mat moved between two locations (image px): the largest median shift of
    the corners of a marker seen in both. Comparing what was seen, not the board corners the
    homographies extrapolate, keeps a location from 3 markers and one from 4 from looking
    like a move. Without a common marker: how far the board's corners moved."""
    shifts = [
        float(np.median(np.linalg.norm(a.marker_corners[i] - b.marker_corners[i], axis=1)))
        for i in set(a.marker_corners) & set(b.marker_corners)
    ]
    return max(shifts) if shifts else corner_shift(a, b)


def standing_zone(
    layout: Layout, homography: np.ndarray, image_size: tuple[int, int], view_px: int
) -> np.ndarray:
    """Where in the top view (bool) a piece standing on a cell, or its shadow, may show from
    this camera.

    The top view maps the board plane; a piece rises above it, and the camera sees its upper
    part over the board behind it, away from the camera - the taller the piece and the lower the
    camera, the farther (a king of a chess set leans over the paper beyond the last row). For
    every cell: the piece disc, and a crown LEAN_HEIGHT above it as the camera's rays carry it
    down to the board (`CameraPose` from the homography), and all between; and its shadow,
    SHADOW_REACH round its disc. A change there that stays clear of the mat's edge is the
    pieces, not a hand (`OccluderCheck._not_the_pieces`)."""
    scale, (width, height), margin, _, _ = _view_masks(layout, view_px)
    if not image_size[0] or not image_size[1]:
        return np.zeros((height, width), bool)
    camera = CameraPose.from_homography(homography, image_size).centre()
    pitch = 2.0 * min(cell.radius for cell in layout.cells)
    rise = LEAN_HEIGHT * pitch
    # A camera hardly higher than the pieces sees them lean without end: bounded at
    # MAX_LEAN times the distance (the view is useless for reading long before).
    stretch = rise / (camera[2] - rise) if camera[2] > rise * (1 + 1 / MAX_LEAN) else MAX_LEAN
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
        shade = int(round((radius + SHADOW_REACH * pitch) * scale * 4))
        cv2.circle(zone, centre, shade, 1, -1, cv2.LINE_8, 2)
    return zone > 0


def _size_changed(located: Located, frame: np.ndarray) -> bool:
    width, height = located.image_size
    return bool(width and height) and (frame.shape[1], frame.shape[0]) != (width, height)


def _board_model(layout: Layout, view_px: int) -> _BoardModel:
    """The top view of a layout with a fresh occluder check (no reference yet)."""
    scale, size, margin, masks, printed = _view_masks(layout, view_px)
    min_area = max(20, int(150 * scale * scale))  # about 12 x 12 mm
    paper, rim, apron, mat = masks
    occluders = OccluderCheck(paper, printed, rim=rim, apron=apron, mat=mat, min_area_px=min_area)
    return _BoardModel(layout, scale, size, margin, occluders)


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
        from vision.mat import render_mat

        image = render_mat(layout, px_per_mm=4 * scale, labels=True)
        image = cv2.resize(image, (mat_w, mat_h), interpolation=cv2.INTER_AREA)
        image = cv2.copyMakeBorder(image, *(margin,) * 4, cv2.BORDER_REPLICATE)
        printed = colour_view(image)
    return scale, (width, height), margin, (paper, rim, apron, mat), printed


def board_photo(
    frame: np.ndarray, homography: np.ndarray, layout: Layout
) -> Callable[[int], bytes]:
    """The mat in `frame` seen from straight above, PHOTO_WIDTH_PX wide, for the records.
    Warped now (a camera may reuse its frame buffer), encoded only when a move is stored:
    JPEG quality -> JPEG bytes."""
    width_mm, height_mm = layout.size
    s = PHOTO_WIDTH_PX / width_mm
    size = (PHOTO_WIDTH_PX, max(1, round(height_mm * s)))
    view_to_mat = np.array([[1 / s, 0, 0.5 / s], [0, 1 / s, 0.5 / s], [0, 0, 1.0]])
    top = cv2.warpPerspective(
        frame,
        np.asarray(homography, np.float64) @ view_to_mat,
        size,
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )

    def encode(quality: int) -> bytes:
        ok, data = cv2.imencode(".jpg", top, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
        if not ok:
            raise ValueError("OpenCV could not encode the board photo as JPEG")
        return data.tobytes()

    return encode
