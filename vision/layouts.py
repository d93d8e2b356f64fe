"""Layouts: a board placed on a printable mat, with the ArUco markers that identify it.

A `Layout` is everything the camera needs to know about a physical board: the mat's size, its
four markers (DICT_4X4_50, outside the board's corners) and the cells, all in millimetres in the
*mat* frame (origin at the mat's top-left, x right, y down, the first player's side at the
bottom), plus the colour classes a cell can show ("empty" first).

Each built-in layout has marker ids of its own, so the camera alone tells which board - and
which side of Sensei's reversible board - lies on the table (`layout_for_markers`).

``grid:RxC`` (a lined board) and ``chessboard`` (8x8 checkered) are boards the players already
own, without markers: the camera finds their grid (`vision.find`) or takes four corners given
by hand, and their classes come from the calibration position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2

from companion.errors import UserError
from companion.geometry import GRID_PITCH, CellShape, Mark, board_geometry, grid_geometry
from companion.observation import EMPTY

# What each class looks like from above (BGR): how the synthetic table draws its pieces, and
# `vision calibrate --view` marks them. The camera sees colour only: an Arimaa elephant
# and rabbit of one side are the same gold disc.
CLASS_COLOURS: dict[str, tuple[int, int, int]] = {
    "black": (38, 36, 34),
    "white": (226, 228, 230),
    "amber": (30, 140, 230),
    "blue": (170, 90, 25),
    "green": (60, 145, 45),
    "red": (45, 40, 195),
    "gold": (40, 175, 215),
    "silver": (175, 172, 168),
}

MARKER_SIZE = 30.0  # mm, the black square including its one-module black border
MARKER_GAP = 6.0  # mm between a board corner and the nearest corner of its marker (diagonally)
QUIET_ZONE = 6.0  # mm of white around each marker (at least one module: 30 mm / 6 modules)
MAT_MARGIN = MARKER_GAP + MARKER_SIZE + QUIET_ZONE  # board edge to mat edge

STONE_CLASSES = {
    "arinama": ("black", "white"),
    "arimaa": ("gold", "silver"),
    "aranea": ("amber", "blue"),
    "sensei": ("green", "red", "green-character", "red-character"),
}

# The tallest piece of each board's equipment, in cell widths: how far it may hide the cells
# behind it from a camera at the side (`vision.occlusion`). A Staunton king is 95 mm tall on
# 57 mm squares; Arimaa sets are chess-like; a Sensei figure stands on its stone; Go stones
# and Othello discs are flat (a Go stone: 9 mm on a 22 mm point).
PIECE_HEIGHTS = {"arinama": 0.4, "arimaa": 1.7, "aranea": 0.4, "sensei": 1.0}
CHESS_PIECE_HEIGHT = 1.7  # the chessboard layout: a chess set
CHESS_SHORTEST_PIECE = 0.9  # ... and its shortest piece, a Staunton pawn (0.9 cell widths)
# The games whose pieces may be figures (chess-like pieces): Arimaa - its mat's own pieces are
# stones, but an Arimaa set's animals, or a chess set's figures, may stand on it as well. The
# others are played with stones - Sensei's character is a figurine standing on a stone, which
# is what its height above is.
FIGURE_GAMES = frozenset({"arimaa"})
STONE_HEIGHT = 0.4  # grid:RxC: stones or discs

# name -> (game, board options, first marker id). Ids are consecutive: TL, TR, BR, BL.
_BUILT_IN: dict[str, tuple[str, dict[str, Any], int]] = {
    "arinama5": ("arinama", {"rows": 5, "cols": 5}, 0),
    "arinama8": ("arinama", {"rows": 8, "cols": 8}, 4),
    "arimaa": ("arimaa", {}, 8),
    "aranea": ("aranea", {}, 12),
    "sensei": ("sensei", {"side": "plain"}, 16),
    "sensei-storm": ("sensei", {"side": "storm"}, 20),
}

_GRID = re.compile(r"^grid:(\d+)x(\d+)$")
CHESSBOARD = "chessboard"  # an 8x8 checkered board of your own (a chess set), no markers
# the layouts a player may name, as the message for an unknown one lists them
LAYOUT_CHOICES = f"{', '.join(_BUILT_IN)}, {CHESSBOARD} or grid:RxC (e.g. grid:9x9)"


def aruco_dictionary() -> cv2.aruco.Dictionary:
    """The mats' corner markers: ArUco's 4x4 dictionary of 50 (`MARKER_SIZE`, ids from
    `_BUILT_IN`), as `vision.mat` prints them and `vision.locate` finds them."""
    return cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)


@dataclass(frozen=True)
class Marker:
    """One ArUco marker: `corners` in mm in the mat frame, ArUco order TL, TR, BR, BL."""

    id: int
    corners: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Layout:
    name: str  # "arimaa", "sensei-storm", "grid:8x8", ...
    game: str  # "arinama", "arimaa", "aranea", "sensei" or "grid"
    size: tuple[float, float]  # mat width, height (mm); for grid:RxC the board itself
    markers: tuple[Marker, ...]  # empty for grid:RxC
    cells: tuple[CellShape, ...]  # in the mat frame
    classes: tuple[str, ...]  # "empty" first; grid:RxC: just "empty" (the calibration adds more)
    board_origin: tuple[float, float] = (0.0, 0.0)  # the board's top-left corner in the mat frame
    board_size: tuple[float, float] = (0.0, 0.0)  # the playing area (w, h) in mm
    marks: tuple[Mark, ...] = ()  # traps, pits, rings - in the mat frame
    surface: str = ""  # boards without markers: "checkered" (chessboard) or "lined" (grid:RxC)
    piece_height: float = 0.0  # cell widths: the tallest piece that stands on it (PIECE_HEIGHTS)

    @property
    def figures(self) -> bool:
        """Whether its pieces may be figures, of several shapes to a colour (a chess set on a
        `chessboard`, an Arimaa set on the Arimaa mat), rather than stones that all look alike
        but for their colour: the reader then assumes nothing that holds for stones alone
        (`vision.standing.classify_cells`, `vision.cell_features`). As with `piece_height`, the
        layout says what stands on it: a `grid:RxC` carries stones or discs."""
        return self.game in FIGURE_GAMES or self.name == CHESSBOARD

    @property
    def shortest_piece(self) -> float:
        """Cell widths: the lowest piece that may stand on it - a chess set's pawn on a
        `chessboard`; 0 where flat stones may stand (on the Arimaa mat too, beside an Arimaa
        set's animals). What a piece behind a taller one shows above it (`vision.occlusion`)."""
        return CHESS_SHORTEST_PIECE if self.name == CHESSBOARD else 0.0

    @property
    def has_markers(self) -> bool:
        return bool(self.markers)

    @property
    def pitch(self) -> float:
        """The board's step (mm): the smallest cell's width."""
        return 2.0 * min(c.radius for c in self.cells)

    def cell(self, name: str) -> CellShape:
        for shape in self.cells:
            if shape.name == name:
                return shape
        raise UserError(f"no cell {name!r} on layout {self.name}")

    def cell_names(self) -> list[str]:
        return [c.name for c in self.cells]

    def board_corners(self) -> tuple[tuple[float, float], ...]:
        """The playing area's corners TL, TR, BR, BL in the mat frame (what --corners names)."""
        x, y = self.board_origin
        w, h = self.board_size
        return ((x, y), (x + w, y), (x + w, y + h), (x, y + h))

    def marker_ids(self) -> tuple[int, ...]:
        return tuple(m.id for m in self.markers)

    def to_json(self) -> dict[str, Any]:
        """The geometry as `companion mat LAYOUT --layout-json` prints it (issue 4)."""
        return {
            "layout": self.name,
            "size": [_num(self.size[0]), _num(self.size[1])],
            "markers": [
                {"id": m.id, "corners": [[_num(x), _num(y)] for x, y in m.corners]}
                for m in self.markers
            ],
            "cells": [
                {
                    "name": c.name,
                    "center": [_num(c.center[0]), _num(c.center[1])],
                    "radius": _num(c.radius),
                    "polygon": [[_num(x), _num(y)] for x, y in c.polygon],
                }
                for c in self.cells
            ],
            "classes": list(self.classes),
        }


def cell_parity(name: str) -> int:
    """0 or 1: which of a checkered board's two colours a cell named by file letter and rank
    number has (a1: 1, dark as in chess); 0 for other names.

    >>> cell_parity("a1"), cell_parity("b1"), cell_parity("h8"), cell_parity("r1-3")
    (1, 0, 1, 0)
    """
    return (ord(name[0]) - ord("a") + int(name[1:])) % 2 if name[1:].isdigit() else 0


def _num(value: float) -> float | int:
    value = round(float(value), 3)
    return int(value) if value.is_integer() else value


def layout_names() -> list[str]:
    """The built-in layouts (``grid:RxC`` is accepted too, and ``auto`` by the CLI)."""
    return list(_BUILT_IN)


def get_layout(name: str) -> Layout:
    """A layout by name: one of `layout_names()` or ``grid:RxC`` (e.g. ``grid:9x9``).
    Layouts are immutable, so each is built once and shared.

    :raises UserError: an unknown name, or ``auto`` (not one layout), with the choices."""
    return _layout(name.strip().lower())


def layout_or_auto(name: str) -> Layout | None:
    """The layout a ``--layout`` that may be ``auto`` names; None for auto (the markers in
    view pick the mat).

    >>> layout_or_auto(" Auto ") is None, layout_or_auto("arimaa").name
    (True, 'arimaa')

    :raises UserError: an unknown name, with every choice, auto among them."""
    key = name.strip().lower()
    if key == "auto":
        return None
    if not _names_a_layout(key):
        raise UserError(
            f"unknown layout {name.strip()!r}: choose auto (the mat's markers tell) or one of "
            f"{LAYOUT_CHOICES}"
        )
    return _layout(key)  # (a grid of no size says so itself)


def _names_a_layout(key: str) -> bool:
    """Whether `key` (stripped, lower case) is a layout's name: a built-in mat, chessboard or
    grid:RxC (of any size: a grid of no size is said by `_layout`)."""
    return key in _BUILT_IN or key == CHESSBOARD or _GRID.match(key) is not None


@lru_cache(maxsize=64)
def _layout(key: str) -> Layout:
    grid = _GRID.match(key)
    if grid or key == CHESSBOARD:
        rows, cols = (int(grid.group(1)), int(grid.group(2))) if grid else (8, 8)
        board = grid_geometry(rows, cols, GRID_PITCH)
        return Layout(
            name=f"grid:{rows}x{cols}" if grid else CHESSBOARD,
            game="grid",
            size=(board.width, board.height),
            markers=(),
            cells=board.cells,
            classes=(EMPTY,),
            board_origin=(0.0, 0.0),
            board_size=(board.width, board.height),
            marks=board.marks,
            surface="lined" if grid else "checkered",
            piece_height=STONE_HEIGHT if grid else CHESS_PIECE_HEIGHT,
        )
    if key == "auto":  # the callers that take it ask `locate` to pick the mat in view
        raise UserError(
            f"auto is not one layout here (it lets a camera pick the mat in view by its "
            f"markers): choose one of {LAYOUT_CHOICES}"
        )
    if not _names_a_layout(key):
        raise UserError(f"unknown layout {key!r}: choose one of {LAYOUT_CHOICES}")
    game, options, first_id = _BUILT_IN[key]
    board = board_geometry(game, options).translated(MAT_MARGIN, MAT_MARGIN)
    width, height = board.width + 2 * MAT_MARGIN, board.height + 2 * MAT_MARGIN
    return Layout(
        name=key,
        game=game,
        size=(width, height),
        markers=_corner_markers(first_id, width, height),
        cells=board.cells,
        classes=(EMPTY, *STONE_CLASSES[game]),
        board_origin=(MAT_MARGIN, MAT_MARGIN),
        board_size=(board.width, board.height),
        marks=board.marks,
        piece_height=PIECE_HEIGHTS[game],
    )


def _corner_markers(first_id: int, width: float, height: float) -> tuple[Marker, ...]:
    """Four markers just outside the board's corners, ids first_id.. for TL, TR, BR, BL."""
    near, far_x, far_y = (
        QUIET_ZONE,
        width - QUIET_ZONE - MARKER_SIZE,
        height - QUIET_ZONE - MARKER_SIZE,
    )
    origins = ((near, near), (far_x, near), (far_x, far_y), (near, far_y))
    markers = []
    for offset, (x, y) in enumerate(origins):
        s = MARKER_SIZE
        markers.append(Marker(first_id + offset, ((x, y), (x + s, y), (x + s, y + s), (x, y + s))))
    return tuple(markers)


def layout_for_markers(ids: Any) -> Layout | None:
    """The built-in layout most of whose markers are among `ids` (for layout ``auto``).

    None when no marker of any layout is seen, or when two layouts are seen equally often (two
    mats in view): the caller says so rather than guessing.
    """
    seen = {int(i) for i in ids}
    counts = []
    for name in _BUILT_IN:
        layout = get_layout(name)
        hits = len(seen & set(layout.marker_ids()))
        if hits:
            counts.append((hits, layout))
    if not counts:
        return None
    counts.sort(key=lambda item: -item[0])
    if len(counts) > 1 and counts[0][0] == counts[1][0]:
        return None
    return counts[0][1]
