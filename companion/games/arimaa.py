"""Arimaa (rules.md section 2): the rules engine, turn by turn and step by step.

Board and pieces
    Squares are numbered 0..63 with a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63 (so "north",
    towards Silver, is +8). A piece is a small int: strength 1..6 (rabbit, cat, dog, horse, camel,
    elephant) plus 8 for Silver - the same codes as the `aei` package, which keeps the
    differential tests simple. In text a piece is its arimaa.com letter: ``RCDHME`` for Gold,
    ``rcdhme`` for Silver.

Moves of the shared model (`companion.games.base.Position`)
    A move is one whole turn: a tuple of `Step` (1 to 4 steps, pushes and pulls included), or
    during the setup phase a tuple of `Placement` (all sixteen pieces of the side to move). Its
    text is the arimaa.com notation with capture tokens: ``Ed2n Ed3n rb6s rb5x``; setups
    ``Ra1 Rb1 ...``. Gold sets up, then Silver, then Gold makes the first turn.

Step-level API (for the referee and for move inference; kept stable)
    The referee sees one physical step at a time, so a turn can also be built step by step:

    - ``legal_steps() -> list[Step]``: every step allowed now, including the enemy step that
      starts a push and the enemy step that completes a pull.
    - ``step_error(step) -> str | None``: None when the step is legal, else a plain sentence,
      e.g. "the gold dog on d4 is frozen by the silver camel on d5".
    - ``push_step(step) -> list[Capture]``: play one step (IllegalMoveError with that sentence
      when illegal); returns the pieces the step captured on traps.
    - ``pop_step() -> Step``: take the last step of the turn in progress back.
    - ``steps_this_turn``: the steps played so far this turn (a tuple of `Step`).
    - ``pending_push``: a `PendingPush` when an enemy piece has been pushed and the next step must
      be a stronger own piece moving into the square it left; else None.
    - ``can_end_turn() -> bool`` and ``end_turn_error() -> str | None`` (why not).
    - ``end_turn()``: close the turn; it joins `move_stack` like a `push`ed move.
    - ``piece_at(square) -> str | None``: the letter on a square (index or name), or None.
    - ``step_text(step)``, ``parse_step(text)``; ``turn_start_position()``; ``turn_label`` ("2g").
    - ``setup_error(placements) -> str | None`` for a setup turn.

    `companion.games.arimaa_infer` also reads ``_board`` (64 piece codes), ``_side`` (0 Gold,
    1 Silver), ``_hash``, ``_pending``/``_pull`` (the (square, strength) pairs behind
    `pending_push` and pulls) and ``_steps`` (each step's record, with what it captured), and
    calls ``_generate_steps`` and ``_capture_after`` with the Zobrist tables: keep them stable.

    A played turn in `move_stack` (and a parsed one) is a `Turn`, a tuple of steps that carries
    its arimaa.com text, since the text depends on the position the turn was played in.

Counting turns
    ``count_legal_moves()`` is the number of distinct legal turns: distinct resulting positions,
    a turn that leaves the position unchanged and turns that would create a position for the third
    time not counted. It walks the steps depth-first with a transposition set keyed by (position
    hash, steps left, pending push, pull that is still possible), so every intermediate state is
    expanded once, and collects the Zobrist hashes of the final boards (64-bit keys: a collision
    among the ~10^5 finals of even the widest position is ~10^-9 likely). The last step is never
    played on the board: its final hash is computed from the step alone.

Text (the arimaa.com notation; whole move lists are `companion.games.arimaa_notation`)

Turns (arimaa.com notation)
    A step is piece letter, square, direction: ``Ed2n`` (n/s/e/w from Gold's view, upper case
    Gold, lower case Silver, camel ``M``). A capture token ``rc3x`` follows the step that caused
    it. A setup turn lists placements: ``Ra1 Rb1 ... Hh2``. When reading, capture tokens are
    checked against the captures the steps really cause.

Positions
    - AEI: ``g [rrrrrrrrdhcemchd ... RRRRRRRR]`` - side to move, then the 64 squares a8, b8, ...,
      h8, a7, ..., h1 with a space for an empty square (``setposition`` in front is accepted).
    - The arimaa.com board diagram (aei's "long" form), optionally preceded by a turn label line
      such as ``12g`` (steps written after the label are played on the board shown: ``12g Ed2n``)::

         +-----------------+
        8| r r r r r r r r |
        ...
        1| R R R R R R R R |
         +-----------------+
           a b c d e f g h

    - JSON (`position_to_json`): ``{"game": "arimaa", "options": {}, "phase": "setup"|"play",
      "turn": "gold"|"silver", "board": ["rrrrrrrr", ... 8 rows, rank 8 first, "." empty],
      "steps": ["Ed2n", ...]}`` - the board at the start of the turn, plus the steps played since
      (only present mid-turn).
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, NamedTuple

from companion.errors import IllegalMoveError, NotationError, RecordError, UserError, json_problem
from companion.games.base import Outcome, Position
from companion.geometry import BoardGeometry, arimaa_geometry

# -- board geometry -------------------------------------------------------------------------------
FILES = "abcdefgh"
SQUARE_NAMES = [f"{FILES[i % 8]}{i // 8 + 1}" for i in range(64)]
SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}
TRAPS = (18, 21, 42, 45)  # c3 f3 c6 f6
TRAP_SET = frozenset(TRAPS)
NORTH, SOUTH, EAST, WEST = 8, -8, 1, -1
DIRECTION_OF = {NORTH: "n", SOUTH: "s", EAST: "e", WEST: "w"}
OFFSET_OF = {v: k for k, v in DIRECTION_OF.items()}

GOLD, SILVER = 0, 1
COLOR_BIT = 8
RABBIT, CAT, DOG, HORSE, CAMEL, ELEPHANT = 1, 2, 3, 4, 5, 6
PIECE_LETTERS = " RCDHMExxrcdhme"  # index = piece code (aei's PCHARS)
PIECE_NAMES = {1: "rabbit", 2: "cat", 3: "dog", 4: "horse", 5: "camel", 6: "elephant"}
SIDE_NAMES = ("gold", "silver")
SETUP_PIECES = {RABBIT: 8, CAT: 2, DOG: 2, HORSE: 2, CAMEL: 1, ELEPHANT: 1}
# Setups with names, which a setup turn may be written as (``standard``, ``chess``; the referee's
# "choose standard"). The aei package's BASIC_SETUP: rabbits behind, officers in front.
STANDARD_SETUP = {
    "gold": "Ra1 Rb1 Rc1 Rd1 Re1 Rf1 Rg1 Rh1 Da2 Hb2 Cc2 Md2 Ee2 Cf2 Hg2 Dh2",
    "silver": "ra8 rb8 rc8 rd8 re8 rf8 rg8 rh8 da7 hb7 cc7 ed7 me7 cf7 hg7 dh7",
}
# A chess set's start position, read as Arimaa: officers on the back rank as in chess (rooks =
# horses, knights = cats, bishops = dogs, queen = camel, king = elephant), the pawns (rabbits)
# in front of them.
CHESS_SETUP = {
    "gold": "Ha1 Cb1 Dc1 Md1 Ee1 Df1 Cg1 Hh1 Ra2 Rb2 Rc2 Rd2 Re2 Rf2 Rg2 Rh2",
    "silver": "ha8 cb8 dc8 md8 ee8 df8 cg8 hh8 ra7 rb7 rc7 rd7 re7 rf7 rg7 rh7",
}
NAMED_SETUPS = {"standard": STANDARD_SETUP, "chess": CHESS_SETUP}
MAX_STEPS = 4


def _neighbours(sq: int) -> tuple[int, ...]:
    out = []
    if sq % 8 > 0:
        out.append(sq - 1)
    if sq % 8 < 7:
        out.append(sq + 1)
    if sq >= 8:
        out.append(sq - 8)
    if sq < 56:
        out.append(sq + 8)
    return tuple(out)


NEIGHBOURS = [_neighbours(sq) for sq in range(64)]
# Destinations of a rabbit of each side (never backwards): RABBIT_DESTS[side][sq].
RABBIT_DESTS = [
    [tuple(d for d in NEIGHBOURS[sq] if d != sq - 8) for sq in range(64)],
    [tuple(d for d in NEIGHBOURS[sq] if d != sq + 8) for sq in range(64)],
]
# The trap next to a square (each square touches at most one), or -1.
TRAP_NEXT_TO = [next((t for t in TRAPS if t in NEIGHBOURS[sq]), -1) for sq in range(64)]


def _zobrist_keys() -> tuple[list[list[int]], int]:
    rng = random.Random(0xA81AA)
    keys = [[0] * 64 for _ in range(15)]
    for piece in range(15):
        if PIECE_LETTERS[piece].strip() and PIECE_LETTERS[piece] != "x":
            keys[piece] = [rng.getrandbits(64) for _ in range(64)]
    return keys, rng.getrandbits(64)


ZOBRIST, SILVER_TO_MOVE_KEY = _zobrist_keys()
_KEY_RNG = random.Random(0x57E95)
STEPS_LEFT_KEY = [_KEY_RNG.getrandbits(64) for _ in range(MAX_STEPS + 1)]
PENDING_KEY = [[_KEY_RNG.getrandbits(64) for _ in range(64)] for _ in range(7)]
PULL_KEY = [[_KEY_RNG.getrandbits(64) for _ in range(64)] for _ in range(7)]


def square_index(square: int | str) -> int:
    """A square as an index 0..63 from an index or a name like "d4"; NotationError if neither."""
    if isinstance(square, int) and not isinstance(square, bool) and 0 <= square < 64:
        return square
    if isinstance(square, str) and square.strip().lower() in SQUARE_INDEX:
        return SQUARE_INDEX[square.strip().lower()]
    raise NotationError(f"unknown square {square!r}: squares are a1..h8")


def piece_description(piece: int) -> str:
    """ "the gold dog" for a piece code."""
    return f"the {SIDE_NAMES[piece >> 3]} {PIECE_NAMES[piece & 7]}"


# -- moves ----------------------------------------------------------------------------------------
class Step(NamedTuple):
    """One piece moving one square: origin and destination square indices."""

    origin: int
    dest: int

    @property
    def direction(self) -> str:
        return DIRECTION_OF[self.dest - self.origin]

    def __str__(self) -> str:
        return f"{SQUARE_NAMES[self.origin]}{self.direction}"


# One shared Step object for each (origin, dest) of neighbours: the turn walk builds its paths
# from them, so `legal_moves` hands out tuples of Step without making ~10^5 new ones.
_STEP_OF = [[Step(o, d) if d in NEIGHBOURS[o] else None for d in range(64)] for o in range(64)]


class Turn(tuple[Step, ...]):
    """A played turn: a tuple of `Step` that also remembers its arimaa.com text (with capture
    tokens), since the text depends on the position it was played in. Equal to the plain tuple."""

    text: str

    def __new__(cls, steps: Any, text: str = "") -> Turn:
        turn = super().__new__(cls, steps)
        turn.text = text
        return turn

    def __reduce__(self) -> Any:
        return (Turn, (tuple(self), self.text))


class Placement(NamedTuple):
    """One piece placed during a setup turn: its letter (``R``..``e``) and square index."""

    piece: str
    square: int

    def __str__(self) -> str:
        return f"{self.piece}{SQUARE_NAMES[self.square]}"


class Capture(NamedTuple):
    """A piece taken off a trap: its letter and the trap's square index."""

    piece: str
    square: int

    def __str__(self) -> str:
        return f"{self.piece}{SQUARE_NAMES[self.square]}x"


