"""Plain words for the referee's instructions: lists of cells, and what to fix on a board.

Instructions are read at arm's length from a small screen, so they are short sentences with
the cells named the way the rulebook names them ("Turn d4 and e5 to black").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.i18n import _, capitalise, colour_adj, ngettext, pgettext

MAX_LISTED = 4  # name at most this many cells in one sentence; the screen highlights them all


def cell_list(cells: list[str] | tuple[str, ...] | set[str], conjunction: str = "and") -> str:
    """'d4', 'd4 and e5', 'c3, d4 and e5', 'c3, d4, e5 and 3 more' ("or" lists choices), in
    the table's language."""
    items = sorted(cells, key=cell_sort_key)
    if len(items) > MAX_LISTED:
        shown = items[: MAX_LISTED - 1]
        more = len(items) - len(shown)
        if conjunction == "or":
            text = ngettext("{cells} or {count} more", "{cells} or {count} more", more)
        else:
            text = ngettext("{cells} and {count} more", "{cells} and {count} more", more)
        return text.format(cells=", ".join(shown), count=more)
    if len(items) <= 1:
        return "".join(items)
    text = _("{cells} or {last}") if conjunction == "or" else _("{cells} and {last}")
    return text.format(cells=", ".join(items[:-1]), last=items[-1])


def piece_phrase(kind: str, cls: str, count: int = 1, case: str = "object") -> str:
    """A piece named in an instruction: "the black stone", "the gold dogs" ("den schwarzen
    Stein", "die goldenen Hunde"). `kind`: "stone", "character" (a Sensei stone with its
    character), "piece", or an Arimaa letter (e, m, h, d, c, r). `case`: "object" (what an
    instruction acts on), "subject" (what a sentence is about) or "after" (after "by", "with":
    German's dative); the last two name one piece."""
    colour = colour_adj(cls)
    if case == "subject":
        return _subject(kind).format(colour=colour)
    if case == "after":
        return _after(kind).format(colour=colour)
    if kind == "stone":
        text = ngettext("the {colour} stone", "the {colour} stones", count)
    elif kind == "character":
        text = ngettext(
            "the {colour} stone with its character",
            "the {colour} stones with their characters",
            count,
        )
    elif kind == "e":
        text = ngettext("the {colour} elephant", "the {colour} elephants", count)
    elif kind == "m":
        text = ngettext("the {colour} camel", "the {colour} camels", count)
    elif kind == "h":
        text = ngettext("the {colour} horse", "the {colour} horses", count)
    elif kind == "d":
        text = ngettext("the {colour} dog", "the {colour} dogs", count)
    elif kind == "c":
        text = ngettext("the {colour} cat", "the {colour} cats", count)
    elif kind == "r":
        text = ngettext("the {colour} rabbit", "the {colour} rabbits", count)
    elif kind == "king":
        text = ngettext("the {colour} king", "the {colour} kings", count)
    elif kind == "queen":
        text = ngettext("the {colour} queen", "the {colour} queens", count)
    elif kind == "rook":
        text = ngettext("the {colour} rook", "the {colour} rooks", count)
    elif kind == "bishop":
        text = ngettext("the {colour} bishop", "the {colour} bishops", count)
    elif kind == "knight":
        text = ngettext("the {colour} knight", "the {colour} knights", count)
    elif kind == "pawn":
        text = ngettext("the {colour} pawn", "the {colour} pawns", count)
    else:
        text = ngettext("the {colour} piece", "the {colour} pieces", count)
    return text.format(colour=colour)


def _subject(kind: str) -> str:
    if kind == "stone":
        return pgettext("subject", "the {colour} stone")
    if kind == "e":
        return pgettext("subject", "the {colour} elephant")
    if kind == "m":
        return pgettext("subject", "the {colour} camel")
    if kind == "h":
        return pgettext("subject", "the {colour} horse")
    if kind == "d":
        return pgettext("subject", "the {colour} dog")
    if kind == "c":
        return pgettext("subject", "the {colour} cat")
    if kind == "r":
        return pgettext("subject", "the {colour} rabbit")
    return pgettext("subject", "the {colour} piece")


def _after(kind: str) -> str:
    if kind == "stone":
        return pgettext("after a preposition", "the {colour} stone")
    if kind == "e":
        return pgettext("after a preposition", "the {colour} elephant")
    if kind == "m":
        return pgettext("after a preposition", "the {colour} camel")
    if kind == "h":
        return pgettext("after a preposition", "the {colour} horse")
    if kind == "d":
        return pgettext("after a preposition", "the {colour} dog")
    if kind == "c":
        return pgettext("after a preposition", "the {colour} cat")
    if kind == "r":
        return pgettext("after a preposition", "the {colour} rabbit")
    return pgettext("after a preposition", "the {colour} piece")


