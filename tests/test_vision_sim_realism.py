"""The realistic synthetic table (vision.sim with realism=..., vision.sim_pieces): pieces with
height in true perspective, cast shadows, printers and paper, own boards without markers."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.layouts import get_layout
from vision.locate import from_corners
from vision.mat import render_mat
from vision.sim import SimTable, chess_start
from vision.sim_pieces import (
    CHECKERED_BOARDS,
    OWN_BOARDS,
    Conditions,
    grey_print_has_no_chroma,
    print_surface,
)

QUIET = dict(noise=0.0, blur=0.0, light=(1.0, 1.0), tint=0.0)


def cell_mask(table: SimTable, name: str, shrink: float = 0.0) -> np.ndarray:
    """The cell's polygon in the picture (shrunk towards its centre by `shrink`)."""
    shape = table.layout.cell(name)
    poly = np.array(shape.polygon, np.float64)
    poly = shape.center + (poly - shape.center) * (1 - shrink)
    px = cv2.perspectiveTransform(poly[None], table.homography)[0]
    mask = np.zeros(table.size[::-1], np.uint8)
    cv2.fillConvexPoly(mask, np.round(px).astype(np.int32), 1)
    return mask.astype(bool)


def neighbours(table: SimTable, name: str) -> dict[str, str]:
    """The cell's four neighbours, named by where they lie from the cell: 'far' (away from
    the camera), 'near', and the other two."""
    f, r = ord(name[0]) - ord("a"), int(name[1:])
    around = [f"{chr(ord('a') + f + df)}{r + dr}" for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    names = set(table.layout.cell_names())
    around = [n for n in around if n in names]
    cam = table.camera.centre[:2]
    centre = np.array(table.layout.cell(name).center)
    away = (centre - cam) / np.linalg.norm(centre - cam)
    along = {n: float((np.array(table.layout.cell(n).center) - centre) @ away) for n in around}
    ordered = sorted(around, key=along.get)
    return {"near": ordered[0], "far": ordered[-1]}


def far_cell(table: SimTable) -> str:
    """An inner cell far from the point under the camera (pieces lean most there)."""
    cam = table.camera.centre[:2]
    inner = [
        c for c in table.layout.cells if c.name[0] not in "ah" and c.name[1:] not in ("1", "8")
    ]
    return max(inner, key=lambda c: math.dist(c.center, cam)).name


def test_the_pinhole_camera_is_the_homography_on_the_table():
    table = SimTable("arimaa", seed=3, size=(640, 360), realism=True)
    table.nudge(4.0, -3.0, 2.0)
    pts = np.random.default_rng(0).uniform(0, 300, size=(40, 2))
    on_table = table.camera.project(np.column_stack([pts, np.zeros(40)]))
    expected = cv2.perspectiveTransform(pts[None], table.homography)[0]
    assert np.abs(on_table - expected).max() < 1e-3
    assert table.camera.centre[2] > 200  # the camera is well above the table
    plain = SimTable("arimaa", seed=3, size=(640, 360))
    plain.nudge(4.0, -3.0, 2.0)
    assert np.allclose(plain.homography, table.homography)  # realism keeps the seed's camera


def test_same_seed_same_realistic_picture():
    cells, figures = chess_start()
    one = SimTable("grid:8x8", seed=8, size=(640, 360), realism=True).render(cells, figures=figures)
    two = SimTable("grid:8x8", seed=8, size=(640, 360), realism=True).render(cells, figures=figures)
    three = SimTable("grid:8x8", seed=9, size=(640, 360), realism=True).render(cells)
    assert np.array_equal(one, two)
    assert not np.array_equal(one, three)
    assert Conditions.draw(5) == Conditions.draw(5)


def test_realism_none_is_the_old_flat_table():
    cells = {"a1": "gold", "d4": "silver"}
    old = SimTable("arimaa", seed=2, size=(640, 360)).render(cells)
    none = SimTable("arimaa", seed=2, size=(640, 360), realism=None).render(cells)
    real = SimTable("arimaa", seed=2, size=(640, 360), realism=True).render(cells)
    assert np.array_equal(old, none)
    assert not np.array_equal(old, real)


@pytest.mark.parametrize("seed", [1, 4])
def test_a_tall_piece_leans_into_the_far_cell_not_the_near_one(seed):
    conditions = Conditions(pieces="chess", shadow=0.0, board_gloss=0.0)
    table = SimTable("arimaa", seed=seed, tilt=30, realism=conditions, **QUIET)
    cell = far_cell(table)
    around = neighbours(table, cell)
    empty = table.render({}).astype(int)
    king = table.render({cell: "white"}, figures={cell: "king"}).astype(int)
    changed = np.abs(king - empty).max(axis=2) > 30
    far, near = cell_mask(table, around["far"]), cell_mask(table, around["near"])
    assert (changed & far).sum() > 0.08 * far.sum()  # the king covers part of the far cell
    assert (changed & near).sum() < 0.01 * near.sum()
    pawn = table.render({cell: "white"}, figures={cell: "pawn"}).astype(int)
    pawn_changed = np.abs(pawn - empty).max(axis=2) > 30
    assert (pawn_changed & far).sum() < (changed & far).sum()  # a pawn leans less far


@pytest.mark.parametrize(
    ("name", "board", "high"),
    [("sensei", "mat", 1.0), ("arimaa", "mat", 1.6), ("grid:8x8", "green-cream", 1.6)],
)
def test_figures_are_as_high_as_the_board_s_pieces(name, board, high):
    """A chess king drawn on Sensei's mat is a cell high, as the Sensei layout's tallest piece
    (`Layout.piece_height`, which the occluder checks' allowance for shadows is made for);
    on Arimaa's mat and on a board of one's own it is a chess set's, 1.6 cells."""
    conditions = Conditions(pieces="chess", board=board)
    table = SimTable(name, seed=1, realism=conditions, **QUIET)
    cell = table.layout.cell_names()[0]
    (king,) = table.pieces({cell: "white"}, figures={cell: "king"})
    pitch = 2 * table.layout.cell(cell).radius
    assert king.profile.z.max() / pitch == pytest.approx(high, abs=0.02)


def test_nearer_pieces_cover_farther_ones():
    conditions = Conditions(pieces="chess", shadow=0.0, board_gloss=0.0)
    table = SimTable("arimaa", seed=1, tilt=30, realism=conditions, **QUIET)
    back = far_cell(table)
    front = neighbours(table, back)["near"]
    figures = {back: "king", front: "king"}
    empty = table.render({}).astype(int)
    only_front = table.render({front: "white"}, figures=figures).astype(int)
    only_back = table.render({back: "black"}, figures=figures).astype(int)
    both = table.render({front: "white", back: "black"}, figures=figures).astype(int)
    overlap = (np.abs(only_front - empty).max(axis=2) > 30) & (
        np.abs(only_back - empty).max(axis=2) > 30
    )
    overlap = cv2.erode(overlap.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    assert overlap.sum() > 10  # (away from the softened outlines)
    assert np.abs(both[overlap] - only_front[overlap]).mean() < 3  # the white king in front


def test_the_shadow_falls_on_the_side_away_from_the_lamp():
    lamp_east = dict(pieces="chess", lamp_azimuth=0.0, lamp_elevation=35.0, board_gloss=0.0)
    lit = SimTable("arimaa", seed=5, tilt=0, realism=Conditions(**lamp_east, shadow=0.0), **QUIET)
    shaded = SimTable(
        "arimaa", seed=5, tilt=0, realism=Conditions(**lamp_east, shadow=0.5), **QUIET
    )
    cells, figures = {"d4": "white"}, {"d4": "queen"}
    darker = lit.render(cells, figures=figures).astype(int) - shaded.render(
        cells, figures=figures
    ).astype(int)
    darker = darker.mean(axis=2)
    west, east = cell_mask(lit, "c4", 0.1), cell_mask(lit, "e4", 0.1)  # lamp towards +x
    assert darker[west].mean() > 15
    assert abs(darker[east].mean()) < 1.0


def test_a_laser_print_has_no_colour_and_an_inkjet_print_less():
    mat = render_mat(get_layout("arimaa"), px_per_mm=1.5)
    rng = np.random.default_rng(0)
    laser = print_surface(mat, Conditions(printer="laser", paper="white", blotch=1.0), rng)
    assert grey_print_has_no_chroma(laser)
    assert not grey_print_has_no_chroma(mat.astype(np.float32))
    inkjet = print_surface(mat, Conditions(printer="inkjet", blotch=0.5), rng)

    def saturation(image):
        hsv = cv2.cvtColor(np.clip(image, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV)
        return float(hsv[:, :, 1].mean())

    assert saturation(inkjet) < 0.92 * saturation(mat.astype(np.float32))
    cream = print_surface(mat, Conditions(printer="laser", paper="cream"), rng)
    paper = cream[5, 5]  # the mat's white corner: cream, more red than blue
    assert paper[2] - paper[0] > 25
    # And in the camera's picture (neutral light, no sensor noise): the mat shows grey only.
    table = SimTable("arimaa", seed=6, realism=Conditions(printer="laser", paper="white"), **QUIET)
    frame = table.render({}).astype(int)
    inside = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(inside, table.mat_quad().astype(np.int32), 1)
    inside = cv2.erode(inside, np.ones((9, 9), np.uint8)).astype(bool)
    chroma = np.abs(frame[:, :, 0] - frame[:, :, 1]) + np.abs(frame[:, :, 1] - frame[:, :, 2])
    assert chroma[inside].max() <= 2


@pytest.mark.parametrize("style", CHECKERED_BOARDS)
def test_own_board_corners_are_where_the_board_is_drawn(style):
    table = SimTable("grid:8x8", seed=7, tilt=15, realism=Conditions(board=style), **QUIET)
    gray = cv2.cvtColor(table.render({}), cv2.COLOR_BGR2GRAY)
    found, corners = cv2.findChessboardCornersSB(gray, (7, 7))
    assert found, style
    pitch = 30.0
    inner = np.array([[i * pitch, j * pitch] for j in range(1, 8) for i in range(1, 8)])
    expected = cv2.perspectiveTransform(inner[None], table.homography)[0]
    found_pts = corners.reshape(-1, 2)
    error = np.linalg.norm(found_pts[:, None, :] - expected[None, :, :], axis=2).min(axis=1)
    assert error.max() < 1.0
    # The true corners are what --corners takes: from_corners gives the same cells.
    located = from_corners(table.layout, table.board_corners_px(), table.size)
    for name in ("a1", "h1", "e4", "a8"):
        got = located.to_image([table.layout.cell(name).center])[0]
        assert np.allclose(got, table.cell_pixel(name), atol=1e-3)
    a1 = np.array(table.cell_pixel("a1"))
    assert np.linalg.norm(table.board_corners_px()[3] - a1) < np.linalg.norm(
        table.board_corners_px()[1] - a1
    )  # the last corner is a1's


def test_own_board_a1_is_dark_and_the_lined_boards_draw_lines():
    table = SimTable("grid:8x8", seed=2, tilt=0, realism=Conditions(board="green-cream"), **QUIET)
    frame = table.render({}).astype(float)
    a1, b1 = (frame[cell_mask(table, n, 0.3)].mean() for n in ("a1", "b1"))
    assert a1 < b1 - 50
    for style in ("othello", "go"):
        lined = SimTable("grid:9x9", seed=2, tilt=0, realism=Conditions(board=style), **QUIET)
        gray = cv2.cvtColor(lined.render({}), cv2.COLOR_BGR2GRAY).astype(float)
        # Along a row of the board, dark lines cross it once per cell.
        y = int(lined.cell_pixel("e5")[1]) + (0 if OWN_BOARDS[style][0] == "lined-points" else 6)
        x0, x1 = int(lined.cell_pixel("a5")[0]), int(lined.cell_pixel("i5")[0])
        row = gray[y, x0:x1]
        dark = row < row.mean() - 40
        crossings = int(np.count_nonzero(dark[1:] & ~dark[:-1]))
        assert 7 <= crossings <= 9, (style, crossings)


def test_chess_start_and_every_figure_are_drawn():
    cells, figures = chess_start()
    assert len(cells) == 32 and sorted(set(cells.values())) == ["black", "white"]
    assert figures["e1"] == "king" and figures["d8"] == "queen" and figures["a2"] == "pawn"
    table = SimTable("grid:8x8", seed=3, tilt=10, realism=Conditions(board="light-wood"), **QUIET)
    empty = table.render({}).astype(int)
    sizes = {}
    for figure in ("pawn", "rook", "knight", "bishop", "queen", "king"):
        frame = table.render({"d5": "black"}, figures={"d5": figure}).astype(int)
        sizes[figure] = int((np.abs(frame - empty).max(axis=2) > 30).sum())
    assert sizes["pawn"] < sizes["queen"] < sizes["king"] * 1.05
    assert min(sizes.values()) > 0.3 * cell_mask(table, "d5").sum()


def test_hands_still_work_on_a_realistic_table():
    table = SimTable("arimaa", seed=4, size=(640, 360), realism=True)
    frames = list(table.transition({"d4": "gold"}, {"d5": "gold"}, hand_frames=4, still_frames=2))
    assert [hand for _, hand in frames] == [True] * 4 + [False] * 2


def test_conditions_are_checked_and_drawn_within_their_ranges():
    with pytest.raises(ValueError):
        Conditions(printer="dot-matrix")
    with pytest.raises(ValueError):
        Conditions(board="marble")
    for seed in range(20):
        c = Conditions.draw(seed)
        assert c.board == "mat" and 30 <= c.lamp_elevation <= 75
        own = Conditions.draw(seed, own_board=True)
        assert own.board in OWN_BOARDS
        assert Conditions.draw(seed, printer="laser").printer == "laser"
    table = SimTable("arinama8", seed=1, size=(160, 90), realism={"pieces": "dome"})
    assert table.realism.pieces == "dome" and table.realism.board == "mat"
    assert SimTable("grid:8x8", seed=1, size=(160, 90), realism=True).realism.board != "mat"


def test_the_sim_camera_source_can_be_realistic():
    from companion.errors import UserError
    from vision.sources import open_source

    with open_source("sim:arimaa?seed=3&realistic=1&size=320x180&moves=1") as source:
        assert source.table.realism is not None
        assert source.read().shape == (180, 320, 3)
    with open_source("sim:arimaa?seed=3&size=320x180&moves=1") as source:
        assert source.table.realism is None
    with pytest.raises(UserError, match="realistic"):
        open_source("sim:arimaa?realistic=maybe")


def test_only_a_game_played_with_figures_gets_them_on_its_mat():
    """Arimaa is played with chess-like figures; Arinama, Aranea and Sensei with stones
    (Sensei's character: a figurine on a stone). A realistic mat whose draw says figures gets
    domes unless its game is played with figures - drawn on Sensei, plain chess figures were
    read as the characters' figurines."""
    drawn: dict[str, set[str]] = {}
    for name in ("arimaa", "arinama8", "aranea", "sensei", "sensei-storm"):
        for seed in range(12):
            table = SimTable(name, seed=seed, size=(160, 90), realism=True)
            drawn.setdefault(name, set()).add(table.realism.pieces)
    assert "chess" in drawn["arimaa"]
    for name in ("arinama8", "aranea", "sensei", "sensei-storm"):
        assert "chess" not in drawn[name] and "dome" in drawn[name], (name, drawn[name])