class PendingPush(NamedTuple):
    """An enemy piece was pushed off `square`: a stronger own piece must move into it next."""

    square: int
    pushed: str  # the letter of the pushed piece


@dataclass(frozen=True)
class ArimaaOptions:
    """Arimaa has no house rules: rules.md section 2 takes no **Decision**.

    `equipment` is not a rule but what the game is played with: ``mat`` (the printed Arimaa
    mat and its stones) or ``chess`` (a chess set on a chessboard of one's own, as the rules
    allow: king = elephant, queen = camel, rooks = horses, bishops = dogs, knights = cats,
    pawns = rabbits; the white pieces are gold, who moves first as white does in chess). The
    camera then uses the ``chessboard`` layout and reads the colours white and black."""

    equipment: Literal["mat", "chess"] = "mat"


# -- the step generator shared by the public API and the turn walk ------------------------------
def _is_frozen(board: list[int], sq: int, piece: int) -> bool:
    color = piece & COLOR_BIT
    strength = piece & 7
    threatened = False
    for n in NEIGHBOURS[sq]:
        q = board[n]
        if q:
            if q & COLOR_BIT == color:
                return False
            if q & 7 > strength:
                threatened = True
    return threatened


def _generate_steps(
    board: list[int],
    side: int,
    steps_left: int,
    pending: tuple[int, int] | None,
    pull: tuple[int, int] | None,
) -> list[tuple[int, int]]:
    """Every legal (origin, dest) now. `pending` = (square, strength) of an unfinished push;
    `pull` = (square, strength) of the own piece that just stepped away (it may pull)."""
    color = side << 3
    steps: list[tuple[int, int]] = []
    append = steps.append
    if pending is not None:
        target, weaker = pending
        for n in NEIGHBOURS[target]:
            q = board[n]
            if q and q & COLOR_BIT == color and q & 7 > weaker and not _is_frozen(board, n, q):
                append((n, target))
        return steps
    pull_from = -1
    if pull is not None:
        pull_from, puller = pull
        for n in NEIGHBOURS[pull_from]:
            q = board[n]
            if q and q & COLOR_BIT != color and q & 7 < puller:
                append((n, pull_from))
    backwards = -8 if side == GOLD else 8
    may_push = steps_left >= 2
    neighbours = NEIGHBOURS
    sq = -1
    for p in board:
        sq += 1
        if not p:
            continue
        strength = p & 7
        if p & COLOR_BIT == color:
            # Frozen: next to a stronger enemy and to no friend. One pass over the neighbours.
            near = neighbours[sq]
            threat = False
            for n in near:
                q = board[n]
                if q:
                    if q & COLOR_BIT == color:
                        threat = False
                        break
                    if q & 7 > strength:
                        threat = True
            if threat:
                continue
            if strength == RABBIT:
                for d in near:
                    if not board[d] and d - sq != backwards:
                        append((sq, d))
            else:
                for d in near:
                    if not board[d]:
                        append((sq, d))
        elif may_push and strength < ELEPHANT:
            near = neighbours[sq]
            for d in near:
                if not board[d]:
                    break
            else:
                continue  # nowhere to push it
            for n in near:
                q = board[n]
                if (
                    q
                    and q & COLOR_BIT == color
                    and q & 7 > strength
                    and not _is_frozen(board, n, q)
                ):
                    break
            else:
                continue  # no unfrozen stronger piece next to it
            pulled_here = pull is not None and pull_from in near and strength < puller
            for d in near:
                if not board[d] and not (pulled_here and d == pull_from):
                    append((sq, d))
    return steps


def _push_pull_after(
    board: list[int], o: int, d: int, p: int, color: int, pending: Any, pull: Any
) -> tuple[Any, Any]:
    """What the step of piece `p` from `o` to `d` (for `color`, the side moving; `board`
    already after it and its capture) leaves open for the turn's next step: (pending, pull).

    - An enemy piece moved - unless it followed a pull into the puller's square - so a
      stronger friend must step into `o` next: a push in progress, (o, its strength).
    - A friend moved while no push was pending: a weaker enemy beside `o` may follow it - a
      pull, (o, the puller's strength); remembered only when such an enemy is there.
    Shared by the turn walk and by the referee's inference, so both read push and pull alike.
    """
    strength = p & 7
    if p & COLOR_BIT != color:
        if pull is not None and d == pull[0] and strength < pull[1]:
            return None, None
        return (o, strength), None
    if pending is None:
        for n in NEIGHBOURS[o]:
            q = board[n]
            if q and q & COLOR_BIT != color and q & 7 < strength:
                return None, (o, strength)
    return None, None


