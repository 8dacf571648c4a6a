"""A directed line synthesized as phrases, each performed its own way.

A line with directions (engine/project/direction.py) is planned as phrases:
the words between directions, each with the inference settings its delivery
asks for (the rate as the model's own length control: Piper's length_scale,
Kokoro's speed; the model's noise for Piper) and the shaping the rest of it
asks for (F0, formants, tilt: engine/synth/design.py; breath: engine/synth/breath.py;
the level offset). Phrases are inferred one after another with the take's seed
(the same seed gives the same audio) and joined with the silences the timing
directions ask for, so a ``(beat)`` is a real gap between the words around it.
A sound a delivery performs (a sigh, a light laugh) is laid before its phrase's
words, made from the phrase's own voice, and the words after it move with it.

A plain line (no directions, nothing performed) has no phrases and goes
through the synthesizer's one-settings path as it always did.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from engine.project.design import VoiceDesign
from engine.synth import breath
from engine.synth.backends.base import Inference, InferenceSettings, LoadedVoice, PhonemeUnit
from engine.synth.design import apply_design, shaping_method
from engine.synth.wordtimes import ClipWords
from engine.synth.world import WHISPER_METHOD

# Silence between two phrases that no timing direction and no punctuation parts:
# a change of delivery mid-sentence ("Come here (quietly) and sit").
JOIN_PAUSE_S = 0.05


@dataclass(frozen=True)
class PhrasePlan:
    """``units``: how many of the plan's text units are this phrase's, in order."""

    units: int
    pause_before: float
    settings: InferenceSettings
    design: VoiceDesign  # what shaping does to the phrase (its rate is in ``settings`` already)
    phrase_pause: float  # added after each sentence or clause inside the phrase
    ends_clause: bool  # its words end in punctuation (the model's own pause follows them)
    breath: float = 0.0  # the breath stage's aspiration (1 = a whisper)
    sound: str = ""  # a sound performed before the words (deliveries.SOUNDS)

    def key(self) -> list[object]:
        """What of the phrase changes its audio (part of the clip key)."""
        s = self.settings
        key: list[object] = [self.units, round(self.pause_before, 4), round(s.length_scale, 6),
                             round(s.noise_scale, 6), round(s.noise_w_scale, 6), self.design.to_dict(),
                             round(self.phrase_pause, 4), self.ends_clause]
        method = shaping_method(self.design)
        if method is not None:
            key.append(method)  # a shaped phrase is new samples when its method changes
        if self.design.breathiness >= 1.0:
            key.append(WHISPER_METHOD)
        if self.breath > 0.0 or self.sound:
            key += [round(self.breath, 4), self.sound, breath.BREATH_METHOD]
        return key


def phonemize_phrases(model: LoadedVoice, texts: Sequence[str], phrases: Sequence[PhrasePlan],
                      language: str) -> list[PhonemeUnit]:
    """Every phrase's units, tagged with their phrase, with the silences between them."""
    out: list[PhonemeUnit] = []
    pos = 0
    for index, phrase in enumerate(phrases):
        units = model.phonemize(list(texts[pos:pos + phrase.units]), language)
        pos += phrase.units
        following = phrases[index + 1] if index + 1 < len(phrases) else None
        for k, unit in enumerate(units):
            pause = unit.pause_after + phrase.phrase_pause
            if k == len(units) - 1 and following is not None:
                pause = following.pause_before if following.pause_before > 0 else (
                    unit.pause_after if phrase.ends_clause else JOIN_PAUSE_S)
            out.append(replace(unit, pause_after=pause, phrase=index))
    return out


def infer_phrases(model: LoadedVoice, units: Sequence[PhonemeUnit],
                  phrases: Sequence[PhrasePlan]) -> list[Inference]:
    """Each phrase's units through the model with that phrase's settings."""
    out: list[Inference] = []
    start = 0
    while start < len(units):
        end = start
        while end < len(units) and units[end].phrase == units[start].phrase:
            end += 1
        out += model.infer_timed(list(units[start:end]), phrases[units[start].phrase].settings)
        start = end
    return out


def phrase_spans(pieces: Sequence[np.ndarray], pauses: Sequence[float], phrase_of: Sequence[int],
                 sample_rate: int) -> dict[int, tuple[int, int]]:
    """Where each phrase lies in the joined line (samples), as shaping.join lays pieces out."""
    spans: dict[int, tuple[int, int]] = {}
    pos = 0
    for i, piece in enumerate(pieces):
        lo, _ = spans.get(phrase_of[i], (pos, pos))
        spans[phrase_of[i]] = (lo, pos + piece.size)
        pos += piece.size
        if i < len(pieces) - 1:
            pos += int(pauses[i] * sample_rate)
    return spans


def apply_gains(audio: np.ndarray, spans: dict[int, tuple[int, int]], phrases: Sequence[PhrasePlan]) -> None:
    """Each phrase's level offset, after the line was levelled (a shout stays louder than
    the same line said plainly)."""
    for index, (lo, hi) in spans.items():
        gain = phrases[index].design.gain
        if gain:
            audio[lo:hi] *= np.float32(10 ** (gain / 20))


def shaped(piece: np.ndarray, rate: int, phrase: PhrasePlan) -> np.ndarray:
    """One sentence of a phrase through its design, then its breath."""
    return breath.aspirate(apply_design(piece, rate, phrase.design), rate, phrase.breath)


# The sound before a phrase's words, and the silence between it and them.
SOUND_GAP_S = {"sigh": 0.15, "laugh": 0.12}


def sound_of(kind: str, voice: np.ndarray, rate: int) -> np.ndarray:
    """The sound ``kind`` (deliveries.SOUNDS) made from ``voice``, its phrase as performed."""
    if kind == "sigh":
        return breath.exhale(voice, rate)
    if kind == "laugh":
        return breath.chuckle(voice, rate)
    raise ValueError(f"unknown performed sound {kind!r}")


def add_sounds(audio: np.ndarray, spans: dict[int, tuple[int, int]], phrases: Sequence[PhrasePlan],
               rate: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """``audio`` with each phrase's sound laid before its words, and where each was put
    in (sample position in ``audio`` before any insertion, inserted length): what moves the words."""
    inserted: list[tuple[int, int]] = []
    parts: list[np.ndarray] = []
    pos = 0
    for index in sorted(spans):
        kind = phrases[index].sound
        lo, hi = spans[index]
        if not kind or hi <= lo:
            continue
        sound = sound_of(kind, audio[lo:hi], rate)
        if sound.size == 0:
            continue
        block = np.concatenate([sound, np.zeros(int(SOUND_GAP_S.get(kind, 0.1) * rate), dtype=np.float32)])
        parts += [audio[pos:lo], block.astype(np.float32)]
        inserted.append((lo, block.size))
        pos = lo
    if not inserted:
        return audio, []
    parts.append(audio[pos:])
    return np.concatenate(parts), inserted


def moved_words(words: ClipWords | None, inserted: Sequence[tuple[int, int]], rate: int) -> ClipWords | None:
    """Word timings after :func:`add_sounds`: a word at or after an insertion moves by its length."""
    if words is None or not inserted:
        return words

    def shift(t: float) -> float:
        return t + sum(length for at, length in inserted if t * rate >= at - 1) / rate

    return ClipWords(tuple((shift(s), shift(s) + (e - s), p) for s, e, p in words.words), words.estimated)
