"""The one list of the games: name -> position class (see `companion.games`). Game modules
are imported on first use, so asking for one game never loads the others."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from companion.errors import UnknownGame

if TYPE_CHECKING:
    from companion.games.base import Position
# game name -> "module:class", in the order the games are listed everywhere
_REGISTRY: dict[str, str] = {
    "arinama": "companion.games.arinama:ArinamaPosition",
    "arimaa": "companion.games.arimaa:ArimaaPosition",
    "aranea": "companion.games.aranea:AraneaPosition",
    "sensei": "companion.games.sensei:SenseiPosition",
}


def names() -> list[str]:
    """The names of all games, in a stable order."""
    return list(_REGISTRY)


def get(name: str) -> type[Position[Any]]:
    """The position class of a game by name (case-insensitive).

    :raises UnknownGame: (a UserError) naming the games, when there is no such game.
    """
    key = name.strip().lower()
    if key not in _REGISTRY:
        raise UnknownGame(f"unknown game {name!r}: choose one of {', '.join(_REGISTRY)}")
    module_name, class_name = _REGISTRY[key].split(":")
    cls: type[Position[Any]] = getattr(importlib.import_module(module_name), class_name)
    return cls


def names_text() -> str:
    """The games' names for a sentence: "arinama, arimaa, aranea or sensei"."""
    *first, last = names()
    return f"{', '.join(first)} or {last}"


def classes() -> list[type[Position[Any]]]:
    """The position classes of all games, in the order of `names()` (imports every game)."""
    return [get(name) for name in _REGISTRY]


def for_layout(layout: str) -> tuple[str, Any] | None:
    """The game whose printed mat is `layout` (a vision layout name) and the options that mat
    fixes (the rest default), or None when no game is played on it."""
    for cls in classes():
        options = cls.options_for_mat(layout)
        if options is not None:
            return cls.name, options
    return None
