"""Camera sources: every way of getting frames, behind one small interface.

The idea is gpiozero's pin factories: the rest of the companion asks for frames with
`open_source(spec)` and never cares whether they come from the Pi camera, a USB webcam, a
video file, a folder of photos or the synthetic table of `vision.sim`.

    >>> with open_source("sim:arimaa?seed=3") as source:
    ...     frame = source.read()          # a BGR uint8 image, or None

Specs:

- ``picamera`` - the Raspberry Pi camera through picamera2 (imported only here, so the rest of
  the companion runs anywhere). Once auto-exposure and white balance have settled, both are
  locked: a player's arm darkening the scene must not make the board brighter.
- ``usb:N`` or a device path such as ``/dev/video0`` - an OpenCV VideoCapture.
- ``file:VIDEO`` - a recorded video, frame by frame.
- ``dir:GLOB`` - still images, in sorted file-name order (``dir:shots/`` means every image in
  the folder).
- ``sim:LAYOUT[?seed=N&...]`` - the synthetic table (see `vision.sim.SimSource`).

Reading: ``read()`` returns the next frame, or ``None`` when there is no frame right now (a
camera that dropped one, or is being reopened). A dropped frame is not an error; a black frame
is a frame. Files, folders and finite sim scripts come to an end: from then on ``read()``
returns ``None`` forever and ``ended`` is True (cameras never end). A camera that vanishes -
the cable was pulled, the driver restarted - makes ``read()`` return ``None`` while the source
tries, at most twice a second, to open it again; the referee keeps running meanwhile.
"""

from __future__ import annotations

import contextlib
import glob
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import cv2
import numpy as np

from companion.errors import UserError
from companion.i18n import _
from vision.sim import SimSource

MAX_CAMERA = 255  # the last /dev/videoN Linux numbers
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")

SPEC_HELP = (
    "a source is one of: picamera, usb:N, /dev/videoN, file:VIDEO, dir:GLOB, sim:LAYOUT[?seed=N]"
)


@runtime_checkable
class FrameSource(Protocol):
    """Anything that yields BGR frames. Sources are also context managers."""

    ended: bool  # True once a finite source has given its last frame

    def read(self) -> np.ndarray | None:
        """The next BGR uint8 frame, or None when there is no frame now."""

    def close(self) -> None:
        """Release the camera or file; reading after close returns None."""

    def __enter__(self) -> FrameSource: ...

    def __exit__(self, *exc: object) -> None: ...


class _Source:
    """Shared plumbing: the context manager and the `ended` flag."""

    ended = False

    def read(self) -> np.ndarray | None:  # pragma: no cover - every source overrides it
        raise NotImplementedError

    def close(self) -> None:
        pass

    def __enter__(self) -> _Source:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def open_source(spec: str) -> FrameSource:
    """The frame source a spec string names (see the module docstring)."""
    spec = (spec or "").strip()
    if not spec:
        raise UserError(f"no camera source given: {SPEC_HELP}")
    kind, _, rest = spec.partition(":")
    kind = kind.lower()
    if spec.lower() == "picamera":
        return PiCameraSource()
    if kind == "usb":
        try:
            index = int(rest)
        except ValueError:
            raise UserError(
                f"bad camera {spec!r}: usb:N needs a camera number, e.g. usb:0"
            ) from None
        if not 0 <= index <= MAX_CAMERA:  # OpenCV crashes (SIGSEGV) on usb:-1, raises on 2**31
            raise UserError(
                f"bad camera {spec!r}: usb:N needs a camera number from 0 to {MAX_CAMERA}, "
                "e.g. usb:0 (list cameras with `ls /dev/video*`)"
            )
        return CameraSource(index, name=spec)
    if spec.startswith("/dev/"):
        return CameraSource(spec, name=spec)
    if kind == "file":
        return VideoFileSource(rest)
    if kind == "dir":
        return ImageDirSource(rest)
    if kind == "sim":
        return SimSource.from_spec(rest)
    raise UserError(f"unknown camera source {spec!r}: {SPEC_HELP}")


def is_camera(source: FrameSource) -> bool:
    """A live camera (picamera, usb:N, /dev/videoN), not a recording or the synthetic table:
    what it shows does not wait for the reader (see `vision.tracker.Tracker`'s
    `refit_in_background`)."""
    return isinstance(source, (CameraSource, PiCameraSource))


