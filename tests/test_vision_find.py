"""Finding a board without markers (vision.find): synthetic checkered boards rendered here
(a warped 8x8 checkerboard with discs on it), the synthetic table's lined grid, a moved board,
the CLI, and a few real photos of ../shared/data/real (bench/shared_data.py finds them)."""

import json

import cv2
import numpy as np
import pytest
from shared_data import real_data

from companion.cli import main
from companion.errors import UserError
from vision.calibration import calibrate, captioned
from vision.find import (
    BoardNotFound,
    draw_grid,
    find_board,
    grid_still_there,
    lined_board_elsewhere,
    lines_round_empty,
)
from vision.layouts import get_layout
from vision.locate import corner_shift, locate
from vision.mat import render_mat
from vision.sim import SimTable, calibration_position
from vision.tracker import BOARD_MOVED, STILL, Tracker

CELL = 64  # px per square in the flat board before it is warped
MARGIN = 40  # px of border round the squares

COLOURS = {  # (dark square, light square, border), BGR
    "green-cream": ((70, 110, 35), (200, 230, 240), (215, 235, 240)),
    "wood": ((45, 85, 140), (140, 190, 225), (40, 75, 120)),
    "black-white": ((45, 45, 45), (225, 225, 225), (235, 235, 235)),
}


