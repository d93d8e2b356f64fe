"""Reading and writing the small JSON files of the camera part (calibrations, positions):
every way a file can be wrong becomes one line saying what to do."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from companion.errors import UserError


def write_json(path: str | Path, data: Any, *, overwrite: bool = False) -> None:
    """Write `data` as indented JSON; an existing file is kept unless `overwrite`."""
    text = json.dumps(data, indent=1) + "\n"
    path = Path(path)
    try:
        with open(path, "w" if overwrite else "x") as handle:
            handle.write(text)
    except FileExistsError:
        raise UserError(f"{path} already exists: choose another name or pass --force") from None
    except FileNotFoundError:
        raise UserError(
            f"cannot write {path}: there is no folder {path.parent} - make it first, or give "
            "another path"
        ) from None
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None


def read_json(path: str | Path, what: str, if_missing: str) -> Any:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UserError(f"{what} file {path} not found: {if_missing}") from None
    except IsADirectoryError:
        raise UserError(f"{what} file {path} is a folder: give the JSON file") from None
    except OSError as exc:
        raise UserError(f"cannot read {what} file {path}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UserError(
            f"{what} file {path} is not a text file: give the JSON file that "
            "`companion vision calibrate` wrote"
        ) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(
            f"{what} file {path} is not valid JSON (line {exc.lineno} column {exc.colno})"
        ) from None
