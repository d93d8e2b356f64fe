"""The referee: observations and player inputs in, instructions and events out.

Knows no screen, camera or GPIO, so the touchscreen app, `companion referee` in a terminal and
the tests all drive the same object. See `protocol.py` for the data that crosses its edge.
"""

from companion.referee.core import Referee, observation_of
from companion.referee.protocol import Event, Instruction, PlayerInput

__all__ = ["Event", "Instruction", "PlayerInput", "Referee", "observation_of"]
