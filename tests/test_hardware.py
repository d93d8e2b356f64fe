"""GPIO buttons on gpiozero's MockFactory (real Button objects), our debouncing, the keyboard
stand-in, and the systemd notify protocol over a real datagram socket."""

import os
import socket
import threading
import time

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.errors import UserError
from hardware.buttons import BACK, DONE, MENU, ROLL, ButtonPanel, ButtonPins, open_buttons
from hardware.debounce import HOLD, PRESS, RELEASE, Debouncer
from hardware.keyboard import action_for_key
from hardware.sdnotify import Watchdog, notify, watchdog_interval


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def factory():
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = None


@pytest.fixture
def panel(factory):
    clock = FakeClock()
    actions: list[str] = []
    p = ButtonPanel(actions.append, ButtonPins(buzzer=18, led=23), clock=clock, threaded=False)
    p.test_clock = clock
    p.test_actions = actions
    yield p
    p.close()


def pin(factory, number):
    return factory.pin(number)


def bounce(p, clock, level_sequence, gap=0.002):
    """Drive a real mock pin through a burst of edges `gap` seconds apart (pressed = low)."""
    for level in level_sequence:
        if level:
            p.drive_low()
        else:
            p.drive_high()
        clock.advance(gap)


# -- the debouncer alone -------------------------------------------------------------------------
def test_debouncer_reports_one_press_for_a_burst_of_bounces():
    clock = FakeClock()
    deb = Debouncer(settle=0.02, long_press=None, clock=clock)
    for level in [True, False, True, False, True]:
        deb.edge(level)
        clock.advance(0.003)
        assert deb.poll() == []  # never quiet long enough yet
    clock.advance(0.02)
    assert deb.poll() == [PRESS]
    assert deb.poll() == []


def test_debouncer_ignores_a_spike_shorter_than_the_settle_time():
    clock = FakeClock()
    deb = Debouncer(settle=0.02, long_press=None, clock=clock)
    deb.edge(True)
    clock.advance(0.005)
    deb.edge(False)
    clock.advance(0.05)
    assert deb.poll() == []
    assert not deb.pressed


def test_debouncer_reports_hold_once_after_long_press_and_release_after():
    clock = FakeClock()
    deb = Debouncer(settle=0.02, long_press=1.0, clock=clock)
    deb.edge(True)
    clock.advance(0.03)
    assert deb.poll() == [PRESS]
    assert deb.next_deadline() == pytest.approx(100.02 + 1.0)
    clock.advance(0.5)
    assert deb.poll() == []
    clock.advance(0.6)
    assert deb.poll() == [HOLD]
    clock.advance(2.0)
    assert deb.poll() == []
    deb.edge(False)
    clock.advance(0.03)
    assert deb.poll() == [RELEASE]
    assert deb.was_held


# -- real gpiozero Buttons on mock pins ------------------------------------------------------------
def test_done_and_roll_act_on_a_clean_press(factory, panel):
    clock, actions = panel.test_clock, panel.test_actions
    pin(factory, 17).drive_low()
    clock.advance(0.03)
    panel.poll()
    pin(factory, 17).drive_high()
    clock.advance(0.03)
    panel.poll()
    pin(factory, 27).drive_low()
    clock.advance(0.03)
    panel.poll()
    assert actions == [DONE, ROLL]


def test_bouncing_contacts_give_exactly_one_action_per_press(factory, panel):
    clock, actions = panel.test_clock, panel.test_actions
    done = pin(factory, 17)
    for _ in range(3):  # three real presses, each with bounce on make and on break
        bounce(done, clock, [True, False, True, False, True])
        clock.advance(0.05)
        panel.poll()
        bounce(done, clock, [False, True, False, True, False])
        clock.advance(0.05)
        panel.poll()
    assert actions == [DONE, DONE, DONE]


def test_back_tap_is_back_and_back_held_is_menu_without_a_back(factory, panel):
    clock, actions = panel.test_clock, panel.test_actions
    back = pin(factory, 22)
    bounce(back, clock, [True, False, True])
    clock.advance(0.2)
    panel.poll()
    assert actions == []  # BACK acts on release, to tell a tap from a long press
    bounce(back, clock, [False, True, False])
    clock.advance(0.05)
    panel.poll()
    assert actions == [BACK]
    back.drive_low()
    clock.advance(0.05)
    panel.poll()
    clock.advance(1.0)
    panel.poll()
    assert actions == [BACK, MENU]  # reported while still held
    back.drive_high()
    clock.advance(0.05)
    panel.poll()
    assert actions == [BACK, MENU]


