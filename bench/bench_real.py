"""Real-photo benchmark: calibrate on one photo of each real board, read all the others.

    .venv/bin/python bench/bench_real.py            # every board of ../shared/data/real
    .venv/bin/python bench/bench_real.py --errors   # also list every wrongly read cell
    .venv/bin/python bench/bench_real.py --second [--empty-cells-only]   # and a second photo
    .venv/bin/python bench/bench_real.py --learn    # the photos as one game's boards, learning
    .venv/bin/python bench/bench_real.py --learn --streams 5   # and over 5 random streams
    .venv/bin/python bench/bench_real.py --learn --said-right  # the players press Board is right
    .venv/bin/python bench/bench_real.py --found --learn   # every board found by its own grid

The photos are `../shared/data/real/` beside the repository (128 labelled photos: 125 of two
chess sets, two gobans, one Othello board; see its README). They are read from there and never
copied into the project. Each set of photos of one board is calibrated once, on the photo with
the most pieces of the rarer colour (the nearest thing to a start position), with the labelled
corners, and every photo of the set - the calibration photo too - is read with the labelled
corners (board finding is measured by bench_board_find.py) - or, with `--found`, with the corners
the companion finds itself on a board of your own (below). A cell is right when it reads as its
labelled class (for chess the class is the piece's colour); "unknown" counts as wrong and is
also counted on its own. Bars (issue 9): >= 99.5 % of cells and >= 90 % of whole boards on each
board. Go is labelled on intersections: its cells are the squares centred on them, so the board
reaches half a cell past the outer lines - partly past the picture on one photo.

Each board also says how many photos a referee that expects the position shown takes as it:
the cells a nearer piece may hide (`vision.occlusion`) are read by the referee as they were
when that alone makes the board the position (`companion.referee.core.Referee.seen_board`).
The bars are on the reading itself.

Calibration draws its augmented copies from a random stream (`calibrate_standing(stream=)`):
the same photos give the same calibration, but another stream reads a few cells and boards
differently. `--streams N` measures N streams (the default one first) and prints, per board,
the boards read whole on each stream, their mean, and on how many streams both bars are met.

With `--learn --said-right`, each photo the referee does not take the players say is right
(the play screen's **Board is right**): it teaches the camera as a board taken does, and the
presses are counted - how often the players of these games would have had to press.

With `--scale F` every photo is read shrunk F times in memory (its labelled corners with it), as
a camera farther away or with fewer pixels shows the board: chesscog's squares span about 73
pixels at full size (`vision.cell_views.at_reading_scale` enlarges a board seen smaller).

With `--found`, every photo - the calibration photo too - is read where `vision.find.find_board`
finds its board by its own grid (`chessboard`; Go as `grid:18x18`, its outer lines; Othello as
`grid:8x8`), as the companion does on a board without markers. The calibration photo is
calibrated as the companion does it too: the finder's way round first, then the turn the
position fits (`vision.calibration.calibrate_found`; a line says when it takes a1 elsewhere
than the labels). The sets' other photos are taken from elsewhere (a phone moved round the
board), so for them the labelled corners say which way round the board lies - what the photo
cannot tell (a checkerboard turned by 180 degrees, a lined board by any quarter turn). The
labels are hand-made and off by up to a quarter of a cell on some photos (crv_01's a1 corner
30 px into the margin), so this is the reading the players get. A photo whose board is not
found counts every cell wrong ("not found").

Exit status 1 when a bar is missed (on the default stream), 0 otherwise. The thresholds of the
reader are not tuned to these photos: this benchmark only measures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import shared_data  # noqa: E402

from companion import games  # noqa: E402
from companion.errors import UserError  # noqa: E402
from companion.observation import EMPTY, UNKNOWN, Observation  # noqa: E402
from companion.referee.core import MAX_HIDDEN_CHANGES, may_misread  # noqa: E402
from vision.calibration import calibrate_found  # noqa: E402
from vision.copies import AUGMENT_SEED  # noqa: E402
from vision.find import find_board, turned_homography, untold_turns  # noqa: E402
from vision.layouts import CHESSBOARD, get_layout  # noqa: E402
from vision.location import Located  # noqa: E402
from vision.relearn import learn_from_board  # noqa: E402
from vision.standing import Photo, calibrate_standing, read_standing  # noqa: E402

CELL_BAR, BOARD_BAR = 0.995, 0.90


def real_data() -> Path:
    """../shared/data/real, found as the tests find it (`shared_data`); exits saying where it
    looked when it is not there."""
    try:
        return shared_data.real_data()
    except FileNotFoundError as exc:
        raise SystemExit(f"bench: {exc}") from None


def load_photo(data: Path, entry: dict) -> np.ndarray:
    """The entry's photo, shrunk as `--scale` asks (`scaled`)."""
    image = cv2.imread(str(data / entry["file"]))
    scale = entry.get("scale", 1.0)
    if scale == 1.0:
        return image
    return cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)


