"""The wiring: a whole demo game headless (synthetic table -> tracker -> referee -> records ->
screen, driven by mock GPIO button presses), the event loop's pacing, the camera thread, and
the settings file."""

import json
import os
import socket
import threading
import time

import pygame
import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from test_records import play_recorded

from companion.app import (
    App,
    CameraWorker,
    Settings,
    TableVision,
    run_table,
)
from companion.cli import main
from companion.commands.run import open_table_buttons
from companion.errors import UserError
from companion.records import Records
from display.device import HeadlessScreen, init_pygame
from hardware.buttons import ButtonPanel, ButtonPins
from hardware.sdnotify import Watchdog


@pytest.fixture
def screen():
    init_pygame(headless=True)
    return HeadlessScreen((800, 480))


def test_the_headless_demo_is_turned_as_rotation_says(tmp_path, capsys):
    """A trial: `run --headless --rotation 90` wrote 800x480 screenshots; the table (a panel
    mounted upright) is 480x800, as the window and the boot service draw it."""
    shots = tmp_path / "shots"
    argv = ["run", "--headless", "--rotation", "90", "--moves", "1", "--screenshots", str(shots)]
    assert main([*argv, "--db", str(tmp_path / "r.sqlite3")]) == 0
    capsys.readouterr()
    first = sorted(shots.glob("*.png"))[0]
    assert pygame.image.load(str(first)).get_size() == (480, 800)


def test_companion_run_plays_a_whole_game_headless_and_records_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COMPANION_COMMAND", "./dev companion")  # as ./dev runs it
    shots = tmp_path / "shots"
    db = tmp_path / "records.sqlite3"
    assert (
        main(["run", "--headless", "--screenshots", str(shots), "--db", str(db), "--seed", "1"])
        == 0
    )
    out = capsys.readouterr().out
    assert "synthetic table plays a game of arinama" in out
    # the commands it suggests as the player types them (a trial: `companion` is not on PATH)
    assert "(`./dev companion games --db " in out and "`./dev companion export 1 " in out
    assert f"screenshots in {shots}" in out
    with Records(db) as records:
        (summary,) = records.games()
        assert summary.status == "finished"
        record = records.game(summary.id)
        position = record.position()  # the engine replays every recorded move
        assert position.is_game_over()
        assert str(position.outcome()) in out
        assert f"after {summary.moves} moves" in out
        assert any(i.instruction["kind"] == "flip" for i in record.instructions)
    names = {p.name.split("-", 1)[1].removesuffix(".png") for p in shots.glob("*.png")}
    for page in (
        "home",
        "setup",
        "play-move",
        "play-flip",
        "play-hands",
        "gameover",
        "review-game",
        "review-list",
        "dice-roller",
        "settings",
    ):
        assert page in names, sorted(names)
    image = pygame.image.load(str(next(shots.glob("*-play-flip.png"))))
    assert image.get_size() == (800, 480)


