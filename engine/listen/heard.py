"""What a listener who has not read the line hears: pocketsphinx's general US English
model (acoustic model, general language model and dictionary, all in its wheel), and the
word error rate of a clip against its text.

Not engine/listen/recognizer.py's recognizer: that one builds its language model from
the text expected (right for following a reader and for checking a take), and so hears
almost any voice say its line (jf_alpha: 0.09 biased, 0.71 general). Whether a voice
design costs words is a question for this one.

Every utterance is decoded whole (batch cepstral mean), so what one clip is heard as
does not depend on the clips heard before it. One instance decodes on one thread.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine.listen.recognizer import RecognizerUnavailable

RATE = 16_000  # the acoustic model's rate
_PAD_S = 0.25  # a little silence either side: the model's first and last frames are noise


def words(text: str) -> list[str]:
    """The words of a text as the general dictionary spells them (lower case, apostrophes kept)."""
    return re.findall(r"[a-z']+", text.lower())


def edit_distance(ref: Sequence[str], hyp: Sequence[str]) -> int:
    """Word-level Levenshtein distance: substitutions, insertions and deletions."""
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (r != h))
    return row[-1]


class GeneralRecognizer:
    """pocketsphinx with its bundled general model; ``__call__`` hears one clip."""

    def __init__(self) -> None:
        try:
            from pocketsphinx import Decoder
        except ImportError as exc:
            raise RecognizerUnavailable(f"speech recognition needs pocketsphinx: {exc}") from exc
        self.decoder: Any = Decoder(samprate=RATE, loglevel="FATAL")

    def __call__(self, audio: np.ndarray, rate: int) -> str:
        audio = np.asarray(audio, dtype=np.float32)
        if rate != RATE and audio.size:
            import soxr

            audio = np.asarray(soxr.resample(audio, rate, RATE, quality="VHQ"), dtype=np.float32)
        peak = float(np.max(np.abs(audio))) if audio.size else 0.0
        pcm = (audio / (peak or 1.0) * 0.8 * 32767).astype(np.int16)
        pad = np.zeros(int(RATE * _PAD_S), dtype=np.int16)
        self.decoder.start_utt()
        self.decoder.process_raw(np.concatenate([pad, pcm, pad]).tobytes(), full_utt=True)
        self.decoder.end_utt()
        hyp = self.decoder.hyp()
        return hyp.hypstr if hyp is not None else ""

    def word_error_rate(self, texts: Sequence[str], clips: Sequence[np.ndarray], rate: int) -> float:
        """Word errors over the words of ``texts`` (each said by the clip beside it)."""
        errors = sum(edit_distance(words(t), words(self(c, rate))) for t, c in zip(texts, clips, strict=True))
        return errors / max(1, sum(len(words(t)) for t in texts))
