"""The play screen: the board as the camera last saw it, what to do now in big type, the cells
to act on highlighted, whose turn it is, and whether hands are over the board."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pygame

from companion import i18n
from companion.geometry import BoardGeometry
from companion.i18n import _, language, pgettext
from display import theme
from display.board import draw_board
from display.layout import button_bar, draw_header, frame
from display.paint import Action, Painter, Target, fit, font, text_height, wrap

if TYPE_CHECKING:  # the model's type only: the display needs no referee
    from companion.referee.protocol import Instruction


@dataclass
class PlayModel:
    title: str  # "Arinama"
    geometry: BoardGeometry
    cells: dict[str, str]  # what the diagram shows (the last clean board seen, else the position)
    instruction: Instruction
    turn: str | None  # the player to move ("black"), None when over
    move_label: str = "1"  # the move to play as the game counts ("7"; Arimaa "2g")
    hands: bool = False  # a hand is over the board
    # ... and has lain there for a while: perhaps no hand (a shadow, a piece on the margin) -
    # the players may say the board is clear
    covered: bool = False
    covered_near: str = ""  # ... near this cell ("h4"), when the camera can say
    camera: str = ""  # short camera state for the header ("still", "moving", "no camera")
    last_move: str = ""
    can_roll: bool = False
    # DONE does something now: not while the pieces the camera learned from are to come off
    can_done: bool = True
    # the players may say the board is right and the camera wrong (BOARD IS RIGHT)
    can_say_board_right: bool = False
    colour_names: dict[str, str] = field(default_factory=dict)  # class -> the table's word
    piece_labels: dict[str, str] = field(default_factory=dict)  # cell -> type ("E") on the piece
    # what the letters on the pieces mean, in the table's words ("E elephant · M camel ...")
    piece_key: str = ""
    cell_action: str = ""  # when set, every cell is a touch target: Action(cell_action, cell)
    # the answer the table's DONE takes (kind "choose"): drawn as the one primary button (""
    # none pointed at: every answer is)
    pointed: str = ""


# The board's share of a portrait screen's height. The rest holds whose turn, the hands banner,
# two lines of instruction at full size with two lines of detail, the key and one row of
# buttons (720x1280); longer instructions shrink towards the floor.
PORTRAIT_BOARD_SHARE = 0.5


def draw(p: Painter, model: PlayModel) -> None:
    m = p.m
    size = p.surface.get_size()
    p.surface.fill(theme.BACKGROUND)
    f = frame(size, p, board_share=PORTRAIT_BOARD_SHARE if m.portrait else 0.58)
    right = model.camera
    draw_header(
        p,
        f.header,
        _("{game} · move {number}").format(game=model.title, number=model.move_label),
        right,
    )
    p.board_view = draw_board(
        p.surface,
        f.board,
        model.geometry,
        model.cells,
        {} if model.covered else model.instruction.highlights,  # (its words are not shown)
        piece_labels=model.piece_labels,
    )
    if model.cell_action:  # e.g. arranging Arimaa's setup by touch
        _cell_targets(p, model.cell_action)
    panel = f.panel
    y = _whose_turn(p, model, panel) if model.turn else panel.top
    if model.hands:  # a yellow striped banner with black text: not colour alone
        banner = pygame.Rect(panel.left, y, panel.width, m.mm(9))
        _hands_banner(p, banner, _("Something lies on the board") if model.covered else None)
        y = banner.bottom + m.gap

    buttons = _buttons(model)
    boxes = button_bar(p, panel, len(buttons), min_width_mm=_button_mm(p, buttons))
    bottom = min(b.top for b in boxes) - m.gap if boxes else panel.bottom
    instruction = say(model.instruction.text, model.colour_names)
    detail = say(model.instruction.detail, model.colour_names)
    if model.covered:  # nothing is read until it goes, or the players say it is no hand
        instruction = _("Take away what lies there, or tap Board clear")
        detail = (
            _("Near {cell} - perhaps only a lamp's shadow").format(cell=model.covered_near)
            if model.covered_near
            else _("Perhaps only a lamp's shadow")
        )
    roles = [] if model.covered else _roles(model)
    key = "" if model.covered else model.piece_key
    plan = _plan(p, instruction, detail, roles, key, panel.width, bottom - y)

    text_box = pygame.Rect(panel.left, y, panel.width, plan.instruction_h)
    used = p.wrapped(instruction, text_box, plan.size, min_size=plan.min_size)
    p.instruction_rect = used
    if plan.detail_size:
        detail_top = used.bottom + m.gap
        p.wrapped(
            detail,
            pygame.Rect(panel.left, detail_top, panel.width, plan.detail_h),
            plan.detail_size,
            theme.MUTED,
            min_size=plan.detail_size,
        )
    elif detail:
        p.left_out.append(detail)
    if plan.legend:
        legend_h = _legend_height(p, roles, panel.width)
        _legend(p, roles, pygame.Rect(panel.left, bottom - legend_h, panel.width, legend_h))
        if key:  # above the colours' key
            lines = _key_lines(p, key, panel.width)
            top = bottom - _key_block_height(p, roles, key, panel.width)
            for line in lines:
                p.line(line, (panel.left, top), panel.width, p.m.font_small, theme.MUTED)
                top += text_height(1, p.m.font_small)
    else:
        p.left_out += [_(theme.HIGHLIGHTS[role].label) for role in roles]
        if key:
            p.left_out.append(key)
    for box, (label, action, style) in zip(boxes, buttons, strict=True):
        p.button(box, label, action, style=style)


@dataclass(frozen=True)
class _Plan:
    """How the panel's text is laid out: the instruction's font size (and the size it may
    shrink to) and height, the detail's size and height (0: left out), the key or not."""

    size: int
    min_size: int
    instruction_h: int
    detail_size: int = 0
    detail_h: int = 0
    legend: bool = False


