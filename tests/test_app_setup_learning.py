"""DONE on the setup screen learns the colours in the background (`TableVision(background=
True)`, as on the real table): the screen says so and keeps drawing the live camera picture,
the camera thread goes on finding the board, and the result - the game, the cells marked, the
turn to confirm, a bug - is taken on the main thread by the page's poll (`App.tick`). A result
learned for a board changed meanwhile (corners tapped again, the setup left) is dropped.

The calibrations are the real ones on rendered frames; `Held` only holds a calibration at its
start until the test lets it go, so that what happens meanwhile is certain, not a race."""

import threading
import time

import bench_vision
import numpy as np
import pygame
import pytest
from test_app import arinama5_app
from test_app_own_board import chess_table
from test_display import text_overlaps

from companion import i18n
from companion.app import App, CameraWorker, Settings, TableVision, run_table, table_vision
from companion.errors import UserError
from companion.records import Records
from display.device import HeadlessScreen, init_pygame
from vision.sim import SimTable, calibration_position, chess_start, random_script

SIZES = [(800, 480), (720, 1280)]


class Held:
    """The real `table_vision.<name>` (calibrate, calibrate_found), each call held at its
    start until `release` is set: `entered` says a calibration is under way. Counts the calls
    and how many ran at once."""

    def __init__(self, monkeypatch, name="calibrate", fail=None):
        self.real = getattr(table_vision, name)
        self.fail = fail  # an exception the calibration raises instead (a bug)
        self.entered = threading.Event()
        self.release = threading.Event()
        self.calls = 0
        self.frames = []  # the picture each call learned from
        self.running = 0
        self.most = 0
        self.lock = threading.Lock()
        monkeypatch.setattr(table_vision, name, self)

    def __call__(self, *args, **kwargs):
        with self.lock:
            self.calls += 1
            self.frames.append(args[0])
            self.running += 1
            self.most = max(self.most, self.running)
        self.entered.set()
        try:
            if not self.release.wait(60):
                raise TimeoutError("the test never let the calibration go")
            if self.fail is not None:
                raise self.fail
            return self.real(*args, **kwargs)
        finally:
            with self.lock:
                self.running -= 1


@pytest.fixture
def screen():
    init_pygame(headless=True)
    return HeadlessScreen((800, 480))


def mat_app(screen, tmp_path):
    """Arinama on its 5 x 5 mat, learning in the background as the real table does."""
    return arinama5_app(screen, tmp_path, background=True, settings_path=tmp_path / "settings.json")


def set_up(app, cells=None):
    """The setup screen with the camera seeing `cells` (default: the position asked for)."""
    app.start_game("arinama")
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    table = SimTable("arinama5", seed=3, size=(960, 540))
    frame = table.render(want if cells is None else cells(want))
    app.vision.look(frame, now=100.0)
    app.on_setup_frame(frame)
    assert app.vision.located is not None
    return table, want, frame


def labels(app, style=None):
    _, model = app.page_model()
    return [label for label, _kind, s in model.buttons if style is None or s == style]


def app_in(size, language, tmp_path):
    """A headless screen of `size` and the app on it, the table speaking `language`
    (conftest's `_english_again` sets English after the test)."""
    init_pygame(headless=True)
    screen = HeadlessScreen(size)
    app = mat_app(screen, tmp_path)
    app.settings.language = language
    i18n.set_language(language)
    return screen, app


def drawn_whole(app, screen, shot):
    """The page drawn (and saved to `shot` to look at): its text and status on screen, every
    text whole, clear of the others and inside the screen; its model."""
    app.render(force=True)
    screen.save(shot)
    _, model = app.page_model()
    assert model.text in app.painter.texts and model.status in " ".join(app.painter.texts)
    assert app.painter.cut == [] and app.painter.left_out == []
    assert text_overlaps(app.painter) == []
    bounds = screen.canvas.get_rect()
    assert all(bounds.contains(rect) for _text, rect in app.painter.drawn)
    return model