def _capture_after(board: list[int], origin: int, mover: int) -> int:
    """The trap square emptied by a step of `mover` from `origin` (board already updated), or -1.
    Only the mover's side can lose a trap guard, and only on the trap next to `origin` (which is
    also the destination when the mover stepped onto a trap)."""
    t = TRAP_NEXT_TO[origin]
    if t < 0:
        return -1
    q = board[t]
    if not q or (q ^ mover) & COLOR_BIT:
        return -1
    color = q & COLOR_BIT
    for n in NEIGHBOURS[t]:
        r = board[n]
        if r and r & COLOR_BIT == color:
            return -1
    return t


class _FoundTurn(Exception):
    """Raised by _walk_turns to stop at the first allowed turn."""


_Pair = tuple[int, int]  # (square, strength) of a pending push or a possible pull
_Steps = tuple[Any, ...]  # the steps of a walk so far (Step)


def _walk_turns(
    board: list[int],
    side: int,
    h: int,
    steps_left: int,
    pending: tuple[int, int] | None,
    pull: tuple[int, int] | None,
    paths: dict[int, tuple[tuple[int, int], ...]] | None,
    forbidden: set[int] | None = None,
) -> set[int] | dict[int, tuple[tuple[int, int], ...]]:
    """All final board hashes reachable by finishing the turn (`paths`: also a shortest step
    sequence to each - every path into a walk state has the same length, 4 - steps left, so the
    transposition set never hides a shorter one). Includes the current board itself when the turn may stop here. `board` is
    modified during the walk and restored. With `forbidden`, stop (raising _FoundTurn) at the
    first final board not in it."""
    seen: set[int] = set()
    finals: set[int] = set()
    color = side << 3
    zob = ZOBRIST
    trap_next_to = TRAP_NEXT_TO
    step_of = _STEP_OF

    # `path`: the steps so far (Step), kept only when `paths` is wanted
    def visit(h: int, left: int, pending: _Pair | None, pull: _Pair | None, path: _Steps) -> None:
        key = h ^ STEPS_LEFT_KEY[left]
        if pending is not None:
            key ^= PENDING_KEY[pending[1]][pending[0]]
        elif pull is not None:
            key ^= PULL_KEY[pull[1]][pull[0]]
        if key in seen:
            return
        seen.add(key)
        if pending is None:
            if h not in finals:
                finals.add(h)
                if paths is not None:
                    paths[h] = path
                if forbidden is not None and h not in forbidden:
                    raise _FoundTurn
            elif paths is not None and len(path) < len(paths[h]):
                paths[h] = path  # keep the shortest way to each final board
        if left == 0:
            return
        steps = _generate_steps(board, side, left, pending, pull)
        if left == 1:
            # The last step: only the final hash matters; touch the board only near a trap.
            for o, d in steps:
                p = board[o]
                h2 = h ^ zob[p][o] ^ zob[p][d]
                if trap_next_to[o] >= 0:
                    board[o] = 0
                    board[d] = p
                    t = _capture_after(board, o, p)
                    if t >= 0:
                        h2 ^= zob[board[t]][t]
                    board[d] = 0
                    board[o] = p
                if h2 not in finals:
                    finals.add(h2)
                    if paths is not None:
                        paths[h2] = path + (step_of[o][d],)
                    if forbidden is not None and h2 not in forbidden:
                        raise _FoundTurn
                elif paths is not None and len(path) + 1 < len(paths[h2]):
                    paths[h2] = path + (step_of[o][d],)
            return
        for o, d in steps:
            p = board[o]
            h2 = h ^ zob[p][o] ^ zob[p][d]
            board[o] = 0
            board[d] = p
            t = _capture_after(board, o, p)
            captured = 0
            if t >= 0:
                captured = board[t]
                h2 ^= zob[captured][t]
                board[t] = 0
            new_pending, new_pull = _push_pull_after(board, o, d, p, color, pending, pull)
            visit(
                h2,
                left - 1,
                new_pending,
                new_pull,
                path + (step_of[o][d],) if paths is not None else path,
            )
            if captured:
                board[t] = captured
            board[d] = 0
            board[o] = p

    visit(h, steps_left, pending, pull, ())
    return paths if paths is not None else finals


def board_hash(board: list[int]) -> int:
    h = 0
    for sq, p in enumerate(board):
        if p:
            h ^= ZOBRIST[p][sq]
    return h


# -- the position -----------------------------------------------------------------------------------
@dataclass
class _StepRecord:
    """What one played step changed, so pop_step can restore it."""

    step: Step
    piece: int
    captured: tuple[int, int] | None  # (piece, square)
    pending_before: tuple[int, int] | None
    pull_before: tuple[int, int] | None


