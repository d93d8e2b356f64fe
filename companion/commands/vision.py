"""`companion vision calibrate|read|locate|track|snapshot`: set up and debug the camera on a
table (snapshot: a photo of the synthetic table, to try the others without a camera)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections import Counter
from dataclasses import dataclass
from difflib import get_close_matches
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import cv2
import numpy as np

from companion import games
from companion.commands import as_typed, command_name, not_empty
from companion.errors import (
    EmptyPhotoNotEmpty,
    PositionMismatch,
    UserError,
    read_problem,
    write_problem,
)
from companion.export import check_output, write_output
from companion.geometry import ARANEA_CENTRE
from companion.observation import EMPTY, Observation
from vision import sources
from vision.calibration import (
    FEN_START,
    Calibration,
    calibrate,
    calibrate_found,
    captioned,
    learned_picture,
    load_calibration,
    load_position,
    pieces_in,
    refused_picture,
)
from vision.cell_views import cells_outside
from vision.corners import check_corners_place, corners_for, corners_path, save_corners
from vision.find import (
    BoardNotFound,
    board_kind,
    draw_grid,
    grid_still_there,
    lined_board_elsewhere,
    turn_told,
    turned,
    untold_turns,
)
from vision.image_files import read_photo
from vision.layouts import Layout, get_layout, layout_or_auto
from vision.locate import Located, locate
from vision.location import nothing_to_read
from vision.mat import write_png
from vision.messages import some_cells
from vision.reader import read_cells, top_view
from vision.sim import SimSource
from vision.standing import Photo, StandingCalibration
from vision.top_view import covered_cells
from vision.tracker import DARK, Tracker, something_over_the_mat

EXAMPLES = """examples:
  companion vision snapshot sim:arimaa -o photo.png --position start.json   no camera? a photo
  companion vision calibrate photo.png --position start.json -o sim.cal.json   ... to try these
  companion vision read photo.png --calibration sim.cal.json
  companion mat arimaa -o arimaa.pdf                 print a mat first (or use grid:RxC)
  companion vision locate photo.jpg                  which mat is in view, and where
  companion vision locate photo.jpg --layout chessboard --view found.png
                                                     your own chessboard: its grid drawn over the photo
  companion vision calibrate start.jpg --position start.json -o table.cal.json
  companion vision read photo.jpg --calibration table.cal.json
  companion vision read photo.jpg --calibration table.cal.json --json
  companion vision track usb:0 --calibration table.cal.json --json
  companion vision track 'sim:arimaa?seed=3' --calibration sim.cal.json --json

  a board without markers is found from its grid (chessboard: 8x8 checkered; grid:RxC: a lined
  board of R x C cells); when it is not found, give its corners (top-left, top-right,
  bottom-right, bottom-left as the first player sees it, in image pixels - the last is a1's):
  companion vision calibrate b.jpg --layout grid:9x9 --corners "102,80 610,84 640,590 90,600" \\
      --position stones.json -o mine.cal.json

POS.json names the occupied cells: {"cells": {"a1": "gold", "b1": "silver"}}; every other
cell is empty. Calibrate with every class on the board (Sensei: both characters too).
"""

LAYOUT_HELP = (
    "the board: arinama5 arinama8 arimaa aranea sensei sensei-storm (printed mats), chessboard "
    "(8x8 checkered, no markers), grid:RxC (a lined board, no markers: R x C cells between "
    "its lines - a 19-line Go board is grid:18x18; stones on its crossings are read as "
    "grid:19x19 with --corners half a cell outside the outer lines) or auto (the mat's "
    "markers tell)"
)
CORNERS_HELP = (
    'the playing area\'s corners in image pixels, "x,y x,y x,y x,y": top-left, top-right, '
    "bottom-right, bottom-left as the first player sees it (clockwise in the picture; the "
    "last is a1's corner); for boards without markers when their grid is not found by itself"
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "vision",
        help="calibrate the camera and read boards from photos or a camera",
        description="Camera tools: find the board, learn the pieces' colours from a known "
        "position, read every cell of a photo, or follow a camera and print each still board.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="vision_command", metavar="ACTION")

    _register_locate(sub)
    _register_calibrate(sub)
    _register_read(sub)
    _register_snapshot(sub)
    _register_track(sub)
    parser.set_defaults(func=lambda args: _usage(parser))


# An empty file name (an unset "$F") names no file: refused in one line, never taken for the
# current folder ("calibration file  is a folder") or for no file at all.
MAX_FPS = 1000.0  # frames a second of a file or folder played as a video (a camera: <= 120)
CALIBRATION_FILE = not_empty("file name: name the CAL.json from `companion vision calibrate`")
PHOTO_FILE = not_empty("file name: name a photo of the board (PNG, JPEG, ...)")
VIEW_FILE = not_empty("file name: name the PNG to write, or leave --view out")
POSITION_FILE = not_empty('file name: name the POS.json ({"cells": {"a1": "gold", ...}})')
SOURCE = not_empty("source: give picamera, usb:N, /dev/videoN, file:VIDEO, dir:GLOB or sim:LAYOUT")


def _register_locate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    locate = sub.add_parser(
        "locate",
        help="find the board in a photo: layout, markers, corners",
        description="Find the board in a photo and say which layout it is, which markers were "
        "seen and where the board's corners are; --view writes the board as the reader sees it.",
    )
    _image_arguments(locate, layout_default="auto")
    locate.add_argument(
        "--view",
        type=VIEW_FILE,
        metavar="PNG",
        help="also write what was found here: the straightened top view of a printed mat, the "
        "photo with the grid drawn over it for a board without markers",
    )
    locate.add_argument("--force", action="store_true", help="replace the --view PNG if it exists")
    locate.add_argument("--json", action="store_true", help="print JSON instead of text")
    locate.set_defaults(func=run_locate)


def _register_calibrate(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    calibrate = sub.add_parser(
        "calibrate",
        help="learn the pieces' colours from a photo of a known position",
        description="Learn the colour of every class from one photo of a known position. Run "
        "it again when the pieces or the camera change; lighting changes are handled.",
    )
    _image_arguments(calibrate, layout_default="auto")
    calibrate.add_argument(
        "--position",
        required=True,
        type=POSITION_FILE,
        metavar="POS.json",
        help='the position: {"cells": {"a1": "gold", ...}}; on a chess set (an 8x8 board) '
        "also a chess position in FEN, white and black pieces "
        f'("{FEN_START}" is the start)',
    )
    calibrate.add_argument(
        "-o",
        "--output",
        required=True,
        type=not_empty("file name: name the calibration file to write"),
        metavar="CAL.json",
        help="the calibration file to write",
    )
    calibrate.add_argument(
        "--force", action="store_true", help="replace CAL.json (and the --view PNG) if they exist"
    )
    calibrate.add_argument(
        "--empty",
        type=not_empty("file name: name the photo of the empty board, or leave --empty out"),
        metavar="IMAGE",
        help="also a photo of the same board empty, from the same camera: every cell's own "
        "empty look is learned (a printed logo, a label, a stain)",
    )
    calibrate.add_argument(
        "--empty-corners",
        metavar='"x,y x,y x,y x,y"',
        help="the board's corners in the --empty photo (default: --corners)",
    )
    calibrate.add_argument(
        "--view",
        type=VIEW_FILE,
        metavar="PNG",
        help="also write a picture of what was learned: the photo with every cell as the new "
        "calibration reads it, doubtful cells ringed",
    )
    calibrate.set_defaults(func=run_calibrate)


def _register_read(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    read = sub.add_parser(
        "read",
        help="read every cell of a photo",
        description="Read every cell of a photo: a class of the calibration, or unknown when "
        "the reader is not sure (it never guesses).",
    )
    _image_arguments(read, layout_default=None)
    read.add_argument(
        "--calibration",
        required=True,
        type=CALIBRATION_FILE,
        metavar="CAL.json",
        help="from `companion vision calibrate`",
    )
    read.add_argument(
        "--json",
        action="store_true",
        help='print {"cells": {...}, "confidence": {...}, "markers_seen": n, "occluded": false, '
        '"hidden": {...}, "unlearned": [...], "leaned": {...}, "turn_untold": false} (true: the '
        "board lies a quarter turn from where the calibration saw it, and may read upside down)",
    )
    read.set_defaults(func=run_read)


def _register_snapshot(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    snapshot = sub.add_parser(
        "snapshot",
        help="a photo of the synthetic table, and the position it shows (no camera needed)",
        description="Render one photo of the synthetic table (the mat, pieces, light and noise "
        "the demo's camera sees) and write the position it shows as POS.json, to try "
        "`vision calibrate` and `vision read` without a camera. The position is what the "
        "companion calibrates on - the game's start, with two pieces of each colour it lacks "
        "(Arimaa and Aranea start on an empty board: two of each colour) - or the first board "
        "of the source's script.",
    )
    snapshot.add_argument(
        "source",
        type=not_empty("source: give sim:LAYOUT, e.g. sim:arimaa"),
        metavar="SOURCE",
        help="sim:LAYOUT[?seed=N&size=WxH&tilt=DEG&script=FILE], e.g. sim:arimaa",
    )
    snapshot.add_argument(
        "-o",
        "--output",
        required=True,
        type=not_empty("file name: name the photo to write (.png or .jpg)"),
        metavar="PHOTO",
        help="the photo to write (.png or .jpg)",
    )
    snapshot.add_argument(
        "--position",
        required=True,
        type=POSITION_FILE,
        metavar="POS.json",
        help='where to write the position it shows: {"cells": {"a1": "gold", ...}}',
    )
    snapshot.add_argument("--force", action="store_true", help="replace the files if they exist")
    snapshot.set_defaults(func=run_snapshot)


def _register_track(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    track = sub.add_parser(
        "track",
        help="follow a camera and print every still board",
        description="Follow a camera (or video, folder of photos, sim:) and print each board "
        "that has been still, with no hand over it, for about half a second. Frames where the "
        "board moves or is covered print nothing. Ctrl-C stops.",
    )
    track.add_argument(
        "source",
        type=SOURCE,
        metavar="SOURCE",
        help="picamera, usb:N, /dev/videoN, file:VIDEO, dir:GLOB or sim:LAYOUT[?seed=N]",
    )
    track.add_argument("--layout", default=None, help=LAYOUT_HELP + " (default: the calibration's)")
    track.add_argument("--corners", metavar='"x,y x,y x,y x,y"', help=CORNERS_HELP)
    track.add_argument(
        "--calibration",
        required=True,
        type=CALIBRATION_FILE,
        metavar="CAL.json",
        help="from `companion vision calibrate`",
    )
    track.add_argument(
        "--json",
        action="store_true",
        help='print one JSON line per still board: {"frame": i, "cells": {...}}',
    )
    track.add_argument(
        "--fps", type=float, default=30.0, help="frame rate of files and folders (default 30)"
    )
    track.add_argument(
        "--max-frames", type=int, default=0, help="stop after this many frames (default: never)"
    )
    track.set_defaults(func=run_track)


def _image_arguments(parser: argparse.ArgumentParser, layout_default: str | None) -> None:
    parser.add_argument(
        "image", type=PHOTO_FILE, metavar="IMAGE", help="a photo of the board (PNG, JPEG, ...)"
    )
    default = f" (default: {layout_default})" if layout_default else " (default: the calibration's)"
    parser.add_argument("--layout", default=layout_default, help=LAYOUT_HELP + default)
    parser.add_argument("--corners", metavar='"x,y x,y x,y x,y"', help=CORNERS_HELP)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


# -- helpers ---------------------------------------------------------------------------------------
def check_files(
    outputs: dict[str, str | None], inputs: dict[str, str | None], *, force: bool
) -> None:
    """Before anything is read or written, refuse with one line: an output naming an input or
    another output (what the user gave is never overwritten, --force or not), a game record
    database (never replaced either), an existing file without --force, or a file that cannot
    be written. The keys say how each file was given ("-o", "the photo"); None: not given."""
    given = [(option, Path(name)) for option, name in outputs.items() if name]
    read = [(option, Path(name)) for option, name in inputs.items() if name]
    for i, (option, path) in enumerate(given):
        for other, named in [*read, *given[i + 1 :]]:
            if path.resolve() == named.resolve():
                raise UserError(f"{option} and {other} name the same file: give two names")
    for option, name in outputs.items():  # all can be written, before any is
        if not name:
            continue
        try:
            check_output(name, force, option)  # as typed: "-" names no file, "./-" does
        except OSError as exc:  # e.g. "File name too long" from the checks themselves
            raise UserError(f"cannot write {name}: {write_problem(name, exc)}") from None


def _something_to_read(image: np.ndarray, located: Located, name: str) -> None:
    """:raises UserError: the board's part of the picture `name` shows nothing to read (all
    but black, one flat colour: `nothing_to_read`), naming it."""
    unseen = nothing_to_read(image, located)
    if unseen:
        raise UserError(f"{name}: {unseen}" if name else unseen)


def load_image(path: str) -> np.ndarray:
    """A photo as a BGR array; UserError naming the file when it cannot be read."""
    file = Path(path)
    try:
        if file.is_dir():
            raise UserError(f"{path} is a folder, not an image file: give a photo (PNG, JPEG, ...)")
        if file.exists() and not file.is_file():  # a device, a pipe
            raise UserError(f"{path} is not an image file: give a photo (PNG, JPEG, ...)")
        if not file.is_file():
            raise UserError(f"image {path} not found: check the path")
    except OSError as exc:  # e.g. "File name too long" from the checks themselves
        raise UserError(f"cannot read image {path}: {read_problem(exc)}") from None
    try:
        image, kind = read_photo(file)
    except OSError as exc:
        raise UserError(f"cannot read image {path}: {read_problem(exc)}") from None
    if image is None and kind is not None:
        raise UserError(
            f"cannot read image {path}: it is a {kind} file, but damaged or cut short - "
            "copy or take the photo again"
        )
    if image is None:
        raise UserError(
            f"cannot read image {path}: not an image file OpenCV knows (PNG, JPEG, BMP, TIFF)"
        )
    return image


def _locate(image: np.ndarray, layout_name: str, corners: Any) -> Located:
    return locate(image, layout_name, corners)


def _wanted_layout(
    args: argparse.Namespace, calibration: Calibration | StandingCalibration
) -> Layout | None:
    """The layout to read: --layout, else the calibration's; None for "auto" (whichever mat
    is in view - reading it checks it is the calibration's).

    :raises UserError: --layout names another layout than the calibration was made for (what
        to leave out or do instead: a reader learned on one board reads only that board)."""
    name = str(args.layout) if args.layout else calibration.layout
    layout = layout_or_auto(name)
    if layout is None:
        return None
    if layout.name != calibration.layout:  # (only a --layout can differ)
        raise UserError(
            f"{args.calibration} was made for layout {calibration.layout}, not {name}: "
            f"leave out --layout to read the {calibration.layout} board, or calibrate "
            f"again with --layout {name} for the other board"
        )
    return layout


# -- actions ---------------------------------------------------------------------------------------
def check_view(view: str | None) -> None:
    """--view writes a PNG picture: a name ending in anything else is refused (PNG data in a
    .txt or .jpg file opens as nothing, or as garbage).

    :raises UserError: naming the file and the ending to give."""
    if view and Path(view).suffix.lower() != ".png":
        raise UserError(f"--view writes a PNG picture: name it {Path(view).stem}.png, not {view}")


# what `vision locate --view` draws over a board without markers (`vision.find.draw_grid`)
GRID_CAPTION = (
    "green: the cells; yellow: the board's edge, thick on the first player's side; red dot: a1"
)


def run_locate(args: argparse.Namespace) -> int:
    check_files({"--view": args.view}, {"the photo": args.image}, force=args.force)
    check_view(args.view)
    image = load_image(args.image)
    located = _locate(image, args.layout, args.corners)
    corners = [[round(float(x), 1), round(float(y), 1)] for x, y in located.board_corners_px()]
    if args.view:
        if located.layout.markers:
            view = top_view(image, located.homography, located.layout)
        else:  # (a trial found the first player's side easy to miss without a word)
            view = captioned(draw_grid(image, located), GRID_CAPTION)
        write_png(Path(args.view), view, overwrite=args.force)
    if args.json:
        print(
            json.dumps(
                {
                    "layout": located.layout.name,
                    "markers_seen": list(located.markers_seen),
                    "corners": corners,
                    "homography": [[float(v) for v in row] for row in located.homography],
                    "error_px": round(located.error_px, 3),
                }
            )
        )
        return 0
    seen = ", ".join(map(str, located.markers_seen)) or (
        "none (from --corners)" if args.corners else "none (found from its grid)"
    )
    if located.markers_seen:  # a printed mat: its markers' fit and its size in mm are known
        print(
            f"layout {located.layout.name}: markers {seen}; corner error {located.error_px:.2f} px"
        )
    else:
        print(f"layout {located.layout.name}: markers {seen}")
    print(f"board corners (TL TR BR BL): {' '.join(f'{x:g},{y:g}' for x, y in corners)}")
    if located.markers_seen:
        print(f"scale {located.px_per_mm():.2f} px/mm; image {image.shape[1]}x{image.shape[0]}")
    else:  # a board of one's own has no size in mm: how big its cells are in the picture
        pitch = located.px_per_mm() * located.layout.pitch
        print(f"cells about {pitch:.0f} px wide; image {image.shape[1]}x{image.shape[0]}")
        if not args.corners:
            print(
                f"a1 taken at the {_corner_words(located)} corner of the board in the picture (a "
                "board of your own looks the same turned round: check with --view, or give "
                "--corners)"
            )
    return 0


PICTURE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".webp")


def _check_calibration_name(output: str) -> None:
    """:raises UserError: `-o` names a picture (a trial: the calibration's JSON went into a
    .png file)."""
    if Path(output).suffix.lower() in PICTURE_SUFFIXES:
        raise UserError(
            f"-o writes the calibration, a JSON file: name it {Path(output).stem}.json, "
            f"not {output} (--view writes the picture of what was learned)"
        )


def _empty_photo(args: argparse.Namespace, layout: Layout) -> tuple[Photo, ...]:
    """The --empty photo, its board located (at --empty-corners, else the start photo's
    --corners, else found by its grid), said to show the board empty (checked as it teaches).

    :raises UserError: naming that photo - unreadable, its board not found or not in view."""
    empty = load_image(args.empty)
    try:
        empty_at = _locate(empty, layout.name, args.empty_corners or args.corners)
        _something_to_read(empty, empty_at, "")
    except BoardNotFound as exc:  # its own flag for corners (a trial: "--corners")
        raise UserError(
            f"the --empty photo {args.empty}: {exc.reason}; give its corners with "
            '--empty-corners "x,y x,y x,y x,y" (top-left, top-right, bottom-right, '
            "bottom-left as the first player sees it)"
        ) from None
    except UserError as exc:  # say which picture: the start photo was found
        raise UserError(f"the --empty photo {args.empty}: {exc}") from None
    return (Photo(empty, empty_at.homography, {}, said_empty=True),)


def run_calibrate(args: argparse.Namespace) -> int:
    check_files(
        {"-o": args.output, "--view": args.view},
        {"the photo": args.image, "--position": args.position, "--empty": args.empty},
        force=args.force,
    )
    check_view(args.view)
    _check_calibration_name(args.output)
    image = load_image(args.image)
    located = _locate(image, args.layout, args.corners)
    layout = located.layout
    _something_to_read(image, located, args.image)
    if not layout.has_markers:  # its corners are kept beside the calibration
        check_corners_place(args.output)
    position = load_position(args.position, layout)
    _check_classes(position)
    more = _empty_photo(args, layout) if args.empty else ()
    found = not located.markers_seen and not args.corners  # a grid found: a1 may be turned
    learning = _Learning(args, image, located, position, more, found)
    calibration, turn, colours_only = _calibrate(learning)
    finders_choice, located = located, turned(located, turn)
    # The picture first: a --view that cannot be written leaves no calibration behind (whose
    # -o would then ask for --force on the next try), and one that cannot be saved no picture.
    if args.view:
        picture = learned_picture(image, located.homography, layout, calibration, position)
        write_png(Path(args.view), picture, overwrite=args.force)
    try:
        calibration.save(args.output, overwrite=args.force)
    except UserError:
        if args.view:
            Path(args.view).unlink(missing_ok=True)
        raise
    if not layout.has_markers:
        _keep_corners(args, located, turn)
    for note in calibration.notes:
        print(f"note: {note}", file=sys.stderr)
    over = something_over_the_mat(image, located)
    if over is not None:
        where = f" near {over}" if over else ""
        print(
            f"note: something lies on the mat{where} in the photo (a hand?): the cells under it "
            "may have taught their look as it was - calibrate again on a photo with nothing "
            "over the mat",
            file=sys.stderr,
        )
    if not more and not layout.has_markers:
        print(
            "note: learned from one photo: a logo or label printed in a cell under a piece (a "
            "board maker's emblem) may read as a piece once that cell is empty - dark prints on "
            "light squares are learned from the photo, others are not (`vision read` marks such "
            "cells; the referee learns them as the game goes) - add --empty EMPTY.jpg, a photo "
            "of the empty board",
            file=sys.stderr,
        )
    learned = ", ".join(f"{c} ({calibration.samples[c]})" for c in calibration.classes)
    source = (
        f"{len(located.markers_seen)} markers"
        if located.markers_seen
        else "the given corners"
        if args.corners
        else "its own grid, found in the photo"
    )
    print(f"Calibrated layout {layout.name} from {source}: {learned} cells. Wrote {args.output}")
    if found:
        _say_where_a1_is(located, finders_choice, turn, colours_only)
    doubtful = ", ".join(calibration.doubtful) or "none"
    print(
        f"Margin between classes {calibration.margin:.2f} (standard deviations); doubtful cells: {doubtful}"
    )
    return 0


@dataclass(frozen=True)
class _Learning:
    """What `vision calibrate` learns from: the photo where its board was located, the
    position it shows, `more` photos (the --empty one), whether the board was found by its
    grid (`found`: a1 may be turned), and the command's options."""

    args: argparse.Namespace
    image: np.ndarray
    located: Located
    position: dict[str, str]
    more: tuple[Photo, ...]
    found: bool

    def learn(self, more: tuple[Photo, ...] | None = None) -> tuple[StandingCalibration, int, bool]:
        """The calibration (from `more` photos besides the photo, default the ones given),
        the turn of the finder's choice it was learned at, and whether only the pieces'
        colours told that turn (`found`: the way round the position fits,
        `calibrate_found`; else 0 and False).

        :raises UserError: PositionMismatch among others."""
        more = self.more if more is None else more
        if self.found:
            learned = calibrate_found(
                self.image,
                self.located,
                self.position,
                more,
                more_found=not self.args.empty_corners,
            )
            return learned.calibration, learned.turn, learned.colours_only
        located = self.located
        return (
            calibrate(self.image, located.homography, located.layout, self.position, more),
            0,
            False,
        )


