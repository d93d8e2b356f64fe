"""What real tables have, for the synthetic table (`vision.sim.SimTable(..., realism=...)`).

- `Conditions`: one table's printer, paper, own board, piece set, lamp and gloss, drawn from a
  seed (`Conditions.draw`) or given.
- `PinholeCamera`: the 3x4 projection of mat millimetres *and height* to picture pixels, so a
  point `up` mm above the table lands where a real camera would see it.
- Pieces with height as solids of revolution (a radius for every height): flat stones, domes
  (Go / Othello-like, glossy) and chess-like figures (pawn 0.9 cell widths tall .. king 1.6;
  on a printed mat no taller than its layout's pieces, `figure_squat`),
  drawn in true perspective back to front, shaded by a lamp with specular highlights, and
  their soft cast shadows on the board (`draw_pieces`, `draw_shadows`).
- Printers and paper (`print_surface`): exact, colour inkjet (hue shift, lower saturation,
  blotches), black-and-white laser (greys through a tone curve), tinted paper.
- Boards of one's own without markers (`render_own_board`): checkered (green and cream vinyl,
  green and white vinyl, light and dark wood) or lined (Othello green with black lines, a
  Go-like wooden board with lines through the points), with a border.

Every function is vectorised numpy / OpenCV; nothing here draws random numbers except from the
generator it is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np

BGR = tuple[int, int, int]

PIECE_KINDS = ("stone", "dome", "chess")
PRINTERS = ("exact", "inkjet", "laser")
PAPERS: dict[str, tuple[float, float, float]] = {  # BGR multipliers of the paper's colour
    "white": (1.0, 1.0, 1.0),
    "cream": (0.84, 0.94, 1.0),
    "bluish": (1.0, 0.975, 0.94),
    "recycled": (0.9, 0.93, 0.94),
}
PIECE_SETS = ("plastic", "wood")

# Own boards: (kind, light square / board colour, dark square / line colour, border colour).
OWN_BOARDS: dict[str, tuple[str, BGR, BGR, BGR]] = {
    "green-cream": ("checkered", (196, 226, 236), (78, 112, 40), (200, 228, 238)),
    "green-white": ("checkered", (232, 236, 236), (70, 105, 35), (236, 240, 240)),
    "light-wood": ("checkered", (150, 198, 232), (62, 108, 168), (48, 82, 128)),
    "dark-wood": ("checkered", (112, 160, 205), (38, 58, 88), (30, 45, 70)),
    "othello": ("lined-cells", (60, 120, 20), (20, 22, 20), (25, 25, 25)),
    "go": ("lined-points", (110, 180, 220), (25, 25, 25), (70, 130, 175)),
}
CHECKERED_BOARDS = tuple(k for k, v in OWN_BOARDS.items() if v[0] == "checkered")

# Class colours of a chess set (BGR): plastic or wood, for the classes "white" and "black".
SET_COLOURS: dict[str, dict[str, BGR]] = {
    "plastic": {"white": (205, 226, 236), "black": (34, 33, 35)},
    "wood": {"white": (140, 196, 232), "black": (32, 48, 78)},
}
FIGURES = ("pawn", "rook", "knight", "bishop", "queen", "king")
FIGURE_WEIGHTS = (8, 2, 2, 2, 1, 1)  # how often each is on a chessboard
CHESS_BACK_RANK = ("rook", "knight", "bishop", "queen", "king", "bishop", "knight", "rook")


# -- the camera ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PinholeCamera:
    """`matrix` (3x4) maps (x mm, y mm, up mm, 1) in the mat frame - x right, y towards the
    first player, up above the table - to homogeneous picture pixels."""

    matrix: np.ndarray

    def project(self, points: np.ndarray) -> np.ndarray:
        """(..., 3) mat points with height -> (..., 2) picture pixels."""
        pts = np.asarray(points, np.float64)
        flat = pts.reshape(-1, 3)
        h = flat @ self.matrix[:, :3].T + self.matrix[:, 3]
        return (h[:, :2] / h[:, 2:3]).reshape(*pts.shape[:-1], 2)

    @property
    def centre(self) -> np.ndarray:
        """Where the camera is: (x, y, up) in the mat frame."""
        _, _, vt = np.linalg.svd(self.matrix)
        c = vt[-1]
        return c[:3] / c[3]


# -- conditions ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Conditions:
    """One table's realistic conditions (see the module docstring).

    `pieces`: "stone" (flat disc with a little height), "dome" (Go/Othello-like, glossy) or
    "chess" (figures: pawn .. king); `piece_set`: "plastic" or "wood" (the colours of the
    classes "white" and "black"; other classes keep their colour); `printer`: "exact",
    "inkjet" or "laser"; `paper`: a key of PAPERS; `blotch`: unevenness of the ink (0-1);
    `board`: "mat" (the layout's printed mat) or a key of OWN_BOARDS (for layouts without
    markers, e.g. grid:8x8); `lamp_azimuth` (degrees in the mat frame, 0 = +x, 90 = towards
    the first player) and `lamp_elevation` (degrees above the table) say where the lamp is;
    `shadow`: how much full shadow darkens the board; `gloss`: specular strength of the pieces;
    `board_gloss`: glare of the lamp on the board (vinyl, glossy paper); `logo`: a cell of a
    board of one's own whose square carries a printed emblem (as the US Chess roll-up board's
    on h1), or "".
    """

    pieces: str = "chess"
    piece_set: str = "plastic"
    printer: str = "exact"
    paper: str = "white"
    blotch: float = 0.0
    board: str = "mat"
    lamp_azimuth: float = 225.0
    lamp_elevation: float = 55.0
    shadow: float = 0.45
    gloss: float = 0.5
    board_gloss: float = 0.0
    logo: str = ""

    def __post_init__(self) -> None:
        checks = [
            ("pieces", self.pieces, PIECE_KINDS),
            ("piece_set", self.piece_set, PIECE_SETS),
            ("printer", self.printer, PRINTERS),
            ("paper", self.paper, tuple(PAPERS)),
            ("board", self.board, ("mat", *OWN_BOARDS)),
        ]
        for name, value, allowed in checks:
            if value not in allowed:
                raise ValueError(f"Conditions.{name} is one of {', '.join(allowed)}, not {value!r}")
        if not 5 <= self.lamp_elevation <= 90:
            raise ValueError("Conditions.lamp_elevation is 5-90 degrees")

    @property
    def lamp(self) -> np.ndarray:
        """Unit vector towards the lamp (x, y, up)."""
        az, el = math.radians(self.lamp_azimuth), math.radians(self.lamp_elevation)
        return np.array([math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)])

    @classmethod
    def draw(
        cls,
        rng: np.random.Generator | int,
        own_board: bool = False,
        figures: bool = True,
        **fixed: Any,
    ) -> Conditions:
        """Conditions drawn at random (a seed or a generator); `fixed` sets any field.
        `own_board`: a board of one's own (checkered, or now and then lined) instead of the mat.
        `figures`: whether the pieces may be figures (`Layout.figures`, `vision.layouts.FIGURE_GAMES`:
        Arimaa); without, a mat whose draw says figures gets domes (Arinama's stones are turned
        over, Aranea's are stones, Sensei's are stones one of which carries the character's
        figurine: no one plays them with chess pieces)."""
        rng = np.random.default_rng(rng) if isinstance(rng, int | np.integer) else rng
        board = "mat"
        if own_board:
            board = (
                str(rng.choice(CHECKERED_BOARDS))
                if rng.random() < 0.8
                else str(rng.choice(["othello", "go"]))
            )
        if board in ("othello", "go"):
            pieces = "dome" if board == "go" else "stone"
        elif board != "mat":
            pieces = "chess"
        else:
            pieces = str(rng.choice(PIECE_KINDS, p=[0.3, 0.25, 0.45]))
            if pieces == "chess" and not figures:
                pieces = "dome"
        values = dict(
            pieces=pieces,
            piece_set=str(rng.choice(PIECE_SETS, p=[0.6, 0.4])),
            printer=str(rng.choice(PRINTERS, p=[0.2, 0.5, 0.3])),
            paper=str(rng.choice(list(PAPERS), p=[0.4, 0.25, 0.2, 0.15])),
            blotch=float(rng.uniform(0.0, 1.0)),
            board=board,
            lamp_azimuth=float(rng.uniform(0, 360)),
            lamp_elevation=float(rng.uniform(30, 75)),
            shadow=float(rng.uniform(0.25, 0.6)),
            gloss=float(rng.uniform(0.3, 0.9)),
            board_gloss=float(rng.uniform(0.0, 0.35) if rng.random() < 0.5 else 0.0),
        )
        return replace(cls(**values), **fixed) if fixed else cls(**values)


# -- printers and paper ------------------------------------------------------------------------------
def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    """Low-frequency noise (about `cells` blobs across the short side), mean 0, std ~1."""
    h, w = shape
    gh = max(2, int(cells * h / min(h, w)) + 2)
    gw = max(2, int(cells * w / min(h, w)) + 2)
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)


def print_surface(
    image: np.ndarray, conditions: Conditions, rng: np.random.Generator
) -> np.ndarray:
    """A picture (BGR uint8, as the file to print) as it comes out of the table's printer on
    its paper: float32 BGR. Own boards are not printed: only the paper-free look applies."""
    img = image.astype(np.float32)
    printer = conditions.printer
    if printer == "inkjet":
        hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(np.float32)
        hsv[:, :, 0] = (hsv[:, :, 0] + rng.uniform(-5, 5)) % 180
        hsv[:, :, 1] *= rng.uniform(0.7, 0.88)
        img = cv2.cvtColor(np.clip(hsv, 0, 255).astype(np.uint8), cv2.COLOR_HSV2BGR)
        img = img.astype(np.float32)
        black = rng.uniform(25, 45)  # inkjet black on plain paper is a dark grey
        img = black + img * (255 - black) / 255
    elif printer == "laser":
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32) / 255
        gamma = rng.uniform(0.75, 1.35)  # the printer's tone curve (dithered greys)
        black = rng.uniform(15, 35)
        tone = black + (255 - black) * grey**gamma
        img = np.repeat(tone[:, :, None], 3, axis=2)
    if printer != "exact" and conditions.blotch > 0:
        ink = 255 - img
        blotch = smooth_noise(rng, img.shape[:2], 12) * 0.05 * conditions.blotch
        fine = smooth_noise(rng, img.shape[:2], 60) * 0.03 * conditions.blotch
        img = 255 - ink * (1 + blotch + fine)[:, :, None]
    paper = np.array(PAPERS[conditions.paper], np.float32)
    return np.clip(img * paper, 0, 255)


def grey_print_has_no_chroma(image: np.ndarray) -> bool:
    """True when every pixel's three channels are equal (a b/w print on white paper)."""
    return bool(
        np.all(image[:, :, 0] == image[:, :, 1]) and np.all(image[:, :, 1] == image[:, :, 2])
    )


