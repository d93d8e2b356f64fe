"""vision.tracker on the synthetic table: real OpenCV on rendered frames, real hands.

The rule under test above all: a frame with a hand over the board never yields an observation.
Frames are 640x360 to keep the suite fast; the benchmark (bench/bench_vision.py) runs 1280x720.
"""

from __future__ import annotations

import bench_vision
import cv2
import numpy as np
import pytest

from companion.errors import UserError
from companion.observation import EMPTY
from vision.calibration import calibrate
from vision.exposure import is_black
from vision.layouts import CHESSBOARD, get_layout, layout_names
from vision.locate import from_corners, locate
from vision.reader import read_cells
from vision.sim import (
    HandPose,
    SimTable,
    calibrate_table,
    calibrate_table_photo,
    calibration_position,
    chess_start,
    random_cells,
    random_script,
)
from vision.sim_pieces import CHECKERED_BOARDS
from vision.top_view import board_model, covered_cells
from vision.tracker import (
    BOARD_MOVED,
    COVERED,
    COVERED_SECONDS,
    DARK,
    DARK_SECONDS,
    HANDS,
    SEARCHING,
    STILL,
    Tracker,
    something_over_the_mat,
)

SIZE = (640, 360)
STILL_FRAMES = 18  # 0.6 s at 30 fps: enough for the 0.5 s window after the hand has gone


def truth(layout, cells):
    return {name: cells.get(name, EMPTY) for name in layout.cell_names()}


@pytest.fixture(scope="module")
def arimaa():
    table = SimTable("arimaa", seed=5, size=SIZE, tilt=22)
    return table, calibrate_table(table)


def feed_all(tracker, frames):
    """Feed frames; return [(index, observation, hand_truth)] for every observation."""
    out = []
    for index, (frame, hand) in enumerate(frames):
        observation = tracker.feed(frame)
        if observation is not None:
            out.append((index, observation, hand))
    return out


def still(table, cells, n=STILL_FRAMES + 2):
    return [(table.render(cells), False) for _ in range(n)]


def test_one_observation_per_move_and_never_from_a_hand_frame(arimaa):
    table, calibration = arimaa
    tracker = Tracker(table.layout, calibration)
    script = random_script(table.layout, np.random.default_rng(3), moves=3)
    frames = still(table, script[0])
    ends = [len(frames)]
    for before, after in zip(script, script[1:], strict=False):
        frames += list(table.transition(before, after, hand_frames=6, still_frames=STILL_FRAMES))
        ends.append(len(frames))
    seen = feed_all(tracker, frames)
    assert sum(hand for _, hand in frames) == 3 * 6  # the sim really put hands in
    assert [hand for _, _, hand in seen] == [False] * 4
    assert [obs.cells for _, obs, _ in seen] == [truth(table.layout, b) for b in script]
    for (index, obs, _), end in zip(seen, ends, strict=True):
        assert index < end  # each board was read before the next hand came
        assert obs.frame == index and obs.layout == "arimaa" and obs.markers_seen == 4
        assert obs.timestamp == pytest.approx(index / 30)
    assert tracker.near is None  # a mat found by its markers has no way round to keep


def test_a_hand_resting_on_the_board_blocks_reading_until_it_goes(arimaa):
    table, calibration = arimaa
    cells = {"d4": "gold", "e5": "silver"}
    hand = table.hand_towards(table.cell_pixel("d4"))
    tracker = Tracker(table.layout, calibration)
    resting = table.render(cells, hand)  # the very first frames: a still hand, no reference
    statuses = []
    for _ in range(40):
        assert tracker.feed(resting) is None
        statuses.append(tracker.status)
    assert statuses[-1] == HANDS
    seen = feed_all(tracker, still(table, cells, 25))
    assert len(seen) == 1 and seen[0][1].cells == truth(table.layout, cells)
    assert seen[0][0] >= 14  # about half a second of stillness first
    assert tracker.status == STILL


@pytest.mark.parametrize(
    ("sleeve", "glove"),
    [
        ((235, 235, 235), (240, 240, 240)),  # white sleeve, white glove: paper-coloured
        ((30, 30, 30), None),  # dark sleeve, bare hand
        (None, (60, 90, 140)),  # bare arm, brown glove
    ],
)
def test_hands_are_seen_whatever_their_colour(arimaa, sleeve, glove):
    table, calibration = arimaa
    cells = {"a1": "gold", "h8": "silver"}
    tracker = Tracker(table.layout, calibration)
    assert len(feed_all(tracker, still(table, cells))) == 1
    base = table.hand_towards(table.cell_pixel("c6"))
    hand = HandPose(base.entry, base.tip, base.width, base.skin, sleeve, glove)
    for _ in range(25):
        assert tracker.feed(table.render(cells, hand)) is None
    assert tracker.status == HANDS


def test_a_board_moved_on_the_table_is_noticed_and_followed():
    table = SimTable("sensei", seed=8, size=SIZE, tilt=15)
    calibration = calibrate_table(table)
    cells = {"d4": "green-character", "c2": "red"}
    tracker = Tracker(table.layout, calibration)
    assert len(feed_all(tracker, still(table, cells))) == 1
    table.nudge(6.0, -4.0, 1.5)  # an elbow shoves the mat
    statuses = []
    for frame, _ in still(table, cells, 40):
        assert tracker.feed(frame) is None  # same board: nothing new to report
        statuses.append(tracker.status)
    assert statuses.count(BOARD_MOVED) >= 10  # shown until the moved board has been read
    assert tracker.board_moves == 1
    assert statuses[-1] == STILL
    expected = table.homography @ np.array(get_layout("sensei").board_corners()[0] + (1.0,))
    found = tracker.located.board_corners_px()[0]
    assert np.allclose(found, expected[:2] / expected[2], atol=1.5)
    # ... and the moved board is read correctly afterwards.
    after = {"d4": "green-character", "c3": "red"}
    seen = feed_all(tracker, list(table.transition(cells, after, hand_frames=4, still_frames=20)))
    assert [obs.cells for _, obs, _ in seen] == [truth(table.layout, after)]


