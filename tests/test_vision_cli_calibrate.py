"""`companion vision calibrate` and `read` with a careless player's inputs, on real photos
(../shared/data/real): found by a new player's trial of the command line. A calibration from
a found grid says where it took a1 (a checkered board and a chess start position look the
same turned round, colours swapped), the way round the position fits; a refused one draws
what it refused (`--view`); a
position that spells a class two ways or names fewer than two is refused before anything is
learned; `read` uses the corners saved with the calibration, as `track` and `referee` do."""

from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest
from shared_data import real_data

from companion.cli import main
from companion.errors import UserError
from companion.observation import DOUBTFUL

REAL = real_data()
CRV = REAL / "chess/samryan18_chess-ray-vision"


def manifest_entry(name):
    entries = json.loads((REAL / "manifest.json").read_text())
    return next(e for e in entries if e["file"].endswith(name))


def corners_of(entry):
    """The labelled corners of the playing area as the first player (White) sees it."""
    a8, h8, h1, a1 = entry["corners"]
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in (a8, h8, h1, a1))


@pytest.fixture(scope="module")
def crv_01():
    """crv_01 (a chess start position, photographed from Black's side): its cells and the
    corners of its playing area."""
    entry = manifest_entry("crv_01.jpg")
    return entry["cells"], corners_of(entry)


