"""Where each spoken word of a clip lies, from the model's own durations.

Piper's graph (patched in engine.synth.backends.piper.backend) outputs how many
frames of ``hop_length`` samples each phoneme id lasts; espeak-ng separates
words with a space phoneme, so a word is the run of ids between two space
ids. Those spans are measured on the raw model audio of each unit; the clip
is that audio trimmed, joined with pauses, pitch-shifted (length kept) and
resampled (seconds kept), so a span moves only by the trim and by the units
and pauses before it (:func:`clip_words`).

Kokoro's published graphs output no durations: its words are spread over
each unit's voiced audio in proportion to their phoneme counts and marked
``estimated``.

What is kept per clip is these *spoken* words (start, end, phonemes), not
the written ones: one clip serves every line with the same spoken text, and
engine.synth.words maps them onto a line's written words when asked. They
travel with the clip in the cache as a small versioned JSON sidecar
(:func:`dumps` / :func:`loads`); a clip without one (an older cache) simply
has no timings.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

SIDECAR_VERSION = 1


@dataclass(frozen=True)
class UnitWords:
    """The spoken words of one unit (one inference).

    ``phonemes``: per word, how many sounding ids it has (the estimate's
    weights and the aligner's lengths). ``spans``: per word, (start, end) in
    seconds of the unit's raw model audio, or None when the model gave no
    durations."""

    phonemes: tuple[int, ...]
    spans: tuple[tuple[float, float], ...] | None


@dataclass(frozen=True)
class ClipWords:
    """The spoken words of a finished clip: (start_s, end_s, phonemes) each,
    in clip seconds; ``estimated`` when they are spread by phoneme counts."""

    words: tuple[tuple[float, float, int], ...]
    estimated: bool


def unit_words(ids: Sequence[int], separators: Collection[int], silent: Collection[int],
               samples_per_id: np.ndarray | None, sample_rate: int) -> UnitWords:
    """Split one unit's ids at ``separators`` (the space id). ``silent`` ids
    (pads, sentence marks, punctuation, stress marks) belong to no word's
    sound: a word runs from its first sounding id to the end of its last
    one, so the pause a comma makes is not counted into the word before it."""
    words: list[tuple[int, int]] = []  # (first, last) sounding id index
    counts: list[int] = []
    first = last = -1
    count = 0
    for i, token in enumerate(ids):
        if token in separators:
            if count:
                words.append((first, last))
                counts.append(count)
            first, count = -1, 0
        elif token not in silent:
            if count == 0:
                first = i
            last = i
            count += 1
    if count:
        words.append((first, last))
        counts.append(count)
    if samples_per_id is None:
        return UnitWords(tuple(counts), None)
    edges = np.concatenate(([0.0], np.cumsum(np.asarray(samples_per_id, dtype=np.float64)))) / sample_rate
    spans = tuple((float(edges[a]), float(edges[b + 1])) for a, b in words)
    return UnitWords(tuple(counts), spans)


def clip_words(units: Sequence[UnitWords], bounds: Sequence[tuple[int, int]], pauses: Sequence[float],
               sample_rate: int) -> ClipWords:
    """Place each unit's words in the finished clip.

    ``bounds``: per unit, the (start, end) sample of its raw audio that the
    trim kept; ``pauses``: the silence after each unit (shaping.join adds
    ``int(pause * rate)`` samples between units, none after the last)."""
    out: list[tuple[float, float, int]] = []
    estimated = False
    offset = 0  # samples of the clip before this unit
    for i, (words, (lo, hi)) in enumerate(zip(units, bounds, strict=True)):
        kept = max(0, hi - lo)
        start_s, end_s = offset / sample_rate, (offset + kept) / sample_rate
        if words.spans is None:
            estimated = True
            spans = _spread(words.phonemes, start_s, end_s)
        else:
            spans = [(min(max(offset + a * sample_rate - lo, offset), offset + kept) / sample_rate,
                      min(max(offset + b * sample_rate - lo, offset), offset + kept) / sample_rate)
                     for a, b in words.spans]
        out += [(round(a, 4), round(b, 4), n) for (a, b), n in zip(spans, words.phonemes, strict=True)]
        offset += kept
        if i < len(units) - 1:
            offset += int(pauses[i] * sample_rate)
    return ClipWords(tuple(out), estimated)


def _spread(weights: Sequence[int], start: float, end: float) -> list[tuple[float, float]]:
    """Words laid end to end over [start, end] in proportion to their weights."""
    total = sum(weights) or 1
    edges = start + (end - start) * np.concatenate(([0.0], np.cumsum(weights))) / total
    return [(float(edges[i]), float(edges[i + 1])) for i in range(len(weights))]


def dumps(words: ClipWords) -> str:
    return json.dumps({"version": SIDECAR_VERSION, "estimated": words.estimated,
                       "words": [list(w) for w in words.words]}, separators=(",", ":"))


def loads(text: str) -> ClipWords | None:
    """A sidecar back, or None when it is of another version or damaged
    (the clip is still good; only its timings are missing)."""
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("version") != SIDECAR_VERSION:
            return None
        words = tuple((float(a), float(b), int(n)) for a, b, n in data["words"])
        return ClipWords(words, bool(data["estimated"]))
    except (ValueError, TypeError, KeyError):
        return None
