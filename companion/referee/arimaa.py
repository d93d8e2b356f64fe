"""Refereeing Arimaa: the setup, then every physical step checked as it happens.

The camera sees colours, not piece types. So:

- **Setup.** The players give the types: ``choose standard`` (the aei "basic" setup), ``choose
  chess`` (a chess set's start position: officers behind as in chess, pawns - rabbits - in
  front), ``choose previous`` (the setup of the last Arimaa game in the records) or a typed
  setup line (``choose Ra1 Rb1 ...``; `companion referee --setup`). The side's setup is accepted once the board shows
  those colours on those squares.
- **Play.** Each still board is explained by `companion.games.arimaa_infer.infer`, from the
  steps already seen (then fewer, down to the turn start): every sequence of legal steps
  (pushes, pulls and trap captures included) whose board - seen in colours - is the board seen,
  allowing for captured pieces the players have not yet taken off; the fewest steps win. One typed result:
  the turn goes on from there. Several typed results (two pieces that could have swapped
  places): the referee asks which piece is where (an Instruction of kind "choose"). None: the
  last physical step is named and why it is illegal ("the gold dog on d4 is frozen by the silver
  camel on d5"), with what to put back.
- A captured piece still on its trap: "Remove the silver cat from c6", and why it was captured,
  true against the board seen: when its last friendly neighbour stepped away and came back (or
  a friend came beside it after it was captured), the reason names how it was captured then
  ("Captured on f6 when its last friendly neighbour, the silver camel, stepped away from e6").
- **A chess set** (``-o equipment=chess``): the camera reads the white and black pieces of a
  chessboard; white is gold (gold moves first, as white does in chess), black is silver. The
  setup names each type with its chess piece (king = elephant, queen = camel, rooks = horses,
  bishops = dogs, knights = cats, pawns = rabbits), and since a chessboard has no traps
  printed, a capture names its square: "The silver cat (black knight) on c6 is captured: take
  it off" (the traps are c3, f3, c6 and f6).
- The turn ends with DONE, or by itself after the fourth step; a turn that leaves the position
  unchanged, repeats a position a third time or leaves a push unfinished cannot end.
- Goal, elimination and immobilisation end the game with the reason (the engine's
  end-of-turn checks, in the official order).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from companion.errors import UserError
from companion.games.arimaa import (
    CHESS_SETUP,
    NEIGHBOURS,
    SIDE_NAMES,
    SQUARE_INDEX,
    SQUARE_NAMES,
    STANDARD_SETUP,
    ArimaaPosition,
    Capture,
    Step,
    Turn,
    setup_side,
)
from companion.games.arimaa_infer import Candidate, infer
from companion.i18n import _, colour_adj, ngettext
from companion.i18n import player as player_name
from companion.observation import Observation
from companion.referee import phrases
from companion.referee.core import Referee
from companion.referee.protocol import (
    ASKED,
    CHOOSE,
    DONE,
    ERROR,
    FROM,
    REMOVE,
    RESTORE,
    TARGET,
    TO,
    Event,
    Instruction,
    PlayerInput,
)
from companion.referee.rule_texts import rule_text

LETTER_NAMES = {letter.lower(): name for letter, name in ArimaaPosition.piece_names.items()}
# Arimaa on a chess set (the rules' own replacement): type letter -> the chess piece.
# Arimaa on a chess set: each piece named as the chess piece that plays it
CHESS_NAMES = {k.lower(): name for k, name in ArimaaPosition.chess_piece_names.items()}
CHESS_COLOURS = {"white": "gold", "black": "silver"}  # a chess set's colours -> the sides
SIDE_COLOURS = {side: colour for colour, side in CHESS_COLOURS.items()}


def chess_mapping() -> str:
    """Which chess piece plays which Arimaa piece, in the table's language."""
    return _(
        "Chess set: king = elephant, queen = camel, rooks = horses, bishops = dogs, "
        "knights = cats, pawns = rabbits; white is gold"
    )


