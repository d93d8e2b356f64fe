"""`companion games` and `companion export` on real record files: JSON, HTML and errors."""

import json
import random
import re
import sqlite3
from html.parser import HTMLParser

import pytest
from shared_data import ARIMAA_GAMES
from test_records import GAMES, _board_photo, play_recorded, recorded_whole_game

from companion import cli, games, i18n
from companion.errors import UserError
from companion.games.base import game_from_json
from companion.geometry import board_geometry
from companion.records import Records
from companion.referee.protocol import Instruction
from companion.svg import HIGHLIGHTS, board_svg, changed_cells, position_svg


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "records.sqlite3"


def run_cli(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


class Page(HTMLParser):
    """What an HTML export holds: figures with their pieces and highlights, links, scripts."""

    def __init__(self):
        super().__init__()
        self.figures = []  # one dict per position
        self.external = []  # anything loaded from elsewhere
        self.tags = []
        self.controls_hidden = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        if tag == "figure":
            self.figures.append({"id": a.get("id"), "pieces": {}, "highlights": {}, "photo": False})
        elif self.figures and tag == "g" and "piece" in (a.get("class") or ""):
            self.figures[-1]["pieces"][a["data-cell"]] = True
        elif self.figures and tag == "polygon" and "highlight" in (a.get("class") or ""):
            role = a["class"].split("highlight-")[1]
            self.figures[-1]["highlights"][a["data-cell"]] = role
        elif tag == "img":
            assert a["src"].startswith("data:image/jpeg;base64,")
            self.figures[-1]["photo"] = True
        elif tag == "div" and a.get("class") == "controls":
            self.controls_hidden = "hidden" in a
        for name, value in attrs:
            if name in ("src", "href") and value and not value.startswith(("#", "data:")):
                self.external.append((tag, name, value))
        if tag in ("link", "iframe", "object", "embed"):
            self.external.append((tag, "", ""))


def parse(html):
    page = Page()
    page.feed(html)
    return page


# -- json --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_json_export_reads_back_as_the_same_game_with_the_tables_log(
    db_path, tmp_path, capsys, name
):
    with Records(db_path) as db:
        game_id, pos = play_recorded(db, name, seed=21, max_moves=40)
        rolls = db.game(game_id).rolls
    out = tmp_path / "game.json"
    code, _, err = run_cli(
        capsys, "export", game_id, "--format", "json", "-o", out, "--db", db_path
    )
    assert code == 0 and f"Wrote game {game_id}" in err
    data = json.loads(out.read_text())
    again = game_from_json(data)
    assert again.to_json() == pos.to_json()
    code, replayed, _ = run_cli(capsys, "replay", out)
    assert code == 0 and f"{pos.moves_played} moves, all legal" in replayed  # (Aranea: turns)
    if pos.is_game_over():
        assert str(pos.outcome()) in replayed
    assert len(again.move_stack) == len(pos.move_stack) == len(data["plies"])
    assert [p["ply"] for p in data["plies"]] == list(range(1, len(pos.move_stack) + 1))
    assert all(
        re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", p["played_at"])
        for p in data["plies"]
    )
    assert [(r["for_ply"], tuple(r["dice"]), r["value"]) for r in data["rolls"]] == [
        (r.for_ply, r.dice, r.value) for r in rolls
    ]
    assert len(data["instructions"]) == len(pos.move_stack)
    assert data["instructions"][0]["instruction"]["kind"] == "move"
    assert data["status"] in ("playing", "finished") and data["players"]
    if pos.is_game_over():
        assert data["outcome"] == pos.outcome().to_json()


def test_json_export_keeps_taken_back_moves_and_a_players_outcome(db_path, capsys):
    with Records(db_path) as db:
        pos = games.get("arinama").new()
        game_id = db.new_game(pos)
        for _ in range(2):
            move = pos.legal_moves()[0]
            text = pos.move_text(move)
            pos.push(move)
            db.add_move(game_id, pos, text)
        db.undo_move(game_id)
        db.finish(game_id, {"winner": "white", "reason": "resignation", "detail": "Black resigned"})
    code, out, _ = run_cli(capsys, "export", game_id, "--db", db_path)
    data = json.loads(out)
    assert code == 0 and len(data["moves"]) == 1
    assert [p["photo"] for p in data["plies"]] == [False]  # stored without one
    assert [t["ply"] for t in data["taken_back"]] == [2] and data["taken_back"][0]["taken_back_at"]
    assert data["outcome"]["reason"] == "resignation" and data["status"] == "finished"
    assert [e["kind"] for e in data["events"]] == ["undo"]


def test_json_export_says_which_plies_have_a_photo_stored(db_path, capsys):
    """A review found "photo" false on every ply of a demo's game with 23 photos: the JSON
    export does not load the photos, and the flag was read from the photo loaded."""
    with Records(db_path) as db:
        game_id, pos = play_recorded(db, "arinama", seed=3, max_moves=6, image=_board_photo(64)(70))
    code, out, _ = run_cli(capsys, "export", game_id, "--format", "json", "--db", db_path)
    assert code == 0
    assert [p["photo"] for p in json.loads(out)["plies"]] == [True] * len(pos.move_stack)


