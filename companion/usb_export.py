"""Recorded games written to a USB stick, for the touchscreen's Export to USB (the players have
no keyboard at the table).

Each game is written as `companion export` writes it (`companion.export.export_game`, the one
exporter): the page to step through at home (`.html`, in the table's language, with the board
photos), the record `companion replay` reads back (`.json`) and, for Arimaa, the arimaa.com
move list (`.txt`) - into the folder `tabletop-companion` on the stick, named by the game's
number, game and day (``game-12-arinama-2026-12-07.html``). A file of that name that holds
something else is never replaced: the game's files then get the first free suffix
(``game-12-arinama-2026-12-07-2.html``); the same game exported again unchanged is found there
and not written twice. Every file is written whole (`companion.files.write_atomically`:
flushed to the stick before it takes its name) and the folder flushed after, so once the
screen says so the stick may be pulled out. The records are only read.

A `StickExport` writes one game a `step`, so the screen says how far it got between games,
and a stick that fails (full, read-only, pulled out) stops it with one line saying what is
wrong and what to do (`StickExport.problem`). The touchscreen runs the steps on a thread of
their own (`StickWorker`): a long game with its photos took about 0.7 s here (its page
decodes and shrinks every photo), several times that on a Pi, and the screen and the table's
buttons go on meanwhile.
"""

from __future__ import annotations

import dataclasses
import errno
import glob
import os
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from companion import games
from companion.errors import RecordError, UserError
from companion.export import export_game, local_time
from companion.files import WriteFailed, write_atomically
from companion.games.arimaa import ArimaaPosition
from companion.i18n import _, ngettext
from companion.records import GameRecord, GameSummary, Records
from companion.usb_drives import Drive, removable_drives

FOLDER = "tabletop-companion"  # the folder on the stick that the games go in

FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
GONE = (errno.EIO, errno.ENODEV, errno.ENXIO, errno.ENOENT, errno.ESHUTDOWN, errno.ENOTCONN)


class StickError(UserError):
    """No stick to write to: none is in, or every one is read-only (a one-line message in the
    table's language)."""


def find_stick(
    drives: list[Drive], may_write: Callable[[Path], bool] = lambda p: os.access(p, os.W_OK)
) -> Drive:
    """The stick to write to: the first of `drives` (`usb_drives.removable_drives`) that is not
    read-only and that the companion `may_write` into - else the first not read-only (its
    writing then says why it may not: a stick formatted ext4 or NTFS, or mounted by another
    user; a review: such a stick was chosen beside a FAT32 one the companion could write).

    :raises StickError: there is none, or every one is read-only (said so, not "no stick")."""
    usable = [drive for drive in drives if not drive.read_only]
    for drive in usable:
        if may_write(drive.mount):
            return drive
    if usable:
        return usable[0]
    if drives:
        raise StickError(read_only_problem(drives[0]))
    raise StickError(
        _(
            "No USB stick found: put one in (formatted FAT32 or exFAT, as they come), wait a "
            "moment, then try again"
        )
    )


def read_only_problem(drive: Drive) -> str:
    return _(
        "The USB stick {stick} is read-only (a write-protect switch on it, or its file system "
        "needs checking on a computer): slide the switch off, or use another stick"
    ).format(stick=drive.name)


def stick_problem(drive: Drive, error: int | None, reason: str) -> str:
    """What went wrong writing to `drive` (`error`: the errno, `reason`: the system's words)
    and what to do, in one line; the game records were only read."""
    name = drive.name
    if error in FULL:
        text = _("The USB stick {stick} is full: make room on it, or use another stick")
    elif error == errno.EROFS:
        return read_only_problem(drive)
    elif error in (errno.EACCES, errno.EPERM):
        text = _(
            "The companion may not write to the USB stick {stick}: use one formatted FAT32 or exFAT"
        )
    elif error in GONE:
        text = _(
            "The USB stick {stick} could not be written (pulled out, or faulty): put it back "
            "in and try again"
        )
    else:
        text = _("The USB stick {stick} could not be written ({reason}): try another stick")
    # (the records are only read: nothing at the table is lost)
    return _("{problem} - the game records are untouched").format(
        problem=text.format(stick=name, reason=reason)
    )