def _cell_targets(p: Painter, action: str) -> None:
    """Every cell of the board drawn a tap target for `action` (its value: the cell)."""
    for cell, points in p.board_view.cell_polygons.items():
        xs, ys = [x for x, _ in points], [y for _, y in points]
        rect = pygame.Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
        p.targets.append(Target(rect, Action(action, cell), cell))


def _whose_turn(p: Painter, model: PlayModel, panel: pygame.Rect) -> int:
    """Whose turn at the top of `panel`: a piece swatch and the name; returns the y below."""
    m = p.m
    y = panel.top
    r = m.mm(3.5)
    turn = model.turn or ""
    p.swatch((panel.left + r + 2, y + r + 2), r, theme.PLAYER_CLASS.get(turn, turn))
    who = player_label(turn, model.colour_names)
    label = (
        _("{player} to play").format(player=who) if model.instruction.kind != "game-over" else who
    )
    left = panel.left + 2 * r + m.gap * 2
    p.line(label, (left, y + r + 2), panel.right - left, m.font_body, anchor="midleft")
    return y + 2 * r + m.gap * 2


def _key_lines(p: Painter, key: str, width: int) -> list[str]:
    """The pieces' key (`PlayModel.piece_key`) wrapped to `width` in small type; a letter and
    its name are joined by a no-break space, so they stay on one line."""
    return wrap(key, font(p.m.font_small), width) if key else []


def _key_block_height(p: Painter, roles: list[str], key: str, width: int) -> int:
    """The height of everything above the buttons that keys the diagram: the pieces' key,
    then the highlights' (`_legend_height`), a gap between them."""
    legend_h = _legend_height(p, roles, width)
    key_h = text_height(len(_key_lines(p, key, width)), p.m.font_small)
    return legend_h + key_h + (p.m.gap if legend_h and key_h else 0)


def _plan(
    p: Painter, text: str, detail: str, roles: list[str], key: str, width: int, height: int
) -> _Plan:
    """The instruction comes first: it is shrunk from the huge size down to the large one
    before anything else gives way; below that the keys (the highlights' and the pieces'),
    then the detail are left out; only when the instruction alone does not fit at the large
    size does it shrink to body size, and only below that is it cut (with an ellipsis, see
    Painter.wrapped)."""
    m = p.m
    legend_h = _key_block_height(p, roles, key, width)
    # (detail, key): the detail is the rule or the camera's doubt - worth more than the key,
    # whose colours the diagram shows anyway
    options = [(True, True), (True, False), (False, True), (False, False)]
    for with_detail, with_legend in options:
        if (with_detail and not detail) or (with_legend and not (roles or key)):
            continue
        room = height - (legend_h + m.gap if with_legend else 0)
        for size in range(m.font_huge, m.font_large - 1, -1):
            fitted = fit(text, width, room, size, size)
            if fitted is None:
                continue
            used = text_height(len(fitted[1]), size)
            if not with_detail:
                return _Plan(size, size, used, legend=with_legend)
            rest = room - used - m.gap
            small = fit(detail, width, rest, m.font_body, m.font_small)
            if small is not None:
                return _Plan(size, size, used, small[0], rest, with_legend)
    return _Plan(m.font_large, min(m.font_large, m.font_body), max(0, height))


def _button_mm(p: Painter, buttons: list[tuple[str, Action, str]]) -> float:
    """The narrowest a button may be: its label at body size with a margin, 15 mm at least."""
    widest = max((font(p.m.font_body).size(label)[0] for label, _, _ in buttons), default=0)
    return max(15.0, (widest + p.m.mm(5)) / p.m.px_per_mm)


