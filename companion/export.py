"""Writing a recorded game out: our JSON record, an arimaa.com move list, or one HTML page.

- ``json``: the shared game record of `companion.games.base.game_to_json` (what `companion
  replay` reads back), plus what the table knew: players, times of every move, the moves taken
  back, dice rolls, the referee's instructions and the events.
- ``arimaa``: the arimaa.com move list of an Arimaa game (``1g Ra1 ...``, ``1s ...``), which
  `companion replay` and the aei tools read.
- ``html``: one self-contained page for reviewing at home: an SVG diagram of every position (the
  cells a move changed outlined), the move list, the result, the dice rolls and the board photos,
  with a step-through control (buttons, a slider and the arrow keys). No network, no external
  files; with JavaScript off it shows every diagram one under the other.

Every export replays the game with its engine first (`companion.records.replay`), so a record
that no longer follows the rules is reported instead of exported.
"""

from __future__ import annotations

import base64
import json
import os
from html import escape
from pathlib import Path
from typing import Any

from companion import __version__, games
from companion.dice import move_roll
from companion.errors import UserError, write_problem
from companion.files import write_atomically
from companion.games.arimaa import ArimaaPosition
from companion.games.arimaa_notation import game_to_move_list
from companion.games.base import Outcome, Position, game_to_json
from companion.geometry import board_geometry
from companion.records import GameRecord, is_record_database, replay
from companion.svg import board_defs, change_words, changed_cells, position_svg

FORMATS = ("json", "arimaa", "html")


def export_game(record: GameRecord, fmt: str, *, images: bool = True) -> str:
    """The text of `record` in format `fmt` (one of FORMATS)."""
    if fmt not in FORMATS:
        raise UserError(f"unknown export format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if fmt == "json":
        return json.dumps(game_json(record), indent=2, ensure_ascii=False) + "\n"
    if fmt == "html":
        return game_html(record, images=images)
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
def game_html(record: GameRecord, *, images: bool = True) -> str:
    """One self-contained HTML page for reviewing the game (see the module docstring)."""
    final = replay(record)
    summary = record.summary
    board = final.root()
    geometry = board_geometry(board.name, board.options)
    ref = "board"
    title = f"{board.full_title} - game {summary.id}"

    result = _result(record, final)
    frames, rows, labels = _frames_and_rows(record, final, board, ref, images, result)
    columns = 4 if board.move_text_names_every_change else 5
    facts = [
        ("Game", board.full_title),
        ("Players", _players(summary.players)),
        ("Started", _when(summary.started_at)),
        ("Ended", _when(summary.ended_at) if summary.ended_at else ""),
        ("Result", result),
        ("Moves", str(len(record.moves))),
        ("Options", ", ".join(f"{k}={_value(v)}" for k, v in sorted(summary.options.items()))),
    ]
    fact_rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in facts if v)
    sections = [
        f"<h1>{escape(title)}</h1>",
        f'<table class="facts">{fact_rows}</table>',
        '<section id="viewer" aria-label="Positions">',
        '<div class="controls" hidden>'
        # Plain characters every font has (U+23EE/U+23ED are empty boxes in common fonts).
        '<button type="button" data-go="first" title="First position (Home)">&laquo;</button>'
        '<button type="button" data-go="prev" title="Previous (Left arrow)">&lsaquo;</button>'
        f'<input type="range" min="0" max="{len(record.moves)}" value="0" aria-label="Position">'
        '<button type="button" data-go="next" title="Next (Right arrow)">&rsaquo;</button>'
        '<button type="button" data-go="last" title="Last position (End)">&raquo;</button>'
        '<span class="where" aria-live="polite"></span></div>',
        board_defs(geometry, ref),
        "".join(frames),
        "</section>",
        "<h2>Moves</h2>",
        '<table class="moves"><thead><tr><th>#</th><th>Player</th><th>Move</th>'
        + ("" if board.move_text_names_every_change else "<th>On the board</th>")
        + "<th>Time (UTC)</th>"
        f"</tr></thead><tbody>{''.join(rows) or f'<tr><td colspan={columns}>No moves.</td></tr>'}"
        "</tbody></table>",
    ]
    sections.extend(_record_tables(record, labels))
    sections.append(
        f"<footer>Written by Tabletop Companion {escape(__version__)} from its game records."
        "</footer>"
    )
    return _PAGE.format(title=escape(title), css=_CSS, body="\n".join(sections), js=_JS)


