"""A piece that steps behind a leaning piece of its colour, once the camera has learned that
lean (vision.standing's lean looks), may look just like the lean and read empty. The referee
then takes the cell as the camera read it before it knew the lean (`Observation.leaned`,
`Referee.seen_board`) when that makes the board a legal move.

Found by a review: Arimaa on a chess set, the synthetic dark-wood chessboard, a camera 30
degrees off vertical (table seed 5: it looks from the a-file side, so a piece on g5 leans over
h5). The gold camel (the white queen) stands on g5 and the camera learns h5's look under its
lean; then a gold rabbit steps h4-h5, behind the camel. h5 reads empty, the rabbit seemed to
vanish, and the referee asked "Which gold piece is on g5 now?" - either answer recorded a turn
that lost a piece. Now it records the rabbit's step. (The synthetic camera now has its
optical centre at the picture's centre, as a real one does, and this rabbit shows enough of
itself to read white; the hidden reading is given to the referee as the review saw it.)"""

from __future__ import annotations

import json

import pytest
from arimaa_chess_table import ChessTable

from companion.errors import UserError
from companion.observation import EMPTY, Observation
from companion.referee.protocol import PlayerInput
from companion.referee.runner import observation_from_json

TURNS = [
    [("d2", "d3"), ("d3", "c3"), ("c3", "c4"), ("d1", "d2")],
    [("a7", "a6")],
    [("d2", "d3"), ("d3", "e3"), ("e3", "f3"), ("f3", "g3")],  # the camel
    [("a6", "a5")],
    [("g3", "g4"), ("g4", "g5"), ("h2", "h3"), ("h3", "h4")],  # camel on g5, rabbit to h4
    [("a5", "a4")],
]


def play_to_the_lean(style: str, seed: int) -> ChessTable:
    table = ChessTable(30.0, style=style, seed=seed)
    table.hold()
    for _ in range(2):
        table.session.handle(PlayerInput("choose", "chess"))
        table.hold()
    for turn in TURNS:
        for origin, dest in turn:
            table.step(origin, dest)
        assert table.referee.position.cells() == table.physical(), (turn, table.steps())
        if "press DONE" in table.referee.instruction.text:
            table.session.handle(PlayerInput("done"))
            table.hold(5)
    return table


def test_a_rabbit_stepping_behind_its_camel_is_recorded_as_its_step():
    table = play_to_the_lean("dark-wood", 5)
    assert [k for k, _ in table.tracker.calibration.lean_looks["h5"]] == ["white"] * 4
    before = len(table.steps())
    seen = table.tracker.last_observation  # the board before the step, as the camera read it
    assert seen.cells["h4"] == "white" and seen.cells["g5"] == "white"
    # The rabbit steps h4-h5 behind the camel and hides there wholly: the camera reads h5 as
    # the camel's lean it learned (empty), keeping what it read first. (Since the synthetic
    # camera's optical centre is at the picture's centre, as a real camera's is, this rabbit
    # shows enough of itself to read white: the reading is given as the review saw it.)
    table.cells["h5"] = table.cells.pop("h4")
    table.figures["h5"] = table.figures.pop("h4")
    hiding = Observation(
        cells={**seen.cells, "h4": EMPTY, "h5": EMPTY},
        confidence=seen.confidence,
        layout=seen.layout,
        hidden={**seen.hidden, "h5": "g5"},
        leaned={"h5": "white"},
    )
    table.session.observe(hiding)
    assert table.steps()[before:] == ["Rh4n"], table.referee.instruction.text
    assert table.referee.position.cells() == table.physical()


def test_a_rabbit_stepping_behind_its_camel_reads_as_itself():
    """The same step seen through the camera: the rabbit shows above or beside the camel's
    lean and reads white, not as the lean."""
    table = play_to_the_lean("dark-wood", 5)
    before = len(table.steps())
    table.step("h4", "h5")
    observation = table.tracker.last_observation
    assert observation.hidden.get("h5") == "g5"
    assert observation.cells["h5"] == "white" and observation.leaned == {}
    assert table.steps()[before:] == ["Rh4n"], table.referee.instruction.text
    assert table.referee.position.cells() == table.physical()


def test_the_cells_read_from_a_lean_travel_with_the_observation_as_json():
    observation = Observation(cells={"e7": "black", "e8": EMPTY}, leaned={"e8": "black"})
    data = json.loads(json.dumps(observation.to_json()))
    assert data["leaned"] == {"e8": "black"}
    again = observation_from_json(data)
    assert again.leaned == {"e8": "black"}
    assert again.occupied_without_leans() == {"e7": "black", "e8": "black"}
    assert "leaned" not in Observation(cells={"e8": EMPTY}).to_json()
    with pytest.raises(UserError, match="leaned"):
        observation_from_json({**data, "leaned": ["e8"]})
