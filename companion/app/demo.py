"""The demo: the App driven synchronously by the synthetic table.

Simulated hands play a real game (a seeded random game from the engine) through SimTable ->
Tracker -> Referee (+ dice and Records) -> screen, pressing real gpiozero buttons on mock pins
and tapping the real touch path, writing screenshots. Time is the camera's (frame / fps), so
the demo runs as fast as the machine can render and is the same on every machine.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pygame
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion import games, i18n
from companion.app.controller import App
from companion.app.pages.dice import DICE_ANIMATION
from companion.app.players import SimulatedPlayers
from companion.app.settings import Settings
from companion.app.table_vision import TableVision
from companion.dice import Dice
from companion.errors import NoPrintedMat, RecordError, UserError
from companion.games.base import MoveCount
from companion.i18n import _
from companion.records import Records
from companion.referee import Referee
from companion.referee.protocol import Instruction
from companion.speech import Speaker
from display.device import Screen, headless_screen, init_pygame
from hardware.buttons import ButtonPanel, ButtonPins
from vision.sim import SimTable

FPS = 30.0  # the synthetic camera's frames a second
STALL_FRAMES = 900  # the demo gives up after 30 s of camera time without progress


def unfinished_demo(records: Records | None, game: str, layout: str) -> int | None:
    """The newest unfinished game the demo left in `records` on this layout, if any - none
    when the file cannot be read (the home screen says so; the demo plays a new game).
    Whether it can be continued is `Demo.continuable`'s question."""
    if records is None:
        return None
    try:
        waiting = records.unfinished_games()
    except RecordError:
        return None
    for summary in waiting:
        if (
            summary.meta.get("demo")
            and summary.game == game
            and games.get(game).mat_layout(games.get(game).options_from(summary.options)) == layout
        ):
            game_id: int = summary.id
            return game_id
    return None


def _pace(started: float, now: float) -> bool:
    """Wait until `now` seconds after `started` (real time), keeping the window responsive;
    False when the window was closed or Escape pressed."""
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
    game_id: int | None  # in the records (None: a new game that was not recorded)
    recorded: bool  # the moves played went to the records (not: a damaged records file)
    moves: int
    outcome: str
    screenshots: list[Path]
    frames: int
    seconds: float


def synthetic_table(layout: str, seed: int, camera_size: tuple[int, int], chess: bool) -> SimTable:
    """The simulated board under the simulated camera."""
    if chess:
        # A chess set on a green-and-cream vinyl board under a fixed camera and even light:
        # always the table of seed 1 (its camera, lamp and figures; the game still follows
        # `seed`). The standing-piece reader misreads a piece now and then on other tables
        # (seed 13's white piece on h1 reads empty): see tests/test_referee_chess_set.py.
        return SimTable(
            layout,
            seed=1,
            size=camera_size,
            tilt=12.0,
            light=(0.9, 1.0),
            realism={"board": "green-cream", "pieces": "chess"},
        )
    return SimTable(layout, seed=seed, size=camera_size)


