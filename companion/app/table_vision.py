"""The camera side of a game: frames -> observations for one printed mat or board."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from companion.errors import UserError
from companion.i18n import _
from companion.observation import Observation
from vision.calibration import calibrate, calibrate_found
from vision.find import turned
from vision.layouts import get_layout
from vision.locate import from_corners, locate
from vision.location import Located
from vision.standing import Photo, StandingCalibration
from vision.tracker import Tracker

Polygon = list[list[float]]  # image points [x, y]


CONFIRM_PX = 3.0  # a board found again this near where its turn was shown is still there


class TurnToConfirm(UserError):
    """DONE on a grid found the other way round only by the pieces' colours (a chess
    set's white looking darker than its black at the finder's choice): the grid is now shown
    turned, and DONE again plays on it - a set whose white is the darker one looks just the
    same, and its players tap the corners instead."""


class TableVision:
    """Frames -> observations for one layout: finds the mat, learns the colours from the
    setup position, then tracks (vision.tracker). Thread-safe: the camera thread feeds it, the
    main thread calibrates it."""

    def __init__(self, layout: str, *, fps: float = 30.0, still_seconds: float = 0.5) -> None:
        self.layout = get_layout(layout)
        self.fps = fps
        self.still_seconds = still_seconds
        self.located: Located | None = None
        self.tracker: Tracker | None = None
        self.latest: np.ndarray | None = None  # the last usable frame
        self.problem = ""
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
        self._lock = threading.Lock()
        self._last_find = -1e9

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
        with self._lock:
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
            if self.corners is not None:
                size = (0, 0) if self.latest is None else self.latest.shape[1::-1]
                self.located = from_corners(self.layout, self.corners, size)
                self.problem = ""
            else:
                self.located = None

    def calibrate(self, cells: dict[str, str]) -> None:
        """Learn the colours from the latest frame, which shows `cells`; start tracking."""
        with self._lock:
            if self.latest is None or self.located is None:
                raise UserError(
                    self.problem or _("the camera does not see the mat yet: is all of it in view?")
                )
            more: tuple[Photo, ...] = ()
            if self.empty_photo is not None:
                frame, homography = self.empty_photo
                more = (Photo(frame, homography, {}),)
            if not self.layout.has_markers and self.corners is None:  # a grid found
                calibration = self._calibrate_found(cells, more)
            else:
                calibration = calibrate(
                    self.latest, self.located.homography, self.layout, cells, more
                )
            self.tracker = Tracker(
                self.layout,
                calibration,
                corners=self.corners,
                near=self._near(self.latest),
                fps=self.fps,
                still_seconds=self.still_seconds,
                refit_in_background=True,  # a calibration: the screen must not wait for it
            )
            self.tracker.request()

    def _calibrate_found(
        self, cells: dict[str, str], more: tuple[Photo, ...]
    ) -> StandingCalibration:
        """A grid found: learned the way round the position fits (a camera at White's left,
        or behind Black), kept from then on (`near`) - found again, the grid alone would be
        taken the finder's way round. The lock is held.

        :raises TurnToConfirm: only the pieces' colours told the turn (DONE again plays on
            it, the calibration kept while the board stays where it is)."""
        assert self.latest is not None and self.located is not None
        corners = self.located.board_corners_px()
        if self._to_confirm is not None:
            confirmed, at = self._to_confirm
            self._to_confirm = None
            if float(np.abs(corners - at).max()) <= CONFIRM_PX:
                return confirmed  # the players saw the turn and said DONE
        found = calibrate_found(self.latest, self.located, cells, more)
        self.located = turned(self.located, found.turn)
        self.near = self.located.board_corners_px()
        self._near_size = (self.latest.shape[1], self.latest.shape[0])
        if found.colours_only:  # a set whose white is the darker one looks just the same
            self._to_confirm = (found.calibration, self.near)
            raise TurnToConfirm(
                _(
                    "The position fits the board turned round: a1 is now the cell outlined "
                    "in yellow. DONE to play - if your white pieces are the darker ones, tap "
                    "Corners"
                )
            )
        return found.calibration

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

    def take_empty_photo(self) -> None:
        """Keep the latest frame as the empty board: calibrating then learns every cell's own
        empty look from it (a printed logo, a label) - vision.standing.

        :raises UserError: the camera does not see the board yet."""
        with self._lock:
            if self.latest is None or self.located is None:
                raise UserError(
                    self.problem
                    or _("the camera does not see the board yet: is all of it in view?")
                )
            self.empty_photo = (self.latest.copy(), self.located.homography.copy())
            self._to_confirm = None  # (learned without it)

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