def _opencv_log_level() -> tuple[Any, Any, int] | None:
    """OpenCV's (get, set, silent) for its own log level: `cv2.utils.logging` in OpenCV 5, only
    `cv2.getLogLevel`/`cv2.setLogLevel` in the 4.x wheels a Raspberry Pi gets with apt's numpy
    (silent is 0 in both); None if this OpenCV has neither."""
    logging = getattr(getattr(cv2, "utils", None), "logging", None)
    if logging is not None and hasattr(logging, "setLogLevel"):
        return logging.getLogLevel, logging.setLogLevel, logging.LOG_LEVEL_SILENT
    if hasattr(cv2, "setLogLevel") and hasattr(cv2, "getLogLevel"):
        return cv2.getLogLevel, cv2.setLogLevel, 0
    return None


@contextlib.contextmanager
def quiet_opencv() -> Iterator[None]:
    """Silence OpenCV's own warnings while opening devices: our UserError says it better."""
    log = _opencv_log_level()
    if log is not None:
        get_level, set_level, silent = log
        level = get_level()
        set_level(silent)
    ffmpeg = os.environ.get("OPENCV_FFMPEG_LOGLEVEL")
    os.environ["OPENCV_FFMPEG_LOGLEVEL"] = "-8"  # FFmpeg's own "Invalid PNG signature" & co.
    try:
        yield
    finally:
        if log is not None:
            set_level(level)
        if ffmpeg is None:
            os.environ.pop("OPENCV_FFMPEG_LOGLEVEL", None)
        else:
            os.environ["OPENCV_FFMPEG_LOGLEVEL"] = ffmpeg


# -- cameras ----------------------------------------------------------------------------------------
class CameraSource(_Source):
    """A webcam (``usb:N``) or a video device path, through OpenCV's VideoCapture.

    Failing reads are counted; after `reopen_after` failures in a row the device is closed and
    reopened, at most every `retry_seconds`, until it answers again. Meanwhile read() is None.
    """

    def __init__(
        self,
        device: int | str,
        *,
        name: str | None = None,
        size: tuple[int, int] | None = (1280, 720),
        reopen_after: int = 5,
        retry_seconds: float = 0.5,
    ) -> None:
        self.device = device
        self.name = name or str(device)
        self.size = size
        self.reopen_after = reopen_after
        self.retry_seconds = retry_seconds
        self.failures = 0
        self.reopens = 0
        self._last_try = 0.0
        self._closed = False
        self._capture = self._open()
        if self._capture is None:
            raise UserError(
                _(
                    "cannot open camera {name}: is it plugged in and not used by another "
                    "program? (list cameras with `ls /dev/video*`; try usb:1, or the "
                    "synthetic table sim:arimaa)"
                ).format(name=self.name)
            )

    def _open(self) -> Any:
        with quiet_opencv():
            capture = cv2.VideoCapture(self.device)
        if not capture.isOpened():
            capture.release()
            return None
        if self.size and isinstance(self.device, int):
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        return capture

    def read(self) -> np.ndarray | None:
        if self._closed:
            return None
        if self._capture is not None:
            ok, frame = self._capture.read()
            if ok and frame is not None:
                self.failures = 0
                return frame
            self.failures += 1
            if self.failures < self.reopen_after:
                return None
            self._capture.release()
            self._capture = None
        now = time.monotonic()
        if now - self._last_try >= self.retry_seconds:
            self._last_try = now
            self._capture = self._open()
            if self._capture is not None:
                self.reopens += 1
                self.failures = 0
        return None

    def close(self) -> None:
        self._closed = True
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class PiCameraSource(_Source):
    """The Raspberry Pi camera via picamera2, exposure and white balance locked once settled.

    picamera2's "RGB888" format is B, G, R in memory - exactly OpenCV's BGR, so frames need no
    conversion.
    """

    def __init__(self, size: tuple[int, int] = (1280, 720), settle_seconds: float = 1.5) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except ImportError:
            raise UserError(
                _(
                    "picamera2 is not installed: on Raspberry Pi OS run systemd/install.sh, "
                    "or use a USB camera (usb:0) or the synthetic table (sim:arimaa)"
                )
            ) from None
        self._factory = Picamera2
        self.size = size
        self.settle_seconds = settle_seconds
        self.locked = False
        self._closed = False
        self._camera: Any = None
        self._started = 0.0
        if not self._start():
            raise UserError(
                _(
                    "cannot start the Pi camera: is the ribbon cable seated and the camera "
                    "enabled? (`rpicam-hello --list-cameras` lists it)"
                )
            )

    def _start(self) -> bool:
        camera = None
        try:
            camera = self._factory()
            config = camera.create_video_configuration(main={"size": self.size, "format": "RGB888"})
            camera.configure(config)
            camera.start()
        except Exception:  # picamera2 raises RuntimeError/IndexError/OSError when absent
            if camera is not None:  # opened, then failed (out of CMA memory): let it go, or
                try:  # libcamera keeps it acquired and every retry finds it "busy"
                    camera.close()
                except Exception:  # noqa: S110 - already failing; the retry says what is wrong
                    pass
            return False
        self._camera = camera
        self._started = time.monotonic()
        self.locked = False
        return True

    def _lock_exposure(self) -> None:
        """Freeze the settled auto-exposure and white balance so lighting stays put."""
        metadata = self._camera.capture_metadata()
        controls = {"AeEnable": False, "AwbEnable": False}
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in metadata:
                controls[key] = metadata[key]
        self._camera.set_controls(controls)
        self.locked = True

    def read(self) -> np.ndarray | None:
        if self._closed:
            return None
        if self._camera is None:
            if time.monotonic() - self._started >= 0.5:
                self._started = time.monotonic()
                self._start()
            return None
        try:
            if not self.locked and time.monotonic() - self._started >= self.settle_seconds:
                self._lock_exposure()
            return np.ascontiguousarray(self._camera.capture_array("main")[:, :, :3])
        except Exception:  # the camera went away: drop it and try again shortly
            self._drop()
            return None

    def _drop(self) -> None:
        camera, self._camera = self._camera, None
        self._started = time.monotonic()
        if camera is not None:
            try:
                camera.close()
            except Exception:
                pass

    def close(self) -> None:
        self._closed = True
        self._drop()


