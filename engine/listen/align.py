"""Where each word of a known text lies in a recording: pocketsphinx's forced alignment.

The recognizer (engine/listen/recognizer.py) asks what was said; here the words
are known (a producer's read of a line, a take of it) and only their times are
wanted. pocketsphinx aligns a text to sound through a grammar of just those
words in order, optional silences between them, and says where each one lies
in 10 ms frames; it fails (None here) where the sound cannot be made to say
them (no path through the grammar survives the search). That failure is not
a verdict on whether a read says its line, a weak one: a recording of another
sentence can still be forced through the words; callers that must know ask
the recognizer as well (engine/direct/read.py).

Words the dictionary lacks (invented names) need ``extra`` pronunciations, as
the recognizer's do (engine.check.pronounce derives them from espeak-ng).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine.listen.recognizer import FRAME_S, Word, _pocketsphinx, alternates, pronunciations
from engine.listen.vad import VAD_RATE

# Silence either side of the sound: the acoustic model's first and last frames are noise,
# and the grammar's opening and closing silence need somewhere to be.
PAD_S = 0.25
# The search beams tried in turn until one aligns: pocketsphinx's own, then wider. A wider
# beam is not always better: it lets a path that never reaches the grammar's end outscore
# the ones that do (measured on espeak-ng reads, docs/dev/direct-by-voice.md).
BEAMS: tuple[dict[str, float], ...] = ({}, {"beam": 1e-20, "wbeam": 1e-20, "pbeam": 1e-20},
                                       {"beam": 1e-60, "wbeam": 1e-40, "pbeam": 1e-60})


def align_words(audio16: np.ndarray, words: Sequence[str], extra: Mapping[str, str] | None = None
                ) -> list[Word] | None:
    """Each of ``words`` (lower case, spoken form: engine.listen.words) with its
    start and end in ``audio16`` (mono float at 16 kHz), in order; None when the
    sound cannot be aligned to them, or a word has no pronunciation."""
    table = {**pronunciations(), **(extra or {})}
    if not words or any(w not in table for w in words):
        return None
    ps = _pocketsphinx()
    others = alternates()
    audio = np.asarray(audio16, dtype=np.float32).reshape(-1)
    peak = float(np.max(np.abs(audio))) if audio.size else 0.0
    if peak <= 1e-6:
        return None
    pad = np.zeros(int(PAD_S * VAD_RATE), dtype=np.float32)
    pcm = (np.concatenate([pad, audio / peak * 0.8, pad]) * 32767.0).astype(np.int16)
    vocabulary = sorted(set(words))
    length = audio.size / VAD_RATE
    with tempfile.TemporaryDirectory(prefix="radioplay-align-") as tmp:
        dict_path = os.path.join(tmp, "words.dict")
        Path(dict_path).write_text("".join(
            f"{w} {table[w]}\n" + "".join(f"{w}({k}) {p}\n" for k, p in enumerate(others.get(w, ()), start=2))
            for w in vocabulary), encoding="utf-8")
        for beams in BEAMS:
            decoder: Any = ps.Decoder(samprate=VAD_RATE, loglevel="FATAL", lm=None, dict=dict_path, **beams)
            decoder.set_align_text(" ".join(words))
            decoder.start_utt()
            decoder.process_raw(pcm.tobytes(), False, True)
            decoder.end_utt()
            found = [Word(seg.word.split("(")[0], seg.start_frame * FRAME_S - PAD_S,
                          (seg.end_frame + 1) * FRAME_S - PAD_S)
                     for seg in (decoder.seg() or ()) if not seg.word.startswith(("<", "["))]
            if [w.text for w in found] == list(words):
                return [Word(w.text, min(max(0.0, w.start_s), length), min(max(0.0, w.end_s), length))
                        for w in found]
    return None
