"""One line's caption as cues: at most two rows of 42 characters each.

That is the broadcast convention (BBC, EBU-TT-D and Netflix's timed-text
style guides: 37 to 42 characters a row, two rows a subtitle); a longer
line is split into several cues at word boundaries, each shown from when
its first word is spoken (the clip's word timings, engine.synth.wordmap)
until the next one's. A line whose clip has no timings (a recording, a clip
from an older cache) is split where its characters say, in proportion.
"""

from __future__ import annotations

import bisect
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
    groups = _cues(tokens, row_chars, rows, prefix)
    cues: list[Cue] = []
    bounds: list[float] = []
    for group in groups:
        at = start if not cues else max(times[group[0][0]], bounds[-1] + _MIN_GAP)
        bounds.append(at)
        cues.append(Cue(at, end, tuple(" ".join(tokens[a:b]) for a, b in group), ()))
    out = []
    for i, cue in enumerate(cues):
        cue_end = bounds[i + 1] if i + 1 < len(cues) else max(end, cue.start + _MIN_GAP)
        group = groups[i]
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


def _cues(tokens: list[str], row_chars: int, rows: int, prefix: int) -> list[list[tuple[int, int]]]:
    """The tokens as cues of rows ((first, end) token ranges). As many cues as
    greedy filling needs, but the words shared out evenly between them, each
    break near its share and after a sentence or clause where one is close,
    so a long line never ends on a cue of one word."""
    greedy = _rows(tokens, 0, len(tokens), row_chars, prefix)
    count = -(-len(greedy) // rows)
    if count <= 1:
        return [greedy]
    offsets = [0]
    for token in tokens:
        offsets.append(offsets[-1] + len(token) + 1)
    total = offsets[-1]
    breaks = [0]
    for j in range(1, count):
        target = total * j / count
        # Only breaks a row's width either side of the share: linear in the line's length.
        low = max(breaks[-1] + 1, bisect.bisect_left(offsets, target - row_chars))
        high = min(len(tokens) - (count - j), bisect.bisect_right(offsets, target + row_chars))
        candidates = range(low, max(low, high) + 1)
        breaks.append(min(candidates, key=lambda b: abs(offsets[b] - target) - _punctuation_bonus(tokens[b - 1])))
    breaks.append(len(tokens))
    cues = [_rows(tokens, a, b, row_chars, prefix) for a, b in zip(breaks, breaks[1:], strict=False)]
    if any(len(cue) > rows for cue in cues):  # shares too uneven to fit: fill greedily
        return [greedy[i:i + rows] for i in range(0, len(greedy), rows)]
    return cues


def _punctuation_bonus(token: str) -> float:
    """Characters a break may move to fall after a sentence (or a clause)."""
    if token.endswith((".", "?", "!", ".\"", "?\"", "!\"")):
        return 12.0
    return 6.0 if token.endswith((",", ";", ":", "—")) else 0.0


def _rows(tokens: list[str], first: int, end: int, row_chars: int, prefix: int) -> list[tuple[int, int]]:
    """Tokens [first, end) as rows, greedy; the first row is ``prefix`` shorter."""
    rows: list[tuple[int, int]] = []
    begin, width = first, 0
    for k in range(first, end):
        token = tokens[k]
        room = row_chars - (prefix if not rows else 0)
        grown = width + (1 if k > begin else 0) + len(token)
        if k > begin and grown > room:
            rows.append((begin, k))
            begin, width = k, len(token)
        else:
            width = grown
    rows.append((begin, end))
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
