"""A producer's read of a line, made ready to direct a take: trimmed, checked, aligned.

The read is trimmed to its speech by the voice-activity detector the table read
uses (silero-vad where installed: it tells speech from breath and room noise),
then asked two questions:

1. Does it say this line? pocketsphinx biased to the line, with the lines around
   it (and the role's others) as the words a different sentence would use, hears
   it (the speech check's recognizer and scoring: engine/check/speech.py). A read
   that scores under :data:`MIN_SCORE` is another sentence.
2. Where does each word lie? pocketsphinx's forced alignment of the line's words
   (engine/listen/align.py). A read that cannot be aligned is refused too.

Silence, noise, another sentence and an unaligned read each get one line saying
so, and no take. The words' times are then put on the voice models' clock:
pocketsphinx starts a word :data:`ONSET_LEAD_S` before a model's own durations
do and ends it :data:`END_LAG_S` after (measured on the bundled voices' clips,
docs/dev/direct-by-voice.md), so the take's words land on the read's.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from engine.check.pronounce import unknown_words
from engine.check.speech import compare_words, text_words
from engine.listen.align import align_words
from engine.listen.recognizer import Recognizer, RecognizerUnavailable, pronunciations
from engine.listen.vad import FRAME, VAD_RATE, SpeechTracker, make_detector
from engine.project.direction import spoken_text

MIN_SCORE = 0.6  # the share of the line's words (function words a quarter) a read must be heard to say
MIN_SPEECH_S = 0.25
MAX_READ_S = 120.0
# The recognizer's and the voice-activity detector's rate: a read below it has lost the
# consonants they tell words by (a phone line's 8 kHz), and upsampled it would only seem whole.
MIN_READ_RATE = VAD_RATE
PAD_S = 0.15  # kept either side of the speech (as a recorded take keeps: engine/rehearse/takes.py)
ONSET_LEAD_S = 0.02
END_LAG_S = 0.015
_CONTEXT_LINES = 24  # at most this many other lines give the recognizer its other words


class ReadRefused(ValueError):
    """The read cannot direct this line; the message (one line) says why."""


@dataclass(frozen=True)
class AlignedRead:
    """The read trimmed to its speech (mono float32 at ``rate``), its words (start, end,
    phonemes: the models' clock, seconds of ``audio``), and what the recognizer heard."""

    audio: np.ndarray
    rate: int
    words: tuple[tuple[float, float, int], ...]
    heard: tuple[str, ...]
    score: float


def speech_bounds(audio16: np.ndarray) -> tuple[float, float] | None:
    """(start, end) seconds of the speech in ``audio16`` (16 kHz), or None when there is none."""
    first: float | None = None
    last: float | None = None
    # The tracker keeps the latest stretch; a read with pauses has several: the first start is kept.
    tracker = SpeechTracker(make_detector("auto"), VAD_RATE)
    for k in range(0, audio16.size, FRAME * 8):
        tracker.feed(audio16[k:k + FRAME * 8])
        state = tracker.state
        if state.started_s is not None and first is None:
            first = state.started_s
        if state.last_voice_s is not None:
            last = state.last_voice_s
    if first is None or last is None or last - first < MIN_SPEECH_S:
        return None
    return first, last


def prepare_read(audio: np.ndarray, rate: int, text: str, *, lexicon: Mapping[str, str] | None = None,
                 context: Sequence[str] = (), language: str = "en-us") -> AlignedRead:
    """The read of the line ``text`` (as written: its directions are not read), trimmed,
    checked and aligned. Raises ReadRefused (one line) for silence, noise, another sentence
    or a read that cannot be aligned; RecognizerUnavailable without pocketsphinx."""
    import soxr

    if rate < MIN_READ_RATE:
        raise ReadRefused(f"the read is at {rate} Hz; record it at {MIN_READ_RATE} Hz or more (a phone's 8 kHz "
                          "has lost the consonants the words are told by)")
    samples = np.asarray(audio, dtype=np.float32)
    if samples.ndim > 1:
        samples = samples.mean(axis=1)
    if not samples.size or not np.isfinite(samples).all():
        raise ReadRefused("the read has no sound" if not samples.size else "the read has samples that are not "
                          "numbers (NaN or infinity)")
    if samples.size / rate > MAX_READ_S:
        raise ReadRefused(f"the read is {samples.size / rate:.0f} s long; one line's read is at most "
                          f"{MAX_READ_S:g} s")
    audio16 = np.asarray(soxr.resample(samples, rate, VAD_RATE, quality="HQ"), dtype=np.float32)
    bounds = speech_bounds(audio16)
    if bounds is None:
        raise ReadRefused("no speech in the read (silence or noise): read the line aloud")
    begin = max(0, int((bounds[0] - PAD_S) * rate))
    end = min(samples.size, int((bounds[1] + PAD_S) * rate))
    trimmed = np.ascontiguousarray(samples[begin:end])
    trimmed16 = audio16[int(begin * VAD_RATE / rate):int(end * VAD_RATE / rate)]
    spoken = spoken_text(text)
    expected = text_words(spoken, lexicon, language)
    if not expected:
        raise ReadRefused("the line has no words to read")
    others = [text_words(spoken_text(t), lexicon, language) for t in context[:_CONTEXT_LINES]]
    extra = unknown_words(expected + [w for words in others for w in words], pronunciations(), lexicon or {})
    try:
        recognizer = Recognizer([" ".join(expected)], [" ".join(w) for w in others if w], extra)
    except ValueError:
        raise ReadRefused("none of the line's words is in the recognizer's dictionary") from None
    # At one level, with a little silence either side: the recognizer's first and last
    # frames are noise, and its cepstral mean is the whole utterance's.
    peak = float(np.max(np.abs(trimmed16))) or 1.0
    pad = np.zeros(int(0.25 * VAD_RATE), dtype=np.float32)
    heard = [w.text for w in recognizer.recognize(np.concatenate([pad, trimmed16 / peak * 0.8, pad]))]
    score, _, _, _ = compare_words(expected, heard)
    if score < MIN_SCORE:
        said = " ".join(heard) if heard else "no words"
        raise ReadRefused(f"the read does not say this line: heard \"{said[:80]}\" ({score:.0%} of the line's "
                          "words)")
    aligned = align_words(trimmed16, expected, extra)
    if aligned is None:
        raise ReadRefused("the read could not be aligned to the line's words (read it again, closer to the text)")
    words = tuple((round(max(0.0, w.start_s + ONSET_LEAD_S), 4), round(max(w.start_s + ONSET_LEAD_S,
                   w.end_s - END_LAG_S), 4), phoneme_count(w.text, language)) for w in aligned)
    return AlignedRead(trimmed, rate, words, tuple(heard), score)


def phoneme_count(word: str, language: str = "en-us") -> int:
    """How many phonemes espeak-ng says ``word`` with (the weight the word aligner uses
    to pair the read's words with the clip's: engine/synth/wordmap.py)."""
    from engine.synth.espeak import clauses

    try:
        phonemes = "".join(p for p, _, _ in clauses(language, word))
    except RuntimeError:
        phonemes = word
    count = sum(1 for c in unicodedata.normalize("NFD", phonemes) if c.isalpha() or c in "ːˑ")
    return max(1, count)


__all__ = ["AlignedRead", "ReadRefused", "RecognizerUnavailable", "phoneme_count", "prepare_read", "speech_bounds"]
