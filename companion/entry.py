"""The `companion` command's entry point: nothing but the standard library is imported before
Ctrl-C is caught, so an interrupt while the CLI and its libraries load (the first few tenths of
a second) ends with one line and exit code 130, like an interrupt later on.

From the moment this module is imported until `main` runs (the installer's wrapper script still
has a line to run in between), Ctrl-C exits at once with that line; `main` then turns it back
into Python's KeyboardInterrupt, which it catches while the CLI loads (and the CLI later on)."""

import os
import signal
import sys
from types import FrameType

INTERRUPTED = "companion: interrupted"


def _interrupted_before_main(signum: int, frame: FrameType | None) -> None:
    os.write(2, (INTERRUPTED + "\n").encode())
    os._exit(130)


if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not when ignored (nohup)
    signal.signal(signal.SIGINT, _interrupted_before_main)


def main() -> int:
    try:
        if signal.getsignal(signal.SIGINT) is _interrupted_before_main:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        from companion.cli import main as cli_main  # only now: Ctrl-C is caught from here on

        return cli_main()
    except KeyboardInterrupt:
        try:
            print(INTERRUPTED, file=sys.stderr)
        except KeyboardInterrupt:
            pass
        return 130