def finish(app):
    """Let the calibration thread end and the page take its result, as the event loop does."""
    assert app.vision.wait_for_calibration(timeout=60)
    app.tick()


def test_done_returns_at_once_and_the_game_starts_when_the_result_is_taken(
    screen, tmp_path, monkeypatch
):
    app = mat_app(screen, tmp_path)
    set_up(app)
    held = Held(monkeypatch)
    started = time.monotonic()
    app.button("done")
    assert time.monotonic() - started < 0.5  # (the calibration itself is held)
    assert held.entered.wait(10)
    assert app.page == "setup" and app.pages.setup.learning is app.vision
    assert app.vision.calibrating and app.vision.tracker is None
    # the page says so; Done is off, Back stays
    app.render(force=True)
    assert "The camera is learning your pieces' colours..." in app.painter.texts
    assert "learning..." in " ".join(app.painter.texts)
    assert labels(app, "disabled") == ["Empty board", "Own board", "Done"]
    assert [t.label for t in app.painter.targets] == ["Back"]
    # DONE again, ROLL (the empty-board photo): nothing while learning
    app.button("done")
    app.button("roll")
    assert app.vision.empty_photo is None and app.message == ""
    # the event loop asks again soon; nothing to take yet
    assert app.tick() == pytest.approx(0.05)
    assert app.page == "setup"
    held.release.set()
    finish(app)
    assert app.page == "play" and app.referee is not None
    assert app.vision.tracker is not None and not app.vision.calibrating
    assert app.pages.setup.learning is None and app.tick() is None
    assert held.calls == 1  # the second DONE started nothing


def test_a_position_that_does_not_fit_arrives_as_marked_cells(screen, tmp_path):
    app = mat_app(screen, tmp_path)
    table, want, _ = set_up(app, lambda want: {**want, "a1": "black", "e5": "white"})
    app.button("done")
    finish(app)
    assert app.page == "setup" and app.pages.setup.learning is None
    assert set(app.pages.setup.mismatch) >= {"a1", "e5"}
    assert "marked" in app.message and "a1" not in app.message
    _, model = app.page_model()
    assert set(model.wrong) == set(app.pages.setup.mismatch)
    # a language chosen meanwhile says it too (it stayed English until the next problem)
    count = len(app.pages.setup.mismatch)
    i18n.set_language("de")
    assert app.message == (
        f"{count} markierte Felder passen nicht zur Stellung: prüf sie, dann drück noch einmal "
        "FERTIG"
    )
    i18n.set_language("en")
    assert "Done" not in labels(app, "disabled")  # DONE again, once the board is right
    app.vision.look(table.render(want), now=101.0)
    app.button("done")
    assert app.message == "" and app.pages.setup.mismatch == ()  # answered: learning again
    finish(app)
    assert app.page == "play" and app.pages.setup.mismatch == ()


def test_the_camera_thread_is_not_kept_waiting_while_the_colours_are_learned(
    screen, tmp_path, monkeypatch
):
    """`look` and `feed` (the camera thread's calls) go through while a calibration runs: it
    holds the lock only to take its frame and to install its result."""
    app = mat_app(screen, tmp_path)
    table, want, frame = set_up(app)
    held = Held(monkeypatch)
    app.button("done")
    assert held.entered.wait(10)
    moved = table.render({**want, "c3": "black"})
    done = []

    def camera():
        app.vision.look(moved, now=200.0)
        done.append(app.vision.feed(moved, now=200.1))

    thread = threading.Thread(target=camera, name="camera")
    thread.start()
    thread.join(timeout=10)
    try:
        assert not thread.is_alive() and done == [None]  # (no tracker yet: nothing read)
        assert app.vision.latest is moved and app.vision.located is not None
        assert app.vision.calibrating and held.running == 1  # still learning meanwhile
    finally:
        held.release.set()
    finish(app)
    assert app.page == "play"
    (learned_from,) = held.frames  # the picture DONE was pressed on, not the one seen since
    assert np.array_equal(learned_from, frame)


