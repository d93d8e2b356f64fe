"""Errors a user can cause. The CLI prints their message on one line, never a traceback.

Every message names what is wrong and, where it helps, what to do about it.
"""


class UserError(Exception):
    """Bad input from a person or a file: the message is shown as is."""


class NotationError(UserError):
    """Move or position text that cannot be read (unknown square, bad token, ...)."""


class IllegalMoveError(UserError):
    """A well-formed move that the rules do not allow in this position."""


class OptionError(UserError):
    """An unknown game option or a value the option does not take."""


class RecordError(UserError):
    """A game record (JSON, move list, database) that is malformed or from a newer version."""


class PositionMismatch(UserError):
    """A calibration photo that does not show the position it was said to show. `cells` names
    the cells that look otherwise, so a screen can mark them instead of listing them."""

    def __init__(self, message: str, cells: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.cells = tuple(cells)
