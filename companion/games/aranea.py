"""Aranea: roll two dice, enter the web or run your stones round it, and climb into the centre.

Rules: `shared/docs/rules.md` section 3 (seed 002). In short:

- The web has three rings of 12 squares (ring 1 outermost), numbered 1..12 clockwise like a
  clock, and a centre of 12 squares. Each player (Amber, Blue) has a stock of 12 stones.
- A turn: roll two dice (value = the sum, but a 3 and a 4 count as 1), then use the value n:
  place a stock stone on ring-1 square n, or move one of your ring stones n squares round its
  ring (clockwise; in Clash mode the second player goes counter-clockwise).
- Landing: on an empty square the stone stays; on an opponent's stone it knocks that stone back
  to its owner's stock and stays; on your own stone it goes straight inward to the same number
  of the next ring and lands again there. From ring 3 it goes to the centre square of that
  number; if that is occupied the whole use is void and the player must use the roll another
  way. Centre stones never move.
- A player must use the roll if any legal use exists; otherwise the turn passes.
- Win after any move: 3 of your stones in a straight line in the centre, or 5 anywhere in it.

Moves (each is one record entry, see `AraneaMove`): ``roll 3-4`` (a dice roll, a chance move:
`awaiting_roll` is True and `roll_move(dice)` makes it, the opening rolls included), then one use
of the roll: ``place``, a ring square such as ``r2-5`` (move the stone standing there), or
``pass`` (only when no legal use exists). `use_effects(move)` tells the referee what a use does
- where the stone lands, whom it knocks off, or which centre square makes it void - without
playing it.

The web is the table `WEB`, built from the constants below it; change the centre layout or the
ring-to-centre mapping there and every rule follows.
"""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal

from companion.dice import Roll
from companion.errors import IllegalMoveError, NotationError, RecordError
from companion.games.base import Outcome, Position, options_to_dict
from companion.geometry import ARANEA_CENTRE, BoardGeometry, aranea_geometry

AMBER: Final = "amber"
BLUE: Final = "blue"
PLAYERS = (AMBER, BLUE)
RINGS = 3  # ring 1 is the outermost
RING_SQUARES = 12  # numbered 1..12 clockwise, 12 at the top
# **Decision** (rules.md): the centre is 3 rows x 4 columns numbered row by row from the top left.
CENTRE_LAYOUT = ARANEA_CENTRE  # the numbering of the centre squares, row by row (geometry's table)
# A stone pushed inward from ring-3 square n lands on this centre square.
RING_TO_CENTRE: dict[int, int] = {n: n for n in range(1, RING_SQUARES + 1)}
LINE_LENGTH = 3  # stones in a straight line in the centre that win
CENTRE_STONES_TO_WIN = 5  # stones anywhere in the centre that win
# Five in the centre need a sixth stone on ring 3 to push the last one in, and with fewer than
# 8 stones games drag on for hours (random play: ~85,000 moves with 6, ~2,000 with 8).
MIN_STOCK = 8
MAX_STOCK = 36  # the three rings hold 36

PLACE = "place"
PASS = "pass"
ROLL = "roll"
RING_MOVE = "move"

_SYMBOL = {AMBER: "A", BLUE: "B", None: "."}


def other(player: str) -> Literal["amber", "blue"]:
    return BLUE if player == AMBER else AMBER


def ring_cell(ring: int, number: int) -> str:
    return f"r{ring}-{number}"


def centre_cell(number: int) -> str:
    return f"c{number}"


@dataclass(frozen=True)
class WebCell:
    """One square of the web and the squares the rules reach from it."""

    name: str
    ring: int  # 1..3, or 0 for the centre
    number: int  # 1..12
    clockwise: str | None  # the next square clockwise in the same ring (None in the centre)
    counter_clockwise: str | None
    inward: str | None  # where a stone landing on its own stone here goes next
    row: int | None = None  # centre squares: row and column of CENTRE_LAYOUT
    col: int | None = None

    @property
    def is_centre(self) -> bool:
        return self.ring == 0