@dataclass(frozen=True)
class GameFiles:
    """One game's files on the stick (`write_game`)."""

    game_id: int
    paths: tuple[Path, ...]  # the page first, then the record (and Arimaa's move list)
    written: int  # how many were written now: the others were there already, the same

    def names(self) -> str:
        """ "game-12-arinama-2026-12-07.html, .json": the first whole, the others' endings."""
        first, *others = self.paths
        return ", ".join([first.name, *(p.suffix for p in others)])


def file_stem(summary: GameSummary) -> str:
    """A game's files' name without the ending: "game-12-arinama-2026-12-07" (the day it
    started, in the device's local time as the page says it)."""
    when = local_time(summary.started_at)
    day = when.strftime("%Y-%m-%d") if when else "undated"
    return f"game-{summary.id}-{summary.game}-{day}"


def game_exports(record: GameRecord) -> dict[str, bytes]:
    """What `companion export` makes of the game, by file ending: the page, the record, and
    Arimaa's move list. The page's words in the table's language.

    :raises RecordError: the game does not replay (`ReplayError`)."""
    formats = {".html": "html", ".json": "json"}
    if issubclass(games.get(record.game), ArimaaPosition):  # the move list is Arimaa's own
        formats[".txt"] = "arimaa"
    return {suffix: export_game(record, fmt).encode("utf-8") for suffix, fmt in formats.items()}


def write_game(record: GameRecord, folder: Path) -> GameFiles:
    """`record`'s exports written to `folder` (made if missing, its parent never), each whole
    and flushed, then the folder.

    :raises WriteFailed: a file could not be written (its `errno` says why).
    :raises OSError: the folder could not be made or flushed.
    :raises RecordError: the game does not replay."""
    data = game_exports(record)
    folder.mkdir(exist_ok=True)
    paths = _free_names(folder, file_stem(record.summary), data)
    # the temporary files an earlier write of this game left (the companion quit mid-write,
    # under any of its names: the game may have gone on since): its files are whole under
    # their names now, or are written whole below; one export writes to a stick at a time
    for left in folder.glob(f".{glob.escape(file_stem(record.summary))}*.tmp"):
        left.unlink(missing_ok=True)
    written = 0
    for suffix, path in paths.items():
        if path.exists():
            continue  # the same bytes (`_free_names`): this game exported before, unchanged
        write_atomically(path, data[suffix])
        written += 1
    _flush_folder(folder)
    return GameFiles(record.id, tuple(paths.values()), written)


def _free_names(folder: Path, stem: str, data: dict[str, bytes]) -> dict[str, Path]:
    """The game's file names: `stem`, else `stem`-2, -3, ... - the first where no file holds
    anything else (a file holding the same bytes is this game, exported before)."""
    number = 1
    while True:
        name = stem if number == 1 else f"{stem}-{number}"
        paths = {suffix: folder / f"{name}{suffix}" for suffix in data}
        if all(not p.exists() or _holds(p, data[s]) for s, p in paths.items()):
            return paths
        number += 1


def _holds(path: Path, data: bytes) -> bool:
    return path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data


