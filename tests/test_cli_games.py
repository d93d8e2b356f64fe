"""The game commands: play, moves, replay, roll - through `companion.cli.main`, and once for
real in a subprocess."""

import errno
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from shared_data import ARIMAA_GAMES

from companion import games
from companion.cli import main
from companion.commands.play import forced_pass
from companion.games.aranea import AraneaPosition

RECORD = {"format": "tabletop-companion/game", "version": 1, "game": "arinama", "moves": []}


def run(capsys, *argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(code, err, *words):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("companion: error: ")
    assert "Traceback" not in err
    for word in words:
        assert word in lines[0]


# -- play ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["arinama", "aranea"])
def test_play_auto_seed_1_plays_to_a_result(capsys, name):
    code, out, _ = run(capsys, "play", name, "--auto", "--seed", "1")
    assert code == 0
    last = out.strip().splitlines()[-1]
    assert last.startswith("result: ") and (" wins " in last or "draw" in last)


@pytest.mark.parametrize("name", games.names())
def test_play_auto_works_for_every_registered_game(capsys, name):
    code, out, _ = run(capsys, "play", name, "--auto", "--seed", "1", "--max-moves", "300")
    assert code == 0
    assert out.strip().splitlines()[-1].startswith(("result: ", "no result: stopped after 300"))


def test_play_auto_is_repeatable_with_a_seed(capsys):
    first = run(capsys, "play", "aranea", "--auto", "--seed", "7")[1]
    again = run(capsys, "play", "aranea", "--auto", "--seed", "7")[1]
    assert first == again
    assert " roll " in first and " = " in first  # rolls are printed with their value
    # who the opening rolls made first is said, as in a game played by hand
    assert first.count("has the higher opening roll and starts)") == 1


def test_play_auto_max_moves_stops_a_long_game(capsys):
    code, out, _ = run(capsys, "play", "aranea", "--auto", "--seed", "1", "--max-moves", "5")
    assert code == 0
    assert "no result: stopped after 5 moves (--max-moves)" in out


def test_play_from_stdin_explains_illegal_moves_and_asks_again(capsys, monkeypatch):
    moves = "c3\nz9\nc3\na1\nb2\n"
    code, out, err = run(
        capsys,
        "play",
        "arinama",
        "-o",
        "rows=5",
        "-o",
        "cols=5",
        stdin=moves,
        monkeypatch=monkeypatch,
    )
    assert "not played (line 2): 'z9' is not a cell of this 5x5 board" in out
    assert "not played (line 3): c3 is taken by a black stone" in out
    assert "not played: a1 does not touch a white stone" not in out  # white's first: anywhere
    assert "white plays a1" in out and "black plays b2" in out
    assert "(end of input)" in out
    assert "no result yet: stopped after 3 moves, white to play" in out
    # a script piping moves learns that some were not played (it exited 0)
    assert_one_line_error(
        code,
        err,
        "2 lines of standard input were not taken (lines 2 and 3, said above); the others "
        "were played",
    )


def play_on_3x3(capsys, monkeypatch, moves):
    """`companion play arinama` on the 3x3 board, `moves` piped in."""
    options = ["-o", "rows=3", "-o", "cols=3"]
    return run(capsys, "play", "arinama", *options, stdin=moves, monkeypatch=monkeypatch)


def test_play_undo_moves_and_quit(capsys, monkeypatch):
    code, out, _ = play_on_3x3(capsys, monkeypatch, "b2\nmoves\na1\nundo\nc3\nquit\nb1\n")
    assert code == 0
    assert "a1 b1 c1 a2 c2 a3 b3 c3" in out  # white's legal moves: any empty cell
    assert "took back white's a1" in out
    assert "white plays c3" in out
    assert "black plays b1" not in out  # typed after quit
    assert "no result yet: stopped after 2 moves, black to play" in out


def test_play_aranea_rolls_for_the_players_and_undo_keeps_the_roll(capsys, monkeypatch):
    stdin = "place\nundo\nplace\nquit\n"
    code, out, _ = run(
        capsys,
        "play",
        "aranea",
        "-o",
        "first=amber",
        "--seed",
        "3",
        stdin=stdin,
        monkeypatch=monkeypatch,
    )
    assert code == 0
    rolls = [line for line in out.splitlines() if " rolls " in line]
    assert rolls[0].startswith("amber rolls ")
    assert "took back amber's place" in out
    # after the undo amber uses the same roll again; no new roll was made for amber
    assert sum(line.startswith("amber rolls") for line in rolls) == 1


def test_play_aranea_undo_of_the_opponents_move_keeps_the_roll_made_after_it(capsys, monkeypatch):
    # blue places, amber sees a roll she dislikes and takes blue's move back: blue places
    # again, and amber keeps the roll she had - it was rolled anew before
    stdin = "place\nundo\nplace\nquit\n"
    argv = ("play", "aranea", "-o", "first=blue", "--seed", "3")
    code, out, _ = run(capsys, *argv, stdin=stdin, monkeypatch=monkeypatch)
    assert code == 0
    assert "took back blue's place" in out
    amber = re.findall(r"^amber (?:rolls|keeps the roll) (\d and \d) = ", out, re.MULTILINE)
    assert len(amber) == 2 and amber[0] == amber[1], out
    # the undo rolled nothing: the line says when the kept roll was made (docs/games.md)
    assert "\namber keeps the roll 5 and 2 = 7 (rolled before the undo)\n" in out, out


def test_play_names_the_options_as_they_are_typed(capsys, monkeypatch):
    """Not Python's words: "(pits=('c3', 'e5'), ...)", "clash=True"."""
    argv = ("play", "sensei", "-o", "pits=c3,e5", "-o", "no_action=lose")
    code, out, _ = run(capsys, *argv, stdin="", monkeypatch=monkeypatch)
    assert code == 0 and out.startswith("Sensei (pits=c3,e5, no_action=lose): ")
    code, out, _ = run(capsys, "play", "aranea", "-o", "clash=yes", "--auto", "--max-moves", "1")
    assert code == 0 and out.startswith("Aranea: random players (clash=true)\n")


def test_play_aranea_opening_roll_says_who_starts(capsys, monkeypatch):
    code, out, _ = run(capsys, "play", "aranea", "--seed", "1", stdin="", monkeypatch=monkeypatch)
    lines = out.splitlines()
    assert lines[1].startswith("amber rolls ") and lines[2].startswith("blue rolls ")
    starter = next(line for line in lines if "opening roll and starts" in line)
    assert starter.split()[0] in ("amber", "blue")


def test_forced_pass_is_found_only_when_pass_is_the_only_move():
    stones = {f"r{r}-{n}": "amber" for r in (1, 2) for n in range(1, 7)}
    data = {
        "options": {"first": "amber"},
        "phase": "use",
        "turn": "amber",
        "first_player": "amber",
        "roll": "6-6",
        "stones": stones,
    }
    stuck = AraneaPosition.from_json(data)
    assert stuck.move_text(forced_pass(stuck)) == "pass"
    assert forced_pass(AraneaPosition.new({"first": "amber"})) is None  # must roll first
    assert forced_pass(games.get("arinama").new()) is None


def test_play_save_writes_a_record_that_replays(capsys, tmp_path):
    target = tmp_path / "game.json"
    code, out, _ = run(capsys, "play", "arinama", "--auto", "--seed", "1", "--save", str(target))
    assert code == 0 and f"saved to {target}" in out
    record = json.loads(target.read_text())
    assert record["format"] == "tabletop-companion/game" and record["outcome"]["winner"]
    code, out, _ = run(capsys, "replay", str(target))
    assert code == 0 and "all legal" in out and "black wins" in out


def test_play_save_never_overwrites_without_force(capsys, tmp_path):
    target = tmp_path / "mine.json"
    target.write_text("precious")
    code, _, err = run(capsys, "play", "arinama", "--auto", "--seed", "1", "--save", str(target))
    assert_one_line_error(code, err, "exists", "--force")
    assert target.read_text() == "precious"
    code, _, _ = run(
        capsys, "play", "arinama", "--auto", "--seed", "1", "--save", str(target), "--force"
    )
    assert code == 0 and json.loads(target.read_text())["game"] == "arinama"


class InterruptedInput(io.StringIO):
    """Standard input where the player presses Ctrl-C after the given lines."""

    def readline(self, *args):
        line = super().readline(*args)
        if not line:
            raise KeyboardInterrupt
        return line


def test_play_ctrl_c_still_saves_the_game_so_far(capsys, tmp_path, monkeypatch):
    target = tmp_path / "interrupted.json"
    monkeypatch.setattr(sys, "stdin", InterruptedInput("c3\nd4\n"))
    code = main(["play", "arinama", "--save", str(target)])
    out = capsys.readouterr().out
    assert code == 130 and "(interrupted)" in out
    assert json.loads(target.read_text())["moves"] == ["c3", "d4"]


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_play_stopped_by_a_signal_still_saves_the_game_so_far(tmp_path, name):
    """`timeout 2 companion play arinama --save g.json` (SIGTERM) and a terminal closed under it
    (SIGHUP) ended the process at once: the moves played were lost, only Ctrl-C saved them."""
    import os
    import signal
    import threading

    target = tmp_path / "g.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "companion", "play", "arinama", "--save", str(target)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    watchdog = threading.Timer(60, process.kill)  # a game that never plays e5 fails, not hangs
    watchdog.start()
    process.stdin.write("d4\ne5\n")
    process.stdin.flush()  # left open: the game waits for the next move
    for line in process.stdout:
        if line.startswith("white plays e5"):  # (black plays first)
            break
    process.send_signal(getattr(signal, name))
    out, err = process.communicate(timeout=60)
    watchdog.cancel()
    assert process.returncode == 128 + getattr(signal, name), err
    assert f"({name})" in out and f"saved to {target}" in out and "Traceback" not in err
    assert json.loads(target.read_text())["moves"] == ["d4", "e5"]


def test_a_second_signal_while_the_game_is_saved_waits_for_the_save():
    """A closed terminal sends SIGHUP twice: the second, arriving while the stopped game was
    being written (an fsync on a Pi's card is slow), ended the process with the game unsaved
    and a temporary file left beside it. Only the first signal stops the game."""
    import os
    import signal

    from companion.commands.play import _signals_stop_the_game, _Stopped

    before = signal.getsignal(signal.SIGHUP)
    with _signals_stop_the_game():
        with pytest.raises(_Stopped):
            os.kill(os.getpid(), signal.SIGHUP)  # (its handler runs before kill returns)
        os.kill(os.getpid(), signal.SIGHUP)  # the second: the save goes on
    assert signal.getsignal(signal.SIGHUP) is before


def test_the_help_s_pipe_example_is_one_line_that_plays(capsys, monkeypatch):
    """The example printed its \\n as line breaks (three broken lines)."""
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    example = next(line for line in capsys.readouterr().out.splitlines() if "printf" in line)
    command = example.split("|")[0].strip()
    assert command == "printf 'd4\\ne5\\n'"
    moves = subprocess.run(command, shell=True, capture_output=True, text=True).stdout
    code, out, _ = run(capsys, "play", "arinama", stdin=moves, monkeypatch=monkeypatch)
    assert code == 0 and "black plays d4" in out and "white plays e5" in out


def test_moves_piped_past_the_end_of_the_game_are_said_and_not_taken(capsys, monkeypatch):
    """They were dropped unsaid, exit 0: a script could not tell its moves were not played."""
    moves = "c1\nb1\nc2\na1\nb3\nb2\na3\na2\nc3\nzz\n\nd4\n"  # the 3x3 game of --auto --seed 1
    code, out, err = play_on_3x3(capsys, monkeypatch, moves)
    assert (
        "not played (line 10): 'zz': the game is over" in out
        and "not played (line 12): 'd4': the game is over" in out
    )
    assert "result: black wins" in out
    assert_one_line_error(
        code, err, "2 lines of standard input were not taken (lines 10 and 12, said above)"
    )


class ClosedAfter(io.StringIO):
    """Standard output read by `| head -N`: a write after `lines` lines is a broken pipe."""

    def __init__(self, lines):
        super().__init__()
        self.lines = lines

    def write(self, text):
        if self.getvalue().count("\n") >= self.lines:
            raise BrokenPipeError(32, "Broken pipe")
        return super().write(text)


def test_play_piped_into_head_still_saves_the_game_so_far(tmp_path, monkeypatch, capsys):
    """`companion play aranea --auto --save g.json | head -2` ended at exit status 0 with
    nothing saved; then saved, still at 0 and without a word (a trial) - as `companion run`
    it now says the game stopped and where it is, with SIGPIPE's status."""
    target = tmp_path / "g.json"
    monkeypatch.setattr(sys, "stdout", ClosedAfter(3))
    code = main(["play", "aranea", "--auto", "--seed", "1", "--save", str(target)])
    assert code == 141
    assert capsys.readouterr().err == (
        f"companion: the game stopped: its output was closed: the game so far is saved to {target}\n"
    )
    record = json.loads(target.read_text())
    assert 2 <= len(record["moves"]) <= 3 and record["outcome"] is None


@pytest.mark.parametrize(
    "argv,words",
    [
        (["play", "chess"], ["unknown game 'chess'"]),
        (["play", "arinama", "-o", "rows=99"], ["rows"]),
        (["play", "arinama", "-o", "colour=red"], ["unknown arinama option 'colour'"]),
        (["play", "arinama", "-o", "rows"], ["KEY=VALUE"]),
        (  # the last one was taken, without a word
            ["play", "arinama", "-o", "rows=5", "-o", "rows=6"],
            ["-o rows is given twice ('5' and '6'): give it once"],
        ),
        (["play", "aranea", "-o", "clash=maybe"], ["clash", "true or false"]),
        (["play", "arinama", "--auto", "--max-moves", "0"], ["--max-moves"]),
        # options that would do nothing are said, not ignored (a game by hand was played on)
        (["play", "arinama", "--max-moves", "5"], ["--max-moves is for --auto"]),
        (["play", "arinama", "--force"], ["there is no --save"]),
        (
            ["play", "arinama", "--save", "/no/such/folder/g.json"],
            ["there is no folder /no/such/folder"],
        ),
        # a program given as the position or the record: said what to give instead
        (["moves", "arinama", "--position", sys.executable], ["not a text file - give a game"]),
        (["replay", sys.executable], ["not a text file - give a game record or a position"]),
    ],
)
def test_play_bad_input_is_one_line(capsys, argv, words):
    code, _, err = run(capsys, *argv)
    assert_one_line_error(code, err, *words)


def test_a_record_the_system_will_not_read_says_why_not_what_else_to_give(
    capsys, tmp_path, monkeypatch
):
    """A record that cannot be read (a read error, no permission) is still a record: "give a
    game record or a position as text" is for a file that is not text."""
    code, _, err = run(capsys, "replay", "/proc/self/mem")
    assert_one_line_error(code, err, "cannot read /proc/self/mem: Input/output error - check")
    assert "give a game record" not in err
    record = tmp_path / "g.json"
    record.write_text("{}")

    def refuse(self, *args, **kwargs):  # (root reads a file whatever its mode)
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(Path, "read_text", refuse)
    code, _, err = run(capsys, "replay", str(record))
    assert_one_line_error(code, err, "Permission denied - give a file you can read")
    assert "give a game record" not in err


@pytest.mark.parametrize("command", [["play", "arinama", "--auto"], ["roll"]])
@pytest.mark.parametrize("seed", ["-1", "4294967296", "1.5"])
def test_a_seed_outside_0_to_2_to_the_32_is_one_line(capsys, command, seed):
    """-1 would play the game of seed 1 (random.Random takes the absolute value)."""
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--seed", seed])
    _, err = capsys.readouterr()
    assert exit_.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"argument --seed: '{seed}' must be a whole number from 0 to 4294967295" in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["play", "arinama", "--auto", "--save"], ["argument --save: an empty file name"]),
        (["moves", "arinama", "--position"], ["argument --position/-p: an empty position"]),
        (["replay"], ["argument FILE: an empty file name"]),
    ],
)
@pytest.mark.parametrize("empty", ["", " "])
def test_an_empty_file_name_is_refused_in_one_line(
    capsys, tmp_path, monkeypatch, argv, words, empty
):
    """An unset shell variable (--save "$F") was no --save at all (the game was not kept),
    and the current folder for --position and replay ("  is a folder")."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_:
        main([*argv, empty])
    _, err = capsys.readouterr()
    assert exit_.value.code == 2 and len(err.strip().splitlines()) == 1, err
    assert all(word in err for word in words) and "folder" not in err, err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (  # "invalid choice: 'r.sqlite3'", as if it were a command's name
            ["--db", "r.sqlite3", "games"],
            [
                "companion: error: --db stands before games: an option goes after the command",
                "- companion games --db r.sqlite3 (see 'companion --help')",
            ],
        ),
        (  # a database named like a command is the option's value, not the command
            ["--db", "vision", "games"],
            ["--db stands before games", "- companion games --db vision (see"],
        ),
        (  # "--" before the command ends no option: the command still runs
            ["--", "roll", "3"],
            ["companion roll: error: unrecognized arguments: 3 (see 'companion roll --help')"],
        ),
        (  # and so with the option abbreviated, as argparse takes it
            ["--d", "vision", "games"],
            ["--d stands before games", "- companion games --d vision (see"],
        ),
        (
            ["vision", "--layout", "chessboard", "locate", "my photo.png"],
            [
                "companion vision: error: --layout stands before locate",
                "- companion vision locate --layout chessboard 'my photo.png' (see 'companion "
                "vision --help')",
            ],
        ),
        (  # pointed at the top level's help, which does not list roll's arguments
            ["roll", "3"],
            ["companion roll: error: unrecognized arguments: 3 (see 'companion roll --help')"],
        ),
        (
            ["vision", "track", "usb:9", "--calibration", "c.json", "--language", "de"],
            ["unrecognized arguments: --language de (see 'companion vision track --help')"],
        ),
    ],
)
def test_a_command_line_put_wrong_is_said_by_the_command_it_belongs_to(capsys, argv, words):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert all(word in err for word in words), err


# -- moves ------------------------------------------------------------------------------------
def test_moves_of_the_start_position(capsys):
    code, out, _ = run(capsys, "moves", "arinama", "-o", "rows=3", "-o", "cols=4")
    assert code == 0 and out.split() == [f"{f}{r}" for r in (1, 2, 3) for f in "abcd"]
    assert run(capsys, "moves", "arinama", "--count")[1].strip() == "64"


def test_moves_of_a_position_file_text_and_stdin(capsys, tmp_path, monkeypatch):
    data = {"stones": {"c3": "black", "a1": "white"}, "turn": "black"}
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(data))
    expected = {"b2", "c2", "d2", "b3", "d3", "b4", "c4", "d4"}
    assert set(run(capsys, "moves", "arinama", "--position", str(path))[1].split()) == expected
    assert set(run(capsys, "moves", "arinama", "-p", json.dumps(data))[1].split()) == expected
    out = run(
        capsys,
        "moves",
        "arinama",
        "-p",
        "-",
        "--count",
        stdin=json.dumps(data),
        monkeypatch=monkeypatch,
    )[1]
    assert out.strip() == "8"


def test_moves_of_a_game_record_use_its_last_position(capsys, tmp_path):
    target = tmp_path / "g.json"
    run(
        capsys, "play", "aranea", "--auto", "--seed", "2", "--max-moves", "3", "--save", str(target)
    )
    code, out, _ = run(capsys, "moves", "aranea", "-p", str(target))
    assert code == 0 and out.split()  # a use of the roll or rolls
    code, out, err = run(capsys, "moves", "arinama", "-p", str(target))
    assert_one_line_error(code, err, "a game of 'aranea', not arinama")


def test_moves_of_a_finished_game_prints_the_result(capsys, tmp_path):
    target = tmp_path / "done.json"
    run(capsys, "play", "arinama", "--auto", "--seed", "1", "--save", str(target))
    code, out, err = run(capsys, "moves", "arinama", "-p", str(target), "--count")
    assert code == 0 and out.strip() == "0" and "the game is over: black wins" in err


def test_moves_counts_arimaa_with_the_engines_counter(capsys):
    code, out, _ = run(capsys, "moves", "arimaa", "--count")
    assert code == 0 and out.strip() == "64864800"  # Gold's setup arrangements


@pytest.mark.parametrize(
    "argv,words",
    [
        (["moves", "arinama", "-p", "{not json"], ["--position text", "invalid JSON"]),
        (  # as every game says it (it was "not an arimaa position")
            ["moves", "arimaa", "-p", "{not json"],
            ["the --position text: not a valid Arimaa position: invalid JSON at line 1 column 2"],
        ),
        (["moves", "arinama", "-p", '{"stones": {"z9": "black"}}'], ["z9"]),
        (["moves", "arinama", "-p", "missing.json"], ["no file missing.json"]),
        (["moves", "arinama", "-p", "my game.json"], ["no file my game.json"]),
        (["moves", "arinama", "-p", "/"], ["folder"]),
        (["moves", "arinama", "-p", "{}", "-o", "rows=5"], ["own options"]),
        # {} was Arinama's and Aranea's start position, while Sensei and Arimaa refuse it
        (["moves", "arinama", "-p", "{}"], ['an Arinama position needs a "stones" object']),
        (["moves", "aranea", "-p", "{}"], ['an Aranea position needs a "stones" object']),
        (["moves", "sensei", "-p", "{}"], ['a Sensei position needs "stones"']),
        (["moves", "arimaa", "-p", "{}"], ['"board" must be a list']),
        (["moves", "aranea", "-p", '{"phase": "later"}'], ["phase"]),
        (
            ["moves", "arinama", "-p", json.dumps({**RECORD, "moves": ["c3", "c3"]})],
            ["the --position text: move 2 ('c3')", "taken"],
        ),
        (
            ["moves", "arinama", "-p", json.dumps({**RECORD, "version": 7})],
            ["the --position text: this game record is version 7"],
        ),
        (  # a record of another game says which command reads it
            ["moves", "sensei", "-p", json.dumps(RECORD)],
            ["a game of 'arinama', not sensei: its moves are listed by `companion moves arinama`"],
        ),
        (
            ["moves", "sensei", "-p", json.dumps({**RECORD, "game": "chess"})],
            ["a game of 'chess', not sensei: give a record or a position of sensei"],
        ),
    ],
)
def test_moves_bad_input_is_one_line(capsys, argv, words):
    code, _, err = run(capsys, *argv)
    assert_one_line_error(code, err, *words)


# -- replay -----------------------------------------------------------------------------------
def record_of(name, seed, max_moves=None):
    import random

    from companion.dice import Dice
    from companion.games.base import game_to_json

    rng, dice = random.Random(seed), Dice(seed=seed)
    pos = games.get(name).new()
    while not pos.is_game_over() and (max_moves is None or len(pos.move_stack) < max_moves):
        pos.push(pos.roll_move(dice) if pos.awaiting_roll else pos.random_move(rng))
    return game_to_json(pos)


def test_replay_a_legal_aranea_record(capsys, tmp_path):
    path = tmp_path / "a.json"
    path.write_text(json.dumps(record_of("aranea", 4)))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and "Aranea:" in out and "all legal" in out and "Result:" in out


def test_replay_reports_the_first_illegal_move_with_number_text_and_reason(capsys, tmp_path):
    record = record_of("arinama", 2)
    record["moves"][4] = record["moves"][0]  # a cell that is taken by then
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1
    assert f"illegal move 5 ({record['moves'][0]!r})" in out and "is taken" in out
    assert "the position before it (4 legal moves played)" in out


def test_replay_shows_a_result_the_players_recorded_and_flags_a_wrong_one(capsys, tmp_path):
    resigned = record_of("arinama", 2, max_moves=4)
    resigned["outcome"] = {"winner": "white", "reason": "resigned", "detail": ""}
    path = tmp_path / "resigned.json"
    path.write_text(json.dumps(resigned))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and "Not decided on the board; the record says white wins (resigned)" in out
    claimed = dict(resigned, outcome={"winner": "white", "reason": "full-board", "detail": ""})
    path.write_text(json.dumps(claimed))  # an end only the rules reach, not on this board
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1 and (
        "BUT the record says white wins (full-board), which the rules do not reach" in out
    )
    wrong = record_of("arinama", 1)
    assert wrong["outcome"]["winner"] == "black"
    wrong["outcome"]["winner"] = "white"
    path.write_text(json.dumps(wrong))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1 and "Result: black wins" in out and "BUT the record says white wins" in out
    path.write_text(json.dumps(record_of("arinama", 1)) + "\n" + json.dumps(wrong) + "\n")
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1 and "line 2: WRONG RESULT" in out and "2 games: 1 legal, 1 not" in out


def test_replay_an_unfinished_game(capsys, tmp_path):
    path = tmp_path / "u.json"
    path.write_text(json.dumps(record_of("arinama", 2, max_moves=4)))
    code, out, _ = run(capsys, "replay", str(path), "--board")
    assert code == 0 and "Not finished: black to play" in out and "a b c d" in out


def test_replay_an_arimaa_jsonl_line_and_a_move_list(capsys, tmp_path):
    with open(ARIMAA_GAMES) as handle:
        line = handle.readline()
    path = tmp_path / "one.jsonl"
    path.write_text(line)
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and "Arimaa:" in out and "all legal" in out
    record = json.loads(line)
    labels = record["turn_labels"]
    text = "\n".join(f"{label} {move}" for label, move in zip(labels, record["moves"], strict=True))
    listing = tmp_path / "game.txt"
    listing.write_text(text)
    code, out, _ = run(capsys, "replay", str(listing))
    assert code == 0 and "all legal" in out


def test_replay_a_file_of_json_lines_checks_every_game(capsys, tmp_path):
    good = json.dumps(record_of("arinama", 1))
    bad = record_of("aranea", 1, max_moves=10)
    bad["moves"][-1] = "r9-9"
    path = tmp_path / "many.jsonl"
    path.write_text(good + "\n" + json.dumps(bad) + "\n" + "42\n")
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1
    lines = out.strip().splitlines()
    assert lines[0].startswith("line 1: Result: black wins")
    assert lines[1].startswith("line 2: ILLEGAL move 10 ('r9-9')")
    assert lines[2].startswith("line 3: UNREADABLE not a game record")
    assert lines[3] == "3 games: 1 legal, 2 not"


def test_replay_a_file_of_json_lines_with_board_draws_each_game_s_board(capsys, tmp_path):
    """--board on a file of JSON lines drew no board at all, without a word."""
    good = record_of("arinama", 1)
    bad = record_of("aranea", 1, max_moves=10)
    bad["moves"][-1] = "r9-9"
    path = tmp_path / "many.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n" + "42\n")
    code, out, _ = run(capsys, "replay", str(path), "--board")
    assert code == 1
    final = games.get("arinama").new()
    for move in good["moves"]:
        final.push(final.parse_move(move))
    before = games.get("aranea").new()
    for move in bad["moves"][:-1]:
        before.push(before.parse_move(move))
    text = out.strip()
    first, second = text.index("line 1: Result"), text.index("line 2: ILLEGAL")
    assert final.diagram() in text[first:second]  # under its line
    assert before.diagram() in text[second : text.index("line 3: UNREADABLE")]
    assert text.endswith("3 games: 1 legal, 2 not")


def test_replay_a_file_of_json_lines_cut_short_checks_the_whole_lines(capsys, tmp_path):
    with open(ARIMAA_GAMES) as handle:
        lines = [handle.readline() for _ in range(3)]
    path = tmp_path / "cut.jsonl"
    path.write_text(lines[0] + lines[1] + lines[2][:500])  # the download stopped mid-line
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1
    report = out.strip().splitlines()
    assert report[0].startswith("line 1 (arimaa.com:") and report[1].startswith("line 2 (")
    assert report[2].startswith("line 3: UNREADABLE not valid JSON")
    assert report[3] == "3 games: 2 legal, 1 not"


@pytest.mark.parametrize(
    "content,words",
    [
        (  # a record cut short says what to do about it
            '{"format": "tabletop-companion/game", "game": "arinama", "moves": [',
            ["broken.json is not valid JSON (line 1 column", "save or export the game again"],
        ),
        ('{"format": "something/else"}', ["not a game record"]),
        ('{"format": "tabletop-companion/game", "version": 9, "game": "arinama"}', ["version 9"]),
        ('{"format": "tabletop-companion/game", "game": "go"}', ["unknown game 'go'"]),
        ("", ["empty"]),
        (
            json.dumps({**RECORD, "options": {"rows": 5}, "start": {"stones": {}, "options": {}}}),
            ['"options" and the "start" position disagree (rows 5 vs 8)'],
        ),
        ('"a string"', ["JSON but not a game record"]),
        ("42", ["JSON but not a game record"]),
        (  # (it said only "no Arimaa turns found", of an HTML export too)
            "hello, this is not a game\n",
            ["broken.json is neither a JSON game record nor an arimaa.com move list"],
        ),
        (
            "<!DOCTYPE html>\n<html><body>Arinama</body></html>\n",
            ["broken.json is a web page", "companion export ID --format json"],
        ),
        (  # a trial: an Arimaa game's page holds its turns, and was replayed as a move list
            "<!DOCTYPE html>\n<html><body>\n<p>2g Ed2n Ed3n</p>\n<p>2s ed7s</p></body></html>\n",
            ["broken.json is a web page", "--format arimaa"],
        ),
        (
            '{"format": "tabletop-companion/game", "version": "1", "game": "arinama"}',
            ["whole number"],
        ),
    ],
)
def test_replay_malformed_files_are_one_line(capsys, tmp_path, content, words):
    path = tmp_path / "broken.json"
    path.write_text(content)
    code, _, err = run(capsys, "replay", str(path))
    assert_one_line_error(code, err, *words)


def test_replay_an_arimaa_move_list_cut_off_mid_turn_stops_there_with_exit_1(capsys, tmp_path):
    record = json.loads(open(ARIMAA_GAMES).readline())
    lines = [
        f"{lab} {move}" for lab, move in zip(record["turn_labels"], record["moves"], strict=True)
    ]
    label, first, second = lines[6].split()[:3]
    cut = [*lines[:6], f"{label} {first} {second[:2]}"]  # "4w Hh2n Hh": the file ends there
    path = tmp_path / "cut.txt"
    path.write_text("\n".join(cut))
    code, out, err = run(capsys, "replay", str(path))
    assert code == 1 and err == ""
    assert f"illegal turn {record['turn_labels'][6]}" in out
    assert "the position before it (6 legal moves played)" in out


def _arimaa_records():
    with open(ARIMAA_GAMES) as handle:
        return [json.loads(line) for line in handle]


def _arimaa_lines(record):
    return [
        f"{lab} {move}" for lab, move in zip(record["turn_labels"], record["moves"], strict=True)
    ]


@pytest.mark.parametrize("label", [5, 1.5, True])
def test_replay_an_arimaa_record_whose_labels_are_not_text_is_one_line(capsys, tmp_path, label):
    record = _arimaa_records()[0]
    record["turn_labels"][3] = label
    path = tmp_path / "labels.json"
    path.write_text(json.dumps(record))
    code, _, err = run(capsys, "replay", str(path))
    assert_one_line_error(code, err, '"turn_labels" item 4 is', "not text")


@pytest.mark.parametrize("moves", [[], ["c3"], ["c3", "c3"]])
def test_replay_a_record_without_format_is_replayed_as_the_game_it_names(capsys, tmp_path, moves):
    """Not as Arimaa: the record says "game": "arinama" (our record, its "format" left out)."""
    record = {"game": "arinama", "moves": moves}
    path = tmp_path / "no-format.json"
    path.write_text(json.dumps(record))
    code, out, err = run(capsys, "replay", str(path))
    assert "Arimaa" not in out + err
    if moves == ["c3", "c3"]:
        assert code == 1 and out.startswith("Arinama: illegal move 2 ('c3')")
    else:
        assert code == 0 and err == ""
        assert out.startswith(f"Arinama: {len(moves)} move") and "all legal" in out
    lines = tmp_path / "no-format.jsonl"
    lines.write_text(json.dumps(record) + "\n" + json.dumps({**record, "moves": []}) + "\n")
    code, out, _ = run(capsys, "replay", str(lines))
    first = "ILLEGAL move 2 ('c3')" if moves == ["c3", "c3"] else "Not finished"
    assert out.splitlines()[0].startswith(f"line 1: {first}"), out
    assert out.splitlines()[1] == "line 2: Not finished: black to play" and "Arimaa" not in out


def test_replay_a_record_without_format_naming_an_unknown_game_is_one_line(capsys, tmp_path):
    path = tmp_path / "chess.json"
    path.write_text(json.dumps({"game": "chess", "moves": ["e4"]}))
    code, _, err = run(capsys, "replay", str(path))
    assert_one_line_error(code, err, "unknown game 'chess'", "arinama")
    assert "chess.json cannot be replayed" in err  # what is wrong, with the file it is in


def test_replay_an_arimaa_record_that_names_its_game_without_format(capsys, tmp_path):
    record = {**_arimaa_records()[0], "game": "arimaa"}
    path = tmp_path / "arimaa.json"
    path.write_text(json.dumps(record))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and out.startswith("Arimaa:") and "all legal" in out


@pytest.mark.parametrize("content", ["[]", '{"moves": []}'])
def test_replay_an_arimaa_record_with_no_turns_is_one_line(capsys, tmp_path, content):
    path = tmp_path / "empty.json"
    path.write_text(content)
    code, _, err = run(capsys, "replay", str(path))
    assert_one_line_error(code, err, "no turns")


@pytest.mark.parametrize("where", ["last", "middle"])
def test_replay_a_labelled_line_of_bad_tokens_names_that_turn_and_token(capsys, tmp_path, where):
    lines = _arimaa_lines(_arimaa_records()[0])
    bad = "3w Ed2nn" if where == "last" else "3w garbage!! tokens"
    text = [*lines[:4], bad] + ([] if where == "last" else lines[4:8])
    path = tmp_path / "garbled.txt"
    path.write_text("\n".join(text))
    code, out, err = run(capsys, "replay", str(path))
    token = bad.split()[1]
    assert code == 1 and err == ""
    assert f"illegal turn 3w on line 5 ('{bad[3:]}'): '{token}' is not a step" in out
    assert "the position before it (4 legal moves played)" in out


def test_replay_prints_the_lines_it_skipped_as_notes(capsys, tmp_path):
    lines = _arimaa_lines(_arimaa_records()[0])
    text = ["[bot log] started", *lines[:4], "3w takeback", lines[3], lines[4], "3b"]
    path = tmp_path / "notes.txt"
    path.write_text("\n".join(text))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and "Arimaa: 5 moves, all legal" in out
    assert "note: line 1 ignored (no move in it): [bot log] started" in out
    assert "note: line 6 (3w takeback) took back turn 2b" in out
    assert "note: line 9 (3b with no steps" in out


def _goal_game():
    return next(
        r for r in _arimaa_records() if r["result"].get("termination") == "g" and "flag" not in r
    )


def test_replay_flags_an_arimaa_record_whose_decided_result_is_not_the_rules(capsys, tmp_path):
    record = _goal_game()
    winner = record["result"]["winner"]
    path = tmp_path / "goal.json"
    path.write_text(json.dumps(record))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 0 and "BUT" not in out
    other = {"g": "s", "s": "g"}[winner]
    flipped = {**record, "result": {"winner": other, "termination": "g"}}
    path.write_text(json.dumps(flipped))
    code, out, _ = run(capsys, "replay", str(path))
    names = {"g": "gold", "s": "silver"}
    assert code == 1
    assert f"Result: {names[winner]} wins (goal)" in out
    assert f"BUT the record says {names[other]} wins by goal (code g)" in out
    # The right winner with the wrong reason, and a goal the board never reached.
    path.write_text(json.dumps({**record, "result": {"winner": winner, "termination": "e"}}))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1 and "by elimination (code e)" in out
    cut = {**record, "moves": record["moves"][:-1], "turn_labels": record["turn_labels"][:-1]}
    path.write_text(json.dumps(cut))
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1 and "which the rules do not reach" in out
    # In a file of JSON lines the wrong one is named.
    path.write_text(json.dumps(record) + "\n" + json.dumps(flipped) + "\n")
    code, out, _ = run(capsys, "replay", str(path))
    assert code == 1 and "line 2 (" in out and ": WRONG RESULT Result:" in out
    assert out.strip().splitlines()[-1] == "2 games: 1 legal, 1 not"


def test_replay_keeps_resignation_and_time_results_as_stated(capsys, tmp_path):
    record = next(r for r in _arimaa_records() if r["result"].get("termination") == "t")
    for winner in ("g", "s"):
        path = tmp_path / "time.json"
        path.write_text(json.dumps({**record, "result": {"winner": winner, "termination": "t"}}))
        code, out, _ = run(capsys, "replay", str(path))
        assert code == 0 and "Not decided on the board; the record says" in out


@pytest.mark.parametrize("argv", [["replay", "-"], ["moves", "arinama", "--position", "-"]])
def test_reading_a_closed_standard_input_is_one_line(capsys, monkeypatch, argv):
    monkeypatch.setattr(sys, "stdin", None)  # what Python gives a process started with <&-
    code, _, err = run(capsys, *argv)
    assert_one_line_error(code, err, "standard input is closed")


def test_moves_of_the_arimaa_setup_points_to_count(capsys):
    code, _, err = run(capsys, "moves", "arimaa")
    assert_one_line_error(code, err, "64,864,800", "--count")


def test_moves_of_a_sensei_turn_in_progress_is_one_line_without_the_count_hint(capsys):
    position = games.get("sensei").new().to_json()
    position["actions"] = ["a1-a3"]
    code, _, err = run(capsys, "moves", "sensei", "-p", json.dumps(position))
    assert_one_line_error(code, err, "a turn is in progress (a1-a3)")
    assert "--count" not in err


def test_play_moves_command_separates_turns_of_several_actions(capsys, monkeypatch):
    code, out, _ = run(capsys, "play", "sensei", stdin="moves\n", monkeypatch=monkeypatch)
    listed = next(line for line in out.splitlines() if line.startswith("green to play> moves"))
    shown = out.splitlines()[out.splitlines().index(listed) + 1]
    assert code == 0 and shown.startswith("a1-a2, a1-a3, ") and ", a1-a2 b1-a1, " in shown


def test_play_with_standard_input_closed_ends_like_end_of_input(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    code, out, _ = run(capsys, "play", "arinama")
    assert code == 0 and "(end of input)" in out


def test_play_save_to_a_folder_is_refused_before_playing(capsys, tmp_path):
    code, out, err = run(
        capsys, "play", "arinama", "--auto", "--seed", "1", "--save", str(tmp_path), "--force"
    )
    assert_one_line_error(code, err, "is a folder: give a file name with --save")
    assert out == ""  # nothing was played that could be lost


def test_play_save_to_a_pipe_or_device_is_refused_even_with_force(capsys, tmp_path):
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # stands for /dev/null: --force must never replace it by a file
    code, out, err = run(capsys, "play", "arinama", "--auto", "--save", str(fifo), "--force")
    assert_one_line_error(code, err, "not a regular file")
    assert out == "" and fifo.is_fifo()


def test_play_save_into_a_folder_it_cannot_write_is_refused_before_playing(
    capsys, tmp_path, monkeypatch
):
    from companion.commands import play

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(play.tempfile, "NamedTemporaryFile", denied)
    code, out, err = run(capsys, "play", "arinama", "--auto", "--save", str(tmp_path / "g.json"))
    assert_one_line_error(code, err, "cannot save to", "Permission denied")
    assert out == ""


def test_play_save_that_fails_after_the_game_prints_the_record(capsys, tmp_path, monkeypatch):
    from companion.commands import play
    from companion.errors import UserError

    def disk_full(target, text):
        raise UserError(f"cannot save to {target}: No space left on device")

    monkeypatch.setattr(play, "write_atomically", disk_full)
    target = tmp_path / "g.json"
    code, out, err = run(capsys, "play", "arinama", "--auto", "--seed", "1", "--save", str(target))
    assert_one_line_error(code, err, "No space left", "printed above")
    record = json.loads(out[out.index('{\n "format"') :])
    assert record["game"] == "arinama" and record["outcome"]["winner"] == "black"


def test_replay_a_start_written_without_options_takes_the_records_options(capsys, tmp_path):
    record = {**RECORD, "options": {"rows": 5, "cols": 5}, "start": {"stones": {"c3": "black"}}}
    record.update(moves=["d4", "e5"])
    path = tmp_path / "small.json"
    path.write_text(json.dumps(record))
    code, out, _ = run(capsys, "replay", str(path), "--board")
    assert code == 0 and "2 moves, all legal" in out and "  a b c d e\n" in out


@pytest.mark.parametrize("command", [["replay"], ["moves", "arinama", "--count", "-p"]])
def test_files_saved_with_a_byte_order_mark_are_read(capsys, tmp_path, command):
    path = tmp_path / "notepad.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps({**RECORD, "moves": ["c3"]}).encode())
    code, out, _ = run(capsys, *command, str(path))
    assert code == 0 and ("1 move, all legal" in out or out.strip() == "63")


@pytest.mark.parametrize("command", [["replay"], ["moves", "arinama", "-p"]])
@pytest.mark.parametrize(
    "deep", ["[" * 100_000 + "]" * 100_000, '{"a":' * 100_000 + "1" + "}" * 100_000]
)
def test_json_nested_too_deeply_is_one_line(capsys, tmp_path, command, deep):
    path = tmp_path / "deep.json"
    path.write_text(deep)
    code, _, err = run(capsys, *command, str(path))
    assert_one_line_error(code, err, "nested too deeply")


def test_replay_reads_a_pipe_given_by_name_like_process_substitution(capsys, tmp_path):
    import os
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # what `companion replay <(...)` is given: /dev/fd/63, a pipe
    writer = threading.Thread(target=fifo.write_text, args=(json.dumps(record_of("aranea", 4)),))
    writer.start()
    code, out, _ = run(capsys, "replay", str(fifo))
    writer.join()
    assert code == 0 and "Aranea:" in out and "all legal" in out


def test_replay_of_a_file_name_too_long_is_one_line(capsys):
    code, _, err = run(capsys, "replay", "x" * 5000)
    assert_one_line_error(code, err, "not a usable file name")


def test_play_save_to_a_file_name_too_long_is_one_line(capsys):
    code, out, err = run(capsys, "play", "arinama", "--auto", "--save", "x" * 5000)
    assert_one_line_error(code, err, "cannot save to", "too long")
    assert out == ""


def test_replay_missing_file_is_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "replay", str(tmp_path / "nope.json"))
    assert_one_line_error(code, err, "nope.json", "not there")


# -- roll -------------------------------------------------------------------------------------
def test_roll_two_dice_with_total(capsys):
    code, out, _ = run(capsys, "roll", "--seed", "1")
    a, _and, b, eq, total = out.split()  # "4 and 2 = 6", as --aranea and the games say dice
    assert code == 0 and (_and, eq) == ("and", "=") and int(a) + int(b) == int(total)


def test_roll_aranea_value(capsys):
    seen = set()
    for seed in range(60):
        out = run(capsys, "roll", "--aranea", "--seed", str(seed))[1].strip()
        a, _and, b, _, value = out.split()[:5]  # "2 and 5 = 7": "2-5" reads like a cell
        a, b = int(a), int(b)
        assert int(value) == (1 if {a, b} == {3, 4} else a + b)
        if int(value) == 1:
            assert "(a 3 and a 4 count as 1)" in out
        seen.add(int(value))
    assert 1 in seen


def test_roll_any_dice(capsys):
    out = run(capsys, "roll", "--dice", "4", "--sides", "20", "--seed", "3")[1]
    shown, total = out.strip().split(" = ")  # "16, 11, 6 and 3 = 36"
    first, last = shown.split(" and ")
    values = [int(v) for v in first.split(", ")] + [int(last)]
    assert len(values) == 4 and all(1 <= v <= 20 for v in values) and sum(values) == int(total)
    assert run(capsys, "roll", "--dice", "1", "--seed", "3")[1].strip() in "123456"


@pytest.mark.parametrize(
    "argv,words",
    [
        (["roll", "--dice", "0"], ["1 to 100 dice"]),
        (["roll", "--sides", "1"], ["2 to 1000 sides"]),
        (["roll", "--aranea", "--dice", "3"], ["--aranea"]),
    ],
)
def test_roll_bad_input_is_one_line(capsys, argv, words):
    code, _, err = run(capsys, *argv)
    assert_one_line_error(code, err, *words)


# -- help and a real process ------------------------------------------------------------------
@pytest.mark.parametrize("command", ["play", "moves", "replay", "roll"])
def test_every_command_has_help_with_examples(capsys, command):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    assert "examples:" in capsys.readouterr().out


def test_play_in_a_real_process_plays_to_a_result_and_errors_are_one_line():
    done = subprocess.run(
        [sys.executable, "-m", "companion", "play", "arinama", "--auto", "--seed", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("result: black wins")
    bad = subprocess.run(
        [sys.executable, "-m", "companion", "moves", "arinama", "-p", '{"stones": 3}'],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines() == [
        'companion: error: the --position text: "stones" must be an object of cell -> '
        '"black" or "white"'
    ]


def test_play_save_never_writes_over_a_game_records_database(capsys, tmp_path):
    """--save naming a records database (a slip between two file names) is refused before
    any play, --force or not, and the database is left as it was."""
    from companion.records import Records

    db = tmp_path / "records.sqlite3"
    with Records(db) as records:
        records.new_game(games.get("arinama").new())
    before = db.read_bytes()
    code, out, err = run(capsys, "play", "arinama", "--auto", "--save", str(db), "--force")
    assert_one_line_error(code, err, "holds game records: give another file name with --save")
    assert db.read_bytes() == before


def test_play_auto_numbers_the_moves_as_the_game_counts_them(capsys):
    """Arimaa counts turns 1g, 1s, 2g ... (the final board's diagram is headed so); the list
    said 1, 2, 3 ... A game counting plainly keeps 1., 2. ..."""
    arimaa = run(capsys, "play", "arimaa", "--auto", "--seed", "1", "--max-moves", "4")[1]
    assert [line.split()[0] for line in arimaa.splitlines()[1:5]] == ["1g", "1s", "2g", "2s"]
    arinama = run(capsys, "play", "arinama", "--auto", "--seed", "1", "--max-moves", "2")[1]
    assert [line.split()[0] for line in arinama.splitlines()[1:3]] == ["1.", "2."]


def test_output_closed_before_the_verdict_is_not_success(capsys, tmp_path, monkeypatch):
    """A trial: `companion replay bad.txt | head -1` exited 0 in one run of 7 - the pipe closed
    before the line saying ILLEGAL was written, and the status said "all legal"."""
    import builtins

    path = tmp_path / "g.json"
    path.write_text(json.dumps(RECORD))
    real_print = builtins.print

    def closed(*args, **kwargs):
        if kwargs.get("file") not in (None, sys.stdout):
            return real_print(*args, **kwargs)
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(builtins, "print", closed)
    monkeypatch.setattr("companion.cli.silence_stdout", lambda: None)  # (pytest's own stdout)
    assert main(["replay", str(path)]) == 141


def test_a_line_far_longer_than_any_move_is_cut_in_its_error(capsys, monkeypatch):
    """A trial: a 5000-character line typed in `play` came back whole in its error line."""
    code, out, _ = run(capsys, "play", "arinama", stdin="x" * 5000 + "\n", monkeypatch=monkeypatch)
    line = next(t for t in out.splitlines() if t.startswith("not played (line 1): "))
    assert "(5000 characters) is no move" in line and len(line) < 200
