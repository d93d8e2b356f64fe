"""`companion run` and the entry point as a user meets them: a real process each time."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.records import Records

COMPANION = [sys.executable, "-m", "companion"]


def companion(*args, env=None, timeout=120):
    return subprocess.run(
        [*COMPANION, *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def one_line_error(result, *words):
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def test_screenshots_that_is_a_file_or_impossible_is_one_line(tmp_path):
    afile = tmp_path / "shots"
    afile.write_text("mine")
    db = str(tmp_path / "r.sqlite3")
    one_line_error(
        companion("run", "--headless", "--moves", "1", "--screenshots", str(afile), "--db", db),
        "is a file",
        "give a folder",
    )
    assert afile.read_text() == "mine"
    one_line_error(
        companion("run", "--headless", "--moves", "1", "--screenshots", "/proc/nope", "--db", db),
        "/proc/nope",
        "cannot make that folder",
    )
    missing = tmp_path / "nodir" / "x"
    one_line_error(
        companion("run", "--headless", "--moves", "1", "--screenshots", str(missing), "--db", db),
        f"there is no folder {missing.parent} - make it first",
    )
    assert not missing.parent.exists()  # a mistyped path makes no tree of folders


@pytest.mark.parametrize("moves", ["-1", "0", "٥"])
def test_run_refuses_a_move_count_that_is_not_one_or_more(moves):
    one_line_error(companion("run", "--headless", "--moves", moves), "--moves", "1 or more")


@pytest.mark.parametrize("seed", ["-3", "4294967296", "x"])
def test_run_refuses_a_seed_that_is_not_0_to_2_to_the_32(tmp_path, seed):
    db = tmp_path / "r.sqlite3"
    result = companion("run", "--headless", "--seed", seed, "--db", str(db))
    one_line_error(result, "--seed", f"'{seed}' must be a whole number from 0 to 4294967295")
    assert not db.exists()  # refused before the demo starts


def test_games_refuses_an_empty_db_name():
    one_line_error(companion("games", "--db", ""), "--db", "empty file name")


@pytest.mark.parametrize(
    "command",
    [
        ["run", "--headless", "--moves", "1"],
        ["referee", "--game", "arinama", "--observations", "OBSERVATIONS"],
    ],
)
def test_a_db_in_a_folder_that_does_not_exist_is_refused_not_made(tmp_path, command):
    """A player's trial: `--db typo/r.sqlite3` made the folder and started empty records there
    (the games seemed lost), while `games` and `export` said there were none. Only the
    default folder is made; a --db folder must exist."""
    db = tmp_path / "typo" / "r.sqlite3"
    observations = tmp_path / "seen.jsonl"  # (an empty file is refused before the records)
    observations.write_text('{"cells": {}}\n')
    command = [str(observations) if word == "OBSERVATIONS" else word for word in command]
    result = companion(*command, "--db", str(db))
    one_line_error(result, f"there is no folder {db.parent} for the game records {db}")
    assert "check the --db path" in result.stderr
    assert not db.parent.exists()


def test_the_demo_refuses_a_damaged_settings_file(tmp_path):
    settings = tmp_path / "settings.json"
    settings.write_text("garbage {")
    result = companion(
        "run", "--headless", "--moves", "1", "--settings", str(settings),
        "--db", str(tmp_path / "r.sqlite3"),
    )  # fmt: skip
    one_line_error(result, str(settings), "fix or remove it")
    assert settings.read_text() == "garbage {"


def test_settings_nested_too_deeply_or_paths_too_long_are_one_line(tmp_path):
    """A settings file nested 100 000 deep raised RecursionError; a --settings or
    --screenshots name too long for the system raised OSError from the checks on it."""
    settings = tmp_path / "settings.json"
    settings.write_text('{"a": ' * 100_000)
    db = str(tmp_path / "r.sqlite3")
    run = ["run", "--headless", "--moves", "1", "--db", db]
    result = companion(*run, "--settings", str(settings))
    one_line_error(result, str(settings), "JSON nested too deeply", "fix or remove it")
    long_name = str(tmp_path / ("y" * 300))
    one_line_error(companion(*run, "--settings", long_name), "File name too long", "--settings")
    one_line_error(
        companion(*run, "--screenshots", long_name), "File name too long", "give another folder"
    )
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


def test_a_demo_goes_to_the_records_marked_and_a_killed_demo_is_continued(tmp_path):
    """The default records (STATE_DIRECTORY here), a game `games` marks as a demo and
    `export` writes; after kill -9 the next demo continues that game instead of a new one."""
    env = {**os.environ, "STATE_DIRECTORY": str(tmp_path)}
    db = tmp_path / "records.sqlite3"
    process = subprocess.Popen(
        [*COMPANION, "run", "--headless", "--screenshots", str(tmp_path / "shots")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        moves = 0
        while moves < 2 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
            try:
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
                    moves = c.execute(
                        "SELECT count(*) FROM moves WHERE taken_back_at IS NULL"
                    ).fetchone()[0]
            except sqlite3.Error:
                pass
        assert moves >= 2 and process.poll() is None
    finally:
        process.kill()  # SIGKILL
        process.wait()
    again = companion("run", "--headless", "--moves", "2", "--screenshots",
                      str(tmp_path / "shots2"), env=env)  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "demo: continuing the unfinished game #1" in again.stdout
    assert "game #1 recorded in" in again.stdout
    with Records(db, readonly=True) as records:
        (summary,) = records.games()  # no second game
        assert summary.meta["demo"] is True and summary.moves >= moves + 2
    listed = companion("games", env=env)
    assert "arinama (demo)" in listed.stdout
    exported = companion("export", "1", "--format", "json", "-o", str(tmp_path / "g.json"), env=env)
    assert exported.returncode == 0, exported.stderr
    assert '"moves"' in (tmp_path / "g.json").read_text()


def test_a_demo_whose_output_is_closed_says_it_stopped_and_is_continued(tmp_path):
    """`companion run | head -2` (a new player's trial): the demo stopped at once and exited
    0, "played and recorded", with a game of no moves in the records."""
    db = tmp_path / "r.sqlite3"
    process = subprocess.Popen(
        [*COMPANION, "run", "--headless", "--moves", "2", "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},  # each line written as printed
    )
    process.stdout.readline()
    process.stdout.close()  # as `head -1` does once it has its line
    _, err = process.communicate(timeout=120)
    assert process.returncode == 128 + signal.SIGPIPE, err
    assert err.decode().strip() == (  # (naming the command: without --game, another game)
        f"companion: the demo stopped: its output was closed - the next `companion run --game "
        f"arinama --db {db}` demo continues its unfinished game #1"
    )
    again = companion("run", "--headless", "--moves", "2", "--db", str(db))
    assert again.returncode == 0 and "demo: continuing the unfinished game #1" in again.stdout


def test_the_demo_plays_the_board_the_player_chose_not_one_mixed_with_its_own(tmp_path):
    """`run --help` offers `-o rows=8`: the demo took its own cols=5 beside it and refused
    "a grid:8x5 board of one's own" (a new player's trial)."""
    result = companion(
        "run", "--headless", "--game", "arinama", "-o", "rows=8", "--moves", "1",
        "--db", str(tmp_path / "r.sqlite3"),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "demo: Arinama on the synthetic table (arinama8)" in result.stdout
    arinama = ["--game", "arinama"]
    for chosen in ([], [*arinama, "-o", "first=white"], [*arinama, "-o", "rows=5"]):
        db = str(tmp_path / f"r{len(chosen)}{''.join(chosen[-1:])}.sqlite3")  # the demo's 5x5
        plain = companion("run", "--headless", "--moves", "1", *chosen, "--db", db)
        assert "(arinama5)" in plain.stdout, (chosen, plain.stdout, plain.stderr)


def test_the_demo_says_one_move_not_one_moves(tmp_path):
    result = companion("run", "--headless", "--moves", "1", "--db", str(tmp_path / "r.sqlite3"))
    assert "unfinished after 1 move (" in result.stdout, result.stdout


@pytest.mark.parametrize("after", ["companion.entry", "companion.games.base", "numpy", "pygame"])
def test_ctrl_c_while_the_command_loads_is_one_line(tmp_path, after):
    """Ctrl-C while the CLI and its libraries are still being imported (the first few tenths of
    a second): one line and exit 130. `-X importtime` reports each import as it ends, so the
    interrupt is sent at a known point of the loading, not after a guessed delay."""
    # The installed `companion` script (the pyproject entry point), as a user starts it.
    script = Path(sys.executable).parent / "companion"
    command = [sys.executable, "-X", "importtime"]
    command += [str(script)] if script.exists() else ["-m", "companion"]
    process = subprocess.Popen(
        [*command, "run", "--headless", "--db", str(tmp_path / "r.sqlite3")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    lines = []
    for line in process.stderr:
        lines.append(line)
        if line.startswith("import time:") and line.rsplit("|", 1)[-1].strip() == after:
            process.send_signal(signal.SIGINT)
            break
    else:
        pytest.fail(f"{after} was never imported: {lines[-3:]}")
    rest = process.stderr.read()
    process.wait(timeout=60)
    messages = [x for x in rest.splitlines() if not x.startswith("import time:")]
    assert process.returncode == 130 and messages == ["companion: interrupted"], rest[-2000:]


REPO = Path(__file__).resolve().parents[1]


def test_dev_companion_keeps_the_players_folder(tmp_path):
    """`./dev companion ...` run from another folder reads and writes the player's relative
    paths there, not in the clone (./dev changes into the clone to set it up - and sets up
    .venv first when it is not there yet)."""
    done = subprocess.run(
        [str(REPO / "dev"), "companion", "vision", "snapshot", "sim:arinama5"]
        + ["-o", "snap.png", "--position", "pos.json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "snap.png").exists() and (tmp_path / "pos.json").exists()
    assert not (REPO / "snap.png").exists()


@pytest.mark.parametrize("unfinished_demo", [False, True])
def test_a_game_a_damaged_records_file_did_not_take_is_said_not_recorded(tmp_path, unfinished_demo):
    """A player's trial: on a records file damaged inside (it still opens) the demo played,
    wrote nothing, and said "game #None recorded in ..." and that the next demo continues it,
    exit 0. Now the last line says the game was NOT recorded, why and what to do, exit 1; the
    file is left as it was."""
    import hashlib

    from test_records import _damage_the_middle, _written_db

    from companion import games

    db = tmp_path / "r.sqlite3"
    if unfinished_demo:  # a demo game to continue, in a page the damage leaves readable
        with Records(db) as records:
            records.new_game(games.get("arinama").new({"rows": 5, "cols": 5}), meta={"demo": True})
    _written_db(db)
    _damage_the_middle(db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    result = companion("run", "--headless", "--moves", "3", "--db", str(db))
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "None" not in result.stdout + result.stderr
    assert "recorded in" not in result.stdout and "continues it" not in result.stdout
    assert "unfinished after 3 moves" in result.stdout  # the game was played
    last = result.stderr.strip().splitlines()[-1]
    kept = " (game #1 stays in the records as it was before)" if unfinished_demo else ""
    assert last.startswith(f"companion: error: this game was NOT recorded{kept}: {db} is damaged (")
    assert last.endswith(
        "nothing more is written to it - restore it from a backup, or copy it aside and start "
        "new records with --db NEWFILE"
    )
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_no_screen_the_service_can_open_is_one_line_not_a_traceback(tmp_path):
    """A review of the Pi side: with no screen connected (or no DRM device, or no right to
    it) SDL's own init failed before the wrapped set_mode - a traceback in the journal, the
    hint about SDL_VIDEODRIVER and the groups never shown. This machine has no KMSDRM: the
    same failure."""
    env = {**os.environ, "SDL_VIDEODRIVER": "kmsdrm", "STATE_DIRECTORY": str(tmp_path)}
    result = companion(
        "run", "--fullscreen", "--wait-for-camera", "--db", str(tmp_path / "r.sqlite3"), env=env
    )
    one_line_error(result, "cannot open the screen", "SDL_VIDEODRIVER=kmsdrm", "video and render")


def test_a_demo_stopped_with_ctrl_c_says_the_next_demo_continues_it(tmp_path):
    """A trial: Ctrl-C during the demo printed only "companion: interrupted" - nothing on the
    game, which is recorded move by move and continued by the next demo."""
    db = tmp_path / "r.sqlite3"
    process = subprocess.Popen(
        [*COMPANION, "run", "--headless", "--game", "arimaa", "--moves", "40", "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        # as a terminal starts it: a suite started in the background (`./dev test &`) ignores
        # Ctrl-C, and a child inherits that - the demo played on to its end (exit 0)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        for line in process.stdout:  # a few instructions in: the game is under way
            if line.lstrip().startswith(b"2 "):
                break
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 128 + signal.SIGINT, err
    # ... naming the command: a trial's plain `run` afterwards played the default game anew
    assert err.decode().strip().splitlines()[-1] == (
        f"companion: interrupted: the next `companion run --game arimaa --db {db}` demo "
        "continues its unfinished game #1"
    )
    again = companion("run", "--headless", "--game", "arimaa", "--moves", "2", "--db", str(db))
    assert again.returncode == 0 and "demo: continuing the unfinished game #1" in again.stdout
