"""Finding the board in a camera image: markers -> homography (mat millimetres -> image pixels).

Built-in mats carry four ArUco markers (DICT_4X4_50) outside the board's corners. Every corner
of every visible marker of the layout is used, so three markers - or even two - give a good
homography when a hand or a cup hides the fourth. With layout ``auto`` the marker ids tell which
mat (and which side of Sensei's board) is on the table.

Boards without markers (``chessboard``, ``grid:RxC``) are found from their grid
(`vision.find`), or located from the four outer corners of the playing area given in image
pixels (any layout with ``--corners``): top-left, top-right, bottom-right, bottom-left as seen
from the first player, so the last is the corner of ``a1``.

A full detection is the slow part (< 40 ms at 1280x720 on one core: it runs on a half-size
copy and refines the corners on the full frame). `relocate` only confirms the markers where
they were (refine the corners, read the marker's modules) in about a millisecond, which is what
a tracker does on every frame; `corner_shift` says how far the board moved between two
locations.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.errors import UserError
from companion.i18n import _, ngettext
from vision.find import find_board
from vision.layouts import Layout, aruco_dictionary, layout_for_markers, layout_or_auto
from vision.location import Located, corner_shift, from_corners, parse_corners, to_gray

__all__ = [  # Located and the corner helpers live in vision.location; found here too
    "Located",
    "corner_shift",
    "detect_markers",
    "from_corners",
    "from_markers",
    "locate",
    "parse_corners",
    "relocate",
    "resolve_layout",
    "to_gray",
]

MIN_MARKERS = 3  # of the four; two work geometrically but leave one direction poorly pinned
MAX_REPROJECTION_PX = 4.0  # mean marker-corner error above this: a marker is misread / bent mat


# -- markers --------------------------------------------------------------------------------------
DETECT_WIDTH = 800  # full detections run on the frame shrunk to about this width (speed)
SUBPIX_WINDOW = 4  # half-size (px) of the corner refinement window on the full frame
_SUBPIX_CRITERIA = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 20, 0.03)
_DETECTOR: cv2.aruco.ArucoDetector | None = None


def _detector() -> cv2.aruco.ArucoDetector:
    """One detector for the process: building it costs more than a detection."""
    global _DETECTOR
    if _DETECTOR is None:
        params = cv2.aruco.DetectorParameters()
        # Two adaptive-threshold windows instead of three: a marker's quiet zone is wide, so
        # a window of 9 and one of 19 pixels cover dim, bright and unevenly lit mats.
        params.adaptiveThreshWinSizeMin = 9
        params.adaptiveThreshWinSizeMax = 19
        params.adaptiveThreshWinSizeStep = 10
        params.minMarkerPerimeterRate = 0.02
        params.perspectiveRemovePixelPerCell = 8  # read small, tilted markers reliably
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE  # refined on the full frame
        _DETECTOR = cv2.aruco.ArucoDetector(aruco_dictionary(), params)
    return _DETECTOR


def detect_markers(image: np.ndarray, *, min_found: int = MIN_MARKERS) -> dict[int, np.ndarray]:
    """Every DICT_4X4_50 marker in the image: id -> its 4 corners (TL TR BR BL), image px.

    Detection runs on a shrunk copy (about DETECT_WIDTH wide) and the corners are then refined
    on the full frame; when that finds fewer than `min_found` markers (a far or small mat) the
    full frame is searched too. A marker id seen twice (a second mat, a reflection) is
    dropped rather than guessed."""
    gray = to_gray(image)
    factor = max(1, int(round(gray.shape[1] / DETECT_WIDTH)))
    found = {}
    if factor > 1:
        small = cv2.resize(
            gray, (gray.shape[1] // factor, gray.shape[0] // factor), interpolation=cv2.INTER_AREA
        )
        found = _detect(small, factor)
    if len(found) < min_found:
        full = _detect(gray, 1)
        if len(full) >= len(found):
            found = full
    return refine_corners(gray, found)


def _detect(gray: np.ndarray, factor: int) -> dict[int, np.ndarray]:
    corners, ids, _ = _detector().detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    twice: set[int] = set()
    if ids is not None:
        for quad, marker_id in zip(corners, ids.ravel(), strict=True):
            key = int(marker_id)
            if key in found:
                twice.add(key)
            # pixel centres: small pixel i covers full pixels factor*i .. factor*i + factor-1
            found[key] = quad.reshape(4, 2).astype(np.float64) * factor + (factor - 1) / 2
    for key in twice:
        del found[key]
    return found


def refine_corners(gray: np.ndarray, markers: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Marker corners refined to sub-pixel accuracy on the full-resolution frame."""
    if not markers:
        return {}
    keys = list(markers)
    points = np.concatenate([markers[k] for k in keys]).astype(np.float32).reshape(-1, 1, 2)
    win = (SUBPIX_WINDOW, SUBPIX_WINDOW)
    refined = cv2.cornerSubPix(gray, points, win, (-1, -1), _SUBPIX_CRITERIA).reshape(-1, 4, 2)
    return {k: refined[i].astype(np.float64) for i, k in enumerate(keys)}


