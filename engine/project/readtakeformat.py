"""Takes directed by voice in the ``.radioplay`` file: a line's ``read_takes``.

Kept beside :mod:`engine.project.fileformat`, which calls it. Written only for a
line that has one, so other files load and save as before. Each entry::

    {"take": 3, "read": "takes/L0003.read-1f2e3d4c5b6a.wav", "sha256": "...",
     "text": "the line as it was read", "timing": 100, "intonation": 100,
     "words": [[0.12, 0.48, 4], ...]}

``read`` is relative to the project file's folder (as a recorded take's is).
Problems name the JSON path (``lines[3].read_takes[0].timing: 140 is out of
range [0, 100]``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from engine.project.defaults import MAX_LINE_CHARS
from engine.project.formatreader import Reader
from engine.project.read_takes import STRENGTH_RANGE, ReadTake

MAX_READ_WORDS = 2_000  # a read of one line; far above any line's words
MAX_WORD_PHONEMES = 200
MAX_READ_S = 3_600.0
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def read_takes_to_dict(takes: tuple[ReadTake, ...], relative: Callable[[str], str]) -> dict[str, Any]:
    if not takes:
        return {}
    return {"read_takes": [{"take": t.seed, "read": relative(t.read), "sha256": t.sha256, "text": t.text,
                            "timing": t.timing, "intonation": t.intonation,
                            "words": [[a, b, n] for a, b, n in t.words]} for t in takes]}


def read_takes_from_dict(r: Reader, d: dict[str, Any], path: str, resolve: Callable[[str], str],
                         seeds: tuple[int, ...]) -> tuple[ReadTake, ...]:
    """A line's read takes; each must be one of ``seeds`` (the line's takes), once."""
    out: list[ReadTake] = []
    seen: set[int] = set()
    for i, entry in enumerate(r.items(d.get("read_takes", []), f"{path}.read_takes")):
        where = f"{path}.read_takes[{i}]"
        entry = r.obj(entry, where)
        seed = entry.get("take")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed not in seeds:
            raise r.fail(f"{where}.take", f"expected one of the line's takes {list(seeds)}, got {seed!r}")
        if seed in seen:
            raise r.fail(f"{where}.take", f"take {seed} has two reads")
        seen.add(seed)
        read = entry.get("read")
        if not isinstance(read, str) or not read.strip() or "\0" in read:
            raise r.fail(f"{where}.read", "expected the path of the read's WAV file")
        digest = entry.get("sha256")
        if not isinstance(digest, str) or not _SHA256.match(digest):
            raise r.fail(f"{where}.sha256", "expected the read's SHA-256 (64 hexadecimal digits, lower case)")
        text = r.text(entry, "text", where)
        if len(text) > MAX_LINE_CHARS:
            raise r.fail(f"{where}.text", f"longer than a line may be ({MAX_LINE_CHARS} characters)")
        strengths = [r.num(entry, key, where, 100, lo=STRENGTH_RANGE[0], hi=STRENGTH_RANGE[1])
                     for key in ("timing", "intonation")]
        for key, value in zip(("timing", "intonation"), strengths, strict=True):
            if not isinstance(value, int):
                raise r.fail(f"{where}.{key}", f"expected a whole percentage, got {value!r}")
        out.append(ReadTake(seed, resolve(read), digest, text, _words(r, entry, where), strengths[0], strengths[1]))
    return tuple(out)


def _words(r: Reader, entry: dict[str, Any], where: str) -> tuple[tuple[float, float, int], ...]:
    items = r.items(entry.get("words"), f"{where}.words")
    if not items or len(items) > MAX_READ_WORDS:
        raise r.fail(f"{where}.words", f"expected 1 to {MAX_READ_WORDS} words, got {len(items)}")
    words: list[tuple[float, float, int]] = []
    last = 0.0
    for k, word in enumerate(items):
        ok = (isinstance(word, list) and len(word) == 3
              and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in word))
        if ok:
            start, end, phonemes = float(word[0]), float(word[1]), word[2]
            ok = (math.isfinite(start) and math.isfinite(end) and last <= start <= end <= MAX_READ_S
                  and isinstance(phonemes, int) and 1 <= phonemes <= MAX_WORD_PHONEMES)
        if not ok:
            raise r.fail(f"{where}.words[{k}]", "expected [start, end, phonemes]: seconds in order within the "
                         f"read, and a whole number of phonemes from 1 to {MAX_WORD_PHONEMES}")
        words.append((start, end, int(phonemes)))
        last = start
    return tuple(words)