# -- html --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_html_export_shows_every_position_and_needs_nothing_from_the_network(
    db_path, tmp_path, capsys, name
):
    photo = _board_photo(64)(70)
    with Records(db_path) as db:
        game_id, pos = play_recorded(db, name, seed=8, max_moves=25, image=photo)
    out = tmp_path / "game.html"
    code, _, _ = run_cli(capsys, "export", game_id, "-f", "html", "-o", out, "--db", db_path)
    assert code == 0
    html = out.read_text()
    page = parse(html)
    assert page.external == []
    assert html.count("<script>") == 1 and "<script src" not in html
    assert page.controls_hidden is True  # shown by the script; with JS off every diagram shows
    assert ".js figure.step { display: none; }" in html
    assert ".controls[hidden] { display: none; }" in html
    assert len(page.figures) == len(pos.move_stack) + 1
    board = pos.root()
    expected = [set(board.cells())]
    changes = [{}]
    for move in pos.move_stack:
        before = board.cells()
        board.push(move)
        expected.append(set(board.cells()))
        changes.append(changed_cells(before, board.cells()))
    assert [set(f["pieces"]) for f in page.figures] == expected
    assert [f["highlights"] for f in page.figures] == changes
    assert [f["photo"] for f in page.figures] == [False] + [True] * len(pos.move_stack)
    assert [f["id"] for f in page.figures] == [f"p{i}" for i in range(len(page.figures))]
    title = pos.full_title  # Sensei's version named ("Sensei Arashi")
    assert f"<title>{title} - game {game_id}</title>" in html
    plain = games.get(name).title
    assert title.startswith(plain) and (title != plain) == (name == "sensei")


def test_html_export_lists_moves_rolls_result_and_can_leave_photos_out(db_path, capsys):
    with Records(db_path) as db:
        game_id, pos = play_recorded(db, "aranea", seed=1, max_moves=30, image=_board_photo(64)(70))
        record = db.game(game_id)
    code, out, _ = run_cli(capsys, "export", game_id, "-f", "html", "--no-photos", "--db", db_path)
    assert code == 0
    page = parse(out)
    assert not any(f["photo"] for f in page.figures)
    assert "<h2>Dice rolls</h2>" in out and "In stock: Amber" in out
    # a turn is a roll and its use, numbered as one; the opening rolls belong to the first (a
    # trial: the play screen's header said "move 28" after 14 turns)
    turn, labels = 1, {}
    for number, move in enumerate(record.moves, 1):
        labels[number] = str(turn)
        assert f'data-step="{number}">{turn}</a>' in out and f"<code>{move.text}</code>" in out
        turn += not move.text.startswith("roll ")
    for r in record.rolls:  # the dice table's links say the same
        dice = f"<td>{' + '.join(map(str, r.dice))}</td><td>{r.value}</td>"
        assert f'data-step="{r.for_ply}">{labels[r.for_ply]}</a></td>{dice}' in out
    # the caption over the board says a roll's dice in words ("2-5" reads like the cell r2-5)
    first = record.moves[0].text
    value = int(first[5]) + int(first[7])  # (a 3 and a 4 count as 1)
    value = 1 if {first[5], first[7]} == {"3", "4"} else value
    caption = f"1. Amber: roll {first[5]} and {first[7]} = {value} to see who starts<"
    assert first.startswith("roll ") and caption in out
    assert "not finished" in out


@pytest.mark.parametrize("fmt", [[], ["--format", "json"], ["-f", "arimaa"]])
def test_no_photos_with_a_format_that_has_none_is_refused(db_path, tmp_path, capsys, fmt):
    """A player's trial: `--format json --no-photos` was taken without a word, as if it did
    something; only the HTML page holds photos. One line naming both options, exit 2, and
    nothing written."""
    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arimaa", seed=1, max_moves=3)
    out_file = tmp_path / "g.out"
    code, out, err = run_cli(
        capsys, "export", game_id, *fmt, "--no-photos", "-o", out_file, "--db", db_path
    )
    name = fmt[1] if fmt else "json"
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"companion: error: --no-photos is for --format html; a --format {name} ")
    assert not out_file.exists()


def test_html_export_of_a_finished_game_names_the_winner(db_path, capsys):
    with Records(db_path) as db:
        game_id, pos = recorded_whole_game(db, "arinama", seed=3)
    assert pos.is_game_over()
    code, out, _ = run_cli(capsys, "export", game_id, "-f", "html", "--db", db_path)
    outcome = pos.outcome()
    assert code == 0
    assert f"{outcome.winner.capitalize()} wins ({outcome.detail})" in out  # as the screens


# -- arimaa ------------------------------------------------------------------------------------------
def test_arimaa_format_of_another_game_is_a_clear_error(db_path, capsys):
    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arinama", seed=1, max_moves=3)
    code, out, err = run_cli(capsys, "export", game_id, "-f", "arimaa", "--db", db_path)
    assert code == 2 and out == ""
    assert err.strip() == (
        f"companion: error: game {game_id} is Arinama: the arimaa move list is only for Arimaa "
        "games; use --format json or html"
    )


