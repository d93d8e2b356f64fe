"""Writing a recorded game out: our JSON record, an arimaa.com move list, or one HTML page.

- ``json``: the shared game record of `companion.games.base.game_to_json` (what `companion
  replay` reads back), plus what the table knew: players, times of every move, the moves taken
  back, dice rolls, the referee's instructions and the events.
- ``arimaa``: the arimaa.com move list of an Arimaa game (``1g Ra1 ...``, ``1s ...``), which
  `companion replay` and the aei tools read.
- ``html``: one self-contained page for reviewing at home: an SVG diagram of every position (the
  cells a move changed outlined), the move list, the result, the dice rolls and the board photos,
  with a step-through control (buttons, a slider and the arrow keys). No network, no external
  files; with JavaScript off it shows every diagram one under the other. Its words are in one
  language (`language`: English or German; the table's by default, as the app exports;
  `companion export --language`), what the referee said in the language it was said in; its
  times in the device's local time zone, with the offset (the records keep UTC).

Every export replays the game with its engine first (`companion.records.replay`), so a record
that no longer follows the rules is reported instead of exported.
"""

from __future__ import annotations

import base64
import json
import os
from datetime import UTC, datetime, timedelta
from html import escape
from pathlib import Path
from typing import Any

from companion import __version__, games, i18n
from companion.dice import shown_move
from companion.errors import UserError, write_problem
from companion.files import write_atomically
from companion.games.arimaa import ArimaaPosition
from companion.games.arimaa_notation import game_to_move_list
from companion.games.base import Outcome, Position, game_to_json
from companion.geometry import board_geometry
from companion.i18n import _, pgettext
from companion.records import GameRecord, is_record_database, replay
from companion.referee.outcomes import result_text
from companion.svg import board_defs, change_words, changed_cells, position_svg

FORMATS = ("json", "arimaa", "html")