def test_threaded_panel_debounces_in_real_time(factory):
    """A burst of bounces a few milliseconds apart (the panel's thread wakes on each edge)
    gives one ROLL once the contact has been quiet for the settle time, and no more after it.
    (The edges were once driven back to back: the thread woke after the last one only, so the
    panel gave one ROLL with its debouncing switched off too.)"""
    actions: list[str] = []
    settle = 0.2
    with ButtonPanel(actions.append, ButtonPins(), settle=settle) as p:
        roll = factory.pin(27)
        for level in [True, False, True, False, True]:  # a burst well under the settle time
            roll.drive_low() if level else roll.drive_high()
            time.sleep(0.005)
        deadline = time.monotonic() + 3
        while not actions and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(2 * settle)  # any further action would have come by now
        assert actions == [ROLL]
        assert p.buttons[ROLL].is_pressed


def test_illegal_move_signal_beeps_and_blinks(factory, panel):
    panel.signal_illegal()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        buzzer_states = [s.state for s in pin(factory, 18).states]
        led_states = [s.state for s in pin(factory, 23).states]
        if buzzer_states.count(True) >= 2 and led_states.count(True) >= 3:
            break
        time.sleep(0.02)
    time.sleep(0.3)  # no more than asked for
    buzzer_states = [s.state for s in pin(factory, 18).states]
    led_states = [s.state for s in pin(factory, 23).states]
    assert buzzer_states.count(True) == 2
    assert led_states.count(True) == 3


def test_pins_are_configurable_and_checked():
    assert ButtonPins() == ButtonPins(17, 27, 22, 18, 23)  # the README's wiring table
    assert ButtonPins.parse("done=5, roll=6,back=13,buzzer=none") == ButtonPins(5, 6, 13, None, 23)
    with pytest.raises(UserError, match="both done and roll"):
        ButtonPins(done=5, roll=5)
    with pytest.raises(UserError, match="BCM"):
        ButtonPins(done=40)
    with pytest.raises(UserError, match="NAME=BCM"):
        ButtonPins.parse("fire=3")
    with pytest.raises(UserError, match="not text"):  # a hand-edited settings file: 17
        ButtonPins.parse(17)


def test_a_buzzer_pin_in_use_elsewhere_leaves_the_buttons_working(factory):
    """Found by a review: an audio HAT holding BCM 18 made the buzzer fail to open - and
    with it all three buttons, which fell back to the keyboard."""
    from gpiozero import OutputDevice

    other = OutputDevice(18)  # another program's hold on the buzzer's pin
    actions: list[str] = []
    clock = FakeClock()
    try:
        with ButtonPanel(actions.append, ButtonPins(), clock=clock, threaded=False) as p:
            assert p.buzzer is None and p.led is not None
            assert "no buzzer on BCM 18" in p.problem
            factory.pin(17).drive_low()
            clock.advance(0.05)
            p.poll()
            p.signal_illegal()  # the LED alone blinks
        assert actions == [DONE]
    finally:
        other.close()


def test_panel_on_other_pins(factory):
    actions: list[str] = []
    clock = FakeClock()
    with ButtonPanel(
        actions.append, ButtonPins.parse("done=5,roll=6,back=13"), clock=clock, threaded=False
    ) as p:
        factory.pin(6).drive_low()
        clock.advance(0.05)
        p.poll()
    assert actions == [ROLL]


def test_no_gpio_is_reported_not_raised(monkeypatch):
    Device.pin_factory = None
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    panel, why = open_buttons(lambda a: None)
    assert panel is None
    assert why.startswith("BadPinFactory: ") and "no-such-factory" in why


def test_keyboard_stands_in_for_the_buttons():
    assert action_for_key("return") == DONE
    assert action_for_key("R") == ROLL
    assert action_for_key("backspace") == BACK
    assert action_for_key("escape") == MENU
    assert action_for_key("q") is None


