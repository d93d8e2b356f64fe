"""Writing a file whole or not at all: the one writer of every file the companion makes -
exports, saved positions, photos, calibrations, corners, the settings. A power cut on the Pi,
a full card or a killed process leaves the old file, never half of the new one.

It imports nothing but the errors, so the camera part (`vision`) writes through it too.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from companion.errors import UserError, write_problem


def write_atomically(
    path: str | os.PathLike[str], data: str | bytes, *, verb: str = "write"
) -> Path:
    """Write `data` (text as UTF-8 with \\n lines, or bytes) to `path` via a temporary file in
    the same folder, flushed to the disk, and a rename over the old file. The file gets the mode
    of any new file (0644 under umask 022), not mkstemp's private 0600: an export or a photo is
    made to be opened by others (a viewer, a web server).

    :raises UserError: "cannot {verb} PATH: why - what to do"; the old file, if any, is intact
        and no temporary file is left behind.
    """
    path = Path(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:  # the folder's problem, said of the file the user named
        raise UserError(f"cannot {verb} {path}: {write_problem(path, exc)}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise UserError(f"cannot {verb} {path}: {write_problem(path, exc)}") from None
    except BaseException:  # Ctrl-C or a signal mid-write: no half-written file left behind
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