def export_game(
    record: GameRecord, fmt: str, *, images: bool = True, language: str | None = None
) -> str:
    """The text of `record` in format `fmt` (one of FORMATS); an HTML page's words in
    `language` (default: the table's, `i18n.language()`)."""
    if fmt not in FORMATS:
        raise UserError(f"unknown export format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if fmt == "json":
        return json.dumps(game_json(record), indent=2, ensure_ascii=False) + "\n"
    if fmt == "html":
        return game_html(record, images=images, language=language)
    return arimaa_move_list(record)  # the arimaa.com move list


# -- json ------------------------------------------------------------------------------------------
def game_json(record: GameRecord) -> dict[str, Any]:
    """Our game record (game_to_json shape, read back by game_from_json) with the table's log."""
    position = replay(record)
    data = game_to_json(position)
    summary = record.summary
    if data["outcome"] is None and summary.outcome is not None:
        data["outcome"] = summary.outcome  # ended by the players (resignation, agreement)
    data.update(
        {
            "id": summary.id,
            "status": summary.status,
            "players": summary.players,
            "meta": summary.meta,
            "started_at": summary.started_at,
            "ended_at": summary.ended_at,
            "exported_by": f"companion {__version__}",
            "plies": [
                {
                    "ply": m.ply,
                    "move": m.text,
                    "played_at": m.played_at,
                    "photo": m.photo,
                }
                for m in record.moves
            ],
            "taken_back": [
                {
                    "ply": m.ply,
                    "move": m.text,
                    "played_at": m.played_at,
                    "taken_back_at": m.taken_back_at,
                }
                for m in record.taken_back
            ],
            "rolls": [
                {
                    "for_ply": r.for_ply,
                    "dice": list(r.dice),
                    "value": r.value,
                    "rolled_at": r.rolled_at,
                }
                for r in record.rolls
            ],
            "instructions": [
                {"for_ply": i.for_ply, "given_at": i.given_at, "instruction": i.instruction}
                for i in record.instructions
            ],
            "events": [
                {"for_ply": e.for_ply, "at": e.at, "kind": e.kind, "data": e.data}
                for e in record.events
            ],
        }
    )
    return data


# -- arimaa ----------------------------------------------------------------------------------------
def arimaa_move_list(record: GameRecord) -> str:
    """The arimaa.com move list of an Arimaa game; UserError for any other game."""
    if not issubclass(games.get(record.game), ArimaaPosition):  # the format is Arimaa's own
        raise UserError(
            f"game {record.id} is {record.game.capitalize()}: the arimaa move list is only for "
            "Arimaa games; use --format json or html"
        )

    text = game_to_move_list(replay(record))
    return text if text.endswith("\n") else text + "\n"


# -- html ------------------------------------------------------------------------------------------
def game_html(record: GameRecord, *, images: bool = True, language: str | None = None) -> str:
    """One self-contained HTML page for reviewing the game (see the module docstring), its
    words in `language` (default: the table's language now - the app's)."""
    final = replay(record)  # (a record that does not replay is said in the command line's words)
    with i18n.speaking(language or i18n.language()):
        return _page(record, final, images)


def _page(record: GameRecord, final: Any, images: bool) -> str:
    """`game_html`'s page of `record` replayed (`final`), in the language in use."""
    summary = record.summary
    board = final.root()
    geometry = board_geometry(board.name, board.options)
    ref = "board"
    title = _("{game} - game {number}").format(game=board.full_title, number=summary.id)
    times = LocalTimes(summary.started_at)

    result = _result(record, final)
    frames, rows, labels = _frames_and_rows(record, final, board, ref, images, result, times)
    columns = 4 if board.move_text_names_every_change else 5
    facts = [
        (_("Game"), board.full_title),
        (_("Players"), _players(summary.players)),
        (_("Started"), times.when(summary.started_at)),
        (_("Ended"), times.when(summary.ended_at) if summary.ended_at else ""),
        (_("Result"), result),
        (pgettext("exported page", "Moves"), str(final.moves_played)),  # (Aranea's turns)
        # the options as the game spells them (`-o key=value`, the record's own), as the
        # moves keep their notation
        (_("Options"), ", ".join(f"{k}={_value(v)}" for k, v in sorted(summary.options.items()))),
    ]
    fact_rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in facts if v)
    words = {  # (outside the f-strings below: the extractor reads no call inside one)
        "no moves": _("No moves."),
        "positions": _("Positions"),
        "first": _("First position (Home)"),
        "prev": _("Previous (Left arrow)"),
        "position": _("Position"),
        "next": _("Next (Right arrow)"),
        "last": _("Last position (End)"),
        "moves": pgettext("exported page", "Moves"),
        "player": _("Player"),
        "move": pgettext("exported page", "Move"),
        "on the board": _("On the board"),
    }
    say = {key: escape(text) for key, text in words.items()}
    labelled = any(label != str(number) for number, label in labels.items())
    no_moves = f"<tr><td colspan={columns}>{say['no moves']}</td></tr>"
    change_head = "" if board.move_text_names_every_change else f"<th>{say['on the board']}</th>"
    sections = [
        f"<h1>{escape(title)}</h1>",
        f'<table class="facts">{fact_rows}</table>',
        f'<section id="viewer" aria-label="{say["positions"]}">',
        # a game that numbers its moves otherwise than the positions (Aranea's turns,
        # Arimaa's 2g) says both, at position 1 too, where its label may be "1"
        f'<div class="controls" data-labelled="{"yes" if labelled else "no"}" hidden>'
        # Plain characters every font has (U+23EE/U+23ED are empty boxes in common fonts).
        f'<button type="button" data-go="first" title="{say["first"]}">&laquo;</button>'
        f'<button type="button" data-go="prev" title="{say["prev"]}">&lsaquo;</button>'
        f'<input type="range" min="0" max="{len(record.moves)}" value="0" '
        f'aria-label="{say["position"]}">'
        f'<button type="button" data-go="next" title="{say["next"]}">&rsaquo;</button>'
        f'<button type="button" data-go="last" title="{say["last"]}">&raquo;</button>'
        '<span class="where" aria-live="polite"></span></div>',
        board_defs(geometry, ref),
        "".join(frames),
        "</section>",
        f"<h2>{say['moves']}</h2>",
        f'<table class="moves"><thead><tr><th>#</th><th>{say["player"]}</th>'
        f"<th>{say['move']}</th>{change_head}<th>{escape(times.heading)}</th></tr></thead>"
        f"<tbody>{''.join(rows) or no_moves}</tbody></table>",
    ]
    sections.extend(_record_tables(record, labels, final.move_label, times))
    footer = _("Written by Tabletop Companion {version} from its game records.")
    sections.append(f"<footer>{escape(footer.format(version=__version__))}</footer>")
    return _PAGE.format(
        lang=i18n.language(),
        title=escape(title),
        css=_CSS,
        body="\n".join(sections),
        js=_JS.replace("__WORDS__", _script_words()),
    )


