"""`companion play GAME`: a game at the terminal between two people, or a random demo game.

    companion play arinama -o rows=5 -o cols=5      two people take turns at one keyboard
    companion play aranea --auto --seed 1           random players play to the end
    companion play arinama --save game.json         keep the record (check it: companion replay)

Every game uses only the shared model (`companion.games.base.Position`), so games added later
play here unchanged. Dice games (Aranea) get their rolls from the program: `companion.dice.Dice`,
unpredictable unless --seed is given. A turn whose only legal move is "pass" is passed for the
player, with a line saying so.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import signal
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from companion import games
from companion.commands import (
    as_typed,
    lines_not_taken,
    not_empty,
    say_on_stderr,
    seed_number,
    silence_stdout,
)
from companion.dice import Dice, move_dice_words
from companion.errors import OptionError, UserError, excerpt, write_problem
from companion.export import check_output, write_output
from companion.games.base import MoveCount, Position, game_to_json, options_to_dict

EXAMPLES = """examples:
  companion play arinama                          8x8, Black first (the rulebook's Decisions)
  companion play arinama -o rows=5 -o cols=5      the 5x5 board
  companion play aranea -o clash=true             Clash mode; the program rolls the dice
  companion play aranea --auto --seed 1           watch random players finish a game
  printf 'd4\\ne5\\n' | companion play arinama     moves from a pipe, one a line; ends at the end

while playing: type a move, or
  moves   list the legal moves      undo   take back the last move
  help    show this again           quit   stop (the game is saved with --save)
"""
COMMAND_HELP = (
    "type a move, or: moves (the legal moves), undo (take back the last move), quit (stop)"
)
MOVES_SHOWN = 60  # `moves` while playing: Arimaa can have tens of thousands
DEFAULT_MAX_MOVES = 100_000  # --auto: a random game that runs this long is stopped


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play a game at the terminal (two people, or random players with --auto)",
        description="Play GAME at the terminal: the board is drawn, the player to move types a "
        "move; an illegal move is explained and asked again. Without a terminal the moves are "
        "read from standard input, one a line, until it ends. --auto lets random players play "
        "to the end.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", metavar="GAME", help=games.names_text())
    add_option_argument(parser)
    parser.add_argument(
        "--auto", action="store_true", help="random players play to the end (a demo)"
    )
    parser.add_argument(
        "--seed",
        type=seed_number,
        metavar="N",
        help="seed the dice and the random players: the same N plays the same game",
    )
    parser.add_argument(
        "--max-moves",
        type=int,
        metavar="N",
        help="--auto: stop a game that has not ended after N moves, as the game counts them "
        f"(Aranea: turns, a roll and its use) (default {DEFAULT_MAX_MOVES})",
    )
    parser.add_argument(
        "--save",
        metavar="FILE.json",
        type=not_empty("file name: name the file to save the game in, or leave --save out"),
        help="write the game record here when the game ends or you quit "
        "(check it with `companion replay FILE.json`)",
    )
    parser.add_argument("--force", action="store_true", help="replace the --save file if it exists")
    parser.set_defaults(func=run)


# -- helpers shared with `moves` ------------------------------------------------------------------
def add_option_argument(
    parser: argparse.ArgumentParser,
    help: str = "a game option, e.g. -o rows=5 (the options of each game: docs/games.md)",
) -> None:
    """The -o KEY=VALUE argument of every command that takes game options."""
    parser.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE", help=help
    )


def option_pairs(items: list[str]) -> dict[str, str]:
    """``KEY=VALUE`` strings (the -o arguments) as a dict, keys with ``-`` read as ``_``;
    OptionError names a string that is not KEY=VALUE."""
    values: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise OptionError(f"an option is KEY=VALUE, e.g. -o rows=5, not {item!r}")
        key = key.strip().replace("-", "_")
        if key in values and values[key] != value.strip():
            raise OptionError(
                f"-o {key} is given twice ({values[key]!r} and {value.strip()!r}): give it once"
            )
        values[key] = value.strip()
    return values


def options_from_pairs(cls: Any, items: list[str]) -> Any:
    """The game's options from ``KEY=VALUE`` strings; OptionError names a bad one."""
    return cls.options_from(option_pairs(items))


def check_can_write(path: str, force: bool) -> Path:
    """Refuse early, before any play, to write over a file the user has, or where the record
    cannot be written."""
    try:
        return _check_can_write(Path(path), path, force)
    except OSError as exc:  # e.g. "File name too long" from the checks themselves
        raise UserError(f"cannot save to {path}: {write_problem(path, exc)}") from None


def _check_can_write(target: Path, path: str, force: bool) -> Path:
    check_output(path, force, "--save")  # as typed: "-" is refused, "./-" is a file
    with tempfile.NamedTemporaryFile(dir=target.parent, prefix=".companion-"):
        pass  # can we write there? Better to learn it now than after the game
    return target


def write_atomically(target: Path, text: str) -> None:
    """Write via a temporary file and a rename, so a crash never leaves half a record (the
    exports' one atomic writer: flushed to the disk before the rename, the umask's mode)."""
    write_output(text, target, force=True, verb="save to")  # (checked before the game)


# -- play -------------------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> int:
    cls = games.get(args.game)
    position = cls.new(options_from_pairs(cls, args.option))
    _check_arguments(args)
    target = check_can_write(args.save, args.force) if args.save else None
    dice = Dice(seed=args.seed)
    stopped: str | None = None  # what stopped the game: Ctrl-C, or a signal's name
    code = 0
    saved = False
    refused: list[int] = []

    def save_before_the_result() -> None:
        """The game is on disk before its result is shown: a Ctrl-C just after loses nothing."""
        nonlocal saved
        if target is not None:
            save(position, target, announce=False)
            saved = True

    with _signals_stop_the_game():
        try:
            if args.auto:
                play_auto(
                    position,
                    dice,
                    random.Random(args.seed),
                    args.max_moves or DEFAULT_MAX_MOVES,
                    save_before_the_result,
                )
            else:
                refused = play_by_hand(position, dice, sys.stdin, save_before_the_result)
        except _Stopped as exc:  # kill, timeout, the terminal closed: as Ctrl-C
            stopped, code = signal.Signals(exc.number).name, 128 + exc.number
        except KeyboardInterrupt:  # Ctrl-C: stop, but keep the game played so far
            stopped, code = "interrupted", 130
        except BrokenPipeError:  # `| head` has read enough: stop, but keep the game played so far
            if target is not None and not saved:
                save(position, target, announce=False)
            silence_stdout()
            if position.is_game_over():
                return 0
            kept = f": the game so far is saved to {target}" if target is not None else ""
            say_on_stderr(f"companion: the game stopped: its output was closed{kept}")
            return 128 + signal.SIGPIPE
        if target is not None and (not saved or stopped):
            save(position, target, announce=False)  # first: the terminal may be gone
    try:
        if stopped:
            print(f"\n({stopped})")
        if target is not None:
            print(f"saved to {target}")
    except OSError:  # a closed terminal (SIGHUP): the game is saved, nobody reads this
        return code
    if refused and not stopped:
        raise UserError(f"{lines_not_taken('standard input', refused)}; the others were played")
    return code


class _Stopped(KeyboardInterrupt):
    """SIGTERM (`kill`, `timeout`) or SIGHUP (the terminal closed) while a game is played."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


@contextmanager
def _signals_stop_the_game() -> Iterator[None]:
    """SIGTERM and SIGHUP stop the game as Ctrl-C does (`_Stopped`), so --save keeps it:
    without this they ended the process at once and the game was lost. Only the first stops
    it: the ones after it (a closed terminal sends SIGHUP twice) wait while the game is saved.
    A signal the shell ignores (`nohup`) stays ignored; outside the main thread nothing
    changes."""

    stopped = False

    def stop(number: int, frame: FrameType | None) -> None:
        nonlocal stopped
        if stopped:  # (a closed terminal sends SIGHUP twice: the first stops, the game is saved)
            return
        stopped = True
        raise _Stopped(number)

    kept = {}
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)  # (no SIGHUP on Windows)
        if number is None or signal.getsignal(number) is signal.SIG_IGN:
            continue
        try:
            kept[number] = signal.signal(number, stop)
        except ValueError:  # not the main thread
            pass
    try:
        yield
    finally:
        for number, handler in kept.items():
            signal.signal(number, handler)


def _check_arguments(args: argparse.Namespace) -> None:
    """Refuse an option that would do nothing here: said, not ignored, as the user expects an
    effect (a cap on a game two people play, a file to replace with no --save)."""
    if args.max_moves is not None and not args.auto:
        raise UserError(
            "--max-moves is for --auto (random players); two people stop with quit: leave "
            "--max-moves out, or add --auto"
        )
    if args.max_moves is not None and args.max_moves < 1:
        raise UserError(f"--max-moves must be at least 1, not {args.max_moves}")
    if args.force and not args.save:
        raise UserError(
            "--force replaces the --save file, and there is no --save: leave --force out, or "
            "add --save FILE.json"
        )


def save(position: Position[Any], target: Path, *, announce: bool = True) -> None:
    """Write the game record; if that fails, print it, so the game played is never lost."""
    text = json.dumps(game_to_json(position), indent=1) + "\n"
    try:
        write_atomically(target, text)
    except UserError as exc:
        sys.stdout.write(text)
        raise UserError(f"{exc}; the game record is printed above: copy it into a file") from None
    if announce:
        print(f"saved to {target}")


def forced_pass(position: Position[Any]) -> Any | None:
    """The move when the only legal one is a pass (the player has no choice), else None.

    Games whose notation has no "pass" (Arimaa) are never asked for their moves here: listing
    them can take a noticeable time, and during Arimaa's setup it is refused."""
    if position.awaiting_roll or position.is_game_over():
        return None
    try:
        position.parse_move("pass")
        if position.count_legal_moves() != 1:
            return None
        moves = position.legal_moves()
    except UserError:
        return None
    if len(moves) == 1 and position.move_text(moves[0]) == "pass":
        return moves[0]
    return None


def play_chance_and_forced(
    position: Position[Any], dice: Dice, kept_rolls: list[Any] | None = None
) -> Iterator[str]:
    """Make the moves nobody chooses - dice rolls and forced passes - describing each.

    `kept_rolls` holds the rolls an undo took back, the next one last: they are used again
    before the dice roll anew, so taking back the opponent's move never buys a new roll."""
    while not position.is_game_over():
        player = position.turn
        if position.awaiting_roll:
            kept = bool(kept_rolls)
            move = kept_rolls.pop() if kept_rolls else position.roll_move(dice)
            text = position.move_text(move)
            opening = position.in_opening_roll
            position.push(move)
            shown = move_dice_words(text) or text  # "2 and 5": "2-5" reads like a cell
            rolled = f"{shown}{_roll_value(position, move)}"
            kept_note = " (rolled before the undo)" if kept else ""
            yield f"{player} {'keeps the roll' if kept else 'rolls'} {rolled}{kept_note}"
            if opening and not position.in_opening_roll:
                yield _starts(position)
        elif (move := forced_pass(position)) is not None:
            position.push(move)
            yield f"{player} has no legal move: the turn passes"
        else:
            return


def _starts(position: Position[Any]) -> str:
    """Who the opening rolls just made first (Aranea)."""
    return f"{position.turn} has the higher opening roll and starts"


def _roll_value(position: Position[Any], move: Any) -> str:
    """ " = 7" for a dice move whose roll has a game value (Aranea), else nothing."""
    value = position.roll_value(move)
    return f" = {value}" if value is not None else ""


def play_auto(
    position: Position[Any],
    dice: Dice,
    rng: random.Random,
    max_moves: int,
    before_result: Any = lambda: None,
) -> None:
    print(f"{position.title}: random players{_options_note(position)}")
    played = MoveCount(position.labels_played())  # max_moves counts as the game counts moves
    while not position.is_game_over():
        player, label = position.turn, position.move_label
        if played.moves >= max_moves and played.starts_a_move(label):
            break  # (Aranea's last turn used its roll)
        played.add(label)
        if position.awaiting_roll:
            move = position.roll_move(dice)
        else:
            move = position.random_move(rng)
        text = position.move_text(move) + _roll_value(position, move)
        opening = position.in_opening_roll
        position.push(move)
        # numbered as the game counts its moves: 12. (Arimaa: its turn labels, 1g 1s 2g ...)
        print(f"{label:>4}{'.' if label.isdigit() else ' '} {player:<6} {text}")
        if opening and not position.in_opening_roll:  # as a game played by hand says it
            print(f"      ({_starts(position)})")
    before_result()
    print()
    print(position.diagram())
    _print_result(position, stopped_after=max_moves)


def play_by_hand(
    position: Position[Any], dice: Dice, stream: Any, before_result: Any = lambda: None
) -> list[int]:
    """Two people's game from `stream` (a terminal, or lines from a pipe or file): the numbers
    of the lines a pipe or file gave that were not played (none at a terminal, where each was
    said as it came and asked again)."""
    if stream is None:  # started with standard input closed (`companion play arinama <&-`)
        stream = io.StringIO()
    interactive = stream.isatty()
    print(f"{position.title}{_options_note(position)}: {COMMAND_HELP}.")
    read_line = _line_reader(stream, interactive)
    show_board = True
    number = 0  # the line read last
    refused: list[int] = []
    kept_rolls: list[Any] = []  # rolls an undo took back: used again, never rolled anew
    while True:
        for note in play_chance_and_forced(position, dice, kept_rolls):
            print(note)
            show_board = True
        if position.is_game_over():
            break
        if show_board:
            print()
            print(position.diagram())
            show_board = False
        line = read_line(f"{position.turn} to play> ")
        if line is None:
            print("(end of input)")
            break
        number += 1
        command = line.strip()
        if not command:
            continue
        if command.lower() in ("quit", "exit", "q"):
            break
        if command.lower() in ("help", "?"):
            print(COMMAND_HELP)
            continue
        if command.lower() == "moves":
            _print_moves(position)
            continue
        if command.lower() == "undo":
            show_board = _undo(position, kept_rolls) or show_board
            continue
        played = _try_move(position, command, "" if interactive else f" (line {number})")
        show_board = played or show_board
        if not played and not interactive:
            refused.append(number)
    if position.is_game_over() and not interactive:
        refused += _lines_after_the_end(stream, number)
    before_result()
    if show_board:
        print()
        print(position.diagram())
    _print_result(position)
    return refused


def _lines_after_the_end(stream: Any, read: int) -> list[int]:
    """The numbers of the lines a pipe or file still gives once the game is over (`read` lines
    read so far): each said, none played - a script's moves past the end are not lost unsaid."""
    left = []
    for number, line in enumerate(stream, start=read + 1):
        if line.strip():
            print(f"not played (line {number}): {line.strip()!r}: the game is over")
            left.append(number)
    return left


def _line_reader(stream: Any, interactive: bool) -> Callable[[str], str | None]:
    """A function prompt -> the next line, or None at the end of input: `input()` at a
    terminal, else the stream, echoed after the prompt so a piped game reads like a typed one."""

    def from_terminal(prompt: str) -> str | None:
        try:
            return input(prompt)
        except EOFError:
            return None

    def from_stream(prompt: str) -> str | None:
        line: str = stream.readline()
        if not line:
            return None
        print(prompt + line.rstrip("\n"))
        return line

    return from_terminal if interactive else from_stream


LONGEST_MOVE = 200  # characters: the longest move typed is an Arimaa setup turn, 63


def _try_move(position: Position[Any], text: str, where: str = "") -> bool:
    """Play the move `text` says; False, saying why (`where`: which line of a pipe or file),
    when it is not one."""
    player = position.turn
    if len(text.strip()) > LONGEST_MOVE:  # (a trial: 5000 characters echoed in the error)
        print(
            f"not played{where}: {excerpt(text.strip())!r} ({len(text.strip())} characters) is "
            "no move: type one move a line (`moves` lists them)"
        )
        return False
    try:
        move = position.parse_move(text)
        position.push(move)
    except UserError as exc:
        print(f"not played{where}: {exc}")
        return False
    print(f"{player} plays {position.move_text(move)}")
    return True


def _undo(position: Position[Any], kept_rolls: list[Any]) -> bool:
    """Take back the last move a player chose (with the dice roll and forced passes after
    it, but not the roll before it: undo never buys a new roll). The rolls taken back go to
    `kept_rolls`, to be used again as they fell."""
    trial = position.copy()
    while trial.move_stack:
        move = trial.pop()
        if not trial.awaiting_roll and forced_pass(trial) is None:
            while len(position.move_stack) > len(trial.move_stack):
                taken = position.pop()
                if position.awaiting_roll:  # a roll: the dice stay as they fell
                    kept_rolls.append(taken)
            print(f"took back {position.turn}'s {position.move_text(move)}")
            return True
    print("nothing to take back")
    return False


def _print_moves(position: Position[Any]) -> None:
    try:
        moves = position.legal_moves()
    except UserError as exc:  # e.g. Arimaa's setup: too many arrangements to list
        print(exc)
        return
    texts = [position.move_text(m) for m in moves[:MOVES_SHOWN]]
    separator = ", " if any(" " in text for text in texts) else " "  # Sensei, Arimaa: "a b, c"
    print(separator.join(texts) if texts else "(no legal moves)")
    if len(moves) > MOVES_SHOWN:
        print(
            as_typed(f"... and {len(moves) - MOVES_SHOWN} more (`companion moves` lists them all)")
        )


def _print_result(position: Position[Any], stopped_after: int | None = None) -> None:
    outcome = position.outcome()
    moves = position.moves_played  # as the game counts them: Aranea's turns, not its rolls
    if outcome is not None:
        print(f"result: {outcome} after {_plural(moves, 'move')}")
    elif stopped_after is not None and moves >= stopped_after:
        print(f"no result: stopped after {_plural(moves, 'move')} (--max-moves)")
    else:
        print(f"no result yet: stopped after {_plural(moves, 'move')}, {position.turn} to play")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _options_note(position: Position[Any]) -> str:
    defaults = options_to_dict(type(position.options)())
    changed = {k: v for k, v in options_to_dict(position.options).items() if defaults[k] != v}
    shown = ", ".join(f"{k}={_option_text(v)}" for k, v in changed.items())
    return f" ({shown})" if changed else ""


def _option_text(value: Any) -> str:
    """An option's value as -o takes it: true, c3,e5 (not Python's True, ('c3', 'e5'))."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (list, tuple)):
        return ",".join(_option_text(item) for item in value)
    return str(value)
