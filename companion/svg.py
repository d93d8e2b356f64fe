"""Board diagrams as SVG, drawn from the same geometry the camera and the touchscreen use.

`position_svg(position)` is the whole job for one position; `board_svg(geometry, cells)` is the
same for any cell -> class map (an Observation's cells, a stored position). The drawing is in the
board's own millimetres (`companion.geometry`), so every game - grids, Aranea's web, Sensei's
pits - comes out right without game-specific drawing code.

Pieces are circles coloured by the class the camera reports (`Position.cells()`); Sensei's
characters are diamonds; Arimaa's pieces carry their letter (E M H D C R), since the class alone
("gold") does not say which piece it is. Highlights use the Okabe-Ito colour-blind-safe palette
and, in addition, a different dash pattern per role, so they never rely on colour alone.

For a page with many diagrams of one board, `board_defs(geometry, id)` draws the empty board
once and each diagram refers to it with ``board_ref=id`` (an SVG ``<use>``), which keeps an HTML
export of a long game small.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from html import escape
from typing import Any

from companion.games.base import Position
from companion.geometry import BoardGeometry, Point, board_geometry
from companion.highlights import WORDS
from companion.i18n import _, colour_noun

MARGIN = 9.0  # mm around the board, room for the coordinates

BOARD_FILL = "#ead9b5"
CELL_FILL = "#f6ecd4"
CELL_STROKE = "#7a6642"
TRAP_FILL = "#c79b6b"
PIT_FILL = "#4a3b31"
LABEL_FILL = "#5b4a30"

# class -> (fill, outline, letter colour); unknown classes get a neutral grey.
PIECE_COLOURS: dict[str, tuple[str, str, str]] = {
    "black": ("#1f1f1f", "#000000", "#ffffff"),
    "white": ("#fbfbf8", "#3a3a3a", "#111111"),
    "gold": ("#e8b923", "#6b5000", "#111111"),
    "silver": ("#a9adb3", "#3d4249", "#111111"),
    "amber": ("#f2a20d", "#6b4300", "#111111"),
    "blue": ("#2f6fd0", "#0b2a5c", "#ffffff"),
    "green": ("#3b9c4a", "#14451c", "#ffffff"),
    "red": ("#c8372d", "#5c100b", "#ffffff"),
}
OTHER_PIECE = ("#9a9a9a", "#333333", "#111111")

# Highlight role (companion.referee.protocol) -> (Okabe-Ito colour, dash pattern in mm).
HIGHLIGHTS: dict[str, tuple[str, str]] = {
    "target": ("#009E73", ""),
    "from": ("#56B4E9", "3 2"),
    "to": ("#0072B2", ""),
    "flip": ("#E69F00", "4 1.5"),
    "remove": ("#D55E00", "1.5 1.5"),
    "restore": ("#CC79A7", "4 1.5 1 1.5"),
    "error": ("#D55E00", ""),
    "unclear": ("#F0E442", "1 2"),
    "asked": ("#56B4E9", ""),
    "picked": ("#E69F00", ""),
}


def position_svg(
    position: Position[Any],
    *,
    highlights: Mapping[str, str] | None = None,
    title: str = "",
    board_ref: str | None = None,
) -> str:
    """The diagram of a companion.games Position."""
    geometry = board_geometry(position.name, position.options)
    return board_svg(
        geometry,
        position.cells(),
        labels=piece_labels(position),
        highlights=highlights,
        title=title,
        board_ref=board_ref,
    )


def board_svg(
    geometry: BoardGeometry,
    cells: Mapping[str, str],
    *,
    labels: Mapping[str, str] | None = None,
    highlights: Mapping[str, str] | None = None,
    title: str = "",
    board_ref: str | None = None,
) -> str:
    """An SVG diagram: the board, a piece per occupied cell, outlined highlights.

    `cells` maps cell -> class ("black", "gold", "green-character", ...; "empty" and "unknown"
    draw nothing); `labels` puts a letter on a piece; `highlights` maps cell -> role ("flip",
    "target", ...). Unknown cell names raise UserError (from the geometry)."""
    labels = labels or {}
    parts = [_svg_open(geometry, title)]
    if title:
        parts.append(f"<title>{escape(title)}</title>")
    if board_ref:
        parts.append(f'<use href="#{escape(board_ref)}"/>')
    else:
        parts.append(_board_group(geometry))
    for name, cls in cells.items():
        if cls in ("empty", "unknown"):
            continue
        parts.append(_piece(geometry, name, cls, labels.get(name, "")))
    for name, role in (highlights or {}).items():
        parts.append(_highlight(geometry, name, role))
    parts.append("</svg>")
    return "".join(parts)


def board_defs(geometry: BoardGeometry, ref: str) -> str:
    """An invisible SVG that defines the empty board once, for diagrams with `board_ref=ref`."""
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" style="position:absolute"'
        f' aria-hidden="true"><defs><g id="{escape(ref)}">{_board_group(geometry)}</g></defs></svg>'
    )


def piece_labels(position: Position[Any]) -> dict[str, str]:
    """Letters to write on pieces whose class does not say what they are (Arimaa's types)."""
    labels: dict[str, str] = position.piece_labels()
    return labels


def changed_cells(before: Mapping[str, str], after: Mapping[str, str]) -> dict[str, str]:
    """What a move changed, as highlights: emptied cells "from", filled or changed cells "to"."""
    roles = {}
    for cell in set(before) | set(after):
        if before.get(cell) == after.get(cell):
            continue
        roles[cell] = "from" if cell not in after else "to"
    return dict(sorted(roles.items()))


def change_words(
    before: Mapping[str, str],
    after: Mapping[str, str],
    order: Sequence[str],
    *,
    turn_over: bool = False,
    mover: str | None = None,
) -> str:
    """What a move changed on the board, in short: a piece gone from one cell to another
    ("b1 > b4"), else the cells filled ("+r1-7") and emptied ("-r2-3"), then the cells whose
    piece changed colour - "c4 d5 turned" where stones `turn_over` (`Position.stones_turn_over`),
    else taken by the other side ("r1-8 taken"); cells in `order` (the board's). A stone the
    `mover` placed that shows the other colour turned itself, and is said turned too (a trial:
    Arinama's self-flip read "+e2" alone). For the move list, where a notation leaves it out
    (Aranea's "place", Arinama's turned stones); its words in the language in use ("c4 d5
    umgedreht").

        >>> change_words({"b1": "red"}, {"b4": "red"}, ["b1", "b4"])
        'b1 > b4'
        >>> change_words({"c4": "white"}, {"c4": "black", "d4": "black"}, ["c4", "d4"], turn_over=True)
        '+d4, c4 turned'
        >>> change_words({"r1-8": "blue"}, {"r1-8": "amber"}, ["r1-8"])
        'r1-8 taken'
        >>> change_words({}, {"e2": "white"}, ["e2"], turn_over=True, mover="black")
        '+e2, e2 turned'
    """
    came = [c for c in order if c in after and c not in before]
    gone = [c for c in order if c in before and c not in after]
    turned = [
        c
        for c in order
        if (c in before and c in after and before[c] != after[c])
        or (turn_over and mover is not None and c in came and after[c] != mover)
    ]
    if len(came) == len(gone) == 1 and before[gone[0]] == after[came[0]]:
        parts = [f"{gone[0]} > {came[0]}"]
    else:
        parts = [f"+{c}" for c in came] + [f"-{c}" for c in gone]
    if turned:
        cells = " ".join(turned)
        parts.append((_("{cells} turned") if turn_over else _("{cells} taken")).format(cells=cells))
    return ", ".join(parts)


# -- drawing ---------------------------------------------------------------------------------------
def _svg_open(geometry: BoardGeometry, title: str) -> str:
    w = geometry.width + 2 * MARGIN
    h = geometry.height + 2 * MARGIN
    label = f' aria-label="{escape(title)}"' if title else ""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{_n(-MARGIN)} {_n(-MARGIN)} {_n(w)} '
        f'{_n(h)}" class="board board-{escape(geometry.game)}" role="img"{label}>'
    )


