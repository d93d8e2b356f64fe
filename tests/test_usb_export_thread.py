"""Export to USB on a thread of its own (`companion.usb_export.StickWorker`): the records read
there while the game in hand is recorded on the main thread, a fault of the companion's handed
to the screen's thread, and the app quitting while a file is written - never a half-written
file under its name."""

import json
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from test_records import _board_photo, play_recorded

import companion.usb_export
from companion import games
from companion.records import Records
from companion.referee.protocol import Event
from companion.usb_drives import Drive
from companion.usb_export import FOLDER, StickExport, StickWorker

TIMEOUT = 20.0  # s: far longer than anything here takes
REPO = Path(__file__).resolve().parent.parent


def stick(tmp_path):
    mount = tmp_path / "stick"
    mount.mkdir()
    return Drive(mount, "/dev/sda1", "vfat", False, "KINGSTON")


def test_the_worker_reads_the_records_while_the_game_in_hand_is_recorded(tmp_path):
    """`Records` shared between threads: the worker reads whole games, photos and all, while the
    main thread records the game in hand (with its photos) - each read one snapshot, nothing
    lost or mixed up on either side."""
    photo = _board_photo(320)(70)
    with Records(tmp_path / "records.sqlite3") as db:
        played = [
            play_recorded(db, name, seed=seed, max_moves=25, image=photo)[0]
            for seed, name in enumerate(("arinama", "aranea", "arimaa"))
        ]
        position, rng = games.get("arinama").new(), random.Random(7)
        in_hand = db.new_game(position)
        drive = stick(tmp_path)
        ids = [in_hand, *played] * 3
        reported = []
        job = StickExport(drive, ids, find=lambda: [drive])
        worker = StickWorker(job, db, report=reported.append).start()
        assert worker.thread.name == "usb-export" and worker.thread.daemon
        recorded = 0
        while worker.thread.is_alive() or not recorded:  # the referee goes on meanwhile
            if position.is_game_over():
                break
            move = position.random_move(rng)
            text = position.move_text(move)
            position.push(move)
            db.add_move(in_hand, position, text, image_jpeg=photo)
            db.add_event(in_hand, Event("move", {"move": text}))
            recorded += 1
            time.sleep(0.02)  # (a player's move takes longer still)
        worker.thread.join(TIMEOUT)
        assert not worker.thread.is_alive() and worker.error is None
        state = worker.state
        assert state.finished and state.problem == "" and state.failure is None
        assert len(state.done) == len(ids) and state.skipped == []
        moves = [m.text for m in db.game(in_hand).moves]
        assert len(moves) == recorded and db.check() == []
    # every copy of the game in hand on the stick is the game as it stood at one moment
    folder = drive.mount / FOLDER
    for files in state.done:
        record = json.loads(files.paths[1].read_text())
        if files.game_id == in_hand:
            assert record["moves"] == moves[: len(record["moves"])]
        assert files.paths[0].read_text().startswith("<!DOCTYPE html>")
    assert {f.game_id for f in reported} == set(ids)
    assert not list(folder.glob(".*.tmp"))


def test_a_fault_of_the_companion_ends_the_worker_and_is_handed_to_the_screen(
    tmp_path, monkeypatch, capsys
):
    with Records(tmp_path / "records.sqlite3") as db:
        ids = [play_recorded(db, "arinama", seed=s, max_moves=4)[0] for s in (1, 2)]
        drive = stick(tmp_path)

        def broken(record, folder):
            raise ValueError("a bug")

        monkeypatch.setattr(companion.usb_export, "write_game", broken)
        worker = StickWorker(StickExport(drive, ids, find=lambda: [drive]), db, print).start()
        worker.thread.join(TIMEOUT)
    assert isinstance(worker.error, ValueError)
    assert worker.state.finished and worker.state.done == []  # no longer "writing"
    # and in the journal at once: the page may have been left, and no screen raises it
    err = capsys.readouterr().err
    assert "Traceback" in err and "ValueError: a bug" in err


def test_quitting_while_a_file_is_written_leaves_no_half_written_file(tmp_path):
    """The app ends (its main thread returns: a quit, systemd's SIGTERM) while the worker is in
    the middle of a file: the process does not wait for it, and the stick holds no file under
    its name that is not whole - at most a hidden temporary one."""
    with Records(tmp_path / "records.sqlite3") as db:
        game_id, _ = play_recorded(db, "arinama", seed=2, max_moves=6)
    script = textwrap.dedent(
        f"""
        import os, threading, time
        from pathlib import Path
        import companion.files
        from companion.records import Records
        from companion.usb_drives import Drive
        from companion.usb_export import StickExport, StickWorker

        reached = threading.Event()

        def slow_flush(fd):  # the page's bytes are in the temporary file, not yet flushed
            reached.set()
            threading.Event().wait()  # for ever: only the process's end stops it

        companion.files.os.fsync = slow_flush
        drive = Drive(Path({str(tmp_path / "stick")!r}), "/dev/sda1", "vfat", False, "KINGSTON")
        with Records({str(tmp_path / "records.sqlite3")!r}) as db:
            job = StickExport(drive, [{game_id}], find=lambda: [drive])
            StickWorker(job, db, report=print).start()
            assert reached.wait(20)
        print("quitting", flush=True)
        """
    )
    (tmp_path / "stick").mkdir()
    result = subprocess.run(  # (the timeout: a process that waited for its worker, for ever)
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0 and result.stdout == "quitting\n", result.stderr
    folder = tmp_path / "stick" / FOLDER
    names = [p.name for p in folder.iterdir()]
    assert len(names) == 1 and names[0].startswith(f".game-{game_id}-"), names
    assert names[0].endswith(".tmp")  # hidden, and never taken for the game's page
    # the next export of the game writes it whole and takes the leftover away
    drive = Drive(tmp_path / "stick", "/dev/sda1", "vfat", False, "KINGSTON")
    with Records(tmp_path / "records.sqlite3") as db:
        worker = StickWorker(StickExport(drive, [game_id], find=lambda: [drive]), db, print)
        worker.start().thread.join(TIMEOUT)
    assert len(worker.state.done) == 1
    names = sorted(p.name for p in folder.iterdir())
    assert [n.rsplit(".", 1)[1] for n in names] == ["html", "json"], names
