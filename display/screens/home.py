"""The home screen: pick a game (the board the camera recognised is preselected and marked),
see its options, start; or continue an unfinished game, roll dice, review games, settings."""

from __future__ import annotations

from dataclasses import dataclass, field

import pygame

from companion.i18n import _
from display import theme
from display.layout import draw_header
from display.paint import Action, Painter, row


@dataclass
class HomeModel:
    games: list[tuple[str, str]]  # (name, title) in order
    selected: str
    recognised: str | None = None  # the game whose board the camera sees
    options_text: str = ""  # "8 x 8, Black first"
    unfinished: list[tuple[int, str]] = field(default_factory=list)  # (game id, "Arinama, move 14")
    status: str = ""  # camera / buttons state for the header


def draw(p: Painter, model: HomeModel) -> None:
    m = p.m
    w, h = p.surface.get_size()
    p.surface.fill(theme.BACKGROUND)
    header = pygame.Rect(0, 0, w, m.mm(9.5))
    draw_header(p, header, "Tabletop Companion", model.status)
    pad = m.gap * 2
    body = pygame.Rect(pad, header.bottom + pad, w - 2 * pad, h - header.bottom - 2 * pad)
    portrait = h > w

    y = body.top
    p.text(_("Choose a game"), (body.left, y), m.font_body, theme.MUTED)
    y += m.font_body + m.gap
    per_row = 2 if portrait else 4
    rows = -(-len(model.games) // per_row)
    tile_h = m.mm(16) if portrait else m.mm(14)
    for r in range(rows):
        names = model.games[r * per_row : (r + 1) * per_row]
        for box, (game, title) in zip(
            row(pygame.Rect(body.left, y, body.width, tile_h), len(names), m.gap),
            names,
            strict=True,
        ):
            style = "selected" if game == model.selected else "normal"
            p.button(box, title, Action("select-game", game), style=style, size=m.font_large)
            if game == model.recognised:
                p.text(
                    _("on the table"),
                    (box.centerx, box.bottom - m.mm(1)),
                    m.font_small,
                    theme.YELLOW,
                    anchor="midbottom",
                )
        y += tile_h + m.gap

    options = pygame.Rect(body.left, y + m.gap, body.width, m.button_height)
    label_w = options.width - m.mm(30) - m.gap
    p.wrapped(
        model.options_text or _("Standard rules"),
        pygame.Rect(options.left, options.top, label_w, options.height),
        m.font_body,
        valign="middle",
        min_size=m.font_small,
    )
    p.button(
        pygame.Rect(options.right - m.mm(30), options.top, m.mm(30), options.height),
        _("Options"),
        Action("options"),
    )
    y = options.bottom + m.gap * 2

    for game_id, text in model.unfinished[:2]:
        box = pygame.Rect(body.left, y, body.width, m.button_height)
        p.button(box, _("Continue: {game}").format(game=text), Action("resume", game_id))
        y = box.bottom + m.gap

    bottom = pygame.Rect(body.left, body.bottom - m.button_height, body.width, m.button_height)
    if portrait:
        start = pygame.Rect(body.left, bottom.top - m.gap - m.mm(16), body.width, m.mm(16))
        p.button(start, _("Start"), Action("start"), style="primary", size=m.font_huge)
        boxes = row(bottom, 3, m.gap)
    else:
        boxes = row(bottom, 4, m.gap)
        p.button(boxes[3], _("Start"), Action("start"), style="primary", size=m.font_large)
    labels = [(_("Dice"), "dice"), (_("Review"), "review"), (_("Settings"), "settings")]
    for box, (label, kind) in zip(boxes, labels, strict=False):
        p.button(box, label, Action(kind))
