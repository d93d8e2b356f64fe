"""Finding a board without markers: a checkered board (``chessboard``) from its X-corners, a
lined board (``grid:RxC``, Go-like lines, Othello green with black lines) from its lines.

How (both kinds): candidate lattice points are detected on a copy of the photo about
WORK_SIZE pixels on its long side - the X-corners where four squares meet (a saddle of the
brightness, confirmed by the ring of pixels around it: dark, light, dark, light), or the
crossings of thin dark lines. A lattice is grown from a seed of four points that form a cell
(p, p+u, p+v, p+u+v): every lattice point next to the points found so far is predicted through
the current homography and accepted when a candidate lies within GROW_TOLERANCE of a cell of
it; the homography is refitted to all accepted points as it grows. Pieces hide many corners,
which does not matter: the lattice only needs a few dozen points, and it jumps over gaps of
one hidden point. The grown lattice has no edges of its own, so which window of it is the
board is decided by the picture: for a checkered board the 8 x 8 window whose squares
alternate dark and light most consistently (outside the board the margin does not alternate),
for a lined board the R+1 x C+1 lines along which lines are seen most. Finally the homography
is refitted on the full-resolution picture (sub-pixel corners), the four outer corners of the
playing area are the lattice's corners, and the board must pass `grid_still_there`.

Orientation: a checkerboard looks the same turned by 90 degrees, so the grid alone cannot
say where the first player sits. The colours settle half of it: as in chess, a1 is a dark
square, so a1's corner is one of the two dark corner squares; of those two, the one nearer the
bottom of the picture is taken (the camera is usually behind the first player or straight
above). The other choice (turned by 180 degrees) cannot be told from the photo: the player
confirms the found grid (`draw_grid` marks a1's corner), and a calibration position tells it
too. A lined board has no colours: the side
nearest the bottom of the picture is taken as the first player's (for a non-square grid, of
the two turns that put C columns across). `untold_turns` says which turns of the finder's
choice the picture cannot tell from it, and `turned` turns a found board by one of them
(`vision.calibration.calibrate_found` keeps the one the calibration position fits, and
`find_board(near=)` the one nearest an earlier location of the board: a tracker finding it
again keeps it the way round it was calibrated).

`grid_still_there` is the cheap check for a tracker (a few milliseconds): it samples the
lattice where the previous location says it is and returns the location (refined), or None
when the board has moved - then call `find_board` again.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

import cv2
import numpy as np

from companion import errors
from companion.errors import UserError
from companion.i18n import _
from vision.layouts import Layout, get_layout
from vision.location import Located, from_corners, to_gray

WORK_SIZE = 800  # long side (px) of the copy the lattice is searched on
GROW_TOLERANCE = 0.22  # a predicted lattice point accepts a candidate this close (cells)
MIN_LATTICE = 12  # points a lattice needs before it is believed (of 49 inner corners / 81 lines)
MAX_SEEDS = 60  # strongest candidates tried as seeds
RING_SAMPLES = 16
SAMPLES_PER_LINE = 16  # points sampled along each grid line by the moved-board check
LINE_CONTRAST = 6  # grey levels a line must be darker than both its sides
ARM_PX = 5.0  # a line crossing is checked this far (work-size px) along both its lines
CHECKERED_MIN_SHARE = 0.35  # of the inner corners in view (a full start position hides ~half)
LINED_MIN_SHARE = 0.2  # of the line samples (Othello discs hide most of the lines)
# ... and that many times the share on the same lattice moved half a cell diagonally, where no
# line is. Texture and noise come out at 1.0-1.2; a bare board at 10 or more; a board packed
# with discs (their dark rims look like lines too, 50 of 64 cells on the real Othello photo)
# at about 1.7.
LINED_CONTRAST = 1.5
LINED_ASIDE = 1.25  # lines seen this much more often a little aside: the grid is there, not here
# The cells read empty on a lined board show lines round them (cells between the lines) or
# through them (stones on the crossings) on at least this share of the samples wherever the
# board lies under the corners (`lines_missing`); judged from this many empty cells or more.
LINED_EMPTY_SHARE = 0.5
LINED_EMPTY_CELLS = 4
# ... and this many times as often as a quarter of a cell off them, where no line is, on a
# tenth at least: lines as clear as that at LINED_EMPTY_SHARE or more, the board is there;
# neither, it is not; one of the two (a photo so dark the reading fails, a few cells read
# empty), the lines a little aside judge
LINED_EMPTY_CONTRAST = 2.0
LINED_EMPTY_SOME = 0.1
FOLLOW_CELLS = 0.05  # a checkered board that slid less than this is left where it was
EDGE_X_SHARE = 0.5  # X-corners on more of one side of the outline: the board moved a square
_SUBPIX_CRITERIA = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 30, 0.01)


def corners_hint(layout: str) -> str:
    """What to do on the command line when a board without markers is not found."""
    return _(
        '{layout} has no markers: give its corners with --corners "x,y x,y x,y x,y" '
        "(top-left, top-right, bottom-right, bottom-left as the first player sees it)"
    ).format(layout=layout)


class BoardNotFound(errors.BoardNotFound):
    """No board grid in the picture (a `companion.errors.BoardNotFound`, so a LookupError and
    a UserError): the player gives the four corners instead. `reason` says why without the
    command line's hint (`--corners`): the setup screen shows it with its own (tap the
    corners)."""

    def __init__(self, reason: str, layout: str) -> None:
        super().__init__(f"{reason}; {corners_hint(layout)}")
        self.reason = reason


def board_kind(layout: Layout) -> str:
    """``checkered`` (squares of two colours), ``lined`` (lines on a plain board) or "" (a mat
    with markers: `vision.locate.locate` finds those)."""
    if layout.markers:
        return ""
    return layout.surface or "lined"


def grid_shape(layout: Layout) -> tuple[int, int]:
    """(columns, rows) of cells of a board without markers."""
    cols = len({round(c.center[0], 3) for c in layout.cells})
    rows = len({round(c.center[1], 3) for c in layout.cells})
    return cols, rows


# -- the public entry points -----------------------------------------------------------------------
def find_board(
    image: np.ndarray, layout: str | Layout, *, near: np.ndarray | None = None
) -> Located:
    """Find a board without markers (``chessboard`` or ``grid:RxC``) in a photo (BGR or grey).

    Returns a `Located` whose board corners are the outer corners of the playing area (TL, TR,
    BR, BL as the first player sees it, see the module text for the orientation), or raises
    BoardNotFound saying what to do instead. `near`: the board corners of an earlier location
    of the board (a tracker finding it again): of the turns the picture cannot tell, the one
    nearest them is taken (`nearest_turn`), so a board found the other way round at
    calibration stays so."""
    layout = get_layout(layout) if isinstance(layout, str) else layout
    kind = board_kind(layout)
    if not kind:
        raise UserError(f"layout {layout.name} has markers: use vision.locate.locate")
    gray = to_gray(image)
    height, width = gray.shape
    cols, rows = grid_shape(layout)
    scale = min(1.0, WORK_SIZE / max(height, width))
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    if kind == "checkered":
        points, strength = x_corners(small)
        # inner corners of the squares: C-1 x R-1
        want = (cols - 1, rows - 1)
    else:
        points, strength = line_crossings(small)
        want = (cols + 1, rows + 1)
    lattice = grow_best_lattice(points, strength, want)
    if lattice is None:
        if kind == "checkered":
            reason = _(
                "no checkered {cols}x{rows} board found in the picture (is the whole board "
                "in view and lit?)"
            )
        else:
            reason = _(
                "no lined {cols}x{rows} board found in the picture (is the whole board in "
                "view and lit?)"
            )
        raise BoardNotFound(reason.format(cols=cols, rows=rows), layout.name)
    homography, matched = lattice
    (_score, c0, r0, dark_even), nx, ny = _board_window(small, homography, matched, layout)
    # refit on the full-resolution picture with the lattice points inside the board
    homography, error = _refine_full(gray, homography, matched, scale, kind, (c0, r0, nx, ny))
    corners = _apply(homography, _box(c0, r0, nx, ny))
    dark = None
    if kind == "checkered":
        # the corner squares at the box's corners, and whether each is dark
        cells = [(c0, r0), (c0 + nx - 1, r0), (c0 + nx - 1, r0 + ny - 1), (c0, r0 + ny - 1)]
        dark = [((c + r) % 2 == 0) == dark_even for c, r in cells]
    ordered = order_corners(corners, dark, across_first=None if cols == rows else nx == cols)
    located = from_corners(layout, ordered, (width, height))
    # The board found must pass the tracker's own check that its grid is there (the X-corners
    # with their colours, or the lines standing out from the same lattice moved half a cell):
    # a lattice grown on texture or noise does not.
    if grid_still_there(gray, located) is None:
        raise BoardNotFound(
            _("what looked like a grid does not hold up as a {cols}x{rows} board").format(
                cols=cols, rows=rows
            ),
            layout.name,
        )
    # error_px: the median distance (px) of the grid points from the fitted lattice
    located = replace(located, error_px=error)
    return (
        located if near is None else turned(located, nearest_turn(layout, located.homography, near))
    )


def grid_still_there(
    image: np.ndarray, previous: Located, *, min_share: float = CHECKERED_MIN_SHARE
) -> Located | None:
    """Is the grid of a board without markers still where `previous` says? A few milliseconds.

    Checkered: every inner corner is checked for the X of four squares (the dark ones on the
    same diagonals for all); pieces hide some, so at least `min_share` of those in view must
    show it. Lined: the grid lines are sampled for a thin dark line, and must show clearly more
    of them than the same lattice moved half a cell diagonally (where there is none). Returns
    the location - refined to sub-pixel corners when a checkered board slid by more than
    FOLLOW_CELLS - or None when the board moved (by about a quarter of a cell or more)."""
    layout = previous.layout
    kind = board_kind(layout)
    if not kind:
        return None
    gray = to_gray(image)
    cols, rows = grid_shape(layout)
    to_px = previous.homography @ _unit_to_mm(layout, cols, rows)
    if kind == "checkered":
        ii, jj = np.meshgrid(np.arange(1, cols), np.arange(1, rows))
        lat = np.stack([ii.ravel(), jj.ravel()], 1).astype(float)
        pts = _apply(to_px, lat)
        cell = _local_cell(to_px, lat)
        radius = np.clip(cell * 0.3, 2.5, 12.0)
        inside = _inside(gray, pts, radius + 2)
        if inside.sum() < 4:
            return None
        phase = ring_phase(gray, pts[inside], radius[inside], to_px, lat[inside])
        # either colour phase (typed corners may not put a dark square at a1); shifted by
        # half a cell or more, the X-corners are not there at all
        ok = phase == (1.0 if np.sum(phase) >= 0 else -1.0)
        if ok.sum() < max(4, min_share * inside.sum()):
            return None
        if _edge_crossed(gray, to_px, cols, rows):
            return None  # moved by a whole square: the board's edge shows squares beyond it
        # refine the confirmed corners and refit the homography (follows small slides)
        good = pts[inside][ok].astype(np.float32).reshape(-1, 1, 2)
        win = int(max(2, min(8, np.median(radius) * 0.8)))
        refined = cv2.cornerSubPix(gray, good.copy(), (win, win), (-1, -1), _SUBPIX_CRITERIA)
        refined = refined.reshape(-1, 2).astype(float)
        src = lat[inside][ok]
        if len(src) < 6:
            return previous
        # Whether it slid, the confirmed corners say themselves (their median move): the
        # refit's outer corners are extrapolated from the inner ones in view, and where tall
        # pieces hide one side of the board they wander by a tenth of a cell on a board that
        # did not move (a chess set from 30 degrees: 0.2 px at the corners, 2.7 px outside).
        moves = np.linalg.norm(refined - pts[inside][ok], axis=1)
        if float(np.median(moves)) < max(2.0, FOLLOW_CELLS * float(np.median(cell))):
            return previous  # the same place, within the corners' own noise
        h, _ = cv2.findHomography(src, refined, cv2.RANSAC, 2.0)
        if h is None:
            return previous
        corners = _apply(h, np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], float))
        slid = np.max(np.linalg.norm(corners - previous.board_corners_px(), axis=1))
        if slid > np.median(cell):
            return None
        return from_corners(layout, corners, (gray.shape[1], gray.shape[0]))
    # Stones hide much of the lines, so the share is compared with the same lattice moved by
    # half a cell (where no line is): the grid is there when it clearly stands out.
    share = line_share(gray, to_px, cols, rows)
    off = line_share(gray, to_px, cols, rows, (0.5, 0.5))
    there = share >= LINED_MIN_SHARE and share >= LINED_CONTRAST * off
    if not there:
        return None
    # Moved by a fifth of a cell or so, the lines still brush the samples: the grid is where
    # it was only if it is not seen clearly better (by a quarter) a little to one side.
    for shift in ((0.2, 0.0), (-0.2, 0.0), (0.0, 0.2), (0.0, -0.2)):
        if line_share(gray, to_px, cols, rows, shift) > LINED_ASIDE * share:
            return None
    return previous


def lines_elsewhere(image: np.ndarray, located: Located) -> bool:
    """Does a lined board show its lines clearly better (LINED_ASIDE times, as
    `grid_still_there` asks) on its lattice moved by some tenths of a cell than where `located`
    puts them - on its lattice, or half a cell off it (stones on the crossings: Go read as
    grid:19x19 with corners half a cell outside the outer lines)? Then the corners do not fit
    the picture (a camera or board that moved since they were given). A board whose pieces
    hide its lines shows them nowhere: no sign either way, False. On the real Go photos
    corners moved by a fifth of a cell are told (0.44-0.50 of the samples on the lines against
    0.86-0.90 elsewhere); on the Othello photo, whose discs hide most lines, a third of a cell
    across them. About 70 ms for a 19x19 board here (the command line, once a photo)."""
    if board_kind(located.layout) != "lined":
        return False
    gray = to_gray(image)
    cols, rows = grid_shape(located.layout)
    to_px = located.homography @ _unit_to_mm(located.layout, cols, rows)
    here = max(line_share(gray, to_px, cols, rows, shift) for shift in ((0.0, 0.0), (0.5, 0.5)))
    tenths = np.arange(10) / 10
    best = max(line_share(gray, to_px, cols, rows, (x, y)) for x in tenths for y in tenths)
    return best >= LINED_MIN_SHARE and best > LINED_ASIDE * here


def lines_round_empty(
    image: np.ndarray, located: Located, empty: Collection[str]
) -> tuple[float, float] | None:
    """How clearly a lined board shows its lines at the cells read `empty`: the share of the
    samples along their sides (cells between the lines: Othello, a grid of squares) or through
    their middles (stones on the crossings: Go read as grid:19x19) - the better of the two -
    where a line is, and the share a quarter of a cell from their middles, where no line is
    either way. A stone hides the lines round it, an empty cell does not: wherever the board
    lies under the corners, its empty cells show their lines, and not between them. Looked
    for on the picture evened out (`_evened`: a dim photo's lines show as a bright one's);
    samples off the picture are left out. None for a checkered board or a mat, or fewer than
    LINED_EMPTY_CELLS cells read empty in view: no sign."""
    if board_kind(located.layout) != "lined":
        return None
    layout = located.layout
    gray = _evened(to_gray(image))
    chosen = [i for i, name in enumerate(layout.cell_names()) if name in empty]
    middles = np.array([layout.cells[i].center for i in chosen], float).reshape(-1, 2)
    in_view = _inside(gray, located.to_image(middles), 1) if chosen else np.zeros(0, bool)
    if in_view.sum() < LINED_EMPTY_CELLS:  # (a board mostly off the picture: a few samples)
        return None
    cols, rows = grid_shape(layout)
    to_lattice = np.linalg.inv(_unit_to_mm(layout, cols, rows))
    centres = _apply(to_lattice, middles[in_view])
    # along each side, of a cell either side of its middle - not the middle itself, which on
    # the lines through a crossing is the crossing, where the other line lies across
    along = (-0.3, -0.15, 0.15, 0.3)
    to_px = located.homography @ _unit_to_mm(layout, cols, rows)

    def share(offset: float) -> float | None:
        """Line samples hit along the cells' sides `offset` cells from their middles (0: the
        lines through them); None when none is in the picture."""
        sides = (-offset, offset) if offset else (0.0,)
        hits = []
        for lat, normal in (
            ([(x + d, y + t) for x, y in centres for d in sides for t in along], (1.0, 0.0)),
            ([(x + t, y + d) for x, y in centres for d in sides for t in along], (0.0, 1.0)),
        ):
            points = np.array(lat)
            across = 0.25 * np.asarray(normal)  # (as far as `_line_hits` looks either side)
            shown = _inside(gray, _apply(to_px, points - across), 1) & _inside(
                gray, _apply(to_px, points + across), 1
            )
            if shown.any():  # (cells at the picture's edge: one way round may have none)
                hits.append(_line_hits(gray, to_px, points[shown], normal))
        if not hits:
            return None
        found = np.concatenate(hits)
        return float(found.mean()) if len(found) else None

    on = [v for v in (share(0.5), share(0.0)) if v is not None]
    off = share(0.25)
    if not on or off is None:
        return None
    return max(on), off


EVEN_LEVEL = 128.0  # grey level each darker part of the picture is brought to (`_evened`)
# ... from no darker than this: at most 8 times brighter, so a dark picture's noise (a level
# or two, smoothed over EVEN_NOISE_SIGMA px first) stays under LINE_CONTRAST (a review: with
# 16 times, a black frame's noise showed as lines on and off them alike)
EVEN_DARKEST = 16.0
EVEN_NOISE_SIGMA = 1.0
EVEN_SIGMA = 0.05  # of the picture's long side: the neighbourhood each pixel is judged in


def _evened(gray: np.ndarray) -> np.ndarray:
    """`gray` with its darker parts brought up to EVEN_LEVEL neighbourhood by neighbourhood,
    so a line as much darker than its sides in a dim photo as in a bright one shows as one
    (`_line_hits` asks for LINE_CONTRAST grey levels: a photo at a sixth of its light has
    none), and a part of the picture with nothing in it (black, or a blank wall) shows
    nothing - not the noise of its few levels, enlarged (`bench/bench_corners_fit.py`: a
    black frame with noise is said not to fit, a dim photo with noise fits)."""
    height, width = gray.shape
    # (blurred on a copy an eighth the size: the neighbourhood is tens of pixels wide)
    small = cv2.resize(
        gray, (max(width // 8, 1), max(height // 8, 1)), interpolation=cv2.INTER_AREA
    )
    level = cv2.GaussianBlur(small.astype(np.float32), (0, 0), EVEN_SIGMA * max(small.shape))
    level = cv2.resize(level, (width, height), interpolation=cv2.INTER_LINEAR)
    # the sensor's noise smoothed first (a pixel's, not a line's width), then only brightened:
    # a bright board's faint lines keep their levels
    smooth = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), EVEN_NOISE_SIGMA)
    scaled = smooth * (EVEN_LEVEL / np.clip(level, EVEN_DARKEST, EVEN_LEVEL))
    return np.clip(scaled, 0, 255).astype(np.uint8)


def lined_board_elsewhere(image: np.ndarray, located: Located, empty: Collection[str]) -> bool:
    """Do the corners put a lined board where it is not? Judged by the cells read `empty`
    (`lines_round_empty`): their lines show on LINED_EMPTY_SHARE of the samples or more, and
    LINED_EMPTY_CONTRAST times as often as between the lines - the board is there; on fewer,
    and not that much more often - it is not (a board moved far, another photo, a board moved
    by a fraction of a cell: the lines then fall between the samples, or a black picture).
    Otherwise (a photo so dark that the reading fails, fewer than LINED_EMPTY_CELLS cells read
    empty) by whether the lines show clearly better a little aside (`lines_elsewhere`).
    `bench/bench_corners_fit.py` measures it: the real Go and Othello photos read as they are
    and at 0.3, 0.15 and 0.05 of their light fit; a black frame with a sensor's noise, moved a
    third of a cell, 150 or 300 px, or a chess photo read in their place, they do not (the
    Othello photo at 0.05 of its light with that noise, which the reader reads wrong, neither). Of 96 realistic synthetic lined boards read
    at their true corners (filled 20-95 %) 3 are said not to fit, where `lines_elsewhere`
    alone said 16: a board crowded with stones or discs shows their dark rims a little aside."""
    if board_kind(located.layout) != "lined":
        return False
    shares = lines_round_empty(image, located, empty)
    if shares is not None:
        on, off = shares
        # lines where lines are, not between them (and some: a black picture shows none)
        clear = on >= max(LINED_EMPTY_CONTRAST * off, LINED_EMPTY_SOME)
        if on >= LINED_EMPTY_SHARE and clear:
            return False
        if on < LINED_EMPTY_SHARE and not clear:
            return True
    return lines_elsewhere(image, located)


def _edge_crossed(gray, to_px, cols, rows) -> bool:
    """Do the points on one side of the board's outline (not its corners) show X-corners? At
    the board's true edge they are T-junctions (the margin outside does not alternate): on the
    real chess photos at most 1 in 7 of a side looks like an X. After the board moved by a
    whole square, one side's points lie inside the board: all of them do, bar pieces."""
    sides = (
        [(c, 0) for c in range(1, cols)],
        [(c, rows) for c in range(1, cols)],
        [(0, r) for r in range(1, rows)],
        [(cols, r) for r in range(1, rows)],
    )
    for side in sides:
        lat = np.array(side, float)
        pts = _apply(to_px, lat)
        radius = np.clip(_local_cell(to_px, lat) * 0.3, 2.5, 12.0)
        inside = _inside(gray, pts, radius + 2)
        if inside.sum() < 3:
            continue
        phase = ring_phase(gray, pts[inside], radius[inside], to_px, lat[inside])
        if np.count_nonzero(phase) > EDGE_X_SHARE * inside.sum():
            return True
    return False


