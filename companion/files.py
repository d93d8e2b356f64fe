"""Writing a file whole or not at all: the one writer of every file the companion makes -
exports, saved positions, photos, calibrations, corners, the settings. A power cut on the Pi,
a full card or a killed process leaves the old file, never half of the new one.

It imports nothing but the errors, so the camera part (`vision`) writes through it too.
"""

from __future__ import annotations

import errno
import os
import secrets
from pathlib import Path

from companion.errors import UserError, write_problem


class WriteFailed(UserError):
    """A file could not be written: the message says why and what to do; `errno` is the
    system's reason (ENOSPC, EROFS, EIO ...), for a screen that says it in its own words."""

    def __init__(self, message: str, errno: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno


def write_atomically(
    path: str | os.PathLike[str], data: str | bytes, *, verb: str = "write"
) -> Path:
    """Write `data` (text as UTF-8 with \\n lines, or bytes) to `path` via a temporary file in
    the same folder, flushed to the disk, and a rename over the old file. The file gets the mode
    of any new file (0644 under umask 022), not a private 0600: an export or a photo is made to
    be opened by others (a viewer, a web server).

    :raises WriteFailed: (a UserError) "cannot {verb} PATH: why - what to do"; the old file,
        if any, is intact and no temporary file is left behind (where the disk can still be
        written: a USB stick pulled out mid-write cannot take the temporary file away).
    """
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, tmp = _temporary_beside(path)
    except OSError as exc:  # the folder's problem, said of the file the user named
        raise WriteFailed(f"cannot {verb} {path}: {write_problem(path, exc)}", exc.errno) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        _remove(tmp)
        raise WriteFailed(f"cannot {verb} {path}: {write_problem(path, exc)}", exc.errno) from None
    except BaseException:  # Ctrl-C or a signal mid-write: no half-written file left behind
        _remove(tmp)
        raise
    return path


def _temporary_beside(path: Path) -> tuple[int, str]:
    """A new file in `path`'s folder (``.NAME.xxxxxxxx.tmp``), open for writing: its mode is
    any new file's (0666 less the umask, which the kernel applies) - not mkstemp's 0600, and
    without reading the umask, which only setting it can do: a thread writing a stick's export
    beside one saving the settings could leave the process's umask at 0 (a review)."""
    for _ in range(100):
        name = path.parent / f".{path.name}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
        except FileExistsError:
            continue
        return fd, str(name)
    raise FileExistsError(errno.EEXIST, "no free name for a temporary file", str(path.parent))


def _remove(tmp: str) -> None:
    """The temporary file removed where that can be done: a disk that has gone (a USB stick
    pulled out) answers EIO, which must not hide why the write failed."""
    try:
        Path(tmp).unlink(missing_ok=True)
    except OSError:
        pass
