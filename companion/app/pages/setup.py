"""The setup screen: the camera's live view with the mat's markers (or the board's grid) and
the start position to put down; on DONE the camera learns the colours from it. A board without
markers may have its four corners tapped on the camera picture instead."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from companion.app.pages.base import Draw, Page
from companion.app.table_vision import (
    EmptyPhotoShowsPieces,
    SomethingOnTheMat,
    TableVision,
    TurnToConfirm,
)
from companion.errors import PositionMismatch, UserError
from companion.games.base import Position
from companion.geometry import board_geometry
from companion.i18n import _, capitalise, ngettext
from companion.referee.arimaa import chess_mapping
from companion.referee.protocol import ASKED, ERROR
from display.screens import setup

if TYPE_CHECKING:
    from companion.app.controller import App

LEARNING_POLL = 0.05  # s: while the camera learns, how often the page asks for the result


def corner_name(index: int) -> str:
    """A corner of the board in the table's language, clockwise from the top-left (the order
    the players tap them)."""
    return (_("top-left"), _("top-right"), _("bottom-right"), _("bottom-left"))[index]


class SetupPage(Page):
    name = "setup"

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.frame: np.ndarray | None = None  # the camera's last live picture
        self.mismatch: tuple[str, ...] = ()  # cells the last calibration found wrong
        # how they are marked: "not allowed" - but where the empty board's photo showed
        # something, "asked about" (a trial: the setup's pieces were hatched out, as if the
        # setup were wrong, where the photo was)
        self.mismatch_role = ERROR
        # Boards without markers: the four corners being tapped on the camera picture (image
        # px, TL TR BR BL; None where not tapped yet) and the corner the next tap sets.
        self.corner_edit: list[Any] | None = None
        self.corner_index = 0
        # DONE pressed: the vision learning the colours in the background, until its result
        # is taken (`poll`); the page says so and takes no other action but Back meanwhile
        self.learning: TableVision | None = None
        # Learned, and waiting for the records' start-up check before the game starts (a
        # large records file just after boot): the main loop, the camera and the watchdog go on
        self.starting = False

    def begin(self) -> None:
        """A new setup: nothing tapped, found wrong or being learned yet, and no picture
        until the camera sends one (the last setup's stayed up as if live: another game's mat
        under "No camera")."""
        self.frame = None
        self.corner_edit = None
        self.mismatch = ()
        self.starting = False
        self._stop_learning()

    def leave(self) -> None:
        """Another page (Back, MENU held, a game started): a calibration still running is
        left, its result dropped - never installed for a setup the players have left."""
        self.starting = False
        self._stop_learning()

    def _stop_learning(self) -> None:
        """Leave a calibration still running: its result is dropped when it ends."""
        if self.learning is not None:
            self.learning.cancel_calibration()
            self.learning = None

    def buttons(self) -> dict[str, tuple[str, Any]]:
        if self.corner_edit is not None:
            return {
                "done": ("corners-use", None),
                "roll": ("corner-next", None),
                "back": ("back", None),
            }
        vision = self.app.vision
        corners = vision is not None and not vision.layout.has_markers
        roll = "corners" if corners else "empty-photo"
        return {"done": ("confirm-setup", None), "roll": (roll, None), "back": ("back", None)}

    def act(self, kind: str, value: Any) -> None:
        app = self.app
        if (self.learning is not None or self.starting) and kind != "back":
            return  # (DONE again, or a change to the board the camera is learning from)
        if self.corner_edit is not None:
            self._act_on_corners(kind, value)
        elif kind == "corners" and app.vision is not None:
            app.message = ""  # (DONE now takes the corners tapped)
            located = app.vision.located
            self.corner_edit = (
                [tuple(map(float, c)) for c in located.board_corners_px()]
                if located is not None
                else [None] * 4
            )
            self.corner_index = 0
        elif kind in ("board-own", "board-mat"):
            app.message = ""
            app.choose_board(kind == "board-own")  # a new setup on the other layout
        elif kind == "find-grid" and app.vision is not None:
            app.vision.set_corners(None)
            app.settings.corners.pop(app.vision.layout.name, None)
            app.save_settings()
        elif kind == "empty-photo" and app.vision is not None:
            try:
                app.vision.take_empty_photo()  # the header's status says so
                app.message = ""
            except UserError as exc:
                app.message = capitalise(str(exc))
        elif kind == "back":  # (leaving drops a calibration still running: `leave`)
            app.setup_position = None
            app.resume_id = None
            app.go("home")
        elif kind == "confirm-setup":
            self.confirm()

    def _act_on_corners(self, kind: str, value: Any) -> None:
        """Tapping the four corners of a board without markers on the camera picture."""
        app = self.app
        edit = self.corner_edit
        assert edit is not None and app.vision is not None
        if kind == "camera-tap":
            edit[self.corner_index] = (float(value[0]), float(value[1]))
            unset = [i for i in range(4) if edit[i] is None]
            self.corner_index = unset[0] if unset else (self.corner_index + 1) % 4
        elif kind == "corner-next":
            self.corner_index = (self.corner_index + 1) % 4
        elif kind in ("corners-use", "confirm-setup"):
            if any(c is None for c in edit):
                app.message = lambda: _("Tap all four corners first")
                return
            try:
                app.vision.set_corners(edit)
            except UserError:  # the corners cross, or lie far outside: not a board
                app.message = lambda: _(
                    "These corners do not go round the board: tap them top-left, top-right, "
                    "bottom-right, bottom-left as the first player sees the board"
                )
                return
            app.settings.corners[app.vision.layout.name] = [list(c) for c in edit]
            app.save_settings()
            self.corner_edit = None
            app.message = ""
        elif kind == "back":
            self.corner_edit = None

    def confirm(self) -> None:
        """DONE: the camera learns the colours from the position on the board - in the
        background on the real table (seconds on a Pi: the screen and the camera go on, the
        page says it is learning) - then play (`poll` takes the result)."""
        app = self.app
        position = app.setup_position
        vision = app.vision
        if position is None or vision is None or self.learning is not None:
            return
        self.mismatch = ()
        app.message = ""  # (a mismatch or a turn to confirm was said: DONE answers it)
        try:
            vision.start_calibration(position.calibration_cells(vision.layout.classes))
        except UserError as exc:  # the camera does not see the board
            self._learned(exc)
            return
        self.learning = vision
        self.poll()  # learned at once where not in the background

    def poll(self) -> float | None:
        """While the camera learns (`learning`): take its result when it is there and do what
        DONE does with it. Seconds until the page wants to be asked again (None: not
        learning). A bug in the calibration is raised here, on the main thread."""
        if self.starting:
            return self._start()
        vision = self.learning
        if vision is None:
            return None
        if vision is not self.app.vision:  # another board was chosen meanwhile
            self._stop_learning()
            return None
        try:
            result = vision.calibration_result()
        except Exception:  # a bug in the calibration: raised on, and the page learns no more
            self.learning = None
            raise
        if result is None:
            return LEARNING_POLL
        self.learning = None
        self.app.dirty = True
        if not result.dropped:  # (dropped: learned for a board changed meanwhile - DONE again)
            self._learned(result.error)
        return LEARNING_POLL if self.starting else None  # (waiting for the records' check)

    def _learned(self, error: UserError | None) -> None:
        """The camera has learned the colours (`error` None): play; or it could not, and the
        screen says why - the cells that do not fit marked, a turn to confirm, a problem."""
        app = self.app
        if isinstance(error, PositionMismatch):
            # The diagram marks the cells; a list of them would be a wall of text.
            self.mismatch, self.mismatch_role = error.cells, ERROR
            count = len(error.cells)
            app.message = lambda: ngettext(
                "{count} marked cell does not look like the position: check it, then press "
                "DONE again",
                "{count} marked cells do not look like the position: check them, then press "
                "DONE again",
                count,
            ).format(count=count)
            app.signal()
            return
        if isinstance(error, EmptyPhotoShowsPieces):  # forgotten: DONE again learns without it
            self.mismatch = error.cells  # (where the photo showed pieces, marked)
            self.mismatch_role = ASKED
            app.message = str(error)
            app.signal()
            return
        if isinstance(error, SomethingOnTheMat):  # (a hand by the mat): marked, DONE again
            self.mismatch = (error.cell,) if error.cell else ()
            self.mismatch_role = ERROR
            app.message = str(error)
            app.signal()
            return
        if isinstance(error, TurnToConfirm):  # no mistake: the grid is shown turned, DONE again
            app.message = str(error)
            return
        if error is not None:
            app.message = capitalise(str(error))
            app.signal()
            return
        self._start()

    def _start(self) -> float | None:
        """Play - once the records' start-up check is done (`Records.checking`): until then
        the page says so and is asked again, never waiting on the main thread (the check of a
        file of gigabytes on an SD card can outlast the service's watchdog)."""
        app = self.app
        records = app.records
        if records is not None and records.checking:
            if not self.starting:
                self.starting = True
                app.dirty = True
            return LEARNING_POLL
        self.starting = False
        try:
            app.start_referee()
        except UserError as exc:  # the records cannot be read or written (damaged, disk full)
            app.message = app.records_problem or capitalise(str(exc))
            app.signal()
        return None

    def corner_cells(self) -> tuple[str, ...]:
        """The cell at each corner of the layout (TL TR BR BL): "a8", "h8", "h1", "a1"."""
        vision = self.app.vision
        layout = vision.layout if vision is not None else None
        if layout is None or not layout.cells:
            return ("", "", "", "")
        names = []
        for x, y in layout.board_corners():
            nearest = min(
                layout.cells, key=lambda c: (c.center[0] - x) ** 2 + (c.center[1] - y) ** 2
            )
            names.append(nearest.name)
        return tuple(names)

    def model(self) -> tuple[Draw, object]:
        app = self.app
        position = app.setup_position
        vision = app.vision
        assert position is not None and vision is not None
        want = position.calibration_cells(vision.layout.classes)
        markers, grid = vision.overlay()
        found = vision.located is not None
        model = setup.SetupModel(
            title=_("Set up {game}").format(game=position.full_title),
            geometry=board_geometry(position.name, position.options),
            start_cells=want,
            wrong={cell: self.mismatch_role for cell in self.mismatch},
            frame=self.frame if self.frame is not None else vision.latest,
            markers=markers,
            grid=grid,
            text=(
                _("Put the stones as shown, then press DONE")
                if position.pieces_are_stones
                else _("Put the pieces as shown, then press DONE")
            )
            if found
            else _("Show the camera the whole mat"),
            detail=capitalise(vision.problem)
            if not found
            else _("The camera learns your stones' colours from this position")
            if position.pieces_are_stones
            else _("The camera learns your pieces' colours from this position"),
            status=ngettext("{count} marker seen", "{count} markers seen", len(markers)).format(
                count=len(markers)
            )
            if found
            else _("searching..."),
            ready=found,
        )
        if vision.layout.has_markers:
            model.buttons = [
                (_("Back"), "back", "normal"),
                (_("Empty board"), "empty-photo", "normal"),
                (_("Done"), "confirm-setup", "primary" if found else "disabled"),
            ]
            if type(position).own_board_choice(position.options):
                model.buttons.insert(2, (_("Own board"), "board-own", "normal"))
        elif self.corner_edit is not None:
            self._tapping_corners(model)
        else:
            self._own_board(model, position)
        if vision.empty_photo is not None and self.corner_edit is None:  # (mat or own board)
            model.status += "; " + _("empty board photographed")
        if self.learning is not None:
            self._learning(model)
        elif self.starting:
            self._waiting_for_records(model)
        return setup.draw, model

    def _learning(self, model: setup.SetupModel) -> None:
        """DONE pressed, the camera learning the colours: said, the camera picture still live,
        and every button but Back off until it has learned (a second DONE, or a change to the
        board it is learning from)."""
        _busy(
            model,
            _("The camera is learning your pieces' colours..."),
            _("Leave the pieces as they are: this takes a few seconds"),
            _("learning..."),
        )

    def _waiting_for_records(self, model: setup.SetupModel) -> None:
        """Learned, the records' start-up check still running: said, every button but Back
        off until the game starts."""
        _busy(
            model,
            _("Checking the game records before the game starts..."),
            _("A large records file takes a while after the companion starts"),
            _("checking the records..."),
        )

    def _tapping_corners(self, model: setup.SetupModel) -> None:
        """A board without markers, its corners being tapped on the camera picture."""
        self._mark_first_cell(model)
        assert self.corner_edit is not None
        i = self.corner_index
        cells = self.corner_cells()
        model.corners = list(self.corner_edit)
        model.active_corner = i
        model.tapping = True
        model.text = _("Tap the {corner} corner of the board (by {cell})").format(
            corner=corner_name(i), cell=cells[i]
        )
        model.detail = _(
            "Corner {number} of 4, as the first player sees the board. Next (ROLL) steps "
            "to the next corner; Use (DONE) uses these corners"
        ).format(number=i + 1)
        model.status = _("tapping corners")
        model.buttons = [
            (_("Back"), "back", "normal"),
            (_("Next"), "corner-next", "normal"),
            (_("Use"), "corners-use", "normal" if None in self.corner_edit else "primary"),
        ]
        model.ready = False

    def _own_board(self, model: setup.SetupModel, position: Position[Any]) -> None:
        """A board without markers: the found (or tapped) grid drawn over the camera picture
        to confirm, with its first cell marked; Corners to tap them when it is not found or
        wrong."""
        vision = self.app.vision
        assert vision is not None
        self._mark_first_cell(model)
        cells = self.corner_cells()
        located = vision.located
        tapped = vision.corners is not None
        chess = position.uses_chess_set(position.options)
        where = _("tapped corners") if tapped else _("grid found")
        model.status = where if located is not None else _("searching...")
        if located is None:
            model.text = _("Show the camera the whole board")
            model.detail = _(
                "{problem}. Not found? Tap Corners and tap the board's four corners on the picture"
            ).format(problem=capitalise(vision.problem) or _("Looking for the grid"))
        else:
            model.text = _("Check the grid, put the pieces as shown, then press DONE")
            model.detail = _(
                "The grid must lie on the squares, {cell} (marked) by the first player. "
                "Wrong? Tap Corners"
            ).format(cell=cells[3])
        if chess and located is not None:  # not found: why comes first, the mapping later
            model.detail += ". " + chess_mapping()
        model.buttons = [(_("Back"), "back", "normal"), (_("Corners"), "corners", "normal")]
        if type(position).own_board_choice(position.options):
            model.buttons.append((_("Printed mat"), "board-mat", "normal"))
        if tapped:
            model.buttons.append((_("Find"), "find-grid", "normal"))
        model.buttons.append((_("Empty board"), "empty-photo", "normal"))
        model.buttons.append((_("Done"), "confirm-setup", "primary" if located else "disabled"))

    def _mark_first_cell(self, model: setup.SetupModel) -> None:
        """The first player's corner cell, outlined on the camera picture."""
        vision = self.app.vision
        assert vision is not None
        located = vision.located
        if located is not None and vision.layout.cells:
            first_name = self.corner_cells()[3]
            first = next(c for c in vision.layout.cells if c.name == first_name)
            model.first_cell = located.to_image(first.polygon).tolist()


def _busy(model: setup.SetupModel, text: str, detail: str, status: str) -> None:
    """The page while the companion works on its own (learning, checking the records): said,
    the camera picture still live, and every button but Back off."""
    model.text = text
    model.detail = detail
    model.status = status
    model.buttons = [
        (label, kind, "normal" if kind == "back" else "disabled")
        for label, kind, _style in model.buttons
    ]
    model.ready = False
