"""A seeded monkey at the table: the real app, headless, driven by random player actions on
every screen - a finger on a random spot (the real touch path: whatever is there is pressed),
the GPIO buttons on mock pins (BACK held for the menu), the keyboard stand-in, time passing,
and the camera: a mat recognised on the home screen, frames of the setup position (right,
wrong, empty, a hand over it, a black frame) on the setup screen, and during a game the boards
the tracker would read (the next legal board, an illegal one, hands, a cell it cannot read).

On the Pi an exception in the app is a crash at the table: no exception may escape, and after
every step the app has a page, draws it, and the records file opens with every game in it
replaying (`companion.records.replay`).

Everything is seeded: a failure names the game and seed and lists the steps; the same test id
(`pytest tests/test_app_monkey.py -k "arimaa and 2"`) plays them again exactly.
"""

from __future__ import annotations

import random
import traceback
from typing import Any

import pygame
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion import games
from companion.app import App, Settings, TableVision
from companion.app.pages import PAGES
from companion.app.players import SimulatedPlayers
from companion.dice import Dice
from companion.observation import Observation
from companion.records import Records, replay
from companion.referee import Referee
from display.device import HeadlessScreen, init_pygame
from display.touch import TouchInput
from hardware.buttons import ButtonPanel, ButtonPins
from vision.sim import SimTable

GAMES = ("arinama", "arimaa", "aranea", "sensei")
SEEDS = (1, 2)
STEPS = 150
CAMERA_SIZE = (480, 270)

# What a player (or the table) does next, and how often.
ACTIONS = {
    "tap-button": 30,  # a finger on a random spot of something drawn to be pressed
    "tap-anywhere": 8,  # a finger anywhere on the panel
    "slide": 2,  # a finger that slides off before it lifts: no tap
    "gpio": 16,  # DONE, ROLL, BACK on their pins; BACK held: the menu
    "key": 3,  # the keyboard stand-in
    "wait": 10,  # time passes (the dice tumble and land)
    "camera": 30,  # what the camera sees
    "camera-trouble": 1,  # the camera lost, back again, or its source ended
    "player": 20,  # what a careful player does next: start, set up, move, press what is asked
}


def to_panel(screen: HeadlessScreen, point: tuple[int, int]) -> tuple[int, int]:
    """A spot of the upright canvas on the panel (the inverse of `Screen.to_logical`)."""
    lx, ly = point
    w, h = screen.panel_size
    return {
        0: (lx, ly),
        90: (w - 1 - ly, lx),
        180: (w - 1 - lx, h - 1 - ly),
        270: (ly, h - 1 - lx),
    }[screen.rotation]


def nearly_over(records: Records, game: str, seed: int, left: int) -> None:
    """An unfinished game in `records`, `left` moves before its end (the demo's players'
    seeded game): Continue on the home screen takes the monkey to the end of a game."""
    cls = games.get(game)
    players = SimulatedPlayers(seed)
    probe = cls.new(cls.options_from({}))
    moves = []
    while probe.outcome() is None and len(moves) < 400:
        try:
            move = players._choose_move(probe)
        except IndexError:  # nothing legal
            break
        probe.push(move)
        moves.append(move)
    referee = Referee(cls.new(cls.options_from({})), records=records)
    for move in moves[: max(0, len(moves) - left)]:
        referee._accept(move)