def test_run_rejects_bad_arguments_with_one_line(capsys):
    assert main(["run", "--game", "chess", "--headless"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
    assert main(["run", "--size", "big", "--headless"]) == 2
    assert "WIDTHxHEIGHT" in capsys.readouterr().err


def test_idle_loop_blocks_and_redraws_only_on_change(screen):
    app = App(screen, Settings())
    started_cpu = time.process_time()
    deadline = time.monotonic() + 0.6
    run_table(app, screen, until=lambda: time.monotonic() > deadline)
    assert screen.frames == 1  # the first picture, then nothing changed
    assert time.process_time() - started_cpu < 0.3  # asleep in pygame.event.wait, not spinning
    # A key press is a change: exactly one more picture.
    pygame.event.post(
        pygame.event.Event(pygame.KEYDOWN, key=pygame.K_r, mod=0, unicode="r", scancode=0)
    )
    deadline = time.monotonic() + 0.3
    run_table(app, screen, until=lambda: time.monotonic() > deadline)
    assert app.page == "dice"
    assert screen.frames == 3  # the forced first draw of this run, then the dice page


def test_buttons_drive_the_pages(screen, tmp_path):
    Device.pin_factory = MockFactory()
    clock = [0.0]
    try:
        app = App(
            screen, Settings(), records=Records(tmp_path / "r.sqlite3"), clock=lambda: clock[0]
        )
        panel = ButtonPanel(app.button, ButtonPins(), clock=lambda: clock[0], threaded=False)

        def press(pin, hold=0.05):
            Device.pin_factory.pin(pin).drive_low()
            clock[0] += hold
            panel.poll()
            Device.pin_factory.pin(pin).drive_high()
            clock[0] += 0.05
            panel.poll()

        app.render()
        press(27)  # ROLL on home: the dice roller
        assert app.page == "dice"
        press(27)  # roll
        assert app.pages.dice.state.dice is not None
        assert 1 <= app.pages.dice.state.value <= 12
        press(22)  # BACK: home
        assert app.page == "home"
        press(22, hold=1.5)  # BACK held: the menu (home) - and no extra BACK
        assert app.page == "home"
        panel.close()
    finally:
        Device.pin_factory.close()
        Device.pin_factory = None


def test_buttons_that_do_not_open_at_a_table_are_said_on_the_home_screen(
    screen, monkeypatch, capsys
):
    """A trial: without GPIO access the buttons were dead, and why was said in the journal
    alone. At a table (a real camera) the home screen says it; the synthetic demo on a
    desktop does not nag; buttons that open say nothing."""
    Device.pin_factory = None
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    at_table, demo = App(screen, Settings()), App(screen, Settings())
    assert open_table_buttons(at_table, ButtonPins(), at_table=True) is None
    assert open_table_buttons(demo, ButtonPins(), at_table=False) is None
    assert at_table.notice.startswith("The table's buttons do not work (BadPinFactory: ")
    assert at_table.notice.endswith("): use the screen") and demo.notice == ""
    err = capsys.readouterr().err
    assert err.count("companion: no GPIO buttons (BadPinFactory: ") == 2
    Device.pin_factory = MockFactory()
    try:
        fine = App(screen, Settings())
        panel = open_table_buttons(fine, ButtonPins(), at_table=True)
        assert panel is not None and fine.notice == ""
        panel.close()
    finally:
        Device.pin_factory.close()
        Device.pin_factory = None


def test_camera_thread_finds_the_mat_and_the_game_starts(screen, tmp_path):
    """The threaded path of the real table on a synthetic camera: recognise the mat on the
    home screen, set up, learn the colours, see the board, ping the watchdog."""
    from vision.sources import open_source

    notify = tmp_path / "notify.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(notify))
    sock.settimeout(5)
    env = {
        "NOTIFY_SOCKET": str(notify),
        "WATCHDOG_USEC": "400000",
        "WATCHDOG_PID": str(os.getpid()),
    }
    source = open_source("sim:arinama5?size=640x360&seed=2&loop=1&moves=2&still=20&hand=4")
    settings = Settings(game="arimaa")
    app = App(
        screen,
        settings,
        records=Records(tmp_path / "r.sqlite3"),
        vision_factory=lambda name: TableVision(name, still_seconds=0.3),
    )
    worker = CameraWorker(source, app, fps=30)
    # The simulated board shows random stones: make the setup expect exactly that board.
    worker.start()
    steps = {"recognised": False}
    started = time.monotonic()

    def until():
        if (
            app.page == "home"
            and app.pages.home.recognised == "arinama"
            and not steps["recognised"]
        ):
            steps["recognised"] = True
            # the mat's own board size with it (the game alone set up an 8x8 board, which the
            # camera never found on the 5x5 mat - a player's trial)
            assert app.settings.game_options("arinama").rows == 5
            assert app.settings.game_options("arinama").cols == 5
            pygame.event.post(
                pygame.event.Event(
                    pygame.KEYDOWN, key=pygame.K_RETURN, mod=0, unicode="\r", scancode=0
                )
            )
        if app.page == "setup" and app.vision.located is not None:
            # what the table shows is what it learns (at once: this TableVision is not background)
            app.vision.start_calibration(source.truth_cells)
            learned = app.vision.calibration_result()
            assert learned is not None and learned.error is None
            app.start_referee()
        return (
            app.page == "play" and app.referee.last_observation is not None
        ) or time.monotonic() - started > 60

    try:
        run_table(app, screen, worker=worker, watchdog=Watchdog(env), until=until)
    finally:
        worker.stop()
        source.close()
    assert steps["recognised"]
    assert app.page == "play"
    assert app.referee.last_observation is not None
    messages = []
    while True:
        try:
            messages.append(sock.recv(200).decode())
        except TimeoutError:
            break
        if any(m.startswith("WATCHDOG") for m in messages) and messages[-1].startswith("STOPPING"):
            break
    sock.close()
    assert messages[0].startswith("READY=1")
    assert "WATCHDOG=1" in messages
    assert messages[-1] == "STOPPING=1"


def test_settings_round_trip_and_a_damaged_file_is_left_alone(tmp_path):
    path = tmp_path / "settings.json"
    settings = Settings(game="aranea", rotation=180, colour_names={"black": "dark"})
    settings.save(path)
    again = Settings.load(path)
    assert again == settings
    path.write_text("{not json")
    with pytest.raises(UserError, match="settings file"):
        Settings.load(path)
    assert path.read_text() == "{not json"
    path.write_text(json.dumps({"version": 9}))
    with pytest.raises(UserError, match="newer companion"):
        Settings.load(path)
    # a game record given as --settings (a player's trial): taken, the next change of a
    # setting would have been saved over it
    record = {"format": "tabletop-companion/game", "version": 1, "game": "arinama"}
    path.write_text(json.dumps(record))
    with pytest.raises(UserError, match="is not a settings file .*'tabletop-companion/game'"):
        Settings.load(path)
    assert json.loads(path.read_text()) == record
    # a folder (`--settings /tmp`): said so, never "fix or remove it"
    with pytest.raises(
        UserError, match="is a folder, not a settings file: give --settings a file"
    ) as said:
        Settings.load(tmp_path)
    assert "remove" not in str(said.value)


def test_settings_screen_changes_rotation_options_and_pins(screen, tmp_path):
    path = tmp_path / "settings.json"
    app = App(screen, Settings(game="arinama"), settings_path=path)
    app.act("settings")
    app.render()
    app.act("setting-up", "rotation")
    assert screen.size == (480, 800) and app.settings.rotation == 90
    app.act("setting-up", "option:rows")
    assert app.settings.game_options().rows == 9
    app.act("setting-up", "option:flip_check")
    assert app.settings.game_options().flip_check == "captures-first"
    app.act("setting-up", "pin:done")  # skips the pins already taken
    pins = ButtonPins.parse(app.settings.pins)
    assert pins.done not in (pins.roll, pins.back) and pins.done != 17
    app.act("setting-up", "colour:black")
    assert app.settings.colour_names["black"] != "black"
    assert Settings.load(path) == app.settings  # saved at once
    for _ in range(20):
        app.act("setting-up", "option:rows")
    assert app.settings.game_options().rows == 12  # stops at the rule's limit
    assert app.render()


def test_an_option_changed_during_a_game_is_said_to_be_for_the_next_game(screen):
    """A trial: the board's size changed from the menu during a 5x5 Arinama game said only
    "Saved", and the home screen then showed "6 x 5 board" beside Continue #1 - the game in
    hand keeps its options; the note says so. Without a game in hand: "Saved"."""
    from companion import games
    from companion.referee import Referee

    app = App(screen, Settings(game="arinama"))
    app.act("settings")
    app.act("setting-up", "option:rows")
    assert app.pages.settings.note == "Saved"
    position = games.get("arinama").new(games.get("arinama").options_from({"rows": 5, "cols": 5}))
    app.referee = Referee(position)
    app.act("setting-up", "option:rows")
    assert app.pages.settings.note == (
        "Saved for the next game: the game in hand keeps its options"
    )
    assert app.referee.position.options.rows == 5
    app.act("setting-up", "volume")  # not an option of the game
    assert app.pages.settings.note == "Saved"


def test_unfinished_games_are_offered_on_the_home_screen(screen, tmp_path):
    from companion import games
    from companion.referee import Referee

    records = Records(tmp_path / "r.sqlite3")
    position = games.get("arinama").new(games.get("arinama").options_from({"rows": 5, "cols": 5}))
    referee = Referee(position, records=records)
    move = position.legal_moves()[0]
    referee._accept(move)
    app = App(screen, Settings(), records=records, vision_factory=lambda name: TableVision(name))
    app.render()
    resume = [t for t in app.painter.targets if t.action.kind == "resume"]
    assert resume and "move 2" in resume[0].label
    app.tap(resume[0].rect.center)
    assert app.page == "setup"
    assert app.setup_position.to_json() == referee.position.to_json()


def test_continue_names_the_move_as_the_game_counts_it(screen, tmp_path):
    """A trial: Continue said "#1 Arimaa, move 7" where the play screen says "move 4g", and
    "#2 Aranea, move 9" for its turn 4 - the count of plies, not the game's own."""
    records = Records(tmp_path / "r.sqlite3")
    arimaa, position = play_recorded(records, "arimaa", seed=1, max_moves=6)
    aranea, turns = play_recorded(records, "aranea", seed=2, max_moves=8)
    app = App(screen, Settings(), records=records)
    app.render()
    offered = " | ".join(t.label for t in app.painter.targets if t.action.kind == "resume")
    assert f"#{arimaa} Arimaa, move {position.move_label}" in offered
    assert f"#{aranea} Aranea, move {turns.move_label}" in offered
    assert position.move_label != "7" and turns.move_label != "9"
    # ... also for a record written before Aranea's positions kept their turn (a review: it
    # read "move 1" from the stored position; the replay counts the turns)
    import sqlite3

    again = tmp_path / "old.sqlite3"
    old = Records(again)
    aranea, turns = play_recorded(old, "aranea", seed=3, max_moves=14)
    old.close()
    with sqlite3.connect(again) as conn:
        conn.execute("UPDATE moves SET position = json_remove(position, '$.turn_number')")
    app = App(screen, Settings(), records=Records(again))
    app.render()
    offered = " | ".join(t.label for t in app.painter.targets if t.action.kind == "resume")
    assert f"#{aranea} Aranea, move {turns.move_label}" in offered and turns.move_label != "1"


def test_the_review_list_marks_the_demo_s_games(screen, tmp_path):
    from companion import games

    with Records(tmp_path / "r.sqlite3") as records:
        records.new_game(games.get("arinama").new(), meta={"demo": True, "seed": 1})
        records.new_game(games.get("sensei").new())
        app = App(screen, Settings(), records=records)
        app.act("review")
        app.render()
        texts = " | ".join(app.painter.texts)
        assert "#1 Arinama (demo)" in texts and "#2 Sensei" in texts
        assert "Sensei (demo)" not in texts


def test_the_newest_games_come_first_in_the_review_list_and_on_the_home_screen(screen, tmp_path):
    """The review list shows the game just played first (DONE opens it), and the home screen
    offers the two games left unfinished last, newest first - both listed the oldest first
    (a new player's trial: after 19 demos, DONE opened game #1)."""
    from companion import games
    from companion.games.base import Outcome

    with Records(tmp_path / "r.sqlite3") as records:
        cls = games.get("arinama")
        ids = [records.new_game(cls.new()) for _ in range(4)]
        records.finish(ids[3], Outcome("black", "resigned"))  # #4 done; #1-#3 unfinished
        app = App(screen, Settings(), records=records)
        app.render()
        offered = [t.label for t in app.painter.targets if t.action.kind == "resume"]
        assert [label.split("#")[1].split()[0] for label in offered] == ["3", "2"]
        app.act("review")
        assert [row[0] for row in app.pages.review_list.games()] == [4, 3, 2, 1]
        assert app.pages.review_list.buttons()["done"] == ("open-game", 4)
        # any game with the table's buttons: ROLL points at the next row (marked, its page
        # shown), DONE opens it (a trial: only the newest could be opened so)
        app.button("roll")
        app.button("roll")
        assert app.pages.review_list.model()[1].pointed == 1
        app.button("done")
        assert app.page == "review-game" and app.pages.review_game.game_id == 3


def test_a_later_aranea_game_starts_with_the_previous_loser(screen, tmp_path):
    """rules.md 3, who starts: the app reads the last finished Aranea game from the records."""
    from companion import games
    from companion.games.base import Outcome

    records = Records(tmp_path / "r.sqlite3")
    app = App(screen, Settings(), records=records, vision_factory=lambda name: TableVision(name))
    app.start_game("aranea")
    assert (
        app.page == "setup" and app.setup_position.phase == "opening"
    )  # the first game: the opening roll decides
    cls = games.get("aranea")
    for winner, loser in (("blue", "amber"), ("amber", "blue")):
        game_id = records.new_game(cls.new())
        records.finish(game_id, Outcome(winner, "three-in-line"))
        app.start_game("aranea")
        assert app.setup_position.turn == loser and app.setup_position.phase == "roll"
    records.new_game(games.get("arinama").new())  # another game in between changes nothing
    app.start_game("aranea")
    assert app.setup_position.turn == "blue"


def test_mats_and_calibration_positions():
    from companion import games

    assert (
        games.get("arinama").mat_layout(games.get("arinama").options_from({"rows": 5, "cols": 5}))
        == "arinama5"
    )
    assert (
        games.get("sensei").mat_layout(games.get("sensei").options_from({"side": "storm"}))
        == "sensei-storm"
    )
    with pytest.raises(UserError, match="no printed mat"):
        games.get("arinama").mat_layout(games.get("arinama").options_from({"rows": 6, "cols": 6}))
    # No printed mat of that size: a lined board of one's own; Sensei's own board is 7 x 7.
    Arinama, Sensei = games.get("arinama"), games.get("sensei")
    assert Arinama.table_layout(Arinama.options_from({"rows": 6, "cols": 6})) == "grid:6x6"
    assert Sensei.table_layout(Sensei.options_from({}), own=True) == "grid:7x7"
    assert Arinama.table_layout(Arinama.options_from({}), own=True) == "grid:8x8"
    assert Arinama.table_layout(Arinama.options_from({})) == "arinama8"
    assert not Arinama.own_board_choice(Arinama.options_from({"rows": 6, "cols": 6}))
    assert Sensei.own_board_choice(None) and not games.get("aranea").own_board_choice(None)
    cells = games.get("aranea").new().calibration_cells(("empty", "amber", "blue"))
    assert sorted(cells.values()) == ["amber", "amber", "blue", "blue"]


def test_worker_events_stay_on_the_main_thread(screen):
    app = App(screen, Settings())
    calls = []
    app.button = lambda action: calls.append((action, threading.current_thread().name))
    deadline = time.monotonic() + 0.5

    def press_from_another_thread():
        time.sleep(0.05)
        app.post_button("roll")

    threading.Thread(target=press_from_another_thread, name="gpio").start()
    run_table(app, screen, until=lambda: bool(calls) or time.monotonic() > deadline)
    assert calls == [("roll", threading.main_thread().name)]


def test_review_steps_through_a_recorded_game_by_touch(screen, tmp_path):
    from companion import games
    from companion.referee import Referee

    records = Records(tmp_path / "r.sqlite3")
    cls = games.get("arinama")
    referee = Referee(cls.new(cls.options_from({"rows": 5, "cols": 5})), records=records)
    for _ in range(3):
        referee._accept(referee.position.legal_moves()[0])
    app = App(screen, Settings(), records=records)
    app.act("review")
    app.render()
    (row,) = [t for t in app.painter.targets if t.action.kind == "open-game"]
    app.tap(row.rect.center)
    assert app.page == "review-game" and app.pages.review_game.review.ply == 3
    app.render()

    def tap_label(label):
        (target,) = [t for t in app.painter.targets if t.label == label]
        app.tap(target.rect.center)
        app.render()

    tap_label("<")
    assert app.pages.review_game.review.ply == 2
    assert app.pages.review_game.review.highlights  # the cells the move changed
    # numbered by ply: positions read back from the records know no history (all said 1)
    assert any(t.startswith("Move 2: ") for t in app.painter.texts), app.painter.texts
    # each number joined to its move by a no-break space: never the end of a line alone
    assert any(t.startswith("1.\u00a0") and "   2.\u00a0" in t for t in app.painter.texts)
    tap_label("|<")
    assert app.pages.review_game.review.ply == 0 and "Start position" in app.painter.texts
    tap_label(">|")
    assert app.pages.review_game.review.ply == 3
    assert not [t for t in app.painter.targets if t.label == ">"]  # at the end: disabled


def test_a_missing_camera_is_shown_and_tried_again(screen):
    """The boot service (`run --wait-for-camera`): no camera is a message on every screen, not
    a crash; the camera is tried again and picked up when it appears."""
    from companion.app import ReconnectingCamera

    now = [0.0]
    attempts = []

    class Frames:
        def read(self):
            return "frame"

        def close(self):
            pass

    def opener(spec):
        attempts.append(now[0])
        if len(attempts) < 3:
            raise UserError("no camera on usb:9: check the cable")
        return Frames()

    camera = ReconnectingCamera("usb:9", opener, retry_seconds=5, clock=lambda: now[0])
    assert camera.read() is None and "check the cable" in camera.problem
    assert camera.read() is None and attempts == [0.0]  # not again before 5 s
    app = App(screen, Settings())
    app.on_camera_problem(camera.problem)
    app.render()
    assert any("No camera: no camera on usb:9" in t for t in app.painter.texts)
    now[0] = 5.0
    assert camera.read() is None and len(attempts) == 2
    now[0] = 10.0
    assert camera.read() == "frame" and camera.problem == ""
    app.on_camera_problem(camera.problem)
    app.render()
    assert not any("No camera" in t for t in app.painter.texts)


def test_run_wait_for_camera_never_falls_back_to_the_demo(monkeypatch):
    from companion.commands import run as run_command

    seen = {}
    monkeypatch.setattr(run_command, "_default_source", lambda: None)
    monkeypatch.setattr(
        run_command, "_run_table", lambda args, source, *rest: seen.update(source=source) or 0
    )
    monkeypatch.setattr(run_command, "_run_demo", lambda *a: pytest.fail("the demo ran"))
    main(["run", "--headless", "--wait-for-camera"])
    assert seen["source"] == "picamera"


def test_a_question_is_answered_with_the_table_s_buttons(screen):
    """A trial: at Arimaa's "Which setup?" (and "Which gold piece is on g2 now?") DONE and ROLL
    did nothing - only a tap answered, so a table played by its buttons stopped there. ROLL
    points at an answer, then the next (drawn as the one primary button), and DONE takes the
    one pointed at. Nothing is pointed at first: a DONE out of habit ("I have set up") answers
    nothing (a review: the first answer, pointed at by itself, was taken so)."""
    app = App(screen, Settings(game="arimaa"))
    app.start_game("arimaa")
    instruction = app.page_model()[1].instruction
    assert instruction.kind == "choose" and instruction.choices == ("standard", "arrange")
    assert "ROLL points at an answer, DONE takes it" in instruction.detail

    def primary():
        from display.screens.play import _buttons

        return [
            label for label, action, style in _buttons(app.page_model()[1]) if style == "primary"
        ]

    assert primary() == ["Standard", "Arrange"]  # none pointed at: every answer a tap away
    app.button("done")  # out of habit: nothing is answered
    assert app.referee.setups.get("gold") is None and app.referee.instruction.kind == "choose"
    app.button("roll")
    assert primary() == ["Standard"]
    app.button("roll")
    assert primary() == ["Arrange"]
    app.button("roll")  # round again
    assert primary() == ["Standard"]
    app.button("done")
    assert app.referee.setups["gold"] is not None  # Gold's standard setup, chosen
    assert app.referee.instruction.kind != "choose"
    assert app.pages.play.buttons()["done"] == ("done", None)  # DONE is DONE again
    assert app.pages.play.buttons()["roll"] == ("roll", None)


def test_arimaa_setup_arranged_by_touch(screen):
    """The camera sees colours, not types: the players arrange their setup on the screen (two
    taps swap two pieces), and the diagram then shows each piece's type."""
    from companion import games
    from companion.referee.core import observation_of

    app = App(screen, Settings(game="arimaa"))
    app.start_game("arimaa")
    assert app.page == "play" and app.referee.instruction.kind == "choose"

    def tap(label):
        app.render()
        (target,) = [t for t in app.painter.targets if t.label == label]
        app.tap(target.rect.center)

    tap("Arrange")
    assert (
        app.pages.play.arimaa_setup.arranger is not None
        and app.pages.play.arimaa_setup.arranger.side == "gold"
    )
    _, model = app.page_model()
    assert model.piece_labels["e2"] == "E" and model.piece_labels["a1"] == "R"
    tap("a1")
    # the piece tapped first is keyed "picked", not "put here" (a trial)
    assert app.page_model()[1].instruction.highlights == {"a1": "picked"}
    tap("e2")  # the elephant and a rabbit change places
    _, model = app.page_model()
    assert model.piece_labels["a1"] == "E" and model.piece_labels["e2"] == "R"
    tap("Use this")
    assert app.pages.play.arimaa_setup.arranger is None
    setup = app.referee.setups["gold"]
    assert "Ea1" in setup and "Re2" in setup
    assert app.referee.instruction.text == "Gold: set up your pieces as shown"
    _, model = app.page_model()
    assert model.piece_labels["a1"] == "E"  # the diagram shows what to put where
    # ... also once the camera has seen the board, still empty (a review: the letters went,
    # as the board showed nothing where the setup puts its pieces)
    names = games.get("arimaa").new().cell_names()
    app.on_observation(observation_of(names, {}))
    _, model = app.page_model()
    assert model.piece_labels["a1"] == "E" and len(model.piece_labels) == 16
    board = {f"{f}{r}": "gold" for f in "abcdefgh" for r in "12"}
    app.on_observation(observation_of(names, board))
    assert app.referee.position.move_stack and app.referee.position.turn == "silver"
    assert app.page_model()[1].piece_labels["a1"] == "E"
    app.render(force=True)  # the header counts as Arimaa does: silver's setup is turn 1s
    assert "Arimaa · move 1s" in app.painter.texts


def test_a_setup_left_half_arranged_ends_with_its_game(screen):
    """Arimaa's setup being arranged on the screen, MENU, and a new game of Sensei: the play
    screen still said "Gold: tap two pieces to swap them" over Sensei's board, and DONE sent
    Sensei's referee an Arimaa setup. The arranging ends with its game."""
    app = App(screen, Settings(game="arimaa"))
    app.start_game("arimaa")
    app.act("choose", "arrange")
    assert app.pages.play.arimaa_setup.arranger is not None
    app.act("menu")
    app.act("select-game", "sensei")
    app.act("start")
    assert app.page == "play" and app.referee.position.name == "sensei"
    app.render(force=True)
    assert not [t for t in app.painter.texts if "tap two pieces" in t]
    assert app.page_model()[1].cell_action == ""
    app.act("done")
    assert app.message == "" and app.referee.instruction.text.startswith("Green: move")
    # a new game of Arimaa starts with the setup question, not with the old arrangement
    app.act("menu")
    app.act("select-game", "arimaa")
    app.act("start")
    assert app.pages.play.arimaa_setup.current() is None
    assert app.referee.instruction.text == "Gold: which setup?"


def test_a_failure_in_the_camera_path_is_shown_and_the_thread_goes_on(screen, monkeypatch):
    app = App(screen, Settings())
    app.go("play")

    class Vision:
        tracker = object()
        status = "still"
        calls = 0

        def feed(self, frame, now):
            Vision.calls += 1
            if Vision.calls <= 2:
                raise ValueError("a bug in the tracker")
            return None

    app.vision = Vision()
    posted = []

    class Frames:
        reads = 0
        ended = False

        def read(self):
            Frames.reads += 1
            if Frames.reads > 4:
                worker._stop.set()
            return "frame"

    worker = CameraWorker(Frames(), app, paced=False)
    monkeypatch.setattr(worker, "_post", lambda what, **data: posted.append((what, data)))
    monkeypatch.setattr(worker._stop, "wait", lambda seconds: worker._stop.is_set())
    worker._run()  # returns only when stopped: two failures did not end it
    problems = [d["text"] for what, d in posted if what == "camera-problem"]
    assert problems[0].startswith("the camera path failed (ValueError: a bug in the tracker)")
    assert problems[-1] == ""  # cleared once a frame went through
    assert Vision.calls >= 3


def arinama5_app(screen, tmp_path, *, background=False, settings_path=None):
    """The app for Arinama on its 5 x 5 mat, with the real camera path (TableVision);
    `background`: the colours learned in a thread of their own, as on the real table."""
    settings = Settings(game="arinama")
    settings.options["arinama"] = {"rows": 5, "cols": 5}
    return App(
        screen,
        settings,
        records=Records(tmp_path / "r.sqlite3"),
        vision_factory=lambda name: TableVision(name, background=background),
        settings_path=settings_path,
    )


def test_the_setup_screen_says_stones_for_a_game_of_stones(screen, tmp_path):
    """German said "Figuren" - a Sensei character's word - for Arinama's stones (a trial)."""
    from companion import games, i18n
    from vision.sim import SimTable

    app = arinama5_app(screen, tmp_path)
    app.start_game("arinama")
    table = SimTable("arinama5", seed=3, size=(960, 540))
    app.vision.look(table.render({}), now=100.0)
    _, model = app.page_model()
    assert model.text == "Put the stones as shown, then press DONE"
    assert model.detail == "The camera learns your stones' colours from this position"
    i18n.set_language("de")
    try:
        _, model = app.page_model()
        assert model.text == "Leg die Steine wie gezeigt, dann drück FERTIG"
    finally:
        i18n.set_language("en")
    assert games.get("arimaa").pieces_are_stones is False  # Arimaa's pieces stay pieces
    assert games.get("aranea").new().pieces_are_stones is True  # (its stock is `stones`)


def test_a_calibration_photo_that_differs_marks_the_cells_on_the_setup_screen(screen, tmp_path):
    """The camera sees a stone where the start position has none: the setup screen says how
    many cells differ in one line and marks them on the diagram (not a wall of cell names);
    once the board is right, DONE starts the game and the marks are gone."""
    from vision.sim import SimTable

    app = arinama5_app(screen, tmp_path)
    app.start_game("arinama")
    assert app.page == "setup"
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    table = SimTable("arinama5", seed=3, size=(960, 540))
    wrong = {**want, "a1": "black", "e5": "white"}
    app.vision.look(table.render(wrong), now=100.0)
    assert app.vision.located is not None
    app.pages.setup.confirm()
    assert app.page == "setup"
    assert set(app.pages.setup.mismatch) >= {"a1", "e5"}
    assert "a1" not in app.message and "marked" in app.message
    _, model = app.page_model()
    assert set(model.wrong) == set(app.pages.setup.mismatch)
    app.vision.look(table.render(want), now=101.0)
    app.pages.setup.confirm()
    assert app.page == "play" and app.pages.setup.mismatch == ()


def test_an_empty_board_photo_on_the_setup_screen_teaches_every_cell_its_own_look(screen, tmp_path):
    """Empty board (or ROLL) on the setup screen keeps the camera's picture of the empty mat;
    DONE then calibrates with it: every cell has its own empty look, and the game starts."""
    from vision.sim import SimTable

    app = arinama5_app(screen, tmp_path)
    app.start_game("arinama")
    _, model = app.page_model()
    assert [label for label, _, _ in model.buttons] == ["Back", "Empty board", "Own board", "Done"]
    app.button("roll")  # before the camera sees the mat: said, nothing kept
    assert app.vision.empty_photo is None and "does not see" in app.message
    table = SimTable("arinama5", seed=5, size=(960, 540))
    app.vision.look(table.render({}), now=100.0)
    app.button("roll")
    assert app.vision.empty_photo is not None and app.message == ""
    _, model = app.page_model()
    assert "empty board photographed" in model.status
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    app.vision.look(table.render(want), now=101.0)
    app.pages.setup.confirm()
    assert app.page == "play"
    assert len(app.vision.tracker.calibration.own_look) == 25


def test_something_left_on_the_mat_s_edge_is_read_past_when_the_players_touch_board_clear(
    screen, tmp_path
):
    """A cup put down over the mat's edge looks to the camera like a hand resting there:
    after a few seconds the play screen says something lies on the board and offers BOARD
    CLEAR (on the screen only: the table's DONE keeps its meaning, a hand may rest there);
    then the board is read as it is and the move is recorded, and the next move is read with
    the cup still there."""
    from test_vision_track import cup_on_the_margin

    from vision.sim import SimTable

    app = arinama5_app(screen, tmp_path)
    app.start_game("arinama")
    table = SimTable("arinama5", seed=3, size=(960, 540))
    with_cup = cup_on_the_margin(table)
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    app.vision.look(table.render(want), now=100.0)
    app.pages.setup.confirm()
    assert app.page == "play"
    clock = iter(range(10**6))

    def watch(frames):
        for frame in frames:
            observation = app.vision.feed(frame, next(clock) / 30)
            app.on_vision_status(app.vision.status)
            if observation is not None:
                app.on_observation(observation)

    watch([table.render({})] * 20)  # the players clear the calibration position away
    first = {"c3": "black"}
    watch(with_cup(frame) for frame, _ in table.transition({}, first))
    watch([with_cup(table.render(first))] * 100)
    assert app.vision_status == "covered" and app.covered and app.hands
    assert app.referee.position.move_stack == []
    app.render(force=True)
    screen.save(tmp_path / "covered.png")
    assert "Something lies on the board" in app.painter.texts
    assert any(t.startswith("Near e") and "lamp's shadow" in t for t in app.painter.texts)
    assert "Board clear" in [t.label for t in app.painter.targets]
    app.button("done")  # the table's DONE keeps its meaning: it may be a hand resting there
    watch([with_cup(table.render(first))] * 3)
    assert app.referee.position.move_stack == [] and app.covered
    app.act("board-clear")  # the players touch BOARD CLEAR
    watch([with_cup(table.render(first))] * 3)
    assert [str(m) for m in app.referee.position.move_stack] == ["c3"]
    assert app.vision_status == "still" and not app.covered
    second = {"c3": "black", "d4": "white"}
    watch(with_cup(frame) for frame, _ in table.transition(first, second))
    assert [str(m) for m in app.referee.position.move_stack] == ["c3", "d4"]


def test_a_cell_the_camera_keeps_misreading_is_taken_as_right_when_the_players_touch_board_is_right(
    screen, tmp_path
):
    """Glare on a stone reads its cell empty for as long as the lamp stays: the play screen
    asks to put back a stone that is there, and offers BOARD IS RIGHT (on the screen only: the
    table's DONE keeps its meaning). Touched, the board is taken as the position, the camera
    learns from that frame, and the game goes on with the glare still there."""
    from companion import games
    from companion.referee.core import observation_of

    app = App(screen, Settings(game="arinama"), records=Records(tmp_path / "r.sqlite3"))
    app.start_game("arinama")
    names = games.get("arinama").new().cell_names()
    taught = []

    class Vision:  # the camera path's teaching end (TableVision.learn_from_board)
        def learn_from_board(self, frame, board):
            taught.append((frame, board))

    app.vision = Vision()
    app.on_observation(observation_of(names, {"c3": "black"}, frame=1))
    assert app.referee.position.move_stack == ["c3"]
    app.on_observation(observation_of(names, {}, frame=2))  # the glare on c3
    assert app.referee.instruction.kind == "restore"
    app.render(force=True)
    assert "Board is right" in [t.label for t in app.painter.targets]
    app.button("done")  # the table's DONE never says the camera is wrong
    assert app.referee.instruction.kind == "restore" and app.referee.misread == {}
    taught.clear()
    app.render(force=True)
    (target,) = [t for t in app.painter.targets if t.label == "Board is right"]
    app.tap(target.rect.center)
    assert app.referee.instruction.text == "White: place a stone"
    assert app.events[-1].kind == "board-right"
    assert taught == [(2, {"c3": "black"})]  # the position, with the frame said to be right
    app.render(force=True)
    assert "Board is right" not in [t.label for t in app.painter.targets]
    app.on_observation(observation_of(names, {"d4": "white"}, frame=3))  # glare still on c3
    assert app.referee.position.move_stack == ["c3", "d4"]


def test_a_damaged_records_file_is_said_on_every_screen_and_the_game_goes_on_unrecorded(
    screen, tmp_path
):
    """The records file was damaged inside (a bad sector): the home screen and the game say
    what is wrong and what to do on every page, the game is played without being recorded,
    and the file is left exactly as it was."""
    import hashlib

    from test_records import _damage_the_middle, _written_db

    db_path = tmp_path / "r.sqlite3"
    _written_db(db_path)
    _damage_the_middle(db_path)
    before = hashlib.sha256(db_path.read_bytes()).hexdigest()
    settings = Settings(game="arinama")
    settings.options["arinama"] = {"rows": 5, "cols": 5}
    app = App(
        screen, settings, records=Records(db_path), vision_factory=lambda name: TableVision(name)
    )
    app.records.damage(wait=True)  # the quick check runs while the app starts
    app.render(force=True)
    assert app.records_problem == (
        "The game records (r.sqlite3) are damaged: games are not recorded - copy the file "
        "aside and restore a backup"
    )
    assert app.records_problem in app.painter.texts
    start_arinama5_seen(app)
    assert app.page == "play" and app.referee.game_id is None
    app.render(force=True)  # the game's header says it; the move number stays in sight
    assert (
        app.painter.cut == [] and "not recorded" in app.painter.texts
    )  # the header, no camera yet
    assert app.records_problem not in app.painter.texts
    app.act("menu")
    app.act("review")  # the review list reads the damaged file: said, not a traceback
    app.render(force=True)
    assert "The recorded games cannot be read: the records file is damaged" in app.painter.texts
    app.records.close()
    assert hashlib.sha256(db_path.read_bytes()).hexdigest() == before


def start_arinama5_seen(app):
    """Start a 5x5 Arinama game and let the camera see its start position on the synthetic
    table's mat: the setup page learns the colours, and play begins."""
    from vision.sim import SimTable

    app.start_game("arinama")
    table = SimTable("arinama5", seed=3, size=(960, 540))
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    app.vision.look(table.render(want), now=100.0)
    app.pages.setup.confirm()


def test_the_boot_service_plays_on_unrecorded_when_the_records_cannot_be_opened(screen, tmp_path):
    """A trial: a records file that is no records database at all (garbage, another program's)
    made `run --wait-for-camera` - the boot service - exit before any screen came up; after
    systemd's restarts the players had a blank panel. It now plays on, unrecorded, saying so
    on every page (the journal says why); the file is left as it was. At a terminal the one
    line and exit 2 stay."""
    import argparse

    from companion.commands.run import _open_records
    from companion.errors import RecordError

    db_path = tmp_path / "garbage.sqlite3"
    db_path.write_bytes(bytes(range(256)) * 20)
    before = db_path.read_bytes()
    with pytest.raises(RecordError, match="is not a companion record database"):
        _open_records(argparse.Namespace(db=db_path, wait_for_camera=False))
    records, unusable = _open_records(argparse.Namespace(db=db_path, wait_for_camera=True))
    assert records is None and unusable == db_path
    settings = Settings(game="arinama")
    settings.options["arinama"] = {"rows": 5, "cols": 5}
    app = App(screen, settings, unusable_records=unusable, vision_factory=lambda n: TableVision(n))
    app.render(force=True)
    assert app.records_problem == (
        "The game records (garbage.sqlite3) cannot be opened: games are not recorded - the "
        "file is left as it is; the journal says why"
    )
    assert app.records_problem in app.painter.texts
    start_arinama5_seen(app)
    assert app.page == "play" and app.referee.game_id is None
    app.render(force=True)
    assert "not recorded" in app.painter.texts  # the game's header
    assert db_path.read_bytes() == before


def test_a_game_waits_for_the_records_check_without_blocking_the_main_loop(
    screen, tmp_path, monkeypatch
):
    """A large records file just after boot: its start-up quick check still runs when the
    camera has learned the colours. The setup page says so and is polled - DONE returns at
    once, so the main loop, the camera and the watchdog go on (a check of gigabytes on an SD
    card can outlast the watchdog's 30 s) - and the game starts, recorded, when it is done."""
    import companion.records as records_module
    from vision.sim import SimTable

    release = threading.Event()
    quick_check = records_module._damage_found

    def slow_check(conn, table=""):  # the start-up check, once the test lets it finish
        if threading.current_thread().name == "records-check":
            release.wait(10)
        return quick_check(conn, table)

    monkeypatch.setattr(records_module, "_damage_found", slow_check)
    app = arinama5_app(screen, tmp_path, background=True)  # learned in a thread, as on a Pi
    assert app.records.checking
    app.start_game("arinama")
    table = SimTable("arinama5", seed=3, size=(960, 540))
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    app.vision.look(table.render(want), now=100.0)
    began = time.monotonic()
    app.pages.setup.confirm()
    assert time.monotonic() - began < 5  # not waited for on the main thread
    polls = 0
    while app.pages.setup.learning is not None and polls < 400:
        polls += 1
        assert app.tick() == pytest.approx(0.05)
        time.sleep(0.05)
    # learned; the tick that took it asks to be asked again (a review: it said "sleep")
    assert app.page == "setup" and app.pages.setup.starting
    assert app.tick() == pytest.approx(0.05)
    app.act("done")  # taken no more than a second DONE while learning
    _, model = app.page_model()
    assert model.text == "Checking the game records before the game starts..."
    assert [state for _, kind, state in model.buttons if kind != "back"] == ["disabled"] * (
        len(model.buttons) - 1
    )
    release.set()
    app.records.damage(wait=True)
    assert app.tick() is None
    assert app.page == "play" and app.referee.game_id is not None
    assert not app.pages.setup.starting


def test_a_game_continued_from_a_damaged_records_file_goes_on_unrecorded(screen, tmp_path):
    """An unfinished game can still be read from a file damaged elsewhere: it is continued,
    every page says the file is damaged and that the game is not recorded, and the moves
    made are not written into the damaged file."""
    import hashlib

    from test_records import _damage_the_middle, _written_db

    from companion import games

    db_path = tmp_path / "r.sqlite3"
    with Records(db_path) as db:
        game_id = db.new_game(games.get("arinama").new({"rows": 5, "cols": 5}))
    _written_db(db_path)  # finished games after it, in the pages damaged below
    _damage_the_middle(db_path)
    before = hashlib.sha256(db_path.read_bytes()).hexdigest()
    app = arinama5_app(screen, tmp_path)
    app.records.close()
    app.records = Records(db_path)
    app.resume_game(game_id)
    app.start_referee()  # the board shows it: as the setup page does then
    assert app.page == "play" and app.referee.records is None
    app.render(force=True)
    assert "are damaged" in app.records_problem
    assert "not recorded" in app.painter.texts  # the header, no camera yet
    app.records.close()
    assert hashlib.sha256(db_path.read_bytes()).hexdigest() == before


def test_a_records_file_another_program_locks_stops_the_demo_saying_so(
    tmp_path, monkeypatch, capsys
):
    """A player's trial: with the records file locked by another program (an SQLite tool in
    the middle of a write) the demo said it "stalled", as if the camera or the referee were
    stuck. It names the busy file and what to do; the moves it saved stay, and the next demo
    continues the game once the lock is gone."""
    import sqlite3

    import companion.app.demo
    import companion.records
    from companion.app import run_demo

    monkeypatch.setattr(companion.records, "BUSY_SECONDS", 0.2)  # SQLite's wait, shortened
    monkeypatch.setattr(companion.app.demo, "STALL_FRAMES", 150)  # and the demo's (900)
    db = tmp_path / "r.sqlite3"
    other: list[sqlite3.Connection] = []

    def log(line):
        if line.startswith("    2  ") and not other:  # two moves saved: the other program
            other.append(sqlite3.connect(db, isolation_level=None))
            other[0].execute("BEGIN IMMEDIATE")  # ... takes the write lock and keeps it

    with Records(db) as records:
        with pytest.raises(UserError) as stopped:
            run_demo("arinama", options={"rows": 5, "cols": 5}, seed=1, records=records, log=log)
    message = str(stopped.value)
    assert "stalled" not in message and "\n" not in message
    assert message.startswith(f"the demo stopped after move 2: {db} is busy: another program ")
    assert "close that program or wait until it is done" in message
    assert message.endswith(
        "(its moves so far are in the records: the next demo continues the game)"
    )
    other[0].execute("ROLLBACK")
    other[0].close()
    with Records(db, readonly=True) as records:
        (summary,) = records.games()
        assert summary.moves == 2 and summary.status == "playing"
    shots = str(tmp_path / "shots")
    assert main(["run", "--headless", "--moves", "1", "--screenshots", shots, "--db", str(db)]) == 0
    assert "demo: continuing the unfinished game #1" in capsys.readouterr().out
    with Records(db, readonly=True) as records:
        (summary,) = records.games()
        assert summary.moves == 3


def test_the_review_writes_arimaa_s_piece_types_on_its_pieces(screen, tmp_path):
    """A new player's trial: the play screen writes E, M, H, D, C, R on Arimaa's pieces, the
    review showed them as plain discs (and numbered the moves 1, 2, ... where Arimaa counts 1g,
    1s). The review now draws each board with its position's piece types: the same board drawn
    without them differs on the pieces' cells."""
    import random

    from companion import games
    from companion.games.arimaa import GOLD, SILVER, random_setup
    from companion.referee import Referee

    records = Records(tmp_path / "r.sqlite3")
    referee = Referee(games.get("arimaa").new(), records=records)
    rng = random.Random(3)
    referee._accept(random_setup(GOLD, rng))
    referee._accept(random_setup(SILVER, rng))
    app = App(screen, Settings(), records=records)
    app.act("review")
    app.render()
    (row,) = [t for t in app.painter.targets if t.action.kind == "open-game"]
    app.tap(row.rect.center)
    review = app.pages.review_game.review
    assert app.page == "review-game" and review.ply == 2
    assert review.piece_labels[2] == referee.position.piece_labels()
    assert sorted(set(review.piece_labels[2].values())) == ["C", "D", "E", "H", "M", "R"]
    app.render(force=True)
    # the moves numbered as Arimaa counts them, as the header does: 1g, 1s
    assert any(t.startswith("Move 1s: ") for t in app.painter.texts), app.painter.texts
    with_types = pygame.surfarray.array3d(screen.canvas).copy()
    review.piece_labels = []
    app.render(force=True)
    without = pygame.surfarray.array3d(screen.canvas)
    assert (with_types != without).any()


def test_continuing_a_game_whose_moves_do_not_replay_says_so_and_records_on(screen, tmp_path):
    """A new player's trial: Continue on a game whose stored moves no longer replay (two
    programs wrote it) said the whole records file was damaged and games were not recorded.
    The file is sound: the home page says this game cannot be continued and why, and the
    next game is recorded as ever."""
    import sqlite3

    from companion import games, i18n
    from companion.referee import Referee

    db = tmp_path / "r.sqlite3"
    records = Records(db)
    cls = games.get("arinama")
    referee = Referee(cls.new(cls.options_from({"rows": 5, "cols": 5})), records=records)
    for _ in range(2):
        referee._accept(referee.position.legal_moves()[0])
    conn = sqlite3.connect(db)
    first, position = conn.execute("SELECT move, position FROM moves WHERE ply = 1").fetchone()
    conn.execute(  # the first move again, on a cell it already holds: illegal
        "INSERT INTO moves (game_id, ply, move, position, played_at) VALUES (1, 3, ?, ?, ?)",
        (first, position, "x"),
    )
    conn.commit()
    conn.close()
    app = App(screen, Settings(), records=records)
    app.act("resume", referee.game_id)
    app.render()
    assert app.page == "home" and app.records_problem == ""
    assert app.notice == (
        f"Game {referee.game_id} cannot be continued: its recorded moves do not replay. It "
        "stays in the records as it is - start a new game"
    )
    assert app.notice in app.painter.texts
    # and no longer offered to continue (Continue only said it again)
    assert not [t for t in app.painter.targets if t.action.kind == "resume"]
    # German chosen in Settings: the note is said in German too, no English left in it
    app.act("settings")
    app.pages.settings.change("language", +1)
    try:
        assert i18n.language() == "de"
        app.go("home")
        app.render()
        assert app.notice == (
            f"Partie {referee.game_id} kann nicht fortgesetzt werden: ihre aufgezeichneten "
            "Züge lassen sich nicht nachspielen. Sie bleibt unverändert in den Aufzeichnungen "
            "– starte eine neue Partie"
        )
        assert app.notice in app.painter.texts
    finally:
        i18n.set_language("en")
    app.act("start")
    assert app.notice == "" and app.page == "play"  # (no camera here: straight to the game)


def test_a_camera_source_that_ended_is_said_on_every_page_and_stays_said(screen):
    """Found by a review: "the camera source ended" was said on the setup and play pages
    only, in lower case, and a new setup cleared it (then "Show the camera the whole mat")."""
    app = App(screen, Settings(language="en"))
    app.on_camera_ended()
    for page in ("home", "dice", "review-list", "settings"):
        app.go(page)
        app.render(force=True)
        assert "No camera: the camera source ended" in app.painter.texts, page


def test_what_stays_on_the_screen_is_said_again_in_a_language_chosen_since(screen):
    """Found by a review: a line made before the players chose German in Settings - the
    camera's ended source, the damaged records, the status line - stayed in English until
    it was made again."""
    from companion import i18n
    from companion.i18n import _

    app = App(screen, Settings(language="en"), status=lambda: _("demo: synthetic table"))
    app.on_camera_ended()
    app.records_problem = "x"  # (as `records_damaged` says it, without a records file here)
    app.records_damaged()
    try:
        app.act("settings")
        app.pages.settings.change("language", +1)
        assert i18n.language() == "de"
        app.go("home")
        app.render(force=True)
        assert "Keine Kamera: die Kameraquelle ist zu Ende" in app.painter.texts
        assert app.records_problem.startswith("Die Spielaufzeichnung () ist beschädigt")
        assert app.status == "Demo: simulierter Tisch"
    finally:
        i18n.set_language("en")


def test_a_recognised_mat_sets_its_board_once_and_leaves_the_players_choice_after(screen):
    """The camera thread says which mat it sees every 2 s: setting the mat's board size each
    time undid a size the players then chose on the settings screen (a review)."""
    app = App(screen, Settings(game="arimaa"))
    app.recognise("arinama5")
    assert app.settings.game == "arinama"
    assert (app.settings.game_options().rows, app.settings.game_options().cols) == (5, 5)
    app.settings.options["arinama"] = {"rows": 8, "cols": 8, "first": "white"}
    app.recognise("arinama5")  # the same mat, seen again
    assert app.settings.options["arinama"] == {"rows": 8, "cols": 8, "first": "white"}
    app.recognise("sensei-storm")  # another mat: its game and board
    assert app.settings.game == "sensei" and app.settings.game_options().side == "storm"


def test_a_hand_over_a_finished_game_s_board_leaves_a_player_in_settings_where_they_are(screen):
    """The monkey found it: after a game had ended, a hand over the board (the tracker's
    "hands") took a player reading Settings, the menu or the review to the game-over screen.
    Only the game's own screen goes there by itself, as the game ends in front of it."""
    from companion import games
    from companion.observation import Observation
    from companion.referee import Referee
    from companion.referee.protocol import DONE, PlayerInput

    arimaa = games.get("arimaa")
    position = arimaa.from_board({"a7": "R", "e2": "E", "h2": "r", "d7": "e"})
    app = App(screen, Settings(game="arimaa"))
    app.referee = Referee(position)
    app.position = app.referee.position
    app.go("play")

    def board(**pieces: str) -> Observation:
        cells = dict.fromkeys(position.cell_names(), "empty")
        return Observation({**cells, **pieces}, frame=len(app.events) + 1)

    app.on_observation(board(a8="gold", e2="gold", h2="silver", d7="silver"))  # the goal
    app.player_input(PlayerInput(DONE))
    assert app.referee.instruction.kind == "game-over"
    assert app.page == "gameover"  # the game ended on its own screen
    for page in ("settings", "home", "review-list"):
        app.go(page)
        app.on_vision_status("hands")
        app.on_vision_status("still")
        assert app.page == page


def test_the_winning_move_can_be_taken_back_from_the_game_over_screen(screen, tmp_path):
    """A trial: the game-over screen had no Undo (BACK went home), though the referee takes a
    move back after the end: a misread or regretted winning move could not be. Undo there
    asks as on the play screen, which takes over; DONE agrees and the game goes on."""
    from companion import games
    from companion.observation import Observation
    from companion.referee import Referee
    from companion.referee.protocol import DONE, PlayerInput

    position = games.get("arimaa").from_board({"a7": "R", "e2": "E", "h2": "r", "d7": "e"})
    records = Records(tmp_path / "r.sqlite3")
    app = App(screen, Settings(game="arimaa"), records=records)
    app.referee = Referee(position, records=records)
    app.position = app.referee.position
    app.go("play")
    cells = dict.fromkeys(position.cell_names(), "empty")
    app.on_observation(
        Observation({**cells, "a8": "gold", "e2": "gold", "h2": "silver", "d7": "silver"}, frame=1)
    )
    app.player_input(PlayerInput(DONE))
    assert app.page == "gameover"
    assert records.game(app.referee.game_id).summary.status == "finished"
    app.render(force=True)
    (undo,) = [t for t in app.painter.targets if t.label == "Undo"]
    app.tap(undo.rect.center)
    assert app.page == "play" and app.referee.instruction.kind == "confirm"
    app.player_input(PlayerInput(DONE))
    assert not app.referee.position.is_game_over()
    assert app.referee.position.move_stack == []
    assert records.game(app.referee.game_id).summary.status == "playing"  # open again
    # a game over with nothing to take back offers no Undo (it did nothing, without a word)
    over = games.get("arimaa").from_board({"a8": "R", "e2": "E", "h2": "r", "d7": "e"})
    app.referee = Referee(over)
    app.position = app.referee.position
    app.go("gameover")
    app.render(force=True)
    assert "Undo" not in [t.label for t in app.painter.targets]


def test_a_second_done_on_the_winning_turn_does_not_skip_the_game_over_screen(screen):
    """A trial: DONE pressed twice on Arimaa's winning turn ended the game and, 0.1 s later,
    started the next one: the players never saw who had won, nor could they take a misread
    winning move back. The game over screen's DONE starts a new game only after its first
    seconds (`NEW_GAME_HOLD_SECONDS`); its New game, touched, at once."""
    from companion import games
    from companion.app.pages.gameover import NEW_GAME_HOLD_SECONDS
    from companion.observation import Observation
    from companion.referee import Referee

    now = [100.0]
    position = games.get("arimaa").from_board({"a7": "R", "e2": "E", "h2": "r", "d7": "e"})
    app = App(screen, Settings(game="arimaa"), clock=lambda: now[0])
    app.referee = Referee(position)
    app.position = app.referee.position
    app.go("play")
    cells = dict.fromkeys(position.cell_names(), "empty")
    app.on_observation(
        Observation({**cells, "a8": "gold", "e2": "gold", "h2": "silver", "d7": "silver"}, frame=1)
    )
    app.button("done")
    assert app.page == "gameover"
    for wait in (0.1, 0.5, NEW_GAME_HOLD_SECONDS - 0.2):
        now[0] += wait
        app.button("done")
        assert app.page == "gameover" and app.referee.position.is_game_over(), wait
        now[0] -= wait
    now[0] += NEW_GAME_HOLD_SECONDS
    app.button("done")  # the players have seen it: DONE starts the next game
    assert app.page != "gameover" and not app.referee.position.is_game_over()


def sensei_in_play(screen, **app_args):
    """A Sensei game from its start on the play page: (the app, the board the test changes -
    cell -> class, empty cells left out -, a `show()` that hands the app that board seen)."""
    from companion import games
    from companion.observation import Observation
    from companion.referee import Referee

    position = games.get("sensei").new()
    app = App(screen, Settings(game="sensei"), **app_args)
    app.referee = Referee(position.copy())
    app.position = app.referee.position
    app.go("play")
    board = dict(position.cells())

    def show() -> None:
        cells = dict.fromkeys(position.cell_names(), "empty")
        app.on_observation(Observation({**cells, **board}, frame=len(app.events) + 1))

    return app, board, show


def test_a_double_done_ends_one_turn_not_the_next_player_s_too(screen):
    """A trial: Green's quick double DONE in Sensei ended Green's turn and then offered Red an
    empty turn ("Red: press DONE again ...") Red never asked for - a third press ended it. A
    DONE within `DOUBLE_DONE_SECONDS` of the DONE that ended a turn is the same press twice;
    later, Red's own DONE on an unchanged board is asked about as before."""
    from companion.app.pages.play import DOUBLE_DONE_SECONDS

    now = [50.0]
    app, board, show = sensei_in_play(screen, clock=lambda: now[0])
    show()
    board["b4"] = board.pop("b1")
    show()
    board["f4"] = board.pop("f1")
    show()
    app.button("done")
    assert len(app.referee.position.move_stack) == 1  # Green's turn ended
    red = app.referee.instruction.text
    now[0] += 0.1
    app.button("done")  # the same press twice
    assert app.referee.instruction.text == red and "again" not in red
    now[0] += DOUBLE_DONE_SECONDS
    app.button("done")  # Red's own DONE, the board as it was
    assert "press DONE again" in app.referee.instruction.text
    assert len(app.referee.position.move_stack) == 1
    # ... and after a DONE held until the hand left the board (a review: the turn ended from
    # the still board, after the press, and the second press went to Red)
    app.button("done")  # Red's empty turn
    assert len(app.referee.position.move_stack) == 2
    board["c4"] = board.pop("c1")  # Green: two actions; the DONE pressed as the hand leaves
    show()
    board["e4"] = board.pop("e1")
    app.on_vision_status("moving")
    now[0] += 5.0
    app.button("done")  # held: the view is not still
    assert len(app.referee.position.move_stack) == 2
    now[0] += 0.4
    app.on_vision_status("still")
    show()  # the still board: the held DONE ends Green's turn
    assert len(app.referee.position.move_stack) == 3
    now[0] += 0.2
    app.button("done")  # the same press twice
    assert "again" not in app.referee.instruction.text
    # a fast reply's own DONE is taken: Red moved since (Sensei takes each action as seen)
    board["g5"] = board.pop("g7")
    show()
    board["b5"] = board.pop("b7")
    show()
    now[0] += 0.2
    app.button("done")
    assert len(app.referee.position.move_stack) == 4


@pytest.mark.parametrize("status", ["moving", "searching", "board-moved", "dark"])
def test_done_pressed_while_the_view_still_settles_is_taken_with_the_board_then(screen, status):
    """A player puts the stone down and presses DONE at once: the tracker says "moving"
    until the view has been still half a second, and the board the referee last saw lacks
    that action. The press waits for the still board and ends the turn with it. So it does
    while the camera looks for the board again (bumped: "searching"), reads a mat that
    moved ("board-moved") - a review found those taken against the board before - or sees
    nothing at all (the lens covered, the light off: "dark")."""
    from companion.referee.protocol import DONE, PlayerInput

    app, board, show = sensei_in_play(screen)
    show()
    board["b4"] = board.pop("b1")
    show()  # the first action, seen
    app.on_vision_status("hands")
    app.on_vision_status(status)  # the second action made, the hand gone, not yet still
    board["f4"] = board.pop("f1")

    class Camera:  # the tracker's side of the wiring: asked for the next still board
        requests = 0
        lost = False

        def request_board(self):
            self.requests += 1

        def learn_from_board(self, frame, board):
            return False

    app.vision = Camera()
    app.player_input(PlayerInput(DONE))
    assert app.referee.held is not None and not app.referee.position.move_stack
    # the tracker passes on a board only when it changed: a press held must ask for the next
    # one even if it reads as before, or it would wait for good (a review)
    assert app.vision.requests == 1
    app.on_vision_status("still")
    show()
    assert [e.data["move"] for e in app.events if e.kind == "move"] == ["b1-b4 f1-f4"]


def test_done_on_the_menu_during_a_game_goes_back_to_it_and_new_game_plays_the_same_game(screen):
    """Found by a review: BACK held (the menu) then DONE out of habit started a new setup,
    dropping the game in hand and its turn half made; and "New game" at a game's end started
    whichever game was last tapped on the home screen."""
    from companion import games
    from companion.observation import Observation
    from companion.referee import Referee

    position = games.get("sensei").new()
    app = App(screen, Settings(game="sensei"))
    app.referee = Referee(position.copy())
    app.position = app.referee.position
    app.go("play")
    board = {**dict.fromkeys(position.cell_names(), "empty"), **position.cells()}
    app.on_observation(Observation(board, frame=1))
    board["b4"], board["b1"] = board["b1"], "empty"
    app.on_observation(Observation(board, frame=2))
    assert app.referee.position.mid_turn
    referee = app.referee
    app.button("menu")
    app.act("select-game", "arinama")  # a look at another game's options
    app.button("done")
    assert app.page == "play" and app.referee is referee and referee.position.mid_turn
    app.button("menu")
    app.button("done")
    assert app.page == "play"
    app.play_again()  # (no camera here: straight to the new game's play)
    assert app.referee is not referee and app.referee.position.name == "sensei"
    assert not app.referee.position.move_stack and not app.referee.position.mid_turn


def test_one_unreadable_game_in_the_review_is_said_over_the_list_not_as_a_damaged_file(
    screen, tmp_path
):
    """Found by a review: a game whose stored position cannot be read, opened in the review,
    had every page say the records file is damaged and the game in play "not recorded" -
    while the file was sound and its moves went on being recorded."""
    import sqlite3

    from test_records import play_recorded

    db = tmp_path / "r.sqlite3"
    with Records(db) as records:
        bad, _ = play_recorded(records, "arinama", seed=1, max_moves=2)
    conn = sqlite3.connect(db)
    conn.execute(
        "UPDATE moves SET position = '{\"cells\": 5}' WHERE game_id = ? AND ply = 2", (bad,)
    )
    conn.commit()
    conn.close()
    app = App(screen, Settings(), records=Records(db))
    app.pages.review_list.open()
    app.act("open-game", bad)
    assert app.page == "review-list" and app.records_problem == ""
    app.render(force=True)
    assert f"Game {bad} cannot be shown: its record cannot be read" in app.painter.texts
    app.pages.review_list.open()  # opened again: the list alone
    app.render(force=True)
    assert not any("cannot be shown" in t for t in app.painter.texts)


def test_a_game_the_review_cannot_read_while_the_records_check_runs_waits_for_its_verdict(
    screen, tmp_path, monkeypatch
):
    """A game whose record cannot be read, opened in the review just after start while the
    start-up check still runs, in a file that is also damaged elsewhere (a bad page the
    review does not read): the review waits for the check's verdict and says the file is
    damaged, on every page - not "this one game cannot be shown", as it would had it taken
    "nothing found yet" for sound (mended in a review without a test)."""
    import sqlite3

    from test_records import _written_db

    import companion.records as records_module

    db = tmp_path / "r.sqlite3"
    _written_db(db)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE moves SET position = '{\"cells\": 5}' WHERE game_id = 2 AND ply = 2")
    conn.commit()
    page = conn.execute("SELECT pageno FROM dbstat WHERE name = 'images'").fetchone()[0]
    size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(db.read_bytes())
    data[(page - 1) * size : page * size] = b"\x07" * size  # the photos' page: a bad sector
    db.write_bytes(bytes(data))
    quick_check = records_module._damage_found

    def slow_check(conn, table=""):  # the start-up check takes its time, as on an SD card
        if threading.current_thread().name == "records-check":
            time.sleep(0.5)
        return quick_check(conn, table)

    monkeypatch.setattr(records_module, "_damage_found", slow_check)
    app = App(screen, Settings(), records=Records(db))
    assert app.records.checking
    app.pages.review_list.open()
    app.act("open-game", 2)
    app.render(force=True)
    assert "are damaged" in app.records_problem
    assert not any("cannot be shown" in t for t in app.painter.texts)
    app.records.close()


@pytest.mark.parametrize("pins", ["done=5,roll=5", 17, "done=40"])
def test_a_bad_pin_setting_starts_the_table_on_the_standard_pins_and_says_so(
    monkeypatch, tmp_path, capsys, pins
):
    """Found by a review: a pin written twice in settings.json (or a number, not text) ended
    `companion run` before the screen came up - the boot service retried five times and gave
    up, its message only in the journal."""
    from companion.commands import run as run_command

    seen = {}
    monkeypatch.setattr(run_command, "run_table", lambda app, *a, **k: seen.update(app=app) or 0)
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"pins": pins}))
    args = ["run", "--headless", "--source", "sim:arinama5", "--settings", str(settings)]
    assert main([*args, "--db", str(tmp_path / "r.sqlite3")]) == 0
    err = capsys.readouterr().err
    assert "using the standard pins" in err
    assert "The button pins in the settings are not usable" in seen["app"].notice
    assert json.loads(settings.read_text()) == {"pins": pins}  # left for someone to mend


