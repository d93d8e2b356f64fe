"""`companion export ID --format json|arimaa|html [-o FILE]`: write a recorded game out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion.commands import not_empty
from companion.commands.games import add_db_argument
from companion.errors import ReplayError, UserError
from companion.export import FORMATS, export_game, write_output
from companion.i18n import LANGUAGES
from companion.records import Records

EXAMPLES = """examples:
  companion export 12 --format html -o game12.html    a page to review the game at home
  companion export 12 -f html --language de -o g12.html   the page in German
  companion export 12 --format json -o game12.json    then: companion replay game12.json
  companion export 7 --format arimaa                   the arimaa.com move list, on stdout
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write a recorded game as JSON, an Arimaa move list or an HTML page",
        description="Write a recorded game (ids from `companion games`). The game is replayed "
        "by its engine first, so what is written always follows the rules.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("id", type=int, help="the game's id (see `companion games`)")
    parser.add_argument(
        "--format",
        "-f",
        type=str.lower,  # JSON is json
        choices=FORMATS,
        default=None,
        help="json: our game record (default; html when -o names a .html file); arimaa: "
        "arimaa.com move list (Arimaa games); html: one self-contained page with a diagram "
        "per move",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        type=not_empty("file name: name the file, or leave -o out to write to standard output"),
        help="write to FILE (default: stdout)",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace FILE if it exists (otherwise it is kept)"
    )
    parser.add_argument(
        "--no-photos",
        action="store_true",
        help="with --format html: leave the board photos out (smaller page); the other "
        "formats hold none, and refuse it",
    )
    parser.add_argument(
        "--language",
        type=str.lower,
        choices=LANGUAGES,
        help="with --format html: the page's language (default en; the command line stays "
        "English); the other formats hold no words to translate, and refuse it",
    )
    add_db_argument(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.format is None:  # a trial: `-o game.html` without --format wrote JSON into it
        suffix = Path(args.output).suffix.lower() if args.output not in (None, "-") else ""
        args.format = "html" if suffix in (".html", ".htm") else "json"
    if args.no_photos and args.format != "html":  # said, not ignored: the user expects an effect
        raise UserError(
            f"--no-photos is for --format html; a --format {args.format} export holds no "
            "photos: leave --no-photos out, or export --format html"
        )
    if args.language and args.format != "html":
        raise UserError(
            f"--language is for --format html; a --format {args.format} export holds no "
            "words to translate: leave --language out, or export --format html"
        )
    if args.force and args.output in (None, "-"):
        raise UserError(
            "--force replaces the -o file, and this export goes to standard output: leave "
            "--force out, or add -o FILE"
        )
    with Records(args.db, readonly=True) as db:
        record = db.game(args.id, images=args.format == "html" and not args.no_photos)
        db_path = db.path
        moves = db.moves_of(record.summary)  # as the game counts them: Aranea's turns
    try:
        text = export_game(
            record, args.format, images=not args.no_photos, language=args.language or "en"
        )
    except ReplayError as exc:
        raise ReplayError(
            f"{exc} - not exported: an export is replayed by the rules. The records keep the "
            "game as it was stored; the touchscreen's review shows it so, and says from which "
            "move on it does not replay"
        ) from None
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        _refuse_the_database(args.output, db_path)
        path = write_output(text, args.output, force=args.force)
        print(
            f"Wrote game {record.id} ({record.game}, {moves} move{'' if moves == 1 else 's'}) "
            f"to {path}",
            file=sys.stderr,
        )
    lost = record.unreadable_photos if args.format == "html" and not args.no_photos else ()
    if lost:
        plies = ", ".join(map(str, lost))
        which = f"photos of moves {plies} lie" if len(lost) > 1 else f"photo of move {plies} lies"
        print(
            f"{db_path} is damaged where the board {which}: the page says so there and has "
            "every other photo - restore the file from a backup",
            file=sys.stderr,
        )
        return 1  # written, but not whole: a script sees it
    return 0


def _refuse_the_database(output: str, db_path: Path) -> None:
    """-o naming the record database itself (or its WAL) would destroy every game, --force or
    not: a slip of the keyboard that must not cost the records. (Any other record database -
    another table's, a backup - `write_output` refuses.)"""
    target = Path(output).resolve()
    database = db_path.resolve()
    if target in {database, Path(f"{database}-wal"), Path(f"{database}-shm")}:
        raise UserError(
            f"{output} is the game record database itself: give another file name with -o"
        )