def _buttons(model: PlayModel) -> list[tuple[str, Action, str]]:
    kind = model.instruction.kind
    buttons: list[tuple[str, Action, str]] = [(_("Menu"), Action("menu"), "normal")]
    if kind == "choose":
        return buttons + [
            (
                choice_label(c),
                Action("choose", c),
                "normal" if model.pointed not in ("", c) else "primary",
            )
            for c in model.instruction.choices
        ]
    if kind == "game-over":
        return buttons + [
            (_("Review"), Action("review"), "normal"),
            (_("New game"), Action("new-game"), "primary"),
        ]
    if model.covered:  # nothing is read until it is settled (the table's buttons still work)
        return buttons + [(_("Board clear"), Action("board-clear"), "primary")]
    buttons.append((_("Undo"), Action("undo"), "normal"))
    if (model.can_roll and kind != "confirm") or kind == "roll":  # (not while a take-back waits)
        buttons.append((_("Roll"), Action("roll"), "primary" if kind == "roll" else "normal"))
    if kind == "confirm":
        buttons.append((_("Cancel"), Action("cancel"), "normal"))
    if model.can_say_board_right:
        # the players may say the camera is wrong (on the screen only; the referee says when:
        # never while a hand is over the board, when the board last read may be gone)
        buttons.append((_("Board is right"), Action("board-right"), "normal"))
    # The instructions name the button in capitals ("press DONE", "drück FERTIG").
    wants_done = kind == "confirm" or _("DONE") in model.instruction.text
    if model.can_done or wants_done:
        buttons.append((_("Done"), Action("done"), "primary" if wants_done else "normal"))
    return buttons


def _hands_banner(p: Painter, rect: pygame.Rect, text: str | None = None) -> None:
    pygame.draw.rect(p.surface, theme.HANDS, rect, border_radius=p.m.mm(1.5))
    stripe = p.m.mm(2)
    clip = p.surface.get_clip()
    p.surface.set_clip(rect)
    for x in range(rect.left - rect.height, rect.right, stripe * 3):
        pygame.draw.line(p.surface, (60, 60, 20), (x, rect.bottom), (x + rect.height, rect.top), 2)
    p.surface.set_clip(clip)
    inner = rect.inflate(-p.m.mm(2), -p.m.mm(1.5))
    pygame.draw.rect(p.surface, theme.HANDS, inner, border_radius=p.m.mm(1))
    p.line(
        text or _("Hands on the board"),
        inner.center,
        inner.width - p.m.gap,
        p.m.font_body,
        (0, 0, 0),
        anchor="center",
    )


def _roles(model: PlayModel) -> list[str]:
    seen: list[str] = []
    for role in model.instruction.highlights.values():
        if role not in seen and role in theme.HIGHLIGHTS:
            seen.append(role)
    return seen


def _legend_items(p: Painter, roles: list[str], width: int) -> list[list[tuple[str, int]]]:
    """The key's entries (role, width) in rows no wider than `width`."""
    rows: list[list[tuple[str, int]]] = [[]]
    x = 0
    box = p.m.mm(4.5)
    for role in roles:
        label_w = font(p.m.font_small).size(_(theme.HIGHLIGHTS[role].label))[0]
        w = min(width, box + p.m.gap + label_w)
        if rows[-1] and x + w > width:
            rows.append([])
            x = 0
        rows[-1].append((role, w))
        x += w + p.m.gap * 3
    return rows if rows[0] else []


def _legend_row_height(p: Painter) -> int:
    return max(p.m.mm(6), font(p.m.font_small).get_height())


def _legend_height(p: Painter, roles: list[str], width: int) -> int:
    rows = _legend_items(p, roles, width)
    if not rows:
        return 0
    return len(rows) * _legend_row_height(p) + (len(rows) - 1) * p.m.gap // 2


