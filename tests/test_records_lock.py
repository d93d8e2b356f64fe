"""One writer per records file: two companions recording into one file interleaved their moves
in one game and left a game no engine replays. A writer holds a lock on ``<file>.lock``; a
second one is refused with one line, readers are not. Real processes, real locks, real SQLite
files."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion import games
from companion.errors import RecordError
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


def test_a_second_writer_is_refused_naming_the_file_and_the_other_companion(holder):
    db, process, close = holder
    for command in (
        ["run", "--headless", "--moves", "1", "--db", str(db)],
        ["referee", "--game", "arinama", "--observations", os.devnull, "--db", str(db)],
    ):
        line = in_use_line(companion(*command), db)
        assert f"(process {process.pid})" in line
    # in this process too: a Records opened for writing is refused with the same words
    with pytest.raises(RecordError, match=f"is in use: another companion \\(process {process.pid}"):
        Records(db)
    # readers take no lock: the review, `games` and `export` read while the other one writes
    with Records(db, readonly=True) as records:
        assert records.games() == []
    assert companion("games", "--db", str(db)).returncode == 0
    close()  # the first companion stops: the file is free for the next one
    done = companion("run", "--headless", "--moves", "1", "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "game #1 recorded in" in done.stdout


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
