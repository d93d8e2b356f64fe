"""The play screen: the board as the camera last saw it, what to do now in big type, the cells
to act on highlighted, whose turn it is, and whether hands are over the board."""

from __future__ import annotations

from dataclasses import dataclass, field

import pygame

from companion.geometry import BoardGeometry
from companion.referee.protocol import Instruction
from display import theme
from display.board import draw_board
from display.layout import button_bar, draw_header, frame
from display.paint import Action, Painter


@dataclass
class PlayModel:
    title: str  # "Arinama"
    geometry: BoardGeometry
    cells: dict[str, str]  # what the diagram shows (the last clean board seen, else the position)
    instruction: Instruction
    turn: str | None  # the player to move ("black"), None when over
    move_number: int = 0
    hands: bool = False  # a hand is over the board
    camera: str = ""  # short camera state for the header ("still", "moving", "no camera")
    last_move: str = ""
    can_roll: bool = False
    colour_names: dict[str, str] = field(default_factory=dict)  # class -> the table's word


def draw(p: Painter, model: PlayModel) -> None:
    m = p.m
    size = p.surface.get_size()
    p.surface.fill(theme.BACKGROUND)
    f = frame(size, p)
    right = model.camera
    draw_header(p, f.header, f"{model.title} · move {model.move_number + 1}", right)
    p.board_view = draw_board(
        p.surface, f.board, model.geometry, model.cells, model.instruction.highlights
    )

    panel = f.panel
    y = panel.top
    if model.turn:  # whose turn: a piece swatch and the name
        r = m.mm(3.5)
        p.swatch((panel.left + r + 2, y + r + 2), r, theme.PLAYER_CLASS.get(model.turn, model.turn))
        who = name(model.turn, model.colour_names).capitalize()
        label = f"{who} to play" if model.instruction.kind != "game-over" else who
        p.text(
            label,
            (panel.left + 2 * r + m.gap * 2, y + r + 2),
            m.font_body,
            bold=True,
            anchor="midleft",
        )
        y += 2 * r + m.gap * 2

    if model.hands:  # a yellow striped banner with black text: not colour alone
        banner = pygame.Rect(panel.left, y, panel.width, m.mm(9))
        _hands_banner(p, banner)
        y = banner.bottom + m.gap

    buttons = _buttons(model)
    boxes = button_bar(p, panel, len(buttons))
    bottom = min(b.top for b in boxes) - m.gap if boxes else panel.bottom
    legend_h = _legend_height(p, model)
    text_box = pygame.Rect(panel.left, y, panel.width, max(0, bottom - y - legend_h))
    used = p.wrapped(
        say(model.instruction.text, model.colour_names),
        text_box,
        m.font_huge,
        bold=True,
        min_size=m.font_large,
    )
    p.instruction_rect = used
    if model.instruction.detail:
        detail_box = pygame.Rect(
            panel.left,
            used.bottom + m.gap,
            panel.width,
            max(0, text_box.bottom - used.bottom - m.gap),
        )
        if detail_box.height >= m.font_small:
            p.wrapped(
                say(model.instruction.detail, model.colour_names),
                detail_box,
                m.font_body,
                theme.MUTED,
                min_size=m.font_small,
            )
    _legend(p, model, pygame.Rect(panel.left, bottom - legend_h, panel.width, legend_h))
    for box, (label, action, style) in zip(boxes, buttons, strict=True):
        p.button(box, label, action, style=style)


def _buttons(model: PlayModel) -> list[tuple[str, Action, str]]:
    kind = model.instruction.kind
    buttons: list[tuple[str, Action, str]] = [("Menu", Action("menu"), "normal")]
    if kind == "choose":
        return buttons + [(c, Action("choose", c), "primary") for c in model.instruction.choices]
    if kind == "game-over":
        return buttons + [
            ("Review", Action("review"), "normal"),
            ("New game", Action("new-game"), "primary"),
        ]
    buttons.append(("Undo", Action("undo"), "normal"))
    if model.can_roll or kind == "roll":
        buttons.append(("Roll", Action("roll"), "primary" if kind == "roll" else "normal"))
    if kind == "confirm":
        buttons.append(("Cancel", Action("cancel"), "normal"))
    wants_done = kind == "confirm" or "DONE" in model.instruction.text
    buttons.append(("Done", Action("done"), "primary" if wants_done else "normal"))
    return buttons


def _hands_banner(p: Painter, rect: pygame.Rect) -> None:
    pygame.draw.rect(p.surface, theme.HANDS, rect, border_radius=p.m.mm(1.5))
    stripe = p.m.mm(2)
    clip = p.surface.get_clip()
    p.surface.set_clip(rect)
    for x in range(rect.left - rect.height, rect.right, stripe * 3):
        pygame.draw.line(p.surface, (60, 60, 20), (x, rect.bottom), (x + rect.height, rect.top), 2)
    p.surface.set_clip(clip)
    inner = rect.inflate(-p.m.mm(2), -p.m.mm(1.5))
    pygame.draw.rect(p.surface, theme.HANDS, inner, border_radius=p.m.mm(1))
    p.text("Hands on the board", inner.center, p.m.font_body, (0, 0, 0), bold=True, anchor="center")


def _roles(model: PlayModel) -> list[str]:
    seen: list[str] = []
    for role in model.instruction.highlights.values():
        if role not in seen and role in theme.HIGHLIGHTS:
            seen.append(role)
    return seen


def _legend_height(p: Painter, model: PlayModel) -> int:
    return (p.m.mm(6) + p.m.gap) if _roles(model) else 0


def _legend(p: Painter, model: PlayModel, rect: pygame.Rect) -> None:
    """A key to the highlight colours and patterns on the diagram."""
    x = rect.left
    box = p.m.mm(4.5)
    for role in _roles(model):
        style = theme.HIGHLIGHTS[role]
        swatch = pygame.Rect(x, rect.top + (rect.height - box) // 2 - p.m.gap // 2, box, box)
        pygame.draw.rect(p.surface, style.colour, swatch)
        if style.pattern in ("stripes", "cross", "hatch"):  # the pattern too, as on the board
            pygame.draw.line(p.surface, theme.BACKGROUND, swatch.bottomleft, swatch.topright, 2)
        if style.pattern in ("cross", "hatch"):
            pygame.draw.line(p.surface, theme.BACKGROUND, swatch.topleft, swatch.bottomright, 2)
        if style.pattern == "dots":
            pygame.draw.circle(p.surface, theme.BACKGROUND, swatch.center, max(2, box // 6))
        pygame.draw.rect(p.surface, theme.TEXT, swatch, 1)
        label_rect = p.text(
            style.label,
            (swatch.right + p.m.gap, swatch.centery),
            p.m.font_small,
            theme.MUTED,
            anchor="midleft",
        )
        x = label_rect.right + p.m.gap * 2
        if x > rect.right - box * 3:
            break


def name(piece_class: str, colour_names: dict[str, str]) -> str:
    return colour_names.get(piece_class, piece_class)


def say(text: str, colour_names: dict[str, str]) -> str:
    """The referee's sentence in the table's own colour words (Settings -> colour names):
    "Turn d4 to black" reads "Turn d4 to dark" when black pieces are called dark here."""
    if not colour_names:
        return text
    import re

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        new = colour_names.get(word.lower())
        if not new:
            return word
        return new.capitalize() if word[0].isupper() else new

    pattern = (
        r"\b("
        + "|".join(re.escape(k) for k in sorted(colour_names, key=len, reverse=True))
        + r")\b"
    )
    return re.sub(pattern, swap, text, flags=re.IGNORECASE)