def _script_words() -> str:
    """The words the page's script says ("after move 7 of 125"), in the language in use, as
    a JavaScript object (no "</script>" can end the script early)."""
    words = {
        "start": pgettext("exported page", "start"),
        "afterMove": _("after move {number} of {count}"),
        # Arimaa's turns: "after move 4g (7 of 125)"
        "afterLabel": _("after move {label} ({number} of {count})"),
    }
    return json.dumps(words).replace("<", "\\u003c")


def _frames_and_rows(
    record: GameRecord,
    final: Any,
    board: Any,
    ref: str,
    images: bool,
    result: str,
    times: LocalTimes,
) -> tuple[list[str], list[str], dict[int, str]]:
    """The page's position frames (start, then after every move; the last says the game's
    `result`), the rows of its move table and each move's label as the game counts its
    moves (ply -> "2g", Aranea's turns); plays the game on `board` (its start position)."""
    frames: list[str] = []
    rows: list[str] = []
    labels: dict[int, str] = {}
    cells = board.cells()
    order, turns = board.cell_names(), board.stones_turn_over
    changes = not board.move_text_names_every_change  # (else its text says them all)
    start = _("Start position")
    frames.append(
        _frame(0, start, position_svg(board, title=start, board_ref=ref), None, _in_hand(board))
    )
    for number, (move, stored) in enumerate(zip(final.move_stack, record.moves, strict=True), 1):
        player = board.turn
        text = board.move_text(move)
        label = board.move_label  # as the game counts its moves (Arimaa's turns: "2g")
        labels[number] = label
        opening = board.in_opening_roll  # (Aranea's rolls to see who starts)
        board.push(move)
        after = board.cells()
        shown = shown_move(text)
        if opening:
            shown = _("{move} to see who starts").format(move=shown)
        caption = f"{label}. {_player(player)}: {shown}"
        svg = position_svg(
            board, highlights=changed_cells(cells, after), title=caption, board_ref=ref
        )
        photo = web_photo(stored.image) if images and stored.image else None
        detail = _in_hand(board)
        if images and stored.ply in record.unreadable_photos:
            lost = _("the photo cannot be read: the records file is damaged where it lies")
            detail = f"{detail} - {lost}" if detail else lost
        if number == len(record.moves):  # the end of the record: how the game stands
            detail = f"{detail} - {result}" if detail else result
        frames.append(_frame(number, caption, svg, photo, detail, label))
        change = (
            (
                change_words(cells, after, order, turn_over=turns, mover=player)
                or (_("to see who starts") if opening else "")
            )
            if changes
            else None
        )
        rows.append(
            f'<tr><td><a href="#p{number}" data-step="{number}">{escape(label)}</a></td>'
            f"<td>{escape(_player(player))}</td><td><code>{escape(text)}</code></td>"
            + ("" if change is None else f"<td>{escape(change)}</td>")
            + f"<td>{escape(times.clock(stored.played_at))}</td></tr>"
        )
        cells = after
    return frames, rows, labels


def _record_tables(
    record: GameRecord, labels: dict[int, str], next_label: str, times: LocalTimes
) -> list[str]:
    """The sections for what the record holds besides the moves: dice rolls (each linked to
    its move, `labels` as the move table numbers them; `next_label` the move to play after
    the last), moves taken back (numbered as the move played in their place, or the next),
    what the referee said."""
    tables: list[str] = []

    def label_of(ply: int) -> str:
        """The record's entry `ply` as the move table numbers it (one taken back and not
        played again: as the move to play after the last)."""
        if ply in labels:
            return labels[ply]
        return next_label if ply == len(labels) + 1 else str(ply)

    def numbered(ply: int) -> str:
        """`label_of`, linked to its position where the page has one."""
        text = escape(label_of(ply))
        return f'<a href="#p{ply}" data-step="{ply}">{text}</a>' if ply in labels else text

    if record.rolls:
        roll_rows = "".join(
            f"<tr><td>{numbered(r.for_ply)}</td>"
            f"<td>{escape(' + '.join(map(str, r.dice)))}</td>"
            f"<td>{r.value}</td><td>{escape(times.clock(r.rolled_at))}</td></tr>"
            for r in record.rolls
        )
        heads = (_("For move"), _("Dice"), _("Value"), times.heading)
        rolled = _("Dice rolls")
        tables.append(
            f"<h2>{escape(rolled)}</h2>{_table_head(heads)}<tbody>{roll_rows}</tbody></table>"
        )
    if record.taken_back:
        back_rows = "".join(
            f"<tr><td>{escape(label_of(m.ply))}</td><td><code>{escape(m.text)}</code></td>"
            f"<td>{escape(times.clock(m.played_at))}</td>"
            f"<td>{escape(times.clock(m.taken_back_at or ''))}</td></tr>"
            for m in record.taken_back
        )
        heads = (pgettext("exported page", "Move"), _("Text"), _("Played"), _("Taken back"))
        back = _("Moves taken back")
        tables.append(
            f"<h2>{escape(back)}</h2>{_table_head(heads)}<tbody>{back_rows}</tbody></table>"
        )
    if record.instructions:
        items = "".join(
            f"<li{_lang_attribute(i.instruction.get('lang'))}><span class=t>"
            f"{escape(times.clock(i.given_at))}</span> "
            f"{escape(str(i.instruction.get('text', '')))}</li>"
            for i in record.instructions
        )
        said = _("What the referee said ({count})").format(count=len(record.instructions))
        tables.append(f"<details><summary>{escape(said)}</summary><ol>{items}</ol></details>")
    return tables