def _flush_folder(folder: Path) -> None:
    """The folder's entries (the files' new names) flushed to the disk, as the files were."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):  # (a folder that cannot be)
            raise
    finally:
        os.close(fd)


@dataclass
class StickExport:
    """Games being written to a stick, one a `step`: what the screen says while it goes on,
    once it is done (`note`) and when the stick failed (`problem`)."""

    drive: Drive
    game_ids: list[int]
    # the drives mounted now: the stick is looked for before each game
    find: Callable[[], list[Drive]] = removable_drives
    done: list[GameFiles] = field(default_factory=list)
    skipped: list[int] = field(default_factory=list)  # games that do not replay or read
    failure: tuple[int | None, str] | None = None  # the stick's errno and words
    stopped: bool = False  # the players left the page: the rest is not written

    @property
    def folder(self) -> Path:
        return self.drive.mount / FOLDER

    @property
    def finished(self) -> bool:
        gone_through = len(self.done) + len(self.skipped) == len(self.game_ids)
        return gone_through or self.failure is not None or self.stopped

    def step(self, records: Records) -> GameFiles | None:
        """Write the next game; its files (None: it was not written)."""
        game_id = self.game_ids[len(self.done) + len(self.skipped)]
        if self.drive.mount not in {d.mount for d in self.find()}:
            # pulled out: its empty mount folder is on the SD card, never written to
            self.failure = (errno.ENODEV, os.strerror(errno.ENODEV))
            return None
        try:
            files = write_game(records.game(game_id, images=True), self.folder)
        except WriteFailed as exc:
            self.failure = (exc.errno, os.strerror(exc.errno) if exc.errno else str(exc))
        except RecordError:  # (ReplayError too) this game only: the others are written
            self.skipped.append(game_id)
        except OSError as exc:
            self.failure = (exc.errno, exc.strerror or str(exc))
        else:
            self.done.append(files)
            return files
        return None

    def copy(self) -> StickExport:
        """How far it got, as a copy that the steps to come leave as it is."""
        return dataclasses.replace(self, done=list(self.done), skipped=list(self.skipped))

    @property
    def problem(self) -> str:
        """Why it stopped, in one line ("" for nothing wrong)."""
        if self.failure is not None:
            return stick_problem(self.drive, *self.failure)
        if self.finished and len(self.game_ids) == 1 and self.skipped:
            return _(
                "Game {number} was not written: its record does not replay or cannot be read "
                "- the game records are untouched"
            ).format(number=self.skipped[0])
        return ""

    def note(self) -> str:
        """How far it got, in the table's language now."""
        count, stick, folder = len(self.game_ids), self.drive.name, FOLDER
        if not self.finished:
            return _(
                "Writing to the USB stick {stick}: game {number} of {count} - do not pull it out "
                "yet"
            ).format(stick=stick, number=len(self.done) + len(self.skipped) + 1, count=count)
        if self.failure is not None or self.stopped:
            if not self.done:
                return ""
            return ngettext(
                "Stopped: {done} of {count} games is on the USB stick {stick}, in the folder "
                "{folder}",
                "Stopped: {done} of {count} games are on the USB stick {stick}, in the folder "
                "{folder}",
                len(self.done),
            ).format(done=len(self.done), count=count, stick=stick, folder=folder)
        if count == 1:
            return self._one_game()
        return self._games()

    def _one_game(self) -> str:
        if not self.done:
            return ""
        files = self.done[0]
        return _(
            "Game {number} is on the USB stick {stick}: {files} in the folder {folder}. You "
            "can pull the stick out now"
        ).format(number=files.game_id, stick=self.drive.name, files=files.names(), folder=FOLDER)

    def _games(self) -> str:
        done = len(self.done)
        text = ngettext(
            "{count} game is on the USB stick {stick}, in the folder {folder}. You can pull "
            "the stick out now",
            "{count} games are on the USB stick {stick}, in the folder {folder}. You can pull "
            "the stick out now",
            done,
        ).format(count=done, stick=self.drive.name, folder=FOLDER)
        if self.skipped:
            numbers = ", ".join(map(str, self.skipped))
            text += ". " + ngettext(
                "Game {numbers} was not written: its record does not replay or cannot be read",
                "Games {numbers} were not written: their records do not replay or cannot be read",
                len(self.skipped),
            ).format(numbers=numbers)
        return text


