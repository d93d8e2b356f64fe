"""The camera side of a game: frames -> observations for one printed mat or board."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from companion.errors import EmptyPhotoNotEmpty, PositionMismatch, UserError
from companion.i18n import _
from companion.observation import Observation
from companion.referee import phrases
from vision.calibration import calibrate, calibrate_found, pieces_in
from vision.exposure import is_black
from vision.find import turned
from vision.layouts import Layout, get_layout
from vision.locate import from_corners, locate
from vision.location import Located
from vision.standing import Photo, StandingCalibration
from vision.tracker import DARK_SECONDS, Tracker, dark_problem, something_over_the_mat

Polygon = list[list[float]]  # image points [x, y]


CONFIRM_PX = 3.0  # a board found again this near where its turn was shown is still there


class TurnToConfirm(UserError):
    """DONE on a grid found the other way round only by the pieces' colours (a chess
    set's white looking darker than its black at the finder's choice): the grid is now shown
    turned, and DONE again plays on it - a set whose white is the darker one looks just the
    same, and its players tap the corners instead."""


class SomethingOnTheMat(UserError):
    """DONE on a printed mat with something lying over it (a hand by the mat, an arm): the
    calibration photo is what the first board is compared with, and a hand in it holds the
    first board until the players say Board clear. Not learned; `cell` is the cell nearest
    what lies there ("" when none is), marked on the setup screen. DONE again in the same
    setup learns from the picture as it is: the check can be wrong (a low lamp's shadows
    across the mat's edge, 6 of 432 realistic tables)."""

    def __init__(self, cell: str) -> None:
        super().__init__(
            _(
                "Something lies on the mat near {cell} - a hand? Take it away, then press DONE again"
            ).format(cell=cell)
            if cell
            else _("Something lies on the mat - a hand? Take it away, then press DONE again")
        )
        self.cell = cell


class EmptyPhotoShowsPieces(UserError):
    """DONE with an Empty board photo that spoilt the calibration: it learns without it, and
    the photo's cells `cells` read as pieces (taken with the pieces still on the board, or of
    another board). The photo is forgotten (`TableVision._install`): DONE again learns
    without it, and Empty board takes it again with nothing on the board. A trial's find: the
    photo was kept, and every DONE said "2 marked cells do not look like the position" of a
    board set up as shown - even after Back and Start."""

    def __init__(self, cells: tuple[str, ...]) -> None:
        where = phrases.cell_list(list(cells)) if cells else ""
        super().__init__(
            _(
                "The empty board photo shows something on {cells}: it is forgotten. Press DONE to "
                "learn without it, or take Empty board again with nothing on the board"
            ).format(cells=where)
            if where
            else _(
                "The empty board photo does not show this board empty: it is forgotten. Press "
                "DONE to learn without it, or take Empty board again with nothing on the board"
            )
        )
        self.cells = cells


@dataclass(frozen=True)
class Calibrated:
    """The end of a calibration started by `TableVision.start_calibration`, for the main
    thread: `error` is why the colours were not learned (a position that does not fit, a turn
    to confirm: the setup screen says it as DONE always has), None when the tracker now reads
    the board. `dropped`: the board or its settings changed while it ran (corners tapped
    again, an empty-board photo, a new setup) - learned for a board that is no longer there,
    it was left out, and nothing changed."""

    error: UserError | None = None
    dropped: bool = False


@dataclass(frozen=True)
class _Job:
    """What one calibration learns from, taken under the lock when DONE is pressed: the
    calibration then runs on these alone, without the lock (the camera thread goes on)."""

    cells: dict[str, str]
    frame: np.ndarray
    located: Located
    corners: list[list[float]] | None
    more: tuple[Photo, ...]
    to_confirm: tuple[StandingCalibration, np.ndarray] | None
    epoch: int  # `TableVision._epoch` then: the board and settings it is learned for
    look_over_the_mat: bool = False  # refused when something lies over the mat (a hand)


@dataclass(frozen=True)
class _Learned:
    """What a calibration found, installed under the lock (`TableVision._install`) while its
    job is still current. A turn to confirm comes with the turned board and its calibration
    kept for DONE again, beside the error that says so."""

    calibration: StandingCalibration | None = None  # None: not learned (`error`)
    located: Located | None = None  # a grid found: the board the way round the position fits
    to_confirm: tuple[StandingCalibration, np.ndarray] | None = None
    error: Exception | None = None  # a UserError to say, or a bug to raise on the main thread


class TableVision:
    """Frames -> observations for one layout: finds the mat, learns the colours from the
    setup position, then tracks (vision.tracker). Thread-safe: the camera thread feeds it, the
    main thread calibrates it - with `background`, in a thread of its own
    (`start_calibration`), so that neither the screen nor the camera waits for it."""

    def __init__(
        self,
        layout: str,
        *,
        fps: float = 30.0,
        still_seconds: float = 0.5,
        background: bool = False,
    ) -> None:
        self.layout = get_layout(layout)
        self.fps = fps
        self.still_seconds = still_seconds
        # `start_calibration` learns in a thread of its own (the real table: several seconds
        # on a Pi, more on a board found turned round); without, at once in the caller's
        # thread (the demo and the tests, which drive the app frame by frame)
        self.background = background
        self.located: Located | None = None
        self.tracker: Tracker | None = None
        self.latest: np.ndarray | None = None  # the last usable frame (black ones aside)
        self.problem = ""
        # black frames in a row since (`look`); `dark` once they lasted DARK_SECONDS, as the
        # tracker's status says it: a camera's single glitch is no covered lens
        self._dark_since: float | None = None
        self.dark = False
        self.corners: list[list[float]] | None = (
            None  # boards without markers: tapped corners (image px, TL TR BR BL)
        )
        # the empty board (frame, homography), if the players took one
        self.empty_photo: tuple[np.ndarray, np.ndarray] | None = None
        # a board found from its grid: the corners (px) it was last calibrated or tracked at,
        # and the picture's size then, so that it is found again the same way round (a
        # chessboard seen from Black's side: the grid alone takes a1 at the picture's bottom);
        # None: the finder's own choice. Kept while the companion runs, not saved.
        self.near: np.ndarray | None = None
        self._near_size: tuple[int, int] = (0, 0)
        # a calibration learned on a turn the players are to confirm, and the corners it was
        # learned at (`TurnToConfirm`): DONE again plays on it while the board is there
        self._to_confirm: tuple[StandingCalibration, np.ndarray] | None = None
        # the epoch in which a DONE was refused for something over the mat
        # (`SomethingOnTheMat`): DONE again in it learns from the picture as it is - until a
        # calibration is learned or the board or setup changes (a new epoch asks again)
        self._over_the_mat_said: int | None = None
        self._lock = threading.Lock()
        self._last_find = -1e9
        # Calibrating in the background (`start_calibration`): the board and its settings
        # change epoch when the corners are tapped, the empty board photographed or the setup
        # begun again - a calibration learned in an earlier epoch is dropped. The calibration
        # asked for last, the one waiting for the thread, the thread (one at a time), and what
        # the last one found; all under the lock.
        self._epoch = 0
        self._asked: _Job | None = None
        self._waiting: _Job | None = None
        self._worker: threading.Thread | None = None
        self._learned: tuple[_Job, _Learned] | None = None

    @property
    def status(self) -> str:
        if self.tracker is not None:
            return str(self.tracker.status)
        return "found" if self.located is not None else "searching"

    @property
    def covered_near(self) -> str:
        """While the camera says "covered": the cell nearest what lies there ("h4"), else ""."""
        return self.tracker.covered_near if self.tracker is not None else ""

    @property
    def lost(self) -> bool:
        """A board located by tapped corners moved away (vision.tracker): put back, or tapped
        again on the setup screen."""
        return self.tracker is not None and self.tracker.lost

    def look(self, frame: np.ndarray | None, now: float) -> None:
        """Before calibration: remember the frame and find the mat (a few times a second)."""
        if frame is None:
            return
        black = is_black(frame)  # (judged before the lock: the main thread may wait on it)
        with self._lock:
            if black:  # (kept out of `latest`: what is learned from is a picture)
                self._dark_since = now if self._dark_since is None else self._dark_since
                if now - self._dark_since >= DARK_SECONDS and not self.dark:
                    self.dark = True  # (a grid or markers are not found in it, for this reason)
                    self.located = None if self.corners is None else self.located
                    self.problem = dark_problem()
                return
            self._dark_since = None
            if self.dark:  # light again: the board is looked for at once
                self.dark = False
                self.problem = ""
                self._last_find = -1e9
            self.latest = frame
            if now - self._last_find < 0.25:
                return
            self._last_find = now
            try:
                self.located = locate(frame, self.layout, self.corners, near=self._near(frame))
                self.problem = ""
            except UserError as exc:
                self.located = None
                # A board not found: why, without the command line's --corners (the setup
                # screen offers to tap the corners instead).
                self.problem = getattr(exc, "reason", str(exc))

    def set_corners(self, corners: Sequence[Sequence[float]] | None) -> None:
        """Boards without markers: use these corners (image px, TL TR BR BL) instead of finding
        the grid; None finds it again."""
        with self._lock:
            self.corners = None if corners is None else [list(map(float, c)) for c in corners]
            self.near = None  # tapped, or found again: the finder's own way round first
            self._to_confirm = None
            self._last_find = -1e9
            self._epoch += 1  # (a calibration running is for the board as it was)
            if self.corners is not None:
                size = (0, 0) if self.latest is None else self.latest.shape[1::-1]
                self.located = from_corners(self.layout, self.corners, size)
                self.problem = ""
            else:
                self.located = None

    def start_calibration(self, cells: dict[str, str]) -> None:
        """DONE: learn the colours from the latest frame, which shows `cells` - in a thread of
        its own when `background` (one at a time: asked while another runs, it waits for it,
        and the other's result is dropped), else at once. `calibration_result` takes the
        result on the main thread.

        :raises UserError: the camera does not see the board (nothing to learn from)."""
        job = self._job(cells)
        if not self.background:
            learned = _learn(self.layout, job)
            with self._lock:
                self._asked, self._learned = job, (job, learned)
            return
        with self._lock:
            self._asked = self._waiting = job
            self._learned = None
            if self._worker is None:
                # Not a daemon, as the tracker's refit: a thread left inside OpenCV while the
                # interpreter shuts down aborts the process; quitting waits for it instead.
                self._worker = threading.Thread(target=self._work, name="calibrate", daemon=False)
                self._worker.start()

    @property
    def calibrating(self) -> bool:
        """A calibration was asked for (`start_calibration`) whose result is not yet taken."""
        return self._asked is not None

    def calibration_result(self) -> Calibrated | None:
        """The calibration asked for last, once it is done (None: still learning, or none was
        asked): installed - the tracker reads the board from now on - unless the board or its
        settings changed meanwhile (`Calibrated.dropped`). On the main thread.

        :raises Exception: a bug in the calibration (not a `UserError`), raised here as it
            would have been on the main thread - never lost in the worker thread."""
        with self._lock:
            if self._learned is None or self._asked is None:
                return None
            job, learned = self._learned
            self._learned = None
            if job is not self._asked:
                return None  # superseded: the one asked for last is still to come
            self._asked = None
            if job.epoch != self._epoch:
                return Calibrated(dropped=True)
            self._install(job, learned)
        error = learned.error
        if error is not None and not isinstance(error, UserError):
            raise error
        return Calibrated(error=error)

    def cancel_calibration(self) -> None:
        """Leave the calibration asked for (the setup screen left): its result is dropped.
        One running goes on to its end in its thread - OpenCV cannot be stopped midway."""
        with self._lock:
            self._asked = self._waiting = None
            self._learned = None

    def wait_for_calibration(self, timeout: float | None = None) -> bool:
        """Wait for the calibration thread to finish (tests, shutting down); whether it has."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)
        return self._worker is None

    def _work(self) -> None:
        """The calibration thread: the calibrations asked for, one after the other, without
        the lock - `look` and `feed` go on meanwhile. Every failure is kept for the main
        thread (`calibration_result`): a bug is raised there, not lost here."""
        while True:
            with self._lock:
                job, self._waiting = self._waiting, None
                if job is None:
                    self._worker = None
                    return
            learned = _learn(self.layout, job)
            with self._lock:
                if job is self._asked:
                    self._learned = (job, learned)

    def _check_seen(self, not_seen: str) -> None:
        """Under the lock: that there is a picture to learn from and the board in it.

        :raises UserError: the picture is black (for a second: `look`), or the board is not
            seen - why (`problem`), else `not_seen`."""
        if self.dark:
            raise UserError(dark_problem())
        if self.latest is None or self.located is None:
            raise UserError(self.problem or not_seen)

    def _job(self, cells: dict[str, str]) -> _Job:
        """What a calibration learns from, now.

        :raises UserError: the camera does not see the board (yet)."""
        with self._lock:
            self._check_seen(_("the camera does not see the mat yet: is all of it in view?"))
            assert self.latest is not None and self.located is not None  # (`_check_seen`)
            more: tuple[Photo, ...] = ()
            if self.empty_photo is not None:
                frame, homography = self.empty_photo
                more = (Photo(frame, homography, {}, said_empty=True),)
            to_confirm, self._to_confirm = self._to_confirm, None  # (DONE again: its answer)
            return _Job(
                cells=dict(cells),
                frame=self.latest.copy(),  # (a camera may reuse its buffer)
                located=self.located,
                corners=None if self.corners is None else [list(c) for c in self.corners],
                more=more,
                to_confirm=to_confirm,
                epoch=self._epoch,
                look_over_the_mat=self.layout.has_markers
                and self._over_the_mat_said != self._epoch,
            )

    def _install(self, job: _Job, learned: _Learned) -> None:
        """What `job` learned becomes the table's: the board turned the way the position fits
        (kept from then on: `near`), the turn to confirm, the tracker. The lock is held."""
        if isinstance(learned.error, EmptyPhotoShowsPieces):
            self.empty_photo = None  # (DONE again learns without it)
        if isinstance(learned.error, SomethingOnTheMat):
            self._over_the_mat_said = job.epoch
        elif learned.calibration is not None:
            self._over_the_mat_said = None  # (another refusal - cells that do not fit - keeps it)
        if learned.located is not None:
            self.located = learned.located
            self.near = learned.located.board_corners_px()
            self._near_size = (job.frame.shape[1], job.frame.shape[0])
        self._to_confirm = learned.to_confirm
        if learned.calibration is None:
            return
        self.tracker = Tracker(
            self.layout,
            learned.calibration,
            corners=job.corners,
            near=self._near(job.frame),
            fps=self.fps,
            still_seconds=self.still_seconds,
            refit_in_background=True,  # a calibration: the screen must not wait for it
            # the calibration photo had nothing over the board: the first board is judged
            # against it, as against a last still board
            clear_view=(job.frame, (learned.located or job.located).homography),
        )
        self.tracker.request()

    def _near(self, frame: np.ndarray | None) -> np.ndarray | None:
        """`near`, when `frame` is as large as the picture it was measured in."""
        if self.near is None or frame is None:
            return None
        return self.near if (frame.shape[1], frame.shape[0]) == self._near_size else None

    def forget_tracker(self) -> None:
        """Before the colours are learned again (a new game): the tracker goes, and the way
        round it last found the board stays (`near`), where a shove may have moved it."""
        with self._lock:
            tracker = self.tracker
            if tracker is not None and tracker.near is not None and tracker.located is not None:
                self.near = tracker.near
                self._near_size = tracker.located.image_size
            self.tracker = None
            self._epoch += 1  # (a calibration running was for the last setup)

    def take_empty_photo(self) -> None:
        """Keep the latest frame as the empty board: calibrating then learns every cell's own
        empty look from it (a printed logo, a label) - vision.standing.

        :raises UserError: the camera does not see the board yet."""
        with self._lock:
            self._check_seen(_("the camera does not see the board yet: is all of it in view?"))
            assert self.latest is not None and self.located is not None  # (`_check_seen`)
            self.empty_photo = (self.latest.copy(), self.located.homography.copy())
            self._to_confirm = None  # (learned without it)
            self._epoch += 1  # (as is a calibration running)

    def feed(self, frame: np.ndarray | None, now: float) -> Observation | None:
        with self._lock:
            if frame is not None:
                self.latest = frame
            if self.tracker is None:
                return None
            observation: Observation | None = self.tracker.feed(frame, now)
            return observation

    def read_as_it_is(self) -> None:
        """The players say the board is clear: the tracker reads the next still view as it
        is (`vision.tracker.Tracker.read_as_it_is`)."""
        with self._lock:
            if self.tracker is not None:
                self.tracker.read_as_it_is()

    def request_board(self) -> None:
        """Read the next still board even if nothing on it changed
        (`vision.tracker.Tracker.request`): the referee holds a DONE pressed while the camera
        could not see the board, until it does."""
        with self._lock:
            if self.tracker is not None:
                self.tracker.request()

    def learn_from_board(self, frame: int, board: dict[str, str]) -> bool:
        """The board read from frame number `frame` showed `board`, as the referee took it:
        learn from it about the cells no calibration photo showed empty
        (`vision.tracker.Tracker.learn_from_board`)."""
        with self._lock:
            return self.tracker is not None and self.tracker.learn_from_board(frame, board)

    def overlay(self) -> tuple[list[Polygon], list[Polygon]]:
        """Marker outlines and cell outlines in image pixels (for the setup screen)."""
        located = self.located
        if located is None:
            return [], []
        markers = [corners.tolist() for corners in located.marker_corners.values()]
        grid = [located.to_image(cell.polygon).tolist() for cell in self.layout.cells]
        return markers, grid


def _learn(layout: Layout, job: _Job) -> _Learned:
    """The calibration of `job`, in whichever thread: every failure comes back as `error`
    (a worker thread's exception would otherwise be printed and lost)."""
    try:
        if job.look_over_the_mat:
            near = something_over_the_mat(job.frame, job.located)
            if near is not None:
                return _Learned(error=SomethingOnTheMat(near))
        if not layout.has_markers and job.corners is None:  # a grid found
            return _learn_found(job)
        try:
            calibration = calibrate(job.frame, job.located.homography, layout, job.cells, job.more)
        except EmptyPhotoNotEmpty as exc:  # the position fits; the photo shows pieces
            return _Learned(error=EmptyPhotoShowsPieces(exc.cells))
        except PositionMismatch:
            if not job.more:
                raise
            # the empty board's photo may be what spoilt it: learned without it, it says
            without = calibrate(job.frame, job.located.homography, layout, job.cells)
            cells = pieces_in(job.more[0], without, layout)[1]
            return _Learned(error=EmptyPhotoShowsPieces(cells))
        return _Learned(calibration)
    except Exception as exc:
        return _Learned(error=exc)


def _learn_found(job: _Job) -> _Learned:
    """A grid found: learned the way round the position fits (a camera at White's left, or
    behind Black), kept from then on (`TableVision.near`) - found again, the grid alone would
    be taken the finder's way round. When only the pieces' colours told the turn, the turned
    board comes with `TurnToConfirm` and its calibration kept: DONE again plays on it while
    the board stays where it is (a set whose white is the darker one looks just the same)."""
    corners = job.located.board_corners_px()
    if job.to_confirm is not None:
        confirmed, at = job.to_confirm
        if float(np.abs(corners - at).max()) <= CONFIRM_PX:
            return _Learned(confirmed)  # the players saw the turn and said DONE
    try:
        found = calibrate_found(job.frame, job.located, job.cells, job.more)
    except EmptyPhotoNotEmpty as exc:  # (as `_learn`)
        return _Learned(error=EmptyPhotoShowsPieces(exc.cells))
    except PositionMismatch:
        if not job.more:
            raise
        without = calibrate_found(job.frame, job.located, job.cells)  # (as `_learn`)
        corners = turned(job.located, without.turn).board_corners_px()
        cells = pieces_in(job.more[0], without.calibration, job.located.layout, corners)[1]
        return _Learned(error=EmptyPhotoShowsPieces(cells))
    located = turned(job.located, found.turn)
    if not found.colours_only:
        return _Learned(found.calibration, located)
    return _Learned(
        located=located,
        to_confirm=(found.calibration, located.board_corners_px()),
        error=TurnToConfirm(
            _(
                "The position fits the board turned round: a1 is now the cell outlined "
                "in yellow. DONE to play - if your white pieces are the darker ones, tap "
                "Corners"
            )
        ),
    )