def _board_group(geometry: BoardGeometry) -> str:
    parts = [
        f'<rect x="{_n(-MARGIN)}" y="{_n(-MARGIN)}" width="{_n(geometry.width + 2 * MARGIN)}" '
        f'height="{_n(geometry.height + 2 * MARGIN)}" rx="4" fill="{BOARD_FILL}"/>'
    ]
    marked = {m.cell: m.kind for m in geometry.marks if m.cell}
    for cell in geometry.cells:
        fill = {"trap": TRAP_FILL, "pit": PIT_FILL}.get(marked.get(cell.name, ""), CELL_FILL)
        parts.append(
            f'<polygon points="{_points(cell.polygon)}" fill="{fill}" stroke="{CELL_STROKE}" '
            f'stroke-width="0.5"><title>{escape(cell.name)}</title></polygon>'
        )
    for mark in geometry.marks:
        if mark.cell is None:  # Aranea's ring circles and centre outline
            width = "1.2" if mark.kind == "centre" else "0.8"
            parts.append(
                f'<polygon points="{_points(mark.polygon)}" fill="none" stroke="{CELL_STROKE}" '
                f'stroke-width="{width}"/>'
            )
    parts.extend(_coordinates(geometry))
    return "".join(parts)


def _coordinates(geometry: BoardGeometry) -> Iterable[str]:
    """File letters and rank numbers around a grid board (cells named like "a1")."""
    names = geometry.cell_names()
    if not all(n[:1].isalpha() and n[1:].isdigit() for n in names):
        return []
    size = min(MARGIN * 0.6, 6.0)
    style = (
        f'font-family="sans-serif" font-size="{_n(size)}" fill="{LABEL_FILL}" text-anchor="middle"'
    )
    out = []
    files: dict[str, float] = {}
    ranks: dict[str, float] = {}
    for cell in geometry.cells:
        files.setdefault(cell.name[0], cell.center[0])
        ranks.setdefault(cell.name[1:], cell.center[1])
    for letter, x in files.items():
        y = geometry.height + MARGIN * 0.5 + size * 0.35
        out.append(f'<text x="{_n(x)}" y="{_n(y)}" {style}>{letter}</text>')
    for number, y in ranks.items():
        out.append(
            f'<text x="{_n(-MARGIN * 0.5)}" y="{_n(y + size * 0.35)}" {style}>{number}</text>'
        )
    return out


