"""A line's written words, timed from its clip's spoken words.

espeak-ng's words are not the script's: it joins unstressed words ("of the"
-> ``ʌvðə``), reads "42" as two words, splits "12/05" at the slash, and the
lexicon may have replaced a word by a respelling of several. So the written
words are aligned to the spoken ones (engine.synth.wordtimes) the way
sentence aligners do (Gale and Church): a monotone alignment of groups, one
written word to one, two or three spoken words or back, each group costing
how far its lengths disagree (written letters, lexicon applied, against
phonemes), ties broken toward one-to-one. Most lines align one to one.

Written words are what the script shows: markup tags, directions in
parentheses or brackets (engine/project/direction.py) and ``[[phoneme]]``
blocks are not words (a block's sound falls between its neighbours).

A written form the normalizer says as words (engine.text: "£3.50" is "three
pounds fifty") weighs what it is said as, shared among the written words it
spans ("11:20" is two written words, "eleven twenty"); one that covers no
written word ("&") adds to the word before it. So the aligner groups "3.50"
with the three spoken words it became, and captions time the written form.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping

from engine.project.direction import direction_spans
from engine.synth import espeak
from engine.synth.cache import ClipCache
from engine.synth.frontend import _STAGE, _TAG, split_phonemes
from engine.synth.synthesizer import ClipPlan
from engine.synth.word_pairs import align
from engine.synth.wordtimes import ClipWords
from engine.text import normalize

WordTime = tuple[str, float, float]  # (word, start_s, end_s) within the clip

_WORD = re.compile(r"[^\W_]+(?:['’.,\-][^\W_]+)*")


def written_words(text: str) -> tuple[tuple[str, int, int], ...]:
    """(word, start, end) character positions in ``text`` of each word the script shows."""
    hidden = bytearray(len(text))
    pos = 0
    for block, part in split_phonemes(text):
        if block:
            hidden[pos:pos + len(part)] = b"\1" * len(part)
        pos += len(part)
    for pattern in (_TAG, _STAGE):
        for m in pattern.finditer(text):
            hidden[m.start():m.end()] = b"\1" * (m.end() - m.start())
    for start, end in direction_spans(text):
        hidden[start:end] = b"\1" * (end - start)
    return tuple((m.group(), m.start(), m.end()) for m in _WORD.finditer(text) if not any(hidden[m.start():m.end()]))


def _spoken_length(word: str, lexicon: Mapping[str, str], language: str) -> float:
    """How many phonemes a written word becomes on its own: espeak-ng's
    reading of it after the lexicon (``lexicon``: the entries the line used,
    by lower case), counted as the model's ids are (no stress marks); a
    ``[[phoneme]]`` replacement counts its phonemes. Looked up here rather
    than through apply_lexicon, whose index cache holds a production's whole
    lexicon and must not be churned by one small mapping per line."""
    said = lexicon.get(word.lower(), word)
    total = 0
    for block, part in split_phonemes(said):
        total += _count(part[2:-2]) if block else _phonemes(part, language)
    return float(max(total, 1))


def _count(phonemes: str) -> int:
    return sum(1 for c in unicodedata.normalize("NFD", phonemes) if c.isalpha() or c in "ːˑ")


@functools.lru_cache(maxsize=65_536)
def _phonemes(text: str, language: str) -> int:
    """Phonemes of ``text`` read alone (cached: a production repeats its words)."""
    for voice in (language.lower().replace("_", "-"), "en-us"):
        try:
            return sum(_count(p) for p, _, _ in espeak.clauses(voice, text))
        except RuntimeError:  # espeak-ng has no such voice
            continue
    return sum(1 for c in text if c.isalnum())


def _written_lengths(text: str, words: tuple[tuple[str, int, int], ...], used: Mapping[str, str],
                     language: str) -> list[float]:
    """Each written word's weight: its phonemes as said (see the module docstring).
    A word the lexicon replaced is weighed by its entry, never by a rewrite."""
    lengths = [_spoken_length(w, used, language) if w.lower() in used else 0.0 for w, _, _ in words]
    said = [False] * len(words)
    for rewrite in normalize(text, language).rewrites:
        spans = [(k, min(e, rewrite.end) - max(s, rewrite.start)) for k, (w, s, e) in enumerate(words)
                 if s < rewrite.end and rewrite.start < e and w.lower() not in used]
        if any(w.lower() in used for w, s, e in words if s < rewrite.end and rewrite.start < e):
            continue
        weight = float(_phonemes(rewrite.spoken, language))
        if not spans:
            if any(c.isalnum() for c in rewrite.written):
                continue  # inside what is not a written word (a direction, a tag): not said
            # "&": said between written words, weighed with the one before
            before = [k for k, (_, s, _) in enumerate(words) if s < rewrite.start]
            spans = [(before[-1] if before else 0, 1)]
        total = sum(n for _, n in spans) or 1
        for k, n in spans:
            lengths[k] += weight * n / total
            said[k] = True
    return [length if said[k] or length else _spoken_length(words[k][0], used, language)
            for k, length in enumerate(lengths)]


def word_times(text: str, clip: ClipWords | None, lexicon: Mapping[str, str] | None = None,
               language: str = "en-us") -> tuple[WordTime, ...]:
    """The line's written words with their (start, end) in the clip, in order;
    empty when the clip's words are not known. ``language``: the voice's
    (espeak-ng reads each written word alone to weigh it)."""
    words = written_words(text)
    if clip is None or not clip.words or not words:
        return ()
    used = {key.lower(): say for key, say in (lexicon or {}).items()}
    lengths = _written_lengths(text, words, used, language)
    spoken = clip.words
    out: list[WordTime] = []
    last_end = spoken[0][0]
    for w0, w1, s0, s1 in align(lengths, [max(n, 1) for _, _, n in spoken]):
        if s1 > s0:
            start, end = spoken[s0][0], spoken[s1 - 1][1]
        else:  # a written word no spoken word matched: an instant where it would be
            start = end = last_end
        share = sum(lengths[w0:w1]) or 1.0
        at = start
        for k in range(w0, w1):
            step = (end - start) * lengths[k] / share
            out.append((words[k][0], round(at, 4), round(at + step, 4)))
            at += step
        last_end = end
    return tuple(out)


def line_words(text: str, plan: ClipPlan, cache: ClipCache) -> tuple[WordTime, ...]:
    """A line's written words timed within the clip its plan names (empty when
    the cache has no timings for it). The lexicon is the entries the plan used."""
    return word_times(text, cache.words(plan.key), dict(plan.prepared.lexicon_used), plan.voice.language)