class Monkey:
    """One app at one table, and a seeded player doing random things at it."""

    def __init__(self, game: str, seed: int, folder: Any) -> None:
        self.game = game
        self.seed = seed
        self.rng = random.Random(f"{game}:{seed}")
        self.now = 1000.0
        self.db = folder / "records.sqlite3"
        self.records = Records(self.db)
        nearly_over(self.records, game, seed, left=self.rng.randint(1, 4))
        init_pygame(headless=True)
        self.screen = HeadlessScreen((800, 480))
        self.app = App(
            self.screen,
            Settings(game=game, language="en"),
            records=self.records,
            dice=Dice(seed=seed),
            # the colours learned at once (not in a thread): the steps are the same every run
            vision_factory=lambda layout: TableVision(layout),
            clock=lambda: self.now,
            settings_path=folder / "settings.json",
        )
        self.touch = TouchInput(self.screen, self.app.metrics.px_per_mm)
        self.pins = ButtonPins()
        self.panel = ButtonPanel(self.app.button, self.pins, clock=lambda: self.now, threaded=False)
        self.tables: dict[str, SimTable] = {}
        self.board: dict[str, str] = {}  # what lies on the board in a game (referee's words)
        self.players = SimulatedPlayers(seed)
        self.playing: Any = None  # the referee `board` is for
        self.replayed: dict[int, tuple[Any, ...]] = {}
        self.steps: list[str] = []

    def close(self) -> None:
        self.panel.close()
        self.records.close()

    # -- the steps ---------------------------------------------------------------------------
    def run(self, steps: int) -> None:
        self.app.render(force=True)
        for number in range(steps):
            step = f"{number:3d} {self.app.page:<11}"
            try:
                self.app.tick()  # the event loop asks for the timers first
                action = self.rng.choices(list(ACTIONS), weights=list(ACTIONS.values()))[0]
                step += f" {action}: "
                step += getattr(self, action.replace("-", "_"))()
                self.app.render()
                self.check()
            except Exception as exc:
                self.steps.append(step + " <- raised")
                raise AssertionError(
                    f"the monkey crashed the app: {self.game} seed {self.seed}, step {number}: "
                    f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}\nsteps:\n"
                    + "\n".join(self.steps)
                ) from exc
            self.steps.append(step)

    def check(self) -> None:
        """The invariants after every step."""
        app = self.app
        assert app.page in PAGES, app.page
        painter = app.painter
        assert painter is not None, "nothing drawn"
        # every page says something and offers a way on (a blank or dead-end screen is a bug)
        assert painter.texts, f"the {app.page} page drew no words"
        assert painter.targets, f"the {app.page} page drew nothing to press"
        with Records(self.db, readonly=True) as records:
            for summary in records.games():
                key = (summary.moves, summary.status, summary.updated_at)
                if self.replayed.get(summary.id) != key:
                    replay(records.game(summary.id, images=False))
                    self.replayed[summary.id] = key

    def pass_time(self, seconds: float) -> None:
        self.now += seconds
        self.panel.poll(self.now)

    # -- a careful player -----------------------------------------------------------------------
    def player(self) -> str:
        """What a player who follows the screen does next (the demo's players), so that the
        monkey gets into games and through them, not only round the menus."""
        app = self.app
        vision = app.vision
        if app.page == "home":
            if app.settings.game != self.game:  # (the monkey chose another game)
                return self.press_target("select-game", self.game)
            return self.press_target("start" if self.rng.random() < 0.6 else "resume")
        if app.page == "setup" and vision is not None:
            frame = self.setup_frame(vision, "position")  # the pieces put down as shown
            vision.look(frame, self.now)
            app.on_setup_frame(frame)
            app.button("done")
            return f"sets up on {vision.layout.name}, DONE: {app.message or app.page}"
        if app.page in ("dice", "gameover") or app.referee is None:
            return self.press_target(self.rng.choice(("dice-close", "new-game", "back")))
        referee = app.referee
        press = self.players.button(referee, len(self.steps) * 100)
        if press is not None and press.startswith("choose:"):
            app.act("choose", press.split(":", 1)[1])
            return press
        if press is not None:
            self.gpio_press(press)
            return f"presses {press}"
        if vision is not None and vision.tracker is not None:
            return self.read_board(vision, "legal")
        return "nothing to do"

    def press_target(self, kind: str, value: Any = None) -> str:
        """A finger on the first thing drawn that does `kind` (with `value`, when given)."""
        painter = self.app.painter
        for target in painter.targets if painter is not None else []:
            if target.action.kind == kind and value in (None, target.action.value):
                self.finger(target.rect.center, target.rect.center)
                return f"{target.label!r}"
        return f"no {kind}"

    # -- a finger on the panel ----------------------------------------------------------------
    def finger(self, down: tuple[int, int], up: tuple[int, int]) -> None:
        w, h = self.screen.panel_size
        for kind, point in ((pygame.FINGERDOWN, down), (pygame.FINGERUP, up)):
            x, y = to_panel(self.screen, point)
            event = pygame.event.Event(kind, finger_id=0, x=x / (w - 1), y=y / (h - 1))
            tap = self.touch.translate(event)
            if tap is not None:
                self.app.tap(tap.pos)
        self.pass_time(0.2)

    def tap_button(self) -> str:
        painter = self.app.painter
        targets = list(painter.targets) if painter is not None else []
        if not targets:
            return self.tap_anywhere()
        target = self.rng.choice(targets)
        rect = target.rect
        point = (
            self.rng.randint(rect.left, max(rect.left, rect.right - 1)),
            self.rng.randint(rect.top, max(rect.top, rect.bottom - 1)),
        )
        self.finger(point, point)
        return f"{point} on {target.label!r} ({target.action.kind} {target.action.value!r})"

    def tap_anywhere(self) -> str:
        w, h = self.screen.size
        point = (self.rng.randrange(w), self.rng.randrange(h))
        self.finger(point, point)
        return f"{point}"

    def slide(self) -> str:
        w, h = self.screen.size
        down = (self.rng.randrange(w), self.rng.randrange(h))
        up = (min(w - 1, down[0] + 80), down[1])
        self.finger(down, up)
        return f"{down} -> {up}"

    # -- the table's buttons ------------------------------------------------------------------
    def gpio(self) -> str:
        name = self.rng.choice(("done", "roll", "back"))
        hold = 1.3 if name == "back" and self.rng.random() < 0.25 else 0.05
        self.gpio_press(name, hold)
        return f"{name}" + (" held" if hold > 1 else "")

    def gpio_press(self, name: str, hold: float = 0.05) -> None:
        pin = Device.pin_factory.pin(getattr(self.pins, name))
        pin.drive_low()
        self.pass_time(hold)
        pin.drive_high()
        self.pass_time(0.05)

    def key(self) -> str:
        key = self.rng.choice((pygame.K_RETURN, pygame.K_r, pygame.K_BACKSPACE, pygame.K_m))
        event = pygame.event.Event(pygame.KEYDOWN, key=key, mod=0, unicode="", scancode=0)
        result = self.touch.translate(event)
        if result is not None:
            self.app.button(result.action)
        return pygame.key.name(key)

    # -- time -----------------------------------------------------------------------------------
    def wait(self) -> str:
        """Time passes as in the event loop: the timers that fall due are run."""
        seconds = self.rng.choice((0.1, 0.5, 1.0, 3.0))
        end = self.now + seconds
        while True:
            due = self.app.tick()
            if due is None or self.now + due > end:
                break
            self.pass_time(max(due, 0.01))
            self.app.render()
        self.pass_time(max(0.0, end - self.now))
        return f"{seconds} s"

    # -- the camera -----------------------------------------------------------------------------
    def camera_trouble(self) -> str:
        what = self.rng.choice(("lost", "back", "ended"))
        if what == "ended":
            self.app.on_camera_ended()
        else:
            self.app.on_camera_problem(
                "no camera on usb:0: check the cable" if what == "lost" else ""
            )
        return what

    def camera(self) -> str:
        """A frame as the camera worker hands it on (`CameraWorker._loop`)."""
        self.pass_time(0.3)
        vision = self.app.camera_vision()
        if vision is None:  # the home screen: which mat is on the table
            layout = self.rng.choice([None, *games.get(self.game).mats])
            self.app.recognise(layout)
            return f"sees the mat {layout}"
        if vision.tracker is None:  # setting up: the live picture
            kind = self.rng.choice(("position", "position", "wrong", "empty", "hand", "black"))
            frame = self.setup_frame(vision, kind)
            vision.look(frame, self.now)
            self.app.on_setup_frame(frame)
            return f"setup frame: {kind} on {vision.layout.name}"
        return self.read_board(vision)

    def table(self, layout: str) -> SimTable:
        if layout not in self.tables:
            self.tables[layout] = SimTable(layout, seed=self.seed, size=CAMERA_SIZE)
        return self.tables[layout]

    def setup_frame(self, vision: TableVision, kind: str) -> Any:
        layout = vision.layout.name
        table = self.table(layout)
        position = self.app.setup_position
        want = position.calibration_cells(vision.layout.classes) if position is not None else {}
        if kind == "black":
            return table.black_frame()
        if kind == "empty":
            want = {}
        elif kind == "wrong" and want:
            cells = sorted(want)
            gone = self.rng.choice(cells)
            want = {c: cls for c, cls in want.items() if c != gone}
        hand = None
        if kind == "hand":
            cell = self.rng.choice([c.name for c in vision.layout.cells])
            hand = table.hand_towards(table.cell_pixel(cell))
        return table.render(want, hand)

    def read_board(self, vision: TableVision, kind: str = "") -> str:
        """The tracker's word during a game: its state, and a still board it read."""
        app = self.app
        referee = app.referee
        kind = kind or self.rng.choice(
            ("legal", "legal", "illegal", "hands", "covered", "moving", "board-moved", "searching")
            + ("unreadable", "again")
        )
        if kind in ("hands", "covered", "moving", "board-moved", "searching"):
            app.on_vision_status(kind)
            return kind
        if referee is None:  # the game's page is not up: the tracker reads on regardless
            app.on_vision_status("still")
            return "still, no game"
        if referee is not self.playing:  # a new game: its start position lies on the board
            self.playing = referee
            self.board = referee.position.cells()
        position = referee.position
        if kind == "legal":
            target = self.players.next_board(referee, self.board)
            if target is None and not position.is_game_over():
                try:
                    after = position.copy()
                    after.push(position.random_move(self.rng))
                    target = after.cells()
                except (IndexError, ValueError):
                    target = None
            if target is not None:
                self.board = dict(target)
        elif kind == "illegal":
            cell = self.rng.choice(position.cell_names())
            classes = [c for c in type(position).cell_classes() if c != "empty"]
            piece = self.rng.choice([None, *classes])
            self.board = {c: k for c, k in self.board.items() if c != cell}
            if piece is not None:
                self.board[cell] = piece
        cells = {c.name: "empty" for c in vision.layout.cells}
        colours = (
            {"gold": "white", "silver": "black"}
            if position.uses_chess_set(position.options)
            else {}
        )
        cells.update({c: colours.get(k, k) for c, k in self.board.items() if c in cells})
        unknown = ()
        if kind == "unreadable":
            unknown = tuple(self.rng.sample(sorted(cells), k=min(3, len(cells))))
            cells.update({c: "unknown" for c in unknown})
        observation = Observation(cells, frame=len(self.steps), layout=vision.layout.name)
        app.on_vision_status("still")
        app.on_observation(observation)
        return f"{kind}: {sorted(self.board.items())}" + (f", unknown {unknown}" if unknown else "")


@pytest.fixture
def pins():
    previous = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield
    Device.pin_factory.close()
    Device.pin_factory = previous


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game", GAMES)
def test_the_monkey_never_crashes_the_app(game, seed, tmp_path, pins):
    monkey = Monkey(game, seed, tmp_path)
    try:
        monkey.run(STEPS)
    finally:
        monkey.close()
    # (the monkey itself still gets into a game: else it tries little of the app)
    pages = {line.split()[1] for line in monkey.steps}
    assert "play" in pages, "\n".join(monkey.steps)