def _piece(geometry: BoardGeometry, name: str, cls: str, label: str) -> str:
    cell = geometry.cell(name)
    owner, _, kind = cls.partition("-")
    fill, stroke, ink = PIECE_COLOURS.get(owner, OTHER_PIECE)
    x, y = cell.center
    r = cell.radius * 0.78
    if kind == "character":  # Sensei: a diamond, unlike the round stones
        shape = (
            f'<polygon points="{_points(((x, y - r), (x + r, y), (x, y + r), (x - r, y)))}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="1"/>'
        )
        label = label or "S"
    else:
        shape = (
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" fill="{fill}" stroke="{stroke}" '
            'stroke-width="0.8"/>'
        )
    # the owner as the page's language names it ("r1-4: Blau", "a2: Gold E")
    words = colour_noun(owner) + (f" {label}" if label else "")
    tip = f"<title>{escape(name)}: {escape(words)}</title>"
    text = ""
    if label:
        text = (
            f'<text x="{_n(x)}" y="{_n(y + r * 0.38)}" font-family="sans-serif" '
            f'font-weight="bold" font-size="{_n(r * 1.1)}" fill="{ink}" '
            f'text-anchor="middle">{escape(label)}</text>'
        )
    return f'<g class="piece" data-cell="{escape(name)}">{tip}{shape}{text}</g>'


def _highlight(geometry: BoardGeometry, name: str, role: str) -> str:
    cell = geometry.cell(name)
    colour, dash = HIGHLIGHTS.get(role, ("#000000", ""))
    width = max(1.2, cell.radius * 0.14)
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    return (
        f'<polygon class="highlight highlight-{escape(role)}" data-cell="{escape(name)}" '
        f'points="{_points(_shrunk(cell.polygon, cell.center, width / 2))}" fill="none" '
        f'stroke="{colour}" stroke-width="{_n(width)}" stroke-linejoin="round"{dash_attr}>'
        f"<title>{escape(name)}: {escape(_(WORDS[role]) if role in WORDS else role)}</title></polygon>"
    )


def _shrunk(polygon: tuple[Point, ...], center: Point, by: float) -> tuple[Point, ...]:
    """The polygon pulled towards its centre by about `by` mm, so a thick outline stays inside."""
    cx, cy = center
    out = []
    for x, y in polygon:
        dx, dy = x - cx, y - cy
        d = (dx * dx + dy * dy) ** 0.5 or 1.0
        k = max(0.0, (d - by) / d)
        out.append((cx + dx * k, cy + dy * k))
    return tuple(out)


def _points(points: Iterable[Point]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in points)


def _n(value: float) -> str:
    """A number with at most two decimals and no trailing zeros (small, stable output)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text