def _build_web() -> dict[str, WebCell]:
    web: dict[str, WebCell] = {}
    for ring in range(1, RINGS + 1):
        for n in range(1, RING_SQUARES + 1):
            inward = ring_cell(ring + 1, n) if ring < RINGS else centre_cell(RING_TO_CENTRE[n])
            web[ring_cell(ring, n)] = WebCell(
                name=ring_cell(ring, n),
                ring=ring,
                number=n,
                clockwise=ring_cell(ring, n % RING_SQUARES + 1),
                counter_clockwise=ring_cell(ring, (n - 2) % RING_SQUARES + 1),
                inward=inward,
            )
    for row, numbers in enumerate(CENTRE_LAYOUT):
        for col, n in enumerate(numbers):
            web[centre_cell(n)] = WebCell(centre_cell(n), 0, n, None, None, None, row, col)
    return web


def _build_lines() -> tuple[tuple[str, ...], ...]:
    """Every straight run of LINE_LENGTH centre squares: rows, columns and both diagonals."""
    grid = {(r, c): centre_cell(n) for r, ns in enumerate(CENTRE_LAYOUT) for c, n in enumerate(ns)}
    lines = []
    for r, c in grid:
        for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
            run = [(r + i * dr, c + i * dc) for i in range(LINE_LENGTH)]
            if all(square in grid for square in run):
                lines.append(tuple(grid[square] for square in run))
    return tuple(lines)


WEB: dict[str, WebCell] = _build_web()
RING_CELLS: tuple[str, ...] = tuple(name for name, cell in WEB.items() if not cell.is_centre)
CENTRE_CELLS: tuple[str, ...] = tuple(name for name, cell in WEB.items() if cell.is_centre)
WIN_LINES: tuple[tuple[str, ...], ...] = _build_lines()


@dataclass(frozen=True)
class AraneaOptions:
    """How a table plays Aranea. The defaults are the Decisions of rules.md section 3.

    - stock: stones per player (8..36).
    - clash: Clash mode - the second player moves ring stones counter-clockwise.
    - first: "amber" or "blue" starts, or "roll": an opening roll decides (higher value starts,
      ties roll again) - in a later game at the same table the previous loser starts
      (`options_for_next_game`).
    - full_circle: a ring move of 12 comes back to its own square: "forbidden" (Decision), or
      "inward" - the stone counts as landing on its own stone and goes inward.
    - must_use_roll: True (Decision) - pass only when no legal use exists; False - a player may
      always pass.
    """

    stock: int = 12
    clash: bool = False
    first: Literal["roll", "amber", "blue"] = "roll"
    full_circle: Literal["forbidden", "inward"] = "forbidden"
    must_use_roll: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.stock, int) or not MIN_STOCK <= self.stock <= MAX_STOCK:
            raise ValueError(f"stock must be {MIN_STOCK}..{MAX_STOCK}, not {self.stock!r}")
        if self.first not in ("roll", *PLAYERS):
            raise ValueError(f"first must be roll, amber or blue, not {self.first!r}")


@dataclass(frozen=True)
class AraneaMove:
    """One record entry: a dice roll, or one use of it.

    kind "roll" (with `roll`), "place" (a stock stone onto ring 1), "move" (the ring stone on
    `cell`) or "pass"."""

    kind: str
    roll: Roll | None = None
    cell: str | None = None

    @property
    def rolled(self) -> Roll:
        """The dice of a roll move."""
        if self.roll is None:
            raise ValueError(f"{self.kind} is no roll")
        return self.roll

    def __str__(self) -> str:
        if self.kind == ROLL:
            return f"roll {self.roll.text if self.roll else '?'}"
        if self.kind == RING_MOVE:
            return str(self.cell)
        return self.kind


@dataclass(frozen=True)
class Knock:
    """A stone knocked off the web (it goes back to `owner`'s stock)."""

    cell: str
    owner: str


@dataclass(frozen=True)
class UseEffects:
    """What one use of the roll does, for the referee to show on the board.

    `origin` is the ring square the stone leaves (None: placed from stock); `path` every square
    it lands on in order (the first is where the roll takes it, the rest the inward cascade);
    `final` where it stays; or, for a void use, `final` is None and `blocked_by` names the
    occupied centre square that stops it (nothing on the board changes)."""

    player: str
    value: int
    origin: str | None
    path: tuple[str, ...]
    knocked_off: tuple[Knock, ...]
    final: str | None
    blocked_by: str | None = None

    @property
    def void(self) -> bool:
        return self.blocked_by is not None

    @property
    def landing(self) -> str:
        """Where the stone stays (`final`) of a use that is not void."""
        if self.final is None:
            raise ValueError(f"a void use (blocked by {self.blocked_by}) lands nowhere")
        return self.final

    @property
    def blocker(self) -> str:
        """The occupied centre square that makes a void use void (`blocked_by`)."""
        if self.blocked_by is None:
            raise ValueError(f"a use that lands on {self.final} is not blocked")
        return self.blocked_by


