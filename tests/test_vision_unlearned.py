"""The camera learns, during the game, the empty look of cells no calibration photo showed
empty (vision.relearn.learn_from_board). On the real chesscog board the US Chess logo printed on h1
lies under a rook in the start position: calibrated on that photo alone, h1 read as a white
piece whenever the rook had gone, until calibration learned flat prints (it reads empty now).
A print it did not learn may still read as a piece: the reader marks such a cell
(`Observation.unlearned`: never seen empty, and no longer looking as it did at calibration),
the referee takes it as empty when that alone makes the board a legal move, and the board it
took teaches the camera the cell. The same on the synthetic table, with the logo printed on h1
of a chessboard, end to end through the tracker, `companion referee`'s session and the app."""

from __future__ import annotations

import json

import bench_real
import cv2
import pytest
from arimaa_chess_table import ChessTable
from shared_data import real_data

from companion.errors import UserError
from companion.observation import EMPTY
from companion.referee.protocol import PlayerInput
from vision.calibration import load_calibration
from vision.layouts import get_layout
from vision.locate import from_corners
from vision.relearn import learn_from_board, with_refit
from vision.sim import SimTable, chess_start
from vision.standing import LEAN_LOOKS, calibrate_standing, read_standing

REAL = real_data()


@pytest.fixture(scope="module")
def chesscog():
    """The chesscog photos by name, their layout and the set calibrated on its start position
    alone (IMG_4755: a rook on h1, over the logo)."""
    entries = json.loads((REAL / "manifest.json").read_text())
    photos = {e["file"].split("/")[-1]: e for e in entries if bench_real.board_set(e) == "chesscog"}
    start = photos["IMG_4755.jpg"]
    layout, homography = bench_real.layout_and_homography(start)
    calibration = calibrate_standing(
        cv2.imread(str(REAL / start["file"])), homography, layout, start["cells"]
    )
    return photos, layout, calibration


def read(chesscog, name, calibration=None):
    photos, layout, start_calibration = chesscog
    entry = photos[name]
    _, homography = bench_real.layout_and_homography(entry)
    image = cv2.imread(str(REAL / entry["file"]))
    observation = read_standing(image, homography, layout, calibration or start_calibration)
    return observation, image, homography, entry["cells"]


def test_cells_under_the_start_position_are_unlearned_and_the_logo_reads_empty(chesscog):
    _, _, calibration = chesscog
    # a2 and a7 are empty in IMG_4755: the other 30 cells of ranks 1, 2, 7 and 8 are unlearned
    assert len(calibration.unlearned) == 30 and "h1" in calibration.unlearned
    assert "a2" not in calibration.unlearned and "d4" not in calibration.unlearned
    logo, *_ = read(chesscog, "IMG_4745.jpg")  # the rook gone, four pieces in the middle
    # the logo reads empty: calibration's copies learned flat prints on the light squares
    # (`vision.copies.flat_prints`); read as a piece, it would be marked (`unlearned`)
    assert logo.cells["h1"] == EMPTY and logo.unlearned == ()
    rook, *_ = read(chesscog, "IMG_4806.jpg")  # the rook on h1, as at calibration
    assert rook.cells["h1"] == "white" and "h1" not in rook.unlearned


def test_a_board_taken_with_h1_empty_teaches_h1_and_nothing_hidden(chesscog):
    _, layout, calibration = chesscog
    _, image, homography, cells = read(chesscog, "IMG_4745.jpg")
    learned = learn_from_board(calibration, image, homography, layout, cells)
    assert "h1" not in learned.unlearned and "h1" in learned.own_look
    for name, cls in (("IMG_4746.jpg", EMPTY), ("IMG_4806.jpg", "white")):
        observation, *_ = read(chesscog, name, learned)
        assert observation.cells["h1"] == cls, name
        assert "h1" not in observation.unlearned
    # IMG_4745 showed every unlearned cell empty: all are learned from it.
    assert learned.unlearned == ()
    # e8 is empty in IMG_4789 but behind the king on e7, which leans over it: not learned.
    _, image, homography, cells = read(chesscog, "IMG_4789.jpg")
    later = learn_from_board(calibration, image, homography, layout, cells)
    assert "e8" in later.unlearned and "e8" not in later.own_look
    assert "h8" not in later.unlearned and "h1" not in later.unlearned  # empty, in view
    assert "c8" in later.unlearned  # the bishop still stands there
    again = learn_from_board(later, image, homography, layout, cells)
    assert again.unlearned == later.unlearned and again.own_look == later.own_look  # kept


