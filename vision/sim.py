"""The synthetic table: photographs of a printed mat with pieces and players' hands.

Tests, benchmarks and the demo need thousands of camera frames with known truth - which cell
holds what and whether a hand is over the board. `SimTable` renders them: the mat of a layout
(`vision.mat.render_mat`) with shaded stones on it, seen by a camera tilted up to 30 degrees and
turned a little, under uneven light (0.5x-1.5x with a gradient and a warm or cool tint), with
blur and sensor noise, and a hand (arm, sleeve, palm, fingers and a soft shadow) reaching in
from an edge of the picture to move pieces. Everything is drawn from one seed, so the same
seed gives the same pictures on every machine.

    >>> table = SimTable("arimaa", seed=1)
    >>> frame = table.render({"a1": "gold", "h8": "silver"})
    >>> hands = [hand for _, hand in table.transition({"a1": "gold"}, {"a2": "gold"})]
    >>> any(hands), hands[-1]  # the truth: is a hand over the board in this frame?
    (True, False)

`SimSource` plays a script of board states through such transitions as a camera source
(``sim:arimaa?seed=3`` in `vision.sources.open_source`), with optional dropped and black frames
and camera shake. `SimTable.nudge` moves the board a few millimetres, as an elbow would.
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import cv2
import numpy as np

from companion.errors import UserError, json_problem, read_problem
from companion.observation import EMPTY
from vision.calibration import calibrate
from vision.layouts import CHESSBOARD, CLASS_COLOURS, Layout, get_layout
from vision.locate import locate
from vision.mat import render_mat
from vision.sim_pieces import (
    CHECKERED_BOARDS,
    CHESS_BACK_RANK,
    FIGURE_WEIGHTS,
    FIGURES,
    OWN_BOARDS,
    PIECE_KINDS,
    SET_COLOURS,
    TALLEST_FIGURE,
    Conditions,
    Piece,
    PinholeCamera,
    add_glare,
    draw_pieces,
    figure_profile,
    figure_squat,
    level_count,
    own_board_margin,
    plain_table,
    print_surface,
    render_own_board,
    shadow_layer,
    stone_profile,
)
from vision.standing import StandingCalibration

BGR = tuple[int, int, int]

FIGURINE_COLOUR: BGR = (215, 225, 232)  # Sensei's characters: an ivory figure on the stone
CHARACTER_SUFFIX = "-character"
PIECE_SCALE = 0.8  # stone radius / the cell's inscribed radius
RETREAT_MM = 35.0  # how far the fingertips are from their target while reaching in or out

SKIN_TONES: tuple[BGR, ...] = (
    (180, 200, 235),
    (150, 180, 225),
    (120, 155, 205),
    (90, 125, 175),
    (60, 90, 140),
    (45, 65, 100),
)
SLEEVE_COLOURS: tuple[BGR, ...] = (
    (60, 40, 30),
    (40, 40, 150),
    (200, 200, 200),
    (30, 30, 30),
    (90, 120, 60),
    (150, 110, 60),
    (235, 235, 235),
)


def piece_colour(name: str) -> BGR:
    """The stone colour of a class; unknown class names (grid boards) get a stable colour."""
    base = name.removesuffix(CHARACTER_SUFFIX)
    if base in CLASS_COLOURS:
        return CLASS_COLOURS[base]
    h = zlib.crc32(base.encode())
    return (h & 0xFF, (h >> 8) & 0xFF, (h >> 16) & 0xFF)


@dataclass(frozen=True)
class HandPose:
    """A hand over the table, in image pixels: the arm enters at `entry` (on or beyond the
    picture's edge) and the fingertips are at `tip`."""

    entry: tuple[float, float]
    tip: tuple[float, float]
    width: float = 110.0  # arm width, px
    skin: BGR = SKIN_TONES[1]
    sleeve: BGR | None = SLEEVE_COLOURS[0]  # None: a bare arm
    glove: BGR | None = None  # a gloved hand is this colour instead of skin


class SimTable:
    """A seeded photographed table for one layout (see the module docstring).

    Parameters not given are drawn from the seed: `tilt` (0-30 degrees), `rotation` (-20..20
    degrees in the picture), `light` (the (darkest, brightest) gain across the picture, within
    0.5-1.5), `tint` (-1 cool .. 1 warm), `noise` and `blur`.

    `realism` (default None: the flat shaded discs on the exact print, as always) draws what
    real tables have (`vision.sim_pieces`): a `Conditions`, or True for conditions drawn from
    the seed (printed mats for layouts with markers, an own board for the others), or a dict
    of `Conditions` fields to fix while the rest is drawn. Camera, light and noise stay those
    of the same seed without realism.
    """

    def __init__(
        self,
        layout: Layout | str,
        *,
        seed: int = 0,
        size: tuple[int, int] = (1280, 720),
        tilt: float | None = None,
        rotation: float | None = None,
        light: tuple[float, float] | None = None,
        tint: float | None = None,
        noise: float | None = None,
        blur: float | None = None,
        fill: float | None = None,
        realism: Conditions | bool | dict[str, Any] | None = None,
    ) -> None:
        self.layout = get_layout(layout) if isinstance(layout, str) else layout
        self.seed = seed
        self.realism = self._conditions(realism)
        self.size = (int(size[0]), int(size[1]))
        self.rng = np.random.default_rng(seed)
        rng = self.rng
        self.tilt = float(rng.uniform(0, 30) if tilt is None else tilt)
        self.tilt_direction = float(rng.uniform(0, 360))
        self.rotation = float(rng.uniform(-20, 20) if rotation is None else rotation)
        self.fill = float(rng.uniform(0.78, 0.9) if fill is None else fill)
        self.offset = rng.uniform(-0.04, 0.04, size=2)
        if light is None:
            low = float(rng.uniform(0.5, 1.0))
            light = (low, float(rng.uniform(low, 1.5)))
        self.light = (float(light[0]), float(light[1]))
        self.tint = float(rng.uniform(-1, 1) if tint is None else tint)
        self.noise_sigma = float(rng.uniform(1.5, 4.5) if noise is None else noise)
        self.blur_sigma = float(rng.uniform(0.0, 1.1) if blur is None else blur)
        self.table_colour = np.array(
            [rng.uniform(40, 90), rng.uniform(70, 120), rng.uniform(100, 160)], np.float32
        )
        self.nudged = np.eye(3)  # mat moves (nudge) before the camera sees it
        if self.realism is not None:
            self.blur_sigma = max(self.blur_sigma, 0.5)  # a real lens is never perfectly sharp
        self._cam_homography = self._camera_homography()
        self._mat, self._ppm = self._render_mat()
        self._gain = self._light_field()
        self._background = self._table_background()
        if self.realism is not None and np.random.default_rng([seed, 0x5EA4]).random() < 0.5:
            self._background = plain_table(np.random.default_rng([seed, 0x5EA5]), self.size)
        self._noise_bank = self._make_noise_bank()
        self._sprites: dict[tuple[str, int], np.ndarray] = {}
        self._board_cache: dict[Any, np.ndarray] = {}
        self._last_lit: tuple[np.ndarray, np.ndarray, float, np.ndarray] | None = None
        self._jitter = {
            c.name: rng.uniform(-0.06, 0.06, size=2) * c.radius for c in self.layout.cells
        }
        if self.realism is not None:  # which figure stands on each cell, and how it is turned
            look = np.random.default_rng([seed, 0x5EA3])
            weights = np.array(FIGURE_WEIGHTS, float) / sum(FIGURE_WEIGHTS)
            self._figure_of = {
                c.name: str(look.choice(FIGURES, p=weights)) for c in self.layout.cells
            }
            self._turn_of = {c.name: float(look.uniform(-0.5, 0.5)) for c in self.layout.cells}
            self._profiles: dict[Any, Any] = {}

    def _conditions(self, realism) -> Conditions | None:
        if realism is None or realism is False:
            return None
        if isinstance(realism, Conditions):
            return realism
        fixed = dict(realism) if isinstance(realism, dict) else {}
        rng = np.random.default_rng([self.seed, 0x5EA1])  # not the table's own stream
        return Conditions.draw(
            rng,
            own_board=not self.layout.has_markers,
            figures=self.layout.figures,
            **fixed,
        )

    # -- geometry ---------------------------------------------------------------------------------
    @property
    def homography(self) -> np.ndarray:
        """Mat millimetres -> image pixels, as the camera sees the board now (truth)."""
        return self._cam_homography @ self.nudged

    @property
    def camera(self) -> PinholeCamera:
        """The pinhole camera (truth): mat (x mm, y mm, up mm) -> picture pixels. At up = 0
        it is `homography`."""
        n = self.nudged
        nudge = np.array(
            [
                [n[0, 0], n[0, 1], 0, n[0, 2]],
                [n[1, 0], n[1, 1], 0, n[1, 2]],
                [0, 0, 1, 0],
                [0, 0, 0, 1],
            ]
        )
        return PinholeCamera(self._cam_matrix @ nudge)

    def board_corners_px(self) -> np.ndarray:
        """The playing area's true corners in the picture: TL, TR, BR, BL as the first player
        sees them (the last is a1's corner), float64 4x2 - what `--corners` takes."""
        pts = np.array([self.layout.board_corners()], np.float64)
        return cv2.perspectiveTransform(pts, self.homography)[0]

    def surface_margin(self) -> float:
        """The border (mm) drawn round the layout's frame: an own board's frame, else 0."""
        if self.realism is None or self.realism.board == "mat":
            return 0.0
        return own_board_margin(self.realism.board, self._pitch())

    def _pitch(self) -> float:
        cells = self.layout.cells
        return float(np.median([2 * c.radius for c in cells])) if cells else 30.0

    def _camera_homography(self) -> np.ndarray:
        w_mm, h_mm = self.layout.size
        m = self.surface_margin()
        w_mm, h_mm = w_mm + 2 * m, h_mm + 2 * m  # what the camera frames
        corners = np.array(
            [
                [-w_mm / 2, -h_mm / 2],
                [w_mm / 2, -h_mm / 2],
                [w_mm / 2, h_mm / 2],
                [-w_mm / 2, h_mm / 2],
            ]
        )
        rot = math.radians(self.rotation)
        in_plane = np.array([[math.cos(rot), -math.sin(rot)], [math.sin(rot), math.cos(rot)]])
        pts = corners @ in_plane.T
        # Tilt: rotate the board plane about an axis in it, then project with a pinhole camera
        # about 1.3 board-widths away (a moderately wide lens, like the Pi camera's).
        tilt, axis_angle = math.radians(self.tilt), math.radians(self.tilt_direction)
        axis = np.array([math.cos(axis_angle), math.sin(axis_angle), 0.0])
        rotation, _ = cv2.Rodrigues(axis * tilt)
        distance = 1.3 * max(w_mm, h_mm)
        p3 = np.column_stack([pts, np.zeros(4)]) @ rotation.T + [0, 0, distance]
        # The camera is turned to frame the board (its middle `offset` aside of the picture's
        # centre) as a real one is: its optical centre stays at the picture's centre, as
        # `vision.pose.CameraPose` assumes of every camera.
        width, height = self.size
        shift = self.offset * [width, height] * (1 - self.fill) * 4
        aim = np.eye(3)
        projected, scale = _framed(p3, self.fill, (width, height))
        for _ in range(AIM_ROUNDS):  # each round turns the board's middle nearer its place
            middle = (projected.max(axis=0) + projected.min(axis=0)) / 2
            aim = _turn_between([*middle, 1.0], [*(shift / scale), 1.0]) @ aim
            projected, scale = _framed(p3 @ aim.T, self.fill, (width, height))
        image_pts = projected * scale + [width / 2, height / 2]
        # The same camera as a 3x4 pinhole matrix in the mat frame with height (up = -z of
        # the board plane before it is tilted): mat -> centred and turned -> tilted -> pixels.
        k = np.array([[scale, 0, width / 2], [0, scale, height / 2], [0, 0, 1.0]])
        turn = np.eye(4)
        turn[:2, :2] = in_plane
        turn[:2, 3] = -in_plane @ [self.layout.size[0] / 2, self.layout.size[1] / 2]
        turn[2, 2] = -1.0
        pose = np.column_stack([aim @ rotation, aim @ [0, 0, distance]])
        self._cam_matrix = k @ pose @ turn
        x0, y0 = -m, -m
        x1, y1 = self.layout.size[0] + m, self.layout.size[1] + m
        mat_pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
        return cv2.getPerspectiveTransform(mat_pts, image_pts.astype(np.float32)).astype(np.float64)

    def nudge(self, dx_mm: float, dy_mm: float, degrees: float = 0.0) -> None:
        """Move the mat on the table by (dx, dy) mm and turn it by `degrees` about its centre."""
        cx, cy = self.layout.size[0] / 2, self.layout.size[1] / 2
        a = math.radians(degrees)
        move = np.array(
            [
                [math.cos(a), -math.sin(a), cx - cx * math.cos(a) + cy * math.sin(a) + dx_mm],
                [math.sin(a), math.cos(a), cy - cx * math.sin(a) - cy * math.cos(a) + dy_mm],
                [0, 0, 1],
            ]
        )
        self.nudged = move @ self.nudged
        self._board_cache.clear()

    def px_per_mm(self) -> float:
        """About how many picture pixels one millimetre of the mat spans."""
        quad = self.mat_quad()
        return float(np.linalg.norm(quad[1] - quad[0]) / self.layout.size[0])

    def relight(self, light: tuple[float, float], tint: float | None = None) -> None:
        """Change the light (a lamp switched on, a cloud): the new (darkest, brightest) gain
        across the picture, and optionally the tint."""
        self.light = (float(light[0]), float(light[1]))
        if tint is not None:
            self.tint = float(tint)
        self._gain = self._light_field()

    def cell_pixel(self, name: str) -> tuple[float, float]:
        """Where the centre of a cell is in the picture."""
        x, y = self.layout.cell(name).center
        p = self.homography @ [x, y, 1.0]
        return float(p[0] / p[2]), float(p[1] / p[2])

    def mat_quad(self) -> np.ndarray:
        """The mat's four corners in the picture (float32, 4x2)."""
        w, h = self.layout.size
        pts = np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32)
        return cv2.perspectiveTransform(pts, self.homography)[0]

    # -- appearance ---------------------------------------------------------------------------------
    def _render_mat(self) -> tuple[np.ndarray, float]:
        # About 1.5 mat pixels per picture pixel: sharp, and cheap to warp.
        span = np.linalg.norm(self.mat_quad_unnudged()[1] - self.mat_quad_unnudged()[0])
        ppm = float(np.clip(1.5 * span / self.layout.size[0], 1.5, 6.0))
        self._surface_origin = (0.0, 0.0)  # the layout-frame mm of the surface's corner
        if self.realism is None:
            return render_mat(self.layout, px_per_mm=ppm), ppm
        conditions = self.realism
        rng = np.random.default_rng([self.seed, 0x5EA2])
        if conditions.board == "mat":
            surface = print_surface(render_mat(self.layout, px_per_mm=ppm), conditions, rng)
        else:
            pitch = self._pitch()
            cols = max(1, int(round(self.layout.board_size[0] / pitch)))
            rows = max(1, int(round(self.layout.board_size[1] / pitch)))
            surface, margin = render_own_board(
                rows, cols, pitch, conditions.board, ppm, rng, conditions.logo
            )
            self._surface_origin = (-margin, -margin)
        surface = add_glare(
            surface, self._surface_origin, ppm, self.camera, conditions.lamp, conditions.board_gloss
        )
        return surface.astype(np.float32), ppm

    def mat_quad_unnudged(self) -> np.ndarray:
        w, h = self.layout.size
        pts = np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float32)
        return cv2.perspectiveTransform(pts, self._cam_homography)[0]

    def _light_field(self) -> np.ndarray:
        """Gain per pixel: a linear gradient between the light's two levels in a random
        direction, a soft lamp spot, and the tint (warm: more red, less blue)."""
        width, height = self.size
        rng = self.rng
        y, x = np.mgrid[0:height, 0:width].astype(np.float32)
        angle = rng.uniform(0, 2 * math.pi)
        u = (x - width / 2) * math.cos(angle) + (y - height / 2) * math.sin(angle)
        u = (u - u.min()) / max(float(u.max() - u.min()), 1.0)
        low, high = self.light
        spot = np.exp(
            -((x - rng.uniform(0, width)) ** 2 + (y - rng.uniform(0, height)) ** 2)
            / (2 * (0.6 * width) ** 2)
        )
        base = low + (high - low) * np.clip(0.85 * u + 0.15 * spot, 0, 1)
        tint = np.array([1 - 0.1 * self.tint, 1.0, 1 + 0.1 * self.tint], np.float32)
        return (base[:, :, None] * tint).astype(np.float32)

    def _table_background(self) -> np.ndarray:
        """A wooden table: the table colour with soft grain."""
        width, height = self.size
        grain = self.rng.normal(0, 1, size=(height // 8 + 1, 4)).astype(np.float32)
        grain = cv2.resize(grain, (width, height), interpolation=cv2.INTER_CUBIC)
        return (self.table_colour[None, None, :] * (1 + 0.08 * grain[:, :, None])).astype(
            np.float32
        )

    def _make_noise_bank(self) -> list[np.ndarray]:
        """A few frames of sensor noise, cropped at random offsets for each picture (drawing
        fresh Gaussian noise for a whole 720p frame would dominate the benchmark's time)."""
        width, height = self.size
        bank = []
        for _ in range(3):
            noise = self.rng.standard_normal((height + 16, width + 16, 3), dtype=np.float32)
            bank.append(noise * np.float32(self.noise_sigma))
        return bank

    def _sprite(self, name: str, radius_px: int) -> np.ndarray:
        """A stone seen from above as BGRA float32: shaded body, darker rim, a highlight, its
        shadow in the alpha of the darkening, and for Sensei characters a figure on top."""
        key = (name, radius_px)
        if key in self._sprites:
            return self._sprites[key]
        r = radius_px
        pad = int(r * 0.4) + 3
        size = 2 * (r + pad) + 1
        c = r + pad
        y, x = np.mgrid[0:size, 0:size].astype(np.float32)
        dx, dy = x - c, y - c
        d = np.sqrt(dx * dx + dy * dy)
        body = np.clip(r - d + 0.5, 0, 1)
        shade = 1.0 + 0.18 * (-(dx + dy) / (r * 1.414)) - 0.35 * np.clip(d / r, 0, 1) ** 6
        colour = np.array(piece_colour(name), np.float32)
        rgb = colour[None, None, :] * shade[:, :, None]
        highlight = np.exp(-((dx + 0.35 * r) ** 2 + (dy + 0.35 * r) ** 2) / (2 * (0.18 * r) ** 2))
        rgb = rgb + (255 - rgb) * 0.35 * highlight[:, :, None]
        if name.endswith(CHARACTER_SUFFIX):
            fr = 0.45 * r
            fd = np.sqrt((dx + 0.05 * r) ** 2 + (dy + 0.05 * r) ** 2)
            figure = np.clip(fr - fd + 0.5, 0, 1)
            fshade = 1.0 + 0.2 * (-(dx + dy) / (fr * 1.414)) - 0.3 * np.clip(fd / fr, 0, 1) ** 4
            fig_rgb = np.array(FIGURINE_COLOUR, np.float32)[None, None, :] * fshade[:, :, None]
            outline = np.clip(1 - np.abs(fd - fr) / 1.5, 0, 1)[:, :, None] * 0.5
            fig_rgb = fig_rgb * (1 - outline)
            rgb = rgb * (1 - figure[:, :, None]) + fig_rgb * figure[:, :, None]
        shadow_d = np.sqrt((dx - 0.1 * r) ** 2 + (dy - 0.14 * r) ** 2)
        shadow = np.clip((r * 1.08 - shadow_d) / (0.25 * r), 0, 1) * 0.45
        sprite = np.dstack([np.clip(rgb, 0, 255), body, shadow]).astype(np.float32)
        self._sprites[key] = sprite
        return sprite

    def _board_image(self, cells: dict[str, str]) -> np.ndarray:
        """The mat with its pieces, in mat pixels (float32 BGR)."""
        board = self._mat.astype(np.float32)
        ppm = self._ppm
        for name, cls in sorted(cells.items()):
            if cls in (EMPTY, "", None):
                continue
            shape = self.layout.cell(name)
            r = max(3, int(round(shape.radius * PIECE_SCALE * ppm)))
            sprite = self._sprite(cls, r)
            jx, jy = self._jitter[name]
            cx = int(round((shape.center[0] + jx) * ppm - 0.5))  # render_mat's pixel centres
            cy = int(round((shape.center[1] + jy) * ppm - 0.5))
            half = sprite.shape[0] // 2
            y0, x0 = cy - half, cx - half
            y1, x1 = y0 + sprite.shape[0], x0 + sprite.shape[1]
            sy0, sx0 = max(0, -y0), max(0, -x0)
            y0, x0 = max(0, y0), max(0, x0)
            y1, x1 = min(board.shape[0], y1), min(board.shape[1], x1)
            part = sprite[sy0 : sy0 + y1 - y0, sx0 : sx0 + x1 - x0]
            region = board[y0:y1, x0:x1]
            region *= 1 - part[:, :, 4:5] * (1 - part[:, :, 3:4])  # shadow, outside the stone
            alpha = part[:, :, 3:4]
            region[:] = region * (1 - alpha) + part[:, :, :3] * alpha
        return board

    def pieces(self, cells: dict[str, str], figures: dict[str, str] | None = None) -> list[Piece]:
        """The solid pieces standing on `cells` under the table's `realism` (`figures` names
        a chess figure for some cells; the others have one drawn from the seed)."""
        conditions = self.realism
        if conditions is None:
            return []
        camera = self.camera
        set_colours = SET_COLOURS[conditions.piece_set]
        gloss = conditions.gloss * (0.45 if conditions.piece_set == "wood" else 1.0)
        result = []
        for name, cls in sorted(cells.items()):
            if cls in (EMPTY, "", None):
                continue
            shape = self.layout.cell(name)
            jx, jy = self._jitter[name]
            x, y = shape.center[0] + jx, shape.center[1] + jy
            base = cls.removesuffix(CHARACTER_SUFFIX)
            colour = set_colours.get(base) or piece_colour(cls)
            character = cls.endswith(CHARACTER_SUFFIX)
            pitch = 2 * shape.radius
            if conditions.pieces == "chess" and not character:
                figure = (figures or {}).get(name) or self._figure_of[name]
                # a printed mat holds its game's pieces; a board of one's own, a chess set
                mat = conditions.board == "mat"
                squat = figure_squat(self.layout.piece_height) if mat else 1.0
                height = pitch * TALLEST_FIGURE * squat
                kind: tuple = ("chess", figure, squat)
            else:
                radius = shape.radius * (0.92 if conditions.pieces == "dome" else PIECE_SCALE)
                kind = ("dome" if conditions.pieces == "dome" else "stone", radius, character)
                height = radius * (0.45 if kind[0] == "dome" else 0.2) + (
                    1.26 * radius if character else 0.0
                )
            levels = level_count(camera, height, x, y)
            key = (kind, round(pitch, 3), levels)
            profile = self._profiles.get(key)
            if profile is None:
                if kind[0] == "chess":
                    profile = figure_profile(kind[1], pitch, levels, kind[2])
                else:
                    profile = stone_profile(kind[1], kind[0], levels, character=kind[2])
                self._profiles[key] = profile
            facing = (math.pi / 2 if base == "black" else -math.pi / 2) + self._turn_of[name]
            result.append(
                Piece(
                    x,
                    y,
                    profile,
                    colour,
                    facing=facing,
                    gloss=gloss * (1.3 if kind[0] == "dome" else 1.0),
                    figurine=FIGURINE_COLOUR,
                )
            )
        return result

    def _scene(self, cells: dict[str, str], figures: dict[str, str] | None = None) -> np.ndarray:
        """The table with the board on it, in picture pixels, before light and noise."""
        key = (
            tuple(sorted(cells.items())),
            tuple(sorted((figures or {}).items())),
            self.nudged.tobytes(),
        )
        cached = self._board_cache.get(key)
        if cached is not None:
            return cached
        if self.realism is not None:
            scene = self._realistic_scene(cells, figures)
        else:
            board = self._board_image(cells)
            half = 0.5 / self._ppm  # mat pixel (u, v) shows the point (u + 0.5, v + 0.5) / ppm
            to_image = self.homography @ np.array(
                [[1 / self._ppm, 0, half], [0, 1 / self._ppm, half], [0, 0, 1.0]]
            )
            width, height = self.size
            warped = cv2.warpPerspective(board, to_image, (width, height), flags=cv2.INTER_LINEAR)
            mask = cv2.warpPerspective(
                np.ones(board.shape[:2], np.float32),
                to_image,
                (width, height),
                flags=cv2.INTER_LINEAR,
            )[:, :, None]
            scene = warped * mask + self._background * (1 - mask)
        if len(self._board_cache) > 8:
            self._board_cache.clear()
        self._board_cache[key] = scene
        return scene

    def _realistic_scene(self, cells: dict[str, str], figures: dict[str, str] | None) -> np.ndarray:
        """The realistic table: the board on the table (warped once per position of the
        board), darkened by the pieces' shadows, with the solid pieces drawn over it."""
        width, height = self.size
        ox, oy = self._surface_origin
        key = self.nudged.tobytes()
        if getattr(self, "_empty_scene_key", None) != key:
            half = 0.5 / self._ppm  # surface pixel (u, v): ((u, v) + 0.5) / ppm + origin
            to_image = self.homography @ np.array(
                [[1 / self._ppm, 0, half + ox], [0, 1 / self._ppm, half + oy], [0, 0, 1.0]]
            )
            warped = cv2.warpPerspective(self._mat, to_image, (width, height))
            mask = cv2.warpPerspective(
                np.ones(self._mat.shape[:2], np.float32), to_image, (width, height)
            )[:, :, None]
            self._empty_scene = warped * mask + self._background * (1 - mask)
            self._empty_scene_key = key
        pieces = self.pieces(cells, figures)
        if not pieces:
            return self._empty_scene.copy()
        # Shadows at half the surface's resolution (they are soft), warped onto the picture.
        ppm = self._ppm / 2
        h, w = self._mat.shape[:2]
        size = (w // 2 + 1, h // 2 + 1)
        dark = shadow_layer(
            size,
            self._surface_origin,
            ppm,
            pieces,
            self.realism.lamp,
            self.realism.shadow,
            blur_mm=0.06 * self._pitch(),
        )
        half = 0.5 / ppm
        to_image = self.homography @ np.array(
            [[1 / ppm, 0, half + ox], [0, 1 / ppm, half + oy], [0, 0, 1.0]]
        )
        dark = cv2.warpPerspective(dark, to_image, (width, height))
        scene = self._empty_scene * (1 - dark)[:, :, None]
        return draw_pieces(scene, self.camera, pieces, self.realism.lamp)

    # -- hands ----------------------------------------------------------------------------------------
    def hand_towards(self, target: tuple[float, float], reach: float = 1.0) -> HandPose:
        """A hand reaching in from a random edge of the picture (a player sits there) towards
        `target` (px): the fingertips are `reach` of the way from the shoulder, which is just
        outside the picture, to the target. Skin, sleeve and glove are drawn from the seed."""
        rng = self.rng
        width, height = self.size
        tx, ty = target
        out = 0.08 * min(width, height)  # the shoulder is outside the picture
        edges = {
            "bottom": (tx + rng.uniform(-0.3, 0.3) * width, height + out),
            "top": (tx + rng.uniform(-0.3, 0.3) * width, -out),
            "left": (-out, ty + rng.uniform(-0.3, 0.3) * height),
            "right": (width + out, ty + rng.uniform(-0.3, 0.3) * height),
        }
        names = list(edges)
        edge = names[int(rng.integers(0, len(names)))]
        return self._pose(edges[edge], target, reach)

    def _pose(self, entry, target, reach) -> HandPose:
        rng = self.rng
        ex, ey = entry
        tip = (ex + (target[0] - ex) * reach, ey + (target[1] - ey) * reach)
        scale = self.px_per_mm()
        glove = (
            SLEEVE_COLOURS[int(rng.integers(0, len(SLEEVE_COLOURS)))]
            if rng.random() < 0.2
            else None
        )
        sleeve = (
            SLEEVE_COLOURS[int(rng.integers(0, len(SLEEVE_COLOURS)))]
            if rng.random() < 0.7
            else None
        )
        return HandPose(
            entry=(float(ex), float(ey)),
            tip=(float(tip[0]), float(tip[1])),
            width=float(scale * rng.uniform(65, 85)),
            skin=SKIN_TONES[int(rng.integers(0, len(SKIN_TONES)))],
            sleeve=sleeve,
            glove=glove,
        )

    def _hand_layers(self, hand: HandPose) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(alpha of hand, colour of hand, shadow strength), all full-picture float32.

        Drawn at half resolution and scaled up: four times cheaper, and a moving hand is
        never sharp anyway."""
        key = (hand, self.size)
        if getattr(self, "_hand_cache_key", None) == key:
            return self._hand_cache
        width, height = self.size
        half = (width // 2, height // 2)
        small = HandPose(
            (hand.entry[0] / 2, hand.entry[1] / 2),
            (hand.tip[0] / 2, hand.tip[1] / 2),
            hand.width / 2,
            hand.skin,
            hand.sleeve,
            hand.glove,
        )
        layers = tuple(
            cv2.resize(layer, (width, height), interpolation=cv2.INTER_LINEAR)
            for layer in self._hand_layers_at(small, half)
        )
        self._hand_cache_key, self._hand_cache = key, layers
        return layers

    def _hand_layers_at(self, hand: HandPose, size: tuple[int, int]) -> tuple[np.ndarray, ...]:
        """`_hand_layers` drawn at `size`: the arm up to the wrist, the hand beyond it."""
        width, height = size
        ex, ey = hand.entry
        tx, ty = hand.tip
        length = max(math.hypot(tx - ex, ty - ey), 1.0)
        ux, uy = (tx - ex) / length, (ty - ey) / length
        nx, ny = -uy, ux
        w = hand.width
        hand_len = 1.6 * w
        wrist = (tx - ux * hand_len, ty - uy * hand_len)
        arm = np.zeros((height, width), np.uint8)
        arm_poly = [
            _pt(ex + nx * w * 0.55, ey + ny * w * 0.55),
            _pt(wrist[0] + nx * w * 0.42, wrist[1] + ny * w * 0.42),
            _pt(wrist[0] - nx * w * 0.42, wrist[1] - ny * w * 0.42),
            _pt(ex - nx * w * 0.55, ey - ny * w * 0.55),
        ]
        cv2.fillPoly(arm, [np.array(arm_poly, np.int32)], 255, cv2.LINE_AA, 2)
        skin = _hand_skin((height, width), wrist, (ux, uy), w)
        arm_a = arm.astype(np.float32) / 255
        skin_a = skin.astype(np.float32) / 255
        alpha = np.maximum(arm_a, skin_a)
        # Round shading across the arm: brighter along its axis, darker at its sides.
        y, x = np.mgrid[0:height, 0:width].astype(np.float32)
        across = np.abs((x - ex) * nx + (y - ey) * ny) / (0.55 * w)
        shade = np.clip(1.05 - 0.35 * across**2, 0.6, 1.05)
        hand_colour = np.array(hand.glove or hand.skin, np.float32)
        arm_colour = np.array(hand.sleeve, np.float32) if hand.sleeve else hand_colour
        colour = (
            arm_colour[None, None, :] * (arm_a * (1 - skin_a))[:, :, None]
            + hand_colour[None, None, :] * skin_a[:, :, None]
        ) / np.maximum(alpha, 1e-3)[:, :, None]
        colour *= shade[:, :, None]
        # A soft shadow, offset away from the light and blurred: the hand is above the board.
        offset = np.float32([[1, 0, 0.25 * w], [0, 1, 0.35 * w]])
        shadow = cv2.warpAffine(alpha, offset, (width, height))
        shadow = cv2.GaussianBlur(shadow, (0, 0), 0.25 * w) * 0.45
        return alpha, colour, shadow

    def hand_covers_board(self, hand: HandPose | None) -> bool:
        """Truth: does any part of the hand (or arm) lie over the mat?"""
        if hand is None:
            return False
        alpha, _, _ = self._hand_layers(hand)
        mat = np.zeros(alpha.shape, np.uint8)
        cv2.fillConvexPoly(mat, self.mat_quad().astype(np.int32), 1)
        return bool(((alpha > 0.05) & (mat > 0)).any())

    # -- pictures -------------------------------------------------------------------------------------
    def render(
        self,
        cells: dict[str, str],
        hand: HandPose | None = None,
        *,
        shake: tuple[float, float] = (0.0, 0.0),
        figures: dict[str, str] | None = None,
    ) -> np.ndarray:
        """One camera frame (BGR uint8) of the board holding `cells` (cell -> class; cells not
        named are empty), with an optional hand over it and an optional camera shake (px).
        With `realism` and chess-like pieces, `figures` names the figure on some cells
        (pawn, rook, knight, bishop, queen, king; see `chess_start`)."""
        frame, _ = self._render(cells, hand, shake, figures)
        return frame

    def _render(self, cells, hand, shake, figures=None) -> tuple[np.ndarray, bool]:
        scene = self._scene(cells, figures)
        over = False
        if hand is not None:
            alpha, colour, shadow = self._hand_layers(hand)
            scene = scene * (1 - shadow * (1 - alpha))[:, :, None]
            scene = scene * (1 - alpha[:, :, None]) + colour * alpha[:, :, None]
            mat = np.zeros(alpha.shape, np.uint8)
            cv2.fillConvexPoly(mat, self.mat_quad().astype(np.int32), 1)
            over = bool(((alpha > 0.05) & (mat > 0)).any())
        image = self._lit(scene, keep=hand is None)
        width, height = self.size
        noise = self._noise_bank[int(self.rng.integers(0, len(self._noise_bank)))]
        ox, oy = (int(v) for v in self.rng.integers(0, 16, size=2))
        image = image + noise[oy : oy + height, ox : ox + width]
        if shake != (0.0, 0.0):
            move = np.float32([[1, 0, shake[0]], [0, 1, shake[1]]])
            image = cv2.warpAffine(image, move, (width, height), borderMode=cv2.BORDER_REPLICATE)
        np.clip(image, 0, 255, out=image)  # image is this frame's own (the noise was added)
        return image.astype(np.uint8), over

    def _lit(self, scene: np.ndarray, *, keep: bool) -> np.ndarray:
        """The scene under the light, through the lens (before noise). A still board is
        rendered frame after frame: `keep` remembers the last one (the same scene under the
        same light and blur gives the same picture)."""
        last = self._last_lit
        if keep and last is not None:
            last_scene, last_gain, last_blur, image = last
            if last_scene is scene and last_gain is self._gain and last_blur == self.blur_sigma:
                return image
        image = scene * self._gain
        if self.blur_sigma > 0.2:
            image = cv2.GaussianBlur(image, (0, 0), self.blur_sigma)
        if keep:
            self._last_lit = (scene, self._gain, self.blur_sigma, image)
        return image

    def black_frame(self) -> np.ndarray:
        """What a glitching camera sends: a dark frame with a little noise."""
        width, height = self.size
        noise = np.abs(self._noise_bank[0][:height, :width]) * 0.5
        return np.clip(noise, 0, 255).astype(np.uint8)

    def transition(
        self,
        before: dict[str, str],
        after: dict[str, str],
        *,
        hand_frames: int = 8,
        still_frames: int = 18,
    ) -> Iterator[tuple[np.ndarray, bool]]:
        """Frames of one move: a hand reaches in over the changed cells (the board still shows
        `before`), the board changes under it, the hand withdraws, then `still_frames` frames of
        the still board. Yields (frame, a hand is over the board in this frame)."""
        changed = [
            c for c in set(before) | set(after) if before.get(c, EMPTY) != after.get(c, EMPTY)
        ]
        if not changed:
            changed = [self.layout.cells[int(self.rng.integers(0, len(self.layout.cells)))].name]
        points = np.array([self.cell_pixel(c) for c in changed])
        target = tuple(points.mean(axis=0))
        first = self.hand_towards(target, 1.0)
        # The fingertips come in along the arm and stop over the target; on the way in and out
        # they stay within RETREAT_MM of it, so every hand frame has the hand over the board.
        ex, ey = first.entry
        length = max(math.hypot(target[0] - ex, target[1] - ey), 1.0)
        retreat = min(RETREAT_MM * self.px_per_mm(), 0.9 * length)
        ux, uy = (target[0] - ex) / length, (target[1] - ey) / length
        n_in = max(1, hand_frames // 2)
        n_out = max(1, hand_frames - n_in)
        for i in range(hand_frames):
            if i < n_in:
                back, board = 1.0 - (i + 1) / n_in, before
            else:
                back, board = (i - n_in + 1) / n_out, after
            tip = (target[0] - ux * retreat * back, target[1] - uy * retreat * back)
            pose = HandPose(
                entry=first.entry,
                tip=tip,
                width=first.width,
                skin=first.skin,
                sleeve=first.sleeve,
                glove=first.glove,
            )
            yield self._render(board, pose, (0.0, 0.0))
        for _ in range(still_frames):
            yield self._render(after, None, (0.0, 0.0))


def _pt(x: float, y: float) -> list[int]:
    """A picture point with 2 fractional bits (OpenCV's `shift` for LINE_AA)."""
    return [int(round(x * 4)), int(round(y * 4))]


def _hand_skin(
    shape: tuple[int, int], wrist: tuple[float, float], along: tuple[float, float], w: float
) -> np.ndarray:
    """The hand beyond the wrist (uint8 mask, 255 inside): the palm, four fingers and the
    thumb as ellipses, pointing `along` (a unit vector), `w` px wide."""
    ux, uy = along
    nx, ny = -uy, ux
    hand_len = 1.6 * w
    skin = np.zeros(shape, np.uint8)
    palm_c = (wrist[0] + ux * hand_len * 0.4, wrist[1] + uy * hand_len * 0.4)
    angle = math.degrees(math.atan2(uy, ux))
    cv2.ellipse(
        skin,
        _pt(*palm_c),
        (int(hand_len * 0.42 * 4), int(w * 0.5 * 4)),
        angle,
        0,
        360,
        255,
        -1,
        cv2.LINE_AA,
        2,
    )
    for k, spread in enumerate((-0.33, -0.11, 0.11, 0.33)):
        base = (
            palm_c[0] + nx * w * spread + ux * hand_len * 0.3,
            palm_c[1] + ny * w * spread + uy * hand_len * 0.3,
        )
        flen = hand_len * (0.32 if k in (0, 3) else 0.38)
        fc = (base[0] + ux * flen * 0.5, base[1] + uy * flen * 0.5)
        cv2.ellipse(
            skin,
            _pt(*fc),
            (int(flen * 0.6 * 4), int(w * 0.1 * 4)),
            angle + spread * 20,
            0,
            360,
            255,
            -1,
            cv2.LINE_AA,
            2,
        )
    thumb = (palm_c[0] + nx * w * 0.5, palm_c[1] + ny * w * 0.5)
    cv2.ellipse(
        skin,
        _pt(*thumb),
        (int(w * 0.35 * 4), int(w * 0.12 * 4)),
        angle - 35,
        0,
        360,
        255,
        -1,
        cv2.LINE_AA,
        2,
    )
    return skin


def chess_start(
    layout: Layout | str = "grid:8x8", white: str = "white", black: str = "black"
) -> tuple[dict[str, str], dict[str, str]]:
    """The chess start position on an 8-wide board: (cells -> class, cells -> figure), white
    on ranks 1-2 and black on the two top ranks (for Arimaa on a chess set: gold, silver)."""
    layout = get_layout(layout) if isinstance(layout, str) else layout
    ranks = sorted({int(c.name[1:]) for c in layout.cells})
    cells, figures = {}, {}
    for rank, cls, figs in (
        (ranks[0], white, CHESS_BACK_RANK),
        (ranks[1], white, ("pawn",) * 8),
        (ranks[-2], black, ("pawn",) * 8),
        (ranks[-1], black, CHESS_BACK_RANK),
    ):
        for file, figure in enumerate(figs):
            name = f"{chr(ord('a') + file)}{rank}"
            cells[name], figures[name] = cls, figure
    return cells, figures


def random_cells(
    layout: Layout, rng: np.random.Generator, fill: float | None = None
) -> dict[str, str]:
    """A random board of the layout's classes: each cell occupied with probability `fill`."""
    classes = [c for c in layout.classes if c != EMPTY] or ["black", "white"]
    fill = float(rng.uniform(0.2, 0.6)) if fill is None else fill
    return {
        c.name: classes[int(rng.integers(0, len(classes)))]
        for c in layout.cells
        if rng.random() < fill
    }


def random_script(
    layout: Layout, rng: np.random.Generator, moves: int = 12
) -> list[dict[str, str]]:
    """A plausible sequence of boards: a random start, then each step moves, adds or removes
    one or two pieces (as a game's turns and captures do)."""
    names = layout.cell_names()
    classes = [c for c in layout.classes if c != EMPTY] or ["black", "white"]
    board = random_cells(layout, rng, fill=0.3)
    script = [dict(board)]
    for _ in range(moves):
        board = dict(board)
        for _ in range(int(rng.integers(1, 3))):
            occupied = sorted(board)
            empty = [n for n in names if n not in board]
            action = rng.random()
            if occupied and empty and action < 0.5:
                src, dst = (
                    occupied[int(rng.integers(len(occupied)))],
                    empty[int(rng.integers(len(empty)))],
                )
                board[dst] = board.pop(src)
            elif empty and (action < 0.85 or not occupied):
                board[empty[int(rng.integers(len(empty)))]] = classes[
                    int(rng.integers(len(classes)))
                ]
            elif occupied:
                board.pop(occupied[int(rng.integers(len(occupied)))])
        script.append(board)
    return script


# -- as a camera source -----------------------------------------------------------------------------
MIN_SIDE, MAX_SIDE = 32, 4096  # picture sides the sim: source renders (pixels)
SIM_OPTIONS = {
    "seed": "the random seed (default 0)",
    "moves": "how many random moves the script has (default 12)",
    "script": 'a JSON file: a list of boards, each {cell: class} or {"cells": {...}} '
    '(+ "still": N frames to hold it)',
    "loop": "1 to play the script forever (default: end after it)",
    "size": "picture size WxH (default 1280x720)",
    "tilt": "camera tilt in degrees, 0-30 (default random)",
    "hand": "frames with a hand per move (default 8)",
    "still": "still frames after each move (default 18)",
    "drop": "fraction of dropped frames (default 0)",
    "black": "fraction of black frames (default 0)",
    "shake": "fraction of frames with camera shake (default 0)",
    "realistic": "1 for a realistic table: tall pieces, shadows, printers (default 0)",
    "board": "a board of your own for a layout without markers (chessboard, grid:RxC): "
    "green-cream, green-white, light-wood, dark-wood, othello or go (implies realistic=1; "
    "chessboard: a checkered one from the seed, with chess figures, unless given)",
    "pieces": "with realistic=1: stone, dome or chess (default: drawn from the seed)",
    "logo": "a cell of a board of your own with an emblem printed on its square, as the US Chess "
    "board's on h1 (e.g. h1)",
    "light": "even light: the darkest and brightest gain, e.g. 0.9-1.0 (default random)",
}


class SimSource:
    """Plays a script of boards on a `SimTable` as a camera would film it: the first board
    still for `still` frames, then every later board through a hand transition. After the
    last board the source ends (``ended``; read() returns None), or starts over with `loop`.

    `truth_hand` and `truth_cells` tell what the last frame really showed.
    """

    def __init__(
        self,
        table: SimTable,
        script: list[dict[str, str]],
        *,
        loop: bool = False,
        hand_frames: int = 8,
        still_frames: int = 18,
        drop: float = 0.0,
        black: float = 0.0,
        shake: float = 0.0,
        stills: list[int | None] | None = None,
    ) -> None:
        if not script:
            raise UserError("a sim script needs at least one board")
        # Per board: how many still frames follow it (None: `still_frames`).
        self.stills = list(stills or []) + [None] * (len(script) - len(stills or []))
        self.table = table
        self.script = script
        self.loop = loop
        self.hand_frames = hand_frames
        self.still_frames = still_frames
        self.drop, self.black, self.shake = drop, black, shake
        self.ended = False
        self.frame_index = -1
        self.truth_hand = False
        self.truth_cells: dict[str, str] = dict(script[0])
        self._rng = np.random.default_rng(table.seed + 7919)
        self._frames = self._play()

    @classmethod
    def from_spec(cls, rest: str) -> SimSource:
        """From the part after ``sim:``: ``LAYOUT[?key=value&...]`` (see SIM_OPTIONS)."""
        name, _, query = rest.partition("?")
        if not name:
            raise UserError("sim: needs a layout, e.g. sim:arimaa or sim:sensei?seed=2")
        pairs = parse_qsl(query, keep_blank_values=True)
        options = dict(pairs)
        twice = sorted({key for key, _ in pairs if [k for k, _ in pairs].count(key) > 1})
        if twice:
            raise UserError(
                f"sim option {twice[0]!r} is given twice in {'sim:' + rest!r}: give it once"
            )
        unknown = sorted(set(options) - set(SIM_OPTIONS))
        if unknown:
            raise UserError(
                f"unknown sim option {unknown[0]!r}: the options are {', '.join(SIM_OPTIONS)}"
                ' (docs/vision-sim.md, "sim: as a camera", says what each does)'
            )
        layout = get_layout(name)

        def number(key: str, default: Any, kind: type, low: float, high: float) -> Any:
            return _sim_number(options, key, default, kind, low, high)

        size = _sim_size(options)
        loop = _sim_flag(options, "loop")
        realistic = _sim_flag(options, "realistic")
        seed = number("seed", 0, int, 0, 2**32 - 1)
        tilt = number("tilt", None, float, 0.0, 30.0)
        moves = number("moves", 12, int, 0, 100_000)
        hand_frames = number("hand", 8, int, 0, 100_000)
        still_frames = number("still", 18, int, 0, 100_000)
        if hand_frames + still_frames == 0:
            raise UserError("sim options hand=0 and still=0 leave no frames to show")
        faults = {key: number(key, 0.0, float, 0.0, 1.0) for key in ("drop", "black", "shake")}
        realism = _sim_realism(options, layout, realistic, seed)
        light = _sim_light(options)
        table = SimTable(layout, seed=seed, size=size, tilt=tilt, light=light, realism=realism)
        stills: list[int | None] = []
        if "script" in options:
            script = load_script(options["script"], layout, stills)
        else:
            script = random_script(layout, np.random.default_rng(seed), moves)
        return cls(
            table,
            script,
            loop=loop,
            hand_frames=hand_frames,
            still_frames=still_frames,
            stills=stills,
            **faults,
        )

    def _play(self) -> Iterator[tuple[np.ndarray, bool, dict[str, str]]]:
        while True:
            first = self.script[0]
            for _ in range(self._still(0)):
                yield self.table.render(first), False, first
            for index, (before, after) in enumerate(
                zip(self.script, self.script[1:], strict=False), start=1
            ):
                for frame, hand in self.table.transition(
                    before, after, hand_frames=self.hand_frames, still_frames=self._still(index)
                ):
                    yield frame, hand, after if not hand else before
            if not self.loop:
                return

    def _still(self, index: int) -> int:
        still = self.stills[index]
        return self.still_frames if still is None else still

    def read(self) -> np.ndarray | None:
        if self.ended:
            return None
        try:
            frame, hand, cells = next(self._frames)
        except StopIteration:
            self.ended = True
            return None
        self.frame_index += 1
        self.truth_hand, self.truth_cells = hand, cells
        roll = self._rng.random(3)
        if roll[0] < self.drop:
            return None
        if roll[1] < self.black:
            return self.table.black_frame()
        if roll[2] < self.shake:
            dx, dy = self._rng.uniform(-4, 4, size=2)
            frame = cv2.warpAffine(
                frame,
                np.float32([[1, 0, dx], [0, 1, dy]]),
                frame.shape[1::-1],
                borderMode=cv2.BORDER_REPLICATE,
            )
        return frame

    def close(self) -> None:
        self.ended = True

    def __enter__(self) -> SimSource:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# -- the options of a sim: source --------------------------------------------------------------------
def _sim_number(
    options: dict[str, str], key: str, default: Any, kind: type, low: float, high: float
) -> Any:
    """Option `key` as a `kind` within [low, high]; one-line UserError otherwise."""
    if key not in options:
        return default
    what = "a whole number" if kind is int else "a number"
    try:
        value = kind(options[key])
    except ValueError:
        value = None
    if value is None or not math.isfinite(value) or not low <= value <= high:
        span = f"{low} to {high}" if kind is int else f"{low:g} to {high:g}"
        raise UserError(
            f"sim option {key}={options[key]!r} must be {what} from {span}: {SIM_OPTIONS[key]}"
        )
    return value


def _sim_size(options: dict[str, str]) -> tuple[int, int]:
    """The picture size of option ``size=WxH`` (1280 x 720 without it)."""
    if "size" not in options:
        return (1280, 720)
    try:
        w, h = (int(v) for v in options["size"].lower().split("x"))
    except ValueError:
        w = h = 0
    if not (MIN_SIDE <= w <= MAX_SIDE and MIN_SIDE <= h <= MAX_SIDE):
        raise UserError(
            f"sim option size={options['size']!r} must be WxH, e.g. 1280x720, each "
            f"side from {MIN_SIDE} to {MAX_SIDE} pixels"
        )
    return (w, h)


def _sim_flag(options: dict[str, str], key: str) -> bool:
    """A yes/no option (``loop``, ``realistic``): given bare or as 1/true/yes; off without it."""
    value = options.get(key, "0").strip().lower()
    if value not in ("", "1", "true", "yes", "0", "false", "no"):
        raise UserError(f"sim option {key}={options[key]!r} must be 1 or 0")
    return value in ("", "1", "true", "yes")


def _sim_realism(options: dict[str, str], layout: Layout, realistic: bool, seed: int) -> Any:
    """SimTable's `realism` from the options ``realistic``, ``board``, ``pieces`` and
    ``logo`` (a cell with an emblem printed on it): True or None, or the fields they fix. A
    ``chessboard`` is a checkered board with chess figures unless the options say otherwise
    (its style from the seed): what `companion vision calibrate --layout chessboard` finds."""
    realism: Any = realistic or None
    fixed: dict[str, str] = {}
    if layout.name == CHESSBOARD and "board" not in options:
        fixed["board"] = CHECKERED_BOARDS[seed % len(CHECKERED_BOARDS)]
        fixed["pieces"] = "chess"
    if "board" in options:
        board = options["board"].strip().lower()
        if layout.has_markers or board not in OWN_BOARDS:
            raise UserError(
                f"sim option board={options['board']!r} must be one of "
                f"{', '.join(OWN_BOARDS)}, on a layout without markers (chessboard, grid:RxC)"
            )
        if layout.name == CHESSBOARD and board not in CHECKERED_BOARDS:
            # (a trial: a lined board drawn for `chessboard`, which the snapshot's suggested
            # `calibrate --layout chessboard` could then not find)
            raise UserError(
                f"sim option board={options['board']!r} is a lined board, and layout "
                f"{CHESSBOARD} is checkered: give one of {', '.join(CHECKERED_BOARDS)}, or "
                f"the lined board on a grid (sim:grid:8x8?board={board})"
            )
        fixed["board"] = board
    if "pieces" in options:
        pieces = options["pieces"].strip().lower()
        if pieces not in PIECE_KINDS:
            raise UserError(
                f"sim option pieces={options['pieces']!r} must be one of {', '.join(PIECE_KINDS)}"
            )
        fixed["pieces"] = pieces
    if "logo" in options:
        logo = options["logo"].strip().lower()
        if layout.has_markers or logo not in layout.cell_names():
            raise UserError(
                f"sim option logo={options['logo']!r} must be a cell of the board (e.g. h1), on "
                "a layout without markers (chessboard, grid:RxC)"
            )
        fixed["logo"] = logo
    return fixed or realism


def _sim_light(options: dict[str, str]) -> tuple[float, float] | None:
    """Option ``light=LOW-HIGH``: the light's gain across the picture (None: from the seed)."""
    if "light" not in options:
        return None
    try:
        low, high = (float(v) for v in options["light"].split("-"))
    except ValueError:
        low = high = -1.0
    if not 0.3 <= low <= high <= 2.0:
        raise UserError(
            f"sim option light={options['light']!r} must be LOW-HIGH, e.g. 0.9-1.0, "
            "with 0.3 <= LOW <= HIGH <= 2"
        )
    return (low, high)


def load_script(
    path: str, layout: Layout, stills: list[int | None] | None = None
) -> list[dict[str, str]]:
    """A list of boards from a JSON file, each checked against the layout's cells. A board
    given as ``{"cells": {...}, "still": N}`` stays still for N frames (the players think, or
    press a button) instead of the source's `still`; `stills` receives N or None per board."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(f"cannot read sim script {path!r}: {read_problem(exc)}") from None
    except UnicodeDecodeError:
        raise UserError(
            f"sim script {path!r} is not a JSON text file (it is not UTF-8 text)"
        ) from None
    except json.JSONDecodeError as exc:
        raise UserError(f"sim script {path!r} is not valid JSON (line {exc.lineno})") from None
    except ValueError as exc:  # a number too long for Python to read
        raise UserError(f"sim script {path!r}: {json_problem(exc)}") from None
    except RecursionError:
        raise UserError(
            f"sim script {path!r} is nested too deeply to be a list of boards"
        ) from None
    if isinstance(data, dict) and data.get("format") == "tabletop-companion/game":
        raise UserError(  # a trial: `companion play --save`'s record, given as the script
            f"sim script {path!r} is a game record, not a script: a script is a JSON list of "
            'boards, each {"a1": "gold", ...} (docs/vision-sim.md)'
        )
    if not isinstance(data, list) or not data:
        raise UserError(
            f"sim script {path!r} must be a non-empty JSON list of boards, each "
            '{"a1": "gold", ...} (docs/vision-sim.md)'
        )
    names = set(layout.cell_names())
    boards = []
    for number, board in enumerate(data, start=1):
        still = None
        if isinstance(board, dict) and isinstance(board.get("cells"), dict):
            still = board.get("still")
            if still is not None and (
                not isinstance(still, int) or isinstance(still, bool) or not 0 <= still <= 100_000
            ):
                raise UserError(
                    f"board {number} of sim script {path!r}: still must be a whole number of "
                    f"frames from 0 to 100000, not {still!r}"
                )
            board = board["cells"]
        if stills is not None:
            stills.append(still)
        if not isinstance(board, dict):
            raise UserError(
                f"board {number} of sim script {path!r} is not a {{cell: class}} object"
            )
        for cell in board:
            if cell not in names:
                raise UserError(
                    f"board {number} of sim script {path!r}: no cell {cell!r} on layout {layout.name}"
                )
        boards.append({str(k): str(v) for k, v in board.items() if v != EMPTY})
    return boards


# -- calibrating against the sim ----------------------------------------------------------------------
def calibration_position(layout: Layout) -> dict[str, str]:
    """A position for `vision.calibration.calibrate` with every class of the layout on several
    cells spread over the board (every third cell), the rest empty."""
    classes = [c for c in layout.classes if c != EMPTY] or ["black", "white"]
    names = layout.cell_names()
    return {name: classes[(i // 3) % len(classes)] for i, name in enumerate(names) if i % 3 == 0}


def calibrate_table(table: SimTable, position: dict[str, str] | None = None) -> StandingCalibration:
    """Calibrate the reader on this table, as a player would: photograph a known position,
    locate the board by its markers and learn the colours. Returns the calibration."""
    return calibrate_table_photo(table, position)[0]


def calibrate_table_photo(
    table: SimTable, position: dict[str, str] | None = None
) -> tuple[StandingCalibration, np.ndarray, np.ndarray]:
    """`calibrate_table`, with the photo it learned from and that photo's homography: the
    table with nothing over it, as the app gives its tracker (`Tracker(clear_view=...)`)."""
    position = calibration_position(table.layout) if position is None else position
    frame = table.render(position)
    located = locate(frame, table.layout)
    return calibrate(frame, located.homography, table.layout, position), frame, located.homography


AIM_ROUNDS = 4  # turns of the camera to frame the board (its middle then within 0.3 px)


def _framed(points: np.ndarray, fill: float, size: tuple[int, int]) -> tuple[np.ndarray, float]:
    """`points` (n, 3, in front of the camera) projected to the plane at unit depth (n, 2),
    and the focal length in pixels at which they fill `fill` of a picture of `size`."""
    projected = points[:, :2] / points[:, 2:3]
    span = projected.max(axis=0) - projected.min(axis=0)
    return projected, fill * min(size[0] / span[0], size[1] / span[1])


def _turn_between(a: list[float], b: list[float]) -> np.ndarray:
    """The rotation (3x3) that turns the direction `a` onto the direction `b` (the identity
    for directions already alike; never asked for opposite ones)."""
    u, v = np.asarray(a, np.float64), np.asarray(b, np.float64)
    u, v = u / np.linalg.norm(u), v / np.linalg.norm(v)
    axis = np.cross(u, v)
    sine = float(np.linalg.norm(axis))
    if sine < 1e-12:
        return np.eye(3)
    turn, _ = cv2.Rodrigues(axis / sine * math.atan2(sine, float(u @ v)))
    return turn