# -- candidate points ------------------------------------------------------------------------------
def _ring_offsets(radius: float) -> np.ndarray:
    angles = np.arange(RING_SAMPLES) * 2 * np.pi / RING_SAMPLES
    return np.stack([np.cos(angles), np.sin(angles)], 1) * radius


def x_corners(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """X-corners (where four squares meet) of a checkered board: points (N x 2) and strengths.

    A saddle of the smoothed brightness (Hessian determinant < 0, local maximum of its size)
    that the ring of 16 pixels around it confirms: two opposite dark arcs and two opposite light
    arcs (the ChESS test), at a radius of a few pixels, which is small against any cell."""
    candidates = []
    for sigma, radius in ((1.5, 4.0), (3.0, 7.0)):
        g = cv2.GaussianBlur(gray, (0, 0), sigma).astype(np.float32)
        dxx = cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3)
        dyy = cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3)
        dxy = cv2.Sobel(g, cv2.CV_32F, 1, 1, ksize=3)
        saddle = np.maximum(dxy * dxy - dxx * dyy, 0)
        peak = cv2.dilate(saddle, np.ones((7, 7), np.uint8))
        floor = max(float(saddle.max()) * 0.01, 1e-6)
        ys, xs = np.nonzero((saddle >= peak) & (saddle > floor))
        if len(xs) > 4000:  # keep the strongest (texture, noise)
            keep = np.argsort(saddle[ys, xs])[-4000:]
            ys, xs = ys[keep], xs[keep]
        pts = np.stack([xs, ys], 1).astype(float)
        score = chess_response(g, pts, radius)
        good = score > 0
        candidates.append((pts[good], score[good]))
    pts = np.concatenate([c[0] for c in candidates])
    score = np.concatenate([c[1] for c in candidates])
    return _dedupe(pts, score, 4.0)


