"""Game records on real SQLite files: write, reopen, resume, refuse bad files, survive SIGKILL."""

import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from companion import games, records
from companion.dice import Dice
from companion.errors import RecordError
from companion.games.base import Outcome
from companion.records import MAX_IMAGE_BYTES, Records
from companion.referee.protocol import Event, Instruction

GAMES = games.names()  # every registered game


class RecordingDice(Dice):
    """Real seeded dice that remember their last roll, so the test can record it."""

    last = None

    def roll(self):
        self.last = super().roll()
        return self.last


def play_recorded(db, name, seed, max_moves=60, image=None):
    """A random game of `name` written move by move as the referee would; (game_id, position)."""
    rng = random.Random(seed)
    dice = RecordingDice(seed=seed)
    pos = games.get(name).new()
    game_id = db.new_game(pos, players={p: f"player {i}" for i, p in enumerate(pos.players)})
    for _ in range(max_moves):
        if pos.is_game_over():
            db.finish(game_id, pos.outcome())
            break
        if pos.awaiting_roll:
            move = pos.roll_move(dice)
            db.add_roll(game_id, dice.last)
        else:
            move = pos.random_move(rng)
        text = pos.move_text(move)
        pos.push(move)
        db.add_instruction(
            game_id, Instruction(text=f"move {len(pos.move_stack)}: {text}", kind="move")
        )
        db.add_move(game_id, pos, text, image_jpeg=image)
        db.add_event(game_id, Event("move", {"move": text}))
    return game_id, pos


def recorded_whole_game(db, name, seed, max_moves=400):
    """A random game played in memory, then recorded at once (new_game keeps a position's
    moves, in one transaction) and finished: a quick way to fill a database."""
    rng = random.Random(seed)
    dice = Dice(seed=seed)
    pos = games.get(name).new()
    while not pos.is_game_over() and len(pos.move_stack) < max_moves:
        pos.push(pos.roll_move(dice) if pos.awaiting_roll else pos.random_move(rng))
    game_id = db.new_game(pos)
    if pos.is_game_over():
        db.finish(game_id, pos.outcome())
    return game_id, pos


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "records.sqlite3"


# -- writing and reading back ---------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_every_game_survives_reopening_and_resumes_at_its_last_position(db_path, name):
    with Records(db_path) as db:
        game_id, pos = play_recorded(db, name, seed=11)
    with Records(db_path) as db:
        record = db.game(game_id)
        texts = [m.text for m in record.moves]
        resumed = db.resume(game_id)
    board = pos.root()
    expected = []
    for move in pos.move_stack:
        expected.append(board.move_text(move))
        board.push(move)
    assert texts == expected
    assert [m.ply for m in record.moves] == list(range(1, len(expected) + 1))
    assert resumed.to_json() == pos.to_json()
    assert len(resumed.move_stack) == len(pos.move_stack)
    assert record.summary.game == name and record.summary.moves == len(expected)
    assert record.summary.players == {p: f"player {i}" for i, p in enumerate(pos.players)}
    assert record.moves[-1].position == json.loads(json.dumps(pos.to_json()))
    assert all(e.kind == "move" for e in record.events) and len(record.events) == len(expected)


def test_rolls_are_stored_with_their_dice_value_and_the_move_they_were_for(db_path):
    dice = Dice(seed=3)
    with Records(db_path) as db:
        pos = games.get("arinama").new()
        game_id = db.new_game(pos)
        first, second = dice.roll(), dice.roll()
        db.add_roll(game_id, first)
        pos.push(pos.legal_moves()[0])
        db.add_move(game_id, pos, pos.move_text(pos.move_stack[-1]))
        db.add_roll(game_id, second)
        db.add_roll(game_id, (6, 6, 1))
        rolls = db.game(game_id).rolls
    assert [(r.for_ply, r.dice, r.value) for r in rolls] == [
        (1, (first.a, first.b), first.value),
        (2, (second.a, second.b), second.value),
        (2, (6, 6, 1), 13),
    ]
    with Records(db_path) as db, pytest.raises(RecordError, match="a roll must be"):
        db.add_roll(game_id, "six")


