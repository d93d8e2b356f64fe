"""Every file the companion writes is written whole or not at all (`companion.files`): a full
card or a power cut mid-write leaves the old file - a calibration, the settings, an export."""

from __future__ import annotations

import errno
import json
import os

import pytest

import companion.files
from companion.app.settings import Settings
from companion.errors import UserError
from companion.files import write_atomically
from vision.jsonfile import read_json, write_json


def full_disk(monkeypatch):
    """The next write fails as on a full SD card: after the temporary file was made."""

    def no_space(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(companion.files.os, "fsync", no_space)


def test_write_atomically_replaces_the_file_whole_with_the_mode_of_a_new_file(tmp_path):
    path = tmp_path / "out.txt"
    path.write_text("old")
    assert write_atomically(path, "new\n") == path
    assert path.read_text() == "new\n"
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's private 0600
    write_atomically(path, b"\x89PNG")
    assert path.read_bytes() == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "out.txt"
    path.write_text("old")
    full_disk(monkeypatch)
    with pytest.raises(UserError, match=f"cannot save to {path}: No space left"):
        write_atomically(path, "new", verb="save to")
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_a_disk_gone_mid_write_is_said_as_a_write_failure_with_its_errno(tmp_path, monkeypatch):
    """A USB stick pulled out while a file is written: the flush fails (EIO), and so does the
    removal of the temporary file - which then hid the write's failure behind a bare OSError
    (a traceback on the screen's export) instead of the one-line error."""

    def gone(*args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(companion.files.os, "fsync", gone)
    monkeypatch.setattr(companion.files.Path, "unlink", gone)
    with pytest.raises(companion.files.WriteFailed, match="cannot write .*: Input/output") as e:
        write_atomically(tmp_path / "game.html", "<html>")
    assert e.value.errno == errno.EIO and isinstance(e.value, UserError)


def test_a_calibration_written_again_on_a_full_card_keeps_the_old_one(tmp_path, monkeypatch):
    # `companion vision calibrate --force` over the table's calibration: before, the file was
    # opened for writing (emptied) first, and a failure left it empty - the table unreadable.
    path = tmp_path / "table.cal.json"
    write_json(path, {"version": 5, "means": [[1.0]]})
    with pytest.raises(UserError, match="already exists: choose another name or pass --force"):
        write_json(path, {"version": 5})
    full_disk(monkeypatch)
    with pytest.raises(UserError, match="cannot write .*table.cal.json: No space left"):
        write_json(path, {"version": 5, "means": [[2.0]]}, overwrite=True)
    assert read_json(path, "calibration", "calibrate first") == {"version": 5, "means": [[1.0]]}
    assert [p.name for p in tmp_path.iterdir()] == ["table.cal.json"]


def test_settings_saved_on_a_full_card_keep_the_old_settings(tmp_path, monkeypatch):
    path = tmp_path / "settings.json"
    Settings(game="aranea").save(path)
    full_disk(monkeypatch)
    with pytest.raises(UserError, match="cannot write .*settings.json: No space left"):
        Settings(game="sensei").save(path)
    assert Settings.load(path).game == "aranea"
    assert json.loads(path.read_text())["game"] == "aranea"


def test_an_interrupt_mid_write_leaves_the_old_file_and_no_temporary_one(tmp_path, monkeypatch):
    """A review: a second SIGHUP during `companion play`'s save left `.g.json.*.tmp` behind -
    only an OSError cleaned it up."""
    target = tmp_path / "g.json"
    target.write_text("the old record")

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(companion.files.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, "the new record")
    assert [p.name for p in tmp_path.iterdir()] == ["g.json"]
    assert target.read_text() == "the old record"


def test_write_atomically_leaves_the_umask_alone(tmp_path, monkeypatch):
    """Reading the umask means setting it (to 0, then back): another thread making a file in
    between (the USB export's worker beside the settings being saved) made it world-writable,
    and two such reads interleaved could leave the process at umask 0 (a review). The file
    still gets a new file's mode: the kernel applies the umask."""

    def untouchable(mask):
        raise AssertionError(f"os.umask({mask:o}) called")

    umask = os.umask(0)
    os.umask(umask)
    monkeypatch.setattr(companion.files.os, "umask", untouchable)
    path = write_atomically(tmp_path / "settings.json", "{}\n")
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask
