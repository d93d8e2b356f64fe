"""The `companion` command line.

Each sub-command lives in its own module in `companion/commands/` with two functions:
``register(subparsers)`` adds its parser (help text on every argument) and sets
``func=run``; ``run(args) -> int`` does the work and returns the exit code. Modules are found
by name, so adding a command never touches this file. Command modules import heavy libraries
(OpenCV, pygame) inside `run`, keeping `companion --help` fast.

A `UserError` anywhere becomes one line on stderr and exit code 2; Ctrl-C exits 130. A
traceback means a bug in the companion, never a mistake of the user.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from typing import NoReturn

from companion import __version__, commands
from companion.errors import UserError, shorten_quotes


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line, pointing at --help (sub-command
    parsers inherit it), instead of a usage block followed by the error."""

    def error(self, message: str) -> NoReturn:
        message = shorten_quotes(message)  # a huge argument is quoted as an excerpt
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="companion",
        description="Tabletop Companion: referee, dice and game records for physical board games.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"companion.commands.{info.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"companion: error: {shorten_quotes(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("companion: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `companion ... | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
