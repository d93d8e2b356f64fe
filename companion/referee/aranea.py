"""Refereeing Aranea: ROLL -> the value and its legal uses -> the move seen is checked.

The dice are rolled by the companion (`companion.dice`), so every roll is recorded the moment
it is shown and can never be rolled again after a crash or an undo. Then the players move and
the referee compares the board with what each use of the roll would do (`use_effects`):

- exactly the board after a legal use: accepted;
- part of the way there: the rest is said - "Your stone goes on inward to r3-4" (the landing
  cascade), "Give the blue stone on r2-7 back to Blue" (a knock-off), "Move your stone from
  r1-1 to r1-4" (the knocked-off stone taken off first);
- a use that ends on a taken centre square: "Centre 4 is taken: use the roll another way";
- anything else: put the board back.

With no legal use of the roll the turn passes by itself (the Decision of rules.md), with
`must_use_roll=False` DONE passes. The game ends when a move makes three in a line or five in
the centre.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from companion.dice import move_dice_words
from companion.errors import IllegalMoveError
from companion.games.aranea import (
    AMBER,
    PASS,
    PLACE,
    RING_MOVE,
    ROLL,
    WEB,
    AraneaMove,
    AraneaPosition,
    UseEffects,
)
from companion.i18n import _
from companion.i18n import player as player_name
from companion.referee import phrases
from companion.referee.core import Referee
from companion.referee.protocol import (
    DONE,
    ERROR,
    FROM,
    REMOVE,
    TARGET,
    Event,
    Instruction,
    PlayerInput,
)
from companion.referee.protocol import ROLL as ROLL_INPUT


@dataclass(frozen=True)
class Use:
    """One possible use of the roll and what it does to the board."""

    move: AraneaMove
    effects: UseEffects
    after: dict[str, str] | None  # the board after it (None: void)


class AraneaReferee(Referee[AraneaPosition]):
    game = "aranea"
    piece_word = "stone"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # The turn (the length of the move stack) on which DONE was pressed to pass with a
        # roll that must be used: that turn's instruction says why nothing happened.
        self.pass_refused_at: int | None = None
        super().__init__(*args, **kwargs)

    def move_words(self, move: str) -> str:
        """Aranea's notation in words: "place" is the stone placed, "pass" the pass, "roll 3-4"
        the roll ("the roll 3 and 4"); a ring move keeps its square ("r2-5")."""
        if move == "place":
            return _("the stone placed")
        if move == "pass":
            return _("the pass")
        dice = move_dice_words(move)
        if dice is not None:
            return _("the roll {dice}").format(dice=dice)
        return move

    # -- the roll -------------------------------------------------------------------------------
    def _on_input(self, player_input: PlayerInput) -> list[Event]:
        position = self.position
        if player_input.kind == ROLL_INPUT and position.awaiting_roll:
            if self.board is not None and self.board != self.expected():
                return []  # first the board must be right
            player = position.turn
            roll = self.dice.roll()
            move = AraneaMove(ROLL, roll=roll)  # as position.roll_move(self.dice)
            self._record("add_roll", roll)
            event = self._accept(move)
            events = [
                Event(
                    "roll",
                    {"player": player, "dice": [roll.a, roll.b], "value": roll.value},
                ),
                event,
            ]
            if not position.awaiting_roll and position.legal_moves() == [AraneaMove(PASS)]:
                events.append(self._accept(AraneaMove(PASS), reason="no legal use"))
            return events
        if player_input.kind == DONE and not position.awaiting_roll:
            if self.board != self.expected():
                return []  # the board's own instruction says what to do first
            if AraneaMove(PASS) in position.legal_moves():
                return [self._accept(AraneaMove(PASS))]
            self.pass_refused_at = len(position.move_stack)  # (a trial: DONE did nothing)
        return []

    def _undo_last(self) -> str:
        self.pass_refused_at = None  # (the turn it was said on is gone)
        return super()._undo_last()

    def nothing_to_undo(self) -> str:
        said = super().nothing_to_undo()
        stack = self.position.move_stack
        if not any(move.kind != ROLL for move in stack):  # (the opening rolls, a first roll)
            return said
        if said and stack and stack[-1].kind == ROLL:
            return _("The dice are rolled: a roll is never taken back, nor the move before it")
        if said and stack and stack[-1].kind == PASS:
            return _("A turn that passed is not taken back")
        return said

    def _last_move_text(self) -> str | None:
        # Rolls are never taken back (no rolling again), and nor are automatic passes.
        stack = self.position.move_stack
        if not stack or stack[-1].kind in (ROLL, PASS):
            return None
        return super()._last_move_text()

    # -- uses of the roll -------------------------------------------------------------------------
    def uses(self) -> list[Use]:
        """Every use of the roll now, legal or void, with the board after it."""
        position = self.position
        if position.awaiting_roll or position.is_game_over():
            return []
        player = position.turn
        candidates = [AraneaMove(PLACE)] + [
            AraneaMove(RING_MOVE, cell=c)
            for c, owner in position.stones.items()
            if owner == player and not WEB[c].is_centre
        ]
        found = []
        for move in candidates:
            try:
                effects = position.use_effects(move)
            except IllegalMoveError:
                continue
            after = None
            if not effects.void:  # played and taken back: cheaper than copying the history
                position.push(move)
                after = position.cells()
                position.pop()
            found.append(Use(move, effects, after))
        return found

    def _accepts(self, board: dict[str, str]) -> bool:
        return any(use.after == board for use in self.uses())

    def _on_board(self, board: dict[str, str]) -> list[Event]:
        for use in self.uses():
            if use.after == board:
                effects = use.effects
                return [
                    self._accept(
                        use.move,
                        path=list(effects.path),
                        knocked_off=[k.cell for k in effects.knocked_off],
                    )
                ]
        return []

    def _partial(self, board: dict[str, str]) -> list[Use]:
        """The uses the board is on its way to, in `uses` order (a placement first): its
        origin lifted, its knock-off taken away (before the stone moves, too), or the stone
        put down part of the way along its landing path. Several when the board does not
        tell them apart yet (a stone knocked off first that two of the mover's stones could
        land on)."""
        expected = self.expected()
        diff = phrases.BoardDiff.between(expected, board)
        if not diff:
            return []
        player = self.position.turn
        found = []
        for use in self.uses():
            effects = use.effects
            knocked = {k.cell for k in effects.knocked_off}
            allowed = set(effects.path) | knocked | ({effects.origin} if effects.origin else set())
            if not diff.cells() <= allowed or diff.changed:
                continue
            placed = [c for c, k in diff.added.items() if k == player]
            if effects.origin and effects.origin in board:
                # the stone that moves is still where it was: only the stones it knocks off
                # may be gone (taken off first, as players often do)
                if diff.added or not diff.removed or not set(diff.removed) <= knocked:
                    continue
            if len(placed) > 1 or any(k != player for k in diff.added.values()):
                continue
            if effects.origin is None and not placed and not (set(diff.removed) & knocked):
                continue  # nothing of a placement to see yet
            found.append(use)
        return found

    # -- instructions ---------------------------------------------------------------------------
    def _turn_instruction(self) -> Instruction:
        position = self.position
        player = position.turn
        name = player_name(player)
        if position.awaiting_roll:
            if position.phase == "opening":
                return Instruction(
                    text=_("{player}: press ROLL to see who starts").format(player=name),
                    kind="roll",
                    player=player,
                    expected=self.expected(),
                    detail=_("The higher roll starts; a tie rolls again"),
                )
            return Instruction(
                text=_("{player}: press ROLL").format(player=name),
                kind="roll",
                player=player,
                expected=self.expected(),
                detail=self._last_turn_detail(),
            )
        value = position.rolled.value
        legal = [u for u in self.uses() if u.after is not None]
        parts = []
        highlights = {}
        if any(u.move.kind == PLACE for u in legal):
            parts.append(_("place a stone on r1-{value}").format(value=value))
        origins = [u.effects.origin for u in legal if u.move.kind == RING_MOVE and u.effects.origin]
        if origins:
            parts.append(_("move {cells}").format(cells=phrases.cell_list(origins, "or")))
        for use in legal:
            if use.effects.origin:
                highlights[use.effects.origin] = FROM
            highlights[use.effects.landing] = TARGET
        detail = (
            _("A 3 and a 4 count as 1") if {position.rolled.a, position.rolled.b} == {3, 4} else ""
        )
        if self.pass_refused_at == len(position.move_stack):
            refused = _("DONE passes only when the {value} cannot be used").format(value=value)
            detail = phrases.join_sentences([refused, detail])
        if AraneaMove(PASS) in position.legal_moves():
            parts.append(_("press DONE to pass"))
        ways = parts[0] if parts else ""
        for part in parts[1:]:
            ways = _("{ways} or {way}").format(ways=ways, way=part)
        return Instruction(
            text=_("{player} rolled {value}: {ways}").format(player=name, value=value, ways=ways),
            kind="move",
            player=player,
            highlights=highlights,
            expected=self.expected(),
            detail=detail or _("The dice: {roll}").format(roll=position.rolled.words),
        )

    def _last_turn_detail(self) -> str:
        """What the turn before the roll asked for came to: a roll that could not be used,
        or - after the opening rolls - who starts and why (the screen went on to "Amber:
        press ROLL" without a word on who had won the roll-off)."""
        stack = self.position.move_stack
        if len(stack) >= 2 and stack[-1].kind == ROLL:  # (only the opening's last roll ends so)
            starter = self.position.turn
            first, second = stack[-2].rolled.value, stack[-1].rolled.value  # Amber's, Blue's
            won, lost = (first, second) if starter == AMBER else (second, first)
            return _("{player} starts: {won} against {lost}").format(
                player=player_name(starter), won=won, lost=lost
            )
        roll = stack[-2].roll if len(stack) >= 2 and stack[-1].kind == PASS else None
        if roll is None:
            return ""
        who = [p for p in self.position.players if p != self.position.turn][0]
        before = self.position.copy()
        before.pop()  # (the pass: the roll as it was to be used)
        if any(m.kind != PASS for m in before.legal_moves()):  # (-o must_use_roll=false)
            return _("{player} passed with the {value}").format(
                player=player_name(who), value=roll.value
            )
        return _("{player} could not use the {value}: the turn passed").format(
            player=player_name(who), value=roll.value
        )

    def _board_instruction(self, board: dict[str, str]) -> Instruction:
        position = self.position
        if position.awaiting_roll:
            instruction = self._restore_instruction(board, kind="illegal")
            return Instruction(
                text=instruction.text,
                kind="illegal",
                player=position.turn,
                highlights=instruction.highlights,
                expected=instruction.expected,
                detail=_("Roll first: {player} presses ROLL").format(
                    player=player_name(position.turn)
                ),
            )
        partial = self._partial(board)
        use = partial[0] if partial else None
        if use is None:
            instruction = self._restore_instruction(board)
            return Instruction(
                text=instruction.text,
                kind="restore",
                player=position.turn,
                highlights=instruction.highlights,
                expected=instruction.expected,
                detail=_("That is not a use of the {value}").format(value=position.rolled.value),
            )
        effects = use.effects
        player = position.turn
        if use.after is None:
            centre = WEB[effects.blocker].number
            fix = phrases.fix_sentences(self.expected(), board, name_at=self.name_at)
            return Instruction(
                text=_("Centre {centre} is taken: use the roll another way").format(centre=centre),
                kind="illegal",
                player=player,
                highlights={effects.blocker: ERROR, **{c: ERROR for c in effects.path}},
                expected=self.expected(),
                detail=phrases.join_sentences(fix),
            )
        sentences, highlights = self._rest_of_use(use, board, partial[1:])
        return Instruction(
            text=phrases.join_sentences(sentences),
            kind="move",
            player=player,
            highlights=highlights,
            expected=use.after,
            detail=_("{player} rolled {value}").format(
                player=player_name(player), value=position.rolled.value
            ),
        )

    def _rest_of_use(
        self, use: Use, board: dict[str, str], others: list[Use]
    ) -> tuple[list[str], dict[str, str]]:
        """What is left of `use` on `board`, part of the way there: the sentences and the
        highlights (stones to give back, where the stone goes, stones to take off). `others`:
        the uses the board cannot yet tell from it - a stone knocked off first that other
        stones of the mover's could land on too are named with it (a review: one of them was
        named, as if the board had said which)."""
        effects, player, position = use.effects, self.position.turn, self.position
        sentences = []
        highlights: dict[str, str] = {}
        for knock in effects.knocked_off:
            if board.get(knock.cell) == knock.owner:
                sentences.append(
                    _("Give {stone} on {cell} back to {player}").format(
                        stone=phrases.piece_phrase("stone", knock.owner),
                        cell=knock.cell,
                        player=player_name(knock.owner),
                    )
                )
                highlights[knock.cell] = REMOVE
        movers = [  # the mover's stones still in place that the board cannot yet tell from it
            u.effects.origin
            for u in others
            if u.effects.origin
            and u.effects.final == effects.final
            and board.get(u.effects.origin) == player
        ]
        if board.get(effects.landing) != player:
            if effects.origin is None and movers:  # a placement, or a move there (a review)
                sentences.append(
                    _("Put a stone on {cell}, or move your stone from {origins} there").format(
                        cell=effects.final, origins=phrases.cell_list(movers, "or")
                    )
                )
                highlights.update(dict.fromkeys(movers, FROM))
            elif effects.origin and board.get(effects.origin) == player:  # (a knock-off first)
                origins = [effects.origin, *movers]
                sentences.append(
                    _("Move your stone from {origin} to {cell}").format(
                        origin=phrases.cell_list(origins, "or"), cell=effects.final
                    )
                )
                highlights.update(dict.fromkeys(origins, FROM))
            elif len(effects.path) > 1:
                sentences.append(
                    _("Your stone goes on inward to {cell}").format(cell=effects.final)
                )
            else:
                sentences.append(_("Put your stone on {cell}").format(cell=effects.final))
            # where it is to go: "put here" (a trial: it said "just moved" of a cell nothing
            # stood on yet, and "moved from" of the own stones it passes inward, which stay)
            highlights.setdefault(effects.landing, TARGET)  # (a stone to give back first)
        extra = [c for c, k in board.items() if k == player and c not in position.stones]
        for cell in extra:
            if cell != effects.final:
                sentences.append(_("Take your stone off {cell}").format(cell=cell))
                highlights[cell] = REMOVE
        return sentences, highlights