def checkerboard(colours, *, seed=0, quad=None, size=(1280, 960), discs=18, turn=0):
    """A photo of an 8x8 checkered board (a1 dark, first player at the bottom unless `turn`
    quarter turns) and its true corners a8, h8, h1, a1 in the photo."""
    dark, light, border = colours
    rng = np.random.default_rng(seed)
    side = 8 * CELL + 2 * MARGIN
    flat = np.full((side, side, 3), border, np.uint8)
    for r in range(8):  # r = 0 is rank 8
        for c in range(8):
            colour = dark if (c + r) % 2 == 1 else light  # a1 = (0, 7): dark
            x, y = MARGIN + c * CELL, MARGIN + r * CELL
            flat[y : y + CELL, x : x + CELL] = colour
    for k in rng.choice(64, size=discs, replace=False):
        c, r = divmod(int(k), 8)
        centre = (MARGIN + c * CELL + CELL // 2, MARGIN + r * CELL + CELL // 2)
        piece = (25, 25, 25) if rng.random() < 0.5 else (245, 245, 245)
        cv2.circle(flat, centre, int(CELL * 0.36), (90, 90, 90), -1, cv2.LINE_AA)
        cv2.circle(flat, centre, int(CELL * 0.33), piece, -1, cv2.LINE_AA)
    flat = np.rot90(flat, turn).copy()
    w, h = size
    if quad is None:  # a mildly oblique view, slightly rotated
        quad = [
            [0.30 * w, 0.14 * h],
            [0.72 * w, 0.18 * h],
            [0.80 * w, 0.90 * h],
            [0.20 * w, 0.86 * h],
        ]
    quad = np.float32(quad) + rng.uniform(-15, 15, (4, 2)).astype(np.float32)
    src = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    homography = cv2.getPerspectiveTransform(src, quad)
    photo = np.empty((h, w, 3), np.uint8)
    photo[:] = (110, 120, 125)
    photo = cv2.warpPerspective(
        flat, homography, (w, h), dst=photo, borderMode=cv2.BORDER_TRANSPARENT
    )
    photo = cv2.GaussianBlur(photo, (0, 0), 0.8)
    noise = rng.normal(0, 3, photo.shape)
    photo = np.clip(photo + noise, 0, 255).astype(np.uint8)
    lo, hi = MARGIN, side - MARGIN
    board = np.float64([[lo, lo], [hi, lo], [hi, hi], [lo, hi]])  # a8 h8 h1 a1 before the turn
    if turn:  # where the corners went when the flat board was turned
        board = np.array([_rot90_point(p, side, turn) for p in board])
    truth = cv2.perspectiveTransform(board.reshape(-1, 1, 2), homography).reshape(-1, 2)
    return photo, truth


def _rot90_point(p, side, turn):
    x, y = p
    for _ in range(turn % 4):  # np.rot90 turns counter-clockwise: (x, y) -> (y, side - x)
        x, y = y, side - x
    return x, y


def corner_errors(found, truth, cells=8):
    cell = np.mean([np.linalg.norm(truth[k] - truth[(k + 1) % 4]) for k in range(4)]) / cells
    return np.linalg.norm(found - truth, axis=1) / cell


@pytest.mark.parametrize("colours", sorted(COLOURS))
@pytest.mark.parametrize("seed", [1, 2])
def test_a_synthetic_checkerboard_with_discs_is_found_with_a1_dark_at_the_bottom(colours, seed):
    photo, truth = checkerboard(COLOURS[colours], seed=seed)
    located = find_board(photo, "chessboard")
    assert located.layout.name == "chessboard" and located.markers_seen == ()
    errors = corner_errors(located.board_corners_px(), truth)
    assert errors.max() < 0.1, errors  # in this order: a1 (dark) at the bottom-left


def test_a_quarter_turned_board_puts_a1_on_a_dark_corner():
    """Turned by 90 degrees the photo cannot tell a1 from h8 (both dark): either is taken,
    never a light corner."""
    photo, truth = checkerboard(COLOURS["green-cream"], seed=3, turn=1)
    found = find_board(photo, "chessboard").board_corners_px()
    best = min(corner_errors(np.roll(found, -k, axis=0), truth).max() for k in (0, 2))
    assert best < 0.1


def test_an_empty_board_and_a_crowded_one():
    for discs in (0, 40):
        photo, truth = checkerboard(COLOURS["wood"], seed=4, discs=discs)
        errors = corner_errors(find_board(photo, "chessboard").board_corners_px(), truth)
        assert errors.max() < 0.1, (discs, errors)


def test_no_board_is_a_user_error_saying_to_give_the_corners():
    rng = np.random.default_rng(0)
    for photo in (
        np.full((480, 640, 3), 128, np.uint8),
        cv2.GaussianBlur(rng.integers(0, 255, (480, 640, 3), dtype=np.uint8), (0, 0), 3),
    ):
        for layout in ("chessboard", "grid:9x9"):
            with pytest.raises(BoardNotFound, match="--corners") as info:
                locate(photo, layout)
            assert isinstance(info.value, UserError)


def test_a_moved_board_is_noticed_by_the_cheap_check():
    photo, _ = checkerboard(COLOURS["green-cream"], seed=5, discs=24)
    located = find_board(photo, "chessboard")
    assert grid_still_there(photo, located) is located  # unchanged: the same location
    cell = np.linalg.norm(np.subtract(*located.board_corners_px()[:2])) / 8
    for dx, there in ((2.0, True), (0.5 * cell, False), (cell * 0.3, False)):
        shifted = cv2.warpAffine(photo, np.float32([[1, 0, dx], [0, 1, 0]]), photo.shape[1::-1])
        again = grid_still_there(shifted, located)
        assert (again is not None) == there, dx
        if again is not None:
            assert corner_shift(again, located) < 6


def test_a_board_moved_by_a_whole_square_is_noticed_by_its_outline():
    photo, _ = checkerboard(COLOURS["wood"], seed=7, discs=16)
    located = find_board(photo, "chessboard")
    pitch = np.array(located.layout.board_size) / 8  # mm per square
    to_px = located.homography @ np.array([[pitch[0], 0, 0], [0, pitch[1], 0], [0, 0, 1.0]])
    for dx, dy in ((1, 0), (0, -1)):
        move = to_px @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]]) @ np.linalg.inv(to_px)
        moved = cv2.warpPerspective(photo, move, photo.shape[1::-1], borderValue=(110, 120, 125))
        assert grid_still_there(moved, located) is None, (dx, dy)


