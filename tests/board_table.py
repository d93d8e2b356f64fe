"""A board the referee tests play on: what is on it, and what the camera reads of it."""

from companion.referee.core import Referee, observation_of


class Table:
    """A board `position` starts on, with a referee watching it (`records`: its records).
    `show` changes the board (cell -> class, None: the piece taken off) and hands the referee
    what the camera reads: the board with `misread` on top (cell -> class, None: read empty),
    `unknown` cells, the cells a nearer piece may hide (`hidden`: cell -> the piece's cell)
    and the reader's confidence where it was unsure (`unsure`: cell -> 0..1); each reading a
    frame of its own."""

    def __init__(self, position, records=None):
        self.referee = Referee(position.copy(), records=records)
        self.board = dict(position.cells())
        self.names = position.cell_names()
        self.frame = 0
        self.show()

    def show(self, misread=None, hidden=None, unknown=(), unsure=None, **changes):
        for cell, kind in changes.items():
            if kind is None:
                self.board.pop(cell, None)
            else:
                self.board[cell] = kind
        seen = dict(self.board)
        for cell, kind in (misread or {}).items():
            if kind is None:
                seen.pop(cell, None)
            else:
                seen[cell] = kind
        self.frame += 1
        observation = observation_of(
            self.names, seen, hidden=hidden, unknown=unknown, frame=self.frame, confidence=unsure
        )
        return self.referee.observe(observation)

    @property
    def instruction(self):
        return self.referee.instruction
