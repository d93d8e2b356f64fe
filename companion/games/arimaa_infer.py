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
generator and capture rule, played on a local copy of the board with incremental Zobrist
hashing) with a transposition table keyed by (board, push to finish, pull still possible - kept
only when a weaker enemy stands next to the square left, so that transpositions meet), pruned
by an admissible lower bound on the steps still needed to reach the observed colours:

- every square that must gain a piece of a colour needs a distinct piece of that colour to end
  there, at least its Manhattan distance from the nearest such piece away;
- every square that must lose its piece needs a step that starts there (only traps empty by
  themselves, so trap squares are left out of both bounds).

A branch whose bound exceeds the steps left cannot reach the observation and is cut; a step is
judged by the bound updated for that step alone (a capture can only raise it) before it is
played. That keeps every case - a whole turn seen at once, one to three steps of a turn, half a
push - to a few hundred nodes, p99 under 30 ms here; see bench/bench_arimaa_infer.py.
The referee (`companion.referee.arimaa`) explains every board with `infer(...,
keep_steps=True)`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.errors import NotationError, UserError
from companion.games.arimaa import (
    COLOR_BIT,
    MAX_STEPS,
    NEIGHBOURS,
    PENDING_KEY,
    PIECE_LETTERS,
    PULL_KEY,
    SQUARE_INDEX,
    SQUARE_NAMES,
    TRAP_NEXT_TO,
    TRAP_SET,
    ZOBRIST,
    ArimaaPosition,
    Capture,
    Step,
    _capture_after,
    _generate_steps,
    _push_pull_after,
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


class _Goal:
    """Per-observation tables the bound reads (built once per `infer`)."""

    __slots__ = ("want", "wrong", "keep", "squares")

    def __init__(self, want: list[int]) -> None:
        self.want = want
        # wrong[c][sq]: a piece of colour c on sq must leave it; keep[c][sq]: a piece of colour c
        # on sq is where the camera shows it (moving it leaves a square to fill again);
        # squares[c]: the squares that must end with a piece of colour c. Traps left out.
        self.wrong = [[0] * 64 for _ in range(3)]
        self.keep = [[0] * 64 for _ in range(3)]
        self.squares: list[list[int]] = [[], [], []]
        for colour in (GOLD, SILVER):
            for sq in _NON_TRAPS:
                w = want[sq]
                if w != ANY and w != colour:
                    self.wrong[colour][sq] = 1
                if w == colour:
                    self.keep[colour][sq] = 1
                    self.squares[colour].append(sq)


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

    def __init__(self, board: list[int], goal: _Goal, enemy: int) -> None:
        self.want = goal.want
        self.enemy = enemy
        # One pass over the board: each colour's pieces (with their refill cost) and the
        # pieces standing where the camera shows another colour or nothing.
        vacate = 0
        sources: tuple[list[Any], list[Any], list[Any]] = ([], [], [])
        colour_of = _COLOUR_OF
        wrong, keep = goal.wrong, goal.keep
        sq = -1
        for p in board:
            sq += 1
            if p:
                c = colour_of[p]
                vacate += wrong[c][sq]
                sources[c].append((sq, keep[c][sq]))
        self.vacate = vacate
        self.targets: list[list[tuple[int, int, int, int]]] = [[], [], []]
        self.arrive = [0, 0, 0]
        for colour in (GOLD, SILVER):
            total = 0
            targets = self.targets[colour]
            from_colour = sources[colour]
            for t in goal.squares[colour]:
                if colour_of[board[t]] == colour:
                    continue
                row = _DISTANCE[t]
                best = second = _FAR
                best_sq = -1
                for s, extra in from_colour:
                    v = row[s] + extra
                    if v < best:
                        best, second, best_sq = v, best, s
                    elif v < second:
                        second = v
                targets.append((t, best, best_sq, second))
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


_Pair = tuple[int, int]  # (square, strength) of a pending push or a possible pull


def _record(
    found: dict[tuple[int, bool], Candidate],
    board: list[int],
    obs: list[int],
    path: list[tuple[int, int]],
    captures: list[Capture],
    key: tuple[int, bool],
) -> None:
    """Keep the turn `path` (board hash and pending push in `key`) as a candidate when its board
    shows the observation, unless a shorter (or equally long, earlier) turn reached it."""
    captured_at = {c.square: PIECE_LETTERS.index(c.piece) for c in captures}
    uncleared = _match(board, obs, captured_at)
    if uncleared is None:
        return
    old = found.get(key)
    steps = tuple(Step(o, d) for o, d in path)
    if old is not None and (len(old.steps), old.steps) <= (len(steps), steps):
        return
    pieces = tuple((sq, PIECE_LETTERS[p]) for sq, p in enumerate(board) if p)
    found[key] = Candidate(steps, tuple(captures), pieces, uncleared, key[1])


def _played_so_far(pos: ArimaaPosition) -> tuple[list[tuple[int, int]], list[Capture]]:
    """The steps of the turn in progress (origin, destination) and the captures they made."""
    path: list[tuple[int, int]] = [(r.step[0], r.step[1]) for r in pos._steps]
    captures: list[Capture] = [
        Capture(PIECE_LETTERS[r.captured[0]], r.captured[1])
        for r in pos._steps
        if r.captured is not None
    ]
    return path, captures


def _live_pull(pos: ArimaaPosition, board: list[int], me: int) -> tuple[int, int] | None:
    """The position's possible pull, or None when no weaker enemy stands next to the puller:
    the same state as no pull (as in the search)."""
    pull = pos._pull
    if pull is not None and not any(
        board[n] and board[n] & COLOR_BIT != me and board[n] & 7 < pull[1]
        for n in NEIGHBOURS[pull[0]]
    ):
        return None
    return pull


def infer(
    position: ArimaaPosition,
    observed: Mapping[str, str],
    *,
    max_steps: int = MAX_STEPS,
    keep_steps: bool = False,
) -> Inference:
    """Every legal partial or complete turn, from the start of the turn in progress in
    `position`, whose board shows the colours `observed` (cell -> "gold" / "silver" / "empty" /
    "unknown"; cells not named are empty). At most `max_steps` steps.

    `keep_steps`: only turns that begin with the steps already played in `position` (the
    referee's "the steps already seen"): the search starts where `position` stands, with the
    steps it has left. Candidates still list every step from the start of the turn, and
    captures made by the kept steps count (a piece they captured may still stand on its trap).
    """
    if position.in_setup:
        raise UserError("move inference starts after both setups: the setup is given, not inferred")
    obs = observation_codes(observed)
    if position.is_game_over():
        return Inference((), 0)
    pos = position if keep_steps else position.turn_start_position()
    if keep_steps:
        max_steps = min(max_steps, position.steps_left)
    board = list(pos._board)
    side = pos._side
    goal = _Goal(obs)
    me = side << 3
    own, enemy = (GOLD, SILVER) if side == 0 else (SILVER, GOLD)
    found: dict[tuple[int, bool], Candidate] = {}
    # state -> the most steps left it was expanded with: a state seen with as many steps left or
    # more has nothing new to offer (its continuations include every shorter one).
    seen: dict[int, int] = {}
    path, captures = _played_so_far(pos)
    nodes = 0
    zobrist = ZOBRIST
    trap_next_to = TRAP_NEXT_TO

    def record(h: int, pending: bool) -> None:
        _record(found, board, obs, path, captures, (h, pending))

    def visit(h: int, left: int, pending: _Pair | None, pull: _Pair | None) -> None:
        """The state after `path`: board hash `h`, `pending` (square, strength) of a push to
        finish, `pull` (square, strength) of an own piece that may pull - kept only when a
        weaker enemy stands next to its square, so transpositions meet."""
        nonlocal nodes
        key = h
        if pending is not None:
            key ^= PENDING_KEY[pending[1]][pending[0]]
        elif pull is not None:
            key ^= PULL_KEY[pull[1]][pull[0]]
        if seen.get(key, -1) >= left:
            return
        seen[key] = left
        nodes += 1
        if left == 0:
            record(h, pending is not None)
            return
        bound = _Bound(board, goal, enemy)
        value = bound.value(pull is not None)
        if value > left:
            return
        if value == 0:  # a board that shows the observation has nothing to vacate or fill
            record(h, pending is not None)
        rest = left - 1
        for o, d in _generate_steps(board, side, left, pending, pull):
            p = board[o]
            colour = _COLOUR_OF[p]
            # After an own step that does not finish a push, a pull may follow: the bound
            # must allow for it (a lower bound may only err low).
            pull_open = colour == own and pending is None
            # The bound as if nothing were captured: the board outside o and d is what
            # after_step reads; a capture only takes a piece off a trap (left out of the
            # bound) and a source away, so it can only be higher - still a lower bound, and the
            # child computes the exact one.
            if bound.after_step(board, o, d, colour, pull_open) > rest:
                continue
            board[o] = 0
            board[d] = p
            h2 = h ^ zobrist[p][o] ^ zobrist[p][d]
            captured = 0
            t = _capture_after(board, o, p) if trap_next_to[o] >= 0 else -1
            if t >= 0:
                captured = board[t]
                board[t] = 0
                h2 ^= zobrist[captured][t]
                captures.append(Capture(PIECE_LETTERS[captured], t))
            new_pending, new_pull = _push_pull_after(board, o, d, p, me, pending, pull)
            path.append((o, d))
            visit(h2, rest, new_pending, new_pull)
            path.pop()
            if captured:
                captures.pop()
                board[t] = captured
            board[d] = 0
            board[o] = p

    visit(pos._hash, max(0, min(max_steps, MAX_STEPS)), pos._pending, _live_pull(pos, board, me))
    ordered = sorted(found.values(), key=lambda c: (len(c.steps), c.steps))
    return Inference(tuple(ordered), nodes)
