"""Printable mats: a layout drawn as an image, and written as PNG or PDF.

The mat is white paper with the board in a mid wood tone - dark enough that a bright lamp never
washes it out to pure white (a camera clips at 255; the reader needs the board's own colour
as its light reference), light enough that black stones stand out - dark cell lines, small
cell names in a corner of each cell, the marks of the game (Arimaa's traps, Sensei's pits,
Aranea's web), and the four ArUco markers in white quiet zones outside the board's corners.

Everything the camera samples inside a cell (the inner 70 % of its circle) is plain board tone
on an empty cell: names and marks sit in the cell's corners and rim, so an empty trap looks to
the reader exactly like any other empty cell.

The PDF writer is a few lines of standard PDF 1.4 (one page, one lossless Flate image), so no
new dependency is needed.
"""

from __future__ import annotations

import math
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.errors import UserError, write_problem
from vision.layouts import (
    CHESSBOARD,
    MARKER_GAP,
    QUIET_ZONE,
    Layout,
    aruco_dictionary,
    cell_parity,
)

PAPER_WHITE = (255, 255, 255)
BOARD_TONE = (112, 138, 150)  # BGR of a mid wood tone: the board's background, < 155 per channel
LINE_COLOUR = (50, 45, 40)
TRAP_COLOUR = (60, 75, 170)  # terracotta corners around Arimaa's traps
PIT_COLOUR = (45, 45, 45)  # dark corners around Sensei's Storm pits
LABEL_COLOUR = (60, 75, 85)
# The chessboard layout's mat: checkered as a vinyl chessboard (a1 dark), so that the camera
# finds it as a chessboard - a lined grid of one tone it finds only as grid:8x8
LIGHT_SQUARE = (200, 226, 236)  # cream
DARK_SQUARE = (80, 118, 62)  # green
DARK_LABEL = (200, 226, 236)
MARK_INNER = 0.8  # marks fill a cell outside this fraction of its inner circle
LINE_WIDTH_MM = 0.6

# Paper sizes (mm, portrait) and the printer's unprintable rim.
PAPERS = {"A4": (210.0, 297.0), "A3": (297.0, 420.0), "letter": (215.9, 279.4)}
PRINT_MARGIN = 8.0

PLAYER_AT_BOTTOM = {"arinama": "Black", "arimaa": "Gold", "aranea": "Amber", "sensei": "Green"}


def render_mat(layout: Layout, px_per_mm: float = 4.0, *, labels: bool = True) -> np.ndarray:
    """The mat of `layout` as a BGR image, `px_per_mm` pixels per millimetre.

    Pixel (u, v) shows the mat point (u + 0.5, v + 0.5) / px_per_mm, so a homography in mm maps
    to this image by scaling with `px_per_mm`.
    """
    if px_per_mm <= 0:
        raise UserError(f"the mat resolution must be positive, not {px_per_mm}")
    width = int(round(layout.size[0] * px_per_mm))
    height = int(round(layout.size[1] * px_per_mm))
    image = np.full((height, width, 3), PAPER_WHITE, np.uint8)
    pen = _Pen(image, px_per_mm)
    _draw_board(pen, layout)
    if labels:
        _draw_labels(pen, layout)
    for marker in layout.markers:
        _draw_marker(pen, marker.id, marker.corners)
    if layout.markers:
        _draw_captions(pen, layout)
    return image