def add_glare(
    surface: np.ndarray,
    origin_mm: tuple[float, float],
    ppm: float,
    camera: PinholeCamera,
    lamp: np.ndarray,
    strength: float,
) -> np.ndarray:
    """The lamp's reflection on a glossy board: a soft bright patch where the mirror of the
    camera's view ray points at the lamp."""
    if strength <= 0:
        return surface
    c = camera.centre
    spot = c[:2] + c[2] * lamp[:2] / max(lamp[2], 1e-3)  # on the table, in mm
    h, w = surface.shape[:2]
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    sx, sy = (spot[0] - origin_mm[0]) * ppm, (spot[1] - origin_mm[1]) * ppm
    radius = 0.18 * max(h, w)
    glare = np.exp(-((x - sx) ** 2 + (y - sy) ** 2) / (2 * radius**2)) * strength
    return surface + (255 - surface) * glare[:, :, None]


def plain_table(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A plain table top or cloth (grey, near black, off-white or a muted colour) with soft
    unevenness, float32 BGR of `size` (w, h)."""
    width, height = size
    tones = [(110, 110, 112), (38, 36, 35), (200, 205, 210), (70, 85, 60), (60, 50, 90)]
    tone = np.array(tones[int(rng.integers(len(tones)))], np.float32) * rng.uniform(0.8, 1.15)
    spots = smooth_noise(rng, (height, width), 4) * 0.05
    return np.clip(tone[None, None, :] * (1 + spots)[:, :, None], 0, 255).astype(np.float32)


# -- own boards -------------------------------------------------------------------------------------------
def own_board_margin(style: str, pitch: float) -> float:
    """The border round the playing area of an own board, mm."""
    kind = OWN_BOARDS[style][0]
    return {"checkered": 0.7, "lined-cells": 0.45, "lined-points": 0.6}[kind] * pitch


def _wood(rng: np.random.Generator, shape: tuple[int, int], vertical: bool) -> np.ndarray:
    """Wood grain: a multiplier around 1, streaks along x (or y)."""
    h, w = shape
    if vertical:
        h, w = w, h
    streak = rng.standard_normal((max(4, h // 3), 6)).astype(np.float32)
    streak = cv2.resize(streak, (w, h), interpolation=cv2.INTER_CUBIC)
    fine = rng.standard_normal((h, max(4, w // 40))).astype(np.float32)
    fine = cv2.resize(fine, (w, h), interpolation=cv2.INTER_LINEAR)
    grain = 1 + 0.06 * streak + 0.03 * fine
    return grain.T if vertical else grain


def render_own_board(
    rows: int,
    cols: int,
    pitch: float,
    style: str,
    ppm: float,
    rng: np.random.Generator,
    logo: str = "",
) -> tuple[np.ndarray, float]:
    """A board of one's own, rows x cols cells of `pitch` mm, with its border: float32 BGR at
    `ppm` pixels per mm, and the border width (mm). Pixel (u, v) shows the point
    ((u + 0.5) / ppm - margin, (v + 0.5) / ppm - margin) of the layout frame, whose origin is
    the playing area's top-left corner. a1 (bottom left) is a dark square. `logo`: a cell
    (e.g. "h1") with an emblem printed on its square (`_draw_logo`)."""
    kind, light, dark, border = OWN_BOARDS[style]
    margin = own_board_margin(style, pitch)
    width, height = cols * pitch + 2 * margin, rows * pitch + 2 * margin
    w, h = int(round(width * ppm)), int(round(height * ppm))
    v, u = np.mgrid[0:h, 0:w].astype(np.float32)
    x, y = (u + 0.5) / ppm - margin, (v + 0.5) / ppm - margin  # layout mm
    inside = (x >= 0) & (x < cols * pitch) & (y >= 0) & (y < rows * pitch)
    wooden = "wood" in style or style == "go"
    img = np.empty((h, w, 3), np.float32)
    img[:] = border
    if kind == "checkered":
        file = np.floor(x / pitch).astype(np.int32)
        rank = rows - np.floor(y / pitch).astype(np.int32)  # 1 at the bottom
        is_dark = ((file + rank) % 2 == 1) & inside
        img[inside & ~is_dark] = light
        img[is_dark] = dark
        if wooden:
            along_x = _wood(rng, (h, w), False)
            along_y = _wood(rng, (h, w), True)
            grain = np.where(inside & (file % 2 == 0), along_y, along_x)
            img *= grain[:, :, None]
        else:
            img *= (1 + 0.02 * smooth_noise(rng, (h, w), 8))[:, :, None]  # vinyl mottling
    else:
        img[inside] = light
        if wooden:
            img *= _wood(rng, (h, w), False)[:, :, None]
        _draw_lines(img, kind == "lined-cells", rows, cols, pitch, margin, ppm, dark)
    if logo:
        _draw_logo(img, logo, rows, pitch, margin, ppm, light, dark)
    if kind == "checkered" and not wooden:  # vinyl: file letters and rank numbers in the border
        img = _write_coordinates(img, rows, cols, pitch, margin, ppm, dark)
    if kind == "checkered":  # a thin line round the playing area
        corner = (int(round(margin * ppm * 4)), int(round(margin * ppm * 4)))
        far = (
            int(round((margin + cols * pitch) * ppm * 4)),
            int(round((margin + rows * pitch) * ppm * 4)),
        )
        line = tuple(float(c) for c in np.array(dark) * 0.6)
        cv2.rectangle(img, corner, far, line, max(1, int(round(0.5 * ppm))), cv2.LINE_AA, 2)
    edge = max(1, int(round(0.5 * ppm)))  # the board's thin outer edge
    cv2.rectangle(img, (0, 0), (w - 1, h - 1), tuple(float(c) * 0.6 for c in border), edge)
    return np.clip(img, 0, 255), margin


def _draw_logo(
    img: np.ndarray,
    cell: str,
    rows: int,
    pitch: float,
    margin: float,
    ppm: float,
    light: Any,
    dark: Any,
) -> None:
    """A printed emblem on `cell`'s square, as on the US Chess roll-up board's h1: a diamond
    0.6 of the square wide, a little right of and below its centre, in the board's other ink
    (dark on a light square, light on a dark one: a1 is dark), with an upright bar and a
    crossbar (a king's silhouette) through it in the square's own."""
    file, rank = ord(cell[0]) - ord("a"), int(cell[1:])
    if (file + rank) % 2:  # a dark square: the emblem in the light ink
        light, dark = dark, light
    cx = (file + 0.58) * pitch + margin
    cy = (rows - rank + 0.58) * pitch + margin
    r = 0.3 * pitch
    scale = 4  # cv2's sub-pixel shift: 2 bits
    corners = np.array([[cx, cy - r], [cx + r, cy], [cx, cy + r], [cx - r, cy]]) * ppm * scale
    cv2.fillPoly(img, [corners.astype(np.int32)], tuple(float(c) for c in dark), cv2.LINE_AA, 2)
    bar = max(1, int(round(0.05 * pitch * ppm)))
    for (x0, y0), (x1, y1) in (
        ((cx, cy - 0.75 * r), (cx, cy + 0.75 * r)),
        ((cx - 0.35 * r, cy - 0.3 * r), (cx + 0.35 * r, cy - 0.3 * r)),
    ):
        start = (int(round(x0 * ppm * scale)), int(round(y0 * ppm * scale)))
        end = (int(round(x1 * ppm * scale)), int(round(y1 * ppm * scale)))
        cv2.line(img, start, end, tuple(float(c) for c in light), bar, cv2.LINE_AA, 2)


def _draw_lines(
    img: np.ndarray,
    cells: bool,
    rows: int,
    cols: int,
    pitch: float,
    margin: float,
    ppm: float,
    dark: BGR,
) -> None:
    """The lines of a lined board into `img`: round the cells (Othello, `cells`) or through
    their centres (Go, the cells on the points)."""
    line = max(1, int(round(0.7 * ppm)))
    if cells:
        xs = [c * pitch for c in range(cols + 1)]
        ys = [r * pitch for r in range(rows + 1)]
        x0, x1, y0, y1 = 0.0, cols * pitch, 0.0, rows * pitch
    else:
        xs = [(c + 0.5) * pitch for c in range(cols)]
        ys = [(r + 0.5) * pitch for r in range(rows)]
        x0, x1, y0, y1 = xs[0], xs[-1], ys[0], ys[-1]

    def px(mm_x: float, mm_y: float) -> tuple[int, int]:
        return (int(round((mm_x + margin) * ppm * 4)), int(round((mm_y + margin) * ppm * 4)))

    for xv in xs:
        cv2.line(img, px(xv, y0), px(xv, y1), dark, line, cv2.LINE_AA, 2)
    for yv in ys:
        cv2.line(img, px(x0, yv), px(x1, yv), dark, line, cv2.LINE_AA, 2)


def _write_coordinates(
    img: np.ndarray, rows: int, cols: int, pitch: float, margin: float, ppm: float, dark: BGR
) -> np.ndarray:
    """A vinyl board's file letters and rank numbers written in its border, on every side."""
    h, w = img.shape[:2]
    letters = np.zeros((h, w), np.uint8)
    scale = 0.011 * pitch * ppm
    thick = max(1, int(round(0.3 * ppm)))
    font = cv2.FONT_HERSHEY_SIMPLEX

    def write(text: str, cx_mm: float, cy_mm: float) -> None:
        (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
        cx, cy = (cx_mm + margin) * ppm, (cy_mm + margin) * ppm
        at = (int(cx - tw / 2), int(cy + th / 2))
        cv2.putText(letters, text, at, font, scale, 255, thick, cv2.LINE_AA)

    for f in range(cols):
        for yy in (rows * pitch + margin / 2, -margin / 2):
            write(chr(ord("a") + f), (f + 0.5) * pitch, yy)
    for r in range(rows):
        for xx in (-margin / 2, cols * pitch + margin / 2):
            write(str(rows - r), xx, (r + 0.5) * pitch)
    a = (letters.astype(np.float32) / 255)[:, :, None]
    result: np.ndarray = img * (1 - a) + np.array(dark, np.float32) * 0.7 * a
    return result


# -- pieces as solids of revolution ------------------------------------------------------------------------
@dataclass(frozen=True)
class Profile:
    """A piece as a stack of horizontal discs: for each height `z` (mm, rising) the radius
    `r`, the disc centre's offset `shift` (mm, along the piece's facing; a knight's head) and
    which colour (0: the class colour, 1: the figurine colour, for Sensei's characters)."""

    z: np.ndarray
    r: np.ndarray
    shift: np.ndarray
    colour: np.ndarray

    @property
    def height(self) -> float:
        return float(self.z[-1])


def _union(z: np.ndarray, parts: list[tuple]) -> np.ndarray:
    """Radius at heights z of a union of parts: ("poly", [(z, r), ...]) piecewise linear,
    ("ball", zc, rz, rr) an ellipsoid (vertical half-axis rz, radius rr)."""
    r = np.zeros_like(z)
    for part in parts:
        if part[0] == "poly":
            pz, pr = np.array(part[1], np.float64).T
            inside = (z >= pz[0]) & (z <= pz[-1])
            r = np.where(inside, np.maximum(r, np.interp(z, pz, pr)), r)
        else:
            _, zc, rz, rr = part
            t = 1 - ((z - zc) / rz) ** 2
            r = np.maximum(r, rr * np.sqrt(np.clip(t, 0, None)))
    return r


# Figures in units of the cell width (pitch): ((z, r) outline parts, height).
# fmt: off
_BASE = ("poly", [(0, 0.34), (0.05, 0.34), (0.08, 0.31), (0.1, 0.27), (0.14, 0.22)])
FIGURE_PARTS: dict[str, tuple[list[tuple], float]] = {
    "pawn": (
        [("poly", [(0, 0.3), (0.05, 0.3), (0.08, 0.26), (0.12, 0.21), (0.15, 0.17), (0.45, 0.1),
                   (0.47, 0.165), (0.52, 0.165), (0.54, 0.09)]), ("ball", 0.72, 0.17, 0.16)],
        0.9,
    ),
    "rook": (
        [_BASE, ("poly", [(0.14, 0.22), (0.72, 0.16), (0.75, 0.22), (0.98, 0.22), (1.0, 0.19)])],
        1.0,
    ),
    "knight": (
        [_BASE, ("poly", [(0.14, 0.22), (0.55, 0.15), (1.0, 0.12), (1.1, 0.06)])],
        1.1,
    ),
    "bishop": (
        [_BASE, ("poly", [(0.14, 0.22), (0.62, 0.1), (0.64, 0.18), (0.69, 0.18), (0.71, 0.1)]),
         ("ball", 0.92, 0.24, 0.14), ("ball", 1.19, 0.06, 0.05)],
        1.25,
    ),
    "queen": (
        [("poly", [(0, 0.37), (0.06, 0.37), (0.09, 0.33), (0.12, 0.28), (0.16, 0.23),
                   (0.86, 0.12), (0.88, 0.2), (0.93, 0.2), (0.95, 0.12), (1.2, 0.21),
                   (1.26, 0.2), (1.28, 0.12)]), ("ball", 1.36, 0.08, 0.07)],
        1.45,
    ),
    "king": (
        [("poly", [(0, 0.37), (0.06, 0.37), (0.09, 0.33), (0.12, 0.28), (0.16, 0.23),
                   (0.92, 0.13), (0.94, 0.21), (0.99, 0.21), (1.01, 0.13), (1.27, 0.19),
                   (1.33, 0.19), (1.36, 0.1), (1.4, 0.06), (1.48, 0.05), (1.5, 0.09),
                   (1.54, 0.09), (1.56, 0.045), (1.6, 0.04)])],
        1.6,
    ),
}
# fmt: on


TALLEST_FIGURE = max(height for _, height in FIGURE_PARTS.values())  # cell widths: the king


def figure_profile(figure: str, pitch: float, levels: int, squat: float = 1.0) -> Profile:
    """A chess-like figure on a cell `pitch` mm wide, sampled at `levels` heights; `squat`
    scales its heights (a board whose pieces are lower than a chess set's, `figure_squat`)."""
    parts, height = FIGURE_PARTS[figure]
    z = np.linspace(0, height, levels)
    r = _union(z, parts)
    shift = np.zeros_like(z)
    if figure == "knight":  # the head leans forward
        shift = np.clip((z - 0.55) / 0.5, 0, 1) * 0.13
        r = np.where(z > 0.75, np.maximum(r, 0.15 - 0.08 * (z - 0.75) / 0.35), r)
    return Profile(z * pitch * squat, r * pitch, shift * pitch, np.zeros(levels, np.int8))


def figure_squat(piece_height: float) -> float:
    """How much lower than a chess set's the figures of a board whose tallest piece is
    `piece_height` cell widths (`Layout.piece_height`) are drawn: Sensei's figures are a cell
    high, not a chess king's 1.6 - the occluder checks' allowance for shadows and the reader's
    cells a nearer piece may hide are made for the pieces the layout says stand on it."""
    return min(1.0, piece_height / TALLEST_FIGURE) if piece_height > 0 else 1.0


def stone_profile(radius: float, kind: str, levels: int, character: bool = False) -> Profile:
    """A flat stone (height 0.2 radius, rounded edge) or a dome (Go-like lens, 0.45 radius
    high); with `character` a small ivory figure stands on it (Sensei)."""
    if kind == "dome":
        height = 0.45 * radius
        z = np.linspace(0, height, levels)
        r = radius * np.sqrt(np.clip(1 - (z / height) ** 2, 0, 1))
        r[-1] = max(r[-1], 0.25 * radius)  # the flat-ish crown of the lens
    else:
        height = 0.2 * radius
        z = np.linspace(0, height, levels)
        edge = 0.35 * height
        r = (
            radius
            - edge
            + np.sqrt(np.clip(edge**2 - np.clip(z - (height - edge), 0, None) ** 2, 0, None))
        )
    colour = np.zeros(levels, np.int8)
    if character:
        fig = figure_profile("pawn", 1.4 * radius, max(8, levels))
        z = np.concatenate([z, height + fig.z[1:]])
        r = np.concatenate([r, fig.r[1:]])
        colour = np.concatenate([colour, np.ones(len(fig.z) - 1, np.int8)])
    return Profile(z, r, np.zeros_like(z), colour)


@dataclass(frozen=True)
class Piece:
    """A piece standing on the table at (x, y) mm (mat frame)."""

    x: float
    y: float
    profile: Profile
    colour: BGR
    facing: float = 0.0  # radians in the mat frame: where a knight's head points
    gloss: float = 0.5
    figurine: BGR = (215, 225, 232)


def shadow_layer(
    size: tuple[int, int],
    origin_mm: tuple[float, float],
    ppm: float,
    pieces: list[Piece],
    lamp: np.ndarray,
    strength: float,
    blur_mm: float,
) -> np.ndarray:
    """How much the pieces' shadows darken the board (0 = not at all), float32 of `size`
    (w, h) at `ppm` pixels per mm, pixel (u, v) showing the point ((u + 0.5) / ppm, (v + 0.5)
    / ppm) + `origin_mm`: each piece's discs cast along the parallel light from `lamp` onto
    the table (a circle stays a circle), blurred by `blur_mm` for the penumbra, at most
    `strength`; and a faint contact shadow round each piece's foot."""
    w, h = size
    cast = np.zeros((h, w), np.uint8)
    contact = np.zeros((h, w), np.uint8)
    if not pieces:
        return np.zeros((h, w), np.float32)
    drift = -lamp[:2] / max(lamp[2], 0.05)  # where a point 1 mm up casts its shadow
    scale = ppm * 4  # 2 fractional bits

    def px(v: np.ndarray, o: float) -> list[int]:
        return np.round(((v - o) * ppm - 0.5) * 4).astype(int).tolist()

    for piece in pieces:
        p = piece.profile
        k = np.arange(0, len(p.z), max(1, len(p.z) // 16))
        k = k[p.r[k] > 0]
        sx = piece.x + math.cos(piece.facing) * p.shift[k] + drift[0] * p.z[k]
        sy = piece.y + math.sin(piece.facing) * p.shift[k] + drift[1] * p.z[k]
        rs = np.round(p.r[k] * scale).astype(int).tolist()
        for x, y, r in zip(px(sx, origin_mm[0]), px(sy, origin_mm[1]), rs, strict=True):
            cv2.circle(cast, (x, y), r, 255, -1, cv2.LINE_AA, 2)
        foot = (px(np.array(piece.x), origin_mm[0]), px(np.array(piece.y), origin_mm[1]))
        cv2.circle(contact, foot, int(round(p.r[0] * 1.12 * scale)), 255, -1, cv2.LINE_AA, 2)
    sigma = max(0.6, blur_mm * ppm)
    cast_f = cv2.GaussianBlur(cast.astype(np.float32) / 255, (0, 0), sigma)
    contact_f = cv2.GaussianBlur(contact.astype(np.float32) / 255, (0, 0), max(0.6, 0.4 * sigma))
    return np.clip(strength * cast_f + 0.25 * contact_f, 0, 0.85)


def level_count(camera: PinholeCamera, piece_height: float, x: float, y: float) -> int:
    """How many discs a piece needs so that its outline has no steps: about one per pixel the
    top moves against the foot in the picture, and one per 1.5 mm of height."""
    ends = camera.project(np.array([[x, y, 0.0], [x, y, piece_height]]))
    lean = float(np.linalg.norm(ends[1] - ends[0]))
    return int(np.clip(max(lean / 0.8, piece_height / 1.5) + 4, 6, 72))


def draw_pieces(
    scene: np.ndarray, camera: PinholeCamera, pieces: list[Piece], lamp: np.ndarray
) -> np.ndarray:
    """Draw `pieces` over `scene` (float32 BGR picture, modified in place and returned).

    Each piece is a stack of horizontal discs; every disc is projected through the camera as
    a polygon and filled, pieces far from the camera first and each piece from its foot up,
    with its number in a label picture - so every pixel ends up showing the nearest surface
    (the ray from the camera meets the highest disc first). Each labelled pixel is then mapped
    back onto its disc's plane to find where on the solid it is, its surface normal, and its
    shade: Lambert from the lamp (relative to the flat board, so a piece's top has its class
    colour under the same light) and a Blinn-Phong highlight."""
    if not pieces:
        return scene
    height, width = scene.shape[:2]
    cam = camera.centre
    order = sorted(pieces, key=lambda p: -math.hypot(p.x - cam[0], p.y - cam[1]))
    table = _disc_table(order)
    if table is None:
        return scene
    label = np.zeros((height, width), np.int32)
    lo, hi = _fill_disc_labels(label, camera, table)
    per_disc = _disc_shading(camera, table, order, lamp)
    x0, y0 = max(0, int(lo[0])), max(0, int(lo[1]))
    x1, y1 = min(width, int(hi[0]) + 2), min(height, int(hi[1]) + 2)
    if x1 <= x0 or y1 <= y0:
        return scene
    window = label[y0:y1, x0:x1]
    ys, xs = np.nonzero(window)
    if len(ys) == 0:
        return scene
    g = per_disc[window[ys, xs] - 1]
    scene[ys + y0, xs + x0] = _shade_pixels(g, xs + x0, ys + y0, lamp)
    # Smooth the outlines (a piece against the board or against another piece) as a lens
    # does: blend in a slightly blurred copy along them.
    pid = np.zeros(window.shape, np.float32)
    pid[ys, xs] = g[:, 22]
    _soften_outlines(scene[y0:y1, x0:x1], pid)
    return scene


def _disc_table(order: list[Piece]) -> np.ndarray | None:
    """One row per disc of every piece, in drawing order (label - 1 -> row): piece index, the
    disc's centre (x, y, z), radius, slope angle, colour kind, the next disc's slope and the
    radius ratio to it. None when no piece has a disc."""
    rows: list[np.ndarray] = []
    for index, piece in enumerate(order):
        p = piece.profile
        keep = p.r > 0.05
        z, r, shift, colour = p.z[keep], p.r[keep], p.shift[keep], p.colour[keep]
        if len(z) == 0:
            continue
        cx = piece.x + math.cos(piece.facing) * shift
        cy = piece.y + math.sin(piece.facing) * shift
        # Slope: the angle of the surface normal from the vertical at each disc's rim.
        dr = np.gradient(r, z) if len(z) > 1 else np.zeros(1)
        theta = np.arctan2(1.0, -dr)
        theta[-1] = min(theta[-1], 0.2)  # the top disc's face looks up
        # Inside a disc, where the next one up no longer covers it (radius ratio rho), the
        # surface turns from the next disc's slope to this one's: a smooth solid, no rings.
        theta_next = np.append(theta[1:], 0.0)
        rho = np.append(np.clip(r[1:] / np.maximum(r[:-1], 1e-6), 0, 0.999), 0.0)
        n = len(z)
        rows.append(
            np.column_stack(
                [np.full(n, index), cx, cy, z, r, theta, colour.astype(np.float64), theta_next, rho]
            )
        )
    return np.concatenate(rows) if rows else None


def _fill_disc_labels(
    label: np.ndarray, camera: PinholeCamera, table: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Every disc's rim through the camera at once, filled into `label` (row + 1) in drawing
    order; returns the picture's bounding box of all rims (low and high corner, pixels)."""
    angles = np.linspace(0, 2 * math.pi, 33)[:-1]
    ring = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    pts = np.concatenate(
        [
            table[:, None, 1:2] + table[:, None, 4:5] * ring[None, :, :1],
            table[:, None, 2:3] + table[:, None, 4:5] * ring[None, :, 1:],
            np.broadcast_to(table[:, None, 3:4], (len(table), len(ring), 1)),
        ],
        axis=2,
    )
    polys = np.round(camera.project(pts) * 4).astype(np.int32)  # 2 fractional bits
    for k in range(len(table)):
        cv2.fillConvexPoly(label, polys[k], k + 1, cv2.LINE_8, 2)
    return polys.reshape(-1, 2).min(axis=0) // 4, polys.reshape(-1, 2).max(axis=0) // 4


def _disc_shading(
    camera: PinholeCamera, table: np.ndarray, order: list[Piece], lamp: np.ndarray
) -> np.ndarray:
    """Per disc (row of `table`) everything a pixel needs, so each pixel gathers one float32
    row: picture -> disc plane (9), centre (2), 1 / radius, slopes (2), radius ratio, colour
    (3), the highlight's half vector (3), gloss, piece number."""
    cam = camera.centre
    m = camera.matrix
    planes = m[None, :, [0, 1, 3]].repeat(len(table), axis=0)
    planes[:, :, 2] += table[:, 3:4] * m[None, :, 2]
    inv = np.linalg.inv(planes).reshape(-1, 9)  # picture -> the disc's plane (mm)
    idx = table[:, 0].astype(np.int32)
    base = np.array([p.colour for p in order], np.float64)[idx]
    figurine = np.array([p.figurine for p in order], np.float64)[idx]
    colour = np.where(table[:, 6:7] > 0, figurine, base)
    to_cam = cam[None, :] - table[:, 1:4]  # per disc centre: close enough for a highlight
    to_cam /= np.linalg.norm(to_cam, axis=1, keepdims=True)
    half = to_cam + lamp[None, :]
    half /= np.linalg.norm(half, axis=1, keepdims=True)
    gloss = np.array([p.gloss for p in order])[idx]
    foot = 1 - 0.25 * np.exp(-table[:, 3] / 1.5)  # the foot is in the piece's own shade
    return np.column_stack(
        [
            inv,
            table[:, 1:3],
            1 / table[:, 4],
            table[:, 5],
            table[:, 7],
            table[:, 8],
            colour * foot[:, None],
            half,
            gloss,
            idx + 1,
        ]
    ).astype(np.float32)


def _shade_pixels(g: np.ndarray, xs: np.ndarray, ys: np.ndarray, lamp: np.ndarray) -> np.ndarray:
    """The colour of each piece pixel (`g`: its disc's `_disc_shading` row, at picture pixel
    xs, ys): the pixel mapped back onto its disc's plane gives where on the solid it is and
    the surface normal there; ambient + Lambert relative to the flat board, and a highlight
    towards the camera."""
    fx, fy = xs.astype(np.float32), ys.astype(np.float32)
    w_ = g[:, 6] * fx + g[:, 7] * fy + g[:, 8]
    u = (g[:, 0] * fx + g[:, 1] * fy + g[:, 2]) / w_
    v = (g[:, 3] * fx + g[:, 4] * fy + g[:, 5]) / w_
    qx, qy = (u - g[:, 9]) * g[:, 11], (v - g[:, 10]) * g[:, 11]
    q = np.clip(np.sqrt(qx * qx + qy * qy), 1e-4, 1.0)
    rho = g[:, 14]
    t = np.clip((q - rho) / (1 - rho), 0, 1)
    theta = g[:, 13] + t * (g[:, 12] - g[:, 13])
    sin_t = np.sin(theta) / q
    nx, ny, nz = qx * sin_t, qy * sin_t, np.cos(theta)
    ambient, diffuse = 0.45, 0.55
    lamp32 = lamp.astype(np.float32)
    lambert = np.clip(nx * lamp32[0] + ny * lamp32[1] + nz * lamp32[2], 0, None)
    shade = (ambient + diffuse * lambert) / np.float32(ambient + diffuse * lamp[2])
    spec = np.clip(nx * g[:, 18] + ny * g[:, 19] + nz * g[:, 20], 0, 1)
    spec = g[:, 21] * spec**40 * 255
    rgb = g[:, 15:18] * shade[:, None] + spec[:, None]
    return np.clip(rgb, 0, 255)


def _soften_outlines(part: np.ndarray, pid: np.ndarray) -> None:
    """Blend a slightly blurred copy into `part` (a view of the picture, changed in place)
    along the outlines between the piece numbers of `pid` (0: the board)."""
    edge = np.zeros(pid.shape, np.uint8)
    edge[:, 1:] |= (pid[:, 1:] != pid[:, :-1]).astype(np.uint8)
    edge[1:, :] |= (pid[1:, :] != pid[:-1, :]).astype(np.uint8)
    edge = cv2.dilate(edge, np.ones((3, 3), np.uint8))
    ey, ex = np.nonzero(edge[1:-1, 1:-1])
    ey, ex = ey + 1, ex + 1
    soft = np.zeros((len(ey), 3), np.float32)
    for dy, dx, weight in ((0, 0, 4), (-1, 0, 2), (1, 0, 2), (0, -1, 2), (0, 1, 2),
                           (-1, -1, 1), (-1, 1, 1), (1, -1, 1), (1, 1, 1)):  # fmt: skip
        soft += part[ey + dy, ex + dx] * np.float32(weight / 16)
    part[ey, ex] = soft