def _legend(p: Painter, roles: list[str], rect: pygame.Rect) -> None:
    """A key to the highlight colours and patterns on the diagram: a swatch drawn like the
    highlight (dark edge, the hue, the pattern) and what it asks for."""
    box = p.m.mm(4.5)
    row_h = _legend_row_height(p)
    y = rect.top
    for entries in _legend_items(p, roles, rect.width):
        x = rect.left
        for role, w in entries:
            style = theme.HIGHLIGHTS[role]
            swatch = pygame.Rect(x, y + (row_h - box) // 2, box, box)
            pygame.draw.rect(p.surface, theme.BOARD, swatch)
            inner = swatch.inflate(-6, -6)
            pygame.draw.rect(p.surface, style.colour, inner)
            if style.pattern in ("stripes", "cross", "hatch"):  # the pattern, as on the board
                pygame.draw.line(p.surface, style.outline, inner.bottomleft, inner.topright, 3)
            if style.pattern in ("cross", "hatch"):
                pygame.draw.line(p.surface, style.outline, inner.topleft, inner.bottomright, 3)
            if style.pattern == "dots":
                pygame.draw.circle(p.surface, style.outline, inner.center, max(2, box // 6))
            if style.pattern == "ring":
                pygame.draw.circle(p.surface, style.outline, inner.center, box // 3, 2)
            if style.pattern == "circle":  # whole, and wider than the ring's
                pygame.draw.circle(p.surface, style.outline, inner.center, box // 3, 3)
            if style.pattern == "double":
                pygame.draw.rect(p.surface, style.outline, inner.inflate(-6, -6), 2)
            if style.pattern == "corners":  # the board's brown between the brackets
                pygame.draw.rect(p.surface, theme.BOARD, swatch)
                _brackets(p.surface, style, swatch)  # (they are its edge: no outline round it)
            else:
                pygame.draw.rect(p.surface, style.outline, swatch, 3)
            if style.pattern == "dotted":
                pygame.draw.rect(p.surface, style.colour, swatch.inflate(-2, -2), 1)
            left = swatch.right + p.m.gap
            p.line(
                _(style.label),
                (left, swatch.centery),
                x + w - left,
                p.m.font_small,
                theme.MUTED,
                anchor="midleft",
            )
            x += w + p.m.gap * 3
        y += row_h + p.m.gap // 2


def _brackets(surface: pygame.Surface, style: theme.HighlightStyle, swatch: pygame.Rect) -> None:
    """The "corners" pattern on a key's swatch: a viewfinder's four brackets."""
    arm = max(3, swatch.width // 3)
    for cx, cy, dx, dy in (
        (swatch.left, swatch.top, 1, 1),
        (swatch.right - 1, swatch.top, -1, 1),
        (swatch.right - 1, swatch.bottom - 1, -1, -1),
        (swatch.left, swatch.bottom - 1, 1, -1),
    ):
        for colour, width in ((style.outline, 4), (style.colour, 2)):
            pygame.draw.line(surface, colour, (cx, cy), (cx + dx * arm, cy), width)
            pygame.draw.line(surface, colour, (cx, cy), (cx, cy + dy * arm), width)


def name(piece_class: str, colour_names: dict[str, str]) -> str:
    return colour_names.get(piece_class, piece_class)


def player_label(piece_class: str, colour_names: dict[str, str]) -> str:
    """The player's name in the table's words and language ("Dark", "Schwarz", "Dunkel")."""
    if language() == "en":
        return name(piece_class, colour_names).capitalize()
    i18n.set_colour_names(colour_names)
    return i18n.player(piece_class)


def choice_label(choice: str) -> str:
    """A choice's button label in the table's language (the value stays the referee's word)."""
    # a button's label starts with a capital, as "Menu" beside it does ("Use this", "Cat")
    return i18n.capitalise(pgettext("choice", choice) if choice in CHOICES else choice)


# The referee's and the app's choice values; `_mark_choices` marks them for the catalogue.
CHOICES = (
    "chess",
    "standard",
    "previous",
    "arrange",
    "use this",
    "back",
    "elephant",
    "camel",
    "horse",
    "dog",
    "cat",
    "rabbit",
    "king",
    "queen",
    "rook",
    "bishop",
    "knight",
    "pawn",
)


def _mark_choices() -> None:  # pragma: no cover - never called, only read by the extractor
    pgettext("choice", "chess")
    pgettext("choice", "standard")
    pgettext("choice", "previous")
    pgettext("choice", "arrange")
    pgettext("choice", "use this")
    pgettext("choice", "back")
    pgettext("choice", "elephant")
    pgettext("choice", "camel")
    pgettext("choice", "horse")
    pgettext("choice", "dog")
    pgettext("choice", "cat")
    pgettext("choice", "rabbit")
    pgettext("choice", "king")
    pgettext("choice", "queen")
    pgettext("choice", "rook")
    pgettext("choice", "bishop")
    pgettext("choice", "knight")
    pgettext("choice", "pawn")


def say(text: str, colour_names: dict[str, str]) -> str:
    """The referee's sentence in the table's own colour words (Settings -> colour names):
    "Turn d4 to black" reads "Turn d4 to dark" when black pieces are called dark here. (In
    German the referee names the colours in the table's words itself: `companion.i18n`.)"""
    if not colour_names or language() != "en":
        return text

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
