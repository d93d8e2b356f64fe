"""Arimaa move inference: which legal steps explain the board the camera sees.

A camera sees colours (gold, silver, empty), not piece types, and the players may have made
one, two, three or four steps - or half a push - since the referee last looked. `infer` finds
every legal partial or complete turn, from the start of the turn in progress, whose board shows
those colours, and tells

- the step sequence of each (the fewest steps for each distinct result, fewest first),
- the captures each implies (a captured piece the players have not yet taken off its trap still
  counts as explained: it is reported in `uncleared`, so the referee can say "remove it"),
- whether the observation is ambiguous: two candidates with the fewest steps and different piece
  types on the same squares (two gold pieces that could have exchanged roles) - the referee then
  asks the players.

The search is exact, not a guess: a depth-first walk over legal steps (the engine's own step
generator and step application) with a transposition set, pruned by an admissible lower bound on
the steps still needed to reach the observed colours:

- every square that must gain a piece of a colour needs a distinct piece of that colour to end
  there, at least its Manhattan distance from the nearest such piece away;
- every square that must lose its piece needs a step that starts there (only traps empty by
  themselves, so trap squares are left out of both bounds).

A branch whose bound exceeds the steps left cannot reach the observation and is cut. That keeps
the usual case (a turn's worth of change seen at once) to a few thousand nodes; see
bench/bench_arimaa_infer.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from companion.errors import NotationError, UserError
from companion.games.arimaa import (
    COLOR_BIT,
    MAX_STEPS,
    NEIGHBOURS,
    PIECE_LETTERS,
    SQUARE_INDEX,
    SQUARE_NAMES,
    TRAP_NEXT_TO,
    TRAP_SET,
    ArimaaPosition,
    Capture,
    Step,
    _generate_steps,
)

EMPTY, GOLD, SILVER, ANY = 0, 1, 2, -1
_CLASS_CODES = {"empty": EMPTY, "gold": GOLD, "silver": SILVER, "unknown": ANY}
_DISTANCE = [[abs(a % 8 - b % 8) + abs(a // 8 - b // 8) for b in range(64)] for a in range(64)]
_NON_TRAPS = [sq for sq in range(64) if sq not in TRAP_SET]


@dataclass(frozen=True)
class Candidate:
    """One explanation of the board seen: the steps from the start of the turn."""

    steps: tuple[Step, ...]
    captures: tuple[Capture, ...]
    pieces: tuple[tuple[int, str], ...]  # the typed board after the steps: (square, letter)
    uncleared: tuple[int, ...]  # traps where a captured piece still stands on the real board
    pending_push: bool  # half a push: the pushing piece has yet to step in

    @property
    def board(self) -> dict[str, str]:
        """Square name -> piece letter after the steps."""
        return {SQUARE_NAMES[sq]: letter for sq, letter in self.pieces}


@dataclass(frozen=True)
class Inference:
    candidates: tuple[Candidate, ...]  # fewest steps first; one per distinct typed result
    nodes: int  # search nodes visited (for the benchmark)

    @property
    def found(self) -> bool:
        return bool(self.candidates)

    @property
    def best(self) -> Candidate | None:
        return self.candidates[0] if self.candidates else None

    @property
    def fewest(self) -> tuple[Candidate, ...]:
        """The candidates with the fewest steps: the explanations a referee picks from (a
        longer way to the same colours is never preferred to a shorter one)."""
        if not self.candidates:
            return ()
        least = len(self.candidates[0].steps)
        return tuple(c for c in self.candidates if len(c.steps) == least)

    @property
    def ambiguous(self) -> bool:
        """True when the fewest-step candidates disagree about which piece stands where (two
        gold pieces that could have exchanged roles). Longer explanations do not count: that
        some five-piece shuffle also shows the colours does not make one step doubtful."""
        return len({c.pieces for c in self.fewest}) > 1

    def squares_in_doubt(self) -> dict[str, tuple[str, ...]]:
        """Square name -> the piece letters the fewest-step candidates put there, where they
        disagree."""
        boards = [dict(c.pieces) for c in self.fewest]
        squares = sorted({sq for b in boards for sq in b})
        doubt = {}
        for sq in squares:
            letters = {b.get(sq, " ") for b in boards}
            if len(letters) > 1:
                doubt[SQUARE_NAMES[sq]] = tuple(
                    sorted(letter for letter in letters if letter != " ")
                )
        return doubt


def observation_codes(observed: Mapping[str, str]) -> list[int]:
    """64 codes (empty/gold/silver/any) from a cell -> class map; unnamed squares are empty."""
    codes = [EMPTY] * 64
    for cell, cls in observed.items():
        if cell not in SQUARE_INDEX:
            raise NotationError(
                f"unknown Arimaa square {cell!r} in the observation: squares are a1..h8"
            )
        if cls not in _CLASS_CODES:
            raise NotationError(
                f"unknown class {cls!r} on {cell}: an Arimaa observation holds gold, silver, empty or unknown"
            )
        codes[SQUARE_INDEX[cell]] = _CLASS_CODES[cls]
    return codes


_COLOUR_OF = [EMPTY] + [GOLD] * 7 + [EMPTY] + [SILVER] * 6  # piece code -> colour
_COLOUR_OF[COLOR_BIT] = EMPTY


def _colour(piece: int) -> int:
    return _COLOUR_OF[piece]


class _Bound:
    """An admissible lower bound on the steps that turn a board's colours into the observed
    ones, computed once per search node and then, for each candidate step, updated in O(targets)
    instead of recomputed (the search evaluates many more steps than it expands).

    - vacate: squares whose piece must leave (each step starts on one square);
    - arrive[c]: for each square that must gain a piece of colour c, the distance from the
      nearest piece of colour c - plus one when that piece already stands where the camera
      shows its colour, since its square must then be filled again. Distinct pieces end on
      distinct squares, so the sum is a lower bound;
    - enemy pieces move only by push or pull, each paired with a step of the mover's own.
    Trap squares are left out: pieces vanish from them by themselves (captures).
    """

    __slots__ = ("want", "enemy", "vacate", "targets", "arrive")

    def __init__(self, board: list[int], want: list[int], enemy: int) -> None:
        self.want = want
        self.enemy = enemy
        vacate = 0
        for sq in _NON_TRAPS:
            p = board[sq]
            w = want[sq]
            if p and w != ANY and _COLOUR_OF[p] != w:
                vacate += 1
        self.vacate = vacate
        self.targets: list[list[tuple[int, int, int, int]]] = [[], [], []]
        self.arrive = [0, 0, 0]
        for colour in (GOLD, SILVER):
            squares = [
                sq for sq in _NON_TRAPS if want[sq] == colour and _COLOUR_OF[board[sq]] != colour
            ]
            if not squares:
                continue
            sources = [
                (sq, 1 if want[sq] == colour and sq not in TRAP_SET else 0)
                for sq in range(64)
                if _COLOUR_OF[board[sq]] == colour
            ]
            total = 0
            for t in squares:
                row = _DISTANCE[t]
                best = second = _FAR
                best_sq = -1
                for s, extra in sources:
                    v = row[s] + extra
                    if v < best:
                        best, second, best_sq = v, best, s
                    elif v < second:
                        second = v
                self.targets[colour].append((t, best, best_sq, second))
                total += best
            self.arrive[colour] = total

    def value(self, pull_open: bool) -> int:
        arrive = self.arrive
        return max(self.vacate, arrive[GOLD] + arrive[SILVER], 2 * arrive[self.enemy] - pull_open)

    def after_step(self, board: list[int], o: int, d: int, colour: int, pull_open: bool) -> int:
        """The bound after the piece of `colour` on `o` steps to the empty `d` (no capture)."""
        want = self.want
        wo, wd = want[o], want[d]
        vacate = self.vacate
        if o not in TRAP_SET and wo != ANY and wo != colour:
            vacate -= 1
        if d not in TRAP_SET and wd != ANY and wd != colour:
            vacate += 1
        extra_d = 1 if (wd == colour and d not in TRAP_SET) else 0
        row_d = _DISTANCE
        total = 0
        for t, best, best_sq, second in self.targets[colour]:
            if t == d:
                continue
            without = second if best_sq == o else best
            via = row_d[t][d] + extra_d
            total += via if via < without else without
        if wo == colour and o not in TRAP_SET:
            # The square just left must be filled again by a piece of the same colour.
            need = 1 + extra_d
            if need > 1:
                for n in NEIGHBOURS[o]:
                    if (
                        n != d
                        and _COLOUR_OF[board[n]] == colour
                        and not (want[n] == colour and n not in TRAP_SET)
                    ):
                        need = 1
                        break
            total += need
        arrive = list(self.arrive)
        arrive[colour] = total
        return max(vacate, arrive[GOLD] + arrive[SILVER], 2 * arrive[self.enemy] - pull_open)


_FAR = 99


def _steps_needed(board: list[int], obs: list[int], side: int, pull_open: bool = False) -> int:
    """An admissible lower bound on the steps that turn `board`'s colours into `obs`."""
    return _Bound(board, obs, SILVER if side == 0 else GOLD).value(pull_open)


