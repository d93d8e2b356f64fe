import os

# Real pygame rendering without a screen, in every test.
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

# Tests never touch the user's records: the default database (`companion.records.
# default_db_path`, also in subprocesses) is in a folder of this test session.
import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

os.environ["STATE_DIRECTORY"] = tempfile.mkdtemp(prefix="companion-tests-state-")
atexit.register(shutil.rmtree, os.environ["STATE_DIRECTORY"], True)
