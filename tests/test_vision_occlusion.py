"""Which cells a nearer piece may hide (vision.occlusion): exact against a ray through a piece
for a pinhole camera, none from straight above, and on the real photos the chess king's lean
over e8 - which a referee expecting the position then takes as it is."""

from __future__ import annotations

import json

import bench_real
import cv2
import numpy as np
import pytest
from shared_data import real_data

from companion.games.arimaa import ArimaaPosition
from companion.observation import EMPTY
from companion.referee.core import Referee
from vision.find import find_board
from vision.layouts import get_layout
from vision.occlusion import OFF_CENTRE, PIECE_RADIUS, band_above_front, hidden_cells
from vision.pose import CameraPose
from vision.sim import SimTable, chess_start
from vision.standing import Photo, _share_of_class, calibrate_standing, read_standing

REAL = real_data()
CHESSBOARD = get_layout("chessboard")
SIZE = (1280, 960)


def pinhole(camera_at: tuple[float, float, float]) -> np.ndarray:
    """The board -> picture homography of a square-pixel camera at `camera_at` (mat mm, height)
    looking at the board's centre, its principal point at the picture's centre."""
    where = np.asarray(camera_at, float)
    centre = np.array([*(np.array(CHESSBOARD.size) / 2), 0.0])
    forward = (centre - where) / np.linalg.norm(centre - where)
    right = np.cross([0.0, 0.0, 1.0], forward)
    right /= np.linalg.norm(right)
    rotation = np.stack([right, np.cross(right, forward), forward])
    focal = 0.7 * np.hypot(*SIZE)
    K = np.array([[focal, 0, SIZE[0] / 2], [0, focal, SIZE[1] / 2], [0, 0, 1]])
    return (K @ np.column_stack([rotation, -rotation @ where]))[:, [0, 1, 3]]


def ray_through_pieces(camera_at, height: float) -> dict[str, str]:
    """Cell -> the nearest-to-it cell whose piece the camera's ray to the cell's centre passes
    through (a cylinder PIECE_RADIUS + OFF_CENTRE round its cell's centre - anywhere the piece
    may stand - and `height` cell widths tall): marched, not solved."""
    camera = np.asarray(camera_at, float)
    found = {}
    for cell in CHESSBOARD.cells:
        start = np.array([*cell.center, 0.0])
        ray = start[None] + np.linspace(0, 1, 4000)[:, None] * (camera - start)[None]
        for other in sorted(
            CHESSBOARD.cells, key=lambda o: np.hypot(*(np.array(o.center) - cell.center))
        ):
            if other is cell:
                continue
            width = 2 * other.radius
            reach = (PIECE_RADIUS + OFF_CENTRE) * width
            inside = np.hypot(*(ray[:, :2] - other.center).T) < reach
            if (inside & (ray[:, 2] < height * width)).any():
                found[cell.name] = other.name
                break
    return found


@pytest.mark.parametrize("camera_at", [(120, 600, 300), (400, 500, 350), (-150, 300, 260)])
def test_hidden_cells_are_those_a_ray_through_the_piece_in_front_meets(camera_at):
    every = CHESSBOARD.cell_names()
    hidden = hidden_cells(pinhole(camera_at), SIZE, CHESSBOARD, every)
    assert hidden == ray_through_pieces(camera_at, CHESSBOARD.piece_height)
    assert 0 < len(hidden) < 64


def test_from_the_first_player_s_side_a_king_on_e7_hides_e8_and_nothing_from_above():
    low = pinhole((120, 600, 300))  # beyond rank 1, 30 cm up: the real photos' kind of view
    assert hidden_cells(low, SIZE, CHESSBOARD, ["e7"]) == {"e8": "e7"}
    assert hidden_cells(low, SIZE, CHESSBOARD, ["e8"]) == {}  # nothing stands behind e8
    above = pinhole((121, 122, 700))  # a Pi camera over the board's centre
    assert hidden_cells(above, SIZE, CHESSBOARD, CHESSBOARD.cell_names()) == {}
    # Stones are flat: a Go stone hides the point behind it only from a camera very low over
    # the board (27 degrees here), not from one at 43 degrees, where the king still does.
    grid = get_layout("grid:8x8")
    assert grid.piece_height < 0.5
    assert hidden_cells(low, SIZE, grid, ["e7"]) == {"e8": "e7"}
    higher = pinhole((120, 450, 400))
    assert hidden_cells(higher, SIZE, grid, ["e7"]) == {}
    assert hidden_cells(higher, SIZE, CHESSBOARD, ["e7"]) == {"e8": "e7"}