def _table_head(heads: tuple[str, ...]) -> str:
    """A table's start with its column `heads`."""
    cells = "".join(f"<th>{escape(head)}</th>" for head in heads)
    return f"<table><thead><tr>{cells}</tr></thead>"


def _lang_attribute(lang: object) -> str:
    """` lang="de"` for what the referee said in another language than the page's (the
    table's language when it was said, kept with the instruction): ` lang="en"` on a German
    page; nothing in the page's own language, or for an older record that did not keep it."""
    if not isinstance(lang, str) or lang == i18n.language() or not lang.isalpha():
        return ""
    return f' lang="{escape(lang)}"'


def _in_hand(position: Position[Any]) -> str:
    """Stones off the board (Aranea's stocks), from the position's JSON when it has them."""
    stock = position.to_json().get("stock")
    if not isinstance(stock, dict) or not stock:
        return ""
    stocks = ", ".join(f"{_player(p)} {n}" for p, n in stock.items())
    return _("In stock: {stocks}").format(stocks=stocks)


PHOTO_WIDTH = 320  # px: enough to see the board; the page shows photos at most 24rem wide
PHOTO_QUALITY = 50


def web_photo(jpeg: bytes) -> bytes:
    """A stored board photo made the size the page shows it (JPEG, PHOTO_WIDTH wide): a
    200-move game stays a page of a few megabytes. One that cannot be decoded is kept as is."""
    try:  # OpenCV only for pages with photos: exporting JSON or a move list never loads it
        import cv2
        import numpy as np

        image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            return jpeg
        height, width = image.shape[:2]
        if width > PHOTO_WIDTH:
            size = (PHOTO_WIDTH, max(1, round(height * PHOTO_WIDTH / width)))
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, PHOTO_QUALITY])
    except ImportError:
        return jpeg
    return bytes(data) if ok and len(data) < len(jpeg) else jpeg


def _frame(
    number: int, caption: str, svg: str, photo: bytes | None, detail: str = "", label: str = ""
) -> str:
    """Position `number` of the page (0: the start), its move numbered `label` as the game
    counts its moves."""
    img = ""
    if photo:
        data = base64.b64encode(photo).decode("ascii")
        alt = _("The board photographed after move {number}").format(number=label or number)
        img = f'<img class="photo" alt="{escape(alt)}" src="data:image/jpeg;base64,{data}">'
    return (
        f'<figure class="step" id="p{number}" data-step="{number}">{svg}{img}'
        f"<figcaption>{escape(caption)}"
        + (f' <span class="detail">{escape(detail)}</span>' if detail else "")
        + "</figcaption></figure>"
    )


def _player(name: str) -> str:
    """A player by their colour, in the page's language ("Gold", "Schwarz")."""
    return i18n.player(str(name))


def _players(players: Any) -> str:
    if not players:
        return ""
    if isinstance(players, dict):
        return ", ".join(f"{_player(side)}: {who}" for side, who in players.items())
    if isinstance(players, (list, tuple)):
        return ", ".join(map(str, players))
    return str(players)


def _result(record: GameRecord, final: Any) -> str:
    """How the game stands, in the page's language and the screens' words
    (`outcomes.result_text`): "White wins (The board is full: 30 black, 34 white)" ("Weiß
    gewinnt (Das Brett ist voll: ...)"), "not finished", "abandoned"."""
    outcome = final.outcome()
    if outcome is None and record.summary.outcome:
        outcome = Outcome.from_json(record.summary.outcome)
    if outcome is None and record.summary.status == "playing":
        return _("not finished")
    return result_text(outcome, record.summary.status)


