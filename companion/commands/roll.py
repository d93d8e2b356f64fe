"""`companion roll`: dice at the table, for any game.

Two six-sided dice by default; ``--aranea`` reads them as Aranea's value (a 3 and a 4 count
as 1); ``--dice N --sides S`` for anything else. The dice are unpredictable
(`secrets`) unless ``--seed`` is given.
"""

from __future__ import annotations

import argparse

from companion.commands import seed_number
from companion.dice import Dice, many_dice_words
from companion.errors import UserError

EXAMPLES = """examples:
  companion roll                     two six-sided dice and their total
  companion roll --aranea            Aranea's value 1..12 (a 3 and a 4 count as 1)
  companion roll --dice 3 --sides 20
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "roll",
        help="roll dice (Aranea's two dice, or any number of any dice)",
        description="Roll dice and print them with their total (with --aranea: the value "
        "Aranea uses). Fair, unpredictable dice unless --seed is given.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--aranea",
        action="store_true",
        help="two six-sided dice read as Aranea's value 1..12: the sum, but a 3 and a 4 count as 1",
    )
    parser.add_argument(
        "--dice", type=int, default=2, metavar="N", help="how many dice (default 2)"
    )
    parser.add_argument(
        "--sides", type=int, default=6, metavar="S", help="sides of each die (default 6)"
    )
    parser.add_argument(
        "--seed", type=seed_number, metavar="N", help="repeatable rolls (for demos and tests)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    dice = Dice(seed=args.seed)
    if args.aranea:
        if (args.dice, args.sides) != (2, 6):
            raise UserError("--aranea rolls two six-sided dice: leave out --dice and --sides")
        roll = dice.roll()
        note = "  (a 3 and a 4 count as 1)" if roll.value == 1 else ""
        print(f"{roll.words} = {roll.value}{note}")
        return 0
    values = dice.roll_dice(args.dice, args.sides)
    shown = many_dice_words(values)
    print(shown if len(values) == 1 else f"{shown} = {sum(values)}")
    return 0
