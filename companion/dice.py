"""Dice for the table: fair by default, repeatable when seeded.

`Dice()` draws from the operating system's randomness (`secrets.SystemRandom`), so nobody can
predict or replay a live game's rolls; `Dice(seed=N)` uses `random.Random(N)` for tests, demos
and replays. Every roll a game uses is stored in its record, so replays never need the seed.

Aranea reads two six-sided dice as one value 1..12: the sum, except that a 3 and a 4 count as 1
(the only way to make 1, and why the game can use every number on a clock face).

    >>> roll = Dice(seed=1).roll()  # seeded: the same roll every time
    >>> roll, roll.text, roll.value
    (Roll(a=2, b=5), '2-5', 7)
    >>> Roll(3, 4).value  # Aranea's 1
    1

The players read the dice in words, "2 and 5" (German "2 und 5"): the notation's "2-5" reads
like one of Aranea's cells ("r2-5") beside it. `dice_words` and `move_dice_words` are for every
layer - the games' own messages, the referee, the commands, the review and the export.

    >>> Roll(2, 5).words, move_dice_words("roll 2-5"), move_dice_words("r2-5")
    ('2 and 5', '2 and 5', None)
"""

from __future__ import annotations

import random
import re
import secrets
from dataclasses import dataclass
from fractions import Fraction

from companion.errors import NotationError, UserError
from companion.i18n import _, pgettext

SIDES = 6
MAX_DICE = 100
MAX_SIDES = 1000
_ROLL_TEXT = re.compile(r"^\s*([1-6])\s*[-+ ,]\s*([1-6])\s*$")


def dice_words(a: object, b: object) -> str:
    """Two dice as the players read them: "1 and 4" ("1 und 4" in German), never the
    notation's "1-4", which reads like one of Aranea's cells ("r1-4") beside it."""
    return pgettext("two dice", "{a} and {b}").format(a=a, b=b)


def many_dice_words(values: tuple[int, ...] | list[int]) -> str:
    """Any number of dice as the players read them, as `dice_words` reads two: "4", "4 and 2",
    "4, 2 and 5" ("4, 2 und 5" in German).

    >>> many_dice_words([4]), many_dice_words([4, 2]), many_dice_words([4, 2, 5])
    ('4', '4 and 2', '4, 2 and 5')
    """
    shown = [str(v) for v in values]
    if len(shown) == 1:
        return shown[0]
    return dice_words(", ".join(shown[:-1]), shown[-1])


def move_roll(move: str) -> Roll | None:
    """The dice of a roll move's notation ("roll 2-5"); None for any other move (a cell like
    "r2-5", "place", "pass") and for a roll whose dice are not known ("roll ?").

        >>> move_roll("roll 3-4").value, move_roll("r3-4")
        (1, None)
    """
    word, _space, dice = move.partition(" ") if isinstance(move, str) else ("", "", "")
    if word != "roll":
        return None
    try:
        return Roll.parse(dice)
    except NotationError:
        return None


def shown_move(text: str) -> str:
    """A recorded move as the players read it (the review's list, the exported page's
    captions): cells and steps as the notation writes them, its words in the table's language
    ("roll 4-4": "Wurf 4 und 4 = 8", "pass": "aussetzen"; the dice never as "4-4", which reads
    like a cell beside "r4-4"), a roll with the value it gave (a 3 and a 4 count as 1).

        >>> shown_move("roll 3-4"), shown_move("r3-4")
        ('roll 3 and 4 = 1', 'r3-4')
    """
    roll = move_roll(text)
    if roll is not None:
        return _("roll {dice} = {value}").format(dice=roll.words, value=roll.value)
    if text == "pass":
        return pgettext("move", "pass")
    if text == "place":  # Aranea: a stone from the stock onto the board
        return pgettext("move", "place")
    return text


def move_dice_words(move: str) -> str | None:
    """The dice of a roll move's notation in words ("roll 2-5": "2 and 5"); None for any other
    move and for a roll whose dice are not known (`move_roll`)."""
    roll = move_roll(move)
    return None if roll is None else roll.words


def aranea_value(a: int, b: int) -> int:
    """The value of two dice in Aranea: their sum, but a 3 and a 4 count as 1."""
    return 1 if {a, b} == {3, 4} else a + b


@dataclass(frozen=True)
class Roll:
    """Two six-sided dice as rolled, in the order rolled; `value` is what Aranea uses."""

    a: int
    b: int

    def __post_init__(self) -> None:
        for die in (self.a, self.b):
            if not isinstance(die, int) or isinstance(die, bool) or not 1 <= die <= SIDES:
                raise NotationError(f"a die shows 1 to {SIDES}, not {die!r}")

    @property
    def value(self) -> int:
        return aranea_value(self.a, self.b)

    @property
    def text(self) -> str:
        """The notation's dice, "2-5": for records, files and moves that are typed."""
        return f"{self.a}-{self.b}"

    @property
    def words(self) -> str:
        """The dice as the players read them, "2 and 5", in the table's language."""
        return dice_words(self.a, self.b)

    @classmethod
    def parse(cls, text: str) -> Roll:
        """A roll from text like "3-4" (also "3 4", "3+4", "3,4")."""
        match = _ROLL_TEXT.match(text) if isinstance(text, str) else None
        if not match:
            raise NotationError(f"{text!r} is not a roll of two dice: write it like 3-4")
        return cls(int(match.group(1)), int(match.group(2)))

    def __str__(self) -> str:
        return self.text


class Dice:
    """A source of dice rolls. `seed=None`: unpredictable (secrets); an int: repeatable."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self._rng: random.Random = secrets.SystemRandom() if seed is None else random.Random(seed)

    def roll(self) -> Roll:
        """Two six-sided dice."""
        return Roll(self._rng.randint(1, SIDES), self._rng.randint(1, SIDES))

    def roll_dice(self, n: int, sides: int = SIDES) -> tuple[int, ...]:
        """`n` dice with `sides` faces each (1..MAX_DICE dice of 2..MAX_SIDES sides)."""
        if not isinstance(n, int) or not 1 <= n <= MAX_DICE:
            raise UserError(f"roll 1 to {MAX_DICE} dice, not {n!r}")
        if not isinstance(sides, int) or not 2 <= sides <= MAX_SIDES:
            raise UserError(f"a die has 2 to {MAX_SIDES} sides, not {sides!r}")
        return tuple(self._rng.randint(1, sides) for _die in range(n))


def aranea_distribution() -> dict[int, Fraction]:
    """The exact chance of each Aranea value 1..12 from two fair dice."""
    counts = dict.fromkeys(range(1, 13), 0)
    for a in range(1, SIDES + 1):
        for b in range(1, SIDES + 1):
            counts[aranea_value(a, b)] += 1
    return {value: Fraction(count, SIDES * SIDES) for value, count in counts.items()}
