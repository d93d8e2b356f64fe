"""Refereeing Sensei: one to three actions seen in any order, DONE ends the turn.

Every still board is explained afresh from the start of the turn: the shortest sequence of
legal actions (stone, stone, character - each at most once, any order) that turns the board at
the start of the turn into the board seen. So a stone moved and moved back is no action, two
actions made between two looks at the board are both found, and an order that matters (the
character landing on a stone that has just arrived) is respected. A board no legal sequence
explains is an illegal action: the referee names the rule it breaks and what to put back.
DONE ends the turn (a pass, when no action is possible); a character reaching home ends the
game at once. DONE on the board as the turn began, when a stone could move, is asked again: a
stone moved and moved back is a turn the camera cannot see, and a second DONE ends it so.
"""

from __future__ import annotations

from typing import Any

from companion.errors import NotationError
from companion.games.sensei import (
    CHARACTER,
    CHARACTER_SUFFIX,
    STONE,
    Action,
    SenseiPosition,
    parse_turn,
    there_and_back,
)
from companion.i18n import _
from companion.i18n import player as player_name
from companion.referee import phrases
from companion.referee.core import Referee
from companion.referee.protocol import (
    CANCEL,
    DONE,
    ERROR,
    FROM,
    TO,
    Event,
    Instruction,
    PlayerInput,
)
from companion.referee.rule_texts import rule_text

MAX_ACTIONS = 3


