"""Bad input a careless user gives the CLI, each in a real process: one line naming what is
wrong, exit 2, no traceback, nothing quoted at length; and a finished game saved before its
result is announced."""

import json
import os
import signal
import subprocess
import sys

import pytest

from companion import games
from companion.records import Records

RECORD = {"format": "tabletop-companion/game", "version": 1, "game": "arinama", "moves": []}


def companion(*args, cwd=None, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )


def one_line_error(result, *words):
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr[:500])
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr[:2000]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_replay_of_a_record_with_a_5000_digit_number(tmp_path):
    text = json.dumps(RECORD).replace('"version": 1', '"version": ' + "9" * 5000)
    line = one_line_error(companion("replay", write(tmp_path / "big.json", text)), "digits")
    assert len(line) < 200


@pytest.mark.parametrize(
    "record, words",
    [
        ({k: v for k, v in RECORD.items() if k != "moves"}, ['needs a "moves" list']),
        ({**RECORD, "start": None}, ['"start" is null']),
    ],
)
def test_replay_refuses_a_record_missing_its_moves_or_with_a_null_start(tmp_path, record, words):
    one_line_error(companion("replay", write(tmp_path / "g.json", json.dumps(record))), *words)


@pytest.mark.parametrize(
    "outcome, words",
    [
        ("white", ['"outcome" must be null or an object', "'white'", "write null"]),
        ({"winner": "red", "reason": "resignation"}, ['"outcome" winner', "'red'"]),
        ({"winner": "white", "reason": 3}, ['"outcome" reason', "3"]),
        ({}, ['"outcome" has no winner and reason', "winner null for a draw"]),
        ({"reason": "resignation"}, ['"outcome" has no winner:']),
        ({"winner": None, "reason": " "}, ['"outcome" reason', "' '"]),
    ],
)
def test_replay_refuses_a_malformed_outcome_in_one_line(tmp_path, outcome, words):
    """A bare "white" as the outcome was ignored without a word (exit 0); an empty object was
    taken as a draw for no reason."""
    record = {**RECORD, "moves": ["c3"], "outcome": outcome}
    one_line_error(companion("replay", write(tmp_path / "g.json", json.dumps(record))), *words)
    good = {**RECORD, "moves": ["c3"], "outcome": {"winner": "white", "reason": "resignation"}}
    result = companion("replay", write(tmp_path / "ok.json", json.dumps(good)))
    assert result.returncode == 0 and "the record says white wins" in result.stdout


def test_replay_of_a_move_that_is_not_text_says_so_once(tmp_path):
    """A fuzzing trial: "move 1 ([1, [2]]): move 1 is not text: [1, [2]]" said it twice and
    not what to write instead."""
    record = {**RECORD, "moves": ["c3", [1, [2]]]}
    result = companion("replay", write(tmp_path / "g.json", json.dumps(record)))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    first = result.stdout.splitlines()[0]
    assert first == (
        "Arinama: illegal move 2 ([1, [2]]): not text: write each move as a string in the "
        "game's notation"
    )


def test_export_of_an_id_too_big_for_sqlite(tmp_path):
    db = tmp_path / "r.sqlite3"
    with Records(db):
        pass
    one_line_error(
        companion("export", "99999999999999999999999", "--db", str(db)),
        "there is no game 99999999999999999999999",
    )
    huge = companion("export", "9" * 5000, "--db", str(db))  # argparse quotes the value
    assert len(one_line_error(huge, "invalid int value")) < 200


@pytest.mark.parametrize("game", ["arinama", "arimaa", "aranea", "sensei"])
def test_a_huge_position_file_is_quoted_as_an_excerpt_only(tmp_path, game):
    path = write(tmp_path / "position.txt", "x" * 2_000_000 + "\n")
    line = one_line_error(companion("moves", game, "--position", path))
    assert len(line) < 300


@pytest.mark.parametrize(
    "option, words",
    [
        ("rows=٥", ["arinama", "rows", "0-9"]),
        ("cols=５", ["arinama", "cols", "0-9"]),
    ],
)
def test_options_take_only_ascii_digits(option, words):
    one_line_error(companion("play", "arinama", "-o", option, "--auto"), *words)


