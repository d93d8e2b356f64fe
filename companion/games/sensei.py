"""Sensei (Ferti; designer Philippe Lefrançois), versions Arashi and Shizukana: rules.md section 4.

Two players, Green (start row: rank 1) and Red (rank 7), each with 7 stones and a character
(a figurine) that always stands on one of its own stones. A turn is 1 to 3 *actions*, in any
order: move a stone, move a second stone (or the same one again), move the character.

Two levels of API, because the table and the records see the game differently:

- **Whole turns** (the shared model of `companion.games.base`): a move is a tuple of actions,
  written like ``"b1-b3 c1-c2 @d1-f3"`` (stone moves as from-to, the character move marked with
  ``@``; ``"pass"`` when the player has no legal action at all). `legal_moves()` lists one turn
  per distinct resulting position (the shortest way to get there), `push(turn)` plays any legal
  sequence of actions, `random_move()` builds a random sequence of legal actions cheaply.
- **Single actions** (for the referee, who sees one physical move at a time and waits for the
  DONE button): `legal_actions()`, `push_action(a)`, `pop_action()`, `actions_this_turn`,
  `can_end_turn()`, `end_turn()`, `action_error(a)` (why an action is illegal, in plain words)
  and `describe_action(a)`.

Internally the stones of each player are a 49-bit mask (bit ``(rank-1)*7 + file``), which keeps
the listing of all turns of a busy Arashi position (tens of thousands of action sequences) well
under a second in pure Python.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal

from companion.errors import IllegalMoveError, NotationError, OptionError, RecordError
from companion.games.base import Outcome, Position, options_to_dict
from companion.geometry import BoardGeometry, sensei_geometry

# -- the board ----------------------------------------------------------------------------------
SIZE = 7
FILES = "abcdefg"
CELLS: tuple[str, ...] = tuple(f"{f}{r}" for r in range(1, SIZE + 1) for f in FILES)
INDEX: dict[str, int] = {name: i for i, name in enumerate(CELLS)}
FULL = (1 << SIZE * SIZE) - 1
FILE_A = sum(1 << (rank * SIZE) for rank in range(SIZE))
FILE_G = FILE_A << (SIZE - 1)
START_ROWS = ((1 << SIZE) - 1, ((1 << SIZE) - 1) << (SIZE * (SIZE - 1)))  # Green: rank 1, Red: 7
PLAYERS = ("green", "red")
STONES_PER_PLAYER = 7

_ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def _ray(index: int, df: int, dr: int) -> tuple[int, ...]:
    """The cells from `index` outward in direction (df, dr), nearest first, up to the edge."""
    f, r = index % SIZE + df, index // SIZE + dr
    cells = []
    while 0 <= f < SIZE and 0 <= r < SIZE:
        cells.append(r * SIZE + f)
        f, r = f + df, r + dr
    return tuple(cells)


# Per cell: the rays a stone may travel (rows and columns) and a character may see along
# (rows, columns and diagonals). Empty rays (at the edge) are left out.
STONE_RAYS = tuple(tuple(r for d in _ORTHOGONAL if (r := _ray(i, *d))) for i in range(SIZE * SIZE))
LINE_RAYS = tuple(
    tuple(r for d in _ORTHOGONAL + _DIAGONAL if (r := _ray(i, *d))) for i in range(SIZE * SIZE)
)


def _bits(mask: int) -> Iterator[int]:
    """The indices of the set bits of `mask`, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _orthogonal_neighbours(mask: int) -> int:
    return (
        ((mask << 1) & ~FILE_A) | ((mask >> 1) & ~FILE_G) | (mask << SIZE) | (mask >> SIZE)
    ) & FULL


def _all_neighbours(mask: int) -> int:
    """Cells touching `mask` by edge or corner (8-neighbourhood), plus `mask` itself."""
    row = mask | ((mask << 1) & ~FILE_A) | ((mask >> 1) & ~FILE_G)
    return (row | (row << SIZE) | (row >> SIZE)) & FULL


def _mask(cells: Any) -> int:
    mask = 0
    for index in cells:
        mask |= 1 << index
    return mask


def _names(mask: int) -> list[str]:
    return [CELLS[i] for i in _bits(mask)]