ARIMAA_OF_CHESS = {"k": "e", "q": "m", "r": "h", "b": "d", "n": "c", "p": "r"}


def arimaa_of(fen: str) -> dict[str, str]:
    """The chess position of a FEN as Arimaa pieces of a chess set (king = elephant ...)."""
    pieces = {}
    for row, rank in enumerate(fen.split()[0].split("/")):
        file = 0
        for char in rank:
            if char.isdigit():
                file += int(char)
                continue
            letter = ARIMAA_OF_CHESS[char.lower()]
            pieces[f"{'abcdefgh'[file]}{8 - row}"] = letter.upper() if char.isupper() else letter
            file += 1
    return pieces


def test_a_real_king_leaning_over_e8_is_marked_and_the_referee_takes_the_board_as_it_is():
    """chesscog's black king on e7 covers the empty e8 in the picture, which looks black: no
    reading of e8's pixels tells that from a pawn there (docs/vision.md). Nothing black shows
    where a figure on e8 would rise above the king, so e8 reads empty, what it read first kept
    (`leaned`). The reader also marks e8 as possibly hidden by e7: a referee that expects this
    position (Arimaa on the chess set) takes the board as first read too, where without the
    mark it asks to take a piece off e8."""
    entries = json.loads((REAL / "manifest.json").read_text())
    photos = [e for e in entries if "chesscog" in e["file"]]
    calib, emptiest = bench_real.calibration_photo(photos), bench_real.emptiest_photo(photos)
    layout, homography = bench_real.layout_and_homography(calib)
    second = Photo(
        cv2.imread(str(REAL / emptiest["file"])),
        bench_real.layout_and_homography(emptiest)[1],
        emptiest["cells"],
    )
    calibration = calibrate_standing(
        cv2.imread(str(REAL / calib["file"])), homography, layout, calib["cells"], (second,)
    )
    leaning = [e for e in photos if e["file"].endswith(("IMG_4789.jpg", "IMG_4790.jpg"))]
    assert len(leaning) == 2
    for entry in leaning:
        _, homography = bench_real.layout_and_homography(entry)
        seen = read_standing(cv2.imread(str(REAL / entry["file"])), homography, layout, calibration)
        truth = bench_real.truth_of(entry, layout)
        assert [c for c in truth if seen.cells[c] != truth[c]] == [], entry["file"]
        assert seen.cells["e8"] == EMPTY and seen.hidden["e8"] == "e7"
        assert seen.leaned == {"e8": "black"}
        colours = {"white": "gold", "black": "silver"}
        first_read = {**seen.cells, **seen.leaned}
        seen = type(seen)(
            cells={c: colours.get(k, k) for c, k in first_read.items()}, hidden=seen.hidden
        )
        position = ArimaaPosition.from_board(arimaa_of(entry["fen"]), side="gold")
        referee = Referee(position.copy())
        referee.observe(seen)
        assert referee.instruction.kind == "move", referee.instruction.text
        assert referee.board == position.cells()
        unmarked = Referee(position.copy())
        unmarked.observe(type(seen)(cells=seen.cells))
        assert unmarked.instruction.text == "Take the silver piece off e8"


