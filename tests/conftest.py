import os

# Real pygame rendering without a screen, in every test.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
# The table's language at a first start follows the system locale: English in the tests
# unless a test says otherwise (the tests in German set it themselves).
os.environ["LANGUAGE"] = "en"

# Tests never touch the user's records: the default database (`companion.records.
# default_db_path`, also in subprocesses) is in a folder of this test session.
import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

os.environ["STATE_DIRECTORY"] = tempfile.mkdtemp(prefix="companion-tests-state-")
atexit.register(shutil.rmtree, os.environ["STATE_DIRECTORY"], True)
# Nor do they leave the headless demo's screenshot folders (`companion-demo-*`, kept for a
# player to look at) in the system's temporary folder: a trial counted 600 there. The
# commands they run in subprocesses make them in a folder of this session.
os.environ["TMPDIR"] = tempfile.mkdtemp(prefix="companion-tests-tmp-")
atexit.register(shutil.rmtree, os.environ["TMPDIR"], True)
# The commands the companion suggests are read by the tests as `companion ...`, whatever
# the shell that runs them says (`./dev run` sets COMPANION_COMMAND for the player).
os.environ.pop("COMPANION_COMMAND", None)


def pytest_sessionstart(session):
    """pytest-xdist writes "bringing up nodes..." as a line of its own (twice) when the output
    is not a terminal: noise in `./dev test` logs. Its progress line on a terminal stays."""
    reporter = session.config.pluginmanager.get_plugin("terminaldistreporter")
    if reporter is not None and not getattr(reporter, "_isatty", True):
        reporter.ensure_show_status = lambda: None


import pytest  # noqa: E402


def pytest_addoption(parser):
    parser.addoption(
        "--first-case-only",
        action="store_true",
        help="run each parametrized test with its first case only (`./dev test-pi`: the code "
        "of every test runs with the Raspberry Pi's numpy and OpenCV, its other cases in .venv)",
    )


def pytest_collection_modifyitems(config, items):
    """`--first-case-only`: of the cases of a parametrized test keep the first collected."""
    if not config.getoption("--first-case-only"):
        return
    seen, kept, dropped = set(), [], []
    for item in items:
        test = item.nodeid.split("[", 1)[0]
        (dropped if test in seen else kept).append(item)
        seen.add(test)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture(autouse=True)
def _english_again():
    """A test that switches the table to German leaves English behind for the next one."""
    yield
    from companion import i18n

    i18n.set_language("en")
    i18n.set_colour_names({})
