"""Fault injection: the referee process killed with SIGKILL at random moments and restarted,
against a table whose players make mistakes (illegal stones, wrong colours, forgotten flips).
After every restart the instruction must be the one an uninterrupted referee gives, and no
move it announced may be lost.

The bulk of the kills fork this (already imported) test process into `companion referee
--observations -`, so a restart costs milliseconds, not an interpreter start; one test runs
the real command in a fresh interpreter to show the same holds end to end.
"""

import io
import json
import os
import random
import select
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pytest

from companion import cli, games
from companion.records import Records
from companion.referee.core import Referee
from companion.referee.runner import Session

# Import everything the command needs once, here: forked children inherit it.
cli.build_parser()
Referee(games.get("arinama").new())
Referee(games.get("sensei").new())

ARGS = ["--game", "arinama", "-o", "rows=5", "-o", "cols=5", "--observations", "-", "--json"]
READ_TIMEOUT = 20.0


def table_script(seed):
    """The boards a table shows during one seeded 5x5 game, mistakes included, and the moves."""
    rng = random.Random(seed)
    position = games.get("arinama").new({"rows": 5, "cols": 5})
    names = position.cell_names()
    board, boards = {}, []
    while not position.is_game_over():
        mover = position.turn
        opponent = position.players[1] if mover == position.players[0] else position.players[0]
        legal = position.legal_moves()
        move = rng.choice(legal)
        fault = rng.random()
        empty = [c for c in names if c not in board]
        illegal = [c for c in empty if c not in legal]
        if fault < 0.12 and illegal:  # a stone where it may not go, then taken off
            boards += [{**board, rng.choice(illegal): mover}, dict(board)]
        elif fault < 0.2:  # the other player's colour, then taken off
            boards += [{**board, move: opponent}, dict(board)]
        board = {**board, move: mover}
        boards.append(board)
        after = position.copy()
        after.push(move)
        if after.cells() != board:
            spare = [c for c in names if c not in board]
            if rng.random() < 0.3 and spare:  # flips forgotten: the next stone comes first
                boards += [{**board, rng.choice(spare): opponent}, dict(board)]
            board = after.cells()
            boards.append(board)
        position.push(move)
    lines = [json.dumps({"cells": {c: b.get(c, "empty") for c in names}}) for b in boards]
    return lines, list(position.move_stack)


def reference_texts(lines):
    """What an uninterrupted referee says after each line."""
    referee = Referee(games.get("arinama").new({"rows": 5, "cols": 5}))
    session = Session(referee, emit=lambda line: None)
    texts, over_at = [], None
    for index, line in enumerate(lines):
        session.handle_line(line)
        texts.append(referee.instruction.text)
        if over_at is None and referee.position.is_game_over():
            over_at = index
    return texts, over_at


