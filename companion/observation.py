"""What the camera saw: the one type that crosses from `vision/` into the core.

`vision` produces Observations of a still board with no hand over it; the referee consumes
them. Plain data, no rules and no OpenCV.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

EMPTY = "empty"
UNKNOWN = "unknown"  # the reader was not sure; never a guess
# A cell read as a class (or empty) whose posterior is below this is *doubtful*: the runner-up
# had a fifth of the belief or more (`Observation.doubtful`). Rare on cells read right, common
# among those read wrong: on the real photos (bench_real.py --found --learn) 1 of 8,769 cells
# read right falls below it and 4 of the 16 read wrong (chess-ray-vision's white pawns at the
# back of e2, 0.60 and 0.78; chesscog's g2 pawn in a shadow, read right since the reader allows
# for a shadow the light field does not follow); on the realistic synthetic
# tables none of 9,796 read right and 3 of 24 read wrong (seed 1).
DOUBTFUL = 0.8


@dataclass(frozen=True)
class Observation:
    cells: dict[str, str]  # every cell of the layout -> a class name, "empty" or "unknown"
    confidence: dict[str, float] = field(default_factory=dict)  # cell -> 0..1
    frame: int = 0  # index of the frame that completed the stillness window
    timestamp: float = 0.0  # time.monotonic() of that frame
    markers_seen: int = 0
    layout: str = ""
    # Cells a nearer piece may hide from the camera -> that nearer cell (a tall piece seen from
    # the side leans over the cell behind it: what the reader says there may be that piece).
    hidden: dict[str, str] = field(default_factory=dict)
    # Cells that may be empty although read as a piece (or unknown): the camera has not
    # learned their empty look - every calibration photo showed a piece there - and they no
    # longer look as they did then, so the piece may have left a print (a logo) that the
    # camera never saw. Learned once the referee takes a board with them empty
    # (vision.relearn.learn_from_board).
    unlearned: tuple[str, ...] = ()
    # Cells read empty as the lean of a nearer piece -> the class it would have read without
    # that (the leaning piece's): because they look like a lean the camera learned there on
    # earlier boards (vision.standing's lean looks; a piece that steps behind the leaning piece
    # and hides there may look the same), or because nothing of that class's colour rises
    # above the leaning piece where a piece standing there would (vision.standing, on a
    # chessboard). The referee takes them as read otherwise when that alone makes the board
    # the position or a legal move.
    leaned: dict[str, str] = field(default_factory=dict)
    # The board in the frame that was read, for the records: JPEG quality -> JPEG bytes (the
    # tracker sets it; the referee stores it with a move the board shows). Not part of the JSON.
    photo: Callable[[int], bytes] | None = field(default=None, compare=False, repr=False)

    def occupied(self) -> dict[str, str]:
        """Cells that hold something the reader is sure of."""
        return {c: k for c, k in self.cells.items() if k not in (EMPTY, UNKNOWN)}

    def occupied_without_leans(self) -> dict[str, str]:
        """`occupied()` with the cells read empty from a learned lean as the class the camera
        would have read there without it."""
        return {**self.occupied(), **self.leaned}

    def renamed(self, classes: Mapping[str, str]) -> Observation:
        """The same observation with each class named as `classes` says (the others as they
        are), wherever it names one: an Arimaa referee on a chess set calls white gold.

        >>> seen = Observation(cells={"e7": "black", "e8": EMPTY}, leaned={"e8": "black"})
        >>> seen.renamed({"black": "silver"}).occupied_without_leans()
        {'e7': 'silver', 'e8': 'silver'}
        """
        return replace(
            self,
            cells={c: classes.get(k, k) for c, k in self.cells.items()},
            leaned={c: classes.get(k, k) for c, k in self.leaned.items()},
        )

    def unknown(self) -> list[str]:
        return sorted(c for c, k in self.cells.items() if k == UNKNOWN)

    def doubtful(self) -> tuple[str, ...]:
        """The cells read as a class or empty that the reader was unsure of: their confidence
        below DOUBTFUL (only where the reader gave one). The referee may read them as they
        were when that alone makes the board the position or a legal move.

        >>> Observation(cells={"e2": EMPTY, "e4": "white"}, confidence={"e2": 0.6}).doubtful()
        ('e2',)
        """
        return tuple(
            c
            for c, k in self.cells.items()
            if k != UNKNOWN and self.confidence.get(c, 1.0) < DOUBTFUL
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "frame": self.frame,
            "cells": dict(self.cells),
            "confidence": {c: round(v, 3) for c, v in self.confidence.items()},
            "markers_seen": self.markers_seen,
            "layout": self.layout,
            **({"hidden": dict(self.hidden)} if self.hidden else {}),
            **({"unlearned": list(self.unlearned)} if self.unlearned else {}),
            **({"leaned": dict(self.leaned)} if self.leaned else {}),
        }
