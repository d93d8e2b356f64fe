"""The shared model of all four games (python-chess's `Board` is the pattern).

A `Position` is a game in progress: the board, whose turn it is, the options it is played with
and the stack of moves that led here. Every game module provides one subclass with

- `new(options)` the starting position; `Options`, a dataclass whose defaults are the
  **Decisions** of `shared/docs/rules.md`;
- `legal_moves()`, `push(move)`, `pop()`, `outcome()`;
- `parse_move(text)` / `move_text(move)` - the game's notation, in and out;
- `to_json()` / `from_json(data)` for a position, and a text `diagram()`;
- `cells()` - what each occupied cell holds *as a camera sees it* (a colour class such as
  ``"black"`` or ``"gold"``), which is what the referee compares observations with.

A move is the smallest decision a player makes and a record stores: one placement (Arinama),
one dice roll or one use of it (Aranea), one turn of 1-4 steps (Arimaa: the arimaa.com notation
is per turn), one turn of 1-3 actions (Sensei). Games whose turns are made of several physical
actions also expose those finer steps for the referee in their own module.

Whole games are JSON through `game_to_json` / `game_from_json` here, shared by all games:
``{"format": "tabletop-companion/game", "version": 1, "game": ..., "options": {...},
"start": <position JSON>, "moves": ["c3", ...], "outcome": {...} | null}``.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import json
import types
import typing
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Self, TypeVar

from companion.errors import (
    NoPrintedMat,
    OptionError,
    RecordError,
    UserError,
    excerpt,
    json_problem,
)
from companion.games import registry
from companion.observation import EMPTY

if TYPE_CHECKING:
    import random

    from companion.dice import Dice
    from companion.geometry import BoardGeometry
    from companion.referee.core import Referee

GAME_FORMAT = "tabletop-companion/game"
GAME_FORMAT_VERSION = 1


@dataclass(frozen=True)
class Outcome:
    """How a game ended: `winner` is a player name, or None for a draw."""

    winner: str | None
    reason: str  # a short stable word: "goal", "full-board", "three-in-line", "unfair-game", ...
    detail: str = ""  # one human sentence, e.g. "Gold's rabbit reached rank 8"

    def to_json(self) -> dict[str, Any]:
        return {"winner": self.winner, "reason": self.reason, "detail": self.detail}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Outcome:
        return cls(data.get("winner"), str(data.get("reason", "")), str(data.get("detail", "")))

    def __str__(self) -> str:
        who = f"{self.winner} wins" if self.winner else "draw"
        return f"{who} ({self.reason})" + (f": {self.detail}" if self.detail else "")


MoveT = TypeVar("MoveT")  # a game's move: Arinama a cell name, Aranea an AraneaMove, ...


class Position(ABC, Generic[MoveT]):
    """A game in progress, generic over its move type (``ArinamaPosition(Position[str])``).
    Subclasses set the class attributes and implement the methods."""

    name: ClassVar[str]  # registry key, e.g. "arinama"
    title: ClassVar[str]  # display name, e.g. "Arinama"
    players: ClassVar[tuple[str, str]]  # in seat order, e.g. ("black", "white")
    Options: ClassVar[type]  # a dataclass; every field has a default
    # The printed mats (vision layout names) the game is played on, each with the options it
    # fixes: the first whose options all match is the game's mat (see `mat_layout`).
    mats: ClassVar[dict[str, dict[str, Any]]]
    referee: ClassVar[str]  # "module:Class" of its referee, imported on first use
    # The reasons `outcome()` gives: the ends only the rules reach on the board. A record
    # stating one of them where the board shows none is wrong (`companion replay` says so); a
    # reason not among them (a resignation) is the players' and is taken as stated.
    rule_reasons: ClassVar[frozenset[str]] = frozenset()
    # what `companion run`'s demo plays, under the player's -o (`commands.run._demo_options`)
    demo_options: ClassVar[dict[str, Any]] = {}
    has_dice: ClassVar[bool] = False  # a chance step: `awaiting_roll` / `roll_move`
    # The letters `piece_labels` writes on pieces -> what each piece is (an English word, as
    # the referee's choices name them), strongest first; empty where all pieces are alike.
    piece_names: ClassVar[dict[str, str]] = {}
    # Whether a stone on the board may turn into the other colour (Arinama's flips): a cell
    # that changes colour was turned over; in the other games another piece came there.
    stones_turn_over: ClassVar[bool] = False
    # Whether a move's text names every cell it changes (Arimaa's steps and captures,
    # Sensei's actions): else a move list says what changed on the board besides (Aranea's
    # "place" says not where; Arinama's text not which stones turned).
    move_text_names_every_change: ClassVar[bool] = False
    pieces_are_stones: ClassVar[bool] = False  # the screens say "stones", not "pieces"
    # `move_label` is kept in the position itself (Arimaa's turn label, "2g"), so a position
    # read from JSON without its history still tells it; else it counts the history's moves
    turn_labels: ClassVar[bool] = False
    # Fields the position's JSON gained after records were first written with it: a stored
    # position without one still replays (`companion.records.replay`); any other field
    # missing is a changed record
    fields_added: ClassVar[frozenset[str]] = frozenset()

    options: Any
    move_stack: list[MoveT]

    # -- construction -------------------------------------------------------------------------
    @classmethod
    @abstractmethod
    def new(cls, options: Any = None) -> Self:
        """The starting position with these options: the game's `Options`, a plain dict of
        them (checked as `options_from` checks it), or None for the defaults (`options_of`).

        :raises OptionError: a dict with an unknown key or a value of the wrong type."""

    @classmethod
    def options_of(cls, options: Any = None) -> Any:
        """`options` as the game's `Options`: None gives the defaults, a plain dict is read by
        `options_from`, an `Options` is itself - one rule for every game's `new`.

        >>> from companion import games
        >>> Sensei = games.get("sensei")
        >>> Sensei.options_of({"movement": "shizukana"}) == Sensei.Options(movement="shizukana")
        True
        """
        if options is None:
            return cls.Options()
        if isinstance(options, dict):
            return cls.options_from(options)
        return options

    @classmethod
    def title_for(cls, options: Any = None) -> str:
        """The game's title with the version its `options` make, as the rules name it
        ("Sensei Shizukana"): what a screen or a page heads a game with. The title alone for
        a game of one version. `options` as `options_of` takes them.

        >>> from companion import games
        >>> games.get("sensei").title_for({"movement": "shizukana"})
        'Sensei Shizukana'
        >>> games.get("arimaa").title_for()
        'Arimaa'
        """
        return cls.title

    @property
    def full_title(self) -> str:
        """`title_for` this position's options."""
        return self.title_for(self.options)

    @classmethod
    def options_from(cls, data: dict[str, Any] | None) -> Any:
        """Options from a plain dict (JSON, CLI).

        :raises OptionError: (a ValueError) for an unknown key or a value of the wrong type.
        """
        return options_from_dict(cls.Options, data or {}, game=cls.name)

    @classmethod
    def options_for_next_game(cls, options: Any, previous: Outcome | None) -> Any:
        """The options of a game that follows one with outcome `previous` (None: no earlier
        game) at the same table. Most games start the same way every time; Aranea's previous
        loser starts."""
        return options

    @classmethod
    def mat_layout(cls, options: Any = None) -> str:
        """The printed mat (vision layout name) for the game played with `options` (None: the
        defaults).

        :raises NoPrintedMat: (a UserError) naming the printed mats, when these options have
            none.

            >>> from companion import games
            >>> Sensei = games.get("sensei")
            >>> Sensei.mat_layout(Sensei.options_from({"side": "storm"}))
            'sensei-storm'
        """
        values = options_to_dict(cls.Options() if options is None else options)
        for layout, fixed in cls.mats.items():
            if all(values.get(key) == value for key, value in fixed.items()):
                return layout
        raise NoPrintedMat(
            f"there is no printed mat for {cls.title} played with these options (the mats: "
            f"{', '.join(cls.mats)}): use `companion referee --layout grid:RxC --corners ...`"
        )

    @classmethod
    def options_for_mat(cls, layout: str) -> Any | None:
        """The options a printed mat fixes (the rest default), or None when `layout` is not
        one of this game's mats."""
        fixed = cls.mats.get(layout.strip().lower())
        return None if fixed is None else cls.options_from(fixed)

    @classmethod
    def layout_options(cls, layout: str) -> dict[str, str]:
        """Options a vision layout implies when none are given (Arinama: the board size of
        ``arinama5`` or ``grid:6x6``); empty for most games."""
        return {}

    @classmethod
    def own_layout(cls, options: Any = None) -> str | None:
        """The vision layout of a board of the players' own for these options (no markers:
        found from its lines or its corners tapped), or None when the game is played only on
        its printed mats (Arimaa's own equipment is a chess set: `uses_chess_set`).

            >>> from companion import games
            >>> games.get("sensei").own_layout(None), games.get("aranea").own_layout(None)
            ('grid:7x7', None)
        """
        return None

    @classmethod
    def table_layout(cls, options: Any = None, *, own: bool = False) -> str:
        """The layout the game is played on at the table: its printed mat, or its own-board
        layout when the players chose one (`own`) or when no printed mat fits the options.

        :raises NoPrintedMat: no printed mat fits and the game has no board of one's own.
        """
        yours = cls.own_layout(options)
        if own and yours is not None:
            return yours
        try:
            return cls.mat_layout(options)
        except NoPrintedMat:
            if yours is None:
                raise
            return yours

    @classmethod
    def own_board_choice(cls, options: Any = None) -> bool:
        """Whether the players may choose between a printed mat and a board of their own for
        these options (a size with no printed mat is always played on one's own)."""
        if cls.own_layout(options) is None:
            return False
        try:
            cls.mat_layout(options)
        except NoPrintedMat:
            return False
        return True

    @classmethod
    def uses_chess_set(cls, options: Any) -> bool:
        """True when the game is played with these options on a chess set of one's own (Arimaa's
        ``equipment="chess"``): the camera reads white and black pieces on a chessboard, and the
        chess set's start position stays on the board as both sides' setup."""
        return False

    @classmethod
    def board_geometry(cls, options: Any = None) -> BoardGeometry:
        """The physical board for these options (`companion.geometry`); options may also be a
        plain dict or None for the defaults."""
        raise NotImplementedError(f"{cls.name} has no board geometry")

    @classmethod
    def referee_class(cls) -> type[Referee[Any]]:
        """The referee that watches this game at the table (`companion.referee`)."""
        module_name, class_name = cls.referee.split(":")
        referee: type[Referee[Any]] = getattr(importlib.import_module(module_name), class_name)
        return referee

    def copy(self) -> Self:
        return copy.deepcopy(self)

    def root(self) -> Self:
        """A copy of the position before the first move of `move_stack`."""
        board = self.copy()
        while board.move_stack:
            board.pop()
        return board

    # -- the rules ----------------------------------------------------------------------------
    @property
    @abstractmethod
    def turn(self) -> str:
        """The player who makes the next move (one of `players`)."""

    @abstractmethod
    def legal_moves(self) -> list[MoveT]:
        """Every legal move now; empty when the game is over (or the player must pass,
        for games where passing is automatic - see the game module)."""

    @abstractmethod
    def push(self, move: MoveT) -> None:
        """Play a move.

        :raises IllegalMoveError: (a ValueError) with the reason, when it is not legal.
        """

    @abstractmethod
    def pop(self) -> MoveT:
        """Take back the last move and return it."""

    @abstractmethod
    def outcome(self) -> Outcome | None:
        """The result when the game is over, else None."""

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def count_legal_moves(self) -> int:
        """How many legal moves (Arimaa: distinct turns); games may count faster than listing."""
        return len(self.legal_moves())

    def random_move(self, rng: random.Random) -> MoveT:
        """A uniformly chosen legal move (`rng` is a `random.Random`); games whose move lists
        are huge (Arimaa) override this with something cheaper. Not for chance moves."""
        return rng.choice(self.legal_moves())

    # Dice: games with a chance step (Aranea) override these two.
    @property
    def awaiting_roll(self) -> bool:
        """True when the next move must be a dice roll (see `roll_move`)."""
        return False

    def roll_move(self, dice: Dice) -> MoveT:
        """The move that records a roll of `dice` (a `companion.dice.Dice`)."""
        raise NotImplementedError(f"{self.name} has no dice")

    @property
    def in_opening_roll(self) -> bool:
        """True while an opening roll decides who starts (Aranea)."""
        return False

    def roll_value(self, move: MoveT) -> int | None:
        """The game value of a dice move's roll (Aranea: 3 and 4 count 7), else None."""
        return None

    @property
    def in_setup(self) -> bool:
        """True while a side still has to place its pieces in a setup turn (Arimaa)."""
        return False

    def progress(self, player: str) -> float | None:
        """How far `player` has come towards winning, for the demo's simulated players to
        prefer moves that get on where random moves would wander for a long time (Aranea: how
        far the stones have climbed); None for games whose random games end soon enough."""
        return None

    # -- turns of several physical actions ------------------------------------------------------
    @property
    def mid_turn(self) -> bool:
        """True while a turn made of several actions is part made (Arimaa's steps, Sensei's
        actions): the player ends it with DONE rather than with another move."""
        return False

    def placement(self, move: MoveT) -> dict[str, str] | None:
        """The cells a player's hand sets first for `move` when the rest of it follows on the
        referee's word (Arinama: the stone, then the flips when told), as cell -> class; None
        when the whole move is made at once."""
        return None

    # -- notation -----------------------------------------------------------------------------
    @abstractmethod
    def parse_move(self, text: str) -> MoveT:
        """A move from its text in this position.

        :raises NotationError: (a ValueError) when the text is no move of this game.
        """

    @property
    def move_label(self) -> str:
        """The number of the move to play, as the game counts its moves ("7"; Arimaa: its
        turn label, "2g"), for a screen's header.

            >>> from companion import games
            >>> games.get("arinama").new().move_label, games.get("arimaa").new().move_label
            ('1', '1g')
        """
        return str(len(self.move_stack) + 1)

    def labels_played(self) -> list[str]:
        """The label of each move of `move_stack`: the `move_label` of the position it was
        played in (Aranea's roll and its use: "5", "5"). A game that overrides `move_label`
        overrides this too (tests/test_game_contract.py checks the two agree).

            >>> from companion import games
            >>> position = games.get("arinama").new()
            >>> position.push(position.parse_move("c3"))
            >>> position.labels_played()
            ['1']
        """
        return [str(number) for number in range(1, len(self.move_stack) + 1)]

    @property
    def moves_before(self) -> int:
        """How many moves, as the game counts them, were played before this position: from
        its history here, from the position itself in a game that keeps its labels there
        (`turn_labels`; Aranea's turn, Arimaa's turn label). What a list counts a stored
        game's moves by without replaying it (`companion.records.Records.moves_of`).

            >>> from companion import games
            >>> position = games.get("arinama").new()
            >>> position.push(position.parse_move("c3"))
            >>> position.moves_before
            1
        """
        return len(self.move_stack)

    @property
    def moves_played(self) -> int:
        """How many moves led here (`move_stack`) as the game counts its moves (`MoveCount`
        of `labels_played`): "after 63 moves" where the play screen's header and the review
        said "move 63" - Aranea's 128 entries of rolls and their uses; a turn in progress
        (Arimaa's steps, Sensei's actions) is not among them."""
        return MoveCount(self.labels_played()).moves

    @abstractmethod
    def move_text(self, move: MoveT) -> str:
        """The standard text of a move (parse_move(move_text(m)) == m)."""

    @abstractmethod
    def diagram(self) -> str:
        """A plain-text picture of the board, first player's side at the bottom."""

    # -- what the camera sees -------------------------------------------------------------------
    @abstractmethod
    def cell_names(self) -> list[str]:
        """Every cell of the board, in the names of rules.md."""

    @abstractmethod
    def cells(self) -> dict[str, str]:
        """Occupied cells -> the class a camera reports there (e.g. "black", "gold")."""

    @classmethod
    @abstractmethod
    def cell_classes(cls) -> list[str]:
        """The non-empty classes `cells()` can report, in a stable order."""

    # -- JSON -------------------------------------------------------------------------------------
    @abstractmethod
    def to_json(self) -> dict[str, Any]:
        """This position (not its history) as plain JSON data, with "game" and "options"."""

    @classmethod
    @abstractmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """A position from `to_json` data.

        :raises RecordError: (a ValueError) naming the bad field, when malformed.
        """

    @classmethod
    def parse_position(cls, text: str) -> Self:
        """A position from text: `to_json` JSON here; games add their own forms (Arimaa: the
        AEI string and the arimaa.com board diagram). RecordError when unreadable."""
        try:
            data = json.loads(text)
        except ValueError as exc:  # JSONDecodeError, or a number too long to read
            raise RecordError(f"not a valid {cls.title} position: {json_problem(exc)}") from None
        return cls.from_json(data)

    def piece_labels(self) -> dict[str, str]:
        """Letters to write on pieces whose colour class does not say what they are (Arimaa's
        piece types: {"d2": "E", ...}); empty for games whose pieces are all alike."""
        return {}

    def letter_names(self) -> dict[str, str]:
        """What each letter of `piece_labels` stands for, as the players know the pieces they
        hold (`piece_names`; Arimaa on a chess set: the chess pieces')."""
        return dict(self.piece_names)

    def calibration_cells(self, classes: Sequence[str]) -> dict[str, str]:
        """What to put on the board for the camera to learn the colours `classes`: this
        position, plus two pieces of every colour it lacks (Arimaa and Aranea start with an empty
        board) on free cells far apart. The referee then asks for the extra pieces to be taken
        off (a plain instruction - `Referee(clear_first=True)` - not an illegal move)."""
        cells = dict(self.cells())
        free = [c for c in self.cell_names() if c not in cells]
        # A board of one's own (grid:RxC) names no classes of its own: the game's are wanted.
        wanted = dict.fromkeys([*classes, *self.cell_classes()])
        missing = [c for c in wanted if c != EMPTY and c not in cells.values()]
        picks: list[str] = []
        if missing and free:
            stride = max(1, len(free) // (2 * len(missing) + 1))
            picks = free[stride // 2 :: stride]
        for i, cls in enumerate(missing):
            for cell in picks[2 * i : 2 * i + 2]:
                cells[cell] = cls
        return cells

    def calibration_pieces_stay(self, classes: Sequence[str]) -> bool:
        """Whether the pieces the camera learns the colours `classes` from (`calibration_cells`)
        are still on the board when play starts, to be taken off first: more than this position
        has - not on a chess set, whose start position is both sides' setup.

            >>> from companion import games
            >>> games.get("arinama").new().calibration_pieces_stay(("empty", "black", "white"))
            True
        """
        if self.uses_chess_set(self.options):
            return False
        return self.calibration_cells(classes) != self.cells()

    def __str__(self) -> str:
        return self.diagram()


# -- options ----------------------------------------------------------------------------------------
def options_from_dict(options_cls: type, data: dict[str, Any], game: str = "") -> Any:
    """Build an options dataclass from a dict, checking names and value types."""
    if not isinstance(data, dict):
        raise OptionError(f"{game} options must be a JSON object, not {type(data).__name__}")
    fields = {f.name: f for f in dataclasses.fields(options_cls)}
    hints = typing.get_type_hints(options_cls)
    values: dict[str, Any] = {}
    for key, value in data.items():
        name = key.replace("-", "_")
        if name not in fields:
            known = ", ".join(sorted(fields)) or "none"
            raise OptionError(f"unknown {game} option {key!r} (known: {known})")
        values[name] = _coerce(value, hints[name], f"{game} option {key!r}")
    try:
        return options_cls(**values)
    except OptionError:  # a game's own check, already in words
        raise
    except (TypeError, ValueError) as exc:  # the dataclass's own __post_init__ checks
        raise OptionError(f"bad {game} options: {exc}") from None


def options_to_dict(options: Any) -> dict[str, Any]:
    return dataclasses.asdict(options)


TRUE_WORDS = ("true", "yes", "on", "1")  # an option given as text (-o clash=yes)
FALSE_WORDS = ("false", "no", "off", "0")


def _coerce(value: Any, hint: Any, what: str) -> Any:
    """Accept JSON values and CLI strings ("true", "8") for bool/int/float/str/Literal fields."""
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        choices = typing.get_args(hint)
        if value in choices:
            return value
        if isinstance(value, str):  # "Shizukana", as the docs write it (a trial: refused)
            wanted = value.strip().lower()
            same = [c for c in choices if isinstance(c, str) and c.lower() == wanted]
            if same:
                return same[0]
        raise OptionError(f"{what} must be one of {', '.join(map(str, choices))}, not {value!r}")
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None or value == "none":
            return None
        return _coerce(value, args[0], what)
    if origin in (tuple, list):
        if isinstance(value, str):
            value = [v for v in value.replace(",", " ").split() if v]
        if not isinstance(value, (list, tuple)):
            raise OptionError(f"{what} must be a list, not {value!r}")
        return tuple(value) if origin is tuple else list(value)
    if hint is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in TRUE_WORDS + FALSE_WORDS:
            return value.lower() in TRUE_WORDS
        raise OptionError(f"{what} must be true or false, not {value!r}")
    if isinstance(value, str) and hint in (int, float) and not value.strip().isascii():
        # int("٥") is 5: a digit of another script is a typo here, never meant
        raise OptionError(f"{what} must be a number written with 0-9, not {value!r}")
    if hint is int:
        if isinstance(value, bool):
            raise OptionError(f"{what} must be a whole number, not {value!r}")
        try:
            return int(str(value), 10) if isinstance(value, str) else _exact_int(value)
        except (TypeError, ValueError):
            raise OptionError(f"{what} must be a whole number, not {value!r}") from None
    if hint is float:
        try:
            return float(value)
        except (TypeError, ValueError):
            raise OptionError(f"{what} must be a number, not {value!r}") from None
    if hint is str:
        if isinstance(value, str):
            return value
        raise OptionError(f"{what} must be text, not {value!r}")
    return value


def _exact_int(value: Any) -> int:
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return int(value)
    raise ValueError(value)


class MoveCount:
    """A game's moves as the game counts them, from the label of each entry of its record in
    turn (`Position.move_label` of the position it was played in: `labels_played`, or
    `companion.records.move_labels`): the entries of one move share its label - Aranea's roll
    and its use, its opening rolls with the first turn - so the moves are the runs of equal
    labels. The one count behind every "N moves" a player reads (the game-over screen, the
    review's list, `companion play`, the demo, `companion games`, the exported page), so that
    each agrees with the play screen's "move 63" and the review's.

        >>> MoveCount(["1", "1", "1", "1", "2", "2"]).moves  # Aranea: 3 opening rolls, a place...
        2
        >>> MoveCount(["1g", "1s", "2g"]).moves  # Arimaa: a turn is one entry
        3
        >>> count = MoveCount(["7", "7"])
        >>> count.starts_a_move("7"), count.starts_a_move("8")
        (False, True)
    """

    def __init__(self, labels: Iterable[str] = ()) -> None:
        self.moves = 0
        self.last: str | None = None  # the label of the last entry counted
        for label in labels:
            self.add(label)

    def starts_a_move(self, label: str) -> bool:
        """Would an entry labelled `label` begin another move (else it goes on with the last:
        the move counted so far is not over)?"""
        return label != self.last

    def add(self, label: str) -> None:
        """The next entry, played in a position labelled `label`."""
        if self.starts_a_move(label):
            self.moves += 1
            self.last = label


# -- whole games as JSON --------------------------------------------------------------------------
def game_to_json(position: Position[Any]) -> dict[str, Any]:
    """The whole game that led to `position`: start position, every move, the outcome."""
    outcome = position.outcome()
    return {
        "format": GAME_FORMAT,
        "version": GAME_FORMAT_VERSION,
        "game": position.name,
        "options": options_to_dict(position.options),
        "start": position.root().to_json(),
        "moves": _move_texts(position),
        "outcome": outcome.to_json() if outcome else None,
    }


def _move_texts(position: Position[Any]) -> list[str]:
    board = position.root()
    texts = []
    for move in position.move_stack:
        texts.append(board.move_text(move))
        board.push(move)
    return texts


PositionT = TypeVar("PositionT", bound="Position[Any]")


@dataclass
class Replay(Generic[PositionT]):
    """A recorded game replayed move by move, every move checked: the position reached and,
    when a move could not be read or was illegal, the first such move (the position is then the
    one before it)."""

    position: PositionT
    error: RecordError | None = None  # the first bad move, named by number, text and reason
    error_index: int | None = None  # its index in the record's moves (= moves played)
    notes: list[str] = dataclasses.field(default_factory=list)  # lines that are no move
    # What the record itself states as the result: Arimaa move lists (winner, termination
    # code), our records the "outcome" field as stored.
    recorded_result: tuple[str, str | None] | None = None
    recorded_outcome: dict[str, Any] | None = None


def game_from_json(data: Any) -> Position[Any]:
    """Replay a whole game from `game_to_json` data and return its final position.

    :raises RecordError: naming the move number and text of an unreadable or illegal move, or
        what is wrong with the record itself.
    """
    replay = replay_json(data)
    if replay.error is not None:
        raise replay.error
    return replay.position


def replay_json(data: Any) -> Replay[Position[Any]]:
    """Replay a whole game from `game_to_json` data, stopping at the first unreadable or
    illegal move (`Replay.error`).

        >>> from companion import games
        >>> pos = games.get("arinama").new()
        >>> pos.push(pos.parse_move("c3"))
        >>> record = game_to_json(pos)
        >>> record["moves"].append("c3")  # the same cell again
        >>> replay = replay_json(record)
        >>> len(replay.position.move_stack), replay.error_index
        (1, 1)

    :raises RecordError: when the record itself (format, game, options, start) is malformed.
    """
    if not isinstance(data, dict):
        raise RecordError("a game record must be a JSON object")
    if data.get("format", GAME_FORMAT) != GAME_FORMAT:
        raise RecordError(f"not a game record (format {data.get('format')!r})")
    version = data.get("version", GAME_FORMAT_VERSION)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise RecordError(
            f'"version" must be a whole number such as 1, not {excerpt(repr(version))}'
        )
    if version > GAME_FORMAT_VERSION:
        raise RecordError(
            f"this game record is version {version!r}, newer than this companion reads "
            f"({GAME_FORMAT_VERSION}): update the companion to read it"
        )
    if "game" not in data:
        raise RecordError('a game record needs a "game" field (e.g. "arinama")')
    cls = registry.get(str(data["game"]))
    if "moves" not in data:
        raise RecordError(
            'a game record needs a "moves" list (the move texts in order; [] before the first)'
        )
    if "start" in data and data["start"] is None:
        raise RecordError(
            '"start" is null: give the start position, or leave "start" out for the usual one'
        )
    stated = _stated_outcome(data.get("outcome"), cls.players)
    options = cls.options_from(data.get("options"))
    if data.get("start") is not None:
        start = data["start"]
        if isinstance(start, dict) and "options" not in start and data.get("options") is not None:
            start = {**start, "options": data["options"]}  # a start written without its options
        position = cls.from_json(start)
        if data.get("options") is not None and position.options != options:
            mine, theirs = options_to_dict(options), options_to_dict(position.options)
            differ = ", ".join(
                f"{k} {mine[k]!r} vs {theirs[k]!r}" for k in mine if mine[k] != theirs[k]
            )
            raise RecordError(f'"options" and the "start" position disagree ({differ}): fix one')
    else:
        position = cls.new(options)
    moves = data["moves"]
    if not isinstance(moves, list):
        raise RecordError('"moves" must be a list of move texts')
    for number, text in enumerate(moves, start=1):
        try:
            if not isinstance(text, str):
                raise RecordError("not text: write each move as a string in the game's notation")
            position.push(position.parse_move(text))
        except UserError as exc:
            error = RecordError(f"move {number} ({excerpt(repr(text))}): {exc}")
            return Replay(position, error, number - 1)
    return Replay(position, recorded_outcome=stated)


def _stated_outcome(stated: Any, players: tuple[str, str]) -> dict[str, Any] | None:
    """A record's "outcome": null, or an object as `Outcome.to_json` writes it - a winner (null
    for a draw) and a reason.

    :raises RecordError: for anything else (a bare "white" was ignored without a word; an empty
        object was a draw for no reason)."""
    example = f'{{"winner": "{players[0]}", "reason": "...", "detail": "..."}}'
    if stated is None:
        return None
    if not isinstance(stated, dict):
        raise RecordError(
            f'"outcome" must be null or an object such as {example}, not '
            f"{excerpt(repr(stated))}: fix it, or write null to let the rules decide"
        )
    winner = stated.get("winner")
    if winner is not None and winner not in players:
        raise RecordError(
            f'the "outcome" winner must be {players[0]!r}, {players[1]!r} or null (a draw), '
            f"not {excerpt(repr(winner))}: fix it, or write null as the outcome"
        )
    if "winner" not in stated or "reason" not in stated:
        missing = " and ".join(k for k in ("winner", "reason") if k not in stated)
        raise RecordError(
            f'the "outcome" has no {missing}: write it as {example} (winner null for a draw), '
            "or write null as the outcome to let the rules decide"
        )
    if not isinstance(stated["reason"], str) or not stated["reason"].strip():
        raise RecordError(
            f'the "outcome" reason must be text such as "resignation", not '
            f"{excerpt(repr(stated['reason']))}: fix it, or write null as the outcome"
        )
    return stated
