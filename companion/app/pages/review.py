"""Going through recorded games: the list of games, and one game move by move."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from companion import games
from companion.app.pages.base import Draw, Page
from companion.app.words import result_text
from companion.dice import shown_move
from companion.errors import RecordError
from companion.geometry import board_geometry
from companion.i18n import _, ngettext, pgettext
from companion.records import PLAYING, GameSummary, Records, move_labels
from companion.referee.protocol import FLIP, FROM, TO
from companion.usb_export import GameFiles, StickError, StickExport, StickWorker, find_stick
from display.screens import review

if TYPE_CHECKING:
    from companion.app.controller import App

S = TypeVar("S")
R = TypeVar("R")


class Rows(Sequence[R], Generic[S, R]):
    """The review list's rows, each made by `row` from its game's summary when first asked
    for: the list draws only a page of them (`display.screens.review.draw_list`).

        >>> made = []
        >>> rows = Rows(["a", "b", "c"], lambda s: (made.append(s), s.upper())[1])
        >>> len(rows), rows[1:2], made
        (3, ['B'], ['b'])
        >>> rows[-1], rows[1], made
        ('C', 'B', ['b', 'c'])
    """

    def __init__(self, summaries: Sequence[S], row: Callable[[S], R]) -> None:
        self._summaries = summaries
        self._row = row
        self._made: dict[int, R] = {}

    def __len__(self) -> int:
        return len(self._summaries)

    @overload
    def __getitem__(self, index: int) -> R: ...

    @overload
    def __getitem__(self, index: slice) -> list[R]: ...

    def __getitem__(self, index: int | slice) -> R | list[R]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        if index not in self._made:
            self._made[index] = self._row(self._summaries[index])
        return self._made[index]


class StickWriter:
    """A review page's Export to USB (each page has its own): the games written to the stick
    by a worker thread, one after another (`start`, `companion.usb_export.StickWorker`), while
    the screen goes on; each tick (`poll`, from `App.tick`) the screen looks how far it got, and
    says it and what became of it (`note`, `problem`) until the page is left or something else
    is done on it."""

    POLL_SECONDS = 0.1  # how soon the screen looks again while the worker writes
    # the page left: how long it waits for the game being written to be whole on the stick (a
    # stick that hangs longer: left to the worker). The main loop pings the service's 30 s
    # watchdog every 15 s, so a wait may begin up to 15 s after the last ping: 10 s leave 5 s
    # (a review: 20 s could have the service restarted)
    STOP_WAIT_SECONDS = 10.0

    def __init__(self, app: App) -> None:
        self.app = app
        # the export as the screen says it: the worker's copy taken at the last `poll` (so it
        # changes only there, when the screen is told to draw again), or at `start`/`stop`
        self.job: StickExport | None = None
        self.worker: StickWorker | None = None
        self.refused = ""  # no stick, or a read-only one: said at the press

    def start(self, game_ids: list[int]) -> None:
        """Export to USB pressed: the worker starts writing the games."""
        records = self.app.records
        if self.busy or records is None:
            return
        self.clear()
        try:
            drive = find_stick(self.app.find_drives())
        except StickError as exc:
            self.refused = str(exc)
            return
        job = StickExport(drive, game_ids, find=self.app.find_drives)
        self.worker = StickWorker(job, records, report=_journal).start()
        self.job = self.worker.state

    @property
    def busy(self) -> bool:
        return self.job is not None and not self.job.finished

    def poll(self) -> float | None:
        """How far the worker got: the screen drawn again when a game is done (the journal
        says where its files went, from the worker); soon again while it writes
        (`POLL_SECONDS`), None once it is finished."""
        if self.worker is None or self.job is None or self.job.finished:
            return None
        state, error = self.worker.progress()
        if state is not self.job:
            self.job = state
            self.app.dirty = True
        if error is not None:  # a fault of the companion's, raised as when the screen wrote
            raise error
        return None if state.finished else self.POLL_SECONDS

    def stop(self) -> None:
        """The page is left: the games not yet written are not; the one being written is
        finished, whole, before the page goes - so the stick may be pulled out once the screen
        has changed (a review: the screen said nothing more while a game was still being
        written, and counted it unwritten). At most one game's wait, as each game's was when
        the screen wrote them itself."""
        if self.worker is not None and self.busy:
            self.worker.stop()
            self.worker.thread.join(self.STOP_WAIT_SECONDS)
            state, error = self.worker.progress()
            self.job = state
            if error is not None:  # a fault of the companion's, raised as `poll` does
                raise error

    def clear(self) -> None:
        """What a finished export said is said no more."""
        if not self.busy:
            self.job = None
            self.worker = None
            self.refused = ""

    @property
    def problem(self) -> str:
        return self.refused or (self.job.problem if self.job is not None else "")

    @property
    def note(self) -> str:
        return self.job.note() if self.job is not None else ""


def _journal(files: GameFiles) -> None:
    """Where each file written went, in the journal (on the worker's thread: one write)."""
    sys.stderr.write(
        "".join(f"companion: game {files.game_id} exported to {path}\n" for path in files.paths)
    )


class ReviewListPage(Page):
    name = "review-list"

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.number = 0  # the page of the list shown
        # the row the table's ROLL points at (DONE opens it), None: none yet - DONE opens the
        # newest (a trial: only the newest game could be opened with the buttons)
        self.pointed: int | None = None
        self.unshown = ""  # a game of the list that could not be shown, said over the list
        # (id, stored moves) -> its moves as the game counts them (`Records.moves_of`: read
        # once a game)
        self.counted: dict[tuple[int, int], int] = {}
        self.stick = StickWriter(app)  # Export to USB: every game

    @property
    def problem(self) -> str:
        """The line said over the list ("" for none): the USB stick's, or a game that could
        not be shown."""
        return self.stick.problem or self.unshown

    @problem.setter
    def problem(self, text: str) -> None:
        self.unshown = text

    def open(self) -> None:
        self.number = 0
        self.pointed = None
        self.problem = ""
        self.stick.clear()
        self.app.go("review-list")

    def leave(self) -> None:
        """Another page: a game that could not be shown is not said over the list again; an
        export to the stick stops after the game being written."""
        self.problem = ""
        self.stick.stop()

    def poll(self) -> float | None:
        return self.stick.poll()

    def games(self) -> Sequence[tuple[int, str, str]]:
        """The recorded games, newest first (`Records.games`): (id, title, a line on its
        state), each row made when first asked for - the list shows a page of them, and a
        row's moves may take its game's replay to count (`Records.moves_of`: an Aranea record
        from before 7 Dec 2026). DONE opens the first - the game just played."""
        records = self.app.records
        if records is None:
            return []
        try:
            summaries = records.games()
        except RecordError:  # a damaged file: said over the page and in the list
            self.app.records_damaged()
            return []
        return Rows(summaries, lambda summary: self._row(records, summary))

    def _row(self, records: Records, summary: GameSummary) -> tuple[int, str, str]:
        title = f"#{summary.id} {games.get(summary.game).title_for(summary.options)}"
        if summary.meta.get("demo"):
            # played by the synthetic table, not at this table
            title = _("{game} (demo)").format(game=title)
        count = self._moves(records, summary)
        moves = ngettext("{count} move", "{count} moves", count).format(count=count)
        status = pgettext("game status", summary.status)
        if summary.id in self.app.unreplayable:  # unfinished, and never to be continued
            status = _("cannot be continued")
        line = f"{status} · {moves} · {summary.started_at[:16].replace('T', ' ')}"
        if summary.outcome:
            line = f"{status} · {moves} · {result_text(summary, short=True)}"
        return summary.id, title, line

    def _moves(self, records: Records, summary: GameSummary) -> int:
        """A listed game's moves as the game counts them, as its review's title and the
        game-over screen count them (its stored moves said "128 moves" where the review ended
        on "Move 63": Aranea's rolls), read once (`Records.moves_of`)."""
        key = (summary.id, summary.moves)
        if key not in self.counted:
            self.counted[key] = records.moves_of(summary)
        return self.counted[key]

    def buttons(self) -> dict[str, tuple[str, Any]]:
        mapping: dict[str, tuple[str, Any]] = {"back": ("back", None)}
        games_list = self.games()
        # (not while All to USB writes: DONE out of habit would stop it - a review; BACK,
        # leaving, stops it as meant)
        if games_list and not self.stick.busy:
            row = self.pointed if self.pointed is not None and self.pointed < len(games_list) else 0
            mapping["done"] = ("open-game", games_list[row][0])
            mapping["roll"] = ("next-row", None)
        return mapping

    def act(self, kind: str, value: Any) -> None:
        if kind == "export-all":
            self._export_all()
            return
        self.stick.clear()
        if kind == "open-game":
            self.app.pages.review_game.open(int(value))
        elif kind == "page":
            self.number = max(0, int(value))
            self.pointed = None  # (the page turned by touch: the table's pointer goes)
        elif kind == "next-row":
            count = len(self.games())
            if count:
                self.pointed = 0 if self.pointed is None else (self.pointed + 1) % count
        elif kind == "back":
            self.app.go("home")

    def _export_all(self) -> None:
        """Every recorded game to the USB stick, newest first (as listed)."""
        records = self.app.records
        if records is None:
            return
        try:
            game_ids = [summary.id for summary in records.games()]
        except RecordError:
            self.app.records_damaged()
            return
        if game_ids:
            self.stick.start(game_ids)

    def model(self) -> tuple[Draw, object]:
        listed = self.games()
        unreadable = not listed and bool(self.app.records_problem)
        return review.draw_list, review.ReviewListModel(
            listed,
            self.number,
            unreadable=unreadable,
            note=self.stick.note,
            exporting=self.stick.busy,
            pointed=self.pointed,
        )


class ReviewGamePage(Page):
    name = "review-game"

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.review: review.ReviewGameModel | None = None
        self.turns_over = False  # the game reviewed turns stones over (`stones_turn_over`)
        # the first move whose recorded text does not replay (the record changed after it was
        # written): the page says so over the game; None when every move replays
        self.not_replayed: int | None = None
        self.game_id = 0  # the game shown
        self.stick = StickWriter(app)  # Export to USB: this game

    @property
    def problem(self) -> str:
        """The line said over the game ("" for none), in the table's language now: the USB
        stick's, else the moves that do not replay."""
        if self.stick.problem:
            return self.stick.problem
        if self.not_replayed is None:
            return ""
        ply = max(1, self.not_replayed)
        return _(
            "From move {number} on, the recorded moves do not replay by this version's rules "
            "(the record or the rules changed after it was written). The boards are shown as "
            "stored"
        ).format(number=self.review.label(ply) if self.review else ply)  # as its title says

    def open(self, game_id: int) -> None:
        """A recorded game, at its last move. One game whose record cannot be read is said
        over the list (the file is not damaged for that: the other games and the one being
        played are read and written as ever); a damaged file raises RecordError, which the
        app says on every page (`App.records_damaged`).

        :raises RecordError: the records file is damaged."""
        app = self.app
        records = app.records
        assert records is not None
        try:
            record = records.game(game_id, images=False)
            cls = games.get(record.game)
            start = cls.from_json(record.start)
            positions = [start] + [cls.from_json(m.position) for m in record.moves]
        except RecordError:
            if records.damage(wait=True):  # (the start-up check may still be running)
                raise
            app.pages.review_list.problem = _(
                "Game {number} cannot be shown: its record cannot be read"
            ).format(number=game_id)
            app.go("review-list")
            return
        app.pages.review_list.problem = ""
        self.game_id = game_id
        self.stick.clear()
        # each move's label as the game counts them; the move texts replayed against the boards
        # (Continue refuses a game that does not replay; here it is shown)
        labels, exc = move_labels(record)
        self.not_replayed = None
        if exc is not None:
            self.not_replayed = exc.ply if exc.ply is not None else 1
            if record.summary.status == PLAYING:
                app.unreplayable.add(game_id)  # (as Continue finds it: not offered, listed so)
        boards = [position.cells() for position in positions]
        options = start.options
        self.review = review.ReviewGameModel(
            title=f"#{record.id} {start.full_title}",
            geometry=board_geometry(record.game, options),
            boards=boards,
            moves=[shown_move(m.text) for m in record.moves],
            ply=len(boards) - 1,
            result=result_text(record.summary) if record.summary.outcome else "",
            piece_labels=[position.piece_labels() for position in positions],
            move_labels=labels,
        )
        self.turns_over = cls.stones_turn_over
        self.review.highlights = self._highlights()
        self.app.go("review-game")

    def _highlights(self) -> dict[str, str]:
        """The cells that changed with the move shown: from (emptied) and to (filled); a
        piece of the other colour now: turned over where stones turn (Arinama), else another
        piece came there (an Arimaa capture-and-step, an Aranea stone knocked off and replaced):
        to. A Sensei character that left or reached a stone of its own colour
        ("green-character" <-> "green") moved: from / to, not turned."""
        r = self.review
        if r is None or r.ply == 0:
            return {}
        before, after = r.boards[r.ply - 1], r.boards[r.ply]
        marks = {}
        for cell in set(before) | set(after):
            a, b = before.get(cell), after.get(cell)
            if a == b:
                continue
            if a is not None and b is not None and _colour(a) == _colour(b):
                marks[cell] = FROM if _colour(b) == b else TO  # the character left / came
            else:
                turned = FLIP if self.turns_over else TO
                marks[cell] = FROM if b is None else TO if a is None else turned
        return marks

    def buttons(self) -> dict[str, tuple[str, Any]]:
        ply = self.review.ply if self.review else 0
        return {"done": ("ply", ply + 1), "roll": ("ply", ply - 1), "back": ("back", None)}

    def act(self, kind: str, value: Any) -> None:
        if kind == "export":
            self.stick.start([self.game_id])
            return
        self.stick.clear()
        if kind == "ply" and self.review is not None:
            self.review.ply = max(0, min(int(value), len(self.review.boards) - 1))
            self.review.highlights = self._highlights()
        elif kind == "back":
            self.app.go("review-list")

    def leave(self) -> None:
        """Another page: an export to the stick ends with the game's file being written."""
        self.stick.stop()

    def poll(self) -> float | None:
        return self.stick.poll()

    def model(self) -> tuple[Draw, object]:
        if self.review is not None:
            self.review.note = self.stick.note
            self.review.exporting = self.stick.busy
        return review.draw_game, self.review


def _colour(cls: str) -> str:
    """A camera class's colour: "green" for "green" and "green-character"."""
    return cls.split("-", 1)[0]
