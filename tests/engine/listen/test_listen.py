"""Listening (engine/listen/): voice activity, the recognizer, following a line.

Speech comes from espeak-ng, a synthesizer unlike the cast's voices, with
room noise; the models are the real ones the packages ship.
"""

from __future__ import annotations

import numpy as np
import pytest
import soundfile

from engine.listen.follow import RecognizerFollower, progress_of
from engine.listen.vad import EnergyVad, SileroVad, SpeechTracker, make_detector, silero_model_path
from engine.listen.words import spoken_words
from engine.rehearse.reader import speech_span
from tests.support.rehearse import espeak, needs_espeak

TEXT = "He kept the lamp burning for forty years without a single night off."
RATE = 48_000


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, float, float]:
    """(audio at 48 kHz with 0.5 s of room noise either side, speech start, speech end)."""
    from engine.synth.shaping import resample

    path = tmp_path_factory.mktemp("speech") / "line.wav"
    espeak(TEXT, path)
    audio, rate = soundfile.read(str(path), dtype="float32")
    audio = resample(audio, rate, RATE)
    noise = np.random.default_rng(5).normal(0.0, 1e-3, RATE // 2).astype(np.float32)
    padded = np.concatenate([noise, audio, noise])
    start, end = speech_span(padded, RATE)
    return padded, start, end


def test_words_are_compared_as_spoken() -> None:
    assert spoken_words("In 1962 it cost £20, 50% more!") == [
        "in", "nineteen", "sixty", "two", "it", "cost", "twenty", "pounds", "fifty", "percent", "more"]
    assert spoken_words("2005, 1905 and 312") == ["two", "thousand", "and", "five", "nineteen", "oh", "five", "and",
                                                  "three", "hundred", "and", "twelve"]


@needs_espeak
@pytest.mark.parametrize("kind", ["silero", "energy"])
def test_speech_starts_and_ends_where_the_recording_does(kind: str, speech: tuple[np.ndarray, float, float]) -> None:
    audio, start, end = speech
    tracker = SpeechTracker(make_detector(kind), RATE)
    for k in range(0, audio.size, 960):  # 20 ms buffers, as a microphone delivers them
        tracker.feed(audio[k:k + 960])
    state = tracker.state
    assert state.started_s is not None and state.last_voice_s is not None
    assert abs(state.started_s - start) < 0.1
    assert abs(state.last_voice_s - end) < 0.1
    assert not state.speaking  # a second of silence closed the stretch


@pytest.mark.parametrize("detector", [SileroVad, EnergyVad])
def test_room_noise_is_not_speech(detector: type) -> None:
    # silero-vad is in the test extra (through [rehearse]): a missing model is a broken set-up, not a skip.
    assert detector is not SileroVad or silero_model_path() is not None, "silero-vad's model is not installed"
    tracker = SpeechTracker(detector(), 16_000)
    rng = np.random.default_rng(9)
    tracker.feed(rng.normal(0.0, 3e-3, 16_000 * 3).astype(np.float32))
    assert tracker.state.started_s is None


@needs_espeak
def test_the_follower_knows_mid_line_from_the_end(speech: tuple[np.ndarray, float, float]) -> None:
    audio, start, end = speech
    follower = RecognizerFollower(TEXT)
    tracker = SpeechTracker(SileroVad() if silero_model_path() else EnergyVad(), RATE)
    middle = int((start + 0.45 * (end - start)) * RATE)
    follower.feed(tracker.feed(audio[:middle]))
    half = follower.progress()
    assert not half.complete
    assert 0 < half.heard < half.total
    assert half.next_words and half.next_words[0] in spoken_words(TEXT)
    follower.feed(tracker.feed(audio[middle:]))
    whole = follower.progress()
    assert whole.complete and whole.coverage >= 0.8
    follower.close()


def test_alignment_tolerates_paraphrase_but_not_a_stop_mid_line() -> None:
    words = spoken_words(TEXT)
    known = list(range(len(words)))
    paraphrase = "he kept the lamp lit for forty years without one night off".split()
    assert progress_of(words, known, paraphrase).complete
    stopped = "he kept the lamp burning for forty".split()
    progress = progress_of(words, known, stopped)
    assert not progress.complete and progress.next_words[:2] == ("years", "without")