def companion(capsys, *args):
    code = main(["vision", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def position_file(tmp_path, cells, name="pos.json"):
    path = tmp_path / name
    path.write_text(json.dumps({"cells": cells}))
    return path


def calibrate_on_corners(capsys, tmp_path, cells, corners, output=None):
    """`vision calibrate` on crv_01 and its labelled corners, with `cells` as the position."""
    return companion(
        capsys, "calibrate", CRV / "crv_01.jpg", "--layout", "chessboard", "--corners", corners,
        "--position", position_file(tmp_path, cells), "-o", output or tmp_path / "c.json",
    )  # fmt: skip


def calibrate_on_its_grid(capsys, tmp_path, entry):
    """`vision calibrate` on a real photo and its labelled position, the board found."""
    return companion(
        capsys, "calibrate", REAL / entry["file"], "--layout", "chessboard",
        "--position", position_file(tmp_path, entry["cells"]), "-o", tmp_path / "c.json",
    )  # fmt: skip


def test_a_refused_calibration_draws_what_it_refused_and_says_it_fits_neither_way_round(
    tmp_path, capsys, crv_01
):
    cells, _ = crv_01
    view = tmp_path / "refused.png"
    wrong = dict(cells, e4="white")  # a pawn the photo does not show, whichever way round
    code, _, err = companion(
        capsys, "calibrate", CRV / "crv_01.jpg", "--layout", "chessboard",
        "--position", position_file(tmp_path, wrong), "-o", tmp_path / "c.json", "--view", view,
    )  # fmt: skip
    assert code == 2 and err.count("\n") == 1 and "does not match the position" in err
    assert f"see {view}" in err
    assert "neither with a1 at the bottom-left nor at the top-right corner" in err
    assert view.stat().st_size > 0 and not (tmp_path / "c.json").exists()


def test_a_grid_found_the_other_way_round_is_taken_as_the_position_shows_it(
    tmp_path, capsys, crv_01
):
    """crv_01 is photographed with a1 at the top right: the finder takes the dark corner at
    the bottom left (the board looks the same turned round), where the position does not fit;
    turned, it does - learned so, said, and its corners kept for read, track and referee
    (found again, the grid would be taken the finder's way round). Before, it was refused
    with "if the board is turned, give --corners"."""
    cells, _ = crv_01
    cal = tmp_path / "c.json"
    code, out, err = companion(
        capsys, "calibrate", CRV / "crv_01.jpg", "--layout", "chessboard",
        "--position", position_file(tmp_path, cells), "-o", cal,
    )  # fmt: skip
    assert code == 0, err
    assert "a1 is at the top-right corner of the board in the picture" in err
    assert "not with a1 at the bottom-left corner" in err and "darker ones" not in err
    assert json.loads((tmp_path / "c.corners.json").read_text())["found"] is True
    assert "Saved which way round the board lies" in out
    code, out, err = companion(capsys, "read", CRV / "crv_01.jpg", "--calibration", cal, "--json")
    assert code == 0 and "finding the board by its grid the way round the calibration" in err
    read = json.loads(out)["cells"]
    assert read == {c: cells.get(c, "empty") for c in read}
    # crv_07, taken from elsewhere (the phone moved, the board lies as in crv_01): found by
    # its grid again, that way round - saved corners as typed ones did not fit it at all
    later = manifest_entry("crv_07.jpg")
    code, out, err = companion(capsys, "read", CRV / "crv_07.jpg", "--calibration", cal, "--json")
    assert code == 0 and "does not show where the corners put it" not in err
    read = json.loads(out)["cells"]
    # every cell: e2's white pawn, a third brighter than its square in this light, read empty
    # before each class was read from its look in this picture (docs/vision.md, calibration 4.)
    assert read == {c: later["cells"].get(c, "empty") for c in read}


def test_with_the_corners_it_calibrates_and_read_uses_the_corners_saved(tmp_path, capsys, crv_01):
    cells, corners = crv_01
    cal = tmp_path / "c.json"
    code, out, err = calibrate_on_corners(capsys, tmp_path, cells, corners, cal)
    assert code == 0 and "a1 was taken" not in err  # the corners said where it is
    # (the same photo: every later crv photo is framed otherwise, and read says so - below)
    code, out, err = companion(capsys, "read", CRV / "crv_01.jpg", "--calibration", cal, "--json")
    assert code == 0 and "using the corners saved with the calibration" in err
    assert "does not show where the corners put it" not in err
    read = json.loads(out)["cells"]
    assert read == {c: cells.get(c, "empty") for c in read}


def test_read_with_another_layout_than_the_calibration_s_says_so_first(tmp_path, capsys, crv_01):
    """A chess set's calibration read as the Arimaa mat: the layouts differ (it said "no
    markers of layout arimaa seen" - looking for a mat the calibration was never made on)."""
    cells, corners = crv_01
    cal = tmp_path / "c.json"
    assert calibrate_on_corners(capsys, tmp_path, cells, corners, cal)[0] == 0
    code, _, err = companion(
        capsys, "read", CRV / "crv_01.jpg", "--calibration", cal, "--layout", "arimaa"
    )
    assert code == 2 and "made for layout chessboard, not arimaa" in err and "markers" not in err
    assert "leave out --layout to read the chessboard board" in err  # not only "calibrate again"
    code, out, _ = companion(capsys, "read", CRV / "crv_01.jpg", "--calibration", cal, "--json")
    assert code == 0 and len(json.loads(out)["cells"]) == 64  # read as the advice says


def calibrated_at_typed_corners(tmp_path, capsys):
    """chesscog's start photo calibrated at its labelled corners, typed (saved beside the
    calibration, c.corners.json): (its manifest entry, the calibration's path)."""
    start = manifest_entry("IMG_4755.jpg")
    cal = tmp_path / "c.json"
    code, _, _ = companion(
        capsys, "calibrate", REAL / start["file"], "--layout", "chessboard",
        "--corners", corners_of(start), "--position", position_file(tmp_path, start["cells"]),
        "-o", cal,
    )  # fmt: skip
    assert code == 0
    return start, cal


def test_read_says_when_the_saved_corners_do_not_fit_the_photo(tmp_path, capsys):
    """chesscog's phone moved between photos: IMG_4760's board is not where IMG_4755's
    corners (saved with its calibration) put it - read says so instead of reading the table
    round the board as pieces without a word; this photo's own corners read it."""
    later = manifest_entry("IMG_4760.jpg")
    _start, cal = calibrated_at_typed_corners(tmp_path, capsys)
    code, _, err = companion(capsys, "read", REAL / later["file"], "--calibration", cal)
    assert code == 0 and "does not show where the corners put it" in err
    assert f"give this photo's --corners, or remove {tmp_path / 'c.corners.json'}" in err
    saved = json.loads((tmp_path / "c.corners.json").read_text())
    (tmp_path / "c.corners.json").write_text(json.dumps({**saved, "layout": "grid:8x8"}))
    code, _, err = companion(capsys, "read", REAL / later["file"], "--calibration", cal)
    # an edited layout was ignored without a word (the board then found turned: a trial)
    assert code == 2 and "holds corners for layout 'grid:8x8', not chessboard" in err
    (tmp_path / "c.corners.json").unlink()  # as it says: the board is found in the photo
    code, out, err = companion(capsys, "read", REAL / later["file"], "--calibration", cal)
    assert code == 0 and "does not show where the corners put it" not in err
    code, out, err = companion(
        capsys, "read", REAL / later["file"], "--calibration", cal,
        "--corners", corners_of(later), "--json",
    )  # fmt: skip
    assert code == 0 and "does not show where the corners put it" not in err
    seen = json.loads(out)
    wrong = {c for c, v in seen["cells"].items() if v != later["cells"].get(c, "empty")}
    # read right but for at most a cell the start photo never showed empty (f1, its bishop's
    # square, on this draw of calibration's copies: its empty look is not known yet)
    never_empty = set(json.loads(cal.read_text())["unlearned"])
    assert len(wrong) <= 1 and wrong <= never_empty


def test_a_file_where_the_corners_go_that_is_not_a_corners_file_is_never_replaced(
    tmp_path, capsys, crv_01
):
    """calibrate -o c.json keeps its corners in c.corners.json: a file of the player's there is
    neither replaced (with corners) nor removed (without), --force or not."""
    cells, corners = crv_01
    notes = tmp_path / "c.corners.json"
    notes.write_text("my notes")
    for more in ((), ("--force",)):
        code, _, err = companion(
            capsys, "calibrate", CRV / "crv_01.jpg", "--layout", "chessboard", "--corners",
            corners, "--position", position_file(tmp_path, cells), "-o", tmp_path / "c.json",
            *more,
        )  # fmt: skip
        assert code == 2 and "c.corners.json is in the way" in err and err.count("\n") == 1
        assert notes.read_text() == "my notes" and not (tmp_path / "c.json").exists()
    code, _, err = calibrate_on_its_grid(capsys, tmp_path, manifest_entry("IMG_4755.jpg"))
    assert code == 2 and "is in the way" in err and notes.read_text() == "my notes"


def test_a_found_grid_says_where_it_took_a1(tmp_path, capsys):
    code, out, err = calibrate_on_its_grid(capsys, tmp_path, manifest_entry("IMG_4755.jpg"))
    assert code == 0 and "from its own grid, found in the photo" in out
    assert "a1 was taken at the bottom-left corner of the board in the picture" in err
    assert "learned from one photo" in err and "--empty" in err


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda c: {**c, next(k for k, v in c.items() if v == "black"): "Black"}, "two ways"),
        (
            lambda c: {**c, next(k for k, v in c.items() if v == "black"): "blak"},
            "only: a misspelling of 'black'?",
        ),
        (lambda c: {k: v for k, v in c.items() if v == "white"}, "names only 'white'"),
        (lambda c: {}, "names no pieces"),
    ],
)
def test_a_careless_position_is_refused_before_anything_is_learned(
    tmp_path, capsys, crv_01, change, words
):
    cells, corners = crv_01
    code, _, err = calibrate_on_corners(capsys, tmp_path, change(cells), corners)
    assert code == 2 and words in err and err.count("\n") == 1
    assert not (tmp_path / "c.json").exists()


