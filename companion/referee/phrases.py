"""Plain words for the referee's instructions: lists of cells, and what to fix on a board.

Instructions are read at arm's length from a small screen, so they are short sentences with
the cells named the way the rulebook names them ("Turn d4 and e5 to black").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

MAX_LISTED = 4  # name at most this many cells in one sentence; the screen highlights them all


def cell_list(cells: list[str] | tuple[str, ...] | set[str], conjunction: str = "and") -> str:
    """'d4', 'd4 and e5', 'c3, d4 and e5', 'c3, d4, e5 and 3 more' ("or" lists choices)."""
    items = sorted(cells, key=cell_sort_key)
    if len(items) > MAX_LISTED:
        shown = items[: MAX_LISTED - 1]
        return ", ".join(shown) + f" {conjunction} {len(items) - len(shown)} more"
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {conjunction} " + items[-1]


def cell_sort_key(cell: str) -> tuple:
    """Natural order: a2 before a10, r1-2 before r1-10."""
    parts: list = []
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


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


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
    name_at: Callable[[str, str], str],
    change_phrase: Callable[[list[str], str], str] | None = None,
) -> list[str]:
    """Sentences that turn `observed` into `expected`, grouped so that each reads well.

    `name_at(cell, cls)` names a piece ("the black stone", "the gold dog"); `change_phrase`
    (cells, expected class) words a colour change (Arinama: "Turn d4 and e5 to black"); without
    it a changed cell is a piece to swap back.
    """
    diff = BoardDiff.between(expected, observed)
    sentences: list[str] = []
    # Extra pieces first: a cell must be clear before something goes back on it.
    by_name: dict[str, list[str]] = {}
    for cell, kind in diff.added.items():
        by_name.setdefault(name_at(cell, kind), []).append(cell)
    for name, cells in sorted(by_name.items(), key=lambda kv: cell_sort_key(min(kv[1]))):
        sentences.append(f"Take {plural(name, len(cells))} off {cell_list(cells)}")
    if diff.changed:
        by_target: dict[str, list[str]] = {}
        for cell, (want, _seen) in diff.changed.items():
            by_target.setdefault(want, []).append(cell)
        for want, cells in sorted(by_target.items()):
            if change_phrase is not None:
                sentences.append(change_phrase(cells, want))
            else:
                for cell in sorted(cells, key=cell_sort_key):
                    sentences.append(
                        f"Swap {name_at(cell, diff.changed[cell][1])} on {cell} for "
                        f"{name_at(cell, want)}"
                    )
    by_name = {}
    for cell, kind in diff.removed.items():
        by_name.setdefault(name_at(cell, kind), []).append(cell)
    for name, cells in sorted(by_name.items(), key=lambda kv: cell_sort_key(min(kv[1]))):
        sentences.append(f"Put {plural(name, len(cells))} back on {cell_list(cells)}")
    return sentences


def plural(name: str, count: int) -> str:
    """A piece's name for `count` of them: "the black stone" -> "the black stones", "the green
    stone with its character" -> "the green stones with their characters"."""
    if count == 1:
        return name
    head, with_its, tail = name.partition(" with its ")
    return f"{head}s" + (f" with their {tail}s" if with_its else "")


def join_sentences(sentences: list[str]) -> str:
    """One instruction from several short sentences ("Take ... off c3. Turn d4 to black")."""
    return ". ".join(capitalise(s) for s in sentences if s)
