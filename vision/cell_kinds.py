"""Which cells of a board look alike when empty: its kinds of cell.

A printed mat groups its cells by their print (a trap, a pit, the centre of Aranea's web); a
board of your own is one kind, or two when its empty cells show two colours by parity (a
checkered board). Each kind's colour relative to the first is learned from the calibration
photo (`learn_surface`). docs/vision.md, calibration 2.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from vision.cell_views import FOOTPRINT_RADIUS
from vision.layouts import Layout, cell_parity
from vision.mat import render_mat

PRINT_KIND_TOLERANCE = 0.08  # log colour: printed cells this alike are one kind
CHECKERED_CONTRAST = (
    0.15  # log-colour difference between the two parities that makes a board checkered
)


def parity(layout: Layout) -> np.ndarray:
    """0/1 for the two colours of a checkered board, cell by cell (`cell_parity`)."""
    return np.array([cell_parity(cell.name) for cell in layout.cells], np.int64)


@lru_cache(maxsize=16)
def cell_kinds(layout: Layout) -> tuple[np.ndarray, np.ndarray | None]:
    """Which cells look alike when empty, before any photo: (kind per cell, each kind's log
    colour relative to kind 0 as printed - None for a board of your own, whose print is not
    known). A printed mat's cells are grouped by their print round the centre (a trap, a pit,
    the centre of Aranea's web); a board of your own starts as one kind, and `learn_surface`
    splits it by parity when its empty cells show two colours (a checkered board)."""
    if not layout.has_markers:
        return np.zeros(len(layout.cells), np.int64), None
    scale = 2.0
    mat = render_mat(layout, px_per_mm=scale, labels=False).astype(np.float64)
    looks = []
    for cell in layout.cells:
        x, y = (int(round(v * scale)) for v in cell.center)
        r = max(1, int(cell.radius * scale * FOOTPRINT_RADIUS * 2))
        patch = mat[max(0, y - r) : y + r + 1, max(0, x - r) : x + r + 1].reshape(-1, 3)
        looks.append(np.log1p(np.median(patch, axis=0)))
    looks = np.array(looks)
    kinds = np.full(len(looks), -1, np.int64)
    reference: list[np.ndarray] = []
    for i, look in enumerate(looks):
        for k, ref in enumerate(reference):
            if np.abs(look - ref).max() < PRINT_KIND_TOLERANCE:
                kinds[i] = k
                break
        else:
            kinds[i] = len(reference)
            reference.append(look)
    printed = np.array(reference)
    return kinds, printed - printed[0]


def learn_surface(
    layout: Layout, ground: np.ndarray, empty: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every cell's kind and each kind's log colour relative to kind 0, as the photo shows the
    empty cells (a kind with no empty cell in the photo keeps its printed colour). A board of
    your own whose two parities differ in colour is checkered: two kinds."""
    kinds, printed = cell_kinds(layout)
    if printed is None:
        odd = parity(layout)
        zero, one = ground[empty & (odd == 0)], ground[empty & (odd == 1)]
        if len(zero) and len(one):
            contrast = np.median(one, axis=0) - np.median(zero, axis=0)
            if np.abs(contrast).max() > CHECKERED_CONTRAST:
                return odd, np.vstack([np.zeros(3), contrast])
        return kinds, np.zeros((1, 3))
    surface = printed.copy()
    base = ground[empty & (kinds == 0)]
    for k in range(1, len(printed)):
        own = ground[empty & (kinds == k)]
        if len(own) and len(base):
            surface[k] = np.median(own, axis=0) - np.median(base, axis=0)
    return kinds, surface
