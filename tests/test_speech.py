"""Spoken instructions: espeak-ng really synthesises them (audible, about as long as the
sentence) and the speaker's worker plays them through pygame's mixer on SDL's dummy audio
driver (conftest sets SDL_AUDIODRIVER=dummy) without ever blocking its caller; a new sentence
interrupts an unfinished one. Without espeak-ng, or without an audio device, it stays silent
and says why."""

import array
import time
import wave

import pygame
import pytest

from companion import games, i18n, speech
from companion.app import App, Settings
from companion.speech import Speaker
from display.device import HeadlessScreen, init_pygame


@pytest.fixture(autouse=True)
def espeak_installed(request):
    """The synthesiser is part of the test set-up (`./dev test` installs it): a test that needs
    it fails saying what to do, rather than being skipped."""
    if "needs_espeak" in request.keywords:
        assert speech.espeak_path() is not None, (
            "espeak-ng is not installed: apt-get install espeak-ng (./dev test does it)"
        )


needs_espeak = pytest.mark.needs_espeak


def loudness_and_seconds(path):
    with wave.open(str(path)) as w:
        assert w.getsampwidth() == 2
        samples = array.array("h", w.readframes(w.getnframes()))
        seconds = w.getnframes() / w.getframerate()
    rms = (sum(s * s for s in samples) / max(1, len(samples))) ** 0.5
    return rms, seconds


def expected_seconds(text):
    return len(text.split()) / speech.WORDS_PER_MINUTE * 60


@needs_espeak
@pytest.mark.parametrize(
    "language,text",
    [
        ("de", "Bernstein würfelt sieben"),
        ("de", "Dreh d4 und e5 auf Schwarz. Nimm den weißen Stein von f6"),
        ("en", "Turn d4 and e5 to black"),
    ],
)
def test_espeak_ng_says_the_sentence_audibly_for_about_its_length(language, text, tmp_path):
    path = tmp_path / "say.wav"
    speech.synthesise(text, language, path)
    rms, seconds = loudness_and_seconds(path)
    assert rms > 500, "the sentence is silent"
    want = expected_seconds(text)
    assert 0.5 * want < seconds < 2.5 * want + 0.5, (seconds, want)
    # a longer sentence lasts longer: the audio is the sentence, not a beep
    speech.synthesise(f"{text}. {text}", language, tmp_path / "twice.wav")
    assert loudness_and_seconds(tmp_path / "twice.wav")[1] > 1.6 * seconds


def wait(condition, timeout=15.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.02)
    return False


@pytest.fixture
def mixer():
    pygame.mixer.quit()
    yield
    pygame.mixer.quit()


@needs_espeak
def test_the_worker_speaks_without_blocking_and_a_new_sentence_interrupts(mixer):
    speaker = Speaker(lambda: "de")
    try:
        assert speaker.available, speaker.problem
        long = "Die weißen Steine auf d4 und e5 grenzen jetzt jeweils an genau drei schwarze Steine"
        started = time.monotonic()
        speaker.say(long)
        assert time.monotonic() - started < 0.05  # handed over, not spoken here
        assert wait(lambda: speaker.spoken == [long])
        assert speaker.busy()  # playing (the dummy driver plays in real time)
        interrupted_at = time.monotonic()
        speaker.say("Schwarz ist am Zug")
        assert wait(lambda: speaker.spoken[-1:] == ["Schwarz ist am Zug"])
        assert wait(lambda: not speaker.busy())
        # the long sentence (several seconds) did not play to its end first
        assert time.monotonic() - interrupted_at < expected_seconds(long)
        assert speaker.errors == []
        # off: nothing more is said
        speaker.enabled = False
        speaker.say("Weiß ist am Zug")
        time.sleep(0.3)
        assert speaker.spoken[-1] == "Schwarz ist am Zug"
    finally:
        speaker.close()


