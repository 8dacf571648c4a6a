"""One line's caption as cues: at most two rows of 42 characters each.

That is the broadcast convention (BBC, EBU-TT-D and Netflix's timed-text
style guides: 37 to 42 characters a row, two rows a subtitle); a longer
line is split into several cues at word boundaries, each shown from when
its first word is spoken (the clip's word timings, engine.synth.wordmap)
until the next one's. A line whose clip has no timings (a recording, a clip
from an older cache) is split where its characters say, in proportion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.synth.wordmap import WordTime, written_words

ROW_CHARS = 42
ROWS = 2
_MIN_GAP = 0.001  # a cue lasts at least this long; word stamps lie strictly inside their cue


@dataclass(frozen=True)
class Cue:
    """``rows``: the text rows (plain). ``stamps``: (row, character, seconds)
    of each word after the first that begins at a known time, for WebVTT's
    inline timestamps."""

    start: float
    end: float
    rows: tuple[str, ...]
    stamps: tuple[tuple[int, int, float], ...]


def split_caption(text: str, start: float, end: float, words: Sequence[WordTime] = (),
                  prefix: int = 0, row_chars: int = ROW_CHARS, rows: int = ROWS) -> list[Cue]:
    """``text``: the caption (single spaces); ``start``/``end``: the line on
    the timeline; ``words``: its written words timed within the clip (empty
    when unknown); ``prefix``: characters the first row of every cue gives
    to a speaker label ("ROLE: ")."""
    tokens = text.split(" ") if text else [""]
    times, timed = _token_times(text, tokens, start, end, words)
    laid = _rows(tokens, row_chars, rows, prefix)
    cues: list[Cue] = []
    bounds: list[float] = []
    for first in range(0, len(laid), rows):
        group = laid[first:first + rows]
        at = start if not cues else max(times[group[0][0]], bounds[-1] + _MIN_GAP)
        bounds.append(at)
        cues.append(Cue(at, end, tuple(" ".join(tokens[a:b]) for a, b in group), ()))
    out = []
    for i, cue in enumerate(cues):
        cue_end = bounds[i + 1] if i + 1 < len(cues) else max(end, cue.start + _MIN_GAP)
        group = laid[i * rows:(i + 1) * rows]
        stamps = []
        last = cue.start
        for row, (a, b) in enumerate(group):
            column = 0
            for k in range(a, b):
                t = times[k]
                if timed and k != group[0][0] and last < t < cue_end:
                    stamps.append((row, column, t))
                    last = t
                column += len(tokens[k]) + 1
        out.append(Cue(cue.start, cue_end, cue.rows, tuple(stamps)))
    return out


def _rows(tokens: list[str], row_chars: int, rows_per_cue: int, prefix: int) -> list[tuple[int, int]]:
    """(first token, end token) of each row, greedy; the first row of each cue is ``prefix`` shorter."""
    rows: list[tuple[int, int]] = []
    begin, width = 0, 0
    for k, token in enumerate(tokens):
        room = row_chars - (prefix if len(rows) % rows_per_cue == 0 else 0)
        grown = width + (1 if k > begin else 0) + len(token)
        if k > begin and grown > room:
            rows.append((begin, k))
            begin, width = k, len(token)
        else:
            width = grown
    rows.append((begin, len(tokens)))
    return rows


def _token_times(text: str, tokens: list[str], start: float, end: float,
                 words: Sequence[WordTime]) -> tuple[list[float], bool]:
    """When each token begins on the timeline: the start of the first written
    word in it, else (a stage direction, a dash) the next word's; without
    timings (or timings of other words), in proportion to its characters.
    The flag says whether they are the words' timings."""
    n = len(tokens)
    offsets = []
    pos = 0
    for token in tokens:
        offsets.append(pos)
        pos += len(token) + 1
    found = written_words(text)
    if words and [w for w, _, _ in found] == [w for w, _, _ in words]:
        times: list[float | None] = [None] * n
        k = 0
        for (_, at, _), (_, w_start, _) in zip(found, words, strict=True):
            while k + 1 < n and offsets[k + 1] <= at:
                k += 1
            if times[k] is None:
                times[k] = start + w_start
        after = end
        out = [0.0] * n
        for k in range(n - 1, -1, -1):
            value = times[k]
            after = value if value is not None else after
            out[k] = after
        return out, True
    span = end - start
    return [start + span * o / max(len(text), 1) for o in offsets], False