def test_the_review_marks_a_piece_replaced_by_the_other_side_s_as_come_not_turned(screen, tmp_path):
    """Found by a review: the review marked a cell whose gold piece was captured and a silver
    one stepped there "turn over" (orange stripes) - in Arimaa, where nothing turns over."""
    from companion.games.arimaa import ArimaaPosition
    from companion.highlights import FLIP, TO

    records = Records(tmp_path / "r.sqlite3")
    before = ArimaaPosition.from_board({"a2": "R", "h8": "r", "c3": "D"})
    game = records.new_game(before)
    after = ArimaaPosition.from_board({"a2": "R", "h8": "r", "c3": "c"}, side="silver")
    records.add_move(game, after, "Dc3x cc4s")
    app = App(screen, Settings(), records=records)
    app.pages.review_game.open(game)
    assert app.pages.review_game.review.highlights == {"c3": TO}
    # Arinama's stones do turn over
    from companion import games

    start = games.get("arinama").new({"rows": 5, "cols": 5})
    turned = games.get("arinama").from_json({**start.to_json(), "stones": {"c3": "white"}})
    first = games.get("arinama").from_json({**start.to_json(), "stones": {"c3": "black"}})
    arinama = records.new_game(first)
    records.add_move(arinama, turned, "c3")
    app.pages.review_game.open(arinama)
    assert app.pages.review_game.review.highlights == {"c3": FLIP}