def scaled(entry: dict, scale: float) -> dict:
    """The entry as `--scale` reads it: its photo shrunk `scale` times (`load_photo`), its
    labelled corners with it - as a camera farther away, or with fewer pixels, shows it."""
    if scale == 1.0:
        return entry
    # (pixel centres: OpenCV's resize puts pixel x at (x + 0.5) * scale - 0.5)
    corners = [[(x + 0.5) * scale - 0.5, (y + 0.5) * scale - 0.5] for x, y in entry["corners"]]
    return {**entry, "corners": corners, "scale": scale}


def board_set(entry: dict) -> str:
    """chesscog, chess-ray-vision, go, othello: the photos of one board."""
    if entry["game"] != "chess":
        return entry["game"]
    return "chesscog" if "chesscog" in entry["file"] else "chess-ray-vision"


def layout_and_homography(entry: dict, corners: np.ndarray | None = None):
    """The layout (chessboard or grid:RxC) and the homography board mm -> image px from the
    labelled corners, or from `corners` given in their place (the same four points: a8, h8,
    h1, a1; Go's outer intersections)."""
    cols, rows = entry["size"]
    corners = np.array(entry["corners"] if corners is None else corners, np.float64)
    if (
        entry["game"] == "go"
    ):  # corners are the outer intersections: the cells reach half a cell further
        lines = np.array([[0, 0], [cols - 1, 0], [cols - 1, rows - 1], [0, rows - 1]], np.float32)
        to_image = cv2.getPerspectiveTransform(lines, corners.astype(np.float32))
        outer = np.array(
            [[[-0.5, -0.5], [cols - 0.5, -0.5], [cols - 0.5, rows - 0.5], [-0.5, rows - 0.5]]]
        )
        corners = cv2.perspectiveTransform(outer, to_image)[0]
    # A chess set stands on a `chessboard` (its pieces are tall: vision.occlusion); stones
    # lie on a lined grid. Both have the same cells.
    layout = get_layout(CHESSBOARD if entry["game"] == "chess" else f"grid:{rows}x{cols}")
    board = np.array(layout.board_corners(), np.float32)
    return layout, cv2.getPerspectiveTransform(board, corners.astype(np.float32)).astype(np.float64)


# How `--found` (and bench_board_find.py) look for each set's board without its labels: the
# layout `find_board` is given. Go's 19 lines are 18 x 18 cells between them.
FIND_LAYOUT = {"chess": "chessboard", "go": "grid:18x18", "othello": "grid:8x8"}


def turned_as_labelled(
    found: np.ndarray, labelled: np.ndarray, game: str
) -> tuple[np.ndarray, int]:
    """The found corners (4 x 2, TL, TR, BR, BL of the finder's choice) turned by the turn the
    photo cannot tell (`vision.find.untold_turns`) that puts them nearest the labelled ones
    (their largest distance), and that turn.

    >>> square = np.array([[0, 0], [8, 0], [8, 8], [0, 8]], float)
    >>> corners, turn = turned_as_labelled(np.roll(square, 2, axis=0), square, "chess")
    >>> turn, corners.tolist() == square.tolist()
    (2, True)
    """
    best = min(
        untold_turns(get_layout(FIND_LAYOUT[game])),
        key=lambda turn: np.linalg.norm(np.roll(found, -turn, axis=0) - labelled, axis=1).max(),
    )
    return np.roll(found, -best, axis=0), best


_found: dict[tuple[Path, str], np.ndarray | None] = {}


