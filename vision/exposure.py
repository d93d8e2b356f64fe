"""Whether a picture shows anything at all: all but black (a covered lens, the light off, a
camera's glitch) or one flat colour. One rule for the still photos of `companion vision`
(`vision.location.nothing_to_read`) and for the tracker's frames (`is_black`).
"""

from __future__ import annotations

import cv2
import numpy as np

# The brightest part of what is looked at at most this (of 255): no light in it. A real chess
# photo darkened to 5 % is still read (its brightest squares about 11), so it is not black.
BLACK_LEVEL = 8
BRIGHTEST = 99  # the percentile taken as "the brightest part": a few hot pixels do not count
# Judged on the means of blocks this many pixels wide: a covered lens under a camera's turned-up
# gain is noise around black, single pixels up to 15 and more (a review), its blocks' means not
BLOCK = 8


def all_but_black(pixels: np.ndarray) -> bool:
    """Whether `pixels` (any shape; grey or colour levels 0-255) hold no light: their
    brightest part (the BRIGHTEST percentile) at most BLACK_LEVEL.

    >>> all_but_black(np.zeros((4, 4), np.uint8)), all_but_black(np.full((4, 4), 11, np.uint8))
    (True, False)
    """
    return pixels.size > 0 and float(np.percentile(pixels, BRIGHTEST)) <= BLACK_LEVEL


def block_means(image: np.ndarray) -> np.ndarray:
    """`image` shrunk to the means of its BLOCK x BLOCK blocks (the noise of single pixels
    averaged out)."""
    height, width = image.shape[:2]
    size = (max(1, width // BLOCK), max(1, height // BLOCK))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def is_black(frame: np.ndarray) -> bool:
    """A camera frame with no light in it (`all_but_black`, judged on its `block_means`: a
    covered lens, the light off, a camera's glitch - noisy under a turned-up gain). A dim
    room's frame whose board still shows is not black: the reader reads it.

    >>> rng = np.random.default_rng(1)
    >>> covered = np.clip(rng.normal(4, 5, (64, 64, 3)), 0, 255).astype(np.uint8)
    >>> dim = np.full((64, 64, 3), 6, np.uint8)
    >>> dim[8:40, 8:40] = 14  # a board, dimly lit
    >>> is_black(np.zeros((64, 64, 3), np.uint8)), is_black(covered), is_black(dim)
    (True, True, False)
    """
    return all_but_black(block_means(frame))
