"""The game-over screen: the result over the final board."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.app.pages.base import Draw, Page
from companion.geometry import board_geometry
from companion.referee.protocol import UNDO, PlayerInput
from display.screens import gameover

if TYPE_CHECKING:
    from companion.app.controller import App


# DONE on the game over screen starts a new game: not in its first seconds, when a DONE is
# the one that ended the turn pressed twice (a trial: a quick second DONE on Arimaa's winning
# turn went on to the next game's setup, and the players never saw who had won, nor could
# they take a misread winning move back). Touched, New game starts at once.
NEW_GAME_HOLD_SECONDS = 2.0


class GameOverPage(Page):
    name = "gameover"

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.entered_at = float("-inf")

    def enter(self) -> None:
        self.entered_at = self.app.clock()

    def buttons(self) -> dict[str, tuple[str, Any]]:
        held = self.app.clock() - self.entered_at < NEW_GAME_HOLD_SECONDS
        done = ("noop", None) if held else ("new-game", None)
        return {"done": done, "roll": ("review", None), "back": ("home", None)}

    def act(self, kind: str, value: Any) -> None:
        app = self.app
        if kind == "new-game":
            app.play_again()
        elif kind == "review":
            if app.referee is not None and app.referee.game_id is not None:
                app.pages.review_game.open(app.referee.game_id)
            else:
                app.go("review-list")
        elif kind == "home":
            app.go("home")
        elif kind == "undo" and app.referee is not None:
            # the last move taken back (a misread or regretted winning move), as on the play
            # screen: both players agree there - so the play screen takes over (a trial: BACK
            # here went home, and the finished game could not be continued)
            app.player_input(PlayerInput(UNDO))
            app.go(app.game_page())

    def model(self) -> tuple[Draw, object]:
        referee = self.app.referee
        assert referee is not None  # the game that ended
        position = referee.position
        outcome = position.outcome()
        instruction = referee.instruction
        model = gameover.GameOverModel(
            title=position.full_title,
            geometry=board_geometry(position.name, position.options),
            cells=referee.board if referee.board is not None else position.cells(),
            headline=instruction.text,
            detail=instruction.detail,
            winner=outcome.winner if outcome else None,
            moves=position.moves_played,  # as the game counts them (Aranea's turns)
            can_undo=not referee.nothing_to_undo(),
            piece_labels=referee.shown_position().piece_labels(),
        )
        return gameover.draw, model