def _calibrate(learning: _Learning) -> tuple[StandingCalibration, int, bool]:
    """`learning.learn()`, a refusal said with what to look at.

    :raises PositionMismatch: the photo does not show the position (any way round), saying
        where --view drew what was refused."""
    args, located = learning.args, learning.located
    try:
        return learning.learn()
    except EmptyPhotoNotEmpty as exc:  # a trial: such a photo was taken, and spoilt the reading
        where = ""
        spoilt = _empty_photo_pieces(learning) if args.view else None  # (turned as learned)
        if spoilt is not None:
            picture = refused_picture(
                spoilt[0].image, spoilt[0].homography, located.layout, exc.cells
            )
            write_png(Path(args.view), picture, overwrite=args.force)
            where = f" (see {args.view}: the --empty photo)"
        raise EmptyPhotoNotEmpty(
            f"the --empty photo {args.empty} shows pieces on {some_cells(exc.cells)}{where}: "
            "take it with nothing on the board, from where the camera stands - or leave out "
            "--empty",
            exc.cells,
        ) from None
    except PositionMismatch as exc:
        more_words = []
        # a trial: the start photo and position were blamed (and ringed) for an --empty photo
        # with pieces on it
        spoilt = _empty_photo_pieces(learning)
        if args.view:  # what was refused, to look at: the grid as located, the cells ringed
            picture = (
                refused_picture(learning.image, located.homography, located.layout, exc.cells)
                if spoilt is None
                else refused_picture(
                    spoilt[0].image, spoilt[0].homography, located.layout, spoilt[1]
                )
            )
            write_png(Path(args.view), picture, overwrite=args.force)
            more_words.append(f"see {args.view}" + (": the --empty photo" if spoilt else ""))
        if spoilt is not None:
            shows = f"pieces on {', '.join(spoilt[1])}" if spoilt[1] else "pieces"
            more_words.append(
                f"without the --empty photo {args.empty} it calibrates: that photo shows "
                f"{shows} or another board - give a photo of this board empty, from where "
                "the camera stands"
            )
        elif learning.found:
            corners = [_corner_words(turned(located, t)) for t in untold_turns(located.layout)]
            more_words.append(
                f"it fits the grid found neither with a1 at the {', '.join(corners[:-1])} nor "
                f"at the {corners[-1]} corner - check the position file and the pieces, or give "
                "--corners"
            )
        if not more_words:
            raise
        raise PositionMismatch(f"{exc} ({'; '.join(more_words)})", exc.cells) from None


