"""Export to a USB stick (`companion.usb_drives`, `companion.usb_export`): the sticks found in a
mountinfo text, and real files written to a folder standing in for the stick and read back -
the page, the record `companion replay` reads, Arimaa's move list - with a full, read-only or
pulled-out stick said in one line and the records untouched."""

import errno
import json
import os
import sqlite3
from pathlib import Path

import pytest
from test_export import parse, run_cli
from test_records import _board_photo, play_recorded

import companion.files
from companion.errors import UserError
from companion.games.base import game_from_json
from companion.records import Records
from companion.usb_drives import Drive, parse_mountinfo, removable_drives
from companion.usb_export import (
    FOLDER,
    StickError,
    StickExport,
    file_stem,
    find_stick,
    write_game,
)

# What /proc/self/mountinfo says on a Pi with two sticks in, seen from inside the service: the
# SD card's root and boot partition, install.sh's udev mount of a FAT stick, a desktop's
# automount of a write-protected one (a space in its label), the service's own bind of
# /media/tabletop-companion (ReadWritePaths=: the SD card, not a stick), a stick mounted by
# hand in /mnt, a fixed disk there, a RAM disk under /media (no device), and the SD card's boot
# partition mounted a second time under /media (never a stick, wherever it is mounted).
MOUNTINFO = r"""21 1 179:2 / / ro,noatime shared:1 - ext4 /dev/root rw
22 21 179:1 / /boot/firmware ro,relatime shared:2 - vfat /dev/mmcblk0p1 rw,fmask=0022
23 21 0:5 / /dev rw,nosuid - devtmpfs udev rw
24 21 179:2 /media/tabletop-companion /media/tabletop-companion rw,noatime - ext4 /dev/root rw
90 24 8:1 / /media/tabletop-companion/sda1 rw,nosuid,nodev,noexec,noatime shared:40 master:40 - vfat /dev/sda1 rw,uid=999,gid=995,fmask=0022
91 21 8:17 / /media/pi/OLD\040STICK ro,nosuid,nodev - vfat /dev/sdb1 ro,uid=1000
92 21 8:33 / /mnt/usb rw,relatime - exfat /dev/sdc1 rw
93 21 8:48 / /mnt/data rw,relatime - ext4 /dev/sdd rw
94 21 0:50 / /media/ram rw - tmpfs tmpfs rw
95 24 179:1 / /media/tabletop-companion/mmcblk0p1 rw - vfat /dev/mmcblk0p1 rw
"""


@pytest.fixture
def sys_block(tmp_path):
    """/sys/block of that Pi: sdc is a removable disk (a stick), sdd a fixed one, mmcblk0 the
    SD card (removable too, as some card readers say)."""
    root = tmp_path / "sys-block"
    for disk, partition, removable in (
        ("sda", "sda1", "1"),
        ("sdb", "sdb1", "1"),
        ("sdc", "sdc1", "1"),
        ("sdd", None, "0"),
        ("mmcblk0", "mmcblk0p1", "1"),
    ):
        (root / disk).mkdir(parents=True)
        (root / disk / "removable").write_text(removable + "\n")
        if partition:
            (root / disk / partition).mkdir()
    return root


def test_the_sticks_are_found_in_mountinfo_read_only_ones_marked(tmp_path, sys_block):
    mountinfo = tmp_path / "mountinfo"
    mountinfo.write_text(MOUNTINFO)
    labels = tmp_path / "by-label"
    labels.mkdir()
    (labels / "KINGSTON").symlink_to("/dev/sda1")
    (labels / "OLD\\x20STICK").symlink_to("/dev/sdb1")
    drives = removable_drives(mountinfo, sys_block, labels)
    assert drives == [
        Drive(Path("/media/pi/OLD STICK"), "/dev/sdb1", "vfat", True, "OLD STICK"),
        Drive(Path("/media/tabletop-companion/sda1"), "/dev/sda1", "vfat", False, "KINGSTON"),
        Drive(Path("/mnt/usb"), "/dev/sdc1", "exfat", False, ""),
    ]
    assert [d.name for d in drives] == ["OLD STICK", "KINGSTON", "usb"]
    # the first writable one is written to; one read-only is never chosen
    assert find_stick(drives).name == "KINGSTON"
    # ... one the companion may write into before one it may not (an ext4 stick, another
    # user's mount: a review found that chosen beside a FAT32 stick), else the first
    assert find_stick(drives, may_write=lambda mount: mount.name == "usb").name == "usb"
    assert find_stick(drives, may_write=lambda mount: False).name == "KINGSTON"


