"""Arimaa text formats: arimaa.com turns and move lists, AEI positions, board diagrams, JSON.

Turns (arimaa.com notation)
    A step is piece letter, square, direction: ``Ed2n`` (n/s/e/w from Gold's view, upper case
    Gold, lower case Silver, camel ``M``). A capture token ``rc3x`` follows the step that caused
    it. A setup turn lists placements: ``Ra1 Rb1 ... Hh2``. When reading, capture tokens are
    checked against the captures the steps really cause.

Move lists (one turn a line)
    ``1g Ra1 Rb1 ...`` / ``1s ra7 ...`` / ``2g Ed2n Ed3n ...``; older records label turns
    ``1w 1b 2w ...``. Read as found in the arimaa.com archive: a ``<label> takeback`` line undoes
    the turn before it; ``<label> resign`` ends the list (that side resigned); a label with no
    steps (the turn being played when the record was saved) is skipped; a line of steps without a
    label continues the turn above it (a stray line break); a line with no move tokens at all (bot
    log lines, result lines) is skipped and listed in ``position.replay_notes``.

Positions
    - AEI: ``g [rrrrrrrrdhcemchd ... RRRRRRRR]`` - side to move, then the 64 squares a8, b8, ...,
      h8, a7, ..., h1 with a space for an empty square (``setposition`` in front is accepted).
    - The arimaa.com board diagram (aei's "long" form), optionally preceded by a turn label line
      such as ``12g`` (steps written after the label are played on the board shown: ``12g Ed2n``)::

         +-----------------+
        8| r r r r r r r r |
        ...
        1| R R R R R R R R |
         +-----------------+
           a b c d e f g h

    - JSON (`position_to_json`): ``{"game": "arimaa", "options": {}, "phase": "setup"|"play",
      "turn": "gold"|"silver", "board": ["rrrrrrrr", ... 8 rows, rank 8 first, "." empty],
      "steps": ["Ed2n", ...]}`` - the board at the start of the turn, plus the steps played since
      (only present mid-turn).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from typing import Any

from companion.errors import IllegalMoveError, NotationError, RecordError, UserError, json_problem
from companion.games.arimaa import (
    NEIGHBOURS,
    OFFSET_OF,
    PIECE_LETTERS,
    SIDE_NAMES,
    SILVER,
    SQUARE_INDEX,
    SQUARE_NAMES,
    TRAP_SET,
    ArimaaPosition,
    Placement,
    Step,
    Turn,
    _piece_code,
    _side_index,
    board_hash,
    piece_description,
)

STEP_RE = re.compile(r"^([RCDHMErcdhme])([a-h][1-8])([nsewx])$")
PLACEMENT_RE = re.compile(r"^([RCDHMErcdhme])([a-h][1-8])$")
MOVE_TOKEN_RE = re.compile(r"^[RCDHMErcdhme][a-h][1-8][nsewx]?$")
LABEL_RE = re.compile(r"^(\d+)([wbgs])$")


# -- steps and turns ------------------------------------------------------------------------------
def parse_step(position: ArimaaPosition, text: str) -> Step:
    """A step from ``Ed2n``, checked against the piece on the square (not for legality)."""
    token = text.strip()
    match = STEP_RE.match(token)
    if not match or match.group(3) == "x":
        raise NotationError(f"{token!r} is not a step: write piece, square, direction, e.g. Ed2n")
    letter, square, direction = match.groups()
    origin = SQUARE_INDEX[square]
    dest = origin + OFFSET_OF[direction]
    if dest not in NEIGHBOURS[origin]:
        raise NotationError(f"{token}: that step leaves the board")
    actual = position.piece_at(origin)
    if actual is None:
        raise NotationError(f"{token}: there is no piece on {square}")
    if actual != letter:
        raise NotationError(
            f"{token}: {square} holds {piece_description(_piece_code(actual))}, "
            f"not {piece_description(_piece_code(letter))}"
        )
    return Step(origin, dest)


def parse_turn(position: ArimaaPosition, text: str, play: bool = False) -> tuple:
    """One turn (steps with capture tokens, or a setup) from text; a leading label is allowed.
    A turn of steps comes back as a `Turn` that carries its text (capture tokens filled in), so
    `move_text` still knows it after the turn has been pushed.

    Steps are played on `position` while reading (each piece letter must match the piece that is
    really there after the steps before it) and taken back before returning - unless `play`, when
    the turn is played for good (`end_turn`; for a setup, `push`). Nothing stays played when the
    text is unreadable or illegal.
    """
    if not isinstance(text, str):
        raise NotationError(f"a turn is text like 'Ed2n Ed3n', not {text!r}")
    tokens = text.split()
    if tokens and LABEL_RE.match(tokens[0]):
        tokens = tokens[1:]
    if not tokens:
        raise NotationError("an empty turn: write its steps, e.g. Ed2n Ed3n")
    if position.in_setup:
        placements = []
        for token in tokens:
            match = PLACEMENT_RE.match(token)
            if not match:
                raise NotationError(
                    f"{token!r}: {position.turn.capitalize()} is setting up, write placements like Ra1"
                )
            placements.append(Placement(match.group(1), SQUARE_INDEX[match.group(2)]))
        if play:
            position.push(tuple(placements))
        return tuple(placements)
    if position.steps_this_turn:
        raise IllegalMoveError("a turn is in progress: finish it or take its steps back first")
    steps: list[Step] = []
    canonical: list[str] = []  # the turn's text as this module writes it
    expected: list[str] = []  # capture tokens the steps really caused, not yet matched
    try:
        for token in tokens:
            if PLACEMENT_RE.match(token):
                raise NotationError(
                    f"{token!r}: the setup is over, a turn is made of steps like Ed2n"
                )
            match = STEP_RE.match(token)
            if not match:
                raise NotationError(
                    f"{token!r} is not a step: write piece, square, direction, e.g. Ed2n"
                )
            if match.group(3) == "x":
                if token not in expected:
                    raise IllegalMoveError(
                        f"{token}: no piece is captured there by the step before it"
                    )
                expected.remove(token)
                continue
            step = parse_step(position, token)
            if len(steps) == 4:
                raise IllegalMoveError("a turn has at most four steps")
            captures = position.push_step(step)
            steps.append(step)
            expected = [str(c) for c in captures]
            canonical.append(token)
            canonical.extend(expected)
        # A capture token not written (some old records) is tolerated: the capture happens anyway.
        if play:
            return position.end_turn()
    finally:
        if position.steps_this_turn:
            for _ in steps:
                position.pop_step()
    return Turn(steps, " ".join(canonical))


def turn_text(position: ArimaaPosition, move: Any) -> str:
    """The arimaa.com text of a turn (with capture tokens) or of a setup."""
    move = tuple(move)
    if move and all(isinstance(p, Placement) for p in move):
        return " ".join(str(p) for p in move)
    if position.in_setup:
        raise NotationError("a setup turn is a list of placements like Ra1")
    tokens = []
    played = 0
    try:
        for step in move:
            step = Step(*step)
            tokens.append(position.step_text(step))
            captures = position.push_step(step)
            played += 1
            tokens.extend(str(c) for c in captures)
    finally:
        for _ in range(played):
            position.pop_step()
    return " ".join(tokens)


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


def game_from_move_list(text_or_moves: Any, stop_at_illegal: bool = False) -> ArimaaPosition:
    """Replay a whole game and return its final position.

    Accepts a plain arimaa.com move list (text), a list of turn texts (labels optional), or a
    dict like a games.jsonl record (``moves`` with optional ``turn_labels`` and ``result``).
    Every turn is checked. An unreadable or illegal turn raises RecordError naming its label,
    text and reason; with ``stop_at_illegal`` the position before it is returned instead, with
    the error in ``replay_error`` and the turn's index in ``replay_error_index`` (as
    `companion.games.base.game_from_json`). ``recorded_result`` holds (winner, code) when the
    record states one (e.g. ("gold", "r") for a resignation), ``replay_notes`` the lines skipped.
    """
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
        turns = [(label, move, None) for label, move in zip(labels, moves, strict=True)]
        result = text_or_moves.get("result") or {}
        if isinstance(result, dict) and result.get("winner") in ("g", "s", "w", "b"):
            recorded = (SIDE_NAMES[_side_index(result["winner"])], result.get("termination"))
    elif isinstance(text_or_moves, str):
        turns, resigned, notes = _split_move_list(text_or_moves)
        if not turns and resigned is None and not _has_turn_label(text_or_moves):
            raise RecordError(
                "no Arimaa turns found: an arimaa.com move list has a turn a line, like "
                "'1g Ra1 Rb1 ...' then '2g Ed2n Ed3n'"
            )
        if resigned is not None:
            label, side = resigned
            if side:
                recorded = (SIDE_NAMES[_side_index(side) ^ 1], "r")
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

    position = ArimaaPosition.new()
    position.replay_notes = notes  # type: ignore[attr-defined]
    position.recorded_result = recorded  # type: ignore[attr-defined]
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
            if stop_at_illegal:
                position.replay_error = error  # type: ignore[attr-defined]
                position.replay_error_index = index  # type: ignore[attr-defined]
                return position
            raise error from None
    position.replay_error = None  # type: ignore[attr-defined]
    position.replay_error_index = None  # type: ignore[attr-defined]
    return position


def _check_label(label: str, position: ArimaaPosition) -> None:
    match = LABEL_RE.match(label)
    if not match:
        raise RecordError(f"{label!r} is not a turn label like 2g or 2w")
    side = _side_index(match.group(2))
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


# -- positions --------------------------------------------------------------------------------------
AEI_RE = re.compile(r"^(?:setposition\s+)?([gswb])\s*\[(.{64})\]\s*$", re.DOTALL)
AEI_ANY_LENGTH_RE = re.compile(r"^(?:setposition\s+)?([gswb])\s*\[([^\]\n]*)\]\s*$")


def parse_position(text: str) -> ArimaaPosition:
    """A position from JSON, the AEI string or the arimaa.com board diagram."""
    if not isinstance(text, str) or not text.strip():
        raise RecordError(
            "an empty Arimaa position: give JSON, an AEI string like 'g [...]' or a board diagram"
        )
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError as exc:  # JSONDecodeError, or a number too long to read
            raise RecordError(f"not an arimaa position: {json_problem(exc)}") from None
        return position_from_json(data)
    match = AEI_RE.match(text.strip("\r\n\t"))
    if match is None:
        match = AEI_RE.match(stripped)
    if match:
        side, squares = match.groups()
        return _position_from_rows(
            [squares[i * 8 : (i + 1) * 8] for i in range(8)], side, "play", []
        )
    wrong = AEI_ANY_LENGTH_RE.match(text.strip("\r\n\t")) or AEI_ANY_LENGTH_RE.match(stripped)
    if wrong:
        raise RecordError(
            f"an AEI position has 64 squares between the brackets, this one {len(wrong.group(2))}: "
            "write a8..h8, a7..h1 in order, a space for an empty square"
        )
    if "|" in text:
        return _parse_diagram(text)
    raise RecordError(
        "not an Arimaa position: expected JSON, an AEI string like 'g [rrrrrrrr...RRRRRRRR]' "
        "(64 squares a8..h1, space = empty) or an arimaa.com board diagram"
    )


def _parse_diagram(text: str) -> ArimaaPosition:
    side = "g"
    number = 2
    steps: list[str] = []
    rows: dict[int, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if (
            not line
            or line.startswith("+")
            or set(line) <= set("abcdefgh ")
            or line.startswith("steps this turn")
        ):
            continue
        tokens = line.split()
        if LABEL_RE.match(tokens[0]) and "|" not in line:
            side = tokens[0][-1]
            number = int(tokens[0][:-1])
            if number < 2:
                raise RecordError(
                    f"board diagram: the label {tokens[0]} is not a turn of play: label a board "
                    "2g or later (2g is the first turn after both setups)"
                )
            steps = tokens[1:]
            continue
        match = re.match(r"^([1-8])\s*\|(.*)\|$", line)
        if not match:
            raise RecordError(f"board diagram: cannot read the line {raw.strip()!r}")
        rank = int(match.group(1))
        body = match.group(2)
        if len(body) >= 16 and not body[0::2].strip():
            # " r . x ..." - a cell every other character, a space for an empty square allowed
            cells = body[1::2].rstrip()
            cells += " " * (8 - len(cells))
        else:
            cells = "".join(body.split())
        if len(cells) != 8:
            raise RecordError(
                f"board diagram: rank {rank} has {len(cells)} squares, not 8: "
                "write one letter or . a square, a b c d e f g h"
            )
        rows[rank] = "".join(" " if c in ".xX " else c for c in cells)
    missing = [r for r in range(1, 9) if r not in rows]
    if missing:
        raise RecordError(f"board diagram: rank {missing[0]} is missing")
    return _position_from_rows([rows[r] for r in range(8, 0, -1)], side, "play", steps, number)


def _position_from_rows(
    rows: list[str], side: str, phase: str, steps: list[str], number: int = 2
) -> ArimaaPosition:
    """rows: 8 strings of 8 letters, rank 8 first; ' ' or '.' for empty."""
    board = [0] * 64
    counts: Counter[int] = Counter()
    for r, row in enumerate(rows):
        if len(row) != 8:
            raise RecordError(f"rank {8 - r} must have 8 squares, not {len(row)}")
        for f, ch in enumerate(row):
            if ch in " .xX":
                continue
            if ch not in "RCDHMErcdhme":
                raise RecordError(
                    f"unknown piece {ch!r} on {SQUARE_NAMES[(7 - r) * 8 + f]}: pieces are RCDHME and rcdhme"
                )
            code = PIECE_LETTERS.index(ch)
            board[(7 - r) * 8 + f] = code
            counts[code] += 1
    # More pieces than a side starts with is allowed: composed problems (goal tests) use them.
    try:
        side_index = _side_index(side)
    except NotationError as exc:
        raise RecordError(str(exc)) from None
    if phase == "setup":
        position = ArimaaPosition.new()
        if side_index == SILVER:
            if any(p >> 3 for p in board if p):
                raise RecordError("during setup only Gold's pieces can be on the board")
            position._board = board
            position._hash = board_hash(board)
            position._setups_left = 1
            position._side = SILVER
            position._start_hash = position._hash
            position._ply_offset = 1  # Gold's setup (not in move_stack) came first
        elif any(board):
            raise RecordError("before Gold's setup the board must be empty")
        return position
    position = ArimaaPosition.from_board(board, SIDE_NAMES[side_index], turn_number=number)
    for token in steps:
        try:
            position.push_step(parse_step(position, token))
        except UserError as exc:
            raise RecordError(f"step {token!r} of the turn in progress: {exc}") from None
    return position


def _rows(board: list[int]) -> list[str]:
    return [
        "".join(
            PIECE_LETTERS[board[rank * 8 + f]] if board[rank * 8 + f] else "." for f in range(8)
        )
        for rank in range(7, -1, -1)
    ]


def position_to_json(position: ArimaaPosition) -> dict[str, Any]:
    start = position.turn_start_position() if position.steps_this_turn else position
    # Only what differs from the defaults (a chess set: {"equipment": "chess"}), so a game on
    # the mat keeps {} as before and a chess-set game is resumed as one.
    options = {
        f.name: getattr(position.options, f.name)
        for f in dataclasses.fields(position.options)
        if getattr(position.options, f.name) != f.default
    }
    data: dict[str, Any] = {
        "game": "arimaa",
        "options": options,
        "phase": "setup" if position.in_setup else "play",
        "turn": position.turn,
        "board": _rows(start._board),
        "turn_number": position.turn_number,
    }
    if position.steps_this_turn:
        texts = []
        for step in position.steps_this_turn:
            texts.append(start.step_text(step))
            start._apply_step(step)
        data["steps"] = texts
    return data


def position_from_json(data: Any) -> ArimaaPosition:
    if not isinstance(data, dict):
        raise RecordError("an Arimaa position must be a JSON object")
    if data.get("game", "arimaa") != "arimaa":
        raise RecordError(f"not an Arimaa position (game {data.get('game')!r})")
    options = ArimaaPosition.options_from(data.get("options"))
    board = data.get("board")
    if not isinstance(board, list) or len(board) != 8 or not all(isinstance(r, str) for r in board):
        raise RecordError('"board" must be a list of 8 texts, rank 8 first, e.g. "rrrrrrrr"')
    phase = data.get("phase", "play")
    if phase not in ("setup", "play"):
        raise RecordError('"phase" must be "setup" or "play"')
    steps = data.get("steps", [])
    if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
        raise RecordError('"steps" must be a list of step texts like "Ed2n"')
    number = data.get("turn_number", 1 if phase == "setup" else 2)
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise RecordError('"turn_number" must be a whole number from 1')
    position = _position_from_rows(board, str(data.get("turn", "gold")), phase, steps, number)
    position.options = options  # what the game is played with (a chess set: not a rule)
    return position


def position_to_aei(position: ArimaaPosition) -> str:
    """``g [64 squares a8..h1]`` of the current board (steps of a turn in progress included)."""
    squares = "".join(PIECE_LETTERS[p] if p else " " for p in _a8_order(position._board))
    return f"{'gs'[position._side]} [{squares}]"


def _a8_order(board: list[int]) -> list[int]:
    return [board[rank * 8 + f] for rank in range(7, -1, -1) for f in range(8)]


def board_diagram(position: ArimaaPosition, label: bool = True) -> str:
    """The arimaa.com board diagram of the current board, with the turn label line on top
    (``2g``) as in aei's long format. Mid-turn a last line lists the steps played so far; it is
    for people (reading the diagram back starts a fresh turn on the board shown)."""
    board = position._board
    lines = []
    if label:
        lines.append(position.turn_label)
    lines.append(" +-----------------+")
    for rank in range(7, -1, -1):
        cells = []
        for f in range(8):
            sq = rank * 8 + f
            p = board[sq]
            cells.append(PIECE_LETTERS[p] if p else ("x" if sq in TRAP_SET else "."))
        lines.append(f"{rank + 1}| {' '.join(cells)} |")
    lines.append(" +-----------------+")
    lines.append("   a b c d e f g h  ")
    if label and position.steps_this_turn:
        start = position.turn_start_position()
        texts = []
        for step in position.steps_this_turn:
            texts.append(start.step_text(step))
            start._apply_step(step)
        lines.append(f"steps this turn: {' '.join(texts)}")
    return "\n".join(lines)


__all__ = [
    "board_diagram",
    "game_from_move_list",
    "game_to_move_list",
    "parse_position",
    "parse_step",
    "parse_turn",
    "position_from_json",
    "position_to_aei",
    "position_to_json",
    "turn_text",
]
