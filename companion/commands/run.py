"""`companion run`: the companion on the table - the README's main command (`./dev run`).

With a camera (the Pi camera, or `--source usb:0`) it runs the touchscreen app. Without one it
runs the synthetic table: simulated hands play a real game through vision, referee, dice,
records and screen - in a window when there is a display, headless otherwise, writing
screenshots to a folder it names and finishing on its own with the result.

One companion at a time records into a records file: a second one started on the same file
(--db) is refused with exit status 2 while the first runs. The demo exits 0 when its game was
played and recorded, and 1 when it was played but could NOT be recorded (a damaged records
file: the last line says why and what to do).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

import pygame

from companion import games, i18n
from companion.app import (
    App,
    CameraWorker,
    DemoResult,
    ReconnectingCamera,
    Settings,
    TableVision,
    run_demo,
    run_table,
    unfinished_demo,
)
from companion.commands import command_name, say_on_stderr, seed_number, silence_stdout
from companion.commands.games import add_db_argument
from companion.commands.play import add_option_argument, option_pairs
from companion.errors import OptionError, RecordError, RecordsInUse, UserError
from companion.records import PLAYING, Records, default_db_path
from companion.speech import Speaker
from display.device import (
    has_display,
    headless_screen,
    init_pygame,
    open_screen,
    set_screen_factory,
    window_screen,
)
from hardware.buttons import ButtonPanel, ButtonPins, open_buttons
from hardware.sdnotify import Watchdog
from vision import sources

EXAMPLES = """examples:
  companion run                          Pi camera if there is one, else the synthetic-table demo
  companion run --headless --screenshots shots/    the demo without a screen, screenshots in shots/
  companion run --game aranea --seed 4   the demo with another game (dice included)
  companion run --source usb:0           a webcam over the printed mat makes a table
  companion run --fullscreen --rotation 180        on the Pi's panel, mounted upside down
  companion run --fullscreen --wait-for-camera     the boot service: the app even with no camera
