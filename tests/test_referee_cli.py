"""`companion referee` at a terminal: observations and inputs as lines, errors as one line."""

import json

import pytest

from companion import cli, games
from companion.errors import UserError
from companion.records import Records
from companion.referee import Referee
from companion.referee.runner import Session, parse_input


def observation(occupied, game="arinama", options=None):
    names = games.get(game).new(options).cell_names()
    return json.dumps({"cells": {c: occupied.get(c, "empty") for c in names}})


def run(capsys, monkeypatch, args, lines):
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("".join(f"{x}\n" for x in lines)))
    code = cli.main(["referee", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_text_lines_from_observations_and_inputs(tmp_path, capsys, monkeypatch):
    db = tmp_path / "r.sqlite3"
    five = {"rows": 5, "cols": 5}
    lines = [
        observation({"c3": "black"}, options=five),
        "hands on",
        observation({"c3": "black", "d4": "white"}, options=five),  # ignored: a hand is over
        "hands off",
        observation({"c3": "black", "d4": "white"}, options=five),
        "undo",
        "done",
        "nonsense",
    ]
    args = ["--game", "arinama", "--layout", "arinama5", "--observations", "-", "--db", str(db)]
    code, out, err = run(capsys, monkeypatch, args, lines)
    assert code == 2  # a line was not taken (piped in, not typed at a terminal)
    assert out == [
        "New Arinama game 1",
        "[0] Black: place a stone",
        "[1] White: place a stone",
        "[2] Black: place a stone (Next to one of your stones)",
        "[2] Press DONE to take back d4 (Both players must agree; BACK again also agrees, "
        "ROLL or CANCEL keeps the move)",
        "[1] Take the white stone off d4 (Put the board back as it was)",
    ]
    assert "companion: standard input line 8: unknown input 'nonsense'" in err
    assert err.strip().splitlines()[-1] == (
        "companion: error: 1 line of standard input was not taken (line 8, said above); the "
        "moves of the others are recorded in game 1"
    )
    assert [m.text for m in Records(db, readonly=True).game(1).moves] == ["c3"]


def test_a_restart_continues_the_unfinished_game(tmp_path, capsys, monkeypatch):
    db = tmp_path / "r.sqlite3"
    args = ["--game", "arinama", "--observations", "-", "--db", str(db), "--json"]
    run(capsys, monkeypatch, args, [observation({"c3": "black"})])
    code, out, _ = run(capsys, monkeypatch, args, [observation({"c3": "black"})])
    first = json.loads(out[0])
    assert first == {"type": "game", "game": "arinama", "game_id": 1, "resumed": True, "ply": 1}
    assert json.loads(out[-1])["instruction"]["text"] == "White: place a stone"
    code, out, _ = run(capsys, monkeypatch, [*args, "--new"], [])
    assert json.loads(out[0])["game_id"] == 2


def test_aranea_roll_from_the_keyboard(tmp_path, capsys, monkeypatch):
    db = tmp_path / "r.sqlite3"
    args = ["--game", "aranea", "-o", "first=amber", "--observations", "-", "--db", str(db)]
    args += ["--seed", "1", "--json"]
    code, out, _ = run(capsys, monkeypatch, args, [observation({}, "aranea"), "roll"])
    last = json.loads(out[-1])
    assert last["instruction"]["text"] == "Amber rolled 7: place a stone on r1-7"
    assert [e["kind"] for e in last["events"]] == ["roll", "move"]
    assert [r.value for r in Records(db, readonly=True).game(1).rolls] == [7]


def test_arimaa_setup_lines_from_the_command_line(tmp_path, capsys, monkeypatch):
    db = tmp_path / "r.sqlite3"
    gold = "Ra1 Rb1 Rc1 Rd1 Re1 Rf1 Rg1 Rh1 Da2 Hb2 Cc2 Md2 Ee2 Cf2 Hg2 Dh2"
    silver = "ra8 rb8 rc8 rd8 re8 rf8 rg8 rh8 da7 hb7 cc7 ed7 me7 cf7 hg7 dh7"
    boards = [
        {f"{f}{r}": "gold" for f in "abcdefgh" for r in (1, 2)},
    ]
    boards.append({**boards[0], **{f"{f}{r}": "silver" for f in "abcdefgh" for r in (7, 8)}})
    args = ["--game", "arimaa", "--observations", "-", "--db", str(db), "--json"]
    args += ["--setup", gold, "--setup", silver]
    lines = [observation(b, "arimaa") for b in boards]
    code, out, _ = run(capsys, monkeypatch, args, lines)
    # Gold's setup is accepted from the board; Silver's line waits until Silver's turn.
    texts = [json.loads(line)["instruction"]["text"] for line in out[1:]]
    assert texts[-1] == "Gold: move up to four steps, then press DONE"
    assert [m.text for m in Records(db, readonly=True).game(1).moves] == [gold, silver]


def test_a_video_file_s_frames_are_counted_without_its_end(
    tmp_path, capsys, monkeypatch, arinama5_calibration
):
    """A player's trial: a video of 3 frames that never shows the board was "never found in
    4 frames" - the read that found the file at its end was counted as a frame."""
    import cv2

    from vision.sim import SimTable

    video = tmp_path / "three.avi"
    other_mat = SimTable("arinama8", seed=3, size=(640, 360)).render({})
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (640, 360))
    for _ in range(3):
        writer.write(other_mat)
    writer.release()
    source = ["--source", f"file:{video}", "--calibration", arinama5_calibration]
    args = ["--game", "arinama", *source, "--db", str(tmp_path / "r.sqlite3")]
    code, _out, err = run(capsys, monkeypatch, args, [])
    last = err.strip().splitlines()[-1]
    assert code == 2 and last.startswith("companion: error: the board was never found in 3 frames:")


@pytest.mark.parametrize(
    "args, message",
    [
        (["--game", "arinama", "--source", "sim:arinama5"], "--calibration CAL is needed"),
        (["--game", "arinama", "--observations", "-", "-o", "rows"], "KEY=VALUE"),
        (
            ["--game", "arinama", "--observations", "-", "-o", "colour=red"],
            "unknown arinama option",
        ),
        (["--game", "sensei", "--observations", "-", "--setup", "Ra1"], "--setup is for Arimaa"),
        (["--game", "arinama", "--observations", "/nonexistent/seen.jsonl"], "cannot read"),
        (["--game", "arimaa", "--observations", "-", "--setup", "Ra1 Rb1"], "setup"),
    ],
)
def test_mistakes_are_one_line_errors(tmp_path, capsys, monkeypatch, args, message):
    code, _out, err = run(capsys, monkeypatch, [*args, "--db", str(tmp_path / "r.sqlite3")], [])
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_a_start_that_fails_leaves_no_game_behind(tmp_path, capsys, monkeypatch):
    """A binary calibration, a binary observations file or a missing camera is one line, and
    no empty game waits to be 'continued' next time."""
    db = tmp_path / "r.sqlite3"
    binary = tmp_path / "photo.jpg"
    binary.write_bytes(bytes(range(256)) * 4)
    good_calibration = tmp_path / "cal.json"
    good_calibration.write_text("{}")
    for args, message in [
        (["--source", "sim:arinama5", "--calibration", str(binary)], "not a text file"),
        (["--source", "sim:arinama5", "--calibration", str(tmp_path)], "is a folder"),
        (["--observations", str(binary)], "not a text file"),
    ]:
        code, _out, err = run(
            capsys, monkeypatch, ["--game", "arinama", *args, "--db", str(db)], []
        )
        assert code == 2 and message in err and err.count("\n") == 1, err
    assert not db.exists() or Records(db, readonly=True).games() == []


def test_a_pipe_whose_every_line_is_refused_leaves_no_game_to_continue(
    tmp_path, capsys, monkeypatch
):
    """A file is checked before the game starts; a pipe cannot be: its one bad line left an
    empty game that the next run continued (a player's trial)."""
    db = tmp_path / "r.sqlite3"
    args = ["--game", "arinama", "--observations", "-", "--db", str(db)]
    code, _, err = run(capsys, monkeypatch, args, ['{"cells": {"z9": "white"}}', "# a note"])
    assert code == 2 and err.strip().splitlines()[-1].endswith(
        "1 line of standard input was not taken (line 1, said above): no game was played"
    )
    with Records(db, readonly=True) as records:
        assert records.unfinished_games() == []
    code, out, _ = run(capsys, monkeypatch, args, [observation({"c3": "black"}), "{bad"])
    assert code == 2 and out[0] == "New Arinama game 2"  # a line taken: the game stays
    with Records(db, readonly=True) as records:
        assert [g.id for g in records.unfinished_games()] == [2]


def test_a_bad_observation_line_is_reported_and_the_referee_goes_on(tmp_path, capsys, monkeypatch):
    args = ["--game", "arinama", "--observations", "-", "--db", str(tmp_path / "r.sqlite3")]
    lines = ['{"cells": 5}', "{not json", observation({"c3": "black"})]
    code, out, err = run(capsys, monkeypatch, args, lines)
    assert code == 2  # at the end: the lines after the bad ones were taken
    assert 'standard input line 1: an observation line needs "cells"' in err
    assert "standard input line 2: an observation line is not valid JSON" in err
    assert out[-1].startswith("[1] White: place a stone")


def test_an_observation_line_python_cannot_read_is_reported_not_a_traceback(
    tmp_path, capsys, monkeypatch
):
    """A frame of 1e400 raised OverflowError (int of infinity); a line nested 100 000 deep
    raised RecursionError from json.loads."""
    args = ["--game", "arinama", "--observations", "-", "--db", str(tmp_path / "r.sqlite3")]
    lines = [
        '{"cells": {"c3": "black"}, "frame": 1e400}',
        '{"cells": ' + '{"a": ' * 100_000,
        observation({"c3": "black"}),
    ]
    code, out, err = run(capsys, monkeypatch, args, lines)
    assert code == 2 and "Traceback" not in err
    assert "standard input line 1: an observation line has a bad frame, timestamp" in err
    assert "standard input line 2: an observation line is JSON nested too deeply" in err
    assert out[-1].startswith("[1] White: place a stone")


def test_an_observation_line_is_checked_as_a_position_file_is(tmp_path, capsys, monkeypatch):
    """A player's trial: "C3" was refused as no cell of the board (a position file takes
    "E4"), {"c3": 5} was "pieces of classes 5", and a confidence of 2 or a hidden cell zz
    were taken without a word."""
    args = ["--game", "arinama", "--observations", "-", "--db", str(tmp_path / "r.sqlite3")]
    lines = [
        '{"cells": {"c3": 5}}',
        '{"cells": {"c3": null}}',
        '{"cells": {"c3": "black"}, "confidence": {"c3": 2}}',
        '{"cells": {"c3": "black"}, "hidden": {"c3": "zz"}}',
        '{"cells": {"a1": "black", "A1": "white"}}',  # a trial: the last one won, unsaid
        '{"cells": {"a1": "black", "a1": "white"}}',
        '{"cells": {"C3": "black"}}',
    ]
    code, out, err = run(capsys, monkeypatch, args, lines)
    assert code == 2
    said = err.strip().splitlines()
    assert said[4].endswith(
        "line 5: an observation line gives cell a1 twice (as 'A1' too): keep one"
    )
    assert said[5].endswith("line 6: an observation line gives 'a1' twice: keep one")
    assert said[0].endswith(
        'line 1: an observation line\'s cells hold words ("black", "empty"), not 5'
    )
    assert said[1].endswith(
        'line 2: an observation line\'s cells hold words ("black", "empty"), not null'
    )
    assert said[2].endswith("line 3: an observation line's confidence runs from 0 to 1, not 2")
    assert said[3].endswith(
        "line 4: the camera's marks name cells that the Arinama board does not have (zz): check "
        "the observation"
    )
    assert "lines 1, 2, 3, 4, 5 and 6" in said[-1]
    assert out[-1].startswith("[1] White: place a stone")  # C3 is c3


def test_wrong_layout_for_the_game_is_named(tmp_path, capsys, monkeypatch):
    args = ["--game", "arinama", "--observations", "-", "--db", str(tmp_path / "r.sqlite3")]
    code, _out, err = run(capsys, monkeypatch, args, [observation({}, "arimaa")])
    assert code == 0  # reported per line; the 8x8 Arinama board has a1..h8 too
    bad = json.dumps({"cells": {"r1-1": "amber"}})
    code, _out, err = run(capsys, monkeypatch, args, [bad])
    assert code == 2 and len(err.strip().splitlines()) == 2, err  # the line, then the exit
    assert "the camera sees cells that the Arinama board does not have (r1-1)" in err
    assert "?" not in err and "a Arinama" not in err
    named = json.dumps({"cells": {"z9": "black"}, "layout": "arinama5"})
    code, _out, err = run(capsys, monkeypatch, args, [named])
    assert code == 2 and len(err.strip().splitlines()) == 2, err
    assert "the camera layout arinama5 has cells that the Arinama board does not have (z9)" in err


def test_help_shows_the_corners_as_the_command_takes_them(capsys):
    with pytest.raises(SystemExit):
        cli.main(["referee", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert '--corners "x,y x,y x,y x,y"' in out and "X,Y" not in out


def test_input_words():
    assert parse_input("Enter").kind == "done"
    assert parse_input("choose dog").value == "dog"
    with pytest.raises(Exception, match="choose needs the choice"):
        parse_input("choose")


def test_text_lines_list_the_choices(tmp_path, capsys, monkeypatch):
    args = ["--game", "arimaa", "--observations", "-", "--db", str(tmp_path / "r.sqlite3")]
    code, out, _ = run(capsys, monkeypatch, args, [])
    assert out[-1].endswith("- type: choose standard, or choose Ra1 Rb1 ... (your own setup)")


@pytest.fixture(scope="module")
def arinama5_calibration(tmp_path_factory):
    """A calibration of the Arinama 5 x 5 mat on the synthetic table (its start stones)."""
    from vision.calibration import calibrate
    from vision.locate import locate
    from vision.sim import SimTable

    start = {"c3": "black", "d3": "white", "c2": "white", "b3": "black"}
    table = SimTable("arinama5", seed=3, size=(640, 360), tilt=12.0)
    picture = table.render(start)
    calibration = calibrate(picture, locate(picture, "arinama5").homography, table.layout, start)
    path = tmp_path_factory.mktemp("cal") / "a5.cal.json"
    calibration.save(path)
    return str(path)


def test_the_camera_s_board_is_the_calibration_s_and_must_be_the_game_s(
    tmp_path, capsys, monkeypatch, arinama5_calibration
):
    """Without --layout the camera reads the board its calibration was made on, and an
    Arinama game takes that board's size; a calibration of another board than the game's (or
    than --layout) is one line before anything starts - never a game that waits for ever."""
    db = tmp_path / "r.sqlite3"
    source = ["--source", "sim:arinama5?size=640x360&moves=0&still=5", "--max-frames", "3"]
    cal = ["--calibration", arinama5_calibration, "--db", str(db)]
    code, out, _ = run(capsys, monkeypatch, ["--game", "arinama", *source, *cal], [])
    assert code == 0 and out[0] == "New Arinama game 1"
    options = Records(db, readonly=True).game(1).summary.options
    assert (options["rows"], options["cols"]) == (5, 5)
    for args, message in [
        (
            ["--game", "arimaa"],
            "made for layout arinama5 (25 cells), which is not the Arimaa board",
        ),
        (["--game", "arinama", "-o", "rows=8", "-o", "cols=8"], "(64 cells)"),
        (["--game", "arinama", "--layout", "arinama8"], "made for layout arinama5, not arinama8"),
    ]:
        code, _out, err = run(capsys, monkeypatch, [*args, *source, *cal, "--new"], [])
        assert code == 2 and message in err and err.count("\n") == 1, err
    assert len(Records(db, readonly=True).games()) == 1  # none of them started a game


def test_a_board_the_camera_does_not_find_is_said_with_why(
    tmp_path, capsys, monkeypatch, arinama5_calibration
):
    """The camera looks at another mat than the calibration's: after a few seconds of its
    frames a line on stderr says why the board is not found, and a camera that ends without
    ever showing it is an error saying why (it ended with exit status 0: a player's trial)."""
    args = [
        "--game",
        "arinama",
        "--source",
        "sim:arinama8?size=640x360&moves=0&still=200",
        "--calibration",
        arinama5_calibration,
        "--max-frames",
        "120",
        "--db",
        str(tmp_path / "r.sqlite3"),
    ]
    code, out, err = run(capsys, monkeypatch, args, [])
    # (the calibration's stones may still be on the board: the board is seen first)
    assert code == 2 and out == ["New Arinama game 1", "[0] Waiting for a clear view of the board"]
    assert err.count("the board is not found yet: no markers of layout arinama5 seen") == 1, err
    last = err.strip().splitlines()[-1]
    assert last.startswith("companion: error: the board was never found in 120 frames: no mark")
    records = Records(tmp_path / "r.sqlite3", readonly=True)
    assert records.unfinished_games() == []  # the empty game is not offered to be continued


@pytest.mark.parametrize(
    "args, message",
    [
        (["--still-seconds", "-1"], "--still-seconds must be 0 or more, not -1.0"),
        (["--still-seconds", "nan"], "--still-seconds must be 0 or more, not nan"),
        (["--max-frames", "-5"], "--max-frames must be 0 (never stop) or more, not -5"),
    ],
)
def test_camera_settings_out_of_range_are_refused_before_anything_starts(
    tmp_path, capsys, monkeypatch, args, message
):
    """A player's trial: a negative --still-seconds or --max-frames was taken without a word
    when the observations came from a file (the tracker refuses them only with a camera)."""
    db = tmp_path / "r.sqlite3"
    argv = ["--game", "arinama", "--observations", "-", "--db", str(db), *args]
    code, _out, err = run(capsys, monkeypatch, argv, [])
    assert code == 2 and message in err and err.count("\n") == 1
    assert not db.exists()  # no game was started


def test_the_text_lines_say_what_the_dice_showed(tmp_path, capsys, monkeypatch):
    """Aranea's opening rolls in text mode (a player's trial): the lines said "press ROLL to
    see who starts" again and again - a tie - without ever saying what was rolled."""
    db = tmp_path / "r.sqlite3"
    argv = ["--game", "aranea", "--observations", "-", "--db", str(db), "--seed", "3"]
    code, out, _ = run(capsys, monkeypatch, argv, ["roll"] * 4)
    rolls = [line.strip() for line in out if "rolled" in line]
    assert code == 0 and rolls[:2] == [
        "Amber rolled 7 (2 and 5)",
        "Blue rolled 7 (5 and 2)",
    ]  # a tie
    rolled = Records(db, readonly=True).game(1).rolls
    assert [r.dice for r in rolled[:2]] == [(2, 5), (5, 2)]


def test_dice_rolled_while_the_instruction_stays_are_shown_too(tmp_path, capsys, monkeypatch):
    """After a restart the referee waits for the board, and rolls pressed then were recorded
    but never printed: the line is printed when the instruction changes (a player's trial)."""
    db = tmp_path / "r.sqlite3"
    argv = ["--game", "aranea", "--observations", "-", "--db", str(db), "--seed", "3"]
    run(capsys, monkeypatch, argv, ["roll"] * 3)
    argv[-1] = "5"
    code, out, _ = run(capsys, monkeypatch, argv, ["roll", "roll"])
    assert code == 0 and out[0] == "Continuing Aranea game 1 at move 1"  # 3 opening rolls
    rolled = [line.strip() for line in out if "rolled" in line]
    with Records(db, readonly=True) as records:
        stored = records.game(1).rolls[3:]
    assert len(rolled) == len(stored) == 2
    for line, roll in zip(rolled, stored, strict=True):
        assert line.endswith(f"({roll.dice[0]} and {roll.dice[1]})"), (line, roll)


def test_an_input_that_does_not_apply_now_is_said_so(tmp_path, capsys, monkeypatch):
    """`roll` in Sensei, `undo` with nothing to take back: nothing changed and nothing was
    said, exit 0 - a typed line seemed to vanish."""
    db = tmp_path / "r.sqlite3"
    argv = ["--game", "sensei", "--observations", "-", "--db", str(db)]
    code, out, _ = run(capsys, monkeypatch, argv, ["roll", "choose dog", "undo", "right"])
    assert code == 0
    said = [line.strip() for line in out if line.strip().startswith("(")]
    assert said == [
        "(roll: nothing to do with that now)",
        "(choose dog: nothing to do with that now)",
        "(undo: there is no move to take back yet)",  # why (`Referee.nothing_to_undo`)
        "(right: nothing to do with that now)",  # as typed, not its kind (board-right)
    ]
    code, out, _ = run(capsys, monkeypatch, [*argv, "--json"], ["roll"])
    assert {"type": "input", "input": "roll", "applies": False} in [json.loads(x) for x in out]


def test_a_bad_setup_line_starts_no_game(tmp_path, capsys, monkeypatch):
    """`--setup 'Ra1 foo'` printed "New Arimaa game 1" and then refused the line, leaving an
    unfinished game in the records (a player's trial): the line is checked first."""
    db = tmp_path / "r.sqlite3"
    argv = ["--game", "arimaa", "--observations", "-", "--db", str(db), "--setup", "Ra1 foo"]
    code, out, err = run(capsys, monkeypatch, argv, [])
    assert code == 2 and out == [] and "'foo': Gold is setting up" in err
    assert not db.exists()


def a_truncated_game_record(tmp_path, capsys):
    """The first 400 characters of a real game record (`companion play --save`): JSON, but no
    observation a line."""
    record = tmp_path / "game.json"
    assert cli.main(["play", "sensei", "--auto", "--seed", "1", "--save", str(record)]) == 0
    capsys.readouterr()
    truncated = tmp_path / "truncated.json"
    truncated.write_text(record.read_text(encoding="utf-8")[:400], encoding="utf-8")
    return truncated


def test_a_file_that_is_not_observations_is_one_line_and_touches_no_game(
    tmp_path, capsys, monkeypatch
):
    """A player's trial: a truncated game record given as --observations printed ~50 lines of
    "unknown input '"b1",'" and exited 0, after "Continuing Sensei game 1 at move 0" (or
    "New Sensei game 1"). It is one line saying what an observations file is, exit 2, and the
    records are as they were."""
    db = tmp_path / "r.sqlite3"
    argv = ["--game", "sensei", "--db", str(db), "--observations"]
    code, out, err = run(
        capsys, monkeypatch, [*argv, str(a_truncated_game_record(tmp_path, capsys))], []
    )
    assert code == 2 and out == [] and err.count("\n") == 1, err
    assert "truncated.json is not an observations file (line 1: an observation line is" in err
    assert 'JSON lines such as {"cells": {"a1": "black", ...}}' in err and "done, roll" in err
    assert not db.exists()
    # an unfinished game is not "continued" by it either (one line taken: a game was played)
    code, _out, _err = run(capsys, monkeypatch, [*argv, "-"], ["hands off"])
    assert code == 0 and [g.moves for g in Records(db, readonly=True).games()] == [0]
    whole = tmp_path / "whole.json"  # a JSON document over several lines, not JSON lines
    whole.write_text(json.dumps({"cells": {"a1": "black"}}, indent=1), encoding="utf-8")
    code, out, err = run(capsys, monkeypatch, [*argv, str(whole)], [])
    assert code == 2 and out == [] and err.count("\n") == 1, err
    assert "whole.json is not an observations file (it is one JSON document over 5 lines" in err
    other = tmp_path / "z9.jsonl"  # observations, but of no cell of this board
    other.write_text('{"cells": {"z9": "black"}}\n', encoding="utf-8")
    code, out, err = run(capsys, monkeypatch, [*argv, str(other)], [])
    assert code == 2 and out == [] and err.count("\n") == 1, err
    assert f"no line of {other} fits the Sensei board (line 1: the camera sees cells" in err
    summaries = Records(db, readonly=True).games()
    assert [(g.id, g.moves, g.status) for g in summaries] == [(1, 0, "playing")]


def test_a_folder_given_as_observations_is_named(tmp_path, capsys, monkeypatch):
    """A player's trial: `--observations /tmp` said "cannot read observations from /tmp: Is a
    directory"."""
    db = tmp_path / "r.sqlite3"
    argv = ["--game", "sensei", "--observations", str(tmp_path), "--db", str(db)]
    code, out, err = run(capsys, monkeypatch, argv, [])
    assert code == 2 and out == [] and err.count("\n") == 1, err
    assert f"--observations {tmp_path} is a folder: give a file of observation lines" in err
    assert "or - for standard input" in err and "Is a directory" not in err
    assert not db.exists()


def test_bad_lines_of_a_file_are_named_by_number_and_end_with_exit_2(tmp_path, capsys, monkeypatch):
    """A player's trial: a bad observation line was reported and the run exited 0. Each bad
    line is named with its number, the lines after it are still taken, the moves stay
    recorded, and the run ends with exit 2 saying which lines were not taken."""
    db = tmp_path / "r.sqlite3"
    five = {"rows": 5, "cols": 5}
    seen = tmp_path / "seen.jsonl"
    lines = [
        observation({"c3": "black"}, options=five),
        '{"cells": {"z9": "black"}}',
        "",
        "dnoe",
        observation({"c3": "black", "d4": "white"}, options=five),
    ]
    seen.write_text("".join(f"{x}\n" for x in lines), encoding="utf-8")
    argv = ["--game", "arinama", "--layout", "arinama5", "--observations", str(seen)]
    code, out, err = run(capsys, monkeypatch, [*argv, "--db", str(db)], [])
    said = err.strip().splitlines()
    assert code == 2 and len(said) == 3, err
    assert said[0].startswith(
        f"companion: {seen} line 2: the camera sees cells that the Arinama board does not have (z9)"
    )
    assert said[1].startswith(f"companion: {seen} line 4: unknown input 'dnoe'")
    assert said[2] == (
        f"companion: error: 2 lines of {seen} were not taken (lines 2 and 4, said above); "
        "the moves of the others are recorded in game 1"
    )
    assert out[-1].startswith("[2] Black: place a stone")
    assert [m.text for m in Records(db, readonly=True).game(1).moves] == ["c3", "d4"]


def an_arimaa_calibration(tmp_path):
    """A calibration of the Arimaa mat on the synthetic table (`vision snapshot sim:arimaa`
    then `vision calibrate`): gold and silver pieces."""
    photo, position, calibration = (tmp_path / n for n in ("p.png", "p.json", "cal.json"))
    assert (
        cli.main(
            ["vision", "snapshot", "sim:arimaa", "-o", str(photo), "--position", str(position)]
        )
        == 0
    )
    assert (
        cli.main(
            ["vision", "calibrate", str(photo), "--position", str(position), "-o", str(calibration)]
        )
        == 0
    )
    return str(calibration)


def test_a_calibration_of_another_game_s_pieces_starts_no_game(tmp_path, capsys, monkeypatch):
    """A player's trial: an Arimaa calibration (8 x 8 cells, gold and silver pieces) for an
    Arinama game printed "New Arinama game 1", then failed with "calibrate the camera for this
    game", leaving a 0-move game to be continued. The pieces are checked before the start."""
    db = tmp_path / "r.sqlite3"
    calibration = an_arimaa_calibration(tmp_path)
    capsys.readouterr()
    argv = ["--game", "arinama", "--source", "sim:arimaa", "--calibration", calibration]
    code, out, err = run(capsys, monkeypatch, [*argv, "--db", str(db)], [])
    assert code == 2 and out == [] and err.count("\n") == 1, err
    assert "cal.json does not fit Arinama: the camera reports gold, silver pieces" in err
    assert not db.exists()


def test_an_unfinished_game_that_does_not_replay_says_to_start_a_new_one(
    tmp_path, capsys, monkeypatch
):
    """An unfinished game whose stored moves no longer replay (a move written in by another
    program) failed every run with the engine's words only; it now says to start a new game
    with --new, and --new does."""
    import sqlite3

    db = tmp_path / "r.sqlite3"
    five = {"rows": 5, "cols": 5}
    args = ["--game", "arinama", "--layout", "arinama5", "--observations", "-", "--db", str(db)]
    run(capsys, monkeypatch, args, [observation({"c3": "black"}, options=five)])
    conn = sqlite3.connect(db)
    first, position = conn.execute("SELECT move, position FROM moves WHERE ply = 1").fetchone()
    conn.execute(  # the first move again, on the cell it holds: illegal
        "INSERT INTO moves (game_id, ply, move, position, played_at) VALUES (1, 2, ?, ?, ?)",
        (first, position, "x"),
    )
    conn.commit()
    conn.close()
    code, _out, err = run(capsys, monkeypatch, args, [])
    assert code == 2 and "Traceback" not in err
    assert "the unfinished Arinama game 1 cannot be continued (game 1, move 2" in err
    assert "start a new game with --new (it stays in the records as it is)" in err
    code, out, _err = run(capsys, monkeypatch, [*args, "--new"], ["hands off"])
    assert code == 0 and "New Arinama game 2" in out[0]


def test_a_smaller_board_s_observations_are_refused_not_played(tmp_path, capsys, monkeypatch):
    """A review: a 5 x 5 mat's observations, every cell listed as the tracker lists them, were
    taken into an 8 x 8 game and recorded moves no one made there. An observation that says
    which cells are empty and leaves some of the board's out is of another board: refused
    before a game starts. A hand-made line naming only the pieces still covers no board."""
    db = tmp_path / "r.sqlite3"
    five = {"rows": 5, "cols": 5}
    seen = tmp_path / "five.jsonl"
    seen.write_text(observation({"c3": "black"}, options=five) + "\n")
    code, _out, err = run(
        capsys, monkeypatch, ["--game", "arinama", "--observations", str(seen), "--db", str(db)], []
    )
    assert code == 2 and "Traceback" not in err
    assert "the camera sees 25 of the Arinama board's 64 cells, not a6, " in err
    assert "choose the layout for Arinama" in err
    assert not db.exists() or not Records(db, readonly=True).games()  # no game was started
    pieces_only = tmp_path / "pieces.jsonl"
    pieces_only.write_text(json.dumps({"cells": {"c3": "black"}}) + "\n")
    args = ["--game", "arinama", "--observations", str(pieces_only), "--db", str(db)]
    assert run(capsys, monkeypatch, args, [])[0] == 0


def test_a_game_continued_after_its_start_takes_a_move_made_while_down(tmp_path):
    """With a camera, a game continued at move 1 took the stone White had placed meanwhile
    for a calibration piece to take off (a review): only a game at its start may have them."""
    import argparse

    from companion.commands.referee import _referee
    from companion.dice import Dice
    from companion.referee.core import Referee, observation_of

    position = games.get("arinama").new({"rows": 5, "cols": 5})
    names = position.cell_names()
    with Records(tmp_path / "r.sqlite3") as records:
        first = Referee(position.copy(), records=records)
        first.observe(observation_of(names, {}))
        first.observe(observation_of(names, {"c3": "black"}))
        assert len(first.position.move_stack) == 1
        args = argparse.Namespace(new=False, game="arinama")
        classes = ("empty", "black", "white")
        referee, resumed = _referee(args, position, records, Dice(seed=1), classes)
        assert resumed and not referee.calibration_pieces
        referee.observe(observation_of(names, {"c3": "black", "c4": "white"}))
        assert len(referee.position.move_stack) == 2  # White's stone, placed while down


def test_done_typed_while_a_hand_is_over_the_board_waits_for_the_next_board(
    tmp_path, capsys, monkeypatch
):
    start = games.get("sensei").new().cells()
    first = {**start, "b4": start["b1"]}
    del first["b1"]
    second = {**first, "f4": first["f1"]}
    del second["f1"]
    lines = [
        observation(start, "sensei"),
        observation(first, "sensei"),
        "hands on",
        "done",  # the hand is still over the board, making the second stone move
        "hands off",
        observation(second, "sensei"),
    ]
    db = tmp_path / "r.sqlite3"
    args = ["--game", "sensei", "--observations", "-", "--db", str(db)]
    code, out, _ = run(capsys, monkeypatch, args, lines)
    assert code == 0
    assert out[-2].endswith("DONE is taken as soon as the camera sees the board still)")
    assert out[-1].startswith("[1] Red:")
    assert [m.text for m in Records(db, readonly=True).game(1).moves] == ["b1-b4 f1-f4"]


@pytest.mark.parametrize("status", ["moving", "searching", "board-moved", "dark"])
def test_a_done_held_asks_the_camera_for_the_next_still_board(status):
    """The tracker passes on a board only when it changed: `companion referee` with a camera
    asks it for the next still board when a typed done is held (a review found that leaving
    the request out failed no test) - held while a hand just left, and while the camera
    looks for the board again or reads a mat that moved."""
    from companion.referee.protocol import DONE, PlayerInput

    class Tracker:
        requests = 0

        def request(self):
            self.requests += 1

        def learn_from_board(self, frame, board):
            return False

    tracker = Tracker()
    tracker.status = status
    session = Session(Referee(games.get("sensei").new()), emit=lambda line: None, tracker=tracker)
    session.handle(PlayerInput(DONE))
    assert session.referee.held is not None and tracker.requests == 1


def test_the_referee_s_unsettled_views_are_the_tracker_s_own_states():
    """The referee knows no vision (its views are plain strings); these are the tracker's
    states in which its last board may not be the board as it is - the same words."""
    from companion.referee.protocol import UNSETTLED_VIEWS
    from vision import tracker

    assert set(UNSETTLED_VIEWS) == {
        tracker.MOVING,
        tracker.SEARCHING,
        tracker.BOARD_MOVED,
        tracker.DARK,
    }


def test_observations_need_no_printed_mat_and_an_empty_input_plays_no_game(
    tmp_path, capsys, monkeypatch
):
    """A trial: `-o rows=4 -o cols=4 --observations -` was refused for want of a printed mat
    (no camera reads it; --layout grid:4x4 worked); an empty observations file, or standard
    input closed at once, left a game "playing" that no line was taken for."""
    db = tmp_path / "r.sqlite3"
    small = ["--game", "arinama", "-o", "rows=4", "-o", "cols=4", "--db", str(db)]
    code, out, _ = run(capsys, monkeypatch, [*small, "--observations", "-"], ['{"cells": {}}'])
    assert code == 0 and out[:2] == ["New Arinama game 1", "[0] Black: place a stone"]
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n# nothing yet\n")
    code, out, err = run(capsys, monkeypatch, [*small, "--observations", str(empty), "--new"], [])
    assert code == 2 and out == [] and "holds no observation or input line" in err
    code, out, err = run(capsys, monkeypatch, [*small, "--observations", "-", "--new"], [])
    assert (
        code == 2 and "standard input gave no observation or input line: no game was played" in err
    )
    statuses = [g.status for g in Records(db, readonly=True).games()]
    assert sorted(statuses) == ["abandoned", "playing"]  # the first game, and stdin's


def test_max_frames_0_reads_frames_until_the_source_ends_as_vision_track_does(
    tmp_path, capsys, monkeypatch, arinama5_calibration
):
    """A trial: `referee --max-frames 0` read no frame and recorded an abandoned game, where
    `vision track --max-frames 0` reads every frame (its default)."""
    args = [
        "--game",
        "arinama",
        "--source",
        "sim:arinama5?size=640x360&moves=0&still=20",
        "--calibration",
        arinama5_calibration,
        "--max-frames",
        "0",
        "--db",
        str(tmp_path / "r.sqlite3"),
    ]
    code, out, err = run(capsys, monkeypatch, args, [])
    assert code == 0, err
    assert out[0] == "New Arinama game 1" and len(out) >= 2
    assert Records(tmp_path / "r.sqlite3", readonly=True).games()[0].status == "playing"


def test_with_a_camera_typed_boards_and_hands_are_refused_and_the_help_says_what_is_taken():
    """A trial: with --source, the help for a mistyped line still offered `hands on/off` and
    "an observation as JSON" - and such lines were taken over what the camera saw."""

    class Tracker:
        status = "still"

    session = Session(
        Referee(games.get("arinama").new()), emit=lambda line: None, tracker=Tracker()
    )
    for line, said in [
        ("hands on", "'hands on' is for --observations"),
        ('{"cells": {"c3": "black"}}', "an observation is for --observations"),
        ("dance", "unknown input 'dance': type done, roll"),
    ]:
        with pytest.raises(UserError) as raised:
            session.handle_line(line)
        message = str(raised.value)
        assert message.startswith(said) and "the camera sees the board and the hands" in message
        assert "hands on/off" not in message and "as JSON" not in message
    assert session.referee.board is None  # nothing typed was taken as the board
