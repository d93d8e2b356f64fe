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
2. Once found, the frame is halved (area averaging, which also halves the noise) and warped to a small *top view* of the mat
   through the known homography - no marker detection per frame.
3. `vision.stillness` measures the motion since the previous frame and looks for occluders:
   anything that differs, outside the piece discs, from the printed mat under a fitted lighting
   field or from the last accepted still board. Status ``"hands"`` or ``"moving"``.
4. When the view has been free of motion *and* occluders for `still_seconds`, and something
   happened since the last reading (or a reading was requested), the markers are looked for in
   small windows where they were (`vision.locate.relocate`): if the board itself moved, the new
   homography is adopted and status becomes ``"board-moved"`` until the next reading. Then the
   cells are read (`vision.reader.read_cells`) and an Observation is returned if the board
   differs from the last one returned (or one was requested with `request()`).

A frame with a hand in it never yields an observation: occluded frames return before reading.
Dropped frames (None) are skipped; black frames (a glitching camera) restart the stillness
window, since the board may have changed while the camera was blind. Neither ever raises.

Limits: boards located from `--corners` (grid:RxC) have no printed mat to compare with, so the
first reading trusts stillness alone, and a board moved on the table is not noticed.
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
from vision.layouts import Layout
from vision.locate import Located, corner_shift, locate, relocate, resolve_layout
from vision.sources import is_black
from vision.stillness import MotionMeter, OccluderCheck, StillnessClock, gray_view

SEARCHING = "searching"  # the board has not been found (yet, or again)
MOVING = "moving"  # something on the board is changing, nothing over it
HANDS = "hands"  # something is over the board: a hand, an arm, its shadow
STILL = "still"  # still and uncovered: what the last observation says is on the board
BOARD_MOVED = "board-moved"  # the mat itself moved on the table; re-located

PIECE_DISC = 1.12  # piece discs in the top view: this times the cell's inscribed radius
EDGE_MM = 5.0  # the strip along the mat's edge that the occluder checks leave out
MOVED_PX = 2.5  # the board's corners moved more than this (image px): the board moved
LIGHT_REBASE_SECONDS = 0.5  # still, mat clean, only the old reference differs: light changed
GRID_REBASE_SECONDS = 10.0  # the same without a printed mat to confirm (grid boards)
PHOTO_WIDTH_PX = 480  # the board photo kept with each move (the records cap its bytes)