"""

# game -> the options its demo plays (the game's `demo_options`)
DEMO_GAMES = {cls.name: cls.demo_options for cls in games.classes()}
# Enough for every game to end (the longest of bench/bench_demo_sweep.py: Aranea, under 200).
DEMO_MOVES = 500


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run the companion on the table (camera, touchscreen, buttons) or its demo",
        description=__doc__.split("\n\n", 1)[1],
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--source",
        metavar="SPEC",
        help="camera: picamera, usb:N, a device path, file:VIDEO, dir:GLOB or sim:LAYOUT "
        "(default: the Pi camera when there is one, else the synthetic-table demo)",
    )
    parser.add_argument(
        "--game",
        metavar="G",
        help=f"the game ({', '.join(games.names())}); default: at the table the last one "
        "played; the demo plays arinama on a 5 x 5 board (and continues an unfinished demo "
        "of the game it plays)",
    )
    parser.add_argument(
        "--headless", action="store_true", help="no window, even if there is a display"
    )
    parser.add_argument(
        "--screenshots",
        metavar="DIR",
        help="save a PNG of the screen here whenever it changes (demo: the key moments)",
    )
    add_option_argument(
        parser,
        "a game option for --game, e.g. -o equipment=chess (Arimaa on a chess set) or "
        "-o rows=8; at the table it is kept in the settings",
    )
    add_db_argument(parser)
    parser.add_argument(
        "--seed", type=seed_number, default=1, metavar="N", help="demo: the random seed (default 1)"
    )
    parser.add_argument(
        "--moves",
        type=_positive,
        default=DEMO_MOVES,
        metavar="N",
        help=f"demo: stop after N moves of this run - a continued game's count goes on from "
        f"where it stood - as the game counts them (Aranea: turns) (default {DEMO_MOVES}); the "
        "game stays unfinished and the next demo of that game continues it",
    )
    parser.add_argument("--fullscreen", action="store_true", help="use the whole panel (the Pi)")
    parser.add_argument(
        "--wait-for-camera",
        action="store_true",
        help="the boot service's mode: never the demo; a camera that is missing or fails is "
        "shown on the screen and tried again every few seconds (default: the Pi camera)",
    )
    parser.add_argument("--size", metavar="WxH", help="window size (default 800x480)")
    parser.add_argument(
        "--rotation",
        type=int,
        choices=(0, 90, 180, 270),
        help="turn the picture (degrees clockwise)",
    )
    parser.add_argument(
        "--settings", metavar="FILE", help="settings file (default: next to the records)"
    )
    parser.add_argument(
        "--language",
        type=str.lower,
        choices=("en", "de"),
        help="the table's language, shown and spoken (default: the one chosen on the Settings "
        "screen, at the first start the system's)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

    size = _size(args.size) if args.size else None
    settings_path = Path(args.settings) if args.settings else _default_settings_path(args.db)
    if args.game:
        games.get(args.game)  # a clear error for an unknown game
    options = _game_options(args)
    if args.wait_for_camera:  # the boot service: the app, whatever the camera's state
        source = args.source or "picamera"
    else:
        source = args.source or _default_source()
        if source is None or source.startswith("sim:") and not args.source:
            if args.settings:  # a settings file given for the demo is read, and must be right
                settings = Settings.load(settings_path)
                size = size or settings.size
                if args.rotation is None:
                    args.rotation = settings.rotation
            return _run_demo(args, size, options)
    saved_to: Path | None = settings_path
    try:
        settings = Settings.load(settings_path)
    except UserError as exc:
        # At the table a damaged settings file must not keep the companion from starting:
        # defaults for now, and the file is left exactly as it is for someone to look at.
        print(f"companion: warning: {exc}; using the default settings", file=sys.stderr)
        settings, saved_to = Settings(), None
    if args.game:
        settings.game = args.game
    if options:
        settings.options[settings.game] = {**settings.options.get(settings.game, {}), **options}
    if size:
        settings.size = size
    if args.rotation is not None:
        settings.rotation = args.rotation
    if args.language:
        settings.language = args.language
    return _run_table(args, source, settings, saved_to)


def _demo_options(game: str, chosen: dict[str, str] | None) -> dict[str, Any] | None:
    """The options the demo plays `game` with: its own (Arinama on 5x5) under the player's -o,
    or the player's alone where the two together have no printed mat (rows=8 with the demo's
    cols=5 was a board neither had asked for).

    >>> _demo_options("arinama", {"rows": "8"}), _demo_options("arinama", {"first": "white"})
    ({'rows': '8'}, {'rows': 5, 'cols': 5, 'first': 'white'})
    """
    together = {**DEMO_GAMES.get(game, {}), **(chosen or {})}
    if chosen:
        cls = games.get(game)
        try:
            cls.mat_layout(cls.options_from(together))
        except UserError:  # no printed mat for the two together (or options it refuses)
            return dict(chosen)
    return together or None


def _last_written(records: Records) -> str | None:
    """When the records were last written to (None: they cannot be read)."""
    try:
        return max((g.updated_at for g in records.games()), default="")
    except RecordError:
        return None


def _output_closed(
    args: argparse.Namespace,
    records: Records,
    game: str,
    options: dict[str, str] | None,
    played_with: dict[str, Any] | None,
    before: str | None,
) -> int:
    """The demo's status once its output was closed (`| head`) while it played: 0 when the
    game it played ended and is recorded (written since `before`); else it stopped, is said
    so where that can still be read, and 141 (as SIGPIPE) - the next demo continues its game
    when one is waiting (`unfinished_demo`)."""
    silence_stdout()
    waiting = _waiting_demo(records, game, played_with)
    if waiting is None and before is not None:
        written = [g for g in records.games() if g.updated_at > before]
        if written and all(g.status != PLAYING for g in written):
            return 0
    then = f" - {_continued_by(args, game, options, waiting)}" if waiting else ""
    say_on_stderr(f"companion: the demo stopped: its output was closed{then}")
    return 128 + signal.SIGPIPE


def _waiting_demo(records: Records, game: str, options: dict[str, Any] | None) -> int | None:
    """The unfinished demo game the next demo of `game` continues (`unfinished_demo`).

    :raises RecordError: the records cannot be read to tell."""
    cls = games.get(game)
    return unfinished_demo(records, game, cls.mat_layout(cls.options_from(options)))


def _next_demo(args: argparse.Namespace, game: str, options: dict[str, str] | None) -> str:
    """The command whose demo continues an unfinished demo game of `game` (the game must be
    named: without --game a demo plays the default game)."""
    chosen = "".join(f" -o {shlex.quote(f'{k}={v}')}" for k, v in (options or {}).items())
    db_option = f" --db {shlex.quote(str(args.db))}" if args.db else ""
    return f"{command_name()} run --game {game}{chosen}{db_option}"


def _continued_by(
    args: argparse.Namespace, game: str, options: dict[str, str] | None, waiting: int
) -> str:
    """ "the next `companion run --game G ...` demo continues its unfinished game #N"."""
    return (
        f"the next `{_next_demo(args, game, options)}` demo continues its unfinished game "
        f"#{waiting}"
    )


def _interrupted(
    args: argparse.Namespace,
    records: Records,
    game: str,
    options: dict[str, str] | None,
    played_with: dict[str, Any] | None,
) -> int:
    """Ctrl-C while the demo played: every move it accepted is recorded (before it was shown),
    so say which command continues the game - a trial read only "interrupted", and then
    that "the next demo" would, which without --game played another game; 130."""
    try:
        waiting = _waiting_demo(records, game, played_with)
    except RecordError:
        waiting = None
    then = f": {_continued_by(args, game, options, waiting)}" if waiting else ""
    say_on_stderr(f"companion: interrupted{then}")
    return 128 + signal.SIGINT


def _default_source() -> str | None:
    """The Pi camera when this machine has one; None sends `run` to the demo."""
    try:
        import picamera2  # noqa: F401  # the optional Pi camera: only probed
    except ImportError:
        return None
    if not any(Path("/dev").glob("media*")) and not os.environ.get("COMPANION_FORCE_PICAMERA"):
        return None
    return "picamera"


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1 or not text.strip().isascii():
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a number of moves: give 1 or more")
    return value


def _screenshot_folder(text: str) -> Path:
    """The --screenshots folder, made if need be inside a folder that exists (as every other
    output: a mistyped path makes no tree of folders); a file or an impossible place is one
    line."""
    folder = _screenshot_place(text)
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise UserError(
            f"--screenshots {text}: cannot make that folder ({exc.strerror or exc}); "
            "give a folder you can write to"
        ) from None
    return folder


def _screenshot_place(text: str) -> Path:
    """The --screenshots folder, checked before anything starts but not made: a file there, or
    no folder to make it in, is one line."""
    folder = Path(text)
    try:
        is_file = folder.exists() and not folder.is_dir()
    except OSError as exc:  # e.g. "File name too long" from the checks themselves
        raise UserError(
            f"--screenshots {text}: {exc.strerror or exc}; give another folder for the screenshots"
        ) from None
    if is_file:
        raise UserError(f"--screenshots {text}: that is a file; give a folder for the screenshots")
    parent = folder.absolute().parent
    if not parent.is_dir():
        raise UserError(
            f"--screenshots {text}: there is no folder {parent} - make it first, or give "
            "another path"
        )
    return folder


def _default_settings_path(db: str | None) -> Path:
    return (Path(db).parent if db else default_db_path().parent) / "settings.json"


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UserError(f"--size {text!r} must be WIDTHxHEIGHT, e.g. 800x480 or 720x1280") from None
    if not (200 <= w <= 8000 and 200 <= h <= 8000):
        raise UserError(
            f"--size {text!r} is not a screen size: give WIDTHxHEIGHT, each 200 to 8000 "
            "pixels, e.g. 800x480"
        )
    return w, h


def _game_options(args: argparse.Namespace) -> dict[str, str]:
    """The -o KEY=VALUE options, checked against the game's options (one line if wrong)."""
    options = option_pairs(args.option)
    if options:
        if not args.game:
            raise OptionError("-o needs --game: the options are that game's")
        games.get(args.game).options_from(options)  # unknown keys and bad values: one line
    return options


