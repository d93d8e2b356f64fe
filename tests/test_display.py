"""The touchscreen, rendered headless with real pygame: every screen at both panel sizes, what
each must show (highlighted cells' pixels, the instruction text through the render path, touch
targets of at least 9 mm), rotation and touch mapping, and finger-vs-mouse handling."""

import dataclasses

import numpy as np
import pygame
import pytest

from companion import games, i18n
from companion.geometry import board_geometry
from companion.referee.protocol import FLIP, FROM, REMOVE, RESTORE, TARGET, TO, Instruction
from display import fonts, gallery, theme
from display.board import draw_board
from display.device import HeadlessScreen, logical_size, panel_to_logical
from display.paint import ELLIPSIS, Painter, font
from display.screens import dice, play, settings
from display.theme import Metrics
from display.touch import Key, Tap, TouchInput

SIZES = [(800, 480), (720, 1280)]


@pytest.fixture(autouse=True)
def pygame_headless():
    pygame.display.init()
    pygame.font.init()
    yield


@pytest.fixture
def language(request):
    """The table's language for one test (English again afterwards)."""
    i18n.set_language(request.param)
    yield request.param
    i18n.set_language("en")


LANGUAGES = pytest.mark.parametrize("language", ["en", "de"], indirect=True)


def colour_at(surface, point):
    return tuple(surface.get_at(point))[:3]


def close(a, b, tolerance=12):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def first_glyph_ink(surface, rect):
    """The ink box of the first letter of light text in `rect` (pixels at least half way from
    the background to the text colour), found by scanning columns from the left."""
    pixels = pygame.surfarray.array3d(surface.subsurface(rect)).astype(int)  # [x, y]
    ink = pixels[:, :, 0] > (theme.BACKGROUND[0] + theme.TEXT[0]) // 2
    rows = ink.any(axis=0)
    top = int(np.argmax(rows))  # the first line: from its first inked row to the next blank
    bottom = top
    while bottom + 1 < len(rows) and rows[bottom + 1]:
        bottom += 1
    ink[:, :top] = False
    ink[:, bottom + 1 :] = False
    columns = np.nonzero(ink.any(axis=1))[0]
    first = columns[0]
    last = first
    while last + 1 < ink.shape[0] and ink[last + 1].any():
        last += 1
    rows = np.nonzero(ink[first : last + 1].any(axis=0))[0]
    return pygame.Rect(
        rect.left + first, rect.top + rows[0], last - first + 1, rows[-1] - rows[0] + 1
    )


def text_overlaps(painter):
    """Texts drawn over a touch target they do not belong to, or over each other."""
    problems = []
    for text, rect in painter.drawn:
        for target in painter.targets:
            if rect.colliderect(target.rect) and not target.rect.contains(rect):
                problems.append((text, target.label))
    for i, (a, ra) in enumerate(painter.drawn):
        for b, rb in painter.drawn[i + 1 :]:
            if ra.colliderect(rb) and not (ra.contains(rb) or rb.contains(ra)):
                problems.append((a, b))
    return problems


@LANGUAGES
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", list(gallery.EXAMPLES))
def test_every_screen_renders_at_both_sizes_with_finger_sized_targets(
    name, size, language, tmp_path
):
    surface, painter, model = gallery.render(name, size)
    path = tmp_path / f"{name}-{size[0]}x{size[1]}.png"
    pygame.image.save(surface, str(path))
    assert path.stat().st_size > 2000
    assert painter.targets, f"{name} has nothing to touch"
    nine_mm = Metrics(size).mm(9.0)
    for target in painter.targets:
        assert target.rect.width >= nine_mm and target.rect.height >= nine_mm, target
        assert surface.get_rect().contains(target.rect), f"{target.label} is off screen"
    # Every text is drawn whole, inside the screen, clear of buttons it is not the label of.
    assert painter.cut == [], painter.cut
    assert painter.left_out == [], painter.left_out
    for text, rect in painter.drawn:
        assert surface.get_rect().contains(rect), f"{text!r} is off screen"
    assert text_overlaps(painter) == []
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
    # The instruction went through the render path whole, large enough to read from a metre:
    # its first capital's ink, measured on the screen, is at least 5 mm tall on the glass.
    assert model.instruction.text in painter.texts and not painter.cut
    rect = painter.instruction_rect
    assert model.instruction.text[0] == "T"
    assert metrics.cap_mm(first_glyph_ink(surface, rect).height) >= 5.0
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


