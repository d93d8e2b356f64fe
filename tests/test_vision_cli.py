"""`companion mat` and `companion vision` through the real CLI entry point."""

import json
from pathlib import Path

import cv2
import pytest

from companion.cli import main
from vision.sim import SimTable, calibration_position


def test_mat_writes_pdf_png_and_json_and_keeps_existing_files(tmp_path, capsys):
    pdf, png = tmp_path / "m.pdf", tmp_path / "m.png"
    assert main(["mat", "arimaa", "-o", str(pdf), "--dpi", "60"]) == 0
    assert pdf.read_bytes().startswith(b"%PDF-1.4")
    assert (
        main(["mat", "sensei", "-o", str(png), "--dpi", "60", "--markers-only", "--paper", "A4"])
        == 0
    )
    assert cv2.imread(str(png)) is not None
    before = pdf.read_bytes()
    assert main(["mat", "aranea", "-o", str(pdf)]) == 2
    assert pdf.read_bytes() == before
    assert "already exists" in capsys.readouterr().err
    assert main(["mat", "arimaa", "-o", str(tmp_path / "m.txt")]) == 2
    assert main(["mat", "arimaa", "--layout-json"]) == 0
    assert json.loads(capsys.readouterr().out)["layout"] == "arimaa"


def test_vision_calibrate_and_read(tmp_path, capsys):
    table = SimTable("arimaa", seed=3, size=(800, 450))
    start = {"a1": "gold", "b1": "gold", "g8": "silver", "h8": "silver"}
    cv2.imwrite(str(tmp_path / "start.png"), table.render(start))
    (tmp_path / "pos.json").write_text(json.dumps({"cells": start}))
    later = {"a2": "gold", "h7": "silver"}
    cv2.imwrite(str(tmp_path / "later.png"), table.render(later))
    cal = str(tmp_path / "cal.json")
    assert (
        main(
            [
                "vision",
                "calibrate",
                str(tmp_path / "start.png"),
                "--position",
                str(tmp_path / "pos.json"),
                "-o",
                cal,
            ]
        )
        == 0
    )
    assert "something lies on the mat" not in capsys.readouterr().err
    assert (
        main(["vision", "read", str(tmp_path / "later.png"), "--calibration", cal, "--json"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {
        "cells",
        "confidence",
        "markers_seen",
        "occluded",
        "hidden",
        "unlearned",
        "leaned",
        "turn_untold",
    }
    assert data["markers_seen"] == 4 and data["occluded"] is False and data["leaned"] == {}
    assert {c: v for c, v in data["cells"].items() if v != "empty"} == later
    # A hand over the board: nothing is guessed, and the reader says why.
    hand = table.hand_towards(table.cell_pixel("d4"))
    cv2.imwrite(str(tmp_path / "hand.png"), table.render(later, hand))
    assert main(["vision", "read", str(tmp_path / "hand.png"), "--calibration", cal, "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["occluded"] is True and set(data["cells"].values()) == {"unknown"}
    assert "something is over the board" in err
    assert main(["vision", "read", str(tmp_path / "hand.png"), "--calibration", cal]) == 0
    out, err = capsys.readouterr()
    assert "?" in out and "something is over the board" in err
    (tmp_path / "bad.png").write_text("not an image")
    assert main(["vision", "read", str(tmp_path / "bad.png"), "--calibration", cal]) == 2
    assert "cannot read image" in capsys.readouterr().err


def _sim_calibration(tmp_path, layout="arimaa", seed=3, size=(640, 360)):
    from vision.sim import calibrate_table

    path = tmp_path / f"{layout}.cal.json"
    calibrate_table(SimTable(layout, seed=seed, size=size)).save(path)
    return str(path)


def test_vision_track_on_a_sim_source_prints_each_still_board_never_a_hand_frame(tmp_path, capsys):
    from vision.sources import open_source

    spec = "sim:arimaa?seed=3&size=640x360&moves=2"
    cal = _sim_calibration(tmp_path)
    assert main(["vision", "track", spec, "--calibration", cal, "--json"]) == 0
    out, err = capsys.readouterr()
    lines = [json.loads(line) for line in out.splitlines()]
    truth = []  # what each frame of the same source really showed
    with open_source(spec) as source:
        while source.read() is not None or not source.ended:
            truth.append((source.truth_hand, dict(source.truth_cells)))
    assert sum(hand for hand, _ in truth) == 2 * 8  # the sim really put hands in
    assert len(lines) == 3 and err == ""
    for line in lines:
        assert set(line) == {"frame", "cells"}
        hand, cells = truth[line["frame"]]
        assert not hand
        assert {c: v for c, v in line["cells"].items() if v != "empty"} == cells


def test_vision_track_says_why_the_board_is_never_found(tmp_path, capsys):
    cal = _sim_calibration(tmp_path)
    wrong_mat = "sim:sensei?size=640x360&moves=1"
    assert main(["vision", "track", wrong_mat, "--calibration", cal, "--max-frames", "30"]) == 2
    err = capsys.readouterr().err
    assert err.count("belong to the sensei mat") == 2  # once as it happens, once in the final error
    assert (
        err.strip()
        .splitlines()[-1]
        .startswith("companion: error: the arimaa board was never found in 30 frames: no markers")
    )
    argv = ["vision", "track", wrong_mat, "--calibration", cal, "--layout", "auto"]
    assert main(argv) == 2
    assert "calibration was made for layout arimaa, not sensei" in capsys.readouterr().err
    (tmp_path / "bad.png").write_text("garbage\n")
    argv = ["vision", "track", f"file:{tmp_path / 'bad.png'}", "--calibration", cal]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "not a video OpenCV can decode" in err and "PNG signature" not in err
    for bad in (["--max-frames", "-3"], ["--fps", "0"], ["--fps", "inf"], ["--fps", "nan"]):
        assert main(["vision", "track", "sim:arimaa", "--calibration", cal, *bad]) == 2
        err = capsys.readouterr().err  # inf was taken: every frame at time 0
        assert len(err.strip().splitlines()) == 1
        assert "--fps" in err or "--max-frames" in err, err
    assert main(["vision", "track", "sim:arimaa?hand=-1&still=-3", "--calibration", cal]) == 2
    assert "hand='-1' must be a whole number" in capsys.readouterr().err


def test_vision_track_on_a_folder_of_single_photos_points_at_vision_read(tmp_path, capsys):
    """A new player's trial: a folder of photos, one of each position, read nothing, and the
    message said only that the board was never still long enough."""
    cal = _sim_calibration(tmp_path)
    table = SimTable("arimaa", seed=3, size=(640, 360))
    photos = tmp_path / "photos"
    photos.mkdir()
    for k in range(3):
        cv2.imwrite(str(photos / f"{k}.png"), table.render(calibration_position(table.layout)))
    assert main(["vision", "track", f"dir:{photos}", "--calibration", cal]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "no board was still" in err
    assert "dir: plays each image as one frame of a video at --fps 30" in err
    assert "`companion vision read PHOTO`" in err
    assert main(["vision", "track", f"dir:{photos}", "--calibration", cal, "--fps", "2"]) == 0
    assert "frame 2:" in capsys.readouterr().out  # two frames a second: a second still, read


class Recorded:
    """A recorded camera: these frames, then the end."""

    def __init__(self, frames):
        self.frames = list(frames)
        self.ended = False

    def read(self):
        if not self.frames:
            self.ended = True
            return None
        return self.frames.pop(0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def test_vision_track_notes_a_moved_board_once(tmp_path, capsys, monkeypatch):
    import vision.sources

    table = SimTable("arimaa", seed=3, size=(640, 360))
    cells = {"a1": "gold", "h8": "silver"}
    frames = [table.render(cells) for _ in range(20)]
    table.nudge(6.0, -4.0, 1.5)
    frames += [table.render(cells) for _ in range(40)]

    monkeypatch.setattr(vision.sources, "open_source", lambda spec: Recorded(frames))
    cal = _sim_calibration(tmp_path)
    assert main(["vision", "track", "recorded", "--calibration", cal, "--json"]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1
    assert err.count("the board moved on the table") == 1


def test_vision_track_says_once_that_something_lies_on_the_board(tmp_path, capsys, monkeypatch):
    """A cup left over the mat's edge after the first board: nothing more is read, and one
    line on stderr says so, near which cell, and how to say it is no hand."""
    from test_vision_track import cup_on_the_margin

    import vision.sources

    table = SimTable("arimaa", seed=3, size=(640, 360))
    cells = {"a1": "gold", "h8": "silver"}
    with_cup = cup_on_the_margin(table)
    frames = [table.render(cells) for _ in range(20)]
    frames += [with_cup(table.render(cells)) for _ in range(130)]

    monkeypatch.setattr(vision.sources, "open_source", lambda spec: Recorded(frames))
    cal = _sim_calibration(tmp_path)
    assert main(["vision", "track", "recorded", "--calibration", cal, "--json"]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1  # the first board only
    assert err.count("something has lain on the board near h") == 1, err
    assert "takes `clear` when it is no hand" in err


def _png_chunks(data):
    """(type, body) of every chunk of a PNG, each CRC checked - independent of vision.mat."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + body) & 0xFFFFFFFF
        chunks.append((kind, body))
        at += 12 + length
    return chunks


def test_mat_pngs_say_their_dpi_and_no_extension_writes_both(tmp_path, capsys):
    import struct

    assert main(["mat", "arimaa", "-o", str(tmp_path / "arimaa"), "--dpi", "60"]) == 0
    assert (tmp_path / "arimaa.pdf").read_bytes().startswith(b"%PDF-1.4")
    sheet = tmp_path / "markers.png"
    assert main(["mat", "arimaa", "-o", str(sheet), "--markers-only", "--dpi", "150"]) == 0
    for png, dpi in ((tmp_path / "arimaa.png", 60), (sheet, 150)):
        chunks = _png_chunks(png.read_bytes())
        assert [kind for kind, _ in chunks[:2]] == [b"IHDR", b"pHYs"]
        x, y, unit = struct.unpack(">IIB", chunks[1][1])
        assert unit == 1 and x == y == round(dpi / 0.0254)  # pixels per metre
        assert cv2.imread(str(png)) is not None
    width = cv2.imread(str(tmp_path / "arimaa.png")).shape[1]
    assert abs(width / 60 * 25.4 - 324) < 0.5  # printed at its dpi: the mat's true 324 mm
    capsys.readouterr()
    assert main(["mat", "arimaa", "-o", str(tmp_path / "arimaa")]) == 2  # both exist: kept
    assert "already exists" in capsys.readouterr().err
    assert main(["mat", "auto", "-o", str(tmp_path / "a.pdf")]) == 2
    err = capsys.readouterr().err
    assert "not auto" in err and "or auto" not in err and "arimaa" in err


def test_written_files_get_the_umask_s_mode_like_any_new_file(tmp_path, capsys):
    """A player's trial: `vision snapshot -o photo.png` was private (0600, the temporary
    file's mode) while everything else the commands write follows the umask: the photo, the
    position, the calibration and the mat must all be as readable as any new file."""
    import os

    photo, pos, cal = tmp_path / "photo.png", tmp_path / "start.json", tmp_path / "cal.json"
    old = os.umask(0o027)  # neither 0600 nor the usual 0644: the umask is what decides
    try:
        assert (
            main(["vision", "snapshot", "sim:arinama5", "-o", str(photo), "--position", str(pos)])
            == 0
        )
        assert (
            main(["vision", "calibrate", str(photo), "--position", str(pos), "-o", str(cal)]) == 0
        )
        assert main(["mat", "arinama5", "-o", str(tmp_path / "mat"), "--dpi", "60"]) == 0
        assert (
            main(
                [
                    "vision",
                    "snapshot",
                    "sim:arinama5",
                    "-o",
                    str(photo),
                    "--position",
                    str(pos),
                    "--force",
                ]
            )
            == 0
        )
    finally:
        os.umask(old)
    capsys.readouterr()
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["cal.json", "mat.pdf", "mat.png", "photo.png", "start.json"]
    assert {name: oct((tmp_path / name).stat().st_mode & 0o777) for name in written} == {
        name: "0o640" for name in written
    }


def test_marker_sheet_places_each_marker_where_its_label_says():
    from vision.layouts import get_layout
    from vision.mat import render_marker_sheet

    sheet = render_marker_sheet(get_layout("arimaa"), "A4", px_per_mm=4)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(sheet, cv2.COLOR_BGR2GRAY))
    centre = {int(i): c[0].mean(axis=0) for c, i in zip(corners, ids.ravel(), strict=True)}
    h, w = sheet.shape[:2]
    where = {
        i: ("top" if y < h / 2 else "bottom", "left" if x < w / 2 else "right")
        for i, (x, y) in centre.items()
    }
    # ids 8-11 belong at the board's TL, TR, BR, BL corners (as labelled on the sheet)
    assert where == {
        8: ("top", "left"),
        9: ("top", "right"),
        10: ("bottom", "right"),
        11: ("bottom", "left"),
    }


def test_mat_help_says_chessboard_and_grid_print_boards_without_markers(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["mat", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "chessboard gives a checkered board (green and cream, a1 dark) and grid:RxC a plain" in out
    )
    assert "both with the cell names and no markers" in out
    assert "for --layout-json" not in out
    assert main(["mat", "grid:3x4", "-o", str(tmp_path / "g"), "--dpi", "60"]) == 0
    assert (tmp_path / "g.pdf").read_bytes().startswith(b"%PDF-1.4")
    grid = cv2.imread(str(tmp_path / "g.png"))
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    ids = detector.detectMarkers(cv2.cvtColor(grid, cv2.COLOR_BGR2GRAY))[1]
    assert ids is None or len(ids) == 0  # no marker (OpenCV 4 says None, OpenCV 5 an empty array)
    capsys.readouterr()
    assert main(["mat", "chessboard", "-o", str(tmp_path / "m.png"), "--markers-only"]) == 2
    assert "no markers to print" in capsys.readouterr().err


def test_vision_commands_never_write_over_their_inputs_or_a_record_database(tmp_path, capsys):
    from companion import games
    from companion.records import Records

    table = SimTable("arimaa", seed=3, size=(800, 450))
    start = {"a1": "gold", "b1": "gold", "g8": "silver", "h8": "silver"}
    photo, empty, pos, db = (tmp_path / n for n in ("photo.png", "empty.png", "pos.json", "r.db"))
    cv2.imwrite(str(photo), table.render(start))
    cv2.imwrite(str(empty), table.render({}))
    pos.write_text(json.dumps({"cells": start}))
    with Records(db) as records:
        records.new_game(games.get("arimaa").new({}))
    given = {p: p.read_bytes() for p in (photo, empty, pos, db)}
    calibrate = ["vision", "calibrate", str(photo), "--position", str(pos), "--force"]
    cal = str(tmp_path / "c.json")
    for extra, message in (
        (["-o", str(photo)], "-o and the photo name the same file: give two names"),
        (["-o", str(pos)], "-o and --position name the same file: give two names"),
        (["-o", cal, "--view", str(photo)], "--view and the photo name the same file"),
        (["-o", cal, "--view", str(pos)], "--view and --position name the same file"),
        (["-o", cal, "--empty", str(empty), "--view", str(empty)], "--view and --empty name"),
        (["-o", cal, "--view", cal], "-o and --view name the same file"),
        (["-o", str(db)], f"{db} holds game records: give another file name with -o"),
        (["-o", cal, "--view", str(db)], "holds game records: give another file name with --view"),
        (["-o", f"{db}-wal"], "holds game records: give another file name with -o"),
    ):
        assert main([*calibrate, *extra]) == 2, extra
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    assert main(["vision", "locate", str(photo), "--view", str(photo), "--force"]) == 2
    err = capsys.readouterr().err
    assert "--view and the photo name the same file" in err and len(err.splitlines()) == 1
    # PNG data under another name (a player's trial wrote it into v.txt); a device is no photo
    assert main(["vision", "locate", str(photo), "--view", str(tmp_path / "v.txt")]) == 2
    assert "--view writes a PNG picture: name it v.png, not" in capsys.readouterr().err
    assert not (tmp_path / "v.txt").exists()
    assert main(["vision", "locate", "/dev/null"]) == 2
    assert "/dev/null is not an image file" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in (photo, empty, pos, db)} == given
    assert not (tmp_path / "c.json").exists()
    # a folder is not "not found"; a photo given as the position says what a position file is
    assert main(["vision", "locate", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path} is a folder, not an image file" in err and len(err.splitlines()) == 1
    assert main(["vision", "calibrate", str(photo), "--position", str(photo), "-o", cal]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and f"position file {photo} is not a text file" in err
    assert "`companion vision snapshot --position` writes" in err and "calibrate`" not in err
    assert photo.read_bytes() == given[photo] and not (tmp_path / "c.json").exists()


def test_a_snapshot_writes_its_photo_and_position_both_or_neither(tmp_path, capsys):
    """A photo without its position calibrates nothing: when one of the two cannot be written
    (a folder that takes no files), the other is not left behind."""
    photo, pos = tmp_path / "photo.png", tmp_path / "start.json"
    for out, where in ((str(photo), "/proc/start.json"), ("/proc/photo.png", str(pos))):
        assert main(["vision", "snapshot", "sim:arinama5", "-o", out, "--position", where]) == 2
        err = capsys.readouterr().err
        assert "cannot write /proc/" in err and "Traceback" not in err
        assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["vision", "read", "x.jpg", "--calibration"], "argument --calibration: an empty file"),
        (["vision", "track", "sim:arimaa", "--calibration"], "argument --calibration: an empty"),
        (["vision", "read", "--calibration", "c.json"], "argument IMAGE: an empty file name"),
        (["vision", "locate", "x.jpg", "--view"], "argument --view: an empty file name"),
        (["vision", "calibrate", "x.jpg", "-o", "c.json", "--position"], "--position: an empty"),
        (["vision", "calibrate", "x.jpg", "--position", "p", "-o"], "--output: an empty file"),
        (["vision", "calibrate", "x.jpg", "--position", "p", "-o", "c", "--empty"], "--empty: an"),
        (["vision", "snapshot", "sim:arimaa", "--position", "p.json", "-o"], "--output: an empty"),
        (["vision", "snapshot", "sim:arimaa", "-o", "a.png", "--position"], "--position: an empty"),
        (["vision", "snapshot", "-o", "a.png", "--position", "p.json"], "SOURCE: an empty source"),
        (["vision", "track", "--calibration", "c.json"], "argument SOURCE: an empty source"),
        (["referee", "--game", "arinama", "--observations"], "--observations: an empty file name"),
        (["referee", "--game", "arinama", "--source"], "argument --source: an empty source"),
        (
            ["referee", "--game", "arinama", "--source", "sim:arinama8", "--calibration"],
            "argument --calibration: an empty file name",
        ),
    ],
)
@pytest.mark.parametrize("empty", ["", " "])
def test_an_empty_file_name_is_refused_in_one_line(
    capsys, tmp_path, monkeypatch, argv, words, empty
):
    """`vision read x.jpg --calibration ""` (an unset "$CAL") said "calibration file  is a
    folder: give the JSON file", and the referee took an empty --calibration for none."""
    monkeypatch.chdir(tmp_path)
    # the empty argument where the option wants its value, or as the missing positional
    position = len(argv) if argv[-1].startswith("-") else 2
    with pytest.raises(SystemExit) as exit_:
        main([*argv[:position], empty, *argv[position:]])
    _, err = capsys.readouterr()
    assert exit_.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert words in err and "folder" not in err and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []


def test_calibrate_on_a_photo_with_a_hand_over_the_mat_says_so(tmp_path, capsys):
    """The fingers of a hand over the far cells of an Arinama 5 x 5 mat: near enough to
    empty for calibration to learn them, so the photo is taken - and the players are told
    that those cells may have learned the hand (`vision.tracker.something_over_the_mat`)."""
    table = SimTable("arinama5", seed=3, size=(960, 540))
    position = calibration_position(table.layout)
    hand = table.hand_towards(tuple(table.mat_quad()[2]), reach=0.45)
    cv2.imwrite(str(tmp_path / "hand.png"), table.render(position, hand))
    (tmp_path / "pos.json").write_text(json.dumps({"cells": position}))
    cal = tmp_path / "cal.json"
    command = ["vision", "calibrate", str(tmp_path / "hand.png"), "--position"]
    assert main([*command, str(tmp_path / "pos.json"), "-o", str(cal)]) == 0
    assert cal.exists()
    assert (
        "note: something lies on the mat near b5 in the photo (a hand?)" in capsys.readouterr().err
    )


def test_an_unknown_layout_names_auto_among_the_choices_where_auto_is_taken(tmp_path, capsys):
    photo = tmp_path / "board.png"
    table = SimTable("arimaa", seed=3)
    cv2.imwrite(str(photo), table.render(calibration_position(table.layout)))
    assert main(["vision", "locate", str(photo), "--layout", "arimaa-mat"]) == 2
    err = capsys.readouterr().err
    assert "unknown layout 'arimaa-mat': choose auto (the mat's markers tell) or one of" in err
    assert main(["mat", "arimaa-mat", "-o", str(tmp_path / "m.pdf")]) == 2  # no auto here
    assert "choose one of arinama5" in capsys.readouterr().err


def test_a_calibration_under_a_file_says_what_is_wrong_with_the_path(tmp_path, capsys):
    """A fuzzing trial: `--calibration FILE/x.json`, where FILE is a file, said only "cannot
    read calibration file ...: Not a directory" - nothing of what was wrong or what to do."""
    photo = tmp_path / "board.png"
    table = SimTable("arinama5", seed=3, size=(640, 360))
    cv2.imwrite(str(photo), table.render(calibration_position(table.layout)))
    under_a_file = str(photo / "cal.json")
    assert main(["vision", "read", str(photo), "--calibration", under_a_file]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert f"cannot read calibration file {under_a_file}: " in err
    assert "(a part of the path is a file, not a folder) - check the path" in err, err


def test_a_file_name_too_long_is_said_in_one_line_not_a_traceback(tmp_path, capsys):
    """`vision locate` of a 300-character file name, or with it as --view, raised OSError
    ("File name too long") from the checks on the photo and on the file to write."""
    photo = tmp_path / "board.png"
    table = SimTable("arinama5", seed=3, size=(640, 360))
    cv2.imwrite(str(photo), table.render(calibration_position(table.layout)))
    long_name = str(tmp_path / ("y" * 300 + ".png"))
    assert main(["vision", "locate", long_name]) == 2
    err = capsys.readouterr().err
    assert "cannot read image" in err and "File name too long - give a shorter name" in err, err
    assert main(["vision", "locate", str(photo), "--view", long_name]) == 2
    err = capsys.readouterr().err
    assert "cannot write" in err and "File name too long - give a shorter name" in err, err
    assert len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.png"]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 100_000, "is JSON nested too deeply"),
        ('{"cells": {"a1": ' + "9" * 5000 + "}}", "a number with too many digits"),
    ],
    ids=["nested", "digits"],
)
def test_a_position_or_calibration_json_python_cannot_parse_is_said_in_one_line(
    tmp_path, capsys, text, words
):
    """A position or calibration file nested 100 000 deep or holding a 5000-digit number:
    `json.loads` raised RecursionError / ValueError, which `read_json` let through."""
    bad = tmp_path / "bad.json"
    bad.write_text(text)
    photo = str(tmp_path / "board.png")
    cv2.imwrite(photo, SimTable("arinama5", seed=3, size=(640, 360)).render({}))
    calibrate = ["vision", "calibrate", photo, "--position", str(bad), "-o", str(tmp_path / "c")]
    for argv in (calibrate, ["vision", "read", photo, "--calibration", str(bad)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"file {bad}" in err and words in err, err
        assert len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.json", "board.png"]


def test_mat_to_a_folder_a_device_or_a_name_too_long_writes_nothing_beside_it(tmp_path, capsys):
    """`mat arinama5 -o shots/` wrote shots.png and shots.pdf beside the folder, `-o /dev/full`
    wrote /dev/full.png (as root), and a 300-character name raised OSError."""
    (tmp_path / "shots").mkdir()
    for output, words in [
        (f"{tmp_path}/shots/", "shots/ names a folder: give a file name in it with -o, e.g. "),
        (str(tmp_path / "shots"), f"e.g. {tmp_path}/shots/arinama5.pdf"),
        ("/dev/full", "/dev/full is not a regular file: give a file name with -o"),
        (str(tmp_path / ("y" * 300)), "File name too long - give a shorter name"),
    ]:
        assert main(["mat", "arinama5", "-o", output, "--dpi", "60"]) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1, err
    assert [p.name for p in tmp_path.iterdir()] == ["shots"]
    assert list((tmp_path / "shots").iterdir()) == []
    assert not list(Path("/dev").glob("full.*"))


def test_vision_track_says_once_that_the_picture_is_black(tmp_path, capsys):
    """The lens covered from the first frame: one line says so (with the frame), and the end
    says the board was never found and why - not "no markers" over and over."""
    cal = _sim_calibration(tmp_path)
    dark = "sim:arimaa?size=640x360&moves=0&still=100&black=1"
    assert main(["vision", "track", dark, "--calibration", cal, "--max-frames", "60"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    said = (
        "companion: the camera's picture is all but black: is the lens covered, or the light off?"
    )
    assert sum(line.startswith(said) for line in err) == 1, err
    assert "no markers" not in " ".join(err)
    assert err[-1].startswith("companion: error: the arimaa board was never found in 60 frames: ")


def test_the_snapshot_s_suggested_command_is_as_the_player_types_it(tmp_path, capsys, monkeypatch):
    """A trial: through ./dev every hint read "./dev companion ...", but the snapshot's "Try:
    companion vision calibrate ..." failed when pasted ("command not found")."""
    from companion.commands import COMMAND_ENV

    monkeypatch.setenv(COMMAND_ENV, "./dev companion")
    photo, pos = tmp_path / "photo.png", tmp_path / "start.json"
    assert (
        main(["vision", "snapshot", "sim:arinama5", "-o", str(photo), "--position", str(pos)]) == 0
    )
    assert "Try: ./dev companion vision calibrate " in capsys.readouterr().out