def test_a_new_setup_shows_no_picture_from_the_last_one(screen):
    """Found by a review: a Sensei setup showed the Arinama mat of the setup before, as if
    live, under "No camera"."""
    import numpy as np

    app = App(screen, Settings(game="arinama"), vision_factory=lambda name: TableVision(name))
    app.start_game("arinama")
    assert app.page == "setup"
    app.on_setup_frame(np.full((360, 640, 3), 90, np.uint8))
    assert app.pages.setup.frame is not None
    app.go("home")
    app.start_game("sensei")
    assert app.page == "setup" and app.pages.setup.frame is None


@pytest.mark.parametrize("game", ["arinama", "aranea"])
def test_the_home_screen_s_dice_read_a_3_and_a_4_as_1_for_aranea_alone(screen, game):
    """Found by a review: the plain roller said "3 + 4 = 1, a 3 and a 4 count as 1" with
    Arinama chosen - Aranea's reading, for every game."""
    from companion.dice import Dice

    now = [0.0]
    app = App(screen, Settings(game=game), dice=Dice(seed=12), clock=lambda: now[0])
    app.act("dice")
    app.act("roll")  # (seed 12 throws a 3 and a 4)
    assert sorted(app.pages.dice.state.dice) == [3, 4]
    now[0] = 5.0  # landed
    app.render(force=True)
    aranea = game == "aranea"
    assert app.pages.dice.state.value == (1 if aranea else 7)
    assert any("count as 1" in t for t in app.painter.texts) == aranea


