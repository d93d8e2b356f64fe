"""The demo's simulated players: two careful players who do what the screen says, and the
cheap half of the demo (`simulate_game`: the players against the referee, no camera or
screen)."""

from __future__ import annotations

import random
from typing import Any

from companion import games
from companion.app.settings import Settings
from companion.dice import Dice
from companion.games.base import MoveT, Position
from companion.i18n import _
from companion.referee import PlayerInput, Referee, observation_of
from companion.referee.protocol import DONE, ROLL, InputKind

REPRESS_FRAMES = 90  # demo players press an ignored button again after 3 s
BUTTON_INPUTS: dict[str, InputKind] = {"done": DONE, "roll": ROLL}  # what a press asks


class SimulatedPlayers:
    """Two careful players for the synthetic table: they do what the screen says.

    They place a piece for a move chosen at random (seeded) from the engine's legal moves (in
    Aranea mostly the one that climbs furthest, see `_choose_move`) -
    Arinama: the stone alone, then the flips when told; other games: the whole move - fix the
    board when asked to, press ROLL when the dice are wanted and DONE when a turn needs ending
    or a take-back confirming. Their hands go through `SimTable.transition`, so the camera sees
    real arms over the board.
    """

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.target: dict[str, str] | None = None  # the board the hands are making
        self.pressed_key: tuple[int, str] | None = None  # (plies, instruction) last pressed for
        self.pressed_at = -REPRESS_FRAMES

    def next_board(self, referee: Referee[Any], board: dict[str, str]) -> dict[str, str] | None:
        """The board the players make next, or None when it is a button's turn."""
        instruction = referee.instruction
        position: Position[Any] = referee.position
        if (
            instruction.kind in ("restore", "flip", "illegal", "wait", "setup", "remove")
            and instruction.expected is not None
        ):
            if instruction.expected != board:
                return dict(instruction.expected)
            return None
        if instruction.kind == "move" and board == referee.expected():
            if position.awaiting_roll or position.mid_turn:
                return None  # a roll first / Sensei, Arimaa: the turn is made, DONE is next
            try:
                move = self._choose_move(position)
            except IndexError:
                return None  # nothing legal: the referee passes or ends the game
            if position.move_text(move) == "pass":
                return None
            placed = position.placement(move)
            if placed is not None:  # Arinama: the stone first; the referee then asks for flips
                return {**board, **placed}
            after = position.copy()
            after.push(move)
            return after.cells()  # the whole turn (Sensei's actions, Arimaa's steps)
        return None

    def _choose_move(self, position: Position[MoveT]) -> MoveT:
        """A random legal move; in games that measure a player's `progress` (Aranea) mostly the
        move that gets furthest (random uses go round the web for a thousand moves or more, and
        the demo is to finish its game)."""
        if position.progress(position.turn) is None or self.rng.random() < 0.05:
            return position.random_move(self.rng)
        player = position.turn
        probe = position.copy()

        def height(move: MoveT) -> tuple[int, float]:
            probe.push(move)
            outcome = probe.outcome()
            climb = probe.progress(player) or 0.0
            probe.pop()
            return (1 if outcome and outcome.winner == player else 0, climb + self.rng.random())

        return max(position.legal_moves(), key=height)

    def button(self, referee: Referee[Any], frame: int) -> str | None:
        """The button the players press now, if any. A press the referee ignored (the board
        was not right yet) is tried again after a while, as people do."""
        instruction = referee.instruction
        key = (len(referee.position.move_stack), instruction.text)
        if key == self.pressed_key and frame - self.pressed_at < REPRESS_FRAMES:
            return None
        press = None
        if instruction.kind == "choose" and instruction.choices:
            press = f"choose:{instruction.choices[0]}"  # e.g. Arimaa's standard setup
        elif instruction.kind == "roll":
            press = "roll"
        elif instruction.kind == "confirm":
            press = "done"
        elif instruction.kind == "move" and _("DONE") in instruction.text:
            press = "done"  # Sensei: the turn's actions are made
        if press:
            self.pressed_key, self.pressed_at = key, frame
        return press


def simulate_game(
    game: str,
    *,
    options: dict[str, Any] | None = None,
    seed: int = 0,
    max_moves: int = 500,
    max_actions: int = 20000,
) -> tuple[int, str]:
    """The demo's players against the referee, the boards they make handed over as they are
    (no camera, no screen): the cheap half of the demo, for sweeping many seeds. Returns
    (moves, outcome or "unfinished"); raises RuntimeError where the demo would stall - the
    players have nothing to do and the referee waits for them."""
    settings = Settings(game=game)
    if options:
        settings.options[game] = options
    position = games.get(game).new(settings.game_options(game))
    referee = Referee(position, dice=Dice(seed=seed))
    names = referee.position.cell_names()
    players = SimulatedPlayers(seed)
    board: dict[str, str] = {}
    referee.observe(observation_of(names, board))
    idle = 0
    for step in range(max_actions):
        position = referee.position
        # over once the referee says so: after the last move's flips or capture are made
        if referee.instruction.kind == "game-over" or len(position.move_stack) >= max_moves:
            outcome = position.outcome()
            return len(position.move_stack), str(outcome) if outcome else "unfinished"
        before = (len(position.move_stack), referee.instruction)
        target = players.next_board(referee, board)
        if target is not None and target != board:
            board = target
            referee.observe(observation_of(names, board, frame=step))
        else:
            # Time passes as in the demo: a press the referee ignored is tried again later.
            action = players.button(referee, step * REPRESS_FRAMES // 4)
            if action and action.startswith("choose:"):
                referee.handle(PlayerInput("choose", action.split(":", 1)[1]))
            elif action:
                referee.handle(PlayerInput(BUTTON_INPUTS[action]))
        idle = idle + 1 if (len(position.move_stack), referee.instruction) == before else 0
        if idle > 20:
            raise RuntimeError(
                f"{game} seed {seed} stalls at move {len(position.move_stack)}: the referee "
                f"says {referee.instruction.text!r} and the players have nothing to do"
            )
    raise RuntimeError(f"{game} seed {seed}: no end after {max_actions} actions")
