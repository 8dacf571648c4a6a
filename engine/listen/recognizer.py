"""An offline speech recognizer biased to the words expected.

pocketsphinx's English model ships on the package index with the Python
package (acoustic model and the CMU pronouncing dictionary), so nothing is
downloaded at run time. With its general language model it is slow (about
real time on one core) and poor on a line of drama; with a small language
model built from the text expected (the line, weighted, and its neighbours
for the words a paraphrase may use) it decodes ten times faster than real
time and its partial hypotheses follow the line word by word, which is what
both users need: the table read (where is the reader in the line?) and the
speech check (did the clip say its text?).

Words the dictionary does not know (invented names) are left out of the
language model; callers compare only :meth:`Recognizer.known` words.
Decoding is incremental: :meth:`feed` as sound arrives, :meth:`hypothesis`
at any moment (cheap), :meth:`finish` for the final words with times.
One instance follows one utterance at a time, on one thread.
"""

from __future__ import annotations

import functools
import os
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engine.listen.vad import VAD_RATE
from engine.listen.words import spoken_words

EXPECTED_WEIGHT = 3  # the expected text counts this many times against its context in the model
FRAME_S = 0.01  # pocketsphinx's frame period


class RecognizerUnavailable(RuntimeError):
    """pocketsphinx is not installed."""


@dataclass(frozen=True)
class Word:
    text: str
    start_s: float
    end_s: float


def _pocketsphinx() -> Any:
    try:
        import pocketsphinx
    except ImportError as exc:
        raise RecognizerUnavailable(f"speech recognition needs pocketsphinx (pip install 'radioplay[rehearse]'): "
                                    f"{exc}") from exc
    return pocketsphinx


@functools.cache
def pronunciations() -> dict[str, str]:
    """word -> phones from the CMU dictionary pocketsphinx ships (first pronunciation)."""
    ps = _pocketsphinx()
    path = Path(ps.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    table: dict[str, str] = {}
    with path.open(encoding="utf-8") as f:
        for row in f:
            word, _, phones = row.partition(" ")
            if "(" not in word:
                table.setdefault(word, phones.strip())
    return table


@functools.cache
def alternates() -> dict[str, list[str]]:
    """word -> its other pronunciations in the CMU dictionary ("a" is also EY,
    "record" the noun and the verb): a clip may say any of them."""
    ps = _pocketsphinx()
    path = Path(ps.get_model_path()) / "en-us" / "cmudict-en-us.dict"
    table: dict[str, list[str]] = {}
    with path.open(encoding="utf-8") as f:
        for row in f:
            word, _, phones = row.partition(" ")
            if word.endswith(")") and "(" in word:
                table.setdefault(word[: word.index("(")], []).append(phones.strip())
    return table


def read_dictionary_ahead() -> None:
    """Read the pronunciation dictionary on a thread of its own now (a second or
    more: 135,000 words), so the first line listened to does not wait for it."""

    def read() -> None:
        try:
            pronunciations()
            alternates()
        except (RecognizerUnavailable, OSError):
            pass  # the first Recognizer says why

    threading.Thread(target=read, name="radioplay-dictionary", daemon=True).start()


def _arpa(sentences: Sequence[list[str]]) -> str:
    """A back-off trigram model of ``sentences`` in ARPA text."""
    from io import StringIO

    from pocketsphinx.lm import ArpaBoLM

    lm = ArpaBoLM(text="\n".join(" ".join(s) for s in sentences if s) + "\n", add_start=True, discount_mass=0.5)
    lm.compute()
    out = StringIO()
    lm.write(out)
    return out.getvalue()


class Recognizer:
    """``extra`` adds pronunciations (word -> CMU phones) for words the
    dictionary does not know, such as invented names (the speech check
    derives them from espeak-ng); without them such words are left out."""

    def __init__(self, expected: Iterable[str], context: Iterable[str] = (),
                 extra: Mapping[str, str] | None = None) -> None:
        ps = _pocketsphinx()
        table = {**pronunciations(), **(extra or {})}
        self._table = table
        expected_words = [self.known(spoken_words(t), table) for t in expected]
        context_words = [self.known(spoken_words(t), table) for t in context]
        vocabulary = sorted({w for s in expected_words + context_words for w in s})
        if not vocabulary:
            raise ValueError("nothing to listen for: no word of the text is in the dictionary")
        sentences = [s for s in expected_words for _ in range(EXPECTED_WEIGHT)] + context_words
        with tempfile.TemporaryDirectory(prefix="radioplay-asr-") as tmp:
            dict_path, lm_path = os.path.join(tmp, "words.dict"), os.path.join(tmp, "words.arpa")
            others = alternates()
            Path(dict_path).write_text("".join(
                f"{w} {table[w]}\n" + "".join(f"{w}({k}) {p}\n" for k, p in enumerate(others.get(w, ()), start=2))
                for w in vocabulary), encoding="utf-8")
            Path(lm_path).write_text(_arpa(sentences), encoding="utf-8")
            self._decoder: Any = ps.Decoder(samprate=VAD_RATE, loglevel="FATAL", lm=lm_path, dict=dict_path)
        self._started = False
        self._fed = 0

    @staticmethod
    def known(words: Iterable[str], table: Mapping[str, str] | None = None) -> list[str]:
        table = pronunciations() if table is None else table
        return [w for w in words if w in table]

    def recognize(self, audio: np.ndarray) -> list[Word]:
        """One whole utterance (mono float32 at 16 kHz) at once: its cepstral
        mean comes from all of it, so the first words are heard as well as the
        rest (a stream's first words are decoded before the mean settles)."""
        if self._started:
            self._decoder.end_utt()
        pcm = np.clip(np.asarray(audio, dtype=np.float32) * 32767.0, -32768, 32767).astype(np.int16)
        self._decoder.start_utt()
        self._decoder.process_raw(pcm.tobytes(), False, True)
        self._started = True
        return self.finish()

    def start(self) -> None:
        if self._started:
            self._decoder.end_utt()
        self._decoder.start_utt()
        self._started = True
        self._fed = 0

    def feed(self, audio: np.ndarray) -> None:
        """Mono float32 sound at 16 kHz."""
        if not self._started:
            self.start()
        pcm = np.clip(np.asarray(audio, dtype=np.float32) * 32767.0, -32768, 32767).astype(np.int16)
        if not pcm.size:
            return
        self._decoder.process_raw(pcm.tobytes(), False, False)
        self._fed += pcm.size

    def hypothesis(self) -> list[str]:
        """The words heard so far (a partial result while the utterance goes on)."""
        hyp = self._decoder.hyp()
        return hyp.hypstr.split() if hyp is not None and hyp.hypstr else []

    def finish(self) -> list[Word]:
        """End the utterance: the words heard, with times from its start."""
        if not self._started:
            return []
        self._decoder.end_utt()
        self._started = False
        return [Word(seg.word.split("(")[0], seg.start_frame * FRAME_S, (seg.end_frame + 1) * FRAME_S)
                for seg in (self._decoder.seg() or ()) if not seg.word.startswith(("<", "[")) and seg.word != "<sil>"]
