"""End to end on the synthetic table: simulated hands move pieces on a rendered, perspective-
warped board; real OpenCV tracking reads it; the referee judges; real SQLite records keep it;
the export writes it. Small frames and short stillness windows keep each game a few seconds.

Faults on the way: dropped and black frames, a hand left over the board, the camera vanishing
and coming back, an illegal step.
"""

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest
from shared_data import ARIMAA_GAMES

from companion import games
from companion.dice import Dice
from companion.errors import UserError
from companion.export import export_game
from companion.records import Records
from companion.referee.core import Referee
from companion.referee.protocol import DONE, ROLL, PlayerInput
from companion.referee.runner import Session
from vision.calibration import calibrate
from vision.locate import locate
from vision.sim import SimTable
from vision.tracker import Tracker

FPS = 10  # the tracker's clock: 0.5 s of stillness = 5 frames
STILL = 7  # still frames after each move
HAND = 4  # frames with a hand per move


class SimGame:
    """A referee watching a simulated table through the real tracker."""

    def __init__(
        self, layout, position, *, calibration_cells, records=None, seed=3, size=(640, 360)
    ):
        self.table = SimTable(layout, seed=seed, size=size, tilt=12.0)
        picture = self.table.render(calibration_cells)
        located = locate(picture, layout)
        calibration = calibrate(picture, located.homography, self.table.layout, calibration_cells)
        self.tracker = Tracker(layout, calibration, fps=FPS)
        self.referee = Referee(position, records=records)
        self.lines = []
        self.session = Session(self.referee, tracker=self.tracker, emit=self.lines.append)
        self.session.start()
        self.cells = {}
        self.hand_frames_seen = 0
        self.settle()

    def settle(self, frames=STILL):
        for _ in range(frames):
            self.session.feed_frame(self.table.render(self.cells))

    def move(self, after, *, drop=(), black=()):
        """One physical change by a hand; frame numbers in `drop`/`black` are lost/black."""
        for number, (frame, hand) in enumerate(
            self.table.transition(self.cells, after, hand_frames=HAND, still_frames=STILL)
        ):
            if number in drop:
                frame = None
            elif number in black:
                frame = self.table.black_frame()
            moves_before = len(self.referee.position.move_stack)
            self.session.feed_frame(frame)
            if hand:
                self.hand_frames_seen += 1
                assert len(self.referee.position.move_stack) == moves_before, "a hand made a move"
        self.cells = dict(after)

    def press(self, kind):
        self.session.handle(PlayerInput(kind))

    @property
    def text(self):
        return self.referee.instruction.text


ARINAMA_CAL = {  # spread out, so no piece's rim or shadow touches another cell
    "a1": "black",
    "c1": "white",
    "e1": "black",
    "a5": "white",
    "c5": "black",
    "e5": "white",
    "c3": "black",
}


def arinama_boards(moves):
    """The boards after each physical action of a game: the stone, then its flips."""
    position = games.get("arinama").new({"rows": 5, "cols": 5})
    board, boards = {}, []
    for move in moves:
        board = {**board, move: position.turn}
        boards.append(board)
        position.push(move)
        if position.cells() != board:
            board = position.cells()
            boards.append(board)
    return boards


def test_arinama_game_through_the_synthetic_table_with_records_and_export(tmp_path):
    moves = ["c3", "e3", "b2", "d3", "b4", "c4", "d4"]
    records = Records(tmp_path / "games.sqlite3")
    game = SimGame(
        "arinama5",
        games.get("arinama").new({"rows": 5, "cols": 5}),
        calibration_cells=ARINAMA_CAL,
        records=records,
    )
    assert game.text == "Black: place a stone"
    texts = []
    for board in arinama_boards(moves):
        game.move(board)
        texts.append(game.text)
    assert game.hand_frames_seen > 0
    assert "Turn c4 to black. Turn d4 to white" in texts  # d4's flips, announced then done
    assert game.referee.position.move_stack == moves
    record = records.game(game.referee.game_id)
    assert [m.text for m in record.moves] == moves
    # A photo of the board after every move: the mat from above, as the camera saw it.
    for ply, move in enumerate(moves, start=1):
        photo = cv2.imdecode(np.frombuffer(records.image(record.id, ply), np.uint8), 1)
        assert photo is not None and photo.shape[1] == 480
        x, y = game.table.layout.cell(move).center
        scale = 480 / game.table.layout.size[0]
        bgr = photo[round(y * scale), round(x * scale)].astype(int)
        black, white = bgr.max() < 90, bgr.min() > 150  # the board's tone is neither
        assert black or white, f"no stone on {move} in the photo of move {ply}: {bgr}"
        assert black if ply == 1 else True  # Black's first stone
    exported = json.loads(export_game(record, "json", images=False))
    assert exported["moves"] == moves
    assert exported["game"] == "arinama"