@dataclass
class _Pen:
    """Draws in millimetres on an image (fixed-point coordinates for smooth anti-aliasing)."""

    image: np.ndarray
    px_per_mm: float
    shift: int = 4

    def pts(self, points) -> np.ndarray:
        scale = self.px_per_mm * (1 << self.shift)
        return np.array([[round(x * scale), round(y * scale)] for x, y in points], np.int32)

    def width(self, mm: float) -> int:
        return max(1, int(round(mm * self.px_per_mm)))

    def fill(self, points, colour) -> None:
        cv2.fillPoly(self.image, [self.pts(points)], colour, cv2.LINE_AA, self.shift)

    def outline(self, points, colour, mm: float = LINE_WIDTH_MM, closed: bool = True) -> None:
        cv2.polylines(
            self.image, [self.pts(points)], closed, colour, self.width(mm), cv2.LINE_AA, self.shift
        )

    def disc(self, center, radius_mm: float, colour) -> None:
        (c,) = self.pts([center])
        r = int(round(radius_mm * self.px_per_mm * (1 << self.shift)))
        cv2.circle(self.image, (int(c[0]), int(c[1])), r, colour, -1, cv2.LINE_AA, self.shift)

    def text(self, text: str, center, height_mm: float, colour, thickness_mm: float = 0.0) -> None:
        """`text` centred on `center` (mm), capital letters `height_mm` tall."""
        font = cv2.FONT_HERSHEY_SIMPLEX
        (w1, h1), _ = cv2.getTextSize(text, font, 1.0, 1)
        scale = height_mm * self.px_per_mm / max(h1, 1)
        thickness = max(1, int(round((thickness_mm or height_mm * 0.12) * self.px_per_mm)))
        (w, h), _ = cv2.getTextSize(text, font, scale, thickness)
        x = center[0] * self.px_per_mm - w / 2
        y = center[1] * self.px_per_mm + h / 2
        cv2.putText(
            self.image,
            text,
            (int(round(x)), int(round(y))),
            font,
            scale,
            colour,
            thickness,
            cv2.LINE_AA,
        )


def _dark_square(layout: Layout, name: str) -> bool:
    """A dark square of the chessboard layout (a1's colour)."""
    return layout.name == CHESSBOARD and cell_parity(name) == 1


def _draw_board(pen: _Pen, layout: Layout) -> None:
    for cell in layout.cells:
        if layout.name == CHESSBOARD:
            tone = DARK_SQUARE if _dark_square(layout, cell.name) else LIGHT_SQUARE
        else:
            tone = BOARD_TONE
        pen.fill(cell.polygon, tone)
    colours = {"trap": TRAP_COLOUR, "pit": PIT_COLOUR}
    for mark in layout.marks:
        if mark.kind in colours and mark.cell:
            cell = layout.cell(mark.cell)
            pen.fill(cell.polygon, colours[mark.kind])
            pen.disc(cell.center, cell.radius * MARK_INNER, BOARD_TONE)
    if layout.name != CHESSBOARD:  # (a checkered board's squares meet: the X-corners)
        for cell in layout.cells:
            pen.outline(cell.polygon, LINE_COLOUR)
    for mark in layout.marks:
        if mark.kind in ("ring", "centre"):
            pen.outline(mark.polygon, LINE_COLOUR, LINE_WIDTH_MM * 1.5)
    if layout.markers:  # a firm frame round the playing area
        pen.outline(layout.board_corners(), LINE_COLOUR, LINE_WIDTH_MM * 2)


def label_anchor(layout: Layout, cell) -> tuple[float, float, float]:
    """Where a cell's name goes: (x, y, text height) in mm - in a corner of square cells, near
    the outer arc of Aranea's sectors, always outside the part of the cell the reader samples."""
    xs = [p[0] for p in cell.polygon]
    ys = [p[1] for p in cell.polygon]
    if len(cell.polygon) == 4:
        pitch = max(xs) - min(xs)
        height = pitch * 0.09
        return (min(xs) + pitch * 0.2, min(ys) + pitch * 0.12, height)
    # Aranea sector: near the outer arc, a little clockwise of the ray through its centre.
    cx = cy = layout.board_origin[0] + layout.board_size[0] / 2
    number = int(cell.name.split("-")[1])
    r_out = max(math.hypot(x - cx, y - cy) for x, y in cell.polygon)
    angle = math.radians(number * 30.0 + 9.0)
    r = r_out - 4.0
    return (cx + r * math.sin(angle), cy - r * math.cos(angle), 2.2)


def _draw_labels(pen: _Pen, layout: Layout) -> None:
    for cell in layout.cells:
        x, y, height = label_anchor(layout, cell)
        colour = DARK_LABEL if _dark_square(layout, cell.name) else LABEL_COLOUR
        pen.text(cell.name, (x, y), height, colour)


