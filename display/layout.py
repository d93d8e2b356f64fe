"""How a page divides the screen, landscape or portrait.

Landscape (800x480): a header bar, the board as a square on the left, a side panel on the
right for the instruction and the buttons. Portrait (720x1280): header, the board across the
full width, the panel below it. Pages ask for these rectangles instead of hard-coding pixels,
so every page adapts to any panel size.
"""

from __future__ import annotations

from dataclasses import dataclass

import pygame

from display import theme
from display.fonts import font
from display.paint import Painter, fit


@dataclass(frozen=True)
class Frame:
    header: pygame.Rect
    board: pygame.Rect  # the square-ish area for a diagram or camera view
    panel: pygame.Rect  # text and buttons
    body: pygame.Rect  # everything under the header (for pages without a board)


def frame(
    size: tuple[int, int],
    painter: Painter,
    *,
    board_share: float = 0.58,
    board_extent: int | None = None,
) -> Frame:
    """The page's rectangles; the board takes `board_share` of the body's width (landscape) or
    height (portrait), or `board_extent` pixels of it, never more than a square."""
    w, h = size
    m = painter.m
    pad = m.gap
    header = pygame.Rect(0, 0, w, m.mm(9.5))
    body = pygame.Rect(pad, header.bottom + pad, w - 2 * pad, h - header.bottom - 2 * pad)
    if w >= h:  # landscape: board left, panel right
        side = min(body.height, board_extent or round(body.width * board_share))
        board = pygame.Rect(body.left, body.top, side, body.height)
        panel = pygame.Rect(
            board.right + pad, body.top, body.right - board.right - pad, body.height
        )
    else:  # portrait: board on top, panel below
        side = min(body.width, board_extent or round(body.height * board_share))
        board = pygame.Rect(body.left, body.top, body.width, side)
        panel = pygame.Rect(
            body.left, board.bottom + pad, body.width, body.bottom - board.bottom - pad
        )
    return Frame(header, board, panel, body)


def draw_header(painter: Painter, rect: pygame.Rect, title: str, right: str = "") -> None:
    """The top bar: the page title on the left, a short status on the right (each shrunk, then
    cut, rather than run into the other). Where both do not fit, the bar is shared as each
    needs it, a third at least to the status (a trial: "4 markers seen; empty board
    photographed" was cut on a portrait screen, given half the bar beside a shorter title)."""
    pygame.draw.rect(painter.surface, theme.PANEL, rect)
    m = painter.m
    inner = rect.inflate(-m.gap * 4, 0)
    right_w = 0
    if right:
        title_w = font(m.font_body).size(title)[0]
        status_w = font(m.font_small).size(right)[0]
        room = inner.width - m.gap * 2  # shared as each needs it, when both do not fit
        share = (
            room - title_w
            if title_w + status_w <= room
            else room * status_w // (title_w + status_w)
        )
        # ... but never so much that the title, shrunk as far as it shrinks, is cut (up to
        # half the bar: a review's long status cut "Tabletop Companion")
        share = min(share, room - min(title_w * 2 // 3, room // 2))
        right_rect = painter.line(
            right,
            (inner.right, rect.centery),
            max(inner.width // 3, share),
            m.font_small,
            theme.MUTED,
            anchor="midright",
        )
        right_w = right_rect.width + m.gap * 2
    painter.line(
        title,
        (inner.left, rect.centery),
        inner.width - right_w,
        m.font_body,
        anchor="midleft",
    )


def button_bar(
    painter: Painter, rect: pygame.Rect, count: int, min_width_mm: float = 22.0
) -> list[pygame.Rect]:
    """`count` button boxes along the bottom of `rect` (one row, or two when narrow)."""
    m = painter.m
    h = m.button_height
    min_w = m.mm(min_width_mm)
    per_row = max(1, min(count, (rect.width + m.gap) // (min_w + m.gap)))
    rows = -(-count // per_row)
    boxes: list[pygame.Rect] = []
    top = rect.bottom - rows * h - (rows - 1) * m.gap
    for r in range(rows):
        n = min(per_row, count - r * per_row)
        w = (rect.width - (n - 1) * m.gap) // n
        y = top + r * (h + m.gap)
        boxes += [pygame.Rect(rect.left + i * (w + m.gap), y, w, h) for i in range(n)]
    return boxes


def message_bar(painter: Painter, text: str, *, top: bool = False) -> None:
    """A red bar with a problem: at the bottom, or over the page's header (`top`)."""
    m = painter.m
    w, h = painter.surface.get_size()
    if top:
        rect = pygame.Rect(frame((w, h), painter).header)
    else:
        rect = pygame.Rect(0, h - m.mm(8), w, m.mm(8))
    tallest = 3 * rect.height
    # Small type, never below three quarters of it: a long message (German, "No camera: ...")
    # takes more rows, the bar growing over the page below, up to three times its height.
    smallest = m.font_small * 3 // 4
    inner_w = rect.width - m.mm(3)
    while (
        fit(text, inner_w, rect.height - m.mm(1), m.font_small, smallest) is None
        and rect.height < tallest
    ):
        if top:
            rect.height += m.mm(2)
        else:  # (the bottom bar grows upwards)
            rect.top -= m.mm(2)
            rect.height += m.mm(2)
    pygame.draw.rect(painter.surface, theme.PROBLEM_BAR, rect)
    painter.wrapped(
        text,
        rect.inflate(-m.mm(3), -m.mm(1)),
        m.font_small,
        (255, 255, 255),
        valign="middle",
        min_size=smallest,
    )
