"""Sub-commands of `companion`; one module each, found by `companion.cli` (see there)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

SEED_MAX = 2**32 - 1  # numpy's generators take 0..SEED_MAX (as sim:LAYOUT?seed=N does)
# How the player runs `companion`, for the commands a line suggests: `./dev` sets it to its
# own "./dev companion" (the venv's `companion` is not on their PATH); else "companion".
COMMAND_ENV = "COMPANION_COMMAND"


def command_name() -> str:
    """`companion` as the player types it: "./dev companion" when run through ./dev."""
    return os.environ.get(COMMAND_ENV) or "companion"


def as_typed(text: str) -> str:
    """`text` with each command it suggests (`companion ...`, in backquotes) as the player
    types it: through ./dev, "./dev companion ..." (`command_name`). Every line the commands
    print that names another command goes through here (errors included, in `companion.cli`).

        >>> import os
        >>> os.environ[COMMAND_ENV] = "./dev companion"
        >>> as_typed("list them with `companion games`")
        'list them with `./dev companion games`'
        >>> del os.environ[COMMAND_ENV]
        >>> as_typed("list them with `companion games`")
        'list them with `companion games`'
    """
    name = command_name()
    return text if name == "companion" else text.replace("`companion ", f"`{name} ")


def silence_stdout() -> None:
    """Standard output to /dev/null once it was closed (`| head`): nothing more to write
    there, nor to flush at exit."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):  # no file under it (io.UnsupportedOperation is both)
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for as long as the process runs
        return
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, fd)
    os.close(null)


def say_on_stderr(text: str) -> None:
    """`text` on standard error, if it can still be written (`2>&1 | head`: it was standard
    output too, and is closed)."""
    try:
        print(text, file=sys.stderr)
    except OSError:
        pass


def seed_number(text: str) -> int:
    """The argparse type of every command's ``--seed``: a whole number from 0 to `SEED_MAX`,
    in the words of the ``sim:LAYOUT?seed=N`` check. (numpy refuses a negative seed, and
    `random` would play -N as N.)

        >>> seed_number("7")
        7
        >>> seed_number("-1")
        Traceback (most recent call last):
        argparse.ArgumentTypeError: '-1' must be a whole number from 0 to 4294967295
    """
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"{text!r} must be a whole number from 0 to {SEED_MAX}")
    return value


def not_empty(what: str) -> Callable[[str], str]:
    """An argparse type that refuses an empty (or blank) argument with "an empty `what`": a
    shell variable that was not set (``--save "$F"``) names no file, and must not be taken for
    the current folder or for no file at all.

        >>> not_empty("file name: name the file to save to")(" ")
        Traceback (most recent call last):
        argparse.ArgumentTypeError: an empty file name: name the file to save to
    """

    def check(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"an empty {what}")
        return text

    return check


def lines_not_taken(source: str, numbers: list[int]) -> str:
    """The lines of `source` (a file, or standard input) a command did not take, each said
    when it came: the first words of the error that ends the run with exit status 2.

        >>> lines_not_taken("standard input", [3])
        '1 line of standard input was not taken (line 3, said above)'
        >>> lines_not_taken("moves.txt", [2, 5, 9])
        '3 lines of moves.txt were not taken (lines 2, 5 and 9, said above)'
    """
    count = len(numbers)
    shown = [str(n) for n in numbers[:10]] + ([f"{count - 10} more"] if count > 10 else [])
    if count == 1:
        return f"1 line of {source} was not taken (line {shown[0]}, said above)"
    listed = f"{', '.join(shown[:-1])} and {shown[-1]}"
    return f"{count} lines of {source} were not taken (lines {listed}, said above)"
