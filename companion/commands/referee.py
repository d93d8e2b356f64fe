"""`companion referee`: the referee at a terminal - a camera (or the synthetic table) watches
the board, the instructions are printed one a line, and inputs are typed.

    companion referee --game arinama --source usb:0 --layout arinama8 --calibration cal.json
    companion referee --game arinama --source sim:arinama5?script=game.json \\
        --layout arinama5 --calibration cal.json --json
    companion referee --game arimaa -o equipment=chess --source usb:0 --calibration cal.json
    companion vision track usb:0 --layout arimaa --calibration cal.json --json \\
        | companion referee --game arimaa --observations - --setup "Ra1 ..." --setup "ra8 ..."

Every accepted move goes to the game records (``--db``) before it is announced. Started again
after a crash, the command continues the newest unfinished game of the same game and options
at its last accepted position (``--new`` starts a fresh one instead).
"""

from __future__ import annotations

import argparse
import json
import select
import sys
import time
from pathlib import Path
from typing import Any

from companion import games, i18n
from companion.commands import lines_not_taken, not_empty, seed_number
from companion.commands.games import add_db_argument
from companion.commands.play import add_option_argument, option_pairs
from companion.dice import Dice
from companion.errors import ReplayError, UserError, read_problem, shorten_quotes
from companion.games.base import Position, options_to_dict
from companion.observation import EMPTY, UNKNOWN, Observation
from companion.records import Records
from companion.referee.core import Referee
from companion.referee.runner import Session, parse_line
from vision import sources
from vision.calibration import load_calibration
from vision.corners import corners_for
from vision.layouts import Layout, get_layout, layout_or_auto
from vision.tracker import Tracker

NO_FRAMES_WARNING = 2.0  # seconds without a frame before saying the camera is gone
NOT_FOUND_WARNING = 3.0  # seconds of the camera's frames without the board before saying why


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "referee",
        help="referee a game from a camera or the synthetic table, one instruction a line",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "Inputs (typed, or piped in): done, roll, undo, cancel, choose X, right (the board "
            "is right, the camera wrong), show (the instruction again); with a camera 'clear' "
            "(nothing lies on the board); with --observations also JSON observation lines and "
            "'hands on' / 'hands off'. A line not taken is said with its number, and the run "
            "ends with exit status 2 (typed at a terminal: said, and nothing else). Examples:\n"
            "  companion referee --game sensei --source usb:0 --layout sensei "
            "--calibration cal.json\n"
            "  companion referee --game arinama --observations seen.jsonl --db /tmp/t.sqlite3"
        ),
    )
    parser.add_argument(
        "--game",
        required=True,
        type=str.lower,
        choices=games.names(),
        help="the game on the table",
    )
    _add_camera_arguments(parser)
    add_db_argument(parser)  # as `run`, `games` and `export` take it (an empty name refused)
    parser.add_argument(
        "--new", action="store_true", help="start a new game even if one is unfinished"
    )
    add_option_argument(
        parser, "a game option (see docs/referee.md and docs/games.md), e.g. -o rows=5"
    )
    parser.add_argument(
        "--setup",
        action="append",
        default=[],
        metavar="LINE",
        help='Arimaa: a setup turn, Gold\'s first ("Ra1 Rb1 ... " then "ra8 ..."); the camera '
        "sees colours, not piece types",
    )
    parser.add_argument(
        "--still-seconds",
        type=float,
        default=0.5,
        metavar="S",
        help="how long the board must be still and uncovered before it is read (default 0.5)",
    )
    parser.add_argument(
        "--seed", type=seed_number, metavar="N", help="seed the dice (repeatable rolls, for tests)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON lines")
    parser.add_argument(
        "--max-frames",
        type=int,
        default=0,
        metavar="N",
        help="stop after N camera frames (for tests; default 0: never, as `vision track`)",
    )
    parser.add_argument(
        "--language",
        type=str.lower,
        choices=("en", "de"),
        default="en",
        help="the language of the instruction lines (default en)",
    )
    parser.set_defaults(func=run)