def _run_demo(
    args: argparse.Namespace, size: tuple[int, int] | None, options: dict[str, str] | None = None
) -> int:
    game = (args.game or games.names()[0]).lower()  # the demo: Arinama by default
    headless = args.headless or not has_display()
    if args.screenshots:
        _screenshot_place(args.screenshots)  # a mistyped place: said before anything starts
    # The demo's games go to the records like any other (marked as demos in `companion games`),
    # so they can be reviewed and exported afterwards, and a killed demo is continued. Opened
    # first: a file another companion is recording into is refused before anything starts -
    # the screenshots' folder too. (None: the default file, its folder made if need be.)
    with Records(args.db) as records:
        folder = _screenshot_folder(args.screenshots) if args.screenshots else None
        return _demo_on(args, records, game, headless, folder, size, options)


def _demo_on(
    args: argparse.Namespace,
    records: Records,
    game: str,
    headless: bool,
    folder: Path | None,
    size: tuple[int, int] | None,
    options: dict[str, str] | None,
) -> int:
    """The demo recording into `records`, then its result: 0, or 1 when it was not recorded."""
    if folder is None and headless:
        folder = Path(tempfile.mkdtemp(prefix="companion-demo-"))
    screen = None
    if not headless:
        init_pygame()
        screen = window_screen(size or (800, 480), args.rotation or 0, args.fullscreen)
    elif args.rotation:  # its screenshots turned as the panel is (a trial: --rotation was lost)
        init_pygame(headless=True)
        screen = headless_screen(size or (800, 480), args.rotation)
    print(
        f"companion: no camera here - the synthetic table plays a game of {game} (seed {args.seed})"
    )
    speaker = None
    if not headless:  # a window on a desktop: the demo's instructions are spoken too
        speaker = Speaker(i18n.language)
    before = _last_written(records)
    played_with = _demo_options(game, options)
    try:
        result = run_demo(
            game,
            options=played_with,
            seed=args.seed,
            max_moves=args.moves,
            records=records,
            screenshots=folder,
            size=size or (800, 480),
            log=print,
            screen=screen,
            realtime=not headless,
            language=args.language,
            speaker=speaker,
        )
    except KeyboardInterrupt:  # Ctrl-C (SIGINT reaches Python before SDL)
        return _interrupted(args, records, game, options, played_with)
    except BrokenPipeError:  # `companion run | head`: stopped as by SIGPIPE
        try:
            return _output_closed(args, records, game, options, played_with, before)
        except RecordError as exc:  # the records cannot be read to tell
            say_on_stderr(f"companion: the demo stopped: its output was closed ({exc})")
            return 128 + signal.SIGPIPE
    finally:
        if speaker is not None:
            speaker.close()
    try:
        return _say_result(args, records, game, options, folder, result)
    except BrokenPipeError:  # closed while the result was said: the game is as it ended
        silence_stdout()
        if not result.recorded:
            say_on_stderr("companion: error: this game was NOT recorded")
        return 0 if result.recorded else 1


