"""The touchscreen, rendered headless with real pygame: every screen at both panel sizes, what
each must show (highlighted cells' pixels, the instruction text through the render path, touch
targets of at least 9 mm), rotation and touch mapping, and finger-vs-mouse handling."""

import numpy as np
import pygame
import pytest

from companion.geometry import board_geometry
from companion.referee.protocol import FLIP, REMOVE, TARGET, Instruction
from display import gallery, theme
from display.board import draw_board
from display.device import HeadlessScreen, logical_size, panel_to_logical
from display.paint import Painter
from display.screens import dice, play
from display.theme import Metrics
from display.touch import Key, Tap, TouchInput

SIZES = [(800, 480), (720, 1280)]


@pytest.fixture(autouse=True)
def pygame_headless():
    pygame.display.init()
    pygame.font.init()
    yield


def colour_at(surface, point):
    return tuple(surface.get_at(point))[:3]


def close(a, b, tolerance=12):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", list(gallery.EXAMPLES))
def test_every_screen_renders_at_both_sizes_with_finger_sized_targets(name, size, tmp_path):
    surface, painter, _ = gallery.render(name, size)
    path = tmp_path / f"{name}-{size[0]}x{size[1]}.png"
    pygame.image.save(surface, str(path))
    assert path.stat().st_size > 2000
    assert painter.targets, f"{name} has nothing to touch"
    nine_mm = Metrics(size).mm(9.0)
    for target in painter.targets:
        assert target.rect.width >= nine_mm and target.rect.height >= nine_mm, target
        assert surface.get_rect().contains(target.rect), f"{target.label} is off screen"
    # Nothing is drawn in the corner pixels' colour only: the page is not blank.
    assert (
        len(
            {
                colour_at(surface, (x, y))
                for x in range(0, size[0], 37)
                for y in range(0, size[1], 37)
            }
        )
        > 4
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_play_screen_shows_the_instruction_big_and_the_cells_to_flip(size):
    surface, painter, model = gallery.render("play", size)
    metrics = Metrics(size)
    # The instruction went through the render path, large enough to read from a metre.
    assert model.instruction.text in painter.texts
    rect = painter.instruction_rect
    assert rect.height >= metrics.mm(5.5)
    bright = sum(
        1
        for x in range(rect.left, rect.right, 2)
        for y in range(rect.top, rect.bottom, 2)
        if close(colour_at(surface, (x, y)), theme.TEXT, 30)
    )
    assert bright > 40
    # The highlighted cells carry their role's colour at their outline; others do not.
    view = painter.board_view
    flip = theme.HIGHLIGHTS[FLIP].colour

    def top_edge(cell):  # pixels just inside the middle of the cell's top edge
        xs = [x for x, _ in view.cell_polygons[cell]]
        ys = [y for _, y in view.cell_polygons[cell]]
        return [colour_at(surface, ((min(xs) + max(xs)) // 2, min(ys) + dy)) for dy in range(0, 3)]

    for cell in ("d4", "e5"):
        assert any(close(c, flip) for c in top_edge(cell)), cell
    assert not any(close(c, flip, 40) for c in top_edge("a1"))
    # Hands on the board: the yellow banner and its words.
    assert "Hands on the board" in painter.texts


def test_every_highlight_role_has_its_own_colour_or_pattern():
    styles = [(s.colour, s.pattern) for s in theme.HIGHLIGHTS.values()]
    assert len(set(styles)) == len(styles)
    okabe_ito = {
        theme.ORANGE,
        theme.SKY_BLUE,
        theme.BLUISH_GREEN,
        theme.YELLOW,
        theme.BLUE,
        theme.VERMILLION,
        theme.REDDISH_PURPLE,
    }
    assert {s.colour for s in theme.HIGHLIGHTS.values()} <= okabe_ito


@pytest.mark.parametrize("game", ["arinama", "arimaa", "aranea", "sensei"])
def test_board_diagram_of_every_game_highlights_the_named_cell(game):
    geometry = board_geometry(game)
    cell = geometry.cells[len(geometry.cells) // 2].name
    surface = pygame.Surface((400, 400))
    view = draw_board(surface, surface.get_rect(), geometry, {}, {cell: REMOVE})
    centre = view.cell_center(cell)
    assert close(colour_at(surface, centre), theme.HIGHLIGHTS[REMOVE].colour, 20)  # the cross
    assert view.cell_at(centre) == cell
    other = next(c.name for c in geometry.cells if c.name != cell)
    assert not close(
        colour_at(surface, view.cell_center(other)), theme.HIGHLIGHTS[REMOVE].colour, 40
    )


def test_pieces_are_drawn_in_their_colours():
    geometry = board_geometry("arimaa")
    surface = pygame.Surface((400, 400))
    view = draw_board(
        surface, surface.get_rect(), geometry, {"a1": "gold", "h8": "silver"}, {"b2": TARGET}
    )
    assert close(colour_at(surface, view.cell_center("a1")), theme.PIECES["gold"][0])
    assert close(colour_at(surface, view.cell_center("h8")), theme.PIECES["silver"][0])


def test_dice_screen_shows_the_value_and_the_three_four_rule():
    surface = pygame.Surface((800, 480))
    painter = Painter(surface, Metrics((800, 480)))
    dice.draw(painter, dice.DiceModel((3, 4), 1, "A 3 and a 4 count as 1", 1.0))
    assert "= 1" in painter.texts and "3 + 4" in painter.texts
    assert "A 3 and a 4 count as 1" in painter.texts
    painter = Painter(surface, Metrics((800, 480)))
    dice.draw(painter, dice.DiceModel((2, 5), 7, "", 1.0))
    assert "= 7" in painter.texts and not any("count as 1" in t for t in painter.texts)


def test_dice_tumble_before_they_land():
    frames = []
    for phase in (0.1, 0.4, 0.7, 1.0):
        surface = pygame.Surface((800, 480))
        dice.draw(Painter(surface, Metrics((800, 480))), dice.DiceModel((6, 6), 12, "", phase))
        frames.append(pygame.image.tobytes(surface, "RGB"))
    assert len(set(frames)) == 4


def test_colour_names_change_the_words_on_the_screen():
    assert (
        play.say("Turn d4 to black. Black wins", {"black": "dark"}) == "Turn d4 to dark. Dark wins"
    )
    assert play.say("Blackberry", {"black": "dark"}) == "Blackberry"


def test_long_instructions_wrap_inside_the_panel():
    surface, painter, model = gallery.render("play", (800, 480))
    long = Instruction(
        "Put the gold dog back on d4 and the silver cat back on c6, then take the gold rabbit off f3",
        "illegal",
        "gold",
        {"d4": REMOVE},
    )
    model.instruction = long
    painter = Painter(surface, Metrics((800, 480)))
    play.draw(painter, model)
    assert surface.get_rect().contains(painter.instruction_rect)
    assert painter.instruction_rect.left > painter.board_view.rect.right - 1


# -- rotation and touch ------------------------------------------------------------------------------
@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_rotation_maps_touches_back_to_what_was_drawn_there(rotation):
    screen = HeadlessScreen((800, 480), rotation)
    assert screen.size == logical_size((800, 480), rotation)
    screen.canvas.fill((0, 0, 0))
    spot = (37, 101)
    screen.canvas.set_at(spot, (255, 0, 0))
    panel = screen.panel_image()
    assert panel.get_size() == (800, 480)
    xs, ys = np.nonzero(pygame.surfarray.array3d(panel)[:, :, 0] == 255)
    found = list(zip(xs.tolist(), ys.tolist(), strict=True))
    assert len(found) == 1
    assert screen.to_logical(found[0]) == spot
    assert panel_to_logical(found[0], (800, 480), rotation) == spot


def finger(kind, x, y, finger_id=1):
    return pygame.event.Event(
        kind, x=x, y=y, dx=0.0, dy=0.0, finger_id=finger_id, touch_id=1, pressure=1.0
    )


def test_finger_taps_count_once_and_synthesised_mouse_clicks_are_ignored():
    screen = HeadlessScreen((800, 480), 0)
    touch = TouchInput(screen, px_per_mm=5)
    results = [
        touch.translate(finger(pygame.FINGERDOWN, 0.5, 0.25)),
        touch.translate(
            pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(400, 120), button=1, touch=True)
        ),
        touch.translate(finger(pygame.FINGERUP, 0.5, 0.25)),
        touch.translate(
            pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(400, 120), button=1, touch=True)
        ),
    ]
    taps = [r for r in results if isinstance(r, Tap)]
    assert taps == [Tap((400, 120))]


def test_a_real_mouse_still_works_and_a_slide_off_cancels():
    screen = HeadlessScreen((800, 480), 0)
    touch = TouchInput(screen, px_per_mm=5)
    assert (
        touch.translate(
            pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(10, 10), button=1, touch=False)
        )
        is None
    )
    assert touch.translate(
        pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(12, 11), button=1, touch=False)
    ) == Tap((10, 10))
    touch.translate(finger(pygame.FINGERDOWN, 0.1, 0.1))
    assert touch.translate(finger(pygame.FINGERUP, 0.6, 0.6)) is None


def test_touches_on_a_rotated_panel_land_on_the_button_drawn_there():
    screen = HeadlessScreen((480, 800), 90)  # a portrait panel mounted sideways
    assert screen.size == (800, 480)
    surface, painter, _ = gallery.render("home", screen.size)
    screen.canvas.blit(surface, (0, 0))
    start = next(t for t in painter.targets if t.action.kind == "start")
    panel = screen.panel_image()
    # Find the Start button's centre on the panel by its colour, and touch it there.
    cx, cy = start.rect.center
    colour = screen.canvas.get_at((cx - start.rect.width // 3, cy))
    pixels = pygame.surfarray.array3d(panel)
    xs, ys = np.nonzero(np.all(pixels == np.array(colour[:3]), axis=2))
    px, py = float(xs.mean()), float(ys.mean())
    touch = TouchInput(screen, px_per_mm=5)
    touch.translate(finger(pygame.FINGERDOWN, px / 479, py / 799))
    tap = touch.translate(finger(pygame.FINGERUP, px / 479, py / 799))
    assert painter.hit(tap.pos).kind == "start"


def test_keyboard_stands_in_for_the_buttons():
    touch = TouchInput(HeadlessScreen((800, 480)), 5)
    assert touch.translate(
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="\r", scancode=0)
    ) == Key("done")
    assert touch.translate(
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_r, mod=0, unicode="r", scancode=0)
    ) == Key("roll")
    assert touch.translate(
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_BACKSPACE, mod=0, unicode="", scancode=0)
    ) == Key("back")
