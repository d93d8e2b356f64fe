"""Game records: every game, move, roll and instruction in one SQLite file that survives a pulled plug.

The referee writes here *before* it announces anything, so after a crash or a power cut the
companion can offer to continue each unfinished game at its last accepted position
(`unfinished_games()`, `resume()`). The review screen and `companion games` / `companion export`
read the same file while a game is being played: the database runs in WAL mode, where readers
never block the writer.

Durability. A commit that records something the players were told (a new game, an accepted
move, a dice roll, a take-back, the end of a game) runs with ``synchronous=FULL``: the WAL is
fsync'ed before `add_move` returns, so a move that was announced is on the card. Instructions
and events are a log and use ``synchronous=NORMAL`` (still atomic, and made durable by the next
FULL commit); `bench/bench_records.py` measures what FULL costs.

Where the file lives: ``$STATE_DIRECTORY`` under systemd (``StateDirectory=`` in the unit), else
the platform's user state directory (``~/.local/state/tabletop-companion`` on Linux); every
command takes ``--db FILE`` to choose another.

The file is never damaged by the companion trying to read it. A file that is not SQLite, is
truncated, belongs to another program or was written by a newer companion is refused with a
`RecordError` before anything is written to it; before a future schema migration the original is
copied aside first (`_migrate`). Damage inside the file that its header cannot show (a bad
sector, a copy cut short and patched) is looked for when the file is opened for writing:
SQLite's quick check runs in a thread of its own while the companion starts, and the first
write waits for it - a damaged file gets no new game and no new move, only a `RecordError`
saying so (`companion games --check` runs the full check).

One writer per file. Two companions recording into one file would interleave their moves in
the same game (each continuing it from its own position) and leave a game no engine replays.
So a `Records` opened for writing holds an exclusive advisory lock (``flock``) on a lock file
beside the database, ``<file>.lock``, for as long as it is open; the system releases it when
the process ends, however it ends (kill -9, a pulled plug). A second process opening the file
for writing is refused at once with a `RecordError` naming the file and the other companion's
process id. The lock file holds that id and stays beside the database (an empty-looking
leftover is harmless: the lock is the ``flock``, not the file's existence). Within one process
the objects opened for writing on one file share the lock (`_WriterLock`); readers
(``readonly=True``: the review, `companion games`, `companion export`) take no lock.

Schema 1 (``PRAGMA user_version``; ``PRAGMA application_id`` marks the file as ours; the ``meta``
table names the companion version that created and last wrote it):

- ``games``: game name, options and start position (JSON), players and meta (JSON), status
  (playing / finished / abandoned), outcome (JSON), timestamps.
- ``moves``: ply, move text, the position after it (JSON), time; ``taken_back_at`` marks a move
  both players took back (kept, never deleted). ``images`` holds the board photo after a move.
- ``rolls``, ``instructions``, ``events``: with ``for_ply``, the ply of the move they came before
  (for a roll: the move it was rolled for).

Times are UTC ISO-8601 strings with milliseconds (``2026-11-22T03:04:05.678Z``).
"""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import json
import os
import shlex
import sqlite3
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion import __version__, games
from companion.dice import Roll
from companion.errors import (
    RecordError,
    RecordsDamaged,
    RecordsInUse,
    ReplayError,
    UserError,
    excerpt,
)
from companion.games.base import MoveCount, Outcome, Position, options_to_dict
from companion.i18n import language

if TYPE_CHECKING:  # the referee records through this module: a type only
    from companion.referee.protocol import Event

APP_NAME = "tabletop-companion"
DB_FILENAME = "records.sqlite3"
SCHEMA_VERSION = 1
APPLICATION_ID = 0x5454436F  # "TTCo": marks the SQLite file as a companion record database
MAX_IMAGE_BYTES = 64 * 1024  # one board photo; a game of 100 moves stays under ~6 MB
JPEG_QUALITIES = (85, 70, 55, 40, 25)  # tried in turn when add_move is given an encoder
# How long a write waits while another program holds the file locked (a second companion's
# write, an SQLite tool in the middle of one) before it is refused as busy
BUSY_SECONDS = 5.0

PLAYING = "playing"
FINISHED = "finished"
ABANDONED = "abandoned"
STATUSES = (PLAYING, FINISHED, ABANDONED)

LOCK_SUFFIX = ".lock"  # the writer's lock file: <file>.lock beside the database

_SQLITE_MAGIC = b"SQLite format 3\x00"
_LEAVE_IT = "the file was left untouched"

_SCHEMA = """
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    start TEXT NOT NULL,
    players TEXT,
    meta TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'finished', 'abandoned')),
    outcome TEXT,
    started_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    ended_at TEXT
);
CREATE INDEX games_status ON games (status);
CREATE TABLE moves (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games (id),
    ply INTEGER NOT NULL,
    move TEXT NOT NULL,
    position TEXT NOT NULL,
    played_at TEXT NOT NULL,
    taken_back_at TEXT
);
CREATE UNIQUE INDEX moves_live ON moves (game_id, ply) WHERE taken_back_at IS NULL;
CREATE INDEX moves_game ON moves (game_id, id);
CREATE TABLE images (
    move_id INTEGER PRIMARY KEY REFERENCES moves (id),
    jpeg BLOB NOT NULL
);
CREATE TABLE rolls (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games (id),
    for_ply INTEGER NOT NULL,
    dice TEXT NOT NULL,
    value INTEGER NOT NULL,
    rolled_at TEXT NOT NULL
);
CREATE INDEX rolls_game ON rolls (game_id, id);
CREATE TABLE instructions (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games (id),
    for_ply INTEGER NOT NULL,
    instruction TEXT NOT NULL,
    given_at TEXT NOT NULL
);
CREATE INDEX instructions_game ON instructions (game_id, id);
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games (id),
    for_ply INTEGER NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at TEXT NOT NULL
);
CREATE INDEX events_game ON events (game_id, id);
"""

# Upgrades from schema N to N+1 (SQL scripts). Before any of them runs the original file is
# copied aside (see `_migrate`); there are none yet: schema 1 is the first.
_MIGRATIONS: dict[int, str] = {}


# -- what `games()` and `game()` return --------------------------------------------------------
@dataclass(frozen=True)
class GameSummary:
    """One line of `companion games`: a game without its moves."""

    id: int
    game: str
    options: dict[str, Any]
    players: Any
    meta: dict[str, Any]
    status: str  # playing / finished / abandoned
    outcome: dict[str, Any] | None  # companion.games.base.Outcome JSON
    moves: int  # accepted moves, not counting the ones taken back
    started_at: str
    updated_at: str
    ended_at: str | None

    @property
    def result(self) -> str:
        """The outcome in words ("white wins (full-board)"), or the status when there is none."""
        if self.outcome:
            return str(Outcome.from_json(self.outcome))
        return self.status

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "options": self.options,
            "players": self.players,
            "meta": self.meta,
            "status": self.status,
            "outcome": self.outcome,
            "moves": self.moves,
            "started_at": self.started_at,
            "updated_at": self.updated_at,
            "ended_at": self.ended_at,
        }


