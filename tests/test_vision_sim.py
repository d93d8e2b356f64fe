"""The synthetic table (vision.sim): seeded, geometrically true, every class distinct, hands."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from companion.observation import EMPTY
from vision.layouts import get_layout, layout_names
from vision.sim import (
    SimTable,
    calibration_position,
    random_cells,
    random_script,
)

SIZE = (640, 360)


def subpixel_markers(image):
    """Plain OpenCV ArUco detection with sub-pixel corners (independent of vision.locate)."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    corners, ids, _ = cv2.aruco.ArucoDetector(dictionary, params).detectMarkers(image)
    return {int(i): c.reshape(4, 2) for c, i in zip(corners, ids.ravel(), strict=True)}


def test_same_seed_same_pictures_other_seed_other_pictures():
    cells = {"a1": "gold", "h8": "silver"}
    one = SimTable("arimaa", seed=4, size=SIZE).render(cells)
    two = SimTable("arimaa", seed=4, size=SIZE).render(cells)
    three = SimTable("arimaa", seed=5, size=SIZE).render(cells)
    assert one.shape == (360, 640, 3) and one.dtype == np.uint8
    assert np.array_equal(one, two)
    assert not np.array_equal(one, three)


@pytest.mark.parametrize(
    ("name", "tilt"), [("arimaa", 0.0), ("aranea", 30.0), ("sensei-storm", 18.0)]
)
def test_markers_appear_where_the_true_homography_says(name, tilt):
    table = SimTable(name, seed=2, size=(960, 540), tilt=tilt)
    assert table.tilt == tilt
    found = subpixel_markers(table.render({}))
    for marker in table.layout.markers:
        assert marker.id in found
        expected = cv2.perspectiveTransform(
            np.array([marker.corners], np.float64), table.homography
        )[0]
        assert np.abs(found[marker.id] - expected).max() < 1.5


def test_random_conditions_stay_within_the_benchmark_ranges():
    for seed in range(12):
        table = SimTable("arinama5", seed=seed, size=(160, 90))
        assert 0 <= table.tilt <= 30
        assert 0.5 <= table.light[0] <= table.light[1] <= 1.5
        assert -1 <= table.tint <= 1
        assert table.noise_sigma > 0


def test_light_scales_the_picture():
    dim = SimTable("arimaa", seed=1, size=SIZE, light=(0.5, 0.5), tint=0.0, noise=0.5)
    bright = SimTable("arimaa", seed=1, size=SIZE, light=(1.0, 1.0), tint=0.0, noise=0.5)
    x, y = (int(v) for v in dim.cell_pixel("d4"))  # an empty cell: board tone
    ratio = dim.render({})[y, x].astype(float) / bright.render({})[y, x].astype(float)
    assert ratio == pytest.approx([0.5, 0.5, 0.5], abs=0.06)


@pytest.mark.parametrize("name", ["sensei", "arimaa", "aranea", "arinama8"])
def test_every_class_looks_different_from_every_other(name):
    layout = get_layout(name)
    table = SimTable(layout, seed=3, size=(960, 540), tilt=10, light=(1.0, 1.0), noise=1.0)
    classes = [c for c in layout.classes if c != EMPTY]
    cells = {layout.cells[5 + 3 * i].name: cls for i, cls in enumerate(classes)}
    scale = 3.0  # top view: 3 px per mm, pixel (u, v) shows the mat point (u, v) / 3
    to_view = np.diag([1 / scale, 1 / scale, 1.0])
    size = (int(layout.size[0] * scale), int(layout.size[1] * scale))
    view = cv2.warpPerspective(
        table.render(cells), table.homography @ to_view, size, flags=cv2.WARP_INVERSE_MAP
    ).astype(float)

    def colour(cell, frac):  # mean colour within frac of the cell's inner radius
        shape = layout.cell(cell)
        cx, cy = (v * scale for v in shape.center)
        yy, xx = np.mgrid[0 : view.shape[0], 0 : view.shape[1]]
        inside = (xx - cx) ** 2 + (yy - cy) ** 2 <= (frac * shape.radius * scale) ** 2
        return view[inside].mean(axis=0)

    looks = {cls: np.hstack([colour(cell, 0.2), colour(cell, 0.65)]) for cell, cls in cells.items()}
    looks[EMPTY] = np.hstack(
        [colour(layout.cells[0].name, 0.2), colour(layout.cells[0].name, 0.65)]
    )
    for a, b in itertools.combinations(looks, 2):
        assert np.abs(looks[a] - looks[b]).max() > 40, (a, b)
    if name == "sensei":  # the character: a light figure in the middle of the stone
        core, body = looks["red-character"][:3], looks["red-character"][3:]
        assert core.mean() > body.mean() + 60


def test_transition_frames_tell_the_truth_about_the_hand():
    table = SimTable("arinama8", seed=6, size=SIZE)
    before = {"d4": "black"}
    after = {"d4": "black", "e5": "white"}
    frames = list(table.transition(before, after, hand_frames=6, still_frames=4))
    assert [hand for _, hand in frames] == [True] * 6 + [False] * 4
    board = table.render(after)
    quad = table.mat_quad().astype(np.int32)
    mask = np.zeros(board.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, quad, 1)
    for frame, hand in frames:
        diff = np.abs(frame.astype(int) - board.astype(int)).max(axis=2) > 40
        covered = int((diff & (mask > 0)).sum())
        if hand:
            assert covered > 1500  # an arm and a hand over the mat
        else:
            assert covered < 50  # only noise: the board as it ends


def test_nudge_moves_the_mat_by_millimetres():
    table = SimTable("arimaa", seed=7, size=(960, 540), tilt=0, rotation=0)
    before = subpixel_markers(table.render({}))
    table.nudge(5.0, 0.0)
    after = subpixel_markers(table.render({}))
    shift = np.mean([after[i][:, 0] - before[i][:, 0] for i in before])
    assert shift == pytest.approx(5.0 * table.px_per_mm(), rel=0.1)


@pytest.mark.parametrize("name", layout_names())
def test_boards_and_scripts_use_the_layouts_cells_and_classes(name):
    layout = get_layout(name)
    rng = np.random.default_rng(1)
    cells = random_cells(layout, rng)
    assert set(cells) <= set(layout.cell_names())
    assert set(cells.values()) <= set(layout.classes) - {EMPTY}
    script = random_script(layout, rng, moves=5)
    assert len(script) == 6
    assert all(a != b for a, b in zip(script, script[1:], strict=False))
    position = calibration_position(layout)
    assert set(position.values()) == set(layout.classes) - {EMPTY}
    assert len(position) < len(layout.cells)  # some cells stay empty
