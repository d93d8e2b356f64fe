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


# A DONE this soon after the one before, which ended a turn (at once, or held until the hand
# left the board), with nothing moved since, is the same press twice (a bouncing finger, or
# habit), not the next player's: a trial's quick double DONE in Sensei offered Red an empty
# turn Red never asked for, and a third press ended it.
DOUBLE_DONE_SECONDS = 1.0


class PlayPage(Page):
    name = "play"

    def __init__(self, app: App) -> None:
        super().__init__(app)
        self.arimaa_setup = ArimaaSetup(app)
        # the last DONE pressed: when (`app.clock`), and how many moves the game had then
        self.last_done: tuple[float, int] | None = None
        # A question's answers as the table's buttons go through them: ROLL points at one,
        # then the next, and DONE takes the one pointed at - none at first, so a DONE pressed
        # out of habit ("I have set up", "my turn is over") answers nothing (a trial: at
        # "Which setup?" and "Which gold piece is on g2 now?" the buttons did nothing, only a
        # tap answered; a review: a first answer pointed at by itself was taken by such a DONE)
        self._question: Instruction | None = None
        self._pointed: int | None = None

    def buttons(self) -> dict[str, tuple[str, Any]]:
        # The table's DONE keeps its meaning while something lies on the board: the players
        # say the board is clear on the screen only (BOARD CLEAR), never by a press that may
        # have meant "done" while a hand rested there. BOARD IS RIGHT too is on the screen
        # only: a press meant as "done" must never say the camera is wrong.
        if self.answers():  # a question: ROLL points at an answer, DONE takes it
            pointed = self.pointed_answer()
            return {
                "done": ("choose", pointed) if pointed else ("noop", None),
                "roll": ("next-answer", None),
                "back": ("undo", None),
            }
        return {"done": ("done", None), "roll": ("roll", None), "back": ("undo", None)}

    def answers(self) -> tuple[str, ...]:
        """The answers to the referee's question, as the screen offers them (none when no
        question is up, or while a setup is arranged on the screen)."""
        referee = self.app.referee
        if referee is None or self.arimaa_setup.current() is not None:
            return ()
        instruction = self.arimaa_setup.offer(referee.instruction)
        if instruction.kind != "choose" or not instruction.choices:
            return ()
        if instruction != self._question:  # another question: nothing pointed at yet
            self._question, self._pointed = instruction, None
        return instruction.choices

    def pointed_answer(self) -> str:
        """The answer the table's DONE takes ("": none pointed at)."""
        answers = self.answers()
        return answers[self._pointed] if answers and self._pointed is not None else ""

    def act(self, kind: str, value: Any) -> None:
        app = self.app
        if self.arimaa_setup.current() is not None:
            self.arimaa_setup.act(kind, value)
        elif (
            kind == "choose" and value == ARRANGE and (side := self.arimaa_setup.side()) is not None
        ):
            self.arimaa_setup.start(side)
        elif kind == "next-answer":
            answers = self.answers()
            if answers:
                self._pointed = 0 if self._pointed is None else (self._pointed + 1) % len(answers)
        elif kind == "board-clear":
            app.board_clear()
        elif kind == "done" and app.referee is not None:
            if self._pressed_twice():
                return
            self.last_done = (app.clock(), len(app.referee.position.move_stack))
            app.player_input(PlayerInput(DONE))
        elif kind in INPUTS and app.referee is not None:
            app.player_input(PlayerInput(INPUTS[kind], value))
        elif kind == "review":
            app.go("review-list")
        elif kind == "new-game":
            app.play_again()

    def _pressed_twice(self) -> bool:
        """Is this DONE the last one pressed again (DOUBLE_DONE_SECONDS): that one ended a
        turn since - at once, or held until the hand left the board - and nothing was done
        since (no move, no part of a turn: Sensei's actions and Arimaa's steps are taken as
        seen), the board as the turn left it?"""
        referee = self.app.referee
        if self.last_done is None or referee is None or referee.board is None:
            return False
        at, moves = self.last_done
        position = referee.position
        return (
            self.app.clock() - at < DOUBLE_DONE_SECONDS
            and len(position.move_stack) == moves + 1
            and not position.mid_turn
            and referee.board == referee.expected()
        )

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
        if self.answers():
            instruction = dataclasses.replace(
                instruction,
                detail=phrases.join_sentences(
                    [instruction.detail, _("ROLL points at an answer, DONE takes it")]
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
            pointed=self.pointed_answer(),
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
