"""Did a clip say its text, and say it cleanly?

One clip against its line's text, offline: the recognizer shared with the
table read (engine.listen: pocketsphinx with a small language model built
from the line and its neighbours, the clip decoded as one utterance) hears
the words, which are aligned with the words of the text to find missing,
extra and garbled ones; the voice-activity detector (engine.listen.vad)
finds long silences inside the line; the samples show clipping; and the
length is compared with the one predicted from the phonemes.

The score is the share of the text's words heard where they belong (short
function words count a quarter: the recognizer drops them often); a line is
flagged when a content word is missing or garbled, when the score is low,
or when any of the other checks fails. Thresholds were chosen on the
bundled sample (README: Speech check).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from engine.check.pronounce import unknown_words
from engine.listen.recognizer import Recognizer, pronunciations
from engine.listen.vad import FRAME_S, VAD_RATE, SpeechTracker, VoiceDetector, make_detector
from engine.listen.words import spoken_words
from engine.synth import shaping
from engine.synth.frontend import lexicon_spans

SCORE_MIN = 0.75  # below this share of the words heard, a line is flagged
LONG_SILENCE_S = 1.2  # a pause inside a line longer than this (sentence pauses are ~0.3 s)
CLIP_LEVEL = 0.999  # a sample at full scale
CLIP_RUN = 3  # consecutive full-scale samples held at one value: clipped, not a peak that touches the ceiling
FLAT = 1e-6  # neighbours closer than this are one held value (a cut-off waveform), not a smooth crest
LENGTH_RATIO = (0.5, 1.9)  # actual / predicted length outside this: something went wrong
# Words the recognizer drops or mishears most, and whose loss changes no meaning.
FUNCTION_WORDS = frozenset(
    "a an the of to in on at and or but is it its it's as for by be was we i you he she they that this "
    "are am m s".split())


@dataclass(frozen=True)
class ClipCheck:
    score: float  # 0..1: the share of the text's words heard where they belong
    flagged: bool
    reason: str  # what is wrong, for a person ("" when nothing is)
    suspect: tuple[str, ...] = ()  # words of the text not heard (missing or garbled)
    heard: tuple[str, ...] = ()
    problems: tuple[str, ...] = field(default=())


def text_words(text: str, lexicon: Mapping[str, str] | None = None, language: str = "en-us") -> list[str]:
    """The words a line's text should be heard as: its spoken form, as the voice
    was given it (engine.text: "£20" is "twenty pounds", "Dr." "doctor"); a
    word the lexicon has an entry for is expected as written (said as its entry says)."""
    return spoken_words(text, language, lexicon_spans(text, lexicon) if lexicon else ())


def _weight(word: str) -> float:
    return 0.25 if word in FUNCTION_WORDS else 1.0


def compare_words(expected: Sequence[str], heard: Sequence[str]) -> tuple[float, list[str], list[str], list[str]]:
    """(score, missing, garbled, extra) of ``heard`` against ``expected``. A
    word heard out of its place (moved within the line) is not an error."""
    matcher = difflib.SequenceMatcher(a=list(expected), b=list(heard), autojunk=False)
    missing: list[str] = []
    garbled: list[str] = []
    extra: list[str] = []
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            continue
        lost, added = list(expected[a1:a2]), list(heard[b1:b2])
        if op == "replace":
            garbled += lost
            extra += added[len(lost):]
        elif op == "delete":
            missing += lost
        else:
            extra += added
    for word in list(missing) + list(garbled):
        if word in extra:  # heard, just not where the alignment looked for it
            extra.remove(word)
            (missing if word in missing else garbled).remove(word)
    total = sum(_weight(w) for w in expected) or 1.0
    lost_weight = sum(_weight(w) for w in missing + garbled) + 0.5 * sum(_weight(w) for w in extra)
    return max(0.0, 1.0 - lost_weight / total), missing, garbled, extra


def _to_16k(audio: np.ndarray, rate: int) -> np.ndarray:
    audio = np.asarray(audio, dtype=np.float32).reshape(-1)
    if rate == VAD_RATE:
        return audio
    import soxr

    return np.asarray(soxr.resample(audio, rate, VAD_RATE), dtype=np.float32)


def longest_inner_silence(audio16: np.ndarray, detector: VoiceDetector | None = None) -> tuple[float, float]:
    """(seconds, where) of the longest silence between the first and last speech
    (silero-vad where installed, else the energy detector)."""
    detector = detector or make_detector("auto")
    tracker = SpeechTracker(detector, VAD_RATE)
    frames = audio16.size // int(FRAME_S * VAD_RATE)
    voiced = np.zeros(frames, dtype=bool)
    step = int(FRAME_S * VAD_RATE)
    for k in range(frames):
        voiced[k] = detector.probability(audio16[k * step:(k + 1) * step]) >= tracker.off
    where = np.flatnonzero(voiced)
    if where.size < 2:
        return 0.0, 0.0
    best, at, run, start = 0, 0, 0, 0
    for k in range(int(where[0]), int(where[-1]) + 1):
        if voiced[k]:
            run = 0
            continue
        if run == 0:
            start = k
        run += 1
        if run > best:
            best, at = run, start
    return best * FRAME_S, at * FRAME_S


def clipped(audio: np.ndarray) -> bool:
    """Runs of full-scale samples held at one value: the waveform was cut off.

    A float clip may swing past full scale with a smooth crest (a loud line at
    the per-line loudness can peak at 1.1): that is not clipping, the mix's gain
    staging brings it under 0 dBFS before anything is written as PCM. What was
    cut off (a clamped float, a clipped recording) sits flat at its ceiling."""
    samples = np.asarray(audio, dtype=np.float32).reshape(-1)
    magnitude = np.abs(samples)
    if int((magnitude >= CLIP_LEVEL).sum()) < CLIP_RUN:
        return False
    held = (magnitude[1:] >= CLIP_LEVEL) & (np.abs(np.diff(samples)) <= FLAT)
    runs = np.convolve(held.astype(np.int8), np.ones(CLIP_RUN - 1, dtype=np.int8), mode="valid")
    return bool((runs >= CLIP_RUN - 1).any())


def check_clip(audio: np.ndarray, rate: int, text: str, *, lexicon: Mapping[str, str] | None = None,
               context: Sequence[str] = (), predicted_s: float | None = None, pitch: float = 0.0,
               language: str = "en-us") -> ClipCheck:
    """Check one clip against its text (see the module docstring). ``pitch``:
    the semitones the role's voice was shifted by, undone before listening
    (the recognizer knows natural voices; a voice 5 semitones down lost it
    words)."""
    samples = np.asarray(audio).reshape(-1)
    if samples.size == 0 or not np.isfinite(samples).all():
        # Nothing to hear (the recognizer indexes past an empty buffer), or samples that are
        # not numbers: flagged as they are, without listening.
        reason = "no sound: the clip is empty" if samples.size == 0 else "samples that are not numbers (NaN or infinity)"
        return ClipCheck(0.0, True, reason, problems=(reason,))
    problems: list[str] = []
    audio16 = _to_16k(audio, rate)
    if pitch:
        audio16 = np.asarray(shaping.pitch_shift(audio16, VAD_RATE, -pitch), dtype=np.float32)
    expected = text_words(text, lexicon, language)
    context_words = [text_words(t, lexicon, language) for t in context]
    extra_words = unknown_words(expected + [w for words in context_words for w in words], pronunciations(),
                                lexicon or {})
    heard: list[str] = []
    score, missing, garbled, extra = 1.0, list[str](), list[str](), list[str]()
    if expected:
        recognizer = Recognizer([" ".join(expected)], [" ".join(words) for words in context_words], extra_words)
        heard = [re.sub(r"\(\d+\)$", "", w.text) for w in recognizer.recognize(audio16)]
        score, missing, garbled, extra = compare_words(expected, heard)
        content = [w for w in missing + garbled if w not in FUNCTION_WORDS]
        if garbled:
            problems.append("garbled: " + " ".join(garbled))
        if missing:
            problems.append("missing: " + " ".join(missing))
        if extra and len([w for w in extra if w not in FUNCTION_WORDS]) >= 2:
            problems.append("extra: " + " ".join(extra))
        word_trouble = bool(content) or score < SCORE_MIN
    else:
        word_trouble = False
    silence, at = longest_inner_silence(audio16)
    if silence > LONG_SILENCE_S:
        problems.append(f"silence of {silence:.1f} s at {at:.1f} s")
    if clipped(audio):
        problems.append("clipping")
    length = audio.shape[0] / rate
    if predicted_s and not LENGTH_RATIO[0] <= length / predicted_s <= LENGTH_RATIO[1]:
        problems.append(f"{length:.1f} s long, {predicted_s:.1f} s expected")
    flagged = word_trouble or any(not p.startswith(("garbled", "missing", "extra")) for p in problems)
    if flagged and not problems:
        problems.append(f"only {score:.0%} of the words heard")
    return ClipCheck(round(score, 3), flagged, "; ".join(problems) if flagged else "",
                     tuple(missing + garbled) if flagged else (), tuple(heard), tuple(problems))