def test_vision_read_lists_the_cells_a_nearer_piece_may_hide(tmp_path, capsys):
    """`companion vision read` on a real chesscog photo: under the board, the cells a nearer
    piece may hide (e8 behind the king on e7); `--json` gives them as "hidden"."""
    from companion.cli import main

    entries = json.loads((REAL / "manifest.json").read_text())
    photos = [e for e in entries if "chesscog" in e["file"]]
    calib = bench_real.calibration_photo(photos)
    later = next(e for e in photos if e["file"].endswith("IMG_4790.jpg"))
    (tmp_path / "pos.json").write_text(json.dumps({"cells": calib["cells"]}))

    def corners(entry):
        return " ".join(f"{x:.1f},{y:.1f}" for x, y in entry["corners"])

    cal = str(tmp_path / "cal.json")
    assert (
        main(
            [
                "vision",
                "calibrate",
                str(REAL / calib["file"]),
                "--layout",
                "chessboard",
                "--corners",
                corners(calib),
                "--position",
                str(tmp_path / "pos.json"),
                "-o",
                cal,
            ]
        )  # fmt: skip
        == 0
    )
    capsys.readouterr()
    read = ["vision", "read", str(REAL / later["file"]), "--calibration", cal]
    read += ["--corners", corners(later)]
    assert main(read) == 0
    out = capsys.readouterr().out
    assert "cells a nearer piece may hide from this camera" in out and "e8 behind e7" in out
    # d2 and e7 were never seen empty and look otherwise than at calibration: they may be
    # empty (this photo is of another game, with other pieces of the same colours there; in
    # a game the referee's boards keep the camera's looks up to date). e8, under the king's
    # lean, reads empty: nothing black rises above the king (what it read first is kept, as
    # "leaned"). The logo on h1, under the rook at calibration, reads empty: calibration
    # learned flat prints (`vision.copies.flat_prints`).
    assert "no calibration photo showed empty" in out and "may be empty: d2, e7 -" in out
    assert "1 cell under a nearer piece's lean read empty: e8 (looked black)" in out
    assert main([*read, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hidden"]["e8"] == "e7" and data["unlearned"] == ["d2", "e7"]
    assert data["cells"]["e8"] == "empty" and data["leaned"] == {"e8": "black"}
    assert data["cells"]["h1"] == "empty"


@pytest.fixture(scope="module")
def dark_wood_from_35_degrees():
    """A dark-wood chessboard seen from 35 degrees off vertical, calibrated on the start."""
    table = SimTable(
        "chessboard",
        seed=1,
        size=(960, 540),
        tilt=35,
        light=(0.9, 1.0),
        realism={"board": "dark-wood", "pieces": "chess"},
    )
    cells, figures = chess_start("chessboard")
    start = table.render(cells, figures=figures)
    homography = find_board(start, "chessboard").homography
    return table, homography, calibrate_standing(start, homography, table.layout, cells)


def test_an_empty_cell_behind_a_black_king_reads_empty_when_nothing_rises_above_the_king(
    dark_wood_from_35_degrees,
):
    """The black king on e5 leans over the empty e6, whose centre its crown covers: e6 looks
    black. Nothing black shows where a figure standing on e6 would rise above the king, so e6
    reads empty - and what it read first is kept for the referee (`leaned`). A black piece
    standing on e6, of any height, rises there and keeps its reading. (A white one, a colour
    the rule does not look for, reads empty too, where it read black before: docs/vision.md.)"""
    table, homography, calibration = dark_wood_from_35_degrees
    cells = {"e5": "black", "a1": "white", "h8": "black", "a8": "white"}
    figures = {"e5": "king", "a1": "rook", "h8": "rook", "a8": "pawn"}
    seen = read_standing(
        table.render(cells, figures=figures), homography, table.layout, calibration
    )
    assert seen.hidden["e6"] == "e5"
    assert seen.cells["e6"] == EMPTY and seen.leaned == {"e6": "black"}
    for figure in ("pawn", "bishop", "king"):
        behind = read_standing(
            table.render({**cells, "e6": "black"}, figures={**figures, "e6": figure}),
            homography,
            table.layout,
            calibration,
        )
        assert behind.cells["e6"] == "black" and behind.leaned == {}, figure


def test_nothing_is_looked_for_above_a_piece_from_straight_above():
    """Seen from above e8, the king on e7 leans away from e8: nothing can rise above it there
    (no band, None). Seen from the first player's side, the band up e8's axis shows partly
    above the king."""
    above = CameraPose.from_homography(pinhole((135.0, 10.0, 1500.0)), SIZE)
    assert band_above_front(above, CHESSBOARD, "e8", "e7") is None
    oblique = CameraPose.from_homography(pinhole((135.0, 700.0, 900.0)), SIZE)
    points, shows = band_above_front(oblique, CHESSBOARD, "e8", "e7")
    assert points.shape[-1] == 3 and shows.any() and not shows.all()


def test_a_band_the_picture_does_not_show_whole_tells_nothing(dark_wood_from_35_degrees):
    """Where the board reaches past the frame, the band above the piece in front may lie
    partly outside the picture: it is not judged (None), where inside it is."""
    table, homography, calibration = dark_wood_from_35_degrees
    cells = {"e5": "black", "a1": "white", "h8": "black", "a8": "white"}
    figures = {"e5": "king", "a1": "rook", "h8": "rook", "a8": "pawn"}
    image = table.render(cells, figures=figures)
    pose = CameraPose.from_homography(homography, (image.shape[1], image.shape[0]))
    band = band_above_front(pose, table.layout, "e6", "e5")
    kinds = calibration.kinds(table.layout)
    e6 = table.layout.cell_names().index("e6")
    of_black = np.array([c == "black" and k == kinds[e6] for c, k in calibration.groups])
    expected = np.log1p(np.full(3, 120.0))
    args = (calibration, expected, int(kinds[e6]), of_black)
    assert _share_of_class(image, pose, band, *args) is not None
    top = int(pose.project(band[0][band[1]])[:, 1].max())  # the band's lowest row in the picture
    cut = image[: top - 2]  # the picture ends inside the band
    assert _share_of_class(cut, pose, band, *args) is None