class ArimaaPosition(Position[Turn]):
    name: ClassVar[str] = "arimaa"
    title: ClassVar[str] = "Arimaa"
    players: ClassVar[tuple[str, str]] = ("gold", "silver")
    Options: ClassVar[type] = ArimaaOptions
    move_text_names_every_change: ClassVar[bool] = True  # its steps, and "x" for a capture
    piece_names: ClassVar[dict[str, str]] = {
        "E": "elephant",
        "M": "camel",
        "H": "horse",
        "D": "dog",
        "C": "cat",
        "R": "rabbit",
    }
    # Arimaa on a chess set: the chess piece that plays each (the German rule text: Elefant =
    # König, Kamel = Dame, Pferde = Türme, Hunde = Läufer, Katzen = Springer, Kaninchen =
    # Bauern), as the referee's choices name them
    chess_piece_names: ClassVar[dict[str, str]] = {
        "E": "king",
        "M": "queen",
        "H": "rook",
        "D": "bishop",
        "C": "knight",
        "R": "pawn",
    }
    # a chess set on a chessboard of one's own: the camera reads the chessboard layout
    mats: ClassVar[dict[str, dict[str, Any]]] = {
        "arimaa": {"equipment": "mat"},
        "chessboard": {"equipment": "chess"},
    }
    referee: ClassVar[str] = "companion.referee.arimaa:ArimaaReferee"
    rule_reasons: ClassVar[frozenset[str]] = frozenset({"goal", "elimination", "immobilisation"})
    turn_labels: ClassVar[bool] = True  # 1g, 1s, 2g ...: the turn number is the position's

    @classmethod
    def board_geometry(cls, options: Any = None) -> BoardGeometry:
        return arimaa_geometry()

    @classmethod
    def uses_chess_set(cls, options: Any) -> bool:
        return bool(options is not None and options.equipment == "chess")

    def letter_names(self) -> dict[str, str]:
        """The pieces' names - on a chess set the chess pieces that play them: H is a rook.

        >>> ArimaaPosition.new({"equipment": "chess"}).letter_names()["H"]
        'rook'
        """
        return dict(
            self.chess_piece_names if self.uses_chess_set(self.options) else self.piece_names
        )

    def calibration_cells(self, classes: Sequence[str]) -> dict[str, str]:
        """On a chess set the camera learns the colours from a chess set's start position
        (white on ranks 1 and 2, black on 7 and 8) - the colours it reads, white and black."""
        if self.uses_chess_set(self.options):
            cells = {f"{f}{r}": "white" for f in FILES for r in (1, 2)}
            cells.update({f"{f}{r}": "black" for f in FILES for r in (7, 8)})
            return cells
        return super().calibration_cells(classes)

    def __init__(self, options: ArimaaOptions | None = None) -> None:
        self.options = options or ArimaaOptions()
        self.move_stack: list[Any] = []
        self._board: list[int] = [0] * 64
        self._side = GOLD
        self._setups_left = 2  # 2: Gold's setup next, 1: Silver's, 0: play
        self._hash = 0
        self._steps: list[_StepRecord] = []
        self._pending: tuple[int, int] | None = None
        self._pull: tuple[int, int] | None = None
        self._start_hash = 0  # board hash when the turn in progress began
        self._history: Counter[int] = Counter()  # (board, side to move) keys at turn starts
        self._undo: list[Any] = []  # per move in move_stack: what pop() needs
        self._outcome_cache: tuple[tuple[int, int, int], Outcome | None] | None = None
        self._ply_offset = 0  # turns played before move_stack[0] (setups included)

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def new(cls, options: Any = None) -> ArimaaPosition:
        return cls(cls.options_of(options))

    @classmethod
    def from_board(
        cls, board: list[int] | dict[int, str], side: str = "gold", turn_number: int = 2
    ) -> ArimaaPosition:
        """A play-phase position from 64 piece codes (or {square: letter}), `side` to move;
        `turn_number` is the number of its turn label (2 = the first turn after the setups)."""
        pos = cls()
        if isinstance(board, dict):
            cells = [0] * 64
            for sq, letter in board.items():
                cells[square_index(sq)] = _piece_code(letter)
            board = cells
        if len(board) != 64:
            raise RecordError("an Arimaa board has 64 squares")
        pos._board = list(board)
        pos._side = side_index(side)
        pos._setups_left = 0
        pos._ply_offset = (turn_number - 1) * 2 + pos._side
        pos._hash = board_hash(pos._board)
        pos._start_hash = pos._hash
        pos._history[pos._position_key()] += 1
        return pos

    def copy(self) -> ArimaaPosition:
        other = ArimaaPosition.__new__(ArimaaPosition)
        other.__dict__.update(self.__dict__)
        other.move_stack = list(self.move_stack)
        other._board = list(self._board)
        other._steps = list(self._steps)
        other._history = Counter(self._history)
        other._undo = list(self._undo)
        return other

    # -- state ------------------------------------------------------------------------------------
    @property
    def turn(self) -> str:
        return SIDE_NAMES[self._side]

    @property
    def turn_number(self) -> int:
        """The number of the turn label: 1 for the setups, 2 for the first turn of play, ..."""
        return (self._ply_offset + len(self.move_stack)) // 2 + 1

    @property
    def turn_label(self) -> str:
        """The arimaa.com label of the turn to play: ``1g``, ``1s``, ``2g``, ..."""
        return f"{self.turn_number}{'gs'[self._side]}"

    @property
    def move_label(self) -> str:
        return self.turn_label

    @property
    def moves_before(self) -> int:
        """The turns played before this position, setups included (``2g``: 2)."""
        return self._ply_offset + len(self.move_stack)

    def labels_played(self) -> list[str]:
        """The label of each turn of `move_stack` (``1g``, ``1s``, ``2g``: one a turn)."""
        board = self.turn_start_position()  # (a turn in progress is not in move_stack)
        labels = []
        while board.move_stack:
            board.pop()
            labels.append(board.turn_label)
        return labels[::-1]

    @property
    def in_setup(self) -> bool:
        """True while a side still has to place its pieces."""
        return self._setups_left > 0

    @property
    def steps_this_turn(self) -> tuple[Step, ...]:
        return tuple(r.step for r in self._steps)

    @property
    def mid_turn(self) -> bool:
        """True once a step of the turn is played (the turn ends with DONE)."""
        return bool(self._steps)

    @property
    def steps_left(self) -> int:
        return MAX_STEPS - len(self._steps)

    @property
    def pending_push(self) -> PendingPush | None:
        if self._pending is None:
            return None
        square, strength = self._pending
        return PendingPush(square, PIECE_LETTERS[strength | ((self._side ^ 1) << 3)])

    def piece_at(self, square: int | str) -> str | None:
        p = self._board[square_index(square)]
        return PIECE_LETTERS[p] if p else None

    def piece_labels(self) -> dict[str, str]:
        """The piece letter on every occupied cell, upper case: {"d2": "E", ...}."""
        return {cell: str(self.piece_at(cell)).upper() for cell in self.cells()}

    def board_codes(self) -> list[int]:
        """The 64 piece codes (a copy), a1 first."""
        return list(self._board)

    def board_hash(self) -> int:
        """Zobrist hash of the board alone (not the side to move)."""
        return self._hash

    def _position_key(self) -> int:
        return self._hash ^ (SILVER_TO_MOVE_KEY if self._side else 0)

    def turn_start_position(self) -> ArimaaPosition:
        """A copy of this position with the steps of the turn in progress taken back."""
        board = self.copy()
        while board._steps:
            board.pop_step()
        return board

    # -- steps ------------------------------------------------------------------------------------
    def legal_steps(self) -> list[Step]:
        if self._setups_left or self.steps_left == 0 or self._game_over_at_turn_start():
            return []
        return sorted(
            Step(o, d)
            for o, d in _generate_steps(
                self._board, self._side, self.steps_left, self._pending, self._pull
            )
        )

    def step_error(self, step: Step | tuple[int, int]) -> str | None:
        """None when `step` is legal now, else why not, in words a player understands."""
        if self._setups_left:
            return f"{self.turn.capitalize()} must first set up their pieces on their own two ranks"
        if self._game_over_at_turn_start():
            return f"the game is over: {self.outcome()}"
        origin, dest = step
        if not (0 <= origin < 64 and 0 <= dest < 64):
            return "squares are a1..h8"
        if self.steps_left == 0:
            return "a turn has at most four steps"
        board = self._board
        p = board[origin]
        o_name, d_name = SQUARE_NAMES[origin], SQUARE_NAMES[dest]
        if not p:
            return f"there is no piece on {o_name}"
        if dest not in NEIGHBOURS[origin]:
            return f"{o_name} and {d_name} are not neighbours: a step goes one square north, south, east or west"
        if board[dest]:
            return f"{d_name} is occupied by {piece_description(board[dest])}"
        me = self._side << 3
        strength = p & 7
        if self._pending is not None:
            target, weaker = self._pending
            finish = (
                f"the push from {SQUARE_NAMES[target]} must be finished by a stronger "
                f"{self.turn} piece moving into {SQUARE_NAMES[target]}"
            )
            if p & COLOR_BIT != me or dest != target or strength <= weaker:
                return finish
        if p & COLOR_BIT == me:
            if _is_frozen(board, origin, p):
                freezer = max(
                    (
                        board[n]
                        for n in NEIGHBOURS[origin]
                        if board[n] and board[n] & COLOR_BIT != me
                    ),
                    key=lambda q: q & 7,
                )
                where = next(n for n in NEIGHBOURS[origin] if board[n] == freezer)
                return (
                    f"{piece_description(p)} on {o_name} is frozen by "
                    f"{piece_description(freezer)} on {SQUARE_NAMES[where]}"
                )
            if strength == RABBIT and dest not in RABBIT_DESTS[self._side][origin]:
                return "rabbits cannot step backwards"
            return None
        # An enemy piece: the second half of a pull, or the first half of a push.
        if self._pull is not None and dest == self._pull[0] and strength < self._pull[1]:
            return None
        if strength == ELEPHANT:
            return f"{piece_description(p)} on {o_name} cannot be pushed or pulled: nothing is stronger"
        pushers = [
            n
            for n in NEIGHBOURS[origin]
            if board[n] and board[n] & COLOR_BIT == me and board[n] & 7 > strength
        ]
        if not pushers:
            return (
                f"{piece_description(p)} on {o_name} is an enemy piece: it moves only when a stronger "
                f"{self.turn} piece next to it pushes or pulls it"
            )
        if all(_is_frozen(board, n, board[n]) for n in pushers):
            return (
                f"{piece_description(p)} on {o_name} can only be pushed by a stronger {self.turn} "
                f"piece that is not frozen"
            )
        if self.steps_left < 2:
            return "a push takes two steps and this turn has only one step left"
        return None

    def push_step(self, step: Step | tuple[int, int]) -> list[Capture]:
        """Play one step of the turn in progress; returns the pieces it captured."""
        step = Step(*step)
        error = self.step_error(step)
        if error:
            raise IllegalMoveError(f"{self._describe_step(step)}: {error}")
        return self._apply_step(step)

    def _apply_step(self, step: Step) -> list[Capture]:
        board = self._board
        o, d = step
        p = board[o]
        record = _StepRecord(step, p, None, self._pending, self._pull)
        board[o] = 0
        board[d] = p
        self._hash ^= ZOBRIST[p][o] ^ ZOBRIST[p][d]
        captures = []
        t = _capture_after(board, o, p)
        if t >= 0:
            record.captured = (board[t], t)
            self._hash ^= ZOBRIST[board[t]][t]
            captures.append(Capture(PIECE_LETTERS[board[t]], t))
            board[t] = 0
        strength = p & 7
        me = self._side << 3
        if p & COLOR_BIT != me:
            pulled = self._pull is not None and d == self._pull[0] and strength < self._pull[1]
            self._pending = None if pulled else (o, strength)
            self._pull = None
        elif self._pending is not None:
            self._pending = None  # the push is complete; a step cannot both push and pull
            self._pull = None
        else:
            self._pull = (o, strength)
        self._steps.append(record)
        return captures

    def pop_step(self) -> Step:
        """Take back the last step of the turn in progress (IllegalMoveError if there is none)."""
        if not self._steps:
            raise IllegalMoveError("no step of this turn to take back")
        record = self._steps.pop()
        board = self._board
        o, d = record.step
        if record.captured is not None:
            piece, t = record.captured
            board[t] = piece
            self._hash ^= ZOBRIST[piece][t]
        board[d] = 0
        board[o] = record.piece
        self._hash ^= ZOBRIST[record.piece][o] ^ ZOBRIST[record.piece][d]
        self._pending = record.pending_before
        self._pull = record.pull_before
        return record.step

    def end_turn_error(self) -> str | None:
        """None when the turn in progress may end now, else why not."""
        if self._setups_left:
            return f"{self.turn.capitalize()} must first set up their pieces"
        if not self._steps:
            return "a turn needs at least one step"
        if self._pending is not None:
            square = SQUARE_NAMES[self._pending[0]]
            return f"the push from {square} must be finished by a stronger {self.turn} piece moving into {square}"
        if self._hash == self._start_hash and self._board == self._start_board():
            return "the turn must change the position"
        key = self._hash ^ (0 if self._side else SILVER_TO_MOVE_KEY)
        if self._history[key] >= 2:
            return "this turn would create the same position for the third time"
        return None

    def can_end_turn(self) -> bool:
        return self.end_turn_error() is None

    def end_turn(self) -> Turn:
        """Close the turn in progress; it becomes the last move of `move_stack`."""
        error = self.end_turn_error()
        if error:
            raise IllegalMoveError(f"cannot end the turn: {error}")
        records = self._steps
        tokens = []
        for r in records:
            tokens.append(f"{PIECE_LETTERS[r.piece]}{r.step}")
            if r.captured is not None:
                tokens.append(str(Capture(PIECE_LETTERS[r.captured[0]], r.captured[1])))
        move = Turn((r.step for r in records), " ".join(tokens))
        self._undo.append(("turn", records, self._start_hash))
        self.move_stack.append(move)
        self._steps = []
        self._pending = self._pull = None
        self._side ^= 1
        self._start_hash = self._hash
        self._history[self._position_key()] += 1
        self._outcome_cache = None
        return move

    def _start_board(self) -> list[int]:
        board = list(self._board)
        for record in reversed(self._steps):
            o, d = record.step
            if record.captured is not None:
                board[record.captured[1]] = record.captured[0]
            board[d] = 0
            board[o] = record.piece
        return board

    def _describe_step(self, step: Step) -> str:
        try:
            return self.step_text(step)
        except UserError:
            return f"{SQUARE_NAMES[step.origin]}-{SQUARE_NAMES[step.dest]}"

    # -- whole turns ------------------------------------------------------------------------------
    def legal_moves(self) -> list[Any]:
        """Every distinct legal turn (one step sequence per resulting position).

        During setup the arrangements are far too many to list (64,864,800 per side): this
        raises a UserError then; `count_legal_moves` still answers.
        """
        if self._setups_left:
            raise UserError(
                f"{self.turn.capitalize()}'s setup has {SETUP_ARRANGEMENTS:,} possible arrangements, "
                "too many to list: any arrangement of the sixteen pieces on the own two ranks is legal"
            )
        if self._steps:
            raise IllegalMoveError("a turn is in progress: finish it or take its steps back first")
        if self._game_over_at_turn_start():
            return []
        paths = self._turn_paths()
        return sorted(paths.values())  # tuples of shared Step objects (see _STEP_OF)

    def count_legal_moves(self) -> int:
        if self._setups_left:
            return SETUP_ARRANGEMENTS
        if self._game_over_at_turn_start():
            return 0
        return len(self._final_hashes())

    def _final_hashes(self) -> set[int]:
        """Hashes of the boards the turn in progress can end on (legally)."""
        board = self._board
        finals = _walk_turns(
            board, self._side, self._hash, self.steps_left, self._pending, self._pull, None
        )
        # a turn must change the position, and never make one a third time
        return set(finals) - {self._start_hash} - self._repeated_boards()

    def _has_allowed_turn(self) -> bool:
        """True when some turn from here is legal (changes the position, no third repetition)."""
        forbidden = self._repeated_boards() | {self._start_hash}
        board = list(self._board)
        try:
            _walk_turns(
                board,
                self._side,
                self._hash,
                self.steps_left,
                self._pending,
                self._pull,
                None,
                forbidden,
            )
        except _FoundTurn:
            return True
        return False

    def _turn_paths(self) -> dict[int, tuple[tuple[int, int], ...]]:
        """A shortest step sequence to each board the turn in progress can end on (legally)."""
        paths: dict[int, tuple[tuple[int, int], ...]] = {}
        _walk_turns(
            self._board, self._side, self._hash, self.steps_left, self._pending, self._pull, paths
        )
        ruled_out = {self._start_hash} | self._repeated_boards()
        return {h: path for h, path in paths.items() if h not in ruled_out}

    def _repeated_boards(self) -> set[int]:
        """Board hashes that, with the opponent to move, already occurred twice: ending the turn
        on one of them would create that position a third time."""
        other = 0 if self._side else SILVER_TO_MOVE_KEY
        return {key ^ other for key, n in self._history.items() if n >= 2}

    def push(self, move: Any) -> None:
        move = tuple(move)
        if self._steps:
            raise IllegalMoveError("a turn is in progress: finish it or take its steps back first")
        if self._setups_left:
            self._push_setup(move)
            return
        if self._game_over_at_turn_start():
            raise IllegalMoveError(f"the game is over: {self.outcome()}")
        if not move:
            raise IllegalMoveError("a turn needs at least one step")
        if any(isinstance(s, Placement) for s in move):
            raise IllegalMoveError("the setup is over: a turn is made of steps like Ed2n")
        try:
            for step in move:
                self.push_step(step)
            self.end_turn()
        except IllegalMoveError:
            while self._steps:
                self.pop_step()
            raise

    def _push_setup(self, move: tuple[Any, ...]) -> None:
        error = self.setup_error(move)
        if error:
            raise IllegalMoveError(error)
        for placement in move:
            code = _piece_code(placement.piece)
            self._board[placement.square] = code
            self._hash ^= ZOBRIST[code][placement.square]
        self._undo.append(("setup", move, self._start_hash))
        self.move_stack.append(move)
        self._setups_left -= 1
        self._side ^= 1
        self._start_hash = self._hash
        if not self._setups_left:
            self._history[self._position_key()] += 1
        self._outcome_cache = None

    def setup_error(self, move: tuple[Any, ...]) -> str | None:
        """None when `move` is a complete legal setup for the side to move, else why not."""
        side = self._side
        who = self.turn.capitalize()
        ranks = "1 and 2" if side == GOLD else "7 and 8"
        counts: Counter[int] = Counter()
        squares = set()
        for placement in move:
            if not isinstance(placement, Placement):
                return f"{who}'s setup is a list of placements like Ra1, not steps"
            code = _piece_code(placement.piece)
            if code >> 3 != side:
                return f"{who} places {who}'s own pieces: {placement} is {SIDE_NAMES[code >> 3]}'s"
            row = placement.square // 8
            if (side == GOLD and row > 1) or (side == SILVER and row < 6):
                return f"{who} sets up on ranks {ranks}: {placement} is outside them"
            if placement.square in squares or self._board[placement.square]:
                return f"{SQUARE_NAMES[placement.square]} is given two pieces"
            squares.add(placement.square)
            counts[code & 7] += 1
        for strength, wanted in SETUP_PIECES.items():
            if counts[strength] != wanted:
                name = PIECE_NAMES[strength] + ("s" if wanted > 1 else "")
                return f"{who}'s setup must place {wanted} {name}, not {counts[strength]}"
        return None

    def pop(self) -> Any:
        if self._steps:
            raise IllegalMoveError("a turn is in progress: take its steps back with pop_step first")
        if not self.move_stack:
            raise IllegalMoveError("no move to take back")
        kind, data, start_hash = self._undo.pop()
        move = self.move_stack.pop()
        if kind == "setup":
            if not self._setups_left:
                self._history[self._position_key()] -= 1
            for placement in data:
                code = _piece_code(placement.piece)
                self._board[placement.square] = 0
                self._hash ^= ZOBRIST[code][placement.square]
            self._setups_left += 1
            self._side = GOLD if self._setups_left == 2 else SILVER
        else:
            self._history[self._position_key()] -= 1
            self._side ^= 1
            self._steps = list(data)
            while self._steps:
                self.pop_step()
        self._start_hash = start_hash
        self._outcome_cache = None
        return move

    # -- the end of the game ------------------------------------------------------------------------
    def _game_over_at_turn_start(self) -> bool:
        return self._turn_start_outcome() is not None

    def outcome(self) -> Outcome | None:
        if self._setups_left:
            return None
        return self._turn_start_outcome()

    def _turn_start_outcome(self) -> Outcome | None:
        """The end-of-turn checks of rules.md, in the official order, for the position at the
        start of the turn in progress (A just moved, B = the side to move)."""
        if self._setups_left:
            return None
        cache_key = (self._start_hash, self._side, len(self.move_stack))
        if self._outcome_cache is not None and self._outcome_cache[0] == cache_key:
            return self._outcome_cache[1]
        board = self._start_board() if self._steps else self._board
        result = _end_checks(board, self._side)
        if result is None and self._repeated_boards():
            # Immobilised by repetition: every turn left would repeat a position a third time.
            probe = self.turn_start_position() if self._steps else self
            if not probe._has_allowed_turn():
                b, a = SIDE_NAMES[self._side], SIDE_NAMES[self._side ^ 1]
                result = Outcome(
                    a,
                    "immobilisation",
                    f"every turn left to {b.capitalize()} repeats a position a third time",
                )
        self._outcome_cache = (cache_key, result)
        return result

    # -- notation -----------------------------------------------------------------------------------
    def parse_move(self, text: str) -> Any:
        return parse_turn(self, text)

    def move_text(self, move: Any) -> str:
        if isinstance(move, Turn) and move.text:
            return move.text  # a played turn: its text from the position it was played in
        return turn_text(self, move)

    def step_text(self, step: Step | tuple[int, int]) -> str:
        """``Ed2n`` for a step in this position (without capture tokens)."""
        step = Step(*step)
        p = self._board[step.origin]
        if not p:
            raise NotationError(f"there is no piece on {SQUARE_NAMES[step.origin]}")
        if step.dest - step.origin not in DIRECTION_OF or step.dest not in NEIGHBOURS[step.origin]:
            raise NotationError(
                f"{SQUARE_NAMES[step.origin]} to {SQUARE_NAMES[step.dest]} is not one step"
            )
        return f"{PIECE_LETTERS[p]}{step}"

    def parse_step(self, text: str) -> Step:
        return parse_step(self, text)

    def diagram(self) -> str:
        return board_diagram(self)

    def to_aei(self) -> str:
        return position_to_aei(self)

    # -- what the camera sees -------------------------------------------------------------------------
    def cell_names(self) -> list[str]:
        return list(SQUARE_NAMES)

    def cells(self) -> dict[str, str]:
        return {SQUARE_NAMES[sq]: SIDE_NAMES[p >> 3] for sq, p in enumerate(self._board) if p}

    @classmethod
    def cell_classes(cls) -> list[str]:
        return ["gold", "silver"]

    # -- JSON -----------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return position_to_json(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ArimaaPosition:
        return position_from_json(data)

    @classmethod
    def parse_position(cls, text: str) -> ArimaaPosition:
        return parse_position(text)

    # -- random play ------------------------------------------------------------------------------------
    def random_move(self, rng: Any) -> Any:
        """A random legal turn by a random walk over steps (cheap), or a random setup.

        Not uniform over turns. A walk that ends on an illegal turn (unchanged position, third
        repetition, unfinished push) starts again; after a few failures one legal turn is drawn
        from the full list instead.
        """
        if self._setups_left:
            return random_setup(self._side, rng)
        if self._game_over_at_turn_start():
            raise IllegalMoveError(f"the game is over: {self.outcome()}")
        walker = self.copy()
        for _attempt in range(20):
            while True:
                steps = walker.legal_steps()
                stop = walker._steps and walker.can_end_turn()
                choices = len(steps) + (1 if stop else 0)
                if choices == 0:
                    break
                pick = rng.randrange(choices)
                if pick == len(steps):
                    return tuple(walker.steps_this_turn)
                walker._apply_step(Step(*steps[pick]))
                if walker.steps_left == 0:
                    break
            if walker.can_end_turn():
                return tuple(walker.steps_this_turn)
            while walker._steps:
                walker.pop_step()
        moves = self.legal_moves()
        return rng.choice(moves)


