"""Sensei on a board of one's own through the touchscreen app: the setup screen offers "Own
board" beside the printed mat (saved for the next game), a 7 x 7 lined board is found from its
lines (or its corners tapped), DONE learns the colours from Sensei's start position - the
characters too - and the referee follows the actions made on the board: synthetic table ->
tracker -> referee, as on the printed mat."""

import json

import pytest
from test_display import text_overlaps

from companion import i18n
from companion.app import App, Settings, TableVision
from companion.records import Records
from display.device import HeadlessScreen, init_pygame
from vision.sim import SimTable

SIZES = [(800, 480), (720, 1280)]


def sensei_app(screen, tmp_path, settings=None):
    return App(
        screen,
        settings or Settings(game="sensei"),
        records=Records(tmp_path / "r.sqlite3"),
        vision_factory=lambda name: TableVision(name),
        settings_path=tmp_path / "settings.json",
    )


def own_table(seed=1):
    """An Othello-like lined 7 x 7 board with flat stones (the characters on them)."""
    return SimTable(
        "grid:7x7",
        seed=seed,
        size=(960, 540),
        tilt=12.0,
        light=(0.9, 1.0),
        realism={"board": "othello", "pieces": "stone"},
    )


def follow(app, table, cells, seconds=1.5, start=0.0):
    """The camera watches `cells` on the table for a while: the app gets what it observes."""
    fps = 30
    for i in range(int(seconds * fps)):
        observation = app.vision.feed(table.render(cells), start + i / fps)
        if observation is not None:
            app.on_observation(observation)
    return start + seconds


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_setup_screen_offers_an_own_board_for_sensei(size, tmp_path):
    init_pygame(headless=True)
    screen = HeadlessScreen(size)
    app = sensei_app(screen, tmp_path)
    app.start_game("sensei")
    assert app.vision.layout.name == "sensei"  # the printed mat first
    app.render(force=True)
    assert "Own board" in [t.label for t in app.painter.targets]
    app.tap(next(t.rect.center for t in app.painter.targets if t.label == "Own board"))
    assert app.page == "setup" and app.vision.layout.name == "grid:7x7"
    assert json.loads((tmp_path / "settings.json").read_text())["boards"] == {"sensei": "own"}
    table = own_table()
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    frame = table.render(want)
    app.vision.look(frame, now=1.0)
    app.on_setup_frame(frame)
    assert app.vision.located is not None, app.vision.problem  # found from its lines
    app.render(force=True)
    screen.save(tmp_path / f"sensei-own-{size[0]}x{size[1]}.png")
    labels = [t.label for t in app.painter.targets]
    assert {"Corners", "Printed mat", "Done"} <= set(labels)
    assert "grid found" in app.painter.texts
    assert app.painter.cut == [] and app.painter.left_out == [] and text_overlaps(app.painter) == []
    # Back to the printed mat, and the choice is saved again.
    app.act("board-mat")
    assert app.vision.layout.name == "sensei"
    assert json.loads((tmp_path / "settings.json").read_text())["boards"] == {}


