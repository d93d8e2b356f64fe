"""What the players set on the Settings screen, saved as JSON next to the records."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion import games, i18n
from companion.errors import UserError, excerpt, write_problem
from companion.files import write_atomically

SETTINGS_FORMAT = "tabletop-companion/settings"


@dataclass
class Settings:
    """What the players set on the Settings screen; saved as JSON next to the records."""

    game: str = "arinama"
    options: dict[str, dict[str, Any]] = field(default_factory=dict)  # game -> options
    rotation: int = 0
    size: tuple[int, int] = (800, 480)
    diagonal_in: float = 7.0
    colour_names: dict[str, str] = field(default_factory=dict)  # class -> the table's word
    pins: str = "done=17,roll=27,back=22,buzzer=18,led=23"  # hardware.buttons.ButtonPins.parse
    # Boards without markers: layout -> the four corners the players tapped (image px, TL TR BR
    # BL), used again at the next setup until they tap others or ask to find the grid again.
    corners: dict[str, list[list[float]]] = field(default_factory=dict)
    # Games played on a board of the players' own instead of the printed mat (game -> "own"):
    # chosen on the setup screen (`Position.own_board_choice`).
    boards: dict[str, str] = field(default_factory=dict)
    language: str = ""  # "en" or "de"; "" until the first start sets it from the system locale
    speech: bool = True  # spoken instructions (where espeak-ng and an audio device exist)
    volume: int = 80  # of the spoken instructions, 0..100

    def game_options(self, game: str | None = None) -> Any:
        game = game or self.game
        return games.get(game).options_from(self.options.get(game, {}))

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["size"] = list(self.size)
        return {"format": SETTINGS_FORMAT, "version": 1, **data}

    @classmethod
    def from_json(cls, data: Any, source: str = "settings") -> Settings:
        if not isinstance(data, dict):
            raise UserError(f"{source}: settings must be a JSON object")
        written = data.get("format", SETTINGS_FORMAT)
        if written != SETTINGS_FORMAT:  # a game record, a calibration: saving would replace it
            raise UserError(
                f"{source} is not a settings file (it says {excerpt(repr(written))}): give "
                "another --settings file, or none"
            )
        if data.get("version", 1) > 1:
            raise UserError(
                f"{source} was written by a newer companion: update it, or remove the file"
            )
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        try:
            settings = cls(**values)
            settings.size = (int(settings.size[0]), int(settings.size[1]))
            settings.rotation = int(settings.rotation)
            settings.volume = max(0, min(100, int(settings.volume)))
            if settings.language:
                i18n.check_language(settings.language)
            games.get(settings.game)
        except (TypeError, ValueError, IndexError) as exc:
            raise UserError(
                f"{source}: a setting has a bad value ({exc}): fix or remove the file"
            ) from None
        return settings

    @classmethod
    def load(cls, path: Path) -> Settings:
        """The saved settings, or the defaults when there are none yet. A damaged file is
        reported (UserError) and never overwritten."""
        try:
            if not path.exists():
                return cls()
            is_dir = path.is_dir()
        except OSError as exc:  # e.g. "File name too long" from the checks themselves
            raise UserError(
                f"cannot read the settings file {path} ({exc.strerror or exc}): give "
                "--settings another path"
            ) from None
        if is_dir:
            raise UserError(
                f"{path} is a folder, not a settings file: give --settings a file, e.g. "
                f"{path / 'settings.json'}"
            )
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:  # JSONDecodeError, UnicodeDecodeError, huge ints
            raise UserError(
                f"cannot read the settings file {path} ({excerpt(str(exc))}): fix or remove it"
            ) from None
        except RecursionError:
            raise UserError(
                f"cannot read the settings file {path} (JSON nested too deeply): fix or remove it"
            ) from None
        return cls.from_json(data, str(path))

    def save(self, path: Path) -> None:
        """Write whole or not at all (`write_atomically`).

        :raises UserError: the folder cannot be made or the file written (what and why)."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"cannot write {path}: {write_problem(path, exc)}") from None
        write_atomically(path, json.dumps(self.to_json(), indent=2) + "\n")