SETUP_ARRANGEMENTS = 64_864_800  # 16! / (8! 2! 2! 2!)


def setup_side(text: str) -> str | None:
    """The side whose setup turn `text` is - its pieces are placed, written without a step's
    direction ("Ra1", not "Ed2n"), upper case for gold - or None for a turn of steps.

        >>> setup_side("ra8 rb8 rc8 rd8 re8 rf8 rg8 rh8 da7 hb7 cc7 ed7 me7 cf7 hg7 dh7")
        'silver'
        >>> setup_side("Ed2n Ed3n") is None, setup_side("") is None
        (True, True)
    """
    placed = text.split()
    if not placed or not all(len(token) == 3 and token[0].isalpha() for token in placed):
        return None
    return "gold" if placed[0][0].isupper() else "silver"


def random_setup(side: int, rng: Any) -> tuple[Placement, ...]:
    """A random arrangement of one side's sixteen pieces on its two home ranks."""
    letters = [PIECE_LETTERS[s | (side << 3)] for s, n in SETUP_PIECES.items() for _ in range(n)]
    rng.shuffle(letters)
    squares = range(0, 16) if side == GOLD else range(48, 64)
    return tuple(
        sorted(
            (Placement(letter, sq) for letter, sq in zip(letters, squares, strict=True)),
            key=lambda p: p.square,
        )
    )


