"""Review: the recorded games, and one game stepped through move by move with its diagram.

By touch: the arrows (first, back, forward, last) and the list. By the table buttons: DONE
steps forward, ROLL steps back, BACK leaves (the app maps them), so a game can be replayed
without reaching for the screen.
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
from display.paint import Action, Painter, column


@dataclass
class ReviewListModel:
    # (id, "#12 Arinama", "finished · 34 moves · white wins"); only a page of them is drawn,
    # so a row may be made when first asked for (`companion.app.pages.review.Rows`)
    games: Sequence[tuple[int, str, str]]
    page: int = 0
    per_page: int = 4
    unreadable: bool = False  # the records could not be read (a damaged file)


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
    boxes = button_bar(p, bar, 3)
    list_area = pygame.Rect(body.left, body.top, body.width, bar.top - body.top - m.gap)
    row_h = m.mm(13)
    per_page = max(1, (list_area.height + m.gap) // (row_h + m.gap))
    model.per_page = per_page
    pages = max(1, -(-len(model.games) // per_page))
    page = min(model.page, pages - 1)
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
    for box, (game_id, title, line) in zip(
        column(list_area, len(shown), m.gap, row_h), shown, strict=True
    ):
        target = p.button(box, "", Action("open-game", game_id))
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
    boxes = [back_row, *arrows]
    y = panel.top
    if ply == 0:
        line = _("Start position")
    else:
        line = _("Move {ply}: {move}").format(ply=model.label(ply), move=model.moves[ply - 1])
    used = p.wrapped(line, pygame.Rect(panel.left, y, panel.width, m.font_huge * 2), m.font_huge)
    p.instruction_rect = used
    y = used.bottom + m.gap
    around = [  # a no-break space: a move's number never ends a line without its move
        f"{model.label(i)}{'.' if model.label(i).isdigit() else ''}\u00a0{model.moves[i - 1]}"
        for i in range(max(1, ply - 2), min(len(model.moves), ply + 2) + 1)
    ]
    if around:
        p.wrapped(
            "   ".join(around),
            pygame.Rect(panel.left, y, panel.width, m.font_body * 2),
            m.font_body,
            theme.MUTED,
        )
        y += m.font_body * 2
    if model.result and ply == len(model.moves):
        p.wrapped(
            model.result,
            pygame.Rect(panel.left, y, panel.width, min(b.top for b in boxes) - y),
            m.font_body,
            theme.YELLOW,
        )
    last = len(model.boards) - 1
    specs = [
        (_("Back"), Action("back"), "normal"),
        ("|<", Action("ply", 0), "normal" if ply > 0 else "disabled"),
        ("<", Action("ply", ply - 1), "normal" if ply > 0 else "disabled"),
        (">", Action("ply", ply + 1), "primary" if ply < last else "disabled"),
        (">|", Action("ply", last), "normal" if ply < last else "disabled"),
    ]
    for box, (label, action, style) in zip(boxes, specs, strict=True):
        p.button(box, label, action, style=style, size=m.font_large)