class Child:
    """`companion referee` in a forked child, talking JSON lines over pipes. Its standard
    error goes to a file beside the records (`<db>.child-<n>.err`), so a child that dies or
    stops answering says why in the failure (a rare failure was once seen here and never
    reproduced: without its words, nothing could be learned from it)."""

    started = 0  # children forked so far in this process: each its own error file
    living: list = []  # the children not yet ended: a failed test's are killed (`no_orphans`)

    def __init__(self, db, args=ARGS):
        Child.started += 1
        self.errors = Path(f"{db}.child-{Child.started}.err")
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: stdin/stdout are the pipes; never returns
            code = 3
            try:
                os.dup2(in_r, 0)
                os.dup2(out_w, 1)
                # standard error to the file, the descriptor too (a crash's C-level words)
                errors = os.open(self.errors, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(errors, 2)
                # and nothing else of pytest's: its workers' pipes, its capture files
                os.closerange(3, os.sysconf("SC_OPEN_MAX"))
                sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False))
                sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True)
                sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True)
                code = cli.main(["referee", *args, "--db", str(db)])
            except SystemExit as exit_:  # (argparse's): its status
                code = exit_.code if isinstance(exit_.code, int) else (exit_.code is not None)
            except BaseException:
                try:
                    traceback.print_exc()
                except BaseException:
                    pass
            finally:  # whatever happened, never back into pytest as a second process
                try:
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        os.close(in_r)
        os.close(out_w)
        Child.living.append(self)
        self.pid = pid
        self.stdin = os.fdopen(in_w, "w", buffering=1)
        self.out = out_r
        self.buffer = b""
        self.alive = True

    def send(self, line):
        self.stdin.write(line + "\n")
        self.stdin.flush()

    def read_line(self):
        deadline = time.monotonic() + READ_TIMEOUT
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            assert left > 0, f"the referee did not answer{self.said()}"
            ready, _, _ = select.select([self.out], [], [], left)
            if ready:
                chunk = os.read(self.out, 65536)
                assert chunk, f"the referee died{self.said()}"
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def read_until_repeat(self):
        """Lines until the one `show` printed; the highest ply announced on the way."""
        ply = 0
        while True:
            data = self.read_line()
            ply = max(ply, data.get("ply", 0))
            if data.get("repeat"):
                return data, ply

    def said(self):
        """How the child ended, if it did, and what it wrote to its standard error."""
        try:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            pid, status = 0, 0
        ended = f" (exit status {os.waitstatus_to_exitcode(status)})" if pid else ""
        try:
            text = self.errors.read_text(errors="replace").strip()
        except OSError:
            text = ""
        return f"{ended}: {text[-2000:]}" if text else ended

    def kill(self):
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        self.close()
        Child.living.remove(self)

    def finish(self):
        self.stdin.close()
        _, status = os.waitpid(self.pid, 0)
        os.close(self.out)
        Child.living.remove(self)
        return os.waitstatus_to_exitcode(status)

    def close(self):
        try:
            self.stdin.close()
        except BrokenPipeError:
            pass
        os.close(self.out)