def test_the_live_picture_keeps_coming_through_the_event_loop_while_learning(
    screen, tmp_path, monkeypatch
):
    """The real table's path: the camera worker's thread, the event loop, DONE from the
    button panel's thread. While the calibration is held, setup frames keep arriving and the
    screen keeps drawing; let go, the game starts and the tracker reads the board."""
    app = mat_app(screen, tmp_path)
    app.start_game("arinama")
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    picture = SimTable("arinama5", seed=3, size=(960, 540)).render(want)

    class Camera:
        def read(self):
            return picture.copy()

        def close(self):
            pass

    held = Held(monkeypatch)
    worker = CameraWorker(Camera(), app, fps=30)
    seen = {"pressed": False, "frames": 0, "drawn": []}
    on_setup_frame = app.on_setup_frame

    def setup_frame(frame):  # (the worker's events reach the app on the main thread)
        if held.running:
            seen["frames"] += 1
            seen["drawn"].append(screen.frames)
        on_setup_frame(frame)

    app.on_setup_frame = setup_frame
    started = time.monotonic()

    def until():
        if app.page == "setup" and app.vision.located is not None and not seen["pressed"]:
            seen["pressed"] = True
            threading.Thread(target=app.post_button, args=("done",), name="gpio").start()
        if seen["frames"] >= 4:
            held.release.set()
        return (
            app.page == "play" and app.referee.last_observation is not None
        ) or time.monotonic() - started > 60

    worker.start()
    try:
        run_table(app, screen, worker=worker, until=until)
    finally:
        held.release.set()
        worker.stop()
        app.vision.wait_for_calibration(timeout=60)
    assert seen["frames"] >= 4  # new camera pictures while learning ...
    assert seen["drawn"][-1] > seen["drawn"][0]  # ... drawn on the screen
    assert app.page == "play" and app.referee.last_observation is not None
    assert held.calls == 1


def test_a_result_learned_for_corners_tapped_again_meanwhile_is_dropped(monkeypatch):
    """A board of one's own, its corners tapped: a calibration learned for those corners is
    dropped when they were tapped again while it ran (the tracker would read the old ones);
    DONE again learns on the new ones."""
    table = chess_table()
    cells, figures = chess_start("chessboard")
    frame = table.render(cells, figures=figures)
    corners = table.board_corners_px()
    vision = TableVision("chessboard", background=True)
    vision.look(frame, now=1.0)
    vision.set_corners(corners + 1.0)  # a pixel off
    held = Held(monkeypatch)
    vision.start_calibration(cells)
    assert held.entered.wait(10)
    vision.set_corners(corners)  # tapped again
    held.release.set()
    assert vision.wait_for_calibration(timeout=60)
    result = vision.calibration_result()
    assert result is not None and result.dropped and result.error is None
    assert vision.tracker is None and not vision.calibrating
    assert vision.calibration_result() is None  # taken once
    vision.start_calibration(cells)
    assert vision.wait_for_calibration(timeout=60)
    result = vision.calibration_result()
    assert result is not None and not result.dropped and result.error is None
    assert np.allclose(vision.tracker.corners, corners)
    assert held.calls == 2


