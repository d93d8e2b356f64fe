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


@pytest.fixture(autouse=True)
def _english_again():
    """A test that switches the table to German leaves English behind for the next one."""
    yield
    from companion import i18n

    i18n.set_language("en")
    i18n.set_colour_names({})