def test_sensei_on_an_own_7x7_board_is_refereed_from_the_camera(tmp_path):
    init_pygame(headless=True)
    screen = HeadlessScreen((800, 480))
    settings = Settings(game="sensei", boards={"sensei": "own"})
    app = sensei_app(screen, tmp_path, settings)
    app.start_game("sensei")
    assert app.vision.layout.name == "grid:7x7"
    table = own_table()
    board = app.setup_position.calibration_cells(app.vision.layout.classes)
    assert board["d1"] == "green-character" and board["d7"] == "red-character"
    app.vision.look(table.render(board), now=1.0)
    assert app.vision.located is not None, app.vision.problem
    app.button("done")  # the camera learns the colours from the start position
    assert app.page == "play", app.message
    now = follow(app, table, board)
    assert app.referee.instruction.text == "Green: move a stone or your character"
    # Green moves the stone on b1 to b4 and presses DONE; Red answers f7-f4.
    board = {k: v for k, v in board.items() if k != "b1"} | {"b4": "green"}
    now = follow(app, table, board, start=now)
    assert app.referee.instruction.text == "Green: press DONE to end your turn", app.message
    app.button("done")
    assert app.referee.instruction.text == "Red: move a stone or your character"
    board = {k: v for k, v in board.items() if k != "f7"} | {"f4": "red"}
    now = follow(app, table, board, start=now)
    app.button("done")
    assert app.referee.instruction.text == "Green: move a stone or your character"
    moves = app.records.game(app.referee.game_id).moves
    assert [m.text for m in moves] == ["b1-b4", "f7-f4"]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_own_board_setup_with_every_button_fits_in_german(size, tmp_path):
    """Tapped corners: Back, Corners, Printed mat, Find, Empty board, Done - in German, every
    label and text whole and clear of the others."""
    init_pygame(headless=True)
    screen = HeadlessScreen(size)
    settings = Settings(game="sensei", boards={"sensei": "own"}, language="de")
    app = sensei_app(screen, tmp_path, settings)
    app.start_game("sensei")
    table = own_table()
    frame = table.render(app.setup_position.calibration_cells(app.vision.layout.classes))
    app.vision.latest = frame
    app.on_setup_frame(frame)
    app.vision.set_corners(table.board_corners_px().tolist())
    app.render(force=True)
    screen.save(tmp_path / f"sensei-own-de-{size[0]}x{size[1]}.png")
    labels = [t.label for t in app.painter.targets]
    assert {"Ecken", "Gedruckte Matte", "Suchen", "Leeres Brett", "Fertig"} <= set(labels)
    assert "angetippte Ecken" in app.painter.texts
    assert app.painter.cut == [] and text_overlaps(app.painter) == []
    # Three rows of buttons on the 800x480 panel: the detail line may give way (it is left
    # out whole, never cut), the instruction never.
    _, model = app.page_model()
    assert app.painter.left_out in ([], [model.detail])
    assert model.text in app.painter.texts
    # the start position to put down is big enough to read: beside six buttons the panel
    # left it about 75 px at 800x480 (a trial) - it takes the room under the picture then
    view = app.painter.board_view
    assert min(view.rect.size) / app.metrics.px_per_mm >= 25, view.rect
    i18n.set_language("en")


def test_a_tapped_board_that_moved_is_said_on_the_screen_and_tapped_again(tmp_path):
    """Sensei on an own board whose corners were tapped: an elbow shoves the board; the play
    screen says so (never a move from the shifted cells); Menu, Continue: the setup screen
    takes the new corners, learns the colours again and the game goes on where it was."""
    init_pygame(headless=True)
    screen = HeadlessScreen((800, 480))
    settings = Settings(game="sensei", boards={"sensei": "own"})
    app = sensei_app(screen, tmp_path, settings)
    app.start_game("sensei")
    table = own_table()
    board = app.setup_position.calibration_cells(app.vision.layout.classes)
    frame = table.render(board)
    app.vision.latest = frame
    app.pages.setup.corner_edit = [tuple(c) for c in table.board_corners_px().tolist()]
    app.act("corners-use")  # tapped (as on the screen: tests/test_app_own_board.py)
    app.vision.look(frame, now=1.0)
    app.button("done")
    assert app.page == "play" and app.vision.tracker.corners is not None

    def watch(cells, seconds, start):
        for i in range(int(seconds * 30)):
            t = start + i / 30
            observation = app.vision.feed(table.render(cells), t)
            app.on_vision_status(app.vision.status)
            if observation is not None:
                app.on_observation(observation)
        return start + seconds

    now = watch(board, 1.5, 0.0)
    board = {k: v for k, v in board.items() if k != "b1"} | {"b4": "green"}
    now = watch(board, 1.5, now)
    app.button("done")
    assert [m.text for m in app.records.game(app.referee.game_id).moves] == ["b1-b4"]
    table.nudge(8.0, -5.0, 2.0)
    now = watch(board, 4.0, now)
    assert app.vision.lost and app.vision_status == "board-moved"
    assert "tap its corners again" in app.message
    i18n.set_language("de")  # chosen while it is said: said again in German
    assert app.message.startswith("Das Brett wurde verschoben")
    i18n.set_language("en")
    app.render(force=True)
    screen.save(tmp_path / "moved.png")
    assert any("tap its corners again" in t for t in app.painter.texts)
    bar = next(r for t, r in app.painter.drawn if "tap its corners again" in t)
    assert not any(bar.colliderect(target.rect) for target in app.painter.targets)
    assert app.painter.cut == []
    assert app.referee.position.move_stack and len(app.referee.position.move_stack) == 1
    # Menu, Continue: the setup screen, the corners tapped where the board is now.
    game_id = app.referee.game_id
    app.act("menu")
    app.resume_game(game_id)
    assert app.page == "setup"
    frame = table.render(board)
    app.vision.latest = frame
    app.pages.setup.corner_edit = [tuple(c) for c in table.board_corners_px().tolist()]
    app.act("corners-use")
    app.vision.look(frame, now=now)
    app.button("done")
    assert app.page == "play", app.message
    assert app.message == ""
    now = watch(board, 1.5, 0.0)  # the new tracker's first look: the position is there
    assert app.referee.instruction.text == "Red: move a stone or your character"
    board = {k: v for k, v in board.items() if k != "f7"} | {"f4": "red"}
    now = watch(board, 1.5, now)
    app.button("done")
    assert [m.text for m in app.records.game(game_id).moves] == ["b1-b4", "f7-f4"]