def test_instruction_capitals_are_five_millimetres_on_the_official_panel():
    metrics = Metrics((800, 480))
    assert metrics.mm_per_px_tall == pytest.approx(85.92 / 480)  # 0.179 mm per pixel row
    for size in SIZES:
        m = Metrics(size)
        # "H" drawn in the instruction's font on the page's background, measured on its ink
        surface = pygame.Surface((400, 200))
        surface.fill(theme.BACKGROUND)
        surface.blit(font(m.font_huge).render("H", True, theme.TEXT), (10, 10))
        assert m.cap_mm(first_glyph_ink(surface, surface.get_rect()).height) >= 5.0, size
        surface.fill(theme.BACKGROUND)  # and it is no bigger than it needs to be
        surface.blit(font(m.font_huge - 2).render("H", True, theme.TEXT), (10, 10))
        assert m.cap_mm(first_glyph_ink(surface, surface.get_rect()).height) < 5.0, size


def aranea_play(size, text, *, detail="Blue's stones came off while Amber was moving"):
    _, _, model = gallery.render("play", size)
    cells = ["r1-3", "r2-5", "r2-11", "r3-8"]
    model.title = "Aranea"
    model.geometry = board_geometry("aranea")
    model.cells = {"r1-5": "amber", "r2-2": "amber"}
    model.instruction = Instruction(
        text, "restore", "amber", dict.fromkeys(cells, RESTORE) | {"r1-5": FROM}, detail=detail
    )
    model.turn = "amber"
    model.hands = True
    model.can_roll = True
    surface = pygame.Surface(size)
    painter = Painter(surface, Metrics(size))
    play.draw(painter, model)
    return surface, painter, model


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_long_instruction_shows_whole_with_hands_banner_and_roll_button(size):
    text = "Give the blue stones on r1-3, r2-5, r2-11 and r3-8 back to Blue"
    surface, painter, model = aranea_play(size, text)
    assert text in painter.texts and painter.cut == []
    assert "Hands on the board" in painter.texts
    assert {t.label for t in painter.targets} >= {"Roll", "Done", "Undo", "Menu"}
    rect = painter.instruction_rect
    assert rect.width > 0 and rect.height > 0
    assert surface.get_rect().contains(rect)
    metrics = Metrics(size)
    assert metrics.cap_mm(first_glyph_ink(surface, rect).height) >= 3.0  # the floor at worst
    assert text_overlaps(painter) == []


def test_an_instruction_too_long_for_any_size_is_cut_visibly_never_dropped():
    text = " ".join(["Give the blue stones on r1-3, r2-5, r2-11 and r3-8 back to Blue."] * 8)
    surface, painter, model = aranea_play((800, 480), text)
    assert painter.cut == [text]
    drawn = next(t for t in painter.texts if t.startswith("Give the blue"))
    assert drawn.endswith(ELLIPSIS) and text.startswith(drawn[:-1].rstrip(" .,"))
    assert len(drawn) > 40  # several lines of it, not a stub
    # The secondary content gave way first (and says so); the buttons are all still there.
    assert model.instruction.detail in painter.left_out and "put back" in painter.left_out
    assert model.instruction.detail not in painter.texts
    assert {t.label for t in painter.targets} >= {"Roll", "Done", "Undo", "Menu"}
    assert text_overlaps(painter) == []


def test_wrapped_text_records_only_what_it_drew():
    surface = pygame.Surface((300, 200))
    painter = Painter(surface, Metrics((800, 480)))
    box = pygame.Rect(10, 10, 200, 40)
    painter.wrapped("Short", box, 30)
    assert painter.texts == ["Short"] and painter.cut == []
    long = "one two three four five six seven eight nine ten eleven twelve"
    used = painter.wrapped(long, box, 30, min_size=24)
    assert painter.cut == [long] and painter.texts[-1].endswith(ELLIPSIS)
    assert box.contains(used)
    painter.wrapped("Nothing fits here", pygame.Rect(10, 100, 200, 3), 30, min_size=24)
    assert painter.cut[-1] == "Nothing fits here" and len(painter.texts) == 2


