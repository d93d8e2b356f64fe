"""The display's font: pygame's bundled one (`pygame.font.Font(None, size)`: FreeSans Bold, shipped with
pygame-ce, so a fresh Pi or CI needs no system fonts), cached by size, and the size whose
capitals are a given number of pixels tall (measured on the ink of a rendered "H")."""

from __future__ import annotations

import pygame

_fonts: dict[int, pygame.font.Font] = {}
_caps: dict[int, int] = {}


def font(size: int) -> pygame.font.Font:
    """The bundled face (FreeSans Bold) at `size`. Never emboldened again (`Font.bold`): the
    synthetic bold fused the two dots of German umlauts into a bar ("Zurūck", "gewūrfelt")
    at nearly every size, and the face is bold already."""
    if size not in _fonts:
        if not pygame.font.get_init():
            pygame.font.init()
        _fonts[size] = pygame.font.Font(None, size)
    return _fonts[size]


def forget() -> None:
    """Drop the fonts made so far: after `pygame.quit()` they are dead ("font module quit
    since font created"), and the next `display.device.init_pygame` makes them anew."""
    _fonts.clear()


def cap_height(size: int) -> int:
    """The ink height in pixels of a capital "H" rendered at `size` (the display's font),
    counting only pixels at least half inked (the faint anti-aliased rim does not count)."""
    if size not in _caps:
        image = font(size).render("H", True, (255, 255, 255))
        rects = pygame.mask.from_surface(image, 127).get_bounding_rects()
        _caps[size] = max((r.bottom for r in rects), default=0) - min(
            (r.top for r in rects), default=0
        )
    return _caps[size]


def font_for_cap(pixels: int) -> int:
    """The smallest font size whose capitals are at least `pixels` tall."""
    size = max(4, pixels)
    while cap_height(size) < pixels:
        size += 1
    return size