def chess_response(gray: np.ndarray, pts: np.ndarray, radius: float) -> np.ndarray:
    """The ChESS response at each point, relative to the contrast: > 0 for an X-corner."""
    if len(pts) == 0:
        return np.zeros(0)
    ring = _sample(gray, pts[:, None, :] + _ring_offsets(radius)[None])  # N x 16
    q = RING_SAMPLES // 4
    half = RING_SAMPLES // 2
    sum_resp = np.abs(
        ring[:, :q] + ring[:, half : half + q] - ring[:, q:half] - ring[:, half + q :]
    )
    sum_resp = sum_resp.sum(1)
    diff_resp = np.abs(ring[:, :half] - ring[:, half:]).sum(1)
    centre = _sample(gray, pts)
    mean_resp = np.abs(ring.mean(1) - centre) * RING_SAMPLES
    contrast = ring.max(1) - ring.min(1)
    response = sum_resp - diff_resp - mean_resp
    # at least some contrast, and the X dominates
    return np.where(contrast > 20, response / np.maximum(contrast, 1) - 2.0, -1.0)


def ring_phase(gray, pts, radius, to_px, lat) -> np.ndarray:
    """For inner corners at lattice points `lat`: +1 where the ring shows an X with the squares
    of even parity (c + r) dark, -1 with them light, 0 where there is no clear X (a piece, or
    no board). The four samples lie on the lattice's diagonals, `radius` px from the point."""
    diag = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], float) * 0.25
    q = _apply(to_px, (lat[:, None, :] + diag[None]).reshape(-1, 2)).reshape(-1, 4, 2)
    v = q - pts[:, None, :]
    v = v / np.maximum(np.linalg.norm(v, axis=2, keepdims=True), 1e-9) * radius[:, None, None]
    vals = _sample(gray, pts[:, None, :] + v)  # N x 4: cells (i, j), (i-1, j), (i-1, j-1), (i, j-1)
    a = (vals[:, 0] + vals[:, 2]) / 2  # the cells of the parity of (i, j)
    b = (vals[:, 1] + vals[:, 3]) / 2
    contrast = np.abs(a - b)
    same = np.abs(vals[:, 0] - vals[:, 2]) + np.abs(vals[:, 1] - vals[:, 3])
    even = (lat[:, 0] + lat[:, 1]) % 2 == 0
    dark_even = np.where(even, a < b, a > b)
    clear = (contrast > 20) & (same < contrast)
    return np.where(clear, np.where(dark_even, 1.0, -1.0), 0.0)


