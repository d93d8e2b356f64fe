"""The game-independent half of the referee: the board seen vs. the board expected, undo,
hands, unclear views, records and resuming. Each game adds its own rules in its own module.

The referee is a small state machine whose current `instruction` is always *derived* from its
state (the position, the last clean board seen, a pending question or undo request), never
kept as a separate story. That is what makes it safe to kill and restart: `Referee.resume`
rebuilds the position from the records, the next observation gives the board, and the same
instruction comes out - "Turn d4 and e5 to black" if the flips were not yet done.

Rules of the edge, for every game:
- an observation with "unknown" cells is never guessed at: the players are asked to clear the
  view of those cells, and nothing else changes - but with tall pieces a cell read unknown that
  a nearer piece may hide is taken as it was on the last board (`_behind_nearer_pieces`);
- while a hand is over the board (`hands(True)`) observations are ignored: a hand is never a
  move;
- a move is accepted only from a clean, still board, is written to the records *before* the
  new instruction exists, and after it the board must show the new position ("settled") before
  anything else counts as a move - until then every difference is something to fix;
- with tall pieces, a cell a nearer piece may hide from the camera (`Observation.hidden`: a
  piece seen from the side leans over the cell behind it) is read as it was, or - while the
  board shows the position - as empty, when the board as read is neither the position nor a
  legal move and that alone makes it one (`Referee.seen_board`). The reading is always tried
  first; a change the players were asked for is never taken as done there; a change the camera
  cannot see shows as soon as the nearer piece moves away;
- the players may say the board is right when told to put it back (BOARD_RIGHT: a lamp's hard
  shadow on an empty square that reads as a piece, for as long as the piece casting it stays):
  the board is then taken as the position, and each cell the camera read otherwise is read as
  the position has it while the camera still reads it so - only when that makes the board the
  position or a legal move (`Referee.misread`, `seen_board`), until the camera reads it right
  or a move changes it. A wrong press hides a real difference on those cells until then.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations, product
from typing import Any, ClassVar, Generic, TypeVar

from companion import games
from companion.dice import Dice
from companion.errors import RecordError, UserError
from companion.games.base import Outcome, Position
from companion.i18n import _
from companion.i18n import player as player_name
from companion.observation import EMPTY, Observation
from companion.records import Records
from companion.referee import phrases
from companion.referee.outcomes import outcome_text
from companion.referee.protocol import (
    ASKED,
    BOARD_RIGHT,
    CANCEL,
    CHOOSE,
    DONE,
    ERROR,
    FROM,
    REMOVE,
    RESTORE,
    ROLL,
    TARGET,
    UNCLEAR,
    UNDO,
    Event,
    EventKind,
    Instruction,
    InstructionKind,
    PlayerInput,
)

INPUT_KINDS = (DONE, ROLL, UNDO, CHOOSE, CANCEL, BOARD_RIGHT)
# The instructions while which the players may say the board is right (BOARD_RIGHT): the board
# read is neither the position nor a legal move - a piece to put back, or one to take off
# (a lamp's shadow read as a stone where none may go), a captured piece taken off, stones
# turned, or an Arimaa setup made, that the camera still reads as before.
BOARD_RIGHT_KINDS: frozenset[InstructionKind] = frozenset(
    {"restore", "illegal", "remove", "flip", "setup"}
)
# ... of which these ask for what the players are about to do anyway (turn the stones, take
# the captured piece off, set up): there only once a hand has been over the board since the
# instruction came - the players did it, and the camera still reads the board otherwise.
# Offered at once, one tap took an untouched board as done (found by a review).
AFTER_A_HAND_KINDS: frozenset[InstructionKind] = frozenset({"remove", "flip", "setup"})
# Not worth a row in the records: moves and rolls have their own tables; hands and unclear
# views come and go many times a turn.
QUIET_EVENTS: frozenset[EventKind] = frozenset({"move", "roll", "hands", "unclear", "held"})
# At most this many possibly hidden cells are read otherwise than the camera says: a move
# leaves at most one or two cells behind a piece that moved in front of them.
MAX_HIDDEN_CHANGES = 2
MAX_HIDDEN_TRIES = 64  # boards judged at most for one observation (a garbled view: give up)


def referee_class(game: str) -> type[Referee[Any]]:
    """The referee of a game by name (the game's `referee_class()`)."""
    if game not in games.names():
        raise UserError(f"no referee for game {game!r}: choose one of {', '.join(games.names())}")
    return games.get(game).referee_class()


@dataclass(frozen=True)
class Misread:
    """A cell the players said the camera reads wrong (BOARD_RIGHT): what the camera read
    there (a class, None: empty) and what the position had there then."""

    read: str | None
    truth: str | None


@dataclass
class UndoRequest:
    """A request to take back the last move; both players must agree."""

    by: str | None  # who asked (None: the front end does not know)
    move: str  # the move's text, to show what would be undone


P = TypeVar("P", bound=Position[Any])  # the position type of a game's referee


class Referee(Generic[P]):
    """Observations and player inputs in, instructions and events out - for one game.

    `Referee(position, records=..., dice=..., game_id=...)` returns the referee of the
    position's game (ArinamaReferee, ...). `records` (companion.records.Records) receives every
    accepted move, roll, instruction and the outcome; `game_id` is the game's id there (a new
    game is created when it is None and records are given).
    """

    game: ClassVar[str] = ""
    piece_word: ClassVar[str] = "stone"  # "stone" / "piece", for the default phrasing
    typed_setup: ClassVar[bool] = False  # takes setup turns as text (`set_setup`): Arimaa
    # The pieces stand tall enough to hide the cell behind them from a camera at the side
    # (chess-like figures): only then is a cell the camera marks as possibly hidden read
    # otherwise than it says (`seen_board`). Stones lie flat - the camera sees past them - and
    # one that never moves again would keep a wrong guess for the rest of the game.
    tall_pieces: ClassVar[bool] = False

    def __new__(cls, position: P, *args: Any, **kwargs: Any) -> Referee[P]:
        if cls is Referee:
            cls = type(position).referee_class()
        return super().__new__(cls)

    def __init__(
        self,
        position: P,
        *,
        records: Records | None = None,
        dice: Dice | None = None,
        game_id: Any = None,
        clear_first: bool = False,
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.position = position
        self.records = records
        self.dice = Dice() if dice is None else dice
        if records is not None and game_id is None:
            # stored from its root, with its moves; `meta` marks e.g. a demo's game
            game_id = records.new_game(position, meta=meta)
        self.game_id = game_id
        self.board: dict[str, str] | None = None  # occupied cells of the last clean observation
        self.board_seen_at: tuple[int, float] | None = None  # its (frame, timestamp)
        # Has the board shown the position since the last move (or the start)? `clear_first`:
        # not yet - pieces the camera needed to learn the colours are still on the board, and
        # taking them off is a plain instruction, not an illegal move.
        self.settled = not position.move_stack and not clear_first
        self.calibration_pieces = clear_first  # until the board first shows the position
        self.hands_on_board = False
        self.resumed = False  # started by `resume` and not yet settled
        # the last move was accepted on a board that did not show the position after it
        # (stones still to turn, a capture to take off): the length of the move stack then -
        # its photo is replaced by the first board that shows that position (`_now_settled`),
        # not one after a take-back, a restart or a next turn's first steps
        self.photo_pending: int | None = None
        self.unclear: list[str] = []
        self.asked: frozenset[str] = frozenset()  # cells to change named since last settled
        self.undo_request: UndoRequest | None = None
        # DONE or ROLL pressed while the camera could not see the board as it is (a hand over
        # it, cells unclear, the view still settling): taken on the next still board read in
        # full, unless that board ends the turn by itself (`observe`)
        self.held: PlayerInput | None = None
        # a hand has been over the board since the instruction's kind last changed (the
        # players acted on it): Board is right for a flip, a capture or a setup needs it
        self.hand_since_asked = False
        self.last_observation: Observation | None = None
        self._taught: Observation | None = None  # the last observation handed to `teach`
        # The cells the players said the camera reads wrong (BOARD_RIGHT), by cell: read as
        # the position has them while the camera still reads them so, when that makes the
        # board the position or a legal move (`seen_board`); forgotten once the camera reads
        # one right or the position's content there changes. Never recorded: a resumed
        # referee starts with none.
        self.misread: dict[str, Misread] = {}
        self._cell_names = frozenset(position.cell_names())
        self._classes = frozenset(position.cell_classes())
        self._instruction: Instruction | None = None
        self._update()

    # -- the public edge ------------------------------------------------------------------------
    @property
    def instruction(self) -> Instruction:
        assert self._instruction is not None
        return self._instruction

    def observe(self, observation: Observation) -> list[Event]:
        """A still board with no hand over it (from vision.tracker)."""
        if self.hands_on_board:
            return []  # a hand over the board is never a move
        self._check_board_seen(observation)
        observation = self._behind_nearer_pieces(observation)
        self.last_observation = observation
        unknown = observation.unknown()
        if unknown:
            self.unclear = unknown
            return self._update([Event("unclear", {"cells": unknown})])
        self.unclear = []
        read = observation.occupied()
        for cell in [c for c, m in self.misread.items() if read.get(c) == m.truth]:
            del self.misread[cell]  # the camera reads it right again
        self.board = self.seen_board(observation)
        self.board_seen_at = (observation.frame, observation.timestamp)
        if self.position.is_game_over() or self.undo_request is not None:
            if not self.settled and self.board == self.expected():
                self._now_settled()  # (the last move's stones turned: its photo)
            return self._update([])
        events = self._judge_board()
        held, self.held = self.held, None
        if held is not None and not self.position.is_game_over():
            if not any(e.kind == "move" for e in events):  # (a turn that ended by itself)
                events += self._on_input(held)
        return self._update(events)

    def _judge_board(self) -> list[Event]:
        """The board last seen (`self.board`) judged against the game: caught up with, or
        taken as a move, or named as what to put right - on each still board, and once more
        when a take-back the referee waited on is refused (the other player may have played
        on meanwhile)."""
        assert self.board is not None
        events: list[Event] = []
        if not self.settled:
            if self.board != self.expected():
                events += self._catch_up(self.board)
            if self.board == self.expected():
                self._now_settled()
                self.calibration_pieces = False
                if self._instruction is not None and self._instruction.kind == "restore":
                    events.append(Event("restored"))
            return events
        was_restoring = self._instruction is not None and self._instruction.kind == "restore"
        events += self._on_board(self.board)
        if was_restoring and self.board == self.expected():
            events.append(Event("restored"))
        return events

    def _check_board_seen(self, observation: Observation) -> None:
        """That `observation` is of this game's board and pieces.

        :raises UserError: it has cells this board lacks, lacks some while listing empty
            cells (another, smaller board's), or reports pieces of classes the game has not."""
        named = {*observation.hidden, *observation.hidden.values(), *observation.unlearned}
        strays = named - self._cell_names - set(observation.cells)
        if strays:  # cells a nearer piece may hide, or never seen empty, of no board here
            raise UserError(
                _(
                    "the camera's marks name cells that the {game} board does not have "
                    "({cells}): check the observation"
                ).format(game=self.position.title, cells=phrases.cell_list(strays))
            )
        foreign = set(observation.cells) - self._cell_names
        if foreign:
            if observation.layout:
                text = _(
                    "the camera layout {layout} has cells that the {game} board does not have "
                    "({cells}): choose the layout for {game}"
                )
            else:  # an observation line that names no layout
                text = _(
                    "the camera sees cells that the {game} board does not have ({cells}): "
                    "choose the layout for {game}"
                )
            raise UserError(
                text.format(
                    layout=observation.layout,
                    game=self.position.title,
                    cells=phrases.cell_list(foreign),
                )
            )
        missing = set(self._cell_names - set(observation.cells))
        if missing and EMPTY in observation.cells.values():
            # An observation that says which cells are empty covers the board it was read
            # from (the tracker lists every cell): one without some of this board's cells is
            # of a smaller board - a 5 x 5 mat's read into an 8 x 8 game moved stones that
            # were never seen. (A hand-made line naming only the pieces covers no board.)
            raise UserError(
                _(
                    "the camera sees {seen} of the {game} board's {count} cells, not {cells}: "
                    "choose the layout for {game}"
                ).format(
                    seen=len(self._cell_names) - len(missing),
                    game=self.position.title,
                    count=len(self._cell_names),
                    cells=phrases.cell_list(missing),
                )
            )
        foreign_classes = set(observation.occupied().values()) - self._classes
        if foreign_classes:
            raise UserError(
                _(
                    "the camera reports {classes} pieces, which {game} does not have "
                    "({known}): calibrate the camera for this game"
                ).format(
                    classes=", ".join(sorted(foreign_classes)),
                    game=self.position.title,
                    known=", ".join(sorted(self._classes)),
                )
            )

    def _behind_nearer_pieces(self, observation: Observation) -> Observation:
        """`observation` with each cell read "unknown" that a nearer piece may hide
        (`Observation.hidden`, when the game's pieces are tall) read as it was on the last
        board seen: the camera says it cannot tell, and the piece in front says why - a rook
        behind its king, half its top showing. Asking the players to clear the view there
        would stall the game (nothing lies on the cell to take away), so what the camera
        cannot see is taken as unchanged, as on every hidden cell (`seen_board`): a change
        there shows once the nearer piece moves. Any other unknown cell - a hand, a cup, a
        cell past the picture - stays unclear, as does every one before a board was seen."""
        if not self.tall_pieces or self.board is None:
            return observation
        behind = [c for c in observation.unknown() if c in observation.hidden]
        if not behind:
            return observation
        cells = dict(observation.cells)
        for cell in behind:
            cells[cell] = self.board.get(cell, EMPTY)
        return replace(observation, cells=cells)

    def handle(self, player_input: PlayerInput, *, view_settling: bool = False) -> list[Event]:
        """A button or screen input: done, roll, undo, choose X, cancel, board-right (see
        `_board_right`). An input that does not apply now changes nothing (no events).

        DONE and ROLL pressed while the camera cannot see the board as it is - a hand over it,
        cells unclear, or (`view_settling`, from the front end: `protocol.view_settling`) the
        view still moving after a hand left, the board not found or moved - are held
        (`held`, the event "held") and taken on the next still board read in full: a player
        who makes the turn's last step and presses DONE at once ends the turn with that step,
        not without it. The front end asks its camera for that board
        even if nothing changed. Any other input drops a press held."""
        kind = player_input.kind
        if kind not in INPUT_KINDS:
            raise UserError(f"unknown input {kind!r}: use one of {', '.join(INPUT_KINDS)}")
        holds = kind in (DONE, ROLL) and (view_settling or self.hands_on_board or self.unclear)
        if holds and self.undo_request is None and not self.position.is_game_over():
            self.held = player_input
            return self._update([Event("held", {"input": kind})])
        self.held = None
        if self.undo_request is not None:
            if kind in (DONE, UNDO) and self._agrees(player_input.player):
                return self._update(self._perform_undo())
            if kind in (CANCEL, ROLL):  # ROLL: the table's buttons have no CANCEL
                self.undo_request = None
                events = [Event("undo", {"state": "refused"})]
                if self.board is not None and not self.position.is_game_over():
                    events += self._judge_board()  # a move made while the request waited
                return self._update(events)
            return []
        if kind == UNDO:
            return self._update(self._request_undo(player_input.player))
        if self.position.is_game_over():
            return []
        if kind == BOARD_RIGHT:
            return self._update(self._board_right())
        return self._update(self._on_input(player_input))

    def may_say_board_right(self) -> bool:
        """Whether the players may say now that the board is right and the camera wrong
        (BOARD_RIGHT; the play screen shows **Board is right** then): while told to put the
        board right (the instruction "restore" or "illegal": the board as read is neither the
        position nor a legal move) - after a move, a take-back (a shadow the camera took for a
        move, taken back, and read there still) or a restart; not while the pieces calibration
        learned from are to come off at the start (the board far from the position) - the game
        going on, no take-back waiting, no hand over the board, and the last observation - the
        one the board was read from - read in full. Also while told to turn stones, take a
        captured piece off or set up ("flip", "remove", "setup": glare or a shadow read where
        it was done), once a hand has been over the board since (`AFTER_A_HAND_KINDS`)."""
        observation = self.last_observation
        return (
            not self.calibration_pieces
            and not self.hands_on_board
            and self.undo_request is None
            and not self.position.is_game_over()
            and self.board is not None
            and observation is not None
            and not observation.unknown()
            and self.board_seen_at == (observation.frame, observation.timestamp)
            and self.instruction.kind in BOARD_RIGHT_KINDS
            and (self.instruction.kind not in AFTER_A_HAND_KINDS or self.hand_since_asked)
        )

    def _board_right(self) -> list[Event]:
        """The players say the board is right and the camera wrong, when they may
        (`may_say_board_right`; else nothing): the board taken from the last observation
        becomes the position - `board_to_learn` then hands the position with that very frame
        to the camera - and each cell where it differed is remembered with what the camera
        read there (`misread`)."""
        observation = self.last_observation
        if observation is None or self.board is None or not self.may_say_board_right():
            return []
        expected = self.expected()
        setup = self.instruction.kind == "setup" and self.instruction.expected is not None
        if setup:
            expected = dict(self.instruction.expected or {})  # the setup they were making
        read = observation.occupied()
        cells = sorted(
            (c for c in set(self.board) | set(expected) if self.board.get(c) != expected.get(c)),
            key=phrases.cell_sort_key,
        )
        for cell in cells:
            if read.get(cell) != expected.get(cell):  # (else a hidden cell read otherwise)
                self.misread[cell] = Misread(read=read.get(cell), truth=expected.get(cell))
        self.board = expected
        if not self.settled:  # the board shows the position, as in `observe`
            self._now_settled()
        events = [Event("board-right", {"cells": cells})]
        if setup:  # judged as a still board showing it: the setup made is taken
            events += self._judge_board()
        return events

    def hands(self, status: bool) -> list[Event]:
        """The "hands on the board" state from the tracker: observations wait until False."""
        if status == self.hands_on_board:
            return []
        self.hands_on_board = status
        self.hand_since_asked = self.hand_since_asked or status
        return [Event("hands", {"on": status})]

    @classmethod
    def resume(
        cls,
        records: Records,
        game_id: Any,
        *,
        dice: Dice | None = None,
        recorded: bool = True,
        calibrated: Sequence[str] | None = None,
    ) -> Referee[Any]:
        """Continue a recorded game at its last accepted position (after a crash or a pulled
        plug). The board must then show that position before play goes on. Not `recorded`:
        the game is read from `records` and goes on without writing to them (a damaged file).
        `calibrated`: the classes the camera was just calibrated on - the pieces it learned
        them from may be on the board, to be taken off first (a game continued at its start,
        `Position.calibration_pieces_stay`).

        :raises RecordError: the game cannot be read, or (recorded) written to."""
        position = records.resume(game_id)
        referee = Referee(
            position,
            records=records if recorded else None,
            dice=dice,
            game_id=game_id,
            clear_first=calibrated is not None and position.calibration_pieces_stay(calibrated),
        )
        referee.settled = False
        # Nothing to catch up with while the calibration pieces stand there: the board was
        # just set up for the camera, not played on (they would read as a move).
        referee.resumed = not referee.calibration_pieces and not _ended_with_undo(
            records.game(game_id, images=False)
        )
        referee._update()
        return referee

    def seen_board(self, observation: Observation) -> dict[str, str]:
        """The occupied cells of `observation` as the referee takes them.

        When the game's pieces are tall, first the cells the camera read empty only as a
        nearer piece's lean (`observation.leaned`) are taken as it first read them, when that
        makes the board the position or a legal move:
        a rabbit that steps behind its camel and hides there looks like the camel's lean, and
        the board without it - the rabbit gone - may be a legal move too (a review: "Which
        gold piece is on g5 now?"); a board with a piece more where a lean was seen is none.
        Then the cells read, unless the board read is neither `expected()` nor (settled) a
        legal move. Then, in any game, the cells the players said the camera reads wrong
        (`misread`) and that it still reads exactly so, as the position has them: the fewest
        that make the board the position or a legal move (all of them, if need be), never a
        guess between two as few. Then up to MAX_HIDDEN_CHANGES cells where the camera may be
        wrong are taken otherwise, the fewest that make it one:
        - when the game's pieces are tall (`tall_pieces`), the cells a nearer piece may hide
          (`observation.hidden`), as they were on the last board seen - or, while the board
          shows the position, as empty (a tall piece that moved in front of a square leans
          over it); only where the camera may misread them (`may_misread`: a short piece
          behind a tall one reads empty, an empty cell under a lean reads occupied, a piece
          behind one reads as the piece in front - or as the lean learned there: then as the
          camera read it before it knew the lean);
        - in any game, a cell read as a piece whose empty look the camera has not learned
          (`observation.unlearned`: a piece stood there in every calibration photo, and a logo
          printed there reads as a piece once it has gone) as empty - while the board has not
          shown the position since the last move, only when that makes it the position;
        - in any game, a cell the reader was unsure of (`observation.doubtful()`: a white pawn
          off the centre of a white square, read empty at 0.6) as it was on the last board
          seen - or, read as a piece while the board shows the position, as empty - unless
          the instruction names it (a piece the players are asked to take off, read there
          again, unsure, is not taken as gone).
        Never a cell the referee has asked the players to change since the board last showed
        the position; and never a guess: when two different boards would do with as few
        changes, the one the camera's signs support best is taken (`_one_of`), and when two
        are as good the reading stands. Otherwise the reading stands, and the instruction
        names what differs."""
        board = observation.occupied()
        hidden = observation.hidden if self.tall_pieces else {}
        unlearned = {c for c in observation.unlearned if c in board}
        doubtful = set(observation.doubtful())
        as_first_read = observation.occupied_without_leans()
        if hidden and as_first_read != board and self._explains(as_first_read):
            return as_first_read
        said = self._said(board)
        if not (hidden or unlearned or said or doubtful) or self._explains(board):
            return board
        as_said = self._as_said(board, said) if said else None
        if as_said is not None or not (hidden or unlearned or doubtful):
            return board if as_said is None else as_said
        before = self.board  # None: nothing seen yet, so nothing to keep

        def before_of(cell: str) -> str | None:
            return None if before is None else before.get(cell)

        options: dict[str, list[str | None]] = {}
        for cell in sorted(set(hidden) | unlearned | doubtful):
            if not self.settled and cell in self.asked:
                continue  # a change the players were asked for is never taken as done unseen
            if self._asked_to_change(cell) and cell not in hidden and cell not in unlearned:
                continue  # a cell only doubtful: not while the players are asked to change it
            read = board.get(cell)
            values: list[str | None] = []
            was = before_of(cell)
            front = hidden.get(cell)
            if (
                before is not None
                and was != read
                and (
                    cell in doubtful
                    or (front is not None and may_misread(read, was, board.get(front)))
                )
            ):
                values.append(was)
            if read is not None and None not in values and (self.settled or cell in unlearned):
                values.append(None)
            first_read = observation.leaned.get(cell)  # read empty as a nearer piece's lean
            if first_read is not None and first_read not in values:
                values.append(first_read)
            if values:
                options[cell] = values
        found = [
            (
                candidate,
                # How well the camera's own signs support it: the unlearned cells it takes as
                # empty (their look changed), and whether every change follows something seen
                # to change (a hidden cell read as it was and taken as empty follows nothing
                # seen).
                sum(v is None and c in unlearned for c, v in choice),
                all(
                    v is not None or c in unlearned or board.get(c) != before_of(c)
                    for c, v in choice
                ),
            )
            for candidate, choice in self._fewest_changes(board, options, MAX_HIDDEN_CHANGES)
        ]
        return _one_of(found, board)

    def _said(self, board: dict[str, str]) -> dict[str, str | None]:
        """The cells of `misread` that `board` reads exactly as remembered, and what the
        players said is there (the position's content)."""
        expected = self.expected()
        return {
            c: m.truth
            for c, m in self.misread.items()
            if board.get(c) == m.read and m.truth == expected.get(c)
        }

    def _as_said(self, board: dict[str, str], said: dict[str, str | None]) -> dict[str, str] | None:
        """`board` with the fewest cells of `said` (cell -> content) taken as said that make
        it the position or a legal move; None when none do, or two different boards as few."""
        found = self._fewest_changes(board, {c: [v] for c, v in said.items()}, len(said))
        return found[0][0] if len(found) == 1 else None

    def _fewest_changes(
        self, board: dict[str, str], options: dict[str, list[str | None]], most: int
    ) -> list[tuple[dict[str, str], list[tuple[str, str | None]]]]:
        """The boards `board` becomes with the fewest cells of `options` (cell -> what it may
        hold instead; None: empty) changed, up to `most`, that are the position or a legal
        move (`_explains`), each different, with the changes made: (board, [(cell, value)]).
        After MAX_HIDDEN_TRIES boards judged (a garbled view), those found so far."""
        tries = 0
        for count in range(1, most + 1):
            found: list[tuple[dict[str, str], list[tuple[str, str | None]]]] = []
            for cells in combinations(sorted(options), count):
                for chosen in product(*(options[c] for c in cells)):
                    tries += 1
                    if tries > MAX_HIDDEN_TRIES:  # no time to look for a second: as found
                        return found
                    candidate = dict(board)
                    for cell, value in zip(cells, chosen, strict=True):
                        if value is None:
                            candidate.pop(cell, None)
                        else:
                            candidate[cell] = value
                    if all(candidate != f for f, _ in found) and self._explains(candidate):
                        found.append((candidate, list(zip(cells, chosen, strict=True))))
            if found:
                return found
        return []

    def board_to_learn(self, observation: Observation) -> dict[str, str] | None:
        """The board (cell -> class, in the camera's classes) the camera may learn from
        (vision.relearn.learn_from_board: the empty look of the cells it never saw empty, and
        now and then its whole model again): the position, when the board taken from
        `observation` - the last one observed - shows it; else None.

        `teach` hands it to the camera, which learns from the frame that observation was read
        from (`vision.tracker.Tracker.learn_from_board`)."""
        if (
            self.board_seen_at != (observation.frame, observation.timestamp)
            or self.board is None
            or not self.settled
            or self.board != self.expected()
        ):
            return None
        return dict(self.board)

    def teach(self, learn: Callable[[int, dict[str, str]], Any]) -> None:
        """Hand the board taken from the last observation, when it shows the position
        (`board_to_learn`), to the camera's `learn(frame, board)` - the app's
        `TableVision.learn_from_board`, `companion referee`'s tracker's: what a front end with
        a camera calls after each `observe` and each `handle` (BOARD_RIGHT makes the board
        the position). An observation is handed once: the camera would learn its leans twice."""
        last = self.last_observation
        board = None if last is None else self.board_to_learn(last)
        if last is not None and board is not None and self._taught is not last:
            self._taught = last
            learn(last.frame, board)

    def _explains(self, board: dict[str, str]) -> bool:
        """Whether `board` is the position, or (settled, the game going on) a move the game
        would accept from it."""
        if board == self.expected():
            return True
        if not self.settled or self.position.is_game_over() or self.undo_request is not None:
            return False
        return self._accepts(board)

    # -- what the board must show -----------------------------------------------------------------
    def expected(self) -> dict[str, str]:
        """The occupied cells the board must show when nothing is in progress."""
        return self.position.cells()

    def shown_position(self) -> P:
        """The position the screen's diagram shows: the referee's; Arimaa's referee shows a
        setup chosen for the side to set up (not yet on the board) as made."""
        return self.position

    def name_at(self, cell: str, cls: str, count: int = 1) -> str:
        """Words for `count` pieces of class `cls` like the one on `cell` ("the black stone",
        "the black stones"), in the table's language."""
        return phrases.piece_phrase(self.piece_word, cls, count)

    def change_phrase(self, cells: list[str], want: str) -> str | None:
        return None

    @classmethod
    def checked_setup(cls, side: str, text: str) -> str:
        """`text` as `side`'s typed setup turn, checked without a game (games with
        `typed_setup`: Arimaa).

        :raises UserError: for a game without typed setups, or a setup that side cannot play.
        """
        raise UserError("this game has no setup turns to type")

    def set_setup(self, side: str, text: str) -> None:
        """The setup turn `text` for `side`, typed instead of arranged (games with
        `typed_setup`: Arimaa).

        :raises UserError: for a game without typed setups.
        """
        raise UserError(f"{self.position.title} has no setup turns to type")

    # -- hooks for the games ------------------------------------------------------------------------
    def _accepts(self, board: dict[str, str]) -> bool:
        """Whether `_on_board(board)` would take a move (or a step) - without taking it."""
        return False

    def _on_board(self, board: dict[str, str]) -> list[Event]:
        """A settled referee saw `board`: accept a move or leave it to `_board_instruction`."""
        return []

    def _catch_up(self, board: dict[str, str]) -> list[Event]:
        """Not settled and the board differs. Just after a restart the board may show what the
        players did while the companion was down - a move it never got to accept, a turn in
        progress: take it as if it had been watching. After an undo, never (the board shows
        the move that was just taken back)."""
        return self._on_board(board) if self.resumed else []

    def _resumed_instruction(self, board: dict[str, str]) -> Instruction:
        """Just after a restart, before the board has matched: judge it as if the referee had
        been watching all along (games refine this where it cannot know)."""
        return self._board_instruction(board)

    def _on_input(self, player_input: PlayerInput) -> list[Event]:
        return []

    def _turn_instruction(self) -> Instruction:
        """What to do when the board shows the position: the player to move."""
        raise NotImplementedError

    def _board_instruction(self, board: dict[str, str]) -> Instruction:
        """The board differs from `expected()` while settled: name the problem."""
        return self._restore_instruction(board)

    def _undo_last(self) -> str:
        """Take back the last move in the position (and the records); return its text."""
        board = self.position.copy()
        move = board.pop()
        text = board.move_text(move)
        self._record("undo_move")
        self.position.pop()
        return text

    def _last_move_text(self) -> str | None:
        if not self.position.move_stack:
            return None
        board = self.position.copy()
        move = board.pop()
        return board.move_text(move)

    # -- shared pieces ------------------------------------------------------------------------------
    def _restore_instruction(
        self, board: dict[str, str], *, kind: InstructionKind = "restore"
    ) -> Instruction:
        expected = self.expected()
        sentences = self._fix_sentences(expected, board)
        diff = phrases.BoardDiff.between(expected, board)
        role = RESTORE if kind == "restore" else ERROR
        highlights = {c: role for c in diff.cells()}
        for cell in diff.added:
            highlights[cell] = REMOVE if kind == "restore" else ERROR
        return Instruction(
            text=phrases.join_sentences(sentences),
            kind=kind,
            player=None,
            highlights=highlights,
            expected=expected,
            detail=phrases.join_sentences(
                [self._restore_detail() if kind == "restore" else "", self._hidden_note(diff)]
            ),
        )

    def _hidden_note(self, diff: phrases.BoardDiff) -> str:
        """Sentences naming the cells to fix where the camera may be wrong, for the players to
        look for themselves: cells a nearer piece may hide, and pieces to take off cells the
        camera has never seen empty (`Observation.unlearned`: a print may look like a piece),
        and cells it read without certainty (`Observation.doubtful`)."""
        observation = self.last_observation
        if observation is None:
            return ""
        notes = []
        cells = [c for c in diff.cells() if c in observation.hidden]
        if cells:
            notes.append(
                _("The camera may not see {cells} past the piece in front: check by eye").format(
                    cells=phrases.cell_list(cells)
                )
            )
        cells = [c for c in diff.added if c in observation.unlearned]
        if cells:
            notes.append(
                _(
                    "The camera has never seen {cells} empty: a print there may look like a "
                    "piece to it - check by eye"
                ).format(cells=phrases.cell_list(cells))
            )
        unsure = set(observation.doubtful()) - set(observation.hidden) - set(observation.unlearned)
        cells = [c for c in diff.cells() if c in unsure]
        if cells:
            notes.append(
                _("The camera is not sure of {cells}: check by eye").format(
                    cells=phrases.cell_list(cells)
                )
            )
        return phrases.join_sentences(notes)

    def _restore_detail(self) -> str:
        if self.calibration_pieces:
            return _(
                "The camera has learned the colours from them: take them off and the game starts"
            )
        return _("Put the board back as it was")

    def _fix_name(self, cell: str, cls: str, count: int = 1) -> str:
        return self.name_at(cell, cls, count)

    def _fix_sentences(self, expected: dict[str, str], board: dict[str, str]) -> list[str]:
        """What to do to `board` to make it `expected`, in the game's words
        (`phrases.fix_sentences`; Sensei names a character moved on its own)."""
        return phrases.fix_sentences(
            expected, board, name_at=self._fix_name, change_phrase=self.change_phrase
        )

    def _accept(self, move: Any, **data: Any) -> Event:
        """Play an observed move: records first, then the position; the move event."""
        player = self.position.turn
        text = self.position.move_text(move)
        self.position.push(move)  # IllegalMoveError leaves the position unchanged
        return self._commit(player, text, **data)

    def _commit(self, player: str, text: str, **data: Any) -> Event:
        """The move `text` by `player` is now the last of `position.move_stack`: store it (and
        the outcome, if it ended the game) - undone in the position if the records fail."""
        try:
            self._record("add_move", self.position, text, image_jpeg=self._snapshot())
        except BaseException:
            self.position.pop()
            raise
        outcome = self.position.outcome()
        if outcome is not None:
            self._record("finish", outcome)
        if self.board is not None:  # (a roll typed before the camera's first look: as it was)
            self.settled = self.board == self.expected()
        self.photo_pending = None if self.settled else len(self.position.move_stack)
        return Event("move", {"move": text, "player": player, **data})

    def _now_settled(self) -> None:
        """The board shows the position after the last move (its stones turned, a capture
        taken off, a disturbance put back): settled, and that board's photo becomes the move's
        - the one taken when the move was accepted showed the board before what followed
        (a review of an exported Arinama game: photos before the turns, diagrams after)."""
        self.settled = True
        self.resumed = False
        pending, self.photo_pending = self.photo_pending, None
        if pending is not None and pending == len(self.position.move_stack):
            try:
                self._record("set_last_photo", self._snapshot())
            except RecordError:  # (a full disk: a better photo never costs a board read)
                pass

    def _snapshot(self) -> Any:
        """The board photo stored with an accepted move: that of the board it was seen on."""
        observation = self.last_observation
        return observation.photo if observation is not None else None

    def _record(self, method: str, *args: Any, **kwargs: Any) -> Any:
        if self.records is None:
            return None
        return getattr(self.records, method)(self.game_id, *args, **kwargs)

    def _game_over_instruction(self, outcome: Outcome) -> Instruction:
        if outcome.winner:
            text = _("{player} wins").format(player=player_name(outcome.winner))
        else:
            text = _("The game is a draw")
        return Instruction(
            text=text,
            kind="game-over",
            player=outcome.winner,
            detail=outcome_text(outcome),
        )

    def move_words(self, move: str) -> str:
        """A move's text (its notation) as the players read it in a sentence ("take back
        {move}"): the notation itself in most games."""
        return move

    def _undone_too(self) -> str:
        """What a take-back undoes besides the move it names, in the table's language ("":
        nothing; Arimaa: the steps made this turn)."""
        return ""

    def nothing_to_undo(self) -> str:
        """Why UNDO takes nothing back now, in the table's language - "" when it does (a move
        to take back, or a take-back asked for already). A front end says it where UNDO did
        nothing (a trial: Undo tapped at the start of a game changed nothing, without a
        word)."""
        if self.undo_request is not None or self._last_move_text() is not None:
            return ""
        return _("There is no move to take back yet")

    def _request_undo(self, by: str | None) -> list[Event]:
        text = self._last_move_text()
        if text is None:
            return []
        self.undo_request = UndoRequest(by=by, move=text)
        return [Event("undo", {"state": "requested", "by": by, "move": text})]

    def _agrees(self, player: str | None) -> bool:
        request = self.undo_request
        assert request is not None
        return player is None or request.by is None or player != request.by

    def _perform_undo(self) -> list[Event]:
        self.undo_request = None
        self.resumed = False  # the board now shows the move taken back: never catch up to it
        self.photo_pending = None  # (the move before keeps its photo)
        text = self._undo_last()
        self.settled = self.board is not None and self.board == self.expected()
        return [Event("undo", {"state": "done", "move": text})]

    def _asked_to_change(self, cell: str) -> bool:
        """Whether the instruction asks the players to change `cell` (turn it, take a piece
        off it, put one back or on it in a setup, undo what is wrong there) - not only points
        at it: a turn's legal targets (Arinama marks most empty cells next to the mover's
        stones) and where a piece came from are hints, not changes asked for."""
        role = self.instruction.highlights.get(cell)
        if role is None:
            return False
        return role not in (TARGET, FROM, ASKED) or self.instruction.kind == "setup"

    def _update(self, events: list[Event] | None = None) -> list[Event]:
        """Derive the instruction from the state; log the events, then the instruction (when
        it changed) to the records - before the caller shows anything."""
        events = list(events or [])
        if self.misread:  # what is read on a cell whose content the position changed is real
            expected = self.expected()
            self.misread = {c: m for c, m in self.misread.items() if m.truth == expected.get(c)}
        new = self._derive_instruction()
        if self.held is not None:
            waits = (
                _("DONE is taken as soon as the camera sees the board still")
                if self.held.kind == DONE
                else _("The dice are rolled as soon as the camera sees the board still")
            )
            # joined as it is: the detail may be notation whose case says whose piece it is
            # (Silver's setup, "ra8 rb8 ..."), which `join_sentences` would capitalise
            new = replace(new, detail=f"{new.detail}. {waits}" if new.detail else waits)
        changed = new != self._instruction
        if changed:
            if new.kind == "illegal":
                events.append(Event("illegal", {"text": new.text, "detail": new.detail}))
            elif new.kind == "restore" and self.settled:
                events.append(Event("disturbed", {"text": new.text}))
            elif new.kind == "game-over":
                outcome = self.position.outcome()
                events.append(Event("game-over", outcome.to_json() if outcome else {}))
            elif new.kind == "choose":
                events.append(Event("question", {"text": new.text, "choices": list(new.choices)}))
        for event in events:
            if event.kind not in QUIET_EVENTS:
                self._record("add_event", event)
        if changed:
            self._record("add_instruction", new)
            if self._instruction is None or new.kind != self._instruction.kind:
                self.hand_since_asked = False  # a new request: not yet acted on
            self._instruction = new
        self.asked = frozenset() if self.settled else self.asked | set(new.highlights)
        return events

    def _derive_instruction(self) -> Instruction:
        outcome = self.position.outcome()
        if outcome is not None and self.undo_request is None:
            over = self._game_over_instruction(outcome)
            if self.board is not None and not self.settled and self.board != self.expected():
                # The last move's own changes first (Arinama's last flips, a capture): the
                # board left on the table is the game's end, and the count the result is from.
                last = self._unsettled_instruction(self.board)
                then = _("Then: {result}").format(result=over.text)
                return replace(last, detail=phrases.join_sentences([last.detail, then]))
            return over
        if self.undo_request is not None:
            request = self.undo_request
            other = self._other(request.by)
            move = self.move_words(request.move)
            if other:
                text = _("{player}: press DONE to take back {move}").format(
                    player=player_name(other), move=move
                )
            else:
                text = _("Press DONE to take back {move}").format(move=move)
            return Instruction(
                text=text,
                kind="confirm",
                player=other,
                detail=phrases.join_sentences(
                    [
                        self._undone_too(),
                        _(
                            "Both players must agree; BACK again also agrees, ROLL or CANCEL "
                            "keeps the move"
                        ),
                    ]
                ),
            )
        if self.unclear:
            return Instruction(
                text=_("Clear the view: I cannot see {cells}").format(
                    cells=phrases.cell_list(self.unclear)
                ),
                kind="wait",
                highlights={c: UNCLEAR for c in self.unclear},
                detail=_("Move hands, shadows or glare away from the board"),
            )
        if self.board is None:
            if self.settled:
                return self._turn_instruction()
            return Instruction(
                text=_("Waiting for a clear view of the board"),
                kind="wait",
                expected=self.expected(),
            )
        if not self.settled and not self.resumed:
            return self._unsettled_instruction(self.board)
        if self.board != self.expected():
            if self.resumed:
                return self._resumed_instruction(self.board)
            return self._board_instruction(self.board)
        return self._turn_instruction()

    def _unsettled_instruction(self, board: dict[str, str]) -> Instruction:
        """After a move (or an undo, or a restart) the board must catch up with the position."""
        return self._restore_instruction(board)

    def _other(self, player: str | None) -> str | None:
        if player is None:
            return None
        a, b = self.position.players
        return b if player == a else a if player == b else None


def _one_of(found: list[tuple[dict[str, str], int, bool]], board: dict[str, str]) -> dict[str, str]:
    """The board of `found` - (board, unlearned cells it takes as empty, whether every change
    follows something the camera saw change) - to take, else `board` as read: the one best
    supported by the camera's signs, most marks first; never a guess between two as good.

    >>> _one_of([({"a1": "x"}, 0, False)], {})
    {'a1': 'x'}
    >>> _one_of([({"a1": "x"}, 0, True), ({"b1": "x"}, 1, True)], {})
    {'b1': 'x'}
    >>> _one_of([({"a1": "x"}, 0, False), ({"b1": "x"}, 0, True)], {})
    {'b1': 'x'}
    >>> _one_of([({"a1": "x"}, 1, True), ({"b1": "x"}, 1, True)], {})
    {}
    """
    if not found:
        return board
    best = max((marks, seen) for _, marks, seen in found)
    top = [f for f, marks, seen in found if (marks, seen) == best]
    return top[0] if len(top) == 1 else board


def may_misread(read: str | None, was: str | None, front: str | None) -> bool:
    """Whether a cell a nearer piece may hide, read as `read` (None: empty), may really hold
    `was` - the camera's possible errors there: a short piece behind a tall one reads empty;
    an empty cell under a lean reads as anything (the piece in front, or a light piece where
    a dark crown half covers a light square); a piece behind reads as the piece in front
    (`front`, as read), never as another class.

    >>> may_misread(None, "black", "white"), may_misread("white", None, "black")
    (True, True)
    >>> may_misread("black", "white", "black"), may_misread("black", "white", "silver")
    (True, False)
    """
    return read is None or was is None or read == front


def _ended_with_undo(record: Any) -> bool:
    """Whether the last thing the players did was to take a move back: then the board may
    still show that move, and it must be restored, not accepted again."""
    if not record.taken_back:
        return False
    last_undo = max(m.taken_back_at or "" for m in record.taken_back)
    last_move = record.moves[-1].played_at if record.moves else ""
    return last_undo > last_move


def observation_of(
    cell_names: list[str],
    occupied: dict[str, str],
    *,
    unknown: tuple[str, ...] = (),
    frame: int = 0,
    hidden: dict[str, str] | None = None,
    unlearned: tuple[str, ...] = (),
    confidence: dict[str, float] | None = None,
) -> Observation:
    """An Observation of a board holding `occupied` (cell -> class), with `unknown` cells the
    reader was unsure of, `hidden` cells a nearer piece may hide (cell -> that piece's
    cell), `unlearned` cells whose empty look the camera has not learned and the reader's
    `confidence` where it was less than sure (cell -> 0..1, the others 1): what a front end
    without a camera (or a test) feeds the referee."""
    cells = {c: occupied.get(c, "empty") for c in cell_names}
    for cell in unknown:
        cells[cell] = "unknown"
    return Observation(
        cells=cells,
        frame=frame,
        hidden=dict(hidden or {}),
        unlearned=tuple(unlearned),
        confidence={c: confidence.get(c, 1.0) for c in cells} if confidence else {},
    )