# -- options --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SenseiOptions:
    """The options of a Sensei game; defaults are the Decisions of rules.md section 4.

    movement: "arashi" (a stone slides any number of free squares) or "shizukana" (exactly one
    square). The rules name no default; the companion uses Arashi, the version of the Storm side.
    side: "plain" or "storm" (the other side of the board, with pits that stones can neither enter
    nor cross, and that count as part of a blocking line in the unfair-game rule).
    pits: the pit cells of the storm side (ignored on the plain side).
    variant_start: the b- and f-file stones of the two sides swap rows (fig. 5).
    first: who moves first.
    turn_cap: None, or a number of turns (both players' turns counted) after which the game is
    a draw.
    no_action: what happens to a player with no legal action at all at the start of their turn:
    "pass" (the Decision) or "lose".
    """

    movement: Literal["arashi", "shizukana"] = "arashi"
    side: Literal["plain", "storm"] = "plain"
    pits: tuple[str, ...] = ("c3", "e3", "c5", "e5")
    variant_start: bool = False
    first: Literal["green", "red"] = "green"
    turn_cap: int | None = None
    no_action: Literal["pass", "lose"] = "pass"

    def __post_init__(self) -> None:
        if self.no_action not in ("pass", "lose"):
            raise OptionError(
                f"sensei option no_action must be pass or lose, not {self.no_action!r}"
            )
        if self.movement not in ("arashi", "shizukana"):
            raise OptionError(
                f"sensei option movement must be arashi or shizukana, not {self.movement!r}"
            )
        if self.side not in ("plain", "storm"):
            raise OptionError(f"sensei option side must be plain or storm, not {self.side!r}")
        if self.first not in PLAYERS:
            raise OptionError(f"sensei option first must be green or red, not {self.first!r}")
        if self.turn_cap is not None and (
            isinstance(self.turn_cap, bool)
            or not isinstance(self.turn_cap, int)
            or self.turn_cap < 1
        ):
            raise OptionError(
                f"sensei option turn_cap must be a whole number of turns >= 1, not {self.turn_cap!r}"
            )
        if isinstance(self.pits, str) or not all(isinstance(p, str) for p in self.pits):
            raise OptionError(
                f"sensei option pits must be a list of cells such as c3 e3, not {self.pits!r}"
            )
        pits = tuple(p.strip().lower() for p in self.pits)
        if not pits:
            raise OptionError(
                "sensei option pits is empty: name the storm side's pit cells, such as "
                "c3 e3 c5 e5 (the default), or leave the option out"
            )
        for pit in pits:
            if pit not in INDEX:
                raise OptionError(
                    f"sensei option pits: {pit!r} is not a cell of the 7x7 board (a1 to g7)"
                )
            if pit[1] in "17":
                raise OptionError(
                    f"sensei option pits: {pit} is on a start row (ranks 1 and 7 hold the stones)"
                )
        if len(set(pits)) != len(pits):
            raise OptionError(f"sensei option pits lists a cell twice: {' '.join(pits)}")
        object.__setattr__(self, "pits", pits)

    def pit_mask(self) -> int:
        return _mask(INDEX[p] for p in self.pits) if self.side == "storm" else 0


# -- actions and turns --------------------------------------------------------------------------
STONE: Final = "stone"
CHARACTER: Final = "character"
# the camera's class of a stone carrying its character: "green-character" (`cells`)
CHARACTER_SUFFIX: Final = "-character"


@dataclass(frozen=True, slots=True)
class Action:
    """One physical action: a stone or the character going from cell `src` to cell `dst`."""

    piece: Literal["stone", "character"]
    src: str
    dst: str

    def __str__(self) -> str:
        return action_text(self)


Turn = tuple[Action, ...]  # () is a pass

# Every action that can ever be legal, made once: listing turns then never builds objects.
_STONE_ACTION: dict[tuple[int, int], Action] = {}
_CHARACTER_ACTION: dict[tuple[int, int], Action] = {}
for _src in range(SIZE * SIZE):
    for _ray_cells in LINE_RAYS[_src]:
        for _dst in _ray_cells:
            _CHARACTER_ACTION[_src, _dst] = Action(CHARACTER, CELLS[_src], CELLS[_dst])
    for _ray_cells in STONE_RAYS[_src]:
        for _dst in _ray_cells:
            _STONE_ACTION[_src, _dst] = Action(STONE, CELLS[_src], CELLS[_dst])

_ACTION_RE = re.compile(r"(@?)([a-z]+\d+)-?([a-z]+\d+)")
# The lines of `diagram()`, read back by `parse_position`.
_DIAGRAM_HEADER = re.compile(r"Sensei \((arashi|shizukana), (plain|storm) side\)", re.IGNORECASE)
_DIAGRAM_STATUS = re.compile(
    r"(green|red) to move(?: \(turn (\d+)\))?(, this turn so far: .*)?", re.IGNORECASE
)
_DIAGRAM_ROW = re.compile(r"(?:[1-7]\s+)?((?:[.gGrRx]\s*){7})")
_FILE_LETTERS = re.compile(r"a\s*b\s*c\s*d\s*e\s*f\s*g")


def action_text(action: Action) -> str:
    """``b1-b3`` for a stone, ``@d1-f3`` for the character."""
    mark = "@" if action.piece == CHARACTER else ""
    return f"{mark}{action.src}-{action.dst}"


def turn_text(turn: Turn) -> str:
    return " ".join(action_text(a) for a in turn) if turn else "pass"


def parse_action(text: str) -> Action:
    """An action from ``b1-b3`` (stone) or ``@d1-f3`` (character); NotationError when unreadable."""
    token = text.strip().lower()
    match = _ACTION_RE.fullmatch(token)
    if not match:
        raise NotationError(
            f"cannot read the Sensei action {text!r}: write a stone move as b1-b3 "
            "and a character move as @d1-f3"
        )
    mark, src, dst = match.groups()
    for cell in (src, dst):
        if cell not in INDEX:
            raise NotationError(f"{text!r}: there is no cell {cell} on the 7x7 board (a1 to g7)")
    return Action(CHARACTER if mark else STONE, src, dst)


def there_and_back(turn: Turn) -> bool:
    """Whether `turn` is one stone moved and moved straight back (`SenseiPosition.empty_turn`):
    a turn that leaves every piece where it was.

        >>> there_and_back(parse_turn("a1-a2 a2-a1")), there_and_back(parse_turn("a1-a2 a2-a3"))
        (True, False)
    """
    return (
        len(turn) == 2
        and turn[0].piece == turn[1].piece == STONE
        and (turn[0].src, turn[0].dst) == (turn[1].dst, turn[1].src)
    )


