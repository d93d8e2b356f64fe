"""`companion referee` at a terminal: observations and inputs as lines, errors as one line."""

import json

import pytest

from companion import cli, games
from companion.records import Records
from companion.referee.runner import parse_input


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
    assert code == 0
    assert out == [
        "New Arinama game 1",
        "[0] Black: place a stone",
        "[1] White: place a stone",
        "[2] Black: place a stone (Next to one of your stones)",
        "[2] Press DONE to take back d4 (Both players must agree; BACK again also agrees, "
        "CANCEL keeps the move)",
        "[1] Take the white stone off d4 (Put the board back as it was)",
    ]
    assert "unknown input 'nonsense'" in err
    assert [m.text for m in Records(db).game(1).moves] == ["c3"]


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
    assert [r.value for r in Records(db).game(1).rolls] == [7]


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
    assert [m.text for m in Records(db).game(1).moves] == [gold, silver]


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
    assert not db.exists() or Records(db).games() == []


def test_a_bad_observation_line_is_reported_and_the_referee_goes_on(tmp_path, capsys, monkeypatch):
    args = ["--game", "arinama", "--observations", "-", "--db", str(tmp_path / "r.sqlite3")]
    lines = ['{"cells": 5}', "{not json", observation({"c3": "black"})]
    code, out, err = run(capsys, monkeypatch, args, lines)
    assert code == 0
    assert 'needs "cells"' in err and "not valid JSON" in err
    assert out[-1].startswith("[1] White: place a stone")


def test_wrong_layout_for_the_game_is_named(tmp_path, capsys, monkeypatch):
    args = ["--game", "arinama", "--observations", "-", "--db", str(tmp_path / "r.sqlite3")]
    code, _out, err = run(capsys, monkeypatch, args, [observation({}, "arimaa")])
    assert code == 0  # reported per line; the 8x8 Arinama board has a1..h8 too
    bad = json.dumps({"cells": {"r1-1": "amber"}})
    code, _out, err = run(capsys, monkeypatch, args, [bad])
    assert "cells that a Arinama board does not (r1-1)" in err


def test_input_words():
    assert parse_input("Enter").kind == "done"
    assert parse_input("choose dog").value == "dog"
    with pytest.raises(Exception, match="choose needs the choice"):
        parse_input("choose")


def test_text_lines_list_the_choices(tmp_path, capsys, monkeypatch):
    args = ["--game", "arimaa", "--observations", "-", "--db", str(tmp_path / "r.sqlite3")]
    code, out, _ = run(capsys, monkeypatch, args, [])
    assert out[-1].endswith("- type: choose standard, or choose Ra1 Rb1 ... (your own setup)")
