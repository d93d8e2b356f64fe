"""Every number of moves a player reads counts the game's own moves, as the play screen's
header ("Aranea · move 63") and the review's titles ("Move 63: place") number them: an Aranea
turn is its roll and its use (the opening rolls belong to the first), an Arimaa turn one move.
The record's entries (Aranea's rolls among them) were counted instead by the game-over
screen, the review's list, `companion play`, `run`, `export`, `games`, `replay`, `referee`
and the exported page - "after 128 moves" of a game whose review ended on "Move 63"."""

import json
import random
import re
import sqlite3

import pytest
from test_records import play_recorded, recorded_whole_game

from companion import cli, games
from companion.dice import Dice
from companion.errors import RecordError
from companion.records import Records, move_labels, moves_counted


def run_cli(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def finished(name, seed=1):
    """A random game of `name` played to its end in memory."""
    rng, dice = random.Random(seed), Dice(seed=seed)
    position = games.get(name).new()
    while not position.is_game_over():
        position.push(
            position.roll_move(dice) if position.awaiting_roll else position.random_move(rng)
        )
    return position


def last_title(position):
    """The number the review titles the game's last move with (`Move 63: place`)."""
    return position.labels_played()[-1]


# -- the records -------------------------------------------------------------------------------
def test_a_record_s_moves_are_counted_as_the_review_titles_them(tmp_path):
    with Records(tmp_path / "r.sqlite3") as db:
        aranea, turns = play_recorded(db, "aranea", seed=2, max_moves=40)
        arinama, _position = play_recorded(db, "arinama", seed=2, max_moves=12)
        labels, error = move_labels(db.game(aranea, images=False))
        assert error is None and labels == turns.labels_played()
        counted = moves_counted(db.game(aranea, images=False))
        assert counted == int(last_title(turns)) == turns.moves_played < 40
        summaries = {s.id: s for s in db.games()}
        assert summaries[aranea].moves == 40  # the record's entries stay as they were
        assert db.moves_of(summaries[aranea]) == counted
        assert db.moves_of(summaries[arinama]) == summaries[arinama].moves == 12


def test_a_record_written_before_aranea_kept_its_turn_is_counted_from_its_replay(tmp_path):
    """Aranea's stored positions gained `turn_number` on 7 Dec 2026: an older record's
    positions say turn 1 throughout, its replay counts its turns."""
    path = tmp_path / "r.sqlite3"
    with Records(path) as db:
        game_id, turns = play_recorded(db, "aranea", seed=3, max_moves=14)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE moves SET position = json_remove(position, '$.turn_number')")
    with Records(path, readonly=True) as db:
        assert moves_counted(db.game(game_id, images=False)) == turns.moves_played > 1


@pytest.mark.parametrize("name", ["arinama", "arimaa", "aranea", "sensei"])
def test_a_list_counts_each_game_s_moves_without_replaying_them_as_its_replay_does(
    tmp_path, name, monkeypatch
):
    """`Records.moves_of` reads two stored positions, not the record: a list of a year's
    Aranea games took seconds on a Pi. It counts as the replay does - whole games, games
    stopped mid-way, a move taken back."""
    with Records(tmp_path / "r.sqlite3") as db:
        ids = [recorded_whole_game(db, name, seed)[0] for seed in (1, 2)]
        ids += [
            play_recorded(db, name, seed=seed, max_moves=moves)[0]
            for seed, moves in ((3, 1), (4, 2), (5, 23))
        ]
        db.undo_move(ids[-1])
        expected = {i: moves_counted(db.game(i, images=False)) for i in ids}
        monkeypatch.setattr(
            "companion.records.replay", lambda *args: pytest.fail("a list replayed a game")
        )
        assert {s.id: db.moves_of(s) for s in db.games()} == expected


def test_a_list_counts_an_older_record_and_a_damaged_position_by_reading_the_record(tmp_path):
    """A stored position without a field its game keeps now (Aranea's turn) cannot say the
    count: the record is read and replayed; a game whose record cannot be read (a position
    changed by hand into no JSON) is listed with its stored moves, and opening it says why."""
    path = tmp_path / "r.sqlite3"
    with Records(path) as db:
        older, turns = play_recorded(db, "aranea", seed=3, max_moves=14)
        damaged, _position = play_recorded(db, "aranea", seed=4, max_moves=9)
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE moves SET position = json_remove(position, '$.turn_number') WHERE game_id=?",
            (older,),
        )
        conn.execute("UPDATE moves SET position = '{oops' WHERE game_id=? AND ply=8", (damaged,))
    with Records(path, readonly=True) as db:
        summaries = {s.id: s for s in db.games()}
        assert db.moves_of(summaries[older]) == turns.moves_played > 1
        assert db.moves_of(summaries[damaged]) == summaries[damaged].moves == 9  # as stored
        with pytest.raises(RecordError, match="game 2"):  # opening it says what is wrong
            db.game(damaged, images=False)


