"""Words the app's screens share, in the table's language."""

from __future__ import annotations

from typing import Any

from companion.games.base import Outcome
from companion.i18n import pgettext
from companion.referee.outcomes import result_text as outcome_words
from display.screens.play import player_label


def play_name(player: str, colour_names: dict[str, str]) -> str:
    """A player's name in the table's words and language ("Amber", "Bernstein")."""
    return player_label(player, colour_names) if player else ""


def result_text(summary: Any, *, short: bool = False) -> str:
    """A recorded game's result in the table's language (companion.referee.outcomes)."""
    outcome = Outcome.from_json(summary.outcome) if summary.outcome else None
    return outcome_words(outcome, summary.status, short=short)


def _mark_states() -> None:  # pragma: no cover - never called, only read by the extractor
    pgettext("game status", "playing")
    pgettext("game status", "finished")
    pgettext("game status", "abandoned")
    pgettext("camera state", "still")
    pgettext("camera state", "moving")
    pgettext("camera state", "hands")
    pgettext("camera state", "covered")
    pgettext("camera state", "searching")
    pgettext("camera state", "board-moved")
    pgettext("camera state", "dark")
