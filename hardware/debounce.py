"""Debouncing a push button by waiting for quiet, with long-press detection.

Mechanical buttons bounce: one press makes a burst of make/break edges lasting a few
milliseconds, and a long cable picks up the odd spike. gpiozero's `bounce_time` is handled in
the pin driver (and ignored by its mock pins), so the companion debounces on its own, the same
way on every pin factory:

- every raw edge is recorded with its time;
- a level only *counts* once the input has stayed at it for `settle` seconds with no further
  edge ("wait for quiet"), so a burst of bounces yields exactly one press, and a spike shorter
  than `settle` yields nothing;
- a press that has counted and is still held `long_press` seconds later also yields "hold".

The debouncer is pure bookkeeping with an injectable clock: `edge()` records, `poll()` says what
became due, `next_deadline()` says when to poll next. `hardware.buttons.ButtonPanel` drives it
from one small thread; tests drive it with a fake clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

PRESS = "press"
RELEASE = "release"
HOLD = "hold"


@dataclass
class Debouncer:
    settle: float = 0.025  # seconds of quiet before a level counts
    long_press: float | None = 1.0  # seconds held before "hold" (None: never)
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self.pressed = False  # the debounced state
        self._raw = False  # the last raw level seen
        self._last_edge: float | None = None  # time of the last raw edge not yet settled
        self._pressed_at: float | None = None
        self._held = False  # "hold" already reported for this press

    def edge(self, level: bool, t: float | None = None) -> None:
        """Record a raw level change (True = pressed) at time `t` (default: now)."""
        if level == self._raw:
            return
        self._raw = level
        self._last_edge = self.clock() if t is None else t

    def poll(self, now: float | None = None) -> list[str]:
        """Events that became due by `now`: "press", "release", "hold", in order."""
        now = self.clock() if now is None else now
        events: list[str] = []
        if self._last_edge is not None and now - self._last_edge >= self.settle:
            settled_at = self._last_edge + self.settle
            self._last_edge = None
            if self._raw != self.pressed:
                self.pressed = self._raw
                if self.pressed:
                    self._pressed_at = settled_at
                    self._held = False
                    events.append(PRESS)
                else:
                    self._pressed_at = None
                    events.append(RELEASE)
        if (
            self.pressed
            and not self._held
            and self.long_press is not None
            and self._pressed_at is not None
            and self._last_edge is None  # not in the middle of a release burst
            and now - self._pressed_at >= self.long_press
        ):
            self._held = True
            events.append(HOLD)
        return events

    @property
    def was_held(self) -> bool:
        """True when the current (or just released) press already reported "hold"."""
        return self._held

    def next_deadline(self) -> float | None:
        """When `poll` next has something to decide (None: nothing pending)."""
        if self._last_edge is not None:
            return self._last_edge + self.settle
        if (
            self.pressed
            and not self._held
            and self.long_press is not None
            and self._pressed_at is not None
        ):
            return self._pressed_at + self.long_press
        return None
