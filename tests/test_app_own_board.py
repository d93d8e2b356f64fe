"""The setup screen on a board of your own (no markers): the grid found with `find_board` and
drawn over the camera picture to confirm, the four corners tapped on the picture when it is
not found or wrong (touch, and the buttons to step through them), the corners kept in the
settings for the next game; and Arimaa on a chess set through the whole app (`companion run`
headless: synthetic chessboard -> tracker -> referee -> records -> export)."""

import json

import numpy as np
import pytest

from companion.app import App, Settings, TableVision
from companion.cli import main
from companion.export import export_game
from companion.records import Records
from display.device import HeadlessScreen, init_pygame
from vision.sim import SimTable, chess_start

CHESS = {"equipment": "chess"}


@pytest.fixture
def screen():
    init_pygame(headless=True)
    return HeadlessScreen((800, 480))


def chess_table(seed=1, **realism):
    return SimTable(
        "chessboard",
        seed=seed,
        size=(960, 540),
        tilt=12.0,
        light=(0.9, 1.0),
        realism={"board": "green-cream", "pieces": "chess", **realism},
    )


def chess_app(screen, tmp_path, settings=None):
    settings = settings or Settings(game="arimaa", options={"arimaa": dict(CHESS)})
    return App(
        screen,
        settings,
        records=Records(tmp_path / "r.sqlite3"),
        vision_factory=lambda name: TableVision(name),
        settings_path=tmp_path / "settings.json",
    )


def test_arimaa_on_a_chess_set_uses_the_chessboard_and_its_start_position():
    from companion import games

    options = games.get("arimaa").options_from(CHESS)
    assert games.get("arimaa").mat_layout(options) == "chessboard"
    assert games.get("arimaa").mat_layout(games.get("arimaa").options_from({})) == "arimaa"
    cells = games.get("arimaa").new(options).calibration_cells(("empty",))
    assert len(cells) == 32 and cells["e1"] == "white" and cells["d8"] == "black"


def test_the_found_grid_is_drawn_to_confirm_and_done_starts_the_game(screen, tmp_path):
    app = chess_app(screen, tmp_path)
    app.start_game("arimaa")
    assert app.page == "setup" and app.vision.layout.name == "chessboard"
    table = chess_table()
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    frame = table.render(want)
    app.vision.look(frame, now=1.0)
    app.on_setup_frame(frame)
    assert app.vision.located is not None  # found without markers
    found = app.vision.located.board_corners_px()
    cell = np.linalg.norm(table.board_corners_px()[0] - table.board_corners_px()[1]) / 8
    assert np.abs(found - table.board_corners_px()).max() < 0.25 * cell
    app.render(force=True)
    screen.save(tmp_path / "setup-found.png")
    texts = " ".join(app.painter.texts)
    assert "Check the grid" in texts and "grid found" in texts
    assert "king = elephant" in texts  # the mapping, where the pieces are named
    _, model = app.page_model()
    assert len(model.grid) == 64 and len(model.first_cell) == 4
    labels = [t.label for t in app.painter.targets]
    assert "Corners" in labels and "Done" in labels
    app.button("done")
    assert app.page == "play", app.message
    # The chess set's start position stays: choosing `chess` for both sides starts the game.
    assert not app.referee.calibration_pieces
    from companion.observation import Observation

    names = app.referee.position.cell_names()
    seen = Observation({c: want.get(c, "empty") for c in names}, layout="chessboard")
    app.on_observation(seen)
    assert app.referee.instruction.text == "Gold: which setup?"
    app.act("choose", "chess")
    assert app.referee.instruction.text == "Silver: which setup?"
    app.act("choose", "chess")
    assert [m for m in app.referee.position.move_stack]  # both setups accepted
    assert app.referee.instruction.text.startswith("Gold: move")


