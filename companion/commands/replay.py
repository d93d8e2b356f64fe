"""`companion replay FILE`: check every move of a recorded game and print the result.

Reads our game records (JSON from `companion play --save`, `companion export` or the referee:
``{"format": "tabletop-companion/game", ...}``) and Arimaa games as arimaa.com move lists
(``1g Ra1 Rb1 ... / 1s ra8 ... / 2g Ed2n ...``) or JSON objects with "moves" and no "format"
(the lines of shared/data/arimaa/games.jsonl; one whose "game" names another game is our record
without its "format" key, replayed as that game). A file of such JSON lines checks every game
in it, one line of output each (with --board each game's board under its line).

Exit status: 0 when every move is legal, 1 at the first illegal move (its number, text and
the reason are printed) or when the result a record states is not the one the rules reach
(our records' "outcome"; an Arimaa record's result codes g, e and m - goal, elimination,
immobilisation - which the rules decide; resignation, time and the other codes are shown as
stated, but a winner other than the one the board decided is flagged too), 2 when the file
cannot be read at all. Lines of an arimaa.com move list that are not turns (log lines,
takebacks, a resignation) are listed as notes before the result.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from companion.commands import not_empty
from companion.commands.moves import read_text, too_deep
from companion.errors import RecordError, UserError, json_problem
from companion.games.arimaa_notation import NoArimaaTurns, replay_move_list
from companion.games.base import Outcome, Replay, replay_json

EXAMPLES = """examples:
  companion play arinama --auto --seed 1 --save game.json && companion replay game.json
  companion replay game.txt            an arimaa.com move list
  companion replay games.jsonl         every game in a file of JSON lines
  companion replay - < game.json
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="check every move of a recorded game and print its result",
        description="Replay a recorded game move by move under the rules. Prints the result, "
        "or the first illegal move (number, text, reason) and the position before it, with "
        "exit status 1.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "file",
        metavar="FILE",
        type=not_empty("file name: give a game record file, or - for standard input"),
        help="a game record (JSON), an arimaa.com move list, a file of JSON lines, or - for "
        "standard input",
    )
    parser.add_argument(
        "--board",
        action="store_true",
        help="also draw the final position (it is always drawn before an illegal move; for "
        "a file of JSON lines: under each game's line)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.file != "-":
        try:
            what = "a folder" if Path(args.file).is_dir() else None
            what = what or (None if Path(args.file).exists() else "not there")
        except OSError as exc:  # "File name too long", ...
            what = f"not a usable file name ({exc.strerror})"
        if what:
            raise UserError(f"cannot replay {args.file}: it is {what}; give a game record file")
    text, name = read_text(args.file)
    if not text.strip():
        raise UserError(f"{name} is empty: give a game record or a move list")
    try:
        records = parse_records(text, name)
    except RecursionError:
        raise too_deep(name) from None
    if len(records) == 1:
        return report_one(replay_one(records[0], name), show_board=args.board)
    return report_many(records, show_board=args.board)


def report_many(records: list[tuple[int, Any]], show_board: bool) -> int:
    """One line per game of a file of JSON lines (each game's board under it with --board)."""
    failed = 0
    for line_number, record in records:
        label = _record_label(record, line_number)
        try:
            result = replay((line_number, record))
        except UserError as exc:  # one unreadable record does not stop the others
            failed += 1
            print(f"{label}: UNREADABLE {exc}")
            continue
        error = result.error
        if error is None and _disagreement(result):
            failed += 1
            print(f"{label}: WRONG RESULT {_result_text(result)}")
        elif error is None:
            print(f"{label}: {_result_text(result)}")
        else:
            failed += 1
            print(f"{label}: ILLEGAL {error}")
        if show_board:  # under its line: the final position, or the one before the illegal move
            print(result.position.diagram())
    print(f"{len(records)} games: {len(records) - failed} legal, {failed} not")
    return 1 if failed else 0


def parse_records(text: str, name: str) -> list[tuple[int, Any]]:
    """(line number, record) pairs: one JSON document, JSON lines, or one move-list text."""
    stripped = text.lstrip()
    if stripped[:15].lower().startswith(("<!doctype html", "<html")):
        # an exported page: an Arimaa game's holds its turns in the page ("2g Ed2n"), and was
        # replayed as a move list - 95 lines ignored, then its SVG called an illegal turn
        raise RecordError(
            f"{name} is a web page (`companion export --format html`), which is for reading: "
            "give the JSON of `companion export ID --format json` (or `--format arimaa` for an "
            "Arimaa game)"
        )
    if not stripped.startswith(("{", "[")):
        try:
            json.loads(text)
        except ValueError:
            return [(1, text)]  # an arimaa.com move list
        raise RecordError(
            f"{name} is JSON but not a game record: expected an object like "
            '{"format": "tabletop-companion/game", ...}'
        )
    try:
        return [(1, json.loads(text))]
    except ValueError as whole_error:
        if not isinstance(whole_error, json.JSONDecodeError):  # a number of 4300+ digits
            raise RecordError(f"{name}: {json_problem(whole_error)}") from None
        lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        records: list[tuple[int, Any]] = []
        for number, line in lines:
            try:
                records.append((number, json.loads(line)))
            except ValueError as exc:
                if not records:  # not JSON lines at all
                    if _looks_like_a_move_list(text):  # "[date] bot started" on top of turns
                        return [(1, text)]
                    where = f"line {whole_error.lineno} column {whole_error.colno}"
                    raise RecordError(
                        f"{name} is not valid JSON ({where}): it was cut short or mistyped "
                        "there - mend it, or save or export the game again"
                    ) from None
                # One broken line (a download cut short) does not stop the other games.
                records.append((number, RecordError(f"not valid JSON: {json_problem(exc)}")))
        return records


def _looks_like_a_move_list(text: str) -> bool:
    """Some line starts with an Arimaa turn label and a move (``2g Ed2n``)."""
    return any(
        re.match(r"\s*\d+[wbgs]\s+[RCDHMErcdhme][a-h][1-8]", line) for line in text.splitlines()
    )


def replay_one(numbered: tuple[int, Any], name: str) -> Replay[Any]:
    """`replay` of a file's one record; a text that is no JSON and no move list either (an
    HTML export, notes) is said to be neither, naming the file."""
    try:
        return replay(numbered)
    except NoArimaaTurns:
        raise RecordError(
            f"{name} is neither a JSON game record nor an arimaa.com move list (no turn like "
            "'2g Ed2n Ed3n' in it): give the JSON of `companion play --save` or `companion "
            "export ID --format json`"
        ) from None
    except UserError as exc:  # what is wrong inside: said with the file it is in
        text = str(exc)
        if text.startswith((f"{name} ", f"{name}:")):  # (it names the file already)
            raise
        raise RecordError(f"{name} cannot be replayed: {text}") from None


def replay(numbered: tuple[int, Any]) -> Replay[Any]:
    """Replay one record with every move checked, up to the first bad one (`Replay.error`)."""
    _, record = numbered
    if isinstance(record, RecordError):  # a line parse_records could not read
        raise record
    if isinstance(record, dict) and ("format" in record or _names_another_game(record)):
        return replay_json(record)  # our record (one without its "format" key too)
    if isinstance(record, (str, list)) or (isinstance(record, dict) and "moves" in record):
        return replay_move_list(record)
    raise RecordError(
        'not a game record: expected {"format": "tabletop-companion/game", ...}, a JSON '
        'object with "moves", or an arimaa.com move list'
    )


def _names_another_game(record: dict[str, Any]) -> bool:
    """A record without "format" whose "game" is not Arimaa's: our record missing that key
    (`replay_json` reads it as ours), never an arimaa.com record."""
    return "game" in record and str(record["game"]).strip().lower() != "arimaa"


def report_one(result: Replay[Any], show_board: bool) -> int:
    position, error = result.position, result.error
    _print_notes(result)
    if error is not None:
        # the record's moves before the one the error numbers (its place in the file: Aranea's
        # rolls among them)
        played = len(position.move_stack)
        print(f"{position.title}: illegal {error}")
        print(f"the position before it ({_plural(played, 'legal move')} played):")
        print(position.diagram())
        return 1
    if show_board:
        print(position.diagram())
    moves = position.moves_played  # as the game counts them: Aranea's turns, not its rolls
    print(f"{position.title}: {_plural(moves, 'move')}, all legal. {_result_text(result)}")
    return 1 if _disagreement(result) else 0


def _print_notes(result: Replay[Any]) -> None:
    """What an arimaa.com move list held besides its turns (log lines, takebacks, ...)."""
    for note in result.notes:
        print(f"note: {note}")


# Arimaa result codes the rules decide on the board (the others - resignation, time, forfeit,
# ... - are only what the record states).
DECIDED_CODES = {"g": "goal", "e": "elimination", "m": "immobilisation"}


def _disagreement(result: Replay[Any]) -> str | None:
    """What the record states as the result when the rules reached a different one."""
    outcome, stated = result.position.outcome(), result.recorded_outcome
    recorded = result.recorded_result  # Arimaa: (winner, code)
    if recorded:
        winner, code = recorded
        reason = DECIDED_CODES.get(code or "")
        if reason is not None:
            said = f"{winner} wins by {reason} (code {code})"
            if outcome is None:
                return f"{said}, which the rules do not reach"
            if (outcome.winner, outcome.reason) != (winner, reason):
                return said
        elif outcome is not None and outcome.winner != winner:
            return f"{winner} wins (code {code})"
    if not stated:
        return None
    if outcome is None:
        if stated.get("reason") in type(result.position).rule_reasons:
            return f"{Outcome.from_json(stated)}, which the rules do not reach"
        return None
    if (stated.get("winner"), stated.get("reason")) == (outcome.winner, outcome.reason):
        return None
    return str(Outcome.from_json(stated))


def _result_text(result: Replay[Any]) -> str:
    position = result.position
    outcome = position.outcome()
    recorded = result.recorded_result  # Arimaa: (winner, code)
    stated = result.recorded_outcome  # our records: the outcome field
    disagreement = _disagreement(result)
    if outcome is not None:
        if disagreement:
            return f"Result: {outcome}. BUT the record says {disagreement}"
        return f"Result: {outcome}"
    if disagreement:
        return f"Not decided on the board ({position.turn} to play), BUT the record says {disagreement}"
    if stated:  # ended by the players (a resignation) or by the referee
        return f"Not decided on the board; the record says {Outcome.from_json(stated)}"
    if recorded:
        winner, code = recorded
        return f"Not decided on the board; the record says {winner} wins (code {code})"
    return f"Not finished: {position.turn} to play"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _record_label(record: Any, line_number: int) -> str:
    if isinstance(record, dict) and record.get("id"):
        return f"line {line_number} ({record['id']})"
    return f"line {line_number}"
