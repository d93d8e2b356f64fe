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
Before the first reading there is no last still board; given `clear_view` (the app gives the
calibration photo, the table with nothing over it) the first board is compared with that.
What stays over the board while the view is still becomes status ``"covered"`` after
COVERED_SECONDS: a resting hand - or no hand at all, such as a low lamp's shadow of a tall piece
across the mat's edge or a captured piece put down on the margin, which the checks cannot
tell from a hand there. Nothing is read until it goes or the players say the board is clear
(`read_as_it_is`: the app's BOARD CLEAR, `clear` typed to `companion referee`); then the view
is read as it is and what lay there is left out of the checks until a still board no longer
shows it (`vision.stillness.OccluderCheck.accept`).
Dropped frames (None) are skipped; black frames (a glitching camera, a covered lens, the light
off: `vision.exposure.is_black`) restart the stillness window, since the board may have changed
while the camera was blind - after DARK_SECONDS of them the status is ``"dark"`` and `problem`
asks whether the lens is covered or the light off. Neither ever raises.

Boards whose corners were tapped or typed (`corners`, no markers, not found from the grid):
the grid as tapped is checked where it was (`vision.find.grid_still_there`, checkered or lined)
from the first still board on which that check sees it. A board that slid a little is followed
(status ``"board-moved"`` until it is read); one that moved further cannot be found again
without markers - once the view has differed from the last still board for TAPPED_LOST_SECONDS
with the grid not where it was, `lost` is set: status ``"board-moved"``, `problem` asks for the
board back or its corners tapped again, and nothing is read until the board is back where it
was (checked every TAPPED_CHECK_SECONDS) or a new tracker gets new corners.

Limits: boards without markers have no printed mat to compare with, so the first reading
trusts stillness alone; a tapped board whose grid the check never sees (a board that is
neither clearly checkered nor lined, or corners tapped far off) is not checked, as before.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from companion.errors import UserError
from companion.i18n import _
from companion.observation import Observation
from vision.exposure import is_black
from vision.find import board_kind, grid_still_there
from vision.layouts import Layout, Marker, layout_or_auto
from vision.locate import Located, corner_shift, locate, relocate
from vision.reader import read_cells
from vision.relearn import learn_from_board, refit_due, refit_to_board, with_refit
from vision.standing import StandingCalibration
from vision.stillness import MotionMeter, StillnessClock, colour_view, gray_of
from vision.top_view import (
    BoardModel,
    board_model,
    covered_cells,  # noqa: F401 - `companion vision` and the benches find it here
    standing_zone,
    top_view,
)

SEARCHING = "searching"  # the board has not been found (yet, or again)
MOVING = "moving"  # something on the board is changing, nothing over it
HANDS = "hands"  # something is over the board: a hand, an arm, its shadow
# still, but something has lain over the board for COVERED_SECONDS: a hand resting, or no
# hand at all - a low lamp's shadow across the mat's edge, a piece put down on its margin.
# Nothing is read; the players may say the board is clear (`read_as_it_is`).
COVERED = "covered"
STILL = "still"  # still and uncovered: what the last observation says is on the board
BOARD_MOVED = "board-moved"  # the mat itself moved on the table; re-located
# every frame all but black for DARK_SECONDS: a covered lens or the light off (`problem` says
# so); nothing is read until the board shows again. Shorter (a camera's glitch) keeps the status.
DARK = "dark"
DARK_SECONDS = 1.0

COLOUR_EVERY = 4  # frames between colour checks, unless the board is about to be read
MOVED_PX = 2.5  # the board's corners moved more than this (image px): the board moved
LIGHT_REBASE_SECONDS = 0.5  # still, mat clean, only the old reference differs: light changed
GRID_REBASE_SECONDS = 10.0  # the same without a printed mat to confirm (grid boards)
TAPPED_LOST_SECONDS = 2.0  # tapped corners: grid not there, view changed, still this long: moved
TAPPED_CHECK_SECONDS = 0.5  # how often a tapped board's grid is looked for meanwhile
COVERED_SECONDS = 3.0  # still and covered this long: "covered" (see COVERED)
PHOTO_WIDTH_PX = 480  # the board photo kept with each move (the records cap its bytes)


def dark_problem() -> str:
    """The tracker's `problem` while its status is DARK."""
    return _(
        "the camera's picture is all but black: is the lens covered, or the light off? Nothing "
        "is read until the board shows again"
    )


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
        near: np.ndarray | None = None,
        still_seconds: float = 0.5,
        fps: float = 30.0,
        view_px: int = 256,
        search_interval: float = 0.2,
        refit_in_background: bool = False,
        clear_view: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        if still_seconds < 0 or fps <= 0:
            raise UserError("still_seconds must be >= 0 and fps > 0")
        self.layout_spec = layout
        self.layout: Layout | None = (
            layout if isinstance(layout, Layout) else layout_or_auto(layout)
        )
        self.calibration = calibration
        self.corners = corners
        # A board found from its grid: the corners (TL, TR, BR, BL px) of its last location, so
        # that finding it again keeps it the way round it was calibrated (`find_board`'s
        # `near`: a chessboard seen from Black's side is found turned by the grid alone).
        self.near = None if near is None else np.asarray(near, np.float64)
        self.still_seconds = still_seconds
        self.fps = fps
        self.view_px = view_px
        self.search_interval = search_interval

        self.status = SEARCHING
        self.located: Located | None = None
        self.problem = ""  # why the board is not found, for the screen / log
        self._dark_since: float | None = None  # the first of the black frames in a row
        self.frame_index = -1
        self.last_observation: Observation | None = None
        self.board_moves = 0  # how often the board was found moved on the table
        self.detections = 0  # full marker detections run (for the benchmark)
        self.motion = 0.0  # the last frame's motion (fraction of the view that changed)
        self.occluder_px = 0  # the last frame's occluder size (top-view pixels)

        self._model: BoardModel | None = None
        # (picture, homography) of the table with nothing over it - the calibration photo -
        # until the board is located by every marker: see _first_reference
        self._clear_view = _checked_clear_view(clear_view)
        # where the picture shows the mat (None: not looked for yet; False: no markers there)
        self._clear_located: Located | bool | None = None
        self._standing: tuple[Located, np.ndarray] | None = None  # see _standing_zone
        # the last frame read, its index and homography: see learn_from_board
        self._read_frame: tuple[int, np.ndarray, np.ndarray] | None = None
        # fitting the model again to a board of the game (`learn_from_board`): in a thread of
        # its own when `refit_in_background` (the app: a calibration takes about a second on a
        # Pi), installed by the next `feed` or `learn_from_board` once done
        self.refit_in_background = refit_in_background
        self._refit: threading.Thread | None = None
        self._refitted: tuple[StandingCalibration | None, int] | None = None
        self._motion = MotionMeter()
        self._clean = StillnessClock(still_seconds)  # still AND nothing over the board
        self._still = StillnessClock(still_seconds)  # still, covered or not
        self._last_search = -1e9
        self._checked_since: float | None = None  # the still period already re-checked
        self._dirty = True  # something happened since the last reading
        self._wanted = True  # an observation is due even if the board looks the same
        self._occluded_since: float | None = None
        self._clear_said = False  # the players said nothing is over the board (read_as_it_is)
        # "covered" was shown (the cell nearest what lies there, "" when none is): it stays
        # until the board is read or something moves, so that a difference flickering near the
        # thresholds does not make it come and go; None: not covered
        self._covered_at: str | None = None
        self._moved = False  # the board moved and has not been read since
        self._colour_frame = -COLOUR_EVERY  # the last frame whose colour was judged
        self._colour_found = (0, 0)  # and what it found (see `_occluders`)
        self._colour_moving = False  # and whether the view was moving then
        # Tapped corners (see the module text): the grid check has seen the tapped board; when
        # it last looked; since when the grid has been missing; and whether the board is lost.
        self._tapped_seen = False
        self._tapped_last = -1e9
        self._tapped_missing: float | None = None
        self.lost = False  # a tapped board moved away: put it back, or tap its corners again

    # -- the public API -----------------------------------------------------------------------------
    def request(self) -> None:
        """Return the next still board even if it is the same as the last one returned."""
        self._wanted = True

    @property
    def covered_near(self) -> str:
        """While the status is "covered": the cell nearest what lies there ("h4"), else ""."""
        return self._covered_at or ""

    def read_as_it_is(self) -> None:
        """The players say nothing is over the board: read the next still view as it is, even
        if something seems to lie over it (status "covered": a lamp's shadow across the mat's
        edge, a captured piece on its margin), and leave what lies there out of the checks
        until a still board no longer shows it (`OccluderCheck.accept`). Said while the view
        moves, it is forgotten: the players see the board still when they say it."""
        self._clear_said = True
        self._wanted = True

    def learn_from_board(self, frame: int, board: dict[str, str]) -> bool:
        """The still board read from frame number `frame` shows `board` (cell -> class, the
        rest empty), as the referee took it: learn from it about the cells no calibration
        photo showed empty, and now and then fit the whole model again to it
        (`vision.relearn.learn_from_board`; with `refit_in_background`, in a thread of its
        own). Whether a cell's empty look was learned; a frame that is not the last one read,
        or a calibration of the flat-stone model, teaches nothing."""
        if (
            self._read_frame is None
            or self._read_frame[0] != frame
            or not isinstance(self.calibration, StandingCalibration)
            or self.layout is None
        ):
            return False
        self._install_refit()
        _, image, homography = self._read_frame
        before = len(self.calibration.unlearned)
        background = self.refit_in_background
        self.calibration = learn_from_board(
            self.calibration, image, homography, self.layout, board, refit=not background
        )
        if background:
            self._start_refit(image, homography, board)
        return len(self.calibration.unlearned) < before

    def _start_refit(
        self, image: np.ndarray, homography: np.ndarray, board: dict[str, str]
    ) -> None:
        """Fit the model again to `board` in a thread, when it is due and none is running."""
        if self._refit is not None or self.layout is None:
            return
        changes = refit_due(self.calibration, self.layout, board)
        if changes is None:
            return
        calibration, layout, image = self.calibration, self.layout, image.copy()

        def fit() -> None:
            fitted = None
            try:
                fitted = refit_to_board(calibration, image, homography, layout, board, changes)
            except Exception:  # a bug must not end the game: the model stays as it was
                logging.getLogger(__name__).exception("fitting the model again failed")
            self._refitted = (fitted, changes)

        # Not a daemon: a process that ends while a fit is running waits for it (well under a
        # second) - a thread left inside OpenCV while the interpreter shut down aborted the
        # process ("terminate called without an active exception", exit 134) after a demo.
        self._refit = threading.Thread(target=fit, name="refit", daemon=False)
        self._refit.start()

    def _install_refit(self) -> bool:
        """Take the model fitted in the background, once it is done (whether it was)."""
        if self._refit is None or self._refit.is_alive() or self._refitted is None:
            return False
        fitted, changes = self._refitted
        self._refit, self._refitted = None, None
        self.calibration = with_refit(self.calibration, fitted, changes)
        return True

    def wait_for_refit(self, timeout: float | None = None) -> bool:
        """Wait for a fit running in the background and take it (tests, shutting down)."""
        if self._refit is not None:
            self._refit.join(timeout)
        return self._install_refit()

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
        self._install_refit()
        if not _usable(frame):
            return None
        if is_black(frame):
            self._restart_window()
            if self._dark_since is None:
                self._dark_since = now
            elif now - self._dark_since >= DARK_SECONDS and self.status != DARK:
                self.status = DARK
                self.problem = dark_problem()
            return None
        self._dark_since = None
        if self.status == DARK:  # light again: as before the dark, until this frame says
            self.status = SEARCHING if self.located is None else MOVING
            self.problem = ""
        if self.located is not None and _size_changed(self.located, frame):
            self.located = None  # the camera came back at another resolution: find it again
            self.near = None  # (in the old picture's pixels)
            self._restart_window()
        if self.located is None and not self._search(frame, now):
            return None
        self._look_for_hidden_markers(frame, now)
        model = self._model
        colour, gray = self._views(frame)
        self.motion = self._motion.update(gray[model.mat])  # the table round it may move
        moving = self.motion > self._clean.max_motion
        on_mat, on_reference = self._occluders(colour, gray, now, moving)
        self.occluder_px = on_mat + on_reference
        occluded = self.occluder_px > 0
        if moving or occluded:
            self._dirty = True
        if self.lost:
            self.status = BOARD_MOVED  # until it is back, or tapped again
        elif occluded:
            self.status = HANDS
        elif self._moved:
            self.status = BOARD_MOVED  # shown until the moved board has been read
        else:
            self.status = MOVING if moving else STILL
        if moving:
            self._covered_at = None
        elif self._covered_at is not None and self.status in (HANDS, STILL):
            self.status = COVERED
        still = self._still.update(self.motion, now)
        clean = self._clean.update(1.0 if occluded else self.motion, now)
        if not still:
            self._occluded_since = None
            self._clear_said = False
            return None
        if occluded:
            if self._clear_said:
                return self._read_as_it_is(frame, colour, gray, now)
            return self._still_but_covered(frame, colour, gray, now, on_mat, on_reference)
        self._clear_said = False  # nothing over the board: an ordinary reading (requested)
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
        """(occluder pixels against the printed mat, against the last still board) - and,
        while the calibration photo waits to be the first last still board
        (`_first_reference`), a marker it shows that this view does not is covered: the area
        of each such marker counts against the mat. A hand resting over a corner marker and
        the cells next to it is mostly over the board, where a piece may show, and over the
        marker, which is no paper: the mat alone missed it, and the first board was read
        with the hand on it (a review's sweep: 25 of 273 resting hands, 0 now)."""
        hidden = self._markers_hidden_from_clear_view()
        if hidden:
            return hidden, 0
        return self._judged(colour, gray, now, moving)

    def _markers_hidden_from_clear_view(self) -> int:
        """Top-view pixels of the markers the waiting calibration photo shows and this
        location did not see (0 once a board was read, or without a photo)."""
        scale = self._model.scale
        return sum(
            round(abs(cv2.contourArea(np.float32(m.corners))) * scale * scale)
            for m in self._hidden_markers()
        )

    def _hidden_markers(self) -> list[Marker]:
        """The markers the waiting calibration photo shows (found in it once) and this
        location did not see; none once a board was read, or without a photo."""
        if self._clear_view is None or self.last_observation is not None or not self._loose():
            return []
        there = self._clear_view_located()
        shown = set(there.markers_seen) if there else set()
        seen = set(self.located.markers_seen)
        return [m for m in self.located.layout.markers if m.id in shown and m.id not in seen]

    def _clear_view_located(self) -> Located | None:
        """Where the waiting calibration photo shows the mat by its markers (None: it shows
        none of them) - looked for once."""
        if self._clear_located is None:
            try:
                self._clear_located = locate(self._clear_view[0], self.located.layout)
            except UserError:  # (a picture without the mat's markers: nothing to compare)
                self._clear_located = False
        return self._clear_located or None

    def _judged(self, colour, gray, now: float, moving: bool) -> tuple[int, int]:
        """(occluder pixels against the printed mat, against the last still board).

        Brightness is judged on every frame. Colour (pale skin on white paper) costs more: it
        is judged on every COLOUR_EVERY-th frame, its verdict held in between, and always
        when the board is about to be read - a still view is the same picture throughout the
        stillness window, so judging its last frame is judging them all - and on the first
        still frame after a verdict judged while the view moved that found something: the
        hand leaving, held over the next still frames, kept the stillness window from
        starting (the realistic bench's own chessboards lost two boards so: their next move
        came before the window filled)."""
        checks = self._model.occluders
        loose = self._loose()
        standing = self._standing_zone()
        on_mat = checks.against_mat(gray, loose=loose, standing=standing)
        on_reference = checks.against_reference(gray, standing=standing)
        if on_mat or on_reference:
            return on_mat, on_reference
        since = self._clean.since if self._clean.since is not None else now
        ready = not moving and now - since >= self.still_seconds - 1e-9
        # (a clear verdict held cannot hold the window back: judged again only when it found
        # something - judging colour on every first still frame cost a quarter more a frame)
        stale = self._colour_moving and not moving and any(self._colour_found)
        if ready or stale or self.frame_index - self._colour_frame >= COLOUR_EVERY:
            self._colour_frame = self.frame_index
            self._colour_moving = moving
            self._colour_found = (
                checks.against_mat(gray, colour, loose=loose, standing=standing),
                checks.against_reference(gray, colour, standing=standing),
            )
        return self._colour_found

    def _nearest_cell(self, where: np.ndarray) -> str:
        """The cell nearest the middle of the largest region of `where` (bool top view), ""
        when it is empty - not the middle of all of them, which may lie on a cell between
        two (a review: a hand near a7 and a shadow by g1 said e4)."""
        count, labels, stats, _ = cv2.connectedComponentsWithStats(
            where.astype(np.uint8), connectivity=8
        )
        if count < 2:
            return ""
        ys, xs = np.nonzero(labels == 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA])))
        model = self._model
        # top-view pixel u shows mat millimetre (u + 0.5 - margin) / scale (`top_view`)
        return self._cell_nearest(
            (np.array([xs.mean(), ys.mean()]) + 0.5 - model.margin) / model.scale
        )

    def _cell_nearest(self, at: np.ndarray) -> str:
        """The cell whose centre is nearest `at` (mat mm)."""
        cells = self._model.layout.cells
        centres = np.array([c.center for c in cells])
        return cells[int(np.argmin(np.linalg.norm(centres - at, axis=1)))].name

    def _loose(self) -> bool:
        """A marker of the mat was not seen: the location is extrapolated towards it."""
        return len(self.located.markers_seen) < len(self._model.layout.markers)

    def _standing_zone(self) -> np.ndarray | None:
        """Where the pieces may show over the paper from where the camera is (per location):
        on a printed mat only. A board without one has no print to tell a hand on the board's
        margin, and the last still board is all it is judged against: there a hand's parts
        between the pieces are the only sign of it, and look just like a piece's lean."""
        if self._model is None or self._model.occluders.printed is None:
            return None
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
            located = locate(frame, self.layout or self.layout_spec, self.corners, near=self.near)
        except UserError as exc:
            self.problem = str(exc)
            self.status = SEARCHING
            return False
        self._adopt(located)
        return True

    def _look_for_hidden_markers(self, frame: np.ndarray, now: float) -> None:
        """While a marker the calibration photo shows is hidden before the first board
        (`_hidden_markers`), look for the markers again now and then: once
        the hand is gone, the fuller location is taken (and with it the photo)."""
        if now - self._last_search < self.search_interval or not self._hidden_markers():
            return
        self._last_search = now
        self.detections += 1
        try:
            located = locate(frame, self.located.layout)
        except UserError:
            return
        if len(located.markers_seen) > len(self.located.markers_seen):
            self._adopt(located)

    def _adopt(self, located: Located) -> None:
        """Use a (new) location: rebuild the top view if the layout changed."""
        self.located = located
        if self.corners is None and not located.markers_seen:
            self.near = located.board_corners_px()  # found from its grid: keep it this way round
        self.problem = ""
        if self._model is None or self._model.layout.name != located.layout.name:
            self.layout = located.layout
            self._model = board_model(located.layout, self.view_px)
        self._model.occluders.reference = None  # the old view no longer lines up
        self._model.occluders.accepted = None
        self._first_reference()
        self._restart_window()

    def _first_reference(self) -> None:
        """Before any board was read: the picture of the table with nothing over it that the
        tracker was given (`clear_view`, the calibration photo) is the last still board the
        checks compare with. Without a last still board, something that reaches the band
        along the mat's edge may be an arm coming in; with one, it is only if the rim or the
        table round the mat changed - a low lamp's shadow of a figure on the far rank reaches
        the band from the board and lay there at calibration too
        (`vision.stillness.OccluderCheck._crossing`). Taken once the board is located by
        every marker: a location from fewer, while a hand hides one, lies a few pixels off,
        and the picture's view (through its own homography) and the frames' would differ
        along every line of the print. A picture that is not a colour frame, or a
        calibration of another layout than the board found, is left out."""
        if self._clear_view is None or self.last_observation is not None:
            self._clear_view = None
            return
        if len(self.located.markers_seen) < len(self.located.layout.markers):
            return  # (until a location from every marker)
        picture, homography = self._clear_view
        if not _usable(picture) or getattr(self.calibration, "layout", None) != self.layout.name:
            self._clear_view = None
            return
        homography = self._clear_view_homography(homography)
        self._clear_view = None
        colour = colour_view(top_view(picture, homography, self._model))
        self._model.occluders.set_reference(gray_of(colour), colour)

    def _clear_view_homography(self, homography: np.ndarray) -> np.ndarray:
        """How to view the clear picture: through its own homography - or, when the picture
        shows fewer of the mat's markers than the frames do and those it shows lie where the
        frames show them (the board has not moved since), through the frames' location. A
        location from three markers lies a few pixels off towards the fourth, and the
        picture's view and the frames' then differed along the mat's edge and a marker: on
        the synthetic table a marker that a picture's noise hid (3 of 20 draws of one test's
        table) held the first board on "hands" after the hand had gone."""
        there = self._clear_view_located()
        if there is None or len(there.markers_seen) >= len(self.located.markers_seen):
            return homography
        if board_shift(there, self.located) > MOVED_PX:
            return homography  # the board moved since: the picture's own view
        return self.located.homography

    def _restart_window(self) -> None:
        self._covered_at = None
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
        elif board_kind(located.layout):  # tapped corners: is the grid still where they were?
            return self._tapped_in_place(frame, now, covered=covered)
        else:
            return True
        if found is None:
            self.detections += 1
            try:
                found = locate(frame, located.layout, near=self.near)
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
            self._first_reference()
        return True

    def _found_from_grid(self) -> bool:
        """A board without markers whose grid was found (not typed corners): it can be checked."""
        return self.corners is None and bool(board_kind(self.located.layout))

    def _tapped(self) -> bool:
        """A board with a grid (checkered or lined) located by tapped or typed corners."""
        return self.corners is not None and bool(board_kind(self.located.layout))

    def _tapped_in_place(self, frame: np.ndarray, now: float, *, covered: bool) -> bool:
        """Tapped corners: is the grid where they put it (see the module text)? A lined board
        that looks as it did at the last reading is where it was even when its stones hide its
        lines. Otherwise a grid not seen moved the board away (`lost`) - at once when nothing is
        over the board, after TAPPED_LOST_SECONDS when something may be hiding it."""
        # Looks as at the last reading (compared with a still board read through this
        # location): trusted for a lined board, whose lines many stones hide (the real Othello
        # photo passes the check by little); a checkered board's X-corners are checked as for a
        # board found from its grid - its squares moved by one fool the comparison, not them.
        compared = (
            not covered
            and self._model.occluders.reference is not None
            and board_kind(self.located.layout) == "lined"
        )
        if (
            self._tapped_missing is not None
            and not compared
            and now - self._tapped_last < TAPPED_CHECK_SECONDS
        ):
            return False  # missing a moment ago: look again in a while
        self._tapped_last = now
        found = grid_still_there(frame, self.located)
        if found is None:
            if not self._tapped_seen or compared:
                self._tapped_missing = None
                self._found_again()
                return True
            if self._tapped_missing is None:
                self._tapped_missing = now
            waited = now - self._tapped_missing >= TAPPED_LOST_SECONDS
            if (waited or not covered) and not self.lost:
                self.lost = True
                self.board_moves += 1
                self.status = BOARD_MOVED
                self.problem = _(
                    "the board moved: put it back where it was, or tap its corners again"
                )
            return False
        self._tapped_missing = None
        self._found_again()
        seen, self._tapped_seen = self._tapped_seen, True
        if found is self.located:
            return True
        # Refined (checkered): the taps were a little off (the first time) or the board slid.
        moved = seen and board_shift(self.located, found) > MOVED_PX
        self._adopt(found)
        if moved:
            self.board_moves += 1
            self._moved = True
            self.status = BOARD_MOVED
        return False

    def _found_again(self) -> None:
        """A lost tapped board is back where it was."""
        if self.lost:
            self.lost = False
            self.problem = ""
            self._dirty = True

    def _still_but_covered(
        self, frame, colour, gray, now: float, on_mat: int, on_reference: int
    ) -> None:
        """Still but something differs. A hand resting on the board, or: the board moved (the
        reference no longer lines up), or the light changed (only the reference differs, and a
        smooth change of light explains all of it - a hand never does)."""
        if self._occluded_since is None:
            self._occluded_since = now
        if self.status == HANDS and now - self._occluded_since >= COVERED_SECONDS:
            self.status = COVERED
            hidden = self._hidden_markers()  # (a hand over a marker: said near it)
            self._covered_at = (
                self._cell_nearest(np.mean(hidden[0].corners, axis=0))
                if hidden
                else self._nearest_cell(
                    self._model.occluders.lying(
                        gray, colour, loose=self._loose(), standing=self._standing_zone()
                    )
                )
            )
        tapped = self._tapped()
        due = tapped and self._tapped_missing is not None
        if self._checked_since != self._still.since or (
            due and now - self._tapped_last >= TAPPED_CHECK_SECONDS
        ):
            self._checked_since = self._still.since
            if (
                self.located.markers_seen or self._found_from_grid() or tapped
            ) and not self._board_in_place(frame, now, covered=True):
                return None
        if self.lost or due:
            return None  # a tapped board that may have moved: no light rebase over it
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
    def _read_as_it_is(
        self, frame: np.ndarray, colour: np.ndarray, gray: np.ndarray, now: float
    ) -> Observation | None:
        """The players said the board is clear while the checks found something over it:
        accept what they found (`OccluderCheck.accept`) and read. The board must still be
        where it was (a moved board is found again first, as always)."""
        self._clear_said = False
        if self.calibration is None or self.lost:
            return None
        located = self.located
        if not self._board_in_place(frame, now, covered=True):
            return None
        if self.located is not located:
            colour, gray = self._views(frame)
        self._model.occluders.accept(
            gray, colour, loose=self._loose(), standing=self._standing_zone()
        )
        return self._read(frame, colour, gray, now)  # (`read_as_it_is` wanted an observation)

    def _read(
        self, frame: np.ndarray, colour: np.ndarray, gray: np.ndarray, now: float
    ) -> Observation | None:
        observation = read_cells(
            frame, self.located.homography, self.layout, self.calibration, covered=()
        )
        self._read_frame = (self.frame_index, frame, self.located.homography)
        observation = dataclasses.replace(
            observation,
            frame=self.frame_index,
            timestamp=now,
            markers_seen=len(self.located.markers_seen),
            layout=self.layout.name,
            photo=board_photo(frame, self.located.homography, self.layout),
        )
        checks = self._model.occluders
        checks.set_reference(gray, colour)
        checks.forget_accepted(gray, colour, loose=self._loose())  # once it is gone
        self._occluded_since = None
        self._dirty = False
        self._moved = False
        self.status = STILL
        self._covered_at = None
        # The same cells as the last board: no news, even if the marks (hidden, unlearned)
        # differ - they follow the light (tests/test_vision_track.py: a lamp turned up)
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
        return top_view(frame, self.located.homography, self._model)


