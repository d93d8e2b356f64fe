"""The `companion` command line.

Each sub-command lives in its own module in `companion/commands/` with two functions:
``register(subparsers)`` adds its parser (help text on every argument) and sets
``func=run``; ``run(args) -> int`` does the work and returns the exit code. Modules are found
by name, so adding a command never touches this file. Only the module of the command that runs
is imported (`companion games` never loads OpenCV or pygame), so command modules import what
they need at their top; the overview (`companion --help`) imports them all.

A `UserError` anywhere becomes one line on stderr and exit code 2; Ctrl-C exits 130. A
traceback means a bug in the companion, never a mistake of the user.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import shlex
import signal
import sys
from typing import NoReturn

from companion import __version__, commands
from companion.commands import as_typed, silence_stdout
from companion.errors import UserError, shorten_quotes

# pygame (imported by the commands that draw) greets on stdout unless told not to
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line, pointing at --help (sub-command
    parsers inherit it), instead of a usage block followed by the error."""

    def error(self, message: str) -> NoReturn:
        message = as_typed(shorten_quotes(message))  # a huge argument is quoted as an excerpt
        typed = as_typed(f"`{self.prog} ").strip("` ")  # `companion games` as the player types it
        self.exit(2, f"{self.prog}: error: {message} (see '{typed} --help')\n")


def build_parser(command: str | None = None, *, overview: bool = True) -> argparse.ArgumentParser:
    """The command line's parser: with `command` (a command's name) only that command's module
    is imported and registered; else every command's (for the overview), or with
    ``overview=False`` none (`companion --version`)."""
    parser = OneLineParser(
        prog="companion",
        description="Tabletop Companion: referee, dice and game records for physical board games.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = command_names()
    for name in [command] if command in names else names if overview else []:
        module = importlib.import_module(f"companion.commands.{name}")
        module.register(sub)
    return parser


def command_names() -> list[str]:
    """The sub-commands, in alphabetical order: the modules of `companion.commands`."""
    found = pkgutil.iter_modules(commands.__path__)
    return sorted(info.name for info in found if not info.name.startswith("_"))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["--"]:  # the end of options before the command: nothing to end
        argv = argv[1:]
    # The command is the first word. After an option instead it may be that option's value
    # (`--db vision games`): then every command is registered, for `_say_a_misplaced_option`
    # to tell which one is meant.
    command = argv[0] if argv and not argv[0].startswith("-") else None
    parser = build_parser(command, overview=argv != ["--version"])
    _say_a_misplaced_option(parser, argv)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # said by the (sub-)command they were given to, pointing at its --help
        _commands_along(parser, argv)[-1][0].error(f"unrecognized arguments: {' '.join(unknown)}")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"companion: error: {as_typed(shorten_quotes(str(exc)))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("companion: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `companion ... | head`: stopped as by SIGPIPE, the verdict
        # unwritten (a trial: `replay` of an illegal game through `| head -1` exited 0)
        silence_stdout()
        return 128 + signal.SIGPIPE


def _commands_along(
    parser: argparse.ArgumentParser, argv: list[str]
) -> list[tuple[argparse.ArgumentParser, int]]:
    """The parsers `argv` passes through - `companion`, its command, the command's action
    (`companion vision track`) - each with the index in `argv` of the word that chose it (-1
    for `companion`)."""
    along = [(parser, -1)]
    while True:
        choices = next(
            (a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)),
            None,
        )
        start = along[-1][1] + 1
        named = [i for i in range(start, len(argv)) if choices and argv[i] in choices]
        if choices is None or not named:
            return along
        # the first word naming a command that is not the value of an option before it
        # (`companion --db vision games`: vision is the database, games the command)
        chosen = next((i for i in named if _takes_up(choices[argv[i]], argv[start:i])), named[0])
        parser = choices[argv[chosen]]
        along.append((parser, chosen))


def _takes_up(parser: argparse.ArgumentParser, words: list[str]) -> bool:
    """Whether `words`, standing before `parser`'s command, are all its options with their
    values (so none of them is a command's name)."""
    at = 0
    while at < len(words):
        name = words[at].split("=", 1)[0]
        # as argparse takes it: the option itself, or the one it is the start of (--da: --db)
        named = [o for o in parser._option_string_actions if o.startswith(name)]
        action = parser._option_string_actions.get(name)
        if action is None and len(named) == 1 and name.startswith("--"):
            action = parser._option_string_actions[named[0]]
        if action is None:
            return False
        takes = 0 if action.nargs == 0 or "=" in words[at] else 1
        at += 1 + takes
    return at == len(words)


def _say_a_misplaced_option(parser: argparse.ArgumentParser, argv: list[str]) -> None:
    """An option that stands before the command it belongs to (`companion --db f games`,
    `companion vision --layout chessboard locate x.png`) is said so, with the command line
    put right (exit 2): argparse took its value for the command and said only "invalid
    choice: 'f'"."""
    along = _commands_along(parser, argv)
    for (where, before), (_, chosen) in zip(along, along[1:], strict=False):
        between = argv[before + 1 : chosen]
        if (
            between
            and between[0].startswith("-")
            and between[0] not in ("-h", "--help", "--version", "--")  # (--: options end)
        ):
            moved = argv[: before + 1] + [argv[chosen]] + between + argv[chosen + 1 :]
            where.error(
                f"{between[0]} stands before {argv[chosen]}: an option goes after the command "
                f"it belongs to - companion {shlex.join(moved)}"
            )


if __name__ == "__main__":
    sys.exit(main())