def test_highlights_stand_out_on_the_wooden_board():
    """Every role's outline is at least 3:1 against the board (WCAG, graphics) and is what is
    drawn along the highlighted cell's edge; the hue stays Okabe-Ito."""
    geometry = board_geometry("arinama")
    for role, style in theme.HIGHLIGHTS.items():
        assert theme.contrast(style.outline, theme.BOARD) >= 3.0, role
        surface = pygame.Surface((480, 480))
        view = draw_board(surface, surface.get_rect(), geometry, {}, {"d4": role})
        xs = [x for x, _ in view.cell_polygons["d4"]]
        ys = [y for _, y in view.cell_polygons["d4"]]
        edge = {
            colour_at(surface, (x, min(ys) + dy))
            for x in range(min(xs), max(xs))
            for dy in range(-4, 5)
        }
        assert any(close(c, style.outline, 6) for c in edge), role
        assert any(close(c, style.colour, 6) for c in edge) or role == TARGET, role


def test_cell_labels_are_drawn_over_the_highlight_tint():
    geometry = board_geometry("arinama")
    surface = pygame.Surface((420, 420))
    view = draw_board(surface, surface.get_rect(), geometry, {}, {"d4": FLIP, "e5": RESTORE})
    for cell in ("d4", "e5"):
        xs = [x for x, _ in view.cell_polygons[cell]]
        ys = [y for _, y in view.cell_polygons[cell]]
        corner = [
            colour_at(surface, (x, y))
            for x in range(min(xs), min(xs) + (max(xs) - min(xs)) // 2)
            for y in range(min(ys), min(ys) + (max(ys) - min(ys)) // 3)
        ]
        assert any(close(c, theme.CELL_LABEL, 10) for c in corner), cell


@pytest.mark.parametrize("role", [TARGET, TO, FROM, FLIP, REMOVE, RESTORE])
def test_a_highlighted_cell_s_name_is_drawn_whole_over_its_outline(role):
    """Every pixel of the name's glyphs and halo is on the screen as drawn: a "put here"
    ring's dashes hid the names of exactly the cells to play on (a review; the check above
    found one pixel of the name's colour enough)."""
    from display.board import _haloed, _label_font, _label_inset

    geometry = board_geometry("arinama")
    surface = pygame.Surface((420, 420))
    view = draw_board(surface, surface.get_rect(), geometry, {}, {"d4": role})
    name = _haloed(_label_font(view, squares=True), "d4")
    xs = [x for x, _ in view.cell_polygons["d4"]]
    ys = [y for _, y in view.cell_polygons["d4"]]
    inset = _label_inset(view)
    at = name.get_rect(topleft=(min(xs) + inset, min(ys) + inset - 1))
    drawn = pygame.surfarray.pixels3d(surface)[at.left : at.right, at.top : at.bottom]
    ink = pygame.surfarray.pixels3d(name)
    opaque = pygame.surfarray.pixels_alpha(name) == 255
    assert opaque.sum() > 20
    assert (np.abs(drawn[opaque].astype(int) - ink[opaque]) <= 1).all()


def test_a_storm_pit_s_name_is_written_light_on_its_dark_ground():
    """A trial: Sensei's storm pits carried their names in the dark ink of the wood, on a dark
    ground - hardly readable. On a pit the name is light with a dark rim; elsewhere dark."""
    cls = games.get("sensei")
    position = cls.new(cls.options_from({"side": "storm"}))
    geometry = board_geometry(position.name, position.options)
    surface = pygame.Surface((420, 420))
    view = draw_board(surface, surface.get_rect(), geometry, {}, {})

    def corner(cell):  # where the name is written, inside the cell's drawn border
        xs = [x for x, _ in view.cell_polygons[cell]]
        ys = [y for _, y in view.cell_polygons[cell]]
        return [
            colour_at(surface, (x, y))
            for x in range(min(xs) + 3, min(xs) + (max(xs) - min(xs)) // 2)
            for y in range(min(ys) + 3, min(ys) + (max(ys) - min(ys)) // 3)
        ]

    assert close(theme.PIT, theme.CELL_LABEL, 10)  # why the dark ink was lost on a pit
    for pit in ("c3", "e3", "c5", "e5"):
        shown = corner(pit)
        assert any(close(c, theme.CELL_LABEL_ON_PIT, 10) for c in shown), pit  # light ink
        assert any(close(c, theme.BOARD_LINE, 6) for c in shown), pit  # its dark rim
    assert any(close(c, theme.CELL_LABEL, 10) for c in corner("d4"))
    assert not any(close(c, theme.BOARD_LINE, 6) for c in corner("d4"))


def test_aranea_s_cells_carry_their_names_on_the_play_screen_s_board():
    """A player's trial: "place a stone on r2-9", "Blue has centre 3-6-9" - and no cell of
    the web drawn in the play screen's 410 px had its name (the smallest cell set the size
    for all, and the centre's squares are too small for a corner label)."""
    geometry = board_geometry("aranea")
    surface = pygame.Surface((410, 410))
    view = draw_board(surface, surface.get_rect(), geometry, {}, {})
    for name in ("r1-6", "r3-12", "c1", "c12"):
        xs = [x for x, _ in view.cell_polygons[name]]
        ys = [y for _, y in view.cell_polygons[name]]
        inside = [
            colour_at(surface, (x, y))
            for x in range(min(xs), max(xs), 2)
            for y in range(min(ys), max(ys), 2)
        ]
        assert any(close(c, theme.CELL_LABEL, 10) for c in inside), name


def test_legend_words_say_what_each_highlight_asks():
    labels = [s.label for s in theme.HIGHLIGHTS.values()]
    assert len(set(labels)) == len(labels)
    assert theme.HIGHLIGHTS[TO].label not in ("to", "from")
    assert theme.HIGHLIGHTS[TARGET].label == "put here"


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_settings_values_and_labels_stay_in_their_columns(size):
    surface = pygame.Surface(size)
    painter = Painter(surface, Metrics(size))
    rows = [
        settings.SettingRow("Arinama options", "flip check", "simultaneous", "option:flip"),
        settings.SettingRow("Pins (BCM, after a restart)", "DONE pin", "17", "pin:done"),
        settings.SettingRow("Colour names", "amber pieces are called", "amber", "colour:a"),
    ]
    settings.draw(painter, settings.SettingsModel(rows))
    assert painter.cut == []
    assert text_overlaps(painter) == []
    assert {"simultaneous", "Pins (BCM, after a restart)"} <= set(painter.texts)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_review_list_shows_the_page_of_the_row_the_buttons_point_at(size):
    """ROLL points at the next game of the review list (`ReviewListPage.pointed`): the list
    shows that row's page, the row marked as the one DONE opens."""
    from display.screens import review

    games_listed = [(20 - n, f"#{20 - n} Arinama", "finished · 25 moves") for n in range(20)]
    surface = pygame.Surface(size)
    painter = Painter(surface, Metrics(size))
    model = review.ReviewListModel(games_listed)
    review.draw_list(painter, model)
    per_page = model.per_page
    assert per_page < 12 and "#20 Arinama" in painter.texts
    painter = Painter(surface, Metrics(size))
    review.draw_list(painter, review.ReviewListModel(games_listed, pointed=12))
    assert f"#{20 - 12} Arinama" in painter.texts and "#20 Arinama" not in painter.texts
    (marked,) = [t for t in painter.targets if t.action.value == 8]
    assert painter.cut == [] and marked.action.kind == "open-game"


def test_gallery_examples_say_what_they_show():
    _, painter, model = gallery.render("setup", (800, 480))
    assert model.status == f"{len(model.markers)} markers seen" and len(model.markers) == 4
    for cell, role in model.wrong.items():  # put on start cells, take off the others
        assert (cell in model.start_cells) == (role == TARGET), cell
        assert cell in model.text
    _, _, model = gallery.render("gameover", (800, 480))
    counts = {c: list(model.cells.values()).count(c) for c in ("white", "black")}
    assert f"{counts['black']} black, {counts['white']} white" in model.detail
    assert counts[model.winner] == max(counts.values())


def test_portrait_setup_gives_the_diagram_the_room():
    size = (720, 1280)
    surface, painter, model = gallery.render("setup", size)
    view = painter.board_view
    side_mm = model.geometry.width * view.scale / Metrics(size).px_per_mm
    assert side_mm >= 50
    assert painter.instruction_rect.top > view.rect.top


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


@LANGUAGES
@pytest.mark.parametrize("size", SIZES)
def test_setup_button_is_named_like_the_instruction(size, language):
    """One word for one thing: the instruction says "press DONE", the button says Done (in
    German "drück FERTIG" and Fertig)."""
    _, painter, model = gallery.render("setup", size)
    word = {"en": "DONE", "de": "FERTIG"}[language]
    assert word in model.text + model.detail
    assert word.capitalize() in painter.texts and "Confirm" not in painter.texts


@pytest.mark.parametrize("game", ["arimaa", "arinama", "sensei"])
def test_cell_names_are_not_covered_by_pieces(game):
    """Where each cell's name is written (found on the empty board), a board with a piece on
    every square shows no piece: the name sits on the wood, never across a piece's edge."""
    geometry = board_geometry(game)
    empty = pygame.Surface((420, 420))
    view = draw_board(empty, empty.get_rect(), geometry, {})
    full = pygame.Surface((420, 420))
    piece = "gold" if game == "arimaa" else "black"
    draw_board(full, full.get_rect(), geometry, {c.name: piece for c in geometry.cells})
    empty_px = pygame.surfarray.array3d(empty).astype(int)
    full_px = pygame.surfarray.array3d(full).astype(int)
    ink = np.all(np.abs(empty_px - theme.CELL_LABEL) <= 10, axis=2)
    fill, rim = theme.PIECES[piece]
    for cell in geometry.cells:
        xs = [x for x, _ in view.cell_polygons[cell.name]]
        ys = [y for _, y in view.cell_polygons[cell.name]]
        box = (slice(min(xs), max(xs)), slice(min(ys), max(ys)))
        lx, ly = np.nonzero(ink[box])
        assert len(lx), f"no name drawn on {cell.name}"
        label = full_px[box][lx.min() : lx.max() + 1, ly.min() : ly.max() + 1]
        for colour in (fill, rim):
            covered = np.all(np.abs(label - colour) <= 6, axis=2).sum()
            assert covered == 0, f"{cell.name}: {covered} pixels of a piece behind its name"


def test_roll_is_not_offered_while_a_take_back_waits_for_its_answer():
    """Aranea: the players asked to take a move back - DONE, BACK or CANCEL answers; a Roll
    button then would only confuse (the roll comes after the answer)."""
    _, _, model = gallery.render("play", (800, 480))
    confirm = Instruction("Blue: press DONE to take back r1-8", "confirm", player="blue")
    asked = dataclasses.replace(model, instruction=confirm, can_roll=True)
    labels = [label for label, _, _ in play._buttons(asked)]
    assert "Roll" not in labels and "Done" in labels and "Cancel" in labels
    rolling = dataclasses.replace(model, can_roll=True)
    assert "Roll" in [label for label, _, _ in play._buttons(rolling)]


def test_when_the_panel_is_short_the_key_goes_before_the_rule():
    """A long instruction with five kinds of highlighted cells and a rule: on the small
    screen the key of the highlights is left out (the diagram shows their colours), the rule
    - or the camera's doubt - stays."""
    _, _, model = gallery.render("play", (800, 480))
    instruction = Instruction(
        "Turn d4 and e5 to black, then take the white stone off f6 and put it back on c3",
        "flip",
        player="black",
        highlights={"d4": FLIP, "e5": TO, "f6": REMOVE, "c3": TARGET, "b2": FROM},
        detail="The white stone on d4 touches exactly three black stones now",
    )
    surface = pygame.Surface((800, 480))
    painter = Painter(surface, Metrics((800, 480)))
    play.draw(painter, dataclasses.replace(model, instruction=instruction))
    assert instruction.detail in painter.texts and instruction.text in painter.texts
    assert "turn over" in painter.left_out


@pytest.mark.parametrize("cell", ["r1-11", "c1"])
def test_a_cell_s_name_never_bites_into_the_stone_on_it(cell):
    """A trial's screenshots: Aranea's ring names (below the centre) and its small centre
    squares' names were drawn over the stones, their board-coloured rim biting a notch out
    of each. A name that would lie over a piece is left out - but kept on a highlighted
    cell, which the instruction names."""
    geometry = board_geometry("aranea")
    surface = pygame.Surface((480, 480))
    view = draw_board(surface, surface.get_rect(), geometry, {cell: "blue"})
    centre = view.to_px(geometry.cell(cell).center)
    r = round(geometry.cell(cell).radius * view.scale * view.piece_scale)
    fill, rim = theme.PIECES["blue"]
    inside = [
        tuple(surface.get_at((centre[0] + dx, centre[1] + dy)))[:3]
        for dx in range(-r + 3, r - 2)
        for dy in range(-r + 3, r - 2)
        if dx * dx + dy * dy < (r - 3) ** 2
    ]
    assert set(inside) <= {tuple(fill), tuple(rim)}, set(inside) - {tuple(fill), tuple(rim)}
    # highlighted, the name stays (over the stone)
    again = pygame.Surface((480, 480))
    draw_board(again, again.get_rect(), geometry, {cell: "blue"}, {cell: REMOVE})
    assert (pygame.surfarray.array3d(again) != pygame.surfarray.array3d(surface)).any()


def _contrast(a, b):
    def luminance(colour):
        def channel(v):
            v /= 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        r, g, b_ = colour[:3]
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b_)

    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("top", [True, False])
def test_the_problem_bar_is_readable_and_grows_for_a_long_message(top):
    """Found by a review: white small type on vermillion at 3.9:1 (under the 4.5:1 small text
    needs), and a long message (German, "No camera: ...") shrunk to half the small size in
    the header's one row. The bar is darker, and takes more rows instead."""
    from display.layout import message_bar

    surface = pygame.Surface((800, 480))
    surface.fill(theme.BACKGROUND)
    painter = Painter(surface, Metrics((800, 480)))
    assert _contrast(theme.PROBLEM_BAR, (255, 255, 255)) >= 4.5
    text = " ".join(["Keine Kamera: die Pi-Kamera lässt sich nicht starten"] * 4)
    message_bar(painter, text, top=top)
    assert painter.cut == [] and text in painter.texts
    (drawn,) = [rect for t, rect in painter.drawn if t == text]
    smallest = painter.m.font_small * 3 // 4
    assert drawn.height >= 2 * smallest  # two rows or more, never below 3/4 of small type
    assert tuple(surface.get_at((4, drawn.centery)))[:3] == theme.PROBLEM_BAR  # the bar's


def test_fonts_made_before_a_pygame_quit_are_made_anew():
    """`companion run` quits pygame on its way out; a screen made after it in the same
    process (the tests, a second run) drew with dead fonts: "font module quit since font
    created"."""
    from display.device import init_pygame

    init_pygame(headless=True)
    font(21).render("before", True, (0, 0, 0))
    pygame.quit()
    init_pygame(headless=True)
    assert font(21).render("after", True, (0, 0, 0)).get_width() > 0


@pytest.mark.parametrize("language", ["de"], indirect=True)
def test_no_screen_emboldens_the_bundled_bold_face_whose_umlauts_it_fused(language):
    """A trial's find: text drawn bold was emboldened on top of the bundled face (FreeSans
    Bold), and the two dots of an umlaut fused into a bar at nearly every size ("Zurūck",
    "gewūrfelt"): every screen, in German, draws with the face as it is."""
    fonts.forget()
    for name in gallery.EXAMPLES:
        for size in ((800, 480), (720, 1280)):
            gallery.render(name, size)
    assert fonts._fonts and not [f for f in fonts._fonts.values() if f.bold]
    face = pygame.font.Font(None, 41)
    body = fonts.font(41).render("Zurück", True, (255, 255, 255))
    assert pygame.image.tobytes(body, "RGBA") == pygame.image.tobytes(
        face.render("Zurück", True, (255, 255, 255)), "RGBA"
    )
    dots = pygame.mask.from_surface(fonts.font(41).render("ü", True, (255, 255, 255)), 127)
    assert len(dots.connected_components()) == 3  # two dots and the u