def test_locate_on_a_board_of_one_s_own_gives_cells_in_pixels_and_where_a1_is(capsys):
    code, out, _ = companion(capsys, "locate", CRV / "crv_01.jpg", "--layout", "chessboard")
    assert code == 0 and "px/mm" not in out and "corner error" not in out  # no size in mm
    assert "cells about 11" in out  # 930 px of board in the picture, 8 cells across
    assert "a1 taken at the bottom-left corner of the board in the picture" in out


def test_a_calibration_written_into_a_folder_that_is_not_there_says_so(tmp_path, capsys, crv_01):
    cells, corners = crv_01
    code, _, err = calibrate_on_corners(
        capsys, tmp_path, cells, corners, tmp_path / "no-such" / "c.json"
    )
    assert code == 2 and "there is no folder" in err and err.count("\n") == 1


def test_a_start_position_found_turned_round_is_learned_the_right_way_round(tmp_path, capsys):
    # crv_13 is photographed from Black's side: the grid found takes a1 at the bottom of the
    # picture, where the black pieces stand, and the start position fits it turned round -
    # white learned as black (refused since, as "calls white look darker than those it calls
    # black ... give --corners"). Now the other way round is tried too, and fits.
    entry = manifest_entry("crv_13.jpg")
    code, out, err = calibrate_on_its_grid(capsys, tmp_path, entry)
    assert code == 0 and "a1 is at the top-right corner of the board in the picture" in err
    assert "if the white pieces are the darker ones, give --corners" in err  # told by colour
    code, out, _ = companion(
        capsys, "read", REAL / entry["file"], "--calibration", tmp_path / "c.json", "--json"
    )
    read = json.loads(out)["cells"]
    assert code == 0 and read == {c: entry["cells"].get(c, "empty") for c in read}
    assert read["e1"] == "white" and read["e8"] == "black"  # not learned with its colours swapped


def test_on_corners_given_a_darker_white_side_is_the_players_to_name(tmp_path, capsys, crv_01):
    # Only a grid the companion found may be turned round; a set whose white side is darker
    # (gold and silver metal, say) calibrates on the corners the players give. Found by a
    # review: the refusal told them to give the corners they had given.
    cells, corners = crv_01
    swapped = {c: "black" if k == "white" else "white" for c, k in cells.items()}
    code, _, err = calibrate_on_corners(capsys, tmp_path, swapped, corners)
    assert code == 0, err


