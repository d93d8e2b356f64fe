"""Is the board still, and is anything over it? Pure image arithmetic on small top views.

The tracker (`vision.tracker`) warps every frame to a small *top view* of the mat - a few
hundred pixels across, the same pixel always showing the same spot of the mat - and hands it
here. Three questions are answered, each cheaply enough for every frame:

- **Motion** (`MotionMeter`): how much of the view changed since the previous frame. Relative
  differences (change divided by brightness), so a dim lamp and bright daylight use the same
  threshold.
- **Occluders against the last still board** (`OccluderCheck.against_reference`): pieces can
  only ever appear inside the cells' piece discs, so *anything* that differs from the last
  accepted still board outside those discs - on the mat's paper, its lines, the gaps between
  stones - is something over the board: a hand, a sleeve, a glove, or its shadow. No skin
  colour is involved, so gloves and sleeves count too. A global brightness change (a cloud) is
  divided out first.
- **Occluders against the mat itself** (`OccluderCheck.against_mat`): for the printed mats we
  know what the paper looks like. The lighting is fitted as a smooth field (a quadratic in
  log-brightness, which covers lamps, windows and vignetting between 0.5x and 1.5x) over the
  clean white paper, and whatever does not fit that field is an occluder. This needs no
  reference, so even the very first board is never read with a hand over it.

A region must cover `min_area_px` pixels (after removing speckle) to count, which keeps sensor
noise and a crumb on the mat from freezing the companion.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

# Relative change (|a - b| / (brightness + OFFSET)) above which a pixel counts as changed.
OFFSET = 24.0


def gray_view(view_bgr: np.ndarray) -> np.ndarray:
    """The float32 brightness of a top view, lightly smoothed against sensor noise."""
    gray = cv2.cvtColor(view_bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return cv2.GaussianBlur(gray, (3, 3), 0)


def relative_change(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| relative to their brightness: 0.2 means a 20% change."""
    return np.abs(a - b) / (0.5 * (a + b) + OFFSET)


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


class LightingFit:
    """A smooth lighting field fitted over known paper: log(observed / printed) as a quadratic
    in x and y. Fitted on every `step`-th pixel of the mask, evaluated on the whole mask; the
    first round's least squares is precomputed, so a fit is two small matrix products."""

    def __init__(self, mask: np.ndarray, step: int = 2) -> None:
        h, w = mask.shape
        ys, xs = np.nonzero(mask)
        self.ys, self.xs = ys, xs  # where the field is evaluated
        basis = _quadratic_basis(w, h)
        self._basis = basis[:, ys, xs].astype(np.float32)  # (6, n)
        sample = (ys % step == 0) & (xs % step == 0)
        self.sample = np.nonzero(sample)[0]
        self.usable = len(self.sample) >= 50
        if self.usable:
            self._design = self._basis[:, self.sample].T.copy()  # (k, 6)
            self._solve = np.linalg.pinv(self._design).astype(np.float32)  # (6, k)

    def field(self, log_ratio: np.ndarray) -> np.ndarray:
        """The fitted log-gain at every mask pixel, from log(observed/printed) at the mask
        pixels. Two rounds: the second ignores samples the first could not explain (a hand)."""
        target = log_ratio[self.sample]
        coef = self._solve @ target
        residual = np.abs(self._design @ coef - target)
        inliers = residual < max(0.08, 3.0 * float(np.median(residual)))
        if 50 <= int(inliers.sum()) < len(inliers):
            design = self._design[inliers]
            normal = design.T @ design
            coef = np.linalg.solve(normal + 1e-6 * np.eye(6), design.T @ target[inliers])
        return coef.astype(np.float32) @ self._basis


def _quadratic_basis(w: int, h: int) -> np.ndarray:
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    x = x / max(w - 1, 1) * 2 - 1
    y = y / max(h - 1, 1) * 2 - 1
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y])


