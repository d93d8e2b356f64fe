"""The camera in its own thread: a source that reconnects, and the worker that reads it and
hands its results to the main loop as pygame events."""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import pygame

from companion.app.table_vision import TableVision
from companion.errors import UserError
from companion.i18n import _
from companion.observation import Observation
from vision.layouts import layout_for_markers
from vision.locate import detect_markers
from vision.sources import FrameSource


class CameraClient(Protocol):
    """What the camera worker needs of the app: which vision to feed, and where its results
    go (on the main thread, through `CameraWorker.handle`)."""

    def camera_vision(self) -> TableVision | None:
        """The TableVision of the game being set up or played; None while the players choose
        a game (the worker then looks for a printed mat to recognise)."""

    def on_observation(self, observation: Observation) -> None: ...

    def on_vision_status(self, status: str) -> None: ...

    def on_setup_frame(self, frame: np.ndarray) -> None: ...

    def recognise(self, layout: str | None) -> None: ...

    def on_camera_problem(self, text: str) -> None: ...

    def on_camera_ended(self) -> None: ...


class ReconnectingCamera:
    """A camera source that is opened - and reopened after it fails - in the background of
    `read()`: None while there is no camera, with `problem` saying why (the boot service shows
    it on the screen instead of crashing into a restart loop, and a camera plugged in later is
    picked up)."""

    def __init__(
        self,
        spec: str,
        opener: Callable[[str], FrameSource],
        *,
        retry_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.spec = spec
        self.opener = opener
        self.retry_seconds = retry_seconds
        self.clock = clock
        self.source: FrameSource | None = None
        self.problem = ""
        self.ended = False
        self._next_try = -1e9

    def read(self) -> np.ndarray | None:
        if self.source is None:
            now = self.clock()
            if now < self._next_try:
                return None
            self._next_try = now + self.retry_seconds
            try:
                self.source = self.opener(self.spec)
            except UserError as exc:
                self.problem = _("{problem} - trying again every {seconds} s").format(
                    problem=exc, seconds=f"{self.retry_seconds:g}"
                )
                return None
            self.problem = ""
        try:
            return self.source.read()
        except Exception as exc:  # a driver that gives up: close it and start again
            self.problem = _("the camera failed ({problem}) - trying again").format(problem=exc)
            self._close_source()
            return None

    def _close_source(self) -> None:
        source, self.source = self.source, None
        if source is not None:
            try:
                source.close()
            except Exception:
                pass

    def close(self) -> None:
        self._close_source()

    def __enter__(self) -> ReconnectingCamera:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CameraWorker:
    """Reads the camera in its own thread and hands the results to the main loop as pygame
    events (`pygame.event.post` is thread-safe): still boards, the tracker's state, setup frames,
    and the mat it recognises while the home screen is up.

    Pacing: a real camera blocks in read() until its next frame; sources that do not (files,
    the synthetic table) are paced to `fps`. While the board has been still for 3 s the worker
    tracks only `idle_fps` frames a second - the players are thinking; a real camera's other
    frames are read and dropped - and is back at full rate at the first movement.
    """

    def __init__(
        self,
        source: FrameSource,
        client: CameraClient,
        *,
        fps: float = 30.0,
        idle_fps: float = 5.0,
        paced: bool = True,
    ):
        self.source = source
        self.client = client
        self.fps = fps
        self.idle_fps = idle_fps
        self.paced = paced
        self.event_type = pygame.event.custom_type()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._status = ""
        self._problem = ""
        self._failure = ""  # the last exception of the camera path, until a frame goes through
        self._next_feed = 0.0  # while idle, a camera's frames are tracked from then on
        self._still_since: float | None = None
        self._last_setup_frame = 0.0
        self._last_recognise = -1e9
        self.frames = 0

    def start(self) -> CameraWorker:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)

    def _post(self, what: str, **data: Any) -> None:  # pygame.event.Event(type, **Any)
        try:
            pygame.event.post(pygame.event.Event(self.event_type, what=what, **data))
        except pygame.error:
            pass  # the display is shutting down

    def _run(self) -> None:
        """The thread: a bug in the camera path must not silently end it (the screen would go
        on showing the last board, and the watchdog, pinged by the main loop, would not see
        it). Each failure goes to the journal with its traceback and onto the screen; the
        camera is read again after a pause."""
        while not self._stop.is_set():
            try:
                self._loop()
                return
            except Exception as exc:
                traceback.print_exc()
                self._failure = _("the camera path failed ({problem}) - trying again").format(
                    problem=f"{type(exc).__name__}: {exc}"
                )
                self._stop.wait(2.0)

    def _loop(self) -> None:
        next_due = time.monotonic()
        while not self._stop.is_set():
            frame = self.source.read()
            now = time.monotonic()
            problem = self._failure or getattr(self.source, "problem", "")
            if problem != self._problem:
                self._problem = problem
                self._post("camera-problem", text=problem)
            if frame is None:
                if getattr(self.source, "ended", False):
                    self._post("ended")
                    return
                self._stop.wait(0.05)  # the camera is reconnecting: do not spin
                continue
            self.frames += 1
            vision = self.client.camera_vision()
            if vision is None:
                self._recognise(frame, now)
            elif vision.tracker is None:
                vision.look(frame, now)
                if now - self._last_setup_frame > 0.2:  # the live view: 5 pictures a second
                    self._last_setup_frame = now
                    self._post("setup-frame", frame=frame)
            else:
                idle = self._still_since is not None and now - self._still_since > 3.0
                if idle and not self.paced and now < self._next_feed:
                    continue  # a real camera's frame, read to keep it fresh; not tracked
                self._next_feed = now + 1 / self.idle_fps
                observation = vision.feed(frame, now)
                status = vision.status
                if status != self._status:
                    self._status = status
                    self._post("status", status=status)
                if observation is not None:
                    self._post("observation", observation=observation)
                self._still_since = (self._still_since or now) if status == "still" else None
            self._failure = ""  # a frame went through: the path works (again)
            if self.paced:
                idle = self._still_since is not None and now - self._still_since > 3.0
                next_due = max(next_due + 1 / (self.idle_fps if idle else self.fps), now)
                self._stop.wait(max(0.0, next_due - time.monotonic()))

    def _recognise(self, frame: np.ndarray, now: float) -> None:
        if now - self._last_recognise < 2.0:
            self._stop.wait(0.1)
            return
        self._last_recognise = now
        layout = layout_for_markers(list(detect_markers(frame)))
        if layout is not None:
            self._post("recognised", layout=layout.name)

    def handle(self, event: pygame.event.Event) -> None:
        """Apply one of this worker's events to the client, the app (on the main thread)."""
        what = event.what
        if what == "observation":
            self.client.on_observation(event.observation)
        elif what == "status":
            self.client.on_vision_status(event.status)
        elif what == "setup-frame":
            self.client.on_setup_frame(event.frame)
        elif what == "recognised":
            self.client.recognise(event.layout)
        elif what == "camera-problem":
            self.client.on_camera_problem(event.text)
        elif what == "ended":
            self.client.on_camera_ended()
