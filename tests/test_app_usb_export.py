"""Export to USB on the touchscreen, driven through the App as the players do: a game of the
review written to a folder standing in for the stick (by a worker thread, while the screen and
the table's buttons go on), what the screen says meanwhile and after, no stick / a read-only or
full one said in the red bar, All to USB from the list, and the table's buttons in the review as
they were. Every screen is saved as a PNG and its texts checked whole, on screen and clear of
the buttons."""

import errno
import json
import threading
import time

import pytest
from test_display import text_overlaps
from test_records import play_recorded

import companion.files
import companion.usb_export
from companion import i18n
from companion.app import App, Settings
from companion.app.pages.review import StickWriter
from companion.records import Records
from companion.usb_drives import Drive
from companion.usb_export import FOLDER
from display.device import HeadlessScreen, init_pygame
from display.layout import frame

SIZES = [(800, 480), (720, 1280)]
TIMEOUT = 10.0  # s: far longer than any game here takes to write (the longest: 0.1 s)


@pytest.fixture(params=SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def screen(request):
    init_pygame(headless=True)
    return HeadlessScreen(request.param)


@pytest.fixture
def records(tmp_path):
    with Records(tmp_path / "records.sqlite3") as db:
        yield db


def table(screen, records, tmp_path, *, read_only=False):
    """The app over `records` with a stick "KINGSTON" in (a folder of tmp_path): (app, the
    drives it finds - empty it to pull the stick out)."""
    mount = tmp_path / "stick"
    mount.mkdir(exist_ok=True)
    drives = [Drive(mount, "/dev/sda1", "vfat", read_only, "KINGSTON")]
    app = App(screen, Settings(), records=records)
    app.find_drives = lambda: drives
    return app, drives


def shown(app, path):
    """Draw the page, save it, and check every text is whole, on screen, clear of buttons and
    of each other - but for the header's, which the red bar covers on purpose."""
    app.render(force=True)
    app.screen.save(path)
    painter = app.painter
    assert painter.cut == [] and painter.left_out == [], painter.cut
    rect = app.screen.canvas.get_rect()
    assert all(rect.contains(r) for _, r in painter.drawn)
    header = frame(app.screen.size, painter).header
    in_header = {t for t, r in painter.drawn if header.contains(r)}
    bar = painter.drawn[-1][0] if getattr(app.pages.named(app.page), "problem", "") else None
    assert [(a, b) for a, b in text_overlaps(painter) if not (b == bar and a in in_header)] == []
    return " | ".join(painter.texts)


def tap(app, label):
    (target,) = [t for t in app.painter.targets if t.label == label]
    app.tap(target.rect.center)


def finish(app):
    """Tick the app as its event loop does until the page's export is finished (`poll` says
    nothing more is due); fails if it does not finish within TIMEOUT."""
    deadline = time.monotonic() + TIMEOUT
    while (wait := app.tick()) is not None:
        assert wait <= StickWriter.POLL_SECONDS, wait
        assert time.monotonic() < deadline, f"the export did not finish in {TIMEOUT} s"
        time.sleep(0.005)


class Gate:
    """`write_game` held until the test lets it through, a game at a time: what the screen
    does while a game is being written."""

    def __init__(self, monkeypatch):
        self.reached = threading.Semaphore(0)  # a game is about to be written
        self.allowed = threading.Semaphore(0)
        real = companion.usb_export.write_game

        def held(record, folder):
            self.reached.release()
            if not self.allowed.acquire(timeout=TIMEOUT):
                raise AssertionError("the game was held: the test never let it be written")
            return real(record, folder)

        monkeypatch.setattr(companion.usb_export, "write_game", held)

    def writing(self):
        """Wait until a game is being written (held)."""
        assert self.reached.acquire(timeout=TIMEOUT), "no game began to be written"

    def let_through(self):
        self.allowed.release()


def files_in(folder):
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def open_game(app, game_id):
    app.act("review")
    app.render()
    app.act("open-game", game_id)
    app.render()
    assert app.page == "review-game"


def test_the_game_in_the_review_goes_to_the_stick_and_the_screen_says_where(
    screen, records, tmp_path, capsys
):
    game_id, pos = play_recorded(records, "arinama", seed=2, max_moves=7)
    app, _ = table(screen, records, tmp_path)
    open_game(app, game_id)
    size = f"{screen.size[0]}x{screen.size[1]}"
    tap(app, "Export to USB")
    texts = shown(app, tmp_path / f"1-writing-{size}.png")
    assert "Writing to the USB stick KINGSTON: game 1 of 1 - do not pull it out yet" in texts
    assert not [t for t in app.painter.targets if t.action.kind == "export"]  # waits
    finish(app)  # written by the worker, looked in on each tick of the event loop
    texts = shown(app, tmp_path / f"2-written-{size}.png")
    folder = tmp_path / "stick" / FOLDER
    (page,), (record,) = folder.glob("*.html"), folder.glob("*.json")
    assert f"Game {game_id} is on the USB stick KINGSTON: {page.name}, .json in the folder " in (
        texts
    )
    assert "You can pull the stick out now" in texts
    assert json.loads(record.read_text())["moves"] == [m.text for m in records.game(game_id).moves]
    assert "<!DOCTYPE html>" in page.read_text()
    assert f"exported to {page}" in capsys.readouterr().err  # the journal says where
    # the table's buttons step through the game as before, and BACK goes to the list
    ply = app.pages.review_game.review.ply
    app.button("roll")
    assert app.pages.review_game.review.ply == ply - 1
    app.button("done")
    assert app.pages.review_game.review.ply == ply
    assert "is on the USB stick" not in shown(app, tmp_path / f"3-stepped-{size}.png")
    app.button("back")
    assert app.page == "review-list"


def test_no_stick_is_said_over_the_page_and_goes_with_the_next_step(screen, records, tmp_path):
    game_id, _ = play_recorded(records, "sensei", seed=1, max_moves=4)
    app, drives = table(screen, records, tmp_path)
    drives.clear()
    open_game(app, game_id)
    tap(app, "Export to USB")
    size = f"{screen.size[0]}x{screen.size[1]}"
    texts = shown(app, tmp_path / f"no-stick-{size}.png")
    assert "No USB stick found: put one in (formatted FAT32 or exFAT, as they come)" in texts
    assert app.tick() is None and not (tmp_path / "stick" / FOLDER).exists()
    app.button("roll")
    assert "No USB stick found" not in shown(app, tmp_path / f"after-{size}.png")


def test_a_read_only_stick_is_said_as_such(screen, records, tmp_path):
    game_id, _ = play_recorded(records, "arinama", seed=1, max_moves=3)
    app, _ = table(screen, records, tmp_path, read_only=True)
    open_game(app, game_id)
    tap(app, "Export to USB")
    size = f"{screen.size[0]}x{screen.size[1]}"
    assert "The USB stick KINGSTON is read-only" in shown(app, tmp_path / f"ro-{size}.png")
    assert not (tmp_path / "stick" / FOLDER).exists()


def test_a_full_stick_is_said_in_one_line_and_the_game_is_still_recorded(
    screen, records, tmp_path, monkeypatch
):
    game_id, _ = play_recorded(records, "aranea", seed=3, max_moves=9)
    before = records.game(game_id).moves
    app, _ = table(screen, records, tmp_path)
    open_game(app, game_id)

    def no_space(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(companion.files.os, "fsync", no_space)
    tap(app, "Export to USB")
    finish(app)  # said, never raised
    size = f"{screen.size[0]}x{screen.size[1]}"
    texts = shown(app, tmp_path / f"full-{size}.png")
    assert "The USB stick KINGSTON is full: make room on it, or use another stick - the game " in (
        texts
    )
    assert list((tmp_path / "stick" / FOLDER).iterdir()) == []
    assert records.game(game_id).moves == before
    # the players free some room and press again: written
    monkeypatch.undo()
    tap(app, "Export to USB")
    finish(app)
    assert len(list((tmp_path / "stick" / FOLDER).iterdir())) == 2


def test_all_games_go_to_the_stick_from_the_list_one_after_another(
    screen, records, tmp_path, monkeypatch
):
    ids = [play_recorded(records, name, seed=5, max_moves=6)[0] for name in ("arinama", "arimaa")]
    app, _ = table(screen, records, tmp_path)
    app.act("review")
    app.render()
    gate = Gate(monkeypatch)
    tap(app, "All to USB")
    gate.writing()  # the first game
    size = f"{screen.size[0]}x{screen.size[1]}"
    texts = shown(app, tmp_path / f"list-writing-{size}.png")
    assert "Writing to the USB stick KINGSTON: game 1 of 2" in texts
    app.button("done")  # out of habit while it writes: nothing (a review: it stopped the export)
    assert app.page == "review-list"
    # the worker writes: the loop comes back soon to look
    assert app.tick() == StickWriter.POLL_SECONDS
    gate.let_through()
    gate.writing()  # the second game: the first is on the stick
    assert app.tick() == StickWriter.POLL_SECONDS
    assert "game 2 of 2" in shown(app, tmp_path / f"list-writing2-{size}.png")
    app.button("done")  # still nothing
    assert app.page == "review-list"
    gate.let_through()
    finish(app)
    texts = shown(app, tmp_path / f"list-written-{size}.png")
    assert "2 games are on the USB stick KINGSTON, in the folder tabletop-companion" in texts
    names = sorted(p.name for p in (tmp_path / "stick" / FOLDER).iterdir())
    assert len(names) == 5 and all(f"game-{i}-" in " ".join(names) for i in ids)
    assert sum(name.endswith(".txt") for name in names) == 1  # Arimaa's move list
    # the table's buttons on the list as before: DONE opens the newest game
    app.button("done")
    assert app.page == "review-game" and app.pages.review_game.game_id == max(ids)


def test_leaving_the_list_stops_the_export_after_the_game_being_written(
    screen, records, tmp_path, monkeypatch
):
    [play_recorded(records, "arinama", seed=s, max_moves=4) for s in (1, 2, 3)]
    app, _ = table(screen, records, tmp_path)
    app.act("review")
    app.render()
    gate = Gate(monkeypatch)
    tap(app, "All to USB")
    worker = app.pages.review_list.stick.worker
    gate.writing()  # the first game
    # BACK waits for the game being written (let through a moment later), not for the rest:
    # once the screen has changed, the stick may be pulled out
    threading.Timer(0.2, gate.let_through).start()
    app.button("back")
    assert app.page == "home" and not worker.thread.is_alive() and app.tick() is None
    folder = tmp_path / "stick" / FOLDER
    assert len(files_in(folder)) == 2  # the first game's page and record, whole
    assert not gate.reached.acquire(timeout=0)  # no other game was begun
    assert worker.state.stopped and len(worker.state.done) == 1
    app.act("review")  # the list again: nothing said of the export left
    assert app.pages.review_list.stick.note == ""
    assert app.pages.review_list.buttons()["done"][0] == "open-game"  # not busy


def test_a_game_opened_while_all_to_usb_writes_waits_for_the_game_being_written(
    screen, records, tmp_path, monkeypatch
):
    """A review: a row tapped while All to USB wrote its second game left the list at once;
    the list then said "Stopped: 1 of 3 games" and no longer "do not pull it out yet", while
    the second game was still being written - and it was written after all."""
    ids = [play_recorded(records, "arinama", seed=s, max_moves=4)[0] for s in (1, 2, 3)]
    app, _ = table(screen, records, tmp_path)
    app.act("review")
    app.render()
    gate = Gate(monkeypatch)
    tap(app, "All to USB")
    gate.writing()
    gate.let_through()  # the first game written
    gate.writing()  # the second being written
    threading.Timer(0.2, gate.let_through).start()
    app.act("open-game", ids[0])  # a row tapped: the list is left
    assert app.page == "review-game"
    worker = app.pages.review_list.stick.worker
    assert worker is not None and not worker.thread.is_alive()
    assert len(files_in(tmp_path / "stick" / FOLDER)) == 4  # two games, whole
    assert not gate.reached.acquire(timeout=0)  # the third was not begun
    app.button("back")  # to the list: it says what was written
    assert app.page == "review-list"
    size = f"{screen.size[0]}x{screen.size[1]}"
    texts = shown(app, tmp_path / f"list-stopped-{size}.png")
    assert "Stopped: 2 of 3 games are on the USB stick KINGSTON" in texts


def test_the_export_is_said_in_german_too(screen, records, tmp_path):
    game_id, _ = play_recorded(records, "arinama", seed=2, max_moves=5)
    app, drives = table(screen, records, tmp_path)
    app.settings.language = "de"
    i18n.set_language("de")
    try:
        open_game(app, game_id)
        size = f"{screen.size[0]}x{screen.size[1]}"
        tap(app, "Auf USB-Stick")
        finish(app)
        texts = shown(app, tmp_path / f"de-written-{size}.png")
        assert f"Partie {game_id} ist auf dem USB-Stick KINGSTON" in texts
        drives.clear()
        tap(app, "Auf USB-Stick")
        assert "Kein USB-Stick gefunden" in shown(app, tmp_path / f"de-none-{size}.png")
    finally:
        i18n.set_language("en")


def test_the_screen_answers_while_a_game_is_written(screen, records, tmp_path, monkeypatch):
    """The game written on a worker thread: the event loop's tick comes back at once while the
    writing waits, the page answers the table's buttons and a tap, and the game is written."""
    game_id, _ = play_recorded(records, "arinama", seed=4, max_moves=8)
    app, _ = table(screen, records, tmp_path)
    open_game(app, game_id)
    gate = Gate(monkeypatch)
    tap(app, "Export to USB")
    # (on the screen's thread the tick waited here, on the held game, and the gate failed it)
    assert app.tick() == StickWriter.POLL_SECONDS
    gate.writing()  # the game is being written
    worker = app.pages.review_game.stick.worker.thread
    assert worker.name == "usb-export" and worker.daemon and worker.is_alive()
    assert app.tick() == StickWriter.POLL_SECONDS
    last = app.pages.review_game.review.ply
    app.button("roll")  # the table's button: one move back
    assert app.pages.review_game.review.ply == last - 1
    size = f"{screen.size[0]}x{screen.size[1]}"
    shown(app, tmp_path / f"live-{size}.png")
    tap(app, "|<")  # a tap: the start
    assert app.pages.review_game.review.ply == 0
    texts = shown(app, tmp_path / f"live-start-{size}.png")
    assert "Writing to the USB stick KINGSTON: game 1 of 1 - do not pull it out yet" in texts
    assert files_in(tmp_path / "stick" / FOLDER) == []  # still held
    gate.let_through()
    finish(app)
    texts = shown(app, tmp_path / f"live-written-{size}.png")
    assert f"Game {game_id} is on the USB stick KINGSTON" in texts
    names = files_in(tmp_path / "stick" / FOLDER)
    assert [n.rsplit(".", 1)[1] for n in names] == ["html", "json"]
    worker.join(TIMEOUT)
    assert not worker.is_alive()
