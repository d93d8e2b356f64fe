"""The rules engines, one module per game, all on the shared model in `companion.games.base`.

    >>> from companion import games
    >>> Arinama = games.get("arinama")
    >>> pos = Arinama.new()
    >>> pos.push(pos.parse_move("c3"))

Modules are imported on first use, so asking for one game never loads the others.
"""

from __future__ import annotations

import importlib

from companion.errors import UserError
from companion.games.base import Outcome, Position

__all__ = ["Outcome", "Position", "get", "names"]

# game name -> "module:class"
_REGISTRY: dict[str, str] = {
    "arinama": "companion.games.arinama:ArinamaPosition",
    "arimaa": "companion.games.arimaa:ArimaaPosition",
    "aranea": "companion.games.aranea:AraneaPosition",
    "sensei": "companion.games.sensei:SenseiPosition",
}


def names() -> list[str]:
    """The names of all games, in a stable order."""
    return list(_REGISTRY)


def get(name: str) -> type[Position]:
    """The position class of a game by name (case-insensitive)."""
    key = name.strip().lower()
    if key not in _REGISTRY:
        raise UserError(f"unknown game {name!r}: choose one of {', '.join(_REGISTRY)}")
    module_name, class_name = _REGISTRY[key].split(":")
    return getattr(importlib.import_module(module_name), class_name)