def test_a_lined_board_of_the_synthetic_table_is_found_and_followed_when_moved():
    layout = get_layout("grid:9x9")
    table = SimTable(layout, seed=4, size=(960, 540), tilt=12, rotation=5)
    position = calibration_position(layout)
    frame = table.render(position)
    located = find_board(frame, layout)
    truth = cv2.perspectiveTransform(
        np.array([layout.board_corners()], np.float64), table.homography
    )[0]
    assert corner_errors(located.board_corners_px(), truth, 9).max() < 0.1
    assert grid_still_there(frame, located) is not None

    calibration = calibrate(frame, located.homography, layout, position)
    tracker = Tracker(layout, calibration)  # no corners: the tracker finds the grid itself
    cells = {"e5": "white", "a9": "black"}
    seen = [tracker.feed(table.render(cells)) for _ in range(20)]
    assert [o.cells["e5"] for o in seen if o is not None] == ["white"]
    table.nudge(8.0, -5.0, 2.0)  # an elbow shoves the board
    statuses = []
    for _ in range(40):
        assert tracker.feed(table.render(cells)) is None  # the same board: nothing new
        statuses.append(tracker.status)
    assert BOARD_MOVED in statuses and tracker.board_moves == 1
    assert statuses[-1] == STILL
    truth = cv2.perspectiveTransform(
        np.array([layout.board_corners()], np.float64), table.homography
    )[0]
    assert corner_errors(tracker.located.board_corners_px(), truth, 9).max() < 0.1