# One game at a time is written to a stick, whichever page's export it is: an export stopped
# by leaving its page still finishes the game it was writing, and another may have begun.
_WRITING = threading.Lock()


class StickWorker:
    """A `StickExport` run on a thread of its own (named "usb-export", a daemon), one game
    after another, so that the screen and the table's buttons go on while a game is written.

    The screen only reads `state`: a copy of the job handed over whole after each game, under a
    lock, and never changed after - never one half-updated. The job itself, the reading of the
    records and the stick are the worker's. (`Records` is shared between threads: its one
    connection is used under its RLock, and a game is read in one transaction - one snapshot:
    34 ms here for a 300-move game with its 300 photos, from a Pi's SD card longer - while the
    referee records the game in hand on the main thread, waiting for it that long at most.)
    `report` is called on the worker's thread with each game's files when some were written
    (the journal: also the game finished after `stop`, which no screen looks in on).

    `stop` (the page left) lets the worker finish the game it is writing and end there
    (`StickWriter.stop` waits for that: the stick may be pulled out once the page has gone). The
    app quitting does not wait for it (a daemon thread; it begins no game once the main thread
    has ended, and one begun after the records were closed is only skipped): the interpreter
    stops it wherever it is as the process exits (the window closed, systemd's SIGTERM, which
    SDL turns into the same quit, or a kill). The games before are whole on the stick, and the
    file being written is never left half-written under its name - `write_atomically` gives a
    file its name only once it is flushed whole - but at most as a hidden temporary file
    (``.game-12-....html.x8f2k1.tmp``) beside the others; the next export of that game writes
    its missing file and removes the temporary one (`write_game`). A fault of the companion's (not the stick's) ends the worker, its traceback
    in the journal at once; `error` holds it for the screen's thread to raise.
    """

    def __init__(
        self, job: StickExport, records: Records, report: Callable[[GameFiles], None]
    ) -> None:
        self._job = job  # the worker thread's own from `start` on
        self._records = records
        self._report = report
        self._lock = threading.Lock()  # guards `_state` and `_error`, handed over together
        self._state = job.copy()
        self._error: Exception | None = None
        self._stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="usb-export", daemon=True)

    def start(self) -> StickWorker:
        self.thread.start()
        return self

    @property
    def state(self) -> StickExport:
        """How far it got: a copy no one changes (a new one after each game)."""
        return self.progress()[0]

    @property
    def error(self) -> Exception | None:
        """What ended the worker unexpectedly (None: nothing did)."""
        return self.progress()[1]

    def progress(self) -> tuple[StickExport, Exception | None]:
        """`state` and `error` as they were handed over together."""
        with self._lock:
            return self._state, self._error

    def stop(self) -> None:
        """No game after the one being written; `state` says so at once (it is finished)."""
        with self._lock:
            self._stopping.set()
            if not self._state.finished:
                self._state = dataclasses.replace(self._state, stopped=True)

    def _run(self) -> None:
        job = self._job
        error: Exception | None = None
        try:
            while not job.finished:
                if self._stopping.is_set() or not threading.main_thread().is_alive():
                    break  # the page was left, or the app has quit
                with _WRITING:
                    if self._stopping.is_set():  # (left while another export held the stick)
                        break
                    files = job.step(self._records)
                if files is not None and files.written:
                    self._report(files)
                self._hand_over()
        except Exception as exc:  # said on the screen's thread (`error`), as if it wrote -
            error = exc  # and in the journal now: the page may have been left
            traceback.print_exc()
        finally:  # (whatever ended it: never "writing" for ever)
            self._hand_over(error, end=True)

    def _hand_over(self, error: Exception | None = None, *, end: bool = False) -> None:
        with self._lock:
            if (end or self._stopping.is_set()) and not self._job.finished:
                self._job.stopped = True  # (stopped, or ended by `error`: nothing more comes)
            self._state = self._job.copy()
            self._error = error