def _add_camera_arguments(parser: argparse.ArgumentParser) -> None:
    """Where the board comes from: a camera (with its calibration, layout and corners) or
    observation lines."""
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--source",
        type=not_empty(
            "source: give picamera, usb:N, /dev/videoN, file:VIDEO, dir:GLOB or sim:LAYOUT"
        ),
        metavar="SPEC",
        help="camera frames: picamera, usb:N, /dev/videoN, file:VIDEO, dir:GLOB, sim:LAYOUT[?...]",
    )
    where.add_argument(
        "--observations",
        type=not_empty("file name: name the file of observation lines, or - for standard input"),
        metavar="FILE",
        help="read observations (JSON lines, as `companion vision track --json` prints) and "
        "inputs from FILE instead of a camera; - is standard input",
    )
    parser.add_argument(
        "--layout",
        help="the mat: arinama5, arinama8, arimaa, aranea, sensei, sensei-storm, chessboard, "
        "grid:RxC or auto (default with --source: the calibration's; else the game's own mat, "
        "Arimaa with -o equipment=chess: chessboard)",
    )
    parser.add_argument(
        "--calibration",
        type=not_empty("file name: name the CAL.json from `companion vision calibrate`"),
        metavar="CAL",
        help="colour calibration from `companion vision calibrate`",
    )
    parser.add_argument(
        "--corners",
        metavar='"x,y x,y x,y x,y"',
        help='the playing area\'s corners in image pixels, "x,y x,y x,y x,y": top-left, '
        "top-right, bottom-right, bottom-left as the first player sees it (boards without "
        "markers)",
    )


def run(args: argparse.Namespace) -> int:
    i18n.set_language(getattr(args, "language", None) or "en")
    if not args.still_seconds >= 0:  # (NaN too)
        raise UserError(f"--still-seconds must be 0 or more, not {args.still_seconds}")
    if args.max_frames < 0:
        raise UserError(f"--max-frames must be 0 (never stop) or more, not {args.max_frames}")

    cls = games.get(args.game)
    options = _options(args)
    # A camera reads the board its calibration was made on: that is the layout.
    calibration = _calibration(args) if args.observations is None else None
    layout_given = calibration.layout if calibration is not None else args.layout
    if layout_given:
        fixed = cls.layout_options(layout_given)  # e.g. an Arinama board's size from its mat
        if not set(fixed) & set(options):
            options.update(fixed)
    position = cls.new(cls.options_from(options))
    # the board the camera reads (observations name cells: any size the rules allow will do)
    layout_name = layout_given or (
        cls.mat_layout(position.options) if calibration is not None else ""
    )
    if args.setup and not cls.referee_class().typed_setup:
        raise UserError("--setup is for Arimaa's setup turns only")
    if len(args.setup) > 2:
        raise UserError("--setup takes at most two lines: Gold's setup, then Silver's")
    for side, line in zip(("gold", "silver"), args.setup, strict=False):
        cls.referee_class().checked_setup(side, line)  # before a game is recorded

    # Every input is checked first - the observations file, the calibration against the game's
    # board and pieces, the camera: a start that fails leaves the records as they were.
    camera = lines = None
    if calibration is None:
        lines = _observation_lines(args.observations)
        if args.observations != "-":
            _check_observations(lines, args.observations, cls.new(position.options))
    else:
        _check_board(position, get_layout(layout_name), args.calibration)
        _check_pieces(cls.new(position.options), calibration, args.calibration)
        camera = _open_camera(args, layout_name, calibration)

    records = Records(args.db)
    # With a camera the board was just calibrated: the pieces it learned the colours from may
    # still be on it, and taking them off is an instruction, not an illegal move.
    calibrated = get_layout(layout_name).classes if calibration is not None else None
    referee, resumed = _referee(args, position, records, Dice(seed=args.seed), calibrated)
    session = Session(referee, json_lines=args.json, emit=_print)
    session.start(resumed=resumed)
    for side, line in zip(("gold", "silver"), args.setup, strict=False):
        if len(referee.position.move_stack) < (1 if side == "gold" else 2):
            referee.set_setup(side, line)
    session.flush()

    if lines is not None:  # --observations, not a camera
        inputs = _Inputs(args.observations)
        for line in lines:
            inputs.handle(session, line)
        inputs.finish(session, started=not resumed)
        return 0
    if camera is None:
        raise RuntimeError("neither observations nor a camera")  # argparse requires one
    tracker, source = camera
    session.tracker = tracker
    inputs = _Inputs("-")  # what is typed beside the camera
    with source:
        code = _run_camera(session, source, args, inputs)
    inputs.finish(session, started=False)  # (the camera's game is the camera's to judge)
    return code