def found_corners(entry: dict, data: Path, *, as_labelled: bool = True) -> np.ndarray | None:
    """The corners of the photo's board as `vision.find.find_board` finds them - turned as the
    labels lie (`turned_as_labelled`), or with `as_labelled` False the finder's own way round
    - or None when it finds no board; found once a run."""
    key = (data, entry["file"], entry.get("scale", 1.0))
    if key not in _found:
        try:
            located = find_board(load_photo(data, entry), FIND_LAYOUT[entry["game"]])
        except UserError:
            _found[key] = None
        else:
            _found[key] = located.board_corners_px()
    corners = _found[key]
    if corners is None or not as_labelled:
        return corners
    return turned_as_labelled(corners, np.array(entry["corners"], np.float64), entry["game"])[0]


def calibrate_as_found(entry: dict, data: Path, more: tuple[Photo, ...], stream: int):
    """Calibrate on the photo's board as the companion does on a board of its own: found by
    its grid the finder's way round, then turned the way the position fits
    (`vision.calibration.calibrate_found`; the extra photos, taken from elsewhere in these
    sets, as labelled). Returns the calibration and whether it took a1 where the labels have
    it (`where_board`'s homography is then the one calibrated on)."""
    layout, homography = layout_and_homography(entry, found_corners(entry, data, as_labelled=False))
    image = load_photo(data, entry)
    learned = calibrate_found(
        image, Located(layout, homography), entry["cells"], more, more_found=False, stream=stream
    )
    took = turned_homography(layout, homography, learned.turn)
    board = np.array([layout.board_corners()], np.float64)
    labelled = layout_and_homography(entry, found_corners(entry, data))[1]
    same = np.allclose(
        cv2.perspectiveTransform(board, took), cv2.perspectiveTransform(board, labelled), atol=1.0
    )
    return learned.calibration, same


def where_board(entry: dict, data: Path, found: bool):
    """(layout, homography) of the photo's board: from its labelled corners, or with `found`
    from the corners the finder finds (None when it finds none)."""
    if not found:
        return layout_and_homography(entry)
    corners = found_corners(entry, data)
    return None if corners is None else layout_and_homography(entry, corners)


def calibration_photo(photos: list[dict]) -> dict:
    """The photo with the most pieces of the rarer colour: the nearest thing to a start
    position."""

    def rarer(entry: dict) -> int:
        counts = Counter(entry["cells"].values())
        return min(counts.values()) if len(counts) >= 2 else 0

    return max(photos, key=rarer)


def emptiest_photo(photos: list[dict]) -> dict:
    """The photo with the fewest pieces: the second photo of `--second`."""
    return min(photos, key=lambda e: len(e["cells"]))


# Whether the referee reads hidden cells (`tall_pieces`): a chess set is Arimaa's equipment;
# Go stones and Othello discs lie flat.
TALL_PIECES = {"chess": games.get("arimaa").referee_class().tall_pieces}


def taken_as_position(observation: Observation, truth: dict[str, str], tall: bool = True) -> bool:
    """Whether a settled referee expecting `truth` takes the board read as it
    (companion.referee.core.Referee.seen_board): read right, or every cell read wrong is one
    the referee may read otherwise, at most MAX_HIDDEN_CHANGES of them - with tall pieces, a
    cell a nearer piece may hide (`Observation.hidden`) where the camera may misread it
    (`may_misread`), or read unknown there (`Referee._behind_nearer_pieces`: taken as it was
    on the last board, which here is taken to hold what the photo shows); in any game, a cell
    whose empty look the camera has not learned (`Observation.unlearned`) read as a piece, or
    unknown, where there is none; in any game, a cell the reader was unsure of
    (`Observation.doubtful`), taken as the last board had it - here, as the photo shows."""
    wrong = [c for c in truth if observation.cells[c] != truth[c]]
    if not wrong:
        return True
    if len(wrong) > MAX_HIDDEN_CHANGES:
        return False

    def occupant(c: str) -> str | None:
        return None if observation.cells[c] in (EMPTY, UNKNOWN) else observation.cells[c]

    doubtful = set(observation.doubtful())

    for cell in wrong:
        was = None if truth[cell] == EMPTY else truth[cell]
        if cell in observation.unlearned and was is None:
            continue  # a print read as a piece, or as nothing known: unknown
        if cell in doubtful:
            continue  # unsure: taken as it was (the referee's `seen_board`)
        if observation.cells[cell] == UNKNOWN:
            if tall and cell in observation.hidden:
                continue  # what a nearer piece hides is taken as it was (the last board's)
            return False
        front = observation.hidden.get(cell)
        if not tall or front is None or not may_misread(occupant(cell), was, occupant(front)):
            return False
    return True