def test_a_calibration_on_a_found_grid_drops_the_corners_of_the_one_it_replaces(
    tmp_path, capsys, crv_01
):
    # Found by a review: `read` (and track, referee) used the old corners file and read 55 of
    # 64 cells wrong.
    cells, corners = crv_01
    cal = tmp_path / "c.json"
    code, out, _ = calibrate_on_corners(capsys, tmp_path, cells, corners, cal)
    assert code == 0 and (tmp_path / "c.corners.json").exists()
    start = manifest_entry("IMG_4755.jpg")
    code, out, _ = companion(
        capsys, "calibrate", REAL / start["file"], "--layout", "chessboard", "--force",
        "--position", position_file(tmp_path, start["cells"]), "-o", cal,
    )  # fmt: skip
    assert code == 0 and "Removed the corners saved" in out
    assert not (tmp_path / "c.corners.json").exists()
    other = manifest_entry("IMG_4756.jpg")
    code, out, err = companion(capsys, "read", REAL / other["file"], "--calibration", cal, "--json")
    assert code == 0 and "using the corners saved" not in err
    read = json.loads(out)["cells"]
    assert sum(read[c] != other["cells"].get(c, "empty") for c in read) <= 2


def test_the_four_corners_of_a_board_are_named_apart_however_it_lies():
    """a1's corner is named among the board's own four corners as the picture shows them: a
    board turned by 45 degrees (a diamond) or off to one side of the picture still gets four
    different names (the picture's quadrants gave two corners the same one)."""
    from companion.commands.vision import _corner_words
    from vision.find import turned
    from vision.layouts import get_layout
    from vision.locate import from_corners

    board = get_layout("chessboard")
    diamond = [(300, 100), (500, 300), (300, 500), (100, 300)]  # TL TR BR BL of White
    aside = [(20, 20), (220, 30), (210, 230), (25, 220)]  # in the top-left of 1000 x 1000
    for corners in (diamond, aside):
        located = from_corners(board, corners, (1000, 1000))
        words = {_corner_words(turned(located, turn)) for turn in range(4)}
        assert len(words) == 4, words
    assert _corner_words(from_corners(board, aside, (1000, 1000))) == "bottom-left"


def test_a_grid_found_turned_round_is_found_again_by_read_track_and_referee(tmp_path):
    """The corners file of a grid found the other way round says so (`found`): `corners_for`
    - which `read`, `track` and `referee` ask - gives no corners to locate by, but the way
    round to find the grid (`near`); typed corners are used as they are; a hand-edited
    `found` that is no true or false is one line."""
    from vision.corners import corners_for, save_corners
    from vision.layouts import get_layout

    board, cal = get_layout("chessboard"), tmp_path / "c.json"
    square = [[10, 10], [90, 10], [90, 90], [10, 90]]
    save_corners(cal, "chessboard", square, found=True)
    corners, said, near = corners_for(None, cal, board)
    assert corners is None and near.tolist() == square and "finding the board by its grid" in said
    save_corners(cal, "chessboard", square)
    corners, said, near = corners_for(None, cal, board)
    assert corners.tolist() == square and near is None and "using the corners saved" in said
    data = json.loads((tmp_path / "c.corners.json").read_text())
    (tmp_path / "c.corners.json").write_text(json.dumps(dict(data, found="yes")))
    with pytest.raises(UserError, match='"found" must be true or false'):
        corners_for(None, cal, board)


def test_read_names_the_cells_it_read_without_certainty(tmp_path, capsys):
    """`vision read` lists the cells whose confidence is below DOUBTFUL (the referee may take
    them as they were): on crv_07, read with crv_01's calibration where the board is found,
    its white pawn at the back edge of e2 is one. The text lists exactly the --json's."""
    code, _, _ = calibrate_on_its_grid(capsys, tmp_path, manifest_entry("crv_01.jpg"))
    assert code == 0
    read = ["read", CRV / "crv_07.jpg", "--calibration", tmp_path / "c.json"]
    code, out, _ = companion(capsys, *read)
    assert code == 0
    code, as_json, _ = companion(capsys, *read, "--json")
    data = json.loads(as_json)
    unsure = [
        c for c, v in data["confidence"].items() if v < DOUBTFUL and data["cells"][c] != "unknown"
    ]
    assert "e2" in unsure
    line = next(x for x in out.splitlines() if "read without certainty" in x)
    assert [c.split()[0] for c in line.split(": ", 1)[1].split(" - ")[0].split(", ")] == unsure


