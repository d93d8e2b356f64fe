"""The dice screen: two large dice that tumble for a moment and land, the value in big type,
and the 3+4 rule spelled out when it applies (Aranea: a 3 and a 4 count as 1).

The animation is a function of `phase` (0 = just thrown, 1 = landed): the app redraws it at
~30 frames a second while the dice tumble (the app's `DICE_ANIMATION`) and then stops
redrawing - no idle animation. The faces shown while tumbling come from a small deterministic
sequence, so screenshots are repeatable.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pygame

from companion.i18n import _
from display import theme
from display.layout import button_bar, draw_header, frame
from display.paint import Action, Painter

PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


@dataclass
class DiceModel:
    dice: tuple[int, int] | None  # None: not rolled yet
    value: int | None = None  # the value that counts (the 3+4 rule applied)
    rule: str = ""  # e.g. "3 and 4 count as 1" when it applied
    phase: float = 1.0  # animation: 0 thrown .. 1 landed
    title: str = ""  # "" for "Dice" in the table's language
    who: str = ""  # "Amber rolls", "" for the plain roller
    continue_label: str = ""  # "Back" (plain roller, the default) or "Play" (in a game)
    can_roll: bool = True  # Roll does something now (in a game: only while a roll is due)


def draw(p: Painter, model: DiceModel) -> None:
    m = p.m
    w, h = p.surface.get_size()
    p.surface.fill(theme.BACKGROUND)
    f = frame((w, h), p, board_share=0.62)
    draw_header(p, f.header, model.title or _("Dice"), model.who)

    _draw_dice(p, f.board, model)

    panel = f.panel
    boxes = button_bar(p, panel, 2)
    top = panel.top
    if model.dice and model.phase >= 1.0:
        _draw_result(p, panel, model, boxes[0].top)
    elif not model.dice:
        p.wrapped(
            _("Press ROLL or tap Roll"),
            pygame.Rect(panel.left, top, panel.width, boxes[0].top - top),
            m.font_large,
            align="center",
        )
    else:
        p.text(
            _("Rolling..."),
            (panel.centerx, top + m.font_large),
            m.font_large,
            theme.MUTED,
            anchor="midtop",
        )
    # the button that does something is the main one: in a game once the dice have landed,
    # Play (a Roll that does nothing looked like the way on)
    roll_style, close_style = ("primary", "normal") if model.can_roll else ("disabled", "primary")
    p.button(boxes[0], model.continue_label or _("Back"), Action("dice-close"), style=close_style)
    p.button(boxes[1], _("Roll"), Action("roll"), style=roll_style)


def _draw_dice(p: Painter, area: pygame.Rect, model: DiceModel) -> None:
    """The two dice in `area`: tumbling and bouncing until `model.phase` reaches 1, then the
    faces rolled (outlined when a rule applies to the roll)."""
    side = min(area.height * 0.8, area.width * 0.42)
    landed = model.phase >= 1.0
    faces = model.dice if landed and model.dice else _tumbling_faces(model.phase)
    for i, face in enumerate(faces):
        cx = area.left + area.width * (0.28 + 0.44 * i)
        bounce = (
            0
            if landed
            else abs(math.sin(model.phase * math.pi * 3)) * side * 0.25 * (1 - model.phase)
        )
        cy = area.centery - bounce
        angle = 0 if landed else (1 - model.phase) * (200 + 90 * i)
        _die(
            p.surface,
            (round(cx), round(cy)),
            round(side),
            face,
            angle,
            highlight=landed and bool(model.rule),
        )


def _draw_result(p: Painter, panel: pygame.Rect, model: DiceModel, buttons_top: int) -> None:
    """The landed roll in `panel` above the buttons: "a + b", "= value" large, and the game's
    rule for this roll (Aranea: 3 and 4 count 7) in an orange box."""
    m = p.m
    top = panel.top
    assert model.dice is not None
    a, b = model.dice
    p.text(f"{a} + {b}", (panel.centerx, top), m.font_large, theme.MUTED, anchor="midtop")
    top += m.font_large
    value_rect = p.text(
        f"= {model.value}",
        (panel.centerx, top),
        m.mm(16),  # the value: capitals of 7 to 8 mm
        theme.TEXT,
        anchor="midtop",
    )
    p.value_rect = value_rect
    top = value_rect.bottom + m.gap
    if model.rule:
        rule_box = pygame.Rect(
            panel.left, top, panel.width, min(m.mm(22), buttons_top - top - m.gap)
        )
        pygame.draw.rect(
            p.surface,
            theme.ORANGE,
            rule_box.inflate(0, 0).clip(rule_box),
            width=3,
            border_radius=m.mm(1.5),
        )
        p.wrapped(
            model.rule,
            rule_box.inflate(-m.mm(3), -m.mm(2)),
            m.font_large,
            theme.ORANGE,
            align="center",
            valign="middle",
        )


def _tumbling_faces(phase: float) -> tuple[int, int]:
    step = int(phase * 12)
    return ((step * 5) % 6 + 1, (step * 3 + 2) % 6 + 1)


def _die(
    surface: pygame.Surface,
    centre: tuple[int, int],
    side: int,
    face: int,
    angle: float,
    highlight: bool,
) -> None:
    die = pygame.Surface((side, side), pygame.SRCALPHA)
    rect = die.get_rect()
    radius = side // 7
    pygame.draw.rect(die, (250, 248, 240), rect, border_radius=radius)
    pygame.draw.rect(
        die,
        theme.ORANGE if highlight else (120, 120, 120),
        rect,
        width=max(3, side // 30),
        border_radius=radius,
    )
    pip = max(3, side // 11)
    step = side * 0.27
    for dx, dy in PIPS[face]:
        pygame.draw.circle(
            die, (20, 20, 24), (round(side / 2 + dx * step), round(side / 2 + dy * step)), pip
        )
    if angle:
        die = pygame.transform.rotate(die, angle)
    surface.blit(die, die.get_rect(center=centre))
