"""Arimaa game records as text: arimaa.com move lists, over the position (`companion.games.arimaa`
reads and writes single turns, positions, AEI strings, diagrams and JSON; this module reads and
writes whole games, as chess.pgn sits over chess).

Move lists (one turn a line)
    ``1g Ra1 Rb1 ...`` / ``1s ra7 ...`` / ``2g Ed2n Ed3n ...``; older records label turns
    ``1w 1b 2w ...``. Read as found in the arimaa.com archive: a ``<label> takeback`` line undoes
    the turn before it; ``<label> resign`` ends the list (that side resigned); a label with no
    steps (the turn being played when the record was saved) is skipped; a line of steps without a
    label continues the turn above it (a stray line break); a line with no move tokens at all (bot
    log lines, result lines) is skipped and listed in `Replay.notes`.
"""

from __future__ import annotations

import json
from typing import Any

from companion.errors import IllegalMoveError, RecordError, UserError
from companion.games.arimaa import (
    LABEL_RE,
    MOVE_TOKEN_RE,
    SIDE_NAMES,
    ArimaaPosition,
    parse_turn,
    side_index,
)
from companion.games.base import Replay


class NoArimaaTurns(RecordError):
    """A text read as an arimaa.com move list that holds no turn at all (an HTML page, a
    note): `companion replay` says what files it reads instead."""


# -- move lists -----------------------------------------------------------------------------------
def _split_move_list(
    text: str,
) -> tuple[list[tuple[str | None, str, int]], tuple[str, str] | None, list[str]]:
    """Lines of a move list -> ([(label, turn text, line number)], resignation (label, side) or
    None, notes on every line that is not a turn as written: skipped, joined or taken back)."""
    turns: list[tuple[str | None, str, int]] = []
    notes: list[str] = []
    resigned = None
    lines = [line.strip() for line in text.replace("\\n", "\n").splitlines()]
    labelled = any(line.split() and LABEL_RE.match(line.split()[0]) for line in lines)
    for number, line in enumerate(lines, start=1):
        tokens = line.split()
        if not tokens:
            continue
        label = tokens[0] if LABEL_RE.match(tokens[0]) else None
        body = tokens[1:] if label else tokens
        lowered = [t.lower() for t in body]
        if label and not body:
            notes.append(f"line {number} ({label} with no steps: the turn being played) skipped")
            continue
        if label and lowered == ["takeback"]:
            if not turns:
                raise RecordError(f"line {number} ({line!r}): a takeback with no turn before it")
            undone = turns.pop()
            notes.append(f"line {number} ({line}) took back turn {undone[0] or '?'}")
            continue
        if "resign" in lowered:
            resigned = (label or "?", label[-1] if label else "")
            notes.append(f"line {number} ({line}): the list ends with a resignation")
            break
        if label is None and not any(MOVE_TOKEN_RE.match(t) for t in body):
            notes.append(f"line {number} ignored (no move in it): {line}")
            continue
        # A labelled line is that turn, whatever its tokens: a bad token ("30w Re3n R", a file
        # cut off mid-turn; "2b garbage!!") is the replay's error there, after the turns before
        # it were checked.
        if label is None and labelled and turns:
            prev_label, prev_text, prev_line = turns[-1]
            turns[-1] = (prev_label, f"{prev_text} {' '.join(body)}", prev_line)
            notes.append(f"line {number} joined to turn {prev_label}: {line}")
            continue
        turns.append((label, " ".join(body), number))
    return turns, resigned, notes


def _has_turn_label(text: str) -> bool:
    """True when some line starts with a turn label (a list saved before the first turn)."""
    return any(line.split() and LABEL_RE.match(line.split()[0]) for line in text.splitlines())


def game_from_move_list(text_or_moves: Any) -> ArimaaPosition:
    """Replay a whole game (see `replay_move_list`) and return its final position.

    :raises RecordError: naming the label, text and reason of an unreadable or illegal turn, or
        what is wrong with the record itself.
    """
    replay = replay_move_list(text_or_moves)
    if replay.error is not None:
        raise replay.error
    return replay.position


def replay_move_list(text_or_moves: Any) -> Replay[ArimaaPosition]:
    r"""Replay a whole game, every turn checked, stopping at the first unreadable or illegal turn
    (`Replay.error`, named by its label, text and reason; the position is the one before it).

    Accepts a plain arimaa.com move list (text), a list of turn texts (labels optional), or a
    dict like a games.jsonl record (``moves`` with optional ``turn_labels`` and ``result``).
    `Replay.recorded_result` holds (winner, code) when the record states one (e.g.
    ("gold", "r") for a resignation), `Replay.notes` the lines skipped.

        >>> setup = "Ra1 Rb1 Rc1 Rd1 Re1 Rf1 Rg1 Rh1 Da2 Hb2 Cc2 Md2 Ee2 Cf2 Hg2 Dh2"
        >>> replay = replay_move_list(f"1g {setup}\n1s resign")
        >>> replay.position.turn_label, replay.recorded_result, replay.error
        ('1s', ('gold', 'r'), None)

    :raises RecordError: when the record itself is malformed (no turns, bad labels).
    """
    turns, notes, recorded = _read_turns(text_or_moves)

    position = ArimaaPosition.new()
    for index, (label, text, line) in enumerate(turns):
        label = label or position.turn_label
        try:
            if not isinstance(text, str):
                raise RecordError(f"not text: {text!r}")
            _check_label(label, position)
            outcome = position.outcome()
            if outcome is not None:
                raise IllegalMoveError(f"the game is already over: {outcome}")
            parse_turn(position, text, play=True)
        except UserError as exc:
            where = f"turn {label} on line {line}" if line else f"turn {label}"
            error = RecordError(f"{where} ({text!r}): {exc}")
            return Replay(position, error, index, notes, recorded)
    return Replay(position, notes=notes, recorded_result=recorded)