def test_read_says_when_the_board_lies_a_quarter_turn_from_its_calibration(tmp_path, capsys):
    """chess-ray-vision's phone photos: crv_01 has a1 at the picture's top-right, crv_05 at
    its bottom-right - the phone went round the board. Of the two ways round that keep a1
    on a dark corner, neither is nearer the saved corners: the reading came out upside down
    without a word (a new player's trial). It says so now, and what to do; a photo from
    the same side (crv_02) reads without the note."""
    code, _, _ = calibrate_on_its_grid(capsys, tmp_path, manifest_entry("crv_01.jpg"))
    assert code == 0
    code, out, err = companion(
        capsys, "read", CRV / "crv_05.jpg", "--calibration", tmp_path / "c.json"
    )
    assert code == 0 and "a quarter turn from where the calibration saw it" in err
    assert "--corners" in err.split("quarter turn")[1]
    code, out, _ = companion(  # and a script reading --json is told too
        capsys, "read", CRV / "crv_05.jpg", "--calibration", tmp_path / "c.json", "--json"
    )
    assert code == 0 and json.loads(out)["turn_untold"] is True
    code, out, err = companion(
        capsys, "read", CRV / "crv_02.jpg", "--calibration", tmp_path / "c.json"
    )
    assert code == 0 and "quarter turn" not in err
    code, out, _ = companion(
        capsys, "read", CRV / "crv_02.jpg", "--calibration", tmp_path / "c.json", "--json"
    )
    assert json.loads(out)["turn_untold"] is False


def test_a_class_learned_from_one_cell_that_another_class_lies_near_is_pointed_out(
    tmp_path, capsys
):
    """A new player's trial: a white pawn typed as "gold" was learned as a class of one cell
    without a word, the white pieces near it doubtful (margin -0.54)."""
    entry = manifest_entry("IMG_4758.jpg")
    cells = {**entry["cells"], "e4": "gold"}
    assert entry["cells"]["e4"] == "white"
    code, _, err = calibrate_on_its_grid(capsys, tmp_path, {**entry, "cells": cells})
    assert code == 0
    assert "note: gold was learned from 1 cell (e4), and cells of white come close to it (" in err
    assert "check that the position names e4 right - if it does, gold and white may be" in err
    (tmp_path / "right").mkdir()
    code, _, err = calibrate_on_its_grid(capsys, tmp_path / "right", entry)  # as labelled
    assert code == 0 and "was learned from" not in err


def test_an_empty_board_photo_with_pieces_on_it_is_named_as_the_trouble(tmp_path, capsys):
    """A trial: `--empty` given a later photo of the game (pieces on it) - refused with "the
    picture does not match the position ... check the pieces, the position file", which
    blamed the start photo. Without it the start photo calibrates: that is said. And an
    --empty photo with no board found in it is named as the one."""
    import cv2
    import numpy as np

    start, later = manifest_entry("IMG_4755.jpg"), manifest_entry("IMG_4804.jpg")
    view = tmp_path / "v.png"
    args = [
        "calibrate", REAL / start["file"], "--layout", "chessboard", "--corners",
        corners_of(start), "--position", position_file(tmp_path, start["cells"]),
        "-o", tmp_path / "c.json", "--empty", REAL / later["file"],
        "--empty-corners", corners_of(later), "--view", view,
    ]  # fmt: skip
    code, _, err = companion(capsys, *args)
    assert code == 2 and f"the --empty photo {REAL / later['file']} shows pieces on " in err
    assert "or leave out --empty" in err and not (tmp_path / "c.json").exists()
    # ... naming the pieces on it (a black king on c6, a white one on c4) - the cells the start
    # photo shows empty: the logo on h1, never seen empty there, is not judged - and --view
    # draws that photo with them ringed (a trial found the start photo's c6 ringed, where
    # nothing stands)
    named = err.split("shows pieces on ")[1].split(" (see")[0]
    assert set(named.split(", ")) == set(later["cells"]) == {"c4", "c6"}
    assert f"see {view}: the --empty photo" in err
    drawn = cv2.imread(str(view)).astype(int)
    photos = [cv2.imread(str(REAL / e["file"])).astype(int) for e in (later, start)]
    below = drawn[-photos[0].shape[0] :]  # under the title line
    assert np.abs(below - photos[0]).mean() < np.abs(below - photos[1]).mean() / 2
    go = next(e for e in json.loads((REAL / "manifest.json").read_text()) if "go" in e["file"])
    code, _, err = companion(  # no corners: each photo's board found by its grid
        capsys, "calibrate", REAL / start["file"], "--layout", "chessboard", "--position",
        position_file(tmp_path, start["cells"]), "-o", tmp_path / "d.json",
        "--empty", REAL / go["file"],
    )  # fmt: skip
    assert code == 2 and f"the --empty photo {REAL / go['file']}: no checkered" in err