class Demo:
    """One demo game on the synthetic table: the App, the simulated camera and players, the
    mock buttons, the camera's clock and the screenshots. See `run_demo`."""

    def __init__(
        self,
        game: str,
        *,
        options: dict[str, Any] | None,
        seed: int,
        records: Records | None,
        screenshots: Path | None,
        size: tuple[int, int],
        camera_size: tuple[int, int] | None,
        max_moves: int,
        max_frames: int,
        log: Callable[[str], None],
        review_steps: int,
        screen: Screen | None,
        realtime: bool,
        language: str | None,
        speaker: Speaker | None,
    ) -> None:
        self.started = time.monotonic()
        if screen is None:
            init_pygame(headless=True)
        self.game, self.seed, self.records = game, seed, records
        self.screenshots, self.realtime, self.log = screenshots, realtime, log
        self.max_moves, self.max_frames, self.review_steps = max_moves, max_frames, review_steps
        self.frame_no = 0
        self.now = 0.0
        self.screen = screen or headless_screen(size)
        settings = Settings(game=game, language=language or i18n.system_language())
        i18n.set_language(settings.language)
        if options:
            settings.options[game] = options
        self.cls = games.get(game)
        opts = settings.game_options(game)
        try:
            self.layout = self.cls.mat_layout(opts)
        except NoPrintedMat:  # the synthetic table's own grids misread too often
            raise UserError(
                f"the demo plays {self.cls.title} on its printed mats ({', '.join(self.cls.mats)}),"
                f" not on a {self.cls.table_layout(opts)} board of one's own: choose options that "
                "have a printed mat, or play on your own board with a camera (--source)"
            ) from None
        # Small frames keep the demo quick; the web and the larger boards need more pixels.
        camera_size = camera_size or ((640, 360) if self.layout == "arinama5" else (960, 540))
        chess = self.cls.uses_chess_set(opts)
        self.table = synthetic_table(self.layout, seed, camera_size, chess)
        # What the camera sees: a chess set's white and black pieces for gold and silver.
        self.colours = {"gold": "white", "silver": "black"} if chess else {}
        self.sides = {colour: side for side, colour in self.colours.items()}
        self.app = App(
            self.screen,
            settings,
            records=records,
            dice=Dice(seed=seed),
            vision_factory=lambda name: TableVision(name, fps=FPS, still_seconds=0.3),
            clock=lambda: self.now,
            status=lambda: _("demo: synthetic table"),
            speaker=speaker,
        )
        self.app.game_meta = {"demo": True, "seed": seed}  # `companion games` marks it
        self.previous_factory = Device.pin_factory
        Device.pin_factory = MockFactory()
        self.pins = ButtonPins.parse(settings.pins)
        self.panel = ButtonPanel(self.app.button, self.pins, clock=lambda: self.now, threaded=False)
        self.shots: list[Path] = []
        self.shot_names: set[str] = set()
        self.board: dict[str, str] = {}  # the board the players have made (referee's words)
        self.pending: list[tuple[np.ndarray, bool]] = []  # camera frames of the hands at work
        self.still_frame: np.ndarray | None = None
        self.players = SimulatedPlayers(seed)
        self.last_instruction: Instruction | None = None
        self.stalled = 0
        self.progress_at = 0

    @property
    def vision(self) -> TableVision:
        """The app's vision: the demo's games are always watched by the (synthetic) camera."""
        vision = self.app.vision
        assert vision is not None
        return vision

    @property
    def referee(self) -> Referee[Any]:
        """The referee of the game being played (after `set_up`)."""
        referee = self.app.referee
        assert referee is not None
        return referee

    def close(self) -> None:
        self.panel.close()
        Device.pin_factory.close()
        Device.pin_factory = self.previous_factory

    # -- what the players do -------------------------------------------------------------------------
    def seen(self, cells: dict[str, str]) -> dict[str, str]:
        """The board as the camera sees it (a chess set's colours)."""
        return {cell: self.colours.get(cls, cls) for cell, cls in cells.items()}

    def shot(self, name: str, hold: float = 0.0) -> None:
        self.app.render()
        if self.realtime and hold:  # let the people watching read it
            self.now += hold
            _pace(self.started, self.now)
        if self.screenshots is None or name in self.shot_names:
            return
        self.shot_names.add(name)
        path = self.screenshots / f"{len(self.shots):02d}-{name}.png"
        self.shots.append(self.screen.save(path))

    def press(self, action: str) -> None:
        """Press and release a real button on its mock pin; the panel debounces it."""
        pin = Device.pin_factory.pin(getattr(self.pins, action))
        pin.drive_low()
        self.now += 0.05
        self.panel.poll(self.now)
        pin.drive_high()
        self.now += 0.05
        self.panel.poll(self.now)

    def tap(self, kind: str, value: Any = None) -> None:
        app = self.app
        app.render()
        assert app.painter is not None  # it has just drawn
        for target in app.painter.targets:
            if target.action.kind == kind and (value is None or target.action.value == value):
                app.tap(target.rect.center)
                return
        raise RuntimeError(f"no {kind!r} button on the {app.page} screen")

    # -- the game --------------------------------------------------------------------------------------
    def run(self) -> DemoResult:
        self.set_up()
        self.play()
        referee = self.referee
        outcome = referee.position.outcome()
        self.tour()
        return DemoResult(
            game=self.game,
            game_id=referee.game_id,
            recorded=referee.records is not None,
            moves=referee.position.moves_played,  # as the game counts them: Aranea's turns
            outcome=str(outcome) if outcome else "unfinished",
            screenshots=self.shots,
            frames=self.frame_no,
            seconds=time.monotonic() - self.started,
        )

    def set_up(self) -> None:
        """Home: the camera sees the mat, and the game is preselected. An unfinished demo game
        of this kind (the demo was killed) is continued, as the table continues after a crash
        - unless its stored moves no longer replay (`continuable`): then it is said why, and a
        new game is played. Then the setup: the start position on the board, DONE."""
        app = self.app
        app.recognise(self.layout)
        self.shot("home")
        resume_id = unfinished_demo(self.records, self.game, self.layout)
        if resume_id is not None and not self.continuable(resume_id):
            resume_id = None
        if resume_id is None:
            self.tap("start")  # the Start button, through the touch path
        else:
            self.log(f"demo: continuing the unfinished game #{resume_id}")
            try:
                self.tap("resume", resume_id)  # its Continue button
            except RuntimeError:  # not among the newest two the home screen offers
                app.act("resume", resume_id)
        position = app.setup_position
        if position is None:  # the app could not set the game up: its screen says why
            why = app.message or app.records_problem or f"the {app.page} screen is up"
            raise UserError(f"the demo could not start: {why}")
        board = position.calibration_cells(self.vision.layout.classes)
        still = self.table.render(board)
        # the referee's words
        self.board = {cell: self.sides.get(cls, cls) for cell, cls in board.items()}
        while self.vision.located is None and self.frame_no < 40:
            self.vision.look(still, self.now)
            app.on_setup_frame(still)
            self.frame_no += 1
            self.now = self.frame_no / FPS
        self.shot("setup")
        self.press("done")  # confirm: the camera learns the colours from this position
        if app.page != "play":
            raise UserError(f"the demo could not start: {app.message}")
        self.log(f"demo: {self.cls.title} on the synthetic table ({self.layout}), seed {self.seed}")
        self.still_frame = still
        self.progress_at = self.frame_no

    def continuable(self, game_id: int) -> bool:
        """Can the unfinished game `game_id` be continued: do its stored moves replay (two
        companions once wrote into one file and left a game no engine replays; a file edited
        by hand)? When not, the log says why and what the demo does instead; the game is left
        in the records exactly as it is."""
        if self.records is None:
            return False
        try:
            self.records.resume(game_id)
        except RecordError as exc:
            self.log(
                f"demo: the unfinished game #{game_id} cannot be continued ({exc}); "
                f"a new game starts instead, and #{game_id} is left in the records as it is"
            )
            return False
        return True

    def play(self) -> None:
        """Frame by frame until the game is over (or the demo's limits, or the window closes)."""
        app = self.app
        moves_before = self.referee.position.moves_played
        counted_at = -1  # the record's length when the moves were last counted (once a move)
        while self.frame_no < self.max_frames and not app.quit:
            frame = self._next_frame()
            self.frame_no += 1
            self.now += 1 / FPS
            if self.realtime and not _pace(self.started, self.now):
                break
            if not self.realtime and pygame.event.peek(pygame.QUIT):
                break  # SIGTERM: SDL turns it into a QUIT event (Ctrl-C: KeyboardInterrupt)
            observation = self.vision.feed(frame, self.now)
            app.on_vision_status(self.vision.status)
            if observation is not None:
                app.on_observation(observation)
            self._let_the_dice_land()
            app.render()
            referee = self.referee
            instruction = referee.instruction
            if instruction != self.last_instruction:
                self.last_instruction = instruction
                self.stalled = 0
                self.progress_at = self.frame_no
                self.log(f"  {referee.position.moves_played:3d}  {instruction.text}")
                self.shot(f"play-{instruction.kind}")
            if app.hands:
                self.shot("play-hands")
            if app.page == "gameover" or instruction.kind == "game-over":
                break  # (after the last move's own changes: its flips, a capture)
            if len(referee.position.move_stack) != counted_at:
                counted_at = len(referee.position.move_stack)
                if self._played_enough(moves_before):
                    break
            if self.frame_no - self.progress_at > STALL_FRAMES:
                raise self._stalled()
            if not self.pending and self.vision.status == "still":
                self._players_turn(referee)

    def _stalled(self) -> UserError:
        """Why the demo gives up after STALL_FRAMES without progress: the problem the screen
        shows when there is one (the records file locked by another program: no move can be
        accepted until it is saved) - not the camera's state, which is then as it should be."""
        referee = self.referee
        problem = self.app.message
        if not problem:
            return UserError(
                f"the demo stalled: after 30 s the camera still reports {self.vision.status!r} "
                f"and the referee says {referee.instruction.text!r}"
            )
        kept = ""
        if self.records is not None:  # every move accepted was saved before it was shown
            kept = " (its moves so far are in the records: the next demo continues the game)"
        moves = referee.position.moves_played
        return UserError(f"the demo stopped after move {moves}: {problem}{kept}")

    def _played_enough(self, before: int) -> bool:
        """This run made its `max_moves` moves (`before`: the game's when it began), counted as
        the game counts them (Aranea: turns), and the last of them is over (its roll used)."""
        position = self.referee.position
        played = MoveCount(position.labels_played())
        return played.moves - before >= self.max_moves and played.starts_a_move(position.move_label)

    def _next_frame(self) -> np.ndarray | None:
        """The camera's next picture: the hands at work, else the still board."""
        if not self.pending:
            return self.still_frame
        frame, hand = self.pending.pop(0)
        if not hand and not self.pending:
            self.still_frame = frame
        return frame

    def _let_the_dice_land(self) -> None:
        """The dice tumble and land; play resumes by itself."""
        app = self.app
        for _tick in range(1000):
            wait = app.tick(self.now) if app.page == "dice" else None
            if wait is None:
                break
            app.render()
            age = self.now - app.pages.dice.state.thrown_at
            if 0.2 < age < DICE_ANIMATION:
                self.shot("dice-rolling")
            elif age >= DICE_ANIMATION:
                self.shot("dice")
            self.now += wait
            if self.realtime and not _pace(self.started, self.now):
                break

    def _players_turn(self, referee: Referee[Any]) -> None:
        """The board is still: the players make the next board, or press a button."""
        if referee.board != self.board:  # the referee has not seen the last change yet
            self.stalled += 1
            if self.stalled % 60 == 0 and self.vision.tracker is not None:
                self.vision.tracker.request()  # read the still board again
            return
        target = self.players.next_board(referee, self.board)
        if target is not None and target != self.board:
            self.pending = list(
                self.table.transition(
                    self.seen(self.board), self.seen(target), hand_frames=4, still_frames=12
                )
            )
            self.board = target
            return
        action = self.players.button(referee, self.frame_no)
        if action and action.startswith("choose:"):
            self.tap("choose", action.split(":", 1)[1])  # a choice is made on the screen
        elif action:
            self.press(action)

    def tour(self) -> None:
        """The end: game over, then a look at the records and the other screens."""
        app = self.app
        app.render()
        if app.page == "gameover":
            self.shot("gameover", hold=2.0)
        if self.records is not None and app.page == "gameover":
            self.press("roll")  # ROLL on the game-over screen: review this game
            self.shot("review-game", hold=2.0)
            for _step in range(self.review_steps):
                self.press("roll")  # step back through the moves with the buttons
            self.shot("review-game-back", hold=2.0)
            self.press("back")
            self.shot("review-list", hold=2.0)
        app.act("menu")
        app.act("dice")
        self.tap("roll")
        self.now += DICE_ANIMATION + 0.1
        app.tick(self.now)
        self.shot("dice-roller", hold=2.0)
        app.act("dice-close")
        app.act("settings")
        self.shot("settings", hold=2.0)
        app.act("back")
        self.shot("home-after")


