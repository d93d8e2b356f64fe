"""The dice: the table's dice roller from the home screen, and Aranea's roll in a game (the
dice tumble, land, and play resumes by itself)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion import games
from companion.app.pages.base import Draw, Page
from companion.app.words import play_name
from companion.i18n import _
from companion.referee.protocol import Event
from display.screens import dice

if TYPE_CHECKING:
    from companion.app.controller import App

DICE_ANIMATION = 0.7  # seconds the dice tumble
DICE_SHOW = 1.6  # seconds the landed dice stay before play resumes by itself (in a game)
FRAME_INTERVAL = 1 / 30  # redraw pace while animating


@dataclass
class DiceState:
    dice: tuple[int, int] | None = None
    value: int | None = None
    thrown_at: float = 0.0
    in_game: bool = False
    who: str = ""
    landed: bool = False  # the landed dice were asked to be drawn (however late a pass came)


class DicePage(Page):
    name = "dice"

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.state = DiceState()

    def open(self) -> None:
        """The dice roller (from the home screen): no dice thrown yet."""
        self.state = DiceState()
        self.app.go("dice")

    def show_roll(self, event: Event) -> None:
        """The referee's roll in a game: the dice tumble, then play goes on."""
        dice_ = event.data.get("dice", [1, 1])
        self.state = DiceState(
            (int(dice_[0]), int(dice_[1])),
            event.data.get("value"),
            self.app.clock(),
            True,
            str(event.data.get("player", "")),
        )
        self.app.go("dice")

    def buttons(self) -> dict[str, tuple[str, Any]]:
        return {"done": ("dice-close", None), "roll": ("roll", None), "back": ("dice-close", None)}

    def act(self, kind: str, value: Any) -> None:
        app = self.app
        if kind == "roll":
            if self.state.in_game:
                # A roll in a game lands before anyone rolls again: a second press while it
                # tumbled rolled for the next player, and hid a turn passed. Once landed, ROLL
                # goes on to play (as Play does), where the next roll is made.
                if app.clock() - self.state.thrown_at >= DICE_ANIMATION:
                    app.go(app.game_page())
                return
            roll = app.dice.roll()
            # The home screen's roller is a plain one (the sum), but for a game that reads
            # dice its own way - Aranea's, where a 3 and a 4 count as 1 - when it is chosen.
            value = roll.value if self._game_reading() else roll.a + roll.b
            self.state = DiceState((roll.a, roll.b), value, app.clock())
        elif kind == "dice-close":
            app.go(app.game_page() if self.state.in_game and app.referee is not None else "home")

    def tick(self, now: float) -> float | None:
        """Seconds until the next frame is due while the dice tumble or show (None: nothing
        animates); back to the game once a roll in a game has been shown."""
        app = self.app
        if self.state.dice is None:
            return None
        age = now - self.state.thrown_at
        if age < DICE_ANIMATION:
            app.dirty = True
            return FRAME_INTERVAL
        if not self.state.landed:  # once, however late this pass comes (a slow Pi's frames
            self.state.landed = True  # missed a window of one frame, and "Rolling..." stayed)
            app.dirty = True
        if self.state.in_game:
            if age >= DICE_ANIMATION + DICE_SHOW - 1e-3:  # (float sums never quite get there)
                app.go(app.game_page())
                return None
            return DICE_ANIMATION + DICE_SHOW - age
        return None

    def _game_reading(self) -> bool:
        """Whether the game chosen on the home screen reads the dice its own way (Aranea:
        `Position.has_dice`, `companion.dice.Roll.value`)."""
        return games.get(self.app.settings.game).has_dice

    def model(self) -> tuple[Draw, object]:
        app = self.app
        d = self.state
        phase = 1.0
        if d.dice is not None:
            phase = min(1.0, (app.clock() - d.thrown_at) / DICE_ANIMATION)
        read_so = d.in_game or self._game_reading()
        rule = (
            _("A 3 and a 4 count as 1") if read_so and d.dice and sorted(d.dice) == [3, 4] else ""
        )
        title = (
            _("{game} · dice").format(game=app.position.full_title)
            if d.in_game and app.position
            else _("Dice")
        )
        who = (
            _("{player} rolls").format(player=play_name(d.who, app.settings.colour_names))
            if d.who
            else ""
        )
        rolls = not d.in_game  # (a game's next roll is on its own page, once this one shows)
        model = dice.DiceModel(
            d.dice,
            d.value,
            rule,
            phase,
            title,
            who,
            _("Play") if d.in_game else _("Back"),
            can_roll=rolls,
        )
        return dice.draw, model