@dataclass(frozen=True)
class MoveRecord:
    id: int
    ply: int  # 1 for the first move of the game
    text: str  # the game's notation (Position.move_text)
    position: dict[str, Any]  # the position after the move (Position.to_json)
    played_at: str
    taken_back_at: str | None = None
    image: bytes | None = None  # JPEG of the board after the move (`Records.game(images=True)`)
    photo: bool = False  # whether a readable photo of the board is stored, loaded or not


@dataclass(frozen=True)
class RollRecord:
    for_ply: int  # the move it was rolled for
    dice: tuple[int, ...]
    value: int
    rolled_at: str


@dataclass(frozen=True)
class InstructionRecord:
    for_ply: int
    instruction: dict[str, Any]  # companion.referee.protocol.Instruction JSON
    given_at: str


@dataclass(frozen=True)
class EventRecord:
    for_ply: int
    kind: str
    data: dict[str, Any]
    at: str


@dataclass(frozen=True)
class GameRecord:
    """Everything stored about one game (what `export` writes)."""

    summary: GameSummary
    start: dict[str, Any]  # the start position JSON
    moves: tuple[MoveRecord, ...]  # the accepted moves, in order
    taken_back: tuple[MoveRecord, ...]  # moves the players took back, oldest first
    rolls: tuple[RollRecord, ...]
    instructions: tuple[InstructionRecord, ...]
    events: tuple[EventRecord, ...]
    # the plies whose stored photo could not be read (damaged pages; `Records.game(images=True)`)
    unreadable_photos: tuple[int, ...] = ()

    @property
    def id(self) -> int:
        return self.summary.id

    @property
    def game(self) -> str:
        return self.summary.game

    def position(self) -> Any:
        """The game replayed by its engine: the last accepted position, with its history."""
        return replay(self)


# -- the database --------------------------------------------------------------------------------
def default_db_path() -> Path:
    """``$STATE_DIRECTORY/records.sqlite3`` under systemd, else the user's state directory."""
    state = os.environ.get("STATE_DIRECTORY", "")
    if state:
        # systemd sets a colon-separated list when the unit names several directories.
        return Path(state.split(":")[0]) / DB_FILENAME
    import platformdirs  # only without $STATE_DIRECTORY (not under systemd)

    return Path(platformdirs.user_state_dir(APP_NAME)) / DB_FILENAME


FOUND_CHARS = 120  # of SQLite's findings in the one line that says a file is damaged


def is_record_database(path: str | os.PathLike[str]) -> bool:
    """Does `path` hold a companion record database (its SQLite header carries our application
    id), or is it the -wal or -shm file beside one? For commands that write files: a record
    database is never replaced, --force or not. Reads only the 100-byte header."""
    path = Path(path)
    for suffix in ("-wal", "-shm", LOCK_SUFFIX):
        if path.name.endswith(suffix) and is_record_database(str(path).removesuffix(suffix)):
            return True
    try:
        if not path.is_file():  # a folder, a pipe (opening it would wait), nothing at all
            return False
        with open(path, "rb") as f:
            header = f.read(100)
    except OSError:
        return False
    return header.startswith(_SQLITE_MAGIC) and header[68:72] == struct.pack(">I", APPLICATION_ID)


