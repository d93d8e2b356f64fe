"""The small drawing kit every page uses: text that fits, buttons that register as touch
targets, and swatches. Sizes come from `display.theme.Metrics` (millimetres on the glass).

Text is rendered with pygame's bundled font (`pygame.font.Font(None, size)`), which ships with
pygame-ce, so a fresh Pi or CI needs no system fonts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pygame

from display import theme
from display.fonts import font
from display.theme import Colour, Metrics


@dataclass(frozen=True)
class Action:
    """What a tap or a button asks for; the app decides what it means on the current page."""

    kind: str
    value: Any = None


@dataclass(frozen=True)
class Target:
    rect: pygame.Rect
    action: Action
    label: str = ""


ELLIPSIS = "\u2026"


def text_height(lines: int, size: int) -> int:
    """Pixels that `lines` lines of text take (a rendered line is one line spacing tall)."""
    return max(0, lines) * font(size).get_linesize()


def fit(
    text: str, width: int, height: int, size: int, min_size: int
) -> tuple[int, list[str]] | None:
    """The largest size from `size` down to `min_size` at which `text`, wrapped to `width`,
    fits `width` x `height` whole (every line, every word); with its lines. None: it does not."""
    size = max(size, min_size)
    while True:
        f = font(size)
        lines = wrap(text, f, width)
        if text_height(len(lines), size) <= height and all(
            f.size(line)[0] <= width for line in lines
        ):
            return size, lines
        if size <= min_size:
            return None
        size = max(min_size, size - 1)


def shorten(line: str, f: pygame.font.Font, width: int) -> str:
    """`line` cut (at a word if it can) so that it and an ellipsis fit `width`."""
    words = line.split(" ")
    while len(words) > 1:
        words.pop()
        candidate = " ".join(words).rstrip(" ,.;:") + ELLIPSIS
        if f.size(candidate)[0] <= width:
            return candidate
    word = words[0] if words else ""
    while word and f.size(word + ELLIPSIS)[0] > width:
        word = word[:-1]
    return word + ELLIPSIS


class Painter:
    """Draws on one surface and remembers the touch targets drawn (in order)."""

    def __init__(self, surface: pygame.Surface, metrics: Metrics) -> None:
        self.surface = surface
        self.m = metrics
        self.targets: list[Target] = []
        # Every string rendered, in order, as it was drawn: what tests read back. A text that
        # did not fit is recorded as drawn (cut, ending in an ellipsis) and listed in `cut`.
        self.texts: list[str] = []
        self.cut: list[str] = []  # the whole texts that were drawn cut short
        self.drawn: list[tuple[str, pygame.Rect]] = []  # each text as drawn and where
        self.left_out: list[str] = []  # secondary texts a page left out for lack of room
        self.board_view = None  # display.board.BoardView of the page's diagram, if it has one
        self.instruction_rect: pygame.Rect | None = None  # where the big instruction went
        self.camera_view: Any = None  # (rect, scale) of a camera picture that takes taps

    # -- text ---------------------------------------------------------------------------------
    def text(
        self,
        text: str,
        pos: tuple[int, int],
        size: int,
        colour: Colour = theme.TEXT,
        *,
        anchor: str = "topleft",
    ) -> pygame.Rect:
        image = font(size).render(text, True, colour)
        rect = image.get_rect(**{anchor: pos})
        self.surface.blit(image, rect)
        self.texts.append(text)
        self.drawn.append((text, rect))
        return rect

    def line(
        self,
        text: str,
        pos: tuple[int, int],
        width: int,
        size: int,
        colour: Colour = theme.TEXT,
        *,
        min_size: int | None = None,
        anchor: str = "topleft",
    ) -> pygame.Rect:
        """One line no wider than `width`: shrunk down to `min_size`, then cut with an
        ellipsis (recorded as drawn, and in `cut`)."""
        min_size = min(size, min_size or max(8, size * 2 // 3))
        while size > min_size and font(size).size(text)[0] > width:
            size -= 1
        shown = text
        if font(size).size(text)[0] > width:
            shown = shorten(text, font(size), width)
            self.cut.append(text)
        return self.text(shown, pos, size, colour, anchor=anchor)

    def wrapped(
        self,
        text: str,
        rect: pygame.Rect,
        size: int,
        colour: Colour = theme.TEXT,
        *,
        min_size: int | None = None,
        align: str = "left",
        valign: str = "top",
    ) -> pygame.Rect:
        """Text broken into lines inside `rect`, shrunk (down to `min_size`) until it fits.

        Nothing is drawn outside `rect`. Text that does not fit even at `min_size` is drawn cut
        short with an ellipsis on its last line - never silently: `texts` records what was
        drawn and `cut` the whole text."""
        min_size = min(size, min_size or max(8, size * 2 // 3))
        fitted = fit(text, rect.width, rect.height, size, min_size)
        if fitted is not None:
            size, lines = fitted
            drawn = text
        else:
            size = min_size
            f = font(size)
            lines = wrap(text, f, rect.width)
            room = 0
            while room < len(lines) and text_height(room + 1, size) <= rect.height:
                room += 1
            if room:
                last = " ".join(lines[room - 1 :])
                lines = [*lines[: room - 1], shorten(last + " " + ELLIPSIS, f, rect.width)]
                lines = [
                    line if f.size(line)[0] <= rect.width else shorten(line, f, rect.width)
                    for line in lines
                ]
            else:  # not even one line fits: nothing drawn, but never silently
                lines = []
            drawn = " ".join(lines)
            self.cut.append(text)
        f = font(size)
        line_h = f.get_linesize()
        total = text_height(len(lines), size)
        y = rect.top if valign == "top" else rect.top + max(0, (rect.height - total) // 2)
        used = pygame.Rect(rect.left, y, 0, 0)
        for line in lines:
            image = f.render(line, True, colour)
            if align == "center":
                r = image.get_rect(midtop=(rect.centerx, y))
            else:
                r = image.get_rect(topleft=(rect.left, y))
            self.surface.blit(image, r)
            used = used.union(r) if used.width else r
            y += line_h
        if drawn:
            self.texts.append(drawn)
            self.drawn.append((drawn, used))
        return used

    # -- shapes -------------------------------------------------------------------------------
    def panel(
        self, rect: pygame.Rect, colour: Colour = theme.PANEL, radius: int | None = None
    ) -> None:
        pygame.draw.rect(
            self.surface, colour, rect, border_radius=self.m.mm(2) if radius is None else radius
        )

    def button(
        self,
        rect: pygame.Rect,
        label: str,
        action: Action,
        *,
        style: str = "normal",  # "normal", "primary", "selected", "disabled"
        size: int | None = None,
    ) -> Target:
        """A labelled touch target; never smaller than 9 mm (it grows to fit if needed)."""
        rect = pygame.Rect(rect)
        if rect.height < self.m.target:
            rect.inflate_ip(0, self.m.target - rect.height)
        if rect.width < self.m.target:
            rect.inflate_ip(self.m.target - rect.width, 0)
        colour = {
            "primary": theme.BUTTON_PRIMARY,
            "selected": theme.BUTTON_SELECTED,
            "disabled": theme.BUTTON_DISABLED,
        }.get(style, theme.BUTTON)
        self.panel(rect, colour)
        if style == "selected":  # not colour alone: a white frame as well
            pygame.draw.rect(
                self.surface,
                theme.TEXT,
                rect,
                width=max(2, self.m.mm(0.7)),
                border_radius=self.m.mm(2),
            )
        text_colour = theme.MUTED if style == "disabled" else theme.TEXT
        label_size = size or self.m.font_body
        inner = rect.inflate(-self.m.mm(2), -self.m.mm(1))
        if label:
            self.line(
                label,
                rect.center,
                inner.width,
                label_size,
                text_colour,
                min_size=min(label_size, self.m.font_small * 2 // 3),
                anchor="center",
            )
        target = Target(rect, action, label)
        if style != "disabled":
            self.targets.append(target)
        return target

    def swatch(self, centre: tuple[int, int], radius: int, piece_class: str) -> None:
        fill, rim = theme.PIECES.get(piece_class, theme.UNKNOWN_PIECE)
        pygame.draw.circle(self.surface, theme.TEXT, centre, radius + 2)  # visible on dark too
        pygame.draw.circle(self.surface, fill, centre, radius)
        pygame.draw.circle(self.surface, rim, centre, radius, width=max(2, radius // 6))

    def hit(self, pos: tuple[int, int]) -> Action | None:
        """The action under a tap (the last drawn target wins where they overlap)."""
        for target in reversed(self.targets):
            if target.rect.collidepoint(pos):
                return target.action
        return None


def wrap(text: str, f: pygame.font.Font, width: int) -> list[str]:
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            candidate = f"{line} {word}" if line else word
            if f.size(candidate)[0] <= width or not line:
                line = candidate
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


def row(rect: pygame.Rect, count: int, gap: int) -> list[pygame.Rect]:
    """`rect` split into `count` equal boxes side by side."""
    if count <= 0:
        return []
    w = (rect.width - gap * (count - 1)) // count
    return [pygame.Rect(rect.left + i * (w + gap), rect.top, w, rect.height) for i in range(count)]


def column(rect: pygame.Rect, count: int, gap: int, height: int | None = None) -> list[pygame.Rect]:
    """`rect` split into `count` boxes stacked (each `height` tall, or equal shares)."""
    if count <= 0:
        return []
    h = height or (rect.height - gap * (count - 1)) // count
    return [pygame.Rect(rect.left, rect.top + i * (h + gap), rect.width, h) for i in range(count)]
