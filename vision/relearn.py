"""The camera learns as the game goes: from each board the referee took.

A start position shows each class on a few cells and from one side, and covers the cells its
pieces stand on. Each board the referee takes - a position the game reached, not a guess -
teaches the calibration more (`learn_from_board`): the empty look of the cells no calibration
photo showed empty (a logo under a rook), how an empty cell looks under a nearer piece's lean
(`lean_looks`), and now and then, once the board differs enough from the start, the whole
model fitted again with that board among its photos (`refit_to_board`; `refit_due` says when,
`with_refit` takes a fit made apart, as the tracker does off its thread). docs/vision.md,
"Cells never seen empty, learned as the game goes" and the two sections after it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.errors import PositionMismatch
from companion.observation import EMPTY, UNKNOWN
from vision.cell_views import CellViews, cell_views
from vision.copies import copy_draws
from vision.layouts import Layout
from vision.occlusion import hidden_cells
from vision.standing import (
    LEAN_LOOKS,
    MIN_KIND_CELLS,
    Photo,
    StandingCalibration,
    classify_cells,
    features_of,
    learn_photo,
    model_from_photos,
    read_views,
)

REFIT_CHANGES = 8  # cells a board must differ from the start in, more than the last one fitted
REFIT_SHARE = 8  # ... or this share of the cells (1 / REFIT_SHARE), on a board of over 64


def learn_from_board(
    calibration: StandingCalibration,
    image: np.ndarray,
    homography: np.ndarray,
    layout: Layout,
    board: dict[str, str],
    *,
    refit: bool = True,
) -> StandingCalibration:
    """The calibration having learned from `image`, which shows `board` (cell -> class; cells
    not named are empty) as the referee took it - a position the game reached, not a guess:
    - the empty look of its `unlearned` cells that `board` has empty, measured as calibration
      measures an empty board's (`vision.standing._own_looks`: against the mean of the
      photo's learned empty cells of its kind, so the light does not shift it). A cell a nearer
      piece may hide (`vision.occlusion`) is left for another board. Learned once, from the first
      such board: a cell's empty look is never relearned;
    - how its unlearned cells that `board` has occupied look now, and the class the camera
      reads there (`piece_look`, `piece_class`): a piece that came to such a cell is what it
      is judged against from then on (a reading's `unlearned` cells).
      The US Chess logo on h1, under a rook in the start position, reads as a white piece
      until a board with h1 empty has taught it;
    - how its empty cells a nearer piece may lean over look, where the camera reads them as
      the leaning piece's class (`lean_looks`, `_learn_leans`): a later board where such a
      cell looks far more like that lean than like a piece of that class reads it empty
      (`vision.standing._read_leans`). Not as its empty look: used so, while the leaning
      piece and the cell looked the same, it read 107 of 6,192 pieces that stepped behind a leaning
      piece of their own colour as empty on the synthetic chess set from 30 degrees (a review: a
      camel stepping behind its king was recorded as another move);
    - with `refit`, the whole model, fitted again to the calibration photos and this board,
      once the board differs from the start in REFIT_CHANGES more cells than the last board
      it was fitted with (`refit_due`, `refit_to_board`): a start position shows each class
      on a few kinds of cells and from one side; a board of the game shows them elsewhere.
      On the real photos read as one game from the start photo, chess-ray-vision went from
      98.68 to 99.64 % of cells."""
    calibration.check_layout(layout)
    names = layout.cell_names()
    changes = refit_due(calibration, layout, board) if refit else None
    size = (image.shape[1], image.shape[0])
    hidden = hidden_cells(homography, size, layout, board)
    # empty cells a nearer piece may lean over, and that piece's class
    leaned = {n: board[front] for n, front in hidden.items() if n not in board}
    if not any(n in names for n in calibration.unlearned) and changes is None and not leaned:
        return calibration
    views = cell_views(image, homography, layout)
    if leaned or any(n in names for n in calibration.unlearned):
        x, seen, read = _read_knowing(calibration, views, layout, board)
        calibration = _learn_unlearned(calibration, x, seen, read, layout, board, hidden)
        calibration = _learn_leans(calibration, x, read, layout, leaned)
    if changes is None:
        return calibration
    fitted = refit_to_board(calibration, image, homography, layout, board, changes, views)
    return with_refit(calibration, fitted, changes)


def refit_due(
    calibration: StandingCalibration, layout: Layout, board: dict[str, str]
) -> int | None:
    """How many cells `board` differs in from the first calibration photo's position, when
    that is REFIT_CHANGES (on a board of over 64 cells, an eighth of them) more than the last
    board the model was fitted with; else None, as for a calibration file from before the
    features were kept, or a board that names other classes than the calibration's."""
    if not calibration.learned or not set(board.values()) <= set(calibration.classes):
        return None  # (a board in other classes than the camera's: none of its business)
    start = calibration.learned[0].truth
    changes = sum(board.get(n, EMPTY) != t for n, t in zip(layout.cell_names(), start, strict=True))
    step = max(REFIT_CHANGES, len(start) // REFIT_SHARE)  # a big board: not every few moves
    return changes if changes >= calibration.refit_changes + step else None


def _read_knowing(
    calibration: StandingCalibration, views: CellViews, layout: Layout, board: dict[str, str]
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The features of `views`' cells under the light fitted to the cells `board` has empty
    (known, so no rounds of reading and fitting again as `read_views` makes), which cells the
    picture shows, and the discriminant's reading of them - what `learn_from_board` learns
    from, read once for both its parts."""
    kinds = calibration.kinds(layout)
    names = layout.cell_names()
    empty = np.array([n not in board for n in names]) & ~views.unseen
    x, seen, shade, _ = features_of(
        views, layout, kinds, np.array(calibration.surface), empty, rim_look=calibration.rim()
    )
    read, _, _ = classify_cells(x, kinds, calibration, names, shade, seen)
    return x, seen, [r if s else UNKNOWN for r, s in zip(read, seen, strict=True)]


def _learn_unlearned(
    calibration: StandingCalibration,
    x: np.ndarray,
    seen: np.ndarray,
    read: list[str],
    layout: Layout,
    board: dict[str, str],
    hidden: dict[str, str],
) -> StandingCalibration:
    """`learn_from_board`'s first part, from the cells' features `x` and their reading `read`
    (`_read_knowing`): the empty look of the unlearned cells `board` has empty, and the piece
    looks of those it has occupied."""
    names = layout.cell_names()
    wanted = [n for n in calibration.unlearned if n in names]
    if not wanted:
        return calibration
    kinds = calibration.kinds(layout)
    empty = np.array([n not in board for n in names]) & seen
    # the empty cells whose look is their kind's: learned, and no piece leaning over them
    plain = empty & ~np.isin(names, calibration.unlearned) & ~np.isin(names, list(hidden))
    own_look, piece_look = dict(calibration.own_look), dict(calibration.piece_look)
    piece_class = dict(calibration.piece_class)
    for name in wanted:
        i = names.index(name)
        if not seen[i]:
            continue
        if name in board:
            if read[i] not in (EMPTY, UNKNOWN):  # the piece as the camera sees it
                piece_look[name], piece_class[name] = x[i].tolist(), read[i]
            continue
        peers = plain & (kinds == kinds[i])
        if name not in hidden and peers.sum() >= MIN_KIND_CELLS:
            own_look[name] = (x[i] - x[peers].mean(axis=0)).tolist()
            piece_look.pop(name, None)
            piece_class.pop(name, None)
    return replace(
        calibration,
        own_look=own_look,
        piece_look=piece_look,
        piece_class=piece_class,
        unlearned=tuple(n for n in calibration.unlearned if n not in own_look),
    )


def _learn_leans(
    calibration: StandingCalibration,
    x: np.ndarray,
    read: list[str],
    layout: Layout,
    leaned: dict[str, str],
) -> StandingCalibration:
    """`learn_from_board`'s lean part, from the cells' features `x` and their reading `read`:
    of the `leaned` cells (empty on the board the referee took, a nearer piece may lean over
    them -> that piece's class), those the discriminant reads as the leaning piece's class: how
    each looks (`lean_looks`, the latest LEAN_LOOKS a cell). A lean read as another class is
    not learned: a dark crown half over a cream square may read as a white piece, and so does a
    white piece that steps there, behind the crown - the two look alike (bench_leans.py, at a
    contrast of 4: 8 of 47 pieces that stepped behind a learned lean read empty, each a white
    piece behind a black king or queen)."""
    if not leaned:
        return calibration
    names = layout.cell_names()
    looks = dict(calibration.lean_looks)
    for cell, leaning in leaned.items():
        i = names.index(cell)
        if read[i] == leaning:
            looks[cell] = [*looks.get(cell, []), (read[i], x[i].tolist())][-LEAN_LOOKS:]
    return replace(calibration, lean_looks=looks)


def refit_to_board(
    calibration: StandingCalibration,
    image: np.ndarray,
    homography: np.ndarray,
    layout: Layout,
    board: dict[str, str],
    changes: int,
    views: CellViews | None = None,
) -> StandingCalibration | None:
    """The model fitted again to the players' calibration photos and `image`, which shows
    `board` as the referee took it, `changes` cells from the first photo's position
    (`refit_due`); None when the picture does not show the board well enough. The board is
    checked as a calibration photo is: one the new model would not read as the position (a
    hand the tracker missed, a piece half off its cell) leaves the discriminant as it was
    (what `learn_from_board` learned from it about cells never seen empty stays). Taught
    nothing: the cells a nearer piece may hide (their look is a lean), and the empty cells no
    calibration photo showed empty - the referee may have taken them as empty from a mark
    alone, and a piece left there (a capture slid back) would teach "empty" to look like a
    piece; their own look is learned apart (`_learn_unlearned`). The board's empty cells
    under a nearer piece's lean teach the fitted model their lean looks (`_learn_leans`), as
    it reads them. `with_refit` then takes it
    with what the camera learned meanwhile. A calibration: about 0.15 s on a 1280x720 chess
    set here, a few times a game."""
    size = (image.shape[1], image.shape[0])
    names = layout.cell_names()
    shown_empty = np.any([(p.truth == EMPTY) & p.seen[0] for p in calibration.learned], axis=0)
    hidden = hidden_cells(homography, size, layout, board)
    untaught = {
        *hidden,
        *(n for n, shown in zip(names, shown_empty, strict=True) if not shown and n not in board),
    }
    if views is None:
        views = cell_views(image, homography, layout)
    kinds, surface = calibration.kinds(layout), np.array(calibration.surface)
    learned = learn_photo(
        Photo(image, homography, board, tuple(sorted(untaught))),
        views,
        layout,
        kinds,
        surface,
        copy_draws(calibration.stream + changes),
        calibration.rim(),
    )
    try:
        fitted = model_from_photos(
            (learned, *calibration.learned),
            layout,
            kinds,
            surface,
            len(calibration.learned),
            calibration.stream,
            calibration.rim(),
        )
    except PositionMismatch:
        return None
    # This board's empty cells under a nearer piece's lean, as the fitted model reads them: the
    # model it replaces may have read them empty and learned no lean there, and the fitted one
    # read such a cell as the leaning piece on every later board (a white piece's lean over g8
    # of the realistic bench's green-and-white chessboard).
    leaned = {n: board[front] for n, front in hidden.items() if n not in board}
    if leaned:
        x, read, *_ = read_views(views, layout, fitted)
        fitted = _learn_leans(fitted, x, read, layout, leaned)
    return replace(fitted, refit_changes=changes)


def with_refit(
    current: StandingCalibration, fitted: StandingCalibration | None, changes: int
) -> StandingCalibration:
    """`current` once `refit_to_board` has fitted a board `changes` cells from the start (from
    `current`, or an earlier state of it: the app fits in the background): the fitted model
    with what `current` has learned meanwhile (`_keep_learned`) - or, when the board was not
    good enough to fit to (None), `current` as it was, waiting for a later board."""
    if fitted is None:
        return replace(current, refit_changes=changes)
    return _keep_learned(fitted, current)


def _keep_learned(fitted: StandingCalibration, current: StandingCalibration) -> StandingCalibration:
    """`fitted` with what `current` has learned during the game: the empty look of cells the
    fitted photos never showed empty (a logo seen empty once stays learned), the looks of
    empty cells under a nearer piece's lean (`lean_looks`, with those the fitted model learned
    on its own board), and how the pieces on the cells
    still never seen empty looked last (a queen that captured on d7 is not judged against
    the pawn of the start, nor a logo hidden on the fitted board taken for an empty cell)."""
    kept = {
        n: look
        for n, look in current.own_look.items()
        if n in fitted.unlearned and n not in current.unlearned
    }
    unlearned = tuple(n for n in fitted.unlearned if n not in kept)
    # the piece on a cell never seen empty as the camera last saw it (`_learn_unlearned`),
    # else as the fitted photos show it
    looks = {n: current.piece_look.get(n, fitted.piece_look.get(n)) for n in unlearned}
    classes = {n: current.piece_class.get(n, fitted.piece_class.get(n)) for n in unlearned}
    leans = {
        # (the model in use may have learned boards after the fitted one, in the background:
        # its looks are kept as the later ones)
        cell: _merged(fitted.lean_looks.get(cell, []), current.lean_looks.get(cell, []))
        for cell in {**current.lean_looks, **fitted.lean_looks}
    }
    return replace(
        fitted,
        own_look={**fitted.own_look, **kept},
        lean_looks=leans,
        unlearned=unlearned,
        piece_look={n: v for n, v in looks.items() if v is not None},
        piece_class={n: v for n, v in classes.items() if v is not None},
    )


def _merged(
    earlier: list[tuple[str, list[float]]], later: list[tuple[str, list[float]]]
) -> list[tuple[str, list[float]]]:
    """A cell's lean looks learned by two models of one game, `earlier` then `later`, the
    last LEAN_LOOKS of them (a look both learned from the same board once)."""
    looks = list(earlier)
    looks += [look for look in later if look not in looks]
    return looks[-LEAN_LOOKS:]
