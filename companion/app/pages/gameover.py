"""The game-over screen: the result over the final board."""

from __future__ import annotations

from typing import Any

from companion.app.pages.base import Draw, Page
from companion.geometry import board_geometry
from companion.referee.protocol import UNDO, PlayerInput
from display.screens import gameover


class GameOverPage(Page):
    name = "gameover"

    def buttons(self) -> dict[str, tuple[str, Any]]:
        return {"done": ("new-game", None), "roll": ("review", None), "back": ("home", None)}

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
