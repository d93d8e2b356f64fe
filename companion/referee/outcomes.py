"""A game's end in the table's language.

The games (and the records) keep `Outcome.detail` as one stable English sentence; the table
says it again in its own language from the same facts: each known detail is matched here,
its parts (players, cells, counts) picked out and put into the catalogue's sentence. A detail
this table does not know is shown as it is. In English the detail is shown as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from companion.games.base import Outcome
from companion.i18n import _, language, ngettext, pgettext, player

_P = r"(?P<{}>[A-Za-z]+)"


def _re(pattern: str) -> re.Pattern[str]:
    return re.compile(
        "^" + pattern.format(p=_P.format("p"), q=_P.format("q")) + "$", flags=re.IGNORECASE
    )


# (regex on the English detail, the sentence in the table's language from its groups)
_DETAILS: list[tuple[re.Pattern[str], Callable[[dict[str, str]], str]]] = [
    (
        _re(r"{p} has no stones left to place next to"),
        lambda g: _("{player} has no stones left to place next to").format(player=g["p"]),
    ),
    (
        _re(r"{p} has no empty cell next to their stones"),
        lambda g: _("{player} has no empty cell next to their stones").format(player=g["p"]),
    ),
    (
        _re(
            r"the board is full: (?P<b>\d+) black, (?P<w>\d+) white, equal counts go to the second player"
        ),
        lambda g: _(
            "The board is full: {black} black, {white} white; equal counts go to the second player"
        ).format(black=g["b"], white=g["w"]),
    ),
    (
        _re(r"the board is full: (?P<b>\d+) black, (?P<w>\d+) white"),
        lambda g: _("The board is full: {black} black, {white} white").format(
            black=g["b"], white=g["w"]
        ),
    ),
    (
        _re(r"{p} has centre (?P<squares>[\d-]+)"),
        lambda g: _("{player} holds centre {squares}").format(player=g["p"], squares=g["squares"]),
    ),
    (
        _re(r"{p} has (?P<n>\d+) stones in the centre"),
        lambda g: ngettext(
            "{player} has {count} stone in the centre",
            "{player} has {count} stones in the centre",
            int(g["n"]),
        ).format(player=g["p"], count=g["n"]),
    ),
    (
        _re(r"{p}'s rabbit reached the goal"),
        lambda g: _("A rabbit of {player} reached the goal").format(player=g["p"]),
    ),
    (
        _re(r"{p} has no rabbits left"),
        lambda g: _("{player} has no rabbits left").format(player=g["p"]),
    ),
    (
        _re(r"{p} cannot move"),
        lambda g: _("{player} cannot move").format(player=g["p"]),
    ),
    (
        _re(r"every turn left to {p} repeats a position a third time"),
        lambda g: _("Every turn left to {player} repeats a position a third time").format(
            player=g["p"]
        ),
    ),
    (
        _re(r"{p}'s character reached (?P<cell>\w+) on {q}'s start row"),
        lambda g: _("The character of {player} reached {cell} on the start row of {other}").format(
            player=g["p"], cell=g["cell"], other=g["q"]
        ),
    ),
    (
        _re(
            r"both players block the board with a line that 3 opposing stones touch; "
            r"{p} moved last and wins"
        ),
        lambda g: _(
            "Both players block the board with a line that 3 opposing stones touch; "
            "{player} moved last and wins"
        ).format(player=g["p"]),
    ),
    (
        _re(
            r"{p}'s line from the a-file to the g-file cannot be crossed and {q} has at least "
            r"3 stones touching it"
        ),
        lambda g: _(
            "The line of {player} from the a-file to the g-file cannot be crossed and {other} "
            "has at least 3 stones touching it"
        ).format(player=g["p"], other=g["q"]),
    ),
    (
        _re(r"the turn cap of (?P<n>\d+) turns was reached"),
        lambda g: ngettext(
            "The turn cap of {count} turn was reached",
            "The turn cap of {count} turns was reached",
            int(g["n"]),
        ).format(count=g["n"]),
    ),
    (
        _re(r"{p} has no legal action \(no_action=lose\)"),
        lambda g: _("{player} has no legal action (no_action=lose)").format(player=g["p"]),
    ),
]

_PLAYER_GROUPS = ("p", "q")


def outcome_text(outcome: Outcome) -> str:
    """The outcome's detail (else its reason) in the table's language (in English: as the
    game wrote it)."""
    if not outcome.detail:  # the players' (agreement, resignation) or a rule's bare name
        return pgettext("game end", outcome.reason)  # (one the catalogue lacks: as written)
    detail = outcome.detail
    if language() == "en":
        return detail
    for pattern, sentence in _DETAILS:
        match = pattern.match(detail)
        if match:
            groups = dict(match.groupdict())
            for name in _PLAYER_GROUPS:
                if groups.get(name):
                    groups[name] = player(groups[name].lower())
            return sentence(groups)
    return detail


# The reasons a game ends for (`Outcome.reason`: the rules' and the players'), as the screens
# and the exported page name them; one not marked here (a newer game's) is shown as written.
def _mark_end_reasons() -> None:  # pragma: no cover - never called, only read by the extractor
    pgettext("game end", "goal")
    pgettext("game end", "elimination")
    pgettext("game end", "immobilisation")
    pgettext("game end", "three-in-line")
    pgettext("game end", "five-in-centre")
    pgettext("game end", "character-home")
    pgettext("game end", "unfair-game")
    pgettext("game end", "turn-cap")
    pgettext("game end", "no-action")
    pgettext("game end", "full-board")
    pgettext("game end", "no-placement")
    pgettext("game end", "no-stones")
    pgettext("game end", "resignation")
    pgettext("game end", "agreement")


def result_text(outcome: Outcome | None, status: str = "finished", *, short: bool = False) -> str:
    """A recorded game's result in the table's language, for the screens: "White wins"
    (`short`, for a list) or "White wins (The board is full: ...)" - "Weiß gewinnt (Das Brett
    ist voll: ...)" in German; the game's status when it has no outcome. (`companion games`
    prints the record's own words, "white wins (full-board)".)"""
    if outcome is None:
        return pgettext("game status", status)
    if outcome.winner:
        head = _("{player} wins").format(player=player(outcome.winner))
    else:
        head = _("The game is a draw")
    if short:
        return head
    return _("{result} ({reason})").format(result=head, reason=outcome_text(outcome))