TRAPS = ("c3", "f3", "c6", "f6")
SILVER_RANKS = tuple(f"{f}{r}" for r in (7, 8) for f in "abcdefgh")
NAME_LETTERS = {name: letter for letter, name in LETTER_NAMES.items()}


@dataclass(frozen=True)
class Explanation:
    """A way the board seen came about: the steps from the turn start, the typed board they
    give, and the captured pieces the players have not taken off yet."""

    steps: tuple[Step, ...]
    typed: tuple[tuple[str, str], ...]  # (square, letter) of every piece after the steps
    uncleared: tuple[Capture, ...]
    pending_push: bool = False  # half a push: the pushing piece has yet to step in


class ArimaaReferee(Referee[ArimaaPosition]):
    game = "arimaa"
    piece_word = "piece"
    tall_pieces = True  # chess-like figures (Arimaa's own, or a chess set)
    typed_setup = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.setups: dict[str, str] = {}  # side -> the setup line chosen for it
        self.captures: tuple[Capture, ...] = ()  # captured in the turn in progress
        self.question: tuple[Explanation, ...] = ()  # candidates while asking
        self.answers: dict[str, str] = {}  # square -> letter the players said
        # The board that shows a push half done could also be a finished turn with the same
        # colours (``dh3w Eh4s Eh3n Hc5w`` looks like ``Hc5w dh3w``: the elephant pushed and
        # stepped back): then DONE takes that turn, and the instruction says so.
        self.push_may_be_done = False
        super().__init__(*args, **kwargs)

    @property
    def chess_set(self) -> bool:
        """Played with a chess set on a chessboard (``equipment=chess``), not the mat."""
        return bool(self.position.options.equipment == "chess")

    def observe(self, observation: Observation) -> list[Event]:
        """A chess set's colours are the sides: white is gold, black is silver."""
        if self.chess_set:
            observation = observation.renamed(CHESS_COLOURS)
        elif set(observation.cells.values()) & set(CHESS_COLOURS):
            raise UserError(
                _(
                    "the camera reports white and black pieces: for Arimaa on a chess set give "
                    "the option equipment=chess (-o equipment=chess)"
                )
            )
        return super().observe(observation)

    def board_to_learn(self, observation: Observation) -> dict[str, str] | None:
        """In the camera's classes: on a chess set the sides are its colours again (the camera
        learned white and black, and fits its model again to the boards taken)."""
        board = super().board_to_learn(observation)
        if board is None or not self.chess_set:
            return board
        return {c: SIDE_COLOURS.get(k, k) for c, k in board.items()}

    # -- names ---------------------------------------------------------------------------------------
    def name_at(self, cell: str, cls: str, count: int = 1) -> str:
        letter = self.position.piece_at(cell) if cell in SQUARE_INDEX else None
        if letter and SIDE_NAMES[letter.islower()] == cls:
            return _describe(letter, self.chess_set, count)
        for capture in reversed(self.captures):  # the last captured there is on the trap now
            if SQUARE_NAMES[capture.square] == cell:
                return _describe(capture.piece, self.chess_set, count)
        return phrases.piece_phrase("piece", cls, count)

    # -- setup -----------------------------------------------------------------------------------------
    def setup_choices(self) -> tuple[str, ...]:
        choices = ["chess", "standard"] if self.chess_set else ["standard"]
        if self._previous_setup(self.position.turn):
            choices.append("previous")
        return tuple(choices)

    def _previous_setup(self, side: str) -> str | None:
        if self.records is None:
            return None
        for summary in self.records.games():
            if (
                summary.game != self.position.name
                or summary.id == self.game_id
                or summary.moves < 2
            ):
                continue
            moves = self.records.game(summary.id, images=False).moves
            text: str = moves[0 if side == "gold" else 1].text
            return text
        return None

    def shown_position(self) -> ArimaaPosition:
        """During the setup, the position after the setup chosen for the side to set up."""
        position = self.position
        move = self._setup_move(position.turn) if position.in_setup else None
        if move is None:
            return position
        shown = position.copy()
        shown.push(move)
        return shown

    def _setup_move(self, side: str) -> Turn | None:
        text = self.setups.get(side)
        return None if text is None else self.position.parse_move(text)

    @classmethod
    def checked_setup(cls, side: str, text: str) -> str:
        """`text` as `side`'s setup turn, in the game's notation.

        :raises UserError: it is no setup that side can play."""
        probe = ArimaaPosition.new()
        if side == "silver":
            probe.push(probe.parse_move(STANDARD_SETUP["gold"]))
        move = probe.parse_move(text)
        error = probe.setup_error(move)
        if error:
            raise UserError(
                _("that setup cannot be played: {error}").format(error=rule_text(error))
            )
        return probe.move_text(move)

    def set_setup(self, side: str, text: str) -> None:
        """Give a side's setup in advance (`companion referee --setup`): checked now, played
        when it is that side's turn and the board shows it."""
        self.setups[side] = self.checked_setup(side, text)
        self._update()

    def _choose_setup(self, value: str) -> list[Event]:
        position = self.position
        side = position.turn
        word = value.strip()
        if word.lower() == "standard":
            text = STANDARD_SETUP[side]
        elif word.lower() == "chess":
            text = CHESS_SETUP[side]
        elif word.lower() == "previous":
            previous = self._previous_setup(side)
            if previous is None:
                raise UserError(_("there is no previous Arimaa game in the records to copy"))
            text = previous
        else:
            text = word
        move = position.parse_move(text)  # NotationError names the bad token
        error = position.setup_error(move)
        if error:
            raise UserError(
                _("that setup cannot be played: {error}").format(error=rule_text(error))
            )
        self.setups[side] = position.move_text(move)
        events = [Event("answer", {"setup": self.setups[side], "player": side})]
        if self.board is not None and self.board == self._setup_target(move, self.board):
            events.append(self._accept_setup())
        return events

    def _after(self, move: Turn) -> dict[str, str]:
        board = self.position.copy()
        board.push(move)
        return board.cells()

    def _setup_target(self, move: Turn, board: dict[str, str] | None) -> dict[str, str]:
        """The board that shows a side's setup. With a chess set, Gold's setup may be made
        with Silver's pieces already standing on ranks 7 and 8 (a chess set's start position
        left on the board after the camera learnt its colours): Silver then chooses a setup
        for them."""
        after = self._after(move)
        if (
            self.chess_set
            and self.position.turn == "gold"
            and board is not None
            and all(board.get(cell) == "silver" for cell in SILVER_RANKS)
        ):
            return {**after, **{cell: "silver" for cell in SILVER_RANKS}}
        return after

    def expected(self) -> dict[str, str]:
        """The position; while Silver chooses a setup with a chess set's black pieces already
        on ranks 7 and 8 (see `_setup_target`), those too."""
        cells = self.position.cells()
        if (
            self.chess_set
            and self.position.in_setup
            and self.position.turn == "silver"
            and self.board is not None
            and all(self.board.get(cell) == "silver" for cell in SILVER_RANKS)
        ):
            cells.update({cell: "silver" for cell in SILVER_RANKS})
        return cells

    def _accept_setup(self) -> Event:
        side = self.position.turn
        event = self._accept(self._setup_move(side))
        return event

    # -- explaining a board -----------------------------------------------------------------------------
    def explain(self, board: dict[str, str], *, complete: bool = False) -> list[Explanation]:
        """The simplest ways the board seen came about this turn: legal step sequences whose
        board, seen in colours, is the board seen (captured pieces may still stand on their
        traps). One per typed board, all with the fewest steps - a longer way to the same
        colours is never preferred to a shorter one.

        The steps already accepted this turn are kept when they can be: the search starts
        after all of them, then after fewer (a step taken back), down to the turn start. Each
        search is `companion.games.arimaa_infer.infer` (exact, bounded by the steps still
        needed; bench/bench_arimaa_infer.py measures it as the referee runs it).

        `complete`: only explanations that leave no push half done (asked when DONE finds the
        turn stuck on one: the players may have made a longer turn with the same colours)."""
        current = self.position.steps_this_turn
        seen = {cell: cls for cell, cls in board.items() if cls in ("gold", "silver")}
        base = self.position.copy()
        for kept in range(len(current), -1, -1):
            while len(base.steps_this_turn) > kept:
                base.pop_step()
            # One step deeper at a time: the usual look (one more step, or a push) stops at
            # depth 1 or 2; a depth that cannot reach the colours is cut at its root.
            for depth in range(base.steps_left + 1):
                candidates = infer(base, seen, keep_steps=True, max_steps=depth).candidates
                if complete:
                    candidates = tuple(c for c in candidates if not c.pending_push)
                if candidates:
                    return _fewest_explanations(candidates)
        return []

    def _apply(self, explanation: Explanation) -> list[Event]:
        position = self.position
        current = position.steps_this_turn
        kept = 0
        while (
            kept < min(len(current), len(explanation.steps))
            and current[kept] == explanation.steps[kept]
        ):
            kept += 1
        while len(position.steps_this_turn) > kept:
            position.pop_step()
        events = []
        board = position.turn_start_position()
        captures: list[Capture] = []
        for step in explanation.steps:
            captures += board.push_step(step)
        self.captures = tuple(captures)
        for step in explanation.steps[kept:]:
            text = position.step_text(step)
            caps = position.push_step(step)
            events.append(Event("step", {"step": text, "captures": [str(c) for c in caps]}))
        return events

    def _choose_explanation(self, board: dict[str, str]) -> tuple[list[Event], bool]:
        """Explain the board and carry the turn on; (events, explained)."""
        candidates = self.explain(board)
        for square, letter in self.answers.items():
            narrowed = [c for c in candidates if (square, letter) in c.typed]
            if narrowed:
                candidates = narrowed
        if not candidates:
            self.question = ()
            return [], False
        if len({c.typed for c in candidates}) > 1:
            self.question = tuple(candidates)
            return [], True
        self.question = ()
        self.answers = {}
        chosen = candidates[0]
        if chosen.steps == self.position.steps_this_turn:
            return [], True
        return self._apply(chosen), True

    # -- moves ----------------------------------------------------------------------------------------
    def _setup_shown(self, board: dict[str, str]) -> bool:
        """In setup: the board shows the setup chosen for the side to set up."""
        move = self._setup_move(self.position.turn)
        return move is not None and board == self._setup_target(move, board)

    def _accepts(self, board: dict[str, str]) -> bool:
        if self.position.in_setup:
            return self._setup_shown(board)
        return bool(self.explain(board))

    def _on_board(self, board: dict[str, str]) -> list[Event]:
        position = self.position
        if position.in_setup:
            return [self._accept_setup()] if self._setup_shown(board) else []
        events, explained = self._choose_explanation(board)
        self.push_may_be_done = False
        if not explained:
            return events
        if not self.question and position.pending_push is not None:
            self.push_may_be_done = self._complete_explanation(board) is not None
        if (
            not self.question
            and position.steps_left == 0
            and board == self.expected()
            and position.can_end_turn()
        ):
            events += self._end_turn()
        return events

    def _end_turn(self) -> list[Event]:
        position = self.position
        player = position.turn
        steps = position.steps_this_turn
        text_board = position.turn_start_position()
        position.end_turn()
        text = text_board.move_text(steps)
        self.captures = ()
        self.push_may_be_done = False
        return [self._commit(player, text)]

    def _on_input(self, player_input: PlayerInput) -> list[Event]:
        position = self.position
        if player_input.kind == CHOOSE:
            value = str(player_input.value or "").strip()
            if position.in_setup:
                return self._choose_setup(value)
            if self.question:
                return self._answer(value)
            return self._typed_turn(value)
        if player_input.kind == DONE and not position.in_setup and not self.question:
            if self.board is not None and position.pending_push is not None:
                self._explain_completely(self.board)
            if self.board == self.expected() and position.can_end_turn():
                return self._end_turn()
        return []

    def _typed_turn(self, text: str) -> list[Event]:
        """The players type the whole turn (``choose Ed2n Ed3n``): for a turn the camera cannot
        tell apart - two pieces that ended on each other's squares look like no change. It
        must be legal and give the colours on the board."""
        start = self.position.turn_start_position()
        move = start.parse_move(text)  # NotationError: what cannot be read
        after = start.copy()
        after.push(move)  # IllegalMoveError: why it is not legal
        if self.board is not None and after.cells() != self.board:
            raise UserError(
                _(
                    "the board does not show {turn}: make the turn on the board, or type the "
                    "turn it shows"
                ).format(turn=start.move_text(move))
            )
        while self.position.steps_this_turn:
            self.position.pop_step()
        self.question = ()
        self.answers = {}
        events = self._apply(Explanation(tuple(move), _typed(after), ()))
        return events + self._end_turn()

    def _complete_explanation(self, board: dict[str, str]) -> Explanation | None:
        """The one longer sequence of steps that gives the same colours and finishes every
        push, if there is exactly one way (in pieces) it ends."""
        candidates = self.explain(board, complete=True)
        if len({c.typed for c in candidates}) == 1:
            return candidates[0]
        return None

    def _explain_completely(self, board: dict[str, str]) -> None:
        """DONE on a half push: if a longer sequence of steps gives the same colours and
        finishes every push, that was the turn (the fewest-steps rule guessed short)."""
        explanation = self._complete_explanation(board)
        if explanation is not None:
            self._apply(explanation)
        self.push_may_be_done = False

    def _answer(self, value: str) -> list[Event]:
        square, letters = self._question_square()
        word = value.lower().strip()
        letter = NAME_LETTERS.get(word, word[:1])
        options = {dict(c.typed).get(square) for c in self.question}
        match = [o for o in options if o and o.lower() == letter.lower()]
        if not match:
            names = ", ".join(LETTER_NAMES[o.lower()] for o in sorted(letters))
            raise UserError(
                _("on {square} the piece can be: {names}").format(square=square, names=names)
            )
        self.answers[square] = match[0]
        events = [Event("answer", {"square": square, "piece": self.answers[square]})]
        if self.board is not None:
            more, _question = self._choose_explanation(self.board)
            events += more
            position = self.position
            if not self.question and position.steps_left == 0 and self.board == self.expected():
                if position.can_end_turn():
                    events += self._end_turn()
        return events

    def _question_square(self) -> tuple[str, list[str]]:
        """The first square where the candidate typed boards differ, and what may be there."""
        boards = [dict(c.typed) for c in self.question]
        for square in SQUARE_NAMES:
            letters = {b.get(square) for b in boards}
            if len(letters) > 1:
                return square, sorted(x for x in letters if x)
        return SQUARE_NAMES[0], []

    def _undo_last(self) -> str:
        while self.position.steps_this_turn:
            self.position.pop_step()
        self.captures = ()
        self.push_may_be_done = False
        self.question = ()  # a question about the turn taken back asks nothing now
        self.answers = {}
        text = super()._undo_last()
        if self.position.in_setup:  # a setup taken back: that side chooses again (it was
            self.setups.pop(self.position.turn, None)  # asked to put the same one back)
        return text

    def _request_undo(self, by: str | None) -> list[Event]:
        """UNDO while a side's chosen setup is still to be put down takes the choice back: the
        side is asked "which setup?" again (a trial: the choice could not be changed, and
        Silver's UNDO offered to take back Gold's whole setup instead)."""
        position = self.position
        side = position.turn
        if position.in_setup and self.setups.get(side) is not None:
            was = self.setups.pop(side)
            return [Event("answer", {"setup": None, "was": was, "player": side})]
        return super()._request_undo(by)

    def move_words(self, move: str) -> str:
        """A setup turn is named as the side's setup (`setup_side`): a trial's take-back asked
        to "take back ra8 rb8 rc8 ..." - sixteen placements."""
        side = setup_side(move)
        if side is not None:
            return _("{player}'s setup").format(player=player_name(side))
        return move

    def _undone_too(self) -> str:
        """A take-back mid-turn takes back the turn before: this turn's steps go too (a trial:
        confirming it dropped them without a word)."""
        # (or a step seen that is not one yet: the piece the players are asked to name - a
        # trial's take-back during that question named only the setup before)
        if self.position.steps_this_turn or self.question:
            return _("The steps made this turn go back too")
        return ""

    def nothing_to_undo(self) -> str:
        if self.position.in_setup and self.setups.get(self.position.turn) is not None:
            return ""  # (the choice is taken back)
        return super().nothing_to_undo()

    def _last_move_text(self) -> str | None:
        position = self.position
        if not position.move_stack:
            return None
        board = position.turn_start_position()
        move = board.pop()
        return board.move_text(move)

    # -- instructions ----------------------------------------------------------------------------------
    def _turn_instruction(self) -> Instruction:
        position = self.position
        player = position.turn
        name = player_name(player)
        if position.in_setup:
            return self._setup_instruction()
        steps = position.steps_this_turn
        if not steps:
            return Instruction(
                text=_("{player}: move up to four steps, then press DONE").format(player=name),
                kind="move",
                player=player,
                expected=self.expected(),
                detail=_("Turn {turn}").format(turn=position.turn_label),
            )
        highlights: dict[str, str] = {}
        start = position.turn_start_position()
        for step in steps:
            highlights.setdefault(SQUARE_NAMES[step.origin], FROM)
            highlights[SQUARE_NAMES[step.dest]] = TO
        done_text = start.move_text(steps)
        error = position.end_turn_error()
        if position.pending_push is not None:
            # (a trial: "finish the push" named no square, and the detail confused)
            square = SQUARE_NAMES[position.pending_push.square]
            if self.push_may_be_done:  # the same colours are also a finished turn
                return Instruction(
                    text=_(
                        "{player}: finish the push into {square}, or press DONE if it is finished"
                    ).format(player=name, square=square),
                    kind="move",
                    player=player,
                    highlights={**highlights, square: TO},
                    expected=self.expected(),
                    detail=_(
                        "A stronger {colour} piece steps into {square}; if one already stepped "
                        "in and away again, the push is finished"
                    ).format(colour=colour_adj(player), square=square),
                )
            return Instruction(
                text=_("{player}: finish the push into {square}").format(
                    player=name, square=square
                ),
                kind="move",
                player=player,
                highlights=highlights,
                expected=self.expected(),
                detail=rule_text(error or ""),
            )
        left = position.steps_left
        if error:
            text = ngettext(
                "{player}: go on ({count} step left)", "{player}: go on ({count} steps left)", left
            ).format(player=name, count=left)
            detail = rule_text(error)
        else:
            text = ngettext(
                "{player}: press DONE, or go on ({count} step left)",
                "{player}: press DONE, or go on ({count} steps left)",
                left,
            ).format(player=name, count=left)
            detail = _("So far {moves}").format(moves=done_text)
        return Instruction(
            text=text,
            kind="move",
            player=player,
            highlights=highlights,
            expected=self.expected(),
            detail=detail,
        )

    def _setup_instruction(self, board: dict[str, str] | None = None) -> Instruction:
        position = self.position
        side = position.turn
        name = player_name(side)
        ranks = _("1 and 2") if side == "gold" else _("7 and 8")
        move = self._setup_move(side)
        if move is None:
            return Instruction(
                text=_("{player}: which setup?").format(player=name),
                kind="choose",
                player=side,
                choices=self.setup_choices(),
                expected=self.expected(),
                # Words for every front end: the screen offers arranging one's own setup, the
                # terminal (companion.referee.runner) adds how to type it.
                detail=_(
                    "On ranks {ranks}. The camera sees colours, not piece types: choose one, "
                    "or give your own"
                ).format(ranks=ranks)
                + (". " + chess_mapping() if self.chess_set else ""),
            )
        after = self._setup_target(move, board)
        seen = board if board is not None else {}
        diff = phrases.BoardDiff.between(after, seen)
        highlights = {c: TARGET for c in diff.removed}
        highlights.update({c: ERROR for c in diff.added})
        # Pieces where the setup has none (the other side's, set up too soon) are named: the
        # highlights alone said it, and the line stayed the same board after board.
        extra = phrases.fix_sentences(
            {},
            {c: seen[c] for c in diff.added},
            name_at=self._fix_name,
            change_phrase=self.change_phrase,
        )
        return Instruction(
            text=phrases.join_sentences(
                [_("{player}: set up your pieces as shown").format(player=name), *extra]
            ),
            kind="setup",
            player=side,
            highlights=highlights,
            expected=after,
            detail=self.setups[side] + (". " + chess_mapping() if self.chess_set else ""),
        )

    def _board_instruction(self, board: dict[str, str]) -> Instruction:
        position = self.position
        if position.in_setup:
            return self._setup_instruction(board)
        if self.question:
            square, letters = self._question_square()
            side = position.turn
            choices = tuple(LETTER_NAMES[letter.lower()] for letter in letters)
            return Instruction(
                text=_("Which {colour} piece is on {square} now?").format(
                    colour=colour_adj(side), square=square
                ),
                kind="choose",
                player=side,
                highlights={square: ASKED},
                expected=None,
                choices=choices,
                detail=_("Two pieces could have moved there; the camera sees only colours")
                + (". " + chess_mapping() if self.chess_set else ""),
            )
        expected = self.expected()
        diff = phrases.BoardDiff.between(expected, board)
        captured = {SQUARE_NAMES[c.square]: c for c in self.captures}
        if diff.added and not diff.removed and not diff.changed:
            if all(cell in captured for cell in diff.added):
                cells = sorted(diff.added, key=phrases.cell_sort_key)
                return self._remove_instruction(cells, captured, expected)
        step = _single_step(expected, board)
        if step is not None:
            error = position.step_error(step)
            if error:
                origin = SQUARE_NAMES[step.origin]
                piece = self.name_at(origin, expected[origin])
                return Instruction(
                    text=_("Put {piece} back on {cell}").format(piece=piece, cell=origin),
                    kind="illegal",
                    player=position.turn,
                    highlights={origin: RESTORE, SQUARE_NAMES[step.dest]: ERROR},
                    expected=expected,
                    detail=rule_text(error),
                )
        instruction = self._restore_instruction(board)
        return instruction

    def _remove_instruction(
        self, cells: list[str], captured: dict[str, Capture], expected: dict[str, str]
    ) -> Instruction:
        """Take the captured pieces on `cells` off their traps, and why they were captured."""
        if self.chess_set:  # no traps printed on a chessboard: name the square
            texts = [
                _("{piece} on {cell} is captured: take it off").format(
                    piece=_describe(captured[c].piece, True), cell=c
                )
                for c in cells
            ]
        else:
            texts = [
                _("Remove {piece} from {cell}").format(piece=_describe(captured[c].piece), cell=c)
                for c in cells
            ]
        return Instruction(
            text=phrases.join_sentences(texts),
            kind="remove",
            player=self.position.turn,
            highlights={c: REMOVE for c in cells},
            expected=expected,
            detail=self._capture_reason([captured[c] for c in cells], expected),
        )

    def _capture_reason(self, captures: list[Capture], expected: dict[str, str]) -> str:
        """Why `captures` were captured, true against the board `expected`: a friendly piece
        that stepped away and came back (or another that stepped beside the trap since) must
        not leave "no friendly piece beside it" on the screen next to it."""
        if not any(_friend_beside(c, expected) for c in captures):
            if self.chess_set:
                return _(
                    "Captured on a trap with no friendly piece beside it (the traps are "
                    "c3, f3, c6 and f6)"
                )
            return _("Captured on a trap with no friendly piece beside it")
        causes = self._capture_causes()
        reasons = []
        for capture in captures:
            trap = SQUARE_NAMES[capture.square]
            # the piece on the trap now is the last one captured there this turn
            cause = causes[max(key for key in causes if key[1] == capture)]
            if cause is not None:
                letter, origin = cause
                reasons.append(
                    _(
                        "Captured on {trap} when its last friendly neighbour, {piece}, stepped "
                        "away from {cell}"
                    ).format(
                        trap=trap,
                        piece=phrases.piece_phrase(
                            letter.lower(), SIDE_NAMES[letter.islower()], case="subject"
                        ),
                        cell=SQUARE_NAMES[origin],
                    )
                )
            else:
                reasons.append(
                    _(
                        "Captured on {trap}: no friendly piece was beside it when it came "
                        "onto the trap"
                    ).format(trap=trap)
                )
        return phrases.join_sentences(reasons)  # each names its square: no trap list needed

    def _capture_causes(self) -> dict[tuple[int, Capture], tuple[str, int] | None]:
        """Each capture this turn, keyed by (its step's index, the capture): the (letter,
        origin) of the piece whose step away from `origin` left it with no friend, or None for
        a piece that came onto the trap with no friend beside it. (Two pieces may be captured
        on one trap in a turn, each for its own reason.)"""
        board = self.position.turn_start_position()
        causes: dict[tuple[int, Capture], tuple[str, int] | None] = {}
        for index, step in enumerate(self.position.steps_this_turn):
            mover = board.piece_at(step.origin)
            for capture in board.push_step(step):
                left = capture.square != step.dest and mover is not None
                causes[index, capture] = (mover, step.origin) if left and mover else None
        return causes

    def _unsettled_instruction(self, board: dict[str, str]) -> Instruction:
        if self.question:
            return self._board_instruction(board)
        return self._restore_instruction(board)