def _can_step(board: list[int], side: int) -> bool:
    """Whether `side` has any step at the start of a turn (a quick test before the full list)."""
    color = side << 3
    rabbit_dests = RABBIT_DESTS[side]
    for sq in range(64):
        p = board[sq]
        if p and p & COLOR_BIT == color and not _is_frozen(board, sq, p):
            for d in rabbit_dests[sq] if p & 7 == RABBIT else NEIGHBOURS[sq]:
                if not board[d]:
                    return True
    return bool(_generate_steps(board, side, MAX_STEPS, None, None))


def _end_checks(board: list[int], side: int) -> Outcome | None:
    """rules.md section 2: A (who just moved) goal, B goal, B no rabbits, A no rabbits, B
    immobilised. `side` is B. Repetition-immobility is checked by the caller."""
    a = side ^ 1
    gold_goal = any(board[sq] == RABBIT for sq in range(56, 64))
    silver_goal = any(board[sq] == RABBIT | COLOR_BIT for sq in range(8))
    goal = (gold_goal, silver_goal)
    if goal[a]:
        return Outcome(
            SIDE_NAMES[a], "goal", f"{SIDE_NAMES[a].capitalize()}'s rabbit reached the goal"
        )
    if goal[side]:
        return Outcome(
            SIDE_NAMES[side], "goal", f"{SIDE_NAMES[side].capitalize()}'s rabbit reached the goal"
        )
    rabbits = (RABBIT in board, RABBIT | COLOR_BIT in board)
    if not rabbits[side]:
        return Outcome(
            SIDE_NAMES[a], "elimination", f"{SIDE_NAMES[side].capitalize()} has no rabbits left"
        )
    if not rabbits[a]:
        return Outcome(
            SIDE_NAMES[side], "elimination", f"{SIDE_NAMES[a].capitalize()} has no rabbits left"
        )
    if not _can_step(board, side):
        return Outcome(
            SIDE_NAMES[a], "immobilisation", f"{SIDE_NAMES[side].capitalize()} cannot move"
        )
    return None