def test_the_unlearned_cells_are_kept_in_the_calibration_file(chesscog, tmp_path):
    _, _, calibration = chesscog
    path = tmp_path / "chesscog.cal.json"
    calibration.save(path)
    again = load_calibration(path)
    assert again.unlearned == calibration.unlearned
    assert again.piece_look.keys() == calibration.piece_look.keys()
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "unlearned": "h1"}))  # not a list of cells
    with pytest.raises(UserError, match="damaged"):
        load_calibration(path)
    del data["unlearned"], data["piece_look"]  # a file from before: every cell learned
    path.write_text(json.dumps(data))
    assert load_calibration(path).unlearned == ()


def test_the_kings_lean_over_e8_is_learned_and_read_empty_from_then_on(chesscog):
    """IMG_4784-4794: the black king stands on e7 and leans over the empty e8, which looks
    black (white on two of them). Nothing black rises above the king there, so e8 reads empty
    from the first board, first read black (`standing._read_above_front`); the lean is
    learned all the same. Once boards the referee took have shown it so, e8 reads empty while
    it looks like that lean - and the king standing on e8, behind the pawn on e7, still reads
    black."""
    _, layout, calibration = chesscog
    first, image, homography, cells = read(chesscog, "IMG_4785.jpg")
    assert first.cells["e8"] == EMPTY and first.leaned == {"e8": "black"}
    assert first.hidden["e8"] == "e7" and "e8" not in cells
    learned = learn_from_board(calibration, image, homography, layout, cells, refit=False)
    assert [k for k, _ in learned.lean_looks["e8"]] == ["black"]
    for name in ("IMG_4786.jpg", "IMG_4787.jpg", "IMG_4788.jpg", "IMG_4789.jpg"):  # the game on
        _, image, homography, cells = read(chesscog, name, learned)
        learned = learn_from_board(learned, image, homography, layout, cells, refit=False)
    # IMG_4787's e8 reads white: only a lean read as the leaning piece's class is learned
    assert [k for k, _ in learned.lean_looks["e8"]] == ["black"] * LEAN_LOOKS
    for name in ("IMG_4790.jpg", "IMG_4792.jpg", "IMG_4794.jpg"):
        before, *_, truth = read(chesscog, name)
        after, *_ = read(chesscog, name, learned)
        assert "e8" not in truth and cells["e7"] == truth["e7"] == "black", name
        assert before.cells["e8"] == after.cells["e8"] == EMPTY, name
        assert before.leaned == {"e8": "black"}, name
        assert after.confidence["e8"] > 0.99
        # (h1, the logo the rook left, was learned from those boards too): read wholly right -
        # but IMG_4794's h1, which reads white there since each class is read from its look in
        # the picture (a known loss, docs/vision.md calibration 4.)
        wrong = {c for c in after.cells if after.cells[c] != truth.get(c, EMPTY)}
        assert wrong <= ({"h1"} if name == "IMG_4794.jpg" else set()), name
    # IMG_4791's e8 lies at the edge (a lean nearer than the black mean by a factor of 7.7 to
    # 8.1, LEAN_CONTRAST being 8, with the Pi's numpy and OpenCV or this machine's): read empty
    # or black, it stays marked as hidden behind e7, where the referee takes it as it was
    after, *_ = read(chesscog, "IMG_4791.jpg", learned)
    assert after.cells["e8"] in (EMPTY, "black") and after.hidden["e8"] == "e7"
    start, *_, truth = read(chesscog, "IMG_4755.jpg", learned)
    assert truth["e8"] == "black" and start.hidden["e8"] == "e7"
    assert start.cells["e8"] == "black"
    seen, *_ = read(chesscog, "IMG_4787.jpg")
    assert seen.cells["e8"] == "white"  # (not learned above)