# -- games -------------------------------------------------------------------------------------------
def test_games_lists_id_game_date_status_moves_and_result(db_path, capsys):
    with Records(db_path) as db:
        done_id, done = recorded_whole_game(db, "arinama", seed=3)
        open_id, _ = play_recorded(db, "arinama", seed=4, max_moves=5)
    code, out, _ = run_cli(capsys, "games", "--db", db_path)
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == [
        "ID",
        "GAME",
        "STARTED",
        "(UTC)",
        "STATUS",
        "MOVES",
        "RESULT",
    ]
    assert lines[1].split()[:6] == [str(open_id), "arinama", *lines[1].split()[2:4], "playing", "5"]
    assert lines[2].split()[4:6] == ["finished", str(len(done.move_stack))]
    assert lines[2].endswith(str(done.outcome()).split(": ")[0] + ": " + done.outcome().detail)
    code, out, _ = run_cli(capsys, "games", "--db", db_path, "--json", "--unfinished")
    assert code == 0 and [json.loads(line)["id"] for line in out.splitlines()] == [open_id]
    code, out, _ = run_cli(capsys, "games", "--db", db_path, "--check")
    assert code == 0 and out.splitlines()[-1].endswith("integrity check ok")
    with Records(db_path) as db:  # the open game ends: none unfinished (not "none recorded")
        db.abandon(open_id)
    code, out, _ = run_cli(capsys, "games", "--db", db_path, "--unfinished")
    assert code == 0 and out.startswith(f"No unfinished games in {db_path}")


def test_games_without_records_says_so(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "state"))
    code, out, _ = run_cli(capsys, "games")
    assert code == 0 and out.startswith("No games recorded yet")
    code, out, err = run_cli(capsys, "games", "--db", tmp_path / "missing.sqlite3")
    assert code == 2 and "no game records at" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "missing.sqlite3").exists()


@pytest.mark.parametrize("command", [["export", "1"], ["games"]])
def test_records_in_a_state_directory_through_a_file_say_what_to_do(
    tmp_path, capsys, monkeypatch, command
):
    """XDG_STATE_HOME pointing into a regular file: export said only "cannot read the game
    records ...: Not a directory", and games said no games were recorded yet."""
    (tmp_path / "afile").write_text("not a folder")
    monkeypatch.delenv("STATE_DIRECTORY")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "afile" / "state"))
    code, out, err = run_cli(capsys, *command)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, (out, err)
    assert "a part of the path is a file, not a folder" in err
    assert f"fix $XDG_STATE_HOME ({tmp_path / 'afile' / 'state'}), or give" in err
    assert "--db FILE" in err
    code, _, err = run_cli(capsys, *command, "--db", tmp_path / "afile" / "r.sqlite3")
    assert code == 2 and "check the --db path" in err and len(err.splitlines()) == 1
    assert (tmp_path / "afile").read_text() == "not a folder"  # nothing lost


def test_a_records_file_that_may_not_be_read_is_its_permissions_not_the_state_folder(
    tmp_path, capsys, monkeypatch
):
    """Every error on the default path said "fix $XDG_STATE_HOME (...)", even a records file
    that may not be read inside a state folder that is right, and even an XDG_STATE_HOME of
    blanks, which platformdirs ignores."""
    from companion import records

    state = tmp_path / "state"
    monkeypatch.delenv("STATE_DIRECTORY")
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
    with Records():
        pass  # the records file, in its right folder
    denied = PermissionError(13, "Permission denied")

    def no_reading(*args, **kwargs):
        raise denied

    with monkeypatch.context() as patch:
        patch.setattr(records, "open", no_reading, raising=False)  # root reads any file
        for command in (["games"], ["export", "1"], ["games", "--db", state / "x.sqlite3"]):
            if "--db" in command:
                records.default_db_path().rename(state / "x.sqlite3")
            code, out, err = run_cli(capsys, *command)
            assert code == 2 and out == "" and len(err.splitlines()) == 1, (out, err)
            assert ": Permission denied: check the permissions of the file and of its" in err
            assert "$XDG_STATE_HOME" not in err and "--db FILE" in err
    (tmp_path / "afile").write_text("not a folder")  # the home's ~/.local/state through a file
    monkeypatch.setenv("HOME", str(tmp_path / "afile"))
    monkeypatch.setenv("XDG_STATE_HOME", " ")
    code, out, err = run_cli(capsys, "games")
    assert code == 2 and "a part of the path is a file, not a folder" in err, err
    assert "XDG_STATE_HOME" not in err and err.rstrip().endswith(
        "give the records file with --db FILE"
    )


def test_games_check_reports_damage_on_stderr_in_one_line_and_exits_1(db_path, capsys):
    import sqlite3

    with Records(db_path) as db:
        for seed in range(3):
            play_recorded(db, "arinama", seed=seed, max_moves=40)
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='moves_live'").fetchone()[0]
    conn.close()
    data = bytearray(db_path.read_bytes())
    start = (root - 1) * 4096 + 8
    data[start : start + 192] = b"\x05" * 192  # garbage in an index: the games still list
    db_path.write_bytes(bytes(data))
    code, out, err = run_cli(capsys, "games", "--db", db_path, "--check", "--json")
    assert code == 1
    assert [json.loads(line)["game"] for line in out.splitlines()] == ["arinama"] * 3
    assert len(err.splitlines()) == 1 and "is damaged:" in err and "backup" in err


def test_games_check_that_stops_at_the_damage_has_found_it_exit_1(db_path, capsys):
    """SQLite's integrity check stopped with "database disk image is malformed" on a file
    whose games still list: --check said it could not check (exit 2, "too damaged to open"),
    where it had found the damage (exit 1)."""
    import sqlite3

    with Records(db_path) as db:
        for seed in range(3):
            play_recorded(db, "arinama", seed=seed, max_moves=6)
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE name='instructions_game'"
    ).fetchone()[0]
    conn.close()
    data = bytearray(db_path.read_bytes())
    data[(root - 1) * 4096 : root * 4096] = bytes(4096)  # an index the listing never reads
    db_path.write_bytes(bytes(data))
    code, out, _ = run_cli(capsys, "games", "--db", db_path)
    assert code == 0 and len(out.splitlines()) == 4  # the header and the three games
    code, out, err = run_cli(capsys, "games", "--db", db_path, "--check")
    assert code == 1 and len(out.splitlines()) == 4
    assert err.startswith(f"{db_path} is damaged: database disk image is malformed. Copy it")
    assert len(err.splitlines()) == 1