def test_a_stick_mounted_read_only_in_a_read_write_place_is_read_only():
    """ReadWritePaths= makes the mount writable, not a file system whose superblock is
    read-only (systemd.exec): both are read."""
    text = "90 24 8:1 / /media/tabletop-companion/sda1 rw,nosuid - vfat /dev/sda1 ro,uid=999\n"
    (drive,) = parse_mountinfo(text)
    assert drive.read_only


def test_no_stick_or_only_read_only_ones_are_said_so(tmp_path, sys_block):
    with pytest.raises(StickError, match="^No USB stick found: put one in"):
        find_stick([])
    read_only = Drive(Path("/media/pi/OLD STICK"), "/dev/sdb1", "vfat", True, "OLD STICK")
    with pytest.raises(StickError) as said:
        find_stick([read_only])
    assert str(said.value).startswith("The USB stick OLD STICK is read-only")
    assert "slide the switch off, or use another stick" in str(said.value)
    # no mountinfo to read (another system): no stick, never a traceback
    assert removable_drives(tmp_path / "none", sys_block, tmp_path / "none") == []


@pytest.fixture
def records(tmp_path):
    with Records(tmp_path / "records.sqlite3") as db:
        yield db


def stick(tmp_path, label="KINGSTON"):
    mount = tmp_path / "stick"
    mount.mkdir(exist_ok=True)
    return Drive(mount, "/dev/sda1", "vfat", False, label)


def test_a_game_is_written_as_companion_export_writes_it_and_reads_back(records, tmp_path, capsys):
    game_id, pos = play_recorded(
        records, "arinama", seed=3, max_moves=8, image=_board_photo(64)(70)
    )
    files = write_game(records.game(game_id), stick(tmp_path).mount / FOLDER)
    stem = file_stem(records.game(game_id).summary)
    assert stem.startswith(f"game-{game_id}-arinama-20")
    page, record = files.paths
    assert (page.name, record.name) == (f"{stem}.html", f"{stem}.json") and files.written == 2
    assert files.names() == f"{stem}.html, .json"
    # the page: one figure a position, each with its photo, nothing loaded from elsewhere
    html = parse(page.read_text(encoding="utf-8"))
    assert len(html.figures) == len(pos.move_stack) + 1 and html.external == []
    assert all(f["photo"] for f in html.figures[1:])
    # the record: the same game, and `companion replay` reads it
    assert game_from_json(json.loads(record.read_text())).to_json() == pos.to_json()
    code, replayed, _ = run_cli(capsys, "replay", record)
    assert code == 0 and "all legal" in replayed
    # the same as `companion export` writes, byte for byte
    out = tmp_path / "cli.json"
    run_cli(capsys, "export", game_id, "-o", out, "--db", records.path)
    assert out.read_bytes() == record.read_bytes()
    assert sorted(p.name for p in page.parent.iterdir()) == [page.name, record.name]


def test_an_arimaa_game_gets_its_move_list_too(records, tmp_path, capsys):
    game_id, _ = play_recorded(records, "arimaa", seed=5, max_moves=6)
    files = write_game(records.game(game_id), tmp_path / FOLDER)
    assert [p.suffix for p in files.paths] == [".html", ".json", ".txt"]
    code, replayed, _ = run_cli(capsys, "replay", files.paths[2])
    assert code == 0 and replayed.strip()


def test_the_same_game_again_is_not_written_twice_and_another_file_is_never_replaced(
    records, tmp_path
):
    game_id, _ = play_recorded(records, "sensei", seed=2, max_moves=5)
    folder = tmp_path / FOLDER
    first = write_game(records.game(game_id), folder)
    again = write_game(records.game(game_id), folder)
    assert again.paths == first.paths and again.written == 0
    # a file of that name holding something else (the game exported before it went on, a
    # file of the players' own): kept, and this game's files get the next free name
    first.paths[1].write_text("my notes")
    other = write_game(records.game(game_id), folder)
    assert [p.name for p in other.paths] == [
        p.name.replace(".", "-2.", 1) for p in first.paths
    ] and other.written == 2
    assert first.paths[1].read_text() == "my notes"
    assert other.paths[0].read_bytes() == first.paths[0].read_bytes()


def records_state(db):
    return [(s.id, s.moves, s.status) for s in db.games()], db.path.stat().st_size