def test_lean_looks_are_saved_kept_through_a_fit_and_a_damaged_one_is_named(chesscog, tmp_path):
    _, layout, calibration = chesscog
    _, image, homography, cells = read(chesscog, "IMG_4785.jpg")
    learned = learn_from_board(calibration, image, homography, layout, cells, refit=False)
    path = tmp_path / "chesscog.cal.json"
    learned.save(path)
    assert load_calibration(path).lean_looks == learned.lean_looks
    # a fit of the whole model keeps what the game taught (the app fits in the background)
    assert with_refit(learned, calibration, 12).lean_looks == learned.lean_looks
    data = json.loads(path.read_text())
    look = data["lean_looks"]["e8"][0][1]
    for damaged in (
        {"e8": [["purple", look]]},  # a class the calibration does not know
        {"e8": [["black", [1]]]},  # a look of the wrong length
        {"e8": [["black", [float("inf")] * len(look)]]},
        {"e8": "black"},
    ):
        path.write_text(json.dumps({**data, "lean_looks": damaged}))
        with pytest.raises(UserError, match="bad or missing lean_looks"):
            load_calibration(path)
    del data["lean_looks"]  # a file from before: nothing learned about leans
    path.write_text(json.dumps(data))
    assert load_calibration(path).lean_looks == {}


@pytest.mark.parametrize("style", ["dark-wood", "green-cream"])
def test_a_piece_stepping_behind_a_learned_lean_still_reads_as_it_did(style):
    """The review's case of an earlier form of this learning: a piece that steps behind its
    leaning king read empty. From 30 degrees the white king on e5 leans over f5 (read white);
    once learned, f5 reads empty under that lean, and every piece that steps there reads as
    before. (On dark-wood nothing white rises above the king: f5 reads empty from the start,
    `standing._read_above_front`. A black king's lean there reads empty from the start on
    most tables since the darkest and brightest tenth joined the features: the board shows
    past it.)"""
    layout = get_layout("chessboard")
    table = SimTable(layout, seed=5, tilt=30, realism={"board": style, "pieces": "chess"})
    homography = from_corners(layout, table.board_corners_px(), table.size).homography
    start, figures = chess_start(layout)
    calibration = calibrate_standing(
        table.render(start, figures=figures), homography, layout, start
    )
    colour = "white"
    cells, figures = {"e5": colour, "a1": "white", "h8": "black"}, {"e5": "king"}
    figures.update(a1="rook", h8="rook")
    image = table.render(cells, figures=figures)
    first = read_standing(image, homography, layout, calibration)
    # read white, or (dark-wood: white is brighter than its every square) empty above the king
    assert {**first.cells, **first.leaned}["f5"] == colour
    learned = learn_from_board(calibration, image, homography, layout, cells)
    assert read_standing(image, homography, layout, learned).cells["f5"] == EMPTY
    for piece in ("black", "white"):
        for figure in ("pawn", "knight", "queen"):
            frame = table.render({**cells, "f5": piece}, figures={**figures, "f5": figure})
            before = read_standing(frame, homography, layout, calibration).cells["f5"]
            after = read_standing(frame, homography, layout, learned).cells["f5"]
            assert after == before, (piece, figure)
            if piece == colour:
                assert after == colour, figure


def logo_table(tilt=12.0) -> ChessTable:
    """A green-and-cream chessboard with the US Chess logo printed on h1, a chess set's start
    position on it (the rook over the logo), the Arimaa referee on it through the camera."""
    return ChessTable(tilt, logo="h1")


