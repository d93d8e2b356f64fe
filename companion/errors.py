"""Errors a user can cause. The CLI prints their message on one line, never a traceback.

Every message names what is wrong and, where it helps, what to do about it.
"""

import errno
import json
import os
import re


class CompanionError(Exception):
    """The root of every error the companion raises on purpose (a bare Exception elsewhere is a
    bug). Library code raises the most specific class below; each that means a bad value also
    derives from the matching builtin, so ``except ValueError`` works as with any library."""


class UserError(CompanionError):
    """Bad input from a person or a file: the CLI prints the message as is, on one line."""


class NotationError(UserError, ValueError):
    """Move or position text that cannot be read (unknown square, bad token, ...)."""


class IllegalMoveError(UserError, ValueError):
    """A well-formed move that the rules do not allow in this position."""


class OptionError(UserError, ValueError):
    """An unknown game option or a value the option does not take."""


class RecordError(UserError, ValueError):
    """A game record (JSON, move list, database) that is malformed or from a newer version."""


class RecordsInUse(RecordError):
    """Another companion holds the records file's writer lock: the file is sound, and usable
    once that one stops."""


class RecordsDamaged(RecordError):
    """The records file is damaged where SQLite had to read it (a bad sector, a copy cut short
    and patched): what was being done could not be; other parts of the file may still read."""


class ReplayError(RecordError):
    """A stored game whose moves its engine does not replay to the stored positions (a file
    edited by hand, two programs writing one game, rules changed since): the records file is
    sound, this game cannot be continued from its moves. `ply`: the first move that does not
    replay (0: the start position cannot be read; None: not known)."""

    def __init__(self, message: str, ply: int | None = None) -> None:
        super().__init__(message)
        self.ply = ply


class UnknownGame(UserError, LookupError):
    """A game name that is not in the registry (`companion.games.get`)."""


class NoPrintedMat(UserError, LookupError):
    """Game options that no printed mat fits (`Position.mat_layout`): the message names the
    mats there are and suggests ``--layout grid:RxC``."""


class VisionError(UserError):
    """What the camera side cannot do with a photo or a frame; `vision/` derives from it."""


class BoardNotFound(VisionError, LookupError):
    """No board (markers, outline) in a photo; `vision.find.BoardNotFound` (no grid found,
    with the reason on its own) derives from it."""


class ColoursSwapped(VisionError, ValueError):
    """A chess set's position learned on a grid the companion found, with the pieces it calls
    white darker than those it calls black: the board found turned round, most likely."""


class PositionMismatch(VisionError, ValueError):
    """A calibration photo that does not show the position it was said to show. `cells` names
    the cells that look otherwise, so a screen can mark them instead of listing them."""

    def __init__(self, message: str, cells: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.cells = tuple(cells)


class EmptyPhotoNotEmpty(PositionMismatch):
    """A photo said to show the board empty (the setup screen's Empty board, `--empty`) that
    shows a piece where the calibration photo shows the board empty: taken with pieces still
    on the board, or of another board. `cells` names them; the calibration without the photo
    says what it would learn (the caller's choice: the front ends calibrate again without)."""


EXCERPT_CHARS = 60


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """At most `limit` characters of some input, on one line, for quoting it in a message
    (a 60 MB file quoted whole would bury the message)."""
    text = " ".join(str(text)[: limit * 4].split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def json_problem(exc: ValueError) -> str:
    """Why `json.loads` refused a text, in words: where the JSON breaks, or the number too long
    for Python (more than 4300 digits) that it holds."""
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON at line {exc.lineno} column {exc.colno}"
    return "it holds a number with too many digits (more than 4300)"


def shorten_quotes(message: str, limit: int = EXCERPT_CHARS) -> str:
    """`message` with every long quoted piece of input (and any very long word) cut to an
    excerpt: the CLI's last guard, whatever a message quotes. A quote opens where no letter
    stands before it and closes where none follows, so the words between two quoted pieces,
    or an apostrophe, are never taken for one:

    >>> shorten_quotes("unknown option 'foo'; known: " + "seed, " * 20 + "the board's")
    "unknown option 'foo'; known: seed, seed, seed, seed, seed, seed, seed, seed, seed, seed, seed, seed, seed, seed, seed, seed, seed, seed, seed, seed, the board's"
    >>> shorten_quotes("bad move '" + "x" * 100 + "'")
    "bad move 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"
    >>> len(shorten_quotes("unknown input " + repr('x"' + " y" * 500 + "'s")))
    76
    """

    def cut(match: re.Match[str]) -> str:
        text = match.group(0)
        quote = text[0] if text[0] in "'\"" and text[-1] == text[0] else ""
        inner = text[1:-1] if quote else text
        return f"{quote}{inner[: limit - 3]}...{quote}"

    # (a backslash escape - repr's \' inside a quote - goes on with the quoted piece)
    pattern = (
        rf"(?<!\w)'(?:[^'\\\n]|\\.){{{limit + 1},}}'(?!\w)"
        rf"|(?<!\w)\"(?:[^\"\\\n]|\\.){{{limit + 1},}}\"(?!\w)"
        rf"|\S{{{2 * limit + 1},}}"
    )
    return re.sub(pattern, cut, message)


def read_problem(exc: OSError) -> str:
    """Why a file could not be read, and what to do: the words after "cannot read PATH: ".

    >>> read_problem(NotADirectoryError(errno.ENOTDIR, "Not a directory"))
    'Not a directory (a part of the path is a file, not a folder) - check the path'
    """
    reason = exc.strerror or str(exc)
    if exc.errno == errno.ENOTDIR:
        return f"{reason} (a part of the path is a file, not a folder) - check the path"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"{reason} - give a file you can read, or read it as a user who may"
    if exc.errno == errno.ENAMETOOLONG:
        return f"{reason} - give a shorter name"
    if exc.errno == errno.EISDIR:
        return f"{reason} - give a file, not a folder"
    return f"{reason} - check the path"


def write_problem(path: str | os.PathLike[str], exc: OSError) -> str:
    """Why `path` could not be written, and what to do: the words after "cannot write PATH: ".
    The system's own words mislead where a new file cannot be made - /proc answers "No such
    file or directory" of a folder that is there - so they are said otherwise there."""
    folder = os.path.dirname(os.fspath(path)) or "."
    if exc.errno == errno.ENOENT:
        if not os.path.isdir(folder):
            return f"there is no folder {folder} - make it first, or give another path"
        return f"the folder {folder} takes no new files - give a path in a folder you can write to"
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{reason} - give a path in a folder you can write to"
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"{reason} - make room there, or give a path on another disk"
    if exc.errno == errno.ENAMETOOLONG:
        return f"{reason} - give a shorter name"
    return reason