def _empty_photo_pieces(learning: _Learning) -> tuple[Photo, tuple[str, ...]] | None:
    """When the photo calibrates without the --empty photo (`more`), that photo is what
    spoilt it: that photo (its homography turned as calibration turns it) and the cells the
    photo's own calibration reads as pieces there; None when it does not calibrate without
    it either (or there is none)."""
    if not learning.more:
        return None
    try:
        calibration, turn, _ = learning.learn(more=())
    except UserError:  # PositionMismatch among them
        return None
    found = learning.found and not learning.args.empty_corners  # (turned as calibration turns it)
    corners = turned(learning.located, turn).board_corners_px() if found else None
    return pieces_in(learning.more[0], calibration, learning.located.layout, corners)


def _say_where_a1_is(
    located: Located, finders_choice: Located, turn: int, colours_only: bool
) -> None:
    """Where a1 was taken on a grid found (`located`, `turn` from the finder's choice;
    `colours_only`: only the pieces' colours told the turn)."""
    if turn:
        darker = (
            " - if the white pieces are the darker ones, give --corners (top-left first as "
            "White sees the board)"
            if colours_only
            else ""
        )
        print(
            f"note: a1 is at the {_corner_words(located)} corner of the board in the picture: "
            f"the position fits the grid found that way round (not with a1 at the "
            f"{_corner_words(finders_choice)} corner, which the grid alone could not tell)"
            + darker,
            file=sys.stderr,
        )
        return
    print(
        f"note: a1 was taken at the {_corner_words(located)} corner of the board in the "
        "picture, where the position fits (the grid alone looks the same turned round; a "
        "position that would fit either way is taken so too) - if the first player does not "
        "sit there, give --corners (top-left first as the first player sees the board) or "
        "check with --view",
        file=sys.stderr,
    )


