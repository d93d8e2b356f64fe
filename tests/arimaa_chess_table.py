"""A synthetic chessboard with a chess set on it, a tracker calibrated on its start position
and the Arimaa referee on a chess set in `companion referee`'s session: for tests that play
Arimaa on a chess set end to end, through the camera."""

from __future__ import annotations

import json

from companion import games
from companion.referee.core import Referee
from companion.referee.runner import Session
from vision.calibration import calibrate
from vision.find import find_board
from vision.sim import SimTable, chess_start
from vision.tracker import Tracker

CHESS_SIDES = {"white": "gold", "black": "silver"}  # a chess set's colours are Arimaa's sides


class ChessTable:
    """`style`: the board's colours (vision.sim_pieces.OWN_BOARDS); `logo`: a cell with the US
    Chess logo printed on it; `seed` sets the table (the camera's side among others)."""

    def __init__(self, tilt=12.0, *, style="green-cream", seed=1, logo=None):
        realism = {"board": style, "pieces": "chess", **({"logo": logo} if logo else {})}
        self.table = SimTable(
            "chessboard", seed=seed, size=(960, 540), tilt=tilt, light=(0.9, 1.0), realism=realism
        )
        self.cells, self.figures = chess_start("chessboard")
        start = self.table.render(self.cells, figures=self.figures)
        homography = find_board(start, "chessboard").homography
        self.tracker = Tracker(
            self.table.layout, calibrate(start, homography, self.table.layout, self.cells)
        )
        arimaa = games.get("arimaa")
        self.referee = Referee(arimaa.new(arimaa.options_from({"equipment": "chess"})))
        self.lines: list[str] = []
        self.session = Session(
            self.referee, emit=self.lines.append, json_lines=True, tracker=self.tracker
        )
        self.time = 0.0

    def steps(self):
        """The steps the referee has recorded, in Arimaa notation."""
        events = [e for line in self.lines for e in json.loads(line).get("events", [])]
        return [e["step"] for e in events if e["kind"] == "step"]

    def hold(self, frames=30):
        """Show the board as it stands for `frames` frames (a second at 30 frames a second)."""
        frame = self.table.render(self.cells, figures=self.figures)
        for _ in range(frames):
            self.time += 1 / 30
            self.session.feed_frame(frame, self.time)

    def step(self, origin, dest):
        """Move the piece on `origin` to `dest` by hand, and hold the board."""
        self.cells[dest] = self.cells.pop(origin)
        self.figures[dest] = self.figures.pop(origin)
        self.hold()

    def physical(self):
        """The board as it stands, in Arimaa's sides."""
        return {c: CHESS_SIDES[k] for c, k in self.cells.items()}


def green_cream_start(logo=None):
    """A green-and-cream chessboard seen from 24 degrees with a chess set in its start position
    (`logo`: a cell with an emblem printed on it): (table, the start's picture, the board's
    homography as found by its grid, cells, figures)."""
    realism = {"board": "green-cream", "pieces": "chess", **({"logo": logo} if logo else {})}
    table = SimTable(
        "chessboard", seed=3, size=(960, 540), tilt=24, light=(0.9, 1.0), realism=realism
    )
    cells, figures = chess_start("chessboard")
    start = table.render(cells, figures=figures)
    return table, start, find_board(start, "chessboard").homography, cells, figures
