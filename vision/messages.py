"""The camera's own problem lines in the table's language (companion.i18n's catalogue).

The vision code raises UserErrors that the touchscreen shows as they are (the setup screen's
"board not found", the red "No camera" bar) and notes that `companion vision calibrate`
prints; the sentences with parts in them are built here, each one message with named
placeholders and plural forms from the catalogue, so that German word order is the
translator's. Only the core's `companion.i18n` is imported: vision never draws anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from companion.i18n import _, colour_noun, ngettext, pgettext
from companion.observation import EMPTY, UNKNOWN

SHOWN = 5  # cells named in a mismatch before "and N more"


def class_word(cls: str) -> str:
    """A cell's class in words: "empty", "black", "the green stone with its character"."""
    if cls == EMPTY:
        return pgettext("cell class", "empty")
    if cls == UNKNOWN:
        return pgettext("cell class", "unknown")
    colour, _sep, what = cls.partition("-")
    if what == "character":
        return _("{colour} with its character").format(colour=colour_noun(colour, False))
    return colour_noun(cls, False)


def cell_names(cells: Iterable[str]) -> str:
    """Cell names as a list ("a1, b2"); cell names are the same in every language."""
    return ", ".join(cells)


def _and_more(shown: Sequence[str], total: int) -> str:
    """Some looks of a list and, when there are more, how many more (translated)."""
    text = "; ".join(shown)
    rest = total - len(shown)
    if rest > 0:
        text = ngettext("{looks}; and {count} more", "{looks}; and {count} more", rest).format(
            looks=text, count=rest
        )
    return text


def some_cells(cells: Sequence[str]) -> str:
    """The first SHOWN of `cells`, and how many more ("a3, b4, c5, d6, e7 and 27 more").

    >>> some_cells(["c4", "c6"]), some_cells([f"a{n}" for n in range(1, 9)])
    ('c4, c6', 'a1, a2, a3, a4, a5 and 3 more')
    """
    shown = ", ".join(cells[:SHOWN])
    if len(cells) > SHOWN:
        rest = len(cells) - SHOWN
        shown = ngettext("{cells} and {count} more", "{cells} and {count} more", rest).format(
            cells=shown, count=rest
        )
    return shown


def empty_photo_not_empty(cells: Sequence[str]) -> str:
    """The photo said to show the board empty shows pieces (`EmptyPhotoNotEmpty`)."""
    shown = some_cells(cells)
    return _(
        "the empty board's photo shows pieces on {cells}: take it with nothing on the "
        "board, from where the camera stands"
    ).format(cells=shown)


def position_mismatch(looks: Sequence[tuple[str, str, str]], *, corners: bool = True) -> str:
    """The calibration photo does not show its position: (cell, read, position's class)."""
    shown = [
        _("{cell} looks {seen} (position: {want})").format(
            cell=cell, seen=class_word(seen), want=class_word(want)
        )
        for cell, seen, want in looks[:SHOWN]
    ]
    what = _and_more(shown, len(looks))
    if corners:
        text = ngettext(
            "the picture does not match the position in {count} cell: {looks}. Check the "
            "pieces, the position file, the corners and that nothing covers the board",
            "the picture does not match the position in {count} cells: {looks}. Check the "
            "pieces, the position file, the corners and that nothing covers the board",
            len(looks),
        )
    else:
        text = ngettext(
            "the picture does not match the position in {count} cell: {looks}. Check the "
            "pieces, the position file and that nothing covers the board",
            "the picture does not match the position in {count} cells: {looks}. Check the "
            "pieces, the position file and that nothing covers the board",
            len(looks),
        )
    return text.format(count=len(looks), looks=what)


def colours_swapped() -> str:
    """A chess set's position that fits a grid found only with white darker than black,
    whichever way round the grid is taken (`vision.calibration.calibrate_found`)."""
    return _(
        "the pieces the position calls white look darker than those it calls black, whichever "
        "way round the board found is taken (a1 is the dark corner on the left of White) - give "
        "its corners (--corners, or Corners on the setup screen), top-left first as White sees it"
    )


def position_unclear(unclear: int, seen: int, worst: Sequence[str]) -> str:
    """The calibration photo leaves too many cells doubtful."""
    return ngettext(
        "the picture does not clearly show the position: {count} of {seen} cells is "
        "doubtful, most of all {cells}. Check the pieces, the position file, the corners and "
        "that nothing covers the board",
        "the picture does not clearly show the position: {count} of {seen} cells are "
        "doubtful, most of all {cells}. Check the pieces, the position file, the corners and "
        "that nothing covers the board",
        unclear,
    ).format(count=unclear, seen=seen, cells=cell_names(worst))


def doubtful_note(cells: Sequence[str]) -> str:
    return ngettext(
        "doubtful cell (not clearly what the position says): {cells} - a piece like this may "
        "be misread; a second photo (an empty board) helps",
        "doubtful cells (not clearly what the position says): {cells} - pieces like these may "
        "be misread; a second photo (an empty board) helps",
        len(cells),
    ).format(cells=cell_names(cells))


def few_cells_note(cls: str, cells: Sequence[str], like: Sequence[str], near: Sequence[str]) -> str:
    """A class learned from one or two cells that cells of another class lie near."""
    return ngettext(
        "{cls} was learned from {count} cell ({cells}), and cells of {like} come close to it "
        "({near}): check that the position names {cells} right - if it does, {cls} and {like} "
        "may be confused",
        "{cls} was learned from {count} cells ({cells}), and cells of {like} come close to it "
        "({near}): check that the position names {cells} right - if it does, {cls} and {like} "
        "may be confused",
        len(cells),
    ).format(
        cls=class_word(cls),
        count=len(cells),
        cells=cell_names(cells),
        like=", ".join(class_word(c) for c in like),
        near=cell_names(near),
    )


def missing_classes_note(missing: Sequence[str]) -> str:
    return ngettext(
        "the position shows no {classes}: such cells will read as unknown - calibrate with a "
        "position that has every class",
        "the position shows no {classes}: such cells will read as unknown - calibrate with a "
        "position that has every class",
        len(missing),
    ).format(classes=", ".join(class_word(c) for c in missing))


def overexposed_note(classes: Iterable[str]) -> str:
    return _(
        "{classes} looked overexposed everywhere: lower the light or the camera's exposure "
        "and calibrate again for the best reading"
    ).format(classes=", ".join(class_word(c) for c in classes))


def unseen_note(unseen: Sequence[str]) -> str:
    cells = cell_names(unseen[:8]) + (" ..." if len(unseen) > 8 else "")
    return ngettext(
        "{count} cell lies outside the picture and was not learned: {cells}",
        "{count} cells lie outside the picture and were not learned: {cells}",
        len(unseen),
    ).format(count=len(unseen), cells=cells)


def no_empty_cell() -> str:
    return _("the calibration position must leave some cells empty")


def no_empty_cell_in_view() -> str:
    return _(
        "none of the cells the position has empty is in the picture: bring the whole board "
        "into view (or check the corners)"
    )


def board_hidden() -> str:
    return _("no part of the board is visible between the pieces: is the board in view?")