def test_a_black_picture_at_given_corners_is_said_not_read_as_an_empty_board(tmp_path, capsys):
    """A trial read a black frame (the lens cap on) at typed corners: an empty board, exit 0,
    the only word blaming a photo taken from elsewhere. Now `read` and `calibrate` say the
    board's part of the picture is all but black, and which picture; a photo darkened to
    5 % is still read."""
    import cv2

    start = manifest_entry("IMG_4755.jpg")
    photo = cv2.imread(str(REAL / start["file"]))
    black, dim = tmp_path / "black.png", tmp_path / "dim.png"
    cv2.imwrite(str(black), photo * 0)
    cv2.imwrite(str(dim), (photo * 0.05).astype("uint8"))
    cal = tmp_path / "c.json"
    args = ["--layout", "chessboard", "--corners", corners_of(start)]
    position = position_file(tmp_path, start["cells"])
    code, _, err = companion(capsys, "calibrate", black, *args, "--position", position, "-o", cal)
    assert code == 2 and f"{black}: the board's part of the picture is all but black" in err
    assert "lens covered, or the light off" in err and not cal.exists()
    code, _, err = companion(
        capsys, "calibrate", REAL / start["file"], *args, "--position", position, "-o", cal,
        "--empty", black,
    )  # fmt: skip
    assert code == 2 and f"the --empty photo {black}: the board's part" in err
    code, _, _ = companion(
        capsys, "calibrate", REAL / start["file"], *args, "--position", position, "-o", cal
    )
    assert code == 0
    code, out, err = companion(capsys, "read", black, "--calibration", cal)
    assert code == 2 and "all but black" in err and out == ""
    code, out, _ = companion(capsys, "read", dim, "--calibration", cal, "--json")
    read = json.loads(out)["cells"]
    right = sum(read[c] == start["cells"].get(c, "empty") for c in read)
    assert code == 0 and len(read) == 64 and right >= 62, right


def _fen(cells):
    """`cells` (white/black) as the board field of a chess FEN, pawns standing for every
    piece (the classes are colours)."""
    ranks = []
    for rank in range(8, 0, -1):
        text, gap = "", 0
        for file in "abcdefgh":
            piece = cells.get(f"{file}{rank}")
            if piece is None:
                gap += 1
                continue
            text += (str(gap) if gap else "") + ("P" if piece == "white" else "p")
            gap = 0
        ranks.append(text + (str(gap) if gap else ""))
    return "/".join(ranks)


def test_a_chess_set_s_position_may_be_given_in_fen(tmp_path, capsys):
    """A trial: a chess player had to write 30-odd cells of JSON for `--position`, where a
    FEN says it in one line. On an 8x8 board a FEN is taken (White's pieces white, Black's
    black) and learns what the JSON file does; on another board it is said to be for 8x8."""
    start = manifest_entry("IMG_4755.jpg")
    common = ["--layout", "chessboard", "--corners", corners_of(start)]
    (tmp_path / "file").mkdir()
    (tmp_path / "fen").mkdir()
    by_file, by_fen = tmp_path / "file" / "c.json", tmp_path / "fen" / "c.json"
    position = position_file(tmp_path, start["cells"])
    code, out_file, _ = companion(
        capsys, "calibrate", REAL / start["file"], *common, "--position", position, "-o", by_file
    )
    assert code == 0
    fen = _fen(start["cells"]) + " w - - 0 1"
    code, out_fen, _ = companion(
        capsys, "calibrate", REAL / start["file"], *common, "--position", fen, "-o", by_fen
    )
    assert code == 0 and out_fen.replace("/fen/", "/") == out_file.replace("/file/", "/")
    go = next(e for e in json.loads((REAL / "manifest.json").read_text()) if "go" in e["file"])
    code, _, err = companion(
        capsys, "calibrate", REAL / go["file"], "--layout", "grid:19x19", "--corners",
        "184,215 860,227 984,997 42,978", "--position", fen, "-o", tmp_path / "go.json",
    )  # fmt: skip
    assert code == 2 and "a chess position (FEN) is for an 8x8 board, not layout grid:19x19" in err


@pytest.mark.parametrize(
    "fen, problem",
    [
        ("rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR", "rank 6 has 9 squares, not 8"),
        ("rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR", "it has 7 ranks between slashes, not 8"),
        ("rnbqkbnr/pppppppp/8/8/3x4/8/PPPPPPPP/RNBQKBNR w - - 0 1", "rank 4 has 'x'"),
    ],
)
def test_a_mistyped_fen_is_said_to_be_one_not_a_missing_file(tmp_path, capsys, fen, problem):
    """A trial: a FEN with a typo was "position file rnbqkbnr/... not found"."""
    start = manifest_entry("IMG_4755.jpg")
    code, _, err = companion(
        capsys, "calibrate", REAL / start["file"], "--layout", "chessboard",
        "--corners", corners_of(start), "--position", fen, "-o", tmp_path / "c.json",
    )  # fmt: skip
    assert code == 2 and "is not a chess position (FEN) this reads: " + problem in err
    assert "not found" not in err and not (tmp_path / "c.json").exists()


