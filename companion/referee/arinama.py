"""Refereeing Arinama: a new stone -> the flips it causes -> wait for them -> next player.

The players place one stone; the referee works out the flips (the placed stone itself too,
on a self-flip), records the placement at once and says "Turn d4 and e5 to black". Until the
board shows every flip, each difference is something to fix: a forgotten flip is still
"Turn d4 to black", a wrong one "Turn e6 back to white", and a second stone put down too early
"Take the white stone off f6". The next player's stone only counts once the board is right.
"""

from __future__ import annotations

from companion.errors import IllegalMoveError
from companion.games.arinama import ArinamaPosition, PlacementEffects, other
from companion.i18n import _, capitalise, colour_adj, colour_noun, ngettext
from companion.i18n import player as player_name
from companion.referee import phrases
from companion.referee.core import Referee
from companion.referee.protocol import ERROR, FLIP, TARGET, Event, Instruction


class ArinamaReferee(Referee[ArinamaPosition]):
    game = "arinama"
    piece_word = "stone"

    def change_phrase(self, cells: list[str], want: str) -> str:
        """ "Turn d4 and e5 to black" for the flips of the last stone; "Turn b4 back to white"
        for a stone that was turned but should not have been."""
        flips = self._last_flips()
        todo = [c for c in cells if c in flips]
        back = [c for c in cells if c not in flips]
        sentences = []
        if todo:
            sentences.append(
                _("Turn {cells} to {colour}").format(
                    cells=phrases.cell_list(todo), colour=colour_noun(want)
                )
            )
        if back:
            sentences.append(
                _("Turn {cells} back to {colour}").format(
                    cells=phrases.cell_list(back), colour=colour_noun(want)
                )
            )
        return ". ".join(sentences)

    def _last_effects(self) -> PlacementEffects | None:
        """What the last placement did (None before the first), from the position before it."""
        if not self.position.move_stack:
            return None
        before = self.position.copy()
        return before.placement_effects(before.pop())

    def _last_flips(self) -> set[str]:
        """The cells the last placement turned over (the placed stone too, on a self-flip)."""
        effects = self._last_effects()
        if effects is None:
            return set()
        return set(effects.flipped) | ({effects.cell} if effects.self_flip else set())

    # -- moves --------------------------------------------------------------------------------
    def _placement(self, board: dict[str, str]) -> PlacementEffects | None:
        """The legal placement `board` shows (one stone added, of the mover's colour or the
        colour it ends), or None."""
        diff = phrases.BoardDiff.between(self.expected(), board)
        if len(diff.added) != 1 or diff.removed:
            return None
        cell, colour = next(iter(diff.added.items()))
        try:
            effects = self.position.placement_effects(cell)
        except IllegalMoveError:
            return None
        if colour not in (effects.mover, effects.after()[cell]):
            return None  # the other player's colour: `_board_instruction` says so
        return effects

    def _accepts(self, board: dict[str, str]) -> bool:
        return self._placement(board) is not None

    def _on_board(self, board: dict[str, str]) -> list[Event]:
        effects = self._placement(board)
        if effects is None:
            return []
        event = self._accept(effects.cell, flips=list(effects.flipped), self_flip=effects.self_flip)
        return [event]

    def _catch_up(self, board: dict[str, str]) -> list[Event]:
        # After a restart: a stone placed while the companion was down counts only on a board
        # that is otherwise right (the flips of the last move may still be pending).
        if not self.resumed:
            return []
        diff = phrases.BoardDiff.between(self.expected(), board)
        if len(diff.added) != 1 or diff.removed:
            return []
        cell = next(iter(diff.added))
        try:
            after = self.position.placement_effects(cell).after()
        except IllegalMoveError:
            return []
        if any(c not in after for c in diff.changed):
            return []
        return self._on_board(board)

    def _resumed_instruction(self, board: dict[str, str]) -> Instruction:
        diff = phrases.BoardDiff.between(self.expected(), board)
        if diff.changed or diff.removed:  # the last move's flips may be what is missing
            return self._unsettled_instruction(board)
        return self._board_instruction(board)

    def _restore_detail(self) -> str:
        """Before the board has shown the last move's flips, what is wrong is not a board to
        put back as it was (a trial: "Take the white stone off d4. Turn c3 to black (Put the
        board back as it was)" - c3 had never been black): the next stone waits for them."""
        flips = self._last_flips()
        unturned = (
            set(phrases.BoardDiff.between(self.expected(), self.board).changed) & flips
            if self.board is not None
            else set()
        )
        if not self.settled and not self.calibration_pieces and unturned:
            # (not after a take-back or a restart whose board shows the flips made - a review)
            return _(
                "First the stones the last move turns, as the board must show them; then "
                "{player} places a stone"
            ).format(player=player_name(self.position.turn))
        return super()._restore_detail()

    # -- instructions ---------------------------------------------------------------------------
    def _turn_instruction(self) -> Instruction:
        player = self.position.turn
        legal = self.position.legal_moves()
        return Instruction(
            text=_("{player}: place a stone").format(player=player_name(player)),
            kind="move",
            player=player,
            highlights={c: TARGET for c in legal},
            expected=self.expected(),
            detail=_("Next to one of your stones") if self.position.placements[player] else "",
        )

    def _unsettled_instruction(self, board: dict[str, str]) -> Instruction:
        instruction = self._restore_instruction(board)
        diff = phrases.BoardDiff.between(self.expected(), board)
        if diff.changed and not diff.added and not diff.removed:
            # Only flips to make: the normal step after a placement (or a forgotten flip).
            return Instruction(
                text=instruction.text,
                kind="flip",
                player=self.position.turn if self.position.move_stack else None,
                highlights={c: FLIP for c in diff.changed},
                expected=instruction.expected,
                detail=self._flip_detail(set(diff.changed)),
            )
        return instruction

    def _flip_detail(self, cells: set[str]) -> str:
        """Why the stones on `cells` (those still to turn) turn, in the rule's words: "The
        white stones on d4 and e5 each touch exactly three black stones now", "The black stone
        on d3 touches exactly three white stones" - or, when none of them is one the last
        stone turns (a stone turned by mistake, the right ones done), that only those turn (it
        gave the last flip's reason for a stone that no rule turns)."""
        effects = self._last_effects()
        if effects is None:
            return ""
        mover, rival = effects.mover, other(effects.mover)
        if not cells & self._last_flips():
            return _("Only stones that touch exactly three {mover} stones turn over").format(
                mover=colour_adj(mover)
            )
        reasons = []
        flipped = [c for c in effects.flipped if c in cells]  # (the others are turned already)
        if flipped:
            reasons.append(
                ngettext(
                    "The {rival} stone on {cells} touches exactly three {mover} stones now",
                    "The {rival} stones on {cells} each touch exactly three {mover} stones now",
                    len(flipped),
                ).format(
                    rival=colour_adj(rival),
                    cells=phrases.cell_list(flipped),
                    mover=colour_adj(mover),
                )
            )
        if effects.self_flip and effects.cell in cells:
            reasons.append(
                _("The {mover} stone on {cell} touches exactly three {rival} stones").format(
                    mover=colour_adj(mover), cell=effects.cell, rival=colour_adj(rival)
                )
            )
        return ". ".join(reasons)

    def _board_instruction(self, board: dict[str, str]) -> Instruction:
        expected = self.expected()
        diff = phrases.BoardDiff.between(expected, board)
        player = self.position.turn
        if diff.changed and not diff.added and not diff.removed:
            return self._unsettled_instruction(board)  # stones to turn over
        theirs = [c for c, colour in diff.added.items() if colour != player]
        if len(diff.added) == 2 and len(theirs) == 1 and not diff.removed and not diff.changed:
            # a stone of each colour (a trial: "One stone per turn: take the stones off b5 and
            # c4" named no colour and took the mover's legal stone too)
            mine = next(c for c in diff.added if c != theirs[0])
            try:
                self.position.placement_effects(mine)
            except IllegalMoveError:
                pass  # the mover's stone may not stay either: both are named below
            else:
                return Instruction(
                    text=_("It is {player}'s turn: take {stone} off {cell}").format(
                        player=player_name(player),
                        stone=phrases.piece_phrase("stone", diff.added[theirs[0]]),
                        cell=theirs[0],
                    ),
                    kind="illegal",
                    player=player,
                    highlights={theirs[0]: ERROR},
                    expected={**expected, mine: player},
                )
        if len(diff.added) > 1 and not diff.removed and not diff.changed:
            cells = list(diff.added)
            return Instruction(
                text=_("One stone per turn: take the stones off {cells}").format(
                    cells=phrases.cell_list(cells)
                ),
                kind="illegal",
                player=player,
                highlights={c: ERROR for c in cells},
                expected=expected,
                detail=_("Then {player} places one stone").format(player=player_name(player)),
            )
        if len(diff.added) == 1 and not diff.removed:
            cell, colour = next(iter(diff.added.items()))
            if colour != player:
                return Instruction(
                    text=_("It is {player}'s turn: take {stone} off {cell}").format(
                        player=player_name(player),
                        stone=phrases.piece_phrase("stone", colour),
                        cell=cell,
                    ),
                    kind="illegal",
                    player=player,
                    highlights={cell: ERROR},
                    expected=expected,
                )
            try:
                self.position.placement_effects(cell)
            except IllegalMoveError as exc:
                return Instruction(
                    text=_("Take {stone} off {cell}").format(
                        stone=phrases.piece_phrase("stone", colour), cell=cell
                    ),
                    kind="illegal",
                    player=player,
                    highlights={cell: ERROR},
                    expected=expected,
                    detail=_illegal_detail(str(exc), cell, player),
                )
        return self._restore_instruction(board)


def _illegal_detail(message: str, cell: str, player: str) -> str:
    """Why a stone may not go on `cell`, in the table's language (the game's own English
    sentence when it is another reason)."""
    if message.startswith(f"{cell} does not touch"):
        return _(
            "{cell} does not touch a {colour} stone: every stone after your first must touch "
            "one of your own by edge or corner"
        ).format(cell=cell, colour=colour_adj(player))
    return capitalise(message)
