"""Colours, highlight styles and physical sizes for the touchscreen.

Highlight colours are the Okabe-Ito palette (safe for the common colour-vision deficiencies),
and every role also has its own *pattern*, so a highlight never depends on colour alone:

    role     legend         colour, pattern                what it marks
    target   "put here"     blue, dashed ring              where a piece may go / should be put
    from     "moved from"   sky blue, dotted outline       where a piece came from
    to       "just moved"   bluish green, solid outline    where a piece went
    flip     "turn over"    orange, diagonal stripes       turn this stone over
    remove   "take off"     vermillion, a cross            take this piece off
    restore  "put back"     reddish purple, dots           put the board back as it was here
    error    "not allowed"  vermillion, cross-hatch + X    what makes the move illegal

The bright Okabe-Ito hues are too light to stand out on the light wood of the diagram (orange
is 1.4:1 against it), so every outline, dash and cross is drawn twice: a wide stroke in a dark
shade of the same hue (at least 4.5:1 against the wood, `HighlightStyle.outline`) with the
bright hue down its middle - the hue still names the role, the dark edge makes it visible from
a metre away, and the pattern makes it readable without colour.

Sizes are in millimetres on the glass and turned into pixels with the panel's density, so a
button is at least 9 mm (a fingertip). The instruction's font is chosen by measuring the ink of
a rendered capital "H", so its capitals are at least 5 mm tall on the glass (readable from a
metre): 28 px on the official 7" 800x480 panel, whose pixels are 0.179 mm tall (85.92 mm /
480); on other panels the pixel size comes from the diagonal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from companion.highlights import (
    ASKED,
    ERROR,
    FLIP,
    FROM,
    PICKED,
    REMOVE,
    RESTORE,
    TARGET,
    TO,
    UNCLEAR,
    WORDS,
)
from display.fonts import font_for_cap

Colour = tuple[int, int, int]

# Okabe & Ito (2008), "Color Universal Design".
ORANGE = (230, 159, 0)
SKY_BLUE = (86, 180, 233)
BLUISH_GREEN = (0, 158, 115)
YELLOW = (240, 228, 66)
BLUE = (0, 114, 178)
VERMILLION = (213, 94, 0)
# The problem bar behind white text: vermillion darkened to 5.5:1 against white (the bright
# hue is 3.9:1, under the 4.5:1 small text needs)
PROBLEM_BAR = (180, 70, 0)
REDDISH_PURPLE = (204, 121, 167)

BACKGROUND = (28, 30, 34)
PANEL = (44, 47, 54)
TEXT = (245, 245, 240)
MUTED = (178, 182, 190)
BOARD = (226, 204, 160)  # light wood
BOARD_LINE = (92, 70, 44)
TRAP = (196, 160, 112)  # an Arimaa trap: a darker wood, the cell names still dark on it
PIT = (120, 92, 60)  # a Sensei storm pit: dark, so its name is written light (CELL_LABEL_ON_PIT)
BUTTON = (70, 76, 90)
BUTTON_PRIMARY = BLUE
BUTTON_SELECTED = BLUISH_GREEN
BUTTON_DISABLED = (52, 55, 62)
HANDS = YELLOW


def luminance(colour: Colour) -> float:
    """WCAG relative luminance of an sRGB colour."""

    def linear(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: Colour, b: Colour) -> float:
    """WCAG contrast ratio (1 to 21)."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def dark_shade(colour: Colour, against: Colour = BOARD, ratio: float = 4.5) -> Colour:
    """The same hue, darkened until it has `ratio` contrast against `against`."""
    for step in range(100, 0, -1):
        shade = tuple(round(c * step / 100) for c in colour)
        if contrast(shade, against) >= ratio:
            return shade  # type: ignore[return-value]
    return (0, 0, 0)


@dataclass(frozen=True)
class HighlightStyle:
    colour: Colour  # the Okabe-Ito hue: fill tint, pattern and the middle of every stroke
    # "ring", "dotted", "outline", "stripes", "cross", "dots", "hatch", "corners", "circle",
    # "double"
    pattern: str
    label: str  # shown in the legend (English; translated where it is drawn)

    @property
    def outline(self) -> Colour:
        """The dark shade of the hue under every stroke (>= 4.5:1 against the board)."""
        return dark_shade(self.colour)


HIGHLIGHTS: dict[str, HighlightStyle] = {
    TARGET: HighlightStyle(BLUE, "ring", WORDS[TARGET]),
    FROM: HighlightStyle(SKY_BLUE, "dotted", WORDS[FROM]),
    TO: HighlightStyle(BLUISH_GREEN, "outline", WORDS[TO]),
    FLIP: HighlightStyle(ORANGE, "stripes", WORDS[FLIP]),
    REMOVE: HighlightStyle(VERMILLION, "cross", WORDS[REMOVE]),
    RESTORE: HighlightStyle(REDDISH_PURPLE, "dots", WORDS[RESTORE]),
    ERROR: HighlightStyle(VERMILLION, "hatch", WORDS[ERROR]),
    UNCLEAR: HighlightStyle(YELLOW, "corners", WORDS[UNCLEAR]),
    ASKED: HighlightStyle(SKY_BLUE, "circle", WORDS[ASKED]),
    PICKED: HighlightStyle(ORANGE, "double", WORDS[PICKED]),
}

# Cell names on the diagram ("d4"): small, so dark enough to read on the wood (4.5:1).
CELL_LABEL = (110, 84, 52)
CELL_LABEL_ON_PIT = BOARD  # on a pit, light with a dark rim (the dark name was lost on it)

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
OFFICIAL_7_INCH_ACTIVE_MM = (154.08, 85.92)  # the glass that shows pixels: 0.193 x 0.179 mm each
INSTRUCTION_CAP_MM = 5.0  # capitals of the instruction, readable from a metre


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

    @property
    def mm_per_px_tall(self) -> float:
        """How tall one pixel row is on the glass: from the official 7" panel's active area
        when this is that panel (either way up), else from the diagonal."""
        w, h = self.size
        if self.diagonal_in == 7.0 and (w, h) == OFFICIAL_7_INCH:
            return OFFICIAL_7_INCH_ACTIVE_MM[1] / h
        if self.diagonal_in == 7.0 and (h, w) == OFFICIAL_7_INCH:
            return OFFICIAL_7_INCH_ACTIVE_MM[0] / h
        return 1 / self.px_per_mm

    def cap_mm(self, pixels: int) -> float:
        """A capital `pixels` rows tall, in millimetres on the glass."""
        return pixels * self.mm_per_px_tall

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

    # Font sizes: pygame's size for its bundled font; its capitals are about half of it.
    @property
    def font_huge(self) -> int:
        """The instruction: the smallest size whose rendered capitals are at least
        INSTRUCTION_CAP_MM tall (measured on the glyph's ink, not the line box)."""
        return font_for_cap(math.ceil(INSTRUCTION_CAP_MM / self.mm_per_px_tall - 1e-9))

    @property
    def font_large(self) -> int:  # the long instruction's floor: ~3 mm capitals
        return self.mm(6.5)

    @property
    def font_body(self) -> int:  # 2.2-2.5 mm capitals: fine at arm's length
        return self.mm(5.0)

    @property
    def font_small(self) -> int:
        return self.mm(4.2)