def _value(value: Any) -> str:
    if value is None:  # an option that is not set (Sensei's turn cap)
        return "off"
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value).lower() if isinstance(value, bool) else str(value)


def local_time(stamp: str) -> datetime | None:
    """A stored time (UTC, "2026-11-22T03:05:14.612Z") in the device's local time zone (the
    TZ environment variable, else the system's); None for text that is no time."""
    try:
        when = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return None
    return (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone()


def utc_offset(offset: timedelta | None) -> str:
    """A time zone by its offset from UTC: "UTC" itself, "UTC+01:00", "UTC-03:30".

    >>> utc_offset(timedelta(hours=1)), utc_offset(timedelta(hours=-3, minutes=-30))
    ('UTC+01:00', 'UTC-03:30')
    """
    minutes = round((offset or timedelta(0)).total_seconds() / 60)
    if not minutes:
        return "UTC"
    sign = "+" if minutes > 0 else "-"
    hours, minutes = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours:02d}:{minutes:02d}"


class LocalTimes:
    """A page's times: the records' UTC in the device's local time zone (a Pi at the table is
    in the players' zone), with its offset - in the columns' heading ("Time (UTC+01:00)"), the
    zone the game started in, and at a time in another (a game across the change to summer
    time: "03:10:07 UTC+02:00")."""

    def __init__(self, started: str | None) -> None:
        when = local_time(started or "") or datetime.now().astimezone()
        self.offset = when.utcoffset()

    @property
    def heading(self) -> str:
        """A time column's heading: "Time (UTC+01:00)"."""
        return _("Time ({zone})").format(zone=utc_offset(self.offset))

    def clock(self, stamp: str) -> str:
        """The time of day of `stamp`, "04:05:14" (its offset added when it is not the
        page's); text that is no time as it is."""
        when = local_time(stamp)
        if when is None:
            return stamp
        shown = when.strftime("%H:%M:%S")
        offset = when.utcoffset()
        return shown if offset == self.offset else f"{shown} {utc_offset(offset)}"

    def when(self, stamp: str | None) -> str:
        """The day and time of `stamp` with its offset: "2026-11-22 04:05 UTC+01:00"
        ("22.11.2026 ..." in German)."""
        when = local_time(stamp or "")
        if when is None:
            return stamp or ""
        # TRANSLATORS: a day as the page writes it; {day} and {month} have two digits
        day = pgettext("date", "{year}-{month}-{day}").format(
            year=when.year, month=f"{when.month:02d}", day=f"{when.day:02d}"
        )
        return f"{day} {when.strftime('%H:%M')} {utc_offset(when.utcoffset())}"


# -- writing files ---------------------------------------------------------------------------------
def write_output(
    data: str | bytes,
    output: str | os.PathLike[str],
    *,
    force: bool = False,
    verb: str = "write",
) -> Path:
    """Write `data` (text, or the bytes of a photo) to `output` atomically; an existing file
    is kept unless `force`. A failure says "cannot {verb} PATH: why - what to do"."""
    path = Path(output)
    try:
        check_output(output, force)
    except OSError as exc:  # e.g. "File name too long" from the checks themselves
        raise UserError(f"cannot {verb} {path}: {write_problem(path, exc)}") from None
    return write_atomically(path, data, verb=verb)


def check_output(given: str | os.PathLike[str], force: bool, option: str = "-o") -> None:
    """UserError when `given` (with `option`) must not or cannot be written: a game
    records database or its -wal/-shm, force or not (every game in it would be lost); a
    folder; an existing file without force; a device or pipe (never replaced by a file); a
    folder that does not exist. The one check of every command that writes a file the user
    names (export, play --save, vision calibrate/locate/snapshot). `given` as typed: a bare
    "-" names no file, "./-" the file named "-" (a Path of either reads "-")."""
    if isinstance(given, str) and given == "-":  # a file named "-" is not what "-" means
        raise UserError(f"{option} - names no file here: give a file name with {option}")
    path = Path(given)
    if is_record_database(path):
        raise UserError(f"{path} holds game records: give another file name with {option}")
    if path.is_dir():
        raise UserError(f"{path} is a folder: give a file name with {option}")
    if path.exists() and not force:
        raise UserError(f"{path} already exists: choose another name, or add --force to replace it")
    if path.exists() and not path.is_file():  # /dev/null, a pipe: never replace it by a file
        raise UserError(f"{path} is not a regular file: give a file name with {option}")
    if not path.parent.is_dir():
        raise UserError(
            f"cannot write {path}: there is no folder {path.parent} - make it first, or give "
            "another path"
        )