def test_dropped_black_and_garbage_frames_never_crash_and_restart_the_window(arimaa):
    table, calibration = arimaa
    cells = {"b2": "gold"}
    tracker = Tracker(table.layout, calibration)
    frame = table.render(cells)
    for _ in range(10):
        tracker.feed(frame)
    for junk in (None, table.black_frame(), np.zeros((4, 4), np.uint8), np.zeros((10, 10, 3))):
        assert tracker.feed(junk) is None
    # The black frame restarted the window: a full half second of stillness is needed again.
    seen = feed_all(tracker, [(frame, False)] * 30)
    assert len(seen) == 1 and seen[0][0] >= 14


def test_a_covered_lens_is_said_after_a_while_and_the_board_is_read_once_it_shows(arimaa):
    """A trial's find: with the lens covered or the light off, the tracker went on saying
    "still" with no problem, so DONE took the last board read before the dark (the app and
    `companion referee` hold DONE on "dark"). A glitch's black frame keeps the status."""
    table, calibration = arimaa
    cells = {"b2": "gold"}
    tracker = Tracker(table.layout, calibration, fps=30)
    frame, black = table.render(cells), table.black_frame()
    assert len(feed_all(tracker, [(frame, False)] * 30)) == 1
    tracker.feed(black)  # one frame: a camera's glitch
    assert tracker.status == STILL and tracker.problem == ""
    dark = round(DARK_SECONDS * 30) + 1
    # a covered lens under the camera's turned-up gain: noise round black, pixels up to 20
    noise = np.random.default_rng(2).normal(4, 5, (dark, *frame.shape))
    for covered in np.clip(noise, 0, 255).astype(np.uint8):
        assert tracker.feed(covered) is None
    assert tracker.status == DARK
    assert tracker.problem.startswith("the camera's picture is all but black")
    # the light back on a move made in the dark: read
    moved = table.render({"b3": "gold"})
    seen = feed_all(tracker, [(moved, False)] * 30)
    assert tracker.status == STILL and tracker.problem == ""
    assert [(obs.cells["b2"], obs.cells["b3"]) for _, obs, _ in seen] == [(EMPTY, "gold")]
    # a dim room's picture whose board still shows is no dark (once "black": its mean under
    # 12); whether its markers are still found there depends on the noise (a module's table
    # renders on from where the tests before left its noise), so only the dark is checked
    dim = (moved.astype(np.float32) * 0.12).astype(np.uint8)
    assert dim.mean() < 12 and not is_black(dim)
    feed_all(tracker, [(dim, False)] * 60)
    assert tracker.status != DARK and "black" not in tracker.problem


def test_nothing_but_table_keeps_searching_without_raising():
    layout = get_layout("arinama8")
    tracker = Tracker(layout, calibration=None)
    table = SimTable("arinama8", seed=1, size=SIZE)
    empty_table = np.ascontiguousarray(np.clip(table._background, 0, 255).astype(np.uint8))
    for _ in range(30):
        assert tracker.feed(empty_table) is None
    assert tracker.status == SEARCHING
    assert "no markers of layout arinama8" in tracker.problem
    assert tracker.detections <= 6  # full detections are rate-limited (every 0.2 s)


@pytest.mark.parametrize(
    "name,cell", [("arinama5", "e3"), ("arimaa", "h4"), ("aranea", "r1-3"), ("sensei", "g4")]
)
def test_a_hand_resting_still_over_the_board_is_never_read(name, cell):
    """A still hand is not a change of light: however long it rests (1 s here, twice the
    stillness window and the light-rebase time), no board is read while it is there. Eight hands from different sides,
    skins and sleeves; the light skin of some barely differs from the white paper, so only the
    last still board shows them (hand 7 on arimaa h4 and sensei g4 was read as a board when
    any still difference the mat could not confirm counted as a change of light)."""
    table = SimTable(name, seed=21, size=SIZE)
    calibration = calibrate_table(table)
    tracker = Tracker(table.layout, calibration)
    before = random_cells(table.layout, np.random.default_rng(1), fill=0.2)
    assert len(feed_all(tracker, still(table, before))) == 1
    for seed in range(8):
        table.rng = np.random.default_rng(seed)
        hand = table.hand_towards(table.cell_pixel(cell), 1.0)
        frames = [(table.render(before, hand), True) for _ in range(30)]
        assert feed_all(tracker, frames) == [], f"hand {seed} was read as a board"
        assert tracker.status == HANDS
        assert feed_all(tracker, still(table, before)) == []  # the same board again
    after = dict(before, **{cell: table.layout.classes[1]})
    seen = feed_all(tracker, still(table, after, 2 * STILL_FRAMES))
    assert [obs.cells for _, obs, _ in seen] == [truth(table.layout, after)]


def test_a_hand_one_photo_cannot_see_is_seen_against_the_last_still_board():
    """The arm of `test_vision_read`'s audit scene that only a white sleeve on the white
    paper carries across the mat's edge: one photo alone reads cells under the hand as
    classes (the mat check cannot see it), the tracker never reads the board while it rests
    there and reads the board once it has gone."""
    table = SimTable("arimaa", seed=100)
    calibration = calibrate_table(table)
    rng = np.random.default_rng(0)
    cells = random_cells(table.layout, rng)
    first, second, _ = rng.choice(table.layout.cell_names(), 3)
    table.render(cells, table.hand_towards(table.cell_pixel(first)))  # the scene's first hand
    hand = table.hand_towards(table.cell_pixel(second))
    resting = table.render(cells, hand)
    one_photo = read_cells(resting, locate(resting, "arimaa").homography, table.layout, calibration)
    assert one_photo.unknown() == []  # what the test below guards against
    tracker = Tracker(table.layout, calibration)
    assert len(feed_all(tracker, still(table, cells))) == 1
    assert feed_all(tracker, [(resting, True)] * 30) == []
    assert tracker.status == HANDS
    after = {cell: kind for cell, kind in cells.items() if cell != second}  # the hand took it
    assert after != cells
    seen = feed_all(tracker, still(table, after))
    assert [obs.cells for _, obs, _ in seen] == [truth(table.layout, after)]


def test_request_repeats_the_same_board_and_camera_shake_is_only_motion(arimaa):
    table, calibration = arimaa
    cells = {"f6": "silver", "c3": "gold"}
    tracker = Tracker(table.layout, calibration)
    assert len(feed_all(tracker, still(table, cells))) == 1
    shaken = [(table.render(cells, shake=(dx, dy)), False) for dx, dy in ((3, -2), (-2, 3), (2, 2))]
    assert feed_all(tracker, shaken + still(table, cells)) == []  # same board: not repeated
    tracker.request()
    seen = feed_all(tracker, still(table, cells, 3))
    assert len(seen) == 1 and seen[0][1].cells == truth(table.layout, cells)