# -- the command line ----------------------------------------------------------------------------
def test_companion_play_counts_and_stops_at_aranea_s_turns(capsys):
    """`--max-moves 5` stopped after five rolls ("2. blue roll"), said "5 moves"; it plays five
    turns, each roll used, and says so."""
    code, out, _ = run_cli(capsys, "play", "aranea", "--auto", "--seed", "1", "--max-moves", "5")
    played = [line.split() for line in out.splitlines() if re.match(r" *\d+\. ", line)]
    assert code == 0 and len(played) > 5 and played[-1][0] == "5."
    assert played[-1][2] != "roll"  # the last turn's roll was used
    assert out.strip().splitlines()[-1] == "no result: stopped after 5 moves (--max-moves)"


def test_companion_play_s_result_counts_the_turns_the_moves_were_numbered_with(capsys):
    code, out, _ = run_cli(capsys, "play", "aranea", "--auto", "--seed", "1")
    numbered = [line.split()[0] for line in out.splitlines() if re.match(r" *\d+\. ", line)]
    last = out.strip().splitlines()[-1]
    assert code == 0 and last.startswith("result: ")
    assert last.endswith(f" after {numbered[-1].rstrip('.')} moves"), (numbered[-3:], last)
    assert len(numbered) > int(numbered[-1].rstrip("."))  # the rolls are not moves


def test_companion_replay_counts_aranea_s_turns(tmp_path, capsys):
    position = finished("aranea", seed=4)
    record = tmp_path / "game.json"
    record.write_text(json.dumps(games.base.game_to_json(position)))
    code, out, _ = run_cli(capsys, "replay", record)
    assert code == 0, out
    assert f"Aranea: {last_title(position)} moves, all legal." in out
    assert position.moves_played < len(position.move_stack)


def test_companion_games_export_and_the_exported_page_count_the_game_s_moves(tmp_path, capsys):
    db_path = tmp_path / "r.sqlite3"
    with Records(db_path) as db:
        game_id, position = recorded_whole_game(db, "aranea", seed=5)
    turns = position.moves_played
    assert turns < len(position.move_stack)
    code, out, _ = run_cli(capsys, "games", "--db", db_path)
    header, row = out.strip().splitlines()
    column = header.index("MOVES")
    assert code == 0 and row[column:].split()[0] == str(turns), out
    code, out, _ = run_cli(capsys, "games", "--db", db_path, "--json")
    assert json.loads(out)["moves"] == len(position.move_stack)  # the record's, as ever
    page = tmp_path / "game.html"
    code, _, err = run_cli(
        capsys, "export", game_id, "--format", "html", "-o", page, "--db", db_path
    )
    assert code == 0 and f"Wrote game {game_id} (aranea, {turns} moves) to " in err
    assert f"<th>Moves</th><td>{turns}</td>" in page.read_text()


def test_the_referee_s_lines_count_aranea_s_turns(tmp_path, capsys, monkeypatch):
    """Three opening rolls are the first turn, begun: "[1]", "Continuing ... at move 1"."""
    import io
    import sys

    argv = ["referee", "--game", "aranea", "--observations", "-", "--db", tmp_path / "r.sqlite3"]
    monkeypatch.setattr(sys, "stdin", io.StringIO("roll\n" * 3))
    code, out, _ = run_cli(capsys, *argv, "--seed", "3")
    numbers = re.findall(r"^\[(\d+)\]", out, flags=re.MULTILINE)
    assert code == 0 and numbers == ["0", "1", "1", "1"], out
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code, out, _ = run_cli(capsys, *argv)
    assert out.splitlines()[0] == "Continuing Aranea game 1 at move 1"


def test_the_demo_stops_after_and_says_aranea_s_turns(tmp_path):
    """`companion run --moves 2` stopped after two opening rolls and said "after 2 moves"; it
    plays two turns, each roll used, and its lines count them."""
    from companion.app.demo import run_demo

    lines = []
    with Records(tmp_path / "r.sqlite3") as records:
        result = run_demo("aranea", seed=1, records=records, max_moves=2, log=lines.append)
        record = records.game(result.game_id, images=False)
    position = record.position()
    assert result.moves == position.moves_played == 2 < len(record.moves)
    assert position.labels_played()[-1] == "2" and position.move_label == "3"  # over
    assert re.findall(r"^ +(\d+)  ", "\n".join(lines), flags=re.MULTILINE)[-1] == "2"


@pytest.mark.parametrize(("command", "option"), [("play", "--max-moves"), ("run", "--moves")])
def test_the_limits_on_moves_say_they_count_as_the_game_does(capsys, command, option):
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert re.search(rf"{option} N .*as the game counts them \(Aranea: turns", text), text


# -- the touchscreen -----------------------------------------------------------------------------
@pytest.fixture
def app_for():
    """An App on a headless 800x480 screen, for a game (and records)."""
    from companion.app import App, Settings
    from display.device import HeadlessScreen, init_pygame

    init_pygame(headless=True)
    return lambda game, records=None: App(
        HeadlessScreen((800, 480)), Settings(game=game), records=records
    )