_PATTERNS: dict[int, np.ndarray] = {}


def marker_pattern(marker_id: int) -> np.ndarray:
    """The 6 x 6 modules of a marker (border included), True where white."""
    if marker_id not in _PATTERNS:
        _PATTERNS[marker_id] = (
            cv2.aruco.generateImageMarker(aruco_dictionary(), marker_id, 6, borderBits=1) > 127
        )
    return _PATTERNS[marker_id]


def marker_matches(gray: np.ndarray, corners: np.ndarray, marker_id: int) -> bool:
    """Does the quad `corners` (image px, TL TR BR BL) show marker `marker_id`, upright?
    Reads its 6 x 6 modules from a tiny warp: cheap enough for every frame."""
    k = 6  # pixels per module in the warp
    side = 6 * k
    square = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    warp = cv2.getPerspectiveTransform(corners.astype(np.float32), square)
    patch = cv2.warpPerspective(gray, warp, (side, side), flags=cv2.INTER_LINEAR)
    modules = patch.reshape(6, k, 6, k)[:, 1 : k - 1, :, 1 : k - 1].mean(axis=(1, 3))
    low, high = float(modules.min()), float(modules.max())
    if high - low < 25:  # no contrast: covered, or in darkness
        return False
    expected = marker_pattern(marker_id)
    white = modules > (low + high) / 2
    return int(np.count_nonzero(white != expected)) == 0


# -- locating -------------------------------------------------------------------------------------
def resolve_layout(
    name_or_layout: str | Layout, markers: dict[int, np.ndarray] | None = None
) -> Layout:
    """A Layout from its name; ``auto`` picks the built-in layout whose markers are in view."""
    if isinstance(name_or_layout, Layout):
        return name_or_layout
    named = layout_or_auto(name_or_layout)
    if named is not None:
        return named
    if markers is None:
        raise UserError("layout auto needs the markers of a printed mat in view")
    layout = layout_for_markers(markers)
    if layout is None:
        if markers:
            raise UserError(
                f"layout auto: the markers in view (ids {_ids(markers)}) do not name one mat: "
                "is a second mat in view? Give --layout explicitly"
            )
        raise UserError(
            "layout auto: no markers seen: is the whole mat in view and lit? "
            "(a board without markers needs --layout chessboard or grid:RxC)"
        )
    return layout


def locate(
    image: np.ndarray,
    layout: str | Layout = "auto",
    corners=None,
    *,
    min_markers: int = MIN_MARKERS,
    near: np.ndarray | None = None,
    saved_in: str = "",
) -> Located:
    """Find the board of `layout` in `image` (BGR or grey).

    `corners` (four image points TL, TR, BR, BL of the playing area, or their text form
    "x,y x,y x,y x,y") locates a board without markers; without them such a board
    (``chessboard``, ``grid:RxC``) is found from its grid (`vision.find.find_board`, which
    raises BoardNotFound; `near`: an earlier location's board corners, which way round to
    take it; `saved_in`: the file `corners` were saved in, named where they do not fit).
    Raises UserError saying what is missing when the board cannot be found.
    """
    gray = to_gray(image)
    size = (gray.shape[1], gray.shape[0])
    if corners is not None:
        chosen = resolve_layout(layout) if not _is_auto(layout) else None
        if chosen is None:
            raise UserError(
                "layout auto needs markers; with --corners give the layout (e.g. grid:8x8)"
            )
        return from_corners(chosen, corners, size, saved_in=saved_in)
    if not _is_auto(layout):
        chosen = resolve_layout(layout)
        if not chosen.markers:  # chessboard, grid:RxC: find the grid itself
            return find_board(gray, chosen, near=near)
    markers = detect_markers(gray)
    chosen = resolve_layout(layout, markers)
    return from_markers(chosen, markers, size, min_markers=min_markers)


