"""Driving a referee from a stream: camera frames (through a tracker), observation lines and
typed inputs in; one line per new instruction out. `companion referee` is a thin shell round
this, and tests and the benchmark use it directly.

Input lines (`handle_line`), as typed at a terminal or piped in:

- ``done``, ``roll``, ``undo``, ``cancel``, ``choose X`` (also ``enter``, ``r``, ``back``);
- ``right`` - the board is right (the app's BOARD IS RIGHT): while told to put the board back
  where the camera is wrong (a lamp's shadow read as a piece), the board is taken as the
  position and the camera learns from that frame (`Referee.handle`, BOARD_RIGHT);
- ``hands on`` / ``hands off`` - the "hands on the board" state, when no tracker gives it;
- ``clear`` - the board is clear: when the camera has seen something lie over the board for
  a while (its status "covered": a lamp's shadow across the mat's edge, a piece on the
  margin), it reads the board as it is (`vision.tracker.Tracker.read_as_it_is`);
- ``show`` - print the current instruction again;
- a JSON object - an Observation, as `companion vision track --json` prints it
  (``{"frame": 12, "cells": {"a1": "black", ...}}``).

Output: text lines ``[3] White: place a stone`` (the number is the count of accepted moves as
the game counts them: Aranea's turns, a roll and its use), or with `json_lines` one JSON object
per line: ``{"type": "instruction", "ply": 3, "instruction": {...}, "events": [...]}`` (the
record's entries: Aranea's rolls too).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from companion.dice import dice_words
from companion.errors import UserError, json_problem
from companion.i18n import _
from companion.i18n import player as player_name
from companion.observation import Observation
from companion.referee.core import Referee
from companion.referee.protocol import (
    BOARD_RIGHT,
    CANCEL,
    CHOOSE,
    DONE,
    ROLL,
    UNDO,
    Event,
    InputKind,
    Instruction,
    PlayerInput,
    view_settling,
)

WORDS: dict[str, InputKind] = {
    "done": DONE,
    "enter": DONE,
    "d": DONE,
    "roll": ROLL,
    "r": ROLL,
    "undo": UNDO,
    "back": UNDO,
    "u": UNDO,
    "cancel": CANCEL,
    "c": CANCEL,
    "right": BOARD_RIGHT,
}
# each input's own word, the first of its words above ("right" for board-right)
TYPED = {kind: word for word, kind in reversed(WORDS.items())}
INPUT_HELP = (
    "type done, roll, undo, cancel, choose X, right (the board is right: the camera is wrong), "
    "hands on/off, clear, show, or an observation as JSON"
)
# ... with a camera (`--source`), which says what is on the board and where hands are
CAMERA_INPUT_HELP = (
    "type done, roll, undo, cancel, choose X, right (the board is right: the camera is wrong), "
    "clear or show - the camera sees the board and the hands"
)
# the tracker's states (vision.tracker) in which nothing is read: something is over the board
# ("covered": it has lain there for a while - perhaps no hand; `clear` reads past it)
OVER_THE_BOARD = ("hands", "covered")
# the tracker's states said once a spell, as they begin: nothing is read until they end
# ("dark": in the tracker's own words, its `problem`)
SAID_STATES = {
    "covered": "(something has lain on the board for a while: take it away, or type clear if "
    "nothing does)",
    "dark": "",
}


def parse_input(line: str) -> PlayerInput:
    """A typed input line -> PlayerInput; UserError naming what is accepted."""
    words = line.strip().split(None, 1)
    if not words:
        raise UserError(f"an empty input: {INPUT_HELP}")
    head = words[0].lower()
    if head == CHOOSE:
        if len(words) < 2:
            raise UserError("choose needs the choice, e.g. choose d")
        return PlayerInput(CHOOSE, words[1].strip())
    if head in WORDS and len(words) == 1:
        return PlayerInput(WORDS[head])
    raise UserError(f"unknown input {line.strip()!r}: {INPUT_HELP}")


class _GivenTwice(Exception):
    """A JSON object that names one key twice (JSON keeps the last, silently)."""


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's keys, each once (`json.loads`'s object_pairs_hook)."""
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _GivenTwice(key)
        data[key] = value
    return data