def test_back_while_learning_drops_the_result_and_one_calibration_runs_at_a_time(
    screen, tmp_path, monkeypatch
):
    """Back leaves the setup while the camera learns: the result is dropped when it comes.
    A new setup's DONE meanwhile waits for the calibration still running (never two at
    once: the Pi's cores), then learns its own."""
    app = mat_app(screen, tmp_path)
    set_up(app)
    held = Held(monkeypatch)
    app.button("done")
    assert held.entered.wait(10)
    app.button("back")
    assert app.page == "home" and app.pages.setup.learning is None
    assert not app.vision.calibrating
    set_up(app)  # the same game again, at once
    app.button("done")
    assert app.pages.setup.learning is app.vision and held.calls == 1  # waiting its turn
    held.release.set()
    finish(app)
    assert app.page == "play", app.message
    assert held.calls == 2 and held.most == 1
    # MENU while learning leaves the setup as Back does: nothing waits for its result
    app.act("menu")
    set_up(app)
    held.release.clear()
    held.entered.clear()
    app.button("done")
    assert held.entered.wait(10)
    app.button("menu")
    assert app.page == "home" and app.pages.setup.learning is None
    assert not app.vision.calibrating
    held.release.set()
    assert app.vision.wait_for_calibration(timeout=60)
    assert app.vision.tracker is None and app.vision.calibration_result() is None
    # and Back with nothing to wait for: the result simply never installed
    set_up(app)
    held.release.clear()
    held.entered.clear()
    app.button("done")
    assert held.entered.wait(10)
    app.button("back")
    held.release.set()
    assert app.vision.wait_for_calibration(timeout=60)
    assert app.tick() is None and app.page == "home"
    assert app.vision.tracker is None and app.vision.calibration_result() is None


def test_a_bug_in_the_calibration_is_raised_on_the_main_thread(screen, tmp_path, monkeypatch):
    """Not a `UserError` (a position that does not fit), but a bug: never swallowed in the
    worker thread - the main loop raises it, as it did when DONE calibrated there."""
    app = mat_app(screen, tmp_path)
    set_up(app)
    held = Held(monkeypatch, fail=ZeroDivisionError("a bug in the calibration"))
    app.button("done")
    held.release.set()  # (only now: released before, it could end inside DONE's own look)
    assert app.vision.wait_for_calibration(timeout=60)
    with pytest.raises(ZeroDivisionError, match="a bug in the calibration"):
        app.tick()
    assert app.vision.tracker is None and app.page == "setup"
    # a problem the players can fix is said on the screen, as before
    app.vision.located = None
    app.vision.problem = "the mat is not found"
    app.button("done")
    assert app.message == "The mat is not found" and app.pages.setup.learning is None


def test_a_board_found_turned_round_is_confirmed_by_done_again_in_the_background(
    screen, tmp_path, monkeypatch
):
    """The turn to confirm travels through the worker: the grid turned, a1 outlined at its
    new corner and said; DONE again plays on the calibration kept, without learning anew."""
    held = Held(monkeypatch, "calibrate_found")
    held.release.set()
    app = App(
        screen,
        Settings(game="arimaa", options={"arimaa": {"equipment": "chess"}}),
        records=Records(tmp_path / "r.sqlite3"),
        vision_factory=lambda name: TableVision(name, background=True),
    )
    app.start_game("arimaa")
    cells, figures = chess_start("chessboard")
    swapped = {c: "black" if k == "white" else "white" for c, k in cells.items()}
    table = chess_table()
    frame = table.render(swapped, figures=figures)
    app.vision.look(frame, now=1.0)
    app.on_setup_frame(frame)
    app.button("done")
    finish(app)
    assert app.page == "setup" and app.vision.tracker is None
    assert "fits the board turned round" in app.message
    corners = table.board_corners_px()
    cell = np.linalg.norm(corners[0] - corners[1]) / 8
    assert np.linalg.norm(app.vision.located.board_corners_px()[3] - corners[1]) < 0.25 * cell
    app.vision.look(frame, now=2.0)
    app.button("done")
    finish(app)
    assert app.page == "play", app.message
    assert app.message == "" and held.calls == 1  # played on the turn shown


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_learning_screen_fits(size, language, tmp_path, monkeypatch):
    """The setup screen while learning, in both languages at both sizes: every text whole,
    on screen and clear of the buttons."""
    screen, app = app_in(size, language, tmp_path)
    set_up(app)
    held = Held(monkeypatch)
    app.button("done")
    try:
        model = drawn_whole(app, screen, tmp_path / f"setup-learning-{language}-{size}.png")
    finally:
        held.release.set()
        app.vision.wait_for_calibration(timeout=60)
    if language == "de":
        assert model.text == "Die Kamera lernt die Farben eurer Figuren …"


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_records_check_screen_fits(size, language, tmp_path, monkeypatch):
    """The setup screen waiting for the records' start-up check (a large file just after
    boot), in both languages at both sizes: every text whole, on screen and clear of the
    buttons, every button but Back off."""
    import companion.records as records_module

    release = threading.Event()
    quick_check = records_module._damage_found

    def slow_check(conn, table=""):  # the start-up check, until the test has looked
        if threading.current_thread().name == "records-check":
            release.wait(30)
        return quick_check(conn, table)

    monkeypatch.setattr(records_module, "_damage_found", slow_check)
    screen, app = app_in(size, language, tmp_path)
    try:
        set_up(app)
        app.button("done")
        finish(app)
        assert app.pages.setup.starting
        model = drawn_whole(app, screen, tmp_path / f"setup-records-{language}-{size}.png")
        assert [kind for _, kind, state in model.buttons if state != "disabled"] == ["back"]
    finally:
        release.set()
        i18n.set_language("en")
    app.records.damage(wait=True)
    app.tick()
    assert app.page == "play"