# Phases of a turn.
OPENING = "opening"  # the opening rolls that decide who starts
AWAIT_ROLL = "roll"
AWAIT_USE = "use"


class AraneaPosition(Position[AraneaMove]):
    name: ClassVar[str] = "aranea"
    title: ClassVar[str] = "Aranea"
    players: ClassVar[tuple[str, str]] = PLAYERS
    Options: ClassVar[type] = AraneaOptions
    mats: ClassVar[dict[str, dict[str, Any]]] = {"aranea": {}}
    referee: ClassVar[str] = "companion.referee.aranea:AraneaReferee"
    rule_reasons: ClassVar[frozenset[str]] = frozenset({"three-in-line", "five-in-centre"})
    has_dice: ClassVar[bool] = True
    pieces_are_stones: ClassVar[bool] = True
    # a turn is a roll and its use, numbered as one; the opening rolls belong to the first
    turn_labels: ClassVar[bool] = True
    fields_added: ClassVar[frozenset[str]] = frozenset({"turn_number"})  # (7 Dec 2026)

    @classmethod
    def board_geometry(cls, options: Any = None) -> BoardGeometry:
        return aranea_geometry()

    def __init__(self, options: AraneaOptions) -> None:
        self.options = options
        self.stones: dict[str, str] = {}  # cell -> owner
        self.stock = {p: options.stock for p in PLAYERS}
        if options.first == "roll":
            self.phase = OPENING
            self.first_player: str | None = None
            self._turn = AMBER  # Amber rolls first in the opening; it decides nothing
        else:
            self.phase = AWAIT_ROLL
            self.first_player = options.first
            self._turn = options.first
        self.roll: Roll | None = None  # the roll to use (phase "use")
        self.opening_rolls: list[Roll] = []  # this round of the opening: Amber's, then Blue's
        self.turn_number = 1  # the turn to play or being played (`move_label`)
        self.move_stack: list[AraneaMove] = []
        self._undo: list[dict[str, Any]] = []
        self._outcome_cache: tuple[Any, Outcome | None] | None = None

    @classmethod
    def new(cls, options: Any = None) -> AraneaPosition:
        return cls(cls.options_of(options))

    # -- cells ----------------------------------------------------------------------------------
    def cell_names(self) -> list[str]:
        return list(WEB)

    def cells(self) -> dict[str, str]:
        return dict(self.stones)

    @classmethod
    def cell_classes(cls) -> list[str]:
        return list(PLAYERS)

    def on_board(self, player: str) -> int:
        return sum(owner == player for owner in self.stones.values())

    def direction(self, player: str) -> str:
        """ "clockwise" or "counter-clockwise": how `player`'s ring stones move."""
        if self.options.clash and self.first_player is not None and player != self.first_player:
            return "counter-clockwise"
        return "clockwise"

    # -- the rules ----------------------------------------------------------------------------
    @property
    def turn(self) -> str:
        return self._turn

    @property
    def awaiting_roll(self) -> bool:
        return self.phase in (OPENING, AWAIT_ROLL) and self.outcome() is None

    def roll_move(self, dice: Any) -> AraneaMove:
        return AraneaMove(ROLL, roll=dice.roll())

    @property
    def rolled(self) -> Roll:
        """The roll to use now (phase "use").

        :raises IllegalMoveError: when there is none (the dice are still to be rolled).
        """
        if self.roll is None:
            raise IllegalMoveError(f"{self._turn} has not rolled yet")
        return self.roll

    def progress(self, player: str) -> float:
        """How far `player`'s stones have climbed: each counts its ring (1-3), 10 in the
        centre."""
        return sum(
            10 if cell.startswith("c") else int(cell[1])
            for cell, owner in self.cells().items()
            if owner == player
        )

    @property
    def in_opening_roll(self) -> bool:
        return self.phase == OPENING

    def roll_value(self, move: AraneaMove) -> int | None:
        return move.roll.value if move.roll is not None else None

    def _target(self, player: str, origin: str, value: int) -> str:
        step = "counter_clockwise" if self.direction(player) == "counter-clockwise" else "clockwise"
        cell = origin
        for _ in range(value):
            cell = getattr(WEB[cell], step)
        return cell

    def _landings(self, player: str, cell: str, origin: str | None, value: int) -> UseEffects:
        """Follow the landing rules from `cell` (the origin square is already vacated)."""
        path: list[str] = []
        while True:
            path.append(cell)
            # A full circle (full_circle="inward") lands on its own square: an own stone.
            occupant = player if cell == origin else self.stones.get(cell)
            if occupant is None:
                return UseEffects(player, value, origin, tuple(path), (), cell)
            if occupant != player:
                return UseEffects(
                    player, value, origin, tuple(path), (Knock(cell, occupant),), cell
                )
            inner = WEB[cell].inward
            if inner is None:  # only centre squares have no inward neighbour
                raise ValueError(f"{cell} is a centre square: nothing lies inward of it")
            if WEB[inner].is_centre and inner in self.stones:
                return UseEffects(player, value, origin, tuple(path), (), None, blocked_by=inner)
            cell = inner

    def use_effects(self, move: AraneaMove | str) -> UseEffects:
        """What a use of the current roll ("place" or a ring square) would do, without playing
        it - also when it is void. IllegalMoveError when it is not a possible use now."""
        if isinstance(move, str):
            move = self.parse_move(move)
        if self.phase != AWAIT_USE or self.roll is None:
            raise IllegalMoveError(f"{self._turn} must roll the dice first")
        player, value = self._turn, self.rolled.value
        if move.kind == PLACE:
            if self.stock[player] == 0:
                raise IllegalMoveError(f"{player} has no stones left in stock to place")
            return self._landings(player, ring_cell(1, value), None, value)
        if move.kind == RING_MOVE:
            cell = move.cell
            if cell in CENTRE_CELLS:
                raise IllegalMoveError(f"{cell} is in the centre: centre stones never move")
            if cell not in WEB:
                raise IllegalMoveError(f"no square {cell!r}: ring squares run r1-1 .. r3-12")
            if self.stones.get(cell) != player:
                owner = self.stones.get(cell)
                what = f"a {owner} stone" if owner else "empty"
                raise IllegalMoveError(f"{cell} is {what}: move one of your own ring stones")
            if value == RING_SQUARES and self.options.full_circle == "forbidden":
                raise IllegalMoveError(
                    f"a 12 would bring the stone on {cell} back to its own square: "
                    + (
                        "use the 12 another way"
                        if self.options.must_use_roll
                        else "use the 12 another way, or pass"
                    )
                )
            return self._landings(player, self._target(player, cell, value), cell, value)
        raise IllegalMoveError(f"{move} is not a use of the roll (place or a ring square)")

    def _uses(self) -> list[AraneaMove]:
        """The legal uses of the current roll (not void), before any pass."""
        player = self._turn
        candidates = [AraneaMove(PLACE)] if self.stock[player] else []
        candidates += [
            AraneaMove(RING_MOVE, cell=cell)
            for cell in RING_CELLS
            if self.stones.get(cell) == player
        ]
        uses = []
        for move in candidates:
            try:
                if not self.use_effects(move).void:
                    uses.append(move)
            except IllegalMoveError:
                continue
        return uses

    def legal_moves(self) -> list[AraneaMove]:
        """Awaiting a roll: the 36 ordered rolls of two dice. Awaiting a use: every legal use,
        and "pass" when there is none (or always, with must_use_roll=False)."""
        if self.outcome() is not None:
            return []
        if self.phase != AWAIT_USE:
            return [AraneaMove(ROLL, Roll(a, b)) for a in range(1, 7) for b in range(1, 7)]
        uses = self._uses()
        if not uses or not self.options.must_use_roll:
            uses.append(AraneaMove(PASS))
        return uses

    def push(self, move: AraneaMove) -> None:
        if not isinstance(move, AraneaMove):
            move = self.parse_move(str(move))
        outcome = self.outcome()
        if outcome is not None:
            raise IllegalMoveError(f"the game is over: {outcome}")
        snapshot = self._snapshot()
        if move.kind == ROLL:
            self._push_roll(move)
        elif self.phase != AWAIT_USE:
            raise IllegalMoveError(f"{self._turn} must roll the dice first (roll 3-4, ...)")
        elif move.kind == PASS:
            if self.options.must_use_roll and self._uses():
                raise IllegalMoveError(
                    f"{self._turn} can use the {self.rolled.value}, so may not pass "
                    f"(legal: {', '.join(str(m) for m in self._uses())})"
                )
            self._end_turn()
        else:
            effects = self.use_effects(move)
            if effects.void:
                raise IllegalMoveError(
                    f"centre {WEB[effects.blocker].number} is taken: use the roll another way"
                )
            self._apply(effects)
            self._end_turn()
        self._undo.append(snapshot)
        self.move_stack.append(move)

    def _push_roll(self, move: AraneaMove) -> None:
        if self.phase == AWAIT_USE:
            raise IllegalMoveError(
                f"{self._turn} has rolled {self.rolled.words} already: now {self._choices()}"
            )
        if self.phase == AWAIT_ROLL:
            self.roll = move.roll
            self.phase = AWAIT_USE
            return
        self.opening_rolls.append(move.rolled)
        if len(self.opening_rolls) == 1:
            self._turn = BLUE
            return
        amber, blue = (r.value for r in self.opening_rolls)
        self.opening_rolls = []
        if amber == blue:  # a tie: both roll again
            self._turn = AMBER
            return
        self.first_player = AMBER if amber > blue else BLUE
        self._turn = self.first_player
        self.phase = AWAIT_ROLL

    def _apply(self, effects: UseEffects) -> None:
        player = effects.player
        if effects.origin is None:
            self.stock[player] -= 1
        else:
            del self.stones[effects.origin]
        for knock in effects.knocked_off:
            del self.stones[knock.cell]
            self.stock[knock.owner] += 1
        self.stones[effects.landing] = player

    def _end_turn(self) -> None:
        self.roll = None
        self.phase = AWAIT_ROLL
        self._turn = other(self._turn)
        self.turn_number += 1

    @property
    def move_label(self) -> str:
        """The turn to play, or being played: a roll and its use are one turn, and the
        opening rolls that decide who starts belong to the first (a header said "move 28"
        after 14 turns).

            >>> position = AraneaPosition.new()
            >>> for text in ("roll 6-6", "roll 1-1", "roll 2-5"):
            ...     position.push(position.parse_move(text))
            >>> position.move_label
            '1'
            >>> position.push(position.parse_move("place"))
            >>> position.move_label
            '2'
        """
        return str(self.turn_number)

    @property
    def moves_before(self) -> int:
        """The turns played before the one to play or being played (`move_label` less one)."""
        return self.turn_number - 1

    def labels_played(self) -> list[str]:
        """Each move's turn, from the state kept to take it back: the roll and its use share
        it (`move_label`)."""
        return [str(state["turn_number"]) for state in self._undo]

    def _snapshot(self) -> dict[str, Any]:
        return {
            "stones": dict(self.stones),
            "stock": dict(self.stock),
            "phase": self.phase,
            "first_player": self.first_player,
            "turn": self._turn,
            "roll": self.roll,
            "opening_rolls": list(self.opening_rolls),
            "turn_number": self.turn_number,
        }

    def pop(self) -> AraneaMove:
        if not self.move_stack:
            raise IllegalMoveError("there is no move to take back")
        state = self._undo.pop()
        self.stones = state["stones"]
        self.stock = state["stock"]
        self.phase = state["phase"]
        self.first_player = state["first_player"]
        self._turn = state["turn"]
        self.roll = state["roll"]
        self.opening_rolls = state["opening_rolls"]
        self.turn_number = state["turn_number"]
        return self.move_stack.pop()

    def outcome(self) -> Outcome | None:
        # Only the centre decides, and the game loop, legal_moves and awaiting_roll all ask
        # after every move: judge again only when the centre or the turn changed.
        centre = tuple((c, self.stones[c]) for c in CENTRE_CELLS if c in self.stones)
        key = (centre, self._turn)
        if self._outcome_cache is None or self._outcome_cache[0] != key:
            self._outcome_cache = (key, self._judge(dict(centre)))
        return self._outcome_cache[1]

    def _judge(self, centre: dict[str, str]) -> Outcome | None:
        """The winner, the player who just moved first, from the centre squares' owners."""
        for player in (other(self._turn), self._turn):
            mine = {c for c, owner in centre.items() if owner == player}
            if len(mine) < LINE_LENGTH:
                continue
            for line in WIN_LINES:
                if mine.issuperset(line):
                    squares = "-".join(str(WEB[c].number) for c in line)
                    return Outcome(
                        player, "three-in-line", f"{player.capitalize()} has centre {squares}"
                    )
            if len(mine) >= CENTRE_STONES_TO_WIN:
                return Outcome(
                    player,
                    "five-in-centre",
                    f"{player.capitalize()} has {len(mine)} stones in the centre",
                )
        return None

    def copy(self) -> AraneaPosition:
        return copy.deepcopy(self)

    # -- notation -----------------------------------------------------------------------------
    def parse_move(self, text: str) -> AraneaMove:
        if not isinstance(text, str):
            raise NotationError(f"an Aranea move is text, not {text!r}")
        words = text.strip().lower().split(None, 1)
        if not words:
            raise NotationError(_NOTATION_HELP)
        head = words[0]
        rest = words[1] if len(words) > 1 else ""
        if head == ROLL:
            if not rest:
                raise NotationError('"roll" wants the two dice it shows: write it like "roll 3-4"')
            return AraneaMove(ROLL, roll=Roll.parse(rest))
        if head in (PLACE, PASS) and not rest:
            return AraneaMove(head)
        if head == RING_MOVE and rest:
            head, rest = rest, ""
        if not rest and head in WEB:
            if WEB[head].is_centre:
                raise NotationError(f"{head} is in the centre: centre stones never move")
            return AraneaMove(RING_MOVE, cell=head)
        if not rest and head.startswith("r"):
            raise NotationError(f"{head!r} is not a ring square: they run r1-1 .. r3-12")
        try:  # a bare roll "3-4"
            return AraneaMove(ROLL, roll=Roll.parse(text))
        except NotationError:
            raise NotationError(f"{text.strip()!r}: {_NOTATION_HELP}") from None

    def move_text(self, move: AraneaMove) -> str:
        return str(move)

    def diagram(self) -> str:
        numbers = range(1, RING_SQUARES + 1)
        lines = [" " * len("ring 1 ") + "".join(f"{n:>3}" for n in numbers)]  # over the squares
        for ring in range(1, RINGS + 1):
            row = "".join(f"{_SYMBOL[self.stones.get(ring_cell(ring, n))]:>3}" for n in numbers)
            lines.append(f"ring {ring} " + row)
        for r, layout_row in enumerate(CENTRE_LAYOUT):
            label = "centre " if r == 0 else "       "
            stones = " ".join(_SYMBOL[self.stones.get(centre_cell(n))] for n in layout_row)
            squares = "".join(f"{n:>3}" for n in layout_row)
            lines.append(f"{label}  {stones}    {squares}")
        lines.append(
            f"stock   amber (A) {self.stock[AMBER]}, blue (B) {self.stock[BLUE]}"
            + self._clash_note()
        )
        lines.append(self._status())
        return "\n".join(lines)

    def _clash_note(self) -> str:
        """Who goes counter-clockwise in Clash mode: the second player, known after the opening."""
        if not self.options.clash:
            return ""
        if self.first_player is None:
            return "   Clash: the second player moves counter-clockwise"
        return f"   Clash: {other(self.first_player)} moves counter-clockwise"

    def _status(self) -> str:
        outcome = self.outcome()
        if outcome is not None:
            return f"game over: {outcome}"
        if self.phase == OPENING:
            done = f" (amber rolled {self.opening_rolls[0].words})" if self.opening_rolls else ""
            return f"opening roll: {self._turn} to roll{done}"
        if self.phase == AWAIT_ROLL:
            return f"{self._turn} to roll"
        return f"{self._turn} rolled {self.rolled.words} = {self.rolled.value}: {self._choices()}"

    def _choices(self) -> str:
        """What the player who rolled may do with it now, in words - the legal uses, or pass
        when there is none: "place", "place, or move r1-3, r2-5 or r3-1", "pass"."""
        moves = self.legal_moves()
        words = [PLACE] if any(m.kind == PLACE for m in moves) else []
        ring = [m.cell for m in moves if m.kind == RING_MOVE and m.cell is not None]
        if ring:
            words.append(
                "move " + (", ".join(ring[:-1]) + " or " if len(ring) > 1 else "") + ring[-1]
            )
        if any(m.kind == PASS for m in moves):
            words.append(PASS)
        return ", or ".join(words)

    # -- JSON -------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.name,
            "options": options_to_dict(self.options),
            "phase": self.phase,
            "turn": self._turn,
            "first_player": self.first_player,
            "roll": self.rolled.text if self.roll else None,
            "opening_rolls": [r.text for r in self.opening_rolls],
            "turn_number": self.turn_number,
            "stones": {c: self.stones[c] for c in WEB if c in self.stones},
            "stock": dict(self.stock),
        }

    @classmethod
    def options_for_next_game(
        cls, options: AraneaOptions, previous: Outcome | None
    ) -> AraneaOptions:
        """rules.md 3, who starts: the opening roll decides the first game; in later games the
        previous loser starts. A table that chose a first player keeps its choice."""
        if options.first != "roll" or previous is None or previous.winner not in PLAYERS:
            return options
        return dataclasses.replace(options, first=other(previous.winner))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AraneaPosition:
        if not isinstance(data, dict):
            raise RecordError("an Aranea position must be a JSON object")
        if data.get("game", cls.name) != cls.name:
            raise RecordError(f"not an Aranea position (game {data.get('game')!r})")
        pos = cls(cls.options_from(data.get("options")))
        phase = data.get("phase", pos.phase)
        if phase not in (OPENING, AWAIT_ROLL, AWAIT_USE):
            raise RecordError(f'"phase" must be opening, roll or use, not {phase!r}')
        pos.phase = phase
        turn = data.get("turn", pos.turn)
        if turn not in PLAYERS:
            raise RecordError(f'"turn" must be amber or blue, not {turn!r}')
        pos._turn = turn
        first_player = data.get("first_player", pos.first_player)
        if first_player not in (*PLAYERS, None):
            raise RecordError(f'"first_player" must be amber, blue or null, not {first_player!r}')
        pos.first_player = first_player
        try:
            pos.roll = Roll.parse(data["roll"]) if data.get("roll") is not None else None
            pos.opening_rolls = [Roll.parse(r) for r in data.get("opening_rolls", [])]
        except (NotationError, TypeError) as exc:
            raise RecordError(f'bad "roll" or "opening_rolls": {exc}') from None
        if (phase == AWAIT_USE) != (pos.roll is not None):
            raise RecordError('"roll" is given exactly when "phase" is "use"')
        if phase != OPENING and pos.first_player is None:
            raise RecordError('"first_player" is needed once the opening roll is over')
        if pos.opening_rolls and (
            phase != OPENING or len(pos.opening_rolls) > 1 or pos._turn != BLUE
        ):
            raise RecordError(
                '"opening_rolls" holds Amber\'s opening roll while Blue rolls (phase "opening", '
                "turn blue), and nothing else"
            )
        number = data.get("turn_number", 1)  # (records written before it was kept: 1)
        if not isinstance(number, int) or isinstance(number, bool) or number < 1:
            raise RecordError('"turn_number" must be a whole number from 1')
        pos.turn_number = number
        if "stones" not in data:  # as Sensei and Arimaa: {} is no position (not the start)
            raise RecordError(
                'an Aranea position needs a "stones" object of square -> "amber" or "blue" '
                "({} for an empty web)"
            )
        stones = data["stones"]
        if not isinstance(stones, dict):
            raise RecordError('"stones" must be an object of square -> "amber" or "blue"')
        for cell, owner in stones.items():
            if cell not in WEB:
                raise RecordError(f'"stones": no square {cell!r} (r1-1..r3-12, c1..c12)')
            if owner not in PLAYERS:
                raise RecordError(f'"stones": {cell} must be amber or blue, not {owner!r}')
        pos.stones = {c: stones[c] for c in WEB if c in stones}
        stock = data.get("stock", {p: pos.options.stock - pos.on_board(p) for p in PLAYERS})
        if not isinstance(stock, dict):
            raise RecordError('"stock" must give amber and blue a number of stones')
        for player in PLAYERS:
            count = stock.get(player)
            if not isinstance(count, int) or count < 0:
                raise RecordError(f'"stock": {player} needs a count of stones, not {count!r}')
            if count + pos.on_board(player) != pos.options.stock:
                raise RecordError(
                    f'"stock": {player} has {count} in stock and {pos.on_board(player)} on the '
                    f"web, but plays with {pos.options.stock} stones"
                )
        pos.stock = {p: stock[p] for p in PLAYERS}
        return pos


_NOTATION_HELP = (
    'write "roll 3-4", "place", a ring square with your stone such as "r2-5", or "pass"'
)
