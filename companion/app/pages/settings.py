"""The Settings screen: language, rotation, speech, the colours' names, the game's options and
the buttons' pins, each stepped with - and +, saved at once."""

from __future__ import annotations

import dataclasses
import typing
from typing import TYPE_CHECKING, Any

from companion import games, i18n
from companion.app.pages.base import Draw, Page
from companion.errors import UserError
from companion.games.base import options_from_dict, options_to_dict
from companion.i18n import COLOUR_NOUNS, _
from companion.option_words import button_name, colour_name_label, option_label, option_value
from display.screens import settings
from display.screens.settings import SettingRow
from display.theme import Metrics
from hardware.buttons import ButtonPins

if TYPE_CHECKING:
    from companion.app.controller import App

PIN_NAMES = ("done", "roll", "back", "buzzer", "led")


class SettingsPage(Page):
    name = "settings"

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.number = 0  # the page of the settings shown
        self.note = ""  # "Saved", or why not
        self.focus = ""  # open at the page of these rows (Home's Options: "option:")

    def open(self, focus: str = "") -> None:
        """The settings from their first page, or from the page holding the first row whose
        key starts with `focus` (Home's Options: the game's options, not the language)."""
        self.number = 0
        self.note = ""
        self.focus = focus
        self.app.go("settings")

    def buttons(self) -> dict[str, tuple[str, Any]]:
        return {"back": ("back", None)}

    def act(self, kind: str, value: Any) -> None:
        if kind == "page":
            self.number = max(0, int(value))
            self.focus = ""  # paged by hand from where it opened
            self.note = ""  # (it said what became of a change on the page before; the header
            # says which page this is again - "Saved" stood there on every page after)
        elif kind == "back":
            self.app.go("home")
        elif kind in ("setting-up", "setting-down"):
            self.change(value, +1 if kind == "setting-up" else -1)

    def model(self) -> tuple[Draw, object]:
        model = settings.SettingsModel(self.rows(), self.number, self.note, self.focus)
        return settings.draw, model

    def rows(self) -> list[SettingRow]:
        s = self.app.settings
        rows = [
            SettingRow(
                _("Screen"), _("Language"), i18n.LANGUAGE_NAMES[i18n.language()], "language"
            ),
            SettingRow(_("Screen"), _("Rotation"), f"{s.rotation}°", "rotation"),
            *self._speech_rows(),
        ]
        cls = games.get(s.game)
        # the players' colours (a Sensei character is named by its player's colour: no row)
        for piece in (c for c in cls.cell_classes() if c in COLOUR_NOUNS):
            rows.append(
                SettingRow(
                    _("Colour names"),
                    colour_name_label(piece, cls.pieces_are_stones),
                    i18n.colour_noun(s.colour_names.get(piece, piece), False),
                    f"colour:{piece}",
                )
            )
        options = s.game_options()
        for f in dataclasses.fields(options):
            value = getattr(options, f.name)
            if isinstance(value, (tuple, list)):
                continue  # lists (Sensei's pits) are set in the settings file
            rows.append(
                SettingRow(
                    _("{game} options").format(game=cls.title),
                    option_label(f.name),
                    option_value(value),
                    f"option:{f.name}",
                )
            )
        pins = ButtonPins.parse(s.pins)
        for name in PIN_NAMES:
            rows.append(
                SettingRow(
                    _("Pins (BCM, after a restart)"),
                    _("{button} pin").format(button=button_name(name)),
                    option_value(getattr(pins, name)),
                    f"pin:{name}",
                )
            )
        return rows

    def _speech_rows(self) -> list[SettingRow]:
        s = self.app.settings
        speaker = self.app.speaker
        if speaker is not None and speaker.available:
            return [
                SettingRow(_("Speech"), _("Spoken instructions"), option_value(s.speech), "speech"),
                SettingRow(_("Speech"), _("Volume"), f"{s.volume} %", "volume"),
            ]
        why = speaker.problem if speaker is not None else "no speaker"
        return [
            SettingRow(
                _("Speech"),
                _("Spoken instructions: {reason}").format(reason=speech_problem(why)),
                _("off"),
                "speech",
            )
        ]

    def change(self, key: str, step: int) -> None:
        """One step of a setting (-1 or +1), saved at once."""
        app = self.app
        s = app.settings
        try:
            if key == "language":
                names = list(i18n.LANGUAGES)
                index = names.index(i18n.language()) if i18n.language() in names else 0
                s.language = names[(index + step) % len(names)]
                i18n.set_language(s.language)
                app.language_changed()
            elif key == "speech":
                if app.speaker is None or not app.speaker.available:
                    return
                s.speech = not s.speech
                app.speaker.enabled = s.speech
                if not s.speech:
                    app.speaker.stop()
            elif key == "volume":
                s.volume = max(0, min(100, s.volume + 10 * step))
                if app.speaker is not None:
                    app.speaker.volume = s.volume
            elif key == "rotation":
                s.rotation = (s.rotation + 90 * step) % 360
                app.screen.set_rotation(s.rotation)
                app.metrics = Metrics(app.screen.size, s.diagonal_in)
            elif key.startswith("colour:"):
                self._step_colour_name(key.split(":", 1)[1], step)
                app.language_changed()
            elif key.startswith("option:"):
                self._step_option(key.split(":", 1)[1], step)
            elif key.startswith("pin:"):
                self._step_pin(key.split(":", 1)[1], step)
            self.note = _("Saved")
            running = app.referee.position.name if app.game_running() and app.referee else None
            if key.startswith("option:") and running == s.game:
                # (a trial: the home screen then showed the new board beside the game in hand)
                self.note = _("Saved for the next game: the game in hand keeps its options")
            app.save_settings()
        except UserError as exc:
            self.note = str(exc)

    def _step_colour_name(self, piece: str, step: int) -> None:
        """The next word for `piece`'s colour - never one the game's other colours are
        called: two players both "White to play" could not tell whose turn it is."""
        s = self.app.settings
        others = {
            s.colour_names.get(c, c)
            for c in games.get(s.game).cell_classes()
            if c in COLOUR_NOUNS and c != piece
        }
        # (its own word too is skipped while another colour is called so)
        words = [w for w in dict.fromkeys((piece, *COLOUR_NOUNS)) if w not in others]
        current = s.colour_names.get(piece, piece)
        index = words.index(current) if current in words else 0
        new = words[(index + step) % len(words)]
        if new == piece:
            s.colour_names.pop(piece, None)
        else:
            s.colour_names[piece] = new
        i18n.set_colour_names(s.colour_names)

    def _step_option(self, name: str, step: int) -> None:
        s = self.app.settings
        cls = games.get(s.game)
        options = s.game_options()
        hint = typing.get_type_hints(type(options))[name]
        value = getattr(options, name)
        if typing.get_origin(hint) is typing.Literal:
            choices = list(typing.get_args(hint))
            value = choices[(choices.index(value) + step) % len(choices)]
        elif isinstance(value, bool):
            value = not value
        elif isinstance(value, int):
            value = value + step
        elif value is None:
            value = 100 if step > 0 else None
        try:
            new = options_from_dict(
                cls.Options, options_to_dict(options) | {name: value}, game=cls.name
            )
        except UserError:
            return  # out of range: stay at the limit
        s.options[s.game] = {
            k: (list(v) if isinstance(v, tuple) else v) for k, v in options_to_dict(new).items()
        }

    def _step_pin(self, name: str, step: int) -> None:
        s = self.app.settings
        pins = ButtonPins.parse(s.pins)
        current = getattr(pins, name)
        taken = {getattr(pins, n) for n in PIN_NAMES} - {current, None}
        candidates = (
            [None] + [p for p in range(2, 28) if p not in taken]
            if name in ("buzzer", "led")
            else [p for p in range(2, 28) if p not in taken]
        )
        index = candidates.index(current) if current in candidates else 0
        new = candidates[(index + step) % len(candidates)]
        # None is among the candidates only for the optional parts (buzzer, led)
        updated = dataclasses.replace(pins, **{name: new})  # type: ignore[arg-type]
        s.pins = ",".join(f"{n}={_show(getattr(updated, n))}" for n in PIN_NAMES)


def _show(value: Any) -> str:
    if value is None:
        return "off"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def speech_problem(problem: str) -> str:
    """Why the table is silent, in its language."""
    if problem == "espeak-ng is not installed":
        return _("espeak-ng is not installed")
    if problem.startswith("no audio device"):
        return _("no audio device")
    if problem == "no speaker":
        return _("not started")
    return problem
