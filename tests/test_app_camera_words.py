"""The camera's own problem lines in the table's language: what the vision code says when the
board is not found, when the calibration photo does not show the position, and when there is
no camera, shown on the real setup screen in German - every text whole, on screen and clear of
the buttons, as the gallery's screens are checked (tests/test_display.py)."""

import cv2
import numpy as np
import pytest
from test_display import text_overlaps

from companion import i18n
from companion.app import App, ReconnectingCamera, Settings, TableVision
from companion.errors import PositionMismatch, UserError
from companion.records import Records
from display.device import HeadlessScreen, init_pygame
from display.layout import frame
from vision import messages
from vision.find import BoardNotFound, find_board
from vision.sim import SimTable
from vision.sources import open_source

SIZES = [(800, 480), (720, 1280)]


@pytest.fixture
def german():
    i18n.set_language("de")
    yield
    i18n.set_language("en")


def screen_of(size):
    init_pygame(headless=True)
    return HeadlessScreen(size)


def app_for(screen, tmp_path, game, options):
    settings = Settings(game=game, language="de")
    settings.options[game] = dict(options)
    return App(
        screen,
        settings,
        records=Records(tmp_path / "r.sqlite3"),
        vision_factory=lambda name: TableVision(name),
    )


def check_whole(app, screen):
    """Every text drawn whole, inside the screen, and clear of buttons it is not the label of;
    the red bar over the header covers the header's own words on purpose."""
    painter = app.painter
    assert painter.cut == [], painter.cut
    assert painter.left_out == [], painter.left_out
    bounds = screen.canvas.get_rect()
    for text, rect in painter.drawn:
        assert bounds.contains(rect), f"{text!r} is off screen"
    header = frame(screen.size, painter).header
    problems = [
        (a, b)
        for a, b in text_overlaps(painter)
        if not all(any(t == x and header.contains(r) for x, r in painter.drawn) for t in (a, b))
    ]
    assert problems == []


def no_board_frame():
    """A table with no board on it (a lit wooden top and a cup): no grid to find."""
    y, x = np.mgrid[0:540, 0:960]
    shade = 0.75 + 0.25 * np.exp(-((x - 420) ** 2 + (y - 250) ** 2) / 2.0e5)
    picture = (np.array([60, 100, 150])[None, None, :] * shade[..., None]).astype(np.uint8)
    cv2.circle(picture, (700, 380), 60, (235, 235, 240), -1)
    return picture


def test_vision_problems_are_in_the_tables_language(german):
    with pytest.raises(BoardNotFound) as found:
        find_board(no_board_frame(), "chessboard")
    assert "kein kariertes Brett mit 8x8 Feldern" in found.value.reason
    assert "--corners" not in found.value.reason  # the screen offers to tap them instead
    assert "--corners" in str(found.value)  # the command line's hint stays
    text = messages.position_mismatch([("a1", "black", "empty"), ("c3", "green-character", "red")])
    assert text.startswith("das Bild passt in 2 Feldern nicht zur Stellung")
    assert "a1 sieht nach Schwarz aus (laut Stellung: leer)" in text
    assert "c3 sieht nach Grün mit Figur aus (laut Stellung: Rot)" in text
    six = [(f"a{i}", "white", "empty") for i in range(1, 7)]
    assert "; und 1 weiteres" in messages.position_mismatch(six)
    assert messages.doubtful_note(["b2"]).startswith("zweifelhaftes Feld")
    assert messages.unseen_note(["a1", "a2"]).startswith("2 Felder liegen außerhalb")
    with pytest.raises(UserError, match="lässt sich nicht öffnen"):
        open_source("usb:97")
    i18n.set_language("en")
    assert messages.position_mismatch([("a1", "black", "empty")]).startswith(
        "the picture does not match the position in 1 cell: a1 looks black (position: empty)"
    )


def test_a_calibration_that_finds_the_wrong_position_says_so_in_german(german):
    table = SimTable("arinama5", seed=3, size=(960, 540))
    from vision.calibration import calibrate
    from vision.layouts import get_layout
    from vision.locate import locate

    layout = get_layout("arinama5")
    start = {"c3": "black", "d3": "white", "c2": "white", "b3": "black"}
    photo = table.render({**start, "a1": "black", "e5": "white"})
    with pytest.raises(PositionMismatch) as wrong:
        calibrate(photo, locate(photo, layout).homography, layout, start)
    assert str(wrong.value).startswith("das Bild ")
    assert "sieht nach" in str(wrong.value) and "looks" not in str(wrong.value)


