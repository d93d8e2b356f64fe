"""A board whose corners were tapped (no markers, not found from its grid) that moves on the
table is noticed: the tracker checks the grid where the taps put it (`grid_still_there`), says
so (status "board-moved", `lost`, `problem`) and never reads the shifted cells; put back, it is
read again. A checkered board that only slid a little is followed. A board found from its grid
the other way round than the finder's choice (the calibration position said so) stays that
way round when it is found again. Synthetic table, boards of one's own: a chessboard with chess
pieces, an Othello-like 7 x 7 (Sensei's own board) and a plain lined 9 x 9."""

from __future__ import annotations

import numpy as np
import pytest

from companion import i18n
from companion.observation import EMPTY
from vision.calibration import calibrate, calibrate_found
from vision.find import find_board, turned
from vision.locate import from_corners
from vision.sim import SimTable, chess_start
from vision.tracker import BOARD_MOVED, STILL, Tracker

SIZE = (960, 540)
TAP_ERROR = np.array([[3, -2], [-2, 3], [2, 2], [-3, -1]])  # a finger's worth off, in px

BOARDS = {
    "chessboard": {"board": "green-cream", "pieces": "chess"},
    "grid:7x7": {"board": "othello", "pieces": "stone"},
    "grid:9x9": None,
}
START = {"a1": "black", "c3": "white", "e5": "black", "g7": "white", "b6": "white", "f2": "black"}


def tapped(name, seed=4):
    """A table, its tapped corners, a position on it and a tracker calibrated on it."""
    table = SimTable(name, seed=seed, size=SIZE, tilt=12, light=(0.9, 1.0), realism=BOARDS[name])
    corners = (table.board_corners_px() + TAP_ERROR).tolist()
    position = chess_start()[0] if name == "chessboard" else dict(START)
    frame = table.render(position)
    located = from_corners(table.layout, corners, SIZE)
    calibration = calibrate(frame, located.homography, table.layout, position)
    return table, corners, position, Tracker(table.layout, calibration, corners=corners)


def watch(tracker, table, cells, frames):
    """Feed `frames` still frames of `cells`: the observations and the statuses."""
    seen, statuses = [], []
    for _ in range(frames):
        observation = tracker.feed(table.render(cells))
        statuses.append(tracker.status)
        if observation is not None:
            seen.append(observation)
    return seen, statuses


def whole(table, cells):
    return {name: cells.get(name, EMPTY) for name in table.layout.cell_names()}


@pytest.mark.parametrize("name", list(BOARDS))
def test_a_tapped_board_moved_on_the_table_is_never_read_and_read_again_once_back(name):
    table, _corners, position, tracker = tapped(name)
    seen, _ = watch(tracker, table, position, 45)
    assert [o.cells for o in seen] == [whole(table, position)]
    placed = table.nudged.copy()
    table.nudge(8.0, -5.0, 2.0)  # an elbow shoves the board
    seen, statuses = watch(tracker, table, position, 150)  # 5 s: the grid never comes back
    assert seen == []  # the shifted cells are never read
    assert tracker.lost and statuses[-1] == BOARD_MOVED and tracker.board_moves == 1
    assert "tap its corners again" in tracker.problem
    assert tracker.near is None  # tapped corners say which way round: nothing to keep
    # Put back where it was: read again, the move made meanwhile too.
    table.nudged = placed
    table._board_cache.clear()
    moved = {**position, "d4": "white"} if name != "chessboard" else {**position, "e4": "white"}
    moved.pop("e2" if name == "chessboard" else "c3")
    seen, statuses = watch(tracker, table, moved, 60)
    assert not tracker.lost and tracker.problem == "" and statuses[-1] == STILL
    assert [o.cells for o in seen] == [whole(table, moved)]


def test_a_checkered_board_that_slid_a_little_is_followed_not_lost():
    table, _corners, position, tracker = tapped("chessboard")
    assert len(watch(tracker, table, position, 45)[0]) == 1
    table.nudge(1.5, 1.0)  # a nudge of a millimetre or two: a fifth of a square or less
    tracker.request()
    seen, statuses = watch(tracker, table, position, 60)
    assert not tracker.lost and BOARD_MOVED in statuses and statuses[-1] == STILL
    assert tracker.board_moves == 1
    assert [o.cells for o in seen] == [whole(table, position)]  # read through the new place


def test_the_moved_board_is_said_in_the_tables_language():
    table, _corners, position, tracker = tapped("grid:7x7")
    watch(tracker, table, position, 45)
    table.nudge(8.0, -5.0, 2.0)
    i18n.set_language("de")
    try:
        watch(tracker, table, position, 120)
        assert tracker.lost and tracker.problem.startswith("das Brett wurde verschoben")
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("name", ["grid:7x7", "grid:9x9"])
def test_a_hand_resting_over_a_tapped_board_is_never_read_and_the_board_is_not_lost(name):
    """A hand that rests still over the board may hide the grid: nothing is read while it is
    there, and once it goes the board is read again where it was (a hand that hid the grid
    for more than TAPPED_LOST_SECONDS may say "moved" meanwhile, never for good). The plain
    lined 9 x 9 shows the hand only between the stones' discs: the standing pieces' zone,
    which explains away changes there on a printed mat, must not on a board without a print
    (it did, and this hand was read). Not on the chessboard with chess pieces: there the
    tracker does not see this hand at all (the discs cover nearly every square; between them
    the hand's parts are too small) - a known limit, docs/vision.md."""
    table, _corners, position, tracker = tapped(name)
    assert len(watch(tracker, table, position, 45)[0]) == 1
    hand = table.hand_towards(table.cell_pixel("d4"))
    resting = table.render(position, hand)
    for _ in range(120):  # 4 s
        assert tracker.feed(resting) is None
    moved = dict(position)
    moved["d4"] = "white"
    seen, statuses = watch(tracker, table, moved, 45)
    assert not tracker.lost and statuses[-1] == STILL
    assert [o.cells for o in seen] == [whole(table, moved)]


def test_a_board_found_turned_round_stays_so_when_found_again_after_a_shove():
    """A chess set seen from Black's side: the grid alone takes a1 at the bottom of the
    picture, where Black sits; the start position fits it turned round (`calibrate_found`),
    and the tracker, given that way round (`near`), keeps it when the board is shoved and
    found again - found the finder's way round, every piece would be named on the cell
    opposite (white on the 7th and 8th ranks)."""
    table = SimTable(
        "chessboard", seed=4, size=SIZE, tilt=12, light=(0.9, 1.0), realism=BOARDS["chessboard"]
    )
    cells, figures = chess_start("chessboard")
    from_black = {c: "black" if k == "white" else "white" for c, k in cells.items()}
    frame = table.render(from_black, figures=figures)
    found = find_board(frame, table.layout)
    learned = calibrate_found(frame, found, cells)
    assert learned.turn == 2 and learned.colours_only  # a darker white side looks the same
    near = turned(found, learned.turn).board_corners_px()
    tracker = Tracker(table.layout, learned.calibration, near=near)

    def boards(frames):
        seen = []
        for _ in range(frames):
            observation = tracker.feed(table.render(from_black, figures=figures))
            if observation is not None:
                seen.append(observation.cells)
        return seen

    assert boards(45) == [whole(table, cells)]
    table.nudge(8.0, -5.0, 2.0)  # an elbow shoves the board: found again from its grid
    tracker.request()  # (the same position: read it again)
    assert boards(90) == [whole(table, cells)]
    assert tracker.board_moves == 1 and not tracker.lost
