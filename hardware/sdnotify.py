"""systemd's notify protocol (READY=1, WATCHDOG=1, STATUS=...), without a dependency.

Under `Type=notify` systemd passes `NOTIFY_SOCKET`, a Unix datagram socket path (a leading
"@" means the abstract namespace); each message is one datagram of `KEY=value` lines. With
`WatchdogSec=` it also passes `WATCHDOG_USEC` (and `WATCHDOG_PID`): the service must send
WATCHDOG=1 more often than that, or systemd restarts it. Outside systemd every call is a
cheap no-op, so the app calls these unconditionally.

The app pings from its main loop, not from a thread: a hung loop then stops the pings and the
watchdog restarts the companion, which is the point.

The socket's queue is short (10 datagrams where nothing raised net.unix.max_dgram_qlen, and
shared by every service), and a slow or busy systemd reads it late. So the state messages
(READY=1, STOPPING=1, STATUS=) wait a few seconds for room instead of being dropped, and a
ping is sent only once systemd has read the previous one: a ping still in the queue says
"alive" when it is read, a second one behind it adds nothing and would take a state message's
place.
"""

from __future__ import annotations

import fcntl
import os
import socket
import struct
import termios
import time
from collections.abc import Callable, Mapping

STATE_WAIT = 5.0  # seconds a state message waits for room in a full queue


def _address(env: Mapping[str, str]) -> str | None:
    address = env.get("NOTIFY_SOCKET", "")
    if address.startswith("@"):
        return "\0" + address[1:]
    if address.startswith("/"):
        return address
    return None  # unset, or vsock and other forms that are not used on a Pi


def _connect(address: str) -> socket.socket | None:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
    try:
        sock.connect(address)
    except OSError:
        sock.close()
        return None
    return sock


def _send(sock: socket.socket, data: bytes, wait: float) -> bool:
    """One datagram; with a full queue, wait up to `wait` seconds for room (0: do not wait)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            sock.send(data, socket.MSG_DONTWAIT)
            return True
        except BlockingIOError:  # the queue is full: systemd has not read it yet
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)
        except OSError:  # no listener any more
            return False


def notify(message: str, environ: Mapping[str, str] | None = None, wait: float = 0.0) -> bool:
    """Send one notification; True when a systemd socket took it. With a full queue it waits
    up to `wait` seconds for room (the default, 0, never stalls the caller)."""
    env = os.environ if environ is None else environ
    address = _address(env)
    if address is None:
        return False
    sock = _connect(address)
    if sock is None:
        return False
    with sock:
        return _send(sock, message.encode("utf-8"), wait)


def _unread_bytes(sock: socket.socket) -> int:
    """What this socket sent that the receiver has not read yet (SIOCOUTQ); 0 if unknown."""
    try:
        return struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0]
    except OSError:
        return 0


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
    how long it may block. State messages wait for room in the queue (up to `state_wait`
    seconds); pings go through a socket of their own, so the watchdog can see whether systemd
    has read the last one."""

    def __init__(
        self,
        environ: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
        state_wait: float = STATE_WAIT,
    ) -> None:
        self.environ = os.environ if environ is None else environ
        self.clock = clock
        self.state_wait = state_wait
        self.interval = watchdog_interval(self.environ)
        self._last_ping = clock()
        self._ping_socket: socket.socket | None = None
        self.ready_sent = False

    def ready(self, status: str = "") -> bool:
        """Tell systemd the companion is up (camera and screen open)."""
        message = "READY=1" + (f"\nSTATUS={status}" if status else "")
        sent = notify(message, self.environ, wait=self.state_wait)
        self.ready_sent = True
        self._last_ping = self.clock()
        return sent

    def status(self, text: str) -> bool:
        return notify(f"STATUS={text}", self.environ, wait=self.state_wait)

    def ping(self) -> bool:
        """Send WATCHDOG=1 if it is due and systemd has read the last one; True when sent."""
        if self.interval is None or self.due_in() > 0:
            return False
        self._last_ping = self.clock()
        if self._ping_socket is not None and _unread_bytes(self._ping_socket) > 0:
            return False  # the last ping is still queued: it tells systemd enough when read
        if self._ping_socket is None:
            address = _address(self.environ)
            self._ping_socket = _connect(address) if address else None
            if self._ping_socket is None:
                return False
        if _send(self._ping_socket, b"WATCHDOG=1", wait=0.0):
            return True
        self.close()  # a full queue or a vanished listener: a fresh socket next time
        return False

    def due_in(self) -> float:
        """Seconds until the next ping is due (a large number without a watchdog)."""
        if self.interval is None:
            return 3600.0
        return max(0.0, self._last_ping + self.interval - self.clock())

    def stopping(self) -> bool:
        sent = notify("STOPPING=1", self.environ, wait=self.state_wait)
        self.close()
        return sent

    def close(self) -> None:
        if self._ping_socket is not None:
            self._ping_socket.close()
            self._ping_socket = None