def something_over_the_mat(frame: np.ndarray, located: Located, view_px: int = 256) -> str | None:
    """Whether something lies over the printed mat in `frame` (a hand, an arm, a cup), as a
    tracker's first frame judges it when it has no picture of the table to compare with -
    the mat's paper against its print, and whatever reaches the band along the mat's edge:
    the cell nearest the largest thing found ("" when no cell is), or None when nothing is,
    or the board has no printed mat to judge it by. A low lamp's shadow of a figure across
    the mat's edge is found too (docs/vision-sim.md: 6 of 432 realistic tables' photos with
    nothing over the mat).

    For the calibration photo (the app's DONE): it is the table with nothing over it that the
    first board is compared with (`Tracker(clear_view=...)`), and a hand that lay by the mat
    then is gone from the first board - the table changed where it was, as when a hand comes
    in, and the tracker holds the first board until the players say Board clear
    (docs/vision-sim.md, the occluders)."""
    if not located.layout.has_markers or not _usable(frame):
        return None
    tracker = Tracker(located.layout, None, view_px=view_px)
    tracker._adopt(located)
    colour, gray = tracker._views(frame)
    checks = tracker._model.occluders
    loose, standing = tracker._loose(), tracker._standing_zone()
    if not (
        checks.against_mat(gray, loose=loose, standing=standing)
        or checks.against_mat(gray, colour, loose=loose, standing=standing)
    ):
        return None
    return tracker._nearest_cell(checks.lying(gray, colour, loose=loose, standing=standing))


def _checked_clear_view(clear_view: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """`Tracker`'s `clear_view`, refused at once when it is not (picture, 3x3 homography): a
    caller's mistake, said where it is made rather than on the first frame."""
    if clear_view is not None and np.shape(clear_view[1]) != (3, 3):
        raise ValueError("clear_view is (picture, its 3x3 homography mat mm -> px)")
    return clear_view


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