def _keep_corners(args: argparse.Namespace, located: Located, turn: int) -> None:
    """A board without markers: the corners given are saved beside the calibration, for
    read, track and referee to use again; a grid found that the position showed turned from
    the finder's choice (`turn`) is saved as found (`save_corners(found=True)`: they find it
    by its grid and take it the way round nearest these corners - the finder's own choice
    would be the other); an earlier calibration's corners there (which they would use) are
    removed when the board was found from its grid the finder's way round."""
    path = corners_path(args.output)
    if args.corners:
        saved = save_corners(args.output, located.layout.name, located.board_corners_px())
        print(f"Saved the corners beside the calibration: {saved} (used again next time)")
    elif turn:
        saved = save_corners(
            args.output, located.layout.name, located.board_corners_px(), found=True
        )
        print(
            f"Saved which way round the board lies beside the calibration: {saved} (it is "
            "found by its grid each time, taken that way round)"
        )
    elif path.exists():
        path.unlink()
        print(
            f"Removed the corners saved with the calibration this one replaces ({path}): the "
            "board is found again each time"
        )


def _check_classes(position: dict[str, str]) -> None:
    """What a careless position file gets wrong before calibration learns it for good: one
    class spelled two ways ("Black", "black"), or fewer than two classes of pieces (every
    piece of a class left out would be learned as an empty cell).

    :raises UserError: naming the classes and what to do."""
    classes = sorted(set(position.values()))
    spelled: dict[str, list[str]] = {}
    for cls in classes:
        spelled.setdefault(cls.strip().lower(), []).append(cls)
    twice = [names for names in spelled.values() if len(names) > 1]
    if twice:
        raise UserError(
            f"the position spells one class two ways ({' and '.join(map(repr, twice[0]))}): "
            "write it the same way on every cell"
        )
    counts = Counter(position.values())
    for cls in (c for c in classes if counts[c] == 1):  # "blak" on one cell beside "black"
        like = get_close_matches(cls, [c for c in classes if counts[c] > 1], 1, 0.8)
        if like:
            cell = next(c for c, k in position.items() if k == cls)
            raise UserError(
                f"the position names {cls!r} on {cell} only: a misspelling of {like[0]!r}? "
                "write each class the same way on every cell"
            )
    if len(classes) < 2:
        named = f"only {classes[0]!r}" if classes else "no pieces"
        raise UserError(
            f"the position names {named}: calibration learns the classes the photo shows - put "
            "a piece of every class on the board and name each in the position (a piece left "
            "out is learned as an empty cell)"
        )