@pytest.mark.parametrize("taken_away", [True, False])
def test_a_hand_over_the_mat_at_done_is_said_near_its_cell(screen, tmp_path, taken_away):
    """DONE with a hand over the mat (from the right, resting on the mat's near corner, its
    fingertips on the near cells) learns nothing: the screen marks the cell beside it and asks to take it away
    (`vision.tracker.something_over_the_mat`) - that photo is what the first board is
    compared with, and a hand in it would hold the first board until Board clear. DONE again
    learns from the picture as it is: the hand gone, or nothing there that the check could
    tell from a hand."""
    app = mat_app(screen, tmp_path)
    table, want, _ = set_up(app)
    hand = table.hand_towards(tuple(table.mat_quad()[3]), reach=0.65)
    app.vision.look(table.render(want, hand), now=101.0)
    app.button("done")
    finish(app)
    assert app.page == "setup" and app.vision.tracker is None
    assert app.pages.setup.mismatch == ("e1",)
    assert app.message.startswith("Something lies on the mat near e1 - a hand?")
    _, model = app.page_model()
    assert set(model.wrong) == {"e1"}
    app.render(force=True)
    screen.save(tmp_path / "hand-at-done.png")  # (looked at: e1 marked, the banner says it)
    if taken_away:
        app.vision.look(table.render(want), now=102.0)
    app.button("done")
    assert app.message == "" and app.pages.setup.mismatch == ()
    finish(app)
    assert app.page == "play" and app.vision.tracker is not None


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("language", ["en", "de"])
def test_a_hand_at_done_is_said_whole(size, language, tmp_path):
    """The words for a hand over the mat at DONE, in both languages at both sizes: whole and
    on screen, the cell marked."""
    screen, app = app_in(size, language, tmp_path)
    try:
        table, want, _ = set_up(app)
        hand = table.hand_towards(tuple(table.mat_quad()[3]), reach=0.65)
        app.vision.look(table.render(want, hand), now=101.0)
        app.button("done")
        finish(app)
        app.render(force=True)
        screen.save(tmp_path / f"setup-hand-{language}-{size[0]}x{size[1]}.png")
        assert app.pages.setup.mismatch == ("e1",)
        said = {"en": "Something lies on the mat near e1", "de": "Auf der Matte liegt etwas bei e1"}
        assert app.message.startswith(said[language])
        assert app.painter.cut == [] and app.painter.left_out == []
        bounds = screen.canvas.get_rect()
        assert all(bounds.contains(rect) for _text, rect in app.painter.drawn)
    finally:
        i18n.set_language("en")


