"""The `>>>` examples in the core's and the camera's docstrings run as tests (a reader can
trust them)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import companion
import vision

# The core: every module of the companion package but the touchscreen app (being rewritten into
# pages; its examples, if any, join when it is).
SKIPPED = {"companion.app", "companion.__main__"}
MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(companion.__path__, "companion.")
    if info.name not in SKIPPED
)


VISION = sorted(info.name for info in pkgutil.walk_packages(vision.__path__, "vision."))


@pytest.mark.parametrize("name", MODULES + VISION)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report: list[str] = []
    for test in finder.find(module, name):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)


def test_the_core_has_examples():
    """The examples are there to be read: the registry, a position from and to notation, its
    legal moves, a roll, the board's geometry."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    counted = sum(
        len(test.examples)
        for name in MODULES
        for test in finder.find(importlib.import_module(name), name)
    )
    assert counted >= 20
