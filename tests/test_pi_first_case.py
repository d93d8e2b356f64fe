"""`./dev test-pi` runs each parametrized test's first case (`--first-case-only`, tests/conftest.py)."""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _collected(*args: str) -> list[str]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "--collect-only",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            *args,
            "tests/test_vision_occlusion.py",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_first_case_only_keeps_the_first_case_of_each_parametrized_test_and_every_other_test():
    every = _collected()
    first_of_each: dict[str, str] = {}
    for test in every:
        first_of_each.setdefault(test.split("[", 1)[0], test)
    assert len(first_of_each) < len(every), "the file has parametrized tests"
    assert _collected("--first-case-only") == list(first_of_each.values())