def _describe(letter: str, chess: bool = False, count: int = 1) -> str:
    """ "the silver cat"; with a chess set "the silver cat (the black knight)"."""
    side = "silver" if letter.islower() else "gold"
    text = phrases.piece_phrase(letter.lower(), side, count)
    if chess:
        chessman = phrases.piece_phrase(CHESS_NAMES[letter.lower()], SIDE_COLOURS[side], count)
        return _("{piece} ({chessman})").format(piece=text, chessman=chessman)
    return text


def _friend_beside(capture: Capture, board: dict[str, str]) -> bool:
    """A piece of the captured piece's side stands beside its trap on `board` (colours)."""
    side = SIDE_NAMES[capture.piece.islower()]
    return any(board.get(SQUARE_NAMES[n]) == side for n in NEIGHBOURS[capture.square])


def _typed(position: ArimaaPosition) -> tuple[tuple[str, str], ...]:
    return tuple(
        (SQUARE_NAMES[sq], letter)
        for sq in range(64)
        if (letter := position.piece_at(sq)) is not None
    )


def _fewest_explanations(candidates: Sequence[Candidate]) -> list[Explanation]:
    """One Explanation per typed board among the fewest-step candidates (a complete turn
    before a half push with the same pieces), in step order."""
    fewest = min(len(c.steps) for c in candidates)
    found: dict[tuple[Any, ...], Explanation] = {}
    for candidate in sorted(
        (c for c in candidates if len(c.steps) == fewest),
        key=lambda c: (c.pending_push, c.steps),
    ):
        explanation = _explanation(candidate)
        found.setdefault(explanation.typed, explanation)
    return sorted(found.values(), key=lambda e: e.steps)


def _explanation(candidate: Candidate) -> Explanation:
    """An Explanation (square names, Capture objects) from an `arimaa_infer.Candidate`."""
    typed = tuple((SQUARE_NAMES[sq], letter) for sq, letter in candidate.pieces)
    last_capture = {c.square: c for c in candidate.captures}
    uncleared = tuple(last_capture[sq] for sq in candidate.uncleared)
    return Explanation(candidate.steps, typed, uncleared, candidate.pending_push)


def _single_step(expected: dict[str, str], board: dict[str, str]) -> Step | None:
    """The one orthogonal step that turns `expected` into `board`, if it looks like one."""
    diff = phrases.BoardDiff.between(expected, board)
    if len(diff.removed) != 1 or len(diff.added) != 1 or diff.changed:
        return None
    (origin, was), (dest, now) = next(iter(diff.removed.items())), next(iter(diff.added.items()))
    if was != now:
        return None
    o, d = SQUARE_INDEX[origin], SQUARE_INDEX[dest]
    if d - o not in (8, -8, 1, -1) or (abs(d - o) == 1 and o // 8 != d // 8):
        return None
    return Step(o, d)
