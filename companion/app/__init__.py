"""The companion on the table: camera, referee, records, dice, buttons and screen wired together.

- `controller.App`: navigation between the screens, the referee and the records;
- `pages/`: the screens, one object each (state, model for drawing, actions, buttons);
- `settings.Settings`: what the players set, saved as JSON;
- `table_vision.TableVision`: frames -> observations for one mat or board;
- `camera`: the camera thread (`CameraWorker`) and a source that reconnects;
- `event_loop.run_table`: the real table's event loop;
- `demo.run_demo` and `players`: the synthetic table and its simulated players.

The wiring is the layer above vision, display and hardware; nothing in the core
(`companion.games`, the referee, the records) imports it.
"""

import os

# pygame greets on import; the table's journal and the command line do not want it.
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from companion.app.camera import CameraClient, CameraWorker, ReconnectingCamera  # noqa: E402
from companion.app.controller import App  # noqa: E402
from companion.app.demo import DemoResult, run_demo, unfinished_demo  # noqa: E402
from companion.app.event_loop import run_table  # noqa: E402
from companion.app.pages import PAGES  # noqa: E402
from companion.app.pages.arimaa_setup import SetupArranger  # noqa: E402
from companion.app.pages.dice import DiceState  # noqa: E402
from companion.app.players import SimulatedPlayers, simulate_game  # noqa: E402
from companion.app.settings import Settings  # noqa: E402
from companion.app.table_vision import TableVision  # noqa: E402

__all__ = [
    "PAGES",
    "App",
    "CameraClient",
    "CameraWorker",
    "DemoResult",
    "DiceState",
    "ReconnectingCamera",
    "SetupArranger",
    "Settings",
    "SimulatedPlayers",
    "TableVision",
    "run_demo",
    "run_table",
    "simulate_game",
    "unfinished_demo",
]
