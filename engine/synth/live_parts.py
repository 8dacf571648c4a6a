"""A line heard while it is voiced: its parts shaped as they come, joined as they are heard.

When a listener waits for a line (the playhead has reached it), the scheduler voices it
unit by unit and hands each unit here as it comes (engine/sched/streaming.py), so the
first words are heard while the rest is made. Where the engine is slow (Kokoro), the
line's first sentence is cut after each clause first (``LoadedVoice.split_clauses``),
where the model pauses anyway: a comma, a semicolon, a colon.

Each part is shaped as the whole line is (engine/synth/synthesizer.py ``finish``): each
sentence trimmed and joined to the next with its pause, through its design, levelled,
its gain, resampled to the project rate, the line's edges faded. What the whole line's
shaping takes from the whole clip, the first part gives here: the loudness the line is
levelled by (one gain for every part, so nothing steps at a seam). The design moves each
sentence's pitch around that sentence's own median, as a directed line's phrases always
have been; the resampler streams (soxr's ResampleStream gives the one-shot's samples).

What is heard so is the line's *live take*. The clip cached under the line's key, which
every render and every later pass plays, is always voiced and shaped whole: a clause
voiced alone is said a little differently from the same clause inside its sentence
(measured on the sample: docs/dev/scheduling-and-playback.md), so the parts make the
wait short and the whole clip keeps the production what it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.audio.loudness import CLIP_LUFS, LoudnessMeter
from engine.project.design import VoiceDesign
from engine.synth import shaping
from engine.synth.design import apply_design
from engine.synth.synthesizer import ClipPlan

_FADE_S = 0.004  # as shaping.fade_edges: a trimmed edge never clicks


@dataclass(frozen=True)
class LivePart:
    """The line as far as it is voiced, handed to whoever waits for it."""

    audio: np.ndarray  # the line so far at the project rate, shaped (read only)
    rate: int
    final: bool  # the whole line is in ``audio``
    remaining_s: tuple[float, ...] = ()  # each part still to come: its predicted length (seconds)

    @property
    def seconds(self) -> float:
        return float(self.audio.shape[0]) / self.rate

    @property
    def expected_s(self) -> float:
        """The line's predicted length when whole (the layout's until it is)."""
        return self.seconds + sum(self.remaining_s)


class LiveShaper:
    """One line's live take, part by part (one thread at a time: the post stage's)."""

    def __init__(self, plan: ClipPlan, model_rate: int, project_rate: int) -> None:
        self.plan = plan
        self.model_rate = model_rate
        self.rate = project_rate
        self._gain: float | None = None  # the first part's loudness gain: the whole line's
        self._resampler: Any = None
        self._line = np.zeros(0, dtype=np.float32)
        self.parts = 0
        self.failed = False  # a part could not be shaped: the take goes no further

    @property
    def line(self) -> np.ndarray:
        """The take so far (whole once its last part is in)."""
        return self._line

    def add(self, pieces: Sequence[np.ndarray], pauses: Sequence[float], phrase_of: Sequence[int],
            last: bool) -> np.ndarray:
        """The next part's raw model audio (one piece per unit, the pause after each, each
        unit's phrase of a directed line, empty for a plain line); returns the line so far."""
        rate = self.model_rate
        phrases = list(phrase_of) if phrase_of else [0] * len(pieces)
        shaped = [self._design(piece[slice(*shaping.trim_bounds(piece, rate))], phrases[i])
                  for i, piece in enumerate(pieces)]
        if self._gain is None:
            self._gain = _level_gain(np.concatenate(shaped) if shaped else np.zeros(0, np.float32), rate)
        out: list[np.ndarray] = []
        for i, piece in enumerate(shaped):
            # Levelled by the line's gain, then the sentence's own offset (a directed phrase's
            # level, the design's gain), as the whole line is.
            out.append(piece * np.float32(self._gain * 10 ** (self._design_of(phrases[i]).gain / 20)))
            if i < len(shaped) - 1 or not last:  # a part ends with the pause after it
                out.append(np.zeros(int(pauses[i] * rate), dtype=np.float32))
        if last and self.plan.trailing_pause > 0:
            out.append(np.zeros(int(self.plan.trailing_pause * rate), dtype=np.float32))
        part = self._resample(np.concatenate(out) if out else np.zeros(0, dtype=np.float32), last)
        line = np.concatenate([self._line, part])
        fade = int(_FADE_S * self.rate)
        if self.parts == 0 and line.size >= 2 * fade:
            line[:fade] *= np.linspace(0.0, 1.0, fade, dtype=np.float32)
        if last and line.size >= 2 * fade:
            line[-fade:] *= np.linspace(1.0, 0.0, fade, dtype=np.float32)
        self.parts += 1
        self._line = line
        return line

    def _design_of(self, phrase: int) -> VoiceDesign:
        """What shapes a sentence of ``phrase``: a directed phrase's design, or the role's
        for a plain line."""
        if self.plan.phrases:
            return self.plan.phrases[phrase].design
        return self.plan.params.effective_design

    def _design(self, piece: np.ndarray, phrase: int) -> np.ndarray:
        return np.asarray(apply_design(piece, self.model_rate, self._design_of(phrase)), dtype=np.float32)

    def _resample(self, audio: np.ndarray, last: bool) -> np.ndarray:
        if self.model_rate == self.rate:
            return audio
        if self._resampler is None:
            import soxr

            self._resampler = soxr.ResampleStream(self.model_rate, self.rate, 1, dtype="float32", quality="VHQ")
        return np.ascontiguousarray(self._resampler.resample_chunk(audio, last=last), dtype=np.float32)


def _level_gain(audio: np.ndarray, rate: int, target_lufs: float = CLIP_LUFS) -> float:
    """The gain shaping.level_loudness would give ``audio`` (peak levelling below one
    gating block, as there)."""
    if audio.size == 0:
        return 1.0
    meter = LoudnessMeter(rate, channels=1)
    meter.feed(audio[:, None])
    loudness = meter.integrated()
    if np.isfinite(loudness):
        return float(10 ** ((target_lufs - loudness) / 20))
    peak = float(np.max(np.abs(audio)))
    return float(shaping._PEAK / peak) if peak > 1e-6 else 1.0