class SenseiReferee(Referee[SenseiPosition]):
    game = "sensei"
    piece_word = "stone"
    tall_pieces = True  # the characters stand on their stones

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # DONE was pressed on the board as the turn began: a second DONE ends the turn with
        # every piece where it was (`SenseiPosition.empty_turn`)
        self.empty_turn_offered = False
        super().__init__(*args, **kwargs)

    def name_at(self, cell: str, cls: str, count: int = 1) -> str:
        if cls.endswith(CHARACTER_SUFFIX):
            return phrases.piece_phrase("character", cls.removesuffix(CHARACTER_SUFFIX), count)
        return phrases.piece_phrase("stone", cls, count)

    # -- explaining a board -------------------------------------------------------------------------
    def _turn_start(self) -> SenseiPosition:
        board = self.position.copy()
        while board.actions_this_turn:
            board.pop_action()
        return board

    def explain(self, board: dict[str, str]) -> tuple[Action, ...] | None:
        """The shortest legal sequence of actions from the start of this turn that gives
        `board`; None when there is none. Only actions touching a cell that differs are tried
        (a piece that ends where it started did not move)."""
        start = self._turn_start()
        if start.cells() == board:
            return ()
        changed = phrases.BoardDiff.between(start.cells(), board).cells()
        if len(changed) > 2 * MAX_ACTIONS:
            return None  # each action changes two cells: no turn makes this board
        frontier: list[tuple[SenseiPosition, tuple[Action, ...]]] = [(start, ())]
        seen = {_key(start)}
        for _depth in range(MAX_ACTIONS):
            following = []
            for position, sequence in frontier:
                for action in position.legal_actions():
                    if action.src not in changed and action.dst not in changed:
                        continue
                    after = position.copy()
                    after.push_action(action)
                    cells = after.cells()
                    if cells == board:
                        return sequence + (action,)
                    key = _key(after)
                    if key not in seen and not after.is_game_over():
                        seen.add(key)
                        following.append((after, sequence + (action,)))
            frontier = following
        return None

    # -- moves ----------------------------------------------------------------------------------
    def _accepts(self, board: dict[str, str]) -> bool:
        sequence = self.explain(board)
        return sequence is not None and sequence != self.position.actions_this_turn

    def _on_board(self, board: dict[str, str]) -> list[Event]:
        sequence = self.explain(board)
        if sequence:  # something moved: the question of a second DONE is withdrawn (not on
            # the same board seen again - a review: a DONE held under a hand was then lost)
            self.empty_turn_offered = False
        if sequence is None or sequence == self.position.actions_this_turn:
            return []
        return self._play_actions(sequence)

    def _play_actions(self, sequence: tuple[Action, ...]) -> list[Event]:
        position = self.position
        kept = 0  # the actions already made that the new sequence starts with
        current = position.actions_this_turn
        while kept < min(len(current), len(sequence)) and current[kept] == sequence[kept]:
            kept += 1
        while len(position.actions_this_turn) > kept:
            position.pop_action()
        player = position.turn
        turns_before = len(position.move_stack)
        events = []
        for action in sequence[kept:]:
            events.append(
                Event("action", {"action": str(action), "text": position.describe_action(action)})
            )
            position.push_action(action)
        if len(position.move_stack) > turns_before:  # a character came home: the turn is over
            events.append(self._commit(player, position.move_text(position.move_stack[-1])))
        return events

    def _on_input(self, player_input: PlayerInput) -> list[Event]:
        if player_input.kind == CANCEL and self.empty_turn_offered:
            self.empty_turn_offered = False  # (the screen's Cancel beside the question)
            return []
        if player_input.kind != DONE or self.board != self.expected():
            return []
        position = self.position
        player = position.turn
        if not position.can_end_turn():
            empty = position.empty_turn()
            if empty is None:
                return []
            if not self.empty_turn_offered:
                self.empty_turn_offered = True  # the instruction asks for a second DONE
                return []
            for action in empty:
                position.push_action(action)
        self.empty_turn_offered = False
        text = position.move_text(position.actions_this_turn)
        position.end_turn()
        return [self._commit(player, text)]

    def _undo_last(self) -> str:
        self.empty_turn_offered = False
        return super()._undo_last()

    def move_words(self, move: str) -> str:
        """A turn that left every piece where it was (a stone there and back, the second DONE's
        turn) is said so, with its notation: a trial read "take back a1-a2 a2-a1" as a move
        nobody made (the camera cannot tell which stone went out and back)."""
        try:
            turn = parse_turn(move)
        except NotationError:
            return move
        if there_and_back(turn):
            return _("the turn with every piece where it was ({move})").format(move=move)
        return move

    def _undone_too(self) -> str:
        """A take-back mid-turn takes back the turn before: this turn's actions go too (as
        Arimaa's steps; a trial: the prompt did not say so)."""
        if self.position.actions_this_turn:
            return _("The actions made this turn go back too")
        return ""

    def _fix_sentences(self, expected: dict[str, str], board: dict[str, str]) -> list[str]:
        """As every game's, but a character taken off its stone on its own is named as the
        figurine it is: "Put Green's character back on d1", "Move Green's character from f3
        back to d1" - not "Swap the green stone on d1 for the green stone with its character"
        (a trial). A stone that moved with its character is named as before."""
        moved, board = _character_fixes(expected, board)
        return moved + phrases.fix_sentences(expected, board, name_at=self._fix_name)

    # -- instructions ---------------------------------------------------------------------------
    def _turn_instruction(self) -> Instruction:
        position = self.position
        player = position.turn
        name = player_name(player)
        actions = position.actions_this_turn
        if not actions and not position.legal_actions():
            return Instruction(
                text=_("{player} cannot move: press DONE to pass").format(player=name),
                kind="confirm",
                player=player,
                expected=self.expected(),
            )
        highlights: dict[str, str] = {}
        for action in actions:
            highlights.setdefault(action.src, FROM)
            highlights[action.dst] = TO
        if not actions and self.empty_turn_offered:
            return Instruction(
                text=_(
                    "{player}: press DONE again to end your turn with every piece where it was"
                ).format(player=name),
                kind="confirm",
                player=player,
                expected=self.expected(),
                detail=_(
                    "Nothing has moved. A stone moved and moved back is a turn; "
                    "or move a stone or your character"
                ),
            )
        if not actions:
            return Instruction(
                text=_("{player}: move a stone or your character").format(player=name),
                kind="move",
                player=player,
                expected=self.expected(),
                detail=_("Up to two stone moves and one character move, then press DONE"),
            )
        left = _actions_left(actions)
        return Instruction(
            text=_("{player}: press DONE to end your turn").format(player=name),
            kind="move",
            player=player,
            highlights=highlights,
            expected=self.expected(),
            detail=(
                _("So far {moves}; you may still {actions}").format(
                    moves=position.move_text(actions), actions=left
                )
                if left
                else _("So far {moves}").format(moves=position.move_text(actions))
            ),
        )

    def _board_instruction(self, board: dict[str, str]) -> Instruction:
        expected = self.expected()
        action = _single_action(expected, board)
        error = self.position.action_error(action) if action is not None else None
        if action is not None and error:
            fix = self._fix_sentences(expected, board)
            return Instruction(
                text=phrases.join_sentences(fix),
                kind="illegal",
                player=self.position.turn,
                highlights={action.src: ERROR, action.dst: ERROR},
                expected=expected,
                detail=rule_text(error),
            )
        return self._restore_instruction(board)


