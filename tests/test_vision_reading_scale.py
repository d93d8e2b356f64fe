"""The reader reads a board as if its squares spanned about READING_CELL_PX pixels
(`vision.cell_views.at_reading_scale`): a board seen smaller - a camera farther away, or
with fewer pixels - has its region enlarged first. Its finest steps are pixels, and a white
piece on a light square shows mostly by its outline: chesscog's photos shrunk to half, found
by their grids and read as one game, read 51 of 112 boards before (102 now, 103 at full
size)."""

from __future__ import annotations

import json

import bench_real
import cv2
import numpy as np
import pytest
from shared_data import real_data

from vision.cell_views import (
    MOST_ENLARGED,
    READING_CELL_PX,
    at_reading_scale,
    cell_views,
    reading_enlargement,
)
from vision.layouts import CHESSBOARD, get_layout
from vision.locate import from_corners
from vision.pose import CameraPose
from vision.sim import SimTable, chess_start
from vision.standing import calibrate_standing, read_standing

REAL = real_data()
HALF = 0.5


@pytest.fixture(scope="module")
def chesscog_at_half():
    """chesscog's photos by name (shrunk to half, squares about 36 px), the layout, and the
    set calibrated on its start position at that size."""
    entries = json.loads((REAL / "manifest.json").read_text())
    photos = {
        e["file"].split("/")[-1]: bench_real.scaled(e, HALF)
        for e in entries
        if bench_real.board_set(e) == "chesscog"
    }
    start = photos["IMG_4755.jpg"]
    layout, homography = bench_real.layout_and_homography(start)
    image = bench_real.load_photo(REAL, start)
    return photos, layout, calibrate_standing(image, homography, layout, start["cells"])


@pytest.mark.parametrize(
    ("name", "cell"),
    [("IMG_4756.jpg", "d3"), ("IMG_4762.jpg", "e2"), ("IMG_4767.jpg", "f1")],
)
def test_a_light_square_a_white_piece_left_reads_empty_on_a_board_seen_at_half_size(
    chesscog_at_half, name, cell
):
    """Read at the photo's own 36 px a square, the cell read white: its empty cream square
    and the white piece that stood there at calibration differ by outlines a pixel wide."""
    photos, layout, calibration = chesscog_at_half
    entry = photos[name]
    _, homography = bench_real.layout_and_homography(entry)
    image = bench_real.load_photo(REAL, entry)
    assert 30 < READING_CELL_PX / reading_enlargement(homography, layout) < 45  # px a square
    observation = read_standing(image, homography, layout, calibration)
    assert observation.cells[cell] == "empty"
    assert observation.cells == bench_real.truth_of(entry, layout)


def test_a_board_read_at_its_own_size_is_left_as_it_is():
    layout = get_layout(CHESSBOARD)
    table = SimTable(CHESSBOARD, seed=3, size=(1280, 960), tilt=10)
    homography = from_corners(layout, table.board_corners_px(), table.size).homography
    image = table.render({})
    assert reading_enlargement(homography, layout) == 1.0  # squares over 72 px
    same, moved = at_reading_scale(image, homography, layout)
    assert same is image and np.array_equal(moved, np.eye(3))


def test_a_small_board_is_cut_out_and_enlarged_with_its_homography_and_camera():
    """The board's region (and two squares round it), enlarged until a square spans
    READING_CELL_PX: a board point lies where the moved homography says, and the camera's
    pose is the whole picture's (its centre is the principal point), carried over."""
    layout = get_layout(CHESSBOARD)
    table = SimTable(CHESSBOARD, seed=3, size=(640, 360), tilt=20)
    cells, figures = chess_start(layout)
    image = table.render(cells, figures=figures)
    homography = from_corners(layout, table.board_corners_px(), table.size).homography
    scale = reading_enlargement(homography, layout)
    assert 1.5 < scale < MOST_ENLARGED
    bigger, moved = at_reading_scale(image, homography, layout)
    assert bigger.shape[0] * bigger.shape[1] < (scale * scale) * image.shape[0] * image.shape[1]
    assert moved[0, 0] == pytest.approx(scale, rel=0.01)
    # a board point lies where the moved homography says, to a tenth of a pixel: on a ramp
    # (x + y / 2 at each pixel centre; cubic enlarging keeps a ramp) the enlarged region shows
    # at the point what the picture shows there
    ys, xs = np.mgrid[0 : image.shape[0], 0 : image.shape[1]].astype(np.float32)
    ramp = np.dstack([xs + ys / 2] * 3)
    enlarged, same = at_reading_scale(ramp, homography, layout)
    assert np.array_equal(same, moved)
    points = np.array([[c.center for c in layout.cells]], np.float64)
    there = cv2.perspectiveTransform(points, homography)[0]
    here = cv2.perspectiveTransform(points, moved @ homography)[0].astype(np.float32)
    shows = cv2.remap(enlarged, here[:, None, 0], here[:, None, 1], cv2.INTER_LINEAR)[:, 0, 0]
    assert np.abs(shows - (there[:, 0] + there[:, 1] / 2)).max() < 0.1
    # the camera of the enlarged region is the whole picture's, its pixels moved
    pose = CameraPose.from_homography(homography, table.size)
    standing = np.array([[30.0, 40.0, 25.0]])  # a point 25 mm above the board
    expected = cv2.perspectiveTransform(pose.project(standing)[None], moved)[0]
    assert np.allclose(pose.seen_through(moved).project(standing), expected)
    # and the cells are read the same way in either picture: every square seen
    assert not cell_views(image, homography, layout).unseen.any()