def test_faults_on_the_way_dropped_black_frames_lingering_hand_vanishing_camera():
    game = SimGame(
        "arinama5",
        games.get("arinama").new({"rows": 5, "cols": 5}),
        calibration_cells=ARINAMA_CAL,
    )
    # Dropped and black frames in the middle of a move and of its stillness window.
    game.move({"c3": "black"}, drop=(1, 4, 7), black=(2, 5))
    game.settle()  # a black frame restarts the stillness window: the camera goes on
    assert game.referee.position.move_stack == ["c3"]
    # A hand left over the board, a stone in it: never a move, however long it stays.
    hand = game.table.hand_towards(game.table.cell_pixel("e3"), 1.0)
    for _ in range(3 * STILL):
        game.session.feed_frame(game.table.render({"c3": "black"}, hand))
    assert game.referee.position.move_stack == ["c3"]
    # The stone goes down and the hand leaves: now it counts (the tracker may take a second
    # to trust the board again after so long a hand).
    game.move({"c3": "black", "e3": "white"})
    game.settle(2 * STILL)
    assert game.referee.position.move_stack == ["c3", "e3"]
    # The camera vanishes for a while (no frames at all) and comes back.
    for _ in range(40):
        game.session.feed_frame(None)
    assert game.text == "Black: place a stone"
    game.move({**game.cells, "a5": "black"})  # illegal: touches no black stone
    assert game.text == "Take the black stone off a5"
    game.move({"c3": "black", "e3": "white"})
    assert game.text == "Black: place a stone"
    assert game.referee.position.move_stack == ["c3", "e3"]


def test_a_covered_lens_is_said_once_and_done_waits_for_the_board_it_hid():
    """The lens covered (or the light off) while White places a stone and presses DONE: one
    line says why nothing is read, and DONE waits for the board the camera sees again - it
    was taken against the last board read before the dark ("nothing moved")."""
    game = SimGame(
        "arinama5", games.get("arinama").new({"rows": 5, "cols": 5}), calibration_cells=ARINAMA_CAL
    )
    game.move({"c3": "black"})
    game.settle()
    assert game.referee.position.move_stack == ["c3"]
    for _ in range(2 * FPS):
        game.session.feed_frame(game.table.black_frame())
    dark = (
        "(the camera's picture is all but black: is the lens covered, or the light off? Nothing "
        "is read until the board shows again)"
    )
    assert game.lines.count(dark) == 1 and game.tracker.status == "dark"
    game.press("done")
    assert game.referee.held is not None
    game.move({"c3": "black", "e3": "white"})
    game.settle(2 * STILL)
    assert game.referee.position.move_stack == ["c3", "e3"]
    assert game.lines.count(dark) == 1


def test_a_hand_resting_beside_the_stone_it_just_placed_is_not_read():
    """The tracker promises never to read a frame with a hand in it; here the hand stays
    after putting the stone down, so the stone is not yet a move."""
    game = SimGame(
        "arinama5", games.get("arinama").new({"rows": 5, "cols": 5}), calibration_cells=ARINAMA_CAL
    )
    game.move({"c3": "black"})
    hand = game.table.hand_towards(game.table.cell_pixel("e3"), 1.0)
    for _ in range(3 * STILL):
        game.session.feed_frame(game.table.render({"c3": "black", "e3": "white"}, hand))
    assert game.referee.position.move_stack == ["c3"]


def test_something_left_on_the_mat_s_edge_is_read_past_when_the_players_type_clear():
    """A cup over the mat's edge holds the camera on "hands"; after a few seconds a line says
    something lies on the board, and nothing is read however long it stays - until the
    players type `clear`: the board is read as it is and the move counts. A hand that rests
    long enough to be "covered" is never read without that word."""
    from test_vision_track import cup_on_the_margin

    game = SimGame(
        "arinama5", games.get("arinama").new({"rows": 5, "cols": 5}), calibration_cells=ARINAMA_CAL
    )
    with_cup = cup_on_the_margin(game.table)
    hand = game.table.hand_towards(game.table.cell_pixel("e3"), 1.0)
    for _ in range(5 * FPS):
        game.session.feed_frame(game.table.render({"c3": "black"}, hand))
    assert game.session.said_state == "covered" and game.referee.position.move_stack == []
    game.cells = {"c3": "black"}
    game.settle(2 * STILL)  # the hand goes: the stone it put down counts
    assert game.referee.position.move_stack == ["c3"] and game.session.said_state == ""
    for _ in range(5 * FPS):
        game.session.feed_frame(with_cup(game.table.render({"c3": "black", "e3": "white"})))
    assert (
        game.lines.count(
            "(something has lain on the board for a while: take it away, or type clear if nothing "
            "does)"
        )
        == 2
    )
    assert game.referee.position.move_stack == ["c3"]
    game.session.handle_line("clear")
    game.session.feed_frame(with_cup(game.table.render({"c3": "black", "e3": "white"})))
    assert game.referee.position.move_stack == ["c3", "e3"]
    with pytest.raises(UserError, match="there is no camera here"):
        Session(game.referee, emit=game.lines.append).handle_line("clear")


