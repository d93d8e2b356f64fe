"""vision.layouts and vision.mat: layouts, marker ids, and the printed mat's real markers."""

import json

import cv2
import numpy as np
import pytest

from companion import geometry
from companion.errors import UserError
from vision.layouts import (
    MAT_MARGIN,
    get_layout,
    layout_for_markers,
    layout_names,
    layout_or_auto,
)
from vision.mat import BOARD_TONE, fit_on_paper, pdf_bytes, render_marker_sheet, render_mat

BUILT_IN = ["arinama5", "arinama8", "arimaa", "aranea", "sensei", "sensei-storm"]


def test_built_in_layouts_and_their_classes():
    assert layout_names() == BUILT_IN
    assert get_layout("arimaa").classes == ("empty", "gold", "silver")
    assert get_layout("arinama5").classes == ("empty", "black", "white")
    assert get_layout("aranea").classes == ("empty", "amber", "blue")
    assert get_layout("sensei-storm").classes == (
        "empty",
        "green",
        "red",
        "green-character",
        "red-character",
    )
    assert get_layout("grid:9x9").classes == ("empty",)
    assert len(get_layout("arinama5").cells) == 25
    assert len(get_layout("grid:4x6").cells) == 24


def test_marker_ids_are_unique_per_layout():
    ids = [get_layout(n).marker_ids() for n in BUILT_IN]
    flat = [i for group in ids for i in group]
    assert len(flat) == len(set(flat)) == 24
    assert get_layout("arimaa").marker_ids() == (8, 9, 10, 11)
    assert get_layout("grid:8x8").markers == ()


def test_layout_cells_are_the_board_geometry_moved_onto_the_mat():
    layout = get_layout("sensei-storm")
    board = geometry.board_geometry("sensei", {"side": "storm"})
    a1 = layout.cell("a1").center
    assert a1 == (board.cell("a1").center[0] + MAT_MARGIN, board.cell("a1").center[1] + MAT_MARGIN)
    assert sorted(m.cell for m in layout.marks if m.kind == "pit") == ["c3", "c5", "e3", "e5"]
    # markers lie outside the board, inside the mat
    x0, y0 = layout.board_origin
    for marker in layout.markers:
        for x, y in marker.corners:
            assert 0 < x < layout.size[0] and 0 < y < layout.size[1]
            assert not (x0 < x < x0 + layout.board_size[0] and y0 < y < y0 + layout.board_size[1])


def test_layout_json_has_the_issue_shape():
    data = json.loads(json.dumps(get_layout("arimaa").to_json()))
    assert set(data) == {"layout", "size", "markers", "cells", "classes"}
    assert data["layout"] == "arimaa" and data["size"] == [324, 324]
    assert data["markers"][0] == {"id": 8, "corners": [[6, 6], [36, 6], [36, 36], [6, 36]]}
    a1 = data["cells"][0]
    assert a1["name"] == "a1" and a1["center"] == [57, 267] and a1["radius"] == 15
    assert len(a1["polygon"]) == 4
    assert data["classes"] == ["empty", "gold", "silver"]


def test_layout_for_markers():
    assert layout_for_markers([9, 10, 11]).name == "arimaa"
    assert layout_for_markers([20, 21, 22, 23]).name == "sensei-storm"
    assert layout_for_markers([16, 17, 20]).name == "sensei"
    assert layout_for_markers([]) is None
    assert layout_for_markers([40, 41]) is None
    assert layout_for_markers([8, 16]) is None  # two mats in view: do not guess


def test_unknown_layout_is_a_user_error():
    with pytest.raises(UserError, match="unknown layout 'chess'.*grid:RxC"):
        get_layout("chess")
    with pytest.raises(UserError, match="1..26"):
        get_layout("grid:0x5")


@pytest.mark.parametrize("name", BUILT_IN)
def test_rendered_mat_markers_are_found_by_opencv(name):
    layout = get_layout(name)
    image = render_mat(layout, px_per_mm=2.0)
    assert image.shape == (round(layout.size[1] * 2), round(layout.size[0] * 2), 3)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(image)
    assert ids is not None and sorted(ids.ravel().tolist()) == list(layout.marker_ids())
    for found, marker_id in zip(corners, ids.ravel(), strict=True):
        (expected,) = [m.corners for m in layout.markers if m.id == marker_id]
        assert np.allclose(found.reshape(4, 2) / 2.0, expected, atol=1.0)


def test_mat_leaves_the_sampled_inside_of_every_cell_plain_board_tone():
    layout = get_layout("arimaa")  # traps included
    image = render_mat(layout, px_per_mm=4.0).astype(int)
    for cell in layout.cells:
        cx, cy = (round(v * 4.0) for v in cell.center)
        r = int(cell.radius * 4.0 * 0.7)
        patch = image[cy - r : cy + r, cx - r : cx + r]
        yy, xx = np.mgrid[-r:r, -r:r]
        inside = patch[(xx**2 + yy**2) < r * r]
        assert np.abs(inside - np.array(BOARD_TONE)).max() <= 2, cell.name


def test_fit_on_paper_prefers_the_larger_print():
    page, scale = fit_on_paper((324.0, 324.0), "A3")
    assert page == (297.0, 420.0) and scale == pytest.approx((297 - 16) / 324)
    page, scale = fit_on_paper((100.0, 50.0), "A4")
    assert scale == 1.0
    with pytest.raises(UserError, match="unknown paper"):
        fit_on_paper((1.0, 1.0), "B5")


def test_pdf_is_structurally_valid():
    image = np.zeros((20, 30, 3), np.uint8)
    image[:, :, 2] = 255  # red in BGR
    data = pdf_bytes(image, (210.0, 297.0), (30.0, 20.0))
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    startxref = int(data.rsplit(b"startxref", 1)[1].split()[0])
    assert data[startxref:].startswith(b"xref")
    table = data[startxref:].split(b"\n")[3:8]
    for number, row in enumerate(table, start=1):
        offset = int(row.split()[0])
        assert data[offset:].startswith(f"{number} 0 obj".encode())
    import zlib

    stream = data.split(b"stream\n", 1)[1].split(b"\nendstream", 1)[0]
    assert zlib.decompress(stream)[:3] == bytes([255, 0, 0])  # stored as RGB


def test_marker_sheet_holds_the_four_markers_at_true_size():
    px_per_mm = 4.0
    sheet = render_marker_sheet(get_layout("aranea"), "A4", px_per_mm)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(sheet)
    assert sorted(ids.ravel().tolist()) == [12, 13, 14, 15]
    side = np.linalg.norm(corners[0].reshape(4, 2)[1] - corners[0].reshape(4, 2)[0]) / px_per_mm
    assert side == pytest.approx(30.0, abs=0.5)
    with pytest.raises(UserError, match="no markers"):
        render_marker_sheet(get_layout("grid:8x8"))


def test_an_unknown_layout_where_auto_is_taken_offers_auto_too():
    assert layout_or_auto(" AUTO ") is None
    assert layout_or_auto("Chessboard").name == "chessboard"
    with pytest.raises(
        UserError, match="unknown layout 'chess': choose auto .*, arimaa, .*grid:RxC"
    ):
        layout_or_auto("chess")
    with pytest.raises(UserError, match="1..26 rows and columns"):  # not "unknown layout"
        layout_or_auto("grid:30x30")
    with pytest.raises(UserError, match="not one layout here") as refused:
        get_layout("auto")  # where one layout is needed, auto is named for what it is
    assert "choose auto" not in str(refused.value)