def _match(board: list[int], obs: list[int], captured: dict[int, int]) -> tuple[int, ...] | None:
    """None if `board` does not show `obs`; else the traps whose captured piece is still seen."""
    uncleared = []
    for sq in range(64):
        want = obs[sq]
        if want == ANY:
            continue
        have = _colour(board[sq])
        if have == want:
            continue
        if have == EMPTY and sq in captured and _colour(captured[sq]) == want:
            uncleared.append(sq)
            continue
        return None
    return tuple(uncleared)


def infer(
    position: ArimaaPosition, observed: Mapping[str, str], *, max_steps: int = MAX_STEPS
) -> Inference:
    """Every legal partial or complete turn, from the start of the turn in progress in
    `position`, whose board shows the colours `observed` (cell -> "gold" / "silver" / "empty" /
    "unknown"; cells not named are empty). At most `max_steps` steps."""
    if position.in_setup:
        raise UserError("move inference starts after both setups: the setup is given, not inferred")
    obs = observation_codes(observed)
    pos = position.turn_start_position()
    if pos.is_game_over():
        return Inference((), 0)
    board = pos._board
    side = pos._side
    own, enemy = (GOLD, SILVER) if side == 0 else (SILVER, GOLD)
    found: dict[tuple[int, bool], Candidate] = {}
    # state -> the most steps left it was expanded with: a state seen with as many steps left or
    # more has nothing new to offer (its continuations include every shorter one).
    seen: dict[tuple[int, object, object], int] = {}
    steps: list[Step] = []
    captures: list[Capture] = []
    nodes = 0

    def record() -> None:
        captured_at = {c.square: PIECE_LETTERS.index(c.piece) for c in captures}
        uncleared = _match(board, obs, captured_at)
        if uncleared is None:
            return
        pending = pos._pending is not None
        key = (pos._hash, pending)
        old = found.get(key)
        if old is not None and (len(old.steps), old.steps) <= (len(steps), tuple(steps)):
            return
        pieces = tuple((sq, PIECE_LETTERS[p]) for sq, p in enumerate(board) if p)
        found[key] = Candidate(tuple(steps), tuple(captures), pieces, uncleared, pending)

    def visit(left: int) -> None:
        nonlocal nodes
        key = (pos._hash, pos._pending, pos._pull)
        if seen.get(key, -1) >= left:
            return
        seen[key] = left
        nodes += 1
        record()
        if left == 0:
            return
        bound = _Bound(board, obs, enemy)
        pending = pos._pending
        for o, d in _generate_steps(board, side, left, pending, pos._pull):
            p = board[o]
            colour = _COLOUR_OF[p]
            # After an own step that does not finish a push, a pull may follow: the bound
            # must allow for it (a lower bound may only err low).
            pull_open = colour == own and pending is None
            may_capture = TRAP_NEXT_TO[o] >= 0
            if not may_capture and bound.after_step(board, o, d, colour, pull_open) > left - 1:
                continue
            step = Step(o, d)
            caps = pos._apply_step(step)
            if caps:
                viable = _steps_needed(board, obs, side, pos._pull is not None) <= left - 1
            else:  # the board outside o and d is unchanged, which is all after_step reads
                viable = (
                    not may_capture or bound.after_step(board, o, d, colour, pull_open) <= left - 1
                )
            if viable:
                steps.append(step)
                captures.extend(caps)
                visit(left - 1)
                steps.pop()
                del captures[len(captures) - len(caps) :]
            pos.pop_step()

    if _steps_needed(board, obs, side) <= max_steps:
        visit(min(max_steps, MAX_STEPS))
    ordered = sorted(found.values(), key=lambda c: (len(c.steps), c.steps))
    return Inference(tuple(ordered), nodes)
