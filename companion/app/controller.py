"""The App: the controller of the companion on the table.

It keeps the navigation between the screens (`companion.app.pages`, one object each with its
own state), the referee and the records, and reacts to four kinds of input, all on the main
thread:

- taps (`tap`) and button actions (`button`: "done", "roll", "back", "menu" - from the GPIO
  panel, the keyboard stand-in, or a simulated player), handed to the current page;
- still boards from the camera (`on_observation`) and the tracker's state (`on_vision_status`,
  which drives the "hands on the board" indicator);
- camera frames while setting up (`on_setup_frame`: the live view with markers and grid);
- time (`tick`), only while the dice animate or the camera learns the colours (the setup
  screen's DONE, `SetupPage.poll`).

It draws only when something changed (`render` returns False otherwise), so the event loop
(`companion.app.event_loop.run_table`) blocks between events: no busy loop, near-zero idle
CPU. Nothing in the core (`companion.games`, the referee, the records) imports this package.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from companion import games, i18n
from companion.app.pages import PAGES, Pages
from companion.app.pages.base import Draw, Page
from companion.app.settings import Settings
from companion.app.table_vision import TableVision
from companion.app.words import play_name
from companion.dice import Dice
from companion.errors import RecordError, ReplayError, UserError
from companion.games.base import Outcome, Position
from companion.i18n import _, capitalise
from companion.observation import Observation
from companion.records import FINISHED, Records
from companion.referee import Referee
from companion.referee.protocol import UNDO, Event, PlayerInput, view_settling
from companion.speech import Speaker
from companion.usb_drives import Drive, removable_drives
from display.device import Screen
from display.layout import message_bar
from display.paint import Painter
from display.screens.play import say
from display.theme import Metrics
from vision.tracker import dark_problem

Words = Callable[[], str]  # a line for the screen, made in the table's language when shown


def board_moved() -> str:
    """The play page's problem when a board of tapped corners moved (`App.on_vision_status`)."""
    return _(
        "The board moved: put it back where it was, or tap its corners again (Menu, then Continue)"
    )


def camera_dark() -> str:
    """The play page's problem while the camera's picture is black (the tracker's "dark")."""
    return capitalise(dark_problem())


