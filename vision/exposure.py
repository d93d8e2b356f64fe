"""Whether a picture shows anything at all: all but black (a covered lens, the light off, a
camera's glitch) or one flat colour. One rule for the still photos of `companion vision`
(`vision.location.nothing_to_read`) and for the tracker's frames (`is_black`).
"""

from __future__ import annotations

import numpy as np

# The brightest part of what is looked at at most this (of 255): no light in it. A real chess
# photo darkened to 5 % is still read (its brightest squares about 11), so it is not black.
BLACK_LEVEL = 8
BRIGHTEST = 99  # the percentile taken as "the brightest part": a few hot pixels do not count


def all_but_black(pixels: np.ndarray) -> bool:
    """Whether `pixels` (any shape; grey or colour levels 0-255) hold no light: their
    brightest part (the BRIGHTEST percentile) at most BLACK_LEVEL.

    >>> all_but_black(np.zeros((4, 4), np.uint8)), all_but_black(np.full((4, 4), 11, np.uint8))
    (True, False)
    """
    return pixels.size > 0 and float(np.percentile(pixels, BRIGHTEST)) <= BLACK_LEVEL


def is_black(frame: np.ndarray) -> bool:
    """A camera frame with no light in it (`all_but_black`, judged on every 8th pixel of
    every 8th row: a covered lens, the light off, a camera's glitch). A dim room's frame
    whose board still shows is not black: the reader reads it.

    >>> dim = np.full((64, 64, 3), 6, np.uint8)
    >>> dim[8:40, 8:40] = 14  # a board, dimly lit
    >>> is_black(np.zeros((64, 64, 3), np.uint8)), is_black(dim)
    (True, False)
    """
    return all_but_black(frame[::8, ::8])
