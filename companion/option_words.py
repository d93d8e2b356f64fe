"""The games' options as the Settings and home screens name them, in the table's language.

The option names and values stay the games' own words (in settings files, records and on the
command line); only what the screen shows is translated. A name or value not listed here (a
new option) is shown as the game spells it, with "_" as a space.
"""

from __future__ import annotations

from typing import Any

from companion import i18n
from companion.i18n import pgettext

OPTION_NAMES = (
    "rows",
    "cols",
    "first",
    "flip_check",
    "flip_scope",
    "no_stones_loses",
    "full_board_tie",
    "stock",
    "clash",
    "full_circle",
    "must_use_roll",
    "movement",
    "side",
    "variant_start",
    "turn_cap",
    "no_action",
    "equipment",
)
OPTION_VALUES = (
    "simultaneous",
    "captures-first",
    "touching",
    "board",
    "draw",
    "second-player-wins",
    "roll",
    "forbidden",
    "inward",
    "arashi",
    "shizukana",
    "plain",
    "storm",
    "pass",
    "lose",
    "mat",
    "chess",
)


def colour_name_label(piece: str) -> str:
    """The Settings row that names a colour's pieces at this table: "Black pieces are called"
    ("Die Steine von Schwarz heißen")."""
    return i18n.capitalise(
        i18n._("{colour} pieces are called").format(colour=i18n.colour_noun(piece, False))
    )


def option_label(name: str) -> str:
    if name in OPTION_NAMES:
        return pgettext("option", name.replace("_", " "))
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
            return pgettext("option value", value)
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
    pgettext("option", "rows")
    pgettext("option", "cols")
    pgettext("option", "first")
    pgettext("option", "flip check")
    pgettext("option", "flip scope")
    pgettext("option", "no stones loses")
    pgettext("option", "full board tie")
    pgettext("option", "stock")
    pgettext("option", "clash")
    pgettext("option", "full circle")
    pgettext("option", "must use roll")
    pgettext("option", "movement")
    pgettext("option", "side")
    pgettext("option", "variant start")
    pgettext("option", "turn cap")
    pgettext("option", "no action")
    pgettext("option", "equipment")
    pgettext("option value", "simultaneous")
    pgettext("option value", "captures-first")
    pgettext("option value", "touching")
    pgettext("option value", "board")
    pgettext("option value", "draw")
    pgettext("option value", "second-player-wins")
    pgettext("option value", "roll")
    pgettext("option value", "forbidden")
    pgettext("option value", "inward")
    pgettext("option value", "arashi")
    pgettext("option value", "shizukana")
    pgettext("option value", "plain")
    pgettext("option value", "storm")
    pgettext("option value", "pass")
    pgettext("option value", "lose")
    pgettext("option value", "mat")
    pgettext("option value", "chess")