def test_a_game_that_starts_empty_learns_its_colours_on_an_own_board_too(tmp_path):
    """Arinama starts on an empty board: on its own grid (whose layout names no classes) the
    calibration position still has two stones of each colour, as on the printed mat."""
    from companion import games

    init_pygame(headless=True)
    app = sensei_app(HeadlessScreen((800, 480)), tmp_path, Settings(game="arinama"))
    app.start_game("arinama")
    app.act("board-own")
    assert app.vision.layout.name == "grid:8x8" and app.vision.layout.classes == ("empty",)
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    assert sorted(want.values()) == ["black", "black", "white", "white"]
    six = games.get("arinama").new(games.get("arinama").options_from({"rows": 6, "cols": 6}))
    assert sorted(six.calibration_cells(("empty",)).values()) == ["black"] * 2 + ["white"] * 2


def test_an_empty_board_photo_with_the_pieces_on_is_named_and_forgotten(tmp_path):
    """A trial: Empty board pressed with the start position's pieces still on Sensei's mat -
    every DONE then said "2 marked cells do not look like the position" of a board set up
    as shown, even after Back and Start. DONE says the photo showed pieces (marked where),
    forgets it, and DONE again learns without it."""
    init_pygame(headless=True)
    app = sensei_app(HeadlessScreen((800, 480)), tmp_path)
    app.start_game("sensei")
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    frame = SimTable("sensei", seed=3, size=(960, 540)).render(want)
    app.vision.look(frame, now=100.0)
    app.on_setup_frame(frame)
    app.act("empty-photo")  # the pieces are on the mat
    app.render(force=True)
    assert "empty board photographed" in " ".join(app.painter.texts)
    app.button("done")
    assert app.page == "setup"
    assert app.message.startswith("The empty board photo shows something on ")
    assert app.pages.setup.mismatch and set(app.pages.setup.mismatch) <= set(want)
    # marked "asked about", not "not allowed": the setup is right, the photo was not (a
    # trial: the setup's pieces were hatched out)
    _, model = app.page_model()
    assert set(model.wrong.values()) == {"asked"}
    assert app.vision.empty_photo is None
    app.button("done")
    assert app.page == "play" and app.message == ""


def test_an_empty_board_photo_on_a_board_of_your_own_is_said(tmp_path):
    """A trial: on a board of your own, Empty board changed nothing on the screen (on a
    printed mat the header says the photo was taken)."""
    init_pygame(headless=True)
    settings = Settings(game="sensei", boards={"sensei": "own"})
    app = sensei_app(HeadlessScreen((800, 480)), tmp_path, settings)
    app.start_game("sensei")
    table = own_table()
    frame = table.render({})
    app.vision.latest = frame
    app.on_setup_frame(frame)
    app.vision.set_corners(table.board_corners_px().tolist())
    app.act("empty-photo")
    app.render(force=True)
    assert "tapped corners; empty board photographed" in app.painter.texts


@pytest.mark.parametrize("language", ["en", "de"])
def test_the_empty_board_photo_said_in_the_header_fits_a_portrait_screen(tmp_path, language):
    """A trial: on a portrait screen the header's status "4 markers seen; empty board..." was
    cut - the only word that Empty board had done anything. The status may take the room
    the short title leaves."""
    from companion import i18n

    init_pygame(headless=True)
    with i18n.speaking(language):
        app = sensei_app(HeadlessScreen((720, 1280)), tmp_path)
        app.start_game("sensei")
        frame = SimTable("sensei", seed=3, size=(960, 540)).render({})
        app.vision.look(frame, now=100.0)
        app.on_setup_frame(frame)
        app.act("empty-photo")
        app.render(force=True)
        said = i18n._("empty board photographed")
        status = next(t for t in app.painter.texts if t.endswith(said))
        assert status not in app.painter.cut and not any(said in t for t in app.painter.cut)