def test_a_lamp_switched_on_does_not_freeze_the_tracker():
    table = SimTable("aranea", seed=3, size=SIZE, light=(0.9, 1.0))
    calibration = calibrate_table(table)
    cells = {"r1-1": "amber", "c5": "blue"}
    tracker = Tracker(table.layout, calibration)
    assert len(feed_all(tracker, still(table, cells))) == 1
    table.relight((0.55, 1.4))  # a strong gradient appears
    after = {"r1-1": "amber", "c6": "blue"}
    frames = still(table, cells, 60) + list(table.transition(cells, after, hand_frames=4))
    seen = feed_all(tracker, frames)
    assert [obs.cells for _, obs, _ in seen] == [truth(table.layout, after)]


def test_auto_layout_and_a_grid_board_from_corners():
    table = SimTable("sensei-storm", seed=2, size=SIZE)
    calibration = calibrate_table(table)
    tracker = Tracker("auto", calibration)
    seen = feed_all(tracker, still(table, {"e5": "red"}))
    assert tracker.layout.name == "sensei-storm" and len(seen) == 1

    grid = get_layout("grid:9x9")
    board = SimTable(grid, seed=4, size=SIZE, tilt=10)
    corners = [board.homography @ np.array([x, y, 1.0]) for x, y in grid.board_corners()]
    corners = [(p[0] / p[2], p[1] / p[2]) for p in corners]
    position = {"a1": "black", "c3": "white", "e5": "black", "g7": "white", "i9": "black"}
    position.update({"b8": "white", "h2": "black", "d6": "white"})
    frame = board.render(position)
    calibration = calibrate(frame, from_corners(grid, corners).homography, grid, position)
    tracker = Tracker(grid, calibration, corners=corners)
    cells = {"e5": "white", "a9": "black"}
    seen = feed_all(tracker, still(board, cells))
    assert [obs.cells for _, obs, _ in seen] == [truth(grid, cells)]


def test_bad_tracker_settings_are_user_errors():
    with pytest.raises(UserError):
        Tracker("arimaa", None, still_seconds=-1)
    with pytest.raises(UserError, match="unknown layout"):
        Tracker("chess", None)
    photo = np.zeros((48, 64, 3), np.uint8)
    with pytest.raises(ValueError, match="3x3 homography"):  # a caller's mistake, said at once
        Tracker("arimaa", None, clear_view=(photo, None))  # (not a traceback on the first frame)


@pytest.mark.parametrize("name", layout_names())
def test_reading_accuracy_small_benchmark(name):
    """The benchmark's smaller sibling: calibrated once on an evenly lit table, read on two
    other tables (tilt up to 30, light 0.5x-1.5x with a gradient, noise, blur)."""
    reference = SimTable(name, seed=10_000, size=SIZE, tilt=12, light=(1.0, 1.0), tint=0.0)
    calibration = calibrate_table(reference)
    rng = np.random.default_rng(7)
    wrong = []
    for seed in (11, 12):
        table = SimTable(name, seed=seed, size=SIZE, tilt=30 if seed == 11 else None)
        for _ in range(2):
            cells = random_cells(table.layout, rng)
            frame = table.render(cells)
            located = locate(frame, table.layout)
            seen = read_cells(frame, located.homography, table.layout, calibration).cells
            expected = truth(table.layout, cells)
            wrong += [
                f"{c}: {seen[c]} != {expected[c]}" for c in expected if seen[c] != expected[c]
            ]
    assert wrong == []


def test_a_camera_that_comes_back_at_another_resolution_is_followed(arimaa):
    table, calibration = arimaa
    tracker = Tracker(table.layout, calibration)
    assert len(feed_all(tracker, still(table, {"a1": "gold"}))) == 1
    bigger = SimTable("arimaa", seed=5, size=(800, 450), tilt=22)
    cells = {"a1": "gold", "b2": "silver"}
    seen = feed_all(tracker, [(None, False)] * 3 + still(bigger, cells, 30))
    assert [obs.cells for _, obs, _ in seen] == [truth(table.layout, cells)]
    assert tracker.located.image_size == (800, 450)


@pytest.mark.parametrize("name", layout_names())
def test_a_still_uncovered_board_is_never_taken_for_a_hand(name):
    # A false occluder would freeze the tracker on "hands" forever: check varied tables,
    # including the one whose blurred mat edge once looked like an arm.
    tables = [SimTable(name, seed=seed, size=SIZE) for seed in (100, 101, 102)]
    tables.append(SimTable(name, seed=5, size=SIZE, tilt=22))
    for index, table in enumerate(tables):
        tracker = Tracker(table.layout, calibration=None)
        cells = random_cells(table.layout, np.random.default_rng(index))
        for _ in range(3):
            tracker.feed(table.render(cells))
        assert (tracker.status, tracker.occluder_px) == (STILL, 0), (name, index)


# Hands the tracker once missed (still poses at 1280x720 on seed 502 tables from an audit, one
# from the benchmark): a pale bare arm over the playing area while the board changed under it
# (arinama5; e3 was read as a white stone), fingers on the bottom margin over the caption
# (sensei), dark fingertips on the mat's edge strip only, against a dark table (aranea), and
# pale fingertips on overexposed paper beside a marker (taken for sharp print blurred by light).
RESTING_HANDS = {
    "pale arm over the board": (
        502,
        "arinama5",
        {"a1": "black", "b1": "white", "e1": "white", "a2": "black", "d2": "white"},
        {"c3": "black"},
        HandPose((1337.6, 434.3), (777.8, 363.1), 142.1, (180, 200, 235), None, None),
    ),
    "fingers on the caption": (
        502,
        "sensei",
        {"a1": "red", "b1": "red-character", "e1": "red-character", "b3": "red", "d4": "red"},
        {},
        HandPose((414.9, 777.6), (541.4, 541.4), 105.1, (150, 180, 225), (40, 40, 150), None),
    ),
    "fingertips on the mat's edge": (
        502,
        "aranea",
        {"r1-1": "amber", "r1-2": "blue", "r2-4": "amber", "c7": "amber"},
        {},
        HandPose((1337.6, 308.6), (900.0, 400.8), 107.1, (45, 65, 100), None, None),
    ),
    "pale fingertips beside a marker": (
        3616,
        "aranea",
        {"r1-1": "amber", "r2-4": "blue", "c7": "amber"},
        {},
        HandPose((423.7, 777.6), (423.7, 632.8), 108.0, (180, 200, 235), (30, 30, 30), None),
    ),
}