_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
{body}
<script>{js}</script>
</body>
</html>
"""

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1rem auto; max-width: 62rem; padding: 0 1rem;
       color: #222; background: #fdfbf6; line-height: 1.4; }
h1 { font-size: 1.6rem; margin: 0 0 .5rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: .15rem .8rem .15rem 0; vertical-align: top; }
table.moves tbody tr:nth-child(odd) { background: #f3ecdc; }
table.moves tbody tr.current { background: #ffe8a3; }  /* as specific as the stripes, later */
.facts th { font-weight: 600; color: #555; }
figure.step { margin: 1rem 0; display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
figure.step svg.board { width: min(100%, 30rem); height: auto; }
figure.step img.photo { max-width: min(100%, 24rem); height: auto; border-radius: 4px; }
figcaption { flex-basis: 100%; font-size: 1.15rem; font-weight: 600; }
figcaption .detail { font-weight: 400; color: #555; margin-left: 1rem; }
.controls { display: flex; gap: .5rem; align-items: center; margin: 1rem 0; flex-wrap: wrap; }
.controls[hidden] { display: none; }
.controls button { font-size: 1.3rem; min-width: 3rem; min-height: 2.6rem; }
.controls input { flex: 1; min-width: 8rem; }
.js figure.step { display: none; }
.js figure.step.current { display: flex; }
footer { margin-top: 2rem; color: #777; font-size: .85rem; }
@media print { .controls { display: none !important; } .js figure.step { display: flex; } }
"""

_JS = """
(function (words) {
  var steps = Array.prototype.slice.call(document.querySelectorAll('figure.step'));
  if (!steps.length) return;
  document.documentElement.classList.add('js');
  // (the figures' ids are links for a page without JavaScript; here the page shows the move
  // a link names with its controls in sight - the browser would jump past them to the figure)
  steps.forEach(function (s) { s.removeAttribute('id'); });
  var controls = document.querySelector('.controls');
  var slider = controls.querySelector('input');
  var where = controls.querySelector('.where');
  var rows = document.querySelectorAll('table.moves tbody tr');
  var current = 0;
  controls.hidden = false;
  function show(n) {
    current = Math.max(0, Math.min(steps.length - 1, n));
    steps.forEach(function (s, i) { s.classList.toggle('current', i === current); });
    Array.prototype.forEach.call(rows, function (r, i) { r.classList.toggle('current', i + 1 === current); });
    slider.value = current;
    if (history.replaceState) history.replaceState(null, '', '#p' + current);  // a link to this move
    var label = current && rows[current - 1] ? rows[current - 1].cells[0].textContent : '';
    var counted = { label: label, number: current, count: steps.length - 1 };
    where.textContent = !current ? words.start : label && controls.dataset.labelled === 'yes'
      ? say(words.afterLabel, counted) : say(words.afterMove, counted);
  }
  function say(text, values) {  // the page's words with their {names} filled in
    return text.replace(/\\{(\\w+)\\}/g, function (all, name) { return String(values[name]); });
  }
  var go = { first: function () { show(0); }, prev: function () { show(current - 1); },
             next: function () { show(current + 1); }, last: function () { show(steps.length - 1); } };
  controls.addEventListener('click', function (e) {
    var b = e.target.closest('button'); if (b) go[b.dataset.go]();
  });
  slider.addEventListener('input', function () { show(parseInt(slider.value, 10)); });
  document.addEventListener('keydown', function (e) {
    if (e.target.tagName === 'INPUT') return;  // the slider moves itself
    var key = { ArrowLeft: 'prev', ArrowRight: 'next', Home: 'first', End: 'last' }[e.key];
    if (key) { go[key](); e.preventDefault(); }
  });
  document.querySelectorAll('a[data-step]').forEach(function (a) {
    a.addEventListener('click', function (e) { e.preventDefault(); show(parseInt(a.dataset.step, 10)); });
  });
  function fromHash() {
    var hash = /^#p(\\d+)$/.exec(location.hash);
    show(hash ? parseInt(hash[1], 10) : 0);
  }
  var opened = location.hash;  // (before `show` writes the move shown there)
  window.addEventListener('hashchange', fromHash);  // a #p link typed or followed
  fromHash();
  if (opened) controls.scrollIntoView();  // opened at a move: its controls in sight
})(__WORDS__);
"""