@pytest.mark.parametrize("tilt", [12.0, 30.0])
def test_the_logo_under_a_rook_is_learned_as_the_game_goes_end_to_end(tilt):
    # The logo reads empty from the start photo alone (calibration's flat prints); before it
    # did, it read as a piece marked `unlearned`, and from 30 degrees the rook leaning over h2
    # made "nothing moved, h2 misread" explain the board too (a review found it refused as a
    # tie on every table seed tried). Either way the step is recorded and h1 learned.
    table = logo_table(tilt)
    table.hold()
    for _ in range(2):  # the chess start position is both sides' setup
        table.session.handle(PlayerInput("choose", "chess"))
        table.hold()
    assert table.referee.instruction.text.startswith("Gold: move")
    table.step("h2", "h3")
    before = set(table.tracker.calibration.unlearned)
    table.step("h1", "h2")  # the rook (a horse) leaves the logo
    assert table.steps() == ["Rh2n", "Hh1n"]  # the horse's step, not a board to fix
    assert table.referee.instruction.text.startswith("Gold: press DONE")
    assert table.referee.position.cells().get("h2") == "gold"
    assert "h1" not in table.referee.board
    # The camera has learned h1 from that board: it reads the logo as an empty square now.
    assert "h1" in before and "h1" not in table.tracker.calibration.unlearned
    table.session.handle(PlayerInput("done"))
    table.step("h7", "h6")
    assert table.tracker.last_observation.cells["h1"] == EMPTY
    assert "h1" not in table.tracker.last_observation.unlearned


def test_a_board_taken_refreshes_how_a_never_empty_cell_looks_with_its_new_piece(chesscog):
    # IMG_4790 is of another game than the calibration: a king stands where a pawn stood.
    _, layout, calibration = chesscog
    before, image, homography, cells = read(chesscog, "IMG_4790.jpg")
    assert {"d2", "e7"} <= set(before.unlearned)  # white king on d2, black king on e7
    learned = learn_from_board(calibration, image, homography, layout, cells)
    assert (
        learned.piece_class["d2"] == "white"
        and learned.piece_look["d2"] != (calibration.piece_look["d2"])
    )
    again, *_ = read(chesscog, "IMG_4790.jpg", learned)
    assert "d2" not in again.unlearned and "e7" not in again.unlearned
    assert again.cells["d2"] == "white" and again.cells["e7"] == "black"


def test_the_tracker_learns_only_from_the_frame_it_read_last():
    table = logo_table()
    tracker, frame = table.tracker, table.table.render(table.cells, figures=table.figures)
    observation = None
    for i in range(30):
        observation = tracker.feed(frame, i / 30) or observation
    assert observation is not None
    board = {c: k for c, k in table.cells.items() if c not in ("h1", "h2")}  # not what it saw
    calibration = tracker.calibration
    assert not tracker.learn_from_board(observation.frame - 1, board)
    assert tracker.calibration is calibration  # another frame: nothing learned
    assert not tracker.learn_from_board(observation.frame, table.cells)  # all occupied: no
    assert tracker.calibration.unlearned == calibration.unlearned  # empty look learned


def test_the_sim_source_prints_a_logo_on_a_board_of_your_own_and_refuses_a_bad_one():
    from vision.sources import open_source

    spec = "sim:chessboard?board=green-cream&pieces=chess&light=0.9-1.0&seed=2&size=640x360"
    with open_source(spec) as plain, open_source(spec + "&logo=h1") as logo:
        empty_h1 = {c: k for c, k in chess_start("chessboard")[0].items() if c != "h1"}
        a, b = plain.table.render(empty_h1), logo.table.render(empty_h1)
    x, y = (int(round(v)) for v in plain.table.cell_pixel("h1"))
    assert (
        abs(a[y - 6 : y + 6, x - 6 : x + 6].astype(int) - b[y - 6 : y + 6, x - 6 : x + 6]).max()
        > 60
    )
    assert (a[: y - 40] == b[: y - 40]).all()  # nothing else changes
    for bad in ("&logo=z9", "&logo=", "&logo=h1&board=mat"):
        with pytest.raises(UserError, match="sim option"):
            open_source(spec + bad)
    with pytest.raises(UserError, match="logo"):
        open_source("sim:arimaa?logo=h1")