def test_an_empty_pit_list_is_refused():
    one_line_error(
        companion("play", "sensei", "-o", "side=storm", "-o", "pits=", "--auto"),
        "pits is empty",
    )


@pytest.mark.parametrize(
    "command, target",
    [
        ("export 1 -o /proc/x.json --db {tmp}/r.sqlite3", "cannot write /proc/x.json"),
        ("play arinama --auto --save /proc/x.json", "cannot save to /proc/x.json"),
        ("mat arinama5 -o /proc/mat.png", "cannot write /proc/mat.png"),
        ("vision snapshot sim:arinama5 -o /proc/p.png --position {tmp}/p.json", "/proc/p.png"),
        ("vision calibrate {tmp}/a5.png --position {tmp}/a5.json -o /proc/c.json", "/proc/c.json"),
    ],
)
def test_a_file_in_a_folder_that_takes_none_names_the_file_and_why(tmp_path, command, target):
    """A player's trial: `export -o /proc/x` said "cannot write in /proc: No such file or
    directory" - the folder, in the system's words, which say it is not there. Every command
    that writes a file names the file and the cause in the same words. (/proc is Linux's, as
    the companion is: a Raspberry Pi, CI on Linux.)"""
    from companion import games

    with Records(tmp_path / "r.sqlite3") as records:
        records.new_game(games.get("arinama").new({"rows": 5, "cols": 5}))
    if "calibrate" in command:
        made = companion("vision", "snapshot", "sim:arinama5", "-o", str(tmp_path / "a5.png"),
                         "--position", str(tmp_path / "a5.json"))  # fmt: skip
        assert made.returncode == 0, made.stderr
    result = companion(*command.replace("{tmp}", str(tmp_path)).split())
    line = one_line_error(result, f"{target}: the folder /proc takes no new files - give a path")
    assert "No such file" not in line


def test_ctrl_c_right_after_the_result_keeps_the_saved_game(tmp_path):
    """The record is on disk before `result:` is printed: an interrupt then loses nothing."""
    target = tmp_path / "t.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", "play", "arinama", "--auto", "--seed", "1",
         "--save", str(target)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    saved_when_shown = None
    for line in process.stdout:
        if line.startswith("result:"):
            process.send_signal(signal.SIGSTOP)  # freeze it the moment the result is out
            saved_when_shown = target.exists()
            process.send_signal(signal.SIGINT)
            process.send_signal(signal.SIGCONT)
            break
    process.communicate(timeout=60)
    assert saved_when_shown, "the finished game was not saved before its result was shown"
    assert target.exists()
    replayed = companion("replay", str(target))
    assert replayed.returncode == 0 and "black wins" in replayed.stdout


