"""Spoken instructions: espeak-ng says each new instruction once, in the table's language.

`Speaker.say(text)` only hands the sentence to the speaker's own worker thread and returns at
once: the camera and the screen never wait for speech. The worker synthesises the sentence to
a WAV file with espeak-ng (offline, from apt on a Raspberry Pi) and plays it through pygame's
mixer on the Pi's audio output (HDMI, a USB speaker or the headphone jack: whatever ALSA's
default device is). A new sentence interrupts one still being synthesised or played.

No espeak-ng, or no audio device: the speaker stays silent and `problem` says why (the Settings
screen shows it).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

# espeak-ng's voices for the table's languages
VOICES = {"en": "en-gb", "de": "de"}
WORDS_PER_MINUTE = 150  # a little slower than espeak-ng's 175: heard across a table


def speakable(text: str) -> str:
    """The sentence as it should sound: Aranea's ring squares "r1-5" as "r1 5" (not "r one
    dash five")."""
    return re.sub(r"(?<=\d)-(?=\d)", " ", text)


def espeak_path() -> str | None:
    return shutil.which("espeak-ng")


def synthesise(text: str, language: str, path: Path, *, speed: int = WORDS_PER_MINUTE) -> None:
    """Write `text` spoken in `language` as a WAV file (RuntimeError with espeak-ng's reason)."""
    exe = espeak_path()
    if exe is None:
        raise RuntimeError("espeak-ng is not installed")
    result = subprocess.run(
        [exe, "-v", VOICES.get(language, "en-gb"), "-s", str(speed), "-w", str(path), "--", text],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if result.returncode != 0 or not path.exists():
        raise RuntimeError(f"espeak-ng failed: {result.stderr.strip() or result.returncode}")


def open_mixer() -> str:
    """Open pygame's mixer: "" when it works, else why not ("no audio device: ...")."""
    import pygame  # the audio device is optional: speech is loaded only where it speaks

    # alsa-lib writes its own lines to stderr when there is no sound card: the reason is
    # returned as one line instead.
    saved = os.dup(2)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 2)
        if not pygame.mixer.get_init():
            pygame.mixer.init(frequency=22050, size=-16, channels=1, buffer=1024)
    except pygame.error as exc:
        return f"no audio device ({exc})"
    finally:
        os.dup2(saved, 2)
        os.close(saved)
    return ""


class Speaker:
    """Speaks sentences in a worker thread; the newest sentence wins.

    `language` is read when a sentence is synthesised (a callable, so a language change on the
    Settings screen applies to the next sentence). `volume` is 0..100.
    """

    def __init__(
        self,
        language: Callable[[], str],
        *,
        enabled: bool = True,
        volume: int = 80,
        mixer: Callable[[], str] = open_mixer,
    ) -> None:
        self.language = language
        self.enabled = enabled
        self.volume = volume
        self.problem = ""
        if espeak_path() is None:
            self.problem = "espeak-ng is not installed"
        else:
            self.problem = mixer()
        self._lock = threading.Condition()
        self._pending: str | None = None
        self._generation = 0
        self._process: subprocess.Popen[Any] | None = None
        self._channel: Any = None
        self._closed = False
        self._dir = tempfile.TemporaryDirectory(prefix="companion-speech-")
        self.spoken: list[str] = []  # every sentence played, in order (for tests and logs)
        self.errors: list[str] = []
        self._thread: threading.Thread | None = None
        if self.available:
            self._thread = threading.Thread(target=self._run, name="speaker", daemon=True)
            self._thread.start()

    @property
    def available(self) -> bool:
        return not self.problem

    def say(self, text: str) -> None:
        """Speak `text` soon (interrupting whatever is being said); never blocks."""
        if not text or not self.enabled or not self.available:
            return
        with self._lock:
            self._pending = text
            self._generation += 1
            self._interrupt_locked()
            self._lock.notify()

    def stop(self) -> None:
        with self._lock:
            self._pending = None
            self._generation += 1
            self._interrupt_locked()

    def busy(self) -> bool:
        """A sentence is waiting, being synthesised or playing."""
        with self._lock:
            if self._pending is not None or self._process is not None:
                return True
            channel = self._channel
        return bool(channel is not None and channel.get_busy())

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._pending = None
            self._interrupt_locked()
            self._lock.notify()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._dir.cleanup()

    # -- the worker ------------------------------------------------------------------------
    def _interrupt_locked(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
        if self._channel is not None:
            self._channel.stop()

    def _run(self) -> None:
        import pygame

        count = 0
        while True:
            with self._lock:
                while self._pending is None and not self._closed:
                    self._lock.wait()
                if self._closed:
                    return
                text, generation = self._pending, self._generation
                self._pending = None
            if text is None:  # woken with nothing to say
                continue
            count += 1
            wav = Path(self._dir.name) / f"say-{count % 4}.wav"
            try:
                sound = self._synthesise(text, wav, generation)
                if sound is None:
                    continue  # interrupted while synthesising
                with self._lock:
                    if generation != self._generation or self._closed:
                        continue
                    sound.set_volume(max(0, min(100, self.volume)) / 100)
                    self._channel = sound.play()
                    self.spoken.append(text)
            except (OSError, RuntimeError, pygame.error, subprocess.SubprocessError) as exc:
                self.errors.append(str(exc))

    def _synthesise(self, text: str, wav: Path, generation: int) -> Any:
        import pygame

        exe = espeak_path()
        if exe is None:
            raise RuntimeError("espeak-ng is not installed")
        voice = VOICES.get(self.language(), "en-gb")
        args = [
            exe,
            "-v",
            voice,
            "-s",
            str(WORDS_PER_MINUTE),
            "-w",
            str(wav),
            "--",
            speakable(text),
        ]
        with self._lock:
            if generation != self._generation:
                return None
            self._process = subprocess.Popen(
                args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=os.environ
            )
            process = self._process
        try:
            _out, err = process.communicate(timeout=30)
        finally:
            with self._lock:
                self._process = None
        if generation != self._generation:
            return None
        if process.returncode != 0:
            raise RuntimeError(f"espeak-ng failed: {err.decode(errors='replace').strip()}")
        return pygame.mixer.Sound(str(wav))