def _draw_marker(pen: _Pen, marker_id: int, corners) -> None:
    (x0, y0), (x1, _), _, (_, y1) = corners
    pen.fill(
        (
            (x0 - QUIET_ZONE, y0 - QUIET_ZONE),
            (x1 + QUIET_ZONE, y0 - QUIET_ZONE),
            (x1 + QUIET_ZONE, y1 + QUIET_ZONE),
            (x0 - QUIET_ZONE, y1 + QUIET_ZONE),
        ),
        PAPER_WHITE,
    )
    u0, v0 = int(round(x0 * pen.px_per_mm)), int(round(y0 * pen.px_per_mm))
    u1, v1 = int(round(x1 * pen.px_per_mm)), int(round(y1 * pen.px_per_mm))
    side = min(u1 - u0, v1 - v0)
    # Render at a multiple of the 6 modules, then resize with nearest neighbour: crisp edges.
    module = max(1, side // 6)
    tile = cv2.aruco.generateImageMarker(aruco_dictionary(), marker_id, module * 6, borderBits=1)
    tile = cv2.resize(tile, (u1 - u0, v1 - v0), interpolation=cv2.INTER_NEAREST)
    pen.image[v0:v1, u0:u1] = tile[:, :, None]


def _draw_captions(pen: _Pen, layout: Layout) -> None:
    ox, oy = layout.board_origin
    w, h = layout.board_size
    size = max(3.0, min(5.0, MARKER_GAP * 0.8))
    who = PLAYER_AT_BOTTOM.get(layout.game, "First player")
    pen.text(f"Tabletop Companion - {layout.name}", (ox + w / 2, oy / 2), size, LINE_COLOUR)
    pen.text(f"{who} sits on this side", (ox + w / 2, oy + h + oy / 2), size, LINE_COLOUR)


# -- pages ----------------------------------------------------------------------------------------
def paper_size(paper: str) -> tuple[float, float]:
    for name, size in PAPERS.items():
        if name.lower() == paper.lower():
            return size
    raise UserError(f"unknown paper {paper!r}: choose one of {', '.join(PAPERS)}")


def fit_on_paper(size: tuple[float, float], paper: str) -> tuple[tuple[float, float], float]:
    """(page size mm, scale): the orientation that prints `size` largest, never above 100 %."""
    pw, ph = paper_size(paper)
    best = None
    for page in ((pw, ph), (ph, pw)):
        scale = min(
            1.0, (page[0] - 2 * PRINT_MARGIN) / size[0], (page[1] - 2 * PRINT_MARGIN) / size[1]
        )
        if best is None or scale > best[1] + 1e-9:
            best = (page, scale)
    return best


def render_marker_sheet(
    layout: Layout, paper: str = "A4", px_per_mm: float = 300 / 25.4
) -> np.ndarray:
    """The four markers of `layout` at their true size on one page, each with the corner of the
    board it belongs at - for sticking round a board the players already own."""
    if not layout.markers:
        raise UserError(f"layout {layout.name} has no markers to print")
    pw, ph = paper_size(paper)
    image = np.full(
        (int(round(ph * px_per_mm)), int(round(pw * px_per_mm)), 3), PAPER_WHITE, np.uint8
    )
    pen = _Pen(image, px_per_mm)
    names = ("top-left", "top-right", "bottom-right", "bottom-left")
    side = layout.markers[0].corners[1][0] - layout.markers[0].corners[0][0]
    cell_w, cell_h = (pw - 2 * PRINT_MARGIN) / 2, (ph - 2 * PRINT_MARGIN - 20) / 2
    pen.text(
        f"Markers of layout {layout.name} - print at 100 %",
        (pw / 2, PRINT_MARGIN + 4),
        4.0,
        LINE_COLOUR,
    )
    # Each marker sits on the sheet where it goes round the board: TL, TR, BR, BL.
    places = ((0, 0), (1, 0), (1, 1), (0, 1))
    for (marker, where), (col, row) in zip(
        zip(layout.markers, names, strict=True), places, strict=True
    ):
        cx = PRINT_MARGIN + cell_w * (col + 0.5)
        cy = PRINT_MARGIN + 20 + cell_h * (row + 0.5)
        corners = (
            (cx - side / 2, cy - side / 2),
            (cx + side / 2, cy - side / 2),
            (cx + side / 2, cy + side / 2),
            (cx - side / 2, cy + side / 2),
        )
        _draw_marker(pen, marker.id, corners)
        pen.text(f"id {marker.id}: {where} corner", (cx, cy + side / 2 + 8), 3.2, LINE_COLOUR)
        pen.text(
            f"inner corner {MARKER_GAP:g} mm diagonally outside the board",
            (cx, cy + side / 2 + 14),
            2.4,
            LABEL_COLOUR,
        )
    return image


# -- files ----------------------------------------------------------------------------------------
def write_png(
    path: Path, image: np.ndarray, *, overwrite: bool = False, dpi: float | None = None
) -> None:
    """A PNG of `image` (BGR). With `dpi` it carries a pHYs chunk saying so, so that printing
    it "at 100 %" gives the true size (OpenCV writes no resolution of its own)."""
    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise UserError(f"could not encode {Path(path).name} as PNG")
    data = data.tobytes()
    if dpi:
        data = with_png_dpi(data, dpi)
    _write_file(path, data, overwrite)


def with_png_dpi(png: bytes, dpi: float) -> bytes:
    """`png` with a pHYs chunk of `dpi` dots per inch (pixels per metre, as PNG counts them)
    right after its header chunk, replacing any it had."""
    per_metre = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    signature, header_end = png[:8], 8 + 8 + 13 + 4  # signature, then the IHDR chunk
    chunks, at = [], header_end
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        end = at + 12 + length
        if png[at + 4 : at + 8] != b"pHYs":
            chunks.append(png[at:end])
        at = end
    return signature + png[8:header_end] + chunk + b"".join(chunks)


def write_pdf(
    path: Path,
    image: np.ndarray,
    page_mm: tuple[float, float],
    image_mm: tuple[float, float],
    *,
    overwrite: bool = False,
) -> None:
    """A one-page PDF of `page_mm` with `image` (BGR) centred at `image_mm` printed size."""
    _write_file(path, pdf_bytes(image, page_mm, image_mm), overwrite)


def pdf_bytes(
    image: np.ndarray, page_mm: tuple[float, float], image_mm: tuple[float, float]
) -> bytes:
    pt = 72.0 / 25.4
    page_w, page_h = page_mm[0] * pt, page_mm[1] * pt
    img_w, img_h = image_mm[0] * pt, image_mm[1] * pt
    x, y = (page_w - img_w) / 2, (page_h - img_h) / 2
    rgb = np.ascontiguousarray(image[:, :, ::-1])
    pixels = zlib.compress(rgb.tobytes(), 6)
    content = f"q {img_w:.3f} 0 0 {img_h:.3f} {x:.3f} {y:.3f} cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {page_w:.3f} {page_h:.3f}] "
        f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>".encode(),
        f"<< /Type /XObject /Subtype /Image /Width {rgb.shape[1]} /Height {rgb.shape[0]} "
        f"/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /Length {len(pixels)} >>\n"
        f"stream\n".encode()
        + pixels
        + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    return bytes(out)


def _write_file(path: Path, data: bytes, overwrite: bool) -> None:
    """Write a new file; replace an existing one only when asked, and then atomically (a
    failed write never leaves the user without their old file)."""
    path = Path(path)
    try:
        if not overwrite:
            with open(path, "xb") as handle:
                handle.write(data)
            return
        temporary = path.with_name(f".{path.name}.part")
        temporary.write_bytes(data)
        os.replace(temporary, path)
    except FileExistsError:
        raise UserError(f"{path} already exists: choose another name or pass --force") from None
    except OSError as exc:
        raise UserError(f"cannot write {path}: {write_problem(path, exc)}") from None