# -- export errors ------------------------------------------------------------------------------------
def test_export_never_overwrites_a_file_without_force(db_path, tmp_path, capsys):
    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arinama", seed=1, max_moves=3)
    out = tmp_path / "mine.json"
    out.write_text("my notes")
    code, _, err = run_cli(capsys, "export", game_id, "-o", out, "--db", db_path)
    assert code == 2 and "already exists: choose another name, or add --force" in err
    assert out.read_text() == "my notes"
    code, _, _ = run_cli(capsys, "export", game_id, "-o", out, "--force", "--db", db_path)
    assert code == 0 and json.loads(out.read_text())["id"] == game_id
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_an_exported_file_gets_the_umask_s_mode_like_any_new_file(db_path, tmp_path, capsys):
    """Written through a temporary file, the export still gets a new file's mode (not the
    temporary file's private 0600): a page meant to be shared is readable by others."""
    import os

    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arinama", seed=1, max_moves=3)
    old = os.umask(0o027)
    try:
        for name in ("g.json", "g.html"):
            code, _, _ = run_cli(capsys, "export", game_id, "-o", tmp_path / name, "--db", db_path)
            assert code == 0
    finally:
        os.umask(old)
    for name in ("g.json", "g.html"):
        assert oct((tmp_path / name).stat().st_mode & 0o777) == "0o640", name


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["export", "99"], "there is no game 99 in {db}: `companion games --db {db}` lists them"),
        (["export", "1", "-o", "{tmp}/nowhere/x.json"], "there is no folder"),
        (["export", "1", "-o", "{tmp}"], "is a folder: give a file name"),
        (["export", "1", "-o", "x" * 5000], "File name too long"),
        (["export", "1", "--force"], "--force replaces the -o file"),  # (it was ignored)
        (["export", "1", "-o", "-", "--force"], "goes to standard output"),
    ],
)
def test_export_errors_are_one_line(db_path, tmp_path, capsys, argv, message):
    with Records(db_path) as db:
        play_recorded(db, "arinama", seed=1, max_moves=3)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err = run_cli(capsys, *argv, "--db", db_path)
    message = message.replace("{db}", str(db_path))
    assert code == 2 and out == "" and message in err and len(err.splitlines()) == 1


def test_export_to_an_empty_file_name_is_refused_in_one_line(db_path, capsys):
    """-o "$F" with F unset said ". is a folder"."""
    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arinama", seed=1, max_moves=3)
    with pytest.raises(SystemExit) as exit_:
        run_cli(capsys, "export", game_id, "-o", "", "--db", db_path)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == "" and len(err.splitlines()) == 1
    assert "argument -o/--output: an empty file name" in err and "folder" not in err


@pytest.mark.parametrize("suffix", ["", "-wal"])
def test_export_never_writes_over_the_record_database(db_path, capsys, suffix):
    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arinama", seed=1, max_moves=3)
    before = db_path.read_bytes()
    target = f"{db_path}{suffix}"
    code, out, err = run_cli(capsys, "export", game_id, "-o", target, "--force", "--db", db_path)
    assert code == 2 and "is the game record database itself" in err
    assert db_path.read_bytes() == before
    with Records(db_path, readonly=True) as db:
        assert [g.id for g in db.games()] == [game_id]


def test_export_never_writes_over_another_record_database(db_path, tmp_path, capsys):
    """Another table's records (or a backup of these) are not replaced by a game's JSON,
    --force or not."""
    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arinama", seed=1, max_moves=3)
    other = tmp_path / "other.sqlite3"
    with Records(other) as db:
        play_recorded(db, "sensei", seed=2, max_moves=2)
    before = other.read_bytes()
    code, out, err = run_cli(capsys, "export", game_id, "-o", other, "--force", "--db", db_path)
    assert code == 2 and "holds game records: give another file name" in err
    assert len(err.splitlines()) == 1 and other.read_bytes() == before


def test_export_never_replaces_a_device_or_pipe_even_with_force(db_path, tmp_path, capsys):
    import os

    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arinama", seed=1, max_moves=3)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # stands for /dev/null, /dev/full: as root --force used to replace them
    code, _, err = run_cli(capsys, "export", game_id, "-o", fifo, "--force", "--db", db_path)
    assert code == 2 and "is not a regular file" in err
    assert fifo.is_fifo()


def test_export_into_a_folder_it_cannot_write_is_one_line(db_path, tmp_path, capsys, monkeypatch):
    import companion.files

    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arinama", seed=1, max_moves=3)

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(companion.files, "_temporary_beside", denied)  # (root may write anywhere)
    code, out, err = run_cli(capsys, "export", game_id, "-o", tmp_path / "g.json", "--db", db_path)
    said = f"cannot write {tmp_path / 'g.json'}: Permission denied - give a path in a folder you"
    assert code == 2 and out == "" and said in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_export_of_a_file_that_is_not_records_is_one_line(tmp_path, capsys):
    bad = tmp_path / "game.json"
    bad.write_text("{}")
    code, _, err = run_cli(capsys, "export", "1", "--db", bad)
    assert code == 2 and "not a companion record database" in err
    assert bad.read_text() == "{}"


