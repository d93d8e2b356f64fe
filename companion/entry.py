"""The `companion` command's entry point: nothing but the standard library is imported before
Ctrl-C is caught, so an interrupt while the CLI and its libraries load (the first few tenths of
a second) ends with one line and exit code 130, like an interrupt later on."""

import sys


def main() -> int:
    try:
        from companion.cli import main as cli_main

        return cli_main()
    except KeyboardInterrupt:
        try:
            print("companion: interrupted", file=sys.stderr)
        except KeyboardInterrupt:
            pass
        return 130