def test_after_a_roll_in_a_game_the_dice_page_offers_play_not_a_roll_that_does_nothing(screen):
    """Found by a review: after Aranea's roll the dice page's blue Roll button did nothing
    when tapped; Play, the way on, was the plain one."""
    from companion import games
    from companion.referee import Referee
    from companion.referee.protocol import ROLL, PlayerInput

    app = App(screen, Settings(game="aranea"))
    app.referee = Referee(games.get("aranea").new())
    app.position = app.referee.position
    app.go("play")
    while app.referee.instruction.kind == "roll":  # the opening rolls, then the first turn's
        app.render(force=True)
        assert app.page == "play"
        assert "Roll" in {t.label for t in app.painter.targets}  # a roll is due: it rolls
        app.player_input(PlayerInput(ROLL))
        assert app.page == "dice"
        app.render(force=True)
        labels = {t.label for t in app.painter.targets}
        assert "Play" in labels and "Roll" not in labels  # drawn greyed, nothing to tap
        app.act("dice-close")  # (the next roll is the play page's: this one shows first)


def test_a_second_roll_pressed_while_a_game_s_dice_tumble_rolls_nothing(screen):
    """A trial: ROLL pressed twice 0.25 s apart in Aranea's roll-off rolled the next
    player's dice too, and after a roll with no use (the turn passed) rolled the next turn's,
    so the passed turn was never seen. A game's dice land first; then ROLL, as Play, goes
    on to the play page, where the next roll is made."""
    from companion import games
    from companion.referee import Referee

    now = [100.0]
    app = App(screen, Settings(game="aranea"), clock=lambda: now[0])
    app.referee = Referee(games.get("aranea").new())
    app.position = app.referee.position
    app.go("play")
    app.act("roll")
    assert app.page == "dice" and len(app.referee.position.move_stack) == 1
    for seconds in (0.25, 0.5):  # tumbling: nothing
        now[0] = 100.0 + seconds
        app.tick(now[0])
        app.act("roll")
        assert app.page == "dice" and len(app.referee.position.move_stack) == 1
    now[0] = 101.0  # landed: ROLL goes on to play (as Play does), rolling nothing
    app.tick(now[0])
    app.act("roll")
    assert app.page == "play" and len(app.referee.position.move_stack) == 1
    app.act("roll")  # the next roll, on the play page
    assert len(app.referee.position.move_stack) == 2