def test_without_espeak_or_audio_the_table_is_silent_and_says_why(mixer, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    speaker = Speaker(lambda: "en")
    assert not speaker.available and speaker.problem == "espeak-ng is not installed"
    speaker.say("Black: place a stone")  # nothing happens, nothing breaks
    assert speaker.spoken == [] and not speaker.busy()
    speaker.close()
    monkeypatch.undo()
    no_audio = Speaker(lambda: "en", mixer=lambda: "no audio device (dsp: no such device)")
    assert not no_audio.available and no_audio.problem.startswith("no audio device")
    no_audio.close()
    # The Settings screen says why, in the table's language.
    init_pygame(headless=True)
    app = App(HeadlessScreen((800, 480)), Settings(language="de"), speaker=no_audio)
    rows = {row.key: row for row in app.pages.settings.rows()}
    assert rows["speech"].label == "Gesprochene Anweisungen: kein Audiogerät"
    assert rows["speech"].value == "aus" and "volume" not in rows


@needs_espeak
def test_the_app_speaks_each_new_instruction_once_and_announces_the_roll(mixer, tmp_path):
    from companion.dice import Dice
    from companion.referee import observation_of
    from companion.referee.protocol import PlayerInput

    init_pygame(headless=True)
    said = []

    class Recording(Speaker):  # the real speaker, remembering what it was handed
        def say(self, text):
            said.append(text)
            super().say(text)

    speaker = Recording(i18n.language)
    try:
        app = App(
            HeadlessScreen((800, 480)),
            Settings(game="aranea", language="de"),
            dice=Dice(seed=3),
            speaker=speaker,
        )
        app.setup_position = games.get("aranea").new()
        app.start_referee()
        names = app.referee.position.cell_names()
        app.on_observation(observation_of(names, {}))
        assert said == [app.referee.instruction.text]
        assert "drück WÜRFELN" in said[-1]
        count = len(said)
        app.on_observation(observation_of(names, {}))  # the same instruction: not again
        assert len(said) == count
        app.player_input(PlayerInput("roll"))
        roll = next(e for e in app.events if e.kind == "roll")
        player = i18n.player(roll.data["player"])
        assert said[-1].startswith(f"{player} würfelt {roll.data['value']}")
        assert wait(lambda: speaker.spoken and speaker.spoken[-1] == said[-1])
        while app.referee.instruction.kind != "move":  # the roll-off, then the first turn's
            app.player_input(PlayerInput("roll"))
        # the turn's instruction says the roll itself ("Blau hat 12 gewürfelt: ..."): the
        # value is said once (a trial heard "Blau würfelt 12. Blau hat 12 gewürfelt: ...")
        assert said[-1].startswith("Blau hat") or said[-1].startswith("Bernstein hat")
        assert " würfelt " not in said[-1] and "gewürfelt" in said[-1]
        # the Settings screen turns speech off and sets the volume
        app.act("menu")
        app.act("settings")
        app.act("setting-down", "volume")
        assert app.settings.volume == 70 and speaker.volume == 70
        app.act("setting-up", "speech")
        assert app.settings.speech is False and speaker.enabled is False
    finally:
        speaker.close()


def test_a_missing_audio_device_is_one_reason_not_a_crash(mixer, monkeypatch, capfd):
    monkeypatch.setenv("SDL_AUDIODRIVER", "no-such-driver")
    problem = speech.open_mixer()
    assert problem.startswith("no audio device (")
    assert capfd.readouterr().err == ""  # alsa-lib's own complaints are kept off the terminal
    speaker = Speaker(lambda: "en")
    assert speaker.problem.startswith("no audio device") or speaker.problem == (
        "espeak-ng is not installed"
    )
    speaker.close()


def test_ring_squares_are_said_as_numbers():
    assert speech.speakable("Put your stone on r1-5") == "Put your stone on r1 5"
    assert speech.speakable("Blau besetzt die Mittelfelder 1-2-3") == (
        "Blau besetzt die Mittelfelder 1 2 3"
    )