class Records:
    """The game record database. One object per process and file; safe to share between threads.

    ``Records(path, readonly=True)`` never creates or changes anything (for review and export);
    a missing file is then a RecordError. ``Records()`` keeps the records in `default_db_path`,
    making its folder if need be; a `path` given must be in a folder that exists.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, readonly: bool = False):
        self.path = Path(path) if path is not None else default_db_path()
        self.readonly = readonly
        self._lock = threading.RLock()
        self._synchronous: str | None = None
        self._last_instruction: dict[int, str] = {}
        _check_file(self.path, must_exist=readonly, default=path is None)
        # one writer per file (see the module's text): taken before SQLite opens the file
        self._writer: _WriterLock | None = None
        if not readonly:
            _records_folder(self.path, default=path is None)
            # the file SQLite opens: a symbolic link to it takes the same lock
            self._writer = _WriterLock.take(self.path.resolve())
        # the quick check of a file opened for writing (see the module's text): running, then
        # its verdict - the RecordError every write raises once damage was found
        self._checking: threading.Thread | None = None
        self._damage: RecordError | None = None
        try:
            self._conn = self._connect()
            try:
                self._prepare()
            except BaseException:
                self._conn.close()
                raise
        except BaseException:
            self._release_writer()
            raise
        if not readonly:
            self._start_check()

    # -- opening ------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        mode = "ro" if self.readonly else "rwc"
        uri = f"{self.path.resolve().as_uri()}?mode={mode}"
        try:
            conn = sqlite3.connect(
                uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise RecordError(f"cannot open the game records {self.path}: {exc}") from None
        return conn

    def _prepare(self) -> None:
        """Check what the file holds (through SQLite, which also sees the WAL), then set up."""
        with self._guard("open"):
            conn = self._conn
            # One read transaction: a companion creating the file at the same moment must not
            # be seen half-way (its tables without its application id = "another program").
            conn.execute("BEGIN")
            try:
                app_id = conn.execute("PRAGMA application_id").fetchone()[0]
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                tables = [
                    r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
                ]
            finally:
                conn.execute("ROLLBACK")
        _check_identity(self.path, app_id, version, tables)
        if self.readonly:
            if not tables:
                raise RecordError(f"{self.path} holds no game records yet")
            if version < SCHEMA_VERSION:
                self._check_upgradable(version)
                raise RecordError(
                    f"{self.path} uses the older record schema {version}: start the companion "
                    f"on it once (`companion run --db {self.path}`) to upgrade it; a copy of the "
                    "original is kept"
                )
            return
        with self._guard("open"):
            if self._switch_to_wal() != "wal":
                raise RecordError(
                    f"{self.path}: SQLite cannot use WAL mode on this file system; "
                    "keep the records on a local disk (pass --db)"
                )
            conn.execute("PRAGMA foreign_keys=ON")
        if not tables:
            self._create()
        elif version < SCHEMA_VERSION:
            self._migrate(version)
        with self._guard("open"):
            row = conn.execute("SELECT value FROM meta WHERE key='last_written_by'").fetchone()
        if row is None or row[0] != __version__:
            with self._write(durable=False) as c:
                c.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('last_written_by', ?)",
                    (__version__,),
                )

    def _switch_to_wal(self, wait: float = 5.0) -> str:
        """Set WAL mode and return the journal mode SQLite reports. Switching a new file needs
        a moment with no other connection in it, and SQLite answers "locked" at once instead of
        waiting (companions opening the same new file together): retry for up to `wait` s."""
        deadline = time.monotonic() + wait
        while True:
            try:
                mode: str = self._conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
                return mode.lower()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _create(self) -> None:
        with self._write(durable=True) as c:
            if c.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                return  # another companion created it while we waited for the write lock
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    c.execute(statement)
            c.execute(f"PRAGMA application_id={APPLICATION_ID}")
            c.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            c.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [("app", APP_NAME), ("created_by", __version__), ("created_at", _now())],
            )

    def _check_upgradable(self, version: int) -> None:
        """:raises RecordError: no companion wrote schema `version` (there is no upgrade
        from it): the read-only commands say so too, not "start the companion to upgrade"."""
        if any(v not in _MIGRATIONS for v in range(version, SCHEMA_VERSION)):
            raise RecordError(
                f"{self.path} says record schema {version}, which no companion wrote: it was "
                f"changed by hand or is damaged; pass another file with --db; {_LEAVE_IT}"
            )

    def _migrate(self, version: int) -> None:
        """Upgrade an older schema, after copying the original file aside (never lose it)."""
        self._check_upgradable(version)
        backup = self.path.with_name(
            f"{self.path.stem}.schema{version}-{datetime.now(UTC):%Y%m%dT%H%M%S}{self.path.suffix}"
        )
        with self._guard("copy aside before upgrading"):
            target = sqlite3.connect(backup)
            try:
                self._conn.backup(target)
            finally:
                target.close()
        original = version
        with self._write(durable=True) as c:
            while version < SCHEMA_VERSION:
                for statement in _MIGRATIONS[version].split(";"):
                    if statement.strip():
                        c.execute(statement)
                version += 1
            c.execute(f"PRAGMA user_version={version}")
            c.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                (f"schema{original}_copy", str(backup)),
            )

    def close(self) -> None:
        with self._lock:
            if self._checking is not None:
                self._checking.join()
            self._conn.close()
            self._release_writer()

    def _release_writer(self) -> None:
        """Let go of the one-writer lock (the last object of this process on the file frees
        it for other companions)."""
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.release()

    def _start_check(self) -> None:
        """SQLite's quick check of the whole file, on a read-only connection of its own in a
        thread (it reads every page: a second or more for a large file on a Pi's SD card)."""
        uri = f"{self.path.resolve().as_uri()}?mode=ro"

        def check() -> None:
            try:
                conn = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, check_same_thread=False)
                try:
                    found = _damage_found(conn)
                finally:
                    conn.close()
            except sqlite3.OperationalError as exc:
                found = "" if "locked" in str(exc) else str(exc)  # busy is not damaged
            except sqlite3.DatabaseError as exc:
                found = str(exc)
            if found:
                self._damage = RecordError(
                    f"{self.path} is damaged ({found}): nothing more is written to it - restore "
                    "it from a backup, or copy it aside and start new records with --db NEWFILE"
                )

        self._checking = threading.Thread(target=check, name="records-check", daemon=True)
        self._checking.start()

    @property
    def checking(self) -> bool:
        """True while the start-up quick check of a file opened for writing still runs (a
        large file on a Pi's SD card: seconds, a minute for gigabytes): the first write would
        wait for it, so a screen waits without blocking (`damage` then says what it found)."""
        return self._checking is not None and self._checking.is_alive()

    def damage(self, *, wait: bool = False) -> str:
        """What the quick check of a file opened for writing found ("": nothing, or not done
        yet - `wait` for it): the line every write now raises, for a screen to say at once."""
        if wait and self._checking is not None:
            self._checking.join()
        done = self._checking is None or not self._checking.is_alive()
        return str(self._damage) if done and self._damage is not None else ""

    def _checked(self) -> None:
        """Before a write: the quick check is done, and found no damage."""
        if self._checking is not None:
            self._checking.join()
            self._checking = None
        if self._damage is not None:
            raise self._damage

    def __enter__(self) -> Records:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing -----------------------------------------------------------------------------
    @contextmanager
    def _guard(self, doing: str) -> Iterator[None]:
        """SQLite errors, and a game's row that is not the JSON the companion wrote ->
        RecordError naming the file (and the game) and what to do."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise _database_error(self.path, doing, exc) from None
        except _UnreadableRow as exc:
            raise RecordError(
                f"in {self.path}, game {exc.game_id}'s {exc.what} cannot be read (not the "
                f"JSON the companion wrote) - could not {doing}: the file was changed by hand "
                "or is damaged; restore it from a backup, or copy it aside and start new "
                f"records with --db NEWFILE ({_LEAVE_IT})"
            ) from None

    @contextmanager
    def _write(self, *, durable: bool) -> Iterator[sqlite3.Connection]:
        """One write transaction; `durable` commits with synchronous=FULL (fsync of the WAL)."""
        if self.readonly:
            raise RecordError(f"{self.path} is open read-only")
        self._checked()  # (outside the lock: readers need not wait for the check)
        with self._lock, self._guard("save"):
            conn = self._conn
            wanted = "FULL" if durable else "NORMAL"
            if self._synchronous != wanted:
                conn.execute(f"PRAGMA synchronous={wanted}")
                self._synchronous = wanted
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
                raise
            conn.execute("COMMIT")

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: a consistent snapshot while the referee keeps writing."""
        with self._lock, self._guard("read"):
            conn = self._conn
            conn.execute("BEGIN")
            try:
                yield conn
            finally:
                conn.execute("ROLLBACK")

    def _game_row(self, conn: sqlite3.Connection, game_id: int) -> sqlite3.Row | tuple[Any, ...]:
        try:
            row = conn.execute("SELECT status FROM games WHERE id=?", (int(game_id),)).fetchone()
        except OverflowError:  # an id beyond SQLite's 64 bits names no game either
            row = None
        if row is None:
            # a damaged table may hide the game it holds: said so, not "there is no game"
            self._no_damage(conn, f"game {excerpt(str(game_id))} cannot be read")
            raise RecordError(
                f"there is no game {excerpt(str(game_id))} in {self.path}: "
                f"`{self._games_command()}` lists them"
            )
        found: sqlite3.Row | tuple[Any, ...] = row
        return found

    def _no_damage(self, conn: sqlite3.Connection, what: str) -> None:
        """SQLite's quick check of the games table, where finding nothing there may be the
        damage's doing (the table only: a mistyped id in a large file is said at once).

        :raises RecordError: it found damage - saying `what` follows from it."""
        found = _damage_found(conn, "games")
        if found:
            raise RecordError(
                f"{self.path} is damaged ({found}) - {what}: restore it from a backup, or copy "
                "it aside and start new records with --db NEWFILE"
            )

    def _games_command(self) -> str:
        """The command that lists this file's games."""
        if self.path == default_db_path():
            return "companion games"
        return f"companion games --db {shlex.quote(str(self.path))}"

    def _playing(self, conn: sqlite3.Connection, game_id: int) -> None:
        status = self._game_row(conn, game_id)[0]
        if status != PLAYING:
            raise RecordError(f"game {game_id} is {status}: it takes no more moves")

    @staticmethod
    def _live_moves(conn: sqlite3.Connection, game_id: int) -> int:
        count: int = conn.execute(
            "SELECT count(*) FROM moves WHERE game_id=? AND taken_back_at IS NULL", (game_id,)
        ).fetchone()[0]
        return count

    @staticmethod
    def _touch(conn: sqlite3.Connection, game_id: int, now: str) -> None:
        conn.execute("UPDATE games SET updated_at=? WHERE id=?", (now, game_id))

    # -- writing ------------------------------------------------------------------------------
    def new_game(
        self, position: Position[Any], *, players: Any = None, meta: dict[str, Any] | None = None
    ) -> int:
        """Start recording a game at `position` (a companion.games Position); its id.

        A position that already has moves is stored from its root, with those moves."""
        board = position.root() if position.move_stack else position
        now = _now()
        with self._write(durable=True) as c:
            cursor = c.execute(
                "INSERT INTO games (game, options, start, players, meta, started_at, updated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    position.name,
                    _dumps(options_to_dict(position.options)),
                    _dumps(board.to_json()),
                    _dumps(players) if players is not None else None,
                    _dumps(meta or {}),
                    now,
                    now,
                ),
            )
            if cursor.lastrowid is None:  # sqlite3 always gives one after an INSERT
                raise RuntimeError("SQLite gave the new game no id")
            game_id = cursor.lastrowid
            if position.move_stack:
                board = board.copy()
                for ply, move in enumerate(position.move_stack, start=1):
                    text = board.move_text(move)
                    board.push(move)
                    c.execute(
                        "INSERT INTO moves (game_id, ply, move, position, played_at)"
                        " VALUES (?, ?, ?, ?, ?)",
                        (game_id, ply, text, _dumps(board.to_json()), now),
                    )
        return game_id

    def add_move(
        self,
        game_id: int,
        position_after: Any,
        move_text: str,
        *,
        image_jpeg: bytes | Callable[[int], bytes] | None = None,
    ) -> int:
        """Record an accepted move durably (fsync'ed before this returns); its ply.

        `position_after` is the Position (or its JSON) after the move. `image_jpeg` is the board
        photo: JPEG bytes up to MAX_IMAGE_BYTES, or an encoder ``quality -> JPEG bytes`` that is
        tried at falling qualities until the photo fits. A photo that does not fit or is not a
        JPEG is dropped with an "image-dropped" event saying why; the move is recorded anyway.
        """
        position_json = (
            position_after if isinstance(position_after, dict) else position_after.to_json()
        )
        if not isinstance(move_text, str) or not move_text.strip():
            raise RecordError(f"a move needs its text, not {move_text!r}")
        image, note = _fit_image(image_jpeg)
        now = _now()
        with self._write(durable=True) as c:
            self._playing(c, game_id)
            ply = self._live_moves(c, game_id) + 1
            cursor = c.execute(
                "INSERT INTO moves (game_id, ply, move, position, played_at) VALUES (?, ?, ?, ?, ?)",
                (game_id, ply, move_text, _dumps(position_json), now),
            )
            if image is not None:
                c.execute(
                    "INSERT INTO images (move_id, jpeg) VALUES (?, ?)", (cursor.lastrowid, image)
                )
            if note:
                c.execute(
                    "INSERT INTO events (game_id, for_ply, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                    (game_id, ply, "image-dropped", _dumps({"ply": ply, "reason": note}), now),
                )
            self._touch(c, game_id, now)
        self._last_instruction.pop(game_id, None)
        return ply

    def set_last_photo(
        self, game_id: int, image_jpeg: bytes | Callable[[int], bytes] | None
    ) -> bool:
        """Store `image_jpeg` (as `add_move` takes it) as the photo of the game's last live
        move, in place of the one taken when it was accepted: the board once it showed the
        position after the move (Arinama's stones turned, a capture taken off). Not fsync'ed:
        a photo is no announcement. False (nothing changed) for no photo, one that does not
        fit, or a game without a move."""
        image, _note = _fit_image(image_jpeg)
        if image is None:
            return False
        with self._write(durable=False) as c:
            row = _last_live_move(c, game_id)
            if row is None:
                return False
            c.execute(
                "INSERT OR REPLACE INTO images (move_id, jpeg) VALUES (?, ?)", (row[0], image)
            )
        return True

    def add_roll(self, game_id: int, roll: Roll | Sequence[int]) -> None:
        """Record a dice roll (a companion.dice.Roll, or a tuple of dice whose sum is the value),
        durably: a roll the players saw must not be rolled again after a crash.

        :raises RecordError: for anything else.
        """
        dice: tuple[int, ...]
        if isinstance(roll, Roll):
            dice = (roll.a, roll.b)
            value = roll.value
        else:
            try:
                dice = tuple(int(d) for d in roll)
            except (TypeError, ValueError):
                raise RecordError(
                    f"a roll must be a Roll or a tuple of dice, not {roll!r}"
                ) from None
            value = sum(dice)
        now = _now()
        with self._write(durable=True) as c:
            self._game_row(c, game_id)
            c.execute(
                "INSERT INTO rolls (game_id, for_ply, dice, value, rolled_at) VALUES (?, ?, ?, ?, ?)",
                (game_id, self._live_moves(c, game_id) + 1, _dumps(list(dice)), value, now),
            )
            self._touch(c, game_id, now)
        self._last_instruction.pop(game_id, None)

    def add_instruction(self, game_id: int, instruction: Any) -> None:
        """Record what the referee told the players (an Instruction or its JSON), with the
        table's language it was said in ("lang", unless the JSON names one: the HTML export
        marks its words as that language; the review screen shows no instructions). The same instruction repeated with no move,
        roll or take-back in between is stored once (the referee may re-announce it on every
        still frame)."""
        data = instruction if isinstance(instruction, dict) else instruction.to_json()
        data = {**data, "lang": data.get("lang", language())}
        text = _dumps(data)
        with self._lock:
            if self._last_instruction.get(game_id) == text:
                return
            now = _now()
            with self._write(durable=False) as c:
                self._game_row(c, game_id)
                c.execute(
                    "INSERT INTO instructions (game_id, for_ply, instruction, given_at)"
                    " VALUES (?, ?, ?, ?)",
                    (game_id, self._live_moves(c, game_id) + 1, text, now),
                )
            self._last_instruction[game_id] = text

    def add_event(
        self, game_id: int, event: Event | str, data: dict[str, Any] | None = None
    ) -> None:
        """Record an event: a companion.referee.protocol.Event, or a kind and its data."""
        if isinstance(event, str):
            kind, payload = event, dict(data or {})
        else:
            kind, payload = event.kind, dict(event.data)
        now = _now()
        with self._write(durable=False) as c:
            self._game_row(c, game_id)
            c.execute(
                "INSERT INTO events (game_id, for_ply, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, self._live_moves(c, game_id) + 1, kind, _dumps(payload), now),
            )

    def undo_move(self, game_id: int) -> str:
        """Both players agreed to take back the last move: mark it taken back (it stays in the
        history) and return its text. A finished game becomes a game in play again."""
        now = _now()
        with self._write(durable=True) as c:
            status = self._game_row(c, game_id)[0]
            if status == ABANDONED:
                raise RecordError(f"game {game_id} was abandoned: nothing to take back")
            row = _last_live_move(c, game_id)
            if row is None:
                raise RecordError(f"game {game_id} has no move to take back")
            move_id, ply, text = row
            c.execute("UPDATE moves SET taken_back_at=? WHERE id=?", (now, move_id))
            c.execute(
                "INSERT INTO events (game_id, for_ply, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                (game_id, ply, "undo", _dumps({"ply": ply, "move": text}), now),
            )
            c.execute(
                "UPDATE games SET status=?, outcome=NULL, ended_at=NULL, updated_at=? WHERE id=?",
                (PLAYING, now, game_id),
            )
        self._last_instruction.pop(game_id, None)
        return str(text)

    def finish(self, game_id: int, outcome: Any) -> None:
        """The game is over: `outcome` is a companion.games.Outcome (or its JSON)."""
        data = outcome if isinstance(outcome, dict) else outcome.to_json()
        self._end(game_id, FINISHED, data)

    def abandon(self, game_id: int) -> None:
        """The players stopped without a result; the game no longer asks to be continued."""
        self._end(game_id, ABANDONED, None)

    def _end(self, game_id: int, status: str, outcome: dict[str, Any] | None) -> None:
        now = _now()
        with self._write(durable=True) as c:
            self._game_row(c, game_id)
            c.execute(
                "UPDATE games SET status=?, outcome=?, ended_at=?, updated_at=? WHERE id=?",
                (status, _dumps(outcome) if outcome is not None else None, now, now, game_id),
            )
        self._last_instruction.pop(game_id, None)

    # -- reading ------------------------------------------------------------------------------
    _SUMMARY_SQL = (
        "SELECT g.id, g.game, g.options, g.players, g.meta, g.status, g.outcome,"
        " (SELECT count(*) FROM moves m WHERE m.game_id = g.id AND m.taken_back_at IS NULL),"
        " g.started_at, g.updated_at, g.ended_at FROM games g"
    )

    def games(self) -> list[GameSummary]:
        """Every game, newest first.

        :raises RecordError: the file cannot be read, or a game's row was changed by hand."""
        with self._read() as c:
            rows = c.execute(self._SUMMARY_SQL + " ORDER BY g.id DESC").fetchall()
            if not rows:
                self._no_damage(c, "its games cannot be listed")  # an empty list may hide it
            return [_summary(row) for row in rows]

    def unfinished_games(self) -> list[GameSummary]:
        """Games still in play (after a crash: "continue this game?"), newest first."""
        with self._read() as c:
            rows = c.execute(
                self._SUMMARY_SQL + " WHERE g.status = ? ORDER BY g.updated_at DESC, g.id DESC",
                (PLAYING,),
            ).fetchall()
            return [_summary(row) for row in rows]

    def game(self, game_id: int, *, images: bool = True) -> GameRecord:
        """Everything stored about a game (`images=False` leaves the photos out)."""
        with self._read() as c:
            self._game_row(c, game_id)
            summary = _summary(
                c.execute(self._SUMMARY_SQL + " WHERE g.id = ?", (game_id,)).fetchone()
            )
            start = _loaded(
                c.execute("SELECT start FROM games WHERE id=?", (game_id,)).fetchone()[0],
                game_id,
                "start position",
                dict,
            )
            moves = [
                MoveRecord(
                    r[0],
                    r[1],
                    r[2],
                    _loaded(r[3], game_id, "position after a move", dict),
                    r[4],
                    r[5],
                )
                for r in c.execute(
                    "SELECT m.id, m.ply, m.move, m.position, m.played_at, m.taken_back_at"
                    " FROM moves m WHERE m.game_id=? ORDER BY m.id",
                    (game_id,),
                )
            ]
            unreadable: tuple[int, ...] = ()
            if images:  # after the moves: damage they share with the photos is theirs
                photos, lost = self._photos(c, game_id)
                moves = [
                    dataclasses.replace(m, image=photos.get(m.id), photo=m.id in photos)
                    for m in moves
                ]
                unreadable = tuple(
                    sorted(m.ply for m in moves if m.id in lost and m.taken_back_at is None)
                )
            else:
                with_photo = self._photo_ids(c, game_id)
                moves = [dataclasses.replace(m, photo=m.id in with_photo) for m in moves]
            rolls = tuple(
                RollRecord(r[0], tuple(_loaded(r[1], game_id, "rolls")), r[2], r[3])
                for r in c.execute(
                    "SELECT for_ply, dice, value, rolled_at FROM rolls WHERE game_id=? ORDER BY id",
                    (game_id,),
                )
            )
            instructions = tuple(
                InstructionRecord(r[0], _loaded(r[1], game_id, "instructions"), r[2])
                for r in c.execute(
                    "SELECT for_ply, instruction, given_at FROM instructions WHERE game_id=?"
                    " ORDER BY id",
                    (game_id,),
                )
            )
            events = tuple(
                EventRecord(r[0], r[1], _loaded(r[2], game_id, "events"), r[3])
                for r in c.execute(
                    "SELECT for_ply, kind, data, at FROM events WHERE game_id=? ORDER BY id",
                    (game_id,),
                )
            )
        live = tuple(sorted((m for m in moves if m.taken_back_at is None), key=lambda m: m.ply))
        taken_back = tuple(m for m in moves if m.taken_back_at is not None)
        return GameRecord(summary, start, live, taken_back, rolls, instructions, events, unreadable)

    def _photos(self, conn: sqlite3.Connection, game_id: int) -> tuple[dict[int, bytes], set[int]]:
        """A game's board photos by move id, and the ids of those stored whose pages are
        damaged (read one by one: a bad sector under one photo loses that photo alone).

        :raises RecordError: the list of them is damaged - saying that the game's moves read
            without them (an export without photos)."""
        try:
            ids = _photo_move_ids(conn, game_id)
        except sqlite3.DatabaseError as exc:
            if not _is_damage(exc):
                raise
            raise RecordError(
                f"game {game_id}'s board photos cannot be read: {self.path} is damaged where "
                f"they lie ({exc}) - its moves read without them: export it with --no-photos, "
                "or as --format json; restore the file from a backup"
            ) from None
        photos: dict[int, bytes] = {}
        lost: set[int] = set()
        for move_id in ids:
            try:
                row = conn.execute("SELECT jpeg FROM images WHERE move_id=?", (move_id,)).fetchone()
            except sqlite3.DatabaseError as exc:
                if not _is_damage(exc):
                    raise
                lost.add(move_id)
                continue
            if row is not None:
                photos[move_id] = row[0]
        return photos, lost

    def _photo_ids(self, conn: sqlite3.Connection, game_id: int) -> set[int]:
        """The ids of a game's moves stored with a board photo (the photos not read); none
        when the pages they lie on are damaged - the moves read without them."""
        try:
            return set(_photo_move_ids(conn, game_id))
        except sqlite3.DatabaseError as exc:
            if not _is_damage(exc):
                raise
            return set()

    def image(self, game_id: int, ply: int) -> bytes | None:
        """The board photo after accepted move `ply`, if one was stored."""
        with self._read() as c:
            row = c.execute(
                "SELECT i.jpeg FROM moves m JOIN images i ON i.move_id = m.id"
                " WHERE m.game_id=? AND m.ply=? AND m.taken_back_at IS NULL",
                (game_id, ply),
            ).fetchone()
        return row[0] if row else None

    def resume(self, game_id: int) -> Any:
        """The last accepted position of a game, with its whole history (so undo and the
        repetition rules work), replayed move by move by the engine.

        The engine is the authority: every stored move is parsed and checked again, and the
        position it gives must equal the stored position after that move. A record that does
        not replay raises RecordError naming the move; `last_position` is the fallback then."""
        return replay(self.game(game_id, images=False))

    def moves_of(self, summary: GameSummary) -> int:
        """The moves of a listed game as its game counts them (`moves_counted`), without
        replaying it: its stored moves where each is a move of the game (not `turn_labels`),
        else from the positions its first and last moves were played in
        (`Position.moves_before`) - a list of a year's games stays quick on a Pi. A record
        whose stored positions do not say it (written before a field its game now keeps:
        `fields_added`) is read and replayed; one that cannot be read is listed with its
        stored moves (the list says the file is damaged, `check`; opening the game says what)."""
        try:
            return self._moves_of(summary)
        except RecordError:
            return summary.moves

    def _moves_of(self, summary: GameSummary) -> int:
        """`moves_of`.

        :raises RecordError: the game cannot be read."""
        cls = games.get(summary.game)
        if not cls.turn_labels or summary.moves == 0:
            return summary.moves
        with self._read() as c:
            self._game_row(c, summary.id)
            texts = [c.execute("SELECT start FROM games WHERE id=?", (summary.id,)).fetchone()[0]]
            if summary.moves > 1:  # the last move was played in the position the one before left
                row = c.execute(
                    "SELECT position FROM moves WHERE game_id=? AND ply=? AND taken_back_at IS NULL",
                    (summary.id, summary.moves - 1),
                ).fetchone()
                texts.append(row[0] if row else "")
        stored = []
        for text in (texts[0], texts[-1]):
            try:
                stored.append(json.loads(text))
            except (TypeError, ValueError):  # (a row changed by hand: read whole, it is said)
                stored.append(None)
        if all(isinstance(data, dict) and not cls.fields_added - set(data) for data in stored):
            try:
                first, last = (cls.from_json(data) for data in stored)
            except UserError:
                pass
            else:
                return last.moves_before - first.moves_before + 1
        return moves_counted(self.game(summary.id, images=False))

    def last_position(self, game_id: int) -> Any:
        """The stored position after the last accepted move, read as is, WITHOUT replaying.

        Only for a record the engine no longer replays (a rules fix in a newer companion, or a
        hand-edited file): it is still the board as the players last had it, so a game can go
        on, but it has no history - undo and repetition checks start afresh from here."""
        record = self.game(game_id, images=False)
        cls = games.get(record.game)
        data = record.moves[-1].position if record.moves else record.start
        return cls.from_json(data)

    def check(self) -> list[str]:
        """SQLite's own integrity check of the whole file: problems found (empty: healthy).
        A check that stops at the damage it meets ("database disk image is malformed") has
        found that damage; anything else that stops it - a lock another program holds, a full
        disk, an I/O error - says nothing of the file (RecordError, as any read)."""
        with self._lock, self._guard("check"):
            try:
                rows = self._conn.execute("PRAGMA integrity_check").fetchall()
            except sqlite3.DatabaseError as exc:
                if not _is_damage(exc):
                    raise
                return [str(exc)]
        problems = [r[0] for r in rows]
        return [] if problems == ["ok"] else problems