def _corner_words(located: Located) -> str:
    """Which corner of the board, as the picture shows it, is a1's ("bottom-left", ...): of
    the board's four corners the two higher in the picture are its top ones, and of those two
    (or the two lower) the one further left is the left one - so the four are named apart
    however the board lies (a board off to one side, or turned by 45 degrees)."""
    corners = located.board_corners_px()  # TL, TR, BR, BL as the first player sees it
    rows = np.lexsort((corners[:, 0], corners[:, 1]))  # by height, then from the left
    top = 3 in rows[:2]
    pair = corners[rows[:2] if top else rows[2:]]
    left = corners[3][0] <= pair[:, 0].min()
    return f"{'top' if top else 'bottom'}-{'left' if left else 'right'}"


def _locate_to_read(
    args: argparse.Namespace, image: np.ndarray, wanted: Layout | None
) -> tuple[Located, np.ndarray | None, bool]:
    """The board to read in `image`: at --corners, else at those saved with the calibration
    (said so; whether they fit the picture is `_check_corners_fit`'s), else found; the saved
    corners of a grid found (`near`: which way round to take it), None otherwise; and whether
    it was read at corners saved with the calibration."""
    corners, said, near = corners_for(args.corners, args.calibration, wanted)
    if said:
        print(said, file=sys.stderr)
    saved_in = str(corners_path(args.calibration)) if said and corners is not None else ""
    located = locate(
        image, wanted.name if wanted else "auto", corners, near=near, saved_in=saved_in
    )
    return located, near, corners is not None and not args.corners


