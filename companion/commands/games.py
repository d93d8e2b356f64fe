"""`companion games`: the recorded games, newest first."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from companion.commands import as_typed
from companion.errors import RecordError, RecordsDamaged
from companion.records import Records, default_db_path, records_missing


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """The shared ``--db FILE`` option (also used by `companion export`)."""
    parser.add_argument(
        "--db",
        metavar="FILE",
        type=_db_name,
        help="the game record database (default: $STATE_DIRECTORY/records.sqlite3 under "
        "systemd, else ~/.local/state/tabletop-companion/records.sqlite3)",
    )


def _db_name(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError(
            "an empty file name: name the records file, or leave --db out for the default"
        )
    return text


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "games",
        help="list the recorded games",
        description="List the recorded games, newest first: id, game, date, status, moves (as "
        "the game counts them: an Aranea turn is a roll and its use) and result (games the "
        "synthetic-table demo played are marked as demos). Use the id with `companion export`.",
    )
    add_db_argument(parser)
    parser.add_argument(
        "--json",
        action="store_true",
        help='one JSON object per game, a line each (its "moves": the stored moves, each of '
        "Aranea's rolls one)",
    )
    parser.add_argument(
        "--unfinished",
        action="store_true",
        help="only the games still in play (the ones the companion offers to continue)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="also run SQLite's integrity check on the whole file (exit 1 when it finds "
        "damage; a file too damaged to open at all is an error, exit 2)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    path = args.db or default_db_path()
    if not args.db and records_missing(path):  # a path through a file: Records says so
        print(f"No games recorded yet ({path} does not exist).")
        return 0
    with Records(args.db, readonly=True) as db:  # None: the default, its own remedy
        try:
            games = db.unfinished_games() if args.unfinished else db.games()
        except RecordsDamaged as exc:
            # (a trial: one damaged page of moves lost the whole list, while 8 of 9 games
            # still exported)
            raise RecordError(
                as_typed(f"{exc} - `{_export(args)}` may still save the games it can read")
            ) from None
        problems = db.check() if args.check else []
        moves = [] if args.json else [db.moves_of(game) for game in games]
    if args.json:
        for game in games:
            print(json.dumps(game.to_json(), ensure_ascii=False))
    elif not games:
        print(
            f"No unfinished games in {path}."
            if args.unfinished
            else f"No games recorded in {path}."
        )
    else:
        print(_table(games, moves))
    if problems:  # on stderr: --json output stays one JSON object a line
        found = "; ".join(" ".join(p.split()) for p in problems[:5])
        print(
            as_typed(
                f"{path} is damaged: {found}. Copy it aside and restore a backup; "
                f"`{_export(args)}` may still save the games listed"
            ),
            file=sys.stderr,
        )
        return 1
    if args.check and not args.json:
        print(f"{path}: integrity check ok")
    return 0


def _table(games: list[Any], moves: list[int]) -> str:
    """The games as a table; `moves`: each one's as the game counts them (`Records.moves_of`)."""
    header = ("ID", "GAME", "STARTED (UTC)", "STATUS", "MOVES", "RESULT")
    rows = [
        (
            str(g.id),
            f"{g.game} (demo)" if g.meta.get("demo") else g.game,
            g.started_at[:16].replace("T", " "),
            g.status,
            str(count),
            g.result if g.outcome else "",
        )
        for g, count in zip(games, moves, strict=True)
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for row in [header, *rows]:
        cells = [c.ljust(w) for c, w in zip(row, widths, strict=False)] + [row[-1]]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _export(args: argparse.Namespace) -> str:
    """The export command for the file listed: `--db` named when one was given."""
    return "companion export ID" + (f" --db {shlex.quote(str(args.db))}" if args.db else "")
