"""The physical boards of the four games as plain data, in millimetres.

One description of each board serves everyone who draws or looks at it: the printable mat and
the camera (`vision/`), the touchscreen (`display/`) and the SVG diagrams of game records. It
is pure Python (no OpenCV, no numpy) so the core can use it anywhere.

Frame: origin at the top-left corner of the board, x to the right, y down, millimetres, with
the first player's side at the bottom (so ``a1`` is the bottom-left cell of a grid board).

Every cell is a `CellShape`: its name as the rules engines spell it (rules.md), its centre, the
radius of the largest circle that fits inside it (pieces are about 0.8 of that), and its
outline as a polygon. Board decoration that is not a cell - Arimaa's traps, the pits of
Sensei's Storm side, Aranea's ring circles - is a `Mark`.

    >>> from companion.geometry import board_geometry
    >>> g = board_geometry("arimaa")
    >>> g.cell("a1").center
    (15.0, 225.0)
    >>> [m.cell for m in g.marks if m.kind == "trap"]
    ['c3', 'f3', 'c6', 'f6']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from companion import games
from companion.errors import UserError

Point = tuple[float, float]

# Cell sizes (mm). A board prints at this size on a large enough sheet; everything that looks at
# it through a camera is scale-free, so a mat printed smaller works just as well.
GRID_PITCH = 30.0  # an 8x8 Arinama or Arimaa board is 240 mm wide
ARINAMA_BOARD_SIZE = 240.0  # Arinama boards of any size fit this width, cells at most 40 mm
ARINAMA_MAX_PITCH = 40.0
SENSEI_PITCH = 34.0
ARIMAA_TRAPS = ("c3", "f3", "c6", "f6")
SENSEI_PITS = ("c3", "e3", "c5", "e5")  # the Decision of rules.md section 4 (Storm side)

# Aranea's web (rules.md section 3): three rings of 12 squares around a 3 x 4 centre.
# ARANEA_CENTRE[row][col] is the number of the centre square in that row (top first) and column
# (left first). It is the one table (the Decision "numbered row by row"; the rules engine reads it
# as `companion.games.aranea.CENTRE_LAYOUT`): change it here and the rules, the diagrams, the mat
# and the camera follow.
ARANEA_CENTRE: tuple[tuple[int, ...], ...] = ((1, 2, 3, 4), (5, 6, 7, 8), (9, 10, 11, 12))
ARANEA_RINGS = 3
ARANEA_SECTORS = 12
ARANEA_CENTRE_PITCH = 20.0  # a centre square
ARANEA_RING_WIDTH = 26.0
ARANEA_INNER_RADIUS = 54.0  # inner edge of ring 3; the centre block's corners lie inside it
ARANEA_BORDER = 3.0  # paper between the outer ring and the board's edge
ARC_SEGMENTS = 8  # straight segments per 30-degree arc in the sector polygons


@dataclass(frozen=True)
class CellShape:
    """One cell: `radius` is that of the largest circle inside it around `center`."""

    name: str
    center: Point
    radius: float
    polygon: tuple[Point, ...]


@dataclass(frozen=True)
class Mark:
    """Board decoration: kind "trap" / "pit" (on `cell`), "ring" (a circle of the web, `cell`
    None, the polygon approximates the circle) or "centre" (the outline of Aranea's centre)."""

    kind: str
    cell: str | None
    polygon: tuple[Point, ...]


@dataclass(frozen=True)
class BoardGeometry:
    game: str
    width: float
    height: float
    cells: tuple[CellShape, ...]
    marks: tuple[Mark, ...] = ()

    def cell(self, name: str) -> CellShape:
        """The cell called `name`; UserError naming the board's cells when there is none."""
        for shape in self.cells:
            if shape.name == name:
                return shape
        first, last = self.cells[0].name, self.cells[-1].name
        raise UserError(f"no cell {name!r} on the {self.game} board (cells are {first}..{last})")

    def cell_names(self) -> list[str]:
        return [c.name for c in self.cells]

    def translated(self, dx: float, dy: float) -> BoardGeometry:
        """The same board moved by (dx, dy): e.g. into the frame of a printed mat."""

        def move(points: tuple[Point, ...]) -> tuple[Point, ...]:
            return tuple((x + dx, y + dy) for x, y in points)

        cells = tuple(
            CellShape(c.name, (c.center[0] + dx, c.center[1] + dy), c.radius, move(c.polygon))
            for c in self.cells
        )
        marks = tuple(Mark(m.kind, m.cell, move(m.polygon)) for m in self.marks)
        return BoardGeometry(self.game, self.width, self.height, cells, marks)


def board_geometry(game: str, options: Any = None) -> BoardGeometry:
    """The board of `game` ("arinama", "arimaa", "aranea", "sensei").

    `options` is the game's Options dataclass, a plain dict (JSON / CLI, dashes allowed) or
    None for the defaults. Only what changes the board is read: Arinama `rows`/`cols`, Sensei
    `side` ("plain" / "storm") and `pits`.
    """
    return games.get(game).board_geometry(options)


def arinama_geometry(options: Any = None) -> BoardGeometry:
    """An Arinama board of `rows` x `cols` (3..12 each) in the same overall width."""
    rows = _int_option(options, "rows", 8)
    cols = _int_option(options, "cols", 8)
    if not (3 <= rows <= 12 and 3 <= cols <= 12):
        raise UserError(f"an Arinama board has 3..12 rows and columns, not {rows}x{cols}")
    pitch = min(ARINAMA_MAX_PITCH, ARINAMA_BOARD_SIZE / max(rows, cols))
    return grid_geometry(rows, cols, pitch, game="arinama")


def arimaa_geometry() -> BoardGeometry:
    """The 8 x 8 Arimaa board with its four traps."""
    board = grid_geometry(8, 8, GRID_PITCH, game="arimaa")
    return _with_marks(board, "trap", ARIMAA_TRAPS)


def sensei_geometry(options: Any = None) -> BoardGeometry:
    """Sensei's 7 x 7 board; the Storm side (option `side`) with its `pits` marked."""
    board = grid_geometry(7, 7, SENSEI_PITCH, game="sensei")
    side = str(_option(options, "side", "plain"))
    if side not in ("plain", "storm"):
        raise UserError(f'Sensei\'s board side is "plain" or "storm", not {side!r}')
    if side == "storm":
        pits = _option(options, "pits", SENSEI_PITS)
        if isinstance(pits, str):
            pits = pits.replace(",", " ").split()
        return _with_marks(board, "pit", tuple(pits))
    return board


def cell_name(file: int, rank: int) -> str:
    """Grid cell name from 0-based file (a..) and 1-based rank: cell_name(0, 1) == "a1"."""
    return f"{chr(ord('a') + file)}{rank}"


def grid_geometry(
    rows: int, cols: int, pitch: float = GRID_PITCH, game: str = "grid"
) -> BoardGeometry:
    """A rows x cols board of square cells, a1 at the bottom left, listed a1, b1, ... by rank."""
    if not (1 <= rows <= 26 and 1 <= cols <= 26):
        raise UserError(f"a grid board has 1..26 rows and columns, not {rows}x{cols}")
    cells = []
    for rank in range(1, rows + 1):
        top = (rows - rank) * pitch
        for file in range(cols):
            left = file * pitch
            polygon = (
                (left, top),
                (left + pitch, top),
                (left + pitch, top + pitch),
                (left, top + pitch),
            )
            center = (left + pitch / 2, top + pitch / 2)
            cells.append(CellShape(cell_name(file, rank), center, pitch / 2, polygon))
    return BoardGeometry(game, cols * pitch, rows * pitch, tuple(cells))


def aranea_geometry() -> BoardGeometry:
    """Aranea's web: rings r1 (outermost) .. r3 of 12 sectors, numbered clockwise like a clock
    face with 12 at the top (so equal numbers lie on one ray), around the 3 x 4 centre c1..c12
    (`ARANEA_CENTRE`). Cells are listed r1-1..r1-12, r2-1.., r3-1.., then c1..c12."""
    outer = ARANEA_INNER_RADIUS + ARANEA_RINGS * ARANEA_RING_WIDTH
    size = 2 * (outer + ARANEA_BORDER)
    cx = cy = size / 2
    cells: list[CellShape] = []
    for ring in range(1, ARANEA_RINGS + 1):
        r_out = outer - (ring - 1) * ARANEA_RING_WIDTH
        r_in = r_out - ARANEA_RING_WIDTH
        for number in range(1, ARANEA_SECTORS + 1):
            cells.append(_sector(f"r{ring}-{number}", cx, cy, r_in, r_out, number))
    rows, cols = len(ARANEA_CENTRE), len(ARANEA_CENTRE[0])
    pitch = ARANEA_CENTRE_PITCH
    left0, top0 = cx - cols * pitch / 2, cy - rows * pitch / 2
    centre: dict[int, CellShape] = {}
    for row, numbers in enumerate(ARANEA_CENTRE):
        for col, number in enumerate(numbers):
            left, top = left0 + col * pitch, top0 + row * pitch
            polygon = (
                (left, top),
                (left + pitch, top),
                (left + pitch, top + pitch),
                (left, top + pitch),
            )
            centre[number] = CellShape(
                f"c{number}", (left + pitch / 2, top + pitch / 2), pitch / 2, polygon
            )
    cells.extend(centre[n] for n in sorted(centre))
    marks = [Mark("ring", None, _circle(cx, cy, r)) for r in _ring_radii()]
    outline = (
        (left0, top0),
        (left0 + cols * pitch, top0),
        (left0 + cols * pitch, top0 + rows * pitch),
        (left0, top0 + rows * pitch),
    )
    marks.append(Mark("centre", None, outline))
    return BoardGeometry("aranea", size, size, tuple(cells), tuple(marks))


def _ring_radii() -> list[float]:
    return [ARANEA_INNER_RADIUS + k * ARANEA_RING_WIDTH for k in range(ARANEA_RINGS + 1)]


def _direction(angle_deg: float) -> Point:
    """Unit vector `angle_deg` clockwise from straight up, in the y-down frame."""
    a = math.radians(angle_deg)
    return (math.sin(a), -math.cos(a))


def _sector(name: str, cx: float, cy: float, r_in: float, r_out: float, number: int) -> CellShape:
    half = 180.0 / ARANEA_SECTORS
    mid = number * 360.0 / ARANEA_SECTORS
    angles = [mid - half + 2 * half * k / ARC_SEGMENTS for k in range(ARC_SEGMENTS + 1)]
    outer = [(cx + r_out * dx, cy + r_out * dy) for dx, dy in map(_direction, angles)]
    inner = [(cx + r_in * dx, cy + r_in * dy) for dx, dy in map(_direction, reversed(angles))]
    r_mid = (r_in + r_out) / 2
    dx, dy = _direction(mid)
    # Largest circle at mid-radius: limited by the ring's width and by the two radial edges.
    radius = min((r_out - r_in) / 2, r_mid * math.sin(math.radians(half)))
    polygon = tuple((round(x, 3), round(y, 3)) for x, y in outer + inner)
    return CellShape(
        name, (round(cx + r_mid * dx, 3), round(cy + r_mid * dy, 3)), round(radius, 3), polygon
    )


def _circle(cx: float, cy: float, r: float, segments: int = 96) -> tuple[Point, ...]:
    return tuple(
        (
            round(cx + r * math.cos(2 * math.pi * k / segments), 3),
            round(cy + r * math.sin(2 * math.pi * k / segments), 3),
        )
        for k in range(segments)
    )


def _with_marks(board: BoardGeometry, kind: str, cells: tuple[str, ...]) -> BoardGeometry:
    marks = tuple(Mark(kind, name, board.cell(name).polygon) for name in cells)
    return BoardGeometry(board.game, board.width, board.height, board.cells, board.marks + marks)


def _option(options: Any, name: str, default: Any) -> Any:
    if options is None:
        return default
    if isinstance(options, dict):
        for key in (name, name.replace("_", "-")):
            if key in options:
                return options[key]
        return default
    return getattr(options, name, default)


def _int_option(options: Any, name: str, default: int) -> int:
    value = _option(options, name, default)
    try:
        return int(value)
    except (TypeError, ValueError):
        raise UserError(f"board option {name!r} must be a whole number, not {value!r}") from None
