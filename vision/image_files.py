"""Photos read from files, and what to say when one cannot be read.

OpenCV's decoders write their own complaints to the process's standard error ("libpng error:
Read Error" for a PNG cut short) before saying nothing more than "no image"; `read_photo`
decodes with that silenced and tells a damaged photo of a known kind (a PNG, a JPEG that was
cut short) from a file that is no photo at all, so the one line a player reads says which.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

# the first bytes of the image files OpenCV reads, and their names for a message
SIGNATURES = {
    b"\x89PNG\r\n\x1a\n": "PNG",
    b"\xff\xd8\xff": "JPEG",
    b"II*\x00": "TIFF",
    b"MM\x00*": "TIFF",
    b"BM": "BMP",
}


def image_kind(data: bytes) -> str | None:
    """The kind of image file `data` starts as ("PNG", "JPEG", ...), or None.

    >>> image_kind(b"\\x89PNG\\r\\n\\x1a\\n..."), image_kind(b"hello")
    ('PNG', None)
    """
    return next((kind for magic, kind in SIGNATURES.items() if data.startswith(magic)), None)


def read_photo(path: Path) -> tuple[np.ndarray | None, str | None]:
    """The photo in the file `path` as a BGR array (None when it does not decode), and the
    kind of image file it starts as (None: no image file OpenCV knows). Decoded with the
    decoders' own messages on standard error silenced.

    :raises OSError: the file cannot be read."""
    data = path.read_bytes()
    with _stderr_silenced():
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    if image is not None and image.size == 0:
        image = None
    return image, image_kind(data)


@contextlib.contextmanager
def _stderr_silenced() -> Iterator[None]:
    """File descriptor 2 sent to /dev/null for a moment (the C libraries write there)."""
    try:
        saved = os.dup(2)
    except OSError:  # no standard error at all: nothing to silence
        yield
        return
    try:
        sys.stderr.flush()
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
