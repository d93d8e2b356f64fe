"""The camera's pose over the board, from the board's homography alone.

A piece has height: a camera that looks at the board from the side sees a tall piece lean away
from it, over the cells behind. To look where a piece *stands* rather than where its image
falls, the reader needs to know where a point above the board appears in the picture. The
homography (board millimetres -> image pixels) of a flat board holds that knowledge once the
camera's focal length is known, and that too can be read from the homography (Zhang's two
constraints of a plane seen by a camera with square pixels and its principal point at the
picture's centre). Where the view is nearly straight down the focal length cannot be told, and
then does not matter: a typical phone or Pi camera lens is assumed.

    >>> import numpy as np
    >>> pose = CameraPose.from_homography(np.array([[2.0, 0, 100], [0, 2.0, 50], [0, 0, 1]]), (640, 480))
    >>> pose.project(np.array([[10.0, 20.0, 0.0]])).round(3).tolist()
    [[120.0, 90.0]]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULT_FOCAL = 0.7  # in image diagonals when the view cannot tell: phone and Pi camera lenses are 0.6-0.7 (the oblique real photos measure 0.68-0.72)
# plausible focal lengths in image diagonals: from the Pi Camera Module 3 Wide's (120 degrees
# across the diagonal: 0.29) up
FOCAL_RANGE = (0.28, 4.0)


@dataclass(frozen=True)
class CameraPose:
    """A pinhole camera: `intrinsics` K, `rotation` columns = the board's x, y and *up* axes in
    camera coordinates, `translation` the board origin in camera coordinates (all in the
    homography's board units)."""

    intrinsics: np.ndarray
    rotation: np.ndarray
    translation: np.ndarray

    @classmethod
    def from_homography(cls, homography: np.ndarray, image_size: tuple[int, int]) -> CameraPose:
        """The pose of the camera that sees the board plane through `homography` (board x, y ->
        image px) in a picture of `image_size` (width, height)."""
        width, height = image_size
        cx, cy = width / 2.0, height / 2.0
        H = np.asarray(homography, np.float64)
        centred = np.array([[1.0, 0, -cx], [0, 1.0, -cy], [0, 0, 1.0]]) @ H
        h1, h2 = centred[:, 0], centred[:, 1]
        # h1' W h2 = 0 and h1' W h1 = h2' W h2 with W = diag(1/f^2, 1/f^2, 1): f^2 = -(a.b)/(b.b)
        a = np.array(
            [h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2]
        )
        b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
        diagonal = float(np.hypot(width, height)) or 1.0
        f_squared = -float(a @ b) / float(b @ b) if float(b @ b) > 0 else -1.0
        focal = np.sqrt(f_squared) if f_squared > 0 else 0.0
        if not FOCAL_RANGE[0] * diagonal <= focal <= FOCAL_RANGE[1] * diagonal:
            focal = DEFAULT_FOCAL * diagonal
        K = np.array([[focal, 0, cx], [0, focal, cy], [0, 0, 1.0]])
        inverse = np.linalg.inv(K)
        r1, r2, t = inverse @ H[:, 0], inverse @ H[:, 1], inverse @ H[:, 2]
        scale = 2.0 / (np.linalg.norm(r1) + np.linalg.norm(r2))
        r1, r2, t = r1 * scale, r2 * scale, t * scale
        if t[2] < 0:  # the board is in front of the camera
            r1, r2, t = -r1, -r2, -t
        up = np.cross(r1, r2)
        up /= np.linalg.norm(up)
        rotation = np.stack([r1, r2, up], axis=1)
        if cls(K, rotation, t).centre()[2] < 0:  # "up" is the side the camera is on
            rotation[:, 2] = -up
        return cls(K, rotation, t)

    def seen_through(self, moved: np.ndarray) -> CameraPose:
        """The same camera with its pixels mapped by `moved` (3x3, affine: a part of the
        picture cut out and scaled), so `project` gives the new picture's pixels."""
        return CameraPose(
            np.asarray(moved, np.float64) @ self.intrinsics, self.rotation, self.translation
        )

    def centre(self) -> np.ndarray:
        """The camera's position in board coordinates (x, y, height)."""
        return -np.linalg.lstsq(self.rotation, self.translation, rcond=None)[0]

    def project(self, points: np.ndarray) -> np.ndarray:
        """Board points (..., 3) - x, y and height above the board - to image pixels (..., 2)."""
        camera = np.asarray(points, np.float64) @ self.rotation.T + self.translation
        pixels = camera @ self.intrinsics.T
        return pixels[..., :2] / np.maximum(pixels[..., 2:3], 1e-9)

    def elevation_deg(self, at: tuple[float, float]) -> float:
        """How high the camera stands over the board seen from the point `at` (90 = straight above)."""
        c = self.centre()
        return float(np.degrees(np.arctan2(c[2], np.hypot(c[0] - at[0], c[1] - at[1]))))
