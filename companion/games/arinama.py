"""Arinama: place two-sided stones next to your own; three of yours around an enemy stone turn it.

Rules: `shared/docs/rules.md` section 1 (seed 000). In short:

- An R x C grid (3..12 each; the usual boards are 5x5 and 8x8). Black moves first by default.
- A move places one stone of your colour on an empty cell. Your first stone may go anywhere;
  every later one must touch one of your own stones by edge or corner.
- Right after the placement at p: every opponent stone touching p that now touches EXACTLY three
  of your stones turns to your colour, and p itself turns to the opponent's colour when it
  touches EXACTLY three opponent stones. Flips never trigger further flips.
- A player who cannot place at the start of their turn loses; a full board is won by the colour
  with more stones (equal: a draw).

Cells are named like chess squares: files a.. from the left, ranks 1.. from the bottom ("c3").
A move is the cell text itself. `placement_effects(cell)` tells, without playing, which stones a
placement flips - the referee uses it to tell the players which stones to turn over.

    >>> pos = ArinamaPosition.new(ArinamaOptions(rows=5, cols=5))
    >>> pos.count_legal_moves()  # the first stone may go anywhere
    25
    >>> move = pos.parse_move("c3")
    >>> pos.push(move)
    >>> pos.move_text(move), pos.turn, pos.cells()
    ('c3', 'white', {'c3': 'black'})
    >>> ArinamaPosition.from_json(pos.to_json()).cells() == pos.cells()
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal

from companion.errors import (
    IllegalMoveError,
    NoPrintedMat,
    NotationError,
    OptionError,
    RecordError,
)
from companion.games.base import Outcome, Position, options_to_dict
from companion.geometry import BoardGeometry, arinama_geometry

BLACK: Final = "black"
WHITE: Final = "white"
PLAYERS = (BLACK, WHITE)
Player = Literal["black", "white"]
MIN_SIZE = 3
MAX_SIZE = 12
FILES = "abcdefghijkl"  # MAX_SIZE files
PRESETS: dict[str, tuple[int, int]] = {"5x5": (5, 5), "8x8": (8, 8)}  # (rows, cols)
FLIP_COUNT = 3  # exactly this many neighbours turn a stone; more or fewer do nothing
_SYMBOL = {BLACK: "X", WHITE: "O", None: "."}
_PICTURE = {"x": BLACK, "o": WHITE, ".": None}  # parse_position's pictures, any case


def other(player: str) -> Player:
    return WHITE if player == BLACK else BLACK


@dataclass(frozen=True)
class ArinamaOptions:
    """How a table plays Arinama. The defaults are the Decisions of rules.md section 1.

    - rows, cols: board size, 3..12 each (presets in `PRESETS`: 5x5 and 8x8).
    - first: who places the first stone.
    - flip_check: "simultaneous" - captures and the self-flip are judged together on the board
      right after the placement; "captures-first" - captured stones turn first, then the placed
      stone's self-flip is judged on that board (so a capture can save the placed stone).
    - flip_scope: "touching" - only opponent stones touching the placed stone can flip;
      "board" - any opponent stone that touches exactly three of the mover's stones flips.
    - no_stones_loses: True (the literal reading) - a player whose stones have all been turned
      has nowhere to place and loses; False - such a player may place anywhere again, as at the
      first placement.
    - full_board_tie: what equal counts on a full board mean: "draw", or "second-player-wins"
      (a komi-like compensation for moving second).
    """

    rows: int = 8
    cols: int = 8
    first: Literal["black", "white"] = BLACK
    flip_check: Literal["simultaneous", "captures-first"] = "simultaneous"
    flip_scope: Literal["touching", "board"] = "touching"
    no_stones_loses: bool = True
    full_board_tie: Literal["draw", "second-player-wins"] = "draw"

    def __post_init__(self) -> None:
        for name in ("rows", "cols"):
            value = getattr(self, name)
            if not isinstance(value, int) or not MIN_SIZE <= value <= MAX_SIZE:
                raise ValueError(f"{name} must be {MIN_SIZE}..{MAX_SIZE}, not {value!r}")
        if self.first not in PLAYERS:
            raise ValueError(f"first must be black or white, not {self.first!r}")

    @classmethod
    def preset(cls, name: str, **changes: Any) -> ArinamaOptions:
        """Options for a named board size ("5x5" or "8x8")."""
        if name not in PRESETS:
            raise ValueError(f"unknown Arinama preset {name!r} (known: {', '.join(PRESETS)})")
        rows, cols = PRESETS[name]
        return cls(rows=rows, cols=cols, **changes)


@dataclass(frozen=True)
class PlacementEffects:
    """What placing a stone at `cell` does: the opponent stones it turns, and whether the
    placed stone itself turns to the opponent's colour. `mover` is the player placing."""

    cell: str
    mover: str
    flipped: tuple[str, ...]
    self_flip: bool

    def after(self) -> dict[str, str]:
        """Every cell the placement changes -> its colour once all flips are done."""
        changes = {cell: self.mover for cell in self.flipped}
        changes[self.cell] = other(self.mover) if self.self_flip else self.mover
        return changes


