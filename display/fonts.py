"""The display's font: pygame's bundled one (`pygame.font.Font(None, size)`, shipped with
pygame-ce, so a fresh Pi or CI needs no system fonts), cached by size, and the size whose
capitals are a given number of pixels tall (measured on the ink of a rendered "H")."""

from __future__ import annotations

import pygame

_fonts: dict[tuple[int, bool], pygame.font.Font] = {}
_caps: dict[int, int] = {}


def font(size: int, bold: bool = False) -> pygame.font.Font:
    key = (size, bold)
    if key not in _fonts:
        if not pygame.font.get_init():
            pygame.font.init()
        f = pygame.font.Font(None, size)
        f.bold = bold
        _fonts[key] = f
    return _fonts[key]


def forget() -> None:
    """Drop the fonts made so far: after `pygame.quit()` they are dead ("font module quit
    since font created"), and the next `display.device.init_pygame` makes them anew."""
    _fonts.clear()


def cap_height(size: int, bold: bool = True) -> int:
    """The ink height in pixels of a capital "H" rendered at `size` (the display's font),
    counting only pixels at least half inked (the faint anti-aliased rim does not count)."""
    key = size * 2 + bold
    if key not in _caps:
        image = font(size, bold).render("H", True, (255, 255, 255))
        rects = pygame.mask.from_surface(image, 127).get_bounding_rects()
        _caps[key] = max((r.bottom for r in rects), default=0) - min(
            (r.top for r in rects), default=0
        )
    return _caps[key]


def font_for_cap(pixels: int, bold: bool = True) -> int:
    """The smallest font size whose capitals are at least `pixels` tall."""
    size = max(4, pixels)
    while cap_height(size, bold) < pixels:
        size += 1
    return size