def _piece_code(letter: str) -> int:
    if not isinstance(letter, str) or len(letter) != 1 or letter not in "RCDHMErcdhme":
        raise NotationError(
            f"unknown piece {letter!r}: pieces are RCDHME (gold) and rcdhme (silver)"
        )
    return PIECE_LETTERS.index(letter)


def side_index(side: str) -> int:
    key = str(side).strip().lower()
    if key in ("gold", "g", "w", "white"):
        return GOLD
    if key in ("silver", "s", "b", "black"):
        return SILVER
    raise NotationError(f"unknown side {side!r}: use gold (g, w) or silver (s, b)")


# -- text: steps and turns (the arimaa.com notation) --------------------------------------------
STEP_RE = re.compile(r"^([RCDHMErcdhme])([a-h][1-8])([nsewx])$")
PLACEMENT_RE = re.compile(r"^([RCDHMErcdhme])([a-h][1-8])$")
MOVE_TOKEN_RE = re.compile(r"^[RCDHMErcdhme][a-h][1-8][nsewx]?$")
LABEL_RE = re.compile(r"^(\d+)([wbgs])$")


# -- steps and turns ------------------------------------------------------------------------------
def parse_step(position: ArimaaPosition, text: str) -> Step:
    """A step from ``Ed2n``, checked against the piece on the square (not for legality)."""
    token = text.strip()
    match = STEP_RE.match(token)
    if not match or match.group(3) == "x":
        raise NotationError(f"{token!r} is not a step: write piece, square, direction, e.g. Ed2n")
    letter, square, direction = match.groups()
    origin = SQUARE_INDEX[square]
    dest = origin + OFFSET_OF[direction]
    if dest not in NEIGHBOURS[origin]:
        raise NotationError(f"{token}: that step leaves the board")
    actual = position.piece_at(origin)
    if actual is None:
        raise NotationError(f"{token}: there is no piece on {square}")
    if actual != letter:
        raise NotationError(
            f"{token}: {square} holds {piece_description(_piece_code(actual))}, "
            f"not {piece_description(_piece_code(letter))}"
        )
    return Step(origin, dest)


def parse_turn(position: ArimaaPosition, text: str, play: bool = False) -> tuple[Any, ...]:
    """One turn (steps with capture tokens, or a setup) from text; a leading label is allowed.
    A turn of steps comes back as a `Turn` that carries its text (capture tokens filled in), so
    `move_text` still knows it after the turn has been pushed.

    Steps are played on `position` while reading (each piece letter must match the piece that is
    really there after the steps before it) and taken back before returning - unless `play`, when
    the turn is played for good (`end_turn`; for a setup, `push`). Nothing stays played when the
    text is unreadable or illegal.
    """
    if not isinstance(text, str):
        raise NotationError(f"a turn is text like 'Ed2n Ed3n', not {text!r}")
    tokens = text.split()
    if tokens and LABEL_RE.match(tokens[0]):
        tokens = tokens[1:]
    if not tokens:
        raise NotationError("an empty turn: write its steps, e.g. Ed2n Ed3n")
    if position.in_setup:
        if len(tokens) == 1 and tokens[0].lower() in NAMED_SETUPS:  # "standard", "chess"
            tokens = NAMED_SETUPS[tokens[0].lower()][position.turn].split()
        placements = []
        for token in tokens:
            match = PLACEMENT_RE.match(token)
            if not match:
                raise NotationError(
                    f"{token!r}: {position.turn.capitalize()} is setting up, write placements "
                    "like Ra1 Rb1 ... (all sixteen), or standard (rabbits behind, officers in "
                    "front) or chess (as a chess set stands)"
                )
            placements.append(Placement(match.group(1), SQUARE_INDEX[match.group(2)]))
        if play:
            position.push(tuple(placements))
        return tuple(placements)
    if position.steps_this_turn:
        raise IllegalMoveError("a turn is in progress: finish it or take its steps back first")
    steps: list[Step] = []
    canonical: list[str] = []  # the turn's text as this module writes it
    expected: list[str] = []  # capture tokens the steps really caused, not yet matched
    try:
        for token in tokens:
            if PLACEMENT_RE.match(token):
                raise NotationError(
                    f"{token!r}: the setup is over, a turn is made of steps like Ed2n"
                )
            match = STEP_RE.match(token)
            if not match:
                raise NotationError(
                    f"{token!r} is not a step: write piece, square, direction, e.g. Ed2n"
                )
            if match.group(3) == "x":
                if token not in expected:
                    raise IllegalMoveError(
                        f"{token}: no piece is captured there by the step before it"
                    )
                expected.remove(token)
                continue
            step = parse_step(position, token)
            if len(steps) == 4:
                raise IllegalMoveError("a turn has at most four steps")
            captures = position.push_step(step)
            steps.append(step)
            expected = [str(c) for c in captures]
            canonical.append(token)
            canonical.extend(expected)
        # A capture token not written (some old records) is tolerated: the capture happens anyway.
        if play:
            return position.end_turn()
    finally:
        if position.steps_this_turn:
            for _ in steps:
                position.pop_step()
    return Turn(steps, " ".join(canonical))


def turn_text(position: ArimaaPosition, move: Any) -> str:
    """The arimaa.com text of a turn (with capture tokens) or of a setup."""
    move = tuple(move)
    if move and all(isinstance(p, Placement) for p in move):
        return " ".join(str(p) for p in move)
    if position.in_setup:
        raise NotationError("a setup turn is a list of placements like Ra1")
    tokens = []
    played = 0
    try:
        for step in move:
            step = Step(*step)
            tokens.append(position.step_text(step))
            captures = position.push_step(step)
            played += 1
            tokens.extend(str(c) for c in captures)
    finally:
        for _ in range(played):
            position.pop_step()
    return " ".join(tokens)


# -- positions --------------------------------------------------------------------------------------
AEI_RE = re.compile(r"^(?:setposition\s+)?([gswb])\s*\[(.{64})\]\s*$", re.DOTALL)
AEI_ANY_LENGTH_RE = re.compile(r"^(?:setposition\s+)?([gswb])\s*\[([^\]\n]*)\]\s*$")


def parse_position(text: str) -> ArimaaPosition:
    """A position from JSON, the AEI string or the arimaa.com board diagram."""
    if not isinstance(text, str) or not text.strip():
        raise RecordError(
            "an empty Arimaa position: give JSON, an AEI string like 'g [...]' or a board diagram"
        )
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError as exc:  # JSONDecodeError, or a number too long to read
            raise RecordError(f"not a valid Arimaa position: {json_problem(exc)}") from None
        return position_from_json(data)
    match = AEI_RE.match(text.strip("\r\n\t"))
    if match is None:
        match = AEI_RE.match(stripped)
    if match:
        side, squares = match.groups()
        return _position_from_rows(
            [squares[i * 8 : (i + 1) * 8] for i in range(8)], side, "play", []
        )
    wrong = AEI_ANY_LENGTH_RE.match(text.strip("\r\n\t")) or AEI_ANY_LENGTH_RE.match(stripped)
    if wrong:
        raise RecordError(
            f"an AEI position has 64 squares between the brackets, this one {len(wrong.group(2))}: "
            "write a8..h8, a7..h1 in order, a space for an empty square"
        )
    if "|" in text:
        return _parse_diagram(text)
    raise RecordError(
        "not an Arimaa position: expected JSON, an AEI string like 'g [rrrrrrrr...RRRRRRRR]' "
        "(64 squares a8..h1, space = empty) or an arimaa.com board diagram"
    )