def _is_auto(layout: str | Layout) -> bool:
    return isinstance(layout, str) and layout.strip().lower() == "auto"


def from_markers(
    layout: Layout,
    markers: dict[int, np.ndarray],
    image_size: tuple[int, int] = (0, 0),
    *,
    min_markers: int = MIN_MARKERS,
) -> Located:
    """The homography from every corner of the layout's markers among `markers`."""
    own = {m.id: m for m in layout.markers}
    seen = sorted(i for i in markers if i in own)
    if not seen:
        others = layout_for_markers(markers)
        if others:
            raise UserError(
                _(
                    "no markers of layout {layout} seen: the markers in view belong to the "
                    "{other} mat - put the {layout} mat in view, or set up the game and board "
                    "of the {other} mat (on the command line: --layout auto)"
                ).format(layout=layout.name, other=others.name)
            )
        raise UserError(
            _("no markers of layout {layout} seen: is the whole mat in view and lit?").format(
                layout=layout.name
            )
        )
    if len(seen) < min_markers:
        raise UserError(
            ngettext(
                "only {count} of the 4 markers of layout {layout} seen (id {ids}): at least "
                "{least} must be in view - move what covers the others",
                "only {count} of the 4 markers of layout {layout} seen (ids {ids}): at least "
                "{least} must be in view - move what covers the others",
                len(seen),
            ).format(
                count=len(seen),
                layout=layout.name,
                ids=", ".join(map(str, seen)),
                least=min_markers,
            )
        )
    src = np.array([own[i].corners for i in seen], np.float64).reshape(-1, 2)
    dst = np.array([markers[i] for i in seen], np.float64).reshape(-1, 2)
    homography, _mask = cv2.findHomography(src, dst, 0)
    if homography is None:
        raise UserError(
            _("the markers of layout {layout} do not form a flat mat: is it folded?").format(
                layout=layout.name
            )
        )
    projected = cv2.perspectiveTransform(src.reshape(-1, 1, 2), homography).reshape(-1, 2)
    error = float(np.mean(np.linalg.norm(projected - dst, axis=1)))
    if error > MAX_REPROJECTION_PX:
        raise UserError(
            _(
                "the markers of layout {layout} disagree by {error} px: is the mat flat and "
                "every marker from the same mat?"
            ).format(layout=layout.name, error=f"{error:.1f}")
        )
    return Located(
        layout, homography, tuple(seen), {i: markers[i] for i in seen}, error, image_size
    )


# -- following a located board ---------------------------------------------------------------------
def relocate(
    image: np.ndarray, previous: Located, *, min_markers: int = MIN_MARKERS
) -> Located | None:
    """Cheap re-detection for a tracker, about a millisecond: each marker's corners are refined
    from where `previous` says they are, and the marker is accepted only if its modules read
    as its own id there (so a hand over a marker drops just that marker).

    Returns the new location, or None when fewer than `min_markers` markers are confirmed
    (covered, or the board moved more than a few pixels): then call `locate` for a full
    detection. A location from corners has no markers to follow and is returned unchanged.
    """
    if not previous.markers_seen:
        return previous
    gray = to_gray(image)
    height, width = gray.shape
    found: dict[int, np.ndarray] = {}
    guesses = {m.id: previous.to_image(m.corners) for m in previous.layout.markers}
    margin = SUBPIX_WINDOW + 2
    for marker_id, quad in guesses.items():
        if (
            quad.min() < margin
            or np.any(quad[:, 0] > width - margin)
            or np.any(quad[:, 1] > height - margin)
        ):
            continue
        refined = refine_corners(gray, {marker_id: quad})[marker_id]
        if np.max(np.linalg.norm(refined - quad, axis=1)) > 2 * SUBPIX_WINDOW:
            continue  # the refinement wandered off: not the marker's corner
        if marker_matches(gray, refined, marker_id):
            found[marker_id] = refined
    try:
        return from_markers(previous.layout, found, (width, height), min_markers=min_markers)
    except UserError:
        return None


def _ids(markers) -> str:
    return ", ".join(str(i) for i in sorted(markers))
