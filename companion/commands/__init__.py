"""Sub-commands of `companion`; one module each, found by `companion.cli` (see there)."""

from __future__ import annotations

import argparse

SEED_MAX = 2**32 - 1  # numpy's generators take 0..SEED_MAX (as sim:LAYOUT?seed=N does)


def seed_number(text: str) -> int:
    """The argparse type of every command's ``--seed``: a whole number from 0 to `SEED_MAX`,
    in the words of the ``sim:LAYOUT?seed=N`` check. (numpy refuses a negative seed, and
    `random` would play -N as N.)

        >>> seed_number("7")
        7
        >>> seed_number("-1")
        Traceback (most recent call last):
        argparse.ArgumentTypeError: '-1' must be a whole number from 0 to 4294967295
    """
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= SEED_MAX:
        raise argparse.ArgumentTypeError(f"{text!r} must be a whole number from 0 to {SEED_MAX}")
    return value