# -- one writer per file ---------------------------------------------------------------------------
class _WriterLock:
    """The exclusive ``flock`` on ``<file>.lock`` that makes a process the one writer of a
    records file (see the module's text). Shared by the `Records` objects one process opens
    for writing on the same file (tests, a review beside the game), counted; the file
    descriptor unlocked and closed when the last of them closes - or freed when the process
    ends. Only the process that took it unlocks it: a child forked while the lock is held
    shares it, and unlocking there would free the parent's lock too (the child's copy of the
    descriptor goes with the child)."""

    _held: dict[tuple[int, int], _WriterLock] = {}  # (device, inode) of the lock file
    _guard = threading.Lock()

    def __init__(self, key: tuple[int, int], fd: int) -> None:
        self.key, self.fd, self.users, self.pid = key, fd, 1, os.getpid()

    @classmethod
    def take(cls, db: Path) -> _WriterLock:
        """The lock for `db`, or a RecordError: another companion holds it, or the lock
        file cannot be made (a read-only folder or disk)."""
        path = db.with_name(db.name + LOCK_SUFFIX)
        with cls._guard:
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except PermissionError as denied:  # another user's lock file (a sudo run): flock
                try:  # works on a descriptor opened for reading; the pid is not written then
                    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
                except OSError:  # none there, and the folder read-only: the first reason
                    raise _lock_file_error(db, path, denied) from None
            except OSError as exc:
                raise _lock_file_error(db, path, exc) from None
            try:
                stat = os.fstat(fd)
                key = (stat.st_dev, stat.st_ino)
                held = cls._held.get(key)
                if held is not None and held.pid == os.getpid():
                    os.close(fd)  # this process writes already: share its lock
                    held.users += 1
                    return held
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError as exc:
                    if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                        raise _lock_file_error(db, path, exc) from None
                    raise RecordsInUse(_in_use(db, fd)) from None
                try:  # who holds it, for the next one's message (a full disk: no matter)
                    os.ftruncate(fd, 0)
                    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
                except OSError:
                    pass
            except BaseException:
                os.close(fd)
                raise
            cls._held[key] = lock = cls(key, fd)
            return lock

    def release(self) -> None:
        with self._guard:
            if self.pid != os.getpid():
                return  # a child forked with the lock: the parent's to free
            self.users -= 1
            if self.users == 0:
                if self._held.get(self.key) is self:
                    del self._held[self.key]
                fcntl.flock(self.fd, fcntl.LOCK_UN)  # (a forked child's copy keeps no hold)
                os.close(self.fd)