def run_read(args: argparse.Namespace) -> int:
    calibration = load_calibration(args.calibration)
    image = load_image(args.image)
    # (checked before looking for it: another board's markers are not sought)
    wanted = _wanted_layout(args, calibration)
    located, near, at_saved = _locate_to_read(args, image, wanted)
    layout = located.layout
    calibration.check_layout(layout)
    _something_to_read(image, located, args.image)
    # the board lies a quarter turn from the saved corners, neither way round nearer them
    turn_untold = near is not None and not turn_told(layout, located.homography, near)
    if turn_untold:
        print(
            "note: the board lies a quarter turn from where the calibration saw it: which way "
            "round it lies (where a1 is) cannot be told, and the reading may be upside down - "
            "give --corners (the board's corners as the first player sees them: top-left, "
            "top-right, bottom-right, bottom-left)",
            file=sys.stderr,
        )
    seen = len(located.markers_seen)
    occluded, covered = covered_cells(
        image, located.homography, layout, loose=0 < seen < len(layout.markers)
    )
    observation = read_cells(
        image,
        located.homography,
        layout,
        calibration,  # type: ignore[arg-type]  # vision.reader types only the flat calibration
        markers_seen=seen,
        covered=covered,
    )
    if args.corners or at_saved:
        empty = [c for c, v in observation.cells.items() if v == EMPTY]
        _check_corners_fit(
            image, located, corners_path(args.calibration) if at_saved else None, empty
        )
    if occluded:
        print(
            "something is over the board (a hand, an arm, a cup?): no cell can be read safely, "
            "so every cell reads unknown - take it away and photograph the board again"
            + (
                " (or check that --corners are the board's corners)"
                if args.corners
                else " (or check the corners saved beside the calibration, or give --corners)"
                if at_saved
                else ""
            ),
            file=sys.stderr,
        )
    if args.json:
        data = observation.to_json()
        out = {k: data[k] for k in ("cells", "confidence", "markers_seen")}
        print(
            json.dumps(
                {
                    **out,
                    "occluded": bool(occluded),
                    "hidden": observation.hidden,
                    "unlearned": list(observation.unlearned),
                    "leaned": observation.leaned,
                    "turn_untold": turn_untold,
                }
            )
        )
        return 0
    print(board_text(layout, observation.cells))
    _say_marks(observation)
    outside = [] if layout.has_markers else cells_outside(image, located.homography, layout)
    if outside:
        print(
            f"{_count(len(outside), 'cell')} {'lies' if len(outside) == 1 else 'lie'} outside the "
            "picture and read unknown: "
            f"{', '.join(outside[:12])}{' ...' if len(outside) > 12 else ''} - "
            "turn or raise the camera to see the whole board"
        )
    unknown = [c for c in observation.unknown() if c not in outside]
    if unknown and not occluded:
        print(f"unknown (not sure): {', '.join(unknown)}")
    return 0


