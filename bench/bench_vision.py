"""Vision benchmark: reading and tracking accuracy on the seeded synthetic table, and speed.

    .venv/bin/python bench/bench_vision.py            # the full benchmark set (about 12 min)
    .venv/bin/python bench/bench_vision.py --quick    # a smaller set (about 1.5 min)

Accuracy: for every layout, `--tables` synthetic tables (each its own seed: camera tilt up to
30 degrees, rotation, light 0.5x-1.5x with a gradient and a warm or cool tint, noise, blur) are
each shown `--boards` random boards. The reader is calibrated once per layout on a separate,
evenly lit table - as a player calibrates once and then plays under whatever light there is -
and every board is read from its frame (markers located afresh). A cell is right when it reads
as its true class; "unknown" counts as wrong. Goal: >= 99.9 % of cells, >= 99 % of boards.

Tracking: on each table a random game of `--moves` moves is played through hand transitions
(arm, hand and shadow reaching in, the board changing under it, the hand withdrawing, then
still frames) and fed to `vision.tracker.Tracker`. Counted: observations emitted from frames
with a hand over the board (goal 0), observations that are wrong, and moves never observed.
A second run (`--faults`, default 2 %) adds the camera's accidents: dropped frames, black
frames and shaken frames; a black or shaken frame in the last still frames of a move restarts
the stillness window, so a board may then be seen only together with the next move.
Hands in those moves are in motion (8 frames, less than the 0.5 s stillness window), so the
tracker could not read them even without its occluder checks; what tests those checks is:

Resting hands: on each of the first `--rest-tables` tables `--rest` hands are held still over the board for 1.2 s (over a
cell, or with the fingertips on the mat's margin; every second one a bare arm, the first of
each table pale skin, the colour nearest the white paper; for some the board changes under the
hand), with a reading requested on every frame. Counted: observations from those frames
(goal 0 - with the occluder checks switched off nearly every hand is read), hands not shown as
"hands" all the time, and boards not read after the hand left.

Speed (one OpenCV thread, 1280x720): the median time of `Tracker.feed` per frame while the
board is located, and of a full re-detection (`vision.locate.locate`), each printed with the
median of a peer measured in the same run on the same frames - cvtColor + GaussianBlur(5x5) of
the frame - and their ratio, because this machine is shared and absolute times are noisy.
Goals: <= 10 ms per tracked frame, <= 40 ms per full detection.

Realistic tables (`--realistic`, instead of the above): the reading-accuracy part on tables
with what real tables have (`SimTable(..., realism=True)`, see docs/vision-sim.md): pieces with
height (stones, domes, chess-like figures leaning into the far cells), cast shadows, specular
highlights, colour inkjet and black-and-white laser prints on tinted paper, tilt up to 30
degrees. Each table is calibrated on its own pictures (its printer and pieces are its own):
the layout's calibration position, then `--boards` random boards are read (each cell filled
with a probability of 0.2-0.6), and apart `--crowded` boards with 90 % of the cells filled (a
stone game's last moves: nearly every cell's ground shows a neighbour's stone). A table whose
calibration is refused counts all its boards wrong. Cells are read as the tracker reads a still
view (`covered=()`); how often the printed-mat occluder check alone would call a still board
"covered" (tall pieces and shadows over the paper and lines) is counted apart. Then own boards
without markers: `grid:8x8` checkered boards (green and cream, green and white vinyl, light and
dark wood) with chess-like figures, located from their true corners (`vision.locate.from_corners`),
calibrated on the chess start position and reading random positions of the 32 pieces; and the
same tables read as the companion reads a game on them (`chess_games`: the `chessboard`
layout, one game's boards a few random moves apart, each board a referee takes teaching the
calibration - `bench_real.py --learn` on the synthetic table); and once more with the players
saying **Board is right** on each board the referee does not take (the camera learning from it
as from one taken), the presses counted.
Goals as above: >= 99.9 % of cells, >= 99 % of boards. Last, the tracker follows a random game
of up to 4 moves on up to 4 realistic tables a layout (goal: no observation from a frame with a
hand, at most 1 % of the boards never observed - a tall piece or its shadow over the paper must
not look like a hand). Each line also says how many boards a referee expecting them takes as
them (`taken_as_position`: every wrong cell one a nearer piece may hide, the referee's
`seen_board`), and how many wrong observations of the tracker are only that; the goals are on
the reading itself.

The exit status is 1 when any goal is missed (each such line is marked), 0 otherwise.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_real import taken_as_position  # noqa: E402

from companion import games  # noqa: E402
from companion.errors import UserError  # noqa: E402
from companion.observation import EMPTY  # noqa: E402
from vision.calibration import calibrate  # noqa: E402
from vision.layouts import CHESSBOARD, MAT_MARGIN, get_layout, layout_names  # noqa: E402
from vision.locate import from_corners, locate  # noqa: E402
from vision.reader import read_cells  # noqa: E402
from vision.relearn import learn_from_board  # noqa: E402
from vision.sim import (  # noqa: E402
    SKIN_TONES,
    HandPose,
    SimTable,
    calibrate_table,
    calibrate_table_photo,
    calibration_position,
    chess_start,
    random_cells,
    random_script,
)
from vision.sim_pieces import CHECKERED_BOARDS  # noqa: E402
from vision.tracker import (  # noqa: E402
    COVERED,
    HANDS,
    Tracker,
    covered_cells,
    something_over_the_mat,
)


def reads_hidden_cells(layout) -> bool:
    """Whether the referee of the game on `layout` reads hidden cells (`tall_pieces`): a
    chessboard holds a chess set (Arimaa's referee), a lined grid stones."""
    if not layout.has_markers:
        return layout.name == CHESSBOARD and games.get("arimaa").referee_class().tall_pieces
    return games.get(layout.game).referee_class().tall_pieces


def reference_table(layout: str) -> SimTable:
    """The table the reader is calibrated on: evenly lit, neutral, a moderate tilt."""
    return SimTable(layout, seed=10_000, tilt=12, light=(1.0, 1.0), tint=0.0, noise=2.0, blur=0.5)


def test_table(layout: str, index: int, seed: int) -> SimTable:
    return SimTable(layout, seed=seed * 1000 + index * 17 + sum(map(ord, layout)))


def truth_of(layout, cells: dict[str, str]) -> dict[str, str]:
    return {name: cells.get(name, EMPTY) for name in layout.cell_names()}


def reading_accuracy(layouts, tables: int, boards: int, seed: int, calibrations) -> dict:
    cells_right = cells_total = boards_right = boards_total = 0
    failures: list[str] = []
    for name in layouts:
        for index in range(tables):
            table = test_table(name, index, seed)
            rng = np.random.default_rng(seed + index)
            for _ in range(boards):
                cells = random_cells(table.layout, rng)
                frame = table.render(cells)
                located = locate(frame, table.layout)
                seen = read_cells(
                    frame,
                    located.homography,
                    table.layout,
                    calibrations[name],
                    markers_seen=len(located.markers_seen),
                ).cells
                truth = truth_of(table.layout, cells)
                right = sum(seen[c] == truth[c] for c in truth)
                cells_right += right
                cells_total += len(truth)
                boards_total += 1
                boards_right += right == len(truth)
                if right != len(truth) and len(failures) < 12:
                    wrong = [f"{c}:{seen[c]}!={truth[c]}" for c in truth if seen[c] != truth[c]]
                    failures.append(
                        f"{name} table {index} (tilt {table.tilt:.0f}, light {table.light[0]:.2f}-"
                        f"{table.light[1]:.2f}): {' '.join(wrong[:4])}"
                    )
    return {
        "cells_right": cells_right,
        "cells_total": cells_total,
        "boards_right": boards_right,
        "boards_total": boards_total,
        "failures": failures,
    }


def realistic_table(layout: str, index: int, seed: int, **fixed) -> SimTable:
    return SimTable(
        layout, seed=seed * 1000 + index * 17 + sum(map(ord, layout)), realism=fixed or True
    )


def describe(table: SimTable) -> str:
    c = table.realism
    board = c.board if c.board != "mat" else f"{c.printer} on {c.paper}"
    return (
        f"tilt {table.tilt:.0f}, {c.pieces} ({c.piece_set}), {board}, lamp {c.lamp_elevation:.0f} deg, "
        f"light {table.light[0]:.2f}-{table.light[1]:.2f}"
    )


READING_COUNTS = (
    "cells_right",
    "cells_total",
    "boards_right",
    "boards_taken",
    "boards_total",
    "covered",
    "read_cells",
    "read_boards",
    "said_right",  # boards the players said were right (Board is right): `chess_games`
)


CROWDED_FILL = 0.9  # the share of cells a crowded board fills (an Arinama game's last moves)
CROWDED_STREAM = 7919  # the crowded boards' random stream, apart from the other boards'


def realistic_accuracy(
    layouts, tables: int, boards: int, seed: int, fill: float | None = None
) -> dict:
    """Printed mats under realistic conditions: calibrate on each table, read random boards
    (each cell filled with the probability 0.2-0.6, or `fill`: crowded boards, drawn apart)."""
    stats = {"rows": [], "failures": [], "refused": []}
    per_layout = {name: dict.fromkeys(READING_COUNTS, 0) for name in layouts}
    for name, per in per_layout.items():
        for index in range(tables):
            table = realistic_table(name, index, seed)
            try:
                calibration = calibrate_table(table)
            except UserError as exc:
                calibration = None
                stats["refused"].append(f"{name} table {index} ({describe(table)}): {exc}"[:220])
            rng = np.random.default_rng(seed + index + (0 if fill is None else CROWDED_STREAM))
            for _ in range(boards):
                cells = random_cells(table.layout, rng, fill)
                seen = None
                if calibration is not None:
                    frame = table.render(cells)
                    located = locate(frame, table.layout)
                    covered = covered_cells(frame, located.homography, table.layout)[1]
                    per["covered"] += bool(covered)
                    seen = read_cells(
                        frame,
                        located.homography,
                        table.layout,
                        calibration,
                        markers_seen=len(located.markers_seen),
                        covered=(),
                    )
                label = f"{name} table {index} ({describe(table)})"
                truth = truth_of(table.layout, cells)
                count_reading(per, stats, seen, truth, label, reads_hidden_cells(table.layout))
    return with_rows(stats, per_layout)


def realistic_tracking(layouts, tables: int, moves: int, seed: int) -> dict:
    """The tracker on realistic tables (tall pieces that lean over the paper, their shadows):
    each table calibrated on its own pictures, a random game played through hand transitions.
    Counted as in `tracking_run`, and the tables whose tracker ends on "hands" (a still board
    it takes for a hand). Each table that missed a board is followed again with patient
    players (`follow_game(patient=True)`: they wait, and press BOARD CLEAR when the camera
    says "covered"), counted in stats["patient"]."""
    stats = {**dict.fromkeys(TRACKING_COUNTS, 0), "missed": 0, "stuck": 0}
    stats["patient"] = {**dict.fromkeys(TRACKING_COUNTS, 0), "missed": 0, "presses": 0}
    for name in layouts:
        for index in range(tables):
            table = realistic_table(name, index, seed)
            try:
                calibration, photo, homography = calibrate_table_photo(table)
            except UserError:
                continue
            script = random_script(table.layout, np.random.default_rng(seed + index), moves)
            frames = game_frames(table, script)
            tracker = Tracker(table.layout, calibration, clear_view=(photo, homography))
            missed = stats["missed"]
            follow_game(tracker, table, script, frames, stats)
            stats["stuck"] += tracker.status in (HANDS, COVERED)
            if stats["missed"] > missed:
                tracker = Tracker(table.layout, calibration, clear_view=(photo, homography))
                follow_game(tracker, table, script, frames, stats["patient"], patient=True)
    return stats


def chessboard_tracking(tables: int, moves: int, seed: int) -> dict:
    """The tracker on own chessboards with chess-like figures (each checkered style, `tables`
    tables): found from its grid, calibrated on the chess start position, a random game played
    through hand transitions. Counted as in `tracking_run`, and the "board-moved" events - the
    board never moves here, so every one is a false alarm that leaves a board unread."""
    layout = get_layout(CHESSBOARD)
    start, _ = chess_start(layout)
    stats = {**dict.fromkeys(TRACKING_COUNTS, 0), "missed": 0, "stuck": 0, "board_moves": 0}
    for k, style in enumerate(CHECKERED_BOARDS):
        for index in range(tables):
            table = realistic_table(
                CHESSBOARD, index, seed + 53 + 7 * k, board=style, pieces="chess"
            )
            try:
                calibration, photo, homography = calibrate_table_photo(table, start)
            except UserError:
                continue
            script = random_script(layout, np.random.default_rng(seed + 100 * k + index), moves)
            tracker = Tracker(layout, calibration, clear_view=(photo, homography))
            follow_game(tracker, table, script, game_frames(table, script), stats)
            stats["stuck"] += tracker.status in (HANDS, COVERED)
            stats["board_moves"] += tracker.board_moves
    return stats


def own_chessboards(tables: int, seed: int, stats: dict):
    """The own checkered 8x8 boards with chess-like figures, no markers, `tables` of each
    style: (style, index, table, homography, calibration) - the `chessboard` layout located
    from the table's true corners (`vision.locate.from_corners`), calibrated on the chess start
    position; a refused calibration is None, and noted in `stats["refused"]`."""
    layout = get_layout(CHESSBOARD)
    start, start_figures = chess_start(layout)
    for k, style in enumerate(CHECKERED_BOARDS):
        for index in range(tables):
            table = realistic_table(
                "grid:8x8", index, seed + 31 + 7 * k, board=style, pieces="chess"
            )
            frame = table.render(start, figures=start_figures)
            located = from_corners(layout, table.board_corners_px(), table.size)
            try:
                calibration = calibrate(frame, located.homography, layout, start)
            except UserError as exc:
                calibration = None
                stats["refused"].append(f"{style} table {index} ({describe(table)}): {exc}"[:220])
            yield style, index, table, located.homography, calibration


def count_reading(
    per: dict, stats: dict, seen, truth: dict[str, str], label: str, tall: bool = True
) -> bool:
    """Count one board read (`seen`, an Observation, or None: not read - its table's
    calibration was refused) into `per` and a failure's text into `stats`; whether a referee
    expecting `truth` takes it (`taken_as_position`; `tall`: its pieces are tall)."""
    per["cells_total"] += len(truth)
    per["boards_total"] += 1
    if seen is None:
        return False
    per["read_cells"] += len(truth)
    per["read_boards"] += 1
    taken = taken_as_position(seen, truth, tall)
    per["boards_taken"] += taken
    cells = seen.cells
    right = sum(cells[c] == truth[c] for c in truth)
    per["cells_right"] += right
    per["boards_right"] += right == len(truth)
    if right != len(truth) and len(stats["failures"]) < 10:
        wrong = [f"{c}:{cells[c]}!={truth[c]}" for c in truth if cells[c] != truth[c]]
        stats["failures"].append(f"{label}: {len(wrong)} wrong, {' '.join(wrong[:4])}")
    return taken


def with_rows(stats: dict, per_row: dict[str, dict]) -> dict:
    """`stats` with a row of counts per layout or style, and their total."""
    total = dict.fromkeys(READING_COUNTS, 0)
    for name, per in per_row.items():
        stats["rows"].append((name, per))
        for key in total:
            total[key] += per[key]
    stats["total"] = total
    return stats


def chess_boards(tables: int, boards: int, seed: int) -> dict:
    """Own checkered 8x8 boards (`own_chessboards`) reading random positions of the 32 pieces."""
    layout = get_layout(CHESSBOARD)
    start, start_figures = chess_start(layout)
    pieces = list(start.items())
    names = layout.cell_names()
    stats = {"rows": [], "failures": [], "refused": []}
    per_style = {s: dict.fromkeys(READING_COUNTS, 0) for s in CHECKERED_BOARDS}
    for style, index, table, homography, calibration in own_chessboards(tables, seed, stats):
        rng = np.random.default_rng(seed * 31 + index)
        for _ in range(boards):
            count = int(rng.integers(2, len(pieces) + 1))
            chosen = rng.choice(len(pieces), size=count, replace=False)
            squares = rng.choice(len(names), size=count, replace=False)
            cells = {names[q]: pieces[p][1] for p, q in zip(chosen, squares, strict=True)}
            figures = {
                names[q]: start_figures[pieces[p][0]] for p, q in zip(chosen, squares, strict=True)
            }
            seen = None
            if calibration is not None:
                frame = table.render(cells, figures=figures)
                seen = read_cells(frame, homography, layout, calibration, covered=())
            label = f"{style} table {index} ({describe(table)})"
            count_reading(per_style[style], stats, seen, truth_of(layout, cells), label)
    return with_rows(stats, per_style)


GAME_MOVES = 3  # moves between two boards read in an own chessboard's game
CAPTURE_SHARE = 0.25  # the share of those moves that take a piece of the other colour


def chess_game(
    start: dict[str, str], figures: dict[str, str], boards: int, rng: np.random.Generator
) -> list[tuple[dict[str, str], dict[str, str]]]:
    """`boards` positions of one game from the chess start, GAME_MOVES moves apart: each move a
    random piece to a random empty square, or (CAPTURE_SHARE of them) onto a piece of the other
    colour, which leaves; kings are never taken. Not chess's rules - the pieces spread over the
    whole board within a few boards, as the random boards do - but a game: each board follows
    from the last. (cells -> class, cells -> figure) each."""
    names = [f"{f}{r}" for r in range(1, 9) for f in "abcdefgh"]
    cells, shapes = dict(start), dict(figures)
    out = []
    for _ in range(boards):
        for _ in range(GAME_MOVES):
            mover = sorted(cells)[int(rng.integers(len(cells)))]
            prey = sorted(c for c in cells if cells[c] != cells[mover] and shapes[c] != "king")
            if prey and rng.random() < CAPTURE_SHARE:
                target = prey[int(rng.integers(len(prey)))]
            else:
                free = [n for n in names if n not in cells]
                target = free[int(rng.integers(len(free)))]
            cells[target], shapes[target] = cells.pop(mover), shapes.pop(mover)
        out.append((dict(cells), dict(shapes)))
    return out


def chess_games(tables: int, boards: int, seed: int, said_right: bool = False) -> dict:
    """Own checkered boards (`own_chessboards`, the same tables as `chess_boards`) read as the
    companion reads a game on them: `boards` positions of one game (`chess_game`), each read
    before it teaches anything; each board a referee expecting it takes teaches the
    calibration (`learn_from_board`: the empty look of cells the start covered, leans, now
    and then the whole model fitted again), as `bench_real.py --learn` reads the real photos.
    `said_right`: a board the referee does not take, the players say is right (the play
    screen's Board is right: the camera learns from it as from a board taken), counted."""
    layout = get_layout(CHESSBOARD)
    start, start_figures = chess_start(layout)
    stats = {"rows": [], "failures": [], "refused": []}
    stats["said_right"] = said_right  # (the report prints the count)
    per_style = {s: dict.fromkeys(READING_COUNTS, 0) for s in CHECKERED_BOARDS}
    for style, index, table, homography, calibration in own_chessboards(tables, seed, stats):
        game = chess_game(start, start_figures, boards, np.random.default_rng(seed * 37 + index))
        for number, (cells, figures) in enumerate(game):
            frame = table.render(cells, figures=figures)
            seen = None
            if calibration is not None:
                seen = read_cells(frame, homography, layout, calibration, covered=())
            label = f"{style} table {index} board {number + 1} ({describe(table)})"
            taken = count_reading(per_style[style], stats, seen, truth_of(layout, cells), label)
            if seen is not None and said_right and not taken:
                per_style[style]["said_right"] += 1
            if seen is not None and (taken or said_right):
                calibration = learn_from_board(calibration, frame, homography, layout, cells)
    return with_rows(stats, per_style)


def tracking_report(args) -> list[str]:
    """The tracker on realistic tables and on own chessboards: print a line each; the goals
    missed."""
    missed: list[str] = []
    trk = realistic_tracking(args.layouts, args.tables, min(args.moves, 4), args.seed)
    ok = trk["from_hand_frames"] == 0 and trk["missed"] <= 0.01 * trk["moves"]
    if not ok:
        missed.append("tracking on realistic tables")
    print(
        f"tracking on realistic tables ({args.tables} a layout, {min(args.moves, 4)} "
        f"moves each): {trk['observations']} observations, {trk['from_hand_frames']} from frames "
        f"with a hand (goal 0), {trk['wrong']} wrong ({trk['wrong_taken']} only where a nearer "
        f"piece may hide: a referee takes them right), {trk['missed']} of {trk['moves']} boards "
        f"never observed (goal <= 1 %), {trk['stuck']} tables left on 'hands'"
        + ("" if ok else "  <-- GOAL MISSED")
    )
    patient = trk["patient"]
    if patient["moves"]:
        print(
            f"  the tables that missed a board, followed again with players who wait and press "
            f"BOARD CLEAR when the camera says 'covered' (no hand there): {patient['missed']} of "
            f"{patient['moves']} boards never observed, {patient['presses']} presses, "
            f"{patient['from_hand_frames']} observations from frames with a hand, "
            f"{patient['wrong']} wrong"
        )
    own = chessboard_tracking(min(args.tables, 2), min(args.moves, 4), args.seed)
    ok = (
        own["from_hand_frames"] == 0
        and own["missed"] <= 0.01 * own["moves"]
        and own["board_moves"] == 0
    )
    if not ok:
        missed.append("tracking on own chessboards")
    print(
        f"tracking on own chessboards with chess figures ({min(args.tables, 2)} a style, "
        f"{min(args.moves, 4)} moves each): {own['observations']} observations, "
        f"{own['from_hand_frames']} from frames with a hand (goal 0), {own['wrong']} wrong "
        f"({own['wrong_taken']} only where a nearer piece may hide), {own['missed']} of "
        f"{own['moves']} boards never observed right (goal <= 1 %), {own['board_moves']} "
        f"'board-moved' on boards that never moved (goal 0), {own['stuck']} tables left on "
        "'hands'" + ("" if ok else "  <-- GOAL MISSED")
    )
    return missed


def reading_line(what: str, r: dict, extra: str = "") -> str:
    """One line of a realistic reading's counts `r` (READING_COUNTS)."""
    return (
        f"{what}: cells {r['cells_right']}/{r['cells_total']} ({percent(r['cells_right'], r['cells_total'])}), "
        f"boards {r['boards_right']}/{r['boards_total']} ({percent(r['boards_right'], r['boards_total'])})"
        f" - a referee expecting them takes {percent(r['boards_taken'], r['boards_total'])}"
        + extra
        + (
            f" [on calibrated tables: cells {percent(r['cells_right'], r['read_cells'])}, "
            f"boards {percent(r['boards_right'], r['read_boards'])}]"
            if r["read_cells"] and r["read_cells"] < r["cells_total"]
            else ""
        )
    )


def report_reading(title: str, stats: dict, covered: bool, tables: int) -> bool:
    """Print a realistic reading's rows, total and failures; whether both goals are met.
    `covered`: say how many still boards the occluder check judged covered."""
    print(title)
    for name, r in stats["rows"]:
        extra = f"; {r['covered']} still boards judged covered" if covered else ""
        if stats.get("said_right"):
            extra += f"; Board is right said on {r['said_right']} boards"
        print("  " + reading_line(name, r, extra))
    t = stats["total"]
    ok = (
        t["cells_right"] >= 0.999 * t["cells_total"]
        and t["boards_right"] >= 0.99 * t["boards_total"]
    )
    extra = f"; {t['covered']} still boards judged covered by the occluder check" if covered else ""
    if stats.get("said_right"):
        extra += f"; Board is right said on {t['said_right']} boards"
    extra += f"; {len(stats['refused'])} of {len(stats['rows']) * tables} calibrations refused"
    print(
        "  "
        + reading_line("all", t, extra)
        + " (goal >= 99.9 % cells, >= 99 % boards)"
        + ("" if ok else "  <-- GOAL MISSED")
    )
    for text in stats["refused"][:8]:
        print("  calibration refused:", text)
    if len(stats["refused"]) > 8:
        print(f"  ... and {len(stats['refused']) - 8} more calibrations refused")
    for text in stats["failures"]:
        print("  wrong:", text)
    return ok


def realistic_main(args) -> int:
    missed: list[str] = []
    t0 = time.perf_counter()
    print(
        f"realistic tables, seed {args.seed}: {args.tables} per layout, {args.boards} boards each"
    )
    t, b, seed = args.tables, args.boards, args.seed
    for title, read, covered in (
        ("printed mats, realistic:", lambda: realistic_accuracy(args.layouts, t, b, seed), True),
        (
            f"printed mats, crowded boards ({CROWDED_FILL:.0%} of the cells), realistic:",
            lambda: realistic_accuracy(args.layouts, t, args.crowded, seed, CROWDED_FILL),
            True,
        ),
        (
            "own 8x8 chessboards, no markers, chess-like figures:",
            lambda: chess_boards(t, b, seed),
            False,
        ),
        (
            "own 8x8 chessboards read as a game (learning from each board taken, as bench_real's --learn):",
            lambda: chess_games(t, b, seed),
            False,
        ),
        (
            "own 8x8 chessboards read as a game, the players saying Board is right when the camera is wrong:",
            lambda: chess_games(t, b, seed, said_right=True),
            False,
        ),
    ):
        if not report_reading(title, read(), covered, args.tables):
            missed.append(title.rstrip(":"))
    missed += tracking_report(args)
    print(f"time: {time.perf_counter() - t0:.0f} s")
    if missed:
        print(f"goals missed: {', '.join(missed)}")
        return 1
    print("all goals met")
    return 0


def with_faults(frames, rate: float, rng: np.random.Generator):
    """The camera's accidents at `rate`: dropped frames (None), black frames (a third as often)
    and shaken frames (the picture shifted by up to 4 px)."""
    out = []
    for frame, hand, cells in frames:
        roll = rng.random(3)
        if roll[0] < rate:
            frame = None
        elif roll[1] < rate / 3:
            frame = np.zeros_like(frame)
        elif roll[2] < rate:
            dx, dy = rng.uniform(-4, 4, size=2)
            shift = np.float32([[1, 0, dx], [0, 1, dy]])
            frame = cv2.warpAffine(
                frame, shift, frame.shape[1::-1], borderMode=cv2.BORDER_REPLICATE
            )
        out.append((frame, hand, cells))
    return out


def game_frames(table: SimTable, script: list[dict[str, str]]) -> list[tuple]:
    """20 still frames of the first board, then every move through a hand transition: (frame,
    a hand over the board, the board the frame shows)."""
    frames = [(table.render(script[0]), False, script[0]) for _ in range(20)]
    for before, after in zip(script, script[1:], strict=False):
        for frame, hand in table.transition(before, after):
            frames.append((frame, hand, before if hand else after))
    return frames


def follow_game(
    tracker: Tracker,
    table: SimTable,
    script,
    frames,
    stats: dict,
    timing: bool = False,
    patient: bool = False,
) -> None:
    """Feed `frames` to `tracker`, counting into `stats`: frames, hand frames, observations,
    those from hand frames, wrong ones, the boards of `script` (moves) and those never
    observed; with `timing` the feed time of located frames and its peer's. As in the app,
    each observation a referee expecting the board would take (`taken_as_position`) teaches
    the tracker (`Tracker.learn_from_board`: the cells it never saw empty). `patient`: the
    players wait up to PATIENCE_SECONDS after a move that was not read, and press BOARD
    CLEAR (`Tracker.read_as_it_is`) when the camera says "covered" - no hand is there
    (counted in stats["presses"])."""
    observed: list[dict[str, str]] = []
    for index, (frame, hand, cells) in enumerate(frames):
        _follow_frame(tracker, table, frame, hand, cells, stats, timing, observed)
        last_still = not hand and (index + 1 == len(frames) or frames[index + 1][1])
        board = truth_of(table.layout, cells)
        if not (patient and last_still and board not in observed):
            continue
        for _ in range(int(30 * PATIENCE_SECONDS)):
            if tracker.status == COVERED:
                tracker.read_as_it_is()
                stats["presses"] += 1
            _follow_frame(tracker, table, frame, False, cells, stats, False, observed)
            if board in observed:
                break
    distinct = [truth_of(table.layout, b) for b in script]
    distinct = [b for i, b in enumerate(distinct) if i == 0 or b != distinct[i - 1]]
    stats["moves"] += len(distinct)
    stats["missed"] += sum(1 for b in distinct if b not in observed)


PATIENCE_SECONDS = 5.0  # how long patient players wait for a move to be read (see follow_game)


def _follow_frame(
    tracker: Tracker,
    table: SimTable,
    frame,
    hand: bool,
    cells: dict[str, str],
    stats: dict,
    timing: bool,
    observed: list[dict[str, str]],
) -> None:
    """One frame of `follow_game`."""
    located_before = tracker.located is not None
    t0 = time.perf_counter()
    observation = tracker.feed(frame)
    elapsed = time.perf_counter() - t0
    if timing and located_before and observation is None and frame is not None:
        stats["feed_ms"].append(elapsed * 1000)
        t0 = time.perf_counter()
        cv2.GaussianBlur(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        stats["peer_ms"].append((time.perf_counter() - t0) * 1000)
    stats["frames"] += 1
    stats["hand_frames"] += hand
    if observation is None:
        return
    stats["observations"] += 1
    stats["from_hand_frames"] += hand
    truth = truth_of(table.layout, cells)
    stats["wrong"] += observation.cells != truth
    taken = taken_as_position(observation, truth, reads_hidden_cells(table.layout))
    stats["wrong_taken"] += observation.cells != truth and taken
    if taken:  # as the app does: the board the referee takes teaches the camera
        occupied = {c: k for c, k in truth.items() if k != EMPTY}
        tracker.learn_from_board(observation.frame, occupied)
    observed.append(observation.cells)


TRACKING_COUNTS = (
    "frames",
    "hand_frames",
    "observations",
    "from_hand_frames",
    "wrong",
    "wrong_taken",
    "moves",
)


def tracking_run(
    layouts, tables: int, moves: int, seed: int, calibrations, timing: bool, faults: float = 0.0
) -> dict:
    stats = {**dict.fromkeys(TRACKING_COUNTS, 0), "missed": 0, "feed_ms": [], "peer_ms": []}
    for name in layouts:
        for index in range(tables):
            table = test_table(name, index, seed + 1)
            script = random_script(table.layout, np.random.default_rng(seed + index), moves)
            frames = game_frames(table, script)
            if faults:
                frames = with_faults(frames, faults, np.random.default_rng(seed + index))
            follow_game(
                Tracker(table.layout, calibrations[name]), table, script, frames, stats, timing
            )
    return stats


REST_SECONDS = 1.2  # how long each resting hand is held still over the board
PALE: tuple[int, int, int] = SKIN_TONES[0]


def resting_pose(table: SimTable, k: int, rng: np.random.Generator) -> tuple[HandPose, str]:
    """The k-th resting hand of a table: over a random cell (fingertips on it) or on the mat's
    margin (a player leaning in from the nearest edge of the picture), alternately. Every
    second hand is a bare arm - the first of each table pale, the colour nearest the paper -
    the others are drawn from the table's seed (sleeves, gloves). Returns (pose, the cell
    under the fingertips or "")."""
    layout = table.layout
    w_mm, h_mm = layout.size
    if k % 2 == 0:
        cell = layout.cell_names()[int(rng.integers(len(layout.cells)))]
        pose = table.hand_towards(table.cell_pixel(cell), float(rng.choice([0.9, 1.0, 1.1])))
    else:
        cell = ""
        depth = float(rng.uniform(4.0, MAT_MARGIN - 4.0))  # from the mat's outer edge
        along = float(rng.uniform(0.1, 0.9))
        side = int(rng.integers(4))
        x, y = [(along * w_mm, depth), (w_mm - depth, along * h_mm)][side % 2]
        if side >= 2:
            x, y = w_mm - x, h_mm - y
        p = table.homography @ [x, y, 1.0]
        tip = (p[0] / p[2], p[1] / p[2])
        width, height = table.size
        out = 0.08 * min(width, height)
        edges = [(tip[0], -out), (width + out, tip[1]), (tip[0], height + out), (-out, tip[1])]
        nearest = min(edges, key=lambda e: abs(e[0] - tip[0]) + abs(e[1] - tip[1]))
        pose = table._pose(nearest, tip, 1.0)
    if k % 4 in (0, 3):  # a bare arm
        skin = PALE if k == 0 else SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
        pose = HandPose(pose.entry, pose.tip, pose.width, skin, None, None)
    return pose, cell


def resting_hands(layouts, tables: int, poses: int, seed: int, calibrations) -> dict:
    """Hands held still over the board for REST_SECONDS, `poses` per table (see
    `resting_pose`), each after a still board was read; for every second hand over a cell the
    board changes under it (a stone placed or taken while the hand rests). `request()` is
    called on every frame, so any reading at all while a hand rests is counted."""
    stats = {"poses": 0, "frames": 0, "from_hand_frames": 0, "unflagged": 0, "missed_after": 0}
    examples: list[str] = []
    rest = int(round(REST_SECONDS * 30))
    for name in layouts:
        for index in range(tables):
            table = test_table(name, index, seed + 2)
            rng = np.random.default_rng(seed * 7919 + index)
            board = random_cells(table.layout, rng)
            tracker = Tracker(table.layout, calibrations[name])
            for _ in range(20):
                tracker.feed(table.render(board))
            for k in range(poses):
                pose, cell = resting_pose(table, k, rng)
                if not table.hand_covers_board(pose):
                    continue
                after = dict(board)
                if cell and k % 4 == 0:  # the board changes under the resting hand
                    if cell in after:
                        after.pop(cell)
                    else:
                        after[cell] = table.layout.classes[1 + int(rng.integers(2))]
                stats["poses"] += 1
                emitted = unflagged = 0
                for i in range(rest):
                    tracker.request()
                    emitted += tracker.feed(table.render(after, pose)) is not None
                    unflagged += i >= 6 and tracker.status != HANDS  # after 0.2 s
                stats["frames"] += rest
                stats["from_hand_frames"] += emitted
                stats["unflagged"] += unflagged > 0
                if emitted and len(examples) < 8:
                    kind = f"over {cell}" if cell else "on the margin"
                    examples.append(
                        f"{name} table {index} hand {k} {kind} (skin {pose.skin}, sleeve "
                        f"{pose.sleeve}, glove {pose.glove}): {emitted} observations"
                    )
                seen = [tracker.feed(table.render(after)) for _ in range(20)]
                truth = truth_of(table.layout, after)
                stats["missed_after"] += not any(o is not None and o.cells == truth for o in seen)
                board = after
    stats["examples"] = examples
    return stats


def resting_hands_on_the_first_board(layouts, tables: int, poses: int, seed: int) -> dict:
    """Hands held still for REST_SECONDS over the very first board, before anything was read
    (`resting_pose`: over a cell or on the mat's margin), each on a new tracker given the
    calibration photo as the app gives it (`Tracker(clear_view=...)`): with no last still
    board, only the mat and the photo can show the hand. A hand over a corner marker and the
    cells beside it was read so (a review's sweep, 6 Dec 2026). `request()` on every frame;
    then the board without the hand must be read."""
    stats = {"poses": 0, "frames": 0, "from_hand_frames": 0, "missed_after": 0}
    examples: list[str] = []
    rest = int(round(REST_SECONDS * 30))
    for name in layouts:
        for index in range(tables):
            table = test_table(name, index, seed + 3)
            try:
                calibration, photo, homography = calibrate_table_photo(table)
            except UserError:
                continue
            rng = np.random.default_rng(seed * 7907 + index)
            board = random_cells(table.layout, rng)
            for k in range(poses):
                pose, cell = resting_pose(table, k, rng)
                if not table.hand_covers_board(pose):
                    continue
                stats["poses"] += 1
                tracker = Tracker(table.layout, calibration, clear_view=(photo, homography))
                emitted = 0
                for _ in range(rest):
                    tracker.request()
                    emitted += tracker.feed(table.render(board, pose)) is not None
                stats["frames"] += rest
                stats["from_hand_frames"] += emitted
                if emitted and len(examples) < 8:
                    kind = f"over {cell}" if cell else "on the margin"
                    examples.append(f"{name} table {index} hand {k} {kind}: {emitted} observations")
                seen = [tracker.feed(table.render(board)) for _ in range(40)]
                truth = truth_of(table.layout, board)
                stats["missed_after"] += not any(o is not None and o.cells == truth for o in seen)
    stats["examples"] = examples
    return stats


HAND_REACHES = (0.55, 0.65, 0.75)  # how far towards a corner of the mat the hands at DONE reach
ALARMS_GOAL = 0.05  # at most this share of the photos with nothing over the mat said at DONE


def hands_at_done(layouts, tables: int, seeds: int, seed: int) -> dict:
    """The app's DONE looks for something over the mat before it learns
    (`something_over_the_mat`): a hand in the calibration photo would hold the first board
    until Board clear. On the Arimaa mat of `seeds` sim tables a hand towards each corner of
    the mat at each of HAND_REACHES, and the calibration photos of the tables the other lines
    calibrate on the realistic tables (`realistic_table`: tall pieces, lamps as low as 30
    degrees whose pieces' shadows may run across the mat's edge; nothing over the mat): how
    many of each are said. A false alarm costs the players one more DONE (DONE again learns
    as it is): the goal is at most ALARMS_GOAL of the clear photos."""
    stats = {"hands": 0, "hands_said": 0, "clear": 0, "clear_said": 0, "examples": []}
    for k in range(seeds):
        table = SimTable("arimaa", seed=seed + k)
        position = calibration_position(table.layout)
        for corner in range(4):
            for reach in HAND_REACHES:
                hand = table.hand_towards(tuple(table.mat_quad()[corner]), reach=reach)
                photo = table.render(position, hand)
                try:
                    located = locate(photo, table.layout)
                except UserError:
                    continue  # (the hand hides two markers: DONE is not offered)
                stats["hands"] += 1
                stats["hands_said"] += something_over_the_mat(photo, located) is not None
    for name in layouts:
        for index in range(tables):
            table = realistic_table(name, index, seed)
            photo = table.render(calibration_position(table.layout))
            try:
                located = locate(photo, table.layout)
            except UserError:
                continue  # (a marker lost in the glare: DONE is not offered)
            said = something_over_the_mat(photo, located)
            stats["clear"] += 1
            stats["clear_said"] += said is not None
            if said is not None and len(stats["examples"]) < 8:
                stats["examples"].append(f"{name} table {index}: said near {said or 'the mat'}")
    return stats


def detection_speed(layouts, repeats: int = 10) -> tuple[list[float], list[float]]:
    detect, peer = [], []
    for name in layouts:
        table = SimTable(name, seed=4242, tilt=25)
        frame = table.render(random_cells(table.layout, np.random.default_rng(1)))
        for _ in range(repeats):
            t0 = time.perf_counter()
            locate(frame, table.layout)
            detect.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            cv2.GaussianBlur(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), (5, 5), 0)
            peer.append((time.perf_counter() - t0) * 1000)
    return detect, peer


def learning_speed(repeats: int = 10, moved: int = 1) -> tuple[list[float], list[float]]:
    """`learn_from_board` (once per board the referee takes) on a 1280x720 chess set after
    `moved` pawns stepped forward - the most it has to learn: 32 cells never seen empty - and
    its peer. With 4 pawns moved (8 cells changed, REFIT_CHANGES) the whole model is fitted
    again, as a few times a game (`vision.relearn.refit_to_board`)."""
    table = SimTable(
        CHESSBOARD,
        seed=4242,
        tilt=25,
        light=(0.9, 1.0),
        realism={"board": "green-cream", "pieces": "chess"},
    )
    cells, figures = chess_start(table.layout)
    homography = table.homography
    calibration = calibrate(table.render(cells, figures=figures), homography, table.layout, cells)
    for file in "hgfe"[:moved]:
        cells[f"{file}3"], figures[f"{file}3"] = cells.pop(f"{file}2"), figures.pop(f"{file}2")
    frame = table.render(cells, figures=figures)
    learn, peer = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        learn_from_board(calibration, frame, homography, table.layout, cells)
        learn.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        cv2.GaussianBlur(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), (5, 5), 0)
        peer.append((time.perf_counter() - t0) * 1000)
    return learn, peer


