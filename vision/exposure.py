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
    # (counted, not sorted: judged on every camera frame)
    brighter = int(np.count_nonzero(pixels > BLACK_LEVEL))
    return bool(pixels.size > 0 and brighter <= pixels.size * (100 - BRIGHTEST) // 100)


def block_means(image: np.ndarray) -> np.ndarray:
    """`image` shrunk to one grey level per BLOCK x BLOCK block: the mean of four of its
    pixels (every fourth of every fourth row) over their colours - twelve numbers, so the
    noise of single pixels is averaged out; taken so, in about a tenth of a millisecond at
    1280 x 720 (it runs on every camera frame; the mean of every pixel took 1.5 ms)."""
    height, width = image.shape[:2]
    step = BLOCK // 2
    sampled = cv2.resize(
        image,
        (max(1, width // step), max(1, height // step)),
        interpolation=cv2.INTER_NEAREST,
    )
    means = cv2.resize(
        sampled,
        (max(1, width // BLOCK), max(1, height // BLOCK)),
        interpolation=cv2.INTER_AREA,
    )
    return means.mean(axis=2) if means.ndim == 3 else means


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