def _say_marks(observation: Observation) -> None:
    """The cells the reading marks (docs/vision.md): those a nearer piece may hide, those no
    calibration photo showed empty that look changed, those read empty as a nearer piece's
    lean, those read without certainty - each with what the referee does about it."""
    if observation.hidden:
        behind = [f"{c} behind {n}" for c, n in sorted(observation.hidden.items())]
        print(
            f"{_count(len(behind), 'cell')} a nearer piece may hide from this camera: "
            f"{', '.join(behind[:12])}{' ...' if len(behind) > 12 else ''} - the referee keeps "
            "them as they were when that alone makes the board a move; a higher camera hides fewer"
        )
    if observation.unlearned:
        print(
            f"{_count(len(observation.unlearned), 'cell')} no calibration photo showed empty "
            f"{'no longer looks as it' if len(observation.unlearned) == 1 else 'no longer look as they'}"
            f" did then, and may be empty: {', '.join(observation.unlearned)} - a print "
            "there (a logo) reads as a piece until the camera has seen the cell empty: calibrate "
            "with --empty (a photo of the empty board); in a game the referee teaches the camera "
            "from the first legal move that empties the cell"
        )
    if observation.leaned:
        read = [f"{c} (looked {k})" for c, k in sorted(observation.leaned.items())]
        print(
            f"{_count(len(read), 'cell')} under a nearer piece's lean read empty: "
            f"{', '.join(read)} - the look is the lean's, not a piece's; the referee takes "
            "such a cell as it looked when that alone makes the board a move"
        )
    doubtful = observation.doubtful()
    if doubtful:
        read = [f"{c} {observation.cells[c]} ({observation.confidence[c]:.2f})" for c in doubtful]
        print(
            f"{_count(len(doubtful), 'cell')} read without certainty: {', '.join(read)} - the "
            "referee takes such a cell as it was when that alone makes the board a move"
        )


def _check_corners_fit(
    image: np.ndarray, located: Located, saved: Path | None, empty: list[str]
) -> None:
    """Says on stderr when a board's grid does not show where the corners - typed, or `saved`
    with the calibration - put it. A checkered board shows its grid wherever pieces leave
    corners free (all 125 real chess photos on their labelled corners); a lined board, whose
    stones may hide its lines, is judged by the cells read `empty` and by its lines a little
    aside (`lined_board_elsewhere`: its cells may be read on purpose between the lines, as
    Go's crossings are)."""
    kind = board_kind(located.layout)
    if kind == "checkered":
        fits = grid_still_there(image, located) is not None
    else:  # lined, or a printed mat (found by its markers: nothing to check)
        fits = not lined_board_elsewhere(image, located, empty)
    if fits:
        return
    todo = (
        f"give this photo's --corners, or remove {saved} to have the board found in each photo"
        if saved
        else "check --corners (top-left, top-right, bottom-right, bottom-left as the first "
        "player sees the board)"
    )
    print(
        "the board's grid does not show where the corners put it (a photo taken from "
        f"elsewhere, or a board that moved?): the reading below may be wrong - {todo}",
        file=sys.stderr,
    )


def _count(n: int, noun: str) -> str:
    """ "1 cell", "3 cells" (the command line speaks English).

    >>> _count(1, "cell"), _count(3, "cell")
    ('1 cell', '3 cells')
    """
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def run_snapshot(args: argparse.Namespace) -> int:
    if not args.source.startswith("sim:"):
        raise UserError(
            f"snapshot photographs the synthetic table: give sim:LAYOUT (e.g. sim:arimaa), "
            f"not {args.source!r}; with a camera, save a frame with your camera's own tools"
        )
    photo, position = Path(args.output), Path(args.position)
    if photo.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        raise UserError(f"-o {args.output}: name a .png or .jpg file for the photo")
    script = dict(parse_qsl(args.source.partition("?")[2])).get("script")
    check_files(
        {"-o": args.output, "--position": args.position}, {"the script": script}, force=args.force
    )
    source = SimSource.from_spec(args.source[len("sim:") :])
    table = source.table
    layout = table.layout
    if "script=" in args.source:
        cells = dict(source.script[0])
    else:
        found = games.for_layout(layout.name)
        if found is None:
            raise UserError(
                f"layout {layout.name} is no game's mat: give the board to show with "
                f"sim:{layout.name}?script=FILE"
            )
        game, options = found
        cells = games.get(game).new(options).calibration_cells(layout.classes)
    image = table.render(cells)
    ok, encoded = cv2.imencode(photo.suffix.lower(), image)
    if not ok:
        raise UserError(f"cannot encode the photo as {photo.suffix}")
    # Both or neither: the position first (a photo without its position calibrates nothing),
    # taken back if the photo cannot be written.
    write_output(json.dumps({"cells": cells}, indent=1) + "\n", position, force=True)
    try:
        write_output(encoded.tobytes(), photo, force=True)  # (checked above)
    except UserError:
        position.unlink(missing_ok=True)
        raise
    # A board without markers is not found by "auto": the calibration must be told which.
    which = "" if layout.has_markers else f" --layout {layout.name}"
    print(
        f"Wrote {photo} ({image.shape[1]}x{image.shape[0]}, layout {layout.name}) and "
        f"{position} ({len(cells)} pieces). Try: {command_name()} vision calibrate "
        f"{_argument(photo)} --position {_argument(position)}{which} "
        f"-o {_argument(_calibration_name(photo))}"
    )
    return 0


def _calibration_name(photo: Path) -> Path:
    """The calibration file to suggest for `photo`: NAME.cal.json beside it, or the first of
    NAME-2.cal.json, NAME-3.cal.json, ... that is no file yet (a suggested command line that
    would be refused for an existing file helps nobody).

    >>> _calibration_name(Path("/nowhere/my.board.png")).name
    'my.board.cal.json'
    """
    base = photo.name.removesuffix(photo.suffix) or photo.name
    path, number = photo.with_name(f"{base}.cal.json"), 1
    while path.exists():
        number += 1
        path = path.with_name(f"{base}-{number}.cal.json")
    return path


def _argument(path: Path) -> str:
    """`path` as a word of a command line to copy: quoted for the shell, and ./ before a name
    that starts with a dash, so that it is not taken for an option.

    >>> _argument(Path("-x.png")), _argument(Path("my photo.png"))
    ('./-x.png', "'my photo.png'")
    """
    text = str(path)
    return shlex.quote(f"./{text}" if text.startswith("-") else text)


