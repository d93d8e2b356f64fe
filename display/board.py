"""A diagram of the physical board: cells, marks, pieces and highlighted cells.

Drawn from `companion.geometry.board_geometry` (millimetres, first player at the bottom), the
same description the camera and the SVG export use, so all four boards - grids, Arimaa's traps,
Sensei's pits, Aranea's web - come out of one function. `BoardView` remembers where each cell
landed on the screen, for hit-testing and for tests that check a highlighted cell's pixels.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field

import pygame

from companion.geometry import BoardGeometry, CellShape
from companion.observation import EMPTY, UNKNOWN
from display import theme
from display.fonts import font
from display.theme import Colour

PIECE_SCALE = 0.78


@dataclass
class BoardView:
    """Where a board was drawn: mm -> px is `origin + scale * point`."""

    geometry: BoardGeometry
    rect: pygame.Rect
    scale: float = 1.0
    origin: tuple[float, float] = (0.0, 0.0)
    cell_polygons: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    piece_scale: float = PIECE_SCALE  # a piece's radius / its cell's inner radius

    def to_px(self, point: tuple[float, float]) -> tuple[int, int]:
        return (
            round(self.origin[0] + point[0] * self.scale),
            round(self.origin[1] + point[1] * self.scale),
        )

    def cell_center(self, name: str) -> tuple[int, int]:
        return self.to_px(self.geometry.cell(name).center)

    def cell_at(self, pos: tuple[int, int]) -> str | None:
        """The cell under a screen point, or None."""
        x = (pos[0] - self.origin[0]) / self.scale
        y = (pos[1] - self.origin[1]) / self.scale
        for cell in self.geometry.cells:
            if _inside((x, y), cell.polygon):
                return cell.name
        return None


def fit(geometry: BoardGeometry, rect: pygame.Rect, flip: bool = False) -> BoardView:
    """The largest scale at which the board fits `rect`, centred."""
    scale = min(rect.width / geometry.width, rect.height / geometry.height)
    ox = rect.left + (rect.width - geometry.width * scale) / 2
    oy = rect.top + (rect.height - geometry.height * scale) / 2
    return BoardView(geometry, pygame.Rect(rect), scale, (ox, oy))


def draw_board(
    surface: pygame.Surface,
    rect: pygame.Rect,
    geometry: BoardGeometry,
    cells: dict[str, str] | None = None,
    highlights: dict[str, str] | None = None,
    *,
    labels: bool = True,
    piece_labels: dict[str, str] | None = None,
) -> BoardView:
    """Draw the board inside `rect`; `cells` maps cell -> piece class (as `Position.cells()`
    or an Observation), `highlights` cell -> role (companion.referee.protocol), `piece_labels`
    cell -> a short text written on the piece (Arimaa's piece types: "E", "R")."""
    view = fit(geometry, rect)
    board_rect = pygame.Rect(
        round(view.origin[0]),
        round(view.origin[1]),
        round(geometry.width * view.scale),
        round(geometry.height * view.scale),
    )
    pygame.draw.rect(surface, theme.BOARD, board_rect, border_radius=max(2, round(view.scale * 3)))
    line = max(1, round(view.scale * 0.6))

    for mark in geometry.marks:
        points = [view.to_px(p) for p in mark.polygon]
        if len(points) < 3:
            continue
        if mark.kind == "trap":
            pygame.draw.polygon(surface, theme.TRAP, points)
        elif mark.kind == "pit":
            pygame.draw.polygon(surface, theme.PIT, points)
        elif mark.kind in ("ring", "centre"):
            pygame.draw.lines(surface, theme.BOARD_LINE, True, points, line)

    for cell in geometry.cells:
        points = [view.to_px(p) for p in cell.polygon]
        view.cell_polygons[cell.name] = points
        pygame.draw.polygon(surface, theme.BOARD_LINE, points, line)

    cells = cells or {}
    highlights = highlights or {}
    label_font = _label_font(view, squares=True) if labels else None
    sector_font = _label_font(view, squares=False) if labels else None
    if label_font is not None:
        view.piece_scale = _piece_scale_clear_of_labels(view, label_font)
    for name, role in highlights.items():
        if name in view.cell_polygons:
            _draw_highlight_under(surface, view, geometry.cell(name), role)
    for name, piece in cells.items():
        if name in view.cell_polygons and piece != EMPTY:
            _draw_piece(surface, view, geometry.cell(name), piece)
    for name, text in (piece_labels or {}).items():  # on an empty cell: what goes there
        if name in view.cell_polygons:
            _draw_piece_label(surface, view, geometry.cell(name), cells.get(name, EMPTY), text)
    for name, role in highlights.items():
        if name in view.cell_polygons:
            _draw_highlight_over(surface, view, geometry.cell(name), role)
    # in the corner the pieces leave free, over the highlights (a "put here" ring's dashes
    # hid the names of exactly the cells to play on); not over a piece
    occupied = {n for n, piece in cells.items() if piece != EMPTY}
    _draw_labels(surface, view, label_font, sector_font, under=occupied - set(highlights))
    return view


def _label_font(view: BoardView, squares: bool) -> pygame.font.Font | None:
    """The font of the names of the board's `squares` (a grid's cells, Aranea's centre), or of
    its web's sectors, each kind by its own smallest cell: None when those are too small to
    read them (Aranea's centre on a small screen, where its ring still has its names)."""
    cells = [c for c in view.geometry.cells if (len(c.polygon) == 4) == squares]
    if not cells:
        return None
    radius = min(c.radius for c in cells) * view.scale
    longest = max((c.name for c in cells), key=len)
    if squares:  # the name in a corner, the piece beside it (short names: in half the side)
        size = round(radius * 0.5)
        if size < 10 and len(cells) < len(view.geometry.cells):
            # a web's centre, small beside its sectors: as large as the longest name fits in
            # half a square's side (a grid of small squares keeps its pieces full size)
            size = round(radius * 0.8)
            while size >= 10 and font(size).size(longest)[0] > 0.9 * radius:
                size -= 1
        return font(size) if size >= 10 else None
    # A sector is wider than its inner circle: as large as its longest name fits across it
    size = round(radius * 0.8)
    while size >= 10 and font(size).size(longest)[0] > 1.6 * radius:
        size -= 1
    return font(size) if size >= 10 else None


def _label_inset(view: BoardView) -> int:
    return outline_width(view) // 2 + 2  # clear of a highlight's outline along the cell's edge


def _piece_scale_clear_of_labels(view: BoardView, f: pygame.font.Font) -> float:
    """Pieces on a grid drawn small enough to leave the name in each square's corner
    uncovered (a name half under a piece cannot be read); sectors of a web keep theirs."""
    squares = [c for c in view.geometry.cells if len(c.polygon) == 4]
    if not squares:
        return PIECE_SCALE
    widest = max(squares, key=lambda c: f.size(c.name)[0])
    w, h = _haloed(f, widest.name).get_size()
    half = min(c.radius for c in squares) * view.scale  # half a square's side, px
    inset = _label_inset(view)
    # The label's corner nearest the square's centre, from that centre.
    cx, cy = inset + w - half, inset - 1 + h - half
    clear = (min(0.0, cx) ** 2 + min(0.0, cy) ** 2) ** 0.5 - 2
    return max(0.5, min(PIECE_SCALE, clear / half))


def _draw_labels(
    surface: pygame.Surface,
    view: BoardView,
    square_font: pygame.font.Font | None,
    sector_font: pygame.font.Font | None,
    under: Collection[str] = (),
) -> None:
    """Cell names, small, in the corner of each cell (helps players match the instruction
    "turn d4" to the board), inside the highlight outlines and clear of the pieces; skipped
    where a kind of cell has no font (`_label_font`: too small to read them), and on the
    cells `under` a piece where the name would lie over it (Aranea's ring names below the
    centre, its small centre squares): its rim bit the stone, which matters more there. A
    highlighted cell keeps its name, over its piece - the instruction names it."""
    cells = view.geometry.cells
    inset = _label_inset(view)
    pits = {m.cell for m in view.geometry.marks if m.kind == "pit"}
    for cell in cells:
        f = square_font if len(cell.polygon) == 4 else sector_font
        if f is None:
            continue
        if cell.name in pits:
            image = _haloed(f, cell.name, ink=theme.CELL_LABEL_ON_PIT, rim=theme.BOARD_LINE)
        else:
            image = _haloed(f, cell.name)
        xs = [p[0] for p in view.cell_polygons[cell.name]]
        ys = [p[1] for p in view.cell_polygons[cell.name]]
        if len(cell.polygon) == 4:  # grid square: top-left corner
            pos = image.get_rect(topleft=(min(xs) + inset, min(ys) + inset - 1))
        else:  # web sector: below the centre
            cx, cy = view.cell_center(cell.name)
            pos = image.get_rect(center=(cx, cy + round(cell.radius * view.scale * 0.55)))
        if cell.name in under and _over_piece(pos, view, cell):
            continue
        surface.blit(image, pos)


def _over_piece(rect: pygame.Rect, view: BoardView, cell: CellShape) -> bool:
    """Whether `rect` (a name's) reaches into the piece drawn on `cell` (`_draw_piece`)."""
    cx, cy = view.to_px(cell.center)
    r = max(3, round(cell.radius * view.scale * view.piece_scale))
    nearest_x = min(max(cx, rect.left), rect.right)
    nearest_y = min(max(cy, rect.top), rect.bottom)
    return (nearest_x - cx) ** 2 + (nearest_y - cy) ** 2 < (r + 1) ** 2


def _haloed(
    f: pygame.font.Font,
    text: str,
    ink: theme.Colour = theme.CELL_LABEL,
    rim: theme.Colour = theme.BOARD,
) -> pygame.Surface:
    """Dark text with a thin rim of the board's colour: readable on the wood, on a highlight's
    tint and on a stone of any colour (on a dark pit the other way round: light on dark)."""
    ink_text = f.render(text, True, ink)
    rim_text = f.render(text, True, rim)
    image = pygame.Surface((ink_text.get_width() + 2, ink_text.get_height() + 2), pygame.SRCALPHA)
    for dx, dy in ((0, 1), (2, 1), (1, 0), (1, 2), (0, 0), (2, 2), (0, 2), (2, 0)):
        image.blit(rim_text, (dx, dy))
    image.blit(ink_text, (1, 1))
    return image


def outline_width(view: BoardView) -> int:
    """The width of a highlight's dark outline (the bright hue runs down its middle)."""
    return max(7, round(view.scale * 3.6))


def _draw_piece(surface: pygame.Surface, view: BoardView, cell: CellShape, piece: str) -> None:
    centre = view.to_px(cell.center)
    r = max(3, round(cell.radius * view.scale * view.piece_scale))
    if piece == UNKNOWN:
        pygame.draw.circle(surface, (140, 140, 140), centre, r, width=max(2, r // 5))
        image = font(max(10, r)).render("?", True, (80, 80, 80))
        surface.blit(image, image.get_rect(center=centre))
        return
    fill, rim = theme.PIECES.get(piece, theme.UNKNOWN_PIECE)
    pygame.draw.circle(
        surface, (0, 0, 0), (centre[0] + max(1, r // 10), centre[1] + max(1, r // 10)), r
    )
    pygame.draw.circle(surface, fill, centre, r)
    pygame.draw.circle(surface, rim, centre, r, width=max(2, r // 7))
    if piece.endswith("-character"):  # Sensei: a figurine stands on the stone
        head = max(2, r // 3)
        pygame.draw.circle(surface, (250, 246, 230), (centre[0], centre[1] - head // 2), head)
        pygame.draw.rect(
            surface,
            (250, 246, 230),
            pygame.Rect(centre[0] - head, centre[1], 2 * head, head),
            border_radius=head // 2,
        )


def _draw_piece_label(
    surface: pygame.Surface, view: BoardView, cell: CellShape, piece: str, text: str
) -> None:
    """A piece's type on it, big and bold, dark on a light piece and light on a dark one (on
    an empty cell: the piece that goes there, dark on the board)."""
    fill = theme.BOARD if piece == EMPTY else theme.PIECES.get(piece, theme.UNKNOWN_PIECE)[0]
    light = 0.299 * fill[0] + 0.587 * fill[1] + 0.114 * fill[2] > 140
    colour = (20, 20, 20) if light else (250, 250, 250)
    r = max(3, round(cell.radius * view.scale * view.piece_scale))
    image = font(max(10, round(r * 1.3))).render(text, True, colour)
    surface.blit(image, image.get_rect(center=view.to_px(cell.center)))


def _draw_highlight_under(
    surface: pygame.Surface, view: BoardView, cell: CellShape, role: str
) -> None:
    """The tinted, patterned fill of a highlighted cell (under the piece)."""
    style = theme.HIGHLIGHTS.get(role)
    if style is None:
        return
    points = view.cell_polygons[cell.name]
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    box = pygame.Rect(min(xs), min(ys), max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)
    layer = pygame.Surface(box.size, pygame.SRCALPHA)
    local = [(x - box.left, y - box.top) for x, y in points]
    # A light tint: "target" may mark most of the board (every legal cell), so it stays faint.
    faint = style.pattern in ("ring", "circle")
    pygame.draw.polygon(layer, (*style.colour, 55 if faint else 110), local)
    stroke = max(2, round(view.scale * 1.6))
    if style.pattern == "stripes":  # dark-edged stripes: visible on the wood
        step = max(8, round(view.scale * 7))
        for k in range(-box.height, box.width, step):
            a, b = (k, box.height), (k + box.height, 0)
            pygame.draw.line(layer, (*style.outline, 255), a, b, stroke + 2)
            pygame.draw.line(layer, (*style.colour, 255), a, b, max(1, stroke - 1))
    elif style.pattern == "dots":
        step = max(8, round(view.scale * 7))
        for y in range(step // 2, box.height, step):
            for x in range(step // 2, box.width, step):
                pygame.draw.circle(layer, (*style.outline, 255), (x, y), max(2, stroke) + 1)
                pygame.draw.circle(layer, (*style.colour, 255), (x, y), max(1, stroke - 1))
    # clip the pattern to the cell's outline
    mask = pygame.Surface(box.size, pygame.SRCALPHA)
    pygame.draw.polygon(mask, (255, 255, 255, 255), local)
    layer.blit(mask, (0, 0), special_flags=pygame.BLEND_RGBA_MIN)
    surface.blit(layer, box)


def _draw_highlight_over(
    surface: pygame.Surface, view: BoardView, cell: CellShape, role: str
) -> None:
    """The outline/cross/ring of a highlight (over the piece, so it is never hidden): every
    stroke twice, wide in the hue's dark shade and narrower in the hue itself, so it stands out
    on the light wood and on dark and light pieces alike."""
    style = theme.HIGHLIGHTS.get(role)
    if style is None:
        return
    points = view.cell_polygons[cell.name]
    dark_w = outline_width(view)
    width = max(3, dark_w * 2 // 5)
    centre = view.to_px(cell.center)
    r = max(4, round(cell.radius * view.scale))

    def outline(colour: Colour, w: int) -> None:
        pygame.draw.polygon(surface, colour, points, w)
        for point in points:  # round the joints: no notches at the corners
            pygame.draw.circle(surface, colour, point, max(1, w // 2 - 1))

    if style.pattern in ("outline", "stripes", "dots"):
        outline(style.outline, dark_w)
        outline(style.colour, width)
    elif style.pattern == "dotted":
        dash = dark_w * 2
        _dashed_polygon(surface, style.outline, points, dark_w, dash=dash, gap=dash)
        _dashed_polygon(
            surface, style.colour, points, width, dash=dash - (dark_w - width), gap=dash
        )
    elif style.pattern == "ring":
        ring = round(r * 0.9)
        _dashed_circle(surface, style.outline, centre, ring + (dark_w - width) // 2, dark_w)
        _dashed_circle(surface, style.colour, centre, ring, width)
        pygame.draw.polygon(surface, style.outline, points, max(2, width // 2 + 1))
    elif style.pattern == "circle":  # whole, where "ring" is dashed
        ring = round(r * 0.9)
        pygame.draw.circle(surface, style.outline, centre, ring + (dark_w - width) // 2, dark_w)
        pygame.draw.circle(surface, style.colour, centre, ring, width)
        pygame.draw.polygon(surface, style.outline, points, max(2, width // 2 + 1))
    elif style.pattern == "double":  # two outlines, one inside the other
        outline(style.outline, dark_w)
        outline(style.colour, width)
        cx, cy = centre
        inner = [(round(cx + (x - cx) * 0.72), round(cy + (y - cy) * 0.72)) for x, y in points]
        pygame.draw.polygon(surface, style.outline, inner, dark_w)
        pygame.draw.polygon(surface, style.colour, inner, width)
    elif style.pattern == "corners":  # a viewfinder's brackets: what the camera cannot see
        pygame.draw.polygon(surface, style.outline, points, max(2, width // 2 + 1))
        for colour, w in ((style.outline, dark_w), (style.colour, width)):
            for i, corner in enumerate(points):
                for other in (points[i - 1], points[(i + 1) % len(points)]):
                    end = (
                        round(corner[0] + (other[0] - corner[0]) * 0.3),
                        round(corner[1] + (other[1] - corner[1]) * 0.3),
                    )
                    pygame.draw.line(surface, colour, corner, end, w)
                pygame.draw.circle(surface, colour, corner, max(1, w // 2 - 1))
    elif style.pattern in ("cross", "hatch"):
        outline(style.outline, dark_w)
        outline(style.colour, width)
        # Across the piece, clear of the cell's name in the corner.
        d = round(r * min(0.7, view.piece_scale * 0.8))
        for a, b in (((-d, -d), (d, d)), ((-d, d), (d, -d))):
            pygame.draw.line(surface, style.outline, _add(centre, a), _add(centre, b), dark_w + 2)
        for a, b in (((-d, -d), (d, d)), ((-d, d), (d, -d))):
            pygame.draw.line(surface, style.colour, _add(centre, a), _add(centre, b), width)


def _add(p: tuple[int, int], d: tuple[int, int]) -> tuple[int, int]:
    return (p[0] + d[0], p[1] + d[1])


def _dashed_polygon(surface, colour, points, width, dash, gap) -> None:
    for i, a in enumerate(points):
        b = points[(i + 1) % len(points)]
        length = math.dist(a, b)
        if length == 0:
            continue
        t = 0.0
        while t < length:
            e = min(length, t + dash)
            p = (a[0] + (b[0] - a[0]) * t / length, a[1] + (b[1] - a[1]) * t / length)
            q = (a[0] + (b[0] - a[0]) * e / length, a[1] + (b[1] - a[1]) * e / length)
            pygame.draw.line(surface, colour, p, q, width)
            t += dash + gap


def _dashed_circle(surface, colour, centre, radius, width, segments: int = 16) -> None:
    for i in range(segments):
        if i % 2:
            continue
        a0 = 2 * math.pi * i / segments
        a1 = 2 * math.pi * (i + 1) / segments
        rect = pygame.Rect(centre[0] - radius, centre[1] - radius, 2 * radius, 2 * radius)
        pygame.draw.arc(surface, colour, rect, a0, a1, width)


def _inside(point: tuple[float, float], polygon: tuple[tuple[float, float], ...]) -> bool:
    x, y = point
    inside = False
    n = len(polygon)
    for i in range(n):
        x1, y1 = polygon[i]
        x2, y2 = polygon[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            inside = not inside
    return inside