# -- svg ---------------------------------------------------------------------------------------------
def test_svg_draws_a_piece_per_occupied_cell_and_outlines_highlights():
    geometry = board_geometry("arinama", {"rows": 5, "cols": 5})
    svg = board_svg(
        geometry,
        {"a1": "black", "b2": "white", "c3": "empty", "d4": "unknown"},
        highlights={"c3": "flip", "e5": "remove"},
        title="Turn c3",
    )
    page = parse(f"<figure>{svg}</figure>")
    assert page.figures[0]["pieces"] == {"a1": True, "b2": True}
    assert page.figures[0]["highlights"] == {"c3": "flip", "e5": "remove"}
    assert f'stroke="{HIGHLIGHTS["flip"][0]}"' in svg and 'stroke-dasharray="4 1.5"' in svg
    assert ">a</text>" in svg and ">5</text>" in svg  # coordinates round a grid board
    with pytest.raises(UserError, match="no cell 'z9' on the arinama board"):
        board_svg(geometry, {"z9": "black"})


def test_svg_marks_arimaa_traps_and_names_pieces_and_draws_the_aranea_web():
    pos = games.get("arimaa").new()
    rng = random.Random(1)
    for _ in range(2):  # the two setup turns
        pos.push(pos.random_move(rng))
    svg = position_svg(pos)
    letters = re.findall(r'font-weight="bold"[^>]*>([A-Z])</text>', svg)
    assert sorted(letters) == sorted("EMHHDDCCRRRRRRRR" * 2)
    assert svg.count('fill="#c79b6b"') == 4  # the four traps
    web = position_svg(games.get("aranea").new())
    assert web.count("<polygon") >= 36 + 12 and "board-aranea" in web


