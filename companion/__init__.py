"""Tabletop Companion: a referee for physical board games (Arinama, Arimaa, Aranea, Sensei).

The core package: rules engines (`companion.games`), dice, the referee, game records and the
CLI. It never imports `vision`, `display` or `hardware` at module level; the app wiring loads
them lazily so the core runs (and is tested) anywhere.
"""

__version__ = "0.1.0"