class App:
    """See the module docstring."""

    def __init__(
        self,
        screen: Screen,
        settings: Settings | None = None,
        *,
        records: Records | None = None,
        unusable_records: Path | None = None,
        dice: Dice | None = None,
        vision_factory: Callable[[str], TableVision] | None = None,
        clock: Callable[[], float] = time.monotonic,
        signal: Callable[[], None] | None = None,
        settings_path: Path | None = None,
        status: str | Words = "",
        speaker: Speaker | None = None,
    ) -> None:
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
        # a records file that could not be opened at all (not a records database, unreadable):
        # the boot service plays on, unrecorded, and says so (`records_damaged`)
        self.unusable_records = unusable_records
        self.dice = dice or Dice()
        self.vision_factory = vision_factory
        self.vision: TableVision | None = None
        self.clock = clock
        self.signal = signal or (lambda: None)
        self._status = status  # the home page's status line (`status`)
        self.metrics = Metrics(screen.size, self.settings.diagonal_in)
        self.pages = Pages(self)
        self._page: Page = self.pages.home
        self.dirty = True
        self.painter: Painter | None = None  # the last frame's (targets, texts)
        # a one-line problem to show (setup, play): the app's own words are made in the
        # table's language whenever shown (`message`); an error's text stays as it was said
        self._message: str | Words = ""
        # a one-line note on the home page (why a game could not be continued), made in the
        # table's language whenever it is shown (`notice`, `tell`)
        self._notice: Words | None = None
        self.camera_problem = ""  # why there is no camera (the boot service waits for one)
        self.camera_ended = False  # ... because its source (a file) ended: for good
        # what is wrong with the game records (a damaged file): said on every page, as the
        # camera's problem is; the games go on unrecorded rather than not at all
        self.records_problem = ""
        self.referee: Referee[Any] | None = None
        self.position: Position[Any] | None = None
        self.setup_position: Position[Any] | None = None  # the game being set up
        self.resume_id: int | None = None  # ... when it continues a recorded game
        self.hands = False
        # something has lain over the board for a while (the tracker's "covered"): perhaps
        # no hand at all - the players may say the board is clear (`board_clear`)
        self.covered = False
        self.covered_near = ""  # ... the cell nearest what lies there, when the camera knows
        self.vision_status = ""
        self.events: list[Event] = []  # everything the referee said, in order
        self.quit = False
        self.game_meta: dict[str, Any] | None = None  # stored with each new game (a demo's)
        self.unreplayable: set[int] = set()  # unfinished games found not to replay: not offered
        # the removable drives mounted now: where the review exports games to (a USB stick)
        self.find_drives: Callable[[], list[Drive]] = removable_drives
        # How other threads (the GPIO panel) deliver a button: run_table swaps in a version
        # that posts a pygame event, so the app is only ever touched from the main thread.
        self.post_button: Callable[[str], None] = self.button

    @property
    def page(self) -> str:
        """The name of the screen that is up (PAGES)."""
        return self._page.name

    def go(self, page: str) -> None:
        assert page in PAGES, page
        if page != self.page:
            self._page.leave()
            self._page = self.pages.named(page)
            self._page.enter()
            self.painter = None
        self.dirty = True

    # -- inputs --------------------------------------------------------------------------------------
    def tap(self, pos: tuple[int, int]) -> None:
        """A finger (or mouse) tap on the upright canvas."""
        if self.painter is None:
            self.render()
        painter = self.painter
        action = painter.hit(pos) if painter else None
        if painter is not None and action is not None and action.kind == "camera":
            # A tap on the camera picture (setup, tapping corners): where in the image.
            at, scale = painter.camera_view
            point = ((pos[0] - at.left) / scale, (pos[1] - at.top) / scale)
            self.act("camera-tap", point)
        elif action is not None:
            self.act(action.kind, action.value)

    def button(self, action: str) -> None:
        """A table button (or its keyboard stand-in): "done", "roll", "back", "menu"."""
        if action == "menu":
            self.act("menu")
            return
        mapped = self._page.buttons().get(action)
        if mapped is not None:
            self.act(*mapped)

    def act(self, kind: str, value: Any = None) -> None:
        """Do what an Action asks on the current page."""
        if kind == "menu":
            self.go("home")
        elif kind == "noop":
            return
        else:
            try:
                self._page.act(kind, value)
            except RecordError:  # reading a damaged records file (review, continue)
                self.records_damaged()
        self.dirty = True

    # -- games ------------------------------------------------------------------------------------------
    @property
    def status(self) -> str:
        """The home page's status line ("camera: picamera"), in the table's language now."""
        return self._status() if callable(self._status) else self._status

    @property
    def notice(self) -> str:
        """The home page's one-line note ("" for none), in the table's language now."""
        return self._notice() if self._notice is not None else ""

    @property
    def message(self) -> str:
        """The setup or play page's one-line problem ("" for none), in the table's language
        now where the app made it (`Words`); an error's own text as it was said."""
        return self._message() if callable(self._message) else self._message

    @message.setter
    def message(self, words: str | Words) -> None:
        self._message = words

    def tell(self, words: Words | None) -> None:
        """Say `words` on the home page until another note or a game replaces them (None:
        nothing): made again whenever drawn, so a language chosen since says them too."""
        self._notice = words
        self.dirty = True

    def start_game(self, game: str) -> None:
        """A new game: on to setup (the camera learns the colours from the start position)."""
        self._notice = None
        cls = games.get(game)
        options = cls.options_for_next_game(
            self.settings.game_options(game), self._previous_outcome(game)
        )
        self.settings.game = game
        self.setup_position = cls.new(options)
        self.resume_id = None
        self.referee = None
        self._begin_setup()

    def play_again(self) -> None:
        """A new game of the game just played ("New game" at its end) - not of the game last
        tapped on the home screen, which may be another."""
        self.start_game(self.referee.position.name if self.referee else self.settings.game)

    def game_running(self) -> bool:
        """A game is in hand and not over: the menu was opened during it."""
        return self.referee is not None and not self.referee.position.is_game_over()

    def _previous_outcome(self, game: str) -> Outcome | None:
        """How the last finished game of this kind at this table ended (None: no such game)."""
        if self.records is None:
            return None
        try:
            summaries = self.records.games()  # newest first
        except RecordError:  # a damaged file: the defaults decide who starts
            self.records_damaged()
            return None
        for summary in summaries:
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
            and not (self.vision is not None and self.vision.lost)  # else: tap the corners again
        ):
            self.settings.game = self.referee.position.name  # (another may have been tapped)
            self.go("play")
            return
        assert self.records is not None
        try:
            self.setup_position = self.records.resume(game_id)
        except ReplayError:  # the file is sound; this game's moves do not replay
            # (why, in the engine's words: `companion export` says it; the players are told in
            # their language what they can do)
            self.unreplayable.add(game_id)  # no longer offered to continue
            self.tell(
                lambda: _(
                    "Game {number} cannot be continued: its recorded moves do not replay. It "
                    "stays in the records as it is - start a new game"
                ).format(number=game_id)
            )
            self.go("home")
            return
        self._notice = None
        self.settings.game = self.setup_position.name
        self.resume_id = game_id
        self.referee = None
        self._begin_setup()

    def _begin_setup(self) -> None:
        position = self.setup_position
        assert position is not None
        self.message = ""
        if self.vision_factory is None:
            self.start_referee()
            return
        own = self.settings.boards.get(position.name) == "own"
        layout = position.table_layout(position.options, own=own)
        if self.vision is None or self.vision.layout.name != layout:
            self.vision = self.vision_factory(layout)
            saved = self.settings.corners.get(layout)
            if saved and not self.vision.layout.has_markers:
                try:
                    self.vision.set_corners(saved)  # tapped at an earlier setup
                except (UserError, TypeError, ValueError):  # a hand-edited settings file
                    self.settings.corners.pop(layout, None)
        self.vision.forget_tracker()  # learn the colours again under today's light
        self.pages.setup.begin()
        self.go("setup")

    def choose_board(self, own: bool) -> None:
        """The setup screen's choice: the printed mat or a board of the players' own (saved)."""
        position = self.setup_position
        if position is None:
            return
        if own:
            self.settings.boards[position.name] = "own"
        else:
            self.settings.boards.pop(position.name, None)
        self.save_settings()
        self._begin_setup()

    def start_referee(self) -> None:
        """The position is on the board (and the camera knows its colours): play."""
        position = self.setup_position
        assert position is not None
        # A damaged records file is left as it is: the game is played, unrecorded.
        recorded = self.unusable_records is None and not (
            self.records is not None and self.records.damage(wait=True)
        )
        if recorded:
            self.records_problem = ""  # a problem reading the file has passed
        else:
            self.records_damaged()
        # The pieces the setup screen's calibration learned the colours from (a resumed game's
        # too) are still on the board when there are more than the position's.
        calibrated = self.vision.layout.classes if self.vision is not None else None
        if self.resume_id is not None:
            assert self.records is not None  # a game is resumed from the records
            self.referee = Referee.resume(
                self.records,
                self.resume_id,
                dice=self.dice,
                recorded=recorded,
                calibrated=calibrated,
            )
        else:
            self.referee = Referee(
                position,
                records=self.records if recorded else None,
                dice=self.dice,
                clear_first=calibrated is not None and position.calibration_pieces_stay(calibrated),
                meta=self.game_meta,
            )
        self.position = self.referee.position
        self.setup_position = None
        self.resume_id = None
        self.events = []
        self.hands = False
        self.covered = False
        self._speak([])
        self.go("play")

    def _speak(self, events: list[Event]) -> None:
        """Say each new instruction once (the dice's value first when they were just rolled:
        "Amber rolls 7" - unless the instruction is the roller's own and says it, "Amber
        rolled 7: ..."; a trial heard every Aranea roll twice); the speaker's worker does the
        talking, this never waits."""
        if self.speaker is None or self.referee is None:
            return
        instruction = self.referee.instruction
        text = say(instruction.text, self.settings.colour_names)
        if text == self.spoken:
            return
        self.spoken = text
        sentences = [
            _("{player} rolls {value}").format(
                player=play_name(str(e.data.get("player", "")), self.settings.colour_names),
                value=e.data.get("value"),
            )
            for e in events
            if e.kind == "roll"
            and e.data.get("value") is not None
            and not (instruction.kind == "move" and instruction.player == e.data.get("player"))
        ]
        self.speaker.say(". ".join([*sentences, text]))

    def records_damaged(self) -> None:
        """The game records file cannot be used (damaged): said on every page but the game's,
        whose header says the game is not recorded. In the players' words and language - the
        file's name, not SQLite's findings, which `companion games --check` prints."""
        if self.unusable_records is not None:
            self.records_problem = _(
                "The game records ({file}) cannot be opened: games are not recorded - the "
                "file is left as it is; the journal says why"
            ).format(file=self.unusable_records.name)
            return
        name = self.records.path.name if self.records is not None else ""
        self.records_problem = _(
            "The game records ({file}) are damaged: games are not recorded - copy the file "
            "aside and restore a backup"
        ).format(file=name)

    def board_clear(self) -> None:
        """The players say nothing lies over the board, though the camera has seen something
        there for a while (a lamp's shadow across the mat's edge, a piece on its margin): it
        reads the board as it is, and leaves what it saw there out from now on
        (`vision.tracker.Tracker.read_as_it_is`)."""
        if self.vision is not None:
            self.vision.read_as_it_is()

    def player_input(self, player_input: PlayerInput) -> None:
        assert self.referee is not None  # the pages hand over inputs only during a game
        try:
            # a hand just left the board, or the camera lost it: what it shows is read once
            # the view is still
            settling = view_settling(self.vision_status)
            events = self.referee.handle(player_input, view_settling=settling)
        except UserError as exc:
            self.message = str(exc)
            events = []
        if player_input.kind == UNDO and not events and self.referee.nothing_to_undo():
            self.message = self.referee.nothing_to_undo  # (said until something happens)
        if self.referee.held is not None and self.vision is not None:
            self.vision.request_board()  # the still board, even if nothing changed
        self._teach_camera()  # e.g. BOARD IS RIGHT: the board the players said is right
        self._after(events)

    def _after(self, events: list[Event]) -> None:
        if not events and self.referee is None:
            return
        if events and self.referee is not None and self._message == self.referee.nothing_to_undo:
            self.message = ""  # (something happened since UNDO did nothing)
        self.events += events
        self._speak(events)
        for event in events:
            if event.kind == "illegal":
                self.signal()
            elif event.kind == "roll":
                self.pages.dice.show_roll(event)
        if self.page == "play":
            self.go(self.game_page())  # the game just ended, in front of the players
        self.dirty = True

    def game_page(self) -> str:
        """Where the game in hand is shown: "gameover" once it has ended, else "play". Only
        the game's own pages go there by themselves; a player in Settings, the review or the
        menu stays, whatever the camera sees meanwhile (a hand over a finished game's board
        took them to game over from any screen)."""
        if self.referee is not None and self.referee.instruction.kind == "game-over":
            return "gameover"
        return "play"

    def language_changed(self) -> None:
        """The language or the colour words were just chosen: what stays on the screen is
        made again in them - the instruction, the records' and the camera's problems (the
        notice, the status line and the app's own `message` are made whenever drawn)."""
        if self.referee is not None:
            self.referee._update()
        if self.records_problem:
            self.records_damaged()
        if self.camera_ended:
            self.on_camera_ended()
        self.dirty = True

    def save_settings(self) -> None:
        if self.settings_path is not None:
            try:
                self.settings.save(self.settings_path)
            except UserError as exc:
                self.pages.settings.note = _("not saved: {reason}").format(reason=exc)

    # -- the camera (companion.app.camera.CameraClient) -----------------------------------------------
    def camera_vision(self) -> TableVision | None:
        """The vision the camera feeds; None on the home screen, where it recognises mats."""
        return None if self.page == "home" else self.vision

    def on_observation(self, observation: Observation) -> None:
        """A still board from the camera."""
        if self.referee is None or self.page not in ("play", "dice", "gameover"):
            return
        try:
            events = self.referee.observe(observation)
        except UserError as exc:  # e.g. the wrong mat on the table
            self.message = str(exc)
            events = []
        self._teach_camera()
        self._after(events)

    def _teach_camera(self) -> None:
        """A board the referee takes as the position teaches the camera the empty look of the
        cells it has never seen empty (a logo under a start-position piece) - also one the
        players said is right (BOARD IS RIGHT), from the frame it was read from."""
        if self.referee is not None and self.vision is not None:
            self.referee.teach(self.vision.learn_from_board)

    def on_camera_problem(self, text: str) -> None:
        """The camera is missing or failed ("" once it works again): said on every screen."""
        self.camera_problem = text
        self.dirty = True

    def on_camera_ended(self) -> None:
        """A source that ends (a file) has ended: said as a camera problem is, on every page
        and for good ("No camera: the camera source ended") - it was said on the setup and
        play pages only, and a new setup cleared it."""
        self.camera_problem = _("the camera source ended")
        self.camera_ended = True
        self.dirty = True

    def on_vision_status(self, status: str) -> None:
        """The tracker's state: "hands" lights the indicator (and pauses the referee)."""
        if status == self.vision_status:
            return
        self.vision_status = status
        if self.vision is not None and self.vision.lost:
            self.message = board_moved  # a board of tapped corners: no markers to find it again
        elif status == "dark":
            self.message = camera_dark  # nothing is read until the board shows again
        elif self._message in (board_moved, camera_dark):
            self.message = ""
        hands = status in ("hands", "covered")  # either way: nothing is read
        if self.page in ("play", "setup") and (status == "covered") != self.covered:
            self.dirty = True
        self.covered = status == "covered"
        self.covered_near = self.vision.covered_near if self.covered and self.vision else ""
        if self.referee is not None:
            self._after(self.referee.hands(hands))
        if hands != self.hands:
            self.hands = hands
            if self.page in ("play", "setup"):
                self.dirty = True
        elif self.page in ("play", "setup"):
            self.dirty = True  # the camera state in the header

    def on_setup_frame(self, frame: np.ndarray) -> None:
        self.pages.setup.frame = frame
        if self.page == "setup":
            self.dirty = True

    def recognise(self, layout: str | None) -> None:
        """The camera sees this mat: preselect its game on the home screen."""
        found = games.for_layout(layout) if layout else None
        if found is None or layout is None:
            return
        fixed = games.get(found[0]).mats[layout]  # the options the mat fixes, as written
        if self.pages.home.recognise(found[0], layout, fixed):
            self.dirty = True

    # -- drawing --------------------------------------------------------------------------------------------
    def tick(self, now: float | None = None) -> float | None:
        """Advance animations, take the colours the camera has learned in the background
        (setup), say how far the games being written to a USB stick got (review: a worker
        thread writes them); returns seconds until the next tick is due (None: nothing
        animates, is learned or written, sleep until an event)."""
        if self.page == "dice":
            return self.pages.dice.tick(self.clock() if now is None else now)
        return self._page.poll()

    def render(self, force: bool = False) -> bool:
        """Draw the current page if anything changed; True when it drew."""
        if not (self.dirty or force):
            return False
        if not self.records_problem and (
            self.unusable_records is not None
            or (self.records is not None and self.records.damage())
        ):
            self.records_damaged()  # found while starting
        surface = self.screen.canvas
        painter = Painter(surface, self.metrics)
        draw, model = self.page_model()
        draw(painter, model)
        if self.camera_problem:  # on every page, over the header: nothing else is covered
            message_bar(
                painter, _("No camera: {problem}").format(problem=self.camera_problem), top=True
            )
        elif self.message and self.page in ("setup", "play"):
            # The buttons (Done, Undo, Menu) fill the bottom of both pages: the problem goes
            # over the header instead, where it covers nothing a player must reach (a message
            # too long for it grows the bar down over the page: `message_bar`).
            message_bar(painter, self.message, top=True)
        elif self.notice and self.page == "home":
            message_bar(painter, self.notice, top=True)
        elif self.pages.review_list.problem and self.page == "review-list":
            message_bar(painter, self.pages.review_list.problem, top=True)
        elif self.pages.review_game.problem and self.page == "review-game":
            message_bar(painter, self.pages.review_game.problem, top=True)
        elif self.records_problem and self.page not in ("play", "dice"):
            # (in a game the header says "not recorded": the move number stays in sight)
            message_bar(painter, self.records_problem, top=True)
        self.painter = painter
        self.screen.present()
        self.dirty = False
        return True

    def page_model(self) -> tuple[Draw, object]:
        """The current page's draw function and its model (pure data)."""
        return self._page.model()