def _frames_and_rows(
    record: GameRecord, final: Any, board: Any, ref: str, images: bool, result: str
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
    frames.append(
        _frame(
            0,
            "Start position",
            position_svg(board, title="Start position", board_ref=ref),
            None,
            _in_hand(board),
        )
    )
    for number, (move, stored) in enumerate(zip(final.move_stack, record.moves, strict=True), 1):
        player = board.turn
        text = board.move_text(move)
        label = board.move_label  # as the game counts its moves (Arimaa's turns: "2g")
        labels[number] = label
        opening = " to see who starts" if board.in_opening_roll else ""  # (Aranea)
        board.push(move)
        after = board.cells()
        caption = f"{label}. {_player(player)}: {_shown_move(text)}{opening}"
        svg = position_svg(
            board, highlights=changed_cells(cells, after), title=caption, board_ref=ref
        )
        photo = web_photo(stored.image) if images and stored.image else None
        detail = _in_hand(board)
        if images and stored.ply in record.unreadable_photos:
            lost = "the photo cannot be read: the records file is damaged where it lies"
            detail = f"{detail} - {lost}" if detail else lost
        if number == len(record.moves):  # the end of the record: how the game stands
            detail = f"{detail} - {result}" if detail else result
        frames.append(_frame(number, caption, svg, photo, detail))
        change = (
            (change_words(cells, after, order, turn_over=turns) or opening.strip())
            if changes
            else None
        )
        rows.append(
            f'<tr><td><a href="#p{number}" data-step="{number}">{escape(label)}</a></td>'
            f"<td>{escape(_player(player))}</td><td><code>{escape(text)}</code></td>"
            + ("" if change is None else f"<td>{escape(change)}</td>")
            + f"<td>{escape(_clock(stored.played_at))}</td></tr>"
        )
        cells = after
    return frames, rows, labels


def _record_tables(record: GameRecord, labels: dict[int, str]) -> list[str]:
    """The sections for what the record holds besides the moves: dice rolls (each linked to
    its move, `labels` as the move table numbers them), moves taken back, what the referee
    said."""
    tables: list[str] = []
    if record.rolls:
        roll_rows = "".join(
            f'<tr><td><a href="#p{r.for_ply}" data-step="{r.for_ply}">'
            f"{escape(labels.get(r.for_ply, str(r.for_ply)))}</a></td>"
            f"<td>{escape(' + '.join(map(str, r.dice)))}</td>"
            f"<td>{r.value}</td><td>{escape(_clock(r.rolled_at))}</td></tr>"
            for r in record.rolls
        )
        tables.append(
            "<h2>Dice rolls</h2><table><thead><tr><th>For move</th><th>Dice</th><th>Value</th>"
            f"<th>Time (UTC)</th></tr></thead><tbody>{roll_rows}</tbody></table>"
        )
    if record.taken_back:
        back_rows = "".join(
            f"<tr><td>{m.ply}</td><td><code>{escape(m.text)}</code></td>"
            f"<td>{escape(_clock(m.played_at))}</td><td>{escape(_clock(m.taken_back_at or ''))}"
            "</td></tr>"
            for m in record.taken_back
        )
        tables.append(
            "<h2>Moves taken back</h2><table><thead><tr><th>Move</th><th>Text</th><th>Played</th>"
            f"<th>Taken back</th></tr></thead><tbody>{back_rows}</tbody></table>"
        )
    if record.instructions:
        items = "".join(
            f"<li{_lang_attribute(i.instruction.get('lang'))}><span class=t>"
            f"{escape(_clock(i.given_at))}</span> "
            f"{escape(str(i.instruction.get('text', '')))}</li>"
            for i in record.instructions
        )
        tables.append(
            f"<details><summary>What the referee said ({len(record.instructions)})</summary>"
            f"<ol>{items}</ol></details>"
        )
    return tables


def _lang_attribute(lang: object) -> str:
    """` lang="de"` for what the referee said in another language than the page's English
    (the table's language when it was said, kept with the instruction); nothing for English or
    an older record that did not keep it."""
    if not isinstance(lang, str) or lang == "en" or not lang.isalpha():
        return ""
    return f' lang="{escape(lang)}"'


def _in_hand(position: Position[Any]) -> str:
    """Stones off the board (Aranea's stocks), from the position's JSON when it has them."""
    stock = position.to_json().get("stock")
    if not isinstance(stock, dict) or not stock:
        return ""
    return "In stock: " + ", ".join(f"{_player(p)} {n}" for p, n in stock.items())


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


def _frame(number: int, caption: str, svg: str, photo: bytes | None, detail: str = "") -> str:
    img = ""
    if photo:
        data = base64.b64encode(photo).decode("ascii")
        img = (
            f'<img class="photo" alt="The board photographed after move {number}" '
            f'src="data:image/jpeg;base64,{data}">'
        )
    return (
        f'<figure class="step" id="p{number}" data-step="{number}">{svg}{img}'
        f"<figcaption>{escape(caption)}"
        + (f' <span class="detail">{escape(detail)}</span>' if detail else "")
        + "</figcaption></figure>"
    )


def _shown_move(text: str) -> str:
    """A move as the caption over its board says it: a roll's dice "2 and 5", not the
    notation's "2-5", which reads like a cell of Aranea's web ("r2-5") beside it, and the
    value they give (a 3 and a 4 count as 1); the move table keeps the notation."""
    roll = move_roll(text)
    return text if roll is None else f"roll {roll.words} = {roll.value}"


def _player(name: str) -> str:
    return str(name).capitalize()


def _players(players: Any) -> str:
    if not players:
        return ""
    if isinstance(players, dict):
        return ", ".join(f"{_player(side)}: {who}" for side, who in players.items())
    if isinstance(players, (list, tuple)):
        return ", ".join(map(str, players))
    return str(players)


def _result(record: GameRecord, final: Any) -> str:
    outcome = final.outcome()
    if outcome is None and record.summary.outcome:
        outcome = Outcome.from_json(record.summary.outcome)
    if outcome is None:
        return {"playing": "not finished", "abandoned": "abandoned"}.get(
            record.summary.status, record.summary.status
        )
    who = f"{_player(outcome.winner)} wins" if outcome.winner else "Draw"
    return f"{who} ({outcome.reason})" + (f": {outcome.detail}" if outcome.detail else "")


def _value(value: Any) -> str:
    if value is None:  # an option that is not set (Sensei's turn cap)
        return "off"
    if isinstance(value, (list, tuple)):
        return " ".join(map(str, value))
    return str(value).lower() if isinstance(value, bool) else str(value)


def _when(stamp: str | None) -> str:
    return (stamp or "").replace("T", " ").rstrip("Z")[:16] + (" UTC" if stamp else "")


def _clock(stamp: str) -> str:
    return stamp[11:19] if len(stamp) >= 19 else stamp


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
<html lang="en">
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
(function () {
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
    var of = current + ' of ' + (steps.length - 1);  // Arimaa's turns: "after move 4g (7 of 125)"
    where.textContent = !current ? 'start' : label && label !== String(current)
      ? 'after move ' + label + ' (' + of + ')' : 'after move ' + of;
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
})();
"""