def test_tapping_the_four_corners_on_the_picture_and_using_them_next_time(screen, tmp_path):
    app = chess_app(screen, tmp_path)
    app.start_game("arimaa")
    table = chess_table()
    want = app.setup_position.calibration_cells(app.vision.layout.classes)
    frame = table.render(want)
    app.vision.latest = frame
    app.on_setup_frame(frame)
    app.button("roll")  # ROLL on the setup screen of an own board: tap the corners
    assert app.pages.setup.corner_edit is not None
    app.pages.setup.corner_edit = [None] * 4  # as when the grid was not found
    app.render(force=True)
    truth = table.board_corners_px()
    at, scale = app.painter.camera_view
    for number, (x, y) in enumerate(truth):
        if number == 2:  # one corner tapped badly first, then stepped back to and tapped again
            app.tap((round(at.left + 10), round(at.top + 10)))
            app.button("roll")
            app.button("roll")
            app.button("roll")
            assert app.pages.setup.corner_index == 2
        app.tap((round(at.left + x * scale), round(at.top + y * scale)))
        app.render(force=True)
    screen.save(tmp_path / "setup-corners.png")
    assert "Tap the" in " ".join(app.painter.texts)
    app.button("done")  # Use
    assert app.pages.setup.corner_edit is None, app.message
    tapped = np.array(app.vision.corners)
    assert np.abs(tapped - truth).max() < 2.5 / scale  # a screen pixel's worth
    saved = json.loads((tmp_path / "settings.json").read_text())["corners"]["chessboard"]
    assert np.allclose(saved, tapped)
    app.vision.look(frame, now=1.0)
    app.render(force=True)
    assert "tapped corners" in " ".join(app.painter.texts)
    app.button("done")
    assert app.page == "play", app.message
    assert app.vision.tracker.corners is not None  # the tracker reads the tapped board
    # The next time (a new app, the saved settings): the corners are used again.
    again = chess_app(screen, tmp_path, Settings.load(tmp_path / "settings.json"))
    again.start_game("arimaa")
    assert np.allclose(again.vision.corners, tapped)
    again.act("find-grid")  # Find: forget them, look for the grid again
    assert again.vision.corners is None and "chessboard" not in again.settings.corners


def test_corners_that_do_not_go_round_the_board_are_one_line(screen, tmp_path):
    app = chess_app(screen, tmp_path)
    app.start_game("arimaa")
    app.vision.latest = chess_table().render({})
    app.act("corners")
    app.pages.setup.corner_edit = [(10.0, 10.0), (500.0, 500.0), (500.0, 10.0), (10.0, 500.0)]
    app.act("corners-use")
    assert app.pages.setup.corner_edit is not None and "do not go round the board" in app.message