def test_a_repeated_instruction_is_stored_once_until_something_happens(db_path):
    with Records(db_path) as db:
        game_id = db.new_game(games.get("arinama").new())
        wait = Instruction(text="Black to move", kind="move", player="black")
        for _ in range(5):
            db.add_instruction(game_id, wait)
        db.add_instruction(game_id, Instruction(text="Turn d4 to black", kind="flip"))
        db.add_instruction(game_id, wait)
        db.add_roll(game_id, (1, 2))  # a new roll: the same words are a new instruction
        db.add_instruction(game_id, wait)
        db.add_instruction(game_id, wait)
        stored = [(i.for_ply, i.instruction["text"]) for i in db.game(game_id).instructions]
    assert stored == [
        (1, "Black to move"),
        (1, "Turn d4 to black"),
        (1, "Black to move"),
        (1, "Black to move"),
    ]


def test_undo_keeps_the_taken_back_move_in_the_history(db_path):
    with Records(db_path) as db:
        pos = games.get("arinama").new()
        game_id = db.new_game(pos)
        for _ in range(3):
            move = pos.legal_moves()[0]
            text = pos.move_text(move)
            pos.push(move)
            db.add_move(game_id, pos, text)
        last = pos.pop()
        undone = db.undo_move(game_id)
        assert undone == pos.move_text(last)
        other = pos.legal_moves()[-1]
        other_text = pos.move_text(other)
        pos.push(other)
        assert db.add_move(game_id, pos, other_text) == 3
        record = db.game(game_id)
        assert [m.text for m in record.taken_back] == [undone]
        assert record.moves[-1].text == other_text and len(record.moves) == 3
        assert [e.kind for e in record.events] == ["undo"]
        assert db.resume(game_id).to_json() == pos.to_json()


def test_undo_with_no_moves_and_unknown_games_are_clear_errors(db_path):
    with Records(db_path) as db:
        game_id = db.new_game(games.get("arinama").new())
        with pytest.raises(RecordError, match="no move to take back"):
            db.undo_move(game_id)
        with pytest.raises(RecordError, match="there is no game 99 .*companion games"):
            db.game(99)
        with pytest.raises(RecordError, match="no game 99"):
            db.add_move(99, games.get("arinama").new(), "c3")


def test_unfinished_games_are_offered_until_finished_or_abandoned(db_path):
    with Records(db_path) as db:
        pos = games.get("arinama").new()
        a, b, c = (db.new_game(pos) for _ in range(3))
        assert [g.id for g in db.unfinished_games()] == [c, b, a]
        db.finish(b, Outcome("white", "full-board", "White has more stones"))
        db.abandon(c)
        assert [g.id for g in db.unfinished_games()] == [a]
        summaries = {g.id: g for g in db.games()}
        assert summaries[b].status == "finished" and summaries[b].ended_at
        assert summaries[b].result == "white wins (full-board): White has more stones"
        assert summaries[c].status == "abandoned" and summaries[c].result == "abandoned"
        with pytest.raises(RecordError, match="game 2 is finished"):
            db.add_move(b, pos, "c3")


def test_taking_back_the_last_move_of_a_finished_game_reopens_it(db_path):
    with Records(db_path) as db:
        game_id, pos = recorded_whole_game(db, "arinama", seed=5)
        assert pos.is_game_over() and db.game(game_id).summary.status == "finished"
        db.undo_move(game_id)
        summary = db.game(game_id).summary
        assert summary.status == "playing" and summary.outcome is None
        assert [g.id for g in db.unfinished_games()] == [game_id]


def test_a_game_started_from_a_position_with_moves_keeps_them(db_path):
    pos = games.get("arinama").new()
    for _ in range(4):
        pos.push(pos.legal_moves()[0])
    with Records(db_path) as db:
        game_id = db.new_game(pos)
        assert db.resume(game_id).to_json() == pos.to_json()
        assert db.game(game_id).start == json.loads(json.dumps(pos.root().to_json()))


