"""The games' options as the Settings and home screens name them, in the table's language.

The option names and values stay the games' own words (in settings files, records and on the
command line); only what the screen shows is translated. A name or value not listed here (a
new option) is shown as the game spells it, with "_" as a space.
"""

from __future__ import annotations

from typing import Any

from companion import i18n
from companion.i18n import pgettext

# Each option's name -> the words the screen shows (English; translated by the catalogue)
OPTION_NAMES: dict[str, str] = {
    "rows": "Rows",
    "cols": "Columns",
    "first": "Who starts",
    "flip_check": "Flips checked",
    "flip_scope": "Flips apply to",
    "no_stones_loses": "No stones loses",
    "full_board_tie": "Tie on a full board",
    "stock": "Stones in stock",
    "clash": "Clash",
    "full_circle": "Full circle",
    "must_use_roll": "Roll must be used",
    "movement": "Movement",
    "side": "Board side",
    "variant_start": "Variant start",
    "turn_cap": "Turn limit",
    "no_action": "No action",
    "equipment": "Equipment",
}
# Each option value -> the words the screen shows (English; translated by the catalogue)
OPTION_VALUES: dict[str, str] = {
    "simultaneous": "simultaneous",
    "captures-first": "captures first",
    "touching": "touching stones",
    "board": "whole board",
    "draw": "draw",
    "second-player-wins": "second player wins",
    "roll": "roll off",
    "forbidden": "forbidden",
    "inward": "inward",
    "arashi": "Arashi",
    "shizukana": "Shizukana",
    "plain": "plain",
    "storm": "storm",
    "pass": "pass",
    "lose": "loses",
    "mat": "printed mat",
    "chess": "chess set",
}


def colour_name_label(piece: str, stones: bool) -> str:
    """The Settings row that names a colour's pieces at this table, in the game's word for
    them (`Position.pieces_are_stones`): "Black stones are called" ("Die Steine von Schwarz
    heißen"), "Gold pieces are called" ("Die Figuren von Gold heißen")."""
    colour = i18n.colour_noun(piece, False)
    if stones:
        return i18n.capitalise(i18n._("{colour} stones are called").format(colour=colour))
    return i18n.capitalise(i18n._("{colour} pieces are called").format(colour=colour))


def option_label(name: str) -> str:
    """An option's name as the screen shows it: "Who starts" ("Wer beginnt") for `first`."""
    if name in OPTION_NAMES:
        return pgettext("option", OPTION_NAMES[name])
    return name.replace("_", " ")


def option_value(value: Any) -> str:
    """A value's words: colours as players ("Schwarz"), known words translated, numbers as
    they are; None is "off", booleans "yes"/"no"."""
    if value is None:
        return i18n._("off")
    if isinstance(value, bool):
        return i18n._("yes") if value else i18n._("no")
    if isinstance(value, str):
        if value in i18n.COLOUR_NOUNS:
            return i18n.colour_noun(value, False)
        if value in OPTION_VALUES:
            return pgettext("option value", OPTION_VALUES[value])
    return str(value)


def button_name(name: str) -> str:
    """A table button's (or output's) name as the instructions say it: "DONE", "FERTIG"."""
    names = {
        "done": i18n._("DONE"),
        "roll": i18n._("ROLL"),
        "back": i18n._("BACK"),
        "buzzer": i18n._("BUZZER"),
        "led": i18n._("LED"),
    }
    return names.get(name, name.upper())


def _mark() -> None:  # pragma: no cover - never called, only read by the extractor
    pgettext("option", "Rows")
    pgettext("option", "Columns")
    pgettext("option", "Who starts")
    pgettext("option", "Flips checked")
    pgettext("option", "Flips apply to")
    pgettext("option", "No stones loses")
    pgettext("option", "Tie on a full board")
    pgettext("option", "Stones in stock")
    pgettext("option", "Clash")
    pgettext("option", "Full circle")
    pgettext("option", "Roll must be used")
    pgettext("option", "Movement")
    pgettext("option", "Board side")
    pgettext("option", "Variant start")
    pgettext("option", "Turn limit")
    pgettext("option", "No action")
    pgettext("option", "Equipment")
    pgettext("option value", "simultaneous")
    pgettext("option value", "captures first")
    pgettext("option value", "touching stones")
    pgettext("option value", "whole board")
    pgettext("option value", "draw")
    pgettext("option value", "second player wins")
    pgettext("option value", "roll off")
    pgettext("option value", "forbidden")
    pgettext("option value", "inward")
    pgettext("option value", "Arashi")
    pgettext("option value", "Shizukana")
    pgettext("option value", "plain")
    pgettext("option value", "storm")
    pgettext("option value", "pass")
    pgettext("option value", "loses")
    pgettext("option value", "printed mat")
    pgettext("option value", "chess set")