def played_without_a_camera(seed):
    """The same players and referee with the boards handed over as they are (no camera): the
    game the demo's players play (as `companion.app.simulate_game`), as move texts."""
    from companion import games
    from companion.app import SimulatedPlayers
    from companion.dice import Dice
    from companion.referee import PlayerInput, Referee, observation_of

    cls = games.get("arimaa")
    referee = Referee(cls.new(cls.options_from(CHESS)), dice=Dice(seed=seed))
    names = referee.position.cell_names()
    players = SimulatedPlayers(seed)
    board = {}
    referee.observe(observation_of(names, board))
    for step in range(5000):
        if referee.position.is_game_over():
            break
        target = players.next_board(referee, board)
        if target is not None and target != board:
            board = target
            referee.observe(observation_of(names, board, frame=step))
            continue
        action = players.button(referee, step * 90 // 4)
        if action and action.startswith("choose:"):
            referee.handle(PlayerInput("choose", action.split(":", 1)[1]))
        elif action:
            referee.handle(PlayerInput(action))
    position = referee.position
    return [position.move_text(m) for m in position.move_stack]


def test_companion_run_plays_arimaa_on_a_chess_set_headless(tmp_path, capsys):
    """The demo path: a whole game (seed 13 ends by a goal after 30 moves) with a chess set on
    the synthetic chessboard; the records and the export are the game played."""
    db = tmp_path / "r.sqlite3"
    code = main(
        ["run", "--headless", "--game", "arimaa", "-o", "equipment=chess", "--seed", "13",
         "--db", str(db), "--screenshots", str(tmp_path / "shots")]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    played = [line.split(None, 1)[1] for line in out.splitlines() if line.startswith("  ")]
    with Records(db) as records:
        (summary,) = records.games()
        assert summary.status == "finished" and summary.options == CHESS
        record = records.game(summary.id)
        position = record.position()
        assert position.is_game_over() and str(position.outcome()) in out
        moves = [m.text for m in record.moves]
        assert moves == played_without_a_camera(13)  # what the camera saw is the game played
        assert moves[0].startswith("Ha1 Cb1 Dc1 Md1 Ee1")  # the chess set's start position
        exported = export_game(record, "arimaa", images=False)
        assert [line.split(" ", 1)[1] for line in exported.strip().split("\n")[: len(moves)]] == (
            moves
        )
    assert any("captured: take it off" in line or "press DONE" in line for line in played)


class ChessGame:
    """The app playing Arimaa on a chess set on `table`: calibrated on the chess start
    position, both sides' setup the chess set's; `move` moves a piece on the table and holds
    the board still for a second, as players do."""

    def __init__(self, screen, tmp_path, table):
        self.app = app = chess_app(screen, tmp_path)
        app.start_game("arimaa")
        self.table = table
        self.cells, self.figures = chess_start("chessboard")
        frame = table.render(self.cells, figures=self.figures)
        app.vision.look(frame, now=1.0)
        app.on_setup_frame(frame)
        app.button("done")
        assert app.page == "play", app.message
        self.clock = 2.0
        self.hold()
        for _ in range(2):
            app.act("choose", "chess")
            self.hold()
        assert app.referee.instruction.text.startswith("Gold: move")

    def hold(self):
        picture = self.table.render(self.cells, figures=self.figures)
        for _ in range(30):
            self.clock += 1 / 30
            observation = self.app.vision.feed(picture, self.clock)
            if observation is not None:
                self.app.on_observation(observation)

    def move(self, origin, dest):
        self.cells[dest] = self.cells.pop(origin)
        self.figures[dest] = self.figures.pop(origin)
        self.hold()


def test_the_app_teaches_the_camera_a_logo_under_a_start_position_piece(screen, tmp_path):
    """The US Chess logo on h1, under the rook at calibration: calibration's copies learned
    flat prints (`vision.copies.flat_prints`), so once the rook leaves h1 reads empty, and the
    board the referee takes is handed to the camera, which learns h1's own empty look. (A print
    that reads as a piece instead - marked `unlearned` - is taken as empty by the referee:
    tests/test_referee_unlearned.py, tests/test_vision_relearn.py.)"""
    game = ChessGame(screen, tmp_path, chess_table(logo="h1"))
    app = game.app
    assert "h1" in app.vision.tracker.calibration.unlearned
    game.move("h2", "h3")
    game.move("h1", "h2")
    assert app.referee.instruction.text.startswith("Gold: press DONE"), app.referee.instruction
    assert app.vision.tracker.last_observation.cells["h1"] == "empty"  # the logo, at once
    assert "h1" not in app.vision.tracker.calibration.unlearned  # learned from the board
    assert "h1" in app.vision.tracker.calibration.own_look
    app.act("done")
    game.move("h7", "h6")
    assert app.vision.tracker.last_observation.cells["h1"] == "empty"


def test_the_app_fits_the_camera_again_in_the_background_as_the_game_moves_on(screen, tmp_path):
    """Four gold rabbits (white pawns) step forward: 8 cells from the start position, a board
    the referee takes - the app hands it to the camera, whose tracker fits its model again in
    a thread of its own, and takes the new model while the game goes on."""
    game = ChessGame(screen, tmp_path, chess_table())
    app = game.app
    assert app.vision.tracker.refit_in_background
    start = app.vision.tracker.calibration
    for file in "abcd":
        game.move(f"{file}2", f"{file}3")
    assert app.referee.position.cells().get("d3") == "gold", app.referee.instruction
    app.vision.tracker.wait_for_refit(timeout=60)  # if the frames since have not taken it
    fitted = app.vision.tracker.calibration
    assert fitted.refit_changes == 8 and fitted.means != start.means
    game.hold()  # the game goes on, read by the new model
    assert app.vision.tracker.last_observation.cells["d3"] == "white"


def test_a_chess_set_found_turned_round_is_learned_the_right_way_round(screen, tmp_path):
    """The chess start position with its colours swapped is what a board found turned round
    looks like (a camera on Black's side: the finder takes a1 at the bottom of the picture,
    where Black sits) - and what a set whose white is the darker one looks like. DONE turns
    the grid the way the position fits and says so, a1 outlined at its new corner (refused
    before, asking for the corners); DONE again plays on it, and the board stays that way
    round."""
    app = chess_app(screen, tmp_path)
    app.start_game("arimaa")
    table = chess_table()
    cells, figures = chess_start("chessboard")
    swapped = {c: "black" if k == "white" else "white" for c, k in cells.items()}
    frame = table.render(swapped, figures=figures)
    app.vision.look(frame, now=1.0)
    app.on_setup_frame(frame)
    app.button("done")
    assert app.page == "setup" and app.vision.tracker is None
    assert "fits the board turned round" in app.message and "tap Corners" in app.message
    corners = table.board_corners_px()
    cell = np.linalg.norm(corners[0] - corners[1]) / 8
    app.vision.look(frame, now=2.0)  # found again: the same way round
    a1 = app.vision.located.board_corners_px()[3]  # TL, TR, BR, BL of White
    assert np.linalg.norm(a1 - corners[1]) < 0.25 * cell  # the picture's top right
    app.render(force=True)
    screen.save(tmp_path / "setup-turned.png")
    _, model = app.page_model()
    assert np.linalg.norm(np.mean(model.first_cell, axis=0) - corners[1]) < cell  # outlined
    app.button("done")
    assert app.page == "play", app.message
    assert app.message == ""  # the turn was confirmed: no word of it over the play screen
    assert app.vision.corners is None  # still found from its grid, not taken as tapped
    seen = [app.vision.feed(frame, now=2.0 + k / 30) for k in range(45)]
    boards = [o.cells for o in seen if o is not None]
    assert boards and boards[0] == {c: cells.get(c, "empty") for c in boards[0]}  # White's side
    # the next game of the session finds the board the same way round at once
    app.vision.forget_tracker()
    app.vision.look(frame, now=5.0)
    assert np.linalg.norm(app.vision.located.board_corners_px()[3] - corners[1]) < 0.25 * cell
    app.vision.set_corners(None)  # Find: the finder's own way round again
    app.vision.look(frame, now=6.0)
    assert np.linalg.norm(app.vision.located.board_corners_px()[3] - corners[3]) < 0.25 * cell
    # Corners tapped: the players say where a1 is, and a darker white side is theirs to name
    (tmp_path / "tapped").mkdir()
    app = chess_app(screen, tmp_path / "tapped")
    app.start_game("arimaa")
    app.vision.look(frame, now=1.0)
    app.on_setup_frame(frame)
    app.vision.set_corners(corners)
    app.vision.look(frame, now=2.0)
    app.button("done")
    assert app.page == "play", app.message


def test_an_unfinished_demo_on_a_chess_set_says_how_to_continue_it_with_its_option(
    tmp_path, capsys
):
    """The hint left out -o equipment=chess: run as printed it started a new game on the
    mat (a player's trial)."""
    import shlex

    db = tmp_path / "r.sqlite3"
    argv = ["run", "--headless", "--game", "arimaa", "-o", "equipment=chess", "--moves", "2",
            "--db", str(db)]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    hint = out.split("the next `", 1)[1].split("`", 1)[0]
    assert "-o equipment=chess" in hint
    assert main([*shlex.split(hint)[1:], "--headless", "--moves", "2"]) == 0
    assert "demo: continuing the unfinished game #1" in capsys.readouterr().out
