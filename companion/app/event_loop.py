"""The event loop of the real table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pygame

from companion.app.camera import CameraWorker
from companion.app.controller import App
from display.device import Screen
from display.touch import Key, Tap, TouchInput
from hardware.sdnotify import Watchdog

POLL_MS = 20  # the event loop's sleep on video drivers that cannot wake SDL (kmsdrm, dummy)


def run_table(
    app: App,
    screen: Screen,
    *,
    worker: CameraWorker | None = None,
    watchdog: Watchdog | None = None,
    screenshots: Path | None = None,
    until: Callable[[], bool] | None = None,
) -> int:
    """The event loop of the real table. Blocks in `pygame.event.wait` until something happens
    (a touch, a key, a camera result, a button) or a timer is due (dice animation, the
    setup's calibration to look in on, watchdog); draws only when the page changed. Returns
    the exit code."""
    touch = TouchInput(screen, app.metrics.px_per_mm)
    button_event = pygame.event.custom_type()

    def post_button(action: str) -> None:
        pygame.event.post(pygame.event.Event(button_event, action=action))

    app.post_button = post_button
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
