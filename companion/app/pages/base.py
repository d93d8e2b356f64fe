"""What every screen of the app offers the App: its model for drawing, its actions and what
the table's buttons do on it. Each screen keeps its own state; the App keeps the navigation,
the referee and the records (`Page.app`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from display.paint import Painter

if TYPE_CHECKING:
    from companion.app.controller import App

# display.screens.<screen>.draw(painter, model): each screen takes its own model type, which
# only the page that pairs them knows (the App passes the model on as it is).
Draw = Callable[[Painter, Any], None]


class Page:
    name = ""  # the page's name: App.page while it is up

    def __init__(self, app: App) -> None:
        self.app = app

    def model(self) -> tuple[Draw, object]:
        """The screen's draw function and its model (pure data, for that function)."""
        raise NotImplementedError

    def act(self, kind: str, value: Any) -> None:
        """Do what an Action (a tap, or a button by `buttons`) asks on this screen."""

    def buttons(self) -> dict[str, tuple[str, Any]]:
        """The table's buttons on this screen: "done", "roll", "back" -> (action, value)."""
        return {}

    def poll(self) -> float | None:
        """Work the page does between events (`App.tick`): seconds until it wants to be asked
        again, None for none."""
        return None

    def enter(self) -> None:
        """The App comes to this page from another (`App.go`)."""

    def leave(self) -> None:
        """The App goes to another page (`App.go`): leave nothing of this one running."""