def _parse_diagram(text: str) -> ArimaaPosition:
    side = "g"
    number = 2
    steps: list[str] = []
    rows: dict[int, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if (
            not line
            or line.startswith("+")
            or set(line) <= set("abcdefgh ")
            or line.startswith("steps this turn")
        ):
            continue
        tokens = line.split()
        if LABEL_RE.match(tokens[0]) and "|" not in line:
            side = tokens[0][-1]
            number = int(tokens[0][:-1])
            if number < 2:
                raise RecordError(
                    f"board diagram: the label {tokens[0]} is not a turn of play: label a board "
                    "2g or later (2g is the first turn after both setups)"
                )
            steps = tokens[1:]
            continue
        match = re.match(r"^([1-8])\s*\|(.*)\|$", line)
        if not match:
            raise RecordError(f"board diagram: cannot read the line {raw.strip()!r}")
        rank = int(match.group(1))
        body = match.group(2)
        if len(body) >= 16 and not body[0::2].strip():
            # " r . x ..." - a cell every other character, a space for an empty square allowed
            cells = body[1::2].rstrip()
            cells += " " * (8 - len(cells))
        else:
            cells = "".join(body.split())
        if len(cells) != 8:
            raise RecordError(
                f"board diagram: rank {rank} has {len(cells)} squares, not 8: "
                "write one letter or . a square, a b c d e f g h"
            )
        rows[rank] = "".join(" " if c in ".xX " else c for c in cells)
    missing = [r for r in range(1, 9) if r not in rows]
    if missing:
        raise RecordError(f"board diagram: rank {missing[0]} is missing")
    return _position_from_rows([rows[r] for r in range(8, 0, -1)], side, "play", steps, number)


def _position_from_rows(
    rows: list[str], side: str, phase: str, steps: list[str], number: int = 2
) -> ArimaaPosition:
    """rows: 8 strings of 8 letters, rank 8 first; ' ' or '.' for empty."""
    board = [0] * 64
    counts: Counter[int] = Counter()
    for r, row in enumerate(rows):
        if len(row) != 8:
            raise RecordError(f"rank {8 - r} must have 8 squares, not {len(row)}")
        for f, ch in enumerate(row):
            if ch in " .xX":
                continue
            if ch not in "RCDHMErcdhme":
                raise RecordError(
                    f"unknown piece {ch!r} on {SQUARE_NAMES[(7 - r) * 8 + f]}: pieces are RCDHME and rcdhme"
                )
            code = PIECE_LETTERS.index(ch)
            board[(7 - r) * 8 + f] = code
            counts[code] += 1
    # More pieces than a side starts with is allowed: composed problems (goal tests) use them.
    try:
        mover = side_index(side)
    except NotationError as exc:
        raise RecordError(str(exc)) from None
    if phase == "setup":
        position = ArimaaPosition.new()
        if mover == SILVER:
            if any(p >> 3 for p in board if p):
                raise RecordError("during setup only Gold's pieces can be on the board")
            position._board = board
            position._hash = board_hash(board)
            position._setups_left = 1
            position._side = SILVER
            position._start_hash = position._hash
            position._ply_offset = 1  # Gold's setup (not in move_stack) came first
        elif any(board):
            raise RecordError("before Gold's setup the board must be empty")
        return position
    position = ArimaaPosition.from_board(board, SIDE_NAMES[mover], turn_number=number)
    for token in steps:
        try:
            position.push_step(parse_step(position, token))
        except UserError as exc:
            raise RecordError(f"step {token!r} of the turn in progress: {exc}") from None
    return position


def _rows(board: list[int]) -> list[str]:
    return [
        "".join(
            PIECE_LETTERS[board[rank * 8 + f]] if board[rank * 8 + f] else "." for f in range(8)
        )
        for rank in range(7, -1, -1)
    ]


def position_to_json(position: ArimaaPosition) -> dict[str, Any]:
    start = position.turn_start_position() if position.steps_this_turn else position
    # Only what differs from the defaults (a chess set: {"equipment": "chess"}), so a game on
    # the mat keeps {} as before and a chess-set game is resumed as one.
    options = {
        f.name: getattr(position.options, f.name)
        for f in dataclasses.fields(position.options)
        if getattr(position.options, f.name) != f.default
    }
    data: dict[str, Any] = {
        "game": "arimaa",
        "options": options,
        "phase": "setup" if position.in_setup else "play",
        "turn": position.turn,
        "board": _rows(start._board),
        "turn_number": position.turn_number,
    }
    if position.steps_this_turn:
        texts = []
        for step in position.steps_this_turn:
            texts.append(start.step_text(step))
            start._apply_step(step)
        data["steps"] = texts
    return data


def position_from_json(data: Any) -> ArimaaPosition:
    if not isinstance(data, dict):
        raise RecordError("an Arimaa position must be a JSON object")
    if data.get("game", "arimaa") != "arimaa":
        raise RecordError(f"not an Arimaa position (game {data.get('game')!r})")
    options = ArimaaPosition.options_from(data.get("options"))
    board = data.get("board")
    if not isinstance(board, list) or len(board) != 8 or not all(isinstance(r, str) for r in board):
        raise RecordError('"board" must be a list of 8 texts, rank 8 first, e.g. "rrrrrrrr"')
    phase = data.get("phase", "play")
    if phase not in ("setup", "play"):
        raise RecordError('"phase" must be "setup" or "play"')
    steps = data.get("steps", [])
    if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
        raise RecordError('"steps" must be a list of step texts like "Ed2n"')
    number = data.get("turn_number", 1 if phase == "setup" else 2)
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise RecordError('"turn_number" must be a whole number from 1')
    position = _position_from_rows(board, str(data.get("turn", "gold")), phase, steps, number)
    position.options = options  # what the game is played with (a chess set: not a rule)
    return position


def position_to_aei(position: ArimaaPosition) -> str:
    """``g [64 squares a8..h1]`` of the current board (steps of a turn in progress included)."""
    squares = "".join(PIECE_LETTERS[p] if p else " " for p in _a8_order(position._board))
    return f"{'gs'[position._side]} [{squares}]"


def _a8_order(board: list[int]) -> list[int]:
    return [board[rank * 8 + f] for rank in range(7, -1, -1) for f in range(8)]


def board_diagram(position: ArimaaPosition, label: bool = True) -> str:
    """The arimaa.com board diagram of the current board, with the turn label line on top
    (``2g``) as in aei's long format. Mid-turn a last line lists the steps played so far; it is
    for people (reading the diagram back starts a fresh turn on the board shown)."""
    board = position._board
    lines = []
    if label:
        lines.append(position.turn_label)
    lines.append(" +-----------------+")
    for rank in range(7, -1, -1):
        cells = []
        for f in range(8):
            sq = rank * 8 + f
            p = board[sq]
            cells.append(PIECE_LETTERS[p] if p else ("x" if sq in TRAP_SET else "."))
        lines.append(f"{rank + 1}| {' '.join(cells)} |")
    lines.append(" +-----------------+")
    lines.append("   a b c d e f g h  ")
    if label and position.steps_this_turn:
        start = position.turn_start_position()
        texts = []
        for step in position.steps_this_turn:
            texts.append(start.step_text(step))
            start._apply_step(step)
        lines.append(f"steps this turn: {' '.join(texts)}")
    return "\n".join(lines)