def _real_arimaa_game(turns):
    """The first `turns` turns of a real arimaa.com game from the shared data."""
    from companion.games.arimaa_notation import replay_move_list

    with open(ARIMAA_GAMES, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record.get("complete") and not record.get("flag") and len(record["moves"]) > turns:
                replay = replay_move_list(record["moves"][:turns])
                board = replay.position
                assert replay.error is None and len(board.move_stack) == turns
                return board
    raise AssertionError(f"no complete game of more than {turns} turns in {ARIMAA_GAMES}")


def test_arimaa_export_is_a_move_list_that_we_and_aei_read_back(db_path, tmp_path, capsys):
    from pyrimaa import board as aei_board

    from companion.games.arimaa import position_to_aei
    from companion.games.arimaa_notation import replay_move_list

    real = _real_arimaa_game(24)
    with Records(db_path) as db:
        pos = real.root()
        game_id = db.new_game(pos)
        for move in real.move_stack:
            text = pos.move_text(move)
            pos.push(move)
            db.add_move(game_id, pos, text)
    out = tmp_path / "game.txt"
    code, _, _ = run_cli(capsys, "export", game_id, "-f", "arimaa", "-o", out, "--db", db_path)
    assert code == 0
    text = out.read_text()
    lines = text.splitlines()
    assert [line.split()[0] for line in lines[:4]] == ["1g", "1s", "2g", "2s"]
    again = replay_move_list(text)
    assert again.error is None and again.position.to_json() == real.to_json()
    code, replayed, _ = run_cli(capsys, "replay", out)
    assert code == 0 and replayed.strip()
    aei = aei_board.Position(aei_board.Color.GOLD, 4, aei_board.BLANK_BOARD)
    for line in lines:
        label, *steps = line.split()
        if steps:
            aei = aei.do_move_str(" ".join(steps))
    side = "gs"[aei.color]
    assert f"{side} {aei.board_to_str('short')}" == position_to_aei(real)


def test_a_record_that_no_longer_replays_is_reported_not_exported(db_path, tmp_path, capsys):
    import sqlite3

    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arinama", seed=4, max_moves=6)
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE moves SET move='z99' WHERE game_id=? AND ply=2", (game_id,))
    conn.commit()
    conn.close()
    out = tmp_path / "game.html"
    code, _, err = run_cli(capsys, "export", game_id, "-f", "html", "-o", out, "--db", db_path)
    assert code == 2 and not out.exists() and len(err.splitlines()) == 1
    assert f"game {game_id}, move 2 ('z99') does not replay" in err
    assert "- not exported: an export is replayed by the rules. The records keep " in err
    assert err.rstrip().endswith("says from which move on it does not replay")  # what to do


def test_html_export_sizes_photos_for_the_page_and_has_plain_buttons(db_path, capsys):
    """A camera's 960 px photos are embedded 320 px wide; first/last buttons use characters
    every font has; an option that is not set reads "off", not "None"."""
    import base64
    import re

    import cv2
    import numpy as np

    y, x = np.mgrid[0:540, 0:960]
    image = np.dstack([(x * 255 // 960), (y * 255 // 540), ((x + y) % 256)]).astype(np.uint8)
    photo = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()
    with Records(db_path) as db:
        game_id, pos = play_recorded(db, "sensei", seed=2, max_moves=4, image=photo)
    code, out, _ = run_cli(capsys, "export", game_id, "-f", "html", "--db", db_path)
    assert code == 0
    embedded = re.findall(r"data:image/jpeg;base64,([A-Za-z0-9+/=]+)", out)
    assert len(embedded) == len(pos.move_stack)
    for data in embedded:
        jpeg = base64.b64decode(data)
        shown = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
        assert shown.shape[1] == 320 and len(jpeg) < len(photo) / 3
    assert "&#x23EE;" not in out and "&#x23ED;" not in out
    assert "&laquo;</button>" in out and "&raquo;</button>" in out
    assert "turn_cap=off" in out and "None" not in out.split("<section")[0]


def test_one_move_is_one_move_in_the_words(db_path, tmp_path, capsys):
    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arinama", seed=3, max_moves=1)
    code, _, err = run_cli(capsys, "export", game_id, "-o", tmp_path / "g.json", "--db", db_path)
    assert code == 0 and "(arinama, 1 move) to" in err


def test_choices_are_taken_in_any_case(db_path, capsys, tmp_path):
    """`mat ARIMAA` was taken, `--format JSON` and `--language DE` refused (a player's trial):
    the fixed words of the commands are taken in any case."""
    with Records(db_path) as db:
        game_id, _ = recorded_whole_game(db, "arinama", seed=3)
    code, upper, _ = run_cli(capsys, "export", str(game_id), "--db", db_path, "--format", "JSON")
    code_lower, lower, _ = run_cli(capsys, "export", str(game_id), "--db", db_path)
    assert code == code_lower == 0 and upper == lower
    out = tmp_path / "m.pdf"
    code, _, _ = run_cli(capsys, "mat", "arinama5", "--paper", "a4", "-o", out)
    assert code == 0 and out.read_bytes().startswith(b"%PDF")
    observations = tmp_path / "none.jsonl"
    observations.write_text("hands off\n")  # (a file with no line at all is refused)
    argv = ["referee", "--game", "ARINAMA", "--language", "DE", "--observations", observations]
    code, out_lines, _ = run_cli(capsys, *argv, "--db", tmp_path / "r.sqlite3")
    assert code == 0 and "Arinama" in out_lines and "Schwarz" in out_lines


def test_a_photo_on_a_damaged_page_is_left_out_of_the_page_alone(db_path, tmp_path, capsys):
    """SQLite finds the damage only where it reads: the moves are sound, a photo's pages are
    not. The page export said only that the file is damaged; then it refused the whole page
    and advised --no-photos (a trial: one unreadable photo among 199 lost the other 198).
    Each photo is read on its own: the page has every readable one, says at the move whose
    photo is lost that the records file is damaged there, and the command names the move."""
    import re

    with Records(db_path) as db:
        photo = _board_photo(160)(80)  # noise: a photo over several pages
        game_id, pos = play_recorded(db, "arinama", seed=2, max_moves=3, image=photo)
    data = bytearray(db_path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    assert len(photo) > 3 * page
    # deep in the photo, on an overflow page (a chunk that does not span two of them)
    at = next(at for k in range(8) if (at := data.find(photo[len(photo) // 2 + 64 * k :][:32])) > 0)
    start = at - at % page
    data[start : start + 4] = (10**6).to_bytes(4, "big")  # its next page: beyond the file
    db_path.write_bytes(bytes(data))
    out = tmp_path / "g.html"
    code, _, err = run_cli(capsys, "export", game_id, "-f", "html", "-o", out, "--db", db_path)
    assert code == 1, err  # written, but not whole
    page_text = out.read_text()
    assert len(re.findall("data:image/jpeg;base64,", page_text)) == len(pos.move_stack) - 1
    lost = re.findall(r'id="p(\d+)"[^>]*>(?:(?!</figure>).)*the photo cannot be read', page_text)
    assert len(lost) == 1
    assert f"damaged where the board photo of move {lost[0]} lies:" in err
    assert "restore the file from a backup" in err
    code, page_text, _ = run_cli(
        capsys, "export", game_id, "-f", "html", "--no-photos", "--db", db_path
    )
    assert code == 0 and "<html" in page_text.lower() and "cannot be read" not in page_text


def test_a_damaged_games_table_is_said_to_be_damaged_not_to_hold_no_game(db_path, capsys):
    """A new player's trial: a damaged copy of the records said "there is no game 1" for
    every id (SQLite read the damaged table as empty), and `games` listed none."""
    with Records(db_path) as db:
        for seed in range(3):
            play_recorded(db, "arinama", seed=seed, max_moves=3)
    with sqlite3.connect(db_path) as conn:
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='games'").fetchone()
    conn.close()
    data = bytearray(db_path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    start = (root - 1) * page
    data[start + 3 : start + 5] = bytes(2)  # its page says it holds no rows
    db_path.write_bytes(bytes(data))
    code, _, err = run_cli(capsys, "export", 1, "--db", db_path)
    assert code == 2 and len(err.splitlines()) == 1, err
    assert f"{db_path} is damaged (" in err and "game 1 cannot be read: restore it" in err
    code, _, err = run_cli(capsys, "games", "--db", db_path)
    assert code == 2 and "is damaged (" in err and "its games cannot be listed" in err


def said_in_english_and_german(db, game_id, english, german):
    """The referee's words recorded once with the table in English, then in German."""
    db.add_instruction(game_id, Instruction(text=english, kind="move"))
    i18n.set_language("de")
    try:
        db.add_instruction(game_id, Instruction(text=german, kind="move"))
    finally:
        i18n.set_language("en")


def test_html_export_marks_what_the_referee_said_in_the_tables_language(db_path, capsys):
    """A trial: a German game's page said lang="en" over the referee's German words. The page's
    own words are English; each instruction keeps the language it was said in and is marked."""
    with Records(db_path) as db:
        game_id = db.new_game(games.get("arinama").new())
        said_in_english_and_german(db, game_id, "Black to move", "Schwarz ist am Zug")
        said = [i.instruction["lang"] for i in db.game(game_id).instructions]
    assert said == ["en", "de"]
    code, out, _ = run_cli(capsys, "export", game_id, "-f", "html", "--db", db_path)
    assert code == 0 and '<html lang="en">' in out
    assert re.search(r'<li lang="de"><span class=t>[^<]*</span> Schwarz ist am Zug</li>', out)
    assert re.search(r"<li><span class=t>[^<]*</span> Black to move</li>", out)


def test_html_export_s_current_move_row_outranks_the_stripes():
    """Found by a trial in a browser: the current move's row was yellow on even moves only -
    the odd rows' stripe rule was more specific than the current row's. The current row's
    rule is now as specific (`tbody`) and comes later; the page keeps the move shown in its
    address (`#pN`, for a link to it) and follows one typed there."""
    from companion.export import _CSS, _JS

    stripe = "table.moves tbody tr:nth-child(odd)"
    current = "table.moves tbody tr.current"
    assert stripe in _CSS and current in _CSS
    assert _CSS.index(current) > _CSS.index(stripe)
    assert "replaceState(null, '', '#p' + current)" in _JS
    assert "addEventListener('hashchange'" in _JS
    # opened at a move: its controls in sight, not jumped past to the figure's id
    assert "s.removeAttribute('id')" in _JS and "if (opened) controls.scrollIntoView()" in _JS
    assert _JS.index("var opened = location.hash") < _JS.index("fromHash();")


def test_html_arimaa_moves_are_numbered_as_its_turns(db_path, capsys):
    """A trial: an Arimaa page numbered its moves 1-125 where Arimaa players count turns
    (1g, 1s, 2g ...): the list, the captions and the page's position say the turn."""
    import re

    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arimaa", seed=1, max_moves=5)
    code, page, _ = run_cli(capsys, "export", game_id, "-f", "html", "--db", db_path)
    assert code == 0
    assert re.findall(r'data-step="\d+">([^<]+)</a>', page) == ["1g", "1s", "2g", "2s", "3g"]
    assert "<figcaption>2g. Gold: " in page


def test_a_list_of_games_lost_to_a_damaged_page_points_at_exporting_them_one_by_one(
    db_path, tmp_path, capsys
):
    """A trial: one damaged page of moves made `games` print only that the file is damaged,
    while every game but one still exported - it now says `export ID` may save them."""
    with Records(db_path) as db:
        for seed in range(4):
            recorded_whole_game(db, "arinama", seed)
    with sqlite3.connect(db_path) as conn:
        size = conn.execute("PRAGMA page_size").fetchone()[0]
        pages = [r[0] for r in conn.execute("SELECT pageno FROM dbstat WHERE name = 'moves'")]
    conn.close()
    data = bytearray(db_path.read_bytes())
    page = pages[len(pages) // 2]
    data[(page - 1) * size : page * size] = b"\x07" * size
    db_path.write_bytes(bytes(data))
    code, _, err = run_cli(capsys, "games", "--db", db_path)
    assert code == 2 and len(err.splitlines()) == 1
    assert "is damaged" in err
    assert f"`companion export ID --db {db_path}` may still save the games it can" in err
    saved = 0
    for game_id in range(1, 5):
        out = tmp_path / f"g{game_id}.json"
        code, _, _ = run_cli(capsys, "export", game_id, "-o", out, "--db", db_path)
        saved += code == 0
    assert saved >= 2


def test_html_move_list_says_what_each_move_changed_on_the_board(db_path, capsys):
    """A trial of the review: Aranea's move list read "place" without where the stone went,
    and Arinama's never said which stones turned. The list says what changed on the board
    (`svg.change_words`): the cell a stone came to, a stone that went along, the stones
    turned - or, in a game whose stones never turn, taken by the other side."""
    import re

    rows = {}
    with Records(db_path) as db:
        for game in ("aranea", "arinama"):
            game_id, _ = recorded_whole_game(db, game, 3)
            code, page, _ = run_cli(capsys, "export", game_id, "-f", "html", "--db", db_path)
            assert code == 0 and "<th>On the board</th>" in page
            rows[game] = re.findall(r"<td><code>([^<]*)</code></td><td>([^<]*)</td>", page)
    placed = [change for move, change in rows["aranea"] if move == "place"]
    odd = [change for change in placed if not re.match(r"\+r\d-\d+|r\d-\d+ taken", change)]
    assert placed and not odd, odd
    assert not any("turned" in change for _, change in rows["aranea"])
    assert rows["aranea"][0][1] == "to see who starts"  # the opening roll (a trial)
    assert any(change.endswith(" turned") for _, change in rows["arinama"])
    # where a move's text names every change (Arimaa's steps and captures, Sensei's actions)
    # the colours alone would guess wrong (a review: a push read "e4 taken"): no column
    with Records(db_path) as db:
        for game in ("arimaa", "sensei"):
            game_id, _ = play_recorded(db, game, seed=1, max_moves=6)
            code, page, _ = run_cli(capsys, "export", game_id, "-f", "html", "--db", db_path)
            assert code == 0 and "On the board" not in page


def test_html_last_move_says_the_result_and_the_rolls_link_to_their_moves(db_path, capsys):
    """A trial: the result stood in the facts table alone, not at the last move where the
    stepping ends; the dice table's move numbers were no links."""
    import re

    with Records(db_path) as db:
        game_id, _ = recorded_whole_game(db, "aranea", 3)
        rolled = db.new_game(games.get("aranea").new())
        db.add_roll(rolled, (2, 5))
        played, _pos = play_recorded(db, "aranea", seed=5, max_moves=12)
    code, page, _ = run_cli(capsys, "export", game_id, "-f", "html", "--db", db_path)
    assert code == 0
    result = re.search(r"<th>Result</th><td>([^<]+)</td>", page).group(1)
    last = page.split('<figure class="step"')[-1]
    assert '<span class="detail">' in last and result.split(" (")[0] in last
    code, page, _ = run_cli(capsys, "export", played, "-f", "html", "--db", db_path)
    dice = page.split("<h2>Dice rolls</h2>")[1].split("</table>")[0]
    links = re.findall(r'<td><a href="#p(\d+)" data-step="\1">(\d+)</a></td>', dice)
    assert len(links) > 3
    positions = {int(n) for n in re.findall(r'<figure class="step" id="p(\d+)"', page)}
    assert {int(ply) for ply, _turn in links} <= positions  # every link has its position
    # a review: a roll for a move not made yet linked to a position the page does not have
    code, page, _ = run_cli(capsys, "export", rolled, "-f", "html", "--db", db_path)
    dice = page.split("<h2>Dice rolls</h2>")[1].split("</table>")[0]
    assert "<a " not in dice and "<td>1</td><td>2 + 5</td>" in dice


def test_the_page_numbers_photos_taken_back_moves_and_its_steps_as_the_game_counts_moves(
    db_path, capsys
):
    """A review: on an Aranea page the photo of move 4's board said "after move 9" (the
    record's entry), a move taken back was "Move 19" in a game of 8 moves, and the script
    said "after move 1 of 18" at position 1 - the entry count as moves."""
    import re

    with Records(db_path) as db:
        aranea, _pos = play_recorded(db, "aranea", seed=1, max_moves=20, image=_board_photo(64)(70))
        db.undo_move(aranea)
        arinama, _pos = play_recorded(db, "arinama", seed=2, max_moves=6)
    code, page, _ = run_cli(capsys, "export", aranea, "-f", "html", "--db", db_path)
    assert code == 0
    figures = re.findall(r'<figure class="step" id="p(\d+)"[^>]*>(.*?)</figure>', page)
    photographed = 0
    for _number, figure in figures[1:]:
        label = re.search(r"<figcaption>([^.]+)\.", figure).group(1)
        alt = re.search(r'alt="The board photographed after move ([^"]+)"', figure)
        if alt:
            photographed += 1
            assert alt.group(1) == label
    assert photographed > 3
    labels = [re.search(r"<figcaption>([^.]+)\.", f).group(1) for _n, f in figures[1:]]
    back = page.split("<h2>Moves taken back</h2>")[1].split("</table>")[0]
    taken = re.search(r"<tbody><tr><td>([^<]+)</td>", back).group(1)
    assert taken in labels + [str(int(labels[-1]) + 1)] and int(taken) <= int(labels[-1]) + 1
    assert 'data-labelled="yes"' in page  # the script says "after move 1 (1 of 18)"
    code, page, _ = run_cli(capsys, "export", arinama, "-f", "html", "--db", db_path)
    assert 'data-labelled="no"' in page  # "after move 3 of 6": one count


def test_the_move_list_says_a_stone_that_turned_itself(db_path, capsys):
    """A trial: Arinama's self-flip read "+e2" in the move list, as if the stone had stayed
    the mover's colour (the diagram was right)."""
    for seed in range(40):
        with Records(db_path) as db:
            game_id, final = play_recorded(db, "arinama", seed=seed, max_moves=60)
        board = games.get("arinama").new(final.options)
        self_flips = []
        for number, move in enumerate(final.move_stack, 1):
            if board.placement_effects(move).self_flip:
                self_flips.append((number, move))
            board.push(move)
        if self_flips:
            break
    assert self_flips, "no self-flip in 40 seeded games"
    code, out, _ = run_cli(capsys, "export", game_id, "-f", "html", "--no-photos", "--db", db_path)
    assert code == 0
    for number, cell in self_flips:
        row = out.split(f'<tr><td><a href="#p{number}" data-step="{number}">')[1]
        change = row.split("</tr>")[0].split("<td>")[-2].removesuffix("</td>")
        placed, turned = change.split(", ", 1)
        assert placed == f"+{cell}" and cell in turned.removesuffix(" turned").split(), change


def test_an_html_file_named_without_format_gets_the_page(db_path, tmp_path, capsys):
    """A trial: `export 1 -o z.html` without --format wrote the JSON record into z.html."""
    with Records(db_path) as db:
        game_id, _ = play_recorded(db, "arinama", seed=2, max_moves=4)
    page, record = tmp_path / "z.html", tmp_path / "z.json"
    assert run_cli(capsys, "export", game_id, "-o", page, "--db", db_path)[0] == 0
    assert page.read_text().startswith("<!DOCTYPE html>")
    assert run_cli(capsys, "export", game_id, "-o", record, "--db", db_path)[0] == 0
    assert json.loads(record.read_text())["game"] == "arinama"  # (JSON otherwise, as before)