def truth_of(entry: dict, layout) -> dict[str, str]:
    return {n: entry["cells"].get(n, EMPTY) for n in layout.cell_names()}


def read_photos(
    photos: list[dict],
    data: Path,
    calibration,
    list_errors: bool,
    learn: bool = False,
    said_right: bool = False,
    found: bool = False,
) -> tuple[Counter, Counter, float]:
    """Read every photo of a board set with its calibration: the counts (cells, right,
    unknown, boards, boards right), the wrong readings (truth, read) -> how often, and the
    seconds spent reading. `list_errors`: print every wrongly read cell. `learn`: the photos
    are read in turn as the boards of one game, and each photo a referee takes as its position
    teaches the calibration the empty look of the cells it had not learned, and now and then
    fits the whole model again to it (`vision.relearn.learn_from_board`, as the companion
    does during a game), and how the empty cells a nearer piece leans over look under that lean
    (`lean_looks`); each photo is read before it teaches anything. `said_right` (with `learn`):
    a photo the referee does not take, the players say is right (Board is right) - it teaches
    as one taken, counted as "said right". `found`: each photo is read where the finder finds
    its board (`where_board`); one it finds none on counts every cell wrong."""
    count: Counter = Counter()
    errors: Counter = Counter()
    seconds = 0.0
    for entry in photos:
        board = where_board(entry, data, found)
        if board is None:
            count += not_found_counts(entry)
            if list_errors:
                print(f"  {entry['file']}: the board is not found")
            continue
        layout, homography = board
        image = load_photo(data, entry)
        start = time.perf_counter()
        observation = read_standing(image, homography, layout, calibration)
        seconds += time.perf_counter() - start
        truth = truth_of(entry, layout)
        wrong = [c for c, t in truth.items() if observation.cells[c] != t]
        count["cells"] += len(truth)
        count["right"] += len(truth) - len(wrong)
        count["unknown"] += sum(observation.cells[c] == UNKNOWN for c in truth)
        count["boards"] += 1
        count["boards right"] += not wrong
        count["hidden wrong"] += sum(c in observation.hidden for c in wrong)
        taken = taken_as_position(observation, truth, TALL_PIECES.get(entry["game"], False))
        count["boards taken"] += taken
        if learn and said_right and not taken:
            count["said right"] += 1
        if learn and (taken or said_right):
            occupied = {c: t for c, t in truth.items() if t != EMPTY}
            before = len(calibration.unlearned)
            was = calibration
            calibration = learn_from_board(calibration, image, homography, layout, occupied)
            count["cells learned"] += before - len(calibration.unlearned)
            count["leans learned"] += calibration.lean_looks != was.lean_looks
            if calibration.refit_changes != was.refit_changes:  # a fit was due
                count["fitted again" if calibration.means != was.means else "not fitted"] += 1
        for c in wrong:
            errors[(truth[c], observation.cells[c])] += 1
            if list_errors:
                print(f"  {entry['file']}: {c} is {truth[c]}, read {observation.cells[c]}")
    return count, errors, seconds


def arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, help="the real photos (default: ../shared/data/real)")
    parser.add_argument("--errors", action="store_true", help="list every wrongly read cell")
    parser.add_argument(
        "--second",
        action="store_true",
        help="also give calibration the set's emptiest photo (as a player's empty-board picture)",
    )
    parser.add_argument(
        "--empty-cells-only",
        action="store_true",
        help="with --second: learn only the emptiest photo's empty cells (its pieces unlabelled),"
        " as a photo of the empty board would teach",
    )
    parser.add_argument(
        "--streams",
        type=int,
        default=1,
        metavar="N",
        help="measure N random streams of calibration's copies (the default one first)",
    )
    parser.add_argument(
        "--learn",
        action="store_true",
        help="read the photos in turn as one game's boards; each board a referee takes teaches"
        " the empty look of the cells no calibration photo showed empty",
    )
    parser.add_argument(
        "--said-right",
        action="store_true",
        help="with --learn: the players say each photo the referee does not take is right"
        " (Board is right): it teaches as one taken; the presses are counted",
    )
    parser.add_argument(
        "--found",
        action="store_true",
        help="read each photo where the companion finds its board by its own grid (vision.find),"
        " not at its labelled corners; the labels only say which way round it lies",
    )
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        metavar="F",
        help="read every photo shrunk F times (0 < F <= 1), as a camera farther away or with"
        " fewer pixels shows the board (the squares of chesscog's photos span about 73 px)",
    )
    args = parser.parse_args(argv)
    if not 0.0 < args.scale <= 1.0:
        parser.error(
            f"--scale shrinks the photos: a number above 0 and at most 1, not {args.scale}"
        )
    if args.said_right and not args.learn:
        parser.error("--said-right reads the photos as a game: give --learn too")
    if args.empty_cells_only and not args.second:
        parser.error("--empty-cells-only learns from the second photo: give --second too")
    return args


STREAM_SPACING = (
    1000  # a stream's generators take seeds stream..stream+2, its refits stream+changes
)


def streams(count: int) -> list[int]:
    """The random streams `--streams` measures: the default one, then others STREAM_SPACING
    apart (no two share a generator's seed)."""
    return [AUGMENT_SEED + STREAM_SPACING * k for k in range(max(count, 1))]


def measure(sets: dict[str, list[dict]], args: argparse.Namespace, stream: int, show: bool):
    """Calibrate and read every board set on one random stream: set -> (counts, errors,
    seconds a photo, calibration line). `show`: print the table (and the errors) as it goes."""
    results = {}
    for name, photos in sets.items():
        calib, emptiest = calibration_photo(photos), emptiest_photo(photos)
        board = where_board(calib, args.data, args.found)
        if board is None:  # no board to calibrate on: every board counts wrong
            results[name] = (
                sum(map(not_found_counts, photos), Counter()),
                Counter(),
                0.0,
                f"the board is not found on {calib['file']}",
            )
            if show:
                print(f"{name:32} the board is not found on the calibration photo {calib['file']}")
            continue
        layout, homography = board
        second = where_board(emptiest, args.data, args.found) if args.second else None
        unfound = (
            f"; the board is not found on {emptiest['file'].split('/')[-1]}: calibrated on one photo"
            if args.second and second is None and emptiest is not calib
            else ""
        )
        more = ()
        if second is not None and emptiest is not calib:
            second_h = second[1]
            image = load_photo(args.data, emptiest)
            if args.empty_cells_only:
                more = (Photo(image, second_h, {}, unlabelled=tuple(emptiest["cells"])),)
            else:
                more = (Photo(image, second_h, emptiest["cells"]),)
        start = time.perf_counter()
        as_labelled = True
        try:
            if args.found:
                calibration, as_labelled = calibrate_as_found(calib, args.data, more, stream)
            else:
                calibration = calibrate_standing(
                    load_photo(args.data, calib),
                    homography,
                    layout,
                    calib["cells"],
                    more,
                    stream=stream,
                )
        except UserError as exc:  # a photo refused on this stream: every board counts wrong
            results[name] = (refused_counts(photos, layout), Counter(), 0.0, f"refused: {exc}")
            if show:
                print(f"{name:32} calibration refused: {exc}")
            continue
        calibrate_s = time.perf_counter() - start
        count, errors, seconds = read_photos(
            photos,
            args.data,
            calibration,
            args.errors and show,
            args.learn,
            args.said_right,
            args.found,
        )
        line = (
            f"calibrated on {calib['file'].split('/')[-1]}"
            + (f" and {emptiest['file'].split('/')[-1]}" if more else "")
            + f" in {calibrate_s:.2f} s: margin "
            f"{calibration.margin:.2f}, doubtful {', '.join(calibration.doubtful) or 'none'}"
            + ("" if as_labelled else "; a1 taken at another corner than the labels'")
            + unfound
        )
        results[name] = (count, errors, seconds / count["boards"], line)
        if show:
            print_board(name, count, errors, seconds / count["boards"], line, args.learn)
    return results