def test_a_whole_real_arimaa_game_through_the_synthetic_table(tmp_path):
    """arimaa.com game 669204 (13 turns, Gold's rabbit reaches rank 8), step by step in front
    of the camera: the setups typed, every step a still board, DONE when a turn has fewer
    than four steps. The records, the outcome and the exported move list are the real game."""
    with open(ARIMAA_GAMES) as handle:
        record = next(r for r in map(json.loads, handle) if r["id"] == "arimaa.com:669204")
    turns = record["moves"]
    records = Records(tmp_path / "games.sqlite3")
    calibration_cells = {"a1": "gold", "b2": "gold", "g7": "silver", "h8": "silver", "d4": "gold"}
    game = SimGame(
        "arimaa",
        games.get("arimaa").new(),
        calibration_cells=calibration_cells,
        records=records,
        seed=1,
    )
    position = games.get("arimaa").new()
    for text in turns:
        move = position.parse_move(text)
        if position.in_setup:
            game.session.handle_line(f"choose {text}")
            position.push(move)
            game.move(position.cells())
            continue
        board = position.copy()
        for step in move:
            board.push_step(step)
            game.move(board.cells())
        position.push(move)
        if len(game.referee.position.move_stack) < len(position.move_stack):
            game.press(DONE)
        assert game.referee.position.cells() == position.cells(), f"after {text}"
    stored = records.game(game.referee.game_id)
    assert [m.text for m in stored.moves] == turns
    assert stored.summary.status == "finished"
    assert stored.summary.outcome["winner"] == "gold" and stored.summary.outcome["reason"] == "goal"
    assert game.referee.instruction.kind == "game-over"
    move_list = export_game(stored, "arimaa", images=False)
    assert [line.split(" ", 1)[1] for line in move_list.strip().split("\n")[: len(turns)]] == turns


def test_aranea_rolls_and_moves_through_the_synthetic_table(tmp_path):
    records = Records(tmp_path / "games.sqlite3")
    calibration_cells = {
        "r1-1": "amber", "r1-4": "blue", "r2-7": "amber", "r3-10": "blue", "c1": "amber",
        "c12": "blue",
    }  # fmt: skip
    game = SimGame(
        "aranea",
        games.get("aranea").new({"first": "amber"}),
        calibration_cells=calibration_cells,
        records=records,
        seed=1,
    )
    game.referee.dice = Dice(seed=4)
    uses = []
    for _turn in range(4):
        game.press(ROLL)
        legal = [u for u in game.referee.uses() if u.after is not None]
        if not legal:
            continue
        uses.append(str(legal[-1].move))
        game.move(legal[-1].after)
        assert game.text.endswith("press ROLL")
    stored = records.game(game.referee.game_id)
    assert [m.text for m in stored.moves if not m.text.startswith("roll")] == uses
    assert len(stored.rolls) == 4
    assert [f"roll {r.dice[0]}-{r.dice[1]}" for r in stored.rolls] == [
        m.text for m in stored.moves if m.text.startswith("roll")
    ]


def test_the_command_referees_a_scripted_sim_source(tmp_path):
    """`companion referee --source sim:...` end to end in a fresh interpreter."""
    moves = ["c3", "e3", "b2"]
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{}] + arinama_boards(moves)))
    table = SimTable("arinama5", seed=3, size=(640, 360), tilt=12.0)
    picture = table.render(ARINAMA_CAL)
    calibration = calibrate(
        picture, locate(picture, "arinama5").homography, table.layout, ARINAMA_CAL
    )
    cal = tmp_path / "cal.json"
    calibration.save(cal)
    spec = f"sim:arinama5?script={script}&size=640x360&seed=3&tilt=12&hand=3&still=8"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion",
            "referee",
            "--game",
            "arinama",
            "--layout",
            "arinama5",
            "--source",
            spec,
            "--calibration",
            str(cal),
            "--still-seconds",
            "0.2",
            "--db",
            str(tmp_path / "r.sqlite3"),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert lines[0]["type"] == "game"
    accepted = [e["move"] for line in lines for e in line.get("events", []) if e["kind"] == "move"]
    assert accepted == moves
    assert lines[-1]["instruction"]["text"] == "White: place a stone"
    assert np.all([line["type"] in ("game", "instruction") for line in lines])