def run_demo(
    game: str = "arinama",
    *,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    records: Records | None = None,
    screenshots: Path | None = None,
    size: tuple[int, int] = (800, 480),
    camera_size: tuple[int, int] | None = None,
    max_moves: int = 500,
    max_frames: int = 20000,
    log: Callable[[str], None] = lambda text: None,
    review_steps: int = 3,
    screen: Screen | None = None,
    realtime: bool = False,
    language: str | None = None,
    speaker: Speaker | None = None,
) -> DemoResult:
    """A whole game on the synthetic table, headless and deterministic (see the module doc).

    The simulated players press the real gpiozero DONE/ROLL buttons (on gpiozero's mock pins)
    and tap the real touch path; time is the camera's (frame / fps), so the demo runs as fast
    as the machine can render and is the same on every machine. With `realtime` (a window on
    a desktop) it is paced to the camera's 30 frames a second so people can watch; closing the
    window or pressing Escape ends it.
    """
    demo = Demo(
        game,
        options=options,
        seed=seed,
        records=records,
        screenshots=screenshots,
        size=size,
        camera_size=camera_size,
        max_moves=max_moves,
        max_frames=max_frames,
        log=log,
        review_steps=review_steps,
        screen=screen,
        realtime=realtime,
        language=language,
        speaker=speaker,
    )
    try:
        return demo.run()
    finally:
        demo.close()