@pytest.mark.parametrize("given", ["record", "folder"])
def test_referee_observations_that_are_none_are_one_line_and_leave_the_records(tmp_path, given):
    """A player's trial, in a real process: a truncated game record as --observations printed
    a line per line of it and exited 0 after starting a game; a folder said "Is a directory".
    One line, exit 2, and an unfinished game in the records stays as it was."""
    from companion import games

    db = tmp_path / "r.sqlite3"
    with Records(db) as records:
        records.new_game(games.get("sensei").new())
    if given == "record":
        whole = json.dumps({**RECORD, "game": "sensei", "moves": ["b1", "b2"]}, indent=1)
        observations = write(tmp_path / "game.json", whole[: len(whole) // 2])
        words = [f"{observations} is not an observations file", '{"cells": {"a1": "black"']
    else:
        observations = str(tmp_path)
        words = [f"--observations {tmp_path} is a folder: give a file of observation lines"]
    result = companion(
        "referee", "--game", "sensei", "--observations", observations, "--db", str(db)
    )
    one_line_error(result, *words)
    assert result.stdout == ""  # no "Continuing Sensei game 1 at move 0"
    summaries = Records(db, readonly=True).games()
    assert [(s.id, s.moves, s.status) for s in summaries] == [(1, 0, "playing")]


def test_a_photo_cut_short_is_said_to_be_damaged_in_one_line(tmp_path):
    """A new player's trial: a PNG cut short printed the decoder's own "libpng error: Read
    Error" before our line, which called it no image file at all. One line now says what it
    is - a PNG, damaged or cut short - and a file that is no photo is said to be none."""
    made = companion("vision", "snapshot", "sim:arimaa?size=320x180", "-o", "photo.png",
                     "--position", "p.json", cwd=tmp_path)  # fmt: skip
    assert made.returncode == 0, made.stderr
    whole = (tmp_path / "photo.png").read_bytes()
    (tmp_path / "cut.png").write_bytes(whole[: len(whole) // 2])
    cut = companion("vision", "locate", "cut.png", cwd=tmp_path)
    assert cut.returncode == 2 and "libpng" not in cut.stderr
    assert cut.stderr.strip().splitlines() == [
        "companion: error: cannot read image cut.png: it is a PNG file, but damaged or cut "
        "short - copy or take the photo again"
    ]
    (tmp_path / "notes.png").write_text("not a photo")
    notes = companion("vision", "locate", "notes.png", cwd=tmp_path)
    assert notes.returncode == 2 and "not an image file OpenCV knows" in notes.stderr


@pytest.mark.parametrize(
    "argv, words",
    [
        (["mat", "arinama5", "-o", "-"], ["-o - names no file", "give a file name"]),
        (["mat", "arinama5", "-o", "m."], ["m. ends in a dot: give m.pdf or m.png, or m for both"]),
        (["play", "arinama", "--auto", "--seed", "1", "--save", "-"], ["--save - names no file"]),
        (["vision", "snapshot", "sim:arinama5", "-o", "-", "--position", "{}"], ["-o -"]),
    ],
)
def test_a_dash_as_the_file_to_write_is_refused_not_made_a_file_named_dash(tmp_path, argv, words):
    """A fuzzing trial: `mat -o -` wrote -.png and -.pdf, and `--save -`, `vision ... -o -` a
    file named "-". (`export -o -` prints to standard output, as without -o.)"""
    one_line_error(companion(*argv, cwd=tmp_path), *words)
    assert list(tmp_path.iterdir()) == []


def test_dot_slash_dash_names_the_file_called_dash(tmp_path):
    """`./-` is how a file named "-" is given: only a bare "-" names no file. (`export -o ./-`
    and `play --save ./-` were refused as "-o - names no file here": a Path of "./-" reads
    "-".)"""
    with Records(tmp_path / "r.sqlite3") as db:
        game_id = db.new_game(games.get("arinama").new())
    exported = companion("export", str(game_id), "-o", "./-", "--db", "r.sqlite3", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert json.loads((tmp_path / "-").read_text())["game"] == "arinama"
    (tmp_path / "-").unlink()
    saved = companion("play", "arinama", "--auto", "--seed", "1", "--save", "./-", cwd=tmp_path)
    assert saved.returncode == 0, saved.stderr
    assert json.loads((tmp_path / "-").read_text())["game"] == "arinama"


def test_the_commands_a_line_suggests_are_as_the_player_types_them(tmp_path, capsys, monkeypatch):
    """Run through ./dev, the companion is not on the player's PATH: every command an error
    or a note suggests - the records', a wrong option's --help - starts
    "./dev companion", as the demo's lines do; run as the installed `companion`, plain."""
    from companion.cli import main
    from companion.records import Records

    db = tmp_path / "r.sqlite3"
    Records(db).close()
    monkeypatch.setenv("COMPANION_COMMAND", "./dev companion")
    assert main(["export", "7", "--db", str(db), "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert f"`./dev companion games --db {db}` lists them" in err
    with pytest.raises(SystemExit):
        main(["games", "--frobnicate"])
    assert "(see './dev companion games --help')" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--frobnicate"])
    assert "(see './dev companion --help')" in capsys.readouterr().err
    monkeypatch.delenv("COMPANION_COMMAND")
    assert main(["export", "7", "--db", str(db), "--format", "json"]) == 2
    assert f"`companion games --db {db}` lists them" in capsys.readouterr().err