def render_not_found(size, tmp_path):
    """Arimaa on a chess set in German, no chessboard in view."""
    screen = screen_of(size)
    app = app_for(screen, tmp_path, "arimaa", {"equipment": "chess"})
    app.start_game("arimaa")
    picture = no_board_frame()
    app.vision.look(picture, now=1.0)
    app.on_setup_frame(picture)
    app.render(force=True)
    return app, screen


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_setup_screen_shows_a_board_not_found_in_german(size, german, tmp_path):
    app, screen = render_not_found(size, tmp_path)
    assert app.vision.located is None
    assert app.vision.problem.startswith("kein kariertes Brett")
    assert "Kein kariertes Brett" in " ".join(app.painter.texts)
    screen.save(tmp_path / f"setup-not-found-{size[0]}x{size[1]}.png")
    texts = " ".join(app.painter.texts)
    assert "Kein kariertes Brett mit 8x8 Feldern im Bild gefunden" in texts, texts
    assert "Ecken" in texts and "board" not in texts and "--corners" not in texts
    check_whole(app, screen)


def render_mismatch(size, tmp_path):
    """The Arinama 5 x 5 setup in German with two stones where the position has none, and the
    camera missing meanwhile (the red bar over the header): the screen the docs show."""
    screen = screen_of(size)
    app = app_for(screen, tmp_path, "arinama", {"rows": 5, "cols": 5})
    app.start_game("arinama")
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    table = SimTable("arinama5", seed=3, size=(960, 540))
    picture = table.render({**want, "a1": "black", "e5": "white"})
    app.vision.look(picture, now=100.0)
    app.on_setup_frame(picture)
    app.pages.setup.confirm()
    assert app.page == "setup" and set(app.pages.setup.mismatch) >= {"a1", "e5"}
    app.render(force=True)
    return app, screen


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_setup_screen_shows_a_calibration_mismatch_in_german(size, german, tmp_path):
    app, screen = render_mismatch(size, tmp_path)
    screen.save(tmp_path / f"setup-mismatch-{size[0]}x{size[1]}.png")
    texts = " ".join(app.painter.texts)
    assert "2 markierte Felder passen nicht zur Stellung" in texts, texts
    check_whole(app, screen)
    # The camera goes missing: the red bar says so in German, over the header.
    camera = ReconnectingCamera("usb:97", open_source)
    assert camera.read() is None
    app.on_camera_problem(camera.problem)
    app.render(force=True)
    texts = " ".join(app.painter.texts)
    assert "Keine Kamera: die Kamera usb:97 lässt sich nicht öffnen" in texts, texts
    assert "neuer Versuch alle 5 s" in texts
    check_whole(app, screen)


def write_screenshots(folder):
    """docs/screenshots/de/setup-problem-*.png and setup-not-found-*.png: run from tests/,
    python -c "import test_app_camera_words as t; t.write_screenshots('../docs/screenshots/de')"."""
    import tempfile
    from pathlib import Path

    i18n.set_language("de")
    for size in SIZES:
        for name, render in (("problem", render_mismatch), ("not-found", render_not_found)):
            with tempfile.TemporaryDirectory() as tmp:
                _app, screen = render(size, Path(tmp))
                screen.save(Path(folder) / f"setup-{name}-{size[0]}x{size[1]}.png")
    i18n.set_language("en")


def test_rare_referee_reasons_are_said_in_german_too(german):
    """Arimaa's setup errors (a setup chosen or typed that cannot be played) and the chess
    set's colours on a mat game are shown on the play screen: in the table's language."""
    from companion import games
    from companion.observation import Observation
    from companion.referee import Referee
    from companion.referee.rule_texts import rule_text

    assert rule_text("Gold's setup must place 8 rabbits, not 7") == (
        "Die Aufstellung von Gold hat 7 statt 8: die goldenen Kaninchen"
    )
    assert rule_text("a1 is given two pieces") == "Das Feld a1 bekommt zwei Figuren"
    assert rule_text("Silver sets up on ranks 7 and 8: Ra5 is outside them") == (
        "Silber stellt auf den Reihen 7 und 8 auf: Ra5 liegt außerhalb"
    )
    referee = Referee(games.get("arimaa").new())
    with pytest.raises(UserError, match="^diese Aufstellung geht nicht: Die Aufstellung von"):
        referee.set_setup("gold", "Ra1 Rb1")
    with pytest.raises(UserError, match="^die Kamera meldet weiße und schwarze Figuren"):
        referee.observe(Observation({"a1": "white"}, layout="arimaa"))


def test_the_chess_set_s_piece_key_is_on_the_small_german_setup_screen(tmp_path, german):
    """Arimaa on a chess set, in German on the 800x480 screen, the board found: the detail
    says which chess piece is which Arimaa piece - the players need it at the board, where
    they read from close by - so the instruction gives up its large size to make room (the
    detail was left out)."""
    from vision.sim import chess_start

    screen = screen_of((800, 480))
    app = app_for(screen, tmp_path, "arimaa", {"equipment": "chess"})
    app.start_game("arimaa")
    table = SimTable(
        "chessboard",
        seed=1,
        size=(960, 540),
        tilt=12.0,
        light=(0.9, 1.0),
        realism={"board": "green-cream", "pieces": "chess"},
    )
    cells, figures = chess_start("chessboard")
    frame = table.render(cells, figures=figures)
    app.vision.look(frame, now=1.0)
    app.on_setup_frame(frame)
    app.render(force=True)
    assert any("König = Elefant" in t for t in app.painter.texts), app.painter.left_out
    check_whole(app, screen)