def line_crossings(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Crossings of thin dark lines (a Go board, Othello's green with black lines): points
    (N x 2) and strengths. The lines are picked out with a black-hat (dark and thin against
    their surroundings), found as Hough segments in the two main directions (perspective tilts
    them, so each keeps its own angle) and intersected."""
    blackhat = cv2.morphologyEx(
        gray, cv2.MORPH_BLACKHAT, cv2.getStructuringElement(cv2.MORPH_RECT, (9, 9))
    )
    _, mask = cv2.threshold(blackhat, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    segments = cv2.HoughLinesP(
        mask, 1, np.pi / 360, threshold=60, minLineLength=max(30, gray.shape[0] // 12), maxLineGap=6
    )
    if segments is None or len(segments) < 4:
        return np.zeros((0, 2)), np.zeros(0)
    seg = segments.reshape(-1, 4).astype(float)
    angle = np.arctan2(seg[:, 3] - seg[:, 1], seg[:, 2] - seg[:, 0]) % np.pi
    length = np.hypot(seg[:, 2] - seg[:, 0], seg[:, 3] - seg[:, 1])
    # two main directions: a histogram of angles weighted by length, two peaks 45+ deg apart
    hist, _ = np.histogram(angle, bins=180, range=(0, np.pi), weights=length)
    hist = np.convolve(np.r_[hist[-3:], hist, hist[:3]], np.ones(7) / 7, "same")[3:-3]
    first = int(np.argmax(hist))
    dist = np.abs(((np.arange(180) - first + 90) % 180) - 90)
    second = int(np.argmax(np.where(dist >= 45, hist, 0)))
    families = []
    for peak in (first, second):
        delta = np.abs(((np.degrees(angle) - peak + 90) % 180) - 90)
        families.append(seg[delta < 12])
    lines_a = [_to_line(s) for s in families[0]]
    lines_b = [_to_line(s) for s in families[1]]
    if not lines_a or not lines_b:
        return np.zeros((0, 2)), np.zeros(0)
    la, lb = np.array(lines_a), np.array(lines_b)
    cross = np.cross(la[:, None, :], lb[None, :, :]).reshape(-1, 3)
    # each crossing's two line directions (a line a x + b y + c = 0 runs along (b, -a))
    dir_a = np.repeat(_directions(la), len(lb), axis=0)
    dir_b = np.tile(_directions(lb), (len(la), 1))
    ok = np.abs(cross[:, 2]) > 1e-9
    pts = cross[ok, :2] / cross[ok, 2:3]
    dir_a, dir_b = dir_a[ok], dir_b[ok]
    h, w = gray.shape
    inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
    pts, dir_a, dir_b = pts[inside], dir_a[inside], dir_b[inside]
    if len(pts) == 0:
        return np.zeros((0, 2)), np.zeros(0)
    # A crossing is real when the line mask runs out of it along both lines (at least to one
    # side: the board's outermost lines end there). A long line on the table (wood grain)
    # extended across the board meets the board's lines where it is not itself.
    smooth = cv2.GaussianBlur(mask.astype(np.float32) / 255, (0, 0), 1.0)
    arm = ARM_PX
    score = np.minimum(
        np.maximum(_sample(smooth, pts + arm * dir_a), _sample(smooth, pts - arm * dir_a)),
        np.maximum(_sample(smooth, pts + arm * dir_b), _sample(smooth, pts - arm * dir_b)),
    )
    score = np.minimum(score, _sample(smooth, pts))
    keep = score > 0.3
    pts, score = _dedupe(pts[keep], score[keep], 6.0, average=True)
    return pts, score


def _directions(lines: np.ndarray) -> np.ndarray:
    d = np.stack([lines[:, 1], -lines[:, 0]], 1)
    return d / np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-12)


def _to_line(segment) -> np.ndarray:
    x1, y1, x2, y2 = segment
    return np.cross([x1, y1, 1.0], [x2, y2, 1.0])


def _dedupe(pts: np.ndarray, score: np.ndarray, radius: float, *, average: bool = False):
    """Greedy non-maximum suppression: the strongest point of each cluster within `radius`
    (with `average`: the cluster's mean - two edges of one thick line cross another line at
    two points a few pixels apart, and the line's middle is between them)."""
    if len(pts) == 0:
        return pts.reshape(0, 2), score
    order = np.argsort(-score)
    pts, score = pts[order], score[order]
    owner = np.arange(len(pts))
    cell: dict[tuple[int, int], list[int]] = {}
    for k, (x, y) in enumerate(pts):
        key = (int(x // radius), int(y // radius))
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for other in cell.get((key[0] + dx, key[1] + dy), ()):
                    if (pts[other, 0] - x) ** 2 + (pts[other, 1] - y) ** 2 < radius * radius:
                        owner[k] = other
                        break
        if owner[k] == k:
            cell.setdefault(key, []).append(k)
    kept = np.flatnonzero(owner == np.arange(len(pts)))
    if not average:
        return pts[kept], score[kept]
    sums = np.zeros((len(pts), 2))
    np.add.at(sums, owner, pts)
    counts = np.bincount(owner, minlength=len(pts))
    return sums[kept] / counts[kept, None], score[kept]


# -- growing a lattice -----------------------------------------------------------------------------
def grow_best_lattice(points: np.ndarray, strength: np.ndarray, want: tuple[int, int]):
    """The largest lattice of `points`: (homography lattice -> px, {(i, j): point index}), or
    None when no lattice of MIN_LATTICE points exists. `want` (nx, ny) caps how many lattice
    points fit along each direction (plus one on each side for strays at the edges)."""
    n = len(points)
    if n < MIN_LATTICE:
        return None
    order = np.argsort(-strength)[:MAX_SEEDS]
    diff = points[:, None, :] - points[None, :, :]
    d2 = (diff**2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    neighbours = np.argsort(d2, axis=1)[:, :8]
    best = None
    used: set[int] = set()
    target = 0.7 * want[0] * want[1]
    for seed in order:
        if seed in used:
            continue
        for hypothesis in _seed_cells(points, d2, neighbours, seed):
            grown = _grow(points, hypothesis, want)
            if grown is None:
                continue
            if best is None or len(grown[1]) > len(best[1]):
                best = grown
                used |= set(grown[1].values())
            break  # one good cell per seed is enough
        if best is not None and len(best[1]) >= target:
            break
    if best is None or len(best[1]) < MIN_LATTICE:
        return None
    return best


def _seed_cells(points, d2, neighbours, p):
    """Cells (p, p+u, p+v, p+u+v) around seed p from its nearest neighbours."""
    origin = points[p]
    near = neighbours[p]
    for a in range(len(near)):
        for b in range(a + 1, len(near)):
            qa, qb = near[a], near[b]
            u, v = points[qa] - origin, points[qb] - origin
            lu, lv = np.linalg.norm(u), np.linalg.norm(v)
            if lu < 4 or lv < 4 or max(lu, lv) > 2.2 * min(lu, lv):
                continue
            cos = float(u @ v / (lu * lv))
            if abs(cos) > 0.6:  # the two sides of a cell are not nearly parallel
                continue
            guess = origin + u + v
            dist = np.linalg.norm(points - guess, axis=1)
            qc = int(np.argmin(dist))
            if dist[qc] > GROW_TOLERANCE * min(lu, lv):
                continue
            src = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], np.float32)
            dst = np.array([origin, points[qa], points[qb], points[qc]], np.float32)
            yield {(0, 0): int(p), (1, 0): int(qa), (0, 1): int(qb), (1, 1): qc}, (src, dst)


def _grow(points, hypothesis, want):
    matched, (src, dst) = hypothesis
    h = cv2.getPerspectiveTransform(src, dst).astype(float)
    span = max(want) + 2
    tried: set[tuple[int, int]] = set(matched)
    frontier = set(matched)
    for _round in range(60):
        if not frontier:
            break
        cands = set()
        for i, j in frontier:
            for di in (-2, -1, 0, 1, 2):
                for dj in (-2, -1, 0, 1, 2):
                    key = (i + di, j + dj)
                    if key not in tried:
                        cands.add(key)
        ii = [k[0] for k in matched]
        jj = [k[1] for k in matched]
        cands = {
            k
            for k in cands
            if max(ii + [k[0]]) - min(ii + [k[0]]) < span
            and max(jj + [k[1]]) - min(jj + [k[1]]) < span
        }
        if not cands:
            break
        keys = sorted(cands)
        lat = np.array(keys, float)
        pred = _apply(h, lat)
        cell = _local_cell(h, lat)
        dist = np.linalg.norm(pred[:, None, :] - points[None, :, :], axis=2)
        nearest = np.argmin(dist, axis=1)
        ok = dist[np.arange(len(keys)), nearest] < GROW_TOLERANCE * cell
        taken = set(matched.values())
        new = {}
        for k, key in enumerate(keys):
            tried.add(key)
            idx = int(nearest[k])
            if ok[k] and idx not in taken:
                new[key] = idx
                taken.add(idx)
        frontier = set(new)
        matched.update(new)
        if new:
            src_pts = np.array(list(matched), float)
            dst_pts = points[list(matched.values())]
            refit, _ = cv2.findHomography(src_pts, dst_pts, 0)
            if refit is None:
                return None
            h = refit
    if len(matched) < 6:
        return None
    # drop points the final fit disagrees with
    src_pts = np.array(list(matched), float)
    dst_pts = points[list(matched.values())]
    err = np.linalg.norm(_apply(h, src_pts) - dst_pts, axis=1)
    cell = _local_cell(h, src_pts)
    keep = err < GROW_TOLERANCE * cell
    matched = {k: v for (k, v), g in zip(matched.items(), keep, strict=True) if g}
    if len(matched) < 6:
        return None
    return h, matched


# -- which window of the lattice is the board -------------------------------------------------------
def checkered_window(gray, h, matched, cols, rows):
    """(score, c0, r0, dark_even): the cols x rows window of cells whose squares alternate
    most consistently while the ring of cells round it does not, and whether its cells of even
    parity (c + r) are the dark ones. Cell (c, r) spans lattice [c, c+1] x [r, r+1]; the inner
    corners are c0+1 .. c0+cols-1. None when no window alternates clearly (a quarter of the
    most a window can score): no checkered board."""
    ii = [k[0] for k in matched]
    jj = [k[1] for k in matched]
    c_lo, c_hi = max(ii) - cols + 1, min(ii) - 1  # windows that contain every matched corner
    r_lo, r_hi = max(jj) - rows + 1, min(jj) - 1
    if c_lo > c_hi:  # more corners than a board has: some strays at the edges
        c_lo, c_hi = min(ii) - 1, max(ii) - cols + 1
    if r_lo > r_hi:
        r_lo, r_hi = min(jj) - 1, max(jj) - rows + 1
    # one more cell all round: the ring just outside a window must not alternate (the margin)
    c_span = range(c_lo - 1, c_hi + cols + 1)
    r_span = range(r_lo - 1, r_hi + rows + 1)
    values = _cell_values(gray, h, c_span, r_span)  # rows x cols, NaN outside the picture
    parity = np.array([[(c + r) % 2 for c in c_span] for r in r_span])
    sign = np.where(parity == 0, 1.0, -1.0)
    med = np.nanmedian(values)
    spread = np.nanpercentile(values, 90) - np.nanpercentile(values, 10)
    if not np.isfinite(spread) or spread < 10:
        return None
    # +1: a cell of even parity lighter than the middle, or of odd parity darker
    alt = np.clip((values - med) / (spread / 2), -1, 1) * sign
    off = np.isnan(alt)
    alt = np.nan_to_num(alt, nan=0.0)
    best = None
    for r0 in range(r_lo, r_hi + 1):
        for c0 in range(c_lo, c_hi + 1):
            y, x = r0 - r_lo + 1, c0 - c_lo + 1
            if off[y : y + rows, x : x + cols].any():
                continue  # part of the window is off the picture: not the whole board
            total = float(alt[y : y + rows, x : x + cols].sum())
            phase = 1.0 if total >= 0 else -1.0
            outside = (
                alt[y - 1, x : x + cols],
                alt[y + rows, x : x + cols],
                alt[y : y + rows, x - 1],
                alt[y : y + rows, x + cols],
            )
            penalty = sum(max(0.0, phase * float(side.sum())) for side in outside)
            score = abs(total) - penalty
            if best is None or score > best[0]:
                best = (score, c0, r0, total < 0)
    if best is None or best[0] < 0.25 * rows * cols:
        return None
    # even parity lighter than the middle when the total is positive: even is dark if negative
    return best


def _cell_values(gray, h, c_span, r_span) -> np.ndarray:
    """Median brightness near the four corners of each cell (lattice units), where a piece
    standing in its middle rarely reaches; NaN where the cell is off the picture."""
    offsets = np.array([[a, b] for a in (0.15, 0.85) for b in (0.15, 0.85)])
    out = np.full((len(r_span), len(c_span)), np.nan)
    height, width = gray.shape
    for y, r in enumerate(r_span):
        for x, c in enumerate(c_span):
            pts = _apply(h, np.array([c, r], float) + offsets)
            if pts.min() < 0 or np.any(pts[:, 0] > width - 1) or np.any(pts[:, 1] > height - 1):
                continue
            out[y, x] = float(np.median(_sample(gray, pts)))
    return out


def lined_window(gray, h, matched, cols, rows):
    """(score, c0, r0, None): the window of cols+1 x rows+1 lattice lines, wholly in the
    picture, along which lines are seen most: an inner line must be a thin dark line (darker
    than both its sides), an outer line only darker than the side inside the window (a board's
    outermost line is often its edge against a dark table or frame). Every crossing of the
    window that was found as a crossing of two lines (`matched`) counts once more. A window
    one line too far has a line with nothing there (wood grain, the table)."""
    ii = [k[0] for k in matched]
    jj = [k[1] for k in matched]
    c_lo, c_hi = sorted((max(ii) - cols, min(ii)))
    r_lo, r_hi = sorted((max(jj) - rows, min(jj)))
    c_lo, r_lo, c_hi, r_hi = c_lo - 1, r_lo - 1, c_hi + 1, r_hi + 1
    cs = np.arange(c_lo, c_hi + cols + 1)
    rs = np.arange(r_lo, r_hi + rows + 1)
    t = (np.arange(4) + 0.5) / 4
    # per unit segment: (both sides, darker than the + side, darker than the - side)
    cc, rr, tt = np.meshgrid(cs, rs[:-1], t, indexing="ij")  # vertical lines, segments down
    vertical = _line_hits(gray, h, np.stack([cc, rr + tt], -1).reshape(-1, 2), (1.0, 0.0), True)
    vertical = vertical.reshape(3, len(cs), len(rs) - 1, len(t)).mean(3)
    rr, cc, tt = np.meshgrid(rs, cs[:-1], t, indexing="ij")  # horizontal lines, segments across
    horizontal = _line_hits(gray, h, np.stack([cc + tt, rr], -1).reshape(-1, 2), (0.0, 1.0), True)
    horizontal = horizontal.reshape(3, len(rs), len(cs) - 1, len(t)).mean(3)
    crossings = np.zeros((len(cs), len(rs)))
    for i, j in matched:
        crossings[i - c_lo, j - r_lo] = 1.0
    best = None
    for r0 in range(r_lo, r_hi + 1):
        for c0 in range(c_lo, c_hi + 1):
            if not _inside(gray, _apply(h, _box(c0, r0, cols, rows)), 0).all():
                continue
            x, y = c0 - c_lo, r0 - r_lo
            v = vertical[:, x : x + cols + 1, y : y + rows]
            hz = horizontal[:, y : y + rows + 1, x : x + cols]
            score = float(
                v[0, 1:-1].sum()
                + v[1, 0].sum()
                + v[2, -1].sum()
                + hz[0, 1:-1].sum()
                + hz[1, 0].sum()
                + hz[2, -1].sum()
                + crossings[x : x + cols + 1, y : y + rows + 1].sum()
            )
            if best is None or score > best[0]:
                best = (score, c0, r0, None)
    return best


def _line_hits(gray, to_px, lat, normal, sides=False) -> np.ndarray:
    """At each lattice point (N x 2) on a grid line running across `normal`: 1.0 where a thin
    dark line is there - the darkest pixel across the line, within a tenth of a cell, darker
    by LINE_CONTRAST than both sides a quarter of a cell away -, else 0; 0 off the picture.
    With `sides`: 3 x N, also darker than the side at +normal, and than the side at -normal."""
    across = np.linspace(-0.1, 0.1, 5)
    offsets = np.concatenate([across, [-0.25, 0.25]])
    pts = lat[:, None, :] + offsets[None, :, None] * np.asarray(normal, float)[None, None, :]
    px = _apply(to_px, pts.reshape(-1, 2))
    inside = _inside(gray, px, 1).reshape(len(lat), -1).all(1)
    vals = _sample(gray, px.reshape(len(lat), -1, 2))
    line = vals[:, : len(across)].min(1)
    minus = vals[:, -2] - line > LINE_CONTRAST
    plus = vals[:, -1] - line > LINE_CONTRAST
    hits = np.stack([minus & plus, plus, minus]).astype(float) * inside
    return hits if sides else hits[0]


def line_share(gray, to_px, cols, rows, shift=(0.0, 0.0)) -> float:
    """Share of points sampled along the grid lines (lattice moved by `shift` cells) where a
    thin dark line is (see `_line_hits`)."""
    t = (np.arange(SAMPLES_PER_LINE) + 0.5) / SAMPLES_PER_LINE
    c, tc = np.meshgrid(np.arange(cols + 1), t * rows, indexing="ij")
    r, tr = np.meshgrid(np.arange(rows + 1), t * cols, indexing="ij")
    vertical = _line_hits(gray, to_px, np.stack([c, tc], -1).reshape(-1, 2) + shift, (1.0, 0.0))
    horizontal = _line_hits(gray, to_px, np.stack([tr, r], -1).reshape(-1, 2) + shift, (0.0, 1.0))
    return float(np.concatenate([vertical, horizontal]).mean())


# -- refinement and orientation --------------------------------------------------------------------
def _refine_full(gray, h, matched, scale, kind, window) -> tuple[np.ndarray, float]:
    """The homography lattice -> full-resolution px from the matched points inside the board,
    X-corners refined to sub-pixel on the full picture, and the points' median distance from
    it (px)."""
    c0, r0, cols, rows = window
    inner = {
        k: v for k, v in matched.items() if c0 <= k[0] <= c0 + cols and r0 <= k[1] <= r0 + rows
    }
    if len(inner) < 6:
        inner = matched
    lat = np.array(list(inner), float)
    pts = _apply(h, lat) / scale
    if kind == "checkered":
        cell = float(np.median(_local_cell(h, lat))) / scale
        win = int(max(2, min(10, cell * 0.2)))
        refined = cv2.cornerSubPix(
            gray, pts.astype(np.float32).reshape(-1, 1, 2), (win, win), (-1, -1), _SUBPIX_CRITERIA
        ).reshape(-1, 2)
        moved = np.linalg.norm(refined - pts, axis=1)
        pts = np.where((moved < win)[:, None], refined, pts)
    full, _ = cv2.findHomography(lat, pts, cv2.RANSAC, 3.0)
    if full is None:
        full = np.diag([1 / scale, 1 / scale, 1.0]) @ h
    error = np.linalg.norm(_apply(full, lat) - pts, axis=1)
    return full, float(np.median(error))


def order_corners(
    corners: np.ndarray, dark=None, *, across_first: bool | None = None
) -> np.ndarray:
    """The four outer corners of a lattice box (in the lattice's order) as TL, TR, BR, BL of the
    first player.

    `dark` (checkered boards) says which corner squares are dark: a1 (the last) must be one.
    `across_first` (boards of R != C cells): whether the box's first side (corner 0 to 1) has
    the board's C columns, so that it must become the top or bottom side. Of the turns
    allowed, the one putting the first player's side (BR-BL) lowest in the picture is taken."""
    corners = np.asarray(corners, float)
    order = [0, 1, 2, 3]
    if _cross(corners[1] - corners[0], corners[2] - corners[1]) < 0:
        order = [0, 3, 2, 1]  # the lattice is mirrored in the picture: go round the other way
        if across_first is not None:
            across_first = not across_first  # ... and its first side is now 0 to 3
    best = None
    for turn in range(4):
        idx = order[turn:] + order[:turn]
        quad = corners[idx]
        if dark is not None and not dark[idx[3]]:
            continue
        if across_first is not None and (turn % 2 == 0) != across_first:
            continue  # would put the R rows across
        bottom = float(quad[2][1] + quad[3][1])
        if best is None or bottom > best[0]:
            best = (bottom, quad)
    return corners[order] if best is None else best[1]


# -- small helpers ---------------------------------------------------------------------------------
def _unit_to_mm(layout: Layout, cols: int, rows: int) -> np.ndarray:
    """Lattice units (cells, 0..cols x 0..rows) -> the layout's mm."""
    x, y = layout.board_origin
    w, h = layout.board_size
    return np.array([[w / cols, 0, x], [0, h / rows, y], [0, 0, 1]], float)


def _box(c0, r0, cols, rows) -> np.ndarray:
    return np.array([[c0, r0], [c0 + cols, r0], [c0 + cols, r0 + rows], [c0, r0 + rows]], float)


def _apply(h: np.ndarray, pts: np.ndarray) -> np.ndarray:
    pts = np.asarray(pts, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, np.asarray(h, np.float64)).reshape(-1, 2)


def _local_cell(h: np.ndarray, lat: np.ndarray) -> np.ndarray:
    """The size of one cell (px, geometric mean of its two sides) at lattice points `lat`."""
    p = _apply(h, lat)
    px = _apply(h, lat + [1, 0])
    py = _apply(h, lat + [0, 1])
    return np.sqrt(np.linalg.norm(px - p, axis=1) * np.linalg.norm(py - p, axis=1))


def _inside(gray, pts, margin) -> np.ndarray:
    height, width = gray.shape
    margin = np.asarray(margin, float)
    return (
        (pts[:, 0] >= margin)
        & (pts[:, 1] >= margin)
        & (pts[:, 0] < width - 1 - margin)
        & (pts[:, 1] < height - 1 - margin)
    )


def _sample(img: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples of `img` at points (... x 2), clamped to the picture."""
    pts = np.asarray(pts, np.float64)
    shape = pts.shape[:-1]
    height, width = img.shape[:2]
    x = np.clip(pts[..., 0].ravel(), 0, width - 1.001)
    y = np.clip(pts[..., 1].ravel(), 0, height - 1.001)
    x0, y0 = x.astype(np.intp), y.astype(np.intp)
    fx, fy = x - x0, y - y0
    a, b = img[y0, x0].astype(np.float64), img[y0, x0 + 1].astype(np.float64)
    c, d = img[y0 + 1, x0].astype(np.float64), img[y0 + 1, x0 + 1].astype(np.float64)
    top = a + (b - a) * fx
    out = top + (c + (d - c) * fx - top) * fy
    return out.reshape(shape)


def _board_window(small, homography, matched, layout: Layout):
    """((score, c0, r0, dark_even), nx, ny): the window of the grown lattice that is the board.
    The lattice's first axis may run along the board's rows: a board of R != C cells is tried
    both ways round, and the window that fits best says which.

    :raises BoardNotFound: no window holds a whole board."""
    cols, rows = grid_shape(layout)
    shapes = [(cols, rows)] if cols == rows else [(cols, rows), (rows, cols)]
    best = None
    for nx, ny in shapes:
        if board_kind(layout) == "checkered":
            window = checkered_window(small, homography, matched, nx, ny)
        else:
            window = lined_window(small, homography, matched, nx, ny)
        if window is not None and (best is None or window[0] > best[0][0]):
            best = (window, nx, ny)
    if best is None:
        raise BoardNotFound(
            _("a grid was seen but not a whole {cols}x{rows} board (is all of it in view?)").format(
                cols=cols, rows=rows
            ),
            layout.name,
        )
    return best


def untold_turns(layout: Layout) -> tuple[int, ...]:
    """The quarter turns of a board found by its grid that its picture cannot tell from the
    finder's choice (0, the choice itself, first): a checkerboard's dark corner squares and a
    non-square grid's long side leave a half turn; a square lined board looks alike all four
    ways round.

    >>> from vision.layouts import get_layout
    >>> untold_turns(get_layout("chessboard")), untold_turns(get_layout("grid:9x9"))
    ((0, 2), (0, 1, 2, 3))
    >>> untold_turns(get_layout("grid:5x7"))
    (0, 2)
    """
    cols, rows = grid_shape(layout)
    return (0, 1, 2, 3) if board_kind(layout) == "lined" and cols == rows else (0, 2)


def turned(located: Located, turn: int) -> Located:
    """`located` turned by `turn` quarter turns: the board corner that was the `turn`-th of TL,
    TR, BR, BL is now the top left (the first player sits at another side of it)."""
    return replace(located, homography=turned_homography(located.layout, located.homography, turn))


def turned_homography(layout: Layout, homography: np.ndarray, turn: int) -> np.ndarray:
    """A homography board mm -> image of `layout` turned by `turn` quarter turns (`turned`).
    The board turns about its centre, so its cells land on cells: exact on a square board,
    and for a half turn on any (a quarter turn of a board of R != C cells is refused)."""
    cols, rows = grid_shape(layout)
    if turn % 2 and cols != rows:
        raise ValueError(f"a board of {cols} x {rows} cells has no quarter turn")
    board = np.array(layout.board_corners(), np.float32)
    about_centre = cv2.getPerspectiveTransform(board, np.roll(board, -turn, axis=0))
    return np.asarray(homography, np.float64) @ about_centre


def nearest_turn(layout: Layout, homography: np.ndarray, corners: np.ndarray) -> int:
    """Of the turns its picture cannot tell (`untold_turns`), the one that puts a board found
    through `homography` nearest `corners` (TL, TR, BR, BL image px of an earlier location of
    it, or of another photo from the same camera): their largest distance."""
    distances = _turn_distances(layout, homography, corners)
    return min(distances, key=distances.__getitem__)


def turn_told(layout: Layout, homography: np.ndarray, corners: np.ndarray) -> bool:
    """Whether `corners` tell which way round the board found through `homography` lies: its
    nearest turn (`nearest_turn`) at most half as far from them as any other. A board turned
    a quarter from them (a phone photo taken from another side) is as far from either way
    round that keeps a1 on a dark corner - and read the wrong one, the board reads upside down.
    A board its picture leaves all four ways round (a square lined board) is never said to be
    untold: any of them is the nearest to something, and a quarter turn of it cannot be told
    (nor a board seen at another scale or turned 30 degrees told from one).

    >>> from vision.layouts import get_layout
    >>> square = [[0.0, 0.0], [400.0, 0.0], [400.0, 400.0], [0.0, 400.0]]
    >>> board = np.array(get_layout("chessboard").board_corners(), np.float32)
    >>> h = cv2.getPerspectiveTransform(board, np.array(square, np.float32))
    >>> turn_told(get_layout("chessboard"), h, np.array(square) + 20)  # shifted a little
    True
    >>> turn_told(get_layout("chessboard"), h, np.roll(square, 1, axis=0))  # a quarter turn
    False
    """
    distances = sorted(_turn_distances(layout, homography, corners).values())
    return len(distances) != 2 or distances[0] <= 0.5 * distances[1]


def _turn_distances(
    layout: Layout, homography: np.ndarray, corners: np.ndarray
) -> dict[int, float]:
    """Each untold turn -> the largest distance (px) between the board's corners so turned
    and `corners`."""
    board = np.array([layout.board_corners()], np.float64)
    found = cv2.perspectiveTransform(board, np.asarray(homography, np.float64))[0]
    target = np.asarray(corners, np.float64)
    return {
        turn: float(np.linalg.norm(np.roll(found, -turn, axis=0) - target, axis=1).max())
        for turn in untold_turns(layout)
    }


def _cross(a, b) -> float:
    return float(a[0] * b[1] - a[1] * b[0])


__all__ = [
    "BoardNotFound",
    "board_kind",
    "find_board",
    "grid_shape",
    "grid_still_there",
    "nearest_turn",
    "turn_told",
    "turned",
    "turned_homography",
    "untold_turns",
]


def draw_grid(image: np.ndarray, located: Located) -> np.ndarray:
    """The photo with the located board's grid drawn over it (for `vision locate --view` and the
    setup screen): the cell lines in green, the outline in yellow, a1's corner as a red dot
    and the first player's side (bottom edge) thicker."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    layout = located.layout
    thick = max(1, round(max(out.shape[:2]) / 600))
    for cell in layout.cells:
        poly = located.to_image(cell.polygon).round().astype(np.int32)
        cv2.polylines(out, [poly], True, (0, 200, 0), thick, cv2.LINE_AA)
    corners = located.board_corners_px()
    quad = corners.round().astype(np.int32)
    cv2.polylines(out, [quad], True, (0, 230, 255), thick * 2, cv2.LINE_AA)
    cv2.line(out, tuple(quad[2]), tuple(quad[3]), (0, 230, 255), thick * 4, cv2.LINE_AA)
    cv2.circle(out, tuple(quad[3]), thick * 6, (0, 0, 255), -1, cv2.LINE_AA)
    return out