def _in_use(db: Path, fd: int) -> str:
    """The one line for a second writer: whose lock it is, and what to do."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    who = f"another companion (process {text})" if text.isdigit() else "another companion"
    return (
        f"{db} is in use: {who} is recording into it, and only one companion at a time may - "
        "stop the other one first, or give this one other records with --db NEWFILE"
    )


def _lock_file_error(db: Path, path: Path, exc: OSError) -> RecordError:
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) and not _writable(db):
        return RecordError(
            f"could not open the game records in {db} for writing: its folder or disk is "
            f"read-only (the companion writes beside the file: {path.name}) - copy it to a "
            f"writable folder, or pass --db a file in one; {_LEAVE_IT}"
        )
    return RecordError(
        f"could not open the game records in {db} for writing: cannot make its lock file "
        f"{path} ({exc.strerror or exc}) - check that folder, or pass --db a file in another; "
        f"{_LEAVE_IT}"
    )


# -- replay ----------------------------------------------------------------------------------------
def replay(record: GameRecord, labels: list[str] | None = None) -> Any:
    """Replay a stored game with its engine, checking every move against the stored positions
    (a field a position gained since it was stored - Aranea's `turn_number` - is not held
    against it). `labels`: filled with each move's label as the game counts its moves
    (`Position.move_label`, from the history: "2g", Aranea's turns), as far as it replays.

    :raises ReplayError: a move that does not replay, or gives another position."""
    cls = games.get(record.game)
    where = f"game {record.id}"
    try:
        position = cls.from_json(record.start)
    except UserError as exc:
        raise ReplayError(f"{where}: the start position cannot be read: {exc}", 0) from None
    for move in record.moves:
        if labels is not None:
            labels.append(position.move_label)
        try:
            position.push(position.parse_move(move.text))
        except UserError as exc:
            raise ReplayError(
                f"{where}, move {move.ply} ({move.text!r}) does not replay: {exc}", move.ply
            ) from None
        engine = _as_stored(position.to_json(), move.position, cls.fields_added)
        if _canonical(engine) != _canonical(move.position):
            raise ReplayError(
                f"{where}, move {move.ply} ({move.text!r}): the engine's position differs from "
                "the stored one (was the file edited, or did the rules change?)",
                move.ply,
            )
    return position


def move_labels(record: GameRecord) -> tuple[list[str], ReplayError | None]:
    """Each recorded move's label as the game counts its moves (`Position.move_label` of the
    position it was played in: "2g", Aranea's turn) - from the replay; past a move that does
    not replay, the stored position's own (a game that keeps it there: `turn_labels`) or the
    move's number - and the replay's error (None when every move replays). What the review
    titles its moves with, and `moves_counted` counts."""
    cls = games.get(record.game)
    labels: list[str] = []
    error = None
    try:
        replay(record, labels)
    except ReplayError as exc:
        error = exc
    before = [record.start] + [move.position for move in record.moves]
    for ply in range(len(labels) + 1, len(record.moves) + 1):
        label = str(ply)  # (a stored position knows no history: the plain count is the ply's)
        if cls.turn_labels:
            try:
                label = cls.from_json(before[ply - 1]).move_label
            except UserError:  # damaged: the move before's (a ply's number is not a turn's)
                label = labels[-1] if labels else "1"
        labels.append(label)
    return labels, error


def moves_counted(record: GameRecord) -> int:
    """How many moves `record` holds as its game counts them (`MoveCount`): "63 moves" where
    the review's title at its end says "Move 63" - Aranea's 128 rolls and their uses."""
    return MoveCount(move_labels(record)[0]).moves


# -- helpers ---------------------------------------------------------------------------------------
def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def _canonical(data: Any) -> str:
    return json.dumps(json.loads(json.dumps(data)), sort_keys=True)


def _as_stored(engine: dict[str, Any], stored: Any, added: frozenset[str]) -> dict[str, Any]:
    """The engine's position JSON without the fields the game's position gained after the
    record was written (`added`: `Position.fields_added`, Aranea's `turn_number`) that the
    stored one lacks - those records replayed as changed, and could be neither continued nor
    exported. Any other field missing still differs.

        >>> _as_stored({"stones": {}, "turn_number": 3}, {"stones": {}}, frozenset({"turn_number"}))
        {'stones': {}}
        >>> _as_stored({"stones": {}, "stock": {}}, {"stones": {}}, frozenset({"turn_number"}))
        {'stones': {}, 'stock': {}}
    """
    if not isinstance(stored, dict):
        return engine
    return {key: value for key, value in engine.items() if key in stored or key not in added}


class _UnreadableRow(Exception):
    """A game's row holds text that is not JSON (`Records._guard` names the file)."""

    def __init__(self, game_id: int, what: str) -> None:
        super().__init__(game_id, what)
        self.game_id, self.what = game_id, what


def _loaded(text: Any, game_id: int, what: str, kind: type | None = None) -> Any:
    """`text` decoded as JSON (of `kind`, when given: a JSON object is a dict).

    :raises _UnreadableRow: it is not JSON, or not of that kind (a row changed by hand)."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):  # (json.JSONDecodeError is a ValueError)
        raise _UnreadableRow(game_id, what) from None
    if kind is not None and not isinstance(value, kind):
        raise _UnreadableRow(game_id, what)
    return value


def _last_live_move(conn: sqlite3.Connection, game_id: int) -> tuple[int, int, str] | None:
    """The game's last move not taken back: (id, ply, text), or None before the first."""
    row = conn.execute(
        "SELECT id, ply, move FROM moves WHERE game_id=? AND taken_back_at IS NULL"
        " ORDER BY ply DESC LIMIT 1",
        (game_id,),
    ).fetchone()
    return None if row is None else (int(row[0]), int(row[1]), str(row[2]))


def _photo_move_ids(conn: sqlite3.Connection, game_id: int) -> list[int]:
    """The ids of a game's moves stored with a board photo (the photos not read).

    :raises sqlite3.DatabaseError: the pages of that list are damaged."""
    return [
        row[0]
        for row in conn.execute(
            "SELECT i.move_id FROM images i JOIN moves m ON m.id = i.move_id WHERE m.game_id=?",
            (game_id,),
        )
    ]


def _summary(row: tuple[Any, ...]) -> GameSummary:
    return GameSummary(
        id=row[0],
        game=row[1],
        options=_loaded(row[2], row[0], "options", dict),
        players=_loaded(row[3], row[0], "players") if row[3] is not None else None,
        meta=_loaded(row[4], row[0], "meta data", dict),
        status=row[5],
        outcome=_loaded(row[6], row[0], "outcome", dict) if row[6] is not None else None,
        moves=row[7],
        started_at=row[8],
        updated_at=row[9],
        ended_at=row[10],
    )


def _fit_image(image: bytes | Callable[[int], bytes] | None) -> tuple[bytes | None, str | None]:
    """The photo to store and, when it is dropped, why."""
    if image is None:
        return None, None
    if callable(image):
        data = b""
        for quality in JPEG_QUALITIES:
            try:
                data = bytes(image(quality))
            except Exception as exc:  # a broken encoder must never cost the move
                return None, f"the board photo could not be encoded: {exc!r}"
            if len(data) <= MAX_IMAGE_BYTES:
                break
        else:
            return None, (
                f"the board photo was still {len(data)} bytes at JPEG quality {JPEG_QUALITIES[-1]} "
                f"(limit {MAX_IMAGE_BYTES}): make it smaller (e.g. 480 px wide)"
            )
    else:
        data = bytes(image)
    if not data.startswith(b"\xff\xd8\xff"):
        return None, "the board photo is not a JPEG (it must start with the JPEG marker FF D8 FF)"
    if len(data) > MAX_IMAGE_BYTES:
        return None, (
            f"the board photo is {len(data)} bytes, over the limit of {MAX_IMAGE_BYTES}: "
            "encode it smaller (e.g. 480 px wide at quality 70)"
        )
    return data, None


def _check_file(path: Path, *, must_exist: bool, default: bool = False) -> None:
    """Refuse a file that is not a whole SQLite database, reading only its 100-byte header
    (SQLite itself is not allowed near a file we would refuse). `default`: the path is
    `default_db_path` (no --db given), so a bad one is the environment's to fix."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        if must_exist:
            raise RecordError(
                f"there are no game records at {path}: play a game first, or pass the file with --db"
            ) from None
        return
    except OSError as exc:
        raise RecordError(
            f"cannot read the game records {path}: {exc.strerror}"
            + (
                " (a part of the path is a file, not a folder)"
                if exc.errno == errno.ENOTDIR
                else ""
            )
            + f": {_path_remedy(path, exc, default=default)}"
        ) from None
    if path.is_dir():
        raise RecordError(f"{path} is a folder: --db takes a file, e.g. {path / DB_FILENAME}")
    if not path.is_file():  # /dev/null, a pipe: SQLite would fail oddly and leave a journal
        raise RecordError(f"{path} is not a regular file: --db takes a file, e.g. records.sqlite3")
    if size == 0:
        if must_exist:
            raise RecordError(f"{path} is empty: it holds no game records yet")
        return  # SQLite treats an empty file as an empty database
    try:
        with open(path, "rb") as f:
            header = f.read(100)
    except OSError as exc:
        raise RecordError(
            f"cannot read the game records {path}: {exc.strerror}: "
            f"{_path_remedy(path, exc, default=default)}"
        ) from None
    if not header.startswith(_SQLITE_MAGIC):
        raise RecordError(
            f"{path} is not a companion record database (not an SQLite file): "
            f"pass another file with --db; {_LEAVE_IT}"
        )
    if len(header) < 100:
        raise _truncated(path, size, 100)
    page_size = struct.unpack(">H", header[16:18])[0]
    page_size = 65536 if page_size == 1 else page_size
    change_counter, pages = struct.unpack(">II", header[24:32])
    valid_for = struct.unpack(">I", header[92:96])[0]
    if page_size < 512 or page_size & (page_size - 1):
        raise _truncated(path, size, None)
    if size % page_size:
        raise _truncated(path, size, (size // page_size + 1) * page_size)
    if pages and valid_for == change_counter and size < pages * page_size and not _wal_frames(path):
        raise _truncated(path, size, pages * page_size)
    user_version, _, app_id = struct.unpack(">III", header[60:72])
    _check_identity(path, app_id, user_version, None)


def _wal_frames(path: Path) -> bool:
    """Whether a write-ahead log beside `path` holds pages (more than its 32-byte header).
    Then the file may be shorter than its header says and still whole: a checkpoint copies the
    log's pages into the file in page order, page 1 - the header, with the new size - first,
    and one cut short (a power cut, SIGKILL) is finished by SQLite from the log the next time
    it opens the file (a fault-injection test's rare failure: such records were refused as
    truncated, SQLite's integrity check finding them whole)."""
    try:
        return os.stat(f"{path}-wal").st_size > 32
    except OSError:
        return False


def _path_remedy(path: Path, exc: OSError, *, default: bool) -> str:
    """What to do about a records path that `exc` says cannot be used: a file that may not be
    read is its permissions' fault; a path through a file or a missing folder is the --db path's,
    or for the default path the environment variable that chose it (named with its value)."""
    if exc.errno in (errno.EACCES, errno.EPERM):
        return (
            "check the permissions of the file and of its folders, "
            "or give another records file with --db FILE"
        )
    if not default:
        return "check the --db path, or give another file with --db"
    chosen = _state_variable(path) if exc.errno in (errno.ENOTDIR, errno.ENOENT) else None
    if chosen is not None:
        variable, value = chosen
        return f"fix ${variable} ({value}), or give the records file with --db FILE"
    return "give the records file with --db FILE"


def _state_variable(path: Path) -> tuple[str, str] | None:
    """The environment variable that put the default records `path` where it is, with its
    value: $STATE_DIRECTORY, or $XDG_STATE_HOME when platformdirs used it (not when it is blank
    or, for newer platformdirs, not absolute: the path is then in ~/.local/state)."""
    for variable in ("STATE_DIRECTORY", "XDG_STATE_HOME"):  # as default_db_path chooses
        value = os.environ.get(variable, "")
        folder = value.split(":")[0] if variable == "STATE_DIRECTORY" else value
        if folder.strip() and path.is_relative_to(folder):
            return variable, value
    return None


def records_missing(path: Path) -> bool:
    """No file at `path` and nothing in the way of one (a path through a file is not
    missing records: opening it says what is wrong)."""
    try:
        path.stat()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def _records_folder(path: Path, *, default: bool) -> None:
    """Make the folder of the `default` records file (the state directory, at the first
    start). A folder given by name must exist already: a typo in --db would otherwise start an
    empty records file somewhere unexpected, and the games would seem to have vanished."""
    if path.parent.is_dir():
        return
    if not default:
        raise RecordError(
            f"there is no folder {path.parent} for the game records {path}: make it first, "
            "or check the --db path"
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RecordError(
            f"cannot create the folder for the game records {path.parent}: "
            f"{exc.strerror}; pass a writable file with --db"
        ) from None


def _check_identity(path: Path, app_id: int, version: int, tables: list[str] | None) -> None:
    """Ours, and a schema this companion reads? (`tables` None: only the header is known.)"""
    # Our tables and our application id are written in one transaction, so tables without the
    # id (or another id) belong to someone else.
    if app_id not in (0, APPLICATION_ID) or (app_id == 0 and tables):
        what = (
            f"application id {app_id:#x}" if app_id else "tables " + ", ".join(sorted(tables or []))
        )
        raise RecordError(
            f"{path} is an SQLite database of another program ({what}), not companion game "
            f"records: pass another file with --db; {_LEAVE_IT}"
        )
    if app_id == APPLICATION_ID and version > SCHEMA_VERSION:
        raise RecordError(
            f"{path} was written by a newer companion (schema {version}, this one reads "
            f"{SCHEMA_VERSION}): update the companion; {_LEAVE_IT}"
        )


def _truncated(path: Path, size: int, expected: int | None) -> RecordError:
    should = f", its header says {expected}" if expected else ""
    return RecordError(
        f"{path} is truncated or damaged ({size} bytes{should}): restore it from a backup, or "
        f"start new records with --db NEWFILE; {_LEAVE_IT}"
    )


def _writable(path: Path) -> bool:
    """Whether the companion may write `path` and beside it (its journal)."""
    folder = path.parent if str(path.parent) else Path(".")
    return os.access(folder, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))


def _damage_found(conn: sqlite3.Connection, table: str = "") -> str:
    """What SQLite's quick check finds in the file, or in one `table` (and its indexes), in
    one line ("": nothing).

    :raises sqlite3.DatabaseError: the check could not run (a lock, an I/O error)."""
    try:
        check = f"PRAGMA quick_check({table})" if table else "PRAGMA quick_check"
        rows = conn.execute(check).fetchall()
    except sqlite3.DatabaseError as exc:
        if not _is_damage(exc):
            raise
        return str(exc)
    problems = [str(r[0]) for r in rows]
    found = "" if problems == ["ok"] else " ".join(" ".join(problems).split())
    if len(found) > FOUND_CHARS:  # one line: what SQLite found first
        found = found[: FOUND_CHARS - 3].rstrip() + "..."
    return found


def _is_damage(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite's error says the file itself is damaged or no database ("database disk
    image is malformed", "file is not a database"), not that it could not be read now."""
    name = getattr(exc, "sqlite_errorname", None)  # (Python 3.11 on)
    if name is not None:
        return name in ("SQLITE_CORRUPT", "SQLITE_NOTADB")
    return type(exc) is sqlite3.DatabaseError


def _database_error(path: Path, doing: str, exc: sqlite3.DatabaseError) -> RecordError:
    message = str(exc)
    if isinstance(exc, sqlite3.OperationalError) and "locked" in message:
        # Not always a companion: an SQLite browser or `sqlite3` in a transaction locks it too
        return RecordError(
            f"{path} is busy: another program holds a lock on it (could not {doing}) - close "
            "that program or wait until it is done, then try again"
        )
    if "full" in message:
        return RecordError(f"could not {doing} the game records in {path}: the disk is full")
    if "readonly" in message or "read-only" in message:
        return RecordError(f"could not {doing} the game records in {path}: the file is read-only")
    if "unable to open" in message and not _writable(path):
        # a good file on a read-only disk or folder: SQLite writes its journal beside it
        return RecordError(
            f"could not {doing} the game records in {path}: its folder or disk is read-only "
            "(the companion writes beside the file) - copy it to a writable folder, or pass "
            f"--db a file in one; {_LEAVE_IT}"
        )
    return RecordsDamaged(
        f"{path} is damaged ({message}) - could not {doing}: restore it from a backup, or copy "
        "it aside and start new records with --db NEWFILE"
    )
