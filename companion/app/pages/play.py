"""The play screen: the referee's instruction, the board as the camera sees it, whose turn,
and the hands indicator."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from companion.app.pages.arimaa_setup import ARRANGE, ArimaaSetup
from companion.app.pages.base import Draw, Page
from companion.geometry import board_geometry
from companion.i18n import _, pgettext
from companion.referee import phrases
from companion.referee.protocol import (
    ASKED,
    BOARD_RIGHT,
    CANCEL,
    CHOOSE,
    DONE,
    ROLL,
    UNDO,
    InputKind,
    Instruction,
    PlayerInput,
)
from display.screens import play

if TYPE_CHECKING:
    from companion.app.controller import App

INPUTS: dict[str, InputKind] = {
    "done": DONE,
    "roll": ROLL,
    "undo": UNDO,
    "cancel": CANCEL,
    "choose": CHOOSE,
    "board-right": BOARD_RIGHT,  # the screen's BOARD IS RIGHT, never a table button
}


# A DONE this soon after the DONE that ended a turn, nothing seen to move since, is the same
# press twice (a bouncing finger, or habit), not the next player's: a trial's quick double DONE
# in Sensei offered Red an empty turn Red never asked for, and a third press ended it.
DOUBLE_DONE_SECONDS = 1.0


class PlayPage(Page):
    name = "play"

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.arimaa_setup = ArimaaSetup(app)
        self.turn_ended_at = float("-inf")  # when a DONE last ended a turn (`app.clock`)
        self.board_at_turn_end: dict[str, str] | None = None  # ... and the board seen then
        # A question's answers as the table's buttons go through them (ROLL the next, DONE
        # takes it): the answers and the one pointed at (a trial: at "Which setup?" and
        # "Which gold piece is on g2 now?" the buttons did nothing - only a tap answered)
        self._answers: tuple[str, ...] = ()
        self._pointed = 0

    def buttons(self) -> dict[str, tuple[str, Any]]:
        # The table's DONE keeps its meaning while something lies on the board: the players
        # say the board is clear on the screen only (BOARD CLEAR), never by a press that may
        # have meant "done" while a hand rested there. BOARD IS RIGHT too is on the screen
        # only: a press meant as "done" must never say the camera is wrong.
        pointed = self.pointed_answer()
        if pointed:  # a question: ROLL points at the next answer, DONE takes it
            return {
                "done": ("choose", pointed),
                "roll": ("next-answer", None),
                "back": ("undo", None),
            }
        return {"done": ("done", None), "roll": ("roll", None), "back": ("undo", None)}

    def pointed_answer(self) -> str:
        """The answer to the referee's question that the table's DONE takes ("" when no
        question is up, or while a setup is arranged on the screen)."""
        referee = self.app.referee
        if referee is None or self.arimaa_setup.current() is not None:
            return ""
        instruction = self.arimaa_setup.offer(referee.instruction)
        answers = instruction.choices if instruction.kind == "choose" else ()
        if answers != self._answers:
            self._answers, self._pointed = answers, 0
        return answers[self._pointed] if answers else ""

    def act(self, kind: str, value: Any) -> None:
        app = self.app
        if self.arimaa_setup.current() is not None:
            self.arimaa_setup.act(kind, value)
        elif (
            kind == "choose" and value == ARRANGE and (side := self.arimaa_setup.side()) is not None
        ):
            self.arimaa_setup.start(side)
        elif kind == "next-answer":
            if self.pointed_answer():
                self._pointed = (self._pointed + 1) % len(self._answers)
        elif kind == "board-clear":
            app.board_clear()
        elif kind == "done" and app.referee is not None:
            referee = app.referee
            if (
                app.clock() - self.turn_ended_at < DOUBLE_DONE_SECONDS
                and (referee.board or {}) == self.board_at_turn_end
            ):
                return  # (nothing moved since: the same press twice)
            moves = len(referee.position.move_stack)
            app.player_input(PlayerInput(DONE))
            if len(referee.position.move_stack) > moves:
                self.turn_ended_at = app.clock()
                self.board_at_turn_end = dict(referee.board or {})
        elif kind in INPUTS and app.referee is not None:
            app.player_input(PlayerInput(INPUTS[kind], value))
        elif kind == "review":
            app.go("review-list")
        elif kind == "new-game":
            app.play_again()

    def piece_labels(self) -> dict[str, str]:
        """Arimaa: the type of every piece on the diagram ("E", "R"), from the referee's
        position - or, during the setup, from the setup being put down. Only where the
        diagram shows the piece the position has there: the camera sees colours, so a cell
        it shows otherwise (a piece moved, one taken off) has no letter it can vouch for -
        nor has the piece a question is about (`ASKED`: the answer is the letter)."""
        referee = self.app.referee
        if referee is None:
            return {}
        shown = referee.shown_position()
        labels: dict[str, str] = shown.piece_labels()
        if referee.board is None or shown is not referee.position:
            return labels  # (a setup to put down: where each piece goes, not yet on the board)
        cells = shown.cells()
        asked = {c for c, role in referee.instruction.highlights.items() if role == ASKED}
        return {
            c: letter
            for c, letter in labels.items()
            if referee.board.get(c) == cells.get(c) and c not in asked
        }

    def header_state(self) -> str:
        """The header's right side: the camera's state, and that the game is not recorded."""
        app, said = self.app, []
        if app.vision_status:
            state = pgettext("camera state", app.vision_status)
            said.append(_("camera: {state}").format(state=state))
        if app.records_problem:
            said.append(_("not recorded"))
        return " · ".join(said)

    def model(self) -> tuple[Draw, object]:
        app = self.app
        referee = app.referee
        assert referee is not None  # the play page is up only during a game
        position = referee.position
        board = referee.board if referee.board is not None else position.cells()
        instruction: Instruction = referee.instruction
        labels = self.piece_labels()
        cell_action = ""
        if self.arimaa_setup.current() is not None:
            board, labels, instruction = self.arimaa_setup.diagram(position.cells(), labels)
            cell_action = "cell"
        else:
            instruction = self.arimaa_setup.offer(instruction)
        pointed = self.pointed_answer()
        if pointed:
            instruction = dataclasses.replace(
                instruction,
                detail=phrases.join_sentences(
                    [instruction.detail, _("ROLL points at the next answer, DONE takes it")]
                ),
            )
        model = play.PlayModel(
            title=position.full_title,
            geometry=board_geometry(position.name, position.options),
            cells=board,
            instruction=instruction,
            turn=position.turn if not position.is_game_over() else None,
            move_label=position.move_label,
            hands=app.hands,
            covered=app.covered,
            covered_near=app.covered_near,
            camera=self.header_state(),
            # (not while the calibration's pieces are still to be taken off: ROLL and DONE wait
            # for that, and buttons that did nothing were a trial's find)
            can_roll=position.awaiting_roll and not referee.calibration_pieces,
            can_done=not referee.calibration_pieces,
            can_say_board_right=cell_action == "" and referee.may_say_board_right(),
            colour_names=app.settings.colour_names,
            piece_labels=labels,
            piece_key=piece_key(position.letter_names(), labels),
            cell_action=cell_action,
            pointed=pointed,
        )
        return play.draw, model


def piece_key(names: dict[str, str], labels: dict[str, str]) -> str:
    """What the letters on the diagram's pieces mean, in the table's words, strongest first,
    only those shown: "E elephant · M camel · ..." (German "E Elefant · M Kamel · H Pferd"
    - H is no Hund). Empty for a game whose pieces carry no letters."""
    shown = set(labels.values())
    return "\u00a0· ".join(
        f"{letter}\u00a0{pgettext('choice', name)}"
        for letter, name in names.items()
        if letter in shown
    )
