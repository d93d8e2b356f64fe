"""mypy over the core (strict; the files and settings are pyproject.toml's [tool.mypy]): a type
error at a seam between modules fails the tests, listing every error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_core_type_checks():
    try:
        import mypy  # noqa: F401
    except ImportError:
        raise AssertionError(
            "mypy is not installed: it is in the dev extra (pip install -e '.[dev]', "
            "which ./dev test does)"
        ) from None
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary", "--config-file", "pyproject.toml"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    errors = [line for line in result.stdout.splitlines() if ": error:" in line]
    assert result.returncode == 0 and not errors, "mypy found:\n" + (
        "\n".join(errors) or result.stdout + result.stderr
    )
