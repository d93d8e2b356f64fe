"""Is the board still, and is anything over it? Pure image arithmetic on small top views.

The tracker (`vision.tracker`) warps every frame to a small *top view* of the mat and a
narrow apron of table round it - a few hundred pixels across, the same pixel always showing
the same spot - and hands it here. Three questions are answered, each cheaply enough for
every frame:

- **Motion** (`MotionMeter`): how much of the view changed since the previous frame. Relative
  differences (change divided by brightness), so a dim lamp and bright daylight use the same
  threshold.
- **Occluders against the last still board** (`OccluderCheck.against_reference`): pieces can
  only ever appear inside the cells' piece discs, so *anything* that differs from the last
  accepted still board outside those discs - on the mat's paper, its lines, the gaps between
  stones, the mat's very edge - is something over the board: a hand, a sleeve, a glove, or its
  shadow. No skin colour is involved, so gloves and sleeves count too. Brightness and each
  colour channel are compared (pale skin on white paper differs most in blue), after dividing
  out a global change of the light. The apron of table round the mat is compared too, since a
  hand always comes in across it: a changed region there counts when it reaches onto the mat
  (fingertips resting on the mat's edge), not when it stays beside it (a cup put down).
- **Occluders against the mat itself** (`OccluderCheck.against_mat`): for the printed mats we
  know what the paper looks like. The lighting is fitted as a smooth field (a quadratic in
  log-brightness, which covers lamps, windows and vignetting between 0.5x and 1.5x) over the
  clean white paper, and the light's tint as smooth fields of log(B/G) and log(R/G); wherever
  the print is known - paper, lines, captions, markers - a pixel must look like what the print
  shows nearby under that light, in brightness and in colour. Paper and print are gray or the
  board's wood tone; skin and most sleeves are not. Clipped (overexposed) channels say
  nothing. This needs no reference, so even the very first board is never read with a hand
  over it.

A region must cover `min_area_px` pixels (after removing speckle) to count, which keeps sensor
noise and a crumb on the mat from freezing the companion.

What the players said is not over the board (`OccluderCheck.accept`): a still difference
that is no hand - a low lamp's shadow of a tall piece reaching across the mat's edge, a
captured piece or a cup put down on the mat's margin - would hold the companion on "hands"
for good. When the players say the board is clear, the regions found then are *accepted*: a
changed region that lies wholly within them (and the pieces' zone) is left out, as the pieces'
own leans are, until a still board no longer shows them. A hand that comes in across them
reaches beyond them and is seen.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# Relative change (|a - b| / (brightness + OFFSET)) above which a pixel counts as changed.
OFFSET = 24.0


def relative_change(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| relative to their brightness: 0.2 means a 20% change."""
    return np.abs(a - b) / (0.5 * (a + b) + OFFSET)


def _changed(now: np.ndarray, then: np.ndarray, at: np.ndarray, threshold: float) -> np.ndarray:
    """Where `now` differs from `then` by more than `threshold` (relative, as
    `relative_change`) once their overall ratio - the median at the flat indices `at`, where
    neither is near clipping - is divided out. When the light got brighter, a pixel near
    clipping now that got brighter too is not a change (its true brightness is unknown); the
    same the other way round."""
    a, b = now.flat[at], then.flat[at]
    ratios = (a + 1.0) / (b + 1.0)
    unclipped = (a < FIT_BELOW) & (b < FIT_BELOW)
    gain = float(np.median(ratios[unclipped] if int(unclipped.sum()) >= 20 else ratios))
    scaled = then * np.float32(gain)
    allowed = cv2.addWeighted(now, 0.5 * threshold, scaled, 0.5 * threshold, threshold * OFFSET)
    changed = cv2.absdiff(now, scaled) > allowed
    if gain > np.exp(LIGHT_CHANGED):
        changed &= ~((now >= NEAR_CLIPPING) & (now >= then))
    elif gain < np.exp(-LIGHT_CHANGED):
        changed &= ~((then >= NEAR_CLIPPING) & (now <= then))
    return changed


def _significant(changed: np.ndarray, min_area_px: int) -> int:
    """How many changed pixels remain after removing speckle (a 3x3 opening)."""
    if not changed.any():
        return 0
    mask = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    count = int(cv2.countNonZero(mask))
    return count if count >= min_area_px else 0


class MotionMeter:
    """Frame-to-frame change of the top view, as the fraction of pixels that changed."""

    def __init__(self, threshold: float = 0.12) -> None:
        self.threshold = threshold
        self._previous: np.ndarray | None = None

    def reset(self) -> None:
        self._previous = None

    def update(self, gray: np.ndarray) -> float:
        """The fraction of pixels changed since the last call (1.0 for the first frame)."""
        previous, self._previous = self._previous, gray
        if previous is None or previous.shape != gray.shape:
            return 1.0
        changed = relative_change(gray, previous) > self.threshold
        return float(cv2.countNonZero(changed.astype(np.uint8))) / changed.size


