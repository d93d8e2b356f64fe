"""The companion on the table: camera, referee, records, dice, buttons and screen wired together.

`App` is the controller. It owns the current page and its state and reacts to four kinds of
input, all on the main thread:

- taps (`tap`) and button actions (`button`: "done", "roll", "back", "menu" - from the GPIO
  panel, the keyboard stand-in, or a simulated player);
- still boards from the camera (`on_observation`) and the tracker's state (`on_vision_status`,
  which drives the "hands on the board" indicator);
- camera frames while setting up (`on_setup_frame`: the live view with markers and grid);
- time (`tick`), only while the dice animate.

It draws only when something changed (`render` returns False otherwise), so the loop in
`run_window` blocks in `pygame.event.wait` between events: no busy loop, near-zero idle CPU.
The camera runs in a `CameraWorker` thread that posts its results as pygame events.

`run_demo` is the same App driven synchronously by the synthetic table: simulated hands play a
real game (a seeded random game from the engine) through SimTable -> Tracker -> Referee (+ dice
and Records) -> screen, pressing real gpiozero buttons on mock pins, writing screenshots.
Nothing in the core (`companion.games`, the referee, the records) imports this module.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion import games, i18n
from companion.errors import PositionMismatch, UserError, excerpt
from companion.games.base import Outcome, Position, options_from_dict, options_to_dict
from companion.geometry import board_geometry
from companion.i18n import COLOUR_NOUNS, _, ngettext, pgettext
from companion.observation import EMPTY, Observation
from companion.option_words import button_name, option_label, option_value
from companion.referee.protocol import (
    CANCEL,
    CHOOSE,
    DONE,
    ERROR,
    ROLL,
    TARGET,
    UNDO,
    Event,
    Instruction,
    PlayerInput,
)

PAGES = ("home", "setup", "play", "dice", "gameover", "review-list", "review-game", "settings")
DICE_ANIMATION = 0.7  # seconds the dice tumble
ARRANGE = "arrange"  # Arimaa's setup choice: arrange the pieces on the screen (SetupArranger)
USE_ARRANGEMENT = "use this"
DICE_SHOW = 1.6  # seconds the landed dice stay before play resumes by itself (in a game)
FRAME_INTERVAL = 1 / 30  # redraw pace while animating
POLL_MS = 20  # the event loop's sleep on video drivers that cannot wake SDL (kmsdrm, dummy)
REPRESS_FRAMES = 90  # demo players press an ignored button again after 3 s
STALL_FRAMES = 900  # the demo gives up after 30 s of camera time without progress


# -- settings ------------------------------------------------------------------------------------
@dataclass
class Settings:
    """What the players set on the Settings screen; saved as JSON next to the records."""

    game: str = "arinama"
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # game -> options
    rotation: int = 0
    size: tuple[int, int] = (800, 480)
    diagonal_in: float = 7.0
    colour_names: dict[str, str] = field(default_factory=dict)  # class -> the table's word
    pins: str = "done=17,roll=27,back=22,buzzer=18,led=23"  # hardware.buttons.ButtonPins.parse
    # Boards without markers: layout -> the four corners the players tapped (image px, TL TR BR
    # BL), used again at the next setup until they tap others or ask to find the grid again.
    corners: dict[str, list[list[float]]] = field(default_factory=dict)
    language: str = ""  # "en" or "de"; "" until the first start sets it from the system locale
    speech: bool = True  # spoken instructions (where espeak-ng and an audio device exist)
    volume: int = 80  # of the spoken instructions, 0..100

    def game_options(self, game: str | None = None) -> Any:
        game = game or self.game
        return games.get(game).options_from(self.options.get(game, {}))

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["size"] = list(self.size)
        return {"format": "tabletop-companion/settings", "version": 1, **data}

    @classmethod
    def from_json(cls, data: Any, source: str = "settings") -> Settings:
        if not isinstance(data, dict):
            raise UserError(f"{source}: settings must be a JSON object")
        if data.get("version", 1) > 1:
            raise UserError(
                f"{source} was written by a newer companion: update it, or remove the file"
            )
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        try:
            settings = cls(**values)
            settings.size = (int(settings.size[0]), int(settings.size[1]))
            settings.rotation = int(settings.rotation)
            settings.volume = max(0, min(100, int(settings.volume)))
            if settings.language:
                i18n.check_language(settings.language)
            games.get(settings.game)
        except (TypeError, ValueError, IndexError) as exc:
            raise UserError(
                f"{source}: a setting has a bad value ({exc}): fix or remove the file"
            ) from None
        return settings

    @classmethod
    def load(cls, path: Path) -> Settings:
        """The saved settings, or the defaults when there are none yet. A damaged file is
        reported (UserError) and never overwritten."""
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:  # JSONDecodeError, UnicodeDecodeError, huge ints
            raise UserError(
                f"cannot read the settings file {path} ({excerpt(str(exc))}): fix or remove it"
            ) from None
        return cls.from_json(data, str(path))

    def save(self, path: Path) -> None:
        """Write atomically (a temporary file renamed over the old one)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)


def layout_name(game: str, options: Any) -> str:
    """The printed mat (vision layout) for a game played with these options."""
    if game == "arinama":
        rows, cols = getattr(options, "rows", 8), getattr(options, "cols", 8)
        if rows == cols and rows in (5, 8):
            return f"arinama{rows}"
        raise UserError(
            f"there is no printed mat for a {rows} x {cols} Arinama board: play 5 x 5 or 8 x 8, "
            "or use `companion referee --layout grid:RxC --corners ...`"
        )
    if game == "sensei":
        return "sensei-storm" if getattr(options, "side", "plain") == "storm" else "sensei"
    if game == "arimaa" and getattr(options, "equipment", "mat") == "chess":
        return "chessboard"  # a chess set on a chessboard of one's own
    return game


def game_for_layout(layout: str) -> str | None:
    for game in games.names():
        if layout == game or layout.startswith(game):
            return game
    return None