def test_vision_locate_chessboard_draws_the_grid_and_fails_in_one_line(tmp_path, capsys):
    photo, truth = checkerboard(COLOURS["black-white"], seed=6)
    cv2.imwrite(str(tmp_path / "board.png"), photo)
    view = tmp_path / "found.png"
    assert (
        main(
            ["vision", "locate", str(tmp_path / "board.png"), "--layout", "chessboard"]
            + ["--view", str(view), "--json"]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert corner_errors(np.array(data["corners"]), truth).max() < 0.1
    drawn = cv2.imread(str(view))
    band = drawn.shape[0] - photo.shape[0]  # the caption over the photo: what is drawn
    assert drawn.shape[1:] == photo.shape[1:] and band >= 20
    assert np.any(drawn[band:] != photo) and (drawn[:band] < 100).any()  # a caption's ink
    (tmp_path / "empty.json").write_text('{"cells": {}}')
    calibrate = ["vision", "calibrate", str(tmp_path / "board.png"), "--layout", "chessboard"]
    calibrate += ["--position", str(tmp_path / "empty.json"), "-o", str(tmp_path / "cal.json")]
    assert main(calibrate) == 2  # an empty position teaches nothing about pieces
    assert "names no pieces" in capsys.readouterr().err
    cv2.imwrite(str(tmp_path / "blank.png"), np.full((300, 400, 3), 90, np.uint8))
    assert main(["vision", "locate", str(tmp_path / "blank.png"), "--layout", "chessboard"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--corners" in err and "Traceback" not in err
    # typed corners keep working
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in truth)
    assert (
        main(
            ["vision", "locate", str(tmp_path / "blank.png"), "--layout", "chessboard"]
            + ["--corners", "10,10 300,10 300,200 10,200"]
        )
        == 0
    )
    del corners


# -- real photos ------------------------------------------------------------------------------------
REAL = real_data()
REAL_PHOTOS = {
    "chess/samryan18_chess-ray-vision/crv_05.jpg": "chessboard",
    "chess/samryan18_chess-ray-vision/crv_09.jpg": "chessboard",
    "chess/afka2d_chesscog/IMG_4746.jpg": "chessboard",
    "chess/afka2d_chesscog/IMG_4756.jpg": "chessboard",  # a full rank of black pieces at the far edge
    "go/irglbriz_goban_to_sgf/emptyreal.jpg": "grid:18x18",
}


@pytest.mark.parametrize("name", sorted(REAL_PHOTOS))
def test_real_photos(name):
    entry = next(e for e in json.loads((REAL / "manifest.json").read_text()) if e["file"] == name)
    photo = cv2.imread(str(REAL / name))
    located = find_board(photo, REAL_PHOTOS[name])
    found, truth = located.board_corners_px(), np.array(entry["corners"])
    cells = entry["size"][0] - (1 if entry["game"] == "go" else 0)
    # up to what the photo cannot tell: a turn by 180 degrees (chess), any turn (lined)
    turns = (0, 2) if entry["game"] == "chess" else (0, 1, 2, 3)
    best = min(corner_errors(np.roll(found, -k, axis=0), truth, cells).max() for k in turns)
    assert best <= 0.25
    assert draw_grid(photo, located).shape == photo.shape
    assert grid_still_there(photo, located) is not None


@pytest.mark.parametrize("name", ["chessboard", "grid:8x8"])
def test_a_printed_board_of_your_own_is_found_as_its_layout(name):
    """`companion mat chessboard` printed a lined grid that the camera found only as
    grid:8x8 (a player's trial): now it is checkered, squares meeting at X-corners as on a
    vinyl chessboard, and found as the chessboard with a1 bottom-left; grid:RxC stays a
    lined grid, found by its lines. (The printed mat on a wooden table, seen obliquely.)"""
    layout = get_layout(name)
    mat = render_mat(layout, 2.0)
    h, w = mat.shape[:2]
    table = np.full((h + 240, w + 240, 3), (60, 90, 120), np.uint8)
    table[120 : 120 + h, 120 : 120 + w] = mat
    size = table.shape[1], table.shape[0]
    tilt = cv2.getPerspectiveTransform(
        np.float32([[0, 0], [size[0], 0], [size[0], size[1]], [0, size[1]]]),
        np.float32([[50, 25], [size[0] - 35, 0], size, [0, size[1] - 20]]),
    )
    photo = cv2.warpPerspective(table, tilt, size)
    found = find_board(photo, name)
    a1 = found.board_corners_px()[3]
    assert a1[0] < size[0] / 3 and a1[1] > size[1] * 2 / 3


def test_the_cells_read_empty_show_a_lined_board_s_lines_where_it_lies_and_not_elsewhere():
    """`lines_round_empty` on the synthetic table's lined board (Go style: the lines through the
    cells): at the board's corners its empty cells show their lines, not between them; under
    corners moved 3.4 cells the same cells show neither; no sign from fewer than four empty
    cells, from a checkered board or a mat."""
    layout = get_layout("grid:9x9")
    table = SimTable(layout, seed=4, size=(960, 540), tilt=12, rotation=5, realism={"board": "go"})
    frame = table.render({"e5": "white", "a9": "black"})
    located = find_board(frame, layout)
    empty = [c for c in layout.cell_names() if c not in ("e5", "a9")]
    on, off = lines_round_empty(frame, located, empty)
    assert on > 0.8 and off < 0.1
    assert not lined_board_elsewhere(frame, located, empty)
    moved = cv2.warpAffine(frame, np.float32([[1, 0, 3.4 * 40], [0, 1, 0]]), (960, 540))
    on, off = lines_round_empty(moved, located, empty)
    assert on < 0.5 and on < 2 * off
    assert lined_board_elsewhere(moved, located, empty)
    assert lines_round_empty(frame, located, empty[:3]) is None
    # only the a-file's middles in the picture, barely: the lines through them run off its
    # edge (a sample on each side of a line must be in it) - judged on what is left, no crash
    right = int(located.to_image([layout.cells[layout.cell_names().index("a5")].center])[0][0])
    edge = np.ascontiguousarray(frame[:, : right + 3])
    a_file = [c for c in empty if c.startswith("a")]
    assert lines_round_empty(edge, located, a_file) is not None
    chess = located.__class__(get_layout("chessboard"), located.homography)
    assert lines_round_empty(frame, chess, empty) is None
    arinama = get_layout("arinama5")
    printed = render_mat(arinama, 2.0)
    mat = located.__class__(arinama, np.diag([2.0, 2.0, 1.0]))
    assert lines_round_empty(printed, mat, arinama.cell_names()) is None


@pytest.mark.parametrize("size", [(300, 400), (1600, 900), (100, 100)])
def test_a_view_s_caption_is_wrapped_to_the_picture_s_width(size):
    """A --view picture's caption in as many lines as the width needs (a portrait photo's one
    line ran off its right edge, cut): no ink in the picture's last columns of the band."""
    height, width = size
    picture = np.full((height, width, 3), 128, np.uint8)
    words = "green: the cells; yellow: the board's edge, thick on the first player's side"
    out = captioned(picture, words)
    band = out.shape[0] - height
    assert out.shape[1] == width and band >= 20
    text = out[:band]
    assert (text < 100).any()  # written
    assert not (text[:, -3:] < 200).any()  # and clear of the right edge
