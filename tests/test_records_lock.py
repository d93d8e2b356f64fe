"""One writer per records file: two companions recording into one file interleaved their moves
in one game and left a game no engine replays (and a demo that then died in an assert). A
writer holds a lock on ``<file>.lock``; a second one is refused with one line, readers are not,
and a game that no longer replays is said and left, not continued. Real processes, real locks,
real SQLite files."""

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion import games
from companion.cli import main
from companion.commands.run import _open_records
from companion.errors import RecordError, RecordsInUse
from companion.records import Records

COMPANION = [sys.executable, "-m", "companion"]
REPO = Path(__file__).resolve().parents[1]

# A companion that opened the file for writing and keeps it open until told (a line on stdin)
HOLDER = """
import sys
from companion.records import Records
records = Records(sys.argv[1])
print("open", flush=True)
sys.stdin.readline()
records.close()
print("closed", flush=True)
sys.stdin.readline()
"""


def companion(*args, timeout=120):
    return subprocess.run([*COMPANION, *args], capture_output=True, text=True, timeout=timeout)


def in_use_line(result, db):
    """The one line a second writer gets: exit 2, the file, the other companion, what to do."""
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith(f"companion: error: {db} is in use: another companion (process ")
    assert lines[0].endswith(
        "is recording into it, and only one companion at a time may - stop the other one "
        "first, or give this one other records with --db NEWFILE"
    )
    return lines[0]


@pytest.fixture
def holder(tmp_path):
    """A writer in another process; its pid, and a function that makes it close the file."""
    db = tmp_path / "r.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stdout.readline().strip() == "open"

    def close():
        process.stdin.write("\n")
        process.stdin.flush()
        assert process.stdout.readline().strip() == "closed"

    yield db, process, close
    process.kill()
    process.wait()
    process.stdin.close()
    process.stdout.close()