def calibration_cells(position: Position, classes: tuple[str, ...]) -> dict[str, str]:
    """What to put on the board for the camera to learn the colours: the start position, plus
    two pieces of every colour it lacks (Arimaa and Aranea start with an empty board) on free
    cells far apart. The referee then asks for the extra pieces to be taken off (a plain
    instruction - `Referee(clear_first=True)` - not an illegal move)."""
    if getattr(position.options, "equipment", "mat") == "chess":
        return chess_set_start()
    cells = dict(position.cells())
    names = position.cell_names()
    free = [c for c in names if c not in cells]
    missing = [c for c in classes if c != EMPTY and c not in cells.values()]
    picks: list[str] = []
    if missing and free:
        stride = max(1, len(free) // (2 * len(missing) + 1))
        picks = free[stride // 2 :: stride]
    for i, cls in enumerate(missing):
        for cell in picks[2 * i : 2 * i + 2]:
            cells[cell] = cls
    return cells


def chess_set_start() -> dict[str, str]:
    """Arimaa on a chess set: the camera learns the colours from a chess set's start position
    (white on ranks 1 and 2, black on 7 and 8) - the colours it reads, white and black."""
    cells = {f"{f}{r}": "white" for f in "abcdefgh" for r in (1, 2)}
    cells.update({f"{f}{r}": "black" for f in "abcdefgh" for r in (7, 8)})
    return cells


CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")


def _corner_name(index: int) -> str:
    """A corner of the board in the table's language (CORNER_NAMES order)."""
    return (_("top-left"), _("top-right"), _("bottom-right"), _("bottom-left"))[index]


@dataclass
class SetupArranger:
    """Arimaa's setup arranged on the touchscreen, since the camera sees colours, not types:
    one side's 16 pieces on its two ranks, and two taps swap two pieces, so every arrangement
    it can make has the right pieces. Starts from a setup line (the standard setup); the
    result goes to the referee as `choose <line>`, like a typed setup."""

    side: str
    pieces: dict[str, str]  # square -> piece letter ("E" gold elephant, "r" silver rabbit)
    picked: str | None = None  # the first square of a swap

    @classmethod
    def from_line(cls, side: str, line: str) -> SetupArranger:
        return cls(side, {token[1:]: token[0] for token in line.split()})

    def tap(self, square: str) -> None:
        if square not in self.pieces:
            return
        if self.picked is None:
            self.picked = square
        elif self.picked == square:
            self.picked = None
        else:
            a, b = self.picked, square
            self.pieces[a], self.pieces[b] = self.pieces[b], self.pieces[a]
            self.picked = None

    def line(self) -> str:
        """The setup in arimaa.com notation, rank by rank from a to h ("Ra1 Rb1 ...")."""
        order = sorted(self.pieces, key=lambda sq: (int(sq[1:]), sq[0]))
        return " ".join(f"{self.pieces[sq]}{sq}" for sq in order)


# -- the camera side -------------------------------------------------------------------------------
class TableVision:
    """Frames -> observations for one layout: finds the mat, learns the colours from the
    setup position, then tracks (vision.tracker). Thread-safe: the camera thread feeds it, the
    main thread calibrates it."""

    def __init__(self, layout: str, *, fps: float = 30.0, still_seconds: float = 0.5) -> None:
        from vision.layouts import get_layout

        self.layout = get_layout(layout)
        self.fps = fps
        self.still_seconds = still_seconds
        self.located: Any = None
        self.tracker: Any = None
        self.latest: Any = None  # the last usable frame
        self.problem = ""
        self.corners: Any = None  # boards without markers: tapped corners (image px, TL TR BR BL)
        self.empty_photo: Any = None  # the empty board (frame, homography), if the players took one
        self._lock = threading.Lock()
        self._last_find = -1e9

    @property
    def status(self) -> str:
        if self.tracker is not None:
            return self.tracker.status
        return "found" if self.located is not None else "searching"

    def look(self, frame: Any, now: float) -> None:
        """Before calibration: remember the frame and find the mat (a few times a second)."""
        if frame is None:
            return
        with self._lock:
            self.latest = frame
            if now - self._last_find < 0.25:
                return
            self._last_find = now
            from vision.locate import locate

            try:
                self.located = locate(frame, self.layout, self.corners)
                self.problem = ""
            except UserError as exc:
                self.located = None
                self.problem = str(exc)

    def set_corners(self, corners: Any) -> None:
        """Boards without markers: use these corners (image px, TL TR BR BL) instead of finding
        the grid; None finds it again."""
        from vision.locate import from_corners

        with self._lock:
            self.corners = None if corners is None else [list(map(float, c)) for c in corners]
            self._last_find = -1e9
            if self.corners is not None:
                size = (0, 0) if self.latest is None else self.latest.shape[1::-1]
                self.located = from_corners(self.layout, self.corners, size)
                self.problem = ""
            else:
                self.located = None

    def calibrate(self, cells: dict[str, str]) -> None:
        """Learn the colours from the latest frame, which shows `cells`; start tracking."""
        from vision.calibration import calibrate
        from vision.tracker import Tracker

        with self._lock:
            if self.latest is None or self.located is None:
                raise UserError(
                    self.problem or "the camera does not see the mat yet: is all of it in view?"
                )
            more = ()
            if self.empty_photo is not None:
                from vision.standing import Photo

                frame, homography = self.empty_photo
                more = (Photo(frame, homography, {}),)
            calibration = calibrate(self.latest, self.located.homography, self.layout, cells, more)
            self.tracker = Tracker(
                self.layout,
                calibration,
                corners=self.corners,
                fps=self.fps,
                still_seconds=self.still_seconds,
            )
            self.tracker.request()

    def take_empty_photo(self) -> None:
        """Keep the latest frame as the empty board: calibrating then learns every cell's own
        empty look from it (a printed logo, a label) - vision.standing.

        :raises UserError: the camera does not see the board yet."""
        with self._lock:
            if self.latest is None or self.located is None:
                raise UserError(
                    self.problem or "the camera does not see the board yet: is all of it in view?"
                )
            self.empty_photo = (self.latest.copy(), self.located.homography.copy())

    def feed(self, frame: Any, now: float) -> Observation | None:
        with self._lock:
            if frame is not None:
                self.latest = frame
            if self.tracker is None:
                return None
            return self.tracker.feed(frame, now)

    def overlay(self) -> tuple[list, list]:
        """Marker outlines and cell outlines in image pixels (for the setup screen)."""
        located = self.located
        if located is None:
            return [], []
        markers = [corners.tolist() for corners in located.marker_corners.values()]
        grid = [located.to_image(cell.polygon).tolist() for cell in self.layout.cells]
        return markers, grid


# -- the controller ----------------------------------------------------------------------------------
@dataclass
class DiceState:
    dice: tuple[int, int] | None = None
    value: int | None = None
    thrown_at: float = 0.0
    in_game: bool = False
    who: str = ""


class App:
    """See the module docstring. `screen` is a display.device.Screen."""

    def __init__(
        self,
        screen: Any,
        settings: Settings | None = None,
        *,
        records: Any = None,
        dice: Any = None,
        vision_factory: Callable[[str], TableVision] | None = None,
        clock: Callable[[], float] = time.monotonic,
        signal: Callable[[], None] | None = None,
        settings_path: Path | None = None,
        status: str = "",
        speaker: Any = None,
    ) -> None:
        from companion.dice import Dice
        from display.theme import Metrics

        self.screen = screen
        self.settings = settings or Settings()
        # The table's language: the saved one, else (the first start) the system locale's.
        self.settings.language = self.settings.language or i18n.system_language()
        i18n.set_language(self.settings.language)
        i18n.set_colour_names(self.settings.colour_names)
        self.speaker = speaker  # companion.speech.Speaker, None: silent
        self.spoken = ""  # the last instruction handed to the speaker
        self.settings_path = settings_path
        self.records = records
        self.dice = dice or Dice()
        self.vision_factory = vision_factory
        self.vision: TableVision | None = None
        self.clock = clock
        self.signal = signal or (lambda: None)
        self.status = status
        self.metrics = Metrics(screen.size, self.settings.diagonal_in)
        self.page = "home"
        self.dirty = True
        self.painter: Any = None  # the last frame's display.paint.Painter (targets, texts)
        self.message = ""  # a one-line problem to show (setup)
        self.camera_problem = ""  # why there is no camera (the boot service waits for one)
        self.arranger: SetupArranger | None = None  # Arimaa's setup, being arranged by touch
        self.recognised: str | None = None
        self.referee: Any = None
        self.position: Position | None = None
        self.setup_position: Position | None = None
        self.resume_id: int | None = None
        self.hands = False
        self.vision_status = ""
        self.events: list[Event] = []  # everything the referee said, in order
        self.dice_state = DiceState()
        self.review_list_page = 0
        self.review: Any = None  # display.screens.review.ReviewGameModel
        self.settings_page = 0
        self.settings_note = ""
        self.quit = False
        self.setup_frame: Any = None
        self.setup_mismatch: tuple[str, ...] = ()  # cells the last calibration found wrong
        # Boards without markers: the four corners being tapped on the camera picture (image
        # px, TL TR BR BL; None where not tapped yet) and the corner the next tap sets.
        self.corner_edit: list[Any] | None = None
        self.corner_index = 0
        self.game_meta: dict[str, Any] | None = None  # stored with each new game (a demo's)
        # How other threads (the GPIO panel) deliver a button: run_table swaps in a version
        # that posts a pygame event, so the app is only ever touched from the main thread.
        self.post_button: Callable[[str], None] = self.button

    # -- inputs --------------------------------------------------------------------------------------
    def tap(self, pos: tuple[int, int]) -> None:
        """A finger (or mouse) tap on the upright canvas."""
        if self.painter is None:
            self.render()
        action = self.painter.hit(pos) if self.painter else None
        if action is not None and action.kind == "camera":
            # A tap on the camera picture (setup, tapping corners): where in the image.
            at, scale = self.painter.camera_view
            point = ((pos[0] - at.left) / scale, (pos[1] - at.top) / scale)
            self.act("camera-tap", point)
        elif action is not None:
            self.act(action.kind, action.value)

    def button(self, action: str) -> None:
        """A table button (or its keyboard stand-in): "done", "roll", "back", "menu"."""
        page = self.page
        if action == "menu":
            self.act("menu")
        elif page == "play":
            self.act({"done": "done", "roll": "roll", "back": "undo"}[action])
        elif page == "dice":
            self.act("roll" if action == "roll" else "dice-close")
        elif page == "home":
            self.act({"done": "start", "roll": "dice", "back": "noop"}[action])
        elif page == "setup" and self.corner_edit is not None:
            self.act({"done": "corners-use", "roll": "corner-next", "back": "back"}[action])
        elif page == "setup":
            corners = self.vision is not None and not self.vision.layout.has_markers
            roll = "corners" if corners else "empty-photo"
            self.act({"done": "confirm-setup", "roll": roll, "back": "back"}[action])
        elif page == "gameover":
            self.act({"done": "new-game", "roll": "review", "back": "home"}[action])
        elif page == "review-game":
            ply = self.review.ply if self.review else 0
            self.act(
                {"done": "ply", "roll": "ply", "back": "back"}[action],
                ply + 1 if action == "done" else ply - 1,
            )
        elif page == "review-list":
            games_list = self._review_games()
            if action == "done" and games_list:
                self.act("open-game", games_list[0][0])
            elif action == "back":
                self.act("back")
        elif page == "settings" and action == "back":
            self.act("back")

    def act(self, kind: str, value: Any = None) -> None:
        """Do what an Action asks on the current page."""
        handler = getattr(self, f"_on_{self.page.replace('-', '_')}", None)
        if kind == "menu":
            self._go("home")
        elif kind == "noop":
            return
        elif handler is not None:
            handler(kind, value)
        self.dirty = True

    # -- pages' actions --------------------------------------------------------------------------------
    def _on_home(self, kind: str, value: Any) -> None:
        if kind == "select-game":
            self.settings.game = value
            self._save_settings()
        elif kind == "start":
            self.start_game(self.settings.game)
        elif kind == "resume":
            self.resume_game(int(value))
        elif kind == "dice":
            self.dice_state = DiceState()
            self._go("dice")
        elif kind == "review":
            self.review_list_page = 0
            self._go("review-list")
        elif kind in ("settings", "options"):
            self.settings_page = 0
            self.settings_note = ""
            self._go("settings")

    def _on_setup(self, kind: str, value: Any) -> None:
        if self.corner_edit is not None:
            self._on_corners(kind, value)
        elif kind == "corners" and self.vision is not None:
            located = self.vision.located
            self.corner_edit = (
                [tuple(map(float, c)) for c in located.board_corners_px()]
                if located is not None
                else [None] * 4
            )
            self.corner_index = 0
        elif kind == "find-grid" and self.vision is not None:
            self.vision.set_corners(None)
            self.settings.corners.pop(self.vision.layout.name, None)
            self._save_settings()
        elif kind == "empty-photo" and self.vision is not None:
            try:
                self.vision.take_empty_photo()  # the header's status says so
                self.message = ""
            except UserError as exc:
                self.message = str(exc)
        elif kind == "back":
            self.setup_position = None
            self.resume_id = None
            self._go("home")
        elif kind == "confirm-setup":
            self.confirm_setup()

    def _on_corners(self, kind: str, value: Any) -> None:
        """Tapping the four corners of a board without markers on the camera picture."""
        edit = self.corner_edit
        assert edit is not None and self.vision is not None
        if kind == "camera-tap":
            edit[self.corner_index] = (float(value[0]), float(value[1]))
            unset = [i for i in range(4) if edit[i] is None]
            self.corner_index = unset[0] if unset else (self.corner_index + 1) % 4
        elif kind == "corner-next":
            self.corner_index = (self.corner_index + 1) % 4
        elif kind in ("corners-use", "confirm-setup"):
            if any(c is None for c in edit):
                self.message = _("Tap all four corners first")
                return
            try:
                self.vision.set_corners(edit)
            except UserError:  # the corners cross, or lie far outside: not a board
                self.message = _(
                    "These corners do not go round the board: tap them top-left, top-right, "
                    "bottom-right, bottom-left as the first player sees the board"
                )
                return
            self.settings.corners[self.vision.layout.name] = [list(c) for c in edit]
            self._save_settings()
            self.corner_edit = None
            self.message = ""
        elif kind == "back":
            self.corner_edit = None

    def corner_cells(self) -> tuple[str, ...]:
        """The cell at each corner of the layout (TL TR BR BL): "a8", "h8", "h1", "a1"."""
        layout = self.vision.layout if self.vision is not None else None
        if layout is None or not layout.cells:
            return ("", "", "", "")
        names = []
        for x, y in layout.board_corners():
            nearest = min(
                layout.cells, key=lambda c: (c.center[0] - x) ** 2 + (c.center[1] - y) ** 2
            )
            names.append(nearest.name)
        return tuple(names)

    def _own_board_setup(self, model: Any, position: Position) -> None:
        """The setup page for a board without markers: the found (or tapped) grid drawn over
        the camera picture to confirm, with its first cell marked; tapping the four corners
        when the grid is not found or wrong."""
        vision = self.vision
        assert vision is not None
        cells = self.corner_cells()
        located = vision.located
        if located is not None and vision.layout.cells:
            first = next(c for c in vision.layout.cells if c.name == cells[3])
            model.first_cell = located.to_image(first.polygon).tolist()
        tapped = vision.corners is not None
        chess = getattr(position.options, "equipment", "mat") == "chess"
        if self.corner_edit is not None:
            i = self.corner_index
            model.corners = list(self.corner_edit)
            model.active_corner = i
            model.tapping = True
            model.text = _("Tap the {corner} corner of the board (by {cell})").format(
                corner=_corner_name(i), cell=cells[i]
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
            return
        where = _("tapped corners") if tapped else _("grid found")
        model.status = where if located is not None else _("searching...")
        if located is None:
            model.text = _("Show the camera the whole board")
            model.detail = _(
                "{problem}. Not found? Tap Corners and tap the board's four corners on the picture"
            ).format(problem=vision.problem or _("Looking for the grid"))
        else:
            model.text = _("Check the grid, put the pieces as shown, then press DONE")
            model.detail = _(
                "The grid must lie on the squares, {cell} (marked) by the first player. "
                "Wrong? Tap Corners"
            ).format(cell=cells[3])
        if chess:
            from companion.referee.arimaa import chess_mapping

            model.detail += ". " + chess_mapping()
        model.buttons = [(_("Back"), "back", "normal"), (_("Corners"), "corners", "normal")]
        if tapped:
            model.buttons.append((_("Find"), "find-grid", "normal"))
        model.buttons.append((_("Empty board"), "empty-photo", "normal"))
        model.buttons.append((_("Done"), "confirm-setup", "primary" if located else "disabled"))

    def _on_play(self, kind: str, value: Any) -> None:
        inputs = {"done": DONE, "roll": ROLL, "undo": UNDO, "cancel": CANCEL, "choose": CHOOSE}
        if self.arranger is not None:
            self._on_arranging(kind, value)
        elif kind == "choose" and value == ARRANGE and (side := self._setup_side()) is not None:
            from companion.referee.arimaa import STANDARD_SETUP

            self.arranger = SetupArranger.from_line(side, STANDARD_SETUP[side])
        elif kind in inputs and self.referee is not None:
            self.player_input(PlayerInput(inputs[kind], value))
        elif kind == "review":
            self._go("review-list")
        elif kind == "new-game":
            self.start_game(self.settings.game)

    def _on_arranging(self, kind: str, value: Any) -> None:
        arranger = self.arranger
        assert arranger is not None
        if kind == "cell":
            arranger.tap(str(value))
        elif (kind == "choose" and value == USE_ARRANGEMENT) or kind == "done":
            self.arranger = None
            self.player_input(PlayerInput(CHOOSE, arranger.line()))
        elif (kind == "choose" and value == "back") or kind in ("undo", "cancel"):
            self.arranger = None

    def _setup_side(self) -> str | None:
        """Arimaa's side to set up while the referee asks which setup; else None."""
        referee = self.referee
        if referee is None or referee.position.name != "arimaa":
            return None
        if not referee.position.in_setup or referee.instruction.kind != "choose":
            return None
        return referee.position.turn

    def _piece_labels(self) -> dict[str, str]:
        """Arimaa: the type of every piece on the diagram ("E", "R"), from the referee's
        position - or, during the setup, from the setup being put down."""
        referee = self.referee
        position = referee.position if referee is not None else None
        if position is None or position.name != "arimaa":
            return {}
        shown = position
        setup = getattr(referee, "setups", {}).get(position.turn) if position.in_setup else None
        if setup:
            shown = position.copy()
            shown.push(shown.parse_move(setup))
        return {sq: shown.piece_at(sq).upper() for sq in shown.cells()}

    def _on_dice(self, kind: str, value: Any) -> None:
        if kind == "roll":
            if self.dice_state.in_game:
                if self.referee is not None and self.referee.instruction.kind == "roll":
                    self.player_input(PlayerInput(ROLL))
                return
            roll = self.dice.roll()
            self.dice_state = DiceState((roll.a, roll.b), roll.value, self.clock())
        elif kind == "dice-close":
            self._go("play" if self.dice_state.in_game and self.referee is not None else "home")

    def _on_gameover(self, kind: str, value: Any) -> None:
        if kind == "new-game":
            self.start_game(self.settings.game)
        elif kind == "review":
            if self.referee is not None and self.referee.game_id is not None:
                self.open_review(self.referee.game_id)
            else:
                self._go("review-list")
        elif kind == "home":
            self._go("home")

    def _on_review_list(self, kind: str, value: Any) -> None:
        if kind == "open-game":
            self.open_review(int(value))
        elif kind == "page":
            self.review_list_page = max(0, int(value))
        elif kind == "back":
            self._go("home")

    def _on_review_game(self, kind: str, value: Any) -> None:
        if kind == "ply" and self.review is not None:
            self.review.ply = max(0, min(int(value), len(self.review.boards) - 1))
            self.review.highlights = self._review_highlights()
        elif kind == "back":
            self._go("review-list")

    def _on_settings(self, kind: str, value: Any) -> None:
        if kind == "page":
            self.settings_page = max(0, int(value))
        elif kind == "back":
            self._go("home")
        elif kind in ("setting-up", "setting-down"):
            self.change_setting(value, +1 if kind == "setting-up" else -1)

    # -- games ------------------------------------------------------------------------------------------
    def start_game(self, game: str) -> None:
        """A new game: on to setup (the camera learns the colours from the start position)."""
        cls = games.get(game)
        options = cls.options_for_next_game(
            self.settings.game_options(game), self._previous_outcome(game)
        )
        self.settings.game = game
        self.setup_position = cls.new(options)
        self.resume_id = None
        self.referee = None
        self._begin_setup()

    def _previous_outcome(self, game: str) -> Outcome | None:
        """How the last finished game of this kind at this table ended (None: no such game)."""
        from companion.records import FINISHED

        if self.records is None:
            return None
        for summary in self.records.games():  # newest first
            if summary.game == game and summary.status == FINISHED:
                return Outcome.from_json(summary.outcome) if summary.outcome else None
        return None

    def resume_game(self, game_id: int) -> None:
        """Continue an unfinished game (after a crash or a menu visit) at its last accepted
        position: the board must show that position again first."""
        if (
            self.referee is not None
            and self.referee.game_id == game_id
            and not self.referee.position.is_game_over()
        ):
            self._go("play")
            return
        assert self.records is not None
        self.setup_position = self.records.resume(game_id)
        self.settings.game = self.setup_position.name
        self.resume_id = game_id
        self.referee = None
        self._begin_setup()

    def _begin_setup(self) -> None:
        position = self.setup_position
        assert position is not None
        self.message = ""
        if self.vision_factory is None:
            self._start_referee()
            return
        layout = layout_name(position.name, position.options)
        if self.vision is None or self.vision.layout.name != layout:
            self.vision = self.vision_factory(layout)
            saved = self.settings.corners.get(layout)
            if saved and not self.vision.layout.has_markers:
                try:
                    self.vision.set_corners(saved)  # tapped at an earlier setup
                except (UserError, TypeError, ValueError):  # a hand-edited settings file
                    self.settings.corners.pop(layout, None)
        self.vision.tracker = None  # learn the colours again under today's light
        self.corner_edit = None
        self.setup_mismatch = ()
        self._go("setup")

    def confirm_setup(self) -> None:
        position = self.setup_position
        if position is None or self.vision is None:
            return
        try:
            self.vision.calibrate(calibration_cells(position, self.vision.layout.classes))
        except PositionMismatch as exc:
            # The diagram marks the cells; a list of them would be a wall of text.
            self.setup_mismatch = exc.cells
            count = len(exc.cells)
            self.message = ngettext(
                "{count} marked cell does not look like the position: check it, then press "
                "DONE again",
                "{count} marked cells do not look like the position: check them, then press "
                "DONE again",
                count,
            ).format(count=count)
            self.signal()
            return
        except UserError as exc:
            self.message = str(exc)
            self.signal()
            return
        self.setup_mismatch = ()
        self._start_referee()

    def _start_referee(self) -> None:
        from companion.referee import Referee

        position = self.setup_position
        assert position is not None
        if self.resume_id is not None:
            self.referee = Referee.resume(self.records, self.resume_id, dice=self.dice)
        else:
            # The calibration pieces of a game that starts on an empty board are still there.
            extra = calibration_cells(position, self.vision.layout.classes) if self.vision else {}
            # A chess set's start position stays on the board: it is both sides' `chess` setup.
            chess = getattr(position.options, "equipment", "mat") == "chess"
            self.referee = Referee(
                position,
                records=self.records,
                dice=self.dice,
                clear_first=extra != position.cells() and not chess,
                meta=self.game_meta,
            )
        self.position = self.referee.position
        self.setup_position = None
        self.resume_id = None
        self.events = []
        self.hands = False
        self._speak([])
        self._go("play")

    def _speak(self, events: list[Event]) -> None:
        """Say each new instruction once (the dice's value first when they were just rolled:
        "Amber rolls 7"); the speaker's worker does the talking, this never waits."""
        if self.speaker is None or self.referee is None:
            return
        from display.screens.play import say

        text = say(self.referee.instruction.text, self.settings.colour_names)
        if text == self.spoken:
            return
        self.spoken = text
        sentences = [
            _("{player} rolls {value}").format(
                player=play_name(str(e.data.get("player", "")), self.settings.colour_names),
                value=e.data.get("value"),
            )
            for e in events
            if e.kind == "roll" and e.data.get("value") is not None
        ]
        self.speaker.say(". ".join([*sentences, text]))

    def player_input(self, player_input: PlayerInput) -> None:
        try:
            events = self.referee.handle(player_input)
        except UserError as exc:
            self.message = str(exc)
            events = []
        self._after(events)

    def on_observation(self, observation: Observation) -> None:
        """A still board from the camera."""
        if self.referee is None or self.page not in ("play", "dice", "gameover"):
            return
        try:
            events = self.referee.observe(observation)
        except UserError as exc:  # e.g. the wrong mat on the table
            self.message = str(exc)
            events = []
        self._after(events)

    def on_camera_problem(self, text: str) -> None:
        """The camera is missing or failed ("" once it works again): said on every screen."""
        self.camera_problem = text
        self.dirty = True

    def on_vision_status(self, status: str) -> None:
        """The tracker's state: "hands" lights the indicator (and pauses the referee)."""
        if status == self.vision_status:
            return
        self.vision_status = status
        hands = status == "hands"
        if self.referee is not None:
            self._after(self.referee.hands(hands))
        if hands != self.hands:
            self.hands = hands
            if self.page in ("play", "setup"):
                self.dirty = True
        elif self.page in ("play", "setup"):
            self.dirty = True  # the camera state in the header

    def on_setup_frame(self, frame: Any) -> None:
        self.setup_frame = frame
        if self.page == "setup":
            self.dirty = True

    def recognise(self, layout: str | None) -> None:
        """The camera sees this mat: preselect its game on the home screen."""
        game = game_for_layout(layout) if layout else None
        if game and game != self.recognised:
            self.recognised = game
            self.settings.game = game
            self.dirty = True

    def _after(self, events: list[Event]) -> None:
        if not events and self.referee is None:
            return
        self.events += events
        self._speak(events)
        for event in events:
            if event.kind == "illegal":
                self.signal()
            elif event.kind == "roll":
                dice = event.data.get("dice", [1, 1])
                self.dice_state = DiceState(
                    (int(dice[0]), int(dice[1])),
                    event.data.get("value"),
                    self.clock(),
                    True,
                    str(event.data.get("player", "")),
                )
                self._go("dice")
        if (
            self.referee is not None
            and self.referee.instruction.kind == "game-over"
            and self.page != "dice"
        ):
            self._go("gameover")
        self.dirty = True

    # -- review -------------------------------------------------------------------------------------------
    def _review_games(self) -> list[tuple[int, str, str]]:
        if self.records is None:
            return []
        rows = []
        for summary in reversed(self.records.games()):
            title = f"#{summary.id} {games.get(summary.game).title}"
            if summary.meta.get("demo"):
                # played by the synthetic table, not at this table
                title = _("{game} (demo)").format(game=title)
            moves = ngettext("{count} move", "{count} moves", summary.moves).format(
                count=summary.moves
            )
            status = pgettext("game status", summary.status)
            line = f"{status} · {moves} · {summary.started_at[:16].replace('T', ' ')}"
            if summary.outcome:
                line = f"{status} · {moves} · {result_text(summary, short=True)}"
            rows.append((summary.id, title, line))
        return rows

    def open_review(self, game_id: int) -> None:
        from display.screens.review import ReviewGameModel

        assert self.records is not None
        record = self.records.game(game_id, images=False)
        cls = games.get(record.game)
        start = cls.from_json(record.start)
        boards = [start.cells()] + [cls.from_json(m.position).cells() for m in record.moves]
        options = start.options
        self.review = ReviewGameModel(
            title=f"#{record.id} {cls.title}",
            geometry=board_geometry(record.game, options),
            boards=boards,
            moves=[m.text for m in record.moves],
            ply=len(boards) - 1,
            result=result_text(record.summary) if record.summary.outcome else "",
        )
        self.review.highlights = self._review_highlights()
        self._go("review-game")

    def _review_highlights(self) -> dict[str, str]:
        """The cells that changed with the move shown: from (emptied) and to (filled)."""
        from companion.referee.protocol import FLIP, FROM, TO

        r = self.review
        if r is None or r.ply == 0:
            return {}
        before, after = r.boards[r.ply - 1], r.boards[r.ply]
        marks = {}
        for cell in set(before) | set(after):
            a, b = before.get(cell), after.get(cell)
            if a == b:
                continue
            marks[cell] = FROM if b is None else TO if a is None else FLIP
        return marks

    # -- settings -------------------------------------------------------------------------------------------
    def setting_rows(self) -> list[Any]:
        from display.screens.settings import SettingRow

        s = self.settings
        rows = [
            SettingRow(
                _("Screen"), _("Language"), i18n.LANGUAGE_NAMES[i18n.language()], "language"
            ),
            SettingRow(_("Screen"), _("Rotation"), f"{s.rotation}°", "rotation"),
        ]
        speaker = self.speaker
        if speaker is not None and speaker.available:
            rows.append(
                SettingRow(_("Speech"), _("Spoken instructions"), option_value(s.speech), "speech")
            )
            rows.append(SettingRow(_("Speech"), _("Volume"), f"{s.volume} %", "volume"))
        else:
            why = speaker.problem if speaker is not None else "no speaker"
            rows.append(
                SettingRow(
                    _("Speech"),
                    _("Spoken instructions: {reason}").format(reason=speech_problem(why)),
                    _("off"),
                    "speech",
                )
            )
        cls = games.get(s.game)
        for piece in cls.cell_classes():
            rows.append(
                SettingRow(
                    _("Colour names"),
                    _("{colour} pieces are called").format(colour=i18n.colour_noun(piece, False)),
                    i18n.colour_noun(s.colour_names.get(piece, piece), False),
                    f"colour:{piece}",
                )
            )
        options = s.game_options()
        for f in dataclasses.fields(options):
            value = getattr(options, f.name)
            if isinstance(value, (tuple, list)):
                continue  # lists (Sensei's pits) are set in the settings file
            rows.append(
                SettingRow(
                    _("{game} options").format(game=cls.title),
                    option_label(f.name),
                    option_value(value),
                    f"option:{f.name}",
                )
            )
        from hardware.buttons import ButtonPins

        pins = ButtonPins.parse(s.pins)
        for name in ("done", "roll", "back", "buzzer", "led"):
            rows.append(
                SettingRow(
                    _("Buttons (BCM, after a restart)"),
                    _("{button} pin").format(button=button_name(name)),
                    option_value(getattr(pins, name)),
                    f"pin:{name}",
                )
            )
        return rows

    def change_setting(self, key: str, step: int) -> None:
        s = self.settings
        try:
            if key == "language":
                names = list(i18n.LANGUAGES)
                index = names.index(i18n.language()) if i18n.language() in names else 0
                s.language = names[(index + step) % len(names)]
                i18n.set_language(s.language)
                self._refresh_instruction()
            elif key == "speech":
                if self.speaker is None or not self.speaker.available:
                    return
                s.speech = not s.speech
                self.speaker.enabled = s.speech
                if not s.speech:
                    self.speaker.stop()
            elif key == "volume":
                s.volume = max(0, min(100, s.volume + 10 * step))
                if self.speaker is not None:
                    self.speaker.volume = s.volume
            elif key == "rotation":
                s.rotation = (s.rotation + 90 * step) % 360
                self.screen.set_rotation(s.rotation)
                from display.theme import Metrics

                self.metrics = Metrics(self.screen.size, s.diagonal_in)
            elif key.startswith("colour:"):
                piece = key.split(":", 1)[1]
                words = [piece, *(w for w in COLOUR_NOUNS if w != piece)]
                current = s.colour_names.get(piece, piece)
                index = words.index(current) if current in words else 0
                new = words[(index + step) % len(words)]
                if new == piece:
                    s.colour_names.pop(piece, None)
                else:
                    s.colour_names[piece] = new
                i18n.set_colour_names(s.colour_names)
                self._refresh_instruction()
            elif key.startswith("option:"):
                self._step_option(key.split(":", 1)[1], step)
            elif key.startswith("pin:"):
                self._step_pin(key.split(":", 1)[1], step)
            self.settings_note = _("Saved")
            self._save_settings()
        except UserError as exc:
            self.settings_note = str(exc)

    def _refresh_instruction(self) -> None:
        """The current instruction again, in the language and colour words just chosen."""
        if self.referee is not None:
            self.referee._update()

    def _step_option(self, name: str, step: int) -> None:
        import typing

        s = self.settings
        cls = games.get(s.game)
        options = s.game_options()
        hint = typing.get_type_hints(type(options))[name]
        value = getattr(options, name)
        if typing.get_origin(hint) is typing.Literal:
            choices = list(typing.get_args(hint))
            value = choices[(choices.index(value) + step) % len(choices)]
        elif isinstance(value, bool):
            value = not value
        elif isinstance(value, int):
            value = value + step
        elif value is None:
            value = 100 if step > 0 else None
        try:
            new = options_from_dict(
                cls.Options, options_to_dict(options) | {name: value}, game=cls.name
            )
        except UserError:
            return  # out of range: stay at the limit
        s.options[s.game] = {
            k: (list(v) if isinstance(v, tuple) else v) for k, v in options_to_dict(new).items()
        }

    def _step_pin(self, name: str, step: int) -> None:
        from hardware.buttons import ButtonPins

        pins = ButtonPins.parse(self.settings.pins)
        current = getattr(pins, name)
        taken = {getattr(pins, n) for n in ("done", "roll", "back", "buzzer", "led")} - {
            current,
            None,
        }
        candidates = (
            [None] + [p for p in range(2, 28) if p not in taken]
            if name in ("buzzer", "led")
            else [p for p in range(2, 28) if p not in taken]
        )
        index = candidates.index(current) if current in candidates else 0
        new = candidates[(index + step) % len(candidates)]
        updated = dataclasses.replace(pins, **{name: new})
        self.settings.pins = ",".join(
            f"{n}={_show(getattr(updated, n))}" for n in ("done", "roll", "back", "buzzer", "led")
        )

    def _save_settings(self) -> None:
        if self.settings_path is not None:
            try:
                self.settings.save(self.settings_path)
            except OSError as exc:
                self.settings_note = _("not saved: {reason}").format(reason=exc)

    # -- drawing --------------------------------------------------------------------------------------------
    def _go(self, page: str) -> None:
        assert page in PAGES, page
        if page != self.page:
            self.page = page
            self.painter = None
        self.dirty = True

    def tick(self, now: float | None = None) -> float | None:
        """Advance animations; returns seconds until the next frame is due (None: nothing
        animates, sleep until an event)."""
        if self.page != "dice" or self.dice_state.dice is None:
            return None
        now = self.clock() if now is None else now
        age = now - self.dice_state.thrown_at
        if age < DICE_ANIMATION + FRAME_INTERVAL:
            self.dirty = True
            return FRAME_INTERVAL
        if self.dice_state.in_game:
            if age >= DICE_ANIMATION + DICE_SHOW - 1e-3:  # (float sums never quite get there)
                self._go(
                    "gameover" if self.referee and self.referee.position.is_game_over() else "play"
                )
                return None
            return DICE_ANIMATION + DICE_SHOW - age
        return None

    def render(self, force: bool = False) -> bool:
        """Draw the current page if anything changed; True when it drew."""
        if not (self.dirty or force):
            return False
        from display.paint import Painter

        surface = self.screen.canvas
        painter = Painter(surface, self.metrics)
        draw, model = self.page_model()
        draw(painter, model)
        if self.camera_problem:  # on every page, over the header: nothing else is covered
            _message_bar(
                painter, _("No camera: {problem}").format(problem=self.camera_problem), top=True
            )
        elif self.message and self.page in ("setup", "play"):
            # On the setup page the buttons (Done) fill the bottom: the problem goes over the
            # header instead, where it covers nothing a player must reach.
            _message_bar(painter, self.message, top=self.page == "setup")
        self.painter = painter
        self.screen.present()
        self.dirty = False
        return True

    def page_model(self) -> tuple[Callable, Any]:
        """The current page's draw function and its model (pure data)."""
        from display.screens import dice, gameover, home, play, review, settings, setup

        s = self.settings
        if self.page == "home":
            unfinished = []
            if self.records is not None:
                for summary in reversed(self.records.unfinished_games()[-2:]):
                    unfinished.append(
                        (
                            summary.id,
                            _("#{id} {game}, move {number}").format(
                                id=summary.id,
                                game=games.get(summary.game).title,
                                number=summary.moves + 1,
                            ),
                        )
                    )
            cls = games.get(s.game)
            model = home.HomeModel(
                games=[(n, games.get(n).title) for n in games.names()],
                selected=s.game,
                recognised=self.recognised,
                options_text=_options_text(cls, s.game_options()),
                unfinished=unfinished,
                status=self.status,
            )
            return home.draw, model
        if self.page == "setup":
            position = self.setup_position
            assert position is not None and self.vision is not None
            want = calibration_cells(position, self.vision.layout.classes)
            markers, grid = self.vision.overlay()
            found = self.vision.located is not None
            model = setup.SetupModel(
                title=_("Set up {game}").format(game=position.title),
                geometry=board_geometry(position.name, position.options),
                start_cells=want,
                wrong={cell: ERROR for cell in self.setup_mismatch},
                frame=self.setup_frame if self.setup_frame is not None else self.vision.latest,
                markers=markers,
                grid=grid,
                text=_("Put the pieces as shown, then press DONE")
                if found
                else _("Show the camera the whole mat"),
                detail=self.vision.problem
                if not found
                else _("The camera learns your pieces' colours from this position"),
                status=ngettext("{count} marker seen", "{count} markers seen", len(markers)).format(
                    count=len(markers)
                )
                if found
                else _("searching..."),
                ready=found,
            )
            if self.vision.layout.has_markers:
                model.buttons = [
                    (_("Back"), "back", "normal"),
                    (_("Empty board"), "empty-photo", "normal"),
                    (_("Done"), "confirm-setup", "primary" if found else "disabled"),
                ]
                if self.vision.empty_photo is not None:
                    model.status += "; " + _("empty board photographed")
            else:
                self._own_board_setup(model, position)
            return setup.draw, model
        if self.page == "play":
            referee = self.referee
            position = referee.position
            board = referee.board if referee.board is not None else position.cells()
            instruction: Instruction = referee.instruction
            labels = self._piece_labels()
            cell_action = ""
            if self.arranger is not None:
                a = self.arranger
                board = {**position.cells(), **{sq: a.side for sq in a.pieces}}
                labels = {**labels, **{sq: letter.upper() for sq, letter in a.pieces.items()}}
                instruction = Instruction(
                    text=_("{player}: tap two pieces to swap them").format(
                        player=i18n.player(a.side)
                    ),
                    kind="choose",
                    player=a.side,
                    highlights={a.picked: TARGET} if a.picked else {},
                    detail=_("Then put your pieces on the board the same way"),
                    choices=(USE_ARRANGEMENT, "back"),
                )
                cell_action = "cell"
            elif self._setup_side() is not None:
                instruction = dataclasses.replace(
                    instruction, choices=(*instruction.choices, ARRANGE)
                )
            model = play.PlayModel(
                title=position.title,
                geometry=board_geometry(position.name, position.options),
                cells=board,
                instruction=instruction,
                turn=position.turn if not position.is_game_over() else None,
                move_number=len(position.move_stack),
                hands=self.hands,
                camera=_("camera: {state}").format(
                    state=pgettext("camera state", self.vision_status)
                )
                if self.vision_status
                else "",
                can_roll=position.awaiting_roll,
                colour_names=s.colour_names,
                piece_labels=labels,
                cell_action=cell_action,
            )
            return play.draw, model
        if self.page == "dice":
            d = self.dice_state
            phase = 1.0
            if d.dice is not None:
                phase = min(1.0, (self.clock() - d.thrown_at) / DICE_ANIMATION)
            rule = _("A 3 and a 4 count as 1") if d.dice and sorted(d.dice) == [3, 4] else ""
            title = (
                _("{game} · dice").format(game=self.position.title)
                if d.in_game and self.position
                else _("Dice")
            )
            who = (
                _("{player} rolls").format(player=play_name(d.who, s.colour_names)) if d.who else ""
            )
            model = dice.DiceModel(
                d.dice, d.value, rule, phase, title, who, _("Play") if d.in_game else _("Back")
            )
            return dice.draw, model
        if self.page == "gameover":
            position = self.referee.position
            outcome = position.outcome()
            instruction = self.referee.instruction
            model = gameover.GameOverModel(
                title=position.title,
                geometry=board_geometry(position.name, position.options),
                cells=self.referee.board if self.referee.board is not None else position.cells(),
                headline=instruction.text,
                detail=instruction.detail,
                winner=outcome.winner if outcome else None,
                moves=len(position.move_stack),
            )
            return gameover.draw, model
        if self.page == "review-list":
            return review.draw_list, review.ReviewListModel(
                self._review_games(), self.review_list_page
            )
        if self.page == "review-game":
            return review.draw_game, self.review
        return settings.draw, settings.SettingsModel(
            self.setting_rows(), self.settings_page, self.settings_note
        )


def _show(value: Any) -> str:
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def play_name(player: str, colour_names: dict[str, str]) -> str:
    """A player's name in the table's words and language ("Amber", "Bernstein")."""
    from display.screens.play import player_label

    return player_label(player, colour_names) if player else ""


def result_text(summary: Any, *, short: bool = False) -> str:
    """A recorded game's result in the table's language (companion.referee.outcomes)."""
    from companion.referee.outcomes import result_text as words

    outcome = Outcome.from_json(summary.outcome) if summary.outcome else None
    return words(outcome, summary.status, short=short)


def speech_problem(problem: str) -> str:
    """Why the table is silent, in its language."""
    if problem == "espeak-ng is not installed":
        return _("espeak-ng is not installed")
    if problem.startswith("no audio device"):
        return _("no audio device")
    if problem == "no speaker":
        return _("not started")
    return problem


def _mark_states() -> None:  # pragma: no cover - never called, only read by the extractor
    pgettext("game status", "playing")
    pgettext("game status", "finished")
    pgettext("game status", "abandoned")
    pgettext("camera state", "still")
    pgettext("camera state", "moving")
    pgettext("camera state", "hands")
    pgettext("camera state", "searching")
    pgettext("camera state", "board-moved")


def _options_text(cls: type[Position], options: Any) -> str:
    parts = []
    defaults = cls.Options() if dataclasses.fields(cls.Options) else None
    if hasattr(options, "rows") and hasattr(options, "cols"):
        parts.append(_("{rows} x {cols} board").format(rows=options.rows, cols=options.cols))
    for f in dataclasses.fields(options) if dataclasses.is_dataclass(options) else ():
        if f.name in ("rows", "cols"):
            continue
        value = getattr(options, f.name)
        if defaults is not None and value != getattr(defaults, f.name):
            parts.append(
                _("{option}: {value}").format(
                    option=option_label(f.name), value=option_value(value)
                )
            )
    return ", ".join(parts) or _("Standard rules")


def _message_bar(painter: Any, text: str, *, top: bool = False) -> None:
    """A red bar with a problem: at the bottom, or over the page's header (`top`)."""
    import pygame

    from display import layout, theme

    m = painter.m
    w, h = painter.surface.get_size()
    if top:
        rect = layout.frame((w, h), painter).header
    else:
        rect = pygame.Rect(0, h - m.mm(8), w, m.mm(8))
    pygame.draw.rect(painter.surface, theme.VERMILLION, rect)
    painter.wrapped(
        text,
        rect.inflate(-m.mm(3), -m.mm(1)),
        m.font_small,
        (255, 255, 255),
        valign="middle",
        min_size=m.font_small // 2,
    )


# -- the simulated players (the demo) ---------------------------------------------------------------------
class SimulatedPlayers:
    """Two careful players for the synthetic table: they do what the screen says.

    They place a piece for a move chosen at random (seeded) from the engine's legal moves (in
    Aranea mostly the one that climbs furthest, see `_choose_move`) -
    Arinama: the stone alone, then the flips when told; other games: the whole move - fix the
    board when asked to, press ROLL when the dice are wanted and DONE when a turn needs ending
    or a take-back confirming. Their hands go through `SimTable.transition`, so the camera sees
    real arms over the board.
    """

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.target: dict[str, str] | None = None  # the board the hands are making
        self.pressed_key: tuple[int, str] | None = None  # (plies, instruction) last pressed for
        self.pressed_at = -REPRESS_FRAMES

    def next_board(self, referee: Any, board: dict[str, str]) -> dict[str, str] | None:
        """The board the players make next, or None when it is a button's turn."""
        instruction = referee.instruction
        position = referee.position
        if (
            instruction.kind in ("restore", "flip", "illegal", "wait", "setup", "remove")
            and instruction.expected is not None
        ):
            if instruction.expected != board:
                return dict(instruction.expected)
            return None
        if instruction.kind == "move" and board == referee.expected():
            mid_turn = getattr(position, "actions_this_turn", None) or getattr(
                position, "steps_this_turn", None
            )
            if position.awaiting_roll or mid_turn:
                return None  # a roll first / Sensei, Arimaa: the turn is made, DONE is next
            try:
                move = self._choose_move(position)
            except IndexError:
                return None  # nothing legal: the referee passes or ends the game
            if position.move_text(move) == "pass":
                return None
            after = position.copy()
            after.push(move)
            if position.name == "arinama":  # the stone first; the referee then asks for flips
                placed = dict(board)
                placed[position.move_text(move)] = position.turn
                return placed
            return after.cells()  # the whole turn (Sensei's actions, Arimaa's steps)
        return None

    def _choose_move(self, position: Any) -> Any:
        """A random legal move; in Aranea mostly the use that climbs furthest towards the
        centre (random uses go round the web for a thousand moves or more, and the demo is
        to finish its game)."""
        if position.name != "aranea" or self.rng.random() < 0.05:
            return position.random_move(self.rng)
        player = position.turn
        probe = position.copy()

        def height(move: Any) -> tuple[int, float]:
            probe.push(move)
            outcome = probe.outcome()
            mine = [cell for cell, owner in probe.cells().items() if owner == player]
            probe.pop()
            climb = sum(10 if cell.startswith("c") else int(cell[1]) for cell in mine)
            return (1 if outcome and outcome.winner == player else 0, climb + self.rng.random())

        return max(position.legal_moves(), key=height)

    def button(self, referee: Any, frame: int) -> str | None:
        """The button the players press now, if any. A press the referee ignored (the board
        was not right yet) is tried again after a while, as people do."""
        instruction = referee.instruction
        key = (len(referee.position.move_stack), instruction.text)
        if key == self.pressed_key and frame - self.pressed_at < REPRESS_FRAMES:
            return None
        press = None
        if instruction.kind == "choose" and instruction.choices:
            press = f"choose:{instruction.choices[0]}"  # e.g. Arimaa's standard setup
        elif instruction.kind == "roll":
            press = "roll"
        elif instruction.kind == "confirm":
            press = "done"
        elif instruction.kind == "move" and _("DONE") in instruction.text:
            press = "done"  # Sensei: the turn's actions are made
        if press:
            self.pressed_key, self.pressed_at = key, frame
        return press


def simulate_game(
    game: str,
    *,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    max_moves: int = 500,
    max_actions: int = 20000,
) -> tuple[int, str]:
    """The demo's players against the referee, the boards they make handed over as they are
    (no camera, no screen): the cheap half of the demo, for sweeping many seeds. Returns
    (moves, outcome or "unfinished"); raises RuntimeError where the demo would stall - the
    players have nothing to do and the referee waits for them."""
    from companion.dice import Dice
    from companion.referee import PlayerInput, Referee, observation_of

    settings = Settings(game=game)
    if options:
        settings.options[game] = options
    position = games.get(game).new(settings.game_options(game))
    referee = Referee(position, dice=Dice(seed=seed))
    names = referee.position.cell_names()
    players = SimulatedPlayers(seed)
    board: dict[str, str] = {}
    referee.observe(observation_of(names, board))
    idle = 0
    for step in range(max_actions):
        position = referee.position
        if position.is_game_over() or len(position.move_stack) >= max_moves:
            outcome = position.outcome()
            return len(position.move_stack), str(outcome) if outcome else "unfinished"
        before = (len(position.move_stack), referee.instruction)
        target = players.next_board(referee, board)
        if target is not None and target != board:
            board = target
            referee.observe(observation_of(names, board, frame=step))
        else:
            # Time passes as in the demo: a press the referee ignored is tried again later.
            action = players.button(referee, step * REPRESS_FRAMES // 4)
            if action and action.startswith("choose:"):
                referee.handle(PlayerInput("choose", action.split(":", 1)[1]))
            elif action:
                referee.handle(PlayerInput(action))
        idle = idle + 1 if (len(position.move_stack), referee.instruction) == before else 0
        if idle > 20:
            raise RuntimeError(
                f"{game} seed {seed} stalls at move {len(position.move_stack)}: the referee "
                f"says {referee.instruction.text!r} and the players have nothing to do"
            )
    raise RuntimeError(f"{game} seed {seed}: no end after {max_actions} actions")


def unfinished_demo(records: Any, game: str, layout: str) -> int | None:
    """The newest unfinished game the demo left in `records` on this layout, if any."""
    if records is None:
        return None
    for summary in records.unfinished_games():
        if (
            summary.meta.get("demo")
            and summary.game == game
            and layout_name(game, games.get(game).options_from(summary.options)) == layout
        ):
            return summary.id
    return None


def _pace(started: float, now: float) -> bool:
    """Wait until `now` seconds after `started` (real time), keeping the window responsive;
    False when the window was closed or Escape pressed."""
    import pygame

    while True:
        for event in pygame.event.get():
            if event.type == pygame.QUIT or (
                event.type == pygame.KEYDOWN and event.key == pygame.K_ESCAPE
            ):
                return False
        left = started + now - time.monotonic()
        if left <= 0:
            return True
        pygame.time.wait(int(min(left, 0.05) * 1000))


@dataclass
class DemoResult:
    game: str
    game_id: int | None
    moves: int
    outcome: str
    screenshots: list[Path]
    frames: int
    seconds: float


def run_demo(
    game: str = "arinama",
    *,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    records: Any = None,
    screenshots: Path | None = None,
    size: tuple[int, int] = (800, 480),
    camera_size: tuple[int, int] | None = None,
    max_moves: int = 500,
    max_frames: int = 20000,
    log: Callable[[str], None] = lambda text: None,
    review_steps: int = 3,
    screen: Any = None,
    realtime: bool = False,
    language: str | None = None,
    speaker: Any = None,
) -> DemoResult:
    """A whole game on the synthetic table, headless and deterministic (see the module doc).

    The simulated players press the real gpiozero DONE/ROLL buttons (on gpiozero's mock pins)
    and tap the real touch path; time is the camera's (frame / fps), so the demo runs as fast
    as the machine can render and is the same on every machine. With `realtime` (a window on
    a desktop) it is paced to the camera's 30 frames a second so people can watch; closing the
    window or pressing Escape ends it.
    """
    import pygame
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    from companion.dice import Dice
    from display.device import headless_screen, init_pygame
    from hardware.buttons import ButtonPanel, ButtonPins
    from vision.sim import SimTable

    started = time.monotonic()
    if screen is None:
        init_pygame(headless=True)
    fps = 30.0
    frame_no = 0
    now = 0.0

    def clock() -> float:
        return now

    screen = screen or headless_screen(size)
    settings = Settings(game=game, language=language or i18n.system_language())
    i18n.set_language(settings.language)
    if options:
        settings.options[game] = options
    cls = games.get(game)
    opts = settings.game_options(game)
    layout = layout_name(game, opts)
    # Small frames keep the demo quick; the web and the larger boards need more pixels.
    camera_size = camera_size or ((640, 360) if layout == "arinama5" else (960, 540))
    chess = getattr(opts, "equipment", "mat") == "chess"
    if chess:
        # A chess set on a green-and-cream vinyl board under a fixed camera and even light:
        # always the table of seed 1 (its camera, lamp and figures; the game still follows
        # `seed`). The standing-piece reader misreads a piece now and then on other tables
        # (seed 13's white piece on h1 reads empty): see tests/test_referee_chess_set.py.
        table = SimTable(
            layout,
            seed=1,
            size=camera_size,
            tilt=12.0,
            light=(0.9, 1.0),
            realism={"board": "green-cream", "pieces": "chess"},
        )
    else:
        table = SimTable(layout, seed=seed, size=camera_size)
    # What the camera sees: a chess set's white and black pieces for gold and silver.
    colours = {"gold": "white", "silver": "black"} if chess else {}

    def seen(cells: dict[str, str]) -> dict[str, str]:
        return {cell: colours.get(cls, cls) for cell, cls in cells.items()}

    sides = {colour: side for side, colour in colours.items()}
    app = App(
        screen,
        settings,
        records=records,
        dice=Dice(seed=seed),
        vision_factory=lambda name: TableVision(name, fps=fps, still_seconds=0.3),
        clock=clock,
        status=_("demo: synthetic table"),
        speaker=speaker,
    )
    app.game_meta = {"demo": True, "seed": seed}  # `companion games` marks it

    previous_factory = Device.pin_factory
    Device.pin_factory = MockFactory()
    pins = ButtonPins.parse(settings.pins)
    panel = ButtonPanel(app.button, pins, clock=clock, threaded=False)
    shots: list[Path] = []
    shot_names: set[str] = set()

    def shot(name: str, hold: float = 0.0) -> None:
        nonlocal now
        app.render()
        if realtime and hold:  # let the people watching read it
            now += hold
            _pace(started, now)
        if screenshots is None or name in shot_names:
            return
        shot_names.add(name)
        shots.append(screen.save(screenshots / f"{len(shots):02d}-{name}.png"))

    def press(action: str) -> None:
        """Press and release a real button on its mock pin; the panel debounces it."""
        nonlocal now
        pin = Device.pin_factory.pin(getattr(pins, action))
        pin.drive_low()
        now += 0.05
        panel.poll(now)
        pin.drive_high()
        now += 0.05
        panel.poll(now)

    def tap(kind: str, value: Any = None) -> None:
        app.render()
        for target in app.painter.targets:
            if target.action.kind == kind and (value is None or target.action.value == value):
                app.tap(target.rect.center)
                return
        raise RuntimeError(f"no {kind!r} button on the {app.page} screen")

    board: dict[str, str] = {}
    pending: list[tuple[Any, bool]] = []
    players = SimulatedPlayers(seed)
    last_instruction = None

    try:
        # Home: the camera sees the mat, and the game is preselected. An unfinished demo game
        # of this kind (the demo was killed) is continued, as the table continues after a crash.
        app.recognise(layout)
        shot("home")
        resume_id = unfinished_demo(records, game, layout)
        if resume_id is None:
            tap("start")  # the Start button, through the touch path
        else:
            log(f"demo: continuing the unfinished game #{resume_id}")
            try:
                tap("resume", resume_id)  # its Continue button
            except RuntimeError:  # not among the newest two the home screen offers
                app.act("resume", resume_id)
        board = calibration_cells(app.setup_position, app.vision.layout.classes)
        still = table.render(board)
        board = {cell: sides.get(cls, cls) for cell, cls in board.items()}  # the referee's words
        while app.vision.located is None and frame_no < 40:
            app.vision.look(still, now)
            app.on_setup_frame(still)
            frame_no += 1
            now = frame_no / fps
        shot("setup")
        press("done")  # confirm: the camera learns the colours from this position
        if app.page != "play":
            raise UserError(f"the demo could not start: {app.message}")
        log(f"demo: {cls.title} on the synthetic table ({layout}), seed {seed}")
        moves_before = len(app.referee.position.move_stack)
        still_frame = still
        stalled = 0
        progress_at = frame_no
        while frame_no < max_frames and not app.quit:
            if pending:
                frame, hand = pending.pop(0)
                if not hand and not pending:
                    still_frame = frame
            else:
                frame = still_frame
            frame_no += 1
            now += 1 / fps
            if realtime and not _pace(started, now):
                break
            if not realtime and pygame.event.peek(pygame.QUIT):
                break  # SIGTERM / Ctrl-C: SDL turns them into a QUIT event
            observation = app.vision.feed(frame, now)
            app.on_vision_status(app.vision.status)
            if observation is not None:
                app.on_observation(observation)
            for _tick in range(1000):  # the dice tumble and land; play resumes by itself
                wait = app.tick(now) if app.page == "dice" else None
                if wait is None:
                    break
                app.render()
                age = now - app.dice_state.thrown_at
                if 0.2 < age < DICE_ANIMATION:
                    shot("dice-rolling")
                elif age >= DICE_ANIMATION:
                    shot("dice")
                now += wait
                if realtime and not _pace(started, now):
                    break
            app.render()
            referee = app.referee
            instruction = referee.instruction
            if instruction != last_instruction:
                last_instruction = instruction
                stalled = 0
                progress_at = frame_no
                log(f"  {len(referee.position.move_stack):3d}  {instruction.text}")
                shot(f"play-{instruction.kind}")
            if app.hands:
                shot("play-hands")
            if app.page == "gameover" or referee.position.is_game_over():
                break
            if len(referee.position.move_stack) - moves_before >= max_moves:
                break
            if frame_no - progress_at > STALL_FRAMES:
                raise UserError(
                    f"the demo stalled: after 30 s the camera still reports {app.vision.status!r} "
                    f"and the referee says {instruction.text!r}"
                )
            if pending or app.vision.status != "still":
                continue
            if referee.board != board:  # the referee has not seen the last change yet
                stalled += 1
                if stalled % 60 == 0:
                    app.vision.tracker.request()  # read the still board again
                continue
            target = players.next_board(referee, board)
            if target is not None and target != board:
                pending = list(
                    table.transition(seen(board), seen(target), hand_frames=4, still_frames=12)
                )
                board = target
                continue
            action = players.button(referee, frame_no)
            if action and action.startswith("choose:"):
                tap("choose", action.split(":", 1)[1])  # a choice is made on the screen
            elif action:
                press(action)
        # The end: game over, then a look at the records and the other screens.
        app.render()
        if app.page == "gameover":
            shot("gameover", hold=2.0)
        outcome = referee.position.outcome()
        if records is not None and app.page == "gameover":
            press("roll")  # ROLL on the game-over screen: review this game
            shot("review-game", hold=2.0)
            for _step in range(review_steps):
                press("roll")  # step back through the moves with the buttons
            shot("review-game-back", hold=2.0)
            press("back")
            shot("review-list", hold=2.0)
        app.act("menu")
        app.act("dice")
        tap("roll")
        now += DICE_ANIMATION + 0.1
        app.tick(now)
        shot("dice-roller", hold=2.0)
        app.act("dice-close")
        app.act("settings")
        shot("settings", hold=2.0)
        app.act("back")
        shot("home-after")
        return DemoResult(
            game=game,
            game_id=referee.game_id,
            moves=len(referee.position.move_stack),
            outcome=str(outcome) if outcome else "unfinished",
            screenshots=shots,
            frames=frame_no,
            seconds=time.monotonic() - started,
        )
    finally:
        panel.close()
        Device.pin_factory.close()
        Device.pin_factory = previous_factory


# -- the real table: a camera thread and the event loop ------------------------------------------------
class ReconnectingCamera:
    """A camera source that is opened - and reopened after it fails - in the background of
    `read()`: None while there is no camera, with `problem` saying why (the boot service shows
    it on the screen instead of crashing into a restart loop, and a camera plugged in later is
    picked up)."""

    def __init__(
        self,
        spec: str,
        opener: Callable[[str], Any],
        *,
        retry_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.spec = spec
        self.opener = opener
        self.retry_seconds = retry_seconds
        self.clock = clock
        self.source: Any = None
        self.problem = ""
        self.ended = False
        self._next_try = -1e9

    def read(self) -> Any:
        if self.source is None:
            now = self.clock()
            if now < self._next_try:
                return None
            self._next_try = now + self.retry_seconds
            try:
                self.source = self.opener(self.spec)
            except UserError as exc:
                self.problem = _("{problem} - trying again every {seconds} s").format(
                    problem=exc, seconds=f"{self.retry_seconds:g}"
                )
                return None
            self.problem = ""
        try:
            return self.source.read()
        except Exception as exc:  # a driver that gives up: close it and start again
            self.problem = _("the camera failed ({problem}) - trying again").format(problem=exc)
            self._close_source()
            return None

    def _close_source(self) -> None:
        source, self.source = self.source, None
        if source is not None:
            try:
                source.close()
            except Exception:
                pass

    def close(self) -> None:
        self._close_source()

    def __enter__(self) -> ReconnectingCamera:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CameraWorker:
    """Reads the camera in its own thread and hands the results to the main loop as pygame
    events (`pygame.event.post` is thread-safe): still boards, the tracker's state, setup frames,
    and the mat it recognises while the home screen is up.

    Pacing: a real camera blocks in read() until its next frame; sources that do not (files,
    the synthetic table) are paced to `fps`. While the board has been still for 3 s the worker
    tracks only `idle_fps` frames a second - the players are thinking; a real camera's other
    frames are read and dropped - and is back at full rate at the first movement.
    """

    def __init__(
        self,
        source: Any,
        app: App,
        *,
        fps: float = 30.0,
        idle_fps: float = 5.0,
        paced: bool = True,
    ):
        import pygame

        self.source = source
        self.app = app
        self.fps = fps
        self.idle_fps = idle_fps
        self.paced = paced
        self.event_type = pygame.event.custom_type()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._status = ""
        self._problem = ""
        self._failure = ""  # the last exception of the camera path, until a frame goes through
        self._next_feed = 0.0  # while idle, a camera's frames are tracked from then on
        self._still_since: float | None = None
        self._last_setup_frame = 0.0
        self._last_recognise = -1e9
        self.frames = 0

    def start(self) -> CameraWorker:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _post(self, what: str, **data: Any) -> None:
        import pygame

        try:
            pygame.event.post(pygame.event.Event(self.event_type, what=what, **data))
        except pygame.error:
            pass  # the display is shutting down

    def _run(self) -> None:
        """The thread: a bug in the camera path must not silently end it (the screen would go
        on showing the last board, and the watchdog, pinged by the main loop, would not see
        it). Each failure goes to the journal with its traceback and onto the screen; the
        camera is read again after a pause."""
        while not self._stop.is_set():
            try:
                self._loop()
                return
            except Exception as exc:
                import traceback

                traceback.print_exc()
                self._failure = (
                    f"the camera path failed ({type(exc).__name__}: {exc}) - trying again"
                )
                self._stop.wait(2.0)

    def _loop(self) -> None:
        next_due = time.monotonic()
        while not self._stop.is_set():
            frame = self.source.read()
            now = time.monotonic()
            problem = self._failure or getattr(self.source, "problem", "")
            if problem != self._problem:
                self._problem = problem
                self._post("camera-problem", text=problem)
            if frame is None:
                if getattr(self.source, "ended", False):
                    self._post("ended")
                    return
                self._stop.wait(0.05)  # the camera is reconnecting: do not spin
                continue
            self.frames += 1
            vision = self.app.vision
            if vision is None or self.app.page == "home":
                self._recognise(frame, now)
            elif vision.tracker is None:
                vision.look(frame, now)
                if now - self._last_setup_frame > 0.2:  # the live view: 5 pictures a second
                    self._last_setup_frame = now
                    self._post("setup-frame", frame=frame)
            else:
                idle = self._still_since is not None and now - self._still_since > 3.0
                if idle and not self.paced and now < self._next_feed:
                    continue  # a real camera's frame, read to keep it fresh; not tracked
                self._next_feed = now + 1 / self.idle_fps
                observation = vision.feed(frame, now)
                status = vision.status
                if status != self._status:
                    self._status = status
                    self._post("status", status=status)
                if observation is not None:
                    self._post("observation", observation=observation)
                self._still_since = (self._still_since or now) if status == "still" else None
            self._failure = ""  # a frame went through: the path works (again)
            if self.paced:
                idle = self._still_since is not None and now - self._still_since > 3.0
                next_due = max(next_due + 1 / (self.idle_fps if idle else self.fps), now)
                self._stop.wait(max(0.0, next_due - time.monotonic()))

    def _recognise(self, frame: Any, now: float) -> None:
        if now - self._last_recognise < 2.0:
            self._stop.wait(0.1)
            return
        self._last_recognise = now
        from vision.layouts import layout_for_markers
        from vision.locate import detect_markers

        layout = layout_for_markers(list(detect_markers(frame)))
        if layout is not None:
            self._post("recognised", layout=layout.name)

    def handle(self, event: Any) -> None:
        """Apply one of this worker's events to the app (on the main thread)."""
        what = event.what
        if what == "observation":
            self.app.on_observation(event.observation)
        elif what == "status":
            self.app.on_vision_status(event.status)
        elif what == "setup-frame":
            self.app.on_setup_frame(event.frame)
        elif what == "recognised":
            self.app.recognise(event.layout)
        elif what == "camera-problem":
            self.app.on_camera_problem(event.text)
        elif what == "ended":
            self.app.message = "the camera source ended"
            self.app.dirty = True


def run_table(
    app: App,
    screen: Any,
    *,
    worker: CameraWorker | None = None,
    watchdog: Any = None,
    screenshots: Path | None = None,
    until: Callable[[], bool] | None = None,
) -> int:
    """The event loop of the real table. Blocks in `pygame.event.wait` until something happens
    (a touch, a key, a camera result, a button) or a timer is due (dice animation, watchdog);
    draws only when the page changed. Returns the exit code."""
    import pygame

    from display.touch import Key, Tap, TouchInput

    touch = TouchInput(screen, app.metrics.px_per_mm)
    button_event = pygame.event.custom_type()
    app.post_button = lambda action: pygame.event.post(
        pygame.event.Event(button_event, action=action)
    )
    app.render(force=True)
    shot_count = 0
    if screenshots is not None:
        shot_count += 1
        screen.save(screenshots / f"{shot_count:04d}-{app.page}.png")
    if watchdog is not None:
        watchdog.ready(f"{app.page} screen up")
    # SDL really sleeps in event.wait only on drivers that can be woken (X11, Wayland, ...);
    # on the others (kmsdrm, dummy) it polls every millisecond, so there the loop sleeps in
    # 20 ms steps itself: a tap still answers within a frame, and idle costs ~0.5 % of a core.
    blocking = pygame.display.get_driver() in ("x11", "wayland", "windows", "cocoa")
    while not app.quit and not (until and until()):
        waits = [w for w in (app.tick(), watchdog.due_in() if watchdog else None) if w is not None]
        timeout_ms = max(1, min(int(min(waits, default=1.0) * 1000), 1000))
        if blocking:
            events = [pygame.event.wait(timeout_ms)]
        else:
            events = pygame.event.get()
            if not events:
                pygame.time.wait(min(timeout_ms, POLL_MS))
                events = pygame.event.get()
        for e in [*events, *pygame.event.get()]:
            if e.type == pygame.QUIT:
                app.quit = True
            elif worker is not None and e.type == worker.event_type:
                worker.handle(e)
            elif e.type == button_event:
                app.button(e.action)
            else:
                result = touch.translate(e)
                if isinstance(result, Tap):
                    app.tap(result.pos)
                elif isinstance(result, Key):
                    app.button(result.action)
        if app.render() and screenshots is not None:
            shot_count += 1
            screen.save(screenshots / f"{shot_count:04d}-{app.page}.png")
        if watchdog is not None:
            watchdog.ping()
    if watchdog is not None:
        watchdog.stopping()
    return 0