# (label or None, turn text, line number or None)
_TurnLine = tuple[str | None, Any, int | None]


def _read_turns(
    text_or_moves: Any,
) -> tuple[list[_TurnLine], list[str], tuple[str, str | None] | None]:
    """The turns of a record in any of its forms, the notes on lines that are no turn, and the
    result the record states (winner, code) or None; RecordError when it holds no game."""
    notes: list[str] = []
    recorded = None
    if isinstance(text_or_moves, dict):
        moves = text_or_moves.get("moves")
        if not isinstance(moves, list):
            raise RecordError('an Arimaa record needs "moves": a list of turn texts')
        labels = text_or_moves.get("turn_labels")
        if labels is None:
            labels = [None] * len(moves)
        elif not isinstance(labels, list) or len(labels) != len(moves):
            raise RecordError('"turn_labels" must be a list as long as "moves"')
        else:
            for number, label in enumerate(labels, start=1):
                if not isinstance(label, str):
                    raise RecordError(
                        f'"turn_labels" item {number} is {json.dumps(label, default=repr)}, not text: '
                        'write each label as text like "2g", or leave "turn_labels" out'
                    )
        turns: list[_TurnLine] = [
            (label, move, None) for label, move in zip(labels, moves, strict=True)
        ]
        result = text_or_moves.get("result") or {}
        if isinstance(result, dict) and result.get("winner") in ("g", "s", "w", "b"):
            recorded = (SIDE_NAMES[side_index(result["winner"])], result.get("termination"))
    elif isinstance(text_or_moves, str):
        split, resigned, notes = _split_move_list(text_or_moves)
        turns = list(split)
        if not turns and resigned is None and not _has_turn_label(text_or_moves):
            raise NoArimaaTurns(
                "no Arimaa turns found: an arimaa.com move list has a turn a line, like "
                "'1g Ra1 Rb1 ...' then '2g Ed2n Ed3n'"
            )
        if resigned is not None:
            label, side = resigned
            if side:
                recorded = (SIDE_NAMES[side_index(side) ^ 1], "r")
    elif isinstance(text_or_moves, (list, tuple)):
        turns = []
        for item in text_or_moves:
            if not isinstance(item, str):
                raise RecordError(f"a turn is text like 'Ed2n Ed3n', not {item!r}")
            tokens = item.split()
            if tokens and LABEL_RE.match(tokens[0]):
                turns.append((tokens[0], " ".join(tokens[1:]), None))
            else:
                turns.append((None, item, None))
    else:
        raise RecordError("an Arimaa game is a move list (text), a list of turns or a record")
    if not turns and not isinstance(text_or_moves, str):
        raise RecordError(
            "an Arimaa game with no turns: give its turns, starting with Gold's setup "
            "like '1g Ra1 Rb1 ...'"
        )
    return turns, notes, recorded


def _check_label(label: str, position: ArimaaPosition) -> None:
    match = LABEL_RE.match(label)
    if not match:
        raise RecordError(f"{label!r} is not a turn label like 2g or 2w")
    side = side_index(match.group(2))
    if side != position._side:
        raise IllegalMoveError(
            f"it is {position.turn.capitalize()}'s turn, the label says {SIDE_NAMES[side]}"
        )
    if int(match.group(1)) != position.turn_number:
        raise RecordError(
            f"the label says turn {int(match.group(1))} but this is turn {position.turn_label}: "
            "number the turns 1g 1s 2g 2s ... (a takeback line undoes one turn)"
        )


def game_to_move_list(position: ArimaaPosition) -> str:
    """The game that led to `position` as an arimaa.com move list, one turn a line."""
    board = position.turn_start_position().root()
    if not board.in_setup or board.move_stack or board._board != [0] * 64:
        raise UserError(
            "this game starts from a set position, which a move list cannot hold: save it as a JSON record"
        )
    lines = []
    for move in position.move_stack:
        lines.append(f"{board.turn_label} {board.move_text(move)}")
        board.push(move)
    if not lines:  # no turn yet: the label of the turn to play, as arimaa.com saves it
        return f"{board.turn_label}\n"
    return "\n".join(lines) + "\n"


__all__ = ["game_from_move_list", "game_to_move_list", "replay_move_list"]
