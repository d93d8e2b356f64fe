"""`companion mat LAYOUT -o FILE`: print a mat (PNG, PDF or both), its markers, or its geometry."""

from __future__ import annotations

import argparse
import json
import os
from functools import partial
from pathlib import Path

from companion.errors import UserError, write_problem
from companion.export import check_output
from vision import mat
from vision.layouts import LAYOUT_CHOICES, Layout, get_layout

EXAMPLES = """examples:
  companion mat arimaa -o arimaa.pdf                 an A3 page (scaled to fit), ready to print
  companion mat arimaa -o arimaa                     both arimaa.png (true size) and arimaa.pdf
  companion mat sensei-storm -o storm.pdf --paper A4  the Storm side of Sensei's board on A4
  companion mat aranea -o aranea.png --dpi 150        a PNG at 150 dots per inch (true size)
  companion mat arinama8 -o markers.pdf --markers-only
                                                     just the four markers, true size, to stick
                                                     round an 8x8 board you own
  companion mat arimaa --layout-json                 cells, markers and classes in millimetres

layouts: arinama5 arinama8 arimaa aranea sensei sensei-storm (mats with four ArUco markers);
chessboard gives a checkered board (green and cream, a1 dark) and grid:RxC a plain lined grid,
both with the cell names and no markers (the camera finds such a board by its squares or its
lines, or by the corners you give).
The camera measures a mat by its markers, so a mat printed smaller than true size works just
as well; print it flat and without "fit to page" distortion (same scale both ways).
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "mat",
        help="write a printable board mat (PNG or PDF): a game's with its camera markers, or "
        "a board of your own (checkered or lined)",
        description="Write the printable mat of a layout: the board with its four ArUco "
        "markers, which tell the camera where the board is and which board it is (chessboard: "
        "a checkered board, grid:RxC: a plain lined grid, both without markers).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("layout", metavar="LAYOUT", help="the layout (see the list below)")
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="the file to write: FILE.pdf or FILE.png, or FILE (no extension) for both",
    )
    parser.add_argument(
        "--paper",
        default="A3",
        type=lambda value: {p.lower(): p for p in ("A4", "A3", "letter")}.get(value.lower(), value),
        choices=("A4", "A3", "letter"),
        help="page size of the PDF and of --markers-only (default A3; the mat is scaled down "
        "to fit the page when it is larger)",
    )
    parser.add_argument(
        "--dpi", type=int, default=300, help="resolution in dots per inch (default 300)"
    )
    parser.add_argument(
        "--markers-only",
        action="store_true",
        help="write only the four markers at true size, one page, to stick round a board",
    )
    parser.add_argument(
        "--layout-json",
        action="store_true",
        help="print the layout's geometry as JSON (mm, mat frame) instead of writing a file",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace FILE if it exists (otherwise it is kept)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.layout.strip().lower() == "auto":
        raise UserError(
            f"companion mat prints one layout, not auto (auto is for a camera reading the "
            f"markers): choose one of {LAYOUT_CHOICES}"
        )
    layout = get_layout(args.layout)
    if args.layout_json:
        print(json.dumps(layout.to_json(), indent=1))
        return 0
    if not args.output:
        raise UserError(
            "give the file to write with -o FILE.pdf or -o FILE.png, or -o FILE for both "
            "(or use --layout-json)"
        )
    if not 50 <= args.dpi <= 1200:
        raise UserError(f"--dpi must be between 50 and 1200, not {args.dpi}")
    path = Path(args.output)
    try:
        paths = _outputs(path, args.output, layout, args.force)
    except OSError as exc:  # e.g. "File name too long" from the checks themselves
        raise UserError(f"cannot write {path}: {write_problem(path, exc)}") from None
    for target in paths:
        _write(layout, target, target.suffix, args.paper, args.dpi, args.markers_only, args.force)
    return 0


def _outputs(path: Path, given: str, layout: Layout, force: bool) -> list[Path]:
    """The files `-o` names (FILE: FILE.png and FILE.pdf), each checked to be writable."""
    if given == "-":  # not -.png and -.pdf
        raise UserError(
            "-o - names no file (a mat is not printed to the terminal): give a file name"
        )
    kind = path.suffix.lower()
    if kind in (".pdf", ".png"):
        paths = [path]
    elif not kind:  # FILE: the printable mat as both PNG and PDF
        if given.endswith(("/", os.sep)) or path.is_dir():  # not FILE.png beside it
            raise UserError(
                f"{given} names a folder: give a file name in it with -o, e.g. "
                f"{path / layout.name}.pdf"
            )
        if path.exists() and not path.is_file():  # /dev/full: never /dev/full.png beside it
            raise UserError(f"{path} is not a regular file: give a file name with -o")
        if path.name.endswith("."):  # a type left out half way: not m..png and m..pdf
            stem = path.with_name(path.name.rstrip("."))
            raise UserError(
                f"{given} ends in a dot: give {stem}.pdf or {stem}.png, or {stem} for both"
            )
        paths = [path.with_name(path.name + ".png"), path.with_name(path.name + ".pdf")]
    else:
        raise UserError(
            f"{path} must end in .pdf or .png (the file type follows the name), or have no "
            f"extension to write both"
        )
    for target in paths:  # both can be written, before either is
        check_output(target, force)
    return paths


def _write(
    layout: Layout, path: Path, kind: str, paper: str, dpi: int, markers_only: bool, force: bool
) -> None:
    write_pdf = partial(mat.write_pdf, overwrite=force)
    write_png = partial(mat.write_png, overwrite=force, dpi=dpi)

    px_per_mm = dpi / 25.4
    if markers_only:
        image = mat.render_marker_sheet(layout, paper, px_per_mm)
        size = mat.paper_size(paper)
        if kind == ".pdf":
            write_pdf(path, image, size, size)
        else:
            write_png(path, image)
        print(
            f"Wrote the four markers of {layout.name} (ids {_ids(layout)}) to {path}: print at 100 %"
        )
        return
    if kind == ".png":
        image = mat.render_mat(layout, px_per_mm)
        write_png(path, image)
        w, h = layout.size
        print(
            f"Wrote the {layout.name} mat ({w:g} x {h:g} mm at {dpi} dpi) to {path}: "
            f"print at 100 % for true size"
        )
        return
    page, scale = mat.fit_on_paper(layout.size, paper)
    image = mat.render_mat(layout, px_per_mm * scale)
    printed = (layout.size[0] * scale, layout.size[1] * scale)
    write_pdf(path, image, page, printed)
    note = (
        "true size"
        if scale >= 0.999
        else f"scaled to {scale * 100:.0f} % to fit (the camera does not mind)"
    )
    print(f"Wrote the {layout.name} mat to {path}: {paper}, {note}")


def _ids(layout: Layout) -> str:
    return ", ".join(str(i) for i in layout.marker_ids())