@dataclass
class StillnessClock:
    """Measures how long the view has been still (motion below `max_motion`)."""

    still_seconds: float = 0.5
    max_motion: float = 0.002
    since: float | None = None

    def update(self, motion: float, t: float) -> bool:
        """True once the view has been still for `still_seconds` up to time `t`."""
        if motion > self.max_motion:
            self.since = None
            return False
        if self.since is None:
            self.since = t
        return t - self.since >= self.still_seconds - 1e-9

    def reset(self) -> None:
        self.since = None


def colour_view(view_bgr: np.ndarray) -> np.ndarray:
    """The float32 colour of a top view, lightly smoothed against sensor noise."""
    return cv2.GaussianBlur(view_bgr.astype(np.float32), (3, 3), 0)


def gray_of(colour: np.ndarray) -> np.ndarray:
    """The brightness of a `colour_view`."""
    return cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)


class LightingFit:
    """A smooth field fitted over known pixels (`mask`): a quadratic in x and y, e.g. the
    log-brightness of the light, log(observed / printed). Fitted on every `step`-th pixel of
    the mask, in two rounds (the second ignores samples the first could not explain: a hand).
    Without weights the first round's least squares is precomputed, so a fit is two small
    matrix products."""

    def __init__(self, mask: np.ndarray, step: int = 2) -> None:
        h, w = mask.shape
        ys, xs = np.nonzero(mask)
        self.ys, self.xs = ys, xs  # where the field is evaluated by `field`
        self.basis = _quadratic_basis(w, h)  # (terms, h, w)
        self.terms = len(self.basis)
        self._basis = self.basis[:, ys, xs].astype(np.float32)  # (terms, n)
        sample = (ys % step == 0) & (xs % step == 0)
        self.sample = np.nonzero(sample)[0]
        self.usable = len(self.sample) >= 50
        if self.usable:
            self._design = self._basis[:, self.sample].T.copy()  # (k, terms)
            self._solve = np.linalg.pinv(self._design).astype(np.float32)  # (terms, k)

    def coefficients(
        self,
        target: np.ndarray,
        use: np.ndarray | None = None,
        terms: int | None = None,
        tolerance: float = 0.08,
    ) -> np.ndarray | None:
        """The field's coefficients from `target`, the values at the sample pixels; only
        samples where `use` is True count (None: all). The second round keeps the samples
        within `tolerance` (or three median residuals) of the first. None if too few samples
        count."""
        terms = self.terms if terms is None else terms
        if use is None and terms == self.terms:
            coef = self._solve @ target
            design, values = self._design, target
        else:
            design = self._design[:, :terms] if use is None else self._design[use, :terms]
            values = target if use is None else target[use]
            if len(values) < 50:
                return None
            coef = _least_squares(design, values)
        residual = np.abs(design @ coef - values)
        inliers = residual < max(tolerance, 3.0 * float(np.median(residual)))
        if 50 <= int(inliers.sum()) < len(inliers):
            coef = _least_squares(design[inliers], values[inliers])
        padding = np.zeros(self.terms - len(coef), np.float32)
        return np.concatenate([coef, padding]).astype(np.float32)

    def field(self, log_ratio: np.ndarray) -> np.ndarray:
        """The fitted field at every mask pixel, from its values at the mask pixels."""
        return self.coefficients(log_ratio[self.sample]) @ self._basis


def _least_squares(design: np.ndarray, values: np.ndarray) -> np.ndarray:
    normal = design.T @ design
    return np.linalg.solve(normal + 1e-6 * np.eye(len(normal)), design.T @ values)


def _quadratic_basis(w: int, h: int) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    x = x / max(w - 1, 1) * 2 - 1
    y = y / max(h - 1, 1) * 2 - 1
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y])


CLIPPED = 240.0  # a smoothed channel this bright may have been clipped by the camera
TOLERANCE_PX = 3  # a top-view pixel may show anything the print shows this close (blur, homography)
MIN_INSIDE = 0.25  # share of min_area_px a region from the apron must reach onto the mat
LOOSE_PX = 6  # the same when a marker was not seen and the location is extrapolated
FIT_BELOW = 225.0  # paper samples for fitting the light must be darker than this
LIGHT_CHANGED = 0.1  # log: the light changed by more than about 10 %
NEAR_CLIPPING = 200.0  # a smoothed pixel this bright may hide clipped ones (small white print)
BRIGHT_SAMPLES = 50  # too bright paper samples (FIT_BELOW) that say which tint they show
BRIGHT_TINTS = (10.0, 90.0)  # percentiles of their tints taken as tints the light may have
DARK = 35.0  # a channel this dark has too much noise in its colour ratios
CHROMA_THRESHOLD = 0.08  # colour-ratio difference (log) above which a pixel is not the print
MAT_FACTOR = 1.25  # the mat's brightness check uses this times the threshold
ACCEPT_PX = 2  # top-view pixels round what the players accepted that are accepted too
ACCEPT_MOST = 0.2  # of the watched pixels: more is not left out (a hand could hide in it)