class OccluderCheck:
    """Finds things over the board in a top view (see the module docstring).

    `paper` marks the top-view pixels where no piece can ever be (the mat outside every piece
    disc). `printed` is the mat's own gray image in the same top view, or None for boards that
    are not our printed mats (grid boards), which then rely on the reference alone.
    """

    def __init__(
        self,
        paper: np.ndarray,
        printed: np.ndarray | None = None,
        *,
        min_area_px: int = 60,
        threshold: float = 0.2,
    ) -> None:
        self.paper = paper.astype(bool)
        self.min_area_px = min_area_px
        self.threshold = threshold
        self.reference: np.ndarray | None = None
        self._reference_fit: LightingFit | None = None  # made on first use (a light change)
        self.printed: np.ndarray | None = None
        if printed is not None:
            printed = printed.astype(np.float32)
            # Clean paper: flat print (no line, text or edge within two pixels), so a slightly
            # imperfect homography never makes a printed line look like an occluder.
            kernel = np.ones((5, 5), np.uint8)
            flat = cv2.dilate(printed, kernel) - cv2.erode(printed, kernel) < 12.0
            paper_inner = cv2.erode(self.paper.astype(np.uint8), np.ones((3, 3), np.uint8))
            self.clean = flat & (paper_inner > 0) & (printed > 60)
            self.lighting = LightingFit(self.clean)
            if self.lighting.usable:
                self.printed = np.maximum(printed, 1.0)
                self._printed_samples = self.printed[self.lighting.ys, self.lighting.xs]
                self._log_printed = np.log(self._printed_samples)

    def set_reference(self, gray: np.ndarray) -> None:
        """The last accepted still board, as the baseline for `against_reference`."""
        self.reference = gray.copy()

    def against_reference(self, gray: np.ndarray) -> int:
        """Occluder pixels outside the piece discs compared with the reference (0 = clear)."""
        if self.reference is None or self.reference.shape != gray.shape:
            return 0
        ref = self.reference
        cur = gray[self.paper]
        base = ref[self.paper]
        gain = float(np.median((cur + 1.0) / (base + 1.0)))  # global light change, divided out
        changed = np.zeros(gray.shape, bool)
        changed[self.paper] = relative_change(cur, base * gain) > self.threshold
        return _significant(changed, self.min_area_px)

    def against_relit_reference(self, gray: np.ndarray) -> int:
        """Occluder pixels against the reference once a *smooth* change of light is divided out
        (a lamp switched on at one side, a cloud, the sun moving): 0 when the light alone
        explains the difference, more when something sits over the board. A hand is bright on
        the dark board and dark on the white paper, and always local: no smooth field fits it."""
        if self.reference is None or self.reference.shape != gray.shape:
            return 0
        if self._reference_fit is None:
            self._reference_fit = LightingFit(self.paper)
        fit = self._reference_fit
        if not fit.usable:
            return self.against_reference(gray)
        observed = gray[fit.ys, fit.xs]
        base = self.reference[fit.ys, fit.xs]
        log_ratio = np.log(observed + 1.0) - np.log(base + 1.0)
        expected = (base + 1.0) * np.exp(fit.field(log_ratio)) - 1.0
        changed = np.zeros(gray.shape, bool)
        changed[fit.ys, fit.xs] = relative_change(observed, expected) > self.threshold
        return _significant(changed, self.min_area_px)

    def against_mat(self, gray: np.ndarray) -> int:
        """Occluder pixels on the clean paper that the fitted lighting cannot explain."""
        if self.printed is None:
            return 0
        fit = self.lighting
        observed = gray[fit.ys, fit.xs]
        log_ratio = np.log(np.maximum(observed, 1.0)) - self._log_printed
        expected = self._printed_samples * np.exp(fit.field(log_ratio))
        changed = np.zeros(gray.shape, bool)
        changed[fit.ys, fit.xs] = relative_change(observed, expected) > self.threshold * 1.25
        return _significant(changed, self.min_area_px)
