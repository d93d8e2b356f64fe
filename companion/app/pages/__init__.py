"""The app's screens, one object each (see `base.Page`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.app.pages.base import Page
from companion.app.pages.dice import DicePage
from companion.app.pages.gameover import GameOverPage
from companion.app.pages.home import HomePage
from companion.app.pages.play import PlayPage
from companion.app.pages.review import ReviewGamePage, ReviewListPage
from companion.app.pages.settings import SettingsPage
from companion.app.pages.setup import SetupPage

if TYPE_CHECKING:
    from companion.app.controller import App


class Pages:
    """Every screen of one App, by attribute (`pages.dice`) and by name (`pages.named`)."""

    def __init__(self, app: App) -> None:
        self.home = HomePage(app)
        self.setup = SetupPage(app)
        self.play = PlayPage(app)
        self.dice = DicePage(app)
        self.gameover = GameOverPage(app)
        self.review_list = ReviewListPage(app)
        self.review_game = ReviewGamePage(app)
        self.settings = SettingsPage(app)
        self._by_name: dict[str, Page] = {
            page.name: page
            for page in (
                self.home,
                self.setup,
                self.play,
                self.dice,
                self.gameover,
                self.review_list,
                self.review_game,
                self.settings,
            )
        }

    def named(self, name: str) -> Page:
        return self._by_name[name]


PAGES = ("home", "setup", "play", "dice", "gameover", "review-list", "review-game", "settings")

__all__ = ["PAGES", "Page", "Pages"]
