"""Setup and calibration: the live camera view with the markers found and the cell grid drawn
over it, the start position to place (cells still wrong are marked on the diagram), and a
Done button (the table's DONE) once the board shows the start position.

The page does no vision itself: the app hands it the frame and the overlay already projected
into image pixels (`vision` knows homographies, the display only draws polygons).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pygame

from companion.geometry import BoardGeometry
from companion.i18n import _
from display import theme
from display.board import draw_board
from display.layout import button_bar, draw_header, frame
from display.paint import Action, Painter, Target, fit, font, text_height, wrap

Polygon = Sequence[Sequence[float]]  # points (x, y); lists from numpy's tolist() too


@dataclass
class SetupModel:
    title: str  # "Set up Arinama"
    geometry: BoardGeometry
    start_cells: dict[str, str]  # the start position to place
    wrong: dict[str, str] = field(default_factory=dict)  # cell -> highlight role (still to fix)
    frame: object | None = None  # the camera image: a BGR numpy array or a pygame Surface
    markers: Sequence[Polygon] = field(default_factory=list)  # marker outlines, image px
    grid: Sequence[Polygon] = field(default_factory=list)  # cell outlines, image px
    text: str = "Place the start position"
    detail: str = ""
    status: str = ""  # "4 markers seen", "searching..."
    ready: bool = False  # the board shows the start position: Done is live
    # Boards without markers: the first player's corner cell (a1) outlined, image px; the
    # corners being tapped (image px or None) and the one the next tap sets; the buttons
    # (label, action kind, style) when they differ from Back / Done.
    first_cell: Polygon = field(default_factory=list)
    corners: list[tuple[float, float] | None] = field(default_factory=list)
    active_corner: int | None = None
    tapping: bool = False  # a tap on the camera picture sets a corner
    buttons: list[tuple[str, str, str]] = field(default_factory=list)


def draw(p: Painter, model: SetupModel) -> None:
    m = p.m
    w, h = p.surface.get_size()
    p.surface.fill(theme.BACKGROUND)
    extent = None
    if m.portrait:  # the camera picture as tall as its own shape needs, the rest below it
        iw, ih = _frame_size(model.frame)
        body_w = w - 2 * m.gap
        extent = min(round(body_w * ih / iw), round((h - m.mm(9.5)) * 0.45))
    f = frame((w, h), p, board_share=0.55, board_extent=extent)
    draw_header(p, f.header, model.title, model.status)

    view = f.board
    panel = f.panel
    buttons = [
        (_("Back"), Action("back"), "normal"),
        # "Done": the word the instruction uses ("press DONE") and the table button's name.
        (_("Done"), Action("confirm-setup"), "primary" if model.ready else "disabled"),
    ]
    if model.buttons:
        buttons = [(label, Action(kind), style) for label, kind, style in model.buttons]
    boxes = button_bar(p, panel, len(buttons))
    top_of_buttons = min(b.top for b in boxes)
    # The words at their full size first; the diagram of the start position gets the rest
    # (it is what the players copy), but never less than a third of the room.
    room = top_of_buttons - panel.top - m.gap
    words = _words_height(p, model, panel.width)
    diagram_h = min(panel.width, max(room // 3, room - words - m.gap))
    diagram = pygame.Rect(panel.left, panel.top, panel.width, diagram_h)
    below = _room_below_picture(p, view, model)
    if below is not None and min(below.size) > diagram_h:
        # Landscape, a wide picture: the diagram goes in the room the picture leaves under
        # it, larger than the panel could give it beside the buttons (a board of your own has
        # up to six of them: the diagram was a postage stamp), and the words get the panel.
        view = pygame.Rect(view.left, view.top, view.width, below.top - m.gap - view.top)
        diagram = below
        words_top = panel.top
    else:
        words_top = diagram.bottom + m.gap
    if model.frame is not None:
        _camera_view(p, view, model)
    else:
        p.panel(view, theme.PANEL)
        p.wrapped(
            _("No camera picture yet"),
            view.inflate(-m.mm(4), -m.mm(4)),
            m.font_body,
            theme.MUTED,
            align="center",
            valign="middle",
        )
    p.board_view = draw_board(
        p.surface, diagram, model.geometry, model.start_cells, model.wrong, labels=False
    )
    text_box = pygame.Rect(panel.left, words_top, panel.width, top_of_buttons - words_top - m.gap)
    size = _instruction_size(p, model, text_box)
    used = p.wrapped(model.text, text_box, size, min_size=m.font_body)
    p.instruction_rect = used
    if model.detail:
        detail_box = pygame.Rect(
            text_box.left,
            used.bottom + m.gap,
            text_box.width,
            max(0, text_box.bottom - used.bottom - m.gap),
        )
        fitted = fit(model.detail, detail_box.width, detail_box.height, m.font_small, m.font_small)
        if fitted is not None:  # secondary: left out rather than cut when there is no room
            p.wrapped(model.detail, detail_box, m.font_small, theme.MUTED)
        else:
            p.left_out.append(model.detail)
    for box, (label, action, style) in zip(boxes, buttons, strict=True):
        p.button(box, label, action, style=style)


def _room_below_picture(p: Painter, view: pygame.Rect, model: SetupModel) -> pygame.Rect | None:
    """Landscape: the part of the picture's column that the camera picture, fitted to its
    width and put at the top, leaves free below it (None: portrait, or no room)."""
    if p.m.portrait:
        return None
    iw, ih = _frame_size(model.frame)
    picture_h = min(view.height, round(view.width * ih / iw))
    top = view.top + picture_h + p.m.gap
    if view.bottom - top <= 0:
        return None
    return pygame.Rect(view.left, top, view.width, view.bottom - top)


def _instruction_size(p: Painter, model: SetupModel, box: pygame.Rect) -> int:
    """The instruction's size: large, or as much smaller (down to body size) as lets the
    detail fit under it - at the board the players read it from close by, and the detail is
    what they need there (which chess piece is which Arimaa piece; what to do if the grid is
    wrong). Large when even body size leaves the detail no room: then it is left out."""
    m = p.m
    if not model.detail:
        return m.font_large
    for size in range(m.font_large, m.font_body - 1, -1):
        fitted = fit(model.text, box.width, box.height, size, size)
        if fitted is None:
            continue
        rest = box.height - text_height(len(fitted[1]), size) - m.gap
        if rest > 0 and fit(model.detail, box.width, rest, m.font_small, m.font_small):
            return size
    return m.font_large


def _words_height(p: Painter, model: SetupModel, width: int) -> int:
    """The instruction and the detail under the diagram, at their full sizes."""
    m = p.m
    lines = len(wrap(model.text, font(m.font_large), width))
    height = text_height(lines, m.font_large)
    if model.detail:
        lines = len(wrap(model.detail, font(m.font_small), width))
        height += m.gap + text_height(lines, m.font_small)
    return height


def _frame_size(image: object) -> tuple[int, int]:
    """A camera frame's (width, height) - 16:9 when there is none yet - without making it a
    Surface (a copy of every pixel: on a Pi, at every drawing of the page)."""
    if image is None:
        return (16, 9)
    if isinstance(image, pygame.Surface):
        return image.get_size()
    height, width = image.shape[:2]  # type: ignore[attr-defined]
    return (width, height)


def frame_surface(image: object) -> pygame.Surface:
    """A camera frame (BGR numpy array, as OpenCV gives) as a pygame Surface."""
    if isinstance(image, pygame.Surface):
        return image
    array = np.ascontiguousarray(image[:, :, ::-1])  # BGR -> RGB
    h, w = array.shape[:2]
    return pygame.image.frombuffer(array.tobytes(), (w, h), "RGB")


def _camera_view(p: Painter, rect: pygame.Rect, model: SetupModel) -> None:
    image = frame_surface(model.frame)
    iw, ih = image.get_size()
    scale = min(rect.width / iw, rect.height / ih)
    size = (max(1, round(iw * scale)), max(1, round(ih * scale)))
    shown = pygame.transform.smoothscale(image, size)
    at = shown.get_rect(center=rect.center)
    p.surface.blit(shown, at)

    def px(point: Sequence[float]) -> tuple[int, int]:
        return (round(at.left + point[0] * scale), round(at.top + point[1] * scale))

    width = max(1, p.m.mm(0.4))
    for polygon in model.grid:
        if len(polygon) >= 3:
            pygame.draw.polygon(p.surface, theme.SKY_BLUE, [px(q) for q in polygon], width)
    for polygon in model.markers:
        if len(polygon) >= 3:
            pygame.draw.polygon(p.surface, theme.YELLOW, [px(q) for q in polygon], width + 2)
    if len(model.first_cell) >= 3:  # the first player's corner (a1): which way round it is
        pygame.draw.polygon(p.surface, theme.YELLOW, [px(q) for q in model.first_cell], width + 2)
    radius = max(4, p.m.mm(1.6))
    if len(model.corners) == 4 and all(c is not None for c in model.corners):
        pygame.draw.polygon(p.surface, theme.YELLOW, [px(c) for c in model.corners], width + 1)
    for number, corner in enumerate(model.corners):
        if corner is None:
            continue
        active = number == model.active_corner
        centre = px(corner)
        pygame.draw.circle(p.surface, theme.TEXT, centre, radius + 2)
        pygame.draw.circle(p.surface, theme.YELLOW if active else theme.SKY_BLUE, centre, radius)
        size = max(8, radius * 3 // 2)
        p.line(
            str(number + 1),
            centre,
            radius * 2,
            size,
            theme.BACKGROUND,
            min_size=size,
            anchor="center",
        )
    if model.tapping:  # the whole picture is the target: the app turns the tap into image px
        p.camera_view = (at, scale)
        p.targets.append(Target(at.copy(), Action("camera"), "camera"))