# -- recordings -------------------------------------------------------------------------------------
class VideoFileSource(_Source):
    """A video file, read once from start to end."""

    def __init__(self, path: str) -> None:
        if not path:
            raise UserError(_("file: needs a video file, e.g. file:game.mp4"))
        if not Path(path).is_file():
            raise UserError(  # (a trial: it named no next step)
                _(
                    "video file {path} does not exist: check the path, or give a camera "
                    "(picamera, usb:0)"
                ).format(path=repr(path))
            )
        self.path = path
        with quiet_opencv():
            self._capture = cv2.VideoCapture(path)
            ok, first = self._capture.read() if self._capture.isOpened() else (False, None)
        if not ok or first is None:
            self._capture.release()
            raise UserError(
                _("cannot read video {path}: not a video OpenCV can decode").format(path=repr(path))
            )
        self._first: np.ndarray | None = first
        self.fps = float(self._capture.get(cv2.CAP_PROP_FPS) or 0.0) or 30.0

    def read(self) -> np.ndarray | None:
        if self.ended:
            return None
        if self._first is not None:
            frame, self._first = self._first, None
            return frame
        ok, frame = self._capture.read()
        if not ok or frame is None:
            self.close()
            return None
        return frame

    def close(self) -> None:
        self.ended = True
        self._capture.release()


class ImageDirSource(_Source):
    """Still images matching a glob, in sorted order; one frame per image."""

    def __init__(self, pattern: str) -> None:
        if not pattern:
            raise UserError("dir: needs a folder or a pattern, e.g. dir:shots/ or dir:shots/*.png")
        if os.path.isdir(pattern):
            pattern = os.path.join(pattern, "*")
        self.paths = sorted(
            p for p in glob.glob(os.path.expanduser(pattern)) if p.lower().endswith(IMAGE_SUFFIXES)
        )
        if not self.paths:
            raise UserError(
                f"no images match {pattern!r} (looked for {', '.join(IMAGE_SUFFIXES)} files)"
            )
        self.index = 0

    def read(self) -> np.ndarray | None:
        if self.index >= len(self.paths):
            self.ended = True
            return None
        path = self.paths[self.index]
        self.index += 1
        frame = cv2.imread(path, cv2.IMREAD_COLOR)
        if frame is None:
            raise UserError(f"cannot read image {path!r}: not an image file OpenCV can decode")
        if self.index >= len(self.paths):
            self.ended = True
        return frame

    def close(self) -> None:
        self.index = len(self.paths)
        self.ended = True