def _character_fixes(
    expected: dict[str, str], board: dict[str, str]
) -> tuple[list[str], dict[str, str]]:
    """The sentences that put each character lifted off its stone back on it (its stone
    still there, the figurine gone or on another cell), and the board as it is once they are
    done - for the plain sentences to fix the rest."""
    sentences: list[str] = []
    fixed = dict(board)
    for cell, cls in expected.items():
        if not cls.endswith(CHARACTER_SUFFIX):
            continue
        colour = cls.removesuffix(CHARACTER_SUFFIX)
        if board.get(cell) != colour:
            continue  # there as it was, or its stone gone with it (a stone's move)
        name = player_name(colour)
        elsewhere = [c for c, k in board.items() if k == cls and expected.get(c) != cls]
        on = expected.get(elsewhere[0]) if len(elsewhere) == 1 else ""
        if len(elsewhere) == 1 and (on is None or not on.endswith(CHARACTER_SUFFIX)):
            where = elsewhere[0]  # on another stone (its own or not), or on an empty cell
            sentences.append(
                _("Move {player}'s character from {cell} back to {home}").format(
                    player=name, cell=where, home=cell
                )
            )
            if where in expected:
                fixed[where] = expected[where]
            else:
                del fixed[where]
        else:
            sentences.append(
                _("Put {player}'s character back on {cell}").format(player=name, cell=cell)
            )
        fixed[cell] = cls
    return sentences, fixed


def _key(position: SenseiPosition) -> tuple[Any, ...]:
    return tuple(sorted(position.cells().items())), len(position.actions_this_turn)


def _actions_left(actions: tuple[Action, ...]) -> str:
    stones = sum(1 for a in actions if a.piece == STONE)
    character = any(a.piece == CHARACTER for a in actions)
    if stones < 2 and not character:
        return _("move a stone or your character")
    if stones < 2:
        return _("move a stone")
    if not character:
        return _("move your character")
    return ""


def _single_action(expected: dict[str, str], board: dict[str, str]) -> Action | None:
    """The one physical action that turns `expected` into `board`, if it looks like one."""
    diff = phrases.BoardDiff.between(expected, board)
    if len(diff.removed) == 1 and len(diff.added) == 1 and not diff.changed:
        (src, was), (dst, now) = next(iter(diff.removed.items())), next(iter(diff.added.items()))
        if was == now:
            return Action(STONE, src, dst)
    froms = [c for c, (was, now) in diff.changed.items() if was.endswith(CHARACTER_SUFFIX)]
    if len(diff.changed) == 2 and not diff.added and not diff.removed:
        tos = [c for c, (was, now) in diff.changed.items() if now.endswith(CHARACTER_SUFFIX)]
        if len(froms) == 1 and len(tos) == 1:
            return Action(CHARACTER, froms[0], tos[0])
    if len(diff.changed) == 1 and len(froms) == 1 and len(diff.added) == 1 and not diff.removed:
        (dst, now) = next(iter(diff.added.items()))  # the character put on an empty cell
        if now.endswith(CHARACTER_SUFFIX):
            return Action(CHARACTER, froms[0], dst)
    return None
