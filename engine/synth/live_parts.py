"""A line heard while it is voiced: its parts shaped as they come, joined as they are heard.

When a listener waits for a line (the playhead has reached it), the scheduler voices it
sentence by sentence and hands each sentence here as it comes (engine/sched/streaming.py),
so the first words are heard while the rest is made. The sentences are the model's own
runs, which the whole line is voiced from too: each part ends where the model pauses
anyway, and the model's audio is the same samples as the whole line's.

Each part is shaped as the whole line is (engine/synth/synthesizer.py ``finish``): each
sentence trimmed and joined to the next with its pause, through its design, levelled,
its gain, resampled to the project rate, the line's edges faded; a directed phrase's
breath and the sound it performs before its words (a sigh, a laugh: made from the
phrase's words, so a part holds such a phrase whole). What the whole line's
shaping takes from the whole clip, the first part gives here: the loudness the line is
levelled by (one gain for every part, so nothing steps at a seam) and the median its
design moves the pitch range around (``ContourCentre``, so no sentence's pitch moves
against the one before it). A plain line's part is designed after the sentences and the
pause before it that the whole line has (cut off again), a directed line's sentences one
by one as the whole line's are; the
resampler streams (soxr's ResampleStream gives the one-shot's samples).

What is heard so is the line's *live take*. The clip cached under the line's key, which
every render and every later pass plays, is shaped whole from the same sentences: its
level is the whole line's loudness, which the first sentence's can miss by a few decibels
(measured on the sample: docs/dev/scheduling-and-playback.md), so a render never
depends on whether a listener was waiting when the line was voiced.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.audio.loudness import CLIP_LUFS, LoudnessMeter
from engine.project.design import VoiceDesign
from engine.synth import performance, shaping
from engine.synth.design import apply_design
from engine.synth.pitch_contour import ContourCentre
from engine.synth.synthesizer import ClipPlan

_FADE_S = 0.004  # as shaping.fade_edges: a trimmed edge never clicks
CONTEXT_S = 12.0  # the most of a plain line before a part that its design sees again


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
        self._centre = ContourCentre()  # the first part's F0 median, the design's centre for every part
        self._before = np.zeros(0, dtype=np.float32)  # a plain line's raw sentences so far, joined
        self._begun: set[int] = set()  # the directed phrases whose first sentence was a part already
        self.parts = 0
        self.failed = False  # a part could not be shaped: the take goes no further

    def add(self, pieces: Sequence[np.ndarray], pauses: Sequence[float], phrase_of: Sequence[int],
            last: bool) -> np.ndarray:
        """The next part's raw model audio (one piece per unit, the pause after each, each
        unit's phrase of a directed line, empty for a plain line); returns the line so far."""
        rate = self.model_rate
        phrases = list(phrase_of) if phrase_of else [0] * len(pieces)
        trimmed = [piece[slice(*shaping.trim_bounds(piece, rate))] for piece in pieces]
        gaps = [int(pauses[i] * rate) if i < len(pieces) - 1 or not last else 0 for i in range(len(pieces))]
        if self.plan.phrases:
            # A directed line: each sentence through its phrase's design around its own median
            # and its breath, as the whole line's are.
            shaped = [np.asarray(performance.shaped(piece, rate, self.plan.phrases[phrases[i]]), dtype=np.float32)
                      for i, piece in enumerate(trimmed)]
            body = _joined(shaped, gaps)
            loud = np.concatenate(shaped) if shaped else np.zeros(0, np.float32)
        else:
            # A plain line is designed whole: the part after what the whole line has before it
            # (the sentences so far and the pause after them, up to CONTEXT_S), which is cut off
            # again, so the design sees the sentence as it sees it inside the line: a filter's
            # edges, a pitch period's, and the pitch analysis's voicing, which Praat judges
            # against the loudest sample it is given (a sentence alone was judged against its
            # own, a step of up to 2.6 dB at a seam: docs/dev/scheduling-and-playback.md).
            design = self.plan.params.effective_design
            joined = _joined(trimmed, gaps)
            context = self._before[-int(CONTEXT_S * rate):]
            designed = self._design(np.concatenate([context, joined]), design, self._centre)
            body = designed[int(round(context.size / design.rate)):]
            self._before = np.concatenate([self._before, joined])
            loud = body
        if self._gain is None:
            self._gain = _level_gain(loud, rate)
        # Levelled by the line's gain, then each sentence's own offset (a directed phrase's
        # level, the design's gain), as the whole line is.
        offsets = [self._offset(phrases[i]) for i in range(len(pieces))]
        if len(set(offsets)) <= 1:
            body = body * np.float32(self._gain * 10 ** ((offsets[0] if offsets else 0.0) / 20))
        else:
            body = body * np.float32(self._gain)
            pos = 0
            for i, piece in enumerate(shaped):
                body[pos:pos + piece.size] *= np.float32(10 ** (offsets[i] / 20))
                pos += piece.size + gaps[i]
        if self.plan.phrases:
            body = self._with_sounds(body, shaped, gaps, phrases)
        if last and self.plan.trailing_pause > 0:
            body = np.concatenate([body, np.zeros(int(self.plan.trailing_pause * rate), dtype=np.float32)])
        part = self._resample(np.asarray(body, dtype=np.float32), last)
        line = np.concatenate([self._line, part])
        fade = int(_FADE_S * self.rate)
        if self.parts == 0 and line.size >= 2 * fade:
            line[:fade] *= np.linspace(0.0, 1.0, fade, dtype=np.float32)
        if last and line.size >= 2 * fade:
            line[-fade:] *= np.linspace(1.0, 0.0, fade, dtype=np.float32)
        self.parts += 1
        self._line = line
        return line

    def _with_sounds(self, body: np.ndarray, shaped: Sequence[np.ndarray], gaps: Sequence[int],
                     phrases: Sequence[int]) -> np.ndarray:
        """``body`` with the sound each phrase that begins in it performs (a sigh, a light laugh)
        laid before its words, made from the phrase's words as the whole line's are: a part
        holds such a phrase whole (engine/sched/streaming.py hands it so)."""
        spans: dict[int, tuple[int, int]] = {}
        pos = 0
        for i, piece in enumerate(shaped):
            if phrases[i] not in self._begun:
                lo, _ = spans.get(phrases[i], (pos, pos))
                spans[phrases[i]] = (lo, pos + piece.size)
            pos += piece.size + gaps[i]
        self._begun.update(phrases)
        if not any(self.plan.phrases[index].sound for index in spans):
            return body
        with_sounds, _ = performance.add_sounds(np.asarray(body, dtype=np.float32), spans, self.plan.phrases,
                                                self.model_rate)
        return with_sounds

    def _offset(self, phrase: int) -> float:
        """A sentence's level offset after levelling (dB): its directed phrase's, or the role's
        design's gain for a plain line."""
        design = self.plan.phrases[phrase].design if self.plan.phrases else self.plan.params.effective_design
        return float(design.gain)

    def _design(self, audio: np.ndarray, design: VoiceDesign, centre: ContourCentre | None) -> np.ndarray:
        return np.asarray(apply_design(audio, self.model_rate, design, centre=centre), dtype=np.float32)

    def _resample(self, audio: np.ndarray, last: bool) -> np.ndarray:
        if self.model_rate == self.rate:
            return audio
        if self._resampler is None:
            import soxr

            self._resampler = soxr.ResampleStream(self.model_rate, self.rate, 1, dtype="float32", quality="VHQ")
        return np.ascontiguousarray(self._resampler.resample_chunk(audio, last=last), dtype=np.float32)


def _joined(pieces: Sequence[np.ndarray], gaps: Sequence[int]) -> np.ndarray:
    """The pieces, each followed by its gap of silence (samples)."""
    out: list[np.ndarray] = []
    for piece, gap in zip(pieces, gaps, strict=True):
        out += [piece, np.zeros(gap, dtype=np.float32)]
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


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
