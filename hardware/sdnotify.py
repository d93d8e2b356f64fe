"""systemd's notify protocol (READY=1, WATCHDOG=1, STATUS=...), without a dependency.

Under `Type=notify` systemd passes `NOTIFY_SOCKET`, a Unix datagram socket path (a leading
"@" means the abstract namespace); each message is one datagram of `KEY=value` lines. With
`WatchdogSec=` it also passes `WATCHDOG_USEC` (and `WATCHDOG_PID`): the service must send
WATCHDOG=1 more often than that, or systemd restarts it. Outside systemd every call is a
cheap no-op, so the app calls these unconditionally.

The app pings from its main loop, not from a thread: a hung loop then stops the pings and the
watchdog restarts the companion, which is the point.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Mapping


def notify(message: str, environ: Mapping[str, str] | None = None) -> bool:
    """Send one notification; True when a systemd socket took it."""
    env = os.environ if environ is None else environ
    address = env.get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]
    elif not address.startswith("/"):
        return False  # vsock and other forms are not used on a Pi
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.setblocking(False)  # a busy systemd must never stall the app
            sock.connect(address)
            sock.sendall(message.encode("utf-8"))
        return True
    except OSError:  # no listener, or its queue is full (BlockingIOError)
        return False


def watchdog_interval(environ: Mapping[str, str] | None = None) -> float | None:
    """Seconds between pings (half of WatchdogSec), or None when no watchdog is asked for."""
    env = os.environ if environ is None else environ
    usec = env.get("WATCHDOG_USEC", "")
    pid = env.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid != str(os.getpid()):
        return None  # meant for another process
    return int(usec) / 1_000_000 / 2


class Watchdog:
    """READY once, then WATCHDOG=1 no more often than needed; `due_in()` tells the main loop
    how long it may block."""

    def __init__(
        self, environ: Mapping[str, str] | None = None, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.environ = os.environ if environ is None else environ
        self.clock = clock
        self.interval = watchdog_interval(self.environ)
        self._last_ping = clock()
        self.ready_sent = False

    def ready(self, status: str = "") -> None:
        """Tell systemd the companion is up (camera and screen open)."""
        message = "READY=1" + (f"\nSTATUS={status}" if status else "")
        notify(message, self.environ)
        self.ready_sent = True
        self._last_ping = self.clock()

    def status(self, text: str) -> None:
        notify(f"STATUS={text}", self.environ)

    def ping(self) -> bool:
        """Send WATCHDOG=1 if it is due; True when sent."""
        if self.interval is None or self.due_in() > 0:
            return False
        self._last_ping = self.clock()
        return notify("WATCHDOG=1", self.environ)

    def due_in(self) -> float:
        """Seconds until the next ping is due (a large number without a watchdog)."""
        if self.interval is None:
            return 3600.0
        return max(0.0, self._last_ping + self.interval - self.clock())

    def stopping(self) -> None:
        notify("STOPPING=1", self.environ)