@pytest.mark.parametrize("case", sorted(RESTING_HANDS))
def test_hands_that_were_missed_are_seen(case):
    seed, name, before, change, hand = RESTING_HANDS[case]
    table = SimTable(name, seed=seed)
    reference = SimTable(name, seed=10_000, tilt=12, light=(1.0, 1.0), tint=0.0)
    tracker = Tracker(table.layout, calibrate_table(reference))
    assert table.hand_covers_board(hand)
    assert len(feed_all(tracker, still(table, before))) == 1
    resting = table.render(dict(before, **change), hand)
    for _ in range(25):
        tracker.request()
        assert tracker.feed(resting) is None, f"{case}: a hand frame was read"
    assert tracker.status == HANDS


def test_a_cup_beside_the_mat_is_not_a_hand(arimaa):
    """The table round the mat is watched (a hand always comes in across it), but only what
    reaches onto the mat counts: a dark cup put down just beside the mat does not freeze the
    tracker, and the next move is read."""
    table, calibration = arimaa
    cells = {"a1": "gold", "h8": "silver"}
    tracker = Tracker(table.layout, calibration)
    assert len(feed_all(tracker, still(table, cells))) == 1
    w, h = table.layout.size
    angles = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    rim = np.stack([w + 1.0 + 35 * (1 + np.cos(angles)), h / 2 + 35 * np.sin(angles)], axis=1)
    cup = cv2.perspectiveTransform(rim[None].astype(np.float32), table.homography)[0]

    def with_cup(frame):
        cv2.fillPoly(frame, [np.round(cup * 16).astype(np.int32)], (40, 45, 60), cv2.LINE_AA, 4)
        return frame

    frames = [(with_cup(table.render(cells)), False) for _ in range(20)]
    assert feed_all(tracker, frames) == []
    assert tracker.status == STILL and tracker.occluder_px == 0
    after = {"a1": "gold", "h7": "silver"}
    moves = [(with_cup(frame), hand) for frame, hand in table.transition(cells, after)]
    seen = feed_all(tracker, moves)
    assert [obs.cells for _, obs, _ in seen] == [truth(table.layout, after)]


def cup_on_the_margin(table, side=1.0):
    """A dark cup put down on the mat's right margin (`side` -1: the left), over its edge: a
    still difference from the print that reaches across the edge, as a hand does -
    `paint(frame)` draws it."""
    w, h = table.layout.size
    angles = np.linspace(0, 2 * np.pi, 48, endpoint=False)
    x = w - 20 if side > 0 else 20
    rim = np.stack([x + 30 * np.cos(angles), h / 2 + 30 * np.sin(angles)], axis=1)
    cup = cv2.perspectiveTransform(rim[None].astype(np.float32), table.homography)[0]

    def paint(frame):
        cv2.fillPoly(frame, [np.round(cup * 16).astype(np.int32)], (40, 45, 60), cv2.LINE_AA, 4)
        return frame

    return paint


def test_something_that_lies_on_the_mat_s_edge_is_read_past_once_the_players_say_so(arimaa):
    """What lies still across the mat's edge looks like a resting hand: nothing is read, and
    after COVERED_SECONDS the status says "covered" (the app then offers BOARD CLEAR). Only
    when the players say the board is clear (`read_as_it_is`) is it read - as it is - and the
    cup is left out from then on: the next move is read without a word, a hand that comes in
    over the cup is still a hand, and once the cup is gone a hand there counts as before."""
    table, calibration = arimaa
    with_cup = cup_on_the_margin(table)
    cells = {"a1": "gold", "h8": "silver"}
    tracker = Tracker(table.layout, calibration)
    assert len(feed_all(tracker, still(table, cells))) == 1
    after = {"a1": "gold", "h7": "silver"}
    moves = [(with_cup(frame), hand) for frame, hand in table.transition(cells, after)]
    assert feed_all(tracker, moves) == [] and tracker.status == HANDS
    waiting = [(with_cup(table.render(after)), False) for _ in range(int(30 * COVERED_SECONDS))]
    assert feed_all(tracker, waiting) == [] and tracker.status == COVERED
    assert tracker.covered_near in ("h4", "h5")  # the cup lies beside them, on the margin
    tracker.read_as_it_is()
    tracker.feed(with_cup(table.render(after, table.hand_towards(table.cell_pixel("c3")))))
    assert feed_all(tracker, waiting + waiting[:20]) == []  # said, then a hand moved: forgotten
    assert tracker.status == COVERED
    tracker.read_as_it_is()
    seen = feed_all(tracker, waiting[:1])
    assert [obs.cells for _, obs, _ in seen] == [truth(table.layout, after)]
    assert tracker.status == STILL
    for seed in range(4):  # hands over the cup, resting: never read
        table.rng = np.random.default_rng(seed)
        hand = table.hand_towards(table.cell_pixel("h4"), 1.0)
        frames = [(with_cup(table.render(after, hand)), True) for _ in range(30)]
        assert feed_all(tracker, frames) == [], f"hand {seed} was read as a board"
        assert tracker.status == HANDS
        assert feed_all(tracker, [(with_cup(table.render(after)), False)] * 20) == []
    again = {"a2": "gold", "h7": "silver"}
    moves = [(with_cup(frame), hand) for frame, hand in table.transition(after, again)]
    assert [obs.cells for _, obs, _ in feed_all(tracker, moves)] == [truth(table.layout, again)]
    gone = {"a3": "gold", "h7": "silver"}  # the cup taken away with this move
    assert [obs.cells for _, obs, _ in feed_all(tracker, table.transition(again, gone))] == [
        truth(table.layout, gone)
    ]
    assert tracker._model.occluders.accepted is None
    hand = table.hand_towards(table.cell_pixel("h4"), 1.0)
    assert feed_all(tracker, [(with_cup(table.render(gone, hand)), True)] * 30) == []
    assert tracker.status == HANDS