def _say_result(
    args: argparse.Namespace,
    records: Records,
    game: str,
    options: dict[str, str] | None,
    folder: Path | None,
    result: DemoResult,
) -> int:
    """The demo's `result` in words; 0, or 1 when its game was not recorded."""
    db = records.path
    moves = f"{result.moves} move{'' if result.moves == 1 else 's'}"
    print(
        f"companion: {result.outcome} after {moves} ({result.frames} camera frames, {result.seconds:.1f} s)"
    )
    db_option = f" --db {shlex.quote(str(db))}" if args.db else ""
    if result.recorded:
        cmd = command_name()
        print(
            f"companion: game #{result.game_id} recorded in {db} "
            f"(`{cmd} games{db_option}`; `{cmd} export {result.game_id} --format html "
            f"-o game.html{db_option}`)"
        )
        if result.outcome == "unfinished":
            print(f"companion: the next `{_next_demo(args, game, options)}` demo continues it")
    if folder is not None:
        print(f"companion: {len(result.screenshots)} screenshots in {folder}")
    sys.stdout.flush()
    if result.recorded:
        return 0
    # Played but not recorded: said last, on stderr, and exit 1 - a script must not take the
    # game for saved. (The app plays on unrecorded only when the file is damaged.)
    why = records.damage(wait=True) or f"{db} could not be written"
    kept = (
        f" (game #{result.game_id} stays in the records as it was before)"
        if result.game_id is not None
        else ""
    )
    print(f"companion: error: this game was NOT recorded{kept}: {why}", file=sys.stderr)
    return 1


