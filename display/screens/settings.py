"""Settings: one row per setting with its value and - / + (or a toggle), in sections: screen
rotation, colour names, the chosen game's options, button pins. The app builds the rows from
its settings object and applies the actions; this page only shows them."""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from companion.i18n import _
from display import theme
from display.layout import button_bar, draw_header, frame
from display.paint import Action, Painter, column, font, text_height


@dataclass(frozen=True)
class SettingRow:
    section: str  # "Screen", "Colour names", "Arinama options", "Buttons"
    label: str
    value: str
    key: str  # what the app changes, e.g. "rotation", "colour:black", "option:rows", "pin:done"


@dataclass
class SettingsModel:
    rows: list[SettingRow]
    page: int = 0
    note: str = ""  # e.g. "Saved" or "Pins apply after a restart"
    # the page to open at: the one holding the first row whose key starts so ("option:" -
    # Home's Options), instead of `page`; how many rows a page holds is the screen's
    focus: str = ""


def draw(p: Painter, model: SettingsModel) -> None:
    m = p.m
    w, h = p.surface.get_size()
    p.surface.fill(theme.BACKGROUND)
    f = frame((w, h), p)
    body = f.body
    bar = pygame.Rect(body.left, body.bottom - m.button_height, body.width, m.button_height)
    boxes = button_bar(p, bar, 3)
    area = pygame.Rect(body.left, body.top, body.width, bar.top - body.top - m.gap)
    row_h = m.button_height
    per_page = max(1, (area.height + m.gap) // (row_h + m.gap))
    pages = max(1, -(-len(model.rows) // per_page))
    page = min(model.page, pages - 1)
    focused = [
        i for i, row in enumerate(model.rows) if model.focus and row.key.startswith(model.focus)
    ]
    if focused:
        page = focused[0] // per_page
    draw_header(
        p,
        f.header,
        _("Settings"),
        model.note or _("page {page} of {pages}").format(page=page + 1, pages=pages),
    )
    shown = model.rows[page * per_page : (page + 1) * per_page]
    step = min(m.mm(14), area.width // 7)
    # The value column: as wide as the widest value on the page needs (a quarter at least,
    # a third at most); the label column gets the rest, up to the - button.
    widest = max((font(m.font_body).size(row.value)[0] for row in shown), default=0) + m.mm(3)
    value_w = max(min(m.mm(28), area.width // 4), min(widest, area.width // 3))
    small = m.font_small * 3 // 4
    for box, setting in zip(column(area, len(shown), m.gap, row_h), shown, strict=True):
        p.panel(box, theme.PANEL)
        plus = pygame.Rect(box.right - step, box.top, step, box.height)
        value = pygame.Rect(plus.left - m.gap - value_w, box.top, value_w, box.height)
        minus = pygame.Rect(value.left - m.gap - step, box.top, step, box.height)
        left = box.left + m.gap * 2
        label_w = minus.left - m.gap - left
        section = p.wrapped(  # on two lines when the column is narrow
            setting.section,
            pygame.Rect(left, box.top + m.mm(0.8), label_w, text_height(2, small)),
            small,
            theme.MUTED,
            min_size=max(10, small * 4 // 5),
        )
        p.wrapped(
            setting.label,
            pygame.Rect(left, section.bottom, label_w, box.bottom - section.bottom - m.mm(0.5)),
            m.font_body,
            valign="middle",
            min_size=small,
        )
        p.button(minus, "-", Action("setting-down", setting.key), size=m.font_huge)
        p.wrapped(
            setting.value,
            value.inflate(-m.mm(1), 0),
            m.font_body,
            theme.TEXT,
            align="center",
            valign="middle",
            min_size=small,
        )
        p.button(plus, "+", Action("setting-up", setting.key), size=m.font_huge)
    p.button(boxes[0], _("Back"), Action("back"))
    p.button(
        boxes[1],
        _("Previous"),
        Action("page", page - 1),
        style="normal" if page > 0 else "disabled",
    )
    p.button(
        boxes[2],
        _("More"),
        Action("page", page + 1),
        style="normal" if page + 1 < pages else "disabled",
    )