def _log_chroma(colour: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log B/G, log R/G) of BGR values (..., 3): the colour without its brightness."""
    logs = cv2.log(np.maximum(colour, 0.0).astype(np.float32) + 1.0)
    return logs[..., 0] - logs[..., 1], logs[..., 2] - logs[..., 1]


def _channel_offsets(sampled: np.ndarray) -> np.ndarray:
    """(3,): how much brighter each channel of the plain paper is than its brightness (log),
    measured on the samples none of whose channels is clipped or too dark (0 without any)."""
    fine = (sampled < FIT_BELOW).all(axis=1) & (sampled > DARK).all(axis=1)
    if not fine.any():
        return np.zeros(3)
    logs = np.log(sampled[fine])
    level = np.log(np.maximum(gray_of(sampled[fine][None]), 1.0))[0]
    return np.median(logs - level[:, None], axis=0)


def _outside(value: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """How far `value` is outside [low, high] (0 inside)."""
    return np.maximum(np.maximum(low - value, value - high), 0.0)


def _half(image: np.ndarray) -> np.ndarray:
    """Every second pixel each way: colour is judged at half resolution (hands are large)."""
    return image[::2, ::2]


def _full(mask: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A half-resolution mask back at full resolution."""
    full = np.repeat(np.repeat(mask, 2, axis=0), 2, axis=1)
    return full[: shape[0], : shape[1]]


@dataclass(frozen=True)
class _PrintTest:
    """What the print allows on the tested paper: brightness between the lowest and highest
    the print shows nearby (full resolution), colour ratios likewise (half resolution)."""

    where: np.ndarray  # tested pixels (bool, full resolution)
    low: np.ndarray
    high: np.ndarray
    where_half: np.ndarray
    high_half: np.ndarray
    cb: tuple[np.ndarray, np.ndarray]  # log B/G range, half resolution
    cr: tuple[np.ndarray, np.ndarray]  # log R/G range, half resolution