@dataclass(frozen=True)
class _Undo:
    """What `pop` needs to take a placement back."""

    index: int
    flipped: tuple[int, ...]
    self_flip: bool
    turn: Player


class ArinamaPosition(Position[str]):
    name: ClassVar[str] = "arinama"
    title: ClassVar[str] = "Arinama"
    players: ClassVar[tuple[str, str]] = PLAYERS
    Options: ClassVar[type] = ArinamaOptions
    stones_turn_over: ClassVar[bool] = True
    mats: ClassVar[dict[str, dict[str, Any]]] = {
        "arinama8": {"rows": 8, "cols": 8},
        "arinama5": {"rows": 5, "cols": 5},
    }
    referee: ClassVar[str] = "companion.referee.arinama:ArinamaReferee"
    rule_reasons: ClassVar[frozenset[str]] = frozenset({"full-board", "no-placement", "no-stones"})
    pieces_are_stones: ClassVar[bool] = True
    demo_options: ClassVar[dict[str, Any]] = {"rows": 5, "cols": 5}

    @classmethod
    def own_layout(cls, options: Any = None) -> str | None:
        """Any grid of this size: ``grid:RxC`` (the seed plays on marble boards and grids
        scratched into the ground).

        >>> ArinamaPosition.own_layout(ArinamaOptions(rows=6, cols=6))
        'grid:6x6'
        """
        options = ArinamaOptions() if options is None else options
        return f"grid:{options.rows}x{options.cols}"

    @classmethod
    def mat_layout(cls, options: Any = None) -> str:
        """The printed mat for this board size.

        :raises NoPrintedMat: for a size that has none, naming the sizes that have one.

        >>> ArinamaPosition.mat_layout(ArinamaOptions(rows=5, cols=5))
        'arinama5'
        """
        options = ArinamaOptions() if options is None else options
        for layout, size in cls.mats.items():
            if (options.rows, options.cols) == (size["rows"], size["cols"]):
                return layout
        sizes = " or ".join(f"{s['rows']} x {s['cols']}" for s in reversed(cls.mats.values()))
        raise NoPrintedMat(
            f"there is no printed mat for a {options.rows} x {options.cols} Arinama board: "
            f"play {sizes}, or use `companion referee --layout grid:RxC --corners ...`"
        )

    @classmethod
    def layout_options(cls, layout: str) -> dict[str, str]:
        """The board size a layout implies: ``arinama5`` -> 5 x 5, ``grid:6x7`` -> 6 x 7.

        >>> ArinamaPosition.layout_options("grid:6x7")
        {'rows': '6', 'cols': '7'}
        """
        match = re.fullmatch(r"arinama(\d+)|grid:(\d+)x(\d+)", layout.strip().lower())
        if not match:
            return {}
        if match.group(1):
            return {"rows": match.group(1), "cols": match.group(1)}
        return {"rows": match.group(2), "cols": match.group(3)}

    @classmethod
    def board_geometry(cls, options: Any = None) -> BoardGeometry:
        return arinama_geometry(options)

    def __init__(self, options: ArinamaOptions) -> None:
        self.options = options
        self.rows = options.rows
        self.cols = options.cols
        self.board: list[str | None] = [None] * (self.rows * self.cols)
        self.placements = {BLACK: 0, WHITE: 0}  # stones each player has placed so far
        self._turn = options.first
        self.move_stack: list[str] = []
        self._undo: list[_Undo] = []
        self._neighbours = _neighbour_table(self.rows, self.cols)

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def new(cls, options: Any = None) -> ArinamaPosition:
        return cls(cls.options_of(options))

    # -- cells ----------------------------------------------------------------------------------
    def cell_name(self, index: int) -> str:
        rank, file = divmod(index, self.cols)
        return f"{FILES[file]}{rank + 1}"

    def cell_index(self, cell: str) -> int:
        """The board index of a cell name; NotationError when it is not on this board."""
        text = cell.strip().lower()
        if len(text) >= 2 and text[0] in FILES and text[1:].isdigit():
            file = FILES.index(text[0])
            rank = int(text[1:])
            if file < self.cols and 1 <= rank <= self.rows:
                return (rank - 1) * self.cols + file
        last = f"{FILES[self.cols - 1]}{self.rows}"
        raise NotationError(
            f"{cell.strip()!r} is not a cell of this {self.rows}x{self.cols} board "
            f"(cells run from a1 to {last})"
        )

    def cell_names(self) -> list[str]:
        return [self.cell_name(i) for i in range(len(self.board))]

    def cells(self) -> dict[str, str]:
        return {self.cell_name(i): c for i, c in enumerate(self.board) if c is not None}

    @classmethod
    def cell_classes(cls) -> list[str]:
        return list(PLAYERS)

    def neighbours(self, cell: str) -> list[str]:
        """The cells touching `cell` by edge or corner."""
        return [self.cell_name(n) for n in self._neighbours[self.cell_index(cell)]]

    def stone_counts(self) -> dict[str, int]:
        return {p: self.board.count(p) for p in PLAYERS}

    # -- the rules ----------------------------------------------------------------------------
    @property
    def turn(self) -> str:
        return self._turn

    def _placeable(self, player: str) -> list[int]:
        """Indices where `player` may place now (ignoring whose turn it is)."""
        board = self.board
        empty = [i for i, c in enumerate(board) if c is None]
        if self.placements[player] == 0:
            return empty
        if player not in board and not self.options.no_stones_loses:
            return empty
        return [i for i in empty if any(board[n] == player for n in self._neighbours[i])]

    def legal_moves(self) -> list[str]:
        if self.is_game_over():
            return []
        return [self.cell_name(i) for i in self._placeable(self._turn)]

    def count_legal_moves(self) -> int:
        return len(self.legal_moves())

    def _check_legal(self, index: int) -> None:
        cell = self.cell_name(index)
        outcome = self.outcome()
        if outcome is not None:
            raise IllegalMoveError(f"the game is over: {outcome}")
        if self.board[index] is not None:
            raise IllegalMoveError(f"{cell} is taken by a {self.board[index]} stone")
        if index not in self._placeable(self._turn):
            raise IllegalMoveError(
                f"{cell} does not touch a {self._turn} stone: every stone after your first must "
                "touch one of your own by edge or corner"
            )

    def _effects(self, index: int, mover: str) -> tuple[tuple[int, ...], bool]:
        """(opponent stones that flip, whether the placed stone flips) for a stone of `mover`
        placed at the empty `index`. Pure: judged on a board with the stone added."""
        board = list(self.board)
        board[index] = mover
        opponent = other(mover)
        nbrs = self._neighbours
        if self.options.flip_scope == "touching":
            candidates = [q for q in nbrs[index] if board[q] == opponent]
        else:
            candidates = [q for q, c in enumerate(board) if c == opponent]
        flipped = tuple(
            sorted(q for q in candidates if sum(board[n] == mover for n in nbrs[q]) == FLIP_COUNT)
        )
        if self.options.flip_check == "captures-first":
            for q in flipped:
                board[q] = mover
        self_flip = sum(board[n] == opponent for n in nbrs[index]) == FLIP_COUNT
        return flipped, self_flip

    def placement_effects(self, cell: str) -> PlacementEffects:
        """What placing the side to move's stone at `cell` would flip, without playing it.
        IllegalMoveError when the placement is not legal."""
        index = self.cell_index(cell)
        self._check_legal(index)
        flipped, self_flip = self._effects(index, self._turn)
        return PlacementEffects(
            cell=self.cell_name(index),
            mover=self._turn,
            flipped=tuple(self.cell_name(q) for q in flipped),
            self_flip=self_flip,
        )

    def push(self, move: str) -> None:
        index = self.cell_index(move)
        self._check_legal(index)
        mover = self._turn
        flipped, self_flip = self._effects(index, mover)
        for q in flipped:
            self.board[q] = mover
        self.board[index] = other(mover) if self_flip else mover
        self.placements[mover] += 1
        self._undo.append(_Undo(index, flipped, self_flip, mover))
        self.move_stack.append(self.cell_name(index))
        self._turn = other(mover)

    def pop(self) -> str:
        if not self.move_stack:
            raise IllegalMoveError("there is no move to take back")
        undo = self._undo.pop()
        move = self.move_stack.pop()
        opponent = other(undo.turn)
        for q in undo.flipped:
            self.board[q] = opponent
        self.board[undo.index] = None
        self.placements[undo.turn] -= 1
        self._turn = undo.turn
        return move

    def outcome(self) -> Outcome | None:
        player = self._turn
        if None not in self.board:
            return self._full_board_outcome()
        if self._placeable(player):
            return None
        winner = other(player)
        if self.placements[player] and player not in self.board:
            return Outcome(
                winner, "no-stones", f"{player.capitalize()} has no stones left to place next to"
            )
        return Outcome(
            winner, "no-placement", f"{player.capitalize()} has no empty cell next to their stones"
        )

    def _full_board_outcome(self) -> Outcome:
        counts = self.stone_counts()
        score = f"{counts[BLACK]} black, {counts[WHITE]} white"
        if counts[BLACK] != counts[WHITE]:
            winner = BLACK if counts[BLACK] > counts[WHITE] else WHITE
            return Outcome(winner, "full-board", f"the board is full: {score}")
        if self.options.full_board_tie == "second-player-wins":
            return Outcome(
                other(self.options.first),
                "full-board",
                f"the board is full: {score}, equal counts go to the second player",
            )
        return Outcome(None, "full-board", f"the board is full: {score}")

    def placement(self, move: str) -> dict[str, str]:
        """The stone is placed first; the referee then asks for the flips."""
        return {self.move_text(move): self.turn}

    # -- notation -----------------------------------------------------------------------------
    def parse_move(self, text: str) -> str:
        if not isinstance(text, str) or not text.strip():
            raise NotationError("an Arinama move is the cell to place on, e.g. c3")
        return self.cell_name(self.cell_index(text))

    def move_text(self, move: str) -> str:
        return move

    def diagram(self) -> str:
        """Rank 1 at the bottom; X black, O white, . empty; then ``white to play`` (which
        `parse_position` reads back) and, when the game is over, ``game over: ...``."""
        lines = []
        width = len(str(self.rows))
        for rank in range(self.rows, 0, -1):
            row = self.board[(rank - 1) * self.cols : rank * self.cols]
            lines.append(f"{rank:>{width}} " + " ".join(_SYMBOL[c] for c in row))
        lines.append(" " * width + " " + " ".join(FILES[: self.cols]))
        lines.append(f"{self._turn} to play")  # over: the player who could not place
        outcome = self.outcome()
        if outcome is not None:
            lines.append(f"game over: {outcome}")
        return "\n".join(lines)

    # -- JSON -------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.name,
            "options": options_to_dict(self.options),
            "turn": self._turn,
            "stones": dict(sorted(self.cells().items(), key=lambda kv: self.cell_index(kv[0]))),
            "placements": dict(self.placements),
        }

    @classmethod
    def parse_position(cls, text: str) -> ArinamaPosition:
        """A position from `to_json` JSON, or from a picture like `diagram()` prints: one line
        per rank, highest first, of ``X`` (black) ``O`` (white) ``.`` (empty), rank numbers and
        the file letters optional, and optionally a line ``white to play``. The picture sets the
        board size; whoever has stones counts as having placed. RecordError when unreadable."""
        if text.lstrip().startswith("{"):
            return super().parse_position(text)
        rows: list[list[str]] = []
        turn = None
        for line in text.splitlines():
            words = line.lower().split()
            if not words or all(len(w) == 1 and w in FILES for w in words):
                continue  # blank, or the file letters under the board
            if len(words) == 3 and words[1:] == ["to", "play"] and words[0] in PLAYERS:
                turn = words[0]
                continue
            if words[:2] == ["game", "over:"]:
                continue  # the result line of a finished game's diagram
            if words[0].isdigit():
                words = words[1:]
            cells = list("".join(words)) if len(words) == 1 else words
            if not cells or any(c not in _PICTURE for c in cells):
                raise RecordError(
                    f"cannot read {line.strip()!r} as a row of an Arinama board: write X (black) "
                    "O (white) and . (empty), one rank a line, the highest first"
                )
            rows.append(cells)
        if not rows:
            raise RecordError("no Arinama board found: write one line of X O . per rank")
        if len({len(r) for r in rows}) != 1:
            raise RecordError("the rows of the picture have different lengths")
        if len(rows) > len(FILES) or len(rows[0]) > len(FILES):
            raise RecordError(
                f"the picture's board is {len(rows)} x {len(rows[0])}: an Arinama board has "
                f"at most {MAX_SIZE} rows and {MAX_SIZE} columns"
            )
        stones = {
            f"{FILES[f]}{len(rows) - r}": _PICTURE[c]
            for r, row in enumerate(rows)
            for f, c in enumerate(row)
            if _PICTURE[c]
        }
        data: dict[str, Any] = {"options": {"rows": len(rows), "cols": len(rows[0])}}
        data["stones"] = stones
        if turn:
            data["turn"] = turn
        try:
            return cls.from_json(data)
        except OptionError as exc:
            raise RecordError(f"the picture's board: {exc}") from None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ArinamaPosition:
        if not isinstance(data, dict):
            raise RecordError("an Arinama position must be a JSON object")
        if data.get("game", cls.name) != cls.name:
            raise RecordError(f"not an Arinama position (game {data.get('game')!r})")
        pos = cls(cls.options_from(data.get("options")))
        turn = data.get("turn", pos.options.first)
        if turn not in PLAYERS:
            raise RecordError(f'"turn" must be black or white, not {turn!r}')
        pos._turn = turn
        if "stones" not in data:  # as Sensei and Arimaa: {} is no position (not the start)
            raise RecordError(
                'an Arinama position needs a "stones" object of cell -> "black" or "white" '
                "({} for an empty board)"
            )
        stones = data["stones"]
        if not isinstance(stones, dict):
            raise RecordError('"stones" must be an object of cell -> "black" or "white"')
        for cell, colour in stones.items():
            try:
                index = pos.cell_index(str(cell))
            except NotationError as exc:
                raise RecordError(f'"stones": {exc}') from None
            if colour not in PLAYERS:
                raise RecordError(f'"stones": {cell} must be black or white, not {colour!r}')
            if pos.board[index] is not None:
                raise RecordError(f'"stones": {pos.cell_name(index)} is given twice')
            pos.board[index] = colour
        placements = data.get("placements")
        if placements is None:  # a hand-written position: whoever has stones has placed
            placements = {p: pos.board.count(p) for p in PLAYERS}
        if not isinstance(placements, dict) or not all(
            type(placements.get(p)) is int and placements[p] >= 0 for p in PLAYERS
        ):
            raise RecordError('"placements" must give black and white a count of stones placed')
        pos.placements = {p: placements[p] for p in PLAYERS}
        return pos


def _neighbour_table(rows: int, cols: int) -> list[tuple[int, ...]]:
    """For each index, the indices touching it by edge or corner."""
    table = []
    for index in range(rows * cols):
        rank, file = divmod(index, cols)
        table.append(
            tuple(
                (rank + dr) * cols + file + df
                for dr in (-1, 0, 1)
                for df in (-1, 0, 1)
                if (dr or df) and 0 <= rank + dr < rows and 0 <= file + df < cols
            )
        )
    return table
