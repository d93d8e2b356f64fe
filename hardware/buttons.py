"""The three table buttons (DONE, ROLL, BACK) and the optional buzzer / LED, on gpiozero.

Wiring (BCM numbers are configurable; defaults below): each button between its GPIO and
ground, using the Pi's internal pull-up, so pressed = low. See docs/raspberry-pi.md.

    DONE  BCM 17  end the turn / confirm
    ROLL  BCM 27  roll the dice
    BACK  BCM 22  undo / back; held for a second: the menu
    buzzer (optional) BCM 18, LED (optional) BCM 23: a short signal on an illegal move

Presses become *actions* - plain strings, the same ones the keyboard stand-in and the screen
produce ("done", "roll", "back", "menu") - handed to a callback. DONE and ROLL act on the press
(they feel instant); BACK acts on release, because only then is it known whether it was a tap
(back) or a long press (menu, reported as soon as the second has passed).

Debouncing is our own (`hardware.debounce`), driven by a single daemon thread that sleeps
until the next deadline - no polling loop. gpiozero picks the pin factory as usual
(`GPIOZERO_PIN_FACTORY`, or `gpiozero.Device.pin_factory = MockFactory()` in tests).
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from companion.errors import UserError
from hardware.debounce import HOLD, PRESS, RELEASE, Debouncer

DONE = "done"
ROLL = "roll"
BACK = "back"
MENU = "menu"


@dataclass(frozen=True)
class ButtonPins:
    """BCM pin numbers; None switches an optional part off."""

    done: int = 17
    roll: int = 27
    back: int = 22
    buzzer: int | None = 18  # optional: nothing attached is harmless; "buzzer=none" frees it
    led: int | None = 23

    def __post_init__(self) -> None:
        used: dict[int, str] = {}
        for f in fields(self):
            pin = getattr(self, f.name)
            if pin is None:
                continue
            if not isinstance(pin, int) or isinstance(pin, bool) or not 2 <= pin <= 27:
                raise UserError(
                    f"button pin {f.name}={pin!r} is not a usable BCM GPIO number (2-27)"
                )
            if pin in used:
                raise UserError(
                    f"BCM pin {pin} is given for both {used[pin]} and {f.name}: each needs its own pin"
                )
            used[pin] = f.name

    @classmethod
    def parse(cls, text: str) -> ButtonPins:
        """From "done=17,roll=27,back=22,buzzer=18" (any subset; "none" or "off" switches a part off)."""
        values: dict[str, int | None] = {}
        names = {f.name for f in fields(cls)}
        if not isinstance(text, str):  # a hand-edited settings file: "pins": 17
            raise UserError(
                f'button pins {text!r} are not text: write them as "done=17,roll=27,back=22"'
            )
        for item in text.replace(" ", ",").split(","):
            if not item:
                continue
            key, sep, value = item.partition("=")
            key = key.strip().lower()
            if not sep or key not in names:
                raise UserError(
                    f"bad button pin setting {item!r}: write NAME=BCM with NAME one of {', '.join(sorted(names))}"
                )
            if value.strip().lower() in ("none", "off"):
                values[key] = None
                continue
            try:
                values[key] = int(value)
            except ValueError:
                raise UserError(f"button pin {key}={value!r} is not a number") from None
        return cls(**values)


class ButtonPanel:
    """Real gpiozero Buttons, debounced, turned into actions for `on_action`.

    `threaded=False` leaves the timing to the caller (`poll(now)`), for tests with a fake clock.
    """

    def __init__(
        self,
        on_action: Callable[[str], None],
        pins: ButtonPins | None = None,
        *,
        settle: float = 0.025,
        long_press: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        threaded: bool = True,
    ) -> None:
        from gpiozero import LED, Button, Buzzer  # imported here: a desktop may have no GPIO

        self.pins = pins or ButtonPins()
        self.on_action = on_action
        self.clock = clock
        self._lock = threading.Condition()
        self._closed = False
        self._debouncers: dict[str, Debouncer] = {}
        self.buttons: dict[str, Button] = {}
        try:
            for name in (DONE, ROLL, BACK):
                pin = getattr(self.pins, name)
                # bounce_time=None: debouncing is ours (see hardware.debounce).
                button = Button(pin, pull_up=True, bounce_time=None)
                deb = Debouncer(
                    settle=settle, long_press=long_press if name == BACK else None, clock=clock
                )
                button.when_pressed = self._edge_handler(deb, True)
                button.when_released = self._edge_handler(deb, False)
                self.buttons[name] = button
                self._debouncers[name] = deb
        except Exception:
            self.close()
            raise
        # The buzzer and the LED are extras: a pin of theirs in use elsewhere (an audio HAT on
        # 18) leaves them out, never the buttons (`problem` says so).
        self.problem = ""
        self.buzzer = self._extra(Buzzer, "buzzer")
        self.led = self._extra(LED, "led")
        self._thread = None
        if threaded:
            self._thread = threading.Thread(target=self._run, name="buttons", daemon=True)
            self._thread.start()

    def _extra(self, device: Callable[[int], Any], name: str) -> Any:
        """The buzzer or the LED on its pin, or None (no pin, or it cannot be opened: then
        `problem` names it, and the buttons work on)."""
        pin = getattr(self.pins, name)
        if pin is None:
            return None
        try:
            return device(pin)
        except Exception as exc:  # gpiozero: GPIOPinInUse, ...
            said = f"no {name} on BCM {pin} ({type(exc).__name__}: {exc})"
            self.problem = f"{self.problem}; {said}" if self.problem else said
            return None

    def _edge_handler(self, deb: Debouncer, level: bool) -> Callable[[], None]:
        def handler() -> None:
            with self._lock:
                deb.edge(level, self.clock())
                self._lock.notify()

        return handler

    def poll(self, now: float | None = None) -> list[str]:
        """Turn whatever became due into actions (also handed to `on_action`)."""
        now = self.clock() if now is None else now
        actions: list[str] = []
        with self._lock:
            for name, deb in self._debouncers.items():
                for event in deb.poll(now):
                    action = _action_for(name, event, deb)
                    if action:
                        actions.append(action)
        for action in actions:
            self.on_action(action)
        return actions

    def next_deadline(self) -> float | None:
        with self._lock:
            times = [t for d in self._debouncers.values() if (t := d.next_deadline()) is not None]
        return min(times) if times else None

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                deadline = self._next_deadline_locked()
                timeout = None if deadline is None else max(0.0, deadline - self.clock())
                if timeout is None or timeout > 0:
                    self._lock.wait(timeout)
                if self._closed:
                    return
            self.poll()

    def _next_deadline_locked(self) -> float | None:
        times = [t for d in self._debouncers.values() if (t := d.next_deadline()) is not None]
        return min(times) if times else None

    def signal_illegal(self) -> None:
        """Two short beeps and three LED blinks, in the background (whichever is fitted)."""
        if self.buzzer is not None:
            self.buzzer.beep(on_time=0.08, off_time=0.08, n=2, background=True)
        if self.led is not None:
            self.led.blink(on_time=0.12, off_time=0.12, n=3, background=True)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()
        for device in [
            *self.buttons.values(),
            getattr(self, "buzzer", None),
            getattr(self, "led", None),
        ]:
            if device is not None:
                device.close()
        thread = getattr(self, "_thread", None)
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=1)

    def __enter__(self) -> ButtonPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _action_for(name: str, event: str, deb: Debouncer) -> str | None:
    if name == BACK:
        if event == HOLD:
            return MENU
        if event == RELEASE and not deb.was_held:
            return BACK
        return None
    return name if event == PRESS else None


def open_buttons(
    on_action: Callable[[str], None], pins: ButtonPins | None = None
) -> tuple[ButtonPanel | None, str]:
    """The button panel and "", or None and why not ("BadPinFactory: ...") on a machine
    without usable GPIO (a desktop, a container): the keyboard and the screen stand in then.

    Only the *absence* of GPIO is tolerated here; a bad pin setting is the user's to fix.
    """
    try:
        with warnings.catch_warnings():  # gpiozero warns per pin library it cannot load
            warnings.simplefilter("ignore")
            return ButtonPanel(on_action, pins), ""
    except UserError:
        raise
    except Exception as exc:  # gpiozero: BadPinFactory, no /dev/gpiomem, not a Pi, pin in use...
        return None, f"{type(exc).__name__}: {exc}"