# -- photos ------------------------------------------------------------------------------------------
def _board_photo(width):
    import cv2
    import numpy as np

    rng = np.random.default_rng(0)
    image = rng.integers(0, 255, (width * 3 // 4, width, 3), dtype=np.uint8)
    return lambda quality: cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[
        1
    ].tobytes()


def test_photos_are_stored_fitted_to_the_cap_or_dropped_with_the_reason(db_path):
    encode = _board_photo(480)  # noise: too big at high quality, fits at a lower one
    assert len(encode(records.JPEG_QUALITIES[0])) > MAX_IMAGE_BYTES
    small = _board_photo(64)(80)
    with Records(db_path) as db:
        pos = games.get("arinama").new()
        game_id = db.new_game(pos)
        photos = [
            small,
            encode,
            _board_photo(1200),
            b"\x89PNG not a jpeg",
            small + b"x" * MAX_IMAGE_BYTES,
        ]
        for photo in photos:
            move = pos.legal_moves()[0]
            text = pos.move_text(move)
            pos.push(move)
            db.add_move(game_id, pos, text, image_jpeg=photo)
        record = db.game(game_id)
        assert record.moves[0].image == small and db.image(game_id, 1) == small
        fitted = record.moves[1].image
        assert fitted.startswith(b"\xff\xd8\xff") and len(fitted) <= MAX_IMAGE_BYTES
        assert [m.image for m in record.moves[2:]] == [None, None, None]
        assert len(record.moves) == 5  # a dropped photo never costs the move
        reasons = {
            e.data["ply"]: e.data["reason"] for e in record.events if e.kind == "image-dropped"
        }
        assert set(reasons) == {3, 4, 5}
        assert (
            "still" in reasons[3] and "not a JPEG" in reasons[4] and "over the limit" in reasons[5]
        )
        assert db.game(game_id, images=False).moves[0].image is None


# -- durability and concurrency -------------------------------------------------------------------
def test_a_move_commit_is_full_synchronous_in_wal_mode(db_path):
    """The COMMIT of a move runs under synchronous=FULL, an instruction's under NORMAL: what
    SQLite was told before each COMMIT, as it executed the statements (the setting read after
    the call alone passed with FULL set only once the move was committed)."""
    levels = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}

    def synchronous_at_each_commit(call):
        level = levels[db._conn.execute("PRAGMA synchronous").fetchone()[0]]
        statements = []
        db._conn.set_trace_callback(statements.append)
        try:
            call()
        finally:
            db._conn.set_trace_callback(None)
        at_commit = []
        for statement in statements:
            words = statement.strip().upper().replace(" ", "")
            if words.startswith("PRAGMASYNCHRONOUS="):
                level = words.partition("=")[2]
            elif words == "COMMIT":
                at_commit.append(level)
        return at_commit

    with Records(db_path) as db:
        pos = games.get("arinama").new()
        game_id = db.new_game(pos)
        said = synchronous_at_each_commit(
            lambda: db.add_instruction(game_id, {"text": "Black to move"})
        )
        assert said == ["NORMAL"]  # the log
        pos.push(pos.legal_moves()[0])
        moved = synchronous_at_each_commit(
            lambda: db.add_move(game_id, pos, pos.move_text(pos.move_stack[-1]))
        )
        assert moved == ["FULL"]
        assert db._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert db._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_readers_see_consistent_games_while_the_referee_writes(db_path):
    writer = Records(db_path)
    done = threading.Event()
    errors, seen = [], []

    def review_screen():
        reader = Records(db_path, readonly=True)
        try:
            while not done.is_set():
                summaries = reader.games()
                if not summaries:
                    continue
                summary = summaries[0]
                record = reader.game(summary.id)
                assert record.summary.moves >= summary.moves
                assert [m.ply for m in record.moves] == list(range(1, len(record.moves) + 1))
                # one moment: the summary counts exactly the moves read with it
                assert record.summary.moves == len(record.moves), "not one snapshot"
                seen.append(summary.moves)
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            reader.close()

    thread = threading.Thread(target=review_screen)
    thread.start()
    try:
        game_id, pos = play_recorded(writer, "arinama", seed=2, max_moves=200)
    finally:
        done.set()
        thread.join()
        writer.close()
    assert not errors
    assert seen == sorted(seen) and len(seen) > 3  # never goes backwards
    with Records(db_path, readonly=True) as reader:
        assert reader.game(game_id).summary.moves == len(pos.move_stack)


WRITER = """
import random, sys
from companion import games
from companion.records import Records
db = Records(sys.argv[1])
unfinished = db.unfinished_games()
if unfinished:
    game_id = unfinished[0].id
    pos = db.resume(game_id)
else:
    pos = games.get("arinama").new(games.get("arinama").options_from({"rows": 12, "cols": 12}))
    game_id = db.new_game(pos)
rng = random.Random(int(sys.argv[2]))
while not pos.is_game_over():
    move = pos.random_move(rng)
    text = pos.move_text(move)
    pos.push(move)
    ply = db.add_move(game_id, pos, text, image_jpeg=b"\\xff\\xd8\\xff" + bytes(2000))
    print(ply, text, flush=True)  # announced only once it is recorded
db.finish(game_id, pos.outcome())
print("end", flush=True)
"""


def test_no_announced_move_is_lost_when_the_writer_is_killed(db_path):
    rng = random.Random(7)
    announced = {}
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    for run in range(6):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db_path), str(run)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(rng.randint(1, 12)):
            line = proc.stdout.readline().split()
            if not line or line[0] == "end":
                break
            announced[int(line[0])] = line[1]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        proc.stdout.close()
    with Records(db_path) as db:
        [summary] = db.games()
        record = db.game(summary.id)
        stored = {m.ply: m.text for m in record.moves}
        assert db.check() == []
        resumed = db.resume(summary.id)
    assert len(announced) >= 6
    assert all(stored.get(ply) == text for ply, text in announced.items())
    assert len(resumed.move_stack) == len(record.moves) >= max(announced)