def not_found_counts(entry: dict) -> Counter:
    """The counts of a photo whose board the finder does not find: every cell wrong."""
    cols, rows = entry["size"]  # Go: 19 x 19 points, each read as a cell
    return Counter(cells=cols * rows, boards=1, **{"not found": 1})


def refused_counts(photos: list[dict], layout) -> Counter:
    """The counts of a board set whose calibration was refused: every cell and board wrong."""
    cells = len(layout.cell_names())
    return Counter(cells=cells * len(photos), boards=len(photos))


def meets_bars(count: Counter) -> bool:
    return (
        count["right"] >= CELL_BAR * count["cells"]
        and count["boards right"] >= BOARD_BAR * count["boards"]
    )


def print_board(name: str, count: Counter, errors: Counter, per_photo: float, line: str, learn):
    cells = count["right"] / count["cells"]
    boards = count["boards right"] / count["boards"]
    flag = "" if meets_bars(count) else "   <- below the bar"
    print(
        f"{name:32} {count['boards']:>6} {cells:>11.2%} {count['unknown']:>8} "
        f"{count['boards right']:>5}/{count['boards']:<3} ({boards:.0%}) {per_photo:>7.3f}{flag}"
    )
    if count["not found"]:
        print(
            f"    the board is not found on {count['not found']} photo(s): every cell counted wrong"
        )
    if errors:
        print("    " + ", ".join(f"{t} read {r}: {n}" for (t, r), n in errors.most_common()))
    print(
        f"    a referee expecting each position takes {count['boards taken']}/"
        f"{count['boards']} ({count['boards taken'] / count['boards']:.0%}) as it: "
        f"{count['hidden wrong']} wrong cells may be hidden by a nearer piece"
        + (
            f"; {count['cells learned']} cells' empty look learned, the model fitted again"
            f" to {count['fitted again']} board(s) ({count['not fitted']} refused), a lean"
            f" learned from {count['leans learned']} board(s)"
            + (f"; Board is right said on {count['said right']}" if count["said right"] else "")
            if learn
            else ""
        )
    )
    print(f"    {line}")


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    args.data = args.data or real_data()
    manifest = args.data / "manifest.json"
    if not manifest.exists():
        print(f"no real photos at {args.data} (no manifest.json there): give --data the folder")
        return 1
    entries = [scaled(entry, args.scale) for entry in json.loads(manifest.read_text())]
    sets: dict[str, list[dict]] = defaultdict(list)
    for entry in entries:
        sets[board_set(entry)].append(entry)
    print(
        f"{'board':32} {'photos':>6} {'cells right':>12} {'unknown':>8} {'boards right':>13} {'s/photo':>8}"
    )
    first, *others = streams(args.streams)
    results = measure(sets, args, first, show=True)
    total = sum((count for count, *_ in results.values()), Counter())
    missed = not all(meets_bars(count) for count, *_ in results.values())
    print(
        f"{'total':32} {total['boards']:>6} {total['right'] / total['cells']:>11.2%} "
        f"{total['unknown']:>8} {total['boards right']:>5}/{total['boards']:<3}"
    )
    print(
        f"{'':32} a referee expecting each position takes {total['boards taken']}/"
        f"{total['boards']} as it"
    )
    if others:
        every = [results] + [measure(sets, args, stream, show=False) for stream in others]
        print(f"over {len(every)} random streams of calibration's copies (the first as above):")
        for name in sets:
            counts = [run[name][0] for run in every]
            whole = [c["boards right"] for c in counts]
            print(
                f"  {name:30} boards {' '.join(map(str, whole))} of {counts[0]['boards']}"
                f" (mean {sum(whole) / len(whole):.1f}); cells "
                f"{min(c['right'] / c['cells'] for c in counts):.2%}-"
                f"{max(c['right'] / c['cells'] for c in counts):.2%}; both bars met on "
                f"{sum(map(meets_bars, counts))} of {len(counts)}"
            )
        both = sum(all(meets_bars(run[name][0]) for name in sets) for run in every)
        print(f"  every board meets both bars on {both} of {len(every)} streams")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
