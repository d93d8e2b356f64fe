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


EXCERPT_CHARS = 60


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """At most `limit` characters of some input, on one line, for quoting it in a message
    (a 60 MB file quoted whole would bury the message)."""
    text = " ".join(str(text)[: limit * 4].split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
