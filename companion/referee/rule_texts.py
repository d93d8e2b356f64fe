"""The games' reasons why a move or step is illegal, in the table's language.

The game modules explain an illegal move in one English sentence (the CLI, the records and
the tests read those). The referee shows them as detail lines: each known sentence is matched
here, its parts (cells, players, pieces) picked out and put into the catalogue's sentence, in
English unchanged. A reason this table does not know is shown as the game wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from companion.i18n import _, capitalise, colour_adj, language
from companion.i18n import player as player_name
from companion.referee.phrases import piece_phrase

_NAMES = {"rabbit": "r", "cat": "c", "dog": "d", "horse": "h", "camel": "m", "elephant": "e"}
_PIECE = r"the (?P<{0}c>\w+) (?P<{0}k>rabbit|cat|dog|horse|camel|elephant)"
_CELL = r"(?P<{}>[a-z]\d+)"


def _re(pattern: str) -> re.Pattern[str]:
    pattern = pattern.replace("{piece}", _PIECE.format("p")).replace("{other}", _PIECE.format("o"))
    for name in ("cell", "to", "at"):
        pattern = pattern.replace("{" + name + "}", _CELL.format(name))
    pattern = pattern.replace("{player}", r"(?P<player>[A-Za-z]+)")
    pattern = pattern.replace("{opponent}", r"(?P<opponent>[A-Za-z]+)")
    return re.compile("^" + pattern + "$", flags=re.IGNORECASE)


def _piece(g: dict[str, str], prefix: str, case: str) -> str:
    return piece_phrase(_NAMES[g[prefix + "k"].lower()], g[prefix + "c"].lower(), case=case)


Sentence = Callable[[dict[str, str]], str]

_RULES: list[tuple[re.Pattern[str], Sentence]] = [
    # Arimaa's setups (companion.games.arimaa: setup_error)
    (
        _re("{player}'s setup is a list of placements like Ra1, not steps"),
        lambda g: _("The setup of {player} is a list of placements like Ra1, not steps").format(
            player=g["player"]
        ),
    ),
    (
        _re(r"{player} places \w+'s own pieces: (?P<placement>\w+) is {opponent}'s"),
        lambda g: _(
            "{player} places only their own pieces: {placement} belongs to {opponent}"
        ).format(player=g["player"], placement=g["placement"], opponent=g["opponent"]),
    ),
    (
        _re(
            r"{player} sets up on ranks (?P<first>\d) and (?P<second>\d): (?P<placement>\w+) is outside them"
        ),
        lambda g: _(
            "{player} sets up on ranks {first} and {second}: {placement} is outside them"
        ).format(
            player=g["player"], first=g["first"], second=g["second"], placement=g["placement"]
        ),
    ),
    (
        _re("{cell} is given two pieces"),
        lambda g: _("{cell} is given two pieces").format(cell=g["cell"]),
    ),
    (
        _re(
            r"(?P<side>gold|silver)'s setup must place (?P<wanted>\d+) "
            r"(?P<name>rabbit|cat|dog|horse|camel|elephant)s?, not (?P<count>\d+)"
        ),
        lambda g: _("The setup of {player} has {count} instead of {wanted}: {pieces}").format(
            player=player_name(g["side"].lower()),
            count=g["count"],
            wanted=g["wanted"],
            pieces=piece_phrase(_NAMES[g["name"].lower()], g["side"].lower(), int(g["wanted"])),
        ),
    ),
    # Arimaa (companion.games.arimaa: step_error, end_turn_error)
    (
        _re("{player} must first set up their pieces on their own two ranks"),
        lambda g: _("{player} must first set up their pieces on their own two ranks").format(
            player=g["player"]
        ),
    ),
    (
        _re("{player} must first set up their pieces"),
        lambda g: _("{player} must first set up their pieces").format(player=g["player"]),
    ),
    (_re("a turn has at most four steps"), lambda g: _("A turn has at most four steps")),
    (_re("a turn needs at least one step"), lambda g: _("A turn needs at least one step")),
    (_re("the turn must change the position"), lambda g: _("The turn must change the position")),
    (
        _re("this turn would create the same position for the third time"),
        lambda g: _("This turn would create the same position for the third time"),
    ),
    (
        _re("there is no piece on {cell}"),
        lambda g: _("There is no piece on {cell}").format(cell=g["cell"]),
    ),
    (
        _re(
            "{cell} and {to} are not neighbours: a step goes one square north, south, east or west"
        ),
        lambda g: _(
            "{cell} and {to} are not neighbours: a step goes one square forward, back, left or "
            "right"
        ).format(cell=g["cell"], to=g["to"]),
    ),
    (
        _re("{cell} is occupied by {piece}"),
        lambda g: _("{cell} is taken by {piece}").format(
            cell=g["cell"], piece=_piece(g, "p", "after")
        ),
    ),
    (
        _re("the push from {cell} must be finished by a stronger {player} piece moving into {to}"),
        lambda g: _(
            "The push from {cell} must be finished by a stronger {colour} piece moving into {cell}"
        ).format(cell=g["cell"], colour=_colour_adj(g["player"])),
    ),
    (
        _re("{piece} on {cell} is frozen by {other} on {at}"),
        lambda g: _("{piece} on {cell} is frozen by {other} on {at}").format(
            piece=_piece(g, "p", "subject"),
            cell=g["cell"],
            other=_piece(g, "o", "after"),
            at=g["at"],
        ),
    ),
    (_re("rabbits cannot step backwards"), lambda g: _("Rabbits cannot step backwards")),
    (
        _re("{piece} on {cell} cannot be pushed or pulled: nothing is stronger"),
        lambda g: _("{piece} on {cell} cannot be pushed or pulled: nothing is stronger").format(
            piece=_piece(g, "p", "subject"), cell=g["cell"]
        ),
    ),
    (
        _re(
            "{piece} on {cell} is an enemy piece: it moves only when a stronger {player} piece "
            "next to it pushes or pulls it"
        ),
        lambda g: _(
            "{piece} on {cell} is an enemy piece: it moves only when a stronger {colour} piece "
            "next to it pushes or pulls it"
        ).format(piece=_piece(g, "p", "subject"), cell=g["cell"], colour=_colour_adj(g["player"])),
    ),
    (
        _re("{piece} on {cell} can only be pushed by a stronger {player} piece that is not frozen"),
        lambda g: _(
            "{piece} on {cell} can only be pushed by a stronger {colour} piece that is not frozen"
        ).format(piece=_piece(g, "p", "subject"), cell=g["cell"], colour=_colour_adj(g["player"])),
    ),
    (
        _re("a push takes two steps and this turn has only one step left"),
        lambda g: _("A push takes two steps, and this turn has only one step left"),
    ),
    # Sensei (companion.games.sensei: action_error)
    (
        _re("you already moved your character this turn"),
        lambda g: _("You already moved your character this turn"),
    ),
    (
        _re("that is the {opponent} character: it is {player}'s turn"),
        lambda g: _("That is the character of {opponent}: it is {player}'s turn").format(
            opponent=g["opponent"], player=g["player"]
        ),
    ),
    (
        _re("{player}'s character is on {cell}, not on {to}"),
        lambda g: _("The character of {player} is on {cell}, not on {to}").format(
            player=g["player"], cell=g["cell"], to=g["to"]
        ),
    ),
    (_re("the character did not move"), lambda g: _("The character did not move")),
    (
        _re("a character moves along a row, column or diagonal"),
        lambda g: _("A character moves along a row, column or diagonal"),
    ),
    (
        _re("a character must land on one of your own stones, and {cell} is empty"),
        lambda g: _("A character must land on one of your own stones, and {cell} is empty").format(
            cell=g["cell"]
        ),
    ),
    (
        _re("a character must land on one of your own stones, and {cell} is a {opponent} stone"),
        lambda g: _(
            "A character must land on one of your own stones, and {cell} holds a stone of "
            "{opponent}"
        ).format(cell=g["cell"], opponent=g["opponent"]),
    ),
    (
        _re("a {opponent} stone blocks the character's way at {cell}"),
        lambda g: _("A stone of {opponent} blocks the character's way at {cell}").format(
            opponent=g["opponent"], cell=g["cell"]
        ),
    ),
    (
        _re("you already moved two stones this turn"),
        lambda g: _("You already moved two stones this turn"),
    ),
    (
        _re("there is no stone on {cell}"),
        lambda g: _("There is no stone on {cell}").format(cell=g["cell"]),
    ),
    (
        _re("the stone on {cell} is {opponent}: it is {player}'s turn"),
        lambda g: _("The stone on {cell} belongs to {opponent}: it is {player}'s turn").format(
            cell=g["cell"], opponent=g["opponent"], player=g["player"]
        ),
    ),
    (
        _re("the stone on {cell} carries the character and cannot move"),
        lambda g: _("The stone on {cell} carries the character and cannot move").format(
            cell=g["cell"]
        ),
    ),
    (_re("the stone did not move"), lambda g: _("The stone did not move")),
    (
        _re("stones move along a row or column, never diagonally"),
        lambda g: _("Stones move along a row or column, never diagonally"),
    ),
    (
        _re("a stone moves in one straight line along a row or column"),
        lambda g: _("A stone moves in one straight line along a row or column"),
    ),
    (
        _re("in Shizukana a stone moves exactly one square"),
        lambda g: _("In Shizukana a stone moves exactly one square"),
    ),
    (
        _re("a {opponent} stone blocks the way at {cell}"),
        lambda g: _("A stone of {opponent} blocks the way at {cell}").format(
            opponent=g["opponent"], cell=g["cell"]
        ),
    ),
    (
        _re("your own stone blocks the way at {cell}"),
        lambda g: _("Your own stone blocks the way at {cell}").format(cell=g["cell"]),
    ),
    (
        _re("the pit at {cell} blocks the way: stones cannot enter or cross pits"),
        lambda g: _("The pit at {cell} blocks the way: stones cannot enter or cross pits").format(
            cell=g["cell"]
        ),
    ),
]


def _colour_adj(word: str) -> str:
    return colour_adj(word.lower())


def rule_text(message: str) -> str:
    """A game's reason in the table's language, capitalised as a detail line."""
    if language() == "en" or not message:
        return capitalise(message)
    for pattern, sentence in _RULES:
        match = pattern.match(message)
        if match:
            groups = dict(match.groupdict())
            for name in ("player", "opponent"):
                if groups.get(name):
                    groups[name] = player_name(groups[name].lower())
            return capitalise(sentence(groups))
    return capitalise(message)
