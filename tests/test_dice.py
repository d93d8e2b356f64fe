"""Dice: the Aranea value rule, exact distribution, fairness of the seeded and system sources."""

import secrets
from collections import Counter
from fractions import Fraction

import pytest

from companion import i18n
from companion.dice import (
    Dice,
    Roll,
    aranea_distribution,
    aranea_value,
    dice_words,
    move_dice_words,
)
from companion.errors import NotationError, UserError

CHI_SQUARE_CRITICAL_11_DOF_P001 = 31.26  # the value 1..12 has 12 outcomes: 11 degrees of freedom


def test_a_three_and_a_four_count_as_one_in_either_order():
    assert Roll(3, 4).value == 1
    assert Roll(4, 3).value == 1
    assert aranea_value(4, 3) == 1


def test_every_other_roll_is_the_sum():
    for a in range(1, 7):
        for b in range(1, 7):
            if {a, b} != {3, 4}:
                assert Roll(a, b).value == a + b


def test_values_run_from_1_to_12():
    values = {Roll(a, b).value for a in range(1, 7) for b in range(1, 7)}
    assert values == set(range(1, 13))


def test_exact_distribution():
    dist = aranea_distribution()
    assert sum(dist.values()) == 1
    assert dist[1] == Fraction(2, 36)
    assert dist[2] == Fraction(1, 36)
    assert dist[7] == Fraction(4, 36)  # 1-6 2-5 5-2 6-1: 3-4 and 4-3 moved to 1
    assert dist[6] == Fraction(5, 36)
    assert dist[8] == Fraction(5, 36)
    assert dist[12] == Fraction(1, 36)


def test_roll_text_round_trips_and_keeps_the_order_rolled():
    assert Roll(4, 3).text == "4-3"
    assert Roll.parse("4-3") == Roll(4, 3)
    assert Roll.parse(" 6 + 1 ") == Roll(6, 1)
    assert str(Roll(2, 5)) == "2-5"


@pytest.mark.parametrize("text", ["7-1", "0-3", "3", "3-4-5", "", "a-b", None])
def test_unreadable_rolls_are_notation_errors(text):
    with pytest.raises(NotationError):
        Roll.parse(text)


def test_a_die_outside_1_to_6_is_an_error():
    with pytest.raises(NotationError):
        Roll(0, 3)


def test_seeded_dice_repeat():
    assert [Dice(seed=5).roll() for _ in range(3)] == [Dice(seed=5).roll() for _ in range(3)]
    a, b = Dice(seed=9), Dice(seed=9)
    assert [a.roll() for _ in range(20)] == [b.roll() for _ in range(20)]
    assert a.roll_dice(5, sides=20) == b.roll_dice(5, sides=20)


def test_unseeded_dice_use_the_system_source():
    assert isinstance(Dice()._rng, secrets.SystemRandom)
    assert all(1 <= Dice().roll().value <= 12 for _ in range(50))


def test_roll_dice_gives_n_dice_of_s_sides():
    dice = Dice(seed=1)
    rolls = dice.roll_dice(100, sides=4)
    assert len(rolls) == 100 and set(rolls) == set(range(1, 5))


@pytest.mark.parametrize("n,sides", [(0, 6), (101, 6), (2, 1), (2, 1001)])
def test_roll_dice_rejects_silly_requests(n, sides):
    with pytest.raises(UserError):
        Dice(seed=1).roll_dice(n, sides)


def chi_square(counts: Counter, total: int) -> float:
    return sum((counts[v] - total * p) ** 2 / (total * p) for v, p in aranea_distribution().items())


def test_seeded_rolls_fit_the_exact_distribution_chi_square():
    total = 72_000
    dice = Dice(seed=20261122)
    counts = Counter(dice.roll().value for _ in range(total))
    assert chi_square(counts, total) < CHI_SQUARE_CRITICAL_11_DOF_P001


def test_chi_square_detects_a_wrong_rule():
    # The same sample read with the plain sum (no 3-4 rule) must fail the test badly.
    total = 72_000
    dice = Dice(seed=20261122)
    counts = Counter()
    for _ in range(total):
        roll = dice.roll()
        counts[roll.a + roll.b] += 1
    assert chi_square(counts, total) > CHI_SQUARE_CRITICAL_11_DOF_P001


def test_the_dice_in_words_are_for_every_layer_and_say_the_table_s_language():
    """The dice "2 and 5" lived in the referee's phrases, so the games (which may not import
    the referee) still said "2-5", like the cell "r2-5"; and four places each parsed a roll's
    notation "roll 2-5" by hand. One helper in the dice module says them for every layer."""
    assert dice_words(2, 5) == Roll(2, 5).words == "2 and 5"
    assert Roll(2, 5).text == "2-5"  # the notation, for records and typed moves
    assert move_dice_words("roll 2-5") == move_dice_words("roll 2 5") == "2 and 5"
    for move in ("r2-5", "place", "pass", "roll ?", "roll", "rolled 2-5", "2-5", "d2-d6"):
        assert move_dice_words(move) is None, move
    i18n.set_language("de")
    try:
        assert move_dice_words("roll 1-4") == Roll(1, 4).words == "1 und 4"
    finally:
        i18n.set_language("en")