# What an observations file holds, for the messages that refuse one.
OBSERVATIONS_FILE = (
    'JSON lines such as {"cells": {"a1": "black", ...}}, as `companion vision track --json` '
    "prints them, and inputs such as done, roll, undo, choose X, hands on, hands off - one a line"
)


def _observation_lines(path: str) -> Any:
    """The input lines of --observations: standard input as it comes, or a file read whole
    (before the game is created, so an unreadable file leaves no empty game behind)."""
    if path == "-":
        return sys.stdin
    try:
        return Path(path).read_text(encoding="utf-8-sig").splitlines()
    except UnicodeDecodeError:
        raise UserError(
            f"{path} is not a text file: give observation lines as `companion vision track "
            "--json` prints them"
        ) from None
    except IsADirectoryError:
        raise UserError(
            f"--observations {path} is a folder: give a file of observation lines "
            f"({OBSERVATIONS_FILE}), or - for standard input"
        ) from None
    except OSError as exc:
        raise UserError(f"cannot read observations from {path}: {read_problem(exc)}") from None


def _check_observations(lines: list[str], path: str, position: Position[Any]) -> None:
    """An observations file must hold at least one line the referee can take (a player input,
    or an observation of the game's board) when it holds any: anything else - a game record, a
    position file, another board's observations - is refused before a game is started or
    continued. The lines are read until the first that can be taken; the others are
    judged as they come (`_Inputs`). `position` is a fresh one, for a scratch referee."""
    scratch = Referee(position)  # no records: what it is shown is not kept
    not_read: tuple[int, str] | None = None  # the first line that is no input at all
    not_fit: tuple[int, str] | None = None  # the first observation of another board
    for number, line in enumerate(lines, 1):
        try:
            item = parse_line(line)
        except UserError as exc:
            not_read = not_read or (number, str(exc))
            continue
        if not isinstance(item, Observation):
            if item is not None:
                return  # an input, which any file of inputs may hold
            continue
        try:
            scratch.hands(False)  # (a "hands on" line is not read here)
            scratch.observe(item)
            return
        except UserError as exc:
            not_fit = not_fit or (number, str(exc))
    if not_fit is not None:
        number, problem = not_fit
        raise UserError(
            f"no line of {path} fits the {position.title} board (line {number}: {problem}): "
            f"give the observations of the {position.title} board, or the game they were made "
            "for (--game, -o)"
        )
    if not_read is not None:
        number, problem = not_read
        why = f"line {number}: {problem}"
        if len(lines) > 1:
            try:
                json.loads("\n".join(lines))
                why = f"it is one JSON document over {len(lines)} lines, not one observation a line"
            except ValueError:
                pass
        raise UserError(f"{path} is not an observations file ({why}): give {OBSERVATIONS_FILE}")
    # nothing but empty lines and comments: there is nothing to referee, and no game to start
    raise UserError(f"{path} holds no observation or input line: give {OBSERVATIONS_FILE}")


class _Inputs:
    """Input lines handed to the session one by one: a mistyped line is reported (with its
    line number unless typed at a terminal) and the referee goes on; `finish` ends a run that
    had any with exit status 2 (a file's or a pipe's lines; a player at a terminal saw each
    message as it came)."""

    def __init__(self, path: str) -> None:
        self.name = "standard input" if path == "-" else path
        self.numbered = path != "-" or not _is_terminal(sys.stdin)
        self.number = 0
        self.refused: list[int] = []
        self.taken = 0  # lines with something in them that were taken

    def handle(self, session: Session, line: str) -> None:
        self.number += 1
        try:
            session.handle_line(line)
        except UserError as exc:
            where = f"{self.name} line {self.number}: " if self.numbered else ""
            print(f"companion: {where}{shorten_quotes(str(exc))}", file=sys.stderr)
            if self.numbered:
                self.refused.append(self.number)
        else:
            self.taken += bool(line.strip()) and not line.strip().startswith("#")

    def finish(self, session: Session, *, started: bool) -> None:
        """UserError (exit status 2) naming the lines not taken, if any. A game this run
        `started` that no line was taken for is abandoned: a pipe's lines, unlike a file's,
        cannot be checked before it starts, and an empty game would be continued next time."""
        referee = session.referee
        records = referee.records
        unplayed = started and not self.taken and not referee.position.move_stack
        if unplayed and records is not None:
            records.abandon(referee.game_id)
            if not self.refused:  # (standard input closed at once: a file is checked before)
                raise UserError(
                    f"{self.name} gave no observation or input line: no game was played"
                )
            raise UserError(f"{lines_not_taken(self.name, self.refused)}: no game was played")
        if not self.refused:
            return
        raise UserError(
            f"{lines_not_taken(self.name, self.refused)}; the moves of the others are recorded "
            f"in game {referee.game_id}"
        )


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or odd stream
        return False