def board_text(layout: Layout, cells: dict[str, str]) -> str:
    """A plain picture of what was read: one letter per class, '.' empty, '?' unknown."""
    classes = sorted({v for v in cells.values() if v not in ("empty", "unknown")})
    letters = _letters(classes)
    symbol = {"empty": ".", "unknown": "?", **letters}
    names = list(cells)
    lines = []
    if all(n[0].isalpha() and n[1:].isdigit() for n in names):  # a grid: a1.. from the bottom
        files = sorted({n[0] for n in names})
        ranks = sorted({int(n[1:]) for n in names}, reverse=True)
        for rank in ranks:
            row = " ".join(symbol[cells.get(f"{f}{rank}", "empty")] for f in files)
            lines.append(f"{rank:>2} {row}")
        lines.append("   " + " ".join(files))
    else:  # Aranea: rings from the outside in, then the centre row by row
        for ring in (1, 2, 3):
            row = " ".join(symbol[cells[f"r{ring}-{n}"]] for n in range(1, 13))
            lines.append(f"ring {ring} (1..12): {row}")

        for numbers in ARANEA_CENTRE:
            lines.append("centre:        " + " ".join(symbol[cells[f"c{n}"]] for n in numbers))
    legend = ", ".join(f"{letter} {name}" for name, letter in letters.items())
    lines.append(f"({legend}{', ' if legend else ''}. empty, ? unknown)")
    return "\n".join(lines)


def _letters(classes: list[str]) -> dict[str, str]:
    """A distinct letter per class: the initial, upper case for "-character" stones."""
    letters: dict[str, str] = {}
    for name in sorted(classes, key=lambda c: (c.endswith("-character"), c)):
        base = name.removesuffix("-character")
        letter = base[0].upper() if name.endswith("-character") else base[0].lower()
        for candidate in [letter, *[ch for ch in base[1:] if ch.isalpha()], *"0123456789"]:
            if candidate not in letters.values():
                letters[name] = candidate
                break
    return letters


def run_track(args: argparse.Namespace) -> int:
    if not 0 < args.fps <= MAX_FPS:  # nan and inf too: a frame's time is index / fps
        raise UserError(f"--fps must be above 0 and at most {MAX_FPS:g}, not {args.fps:g}")
    if args.max_frames < 0:
        raise UserError(f"--max-frames must be 0 (never stop) or more, not {args.max_frames}")
    calibration = load_calibration(args.calibration)
    layout = _wanted_layout(args, calibration)  # None: "auto", whichever mat is in view
    wanted = f"{layout.name} board" if layout else "mat"  # reading it checks the calibration's
    corners, said, near = corners_for(args.corners, args.calibration, layout)
    if said:
        print(said, file=sys.stderr)
    tracker = Tracker(layout or "auto", calibration, corners=corners, near=near, fps=args.fps)
    frames = observations = 0
    found = False
    said = ""
    moves_said = 0
    covered = dark = False  # the tracker's "covered", "dark" was said (once a spell)
    # vision.sources.FrameSource does not declare the context manager every source is
    with sources.open_source(args.source) as source:
        while not args.max_frames or frames < args.max_frames:
            frame = source.read()
            if frame is None and getattr(source, "ended", False):
                break
            index = frames
            frames += 1
            observation = tracker.feed(frame, index / args.fps)
            found = found or tracker.located is not None
            if (tracker.status == DARK) != dark:
                dark = not dark
                if dark:
                    print(f"companion: {tracker.problem} (frame {index})", file=sys.stderr)
            problem = "" if tracker.located is not None or dark else tracker.problem
            if problem and problem != said:
                print(f"companion: board not found (frame {index}): {problem}", file=sys.stderr)
            said = problem
            if tracker.board_moves > moves_said:
                moves_said = tracker.board_moves
                print(
                    f"companion: the board moved on the table (frame {index}): following it",
                    file=sys.stderr,
                    flush=True,
                )
            if (tracker.status == "covered") != covered:
                covered = not covered
                if covered:
                    where = f" near {tracker.covered_near}" if tracker.covered_near else ""
                    print(
                        as_typed(
                            f"companion: something has lain on the board{where} for a while "
                            f"(frame {index}): nothing is read until it goes (`companion "
                            "referee --source` takes `clear` when it is no hand)"
                        ),
                        file=sys.stderr,
                        flush=True,
                    )
            if observation is None:
                continue
            observations += 1
            if args.json:
                line = {"frame": index, "cells": observation.cells}
                if observation.hidden:
                    line["hidden"] = observation.hidden
                if observation.unlearned:
                    line["unlearned"] = list(observation.unlearned)
                if observation.leaned:
                    line["leaned"] = observation.leaned
                print(json.dumps(line), flush=True)
            else:
                print(f"frame {index}:")
                seen_layout = tracker.layout or get_layout(observation.layout)
                print(board_text(seen_layout, observation.cells), flush=True)
    if not frames:
        raise UserError(f"no frames came from {args.source}")
    if not found:
        why = tracker.problem or "no frame showed it"
        raise UserError(f"the {wanted} was never found in {frames} frames: {why}")
    if not observations:
        print(as_typed(_nothing_read(args, frames, tracker.still_seconds)), file=sys.stderr)
    return 0


def _nothing_read(args: argparse.Namespace, frames: int, still_seconds: float) -> str:
    """Why `vision track` printed no board - and, for a folder of photos, what reads them."""
    photos = (
        f" - dir: plays each image as one frame of a video at --fps {args.fps:g}; to read "
        "separate photos, use `companion vision read PHOTO` on each"
        if args.source.startswith("dir:")
        else ""
    )
    return (
        f"companion: no board was still and uncovered long enough to be read in {frames} "
        f"frames (about {still_seconds:g} s of stillness is needed){photos}"
    )