@pytest.mark.parametrize("cell", ["h4", "d5"])
def test_a_hand_resting_long_enough_to_be_covered_is_never_read_without_the_players_word(
    arimaa, cell
):
    """Five seconds of a still hand - at the mat's edge or over the board - is "covered", as
    a cup would be: still nothing is read, however often a reading is requested; once it
    goes, the board is read as usual."""
    table, calibration = arimaa
    cells = {"a1": "gold", "h8": "silver"}
    tracker = Tracker(table.layout, calibration)
    assert len(feed_all(tracker, still(table, cells))) == 1
    after = {"a1": "gold", "h8": "silver", cell: "gold"}
    table.rng = np.random.default_rng(7)  # the same hand whatever ran before (the table is shared)
    hand = table.hand_towards(table.cell_pixel(cell), 1.0)
    resting = table.render(after, hand)
    for _ in range(5 * 30):
        tracker.request()
        assert tracker.feed(resting) is None
    assert tracker.status == COVERED
    seen = feed_all(tracker, still(table, after, 2 * STILL_FRAMES))
    assert [obs.cells for _, obs, _ in seen] == [truth(table.layout, after)]
    assert tracker.status == STILL


def test_what_the_players_accept_never_grows_over_much_of_the_mat(arimaa):
    """A second cup on the other margin throws the paper's light fit off along the whole
    margin: what BOARD CLEAR would accept then covers much of the mat, where a hand could
    hide - the board is read as the players said, but nothing more is left out than before."""
    table, calibration = arimaa
    cup, other = cup_on_the_margin(table), cup_on_the_margin(table, side=-1.0)
    cells = {"a1": "gold", "h8": "silver"}
    tracker = Tracker(table.layout, calibration)
    assert len(feed_all(tracker, still(table, cells))) == 1
    frames = [(cup(table.render(cells)), False)] * int(30 * COVERED_SECONDS + 20)
    assert feed_all(tracker, frames) == [] and tracker.status == COVERED
    tracker.read_as_it_is()
    assert len(feed_all(tracker, frames[:1])) == 1
    accepted = tracker._model.occluders.accepted.copy()
    watched = tracker._model.occluders.watched.sum()
    both = [(other(cup(table.render(cells))), False)] * int(30 * COVERED_SECONDS + 20)
    assert feed_all(tracker, both) == [] and tracker.status == COVERED
    tracker.request()
    tracker.read_as_it_is()
    assert len(feed_all(tracker, both[:1])) == 1
    now = tracker._model.occluders.accepted
    assert not (now & ~accepted).any()  # no more than before (specks of it may go)
    assert 0 < now.sum() < 0.2 * watched


@pytest.mark.parametrize("name", ["arimaa", "aranea"])
def test_a_lamp_that_overexposes_the_paper_does_not_freeze_the_tracker(name):
    """From a dim cool light to a bright warm one that clips the white paper (and the red
    channel of the board): the change is not smooth where paper clips, but it is the light -
    within about a second the tracker is still again, and the next move is read."""
    table = SimTable(name, seed=4000, size=SIZE)
    calibration = calibrate_table(table)
    cells = random_cells(table.layout, np.random.default_rng(0))
    tracker = Tracker(table.layout, calibration)
    table.relight((0.5, 0.7), tint=-1.0)
    assert len(feed_all(tracker, still(table, cells))) == 1
    table.relight((1.2, 1.5), tint=1.0)
    statuses = []
    for frame, _ in still(table, cells, 45):
        assert tracker.feed(frame) is None  # the same board
        statuses.append(tracker.status)
    assert statuses[-12:] == [STILL] * 12, statuses
    after = dict(cells)
    free = next(c for c in table.layout.cell_names() if c not in cells)
    after[free] = table.layout.classes[1]
    seen = feed_all(tracker, list(table.transition(cells, after, hand_frames=4)))
    assert [obs.cells for _, obs, _ in seen] == [truth(table.layout, after)]


def test_dark_print_in_a_pool_of_light_that_clips_the_paper_is_no_hand():
    """A realistic table (`bench_vision.py --realistic`, seed 2: Aranea on cream paper from an
    inkjet, a lamp whose bright pool clips the paper, the light's tint changing across the
    mat): where the paper clips, no tint is measured, and the markers' dark ink there shows
    the paper's own tint rather than the one extrapolated from the rest of the mat. That is
    the light, not a hand: every board of the game is read (the tracker stayed on "hands"
    and read none of the five)."""
    table = bench_vision.realistic_table("aranea", 3, 2)
    script = random_script(table.layout, np.random.default_rng(2 + 3), 4)
    boards, observed, tracker = follow(table, calibrate_table(table), script)
    assert observed == boards
    assert tracker.status == STILL


def test_dark_print_where_the_paper_clips_may_show_the_clipped_paper_s_tint():
    """A realistic table (`bench_vision.py --realistic`, seed 4: Aranea on cream paper from an
    inkjet, a lamp that clips the paper's red and nearly its green everywhere): the tint can
    be measured only on a few darker samples in one part of the mat (170 of 2,584), and it
    differs there from what the bright paper shows elsewhere (blue against green 0.11 lower).
    The mat's dark lines, markers and text under the bright paper show that tint: no hand -
    every board of the game is read (the tracker stayed on "hands" and read none of five)."""
    table = bench_vision.realistic_table("aranea", 1, 4)
    script = random_script(table.layout, np.random.default_rng(4 + 1), 4)
    boards, observed, tracker = follow(table, calibrate_table(table), script)
    assert observed == boards
    assert tracker.status == STILL