def _referee(
    args: argparse.Namespace,
    position: Any,
    records: Records,
    dice: Dice,
    calibrated: tuple[str, ...] | None,
) -> tuple[Referee[Any], bool]:
    """The referee of the newest unfinished game of this game and options (unless --new),
    else of a new game; and whether it was continued. `calibrated`: the classes the camera
    was just calibrated on (None: no camera).

    :raises UserError: the unfinished game cannot be continued (what to do instead)."""
    cls = type(position)
    if not args.new:
        for summary in records.unfinished_games():
            if summary.game == args.game and _same_options(cls, summary.options, position):
                # Calibration pieces may stand on a board only at its start: later, pieces
                # the position lacks are a move made while the companion was down.
                at_start = calibrated if summary.moves == 0 else None
                try:
                    continued = Referee.resume(records, summary.id, dice=dice, calibrated=at_start)
                except ReplayError as exc:
                    raise UserError(
                        f"the unfinished {cls.title} game {summary.id} cannot be continued "
                        f"({exc}): start a new game with --new (it stays in the records as "
                        "it is)"
                    ) from None
                return continued, True
    clear_first = calibrated is not None and position.calibration_pieces_stay(calibrated)
    return Referee(position, records=records, dice=dice, clear_first=clear_first), False


def _calibration(args: argparse.Namespace) -> Any:
    """The camera's calibration (--source needs one), checked against --layout when given."""
    if not args.calibration:
        raise UserError(
            "--calibration CAL is needed with --source (make one with `companion vision calibrate`)"
        )
    calibration = load_calibration(args.calibration)
    given = layout_or_auto(args.layout) if args.layout else None
    if given is not None and given.name != calibration.layout:
        raise UserError(
            f"{args.calibration} was made for layout {calibration.layout}, not {args.layout}: "
            f"give --layout {calibration.layout}, or calibrate on the {args.layout} board "
            f"(`companion vision calibrate PHOTO --layout {args.layout} ...`)"
        )
    return calibration


def _check_pieces(position: Position[Any], calibration: Any, calibration_path: str) -> None:
    """The pieces the calibration learned must be the game's (an Arimaa calibration's gold and
    silver for an Arinama game would be refused at the first board read, a game already
    started): one of each, on a scratch referee of a fresh `position`, as its board reads."""
    pieces = [c for c in calibration.classes if c not in (EMPTY, UNKNOWN)]
    cells = dict.fromkeys(position.cell_names(), EMPTY)
    for cell, piece in zip(list(cells), pieces, strict=False):
        cells[cell] = piece
    try:
        Referee(position).observe(Observation(cells=cells, layout=calibration.layout))
    except UserError as exc:
        raise UserError(f"{calibration_path} does not fit {position.title}: {exc}") from None


def _check_board(position: Position[Any], layout: Layout, calibration_path: str) -> None:
    """The camera's board must be the game's: the same cells (an Arinama game of 8 x 8 never
    sees a move on the 5 x 5 mat it was calibrated on, and would wait without a word)."""
    board = set(position.cell_names())
    if set(layout.cell_names()) == board:
        return
    raise UserError(
        f"{calibration_path} was made for layout {layout.name} ({len(layout.cell_names())} "
        f"cells), which is not the {position.title} board asked for here ({len(board)} cells): "
        f"calibrate on the {position.title} board or mat, or choose the game's options to fit "
        "the layout (-o KEY=VALUE, e.g. the board size)"
    )


