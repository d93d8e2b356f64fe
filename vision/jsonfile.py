"""Reading and writing the small JSON files of the camera part (calibrations, positions):
every way a file can be wrong becomes one line saying what to do."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from companion.errors import UserError, json_problem, read_problem, write_problem
from companion.files import write_atomically

T = TypeVar("T")


def write_json(path: str | Path, data: Any, *, overwrite: bool = False) -> None:
    """Write `data` as indented JSON, whole or not at all (`companion.files.write_atomically`:
    a power cut mid-write leaves the old file); an existing file is kept unless `overwrite`."""
    path = Path(path)
    try:
        exists = path.exists()
    except OSError as exc:  # (a name too long ...)
        raise UserError(f"cannot write {path}: {write_problem(path, exc)}") from None
    if exists and not overwrite:
        raise UserError(f"{path} already exists: choose another name or pass --force")
    write_atomically(path, json.dumps(data, indent=1) + "\n")


def read_json(
    path: str | Path,
    what: str,
    if_missing: str,
    *,
    give: str = "the JSON file that `companion vision calibrate` wrote",
    if_damaged: str = "mend it, or write it again",
) -> Any:
    """The JSON in `path`, the `what` file; `if_missing` says what to do when it does not
    exist, `give` what to give instead of a file that is not text (a photo, say),
    `if_damaged` what to do when it is not valid JSON."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UserError(f"{what} file {path} not found: {if_missing}") from None
    except IsADirectoryError:
        raise UserError(f"{what} file {path} is a folder: give the JSON file") from None
    except OSError as exc:
        raise UserError(f"cannot read {what} file {path}: {read_problem(exc)}") from None
    except UnicodeDecodeError:
        raise UserError(f"{what} file {path} is not a text file: give {give}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{what} file {path} is not valid JSON (line {exc.lineno} column {exc.colno}): "
            f"{if_damaged}"
        ) from None
    except ValueError as exc:  # a number too long for Python to read
        raise UserError(f"{what} file {path}: {json_problem(exc)}: {if_damaged}") from None
    except RecursionError:
        raise UserError(f"{what} file {path} is JSON nested too deeply: {if_damaged}") from None


def json_field(data: dict[str, Any], key: str, convert: Callable[[Any], T], *default: Any) -> T:
    """`convert(data[key])` (or the `default`, when one is given and the key is absent).

    :raises ValueError: named after the key, when it is missing or `convert` fails on it, so
        that a damaged file's message names the field ("bad or missing means"), not Python's
        words for what went wrong inside it."""
    if key not in data and default:
        return cast(T, default[0])
    try:
        return convert(data[key])
    except (KeyError, IndexError, TypeError, ValueError, OverflowError):
        raise ValueError(key) from None
