"""Colours, highlight styles and physical sizes for the touchscreen.

Highlight colours are the Okabe-Ito palette (safe for the common colour-vision deficiencies),
and every role also has its own *pattern*, so a highlight never depends on colour alone:

    target   blue, dashed ring              where a piece may go / should be put
    from     sky blue, dotted outline       where a piece came from
    to       bluish green, solid outline    where a piece went
    flip     orange, diagonal stripes       turn this stone over
    remove   vermillion, a cross            take this piece off
    restore  reddish purple, dots           put the board back as it was here
    error    vermillion, cross-hatch + X    what makes the move illegal

Sizes are in millimetres on the glass and turned into pixels with the panel's density, so a
button is at least 9 mm (a fingertip) and the instruction is readable from a metre away
(letters about 5 mm high) on the 7" 800x480 panel and on a 720x1280 portrait panel alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from companion.referee.protocol import ERROR, FLIP, FROM, REMOVE, RESTORE, TARGET, TO

Colour = tuple[int, int, int]

# Okabe & Ito (2008), "Color Universal Design".
ORANGE = (230, 159, 0)
SKY_BLUE = (86, 180, 233)
BLUISH_GREEN = (0, 158, 115)
YELLOW = (240, 228, 66)
BLUE = (0, 114, 178)
VERMILLION = (213, 94, 0)
REDDISH_PURPLE = (204, 121, 167)

BACKGROUND = (28, 30, 34)
PANEL = (44, 47, 54)
PANEL_LIGHT = (62, 66, 76)
TEXT = (245, 245, 240)
MUTED = (178, 182, 190)
BOARD = (226, 204, 160)  # light wood
BOARD_LINE = (92, 70, 44)
BUTTON = (70, 76, 90)
BUTTON_PRIMARY = BLUE
BUTTON_SELECTED = BLUISH_GREEN
BUTTON_DISABLED = (52, 55, 62)
HANDS = YELLOW


@dataclass(frozen=True)
class HighlightStyle:
    colour: Colour
    pattern: str  # "ring", "dotted", "outline", "stripes", "cross", "dots"
    label: str  # shown in the legend


HIGHLIGHTS: dict[str, HighlightStyle] = {
    TARGET: HighlightStyle(BLUE, "ring", "put here"),
    FROM: HighlightStyle(SKY_BLUE, "dotted", "from"),
    TO: HighlightStyle(BLUISH_GREEN, "outline", "to"),
    FLIP: HighlightStyle(ORANGE, "stripes", "turn over"),
    REMOVE: HighlightStyle(VERMILLION, "cross", "take off"),
    RESTORE: HighlightStyle(REDDISH_PURPLE, "dots", "put back"),
    ERROR: HighlightStyle(VERMILLION, "hatch", "not allowed"),
}

# What each piece class the camera reports looks like on the diagram: (fill, rim).
PIECES: dict[str, tuple[Colour, Colour]] = {
    "black": ((24, 24, 26), (110, 110, 116)),
    "white": ((246, 246, 240), (120, 120, 120)),
    "gold": ((226, 172, 40), (120, 84, 10)),
    "silver": ((176, 182, 194), (84, 90, 102)),
    "amber": ((244, 166, 36), (136, 80, 0)),
    "blue": ((40, 96, 200), (16, 40, 96)),
    "green": ((40, 150, 70), (14, 70, 30)),
    "red": ((200, 44, 40), (96, 16, 14)),
    "green-character": ((40, 150, 70), (14, 70, 30)),
    "red-character": ((200, 44, 40), (96, 16, 14)),
}
UNKNOWN_PIECE = ((150, 150, 150), (60, 60, 60))

# The players' colours for "whose turn" swatches (the first class each player's pieces show).
PLAYER_CLASS = {
    "black": "black",
    "white": "white",
    "gold": "gold",
    "silver": "silver",
    "amber": "amber",
    "blue": "blue",
    "green": "green",
    "red": "red",
}

OFFICIAL_7_INCH = (800, 480)


@dataclass(frozen=True)
class Metrics:
    """Pixel sizes for a panel of `size` pixels and `diagonal_in` inches."""

    size: tuple[int, int]
    diagonal_in: float = 7.0

    @property
    def px_per_mm(self) -> float:
        w, h = self.size
        return math.hypot(w, h) / (self.diagonal_in * 25.4)

    def mm(self, millimetres: float) -> int:
        return max(1, round(millimetres * self.px_per_mm))

    @property
    def portrait(self) -> bool:
        return self.size[1] > self.size[0]

    # Touch targets: 9 mm is the floor; buttons are a little bigger.
    @property
    def target(self) -> int:
        return self.mm(9.0)

    @property
    def button_height(self) -> int:
        return self.mm(11.0)

    @property
    def gap(self) -> int:
        return self.mm(2.0)

    # Font sizes (pygame's size is about the em; capitals are ~0.7 of it).
    @property
    def font_huge(self) -> int:  # the instruction: ~5.5 mm capitals, readable from a metre
        return self.mm(8.0)

    @property
    def font_large(self) -> int:
        return self.mm(6.5)

    @property
    def font_body(self) -> int:  # ~3.5 mm capitals: still fine at arm's length and beyond
        return self.mm(5.0)

    @property
    def font_small(self) -> int:
        return self.mm(4.2)