def test_the_game_over_screen_counts_the_moves_the_review_titles(app_for):
    from companion.referee import Referee

    position = finished("aranea", seed=6)
    app = app_for("aranea")
    app.referee = Referee(position)
    app.go("gameover")
    _, model = app.page_model()
    assert model.moves == int(last_title(position)) < len(position.move_stack)
    app.render(force=True)
    assert f"{model.moves} moves" in app.painter.texts


def test_the_review_list_counts_the_moves_the_review_titles(app_for, tmp_path):
    records = Records(tmp_path / "r.sqlite3")
    aranea, turns = play_recorded(records, "aranea", seed=2, max_moves=30)
    arinama, _position = play_recorded(records, "arinama", seed=2, max_moves=7)
    app = app_for("aranea", records)
    lines = {game_id: line for game_id, _title, line in app.pages.review_list.games()}
    assert f" · {turns.moves_played} moves · " in lines[aranea] and turns.moves_played < 30
    assert " · 7 moves · " in lines[arinama]
    app.pages.review_game.open(aranea)
    review = app.pages.review_game.review
    assert review.label(len(review.moves)) == str(turns.moves_played)  # its last title


def test_the_review_names_a_move_that_does_not_replay_as_its_title_does(app_for, tmp_path):
    """The review said "From move 11 on, the recorded moves do not replay" (the record's 11th
    entry) over the title "Move 5: pass": the move's number as the title has it."""
    path = tmp_path / "r.sqlite3"
    records = Records(path)
    game_id, turns = play_recorded(records, "aranea", seed=2, max_moves=12)
    ply = len(turns.move_stack) - 1  # (12 entries: turn 5 or so)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE moves SET move = 'pass' WHERE game_id = ? AND ply = ?", (game_id, ply))
    app = app_for("aranea", records)
    app.pages.review_game.open(game_id)
    label = turns.labels_played()[ply - 1]
    assert label != str(ply)
    assert app.pages.review_game.problem.startswith(f"From move {label} on, "), (ply, label)
    app.pages.review_game.act("ply", ply)
    app.render(force=True)
    assert any(t.startswith(f"Move {label}: ") for t in app.painter.texts), app.painter.texts


def test_a_damaged_stored_position_is_no_turn_of_its_own(tmp_path):
    """A review: past a move that does not replay, a stored Aranea position that cannot be
    read was labelled with the record's entry number, which counted as one more turn."""
    path = tmp_path / "r.sqlite3"
    with Records(path) as db:
        game_id, turns = play_recorded(db, "aranea", seed=3, max_moves=20)
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE moves SET position = '{\"stones\": 5}' WHERE game_id=? AND ply=17", (game_id,)
        )
    with Records(path, readonly=True) as db:
        record = db.game(game_id, images=False)
        labels, error = move_labels(record)
        assert error is not None and len(labels) == 20
        assert moves_counted(record) <= turns.moves_played


def test_the_review_list_replays_only_the_older_records_it_shows(app_for, tmp_path, monkeypatch):
    """An Aranea record from before 7 Dec 2026 is replayed to count its moves (about 25 ms a
    game here, several times that on a Pi): the list replayed all 80 of a year's games before
    it showed the first four. Now only the rows drawn are counted, each once."""
    import companion.records

    path = tmp_path / "r.sqlite3"
    with Records(path) as db:
        ids = [play_recorded(db, "aranea", seed=seed, max_moves=6)[0] for seed in range(12)]
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE moves SET position = json_remove(position, '$.turn_number')")
        conn.execute("UPDATE games SET start = json_remove(start, '$.turn_number')")
    replayed = []
    replay = companion.records.replay
    monkeypatch.setattr(
        companion.records,
        "replay",
        lambda record, *a: replayed.append(record.id) or replay(record, *a),
    )
    app = app_for("aranea", Records(path))
    app.go("review-list")
    app.render(force=True)
    drawn = [int(t[1:].split()[0]) for t in app.painter.texts if re.match(r"#\d+ Aranea", t)]
    assert sorted(replayed) == sorted(drawn) == sorted(ids[::-1][: len(drawn)])
    assert 0 < len(drawn) < len(ids)
    assert sum(" moves · " in t for t in app.painter.texts) == len(drawn)
    app.render(force=True)
    assert len(replayed) == len(drawn)  # each counted once
    app.pages.review_list.act("page", 1)
    app.render(force=True)
    assert sorted(replayed) == sorted(ids[::-1][: 2 * len(drawn)])


def test_the_review_of_a_game_without_moves_says_so(app_for, tmp_path):
    """A trial: a game recorded with no move yet read "position 0 of 0" in the review."""
    records = Records(tmp_path / "r.sqlite3")
    game_id, _position = play_recorded(records, "sensei", seed=1, max_moves=0)
    app = app_for("sensei", records)
    app.pages.review_game.open(game_id)
    app.render(force=True)
    assert "no moves" in app.painter.texts and "position 0 of 0" not in app.painter.texts