@dataclasses.dataclass
class _BoardModel:
    """Everything precomputed for one located layout: the top view and its masks."""

    layout: Layout
    scale: float  # top-view pixels per mm
    size: tuple[int, int]  # top-view (width, height)
    occluders: OccluderCheck


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
        self._motion = MotionMeter()
        self._clean = StillnessClock(still_seconds)  # still AND nothing over the board
        self._still = StillnessClock(still_seconds)  # still, covered or not
        self._last_search = -1e9
        self._checked_since: float | None = None  # the still period already re-checked
        self._dirty = True  # something happened since the last reading
        self._wanted = True  # an observation is due even if the board looks the same
        self._occluded_since: float | None = None
        self._moved = False  # the board moved and has not been read since

    # -- the public API -----------------------------------------------------------------------------
    def request(self) -> None:
        """Return the next still board even if it is the same as the last one returned."""
        self._wanted = True

    def reset(self) -> None:
        """Forget the board's location (search again) and the last observation."""
        self.located = None
        self._model = None
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
        gray = gray_view(self._top_view(frame))
        self.motion = self._motion.update(gray)
        moving = self.motion > self._clean.max_motion
        on_mat = model.occluders.against_mat(gray)
        on_reference = model.occluders.against_reference(gray)
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
            return self._still_but_covered(frame, gray, now, on_mat, on_reference)
        self._occluded_since = None
        if not clean or not (self._dirty or self._wanted) or self.calibration is None:
            return None
        located = self.located
        if not self._board_in_place(frame, now):
            return None
        if self.located is not located:  # a better homography: look again through it
            gray = gray_view(self._top_view(frame))
        return self._read(frame, gray, now)

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
        self._motion.reset()
        self._clean.reset()
        self._still.reset()
        self._checked_since = None
        self._dirty = True

    def _board_in_place(self, frame: np.ndarray, now: float) -> bool:
        """Before reading: are the markers where they were? Re-locate if not (board moved).

        Returns False when the board was moved (the next still window reads it) or lost."""
        located = self.located
        if not located.markers_seen:  # located from corners: nothing to check against
            return True
        found = relocate(frame, located)
        if found is None:
            self.detections += 1
            try:
                found = locate(frame, located.layout)
            except UserError as exc:
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

    def _still_but_covered(self, frame, gray, now: float, on_mat: int, on_reference: int) -> None:
        """Still but something differs. A hand resting on the board, or: the board moved (the
        reference no longer lines up), or the light changed (only the reference differs, and a
        smooth change of light explains all of it - a hand never does)."""
        if self._occluded_since is None:
            self._occluded_since = now
        if self._checked_since != self._still.since:
            self._checked_since = self._still.since
            if self.located.markers_seen and not self._board_in_place(frame, now):
                return None
        covered_for = now - self._occluded_since
        has_mat = self._model.occluders.printed is not None
        if on_mat == 0 and on_reference > 0:
            limit = LIGHT_REBASE_SECONDS if has_mat else GRID_REBASE_SECONDS
            if covered_for >= limit and self._model.occluders.against_relit_reference(gray) == 0:
                self._model.occluders.reference = None  # the next frame is judged on the mat
                self._dirty = True
        return None

    # -- reading ----------------------------------------------------------------------------------------
    def _read(self, frame: np.ndarray, gray: np.ndarray, now: float) -> Observation | None:
        from vision.reader import read_cells

        observation = read_cells(frame, self.located.homography, self.layout, self.calibration)
        observation = dataclasses.replace(
            observation,
            frame=self.frame_index,
            timestamp=now,
            markers_seen=len(self.located.markers_seen),
            layout=self.layout.name,
            photo=board_photo(frame, self.located.homography, self.layout),
        )
        self._model.occluders.set_reference(gray)
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

    def _top_view(self, frame: np.ndarray) -> np.ndarray:
        """The mat seen from straight above at `scale` px/mm, from the half-size frame."""
        model = self._model
        height, width = frame.shape[:2]
        small = cv2.resize(frame, (width // 2, height // 2), interpolation=cv2.INTER_AREA)
        # Half-size pixel centres: full = 2 * small + 0.5. Top-view pixel u shows mm (u+0.5)/s.
        to_small = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1.0]])
        s = model.scale
        from_view = np.array([[1 / s, 0, 0.5 / s], [0, 1 / s, 0.5 / s], [0, 0, 1.0]])
        view_to_small = to_small @ self.located.homography @ from_view
        return cv2.warpPerspective(
            small,
            view_to_small,
            model.size,
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )


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


def _size_changed(located: Located, frame: np.ndarray) -> bool:
    width, height = located.image_size
    return bool(width and height) and (frame.shape[1], frame.shape[0]) != (width, height)


def _board_model(layout: Layout, view_px: int) -> _BoardModel:
    """The top view of a layout with a fresh occluder check (no reference yet)."""
    scale, size, paper, printed = _view_masks(layout, view_px)
    min_area = max(20, int(150 * scale * scale))  # about 12 x 12 mm
    occluders = OccluderCheck(paper, printed, min_area_px=min_area)
    return _BoardModel(layout, scale, size, occluders)


@functools.lru_cache(maxsize=16)
def _view_masks(layout: Layout, view_px: int) -> tuple[float, tuple[int, int], np.ndarray, Any]:
    """The top view of a layout: its scale and size, the paper mask (where no piece can ever
    be) and, for printed mats, the printed mat's brightness as the camera should see it."""
    w_mm, h_mm = layout.size
    scale = view_px / max(w_mm, h_mm)
    width, height = max(8, int(round(w_mm * scale))), max(8, int(round(h_mm * scale)))
    paper = np.full((height, width), 255, np.uint8)
    for cell in layout.cells:
        cx, cy = (v * scale - 0.5 for v in cell.center)
        radius = cell.radius * PIECE_DISC * scale + 1.0
        centre = (int(round(cx * 4)), int(round(cy * 4)))
        cv2.circle(paper, centre, int(radius * 4), 0, -1, cv2.LINE_8, 2)
    # The mat's own edge blends with the table under blur and a homography off by a pixel:
    # leave a strip of EDGE_MM out (an arm crossing the edge is seen just inside it anyway).
    edge = max(2, int(round(EDGE_MM * scale)))
    paper[:edge, :] = paper[-edge:, :] = paper[:, :edge] = paper[:, -edge:] = 0
    printed = None
    if layout.markers:
        from vision.mat import render_mat

        mat = render_mat(layout, px_per_mm=4 * scale, labels=True)
        printed = gray_view(cv2.resize(mat, (width, height), interpolation=cv2.INTER_AREA))
    return scale, (width, height), paper > 0, printed


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