@pytest.mark.parametrize(
    ("tint", "patch"),
    [
        (1.0, (1.0, 1.0, 1.0)),  # a grey sleeve under a warm light
        (-1.0, (1.0, 1.0, 1.0)),  # ... under a cool one
        (0.0, (0.80, 1.0, 1.22)),  # skin (B G R) under a white one
    ],
)
def test_what_is_as_bright_as_the_paper_is_seen_where_the_paper_s_tint_is_measured(tint, patch):
    """Where the light leaves the paper's tint measurable, the mat's colour test is as strict
    as ever: a patch exactly as bright as the paper round it, on the margin, in a colour the
    tinted paper is not, is something over the board (brightness alone cannot see it). Only
    where the paper is too bright to measure its tint may the print show another tint - a
    grey sleeve under a tinted light is lost if that is allowed everywhere (checked)."""
    table = SimTable("arimaa", seed=4000, size=SIZE, light=(0.75, 0.8), tint=tint)
    frame = table.render({"a1": "gold", "h8": "silver"})
    assert covered_cells(frame, table.homography, table.layout)[0] == 0
    x, y = (table.layout.board_origin[0] * 0.5, table.layout.size[1] * 0.5)  # the left margin
    at = table.homography @ np.array([x, y, 1.0])
    u, v = int(at[0] / at[2]), int(at[1] / at[2])

    def brightness(bgr: np.ndarray) -> float:
        return float(cv2.cvtColor(bgr[None, None].astype(np.float32), cv2.COLOR_BGR2GRAY)[0, 0])

    paper = frame[v - 3 : v + 4, u - 3 : u + 4].reshape(-1, 3).mean(axis=0)
    colour = np.array(patch) * brightness(paper) / brightness(np.array(patch))
    cv2.circle(frame, (u, v), SIZE[0] // 90, tuple(float(c) for c in colour), -1)
    assert covered_cells(frame, table.homography, table.layout)[0] > 0


def test_lights_that_change_again_and_again_never_freeze_the_tracker():
    """Three changes of light in a row, each held 1.5 s: after each the tracker is still again
    within about a second (near the thresholds, a difference under a new light may come and go
    from frame to frame; that must not restart the wait before the light is re-judged)."""
    table = SimTable("sensei", seed=4001, size=SIZE)
    calibration = calibrate_table(SimTable("sensei", seed=10_000, size=SIZE, tilt=12, tint=0.0))
    cells = random_cells(table.layout, np.random.default_rng(1))
    tracker = Tracker(table.layout, calibration)
    assert len(feed_all(tracker, still(table, cells))) == 1
    for light, tint in (((0.5, 0.7), -1.0), ((1.2, 1.5), 1.0), ((0.6, 1.4), 0.5)):
        table.relight(light, tint)
        statuses = []
        for frame, _ in still(table, cells, 45):
            assert tracker.feed(frame) is None
            statuses.append(tracker.status)
        assert statuses[-12:] == [STILL] * 12, (light, "".join(s[0] for s in statuses))


def follow(table, calibration, script, clear_view=None):
    """`script`'s game played on `table` through hand transitions, as `bench_vision.py`
    plays it: the boards, what the tracker observed (each observation teaching it as a
    referee taking the board would), and the tracker (given `clear_view`)."""
    tracker = Tracker(table.layout, calibration, clear_view=clear_view)
    observed = []
    for frame, _hand, _cells in bench_vision.game_frames(table, script):
        observation = tracker.feed(frame)
        if observation is not None:
            observed.append(observation.cells)
            occupied = {c: v for c, v in observation.cells.items() if v != EMPTY}
            tracker.learn_from_board(observation.frame, occupied)
    return [truth(table.layout, board) for board in script], observed, tracker


def follow_bench_game(style, index):
    """The realistic bench's game on one of its own chessboards (`bench_vision.py
    --realistic`, seed 1): the boards and what the tracker observed."""
    layout = get_layout(CHESSBOARD)
    k = CHECKERED_BOARDS.index(style)
    table = bench_vision.realistic_table(
        CHESSBOARD, index, 1 + 53 + 7 * k, board=style, pieces="chess"
    )
    script = random_script(layout, np.random.default_rng(1 + 100 * k + index), 4)
    boards, observed, _ = follow(table, calibrate_table(table, chess_start(layout)[0]), script)
    return boards, observed


@pytest.mark.parametrize("index", [1, 3])
def test_a_tall_piece_s_shadow_reaching_the_mat_s_edge_is_no_hand(index):
    """On these realistic Sensei tables a lamp 36-46 degrees low throws a figure's shadow
    into the band along the mat's edge, where only a hand was expected: the tracker stayed
    on "hands" and never read the next boards. A hand crosses the edge - the mat's rim or the
    table round it changes - and a shadow from the board does not (`OccluderCheck._crossing`);
    the shadow's reach is allowed for a lamp down to 30 degrees (`top_view.standing_zone`)."""
    table = bench_vision.realistic_table("sensei", index, 1)
    script = random_script(table.layout, np.random.default_rng(1 + index), 4)
    boards, observed, tracker = follow(table, calibrate_table(table), script)
    assert observed == boards and tracker.status != HANDS


@pytest.mark.parametrize("style, index, move", [("dark-wood", 0, 1), ("green-cream", 1, 4)])
def test_a_colour_verdict_from_the_hand_leaving_does_not_hold_back_the_next_board(
    style, index, move
):
    """Colour (skin on the paper) is judged every few frames and held in between: a verdict
    judged on the hand's last, still moving frame was held over the first still frames, and
    the stillness window started late - the next move came before it filled and the board was
    never read (the realistic bench's own chessboards, `bench_vision.py --realistic`). Judged
    again on the first still frame, every board of the game is observed."""
    boards, observed = follow_bench_game(style, index)
    assert boards[move] in observed


def test_a_model_fitted_again_learns_the_leans_of_its_own_board():
    """The first board of this game differs from the start in 41 cells: the model is fitted
    again to it (`refit_to_board`). Every observation is the board, but for g8 - empty,
    behind the white piece on g7, where the white piece's lean falls: the first board reads it
    a coin toss (empty at 0.67 here, white at 0.94 with the Pi's numpy and OpenCV). Read
    empty, the lean is learned and g8 reads empty on every later board; read white, it stays
    white - a cell the reader marks as hidden by g7, which the referee takes as the board."""
    boards, observed = follow_bench_game("green-white", 1)
    assert len(observed) == len(boards)
    for board, seen in zip(boards, observed, strict=True):
        assert [c for c in board if seen[c] != board[c]] in ([], ["g8"])
    pairs = zip(boards, observed, strict=True)
    behind_g7 = [seen["g8"] for board, seen in pairs if board["g7"] == "white"]
    assert len(behind_g7) == 4 and len(set(behind_g7)) == 1  # read one way on every board


def test_a_change_at_the_mat_s_edge_is_a_hand_only_where_something_crosses_the_edge():
    """What reaches the band along the mat's edge from the board (a tall piece's shadow under
    a low lamp), with the rim and the table round the mat as they were, is left to the pieces
    where they may show; an arm across the rim and the table to the same spot is a hand."""
    occluders = board_model(get_layout("sensei"), 256).occluders
    reference = np.full(occluders.paper.shape, 180.0, np.float32)
    occluders.set_reference(reference)
    band = occluders._edge_band & occluders.paper
    ys, xs = np.nonzero(band & (np.arange(band.shape[1])[None, :] < band.shape[1] // 2))
    y, x = int(np.median(ys)), int(xs.min())  # on the paper, in the band along the left edge
    shadow = reference.copy()
    shadow[y - 6 : y + 7, x : x + 14] = 90.0  # reaches the band from the board
    anywhere = np.ones(shadow.shape, bool)  # a piece or its shadow may show anywhere
    assert occluders.against_reference(shadow, standing=anywhere) == 0
    assert occluders.against_reference(shadow) > 0  # without the pieces to explain it
    arm = shadow.copy()
    arm[y - 6 : y + 7, : x + 14] = 90.0  # the same, and across the rim and the table
    assert occluders.against_reference(arm, standing=anywhere) > 0
    rows = slice(y - 6, y + 7)
    rim = occluders.inside & ~occluders.paper
    table = occluders.watched & ~occluders.inside
    tabled = arm.copy()  # an arm the table's colour: only the rim and the paper change
    tabled[rows][table[rows]] = 180.0
    assert occluders.against_reference(tabled, standing=anywhere) > 0
    for start in range(0, 9):  # a sleeve the paper's colour: only the table changes, and the
        hand = reference.copy()  # hand begins a few pixels into the paper (a review's case)
        hand[rows][table[rows]] = 90.0
        hand[rows, x + start : x + 30] = 90.0
        assert not (hand != reference)[rim].any()
        assert occluders.against_reference(hand, standing=anywhere) > 0, start
    fresh = board_model(get_layout("sensei"), 256).occluders  # before any still board
    assert np.array_equal(fresh._crossing(shadow, None), fresh._edge_band)


def test_the_first_board_is_judged_against_the_calibration_photo():
    """A realistic Arimaa table (`bench_vision.py --realistic`, seed 1, table 6: a lamp 37
    degrees high over the board's centre, lower over the far rank) where the far rank's
    figures throw their shadows into the band along the mat's edge. With no last still board
    to compare the rim and the table with, that is an arm coming in: the tracker stays on
    "hands" and reads none of the game's five boards. Given the calibration photo - the table
    with nothing over it, as the app gives it - the first board is judged against that as
    against a last still board: the shadows lay there then too, and every board is read."""
    table = bench_vision.realistic_table("arimaa", 6, 1)
    calibration, photo, homography = calibrate_table_photo(table)
    script = random_script(table.layout, np.random.default_rng(1 + 6), 4)
    boards, observed, tracker = follow(table, calibration, script)
    assert observed == [] and tracker.status == HANDS  # (without the photo)
    boards, observed, tracker = follow(table, calibration, script, (photo, homography))
    assert observed == boards and tracker.status == STILL


# (seed, the mat's corner it reaches towards, how far): a hand from the top of the picture
# resting on the mat's left margin, all four markers in view; one from the left across the
# mat's bottom-left marker and edge, three in view
HANDS_BY_THE_MAT = [(2, 3, 0.55), (7, 2, 0.65)]


@pytest.mark.parametrize("seed, corner, reach", HANDS_BY_THE_MAT)
def test_a_hand_in_the_calibration_photo_holds_the_first_board_until_board_clear(
    seed, corner, reach
):
    """A hand by the mat when the calibration photo was taken (calibration takes it: the
    cells and three or four markers are in view) is gone from the first board: against the
    photo the table changed where the hand was, and nothing tells that from a hand coming in
    now - the tracker holds on "hands", then "covered", and reads nothing by itself (a
    review's case; trusting the mat alone there read hands resting over the board). The
    players' Board clear reads the board, and the game goes on as ever."""
    table = SimTable("arimaa", seed=seed)
    hand = table.hand_towards(tuple(table.mat_quad()[corner]), reach=reach)
    position = calibration_position(table.layout)
    photo = table.render(position, hand)
    located = locate(photo, table.layout)
    calibration = calibrate(photo, located.homography, table.layout, position)
    cells = {"d4": "gold", "e5": "silver"}
    tracker = Tracker(table.layout, calibration, clear_view=(photo, located.homography))
    waiting = int((COVERED_SECONDS + 1) * tracker.fps)
    assert feed_all(tracker, still(table, cells, waiting)) == []
    assert tracker.status == COVERED
    tracker.read_as_it_is()
    seen = feed_all(tracker, still(table, cells, 20))
    assert [o.cells for _, o, _ in seen] == [truth(table.layout, cells)]
    later = {"d4": "gold", "e6": "silver"}
    seen = feed_all(tracker, still(table, later, 20))
    assert [o.cells for _, o, _ in seen] == [truth(table.layout, later)]
    assert tracker.status == STILL


# (layout, seed, the mat's corner the hand reaches towards, how far, the cell said): a hand
# from the top of the picture with its fingers over the far cells (calibration takes that
# photo: the cells under the fingers look near enough to empty), and one by the mat's right
# edge whose fingers reach onto the board
HANDS_AT_DONE = [("arinama5", 3, 2, 0.45, "b5"), ("arimaa", 5, 1, 0.55, "f1")]
PICTURE = {"arinama5": (960, 540)}  # (the others: the sim's own size)


@pytest.mark.parametrize("name, seed, corner, reach, cell", HANDS_AT_DONE)
def test_something_over_the_mat_in_the_calibration_photo_is_found(name, seed, corner, reach, cell):
    """The app's DONE asks before it learns (`something_over_the_mat`): the paper of the
    mat against its print, as a tracker's first frame is judged. The hand is found and said
    near the cell beside it; the same table without the hand, the realistic table whose far
    rank throws its shadows into the band along the mat's edge (a tracker's first frame
    without a photo holds that as an arm coming in), and a board with no printed mat say
    nothing."""
    table = SimTable(name, seed=seed, **({"size": PICTURE[name]} if name in PICTURE else {}))
    position = calibration_position(table.layout)
    hand = table.hand_towards(tuple(table.mat_quad()[corner]), reach=reach)
    photo = table.render(position, hand)
    assert something_over_the_mat(photo, locate(photo, table.layout)) == cell
    clear = table.render(position)
    assert something_over_the_mat(clear, locate(clear, table.layout)) is None
    shadows = bench_vision.realistic_table("arimaa", 6, 1)
    _, picture, _ = calibrate_table_photo(shadows)
    assert something_over_the_mat(picture, locate(picture, shadows.layout)) is None
    chess = SimTable(CHESSBOARD, seed=seed)
    frame = chess.render({})
    assert (
        something_over_the_mat(
            frame, from_corners(chess.layout, chess.board_corners_px(), chess.size)
        )
        is None
    )


def test_what_lies_over_the_mat_is_said_near_its_largest_part():
    """A realistic Sensei table (seed 6, table 1: a lamp 31 degrees low) with nothing over
    the mat: the g1 dome's shadow runs across the mat's edge, and DONE's look takes it for
    something lying there (one of its false alarms, docs/vision-sim.md), besides a speck by
    the far g7 corner. It is said near the shadow, the largest thing found - g1 - not near
    the middle of both, g3, where nothing is (a review)."""
    table = bench_vision.realistic_table("sensei", 1, 6)
    photo = table.render(calibration_position(table.layout))
    assert something_over_the_mat(photo, locate(photo, table.layout)) == "g1"


@pytest.mark.parametrize("name", ["arimaa", "sensei"])
def test_a_hand_hiding_a_marker_over_the_first_board_is_seen_against_the_photo_s_markers(name):
    """A hand resting over a corner marker and the cells beside it, before the first board is
    read: it is over the board, where a piece may show, and over the marker, which is no
    paper, and the calibration photo waits for a location from every marker - the mat alone
    missed it and the board was read with the hand on it (a review's sweep: 14 of 144 resting
    hands, 9 read wrong). A marker the photo shows and the view does not is covered; with the
    hand gone, the board is read."""
    seeds = {"arimaa": 3, "sensei": 4}
    table = SimTable(name, seed=seeds[name])
    position = calibration_position(table.layout)
    photo = table.render(position)
    located = locate(photo, table.layout)
    calibration = calibrate(photo, located.homography, table.layout, position)
    corner = table.mat_quad()[2]  # the bottom-right marker's corner of the mat
    hand = table.hand_towards((corner[0] - 40, corner[1] - 40), 1.0)
    cells = dict(list(position.items())[:3])
    frame = table.render(cells, hand)
    assert len(locate(frame, table.layout).markers_seen) == 3
    tracker = Tracker(table.layout, calibration, clear_view=(photo, located.homography))
    assert feed_all(tracker, [(frame, True)] * 40) == []
    assert tracker.status == HANDS
    seen = feed_all(tracker, still(table, cells, 40))
    assert [o.cells for _, o, _ in seen] == [truth(table.layout, cells)]


def test_a_hand_over_the_first_board_is_seen_against_the_calibration_photo():
    """The calibration photo as the first last still board changes nothing for a hand: a
    hand resting over the very first board still holds the reading until it goes. A table of
    its own: on the module's shared table the draws of the photo's noise and of the hand
    depended on which tests ran before it, and 3 of 20 draws failed (a marker the photo's
    noise hid - `test_a_calibration_photo_that_missed_a_marker_...` below)."""
    table = SimTable("arimaa", seed=5, size=SIZE, tilt=22)
    calibration, photo, homography = calibrate_table_photo(table)
    cells = {"d4": "gold", "e5": "silver"}
    tracker = Tracker(table.layout, calibration, clear_view=(photo, homography))
    resting = table.render(cells, table.hand_towards(table.cell_pixel("d4")))
    for _ in range(40):
        assert tracker.feed(resting) is None
    assert tracker.status == HANDS
    # (a hand that hid a marker: the markers are looked for again, then the view must be
    # still - about 28 frames after it goes, 16 otherwise)
    seen = feed_all(tracker, still(table, cells, 40))
    assert len(seen) == 1 and seen[0][1].cells == truth(table.layout, cells)


def test_a_calibration_photo_that_missed_a_marker_is_viewed_where_the_frames_see_them_all():
    """A calibration photo located from three markers (glare over the fourth, or noise on a
    small picture) lies a few pixels off towards the fourth; viewed through its own
    homography it differed from the frames along the mat's edge and that marker, and the
    tracker held the first board on "hands" with nothing over the mat. The markers it shows
    lie where the frames show them, so the frames' location, from all four, views it."""
    table = SimTable("arimaa", seed=5, size=SIZE, tilt=22)
    photo = table.render(calibration_position(table.layout))
    marker = locate(photo, table.layout).marker_corners[9]  # top right
    glared = photo.copy()
    cv2.fillConvexPoly(glared, np.round(marker).astype(np.int32), (235, 235, 235))
    located = locate(glared, table.layout)
    assert located.markers_seen == (8, 10, 11)
    calibration = calibrate(
        glared, located.homography, table.layout, calibration_position(table.layout)
    )
    cells = {"d4": "gold", "e5": "silver"}
    tracker = Tracker(table.layout, calibration, clear_view=(glared, located.homography))
    seen = feed_all(tracker, still(table, cells, 40))
    assert [s[1].cells for s in seen] == [truth(table.layout, cells)], tracker.status


def test_a_marker_covered_for_good_before_the_first_board_is_said_near_it_and_board_clear_reads():
    """Tape over a corner marker after calibration: the first board waits (the photo showed
    the marker; a hand there looks the same), "covered" names the cell next to that marker,
    and the players' Board clear reads the board - every board after it as ever."""
    table = SimTable("arimaa", seed=3)
    position = calibration_position(table.layout)
    photo = table.render(position)
    located = locate(photo, table.layout)
    calibration = calibrate(photo, located.homography, table.layout, position)
    marker = next(m for m in table.layout.markers if m.id == table.layout.marker_ids()[2])
    corners = cv2.perspectiveTransform(np.array([marker.corners], np.float64), located.homography)
    box = cv2.boundingRect(corners[0].astype(np.float32))

    def taped(cells):
        frame = table.render(cells)
        x, y, w, h = box
        frame[y - 4 : y + h + 4, x - 4 : x + w + 4] = (150, 150, 150)
        return frame

    cells = {"d4": "gold", "e5": "silver"}
    tracker = Tracker(table.layout, calibration, clear_view=(photo, located.homography))
    waiting = int((COVERED_SECONDS + 1) * tracker.fps)
    assert feed_all(tracker, [(taped(cells), False)] * waiting) == []
    assert tracker.status == COVERED and tracker.covered_near == "h1"
    tracker.read_as_it_is()
    seen = feed_all(tracker, [(taped(cells), False)] * 5)
    assert [o.cells for _, o, _ in seen] == [truth(table.layout, cells)]
    later = {"d4": "gold", "e6": "silver"}
    seen = feed_all(tracker, [(taped(later), False)] * 30)
    assert [o.cells for _, o, _ in seen] == [truth(table.layout, later)]