def test_a_full_stick_stops_the_export_with_one_line_and_leaves_the_records(
    records, tmp_path, monkeypatch
):
    game_id, _ = play_recorded(records, "arinama", seed=1, max_moves=5)
    before = records_state(records)
    drive = stick(tmp_path)

    def no_space(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(companion.files.os, "fsync", no_space)
    job = StickExport(drive, [game_id], find=lambda: [drive])
    assert job.step(records) is None and job.finished
    assert job.problem == (
        "The USB stick KINGSTON is full: make room on it, or use another stick - the game "
        "records are untouched"
    )
    assert job.note() == ""
    assert os.listdir(drive.mount / FOLDER) == []  # no half file, no temporary one
    assert records_state(records) == before


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (errno.EROFS, "The USB stick KINGSTON is read-only"),
        (errno.EIO, "The USB stick KINGSTON could not be written (pulled out, or faulty): put it"),
        (errno.EACCES, "The companion may not write to the USB stick KINGSTON: use one formatted"),
        (errno.EINVAL, "The USB stick KINGSTON could not be written (Invalid argument): try"),
    ],
)
def test_each_failure_of_the_stick_says_what_to_do(records, tmp_path, monkeypatch, error, said):
    game_id, _ = play_recorded(records, "arinama", seed=1, max_moves=3)
    drive = stick(tmp_path)

    def fails(*args, **kwargs):
        raise OSError(error, os.strerror(error))

    monkeypatch.setattr(companion.files.os, "replace", fails)
    job = StickExport(drive, [game_id], find=lambda: [drive])
    job.step(records)
    assert job.problem.startswith(said), job.problem
    assert "\n" not in job.problem


def test_a_stick_pulled_out_mid_write_stops_the_export_and_writes_nothing_elsewhere(
    records, tmp_path, monkeypatch
):
    """The stick's mount folder stays on the SD card once it is gone: the next game must not
    be written there. Pulled out while a file is written, its temporary file cannot even be
    removed (EIO): the export still says what happened, never a traceback."""
    ids = [play_recorded(records, "arinama", seed=s, max_moves=4)[0] for s in (1, 2, 3)]
    drive = stick(tmp_path)
    mounted = [drive]
    job = StickExport(drive, ids, find=lambda: mounted)
    files = job.step(records)
    assert files is not None and all(p.is_file() for p in files.paths)
    assert job.note() == "Writing to the USB stick KINGSTON: game 2 of 3 - do not pull it out yet"

    def pulled(*args, **kwargs):
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(companion.files.os, "fsync", pulled)
    monkeypatch.setattr(companion.files.Path, "unlink", pulled)
    assert job.step(records) is None
    assert "could not be written (pulled out, or faulty)" in job.problem
    assert job.note() == (
        "Stopped: 1 of 3 games is on the USB stick KINGSTON, in the folder tabletop-companion"
    )
    # gone from the mounts: the third game is not written into the empty mount folder
    monkeypatch.undo()
    job.failure = None
    mounted.clear()
    assert job.step(records) is None and "pulled out" in job.problem
    assert len(list((drive.mount / FOLDER).glob("*.json"))) == 1


def test_all_games_are_written_and_one_that_does_not_replay_is_named(records, tmp_path):
    ids = [play_recorded(records, name, seed=4, max_moves=6)[0] for name in ("arinama", "aranea")]
    broken, _ = play_recorded(records, "arinama", seed=9, max_moves=4)
    conn = sqlite3.connect(records.path)
    conn.execute("UPDATE moves SET move='z99' WHERE game_id=? AND ply=2", (broken,))
    conn.commit()
    conn.close()
    drive = stick(tmp_path)
    job = StickExport(drive, [broken, *ids], find=lambda: [drive])
    while not job.finished:
        job.step(records)
    assert [f.game_id for f in job.done] == ids and job.skipped == [broken]
    assert job.problem == ""  # the others were written: said in the note
    assert job.note() == (
        "2 games are on the USB stick KINGSTON, in the folder tabletop-companion. You can pull "
        f"the stick out now. Game {broken} was not written: its record does not replay or "
        "cannot be read"
    )
    assert len(os.listdir(drive.mount / FOLDER)) == 4
    # one game alone that does not replay: a problem, said over the page
    job = StickExport(drive, [broken], find=lambda: [drive])
    job.step(records)
    assert job.problem.startswith(f"Game {broken} was not written: its record does not replay")


def test_a_written_game_is_said_with_its_files_and_the_folder(records, tmp_path):
    game_id, _ = play_recorded(records, "arinama", seed=1, max_moves=3)
    drive = stick(tmp_path)
    job = StickExport(drive, [game_id], find=lambda: [drive])
    assert job.note() == "Writing to the USB stick KINGSTON: game 1 of 1 - do not pull it out yet"
    files = job.step(records)
    assert job.finished and job.problem == ""
    assert job.note() == (
        f"Game {game_id} is on the USB stick KINGSTON: {files.names()} in the folder "
        "tabletop-companion. You can pull the stick out now"
    )


def test_the_stick_s_problems_are_user_errors_in_the_table_s_language():
    from companion import i18n

    with i18n.speaking("de"):
        with pytest.raises(UserError) as said:
            find_stick([])
    assert "USB-Stick" in str(said.value)
