"""The data that crosses the referee's edge: plain, JSON-friendly, shared by every front end.

Inputs: `Observation`s (companion.observation) from the camera and `PlayerInput`s from the
buttons or the screen. Outputs: the current `Instruction` (what the players must do now, with
the cells to highlight) and a list of `Event`s (what just happened, for records and sounds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final, Literal

# The highlight roles (Instruction.highlights values) live in companion.highlights, where the
# display finds them without the referee; the referee's modules import them from here.
from companion.highlights import ASKED as ASKED
from companion.highlights import ERROR as ERROR
from companion.highlights import FLIP as FLIP
from companion.highlights import FROM as FROM
from companion.highlights import PICKED as PICKED
from companion.highlights import REMOVE as REMOVE
from companion.highlights import RESTORE as RESTORE
from companion.highlights import TARGET as TARGET
from companion.highlights import TO as TO
from companion.highlights import UNCLEAR as UNCLEAR

# PlayerInput.kind
InputKind = Literal["done", "roll", "undo", "choose", "cancel", "board-right"]
DONE: Final = "done"  # end the turn / confirm (DONE button, Enter)
ROLL: Final = "roll"  # roll the dice (ROLL button, R)
UNDO: Final = "undo"  # ask to take back the last move (BACK button, Backspace); both confirm
CHOOSE: Final = "choose"  # answer a question: value is one of Instruction.choices
CANCEL: Final = "cancel"  # withdraw a request (undo) or a question
# the players say the board is right and the camera wrong, while told to put the board back
# (BOARD IS RIGHT on the screen only: never a table button) - see `Referee.handle`
BOARD_RIGHT: Final = "board-right"

# The camera's states (a tracker's `status`, vision.tracker) in which its last board may not
# be the board as it is: something on it still changing after a hand left, the board not
# found (yet, or again: the camera bumped), the mat moved and not yet read again, the picture
# black (the lens covered, the light off). DONE or ROLL pressed then is held for the next
# still board (`Referee.handle`'s `view_settling`); both front ends ask `view_settling`.
UNSETTLED_VIEWS: Final = ("moving", "searching", "board-moved", "dark")


def view_settling(camera_status: str) -> bool:
    """Whether a camera in `camera_status` may not show the board as it is yet.

    >>> view_settling("moving"), view_settling("searching"), view_settling("still")
    (True, True, False)
    """
    return camera_status in UNSETTLED_VIEWS


# Instruction.kind: what the players are asked to do
InstructionKind = Literal[
    "move",
    "flip",
    "remove",
    "restore",
    "roll",
    "choose",
    "confirm",
    "wait",
    "illegal",
    "game-over",
    "setup",
]

# Event.kind: what happened (see `Event`)
EventKind = Literal[
    "move",
    "roll",
    "illegal",
    "undo",
    "disturbed",
    "restored",
    "hands",
    "game-over",
    "question",
    "answer",
    "step",
    "action",
    "unclear",
    "board-right",
    "held",  # DONE or ROLL kept until the camera sees the board still (`Referee.handle`)
]


@dataclass(frozen=True)
class PlayerInput:
    kind: InputKind
    value: Any = None
    player: str | None = None  # who pressed, when the front end knows


@dataclass(frozen=True)
class Instruction:
    """What the players must do now. `text` is one short sentence in plain words."""

    text: str
    kind: InstructionKind
    player: str | None = None  # whose action it is (None: either/both)
    highlights: dict[str, str] = field(default_factory=dict)  # cell -> role (above)
    expected: dict[str, str] | None = None  # cells -> class the board must show to go on
    choices: tuple[str, ...] = ()  # for kind "choose"
    detail: str = ""  # a second, smaller line (the rule that applies, the roll's value, ...)

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "kind": self.kind,
            "player": self.player,
            "highlights": dict(self.highlights),
            "expected": dict(self.expected) if self.expected is not None else None,
            "choices": list(self.choices),
            "detail": self.detail,
        }


@dataclass(frozen=True)
class Event:
    """Something that happened: "move" (accepted, data has "move" text), "roll", "illegal",
    "undo", "disturbed", "restored", "hands", "game-over", "question", "answer"; also "step"
    (one step of an Arimaa turn in progress, data "step" and "captures"), "action" (one action
    of a Sensei turn, data "action" and "text"), "unclear" (data "cells") and "board-right"
    (the players said the board is right: data "cells", those the camera read otherwise)."""

    kind: EventKind
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.data}