def test_the_landed_dice_are_drawn_however_late_the_loop_comes_round(screen):
    """A trial: with frames slower than a Pi's usual (the camera thread busy), no pass of the
    loop fell in the one frame after the tumble, and the dice stayed on "Rolling..." with
    the tumbling faces."""
    now = [50.0]
    app = App(screen, Settings(game="arinama"), clock=lambda: now[0])
    app.pages.dice.open()
    app.act("roll")
    app.tick(now[0])
    app.render()
    now[0] += 0.8  # the next pass comes after the tumble and its frame
    app.dirty = False
    app.tick(now[0])
    assert app.dirty  # the landed dice are drawn


def test_a_sensei_game_is_headed_with_its_version(screen, tmp_path):
    """A trial of the review: Sensei's page title and the games list did not say Arashi or
    Shizukana, whose stones move differently. The play screen, the review list and the page
    head a game with its version (`Position.title_for`); options that are not the game's
    (a record changed by hand) head it "Sensei"."""
    from companion import games
    from companion.referee import Referee

    Sensei = games.get("sensei")
    assert Sensei.title_for({"movement": "shizukana"}) == "Sensei Shizukana"
    assert Sensei.title_for({"bogus": 1}) == "Sensei"
    settings = Settings(game="sensei")
    settings.options["sensei"] = {"movement": "shizukana"}
    records = Records(tmp_path / "r.sqlite3")
    app = App(screen, settings, records=records)
    position = Sensei.new(settings.options["sensei"])
    app.referee = Referee(position.copy(), records=records)
    app.position = app.referee.position
    app.go("play")
    app.render(force=True)
    assert "Sensei Shizukana · move 1" in app.painter.texts
    app.pages.review_list.open()
    app.render(force=True)
    assert any(t.startswith("#1 Sensei Shizukana") for t in app.painter.texts)