def open_table_buttons(app: App, pins: ButtonPins, *, at_table: bool) -> ButtonPanel | None:
    """The table's buttons, handing their presses to `app`. Without them (no GPIO access:
    a desktop, or a Pi whose GPIO the service may not open) the journal says why, and at a
    table - a real camera - the home screen too: a trial found dead buttons with no reason
    given anywhere the players look."""
    panel, why = open_buttons(lambda action: app.post_button(action), pins)
    if panel is not None:
        app.signal = panel.signal_illegal
        if panel.problem:
            print(f"companion: {panel.problem}", file=sys.stderr)
        return panel
    print(f"companion: no GPIO buttons ({why}); keyboard: Enter, R, Backspace", file=sys.stderr)
    if at_table:
        app.tell(
            lambda: i18n._("The table's buttons do not work ({problem}): use the screen").format(
                problem=why
            )
        )
    return None


def _open_records(args: argparse.Namespace) -> tuple[Records | None, Path | None]:
    """The game records for the table, or - for the boot service (`--wait-for-camera`), whose
    players see no terminal - none and the file that could not be opened: the table then
    plays on unrecorded and says so (`App.records_damaged`), where exiting would leave a blank
    screen after systemd's restarts (a trial). The file is left as it is; the journal gets
    why. At a terminal the one line says what to do, and the companion stops; so does the
    boot service when another companion records into the file (systemd starts it again in
    3 s: the file is sound, and free once that one stops).

    :raises RecordError: the records cannot be opened, at a terminal, or are in use."""
    try:
        return Records(args.db), None
    except RecordError as exc:
        if not args.wait_for_camera or isinstance(exc, RecordsInUse):
            raise
        print(f"companion: warning: {exc}; the games are not recorded", file=sys.stderr)
        return None, Path(args.db) if args.db else default_db_path()


def _run_table(
    args: argparse.Namespace, source_spec: str, settings: Settings, settings_path: Path | None
) -> int:
    headless = args.headless or not has_display()
    if headless:
        set_screen_factory(headless_screen)
    folder = _screenshot_folder(args.screenshots) if args.screenshots else None
    watchdog = Watchdog()
    watchdog.status("opening the camera")
    source: ReconnectingCamera | sources.FrameSource
    if args.wait_for_camera:
        source = ReconnectingCamera(source_spec, sources.open_source)
    else:
        source = sources.open_source(source_spec)  # at a terminal a missing camera is one line
    try:
        init_pygame(headless=headless)
        screen = open_screen(settings.size, settings.rotation, args.fullscreen)

        i18n.set_language(settings.language or i18n.system_language())
        speaker = Speaker(i18n.language, enabled=settings.speech, volume=settings.volume)
        if speaker.problem:
            print(f"companion: no spoken instructions: {speaker.problem}", file=sys.stderr)
        records, unusable = _open_records(args)
        with records if records is not None else contextlib.nullcontext():
            app = App(
                screen,
                settings,
                records=records,
                unusable_records=unusable,
                # DONE learns in the background: seconds on a Pi, the screen goes on
                vision_factory=lambda layout: TableVision(layout, background=True),
                settings_path=settings_path,
                status=lambda: i18n._("camera: {state}").format(state=source_spec),
                speaker=speaker,
            )
            try:
                pins = ButtonPins.parse(settings.pins)
            except UserError as exc:
                # A hand-edited pin setting must not keep the table from starting (the boot
                # service would give up): the standard pins, and the players are told.
                print(f"companion: warning: {exc}; using the standard pins", file=sys.stderr)
                problem = str(exc)
                app.tell(
                    lambda: i18n._(
                        "The button pins in the settings are not usable ({problem}): the "
                        "standard pins are used"
                    ).format(problem=problem)
                )
                pins = ButtonPins()
            paced = not source_spec.startswith(("picamera", "usb:", "/dev/"))
            panel = open_table_buttons(app, pins, at_table=not paced)
            worker = CameraWorker(source, app, paced=paced).start()
            try:
                print(
                    f"companion: running on {source_spec}; {'headless' if headless else 'window'}"
                )
                return run_table(app, screen, worker=worker, watchdog=watchdog, screenshots=folder)
            finally:
                worker.stop()
                speaker.close()
                if panel is not None:
                    panel.close()
    finally:
        source.close()
        pygame.quit()