def test_an_empty_photo_whose_board_is_not_found_is_told_its_own_corners_flag(tmp_path, capsys):
    """A trial: the --empty photo's board not found said "give its corners with --corners",
    which is the start photo's flag."""
    import cv2

    start = manifest_entry("IMG_4755.jpg")
    grey = tmp_path / "grey.png"
    cv2.imwrite(str(grey), cv2.imread(str(REAL / start["file"])) * 0 + 128)
    code, _, err = companion(
        capsys, "calibrate", REAL / start["file"], "--layout", "chessboard",
        "--position", position_file(tmp_path, start["cells"]), "-o", tmp_path / "c.json",
        "--empty", grey,
    )  # fmt: skip
    assert code == 2 and f"the --empty photo {grey}: no checkered 8x8 board found" in err
    assert 'give its corners with --empty-corners "x,y' in err and " --corners" not in err


def test_saved_corners_that_do_not_fit_a_smaller_picture_name_their_file(tmp_path, capsys):
    """A trial: the corners saved with a calibration, read on a picture of another size (a
    camera at another resolution), were "a corner in --corners lies far outside" - a flag
    the player never typed."""
    import cv2

    start, cal = calibrated_at_typed_corners(tmp_path, capsys)
    small = tmp_path / "small.jpg"
    photo = cv2.imread(str(REAL / start["file"]))
    cv2.imwrite(str(small), cv2.resize(photo, None, fx=0.4, fy=0.4))
    code, out, err = companion(capsys, "read", small, "--calibration", cal)
    assert code == 2 and out == ""
    assert f"a corner saved in {tmp_path / 'c.corners.json'} lies far outside this 360x640" in err
    assert "another size" in err and "--corners lies" not in err


def test_an_empty_photo_of_the_start_position_again_is_refused_not_learned(tmp_path, capsys):
    """A trial: `--empty` given the calibration's own position photographed again (the
    pieces left on the mat) was taken, at a margin of 1.02 - and the board then read every
    cell empty, the pieces learned as the empty look."""
    import cv2

    from vision.layouts import get_layout
    from vision.sim import SimTable, calibration_position

    position = calibration_position(get_layout("arimaa"))
    table = SimTable("arimaa", seed=1)
    start, again = tmp_path / "start.png", tmp_path / "again.png"
    cv2.imwrite(str(start), table.render(position))
    cv2.imwrite(str(again), table.render(position))
    cal = tmp_path / "c.json"
    code, _, err = companion(
        capsys, "calibrate", start, "--position", position_file(tmp_path, position),
        "-o", cal, "--empty", again,
    )  # fmt: skip
    assert code == 2 and f"the --empty photo {again} shows pieces on " in err
    assert "or leave out --empty" in err and not cal.exists()
    named = err.split("shows pieces on ")[1].split(": take it")[0]
    assert re.fullmatch(r"(\w+, ){4}\w+ and \d+ more", named), named  # (the first five)
    assert set(named.split(" and ")[0].split(", ")) <= set(position)


def test_a_calibration_named_as_a_picture_is_refused(tmp_path, capsys):
    """A trial: `-o cal.png` wrote the calibration's JSON into a .png file, without a word."""
    start = manifest_entry("IMG_4755.jpg")
    code, _, err = companion(
        capsys, "calibrate", REAL / start["file"], "--layout", "chessboard",
        "--corners", corners_of(start), "--position", position_file(tmp_path, start["cells"]),
        "-o", tmp_path / "cal.png",
    )  # fmt: skip
    assert code == 2 and "-o writes the calibration, a JSON file: name it cal.json" in err
    assert not (tmp_path / "cal.png").exists()