class OccluderCheck:
    """Finds things over the board in a top view (see the module docstring).

    `paper` marks the top-view pixels where no piece can ever be (the mat outside every piece
    disc), away from the mat's outer edge; `rim` the same within the edge strip, judged only
    against the last still board (which shows the edge blended with the table as it is now);
    `apron` the table round the mat, also judged against the last still board, where a region
    counts only when it reaches onto the mat (see `_on_the_mat`); `mat` the whole mat.
    `printed` is the mat's own image (BGR) in the same top view, or None for boards that are
    not our printed mats (grid boards), which then rely on the reference alone.
    """

    def __init__(
        self,
        paper: np.ndarray,
        printed: np.ndarray | None = None,
        *,
        rim: np.ndarray | None = None,
        apron: np.ndarray | None = None,
        mat: np.ndarray | None = None,
        min_area_px: int = 60,
        threshold: float = 0.2,
        chroma: float = CHROMA_THRESHOLD,
    ) -> None:
        self.paper = paper.astype(bool)
        self.inside = self.paper if rim is None else self.paper | rim.astype(bool)
        self.apron = None if apron is None else apron.astype(bool)
        self.watched = self.inside if apron is None else self.inside | self.apron
        self.mat = np.ones(paper.shape, bool) if mat is None else mat.astype(bool)
        # Along the mat's edge, as far in as the paper that is judged begins (and a location
        # off by LOOSE_PX): what reaches here came from outside.
        to_edge = cv2.distanceTransform(
            cv2.copyMakeBorder(self.mat.astype(np.uint8), 1, 1, 1, 1, cv2.BORDER_CONSTANT, 0),
            cv2.DIST_L2,
            3,
        )[1:-1, 1:-1]
        start = float(to_edge[self.paper].min()) if self.paper.any() else 0.0
        self._edge_band = to_edge <= start + LOOSE_PX + 2
        self._band_px = int(np.ceil(start + LOOSE_PX + 2))  # the band's width
        self.min_area_px = min_area_px
        self.threshold = threshold
        self.chroma = chroma
        self.reference: np.ndarray | None = None
        self.reference_colour: np.ndarray | None = None
        # where the players said nothing is over the board though the view differs there
        # (`accept`); None: nowhere
        self.accepted: np.ndarray | None = None
        self._reference_fit: LightingFit | None = None  # made on first use (a light change)
        # The overall light change is a median over about 2000 pixels of the mat (not all:
        # a median is slow).
        inside = np.flatnonzero(self.inside)
        self._gain_at = inside[:: max(1, len(inside) // 2000)]
        inside = np.flatnonzero(_half(self.inside))
        self._gain_at_half = inside[:: max(1, len(inside) // 1000)]
        self._watched_half = _half(self.watched)
        self.printed: np.ndarray | None = None
        self._sharp_print = np.zeros(paper.shape, bool)
        if printed is not None:
            self._know_the_print(printed.astype(np.float32))

    def _know_the_print(self, printed: np.ndarray) -> None:
        if printed.ndim == 2:
            printed = cv2.cvtColor(printed, cv2.COLOR_GRAY2BGR)
        gray = gray_of(printed)
        kernel = np.ones((5, 5), np.uint8)
        # Clean paper, where the light is fitted: flat print (no line, text or edge within two
        # pixels), so a slightly imperfect homography never makes a printed line look like an
        # occluder ...
        flat = cv2.dilate(gray, kernel) - cv2.erode(gray, kernel) < 12.0
        paper_inner = cv2.erode(self.paper.astype(np.uint8), np.ones((3, 3), np.uint8))
        # ... and away from the mat's edge, where a location extrapolated towards an unseen
        # marker may show the table.
        away = cv2.erode(
            self.mat.astype(np.uint8),
            np.ones((2 * LOOSE_PX + 1,) * 2, np.uint8),
            borderType=cv2.BORDER_CONSTANT,
            borderValue=0,
        )
        self.clean = flat & (paper_inner > 0) & (gray > 60) & (away > 0)
        near = np.ones((2 * TOLERANCE_PX + 1,) * 2, np.uint8)
        self._sharp_print = cv2.dilate(gray, near) - cv2.erode(gray, near) > 60.0
        self.lighting = LightingFit(self.clean, step=3)
        if not self.lighting.usable:
            return
        fit = self.lighting
        self.printed = np.maximum(gray, 1.0)
        sy, sx = fit.ys[fit.sample], fit.xs[fit.sample]
        self._sample_at = (sy, sx)
        self._paper_level = float(gray[self.clean].max())  # the print's plain paper
        self._log_printed = np.log(self.printed[sy, sx])
        self._basis_half = np.ascontiguousarray(_half(fit.basis.transpose(1, 2, 0)))
        # Everywhere on the paper the print is known, lines and text included: a pixel may be
        # anything the print shows within TOLERANCE_PX (the homography is never perfect), or
        # LOOSE_PX when a marker was not seen (the location is extrapolated towards it).
        cb, cr = _log_chroma(printed)
        self._sample_chroma = (cb[sy, sx], cr[sy, sx])
        self._tests = {}
        for loose, px in ((False, TOLERANCE_PX), (True, LOOSE_PX)):
            near = np.ones((2 * px + 1,) * 2, np.uint8)
            where = paper_inner
            if loose:
                where = cv2.erode(where, near, borderType=cv2.BORDER_CONSTANT, borderValue=0)
            where = where > 0
            # At half resolution a pixel stands for a 2x2 block: one pixel more of tolerance.
            wider = np.ones((2 * px + 3,) * 2, np.uint8)
            self._tests[loose] = _PrintTest(
                where,
                np.maximum(cv2.erode(gray, near), 1.0),
                np.maximum(cv2.dilate(gray, near), 1.0),
                _half(where),
                _half(cv2.dilate(gray, wider)),
                (_half(cv2.erode(cb, wider)), _half(cv2.dilate(cb, wider))),
                (_half(cv2.erode(cr, wider)), _half(cv2.dilate(cr, wider))),
            )

    # -- against the last still board -----------------------------------------------------------
    def set_reference(self, gray: np.ndarray, colour: np.ndarray | None = None) -> None:
        """The last accepted still board, as the baseline for `against_reference`."""
        self.reference = gray.copy()
        self.reference_colour = None if colour is None else _half(colour).copy()

    def against_reference(
        self,
        gray: np.ndarray,
        colour: np.ndarray | None = None,
        *,
        standing: np.ndarray | None = None,
    ) -> int:
        """Occluder pixels outside the piece discs compared with the reference (0 = clear):
        in brightness, and per colour channel at half resolution when there is colour (pale
        skin on white paper differs more in blue than in brightness). A global change of the
        light (a cloud) is divided out first, measured on the mat."""
        if self.reference is None or self.reference.shape != gray.shape:
            return 0
        changed = _changed(gray, self.reference, self._gain_at, self.threshold) & self.watched
        found = self._on_the_mat(changed, standing, gray, colour)
        if found or colour is None or self.reference_colour is None:
            return found
        changed |= self._colour_changed(colour, gray.shape)
        return self._on_the_mat(changed, standing, gray, colour)

    def _colour_changed(self, colour: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """Where a colour channel differs from the reference's (judged at half resolution,
        on the watched pixels), at full resolution."""
        now, then = _half(colour), self.reference_colour
        half = np.zeros(now.shape[:2], bool)
        for c in range(3):
            half |= _changed(now[:, :, c], then[:, :, c], self._gain_at_half, self.threshold)
        return _full(half & self._watched_half, shape)

    def against_relit_reference(
        self,
        gray: np.ndarray,
        colour: np.ndarray | None = None,
        *,
        standing: np.ndarray | None = None,
    ) -> int:
        """Occluder pixels against the reference once a *smooth* change of light is divided out
        (a lamp switched on at one side, a cloud, the sun moving): 0 when the light alone
        explains the difference, more when something sits over the board. A hand is bright on
        the dark board and dark on the white paper, and always local: no smooth field fits it.
        With colour, each channel is fitted on its own (a warmer lamp)."""
        if self.reference is None or self.reference.shape != gray.shape:
            return 0
        if self._reference_fit is None:
            self._reference_fit = LightingFit(self.watched)
            self._reference_fit_half = LightingFit(self._watched_half)
        fit = self._reference_fit
        if not fit.usable:
            return self.against_reference(gray, colour, standing=standing)
        changed = np.zeros(gray.shape, bool)
        sharp = self._sharp_print[fit.ys, fit.xs]
        changed[fit.ys, fit.xs] = self._unexplained(gray, self.reference, fit, sharp)
        if colour is not None and self.reference_colour is not None:
            fit_half = self._reference_fit_half
            if fit_half.usable:
                now = _half(colour)
                half = np.zeros(now.shape[:2], bool)
                sharp = _half(self._sharp_print)[fit_half.ys, fit_half.xs]
                for c in range(3):
                    then = self.reference_colour[:, :, c]
                    half[fit_half.ys, fit_half.xs] |= self._unexplained(
                        now[:, :, c], then, fit_half, sharp
                    )
                changed |= _full(half, gray.shape)
        return self._on_the_mat(changed, standing, gray, colour)

    def _unexplained(
        self, now: np.ndarray, then: np.ndarray, fit: LightingFit, sharp: np.ndarray
    ) -> np.ndarray:
        """Pixels (of `fit`'s mask) whose change from `then` to `now` a smooth light field does
        not explain. A clipped pixel says only "at least this bright": it is left out of the
        fit, and where the light changed it is explained when it moved with the light - a lamp
        that overexposes the paper is still a lamp. `sharp` pixels (print edges: markers,
        lines, text, which blur into clipped paper unpredictably) are not judged where the
        light changed."""
        observed = now[fit.ys, fit.xs]
        base = then[fit.ys, fit.xs]
        log_ratio = np.log(observed + 1.0) - np.log(base + 1.0)
        # A pixel next to a clipped one may be part clipped too (blur blends them).
        near = np.ones((5, 5), np.uint8)
        clipped_now = cv2.dilate((now >= NEAR_CLIPPING).astype(np.uint8), near)[fit.ys, fit.xs] > 0
        clipped_then = (
            cv2.dilate((then >= NEAR_CLIPPING).astype(np.uint8), near)[fit.ys, fit.xs] > 0
        )
        clipped = clipped_now | clipped_then
        usable = ~clipped[fit.sample]
        coef = None
        if clipped.any() and int(usable.sum()) >= 50:
            coef = fit.coefficients(log_ratio[fit.sample], usable)
        field = fit.field(log_ratio) if coef is None else coef @ fit._basis
        expected = (base + 1.0) * np.exp(field) - 1.0
        unexplained = relative_change(observed, expected) > self.threshold
        # Clipping matters only where the light itself changed: under the same light a pixel
        # clipped then and now is simply unchanged, and one that darkened is something dark.
        # Where the light got brighter than anywhere unclipped, the field underestimates it: a
        # pixel clipped now that got brighter with the light is explained (and one clipped
        # then that got darker where the light did).
        low = 1.0 - self.threshold
        brighter, darker = field > LIGHT_CHANGED, field < -LIGHT_CHANGED
        unexplained &= ~(
            clipped_now & brighter & ((expected >= observed * low) | (observed > base))
        )
        unexplained &= ~(clipped_then & darker & ((observed >= expected * low) | (observed < base)))
        unexplained &= ~(sharp & (brighter | darker))
        return unexplained

    def _on_the_mat(
        self,
        changed: np.ndarray,
        standing: np.ndarray | None,
        gray: np.ndarray,
        colour: np.ndarray | None,
    ) -> int:
        """The occluder pixels among `changed`: regions of it on the mat. A region on the
        table round the mat (the apron) counts only when MIN_INSIDE x min_area_px of its
        pixels (6 at least) lie on the mat - an arm whose fingertips rest on the mat's edge,
        not a cup beside it.
        Regions the pieces explain are left out first (`standing`: see `_not_the_pieces`; the
        view `gray`, `colour` says where something crosses the mat's edge)."""
        changed = self._not_the_pieces(changed, standing, gray, colour)
        if self.apron is None:
            return _significant(changed, self.min_area_px)
        if not changed.any():
            return 0
        mask = cv2.morphologyEx(changed.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        if count <= 1:
            return 0
        inside = np.bincount(labels[self.inside], minlength=count)
        keep = inside >= max(6, int(self.min_area_px * MIN_INSIDE))
        keep[0] = False
        total = int(stats[keep, cv2.CC_STAT_AREA].sum())
        return total if total >= self.min_area_px else 0

    # -- against the printed mat ----------------------------------------------------------------
    def against_mat(
        self,
        gray: np.ndarray,
        colour: np.ndarray | None = None,
        *,
        loose: bool = False,
        standing: np.ndarray | None = None,
    ) -> int:
        """Occluder pixels on the paper that the print under the fitted light cannot explain.
        `standing` (bool top view): where the pieces standing on the cells may show over the
        paper from this camera (tall pieces lean away from it) - not judged."""
        changed = self.mat_changes(gray, colour, loose=loose, stop_early=True)
        if changed is None:
            return 0
        found = self._not_the_pieces(changed, standing, gray, colour)
        return _significant(found, self.min_area_px)

    def _not_the_pieces(
        self,
        changed: np.ndarray,
        standing: np.ndarray | None,
        gray: np.ndarray,
        colour: np.ndarray | None,
    ) -> np.ndarray:
        """`changed` without the regions the pieces explain: those wholly inside `standing`
        (where a standing piece or its shadow may show) that do not reach the mat's edge where
        something crosses it (`_crossing`: a hand always comes in across the edge; a tall
        piece's shadow under a low lamp may reach the edge, but stays on the mat) - or within
        what the players accepted (`accept`)."""
        if (standing is None and self.accepted is None) or not changed.any():
            return changed
        count, labels = cv2.connectedComponents(changed.astype(np.uint8), connectivity=8)
        if count <= 1:
            return changed
        free = np.ones(changed.shape, bool) if self.accepted is None else ~self.accepted
        unexplained = free if standing is None else free & ~standing
        outside = np.bincount(labels[unexplained], minlength=count) > 0
        if standing is not None:
            # a region the pieces may explain that reaches the band along the edge: is
            # something crossing the edge there? (looked at only then: it costs a comparison
            # of the whole view with the last still board)
            at_edge = np.bincount(labels[free & self._edge_band], minlength=count) > 0
            if (at_edge & ~outside)[1:].any():
                crossing = free & self._crossing(gray, colour)
                outside |= np.bincount(labels[crossing], minlength=count) > 0
        outside[0] = False
        return outside[labels]

    def _crossing(self, gray: np.ndarray, colour: np.ndarray | None) -> np.ndarray:
        """The band along the mat's edge where something crosses the edge in this view: the
        band's width round what changed since the last still board beyond the judged paper
        (the rim, the table round the mat). An arm reaching in changes them - a sleeve the
        paper's colour changes only the table, its hand beginning anywhere in the band; a
        piece's shadow that reaches the band from the board and stays off the rim does not
        (on the realistic tables a lamp 36-46 degrees low cast Sensei figures' shadows into
        the band, held the tracker on "hands" and lost four boards; a shadow already there at
        the last still board is no change either). Without a last still board to compare
        with, the whole band."""
        if self.reference is None or self.reference.shape != gray.shape:
            return self._edge_band
        beyond = self.watched & ~self.paper
        moved = _changed(gray, self.reference, self._gain_at, self.threshold)
        if colour is not None and self.reference_colour is not None:
            moved |= self._colour_changed(colour, gray.shape)
        moved = cv2.morphologyEx(
            (moved & beyond).astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)
        )
        near = cv2.dilate(moved, np.ones((2 * self._band_px + 1,) * 2, np.uint8)) > 0
        return self._edge_band & near

    def accept(
        self,
        gray: np.ndarray,
        colour: np.ndarray | None = None,
        *,
        loose: bool = False,
        standing: np.ndarray | None = None,
    ) -> int:
        """The players say nothing is over the board in this view: what the checks find over
        it here (a shadow across the mat's edge, a captured piece on the margin: where the
        paper does not look like the print, and what changed since the last still board) is
        accepted - left out of both checks from now on, a few pixels round it too (the view
        shakes by a pixel or two), until `forget_accepted` finds it gone. Returns the accepted
        pixels. Boards without a print accept nothing: the last still board, their only
        baseline, becomes this view when it is read."""
        if self.printed is None:
            return 0
        found = self.lying(gray, colour, loose=loose, standing=standing)
        accepted = found if self.accepted is None else self.accepted | found
        grown = cv2.dilate(accepted.astype(np.uint8), np.ones((2 * ACCEPT_PX + 1,) * 2, np.uint8))
        if not found.any() or (grown > 0).sum() > ACCEPT_MOST * self.watched.sum():
            # nothing to leave out - or so much of the mat that a hand could hide in it: the
            # board is read as the players said, and the checks go on as before
            return 0 if self.accepted is None else int(self.accepted.sum())
        self.accepted = grown > 0
        return int(self.accepted.sum())

    def lying(
        self,
        gray: np.ndarray,
        colour: np.ndarray | None = None,
        *,
        loose: bool = False,
        standing: np.ndarray | None = None,
    ) -> np.ndarray:
        """Where something lies over the board in this view, as the checks see it (bool top
        view): on a printed mat the regions where the paper does not look like the print, with
        what joins them on the mat's rim and the table since the last still board (the rest
        of a shadow) - not a change of light elsewhere, nor specks; without a print, what
        changed since the last still board."""
        on_paper = self.mat_changes(gray, colour, loose=loose)
        changed = np.zeros(gray.shape, bool) if on_paper is None else on_paper.copy()
        if self.reference is not None and self.reference.shape == gray.shape:
            changed |= _changed(gray, self.reference, self._gain_at, self.threshold) & self.watched
            if colour is not None and self.reference_colour is not None:
                changed |= self._colour_changed(colour, gray.shape)
        found = self._not_the_pieces(changed, standing, gray, colour)
        found = cv2.morphologyEx(found.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        if on_paper is None:
            return found > 0
        count, labels = cv2.connectedComponents(found, connectivity=8)
        on_print = np.bincount(labels[on_paper & (found > 0)], minlength=count) >= 1
        on_print[0] = False
        return on_print[labels]

    def forget_accepted(
        self, gray: np.ndarray, colour: np.ndarray | None = None, *, loose: bool = False
    ) -> bool:
        """Drop each region that was accepted where this still view no longer differs from
        the print (that shadow or object is gone): a hand in that spot counts again. Whether
        any was dropped."""
        if self.accepted is None:
            return False
        changed = self.mat_changes(gray, colour, loose=loose)
        count, labels = cv2.connectedComponents(self.accepted.astype(np.uint8), connectivity=8)
        keep = np.zeros(count, bool)
        if changed is not None:  # each accepted region on its own: is what lay there still?
            for region in range(1, count):
                keep[region] = bool(_significant(changed & (labels == region), self.min_area_px))
        if keep[1:].all():
            return False
        self.accepted = keep[labels] if keep.any() else None
        return True

    def mat_changes(
        self,
        gray: np.ndarray,
        colour: np.ndarray | None = None,
        *,
        loose: bool = False,
        stop_early: bool = False,
    ) -> np.ndarray | None:
        """Where the paper does not look like the print (bool top view), None without a print.

        Brightness: the light is fitted as a smooth field over the clean paper; a pixel darker
        or brighter than anything the print shows nearby under that light differs. Colour
        (`colour`, the `colour_view`): the light's tint is fitted the same way, as smooth
        fields of log(B/G) and log(R/G); a pixel whose colour ratios are not those of the print
        nearby under that tint differs - skin and sleeves on white paper, gray lines or text,
        even where they are about as bright as the paper. Clipped channels say nothing.
        `loose`: the location is less sure (a marker unseen): more tolerance near print.
        `stop_early`: skip the colour when the brightness alone shows an occluder."""
        if self.printed is None:
            return None
        test = self._tests[bool(loose)]
        sy, sx = self._sample_at
        observed = gray[sy, sx]
        log_ratio = np.log(np.maximum(observed, 1.0)) - self._log_printed
        light = self._light(log_ratio, observed >= FIT_BELOW)
        if light is None:  # all the paper clipped: nothing to compare with
            return np.zeros(gray.shape, bool)
        gain_half = np.exp(light)
        gain = cv2.resize(gain_half, gray.shape[::-1], interpolation=cv2.INTER_LINEAR)
        low = np.minimum(test.low * gain, 255.0)  # the camera clips, so does the expectation
        high = np.minimum(test.high * gain, 255.0)
        nearest = np.minimum(np.maximum(gray, low), high)
        changed = relative_change(gray, nearest) > self.threshold * MAT_FACTOR
        changed &= test.where
        if colour is not None and not (stop_early and _significant(changed, self.min_area_px)):
            near_clipped = test.high_half * gain_half >= 0.9 * CLIPPED
            differs = self._colour_differs(
                test, colour, near_clipped, self._paper_level * gain_half
            )
            changed |= _full(differs, gray.shape)
        return changed

    def _light(self, log_ratio: np.ndarray, clipped: np.ndarray) -> np.ndarray | None:
        """The light field (log gain) from the clean samples. A clipped sample only says "at
        least this bright", so two fits compete: without the clipped samples, and with them
        taken as they are; the one more samples agree with wins (a clipped sample agrees when
        the field is at least its value). Overexposed paper round an unclipped board is the
        first; a dark glove on overexposed paper - the only unclipped samples in sight - the
        second, so the glove is not taken for the light."""
        if not clipped.any():
            return self._smooth(log_ratio, ~clipped, 6)
        fit = self.lighting
        best, score, known = None, -1, None
        for use in (~clipped, None):
            coef = fit.coefficients(log_ratio, use, 6)
            if coef is None:
                continue
            fitted = fit._design @ coef
            agree = np.where(clipped, fitted >= log_ratio - 0.08, np.abs(fitted - log_ratio) < 0.08)
            if int(agree.sum()) > score:
                best, score = coef, int(agree.sum())
                known = fitted if use is None else fitted[use]  # where it was fitted
        if best is None:
            return None
        return np.clip(self._basis_half @ best, known.min(), known.max())

    def _smooth(
        self, target: np.ndarray, use: np.ndarray, terms: int, tolerance: float = 0.08
    ) -> np.ndarray | None:
        """A smooth field fitted to `target` at the usable clean samples, at half resolution -
        never beyond the values it takes where it was fitted (where the paper is clipped, a
        quadratic would extrapolate wildly). None with too few samples."""
        fit = self.lighting
        all_usable = bool(use.all())
        coef = fit.coefficients(
            target, None if all_usable and terms == 6 else use, terms, tolerance
        )
        if coef is None:
            return None
        known = (fit._design if all_usable else fit._design[use]) @ coef
        field = self._basis_half @ coef
        return np.clip(field, known.min(), known.max())

    def _colour_differs(
        self,
        test: _PrintTest,
        colour: np.ndarray,
        near_clipped: np.ndarray,
        paper: np.ndarray,
    ) -> np.ndarray:
        """Half-resolution mask of tested pixels whose colour is not the print's.

        The light's tint is fitted on the clean paper samples that are not too bright
        (FIT_BELOW). Where the fitted light makes plain paper that bright in either channel of
        a ratio (`paper`: the paper's expected brightness; a lamp's pool that clips the paper)
        the tint was not measured and the fitted field only extrapolates, so the print
        there may show any tint the light has elsewhere on the mat, or none (a glare): a
        realistic table of seed 2 (Aranea, inkjet on cream, a lamp's pool and a tint across
        the mat) showed its markers' dark ink in the clipped pool with the paper's own tint,
        0.11 from the extrapolated one, held the tracker on "hands" with no hand there and lost
        all five boards. Nor only what was measured: the paper too bright to fit the tint to
        still shows one - a clipped channel biases its ratios, but that is a tint the light
        has there (BRIGHT_TINTS of those samples' tints): seed 4's Aranea table, cream paper
        nearly clipped everywhere, had its tint fitted on 170 darker samples in one part of
        the mat, 0.11 off what the rest shows, and its dark print read as a hand along every
        line. Where the paper's tint was measured nothing changes. Next to clipped
        paper (`near_clipped`: a line, a marker's edge, their blend with the paper), anything
        between the print with and without the local tint."""
        sy, sx = self._sample_at
        sampled = colour[sy, sx]
        sampled_ratios = _log_chroma(sampled)
        seen = _half(colour)
        seen_ratios = _log_chroma(seen)
        offset = _channel_offsets(sampled)
        off = []
        for k, (a, b), (print_low, print_high) in ((0, (0, 1), test.cb), (1, (2, 1), test.cr)):
            # Samples near clipping are left out (noise clips some of their pixels).
            lit = np.minimum(sampled[:, a], sampled[:, b]) > DARK
            usable = (sampled[:, a] < FIT_BELOW) & (sampled[:, b] < FIT_BELOW) & lit
            # The tint of the light varies slowly, if at all: a plane.
            ratio = sampled_ratios[k] - self._sample_chroma[k]
            tint = self._smooth(ratio, usable, 3, 0.03)
            if tint is None:  # (nearly) all the paper is clipped: nothing to compare with
                return np.zeros(seen.shape[:2], bool)
            low, high = print_low + tint, print_high + tint
            low = np.where(near_clipped, np.minimum(low, print_low), low)
            high = np.where(near_clipped, np.maximum(high, print_high), high)
            # where the light makes plain paper too bright to measure the tint: any tint
            # the light has elsewhere, none, or what the too bright paper itself shows
            unmeasured = paper * np.exp(max(offset[a], offset[b])) >= FIT_BELOW
            tints = [float(tint.min()), float(tint.max()), 0.0]
            bright = ~usable & lit
            if bright.sum() >= BRIGHT_SAMPLES:
                tints += np.percentile(ratio[bright], BRIGHT_TINTS).tolist()
            low = np.where(unmeasured, print_low + min(tints), low)
            high = np.where(unmeasured, print_high + max(tints), high)
            level = np.minimum(seen[:, :, a], seen[:, :, b])
            excess = _outside(seen_ratios[k], low, high) * (level / (level + OFFSET))
            excess[(seen[:, :, a] >= CLIPPED) | (seen[:, :, b] >= CLIPPED) | (level < DARK)] = 0
            off.append(excess)
        return (np.hypot(off[0], off[1]) > self.chroma) & test.where_half