def test_a_hand_at_done_is_asked_about_again_in_a_new_setup(screen, tmp_path):
    """DONE again after the refusal learns as it is - but only in that setup: Back and a new
    game on the same mat (the same camera side, a new setup) asks again about a hand that is
    there (a review: the refusal was remembered across setups, and the hand went unasked)."""
    app = mat_app(screen, tmp_path)
    table, want, _ = set_up(app)
    hand = table.hand_towards(tuple(table.mat_quad()[3]), reach=0.65)
    with_hand = table.render(want, hand)
    app.vision.look(with_hand, now=101.0)
    app.button("done")
    finish(app)
    assert app.pages.setup.mismatch == ("e1",)
    app.button("back")
    assert app.page != "setup"
    app.start_game("arinama")
    app.vision.look(with_hand, now=102.0)
    app.button("done")
    finish(app)
    assert app.page == "setup" and app.pages.setup.mismatch == ("e1",)
    assert app.message.startswith("Something lies on the mat near e1")
    app.button("done")  # (the players say nothing is there)
    finish(app)
    assert app.page == "play"


def test_a_camera_that_does_not_see_the_board_is_said_at_once(screen, tmp_path):
    app = mat_app(screen, tmp_path)
    app.start_game("arinama")
    app.vision.latest = np.full((360, 640, 3), 90, np.uint8)  # a table, no mat
    with pytest.raises(UserError, match="does not see the mat"):
        app.vision.start_calibration({})
    assert not app.vision.calibrating
    # a black picture (the lens covered, the light off) says so, once it lasts a second: no
    # mat is its reason (a camera's single black frame is no covered lens - a review)
    black = np.zeros((360, 640, 3), np.uint8)
    app.vision.look(black, now=1.0)
    assert not app.vision.dark and app.vision.latest is not black
    app.vision.look(black, now=2.1)
    assert app.vision.dark
    assert app.vision.problem.startswith("the camera's picture is all but black")
    with pytest.raises(UserError, match="is the lens covered, or the light off"):
        app.vision.start_calibration({})
    with pytest.raises(UserError, match="is the lens covered, or the light off"):
        app.vision.take_empty_photo()
    assert not app.vision.calibrating
    pygame.event.clear()


def test_the_first_board_is_judged_against_the_setup_photo():
    """The photo DONE learned from (the table with nothing over it) is the tracker's first
    last still board (`Tracker(clear_view=...)`): on a realistic Arimaa table whose far
    rank's figures throw their shadows into the band along the mat's edge (`bench_vision.py
    --realistic`, seed 1, table 6), the first board is read, not held as an arm coming in
    over the edge (tests/test_vision_track.py has the tracker alone)."""
    table = bench_vision.realistic_table("arimaa", 6, 1)
    position = calibration_position(table.layout)
    vision = TableVision("arimaa")
    vision.look(table.render(position), 0.0)
    vision.start_calibration(position)
    assert vision.calibration_result() is not None and vision.tracker is not None
    script = random_script(table.layout, np.random.default_rng(7), 1)
    seen = []
    for index, (frame, _hand, _cells) in enumerate(bench_vision.game_frames(table, script)):
        observation = vision.feed(frame, (index + 1) / 30)
        if observation is not None:
            seen.append(observation.cells)
    assert seen == [bench_vision.truth_of(table.layout, board) for board in script]
    assert vision.status == "still"


def test_a_single_black_frame_at_done_learns_from_the_picture_before_it(screen, tmp_path):
    """A review: one glitching black frame just before DONE refused it with "is the lens
    covered, or the light off?" - the last picture that showed the mat is learned from."""
    app = mat_app(screen, tmp_path)
    set_up(app)
    app.vision.look(np.zeros((360, 640, 3), np.uint8), now=100.1)  # the glitch
    assert not app.vision.dark
    app.button("done")
    finish(app)
    assert app.page == "play" and app.message == ""