# -- files that are not ours, damaged or newer ----------------------------------------------------
def _written_db(path, n_games=4):
    with Records(path) as db:
        for seed in range(n_games):
            recorded_whole_game(db, "arinama", seed)
    return path


def _damage_the_middle(path):
    """Two pages in the middle of the file overwritten: damage the header cannot show and that
    opening does not read."""
    data = bytearray(path.read_bytes())
    middle = len(data) // 4096 // 2 * 4096
    data[middle : middle + 2 * 4096] = b"\x07" * (2 * 4096)
    path.write_bytes(bytes(data))


def test_a_truncated_database_is_refused_and_left_untouched(db_path):
    _written_db(db_path)
    data = db_path.read_bytes()
    assert len(data) > 8 * 4096
    db_path.write_bytes(data[: len(data) // 2 + 100])
    before = digest(db_path)
    with pytest.raises(RecordError, match="is truncated or damaged .*the file was left untouched"):
        Records(db_path)
    with pytest.raises(RecordError, match="truncated"):
        Records(db_path, readonly=True)
    assert digest(db_path) == before
    assert not Path(f"{db_path}-wal").exists()


def test_records_whose_checkpoint_was_cut_short_open_whole(db_path, tmp_path):
    """A checkpoint copies the log's pages into the file in page order, page 1 - the header,
    with the grown size - first: killed after it (a power cut, SIGKILL; a fault-injection
    test's rare failure), the file is shorter than its header says, and SQLite finishes the
    checkpoint from the log. Such records were refused as "truncated or damaged"; they open,
    every game in them. Without pages in a log the short file is refused as before."""
    _written_db(db_path, n_games=2)
    writer = sqlite3.connect(db_path)  # the file grows by a hundred pages, in the log only
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE grown (x BLOB)")
    writer.executemany("INSERT INTO grown VALUES (?)", [(os.urandom(3000),)] * 100)
    writer.commit()
    cut = tmp_path / "cut"
    cut.mkdir()
    for suffix in ("", "-wal"):
        shutil.copy(f"{db_path}{suffix}", cut / f"r.sqlite3{suffix}")
    writer.close()
    log = (cut / "r.sqlite3-wal").read_bytes()
    size = struct.unpack(">I", log[8:12])[0]
    frames = [log[at : at + 24 + size] for at in range(32, len(log) - size, 24 + size)]
    page1 = [frame[24:] for frame in frames if struct.unpack(">I", frame[:4])[0] == 1][-1]
    whole = cut / "r.sqlite3"
    assert struct.unpack(">I", page1[28:32])[0] * size > whole.stat().st_size  # it grew
    with open(whole, "r+b") as f:
        f.write(page1)  # the checkpoint cut short after page 1
    with Records(whole, readonly=True) as db:
        assert len(db.games()) == 2 and db.check() == []
    assert sqlite3.connect(whole).execute("SELECT count(*) FROM grown").fetchone() == (100,)
    (cut / "r.sqlite3-wal").unlink()  # no log to finish it from: a short file, refused
    with pytest.raises(RecordError, match="is truncated or damaged"):
        Records(whole, readonly=True)


def test_a_damaged_page_is_a_record_error_not_a_traceback(db_path):
    _written_db(db_path)
    data = bytearray(db_path.read_bytes())
    page = 4096
    data[2 * page : 6 * page] = b"\x07" * (4 * page)  # garbage over pages 3-6
    db_path.write_bytes(bytes(data))
    with pytest.raises(RecordError, match="damaged|malformed"):
        with Records(db_path, readonly=True) as db:
            for summary in db.games():
                db.game(summary.id)
            assert db.check() == []


def test_damage_inside_the_file_gets_no_new_game_and_the_file_is_left_as_it_was(db_path):
    """Damage that the header cannot show and that opening does not read (two pages in the
    middle overwritten): the quick check that runs when the file is opened for writing finds
    it, and the first write is refused with one line saying what to do - SQLite would
    otherwise have gone on writing new games into a damaged file."""
    _written_db(db_path)
    _damage_the_middle(db_path)
    before = digest(db_path)
    with Records(db_path) as db:
        with pytest.raises(RecordError, match="is damaged .*nothing more is written to it"):
            db.new_game(games.get("arinama").new())
        with pytest.raises(RecordError, match="nothing more is written"):  # every write
            db.new_game(games.get("arinama").new())
    assert digest(db_path) == before


def test_a_file_that_is_not_sqlite_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("my shopping list\n" * 20)
    before = digest(path)
    with pytest.raises(RecordError, match="not a companion record database .*--db"):
        Records(path)
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_another_programs_sqlite_database_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "photos.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE albums (name TEXT)")
    conn.commit()
    conn.close()
    before = digest(path)
    with pytest.raises(RecordError, match="another program \\(tables albums\\)"):
        Records(path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA application_id=1234")
    conn.close()
    before = digest(path)
    with pytest.raises(RecordError, match="another program \\(application id 0x4d2\\)"):
        Records(path)
    assert digest(path) == before


def test_a_database_from_a_newer_companion_is_refused_and_left_untouched(db_path):
    _written_db(db_path, n_games=1)
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA user_version=3")
    conn.close()
    before = digest(db_path)
    message = (
        "was written by a newer companion \\(schema 3, this one reads 1\\): "
        "update the companion; the file was left untouched"
    )
    with pytest.raises(RecordError, match=message):
        Records(db_path)
    with pytest.raises(RecordError, match=message):
        Records(db_path, readonly=True)
    assert digest(db_path) == before


def test_an_older_schema_is_copied_aside_before_it_is_upgraded(db_path, monkeypatch):
    _written_db(db_path, n_games=2)
    with Records(db_path) as db:
        old_games = [g.to_json() for g in db.games()]
    monkeypatch.setattr(records, "SCHEMA_VERSION", 2)
    monkeypatch.setattr(records, "_MIGRATIONS", {1: "ALTER TABLE games ADD COLUMN table_name TEXT"})
    with pytest.raises(RecordError, match="older record schema 1: .*companion run --db"):
        Records(db_path, readonly=True)
    with Records(db_path) as db:
        assert [g.to_json() for g in db.games()] == old_games
        assert db._conn.execute("PRAGMA user_version").fetchone()[0] == 2
    [copy] = [p for p in db_path.parent.iterdir() if ".schema1-" in p.name]
    conn = sqlite3.connect(copy)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 2
    conn.close()


def test_a_schema_no_companion_wrote_is_refused_and_left_untouched(db_path):
    _written_db(db_path, n_games=1)
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA user_version=0")  # our id and tables, but "schema 0": edited by hand
    conn.close()
    before = digest(db_path)
    with pytest.raises(RecordError, match="schema 0, which no companion wrote.*left untouched"):
        Records(db_path)
    # the read-only commands say the same (they told to run the companion to upgrade it)
    with pytest.raises(RecordError, match="schema 0, which no companion wrote.*left untouched"):
        Records(db_path, readonly=True)
    assert digest(db_path) == before
    assert [p.name for p in db_path.parent.iterdir() if ".schema0-" in p.name] == []


@pytest.mark.parametrize("readonly", [False, True])
def test_a_device_or_pipe_is_refused_and_nothing_is_created_beside_it(tmp_path, readonly):
    import os

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # stands for /dev/null, where SQLite used to leave /dev/null-journal
    with pytest.raises(RecordError, match="is not a regular file: --db takes a file"):
        Records(fifo, readonly=readonly)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


def test_missing_files_folders_and_readonly_opening(tmp_path):
    missing = tmp_path / "nothing.sqlite3"
    with pytest.raises(RecordError, match="no game records at .*play a game first"):
        Records(missing, readonly=True)
    assert not missing.exists()
    with pytest.raises(RecordError, match="is a folder: --db takes a file"):
        Records(tmp_path)
    # A folder given by name is not made: a typo in --db must not start new records somewhere
    # unexpected (the default folder is made: test_the_state_directory_comes_from_...)
    nested = tmp_path / "new" / "dir" / "records.sqlite3"
    with pytest.raises(RecordError, match="there is no folder .*new/dir for the game records"):
        Records(nested)
    assert not (tmp_path / "new").exists()
    nested.parent.mkdir(parents=True)
    Records(nested).close()
    with Records(nested, readonly=True) as db:
        assert db.games() == []
        with pytest.raises(RecordError, match="read-only"):
            db.new_game(games.get("arinama").new())


def test_a_record_that_no_longer_replays_names_the_move_and_keeps_a_fallback(db_path):
    with Records(db_path) as db:
        game_id, pos = play_recorded(db, "arinama", seed=4, max_moves=10)
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE moves SET move='a1' WHERE game_id=? AND ply=3", (game_id,))
    conn.commit()
    conn.close()
    with Records(db_path) as db:
        with pytest.raises(RecordError, match=f"game {game_id}, move 3 \\('a1'\\)"):
            db.resume(game_id)
        fallback = db.last_position(game_id)
    assert fallback.to_json() == pos.to_json() and fallback.move_stack == []


# -- where the file lives --------------------------------------------------------------------------
def test_the_state_directory_comes_from_systemd_or_the_platform(tmp_path, monkeypatch):
    monkeypatch.setenv("STATE_DIRECTORY", f"{tmp_path}/svc:{tmp_path}/other")
    assert records.default_db_path() == tmp_path / "svc" / "records.sqlite3"
    monkeypatch.delenv("STATE_DIRECTORY")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert records.default_db_path() == tmp_path / "xdg" / "tabletop-companion" / "records.sqlite3"
    with Records() as db:
        db.new_game(games.get("arinama").new())
    assert (tmp_path / "xdg" / "tabletop-companion" / "records.sqlite3").exists()


def test_two_companions_creating_the_same_new_file_at_once_both_succeed(tmp_path):
    # The race is short (one companion saw the other's tables before its application id, or
    # was told "locked" while switching to WAL: 1 run in 6 failed), so it is run 25 times.
    for attempt in range(25):
        db_path = tmp_path / f"records{attempt}.sqlite3"
        errors = []
        start = threading.Barrier(4)

        def open_and_start(db_path=db_path, errors=errors, start=start):
            try:
                start.wait()
                with Records(db_path) as db:
                    db.new_game(games.get("arinama").new())
            except Exception as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=open_and_start) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == [], f"attempt {attempt}: {errors!r}"
        with Records(db_path, readonly=True) as db:
            assert len(db.games()) == 4


@pytest.mark.parametrize(
    "table, column, what, read",
    [
        ("games", "options", "options", "games"),
        ("games", "outcome", "outcome", "games"),
        ("moves", "position", "position after a move", "game"),
        ("games", "start", "start position", "game"),
    ],
)
@pytest.mark.parametrize("value", ["'[1'", "'[]'"])  # not JSON; JSON of the wrong kind
def test_a_row_edited_by_hand_is_named_not_a_traceback(db_path, table, column, what, read, value):
    """A player's trial edited one value with sqlite3 (`options` = '[1'): listing and
    exporting crashed in json.loads. Now one line names the file, the game and the value, and
    the file is left as it was."""
    _written_db(db_path, n_games=2)
    conn = sqlite3.connect(db_path)
    key = "game_id" if table == "moves" else "id"
    conn.execute(f"UPDATE {table} SET {column} = {value} WHERE {key} = 2")
    conn.commit()
    conn.close()
    before = digest(db_path)
    with Records(db_path, readonly=True) as db:
        with pytest.raises(RecordError, match=f"game 2's {what} cannot be read"):
            db.games() if read == "games" else db.game(2)
        assert db.game(1).summary.id == 1  # the other game reads
    assert digest(db_path) == before
    done = subprocess.run(
        [sys.executable, "-m", "companion", "export", "2", "--db", str(db_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"game 2's {what} cannot be read" in done.stderr


def test_a_good_file_in_a_read_only_folder_is_not_called_damaged(db_path, monkeypatch):
    """SQLite cannot open a file whose folder it may not write in (its journal goes beside
    it): "unable to open database file", which said "damaged" - a player might throw a good
    file away. (As root every folder is writable, so the read-only folder is the system's
    answer to os.access, as on a read-only disk.)"""
    cannot_open = sqlite3.OperationalError("unable to open database file")
    monkeypatch.setattr(records.os, "access", lambda path, mode: mode != os.W_OK)
    error = records._database_error(db_path, "open", cannot_open)
    assert "folder or disk is read-only" in str(error) and "damaged" not in str(error)
    monkeypatch.undo()
    assert "damaged" in str(records._database_error(db_path, "open", cannot_open))


class _CheckStopsWith:
    """A connection whose integrity check stops with `error` (as SQLite raises it); every
    other statement goes to the real one."""

    def __init__(self, conn, error):
        self.conn, self.error = conn, error

    def execute(self, sql, *args):
        if "integrity_check" in sql:
            raise self.error
        return self.conn.execute(sql, *args)

    def __getattr__(self, name):  # close, commit, ...
        return getattr(self.conn, name)


@pytest.mark.parametrize(
    ("error", "damaged"),
    [
        (sqlite3.DatabaseError("database disk image is malformed"), True),
        (sqlite3.OperationalError("disk I/O error"), False),
        (sqlite3.OperationalError("database or disk is full"), False),
        (sqlite3.OperationalError("database is locked"), False),
    ],
)
def test_an_integrity_check_stopped_by_damage_found_it_by_anything_else_did_not(
    tmp_path, error, damaged
):
    """A review: every error that stopped the check but a lock was reported as damage found
    (exit 1), so a healthy file on a full disk was said to be damaged; it could not be
    checked (exit 2, in the words any read of the file gets)."""
    path = tmp_path / "r.sqlite3"
    with Records(path) as db:
        play_recorded(db, "arinama", seed=1, max_moves=4)
    with Records(path, readonly=True) as db:
        db._conn = _CheckStopsWith(db._conn, error)
        if damaged:
            assert db.check() == ["database disk image is malformed"]
        else:
            with pytest.raises(RecordError) as raised:  # (exit 2: could not check)
                db.check()
            assert "could not check" in str(raised.value) or "is busy" in str(raised.value)


def test_aranea_records_written_before_turn_numbers_were_kept_still_replay(tmp_path):
    """A review: Aranea's positions gained `turn_number`, and every record written before no
    longer replayed - not continued, not exported, reviewed as "changed". A field the stored
    position lacks is not held against it, and the turns are counted from the history."""
    path = tmp_path / "r.sqlite3"
    db = Records(path)
    game_id, position = play_recorded(db, "aranea", seed=3, max_moves=14)
    db.close()
    with sqlite3.connect(path) as conn:  # as the version before wrote them
        conn.execute("UPDATE games SET start = json_remove(start, '$.turn_number')")
        conn.execute("UPDATE moves SET position = json_remove(position, '$.turn_number')")
    record = Records(path, readonly=True).game(game_id)
    assert all("turn_number" not in m.position for m in record.moves)
    labels: list[str] = []
    again = records.replay(record, labels)
    assert again.to_json() == position.to_json()
    texts = [m.text for m in record.moves]
    turn, expected = 1, []
    for text in texts:
        expected.append(str(turn))
        turn += not text.startswith("roll ")
    assert labels == expected
    # a field it does have is still checked: a changed stone is a changed record
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE moves SET position = json_set(position, '$.stock.amber', 0) WHERE ply = 5"
        )
    with pytest.raises(records.ReplayError) as raised:
        records.replay(Records(path, readonly=True).game(game_id))
    assert raised.value.ply == 5
    # ... and so is any other field taken out (earlier): only the fields added since are let go
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE moves SET position = json_remove(position, '$.stock') WHERE ply = 3")
    with pytest.raises(records.ReplayError) as raised:
        records.replay(Records(path, readonly=True).game(game_id))
    assert raised.value.ply == 3
