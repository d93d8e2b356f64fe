"""Every number of moves a player reads counts the game's own moves, as the play screen's
header ("Aranea · move 63") and the review's titles ("Move 63: place") number them: an Aranea
turn is its roll and its use (the opening rolls belong to the first), an Arimaa turn one move.
The record's entries (Aranea's rolls among them) were counted instead by the game-over
screen, the review's list, `companion play`, `run`, `export`, `games`, `replay`, `referee`
and the exported page - "after 128 moves" of a game whose review ended on "Move 63"."""

import json
import random
import sqlite3

from test_records import play_recorded, recorded_whole_game

from companion import cli, games
from companion.dice import Dice
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


# -- the command line ----------------------------------------------------------------------------
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
