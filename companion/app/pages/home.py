"""The home screen: choose a game, continue an unfinished one, or go to the dice, the review
or the settings."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from companion import games
from companion.app.pages.base import Draw, Page
from companion.errors import RecordError, ReplayError
from companion.games.base import Position
from companion.i18n import _
from companion.option_words import option_label, option_value
from companion.records import replay
from display.screens import home

if TYPE_CHECKING:
    from companion.app.controller import App


class HomePage(Page):
    name = "home"

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.recognised: str | None = None  # the game of the mat the camera sees
        self.recognised_mat: str | None = None  # and that mat (its layout)
        # (game id, moves) -> the move to play as the game counts it ("4g"): read once
        self._labels: dict[tuple[int, int], str] = {}

    def buttons(self) -> dict[str, tuple[str, Any]]:
        # DONE pressed out of habit after BACK held (the menu) must not end the game in hand:
        # while one runs, it goes back to it (Start, touched, still starts a new one)
        done = ("back-to-game", None) if self.app.game_running() else ("start", None)
        return {"done": done, "roll": ("dice", None), "back": ("noop", None)}

    def act(self, kind: str, value: Any) -> None:
        app = self.app
        if kind == "select-game":
            app.settings.game = value
            app.save_settings()
        elif kind == "start":
            app.start_game(app.settings.game)
        elif kind == "resume":
            app.resume_game(int(value))
        elif kind == "back-to-game" and app.game_running():
            app.go("play")
        elif kind == "dice":
            app.pages.dice.open()
        elif kind == "review":
            app.pages.review_list.open()
        elif kind == "settings":
            app.pages.settings.open()
        elif kind == "options":  # the chosen game's options, wherever they lie
            app.pages.settings.open(focus="option:")

    def recognise(self, game: str, layout: str, fixed: dict[str, Any]) -> bool:
        """The camera sees this game's mat (`layout`): preselect it, with the options the mat
        fixes (the 5x5 Arinama mat: rows and cols 5 - the game alone set up an 8x8 board that
        the camera never found). Once for each mat: the players may choose otherwise after.
        True when that is news."""
        if layout == self.recognised_mat:
            return False
        self.recognised, self.recognised_mat = game, layout
        settings = self.app.settings
        settings.game = game
        settings.options[game] = {**settings.options.get(game, {}), **fixed}
        return True

    def _move_label(self, summary: Any) -> str:
        """The move to play in an unfinished game as its play screen heads it ("4g", Aranea's
        turn) - the count of its moves said "move 7" where the game said "move 4g" (a trial);
        the plain count where the game counts so, or its last position cannot be read."""
        plain = str(summary.moves + 1)
        if not games.get(summary.game).turn_labels or self.app.records is None:
            return plain
        key = (summary.id, summary.moves)
        if key not in self._labels:
            records = self.app.records
            position = None
            try:  # replayed: the label from its moves (a record older than a position's field)
                try:
                    position = replay(records.game(summary.id, images=False))
                except ReplayError:  # (not offered once Continue finds it so: as stored)
                    position = records.last_position(summary.id)
            except RecordError:  # (a damaged file: said on every page)
                pass
            self._labels[key] = plain if position is None else position.move_label
        return self._labels[key]

    def model(self) -> tuple[Draw, object]:
        app = self.app
        s = app.settings
        unfinished = []
        try:
            # the two games left unfinished last, newest first (`Records.unfinished_games`)
            waiting = (
                [g for g in app.records.unfinished_games() if g.id not in app.unreplayable][:2]
                if app.records is not None
                else []
            )
        except RecordError:  # a damaged file: no game to continue is offered
            app.records_damaged()
            waiting = []
        for summary in waiting:
            unfinished.append(
                (
                    summary.id,
                    _("#{id} {game}, move {number}").format(
                        id=summary.id,
                        game=games.get(summary.game).title_for(summary.options),
                        number=self._move_label(summary),
                    ),
                )
            )
        cls = games.get(s.game)
        model = home.HomeModel(
            games=[(n, games.get(n).title) for n in games.names()],
            selected=s.game,
            recognised=self.recognised,
            options_text=options_text(cls, s.game_options()),
            unfinished=unfinished,
            status=app.status,
        )
        return home.draw, model


def options_text(cls: type[Position[Any]], options: Any) -> str:
    """The options that differ from the standard rules, in a line ("Standard rules": none)."""
    parts = []
    defaults = cls.Options() if dataclasses.fields(cls.Options) else None
    if hasattr(options, "rows") and hasattr(options, "cols"):
        parts.append(_("{rows} x {cols} board").format(rows=options.rows, cols=options.cols))
    for f in dataclasses.fields(options) if dataclasses.is_dataclass(options) else ():
        if f.name in ("rows", "cols"):
            continue
        value = getattr(options, f.name)
        if defaults is not None and value != getattr(defaults, f.name):
            parts.append(
                _("{option}: {value}").format(
                    option=option_label(f.name), value=option_value(value)
                )
            )
    return ", ".join(parts) or _("Standard rules")