def test_a_second_writer_is_refused_naming_the_file_and_the_other_companion(holder, tmp_path):
    db, process, close = holder
    observations = tmp_path / "seen.jsonl"  # (an empty file is refused before the records)
    observations.write_text('{"cells": {}}\n')
    for command in (
        ["run", "--headless", "--moves", "1", "--db", str(db)],
        ["referee", "--game", "arinama", "--observations", str(observations), "--db", str(db)],
    ):
        line = in_use_line(companion(*command), db)
        assert f"(process {process.pid})" in line
    # in this process too: a Records opened for writing is refused with the same words
    with pytest.raises(RecordError, match=f"is in use: another companion \\(process {process.pid}"):
        Records(db)
    # ... and the boot service stops too (systemd starts it again): the file is sound, and
    # free once the other one stops - never a session played unrecorded for it (a review)
    with pytest.raises(RecordsInUse):
        _open_records(argparse.Namespace(db=db, wait_for_camera=True))
    # readers take no lock: the review, `games` and `export` read while the other one writes
    with Records(db, readonly=True) as records:
        assert records.games() == []
    assert companion("games", "--db", str(db)).returncode == 0
    close()  # the first companion stops: the file is free for the next one
    done = companion("run", "--headless", "--moves", "1", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "game #1 recorded in" in done.stdout


def test_a_demo_refused_for_a_file_in_use_makes_no_screenshot_folder(holder):
    """Refused before anything starts, the demo leaves nothing behind (a review found an empty
    --screenshots folder made before the records file was found in use)."""
    db, _process, _close = holder
    shots = db.parent / "shots"
    run = companion(
        "run", "--headless", "--moves", "1", "--screenshots", str(shots), "--db", str(db)
    )
    in_use_line(run, db)
    assert not shots.exists()


def test_the_lock_goes_with_a_killed_companion(holder):
    """kill -9 (or a pulled plug) leaves the lock file, but not the lock: the next companion
    records at once."""
    db, process, _close = holder
    in_use_line(companion("run", "--headless", "--moves", "1", "--db", str(db)), db)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert (db.parent / "r.sqlite3.lock").exists()
    with Records(db) as records:
        records.new_game(games.get("arinama").new())


def test_a_symbolic_link_to_the_file_takes_the_same_lock(holder):
    """SQLite writes the file a link points to: `--db link.sqlite3` was let in beside the
    companion writing `r.sqlite3` (a review of the lock), and wrote into the same file."""
    db, process, _close = holder
    link = db.parent / "link.sqlite3"
    link.symlink_to(db)
    with pytest.raises(RecordError, match=f"is in use: another companion \\(process {process.pid}"):
        Records(link)


def test_a_child_forked_with_the_lock_does_not_keep_it_from_its_parent(tmp_path):
    """A process that closes its records while a child it forked still runs can open them
    again: the lock is unlocked, not only its descriptor closed (the child's copy held it)."""
    db = tmp_path / "r.sqlite3"
    records = Records(db)
    child = os.fork()
    if child == 0:  # the child: hold on to the copy a while, touch nothing
        import time

        time.sleep(3)
        os._exit(0)
    try:
        records.close()
        again = Records(db)  # refused while the child lived, before
        again.close()
    finally:
        os.kill(child, signal.SIGKILL)
        os.waitpid(child, 0)


def test_writers_in_one_process_share_the_lock_until_the_last_closes(tmp_path):
    """The app and a test (or the review beside a game) in one process are one companion."""
    db = tmp_path / "r.sqlite3"
    first, second = Records(db), Records(db)
    first.close()
    check = [sys.executable, "-c", "import sys; from companion.records import Records; "
             "Records(sys.argv[1]).close()", str(db)]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    refused = subprocess.run(check, capture_output=True, text=True, env=env, timeout=60)
    assert refused.returncode != 0 and "is in use: another companion" in refused.stderr
    second.close()
    free = subprocess.run(check, capture_output=True, text=True, env=env, timeout=60)
    assert free.returncode == 0, free.stderr


def test_a_game_whose_moves_do_not_replay_is_said_and_a_new_game_is_played(tmp_path, capsys):
    """Damage as two writers left it: an unfinished demo game with a move no engine accepts.
    The demo died in an assert; now it says the game cannot be continued and why, plays a new
    one, and leaves the broken game in the file as it was."""
    db = tmp_path / "r.sqlite3"
    shots = str(tmp_path / "shots")
    assert main(["run", "--headless", "--moves", "2", "--screenshots", shots, "--db", str(db)]) == 0
    capsys.readouterr()
    conn = sqlite3.connect(db)
    _last, position = conn.execute(
        "SELECT move, position FROM moves WHERE game_id = 1 ORDER BY ply"
    ).fetchall()[-1]
    conn.execute(  # the first move again, on a cell it already holds: illegal
        "INSERT INTO moves (game_id, ply, move, position, played_at) VALUES (1, 3, ?, ?, ?)",
        (conn.execute("SELECT move FROM moves WHERE ply = 1").fetchone()[0], position, "x"),
    )
    conn.commit()
    conn.close()
    with pytest.raises(RecordError, match="move 3 .* does not replay"):
        with Records(db, readonly=True) as records:
            records.resume(1)
    code = main(["run", "--headless", "--moves", "2", "--screenshots", shots, "--db", str(db)])
    captured = capsys.readouterr()
    assert code == 0 and "Traceback" not in captured.err, captured.err
    assert "demo: the unfinished game #1 cannot be continued (game 1, move 3 (" in captured.out
    assert "does not replay" in captured.out
    assert "a new game starts instead, and #1 is left in the records as it is" in captured.out
    assert "continuing the unfinished game #1" not in captured.out
    assert "game #2 recorded in" in captured.out
    # the next demo continues the new game, the newest unfinished one
    assert main(["run", "--headless", "--moves", "2", "--screenshots", shots, "--db", str(db)]) == 0
    assert "demo: continuing the unfinished game #2" in capsys.readouterr().out
    with Records(db, readonly=True) as records:
        summaries = {s.id: s for s in records.games()}
    assert summaries[1].moves == 3 and summaries[1].status == "playing"  # left as it was
    assert summaries[2].moves == 4  # the new game, continued by the second demo


def test_the_same_in_a_real_process(tmp_path):
    """`companion run` as a player starts it, on a file with a game that does not replay."""
    db = tmp_path / "r.sqlite3"
    with Records(db) as records:
        pos = games.get("arinama").new({"rows": 5, "cols": 5})
        game_id = records.new_game(pos, meta={"demo": True})
        move = pos.legal_moves()[0]
        text = pos.move_text(move)
        pos.push(move)
        records.add_move(game_id, pos, text)
    conn = sqlite3.connect(db)
    conn.execute(  # the same cell twice: the engine refuses the second
        "INSERT INTO moves (game_id, ply, move, position, played_at) VALUES (1, 2, ?, ?, ?)",
        (text, "{}", "x"),
    )
    conn.commit()
    conn.close()
    done = companion("run", "--headless", "--moves", "1", "--db", str(db))
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert f"demo: the unfinished game #1 cannot be continued (game 1, move 2 ('{text}')" in (
        done.stdout
    )
    assert "game #2 recorded in" in done.stdout