def percent(a: int, b: int) -> str:
    return f"{100.0 * a / max(b, 1):.3f} %"


def arguments(argv: list[str] | None) -> argparse.Namespace:
    """The command line: the benchmark set's size and seed, the layouts, what to run."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8, help="synthetic tables per layout")
    parser.add_argument("--boards", type=int, default=10, help="random boards read per table")
    parser.add_argument(
        "--crowded",
        type=int,
        default=3,
        help="--realistic: crowded boards (90%% of the cells) read per table, apart",
    )
    parser.add_argument("--moves", type=int, default=6, help="moves tracked per table")
    parser.add_argument(
        "--rest", type=int, default=4, help="resting hands per table (held still 1.2 s)"
    )
    parser.add_argument(
        "--rest-tables", type=int, default=4, help="tables per layout with resting hands"
    )
    parser.add_argument("--seed", type=int, default=1, help="the benchmark set's seed")
    parser.add_argument(
        "--layouts",
        nargs="*",
        default=layout_names(),
        choices=layout_names(),
        help="the printed mats to run (--realistic reads own chessboards apart)",
    )
    parser.add_argument(
        "--faults",
        type=float,
        default=0.02,
        help="rate of dropped/shaken frames in a second tracking run (0: skip)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="2 tables, 4 boards, 3 moves, 3 resting hands"
    )
    parser.add_argument(
        "--realistic",
        action="store_true",
        help="only reading accuracy, on realistic tables (tall pieces, shadows, printers) and "
        "on own 8x8 chessboards",
    )
    args = parser.parse_args(argv)
    if args.quick:
        args.tables, args.boards, args.moves, args.rest = 2, 4, 3, 3
    return args


def speeds(trk: dict, layouts, goal) -> None:
    """Print the speed lines (each with its peer measured in the same run); `goal(ok, what)`
    marks a missed goal."""
    feed, peer = statistics.median(trk["feed_ms"]), statistics.median(trk["peer_ms"])
    print(
        f"speed: tracking a located board {feed:.2f} ms/frame median (goal <= 10), "
        f"peer cvtColor+GaussianBlur {peer:.2f} ms, ratio {feed / peer:.2f}"
        + goal(feed <= 10, "tracking speed")
    )
    detect, dpeer = detection_speed(layouts)
    d, p = statistics.median(detect), statistics.median(dpeer)
    print(
        f"speed: full re-detection {d:.2f} ms median (goal <= 40), peer {p:.2f} ms, ratio {d / p:.2f}"
        + goal(d <= 40, "detection speed")
    )
    learn, lpeer = learning_speed()
    d, p = statistics.median(learn), statistics.median(lpeer)
    print(
        f"speed: learning from a board the referee took (once a move) {d:.2f} ms median "
        f"(goal <= 40, as a re-detection), peer {p:.2f} ms, ratio {d / p:.2f}"
        + goal(d <= 40, "learning speed")
    )
    learn, lpeer = learning_speed(repeats=3, moved=4)
    d, p = statistics.median(learn), statistics.median(lpeer)
    print(
        f"speed: fitting the model again to a board of the game (a few times a game) {d:.0f} ms"
        f" median (goal <= 2000, as a calibration), peer {p:.2f} ms, ratio {d / p:.0f}"
        + goal(d <= 2000, "refitting speed")
    )


def hand_lines(args: argparse.Namespace, calibrations, goal) -> None:
    """Print the lines of the hands that rest still: over a board, over the very first one,
    and in the photo DONE learns from (`goal(ok, what)` notes a goal missed)."""
    tables = min(args.tables, args.rest_tables)
    rest = resting_hands(args.layouts, tables, args.rest, args.seed, calibrations)
    print(
        f"resting hands (held still {REST_SECONDS:g} s, a reading requested on every frame): "
        f"{rest['poses']} hands, {rest['frames']} frames, {rest['from_hand_frames']} "
        f"observations from them (goal 0); {rest['unflagged']} hands not shown as 'hands' "
        f"throughout; {rest['missed_after']} boards not read after the hand left"
        + goal(rest["from_hand_frames"] == 0, "resting hands: observations from hand frames")
    )
    for line in rest["examples"]:
        print("  read under a hand:", line)
    first = resting_hands_on_the_first_board(args.layouts, tables, args.rest, args.seed)
    print(
        f"resting hands over the first board (a new tracker given the calibration photo): "
        f"{first['poses']} hands, {first['frames']} frames, {first['from_hand_frames']} "
        f"observations from them (goal 0); {first['missed_after']} boards not read after "
        "the hand left" + goal(first["from_hand_frames"] == 0, "resting hands over the first board")
    )
    for line in first["examples"]:
        print("  read under a hand:", line)
    done = hands_at_done(args.layouts, args.tables, 2 if args.quick else 8, args.seed)
    print(
        f"hands at DONE (a hand towards each corner of the Arimaa mat; the realistic "
        f"tables' calibration photos): {done['hands_said']} of {done['hands']} hands said; "
        f"{done['clear_said']} of {done['clear']} photos with nothing over the mat said "
        f"(goal <= {ALARMS_GOAL:.0%}: DONE asks once for a hand that is not there)"
        + goal(
            done["clear_said"] <= ALARMS_GOAL * done["clear"],
            "hands at DONE: photos with nothing over the mat said",
        )
    )
    for line in done["examples"]:
        print("  said on a clear mat:", line)


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    cv2.setNumThreads(1)
    if args.realistic:
        return realistic_main(args)
    missed: list[str] = []

    def goal(ok: bool, what: str) -> str:
        if not ok:
            missed.append(what)
        return "" if ok else "  <-- GOAL MISSED"

    calibrations = {name: calibrate_table(reference_table(name)) for name in args.layouts}
    print(f"layouts: {' '.join(args.layouts)}; {args.tables} tables each, seed {args.seed}")

    acc = reading_accuracy(args.layouts, args.tables, args.boards, args.seed, calibrations)
    cells_ok = acc["cells_right"] >= 0.999 * acc["cells_total"]
    boards_ok = acc["boards_right"] >= 0.99 * acc["boards_total"]
    print(
        f"reading: cells {acc['cells_right']}/{acc['cells_total']} right "
        f"({percent(acc['cells_right'], acc['cells_total'])}, goal >= 99.9 %), boards "
        f"{acc['boards_right']}/{acc['boards_total']} ({percent(acc['boards_right'], acc['boards_total'])}, goal >= 99 %)"
        + goal(cells_ok and boards_ok, "reading accuracy")
    )
    for line in acc["failures"]:
        print("  wrong:", line)

    trk = tracking_run(args.layouts, args.tables, args.moves, args.seed, calibrations, True)
    print(
        f"tracking: {trk['frames']} frames ({trk['hand_frames']} with a hand over the board), "
        f"{trk['observations']} observations, {trk['from_hand_frames']} from frames with a hand "
        f"(goal 0), {trk['wrong']} wrong, {trk['missed']} of {trk['moves']} boards never observed"
        + goal(trk["from_hand_frames"] == 0, "tracking: observations from hand frames")
    )

    if args.faults:
        bad = tracking_run(
            args.layouts, args.tables, args.moves, args.seed + 7, calibrations, False, args.faults
        )
        print(
            f"tracking with camera faults ({args.faults:.0%} dropped, {args.faults / 3:.1%} black, "
            f"{args.faults:.0%} shaken frames): {bad['frames']} frames ({bad['hand_frames']} with a hand), "
            f"{bad['observations']} observations, {bad['from_hand_frames']} from frames with a hand "
            f"(goal 0), {bad['wrong']} wrong, {bad['missed']} of {bad['moves']} boards never observed"
            + goal(bad["from_hand_frames"] == 0, "faults: observations from hand frames")
        )

    if args.rest:
        hand_lines(args, calibrations, goal)

    speeds(trk, args.layouts, goal)
    if missed:
        print(f"goals missed: {', '.join(missed)}")
        return 1
    print("all goals met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
