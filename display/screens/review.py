"""Review: the recorded games, and one game stepped through move by move with its diagram.

By touch: the arrows (first, back, forward, last) and the list. By the table buttons: DONE
steps forward, ROLL steps back, BACK leaves (the app maps them), so a game can be replayed
without reaching for the screen. Export to USB (the game) and All to USB (the list) write
games to a USB stick; how far that got is said over the buttons (`note`), what went wrong in
the red bar over the header (the app's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pygame

from companion.geometry import BoardGeometry
from companion.i18n import _, ngettext
from display import theme
from display.board import draw_board
from display.layout import button_bar, draw_header, frame
from display.paint import Action, Painter, column, fit, row, text_height


@dataclass
class ReviewListModel:
    # (id, "#12 Arinama", "finished · 34 moves · white wins"); only a page of them is drawn,
    # so a row may be made when first asked for (`companion.app.pages.review.Rows`)
    games: Sequence[tuple[int, str, str]]
    page: int = 0
    per_page: int = 4
    unreadable: bool = False  # the records could not be read (a damaged file)
    note: str = ""  # how the export to the USB stick goes, or went
    exporting: bool = False  # ... while it writes: All to USB waits
    pointed: int | None = None  # the row the table's ROLL points at: drawn marked, its page shown


def draw_list(p: Painter, model: ReviewListModel) -> None:
    m = p.m
    w, h = p.surface.get_size()
    p.surface.fill(theme.BACKGROUND)
    f = frame((w, h), p)
    draw_header(
        p,
        f.header,
        _("Review games"),
        ngettext("{count} recorded", "{count} recorded", len(model.games)).format(
            count=len(model.games)
        ),
    )
    body = f.body
    bar = pygame.Rect(body.left, body.bottom - m.button_height, body.width, m.button_height)
    boxes = button_bar(p, bar, 4)
    top = min(b.top for b in boxes)
    room = pygame.Rect(body.left, body.top, body.width, top - body.top)
    top = draw_note(p, model.note, room, room.height // 2)  # (the list keeps half)
    list_area = pygame.Rect(body.left, body.top, body.width, top - body.top - m.gap)
    row_h = m.mm(13)
    per_page = max(1, (list_area.height + m.gap) // (row_h + m.gap))
    model.per_page = per_page
    pages = max(1, -(-len(model.games) // per_page))
    page = min(model.page if model.pointed is None else model.pointed // per_page, pages - 1)
    shown = model.games[page * per_page : (page + 1) * per_page]
    if not shown:
        p.wrapped(
            _("The recorded games cannot be read: the records file is damaged")
            if model.unreadable
            else _("No games recorded yet. Play one and it appears here."),
            list_area,
            m.font_large,
            theme.MUTED,
            align="center",
            valign="middle",
        )
    for index, (box, (game_id, title, line)) in enumerate(
        zip(column(list_area, len(shown), m.gap, row_h), shown, strict=True),
        start=page * per_page,
    ):
        style = "primary" if index == model.pointed else "normal"
        target = p.button(box, "", Action("open-game", game_id), style=style)
        inner = target.rect.inflate(-m.mm(4), -m.mm(1.5))
        p.text(title, inner.topleft, m.font_body)
        p.text(line, inner.bottomleft, m.font_small, theme.MUTED, anchor="bottomleft")
    p.button(boxes[0], _("Back"), Action("back"))
    p.button(
        boxes[1], _("Newer"), Action("page", page - 1), style="normal" if page > 0 else "disabled"
    )
    p.button(
        boxes[2],
        _("Older"),
        Action("page", page + 1),
        style="normal" if page + 1 < pages else "disabled",
    )
    p.button(
        boxes[3],
        _("Writing...") if model.exporting else _("All to USB"),
        Action("export-all"),
        style="normal" if model.games and not model.exporting else "disabled",
    )


def _draw_game_lines(p: Painter, model: ReviewGameModel, ply: int, room: pygame.Rect) -> None:
    """Under the move: the moves around it, the result at the last, and the note of an export
    to the stick over the buttons - in place of the moves around, which a short portrait
    panel has no room for beside it (they are back at the next step)."""
    m = p.m
    y = room.top
    around = [  # a no-break space: a move's number never ends a line without its move
        f"{model.label(i)}{'.' if model.label(i).isdigit() else ''}\u00a0{model.moves[i - 1]}"
        for i in range(max(1, ply - 2), min(len(model.moves), ply + 2) + 1)
    ]
    if around and not model.note:
        p.wrapped(
            "   ".join(around),
            pygame.Rect(room.left, y, room.width, m.font_body * 2),
            m.font_body,
            theme.MUTED,
        )
        y += m.font_body * 2
    result = model.result if ply == len(model.moves) else ""
    # the note takes what it needs, but for a line of the result (shrunk, then cut, if short)
    rest = pygame.Rect(room.left, y, room.width, room.bottom - y)
    most = rest.height - m.gap - text_height(bool(result), m.font_body)
    bottom = draw_note(p, model.note, rest, most)
    if result:
        p.wrapped(
            result, pygame.Rect(room.left, y, room.width, bottom - y), m.font_body, theme.YELLOW
        )


def draw_note(p: Painter, note: str, room: pygame.Rect, most: int) -> int:
    """`note` (how the export to the stick goes) at the bottom of `room`, over the buttons, in
    as many lines as it takes, up to `most` pixels; returns the top of what it took."""
    if not note:
        return room.bottom
    m = p.m
    width, most = room.width, max(text_height(1, m.font_small), min(most, room.height))
    fitted = fit(note, width, most, m.font_body, m.font_small)
    height = text_height(len(fitted[1]), fitted[0]) if fitted else most
    rect = pygame.Rect(room.left, room.bottom - m.gap - height, width, height)
    p.wrapped(note, rect, m.font_body, theme.SKY_BLUE, min_size=m.font_small)
    return rect.top


@dataclass
class ReviewGameModel:
    title: str  # "#12 Arinama"
    geometry: BoardGeometry
    boards: list[dict[str, str]]  # the cells after 0, 1, 2, ... moves
    moves: list[str]  # move texts, moves[i] leads to boards[i + 1]
    ply: int = 0  # which board is shown
    result: str = ""  # "white wins (full-board)"
    highlights: dict[str, str] = field(default_factory=dict)
    # per board, cell -> the type written on its piece (Arimaa's "E", "R"), as the play screen
    # shows it; empty for games whose pieces have no types
    piece_labels: list[dict[str, str]] = field(default_factory=list)
    # each move's number as the game counts its moves (Arimaa: its turn label, "2g"); by
    # default 1, 2, 3 ...
    move_labels: list[str] = field(default_factory=list)
    note: str = ""  # how the export to the USB stick goes, or went
    exporting: bool = False  # ... while it writes: Export to USB waits

    def label(self, ply: int) -> str:
        """The number of the move that led to board `ply` (1 and up)."""
        return self.move_labels[ply - 1] if ply - 1 < len(self.move_labels) else str(ply)


def draw_game(p: Painter, model: ReviewGameModel) -> None:
    m = p.m
    p.surface.fill(theme.BACKGROUND)
    f = frame(p.surface.get_size(), p)
    ply = max(0, min(model.ply, len(model.boards) - 1))
    draw_header(
        p,
        f.header,
        model.title,
        # the positions stepped through (a record's entries: Aranea's rolls, Arimaa's setups),
        # not its moves as the game counts them - the title says that ("Move 63", "2g")
        _("position {ply} of {count}").format(ply=ply, count=len(model.moves))
        if model.moves
        else _("no moves"),  # (a trial: "position 0 of 0")
    )
    labels = model.piece_labels[ply] if ply < len(model.piece_labels) else {}
    p.board_view = draw_board(
        p.surface, f.board, model.geometry, model.boards[ply], model.highlights, piece_labels=labels
    )
    panel = f.panel
    arrows = button_bar(p, panel, 4, min_width_mm=11)
    back_row = pygame.Rect(
        panel.left, arrows[0].top - m.gap - m.button_height, panel.width, m.button_height
    )
    boxes = [*row(back_row, 2, m.gap), *arrows]
    y = panel.top
    if ply == 0:
        line = _("Start position")
    else:
        line = _("Move {ply}: {move}").format(ply=model.label(ply), move=model.moves[ply - 1])
    used = p.wrapped(line, pygame.Rect(panel.left, y, panel.width, m.font_huge * 2), m.font_huge)
    p.instruction_rect = used
    room = pygame.Rect(panel.left, used.bottom + m.gap, panel.width, 0)
    room.height = back_row.top - room.top
    _draw_game_lines(p, model, ply, room)
    last = len(model.boards) - 1
    specs = [
        (_("Back"), Action("back"), "normal"),
        (
            _("Writing...") if model.exporting else _("Export to USB"),
            Action("export"),
            "disabled" if model.exporting else "normal",
        ),
        ("|<", Action("ply", 0), "normal" if ply > 0 else "disabled"),
        ("<", Action("ply", ply - 1), "normal" if ply > 0 else "disabled"),
        (">", Action("ply", ply + 1), "primary" if ply < last else "disabled"),
        (">|", Action("ply", last), "normal" if ply < last else "disabled"),
    ]
    for box, (label, action, style) in zip(boxes, specs, strict=True):
        p.button(box, label, action, style=style, size=m.font_large)