def test_a_black_picture_is_said_on_the_play_page_until_the_board_shows_again(screen):
    """The tracker's "dark" (the lens covered, the light off): the play page says why nothing
    is read, in the table's language, and stops saying it once the camera sees again."""
    from companion import games, i18n
    from companion.referee import Referee

    app = App(screen, Settings(game="sensei"))
    app.referee = Referee(games.get("sensei").new())
    app.position = app.referee.position
    app.go("play")
    app.on_vision_status("dark")
    app.render(force=True)
    said = "The camera's picture is all but black: is the lens covered, or the light off?"
    assert any(t.startswith(said) for t in app.painter.texts)
    assert "camera: dark" in " ".join(app.painter.texts)
    i18n.set_language("de")
    try:
        assert app.message.startswith("Das Kamerabild ist fast schwarz")
    finally:
        i18n.set_language("en")
    app.on_vision_status("moving")
    app.render(force=True)
    assert app.message == "" and not any(t.startswith(said) for t in app.painter.texts)


def test_the_review_of_a_game_whose_moves_do_not_replay_says_so(screen, tmp_path):
    """A trial: a record changed after it was written (two move texts overwritten) was
    refused by Continue, but the review stepped through it without a word - "move 3: a1" under
    a board where b2 had changed. It now says from which move the texts do not replay."""
    import sqlite3

    path = tmp_path / "r.sqlite3"
    records = Records(path)
    game, _ = play_recorded(records, "arinama", seed=4, max_moves=8)
    sound, _ = play_recorded(records, "arinama", seed=5, max_moves=8)
    app = App(screen, Settings(), records=records)
    app.pages.review_game.open(sound)
    assert app.pages.review_game.problem == ""
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE moves SET move = 'a1' WHERE game_id = ? AND ply = 3", (game,))
    app.pages.review_game.open(game)
    assert app.page == "review-game"
    assert app.pages.review_game.problem.startswith(
        "From move 3 on, the recorded moves do not replay by this version's rules"
    )
    app.render(force=True)
    assert any(t.startswith("From move 3 on") for t in app.painter.texts), app.painter.texts
    # unfinished, it is listed as never to be continued, and Continue no longer offers it
    listed = {number: line for number, _title, line in app.pages.review_list.games()}
    assert listed[game].startswith("cannot be continued") and listed[sound].startswith("playing")
    assert game in app.unreplayable
    app.pages.review_game.open(sound)
    app.render(force=True)
    assert not any(t.startswith("From move") for t in app.painter.texts)


def test_undo_that_takes_nothing_back_is_said_until_something_happens(screen):
    """A trial: Undo at the start of a game, or in Aranea once the dice were rolled, changed
    nothing on the screen. The play page says why, until the next thing happens."""
    from companion import games
    from companion.observation import Observation
    from companion.referee import Referee
    from companion.referee.protocol import UNDO, PlayerInput

    position = games.get("arinama").new({"rows": 5, "cols": 5})
    app = App(screen, Settings(game="arinama"))
    app.referee = Referee(position.copy())
    app.position = app.referee.position
    app.go("play")
    empty = dict.fromkeys(position.cell_names(), "empty")
    app.on_observation(Observation(empty, frame=1))
    app.player_input(PlayerInput(UNDO))
    app.render(force=True)
    assert "There is no move to take back yet" in app.painter.texts
    app.on_observation(Observation({**empty, "c3": "black"}, frame=2))  # a move: said no more
    assert app.message == ""
