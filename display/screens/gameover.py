"""Game over: who won and why, over the final board; new game, review, or home."""

from __future__ import annotations

from dataclasses import dataclass, field

import pygame

from companion.geometry import BoardGeometry
from companion.i18n import _, ngettext, pgettext
from display import theme
from display.board import draw_board
from display.layout import button_bar, draw_header, frame
from display.paint import Action, Painter


@dataclass
class GameOverModel:
    title: str  # "Arinama"
    geometry: BoardGeometry
    cells: dict[str, str]
    headline: str  # "White wins"
    detail: str  # "Full board: 14 stones to 11"
    winner: str | None  # piece class of the winner for the swatch (None: draw)
    moves: int = 0
    can_undo: bool = True  # the last move may be taken back (Undo is offered)
    piece_labels: dict[str, str] = field(default_factory=dict)  # Arimaa's types: cell -> "E"


def draw(p: Painter, model: GameOverModel) -> None:
    m = p.m
    p.surface.fill(theme.BACKGROUND)
    f = frame(p.surface.get_size(), p)
    draw_header(
        p,
        f.header,
        _("{game} · game over").format(game=model.title),
        ngettext("{count} move", "{count} moves", model.moves).format(count=model.moves),
    )
    p.board_view = draw_board(
        p.surface, f.board, model.geometry, model.cells, {}, piece_labels=model.piece_labels
    )
    panel = f.panel
    y = panel.top + m.gap
    if model.winner:
        r = m.mm(6)
        p.swatch((panel.centerx, y + r), r, theme.PLAYER_CLASS.get(model.winner, model.winner))
        y += 2 * r + m.gap * 2
    buttons = [
        (_("Menu"), "home", "normal"),  # as on the play screen: both go to the home screen
        # the last move taken back: the game goes on ("Undo" beside "Review" must not read as
        # "back": its own words here)
        *([(pgettext("game over", "Undo"), "undo", "normal")] if model.can_undo else []),
        (_("Review"), "review", "normal"),
        (_("New game"), "new-game", "primary"),
    ]
    boxes = button_bar(p, panel, len(buttons), min_width_mm=16.0)  # (one row when upright)
    text_box = pygame.Rect(panel.left, y, panel.width, min(b.top for b in boxes) - y - m.gap)
    used = p.wrapped(model.headline, text_box, m.font_huge, align="center")
    p.instruction_rect = used
    if model.detail:
        detail_box = pygame.Rect(
            panel.left, used.bottom + m.gap, panel.width, text_box.bottom - used.bottom - m.gap
        )
        p.wrapped(
            model.detail,
            detail_box,
            m.font_body,
            theme.MUTED,
            align="center",
            min_size=m.font_small,
        )
    for box, (label, kind, style) in zip(boxes, buttons, strict=True):
        p.button(box, label, Action(kind), style=style)