def cell_sort_key(cell: str) -> tuple[Any, ...]:
    """Natural order: a2 before a10, r1-2 before r1-10."""
    parts: list[Any] = []
    number = ""
    for ch in cell:
        if ch.isdigit():
            number += ch
            continue
        if number:
            parts.append((1, int(number), ""))
            number = ""
        parts.append((0, 0, ch))
    if number:
        parts.append((1, int(number), ""))
    return tuple(parts)


@dataclass(frozen=True)
class BoardDiff:
    """How an observed board differs from the one expected (occupied cells -> class)."""

    added: dict[str, str]  # cell empty in expected, something observed there
    removed: dict[str, str]  # cell held something (expected class), observed empty
    changed: dict[str, tuple[str, str]]  # cell -> (expected class, observed class)

    @classmethod
    def between(cls, expected: dict[str, str], observed: dict[str, str]) -> BoardDiff:
        added = {c: k for c, k in observed.items() if c not in expected}
        removed = {c: k for c, k in expected.items() if c not in observed}
        changed = {
            c: (k, observed[c]) for c, k in expected.items() if c in observed and observed[c] != k
        }
        return cls(added, removed, changed)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def cells(self) -> set[str]:
        return set(self.added) | set(self.removed) | set(self.changed)


def fix_sentences(
    expected: dict[str, str],
    observed: dict[str, str],
    *,
    name_at: Callable[..., str],
    change_phrase: Callable[[list[str], str], str | None] | None = None,
) -> list[str]:
    """Sentences that turn `observed` into `expected`, grouped so that each reads well.

    `name_at(cell, cls, count)` names a piece ("the black stone", "the gold dogs"); `change_phrase`
    (cells, expected class) words a colour change (Arinama: "Turn d4 and e5 to black"); without
    it a changed cell is a piece to swap back.
    """
    diff = BoardDiff.between(expected, observed)
    if len(diff.added) == len(diff.removed) == 1 and not diff.changed:
        (there, seen), (home, want) = (
            next(iter(diff.added.items())),
            next(iter(diff.removed.items())),
        )
        if seen == want:  # one piece moved: one sentence (a trial: "Take the green stone with
            # its character off d3. Put the green stone with its character back on d1")
            return [
                _("Move {piece} from {cell} back to {home}").format(
                    piece=name_at(home, want),
                    cell=there,
                    home=home,  # (named where it belongs)
                )
            ]
    sentences: list[str] = []
    # Extra pieces first: a cell must be clear before something goes back on it.
    by_name: dict[str, list[str]] = {}
    for cell, kind in diff.added.items():
        by_name.setdefault(name_at(cell, kind), []).append(cell)
    for _name, cells in sorted(by_name.items(), key=lambda kv: cell_sort_key(min(kv[1]))):
        pieces = name_at(cells[0], diff.added[cells[0]], len(cells))
        sentences.append(
            _("Take {pieces} off {cells}").format(pieces=pieces, cells=cell_list(cells))
        )
    if diff.changed:
        by_target: dict[str, list[str]] = {}
        for cell, (want, _seen) in diff.changed.items():
            by_target.setdefault(want, []).append(cell)
        for want, cells in sorted(by_target.items()):
            phrase = change_phrase(cells, want) if change_phrase is not None else None
            if phrase is not None:  # the game's own words; None: the plain ones below
                sentences.append(phrase)
            else:
                for cell in sorted(cells, key=cell_sort_key):
                    sentences.append(
                        _("Swap {piece} on {cell} for {other}").format(
                            piece=name_at(cell, diff.changed[cell][1]),
                            cell=cell,
                            other=name_at(cell, want),
                        )
                    )
    by_name = {}
    for cell, kind in diff.removed.items():
        by_name.setdefault(name_at(cell, kind), []).append(cell)
    for _name, cells in sorted(by_name.items(), key=lambda kv: cell_sort_key(min(kv[1]))):
        pieces = name_at(cells[0], diff.removed[cells[0]], len(cells))
        sentences.append(
            _("Put {pieces} back on {cells}").format(pieces=pieces, cells=cell_list(cells))
        )
    return sentences


def join_sentences(sentences: list[str]) -> str:
    """One instruction from several short sentences ("Take ... off c3. Turn d4 to black")."""
    return ". ".join(capitalise(s) for s in sentences if s)