def observation_from_json(data: Any) -> Observation:
    """An Observation from the JSON of `Observation.to_json` (or `vision track --json`)."""
    if not isinstance(data, dict) or not isinstance(data.get("cells"), dict):
        raise UserError('an observation line needs "cells": {"a1": "black", ...}')
    not_words = [k for k in data["cells"].values() if not isinstance(k, str)]
    if not_words:  # (null too)
        raise UserError(
            f'an observation line\'s cells hold words ("black", "empty"), not '
            f"{json.dumps(not_words[0])}"
        )
    cells: dict[str, str] = {}
    for written, k in data["cells"].items():  # "C3" is c3, as in a position file
        cell = _cell(written)
        if cell in cells:  # the same cell as "c3" and "C3": which one the camera meant?
            raise UserError(
                f"an observation line gives cell {cell} twice (as {written!r} too): keep one"
            )
        cells[cell] = k
    confidence = data.get("confidence") or {}
    if not isinstance(confidence, dict):
        raise UserError('an observation line\'s "confidence" must be {"e4": 0.97, ...}')
    hidden = data.get("hidden") or {}
    if not isinstance(hidden, dict):
        raise UserError('an observation line\'s "hidden" must be {"e8": "e7", ...}')
    unlearned = data.get("unlearned") or []
    if not isinstance(unlearned, list):
        raise UserError('an observation line\'s "unlearned" must be a list of cells: ["h1", ...]')
    leaned = data.get("leaned") or {}
    if not isinstance(leaned, dict):
        raise UserError('an observation line\'s "leaned" must be {"e8": "black", ...}')
    try:
        observation = Observation(
            cells=cells,
            confidence={_cell(c): float(v) for c, v in confidence.items()},
            frame=int(data.get("frame", 0)),
            timestamp=float(data.get("timestamp", 0.0)),
            markers_seen=int(data.get("markers_seen", 0)),
            layout=str(data.get("layout", "")),
            hidden={_cell(c): _cell(n) for c, n in hidden.items()},
            unlearned=tuple(_cell(c) for c in unlearned),
            leaned={_cell(c): str(k) for c, k in leaned.items()},
        )
    except (TypeError, ValueError, OverflowError):  # (Overflow: a frame of 1e400)
        raise UserError("an observation line has a bad frame, timestamp or confidence") from None
    beyond = [v for v in observation.confidence.values() if not 0.0 <= v <= 1.0]
    if beyond:  # (NaN too)
        raise UserError(f"an observation line's confidence runs from 0 to 1, not {beyond[0]:g}")
    return observation


def _cell(name: Any) -> str:
    """A cell's name as the games write it: "C3" is c3."""
    return str(name).strip().lower()


def parse_line(line: str) -> Observation | PlayerInput | str | None:
    """One input line read, not yet acted on (`Session.handle_line` acts on it): None for a
    blank line or a ``#`` comment, an Observation for a JSON object, a PlayerInput for a word,
    or the session's own words ``"show"``, ``"clear"``, ``"hands on"``, ``"hands off"``;
    UserError naming what is wrong. Needs no referee: a file's lines can be checked before a
    game is started or continued.

    >>> parse_line("Hands  ON"), parse_line("# a note"), parse_line("u").kind
    ('hands on', None, 'undo')
    """
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    if text.startswith("{"):
        try:
            data = json.loads(text, object_pairs_hook=_once_each)
        except _GivenTwice as twice:
            raise UserError(f"an observation line gives {str(twice)!r} twice: keep one") from None
        except ValueError as exc:  # JSONDecodeError, or a number too long to read
            raise UserError(
                f"an observation line is not valid JSON: {getattr(exc, 'msg', None) or json_problem(exc)}"
            ) from None
        except RecursionError:
            raise UserError("an observation line is JSON nested too deeply") from None
        return observation_from_json(data)
    words = text.lower().split()
    if words in (["show"], ["clear"]):
        return words[0]
    if words[0] == "hands" and len(words) == 2 and words[1] in ("on", "off"):
        return " ".join(words)
    return parse_input(text)


