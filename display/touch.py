"""Raw pygame events -> what the app acts on: a tap at a point of the upright canvas, or a
button action from the keyboard stand-in.

A touchscreen produces FINGERDOWN/FINGERUP (x, y normalised to the panel) *and*, unless told
not to, SDL copies them as mouse clicks (with `event.touch` set). The companion takes a tap
from the finger events and ignores mouse events that came from a touch, so a tap counts once;
a real mouse (a desktop) still works. A tap is taken on release (finger up / button up) over
the place it went down, like a phone: a finger that slides off a button cancels it.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from display.device import Screen
from hardware.keyboard import action_for_key

SLIDE_TOLERANCE_MM = 6.0  # how far a finger may move between down and up and still be a tap


@dataclass(frozen=True)
class Tap:
    pos: tuple[int, int]  # on the upright canvas


@dataclass(frozen=True)
class Key:
    action: str  # "done", "roll", "back", "menu"


class TouchInput:
    """Turns events into Tap / Key for one screen (its rotation maps touches back)."""

    def __init__(self, screen: Screen, px_per_mm: float = 5.0) -> None:
        self.screen = screen
        self.tolerance = SLIDE_TOLERANCE_MM * px_per_mm
        self._down: dict[object, tuple[int, int]] = {}

    def translate(self, event: pygame.event.Event) -> Tap | Key | None:
        if event.type == pygame.FINGERDOWN:
            self._down[("finger", event.finger_id)] = self._finger_pos(event)
            return None
        if event.type == pygame.FINGERUP:
            return self._release(("finger", event.finger_id), self._finger_pos(event))
        if event.type in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
            if getattr(event, "touch", False) or event.button != 1:
                return None  # SDL's copy of a touch (or not the main button)
            pos = self.screen.to_logical(event.pos)
            if event.type == pygame.MOUSEBUTTONDOWN:
                self._down["mouse"] = pos
                return None
            return self._release("mouse", pos)
        if event.type == pygame.KEYDOWN:
            action = action_for_key(pygame.key.name(event.key))
            return Key(action) if action else None
        return None

    def _finger_pos(self, event: pygame.event.Event) -> tuple[int, int]:
        w, h = self.screen.panel_size
        x = min(max(event.x, 0.0), 1.0) * (w - 1)
        y = min(max(event.y, 0.0), 1.0) * (h - 1)
        return self.screen.to_logical((x, y))

    def _release(self, key: object, pos: tuple[int, int]) -> Tap | None:
        start = self._down.pop(key, None)
        if start is None:
            return None
        if abs(start[0] - pos[0]) > self.tolerance or abs(start[1] - pos[1]) > self.tolerance:
            return None
        return Tap(start)
