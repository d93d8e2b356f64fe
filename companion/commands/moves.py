"""`companion moves GAME`: the legal moves of a position, one a line (or how many).

    companion moves arinama                            the start position's moves
    companion moves arimaa --position "g [rnbqkbnr...]" --count
    companion moves aranea --position saved.json       a position, or a whole game's last one

The position is the game's `parse_position` text (JSON from `to_json`, and each game's own
forms: Arimaa's AEI ``g [64 chars]`` string or board diagram, Sensei's diagram), or a game
record from `companion play --save` / `companion export`, whose final position is used.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from companion import games
from companion.commands import not_empty
from companion.commands.play import add_option_argument, options_from_pairs
from companion.errors import OptionError, RecordError, UserError, read_problem
from companion.games.base import GAME_FORMAT, Position, game_from_json

EXAMPLES = """examples:
  companion moves arinama -o rows=5 -o cols=5          every cell of an empty 5x5 board
  companion moves aranea --position game.json          a saved game's last position
  companion moves arimaa --position pos.txt --count    how many distinct turns
  echo '{"stones": {"c3": "black"}, "turn": "white"}' | companion moves arinama --position -
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "moves",
        help="list the legal moves of a position",
        description="Print the legal moves of a position, one per line, in the game's "
        "notation (the start position when --position is not given). A game that is over has "
        "none: its result goes to standard error.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", metavar="GAME", help=games.names_text())
    parser.add_argument(
        "--position",
        "-p",
        metavar="FILE|TEXT|-",
        type=not_empty("position: give a file, - for standard input, or the position text"),
        help="the position: a file, '-' for standard input, or the text itself (a position "
        "in the game's notation or JSON, or a whole game record)",
    )
    add_option_argument(parser)
    parser.add_argument("--count", action="store_true", help="print only the number of legal moves")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    cls = games.get(args.game)
    if args.position is None:
        position = cls.new(options_from_pairs(cls, args.option))
    elif args.option:
        raise OptionError("-o sets up a new game: a --position carries its own options")
    else:
        position = read_position(cls, args.position)
    outcome = position.outcome()
    if outcome is not None:
        print(f"the game is over: {outcome}", file=sys.stderr)
    if args.count:
        print(position.count_legal_moves() if outcome is None else 0)
        return 0
    try:
        moves = position.legal_moves()
    except UserError as exc:  # Arimaa's setup: millions of arrangements, but countable
        if not _countable(position):
            raise
        raise UserError(f"{exc}; --count gives their number") from None
    for move in moves:
        print(position.move_text(move))
    return 0


def _countable(position: Position[Any]) -> bool:
    try:
        position.count_legal_moves()
    except UserError:
        return False
    return True


def read_text(source: str) -> tuple[str, str]:
    """(text, what it is called in messages) of a FILE, '-' (stdin) or the text itself."""
    if source == "-":
        if sys.stdin is None:  # the command was started with standard input closed
            raise UserError("standard input is closed: give a file name instead of -")
        return sys.stdin.read().removeprefix("\ufeff"), "standard input"
    path = Path(source)
    try:
        kind = "folder" if path.is_dir() else "file" if path.exists() else None
    except OSError:  # e.g. a long position text: "File name too long"
        kind = None
    if kind is None:
        # (no position text ends so: "my game.json" is a file name with a space, not a board)
        if path.suffix.lower() in (".json", ".txt", ".jsonl") and "\n" not in source:
            raise UserError(f"no file {source}: check the name, or give the position text itself")
        return source, "the --position text"
    if kind == "file":  # a file, or a pipe such as <(...) or /dev/stdin
        try:
            return path.read_text(encoding="utf-8-sig"), source  # -sig: Notepad's BOM
        except OSError as exc:  # the file is refused, not its kind: what to do about that
            raise UserError(f"cannot read {source}: {read_problem(exc)}") from None
        except UnicodeDecodeError:
            raise UserError(
                f"cannot read {source}: not a text file - give a game record or a position as text"
            ) from None
    raise UserError(f"{source} is a folder: give a position file or the position text")


def too_deep(name: str) -> Any:
    """The RecordError for JSON nested so deeply that Python's parser gives up."""
    return RecordError(f"{name} is JSON nested too deeply to be a position or a game record")


def read_position(cls: Any, source: str) -> Any:
    """A position of `cls` from a FILE, '-' or text: a game record's final position, or
    whatever the game's `parse_position` reads."""
    text, name = read_text(source)
    try:
        return _position_from_text(cls, text, name)
    except RecursionError:
        raise too_deep(name) from None


def _another_game(name: str, game: Any, wanted: str) -> str:
    """What to say of a game record of `game` given as a position of `wanted`."""
    said = f"{name} is a game of {game!r}, not {wanted}"
    if game not in games.names():
        return f"{said}: give a record or a position of {wanted}"
    return f"{said}: its moves are listed by `companion moves {game}`"


def _position_from_text(cls: Any, text: str, name: str) -> Any:
    if not text.strip():
        raise RecordError(f"{name} is empty: give a position of {cls.title}")
    try:
        data = json.loads(text)
    except ValueError:  # not JSON (or a number too long): the game's own forms, below
        data = None
    if isinstance(data, dict) and data.get("format") == GAME_FORMAT:
        if data.get("game") != cls.name:
            raise RecordError(_another_game(name, data.get("game"), cls.name))
        try:
            return game_from_json(data)
        except RecordError as exc:
            raise RecordError(f"{name}: {exc}") from None
    try:
        return cls.parse_position(text)
    except RecordError as exc:
        raise RecordError(f"{name}: {exc}") from None