class Session:
    """One referee with its input streams; `emit(line)` receives each output line."""

    def __init__(
        self,
        referee: Referee[Any],
        *,
        emit: Callable[[str], None] = print,
        json_lines: bool = False,
        tracker: Any = None,
    ) -> None:
        self.referee = referee
        self.emit = emit
        self.json_lines = json_lines
        self.tracker = tracker
        self.pending: list[Event] = []
        self.shown: Instruction | None = None
        self.latencies: list[float] = []  # seconds from an observation to its instruction line
        self.said_state = ""  # the tracker's state of SAID_STATES said last (see feed_frame)

    # -- the streams --------------------------------------------------------------------------------
    def start(self, *, resumed: bool = False) -> None:
        referee = self.referee
        if self.json_lines:
            self.emit(
                json.dumps(
                    {
                        "type": "game",
                        "game": referee.position.name,
                        "game_id": referee.game_id,
                        "resumed": resumed,
                        "ply": len(referee.position.move_stack),
                    }
                )
            )
        else:
            # the moves played, as the game counts them (Aranea: its turns, not its rolls)
            where = f" at move {referee.position.moves_played}" if resumed else ""
            number = f" {referee.game_id}" if referee.game_id is not None else ""
            verb = "Continuing" if resumed else "New"
            self.emit(f"{verb} {referee.position.title} game{number}{where}")
        self.flush()

    def feed_frame(self, frame: Any, t: float | None = None) -> Observation | None:
        """One camera frame through the tracker; the observation it gave, if any."""
        observation: Observation | None = self.tracker.feed(frame, t)
        status = self.tracker.status
        self.pending += self.referee.hands(status in OVER_THE_BOARD)
        state = status if status in SAID_STATES else ""
        if state != self.said_state:
            self.said_state = state
            if state:
                self.emit(
                    json.dumps({"type": "camera", "status": status})
                    if self.json_lines
                    else SAID_STATES[state] or f"({self.tracker.problem})"
                )
        if observation is not None:
            self.observe(observation)
        return observation

    def observe(self, observation: Observation) -> None:
        started = time.perf_counter()
        self.pending += self.referee.observe(observation)
        self._teach_camera()
        if self.flush():
            self.latencies.append(time.perf_counter() - started)

    def handle(self, player_input: PlayerInput) -> None:
        settling = self.tracker is not None and view_settling(self.tracker.status)
        events = self.referee.handle(player_input, view_settling=settling)
        if self.referee.held is not None and self.tracker is not None:
            self.tracker.request()  # the still board, even if nothing changed
        self.pending += events
        self._teach_camera()  # `right`: the board the players said is right
        if not self.flush() and not events:  # an input that does not apply now: said so
            # (a button at the table shows it by nothing changing; a typed line would not)
            word = TYPED.get(player_input.kind, player_input.kind)  # as the player typed it
            said = " ".join(str(x) for x in (word, player_input.value) if x)
            why = self.referee.nothing_to_undo() if player_input.kind == UNDO else ""
            why = why[:1].lower() + why[1:]  # (after the input's word and a colon)
            line: dict[str, Any] = {"type": "input", "input": said, "applies": False}
            if why:
                line["why"] = why
            self.emit(
                json.dumps(line)
                if self.json_lines
                else f"    ({said}: {why or 'nothing to do with that now'})"
            )

    def _teach_camera(self) -> None:
        """A board the referee takes as the position teaches the tracker the empty look of
        the cells it has never seen empty (`Referee.teach`)."""
        if self.tracker is not None:
            self.referee.teach(self.tracker.learn_from_board)

    def handle_line(self, line: str) -> None:
        """One input line: a word, ``hands on|off`` or an observation as JSON."""
        try:
            item = parse_line(line)
        except UserError as exc:
            if self.tracker is not None and INPUT_HELP in str(exc):
                raise UserError(str(exc).replace(INPUT_HELP, CAMERA_INPUT_HELP)) from None
            raise
        if item is None:
            return
        if self.tracker is not None and (
            isinstance(item, Observation) or item in ("hands on", "hands off")
        ):
            # a typed board or hand would be taken over what the camera sees (`--help`: they
            # are --observations' lines)
            what = "an observation" if isinstance(item, Observation) else repr(item)
            raise UserError(f"{what} is for --observations: {CAMERA_INPUT_HELP}")
        if isinstance(item, Observation):
            self.observe(item)
        elif isinstance(item, PlayerInput):
            self.handle(item)
        elif item == "show":
            self.shown = None
            self.flush(repeat=True)
        elif item == "clear":
            if self.tracker is None:
                raise UserError(
                    "clear tells the camera the board is clear: there is no camera here "
                    "(give --source)"
                )
            self.tracker.read_as_it_is()
        else:  # "hands on" / "hands off"
            self.pending += self.referee.hands(item == "hands on")
            self.flush()

    # -- output --------------------------------------------------------------------------------------
    def flush(self, *, repeat: bool = False) -> bool:
        """Print the instruction when it changed (with the events since the last line);
        `repeat` marks a line printed again on request ("show")."""
        instruction = self.referee.instruction
        dice_rolled = any(e.kind == "roll" for e in self.pending)  # for the players to see
        if instruction == self.shown and not dice_rolled:
            return False
        self.shown = instruction
        events, self.pending = self.pending, []
        ply = len(self.referee.position.move_stack)
        if self.json_lines:
            line = {
                "type": "instruction",
                "ply": ply,
                "instruction": instruction.to_json(),
                "events": [e.to_json() for e in events],
            }
            if repeat:
                line["repeat"] = True
            self.emit(json.dumps(line))
        else:
            # the dice the companion rolled, before what the players must do with them (who
            # starts, a tie: the instruction alone does not say what was rolled)
            for event in events:
                if event.kind == "roll":
                    a, b = event.data.get("dice") or ("?", "?")
                    dice = dice_words(a, b)  # "2 and 5": "2-5" reads like a cell
                    rolled = _("{player} rolled {value}").format(
                        player=player_name(event.data.get("player")),
                        value=f"{event.data.get('value')} ({dice})",
                    )
                    self.emit(f"    {rolled}")
            # the moves accepted as the game counts them (Aranea: turns; the one being made
            # counted from its roll); the JSON's "ply" counts the record's entries
            text = f"[{self.referee.position.moves_played}] {instruction.text}"
            if instruction.detail:
                text += f" ({instruction.detail})"
            if instruction.choices:
                text += " - type: " + ", ".join(f"choose {c}" for c in instruction.choices)
                if "standard" in instruction.choices:  # Arimaa's setup: one's own, typed
                    text += ", or choose Ra1 Rb1 ... (your own setup)"
            self.emit(text)
        return True
