"""Where the pictures go: a window/panel, or an off-screen surface. Swappable like gpiozero's
pin factories.

Every page draws on a *logical canvas* that is upright for the players. A panel mounted
sideways or upside down gets `rotation` 0/90/180/270 (degrees clockwise): the canvas is turned
onto the panel when presented, and touches on the panel are turned back, so a finger always
lands on what it points at. Doing the rotation in the app (not in the kernel or SDL) works the
same on KMS/DRM, X11, Wayland and off-screen.

    screen = open_screen(size=(800, 480), rotation=90)   # the factory decides window or not
    screen.canvas     # draw here: (480, 800), upright for the players
    screen.present()  # shows it (a window) or just counts (off-screen)

`set_screen_factory(headless_screen)` forces off-screen, as tests and `--headless` do.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pygame

from companion.errors import UserError
from display import fonts

ROTATIONS = (0, 90, 180, 270)


def check_rotation(rotation: int) -> int:
    if rotation not in ROTATIONS:
        raise UserError(f"screen rotation must be 0, 90, 180 or 270 degrees, not {rotation!r}")
    return rotation


def logical_size(panel_size: tuple[int, int], rotation: int) -> tuple[int, int]:
    w, h = panel_size
    return (h, w) if rotation in (90, 270) else (w, h)


def panel_to_logical(
    point: tuple[float, float], panel_size: tuple[int, int], rotation: int
) -> tuple[int, int]:
    """A point on the panel (pixels) -> the same spot on the upright canvas."""
    x, y = point
    w, h = panel_size
    if rotation == 0:
        lx, ly = x, y
    elif rotation == 90:  # canvas turned clockwise: its top edge is the panel's right edge
        lx, ly = y, w - 1 - x
    elif rotation == 180:
        lx, ly = w - 1 - x, h - 1 - y
    else:  # 270
        lx, ly = h - 1 - y, x
    return int(round(lx)), int(round(ly))


def rotate_canvas(canvas: pygame.Surface, rotation: int) -> pygame.Surface:
    """The canvas as it must appear on the panel (pygame rotates counter-clockwise)."""
    return canvas if rotation == 0 else pygame.transform.rotate(canvas, -rotation)


class Screen:
    """Base: a logical canvas, presented somewhere. Subclasses define `_show`."""

    def __init__(self, panel_size: tuple[int, int], rotation: int = 0) -> None:
        self.panel_size = (int(panel_size[0]), int(panel_size[1]))
        self.rotation = check_rotation(rotation)
        self.size = logical_size(self.panel_size, self.rotation)
        self.canvas = pygame.Surface(self.size)
        self.frames = 0  # how many times something was presented (redraw-on-change tests)
        self.has_window = False

    def set_rotation(self, rotation: int) -> None:
        self.rotation = check_rotation(rotation)
        self.size = logical_size(self.panel_size, self.rotation)
        self.canvas = pygame.Surface(self.size)

    def to_logical(self, panel_point: tuple[float, float]) -> tuple[int, int]:
        return panel_to_logical(panel_point, self.panel_size, self.rotation)

    def panel_image(self) -> pygame.Surface:
        """What the panel shows now (the rotated canvas)."""
        return rotate_canvas(self.canvas, self.rotation)

    def present(self) -> None:
        self.frames += 1
        self._show()

    def _show(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def save(self, path: str | Path) -> Path:
        """A PNG of the upright canvas (what a player reads)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        pygame.image.save(self.canvas, str(path))
        return path

    def close(self) -> None:
        pass


class HeadlessScreen(Screen):
    """Off-screen: nothing is shown; the canvas can be saved as PNG screenshots."""

    def _show(self) -> None:
        pass


SCREEN_HINT = (
    "on a Pi check that the touchscreen is connected, SDL_VIDEODRIVER=kmsdrm, and that the user "
    "is in the video and render groups; elsewhere use --headless"
)


class WindowScreen(Screen):
    """A real display: a desktop window, or the whole panel (`fullscreen`, e.g. kmsdrm)."""

    def __init__(self, panel_size: tuple[int, int], rotation: int = 0, fullscreen: bool = False):
        flags = pygame.FULLSCREEN if fullscreen else 0
        try:
            if fullscreen:
                info = pygame.display.Info()
                if info.current_w > 0 and info.current_h > 0:
                    panel_size = (info.current_w, info.current_h)
            window = pygame.display.set_mode(panel_size, flags)
        except pygame.error as exc:
            raise UserError(f"cannot open the screen ({exc}): {SCREEN_HINT}") from None
        super().__init__(window.get_size(), rotation)
        self.window = window
        self.has_window = True
        pygame.display.set_caption("Tabletop Companion")
        if fullscreen:
            pygame.mouse.set_visible(False)

    def _show(self) -> None:
        self.window.blit(self.panel_image(), (0, 0))
        pygame.display.flip()


ScreenFactory = Callable[..., Screen]


def headless_screen(size: tuple[int, int], rotation: int = 0, fullscreen: bool = False) -> Screen:
    return HeadlessScreen(size, rotation)


def window_screen(size: tuple[int, int], rotation: int = 0, fullscreen: bool = False) -> Screen:
    return WindowScreen(size, rotation, fullscreen)


def auto_screen(size: tuple[int, int], rotation: int = 0, fullscreen: bool = False) -> Screen:
    """A window when there is a display to open one on, else off-screen."""
    if has_display():
        return window_screen(size, rotation, fullscreen)
    return headless_screen(size, rotation)


def has_display() -> bool:
    """Is there somewhere to show a window? (X11/Wayland, or kmsdrm asked for explicitly)."""
    driver = os.environ.get("SDL_VIDEODRIVER", "")
    if driver in ("dummy", "offscreen"):
        return False
    if driver in ("kmsdrm", "KMSDRM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


_factory: ScreenFactory = auto_screen


def set_screen_factory(factory: ScreenFactory) -> None:
    global _factory
    _factory = factory


def open_screen(
    size: tuple[int, int] = (800, 480), rotation: int = 0, fullscreen: bool = False
) -> Screen:
    """Open the screen with the current factory (pygame is initialised here)."""
    init_pygame(headless=_factory is headless_screen or not has_display())
    return _factory(size, rotation, fullscreen)


def init_pygame(headless: bool = False) -> None:
    """Initialise only what the app needs (no audio: a Pi with no sound card must not fail).

    Touches make SDL synthesise mouse events as well; the hint switches that off, and
    `display.touch` also ignores any that still arrive, so each tap counts once.
    """
    os.environ.setdefault("SDL_TOUCH_MOUSE_EVENTS", "0")
    os.environ.setdefault("SDL_MOUSE_TOUCH_EVENTS", "0")
    if headless:
        os.environ["SDL_VIDEODRIVER"] = "dummy"
    try:
        pygame.display.init()
    except pygame.error as exc:  # no screen connected, no DRM device, no permission for it
        raise UserError(f"cannot open the screen ({exc}): {SCREEN_HINT}") from None
    if not pygame.font.get_init():  # first, or again after a pygame.quit()
        pygame.font.init()
        fonts.forget()
