"""The rules engines, one module per game, all on the shared model in `companion.games.base`,
and the one registry of the games.

    >>> from companion import games
    >>> games.names()
    ['arinama', 'arimaa', 'aranea', 'sensei']
    >>> Arinama = games.get("arinama")
    >>> pos = Arinama.new()
    >>> pos.push(pos.parse_move("c3"))
    >>> Arinama.mat_layout(pos.options), Arinama.title
    ('arinama8', 'Arinama')
    >>> games.for_layout("sensei-storm")  # doctest: +ELLIPSIS
    ('sensei', SenseiOptions(...))

Everything else about a game is found from its position class (python-chess's variants are the
pattern): `title`, `players`, `Options`, `mats` and `mat_layout(options)` (the printed mats),
`uses_chess_set(options)`, `board_geometry(options)`, `referee_class()`, `demo_options`,
`has_dice`, the notation (`parse_move` / `move_text`); and from its positions what the table
needs: `calibration_cells`, `piece_labels`, `in_setup`, `mid_turn`, `placement`. Modules are
imported on first use, so asking for one game never loads the others (docs/architecture.md:
how to add a game).
"""

from companion.games.base import Outcome, Position
from companion.games.registry import classes, for_layout, get, names, names_text

__all__ = ["Outcome", "Position", "classes", "for_layout", "get", "names", "names_text"]
