"""A game on the table: which printed mat (vision layout) it is played on, and what to put on
the board for the camera to learn the pieces' colours."""

from __future__ import annotations

from typing import Any

from companion import games
from companion.games.base import Position
from companion.observation import EMPTY


def layout_name(game: str, options: Any, *, own: bool = False) -> str:
    """The printed mat (vision layout) for a game played with these options; `own`: on a
    board of the players' own instead (no markers: `grid:RxC`, found from its lines or its
    corners tapped), where the game can be (`own_board_choice`)."""
    if game == "arinama":
        rows, cols = getattr(options, "rows", 8), getattr(options, "cols", 8)
        if own or not (rows == cols and rows in (5, 8)):
            return (
                f"grid:{rows}x{cols}"  # no printed mat of other sizes: a lined board of one's own
            )
        return f"arinama{rows}"
    if game == "sensei":
        if own:
            return "grid:7x7"  # a Sensei board of one's own is a 7 x 7 grid
        return "sensei-storm" if getattr(options, "side", "plain") == "storm" else "sensei"
    if game == "arimaa" and getattr(options, "equipment", "mat") == "chess":
        return "chessboard"  # a chess set on a chessboard of one's own
    return game


def own_board_choice(game: str, options: Any) -> bool:
    """Whether the players may choose between the printed mat and a board of their own on the
    setup screen (Arimaa's own board is its equipment option, a chess set; an Arinama board of
    a size without a printed mat is always one's own)."""
    if game == "sensei":
        return True
    if game == "arinama":
        rows, cols = getattr(options, "rows", 8), getattr(options, "cols", 8)
        return rows == cols and rows in (5, 8)
    return False


def game_for_layout(layout: str) -> str | None:
    for game in games.names():
        if layout == game or layout.startswith(game):
            return game
    return None


def calibration_cells(position: Position, classes: tuple[str, ...]) -> dict[str, str]:
    """What to put on the board for the camera to learn the colours: the start position, plus
    two pieces of every colour it lacks (Arimaa and Aranea start with an empty board) on free
    cells far apart. The referee then asks for the extra pieces to be taken off (a plain
    instruction - `Referee(clear_first=True)` - not an illegal move)."""
    if getattr(position.options, "equipment", "mat") == "chess":
        return chess_set_start()
    cells = dict(position.cells())
    names = position.cell_names()
    free = [c for c in names if c not in cells]
    # A board of one's own (grid:RxC) names no classes of its own: the game's are wanted.
    wanted = dict.fromkeys([*classes, *position.cell_classes()])
    missing = [c for c in wanted if c != EMPTY and c not in cells.values()]
    picks: list[str] = []
    if missing and free:
        stride = max(1, len(free) // (2 * len(missing) + 1))
        picks = free[stride // 2 :: stride]
    for i, cls in enumerate(missing):
        for cell in picks[2 * i : 2 * i + 2]:
            cells[cell] = cls
    return cells


def chess_set_start() -> dict[str, str]:
    """Arimaa on a chess set: the camera learns the colours from a chess set's start position
    (white on ranks 1 and 2, black on 7 and 8) - the colours it reads, white and black."""
    cells = {f"{f}{r}": "white" for f in "abcdefgh" for r in (1, 2)}
    cells.update({f"{f}{r}": "black" for f in "abcdefgh" for r in (7, 8)})
    return cells
