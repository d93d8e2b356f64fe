"""The exported HTML page in the players' language and time zone: `companion export
--language de|en` (English by default: the command line stays English), the table's language
when the app exports, `<html lang>` and each instruction's own `lang` relative to the page,
and the records' UTC times shown in the device's local zone with its offset. Real record
files, real pages parsed."""

import json
import re
import sqlite3
import subprocess
import sys
import threading
import time
from datetime import datetime, timedelta
from html.parser import HTMLParser

import pytest
from test_export import said_in_english_and_german
from test_records import _board_photo, play_recorded, recorded_whole_game

from companion import cli, i18n
from companion.export import export_game
from companion.records import Records


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "records.sqlite3"


@pytest.fixture
def zone(monkeypatch):
    """Sets the device's time zone (TZ, as a Pi's system sets it) for this test."""

    def set_zone(tz):
        monkeypatch.setenv("TZ", tz)
        time.tzset()

    yield set_zone
    monkeypatch.undo()
    time.tzset()


def run_cli(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


class Words(HTMLParser):
    """What a reader of an exported page reads in the page's own words: its text, the
    buttons' titles, the labels and the photos' alt texts - without the notation (`<code>`:
    moves as the game writes them) and what the referee said in another language (`<li
    lang=...>`). Also the `<html lang>`, each instruction's language and text, each table
    row's cells and the script."""

    def __init__(self):
        super().__init__()
        self.text = []
        self.lang = None
        self.said = []  # (lang attribute or None, text) per instruction
        self.rows = []  # each table row's cells, in the order of the page
        self.heads = []  # each table's column heads
        self.facts = {}  # the facts table: heading -> value
        self.script = ""
        self._skip = []  # open elements whose text is not the page's words
        self._cell = None
        self._li = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.lang = a.get("lang")
        for name in ("title", "aria-label", "alt"):
            if a.get(name):
                self.text.append(a[name])
        if tag in ("code", "style", "script") or (tag == "li" and "lang" in a):
            self._skip.append(tag)
        if tag == "li":
            self._li = [a.get("lang"), ""]
        if tag == "tr":
            self.rows.append([])
        if tag in ("td", "th"):
            self._cell = ""

    def handle_endtag(self, tag):
        if self._skip and self._skip[-1] == tag:
            self._skip.pop()
        if tag == "li" and self._li is not None:
            self.said.append((self._li[0], self._li[1].strip()))
            self._li = None
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(self._cell)
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._li is not None:
            self._li[1] += data
        if self._skip and self._skip[-1] == "script":
            self.script += data
        if not self._skip:
            self.text.append(data)


def read(html):
    """An exported page, parsed; the facts table and the tables' column heads from its rows
    (the facts: a heading and a value; the heads: the rows of <th> cells alone)."""
    page = Words()
    page.feed(html)
    page.close()
    heads = re.findall(r"<thead><tr>(.*?)</tr></thead>", html)
    page.heads = [re.findall(r"<th>([^<]*)</th>", head) for head in heads]
    page.facts = dict(re.findall(r"<tr><th>([^<]+)</th><td>([^<]*)</td></tr>", html))
    return page


def script_words(words):
    """The words the page's script says, as the page gives them to it."""
    return json.loads(re.search(r"\}\)\((\{.*?\})\);\s*$", words.script).group(1))


# English words of the page that a German page says in German (as the reader sees them; the
# options' key=value and the notation are the game's own spelling in both)
ENGLISH = [
    "Game",
    "Players",
    "Started",
    "Ended",
    "Result",
    "Moves",
    "Options",
    "Player",
    "Move",
    "On the board",
    "Time",
    "Dice rolls",
    "For move",
    "Dice",
    "Value",
    "Moves taken back",
    "Played",
    "Taken back",
    "What the referee said",
    "In stock",
    "roll",
    "to see who starts",
    "Written by",
    "game records",
    "wins",
    "Draw",
    "turned",
    "taken",
    "Start position",
    "First position",
    "Previous",
    "Next",
    "Last position",
    "Position",
    "Positions",
    "photographed",
    "after move",
    "of",
    "start",
    "not finished",
    "No moves",
    "game",
    "Left arrow",
    "Right arrow",
    "Home",
    "End",
]


def _recorded_games(db_path):
    """An Aranea game in progress (rolls, stocks, the opening rolls, photos, a move taken
    back, the referee's words in English and in German) and a finished Arinama game (stones
    turned, a winner): (aranea id, arinama id)."""
    with Records(db_path) as db:
        aranea, _pos = play_recorded(db, "aranea", seed=1, max_moves=30, image=_board_photo(64)(70))
        db.undo_move(aranea)
        said_in_english_and_german(db, aranea, "Amber to roll", "Bernstein würfelt")
        arinama, pos = recorded_whole_game(db, "arinama", seed=3)
    assert pos.is_game_over() and pos.outcome().winner
    return aranea, arinama


def test_a_german_page_says_every_word_in_german(db_path, tmp_path, capsys):
    """`companion export --language de`: the page's headings, table labels, buttons,
    captions, result, dice-roll captions and the script's words in German, and none of the
    English ones; `<html lang="de">`; the referee's English words marked lang="en", its
    German ones in the page's language."""
    aranea, arinama = _recorded_games(db_path)
    pages = {}
    for game_id in (aranea, arinama):
        out = tmp_path / f"g{game_id}.html"
        code, _out, err = run_cli(
            capsys, "export", game_id, "-f", "html", "--language", "de", "-o", out, "--db", db_path
        )
        assert code == 0 and err.startswith(f"Wrote game {game_id} ")  # (the CLI's English)
        pages[game_id] = read(out.read_text(encoding="utf-8"))
    for page in pages.values():
        assert page.lang == "de"
        options = page.facts["Optionen"]  # (key=value as the game spells them: first=roll)
        words = [t for t in page.text if t != options] + list(script_words(page).values())
        text = " ".join(words)
        english = [w for w in ENGLISH if re.search(rf"\b{re.escape(w)}\b", text)]
        assert english == [], english
    rolled = pages[aranea]
    assert list(rolled.facts) == ["Spiel", "Spieler", "Begonnen", "Ergebnis", "Züge", "Optionen"]
    assert rolled.facts["Ergebnis"] == "nicht beendet"
    assert rolled.facts["Spieler"] == "Bernstein: player 0, Blau: player 1"
    assert rolled.heads[0][:4] == ["#", "Spieler", "Zug", "Auf dem Brett"]
    assert rolled.heads[0][4].startswith("Zeit (")
    assert rolled.heads[1][:3] == ["Für Zug", "Würfel", "Wert"]
    assert rolled.heads[2] == ["Zug", "Text", "Gespielt", "Zurückgenommen"]
    text = " ".join(rolled.text)
    assert "Würfe" in text and "Zurückgenommene Züge" in text and "Im Vorrat: Bernstein" in text
    assert re.search(r"1\. Bernstein: Wurf \d und \d = \d+, um auszuwürfeln, wer beginnt", text)
    assert "Was der Schiedsrichter sagte (" in text and "Ausgangsstellung" in text
    assert "Geschrieben von Tabletop Companion" in text
    assert "Das Brett, fotografiert nach Zug 1" in rolled.text
    assert {"Erste Stellung (Pos1)", "Zurück (Pfeil nach links)", "Stellung"} <= set(rolled.text)
    assert ("en", "Amber to roll") in [(lang, t.split(" ", 1)[1]) for lang, t in rolled.said]
    assert (None, "Bernstein würfelt") in [(lang, t.split(" ", 1)[1]) for lang, t in rolled.said]
    assert script_words(rolled) == {
        "start": "Ausgangsstellung",
        "afterMove": "nach Zug {number} von {count}",
        "afterLabel": "nach Zug {label} ({number} von {count})",
    }
    finished = pages[arinama]
    assert re.fullmatch(r"(Schwarz|Weiß) gewinnt \(.+\)", finished.facts["Ergebnis"])
    assert "Beendet" in finished.facts
    changes = [row[3] for row in finished.rows if len(row) == 5 and row[0].isdigit()]
    assert any(change.endswith(" umgedreht") for change in changes), changes


def test_the_boards_tooltips_name_the_pieces_and_highlights_in_the_page_s_language(
    db_path, tmp_path, capsys
):
    """Each board's pieces and highlighted cells carry a tooltip (an SVG <title>): "r1-4:
    blue" and "r1-4: to" on the German page before; the owner and the highlight as the
    display's key says them ("moved from", "just moved")."""
    aranea, _arinama = _recorded_games(db_path)
    titles = {}
    for language in ("de", "en"):
        out = tmp_path / f"{language}.html"
        run_cli(
            capsys,
            "export",
            aranea,
            "-f",
            "html",
            "--language",
            language,
            "-o",
            out,
            "--db",
            db_path,
        )
        tips = re.findall(r"<title>(r\d-\d+|c\d+): ([^<]+)</title>", out.read_text("utf-8"))
        titles[language] = {words for _cell, words in tips}
    assert titles["de"] == {"Bernstein", "Blau", "weg von", "gerade gezogen"}, titles["de"]
    assert titles["en"] == {"amber", "blue", "moved from", "just moved"}, titles["en"]


def test_the_english_page_keeps_its_words_and_is_the_default(db_path, capsys):
    """The command line's page is English unless asked: the same words as before the page
    could be German (`--language en` is the same page)."""
    aranea, arinama = _recorded_games(db_path)
    code, default, _err = run_cli(capsys, "export", aranea, "-f", "html", "--db", db_path)
    code_en, english, _err = run_cli(
        capsys, "export", aranea, "-f", "html", "--language", "EN", "--db", db_path
    )
    assert code == code_en == 0 and default == english
    page = read(english)
    assert page.lang == "en"
    assert list(page.facts) == ["Game", "Players", "Started", "Result", "Moves", "Options"]
    assert page.facts["Result"] == "not finished"
    assert page.heads[0][:4] == ["#", "Player", "Move", "On the board"]
    assert page.heads[1][:3] == ["For move", "Dice", "Value"]
    assert page.heads[2] == ["Move", "Text", "Played", "Taken back"]
    text = " ".join(page.text)
    assert "Dice rolls" in text and "Moves taken back" in text and "In stock: Amber" in text
    assert re.search(r"1\. Amber: roll \d and \d = \d+ to see who starts", text)
    assert "Written by Tabletop Companion" in text and "What the referee said (" in text
    assert {"First position (Home)", "Previous (Left arrow)", "Next (Right arrow)"} <= set(
        page.text
    )
    assert "Last position (End)" in page.text and "The board photographed after move 1" in text
    assert (None, "Amber to roll") in [(lang, t.split(" ", 1)[1]) for lang, t in page.said]
    assert ("de", "Bernstein würfelt") in [(lang, t.split(" ", 1)[1]) for lang, t in page.said]
    assert script_words(page) == {
        "start": "start",
        "afterMove": "after move {number} of {count}",
        "afterLabel": "after move {label} ({number} of {count})",
    }
    code, finished, _err = run_cli(capsys, "export", arinama, "-f", "html", "--db", db_path)
    result = read(finished).facts["Result"]
    assert re.fullmatch(r"(Black|White) wins \((Black|White) has no .+\)", result)


def test_a_players_draw_and_an_abandoned_game_in_german(db_path, capsys):
    """The result's words: a draw the players agreed on, a game they stopped."""
    with Records(db_path) as db:
        drawn, _pos = play_recorded(db, "arinama", seed=2, max_moves=4)
        db.finish(drawn, {"winner": None, "reason": "agreement", "detail": ""})
        stopped, _pos = play_recorded(db, "sensei", seed=2, max_moves=4)
        db.abandon(stopped)
    results = {}
    for game_id in (drawn, stopped):
        for language in ("en", "de"):
            argv = ["export", game_id, "-f", "html", "--language", language, "--db", db_path]
            code, page, _err = run_cli(capsys, *argv)
            assert code == 0
            facts = read(page).facts
            results[game_id, language] = facts.get("Result", facts.get("Ergebnis"))
    # the screens' words (one function, `outcomes.result_text`: a review found two)
    assert results[drawn, "en"] == "The game is a draw (agreement)"
    assert results[drawn, "de"] == "Das Spiel endet unentschieden (Einigung)"
    assert results[stopped, "en"] == "abandoned"
    assert results[stopped, "de"] == "abgebrochen"


def test_the_page_shows_local_time_with_its_offset(db_path, capsys, zone):
    """A Pi at the table is in the players' time zone: the page's times are the records' UTC
    in the device's zone, the offset said in the time columns' headings and with the start
    and end; the records keep UTC."""
    with Records(db_path) as db:
        game_id, _pos = recorded_whole_game(db, "arinama", seed=3)
        record = db.game(game_id)
    zone("IST-5:30")  # (POSIX: 5 h 30 min east of UTC, no summer time)
    for language, (started, ended, time_head, date) in {
        "en": ("Started", "Ended", "Time (UTC+05:30)", "%Y-%m-%d"),
        "de": ("Begonnen", "Beendet", "Zeit (UTC+05:30)", "%d.%m.%Y"),
    }.items():
        code, html, _err = run_cli(
            capsys, "export", game_id, "-f", "html", "--language", language, "--db", db_path
        )
        assert code == 0
        page = read(html)
        local = {
            name: datetime.fromisoformat(stamp.replace("Z", "+00:00")) + timedelta(hours=5.5)
            for name, stamp in (
                ("start", record.summary.started_at),
                ("end", record.summary.ended_at),
            )
        }
        assert page.facts[started] == local["start"].strftime(f"{date} %H:%M UTC+05:30")
        assert page.facts[ended] == local["end"].strftime(f"{date} %H:%M UTC+05:30")
        assert page.heads[0][-1] == time_head
        moves = [row for row in page.rows if len(row) == 5 and row[0].isdigit()]
        assert len(moves) == len(record.moves)
        for row, move in zip(moves, record.moves, strict=True):
            utc = datetime.fromisoformat(move.played_at.replace("Z", "+00:00"))
            assert row[4] == (utc + timedelta(hours=5.5)).strftime("%H:%M:%S")
    with Records(db_path, readonly=True) as db:
        assert db.game(game_id).summary.started_at == record.summary.started_at  # (UTC, kept)
    assert record.summary.started_at.endswith("Z")


def test_a_game_across_the_change_to_summer_time_says_the_new_offset(db_path, capsys, zone):
    """The headings say the zone the game started in; a time in another offset says its
    own (Central Europe: the clocks go from 02:00 to 03:00 on 29 March 2026)."""
    with Records(db_path) as db:
        game_id, _pos = play_recorded(db, "arinama", seed=3, max_moves=3)
    stamps = ["2026-03-29T00:58:00.000Z", "2026-03-29T00:59:30.000Z", "2026-03-29T01:00:05.000Z"]
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE games SET started_at = ? WHERE id = ?", (stamps[0], game_id))
        for ply, stamp in enumerate(stamps, 1):
            conn.execute(
                "UPDATE moves SET played_at = ? WHERE game_id = ? AND ply = ?",
                (stamp, game_id, ply),
            )
    conn.close()
    zone("CET-1CEST,M3.5.0,M10.5.0/3")
    code, html, _err = run_cli(capsys, "export", game_id, "-f", "html", "--db", db_path)
    assert code == 0
    page = read(html)
    assert page.facts["Started"] == "2026-03-29 01:58 UTC+01:00"
    assert page.heads[0][-1] == "Time (UTC+01:00)"
    times = [row[4] for row in page.rows if len(row) == 5 and row[0].isdigit()]
    assert times == ["01:58:00", "01:59:30", "03:00:05 UTC+02:00"]


def test_a_device_on_utc_says_utc(db_path, capsys, zone):
    with Records(db_path) as db:
        game_id, _pos = play_recorded(db, "arinama", seed=3, max_moves=2)
        record = db.game(game_id)
    zone("UTC0")
    code, html, _err = run_cli(capsys, "export", game_id, "-f", "html", "--db", db_path)
    page = read(html)
    stamp = record.summary.started_at
    assert code == 0 and page.facts["Started"] == f"{stamp[:10]} {stamp[11:16]} UTC"
    assert page.heads[0][-1] == "Time (UTC)"


def test_the_language_option_is_checked_in_one_line(db_path, tmp_path, capsys):
    """`--language xx` names the choices in one line, no traceback; the formats without
    words refuse it, as they refuse --no-photos."""
    with Records(db_path) as db:
        game_id, _pos = play_recorded(db, "arinama", seed=1, max_moves=3)
    out = tmp_path / "g.html"
    argv = ["export", game_id, "-f", "html", "--language", "xx", "-o", out, "--db", db_path]
    result = subprocess.run(
        [sys.executable, "-m", "companion", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    lines = result.stderr.splitlines()
    assert result.returncode == 2 and result.stdout == "" and len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr and not out.exists()
    assert "argument --language: invalid choice: 'xx' (choose from 'en', 'de')" in lines[0]
    for fmt in ("json", "arimaa"):
        code, stdout, err = run_cli(
            capsys, "export", game_id, "-f", fmt, "--language", "de", "--db", db_path
        )
        assert code == 2 and stdout == "" and len(err.splitlines()) == 1, err
        assert err.startswith(
            f"companion: error: --language is for --format html; a --format {fmt} export"
        )
    with pytest.raises(SystemExit):
        cli.main(["export", "--help"])
    assert "--language {en,de}" in capsys.readouterr().out


def test_the_app_exports_in_the_tables_language_and_the_table_goes_on_in_its_own(db_path):
    """From the app (no language given) the page is in the table's language now; a page made
    in another language changes no other thread's words, nor the table's after it."""
    with Records(db_path) as db:
        game_id, _pos = play_recorded(db, "arinama", seed=1, max_moves=3)
        record = db.game(game_id, images=False)
    i18n.set_language("de")
    try:
        assert read(export_game(record, "html")).lang == "de"
        assert "Züge" in read(export_game(record, "html")).facts
        assert read(export_game(record, "html", language="en")).lang == "en"
        assert i18n.language() == "de" and i18n._("Settings") == "Einstellungen"
    finally:
        i18n.set_language("en")
    heard = []
    inside, done = threading.Event(), threading.Event()

    def table():
        inside.wait(5)
        heard.append((i18n.language(), i18n._("Settings")))
        done.set()

    worker = threading.Thread(target=table)
    worker.start()
    with i18n.speaking("de"):
        inside.set()
        done.wait(5)
        heard.append((i18n.language(), i18n._("Settings")))
    worker.join(5)
    assert heard == [("en", "Settings"), ("de", "Einstellungen")]
    assert i18n.language() == "en"