def test_a_refused_calibration_s_view_names_the_corner_cells_where_the_grid_put_them(
    tmp_path, capsys
):
    """A trial gave the corners from the wrong corner (clockwise, but top-right first): the
    refusal named 64 doubtful cells, and its --view rang four of them with no word of where
    a1 had been taken. The view names the corner cells where the grid put them: a1 at the
    photo's a8 corner (the corner given last, bottom-left), as those corners say."""
    import cv2

    from vision.calibration import corner_labels
    from vision.layouts import get_layout
    from vision.location import from_corners

    start = manifest_entry("IMG_4755.jpg")
    a8, h8, h1, a1 = corners_of(start).split()
    turned = f"{h8} {h1} {a1} {a8}"
    layout = get_layout("chessboard")
    labels = dict(corner_labels(layout, from_corners(layout, turned).homography))
    assert sorted(labels) == ["a1", "a8", "h1", "h8"]
    x, y = (float(v) for v in a8.split(","))
    assert abs(labels["a1"][0] - x) < 90 and abs(labels["a1"][1] - y) < 90  # within a cell
    view = tmp_path / "v.png"
    code, _, _ = companion(
        capsys, "calibrate", REAL / start["file"], "--layout", "chessboard",
        "--corners", turned, "--position", position_file(tmp_path, start["cells"]),
        "-o", tmp_path / "c.json", "--view", view,
    )  # fmt: skip
    assert code == 2 and view.exists()
    drawn = cv2.imread(str(view)).astype(int)
    red, green, blue = drawn[..., 2], drawn[..., 1], drawn[..., 0]
    ink = (abs(red - 160) < 15) & (green < 30) & (blue < 30)  # the names' dark red, no ring's
    band = drawn.shape[0] - cv2.imread(str(REAL / start["file"])).shape[0]  # (the caption)
    lx, ly = (int(v) for v in labels["a1"])
    assert ink[band + ly - 40 : band + ly + 40, lx - 40 : lx + 40].sum() > 20  # drawn there


def _crossings_corners(entry):
    """A Go photo's corners for its 19 x 19 crossings read as cells (grid:19x19): the labelled
    outer intersections pushed half a cell outward, as the first player sees the board."""
    lines = np.array([[0, 0], [18, 0], [18, 18], [0, 18]], np.float32)
    to_image = cv2.getPerspectiveTransform(lines, np.array(entry["corners"], np.float32))
    outer = np.array([[[-0.5, -0.5], [18.5, -0.5], [18.5, 18.5], [-0.5, 18.5]]])
    corners = cv2.perspectiveTransform(outer, to_image)[0]
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in corners)


@pytest.mark.parametrize(
    ("name", "layout"), [("cornersnumbered.jpg", "grid:19x19"), ("sample.jpg", "grid:8x8")]
)
def test_read_says_when_a_lined_board_s_saved_corners_do_not_fit(tmp_path, capsys, name, layout):
    """A lined board's saved corners were never checked (its cells may lie between its lines
    or on them, as Go's crossings): a camera moved since calibration read the wrong cells
    without a word. The real Go photo (read on its crossings) and the Othello photo (most of
    its lines under discs) read at their own corners say nothing; the same photo moved by a
    third of a cell under the corners, or by 7.3 cells, and a chess photo are said not to
    fit."""
    entry = manifest_entry(name)
    corners = _crossings_corners(entry) if layout == "grid:19x19" else corners_of(entry)
    cal = tmp_path / "c.json"
    code, _, err = companion(
        capsys, "calibrate", REAL / entry["file"], "--layout", layout, "--corners", corners,
        "--position", position_file(tmp_path, entry["cells"]), "-o", cal,
    )  # fmt: skip
    assert code == 0, err
    code, _, err = companion(capsys, "read", REAL / entry["file"], "--calibration", cal)
    assert code == 0 and "does not show where the corners put it" not in err
    photo = cv2.imread(str(REAL / entry["file"]))
    across = entry["size"][0] - (1 if entry["game"] == "go" else 0)  # cells between the labels
    cell = np.linalg.norm(np.subtract(entry["corners"][1], entry["corners"][0])) / across
    moved = tmp_path / "moved.png"
    shift = np.float32([[1, 0, 0], [0, 1, cell / 3]])  # the camera tipped: the board lower
    cv2.imwrite(str(moved), cv2.warpAffine(photo, shift, photo.shape[1::-1]))
    code, _, err = companion(capsys, "read", moved, "--calibration", cal)
    assert code == 0 and "does not show where the corners put it" in err
    # moved far (a trial: a goban 7 cells off read 204 black stones without a word) - no
    # shift by tenths of a cell finds the lines, but the cells read empty show none
    far = np.float32([[1, 0, 7.3 * cell], [0, 1, 0]])
    cv2.imwrite(str(moved), cv2.warpAffine(photo, far, photo.shape[1::-1]))
    code, _, err = companion(capsys, "read", moved, "--calibration", cal)
    assert code == 0 and "does not show where the corners put it" in err
    # another board altogether under the corners: a chess photo
    chess = REAL / manifest_entry("IMG_4804.jpg")["file"]
    code, _, err = companion(capsys, "read", chess, "--calibration", cal)
    assert code == 0 and "does not show where the corners put it" in err