def _open_camera(args: argparse.Namespace, layout_name: str, calibration: Any) -> tuple[Any, Any]:
    """The tracker and the opened camera source; UserError naming what is missing."""
    layout = layout_or_auto(layout_name)
    corners, said, near = corners_for(args.corners, args.calibration, layout)
    if said:
        print(f"companion: {said}", file=sys.stderr)
    tracker = Tracker(
        layout_name, calibration, corners=corners, near=near, still_seconds=args.still_seconds
    )
    source = sources.open_source(args.source)
    # A live camera goes on while the model is fitted again to a board of the game (a second
    # on a Pi); a recording or the synthetic table waits for it, so that a run is repeatable.
    tracker.refit_in_background = sources.is_camera(source)
    return tracker, source


def _run_camera(session: Any, source: Any, args: argparse.Namespace, inputs: _Inputs) -> int:
    stdin_open = True
    frames = 0
    last_frame = time.monotonic()
    warned = False
    searching: tuple[int, bool] | None = None  # see _say_searching
    found = False  # the board was located in some frame
    while not source.ended:
        if args.max_frames and frames >= args.max_frames:
            break
        stdin_open = stdin_open and _read_ready_lines(session, inputs)
        frame = source.read()
        if frame is None:  # none yet from a camera, or the end of a file: not a frame read
            if not warned and time.monotonic() - last_frame > NO_FRAMES_WARNING:
                print("companion: no camera frames; waiting for the camera", file=sys.stderr)
                warned = True
            if not getattr(source, "ended", False):
                time.sleep(0.005)
            session.feed_frame(None)
            continue
        frames += 1
        if warned:
            print("companion: the camera is back", file=sys.stderr)
            warned = False
        last_frame = time.monotonic()
        session.feed_frame(frame)
        found = found or session.tracker.located is not None
        searching = _say_searching(session.tracker, searching)
    if not found:  # the camera ended without ever seeing the board (as `vision track` says)
        referee = session.referee
        if referee.records is not None and not referee.position.move_stack:
            referee.records.abandon(referee.game_id)  # no empty game left to be continued
        if frames:
            why = session.tracker.problem or "no frame showed it"
            raise UserError(f"the board was never found in {frames} frames: {why}")
        raise UserError(f"no frames came from {args.source}")
    return 0


def _say_searching(tracker: Tracker, since: tuple[int, bool] | None) -> tuple[int, bool] | None:
    """Say on stderr why the board is not found once the camera has looked for it for
    NOT_FOUND_WARNING seconds of its frames (the wrong mat in view, a board out of the
    picture), and that it is found again; returns (frame it began, said) while searching."""
    if tracker.status != "searching":
        if since is not None and since[1]:
            print("companion: the board is found", file=sys.stderr)
        return None
    start, said = since or (tracker.frame_index, False)
    waited = (tracker.frame_index - start) / tracker.fps
    if not said and waited >= NOT_FOUND_WARNING and tracker.problem:
        print(f"companion: the board is not found yet: {tracker.problem}", file=sys.stderr)
        said = True
    return start, said


def _read_ready_lines(session: Any, inputs: _Inputs) -> bool:
    """Handle the input lines waiting on stdin without blocking; False once stdin is closed."""
    try:
        fd = sys.stdin.fileno()
    except (OSError, ValueError):
        return False
    while True:
        ready, _, _ = select.select([fd], [], [], 0)
        if not ready:
            return True
        line = sys.stdin.readline()
        if not line:
            return False
        inputs.handle(session, line)


def _print(line: str) -> None:
    print(line, flush=True)


def _options(args: argparse.Namespace) -> dict[str, str]:

    return option_pairs(args.option)


def _same_options(cls: type[Position[Any]], stored: Any, position: Position[Any]) -> bool:
    """A stored game's options are the position's (defaults filled in: a game recorded before
    an option existed still matches)."""
    try:
        return _plain(cls.options_from(stored)) == _plain(position.options)
    except UserError:
        return False


def _plain(options: Any) -> dict[str, Any]:
    plain: dict[str, Any] = json.loads(json.dumps(options_to_dict(options)))
    return plain