# -- systemd notify ------------------------------------------------------------------------------
@pytest.fixture
def notify_socket(tmp_path):
    path = str(tmp_path / "notify.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(1)
    yield path, sock
    sock.close()


def test_notify_sends_datagrams_to_the_socket(notify_socket):
    path, sock = notify_socket
    assert notify("READY=1\nSTATUS=playing", {"NOTIFY_SOCKET": path})
    assert sock.recv(4096) == b"READY=1\nSTATUS=playing"


def test_notify_never_blocks_when_nobody_reads(notify_socket):
    path, sock = notify_socket
    started = time.monotonic()
    sent = [notify("WATCHDOG=1", {"NOTIFY_SOCKET": path}) for _ in range(5000)]
    assert time.monotonic() - started < 5
    assert sent[0] and not sent[-1]  # the queue filled up; the rest were dropped, not waited for


def test_notify_is_a_no_op_outside_systemd():
    assert notify("READY=1", {}) is False


def test_notify_abstract_socket():
    name = f"companion-test-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + name)
    sock.settimeout(1)
    try:
        assert notify("WATCHDOG=1", {"NOTIFY_SOCKET": "@" + name})
        assert sock.recv(100) == b"WATCHDOG=1"
    finally:
        sock.close()


def test_watchdog_pings_at_half_the_interval(notify_socket):
    path, sock = notify_socket
    clock = FakeClock()
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "10000000", "WATCHDOG_PID": str(os.getpid())}
    assert watchdog_interval(env) == 5.0
    dog = Watchdog(env, clock=clock)
    dog.ready("screen and camera up")
    assert sock.recv(100) == b"READY=1\nSTATUS=screen and camera up"
    clock.advance(4.0)
    assert not dog.ping()
    assert dog.due_in() == pytest.approx(1.0)
    clock.advance(1.0)
    assert dog.ping()
    assert sock.recv(100) == b"WATCHDOG=1"


def _read_all(sock):
    messages = []
    sock.settimeout(0.2)
    while True:
        try:
            messages.append(sock.recv(200).decode())
        except TimeoutError:
            return messages


def test_watchdog_sends_no_ping_while_the_last_one_is_unread(notify_socket):
    """A slow systemd (or a slow machine's long run) must not find its queue full of pings with
    STOPPING=1 dropped: 2,000 due pings nobody reads leave room for the state messages."""
    path, sock = notify_socket
    clock = FakeClock()
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "400000", "WATCHDOG_PID": str(os.getpid())}
    dog = Watchdog(env, clock=clock)
    assert dog.ready("up")
    sent = 0
    for _ in range(2000):  # more than any queue: net.unix.max_dgram_qlen is 10, or 512
        clock.advance(0.2)
        sent += dog.ping()
    assert sent == 1
    assert dog.stopping()
    assert _read_all(sock) == ["READY=1\nSTATUS=up", "WATCHDOG=1", "STOPPING=1"]


def test_watchdog_pings_again_once_systemd_read_the_last_ping(notify_socket):
    path, sock = notify_socket
    clock = FakeClock()
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": str(os.getpid())}
    dog = Watchdog(env, clock=clock)
    dog.ready()
    clock.advance(0.5)
    assert dog.ping()
    clock.advance(0.5)
    assert not dog.ping()  # unread
    assert _read_all(sock) == ["READY=1", "WATCHDOG=1"]
    assert dog.due_in() == pytest.approx(0.5)  # the skipped ping counts as one: not every frame
    clock.advance(0.5)
    assert dog.ping()
    assert _read_all(sock) == ["WATCHDOG=1"]
    dog.close()


def test_state_messages_wait_for_room_in_a_full_queue(notify_socket):
    """The queue is full (other services, a busy systemd): STOPPING=1 waits until systemd reads,
    instead of being dropped like a ping."""
    path, sock = notify_socket
    env = {"NOTIFY_SOCKET": path}
    filled = 0
    while notify("STATUS=filler", env):
        filled += 1
        assert filled < 10_000
    assert not notify("WATCHDOG=1", env)  # full: a ping is dropped, the caller not stalled
    received = []
    reader = threading.Timer(0.3, lambda: received.extend(_read_all(sock)))
    reader.start()
    started = time.monotonic()
    assert Watchdog(env, state_wait=5.0).stopping()
    assert 0.2 < time.monotonic() - started < 5
    reader.join()
    received += _read_all(sock)
    assert received.count("STATUS=filler") == filled
    assert received[-1] == "STOPPING=1"


def test_a_state_message_gives_up_after_its_wait(notify_socket):
    path, _sock = notify_socket
    env = {"NOTIFY_SOCKET": path}
    while notify("STATUS=filler", env):
        pass
    started = time.monotonic()
    assert not Watchdog(env, state_wait=0.3).status("nobody reads")
    assert 0.25 < time.monotonic() - started < 3


def test_watchdog_for_another_pid_is_ignored():
    assert watchdog_interval({"WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"}) is None
    assert Watchdog({}).due_in() == 3600.0