def parse_turn(text: str) -> Turn:
    """A whole turn: actions separated by spaces or commas, or ``pass``."""
    tokens = [t for t in re.split(r"[\s,]+", text.strip()) if t]
    if not tokens:
        raise NotationError("an empty Sensei turn: write its actions, e.g. b1-b3 @d1-b3, or pass")
    if len(tokens) == 1 and tokens[0].lower() == "pass":
        return ()
    if len(tokens) > 3:
        raise NotationError(f"{text!r} has {len(tokens)} actions; a Sensei turn has at most 3")
    return tuple(parse_action(t) for t in tokens)


# -- the position ---------------------------------------------------------------------------------
# A snapshot of everything a push can change (for pop and pop_action).
_State = tuple[tuple[int, int], tuple[int, int], int, int, "Outcome | None"]


class SenseiPosition(Position[Turn]):
    """A Sensei game in progress (see the module docstring for the two levels of API)."""

    name: ClassVar[str] = "sensei"
    title: ClassVar[str] = "Sensei"
    players: ClassVar[tuple[str, str]] = PLAYERS
    Options: ClassVar[type] = SenseiOptions
    move_text_names_every_change: ClassVar[bool] = True
    mats: ClassVar[dict[str, dict[str, Any]]] = {
        "sensei": {"side": "plain"},
        "sensei-storm": {"side": "storm"},
    }
    referee: ClassVar[str] = "companion.referee.sensei:SenseiReferee"
    rule_reasons: ClassVar[frozenset[str]] = frozenset(
        {"character-home", "unfair-game", "turn-cap", "no-action"}
    )

    @classmethod
    def title_for(cls, options: Any = None) -> str:
        """ "Sensei Arashi" or "Sensei Shizukana": the versions move stones differently
        ("Sensei" for options that are not the game's: a record's, changed by hand)."""
        try:
            movement = cls.options_of(options).movement
        except OptionError:
            return cls.title
        return f"{cls.title} {movement.capitalize()}"

    @classmethod
    def board_geometry(cls, options: Any = None) -> BoardGeometry:
        return sensei_geometry(options)

    @classmethod
    def own_layout(cls, options: Any = None) -> str | None:
        """A Sensei board of one's own is a 7 x 7 grid (either side: the storm side's marks
        are printed on the mat only)."""
        return "grid:7x7"

    def __init__(
        self,
        options: SenseiOptions,
        stones: tuple[int, int],
        characters: tuple[int, int],
        turn_index: int,
        turns_played: int = 0,
    ) -> None:
        self.options = options
        self._stones = stones  # (green mask, red mask)
        self._characters = characters  # (green cell index, red cell index)
        self._turn_index = turn_index
        self._turns_played = turns_played
        self._pits = options.pit_mask()
        self._max_slide = SIZE if options.movement == "arashi" else 1
        self.move_stack: list[Turn] = []
        self._turn_starts: list[_State] = []  # the state before each turn of move_stack
        self._actions: list[Action] = []  # the turn in progress
        self._action_undo: list[_State] = []  # the state before each of those actions
        self._turn_start: _State | None = None  # the state before the turn in progress
        self._outcome: Outcome | None = self._judge()

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def new(cls, options: Any = None) -> SenseiPosition:
        options = cls.options_of(options)
        green, red = START_ROWS
        if options.variant_start:
            swap = _mask(INDEX[c] for c in ("b1", "f1", "b7", "f7"))
            green, red = green ^ (swap & (green | red)), red ^ (swap & (green | red))
        green_char, red_char = INDEX["d1"], INDEX["d7"]
        return cls(options, (green, red), (green_char, red_char), PLAYERS.index(options.first))

    @classmethod
    def from_rows(
        cls,
        rows: list[str] | str,
        turn: str = "green",
        options: SenseiOptions | None = None,
        turns_played: int = 0,
    ) -> SenseiPosition:
        """A position from a picture of the board, rank 7 first: ``g``/``r`` a stone, ``G``/``R``
        a stone carrying its character, ``.`` (or ``x``, a pit) empty; spaces are ignored.
        Handy for tests and puzzles; RecordError when the picture is not a legal position."""
        if isinstance(rows, str):
            rows = [r for r in rows.strip().splitlines() if r.strip()]
        lines = [row.replace(" ", "") for row in rows]
        if len(lines) != SIZE or any(len(line) != SIZE for line in lines):
            raise RecordError("a Sensei board picture needs 7 rows of 7 cells (g r G R . x)")
        stones: dict[str, list[str]] = {"green": [], "red": []}
        characters: dict[str, str] = {}
        for row_number, line in enumerate(lines):
            rank = SIZE - row_number
            for file, symbol in zip(FILES, line, strict=True):
                cell = f"{file}{rank}"
                if symbol in "gGrR":
                    player = "green" if symbol in "gG" else "red"
                    stones[player].append(cell)
                    if symbol.isupper():
                        if player in characters:
                            raise RecordError(
                                f"{player} has two characters ({characters[player]} and {cell})"
                            )
                        characters[player] = cell
                elif symbol not in ".x":
                    raise RecordError(f"unknown symbol {symbol!r} at {cell}: use g r G R . x")
        options = options or SenseiOptions()
        return cls.from_json(
            {
                "game": cls.name,
                "options": _options_json(options),
                "turn": turn,
                "turns_played": turns_played,
                "stones": stones,
                "characters": characters,
            }
        )

    @classmethod
    def parse_position(cls, text: str) -> SenseiPosition:
        """A position from `to_json` JSON, or from the text `diagram()` prints (or just its 7
        board rows, rank 7 first): the header sets the movement, ``x`` cells are the pits of the
        storm side, and the last line says whose turn it is. RecordError when unreadable."""
        if text.lstrip().startswith("{"):
            return super().parse_position(text)
        rows: list[str] = []
        movement, side = "arashi", "plain"
        turn, turns_played = "green", 0
        for line in text.splitlines():
            stripped = line.strip()
            if (
                not stripped
                or _FILE_LETTERS.fullmatch(stripped)
                or stripped.lower().startswith("game over")  # also diagrams of older versions
            ):
                continue
            if header := _DIAGRAM_HEADER.fullmatch(stripped):
                movement, side = header.group(1).lower(), header.group(2).lower()
            elif status := _DIAGRAM_STATUS.fullmatch(stripped):
                if status.group(3):
                    raise RecordError(
                        "a diagram of a turn in progress does not show where the pieces started: "
                        "use the JSON form of the position"
                    )
                turn, turns_played = status.group(1).lower(), int(status.group(2) or 1) - 1
            elif row := _DIAGRAM_ROW.fullmatch(stripped):
                rows.append(row.group(1))
            else:
                raise RecordError(
                    f"cannot read {stripped!r} as a row of a Sensei board: write 7 rows of "
                    "g r G R . x (rank 7 first), or the JSON form"
                )
        pit_cells = [
            f"{file}{SIZE - number}"
            for number, row in enumerate(rows)
            for file, symbol in zip(FILES, row.replace(" ", ""), strict=False)
            if symbol == "x"
        ]
        pits = sorted(pit_cells, key=INDEX.__getitem__)
        try:
            fields: dict[str, Any] = {"movement": movement, "side": "storm" if pits else side}
            if pits:
                fields["pits"] = tuple(pits)
            options = SenseiOptions(**fields)
        except OptionError as exc:
            raise RecordError(f"this board cannot be read: {exc}") from None
        return cls.from_rows(rows, turn=turn, options=options, turns_played=turns_played)

    def copy(self) -> SenseiPosition:
        other = object.__new__(SenseiPosition)
        other.__dict__.update(self.__dict__)
        other.move_stack = list(self.move_stack)
        other._turn_starts = list(self._turn_starts)
        other._actions = list(self._actions)
        other._action_undo = list(self._action_undo)
        return other

    def root(self) -> SenseiPosition:
        board = self.copy()
        board._discard_turn_in_progress()
        while board.move_stack:
            board.pop()
        return board

    # -- state ------------------------------------------------------------------------------------
    @property
    def turn(self) -> str:
        return PLAYERS[self._turn_index]

    @property
    def turns_played(self) -> int:
        """Whole turns played in this game (both players counted; passes too)."""
        return self._turns_played

    @property
    def actions_this_turn(self) -> tuple[Action, ...]:
        """The actions of the turn in progress (empty between turns)."""
        return tuple(self._actions)

    @property
    def mid_turn(self) -> bool:
        """True once an action of the turn is made (the turn ends with DONE)."""
        return bool(self._actions)

    def character_cell(self, player: str) -> str:
        return CELLS[self._characters[PLAYERS.index(player)]]

    def stone_cells(self, player: str) -> list[str]:
        return _names(self._stones[PLAYERS.index(player)])

    def pit_cells(self) -> list[str]:
        return _names(self._pits)

    def board_key(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """A cheap hashable summary of the board (stones and characters of both players):
        equal keys, equal boards."""
        return self._stones, self._characters

    def _state(self) -> _State:
        return (self._stones, self._characters, self._turn_index, self._turns_played, self._outcome)

    def _restore(self, state: _State) -> None:
        self._stones, self._characters, self._turn_index, self._turns_played, self._outcome = state

    def _budget(self) -> tuple[int, bool]:
        """(stone moves made, character moved) in the turn in progress."""
        stones = sum(1 for a in self._actions if a.piece == STONE)
        return stones, any(a.piece == CHARACTER for a in self._actions)

    # -- single actions (the referee's API) -----------------------------------------------------
    def legal_actions(self) -> list[Action]:
        """Every action the player to move may make next in this turn (empty when the game is
        over or the turn has used all its actions)."""
        if self._outcome is not None:
            return []
        return self._possible_actions()

    def _possible_actions(self) -> list[Action]:
        """`legal_actions` without asking whether the game is over (`_judge` asks it)."""
        me = self._turn_index
        own, opp = self._stones[me], self._stones[1 - me]
        char = self._characters[me]
        stones_moved, char_moved = self._budget()
        actions = []
        if stones_moved < 2:
            occupied = own | opp | self._pits
            actions += [_STONE_ACTION[s, t] for s, t in self._stone_moves(own, occupied, char)]
        if not char_moved:
            actions += [_CHARACTER_ACTION[char, t] for t in _character_targets(own, opp, char)]
        return actions

    def _stone_moves(self, own: int, occupied: int, char: int) -> Iterator[tuple[int, int]]:
        reach = self._max_slide
        for src in _bits(own & ~(1 << char)):
            for ray in STONE_RAYS[src]:
                for dst in ray[:reach]:
                    if occupied >> dst & 1:
                        break
                    yield src, dst

    def action_error(self, action: Action) -> str | None:
        """Why `action` is not legal now, in plain words (None when it is legal)."""
        if self._outcome is not None:
            return f"the game is over: {self._outcome}"
        for cell in (action.src, action.dst):
            if cell not in INDEX:
                return f"there is no cell {cell!r} on the 7x7 board (a1 to g7)"
        me = self._turn_index
        player, opponent = PLAYERS[me].capitalize(), PLAYERS[1 - me]
        own, opp = self._stones[me], self._stones[1 - me]
        src, dst = INDEX[action.src], INDEX[action.dst]
        char = self._characters[me]
        stones_moved, char_moved = self._budget()
        if action.piece == CHARACTER:
            if char_moved:
                return "you already moved your character this turn"
            if src != char:
                if src == self._characters[1 - me]:
                    return f"that is the {opponent} character: it is {player}'s turn"
                return f"{player}'s character is on {CELLS[char]}, not on {action.src}"
            if src == dst:
                return "the character did not move"
            path = _path(src, dst, LINE_RAYS)
            if path is None:
                return "a character moves along a row, column or diagonal"
            if not own >> dst & 1:
                what = f"a {opponent} stone" if opp >> dst & 1 else "empty"
                return (
                    f"a character must land on one of your own stones, and {action.dst} is {what}"
                )
            for sq in path:
                if opp >> sq & 1:
                    return f"a {opponent} stone blocks the character's way at {CELLS[sq]}"
            return None
        if action.piece != STONE:
            return f"unknown piece {action.piece!r}: a stone or the character moves"
        if stones_moved >= 2:
            return "you already moved two stones this turn"
        if not (own | opp) >> src & 1:
            return f"there is no stone on {action.src}"
        if opp >> src & 1:
            return f"the stone on {action.src} is {opponent}: it is {player}'s turn"
        if src == char:
            return f"the stone on {action.src} carries the character and cannot move"
        if src == dst:
            return "the stone did not move"
        path = _path(src, dst, STONE_RAYS)
        if path is None:
            if _path(src, dst, LINE_RAYS) is not None:
                return "stones move along a row or column, never diagonally"
            return "a stone moves in one straight line along a row or column"
        if len(path) + 1 > self._max_slide:
            return "in Shizukana a stone moves exactly one square"
        for sq in path + (dst,):
            if opp >> sq & 1:
                return f"a {opponent} stone blocks the way at {CELLS[sq]}"
            if own >> sq & 1:
                return f"your own stone blocks the way at {CELLS[sq]}"
            if self._pits >> sq & 1:
                return f"the pit at {CELLS[sq]} blocks the way: stones cannot enter or cross pits"
        return None

    def push_action(self, action: Action) -> None:
        """Make one action of the turn in progress; IllegalMoveError (with the reason) if not
        legal. An action that wins ends the turn and the game at once."""
        error = self.action_error(action)
        if error:
            raise IllegalMoveError(f"{action_text(action)}: {error}")
        if not self._actions:
            self._turn_start = self._state()
        self._action_undo.append(self._state())
        self._actions.append(action)
        me = self._turn_index
        src, dst = INDEX[action.src], INDEX[action.dst]
        if action.piece == STONE:
            stones = list(self._stones)
            stones[me] ^= (1 << src) | (1 << dst)
            self._stones = (stones[0], stones[1])
        else:
            chars = list(self._characters)
            chars[me] = dst
            self._characters = (chars[0], chars[1])
            if START_ROWS[1 - me] >> dst & 1:  # character home: the game ends mid-turn
                self._close_turn()

    def pop_action(self) -> Action:
        """Take back the last action of the turn in progress (IndexError when there is none)."""
        if not self._actions:
            raise IndexError("no action of this turn to take back")
        self._restore(self._action_undo.pop())
        return self._actions.pop()

    def empty_turn(self) -> Turn | None:
        """A turn that leaves every piece where it was: a stone moved and moved straight back
        (a stone's second move may be the same stone again, in any direction) - the first
        stone that can move, as `legal_moves` lists that turn. None when the turn has begun
        or no stone can move (then the player passes).

            >>> position = SenseiPosition.new()
            >>> position.move_text(position.empty_turn())
            'a1-a2 a2-a1'
        """
        if self._actions:
            return None
        for action in self.legal_actions():
            if action.piece == STONE:  # its way back is free: it has just come along it
                return (action, Action(STONE, action.dst, action.src))
        return None

    def can_end_turn(self) -> bool:
        """True when DONE may end the turn: at least one action made, or none possible (pass)."""
        if self._outcome is not None:
            return False
        return bool(self._actions) or not self.legal_actions()

    def end_turn(self) -> None:
        """End the turn in progress (DONE): the move is recorded, the other player is to move,
        and the end-of-turn rules apply (unfair game, turn cap)."""
        if self._outcome is not None:
            raise IllegalMoveError(f"the game is over: {self._outcome}")
        if not self._actions and self.legal_actions():
            raise IllegalMoveError(
                "make at least one action first (move a stone or the character); "
                "a player may pass only when no action is possible"
            )
        if not self._actions:
            self._turn_start = self._state()
        self._close_turn()

    def _close_turn(self) -> None:
        if self._turn_start is None:
            raise RuntimeError("a turn closed that never started")  # a bug, never a user's
        self.move_stack.append(tuple(self._actions))
        self._turn_starts.append(self._turn_start)
        self._actions.clear()
        self._action_undo.clear()
        self._turn_index = 1 - self._turn_index
        self._turns_played += 1
        self._outcome = self._judge()

    def _discard_turn_in_progress(self) -> None:
        if self._actions:
            self._restore(self._action_undo[0])
            self._actions.clear()
            self._action_undo.clear()

    def describe_action(self, action: Action) -> str:
        """The action in plain words, e.g. "Green moves the stone on b1 to b3"."""
        player = PLAYERS[self._turn_index].capitalize()
        if action.piece == CHARACTER:
            text = f"{player} moves the character from {action.src} to {action.dst}"
            if action.dst in INDEX and START_ROWS[1 - self._turn_index] >> INDEX[action.dst] & 1:
                text += f", home on {PLAYERS[1 - self._turn_index].capitalize()}'s start row"
            return text
        return f"{player} moves the stone on {action.src} to {action.dst}"

    # -- whole turns (the shared model) ---------------------------------------------------------
    def _require_turn_boundary(self) -> None:
        if self._actions:
            raise IllegalMoveError(
                f"a turn is in progress ({turn_text(self.actions_this_turn)}): "
                "end it or take its actions back first"
            )

    def legal_moves(self) -> list[Turn]:
        """One turn per distinct resulting position (the shortest action sequence reaching it,
        stone moves listed before the character move where the order does not matter); a turn
        that wins stops at the winning action. ``[()]`` (pass) when no action is possible."""
        if self._outcome is not None:
            return []
        self._require_turn_boundary()
        turns = self._distinct_turns()
        return list(turns.values()) if turns else [()]

    def _distinct_turns(self) -> dict[tuple[int, int], Turn]:
        """(own stones, character cell) after the turn -> the first (shortest) turn found."""
        me = self._turn_index
        own0, opp = self._stones[me], self._stones[1 - me]
        walls = opp | self._pits
        goal = START_ROWS[1 - me]
        reach = self._max_slide
        results: dict[tuple[int, int], Turn] = {}
        expanded: set[tuple[int, int, int, bool]] = set()
        # A node: (own stones, character cell, stone moves made, character moved, actions).
        level: list[tuple[int, int, int, bool, Turn]] = [(own0, self._characters[me], 0, False, ())]
        for depth in range(3):
            last = depth == 2
            next_level: list[tuple[int, int, int, bool, Turn]] = []
            for own, char, stones_moved, char_moved, seq in level:
                if depth and _dominated(expanded, own, char, stones_moved, char_moved):
                    continue
                expanded.add((own, char, stones_moved, char_moved))
                if stones_moved < 2:
                    occupied = own | walls
                    for src in _bits(own & ~(1 << char)):
                        bit = 1 << src
                        for ray in STONE_RAYS[src]:
                            for dst in ray[:reach]:
                                if occupied >> dst & 1:
                                    break
                                after = own ^ bit ^ (1 << dst)
                                key = (after, char)
                                if key not in results:
                                    results[key] = seq + (_STONE_ACTION[src, dst],)
                                if not last:
                                    next_level.append(
                                        (
                                            after,
                                            char,
                                            stones_moved + 1,
                                            char_moved,
                                            seq + (_STONE_ACTION[src, dst],),
                                        )
                                    )
                if not char_moved:
                    for dst in _character_targets(own, opp, char):
                        key = (own, dst)
                        if key not in results:
                            results[key] = seq + (_CHARACTER_ACTION[char, dst],)
                        if not last and not goal >> dst & 1:  # a win ends the turn
                            next_level.append(
                                (
                                    own,
                                    dst,
                                    stones_moved,
                                    True,
                                    seq + (_CHARACTER_ACTION[char, dst],),
                                )
                            )
            level = next_level
        return results

    def count_legal_moves(self) -> int:
        return len(self.legal_moves())

    def push(self, move: Turn) -> None:
        """Play a whole turn (any legal sequence of 1-3 actions, or () to pass when no action
        is possible). Nothing changes when it is illegal: IllegalMoveError says why."""
        self._require_turn_boundary()
        if self._outcome is not None:
            raise IllegalMoveError(f"the game is over: {self._outcome}")
        actions = tuple(move)
        if len(actions) > 3:
            raise IllegalMoveError(f"a turn has at most 3 actions, not {len(actions)}")
        for number, action in enumerate(actions, start=1):
            if self._outcome is not None:  # an earlier action won
                self._undo_last_turn()
                raise IllegalMoveError(
                    f"the game ended with {action_text(actions[number - 2])}: "
                    f"nothing can follow it ({turn_text(actions)})"
                )
            if not isinstance(action, Action):
                self._discard_turn_in_progress()
                raise IllegalMoveError(
                    f"action {number} of the turn is not a Sensei action: {action!r}"
                )
            error = self.action_error(action)
            if error:
                self._discard_turn_in_progress()
                where = (
                    f"action {number} ({action_text(action)})"
                    if len(actions) > 1
                    else action_text(action)
                )
                raise IllegalMoveError(f"{where}: {error}")
            self.push_action(action)
        if self._outcome is None:
            if not actions and self.legal_actions():
                raise IllegalMoveError(
                    f"{PLAYERS[self._turn_index].capitalize()} cannot pass: "
                    "a player passes only when no action is possible"
                )
            self.end_turn()

    def pop(self) -> Turn:
        """Take back the last whole turn (a turn in progress is discarded first)."""
        self._discard_turn_in_progress()
        if not self.move_stack:
            raise IndexError("no turn to take back")
        return self._undo_last_turn()

    def _undo_last_turn(self) -> Turn:
        self._restore(self._turn_starts.pop())
        return self.move_stack.pop()

    def random_move(self, rng: Any) -> Turn:
        """A random turn, built as a random sequence of legal actions (cheap, unlike listing
        every turn). Mildly purposeful so that seeded random games finish: an action that wins
        at once is always taken, and a turn stops after each action with probability 1/3."""
        if self._outcome is not None:
            raise IllegalMoveError(f"the game is over: {self._outcome}")
        self._require_turn_boundary()
        board = self.copy()
        goal = START_ROWS[1 - self._turn_index]
        while True:
            actions = board.legal_actions()
            if not actions:
                break
            winning = [a for a in actions if a.piece == CHARACTER and goal >> INDEX[a.dst] & 1]
            if winning:
                board.push_action(rng.choice(winning))
                break
            board.push_action(rng.choice(actions))
            if rng.random() < 1 / 3:
                break
        if board.move_stack[len(self.move_stack) :]:  # the game was won mid-turn
            return board.move_stack[-1]
        return board.actions_this_turn

    def outcome(self) -> Outcome | None:
        return self._outcome

    # -- the end of the game ----------------------------------------------------------------------
    def _judge(self) -> Outcome | None:
        """The result of the current state: a character home (any time), else at a turn
        boundary the unfair-game rule and the turn cap."""
        for me in (0, 1):
            if START_ROWS[1 - me] >> self._characters[me] & 1:
                return Outcome(
                    PLAYERS[me],
                    "character-home",
                    f"{PLAYERS[me].capitalize()}'s character reached "
                    f"{CELLS[self._characters[me]]} on {PLAYERS[1 - me].capitalize()}'s start row",
                )
        if self._actions:
            return None
        blocking = [self.unfair_line(PLAYERS[me]) is not None for me in (0, 1)]
        if any(blocking):
            mover = 1 - self._turn_index  # the player who just moved
            if all(blocking):
                loser = 1 - mover
                detail = (
                    "both players block the board with a line that 3 opposing stones touch; "
                    f"{PLAYERS[mover].capitalize()} moved last and wins"
                )
            else:
                loser = blocking.index(True)
                detail = (
                    f"{PLAYERS[loser].capitalize()}'s line from the a-file to the g-file cannot "
                    f"be crossed and {PLAYERS[1 - loser].capitalize()} has at least 3 stones touching it"
                )
            return Outcome(PLAYERS[1 - loser], "unfair-game", detail)
        cap = self.options.turn_cap
        if cap is not None and self._turns_played >= cap:
            return Outcome(None, "turn-cap", f"the turn cap of {cap} turns was reached")
        if self.options.no_action == "lose" and not self._possible_actions():
            stuck = PLAYERS[self._turn_index]
            return Outcome(
                PLAYERS[1 - self._turn_index],
                "no-action",
                f"{stuck.capitalize()} has no legal action (no_action=lose)",
            )
        return None

    def unfair_line(self, player: str) -> list[str] | None:
        """The cells of `player`'s blocking line (its stones plus pits, 8-connected, from the
        a-file to the g-file, at least one of them its stone) when at least 3 opposing stones
        touch it orthogonally - each line counted apart -; else None.
        Such a line loses the game for `player` at the end of a turn (the unfair-game rule)."""
        me = PLAYERS.index(player)
        blocking = 0
        for chain in _spanning_chains(self._stones[me] | self._pits):
            if not chain & self._stones[me]:
                continue  # pits alone are nobody's line: "the blocker's stones (plus pits)"
            if (_orthogonal_neighbours(chain) & self._stones[1 - me]).bit_count() >= 3:
                blocking |= chain
        return _names(blocking) if blocking else None

    # -- notation -------------------------------------------------------------------------------
    def parse_move(self, text: str) -> Turn:
        return parse_turn(text)

    def move_text(self, move: Turn) -> str:
        return turn_text(tuple(move))

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def diagram(self) -> str:
        """The board with rank 7 at the top: g/r stones, G/R a stone carrying its character,
        x a pit, . empty; then whose turn it is (and the actions of a turn in progress) and,
        when the game is over, ``game over: ...``."""
        symbols = dict.fromkeys(range(SIZE * SIZE), ".")
        for index in _bits(self._pits):
            symbols[index] = "x"
        for me, letter in ((0, "g"), (1, "r")):
            for index in _bits(self._stones[me]):
                symbols[index] = letter.upper() if index == self._characters[me] else letter
        opts = self.options
        lines = [f"Sensei ({opts.movement.capitalize()}, {opts.side} side)"]
        for rank in range(SIZE, 0, -1):
            row = " ".join(symbols[(rank - 1) * SIZE + f] for f in range(SIZE))
            lines.append(f"{rank}  {row}")
        lines.append("   " + " ".join(FILES))
        # whose turn it is, over too (as Arinama's): who moved last may decide the result
        status = f"{self.turn.capitalize()} to move (turn {self._turns_played + 1})"
        if self._actions:
            status += f", this turn so far: {turn_text(self.actions_this_turn)}"
        lines.append(status)
        if self._outcome is not None:
            lines.append(f"game over: {self._outcome}")  # the words of every game
        return "\n".join(lines)

    # -- what the camera sees -------------------------------------------------------------------
    def cell_names(self) -> list[str]:
        return list(CELLS)

    def cells(self) -> dict[str, str]:
        """Occupied cells -> "green" / "red", or "green-character" / "red-character" for the
        stone a character stands on. Pits are printed on the board: the camera sees them empty."""
        seen = {}
        for me, player in enumerate(PLAYERS):
            for index in _bits(self._stones[me]):
                seen[CELLS[index]] = player
            seen[CELLS[self._characters[me]]] = player + CHARACTER_SUFFIX
        return seen

    @classmethod
    def cell_classes(cls) -> list[str]:
        return [*PLAYERS, *(player + CHARACTER_SUFFIX for player in PLAYERS)]

    # -- JSON -------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """``{"game", "options", "turn", "turns_played", "stones": {"green": [...], "red": [...]},
        "characters": {"green": "d1", "red": "d7"}, "actions": [...the turn in progress]}``."""

        # With a turn in progress, the board is the one at the start of that turn and "actions"
        # replays what was done since: the JSON then holds the whole turn, as the referee saw it.
        stones, characters, turn_index, turns_played, _ = (
            self._action_undo[0] if self._actions else self._state()
        )
        return {
            "game": self.name,
            "options": _options_json(self.options),
            "turn": PLAYERS[turn_index],
            "turns_played": turns_played,
            "stones": {p: _names(stones[i]) for i, p in enumerate(PLAYERS)},
            "characters": {p: CELLS[characters[i]] for i, p in enumerate(PLAYERS)},
            "actions": [action_text(a) for a in self._actions],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SenseiPosition:
        if not isinstance(data, dict):
            raise RecordError("a Sensei position must be a JSON object")
        if data.get("game", cls.name) != cls.name:
            raise RecordError(f"not a Sensei position (game {data.get('game')!r})")
        options = cls.options_from(data.get("options"))
        turn = data.get("turn", options.first)
        if turn not in PLAYERS:
            raise RecordError(f'"turn" must be "green" or "red", not {turn!r}')
        turns_played = data.get("turns_played", 0)
        if isinstance(turns_played, bool) or not isinstance(turns_played, int) or turns_played < 0:
            raise RecordError(f'"turns_played" must be a whole number >= 0, not {turns_played!r}')
        stones_data, chars_data = data.get("stones"), data.get("characters")
        if not isinstance(stones_data, dict) or not isinstance(chars_data, dict):
            raise RecordError(
                'a Sensei position needs "stones" and "characters" objects keyed by green and red'
            )
        pits = options.pit_mask()
        masks: list[int] = []
        chars: list[int] = []
        for player in PLAYERS:
            cells = stones_data.get(player)
            if not isinstance(cells, list) or not 1 <= len(cells) <= STONES_PER_PLAYER:
                raise RecordError(f'"stones.{player}" must be a list of 1 to 7 cells')
            mask = 0
            for cell in cells:
                index = INDEX.get(str(cell).lower())
                if index is None:
                    raise RecordError(
                        f'"stones.{player}": {cell!r} is not a cell of the board (a1 to g7)'
                    )
                if (mask | (masks[0] if masks else 0)) >> index & 1:
                    raise RecordError(f'"stones.{player}": two stones on {cell}')
                if pits >> index & 1:
                    raise RecordError(f'"stones.{player}": a stone cannot stand in the pit {cell}')
                mask |= 1 << index
            char = INDEX.get(str(chars_data.get(player)).lower())
            if char is None or not mask >> char & 1:
                raise RecordError(
                    f'"characters.{player}" must be the cell of one of {player}\'s stones, '
                    f"not {chars_data.get(player)!r}"
                )
            masks.append(mask)
            chars.append(char)
        position = cls(
            options, (masks[0], masks[1]), (chars[0], chars[1]), PLAYERS.index(turn), turns_played
        )
        actions = data.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError('"actions" must be a list of the actions of the turn in progress')
        for text in actions:
            try:
                position.push_action(parse_action(str(text)))
            except (NotationError, IllegalMoveError) as exc:
                raise RecordError(f'"actions": {exc}') from None
        return position


# -- helpers ----------------------------------------------------------------------------------------
def _options_json(options: SenseiOptions) -> dict[str, Any]:
    data = options_to_dict(options)
    data["pits"] = list(data["pits"])
    return data


def _character_targets(own: int, opp: int, char: int) -> list[int]:
    """Own stones in line with the character (row, column, diagonal) with no opponent stone
    between; own stones, empty squares and pits do not block the view."""
    targets = []
    for ray in LINE_RAYS[char]:
        for cell in ray:
            if opp >> cell & 1:
                break
            if own >> cell & 1:
                targets.append(cell)
    return targets


def _path(
    src: int, dst: int, rays: tuple[tuple[tuple[int, ...], ...], ...]
) -> tuple[int, ...] | None:
    """The cells strictly between src and dst along one of `rays`, or None if not in line."""
    for ray in rays[src]:
        if dst in ray:
            return ray[: ray.index(dst)]
    return None


def _dominated(
    expanded: set[tuple[int, int, int, bool]], own: int, char: int, stones: int, moved: bool
) -> bool:
    """True when the same board was already expanded with no more of the turn used up."""
    for used in range(stones + 1):
        if (own, char, used, False) in expanded or (moved and (own, char, used, True) in expanded):
            return True
    return False


def _spanning_chains(wall: int) -> list[int]:
    """The 8-connected chains of `wall` that touch both the a-file and the g-file, each apart
    (rules.md: 3 stones touching *that* chain - two lines are two chains, even side by side)."""
    spanning = []
    todo = wall & FILE_A
    while todo:
        chain = todo & -todo
        while True:
            grown = _all_neighbours(chain) & wall
            if grown == chain:
                break
            chain = grown
        if chain & FILE_G:
            spanning.append(chain)
        todo &= ~chain
    return spanning