@pytest.fixture(autouse=True)
def no_orphans():
    """A test that fails leaves no forked referee behind (one that hung would hold pytest's
    pipes): each still running is killed and reaped."""
    yield
    while Child.living:
        child = Child.living.pop()
        try:
            os.kill(child.pid, signal.SIGKILL)
            os.waitpid(child.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        try:
            child.close()
        except OSError:
            pass


def test_sigkill_at_random_moments_loses_nothing_and_says_the_right_thing(tmp_path):
    rng = random.Random(20261122)
    db = tmp_path / "games.sqlite3"
    kills = 0
    game = 0
    expected_games = []
    while kills < 55:
        lines, moves = table_script(seed=1000 + game)
        expected, over_at = reference_texts(lines)
        expected_games.append(moves)
        child = Child(db)
        assert child.read_line()["type"] == "game"
        child.read_line()  # the first instruction
        announced = 0
        last = over_at  # a restart once the game is over starts a new game: no kills from there
        for index, line in enumerate(lines):
            child.send(line)
            if index < last and rng.random() < 0.35:  # killed while (perhaps) handling the line
                time.sleep(rng.uniform(0, 0.004))
                child.kill()
                kills += 1
                child = Child(db)
                start = child.read_line()
                assert start["type"] == "game"
                assert start["ply"] >= announced, "a move announced before the kill was lost"
                child.send(line)  # the camera sees the table as it is
            child.send("show")
            shown, ply = child.read_until_repeat()
            announced = max(announced, ply)
            assert shown["instruction"]["text"] == expected[index], (game, index, line)
            if index < last and rng.random() < 0.25:  # killed between two looks at the board
                child.kill()
                kills += 1
                child = Child(db)
                start = child.read_line()
                assert start["type"] == "game" and start["ply"] >= announced
                child.send(line)
                child.send("show")
                shown, _ = child.read_until_repeat()
                assert shown["instruction"]["text"] == expected[index]
        assert child.finish() == 0
        game += 1
    records = Records(db)
    finished = sorted(records.games(), key=lambda s: s.id)
    assert [s.status for s in finished] == ["finished"] * len(expected_games)
    for summary, moves in zip(finished, expected_games, strict=True):
        assert [m.text for m in records.game(summary.id).moves] == moves
    assert records.check() == []


def test_the_real_command_survives_sigkill(tmp_path):
    """`companion referee` in a fresh interpreter, killed three times mid-game."""
    lines, moves = table_script(seed=7)
    db = tmp_path / "games.sqlite3"
    command = [sys.executable, "-m", "companion", "referee", *ARGS, "--db", str(db)]
    rng = random.Random(7)
    kill_at = sorted(rng.sample(range(1, len(lines) - 1), 3))
    position = 0
    for stop in [*kill_at, len(lines)]:
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        # the table as it is now, then what happens until the next kill
        chunk = lines[max(position - 1, 0) : stop]
        for line in chunk:
            process.stdin.write(line + "\n")
        process.stdin.write("show\n")
        process.stdin.flush()
        output = []
        for text in process.stdout:
            output.append(json.loads(text))
            if output[-1].get("repeat"):
                break
        if stop < len(lines):
            process.send_signal(signal.SIGKILL)
            process.wait()
        else:
            process.stdin.close()
            assert process.wait() == 0
        assert output[0]["type"] == "game"
        position = stop
    records = Records(db)
    (summary,) = records.games()
    assert summary.status == "finished"
    assert [m.text for m in records.game(summary.id).moves] == moves


SENSEI_ARGS = ["--game", "sensei", "--observations", "-", "--json"]


def sensei_script(seed, turns):
    """Observation lines (one per physical action) and DONE presses of a seeded Sensei game."""
    rng = random.Random(seed)
    position = games.get("sensei").new()
    names = position.cell_names()
    lines = []
    for _ in range(turns):
        if position.is_game_over():
            break
        turn = position.random_move(rng)
        while not position.is_game_over() and _unchanged(position, turn):
            turn = position.random_move(rng)  # a turn the camera cannot see: players don't
        board = position.copy()
        for action in turn:
            board.push_action(action)
            cells = board.cells()
            lines.append(json.dumps({"cells": {c: cells.get(c, "empty") for c in names}}))
        position.push(turn)
        if not position.is_game_over():
            lines.append("done")
    return lines, position


def _unchanged(position, turn):
    after = position.copy()
    after.push(turn)
    return after.cells() == position.cells()


def _positions(position):
    """The position after every turn (the order of a turn's actions may differ)."""
    board, seen = position.root(), []
    for move in position.move_stack:
        board.push(move)
        seen.append(json.dumps(board.to_json(), sort_keys=True))
    return seen


def test_sensei_turns_in_progress_survive_sigkill(tmp_path):
    """Killed mid-turn, the restarted referee picks the turn up from the board."""
    rng = random.Random(5)
    lines, final = sensei_script(seed=5, turns=12)
    referee = Referee(games.get("sensei").new())
    session = Session(referee, emit=lambda line: None)
    expected = []
    for line in lines:
        session.handle_line(line)
        expected.append(referee.instruction.text)
    db = tmp_path / "games.sqlite3"
    child = Child(db, SENSEI_ARGS)
    child.read_line()
    child.read_line()
    board_line = None
    kills = 0
    for index, line in enumerate(lines):
        child.send(line)
        if line.startswith("{"):
            board_line = line
        if rng.random() < 0.4 and index < len(lines) - 1:
            time.sleep(rng.uniform(0, 0.004))
            child.kill()
            kills += 1
            child = Child(db, SENSEI_ARGS)
            assert child.read_line()["type"] == "game"
            if line == "done":
                # Whether DONE got through before the kill decides what the table must do:
                # not recorded, the turn is still in progress and DONE is pressed again.
                child.send(board_line)
                child.send("show")
                shown, _ = child.read_until_repeat()
                if shown["ply"] < len(referee_moves_until(lines, index)):
                    child.send("done")
            else:
                child.send(line)
        child.send("show")
        shown, _ = child.read_until_repeat()
        assert shown["instruction"]["text"] == expected[index], (index, line)
    assert child.finish() == 0
    assert kills >= 5
    records = Records(db)
    (summary,) = records.games()
    replayed = records.resume(summary.id)
    assert _positions(replayed) == _positions(final)


def referee_moves_until(lines, index):
    """The turns an uninterrupted referee has accepted after line `index`."""
    referee = Referee(games.get("sensei").new())
    session = Session(referee, emit=lambda line: None)
    for line in lines[: index + 1]:
        session.handle_line(line)
    return referee.position.move_stack
