"""Arimaa's setup arranged on the touchscreen, over the play screen while the referee asks
which setup: the camera sees colours, not types, so the players say here which piece goes
where."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from companion import i18n
from companion.games.arimaa import STANDARD_SETUP
from companion.i18n import _
from companion.referee import phrases
from companion.referee.arimaa import ArimaaReferee, chess_mapping
from companion.referee.protocol import CHOOSE, PICKED, Instruction, PlayerInput

if TYPE_CHECKING:
    from companion.app.controller import App
    from companion.referee import Referee

ARRANGE = "arrange"  # Arimaa's setup choice: arrange the pieces on the screen (SetupArranger)
USE_ARRANGEMENT = "use this"


@dataclass
class SetupArranger:
    """One side's 16 pieces on its two ranks, and two taps swap two pieces, so every
    arrangement it can make has the right pieces. Starts from a setup line (the standard
    setup); the result goes to the referee as `choose <line>`, like a typed setup."""

    side: str
    pieces: dict[str, str]  # square -> piece letter ("E" gold elephant, "r" silver rabbit)
    picked: str | None = None  # the first square of a swap

    @classmethod
    def from_line(cls, side: str, line: str) -> SetupArranger:
        return cls(side, {token[1:]: token[0] for token in line.split()})

    def tap(self, square: str) -> None:
        if square not in self.pieces:
            return
        if self.picked is None:
            self.picked = square
        elif self.picked == square:
            self.picked = None
        else:
            a, b = self.picked, square
            self.pieces[a], self.pieces[b] = self.pieces[b], self.pieces[a]
            self.picked = None

    def line(self) -> str:
        """The setup in arimaa.com notation, rank by rank from a to h ("Ra1 Rb1 ...")."""
        order = sorted(self.pieces, key=lambda sq: (int(sq[1:]), sq[0]))
        return " ".join(f"{self.pieces[sq]}{sq}" for sq in order)


class ArimaaSetup:
    """The arranging screen: shown by the play page (App.page stays "play") while `arranger`
    is set; the play page hands it the actions and the diagram."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.arranger: SetupArranger | None = None  # the setup being arranged by touch
        self.referee: Referee[Any] | None = None  # ... in the game of this referee

    def _on_a_chess_set(self) -> bool:
        """The game arranged is Arimaa played with a chess set."""
        return isinstance(self.referee, ArimaaReferee) and self.referee.chess_set

    def side(self) -> str | None:
        """Arimaa's side to set up while the referee asks which setup; else None."""
        referee = self.app.referee
        if referee is None or not referee.typed_setup:
            return None
        if not referee.position.in_setup or referee.instruction.kind != "choose":
            return None
        turn: str = referee.position.turn
        return turn

    def start(self, side: str) -> None:
        self.arranger = SetupArranger.from_line(side, STANDARD_SETUP[side])
        self.referee = self.app.referee

    def current(self) -> SetupArranger | None:
        """The setup being arranged, while its game goes on: a new game (MENU, then another)
        ends it - else its diagram stayed over the next game's board, and DONE chose an Arimaa
        setup there."""
        if self.arranger is not None and self.app.referee is not self.referee:
            self.arranger = None
        return self.arranger

    def act(self, kind: str, value: Any) -> None:
        arranger = self.arranger
        assert arranger is not None
        if kind == "cell":
            arranger.tap(str(value))
        elif (kind == "choose" and value == USE_ARRANGEMENT) or kind == "done":
            self.arranger = None
            self.app.player_input(PlayerInput(CHOOSE, arranger.line()))
        elif (kind == "choose" and value == "back") or kind in ("undo", "cancel"):
            self.arranger = None

    def offer(self, instruction: Instruction) -> Instruction:
        """The referee's question which setup, with arranging on the screen among the
        answers while a side is to set up."""
        if self.side() is None:
            return instruction
        return dataclasses.replace(instruction, choices=(*instruction.choices, ARRANGE))

    def diagram(
        self, cells: dict[str, str], labels: dict[str, str]
    ) -> tuple[dict[str, str], dict[str, str], Instruction]:
        """The arrangement on the diagram (`cells`: the position's) with its piece types, and
        what to do with it."""
        a = self.arranger
        assert a is not None
        board = {**cells, **{sq: a.side for sq in a.pieces}}
        labels = {**labels, **{sq: letter.upper() for sq, letter in a.pieces.items()}}
        instruction = Instruction(
            text=_("{player}: tap two pieces to swap them").format(player=i18n.player(a.side)),
            kind="choose",
            player=a.side,
            highlights={a.picked: PICKED} if a.picked else {},  # (not "put here": a trial)
            detail=phrases.join_sentences(
                [
                    _("Then put your pieces on the board the same way"),
                    # the players hold chess pieces: which is which (the referee's setup says so)
                    chess_mapping() if self._on_a_chess_set() else "",
                ]
            ),
            choices=(USE_ARRANGEMENT, "back"),
        )
        return board, labels, instruction
