"""The voice backend protocol: what any synthesis engine must provide.

Piper and Kokoro implement it; the protocol is what the synthesizer, the
scheduler and the benchmarks talk to, so each engine is one class beside
the others. Besides inference a loaded voice tells what planning needs: its
sample rate, whether it can run padded batches, a prior for its output length
(seconds per phoneme unit) and what a second of its audio costs to make.
Synthesis is split into ``phonemize`` (text -> id sequences, CPU, cheap) and
``infer`` (ids -> audio, the expensive part) so the pipeline can overlap them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engine.synth.library import VoiceInfo
from engine.synth.wordtimes import UnitWords

# Silence inserted after a sentence, by how it ends: a question or an
# exclamation breathes a little longer than a comma-split clause.
PAUSE_AFTER = {".": 0.28, "?": 0.32, "!": 0.30, ",": 0.12, ";": 0.18, ":": 0.18}


@dataclass(frozen=True)
class PhonemeUnit:
    """One sentence worth of model input and how it should be followed."""

    ids: tuple[int, ...]
    phonemes: str
    pause_after: float  # seconds of silence before the next unit
    phrase: int = 0  # which phrase of a directed line it belongs to (engine/synth/performance.py)


@dataclass(frozen=True)
class InferenceSettings:
    """Per-request model settings derived from a role's VoiceParams."""

    length_scale: float
    noise_scale: float
    noise_w_scale: float
    speaker_id: int | None
    style: str = ""  # Kokoro: the style vector (or canonical blend) to speak with
    seed: int = 0  # the take: same seed, same samples (engine.synth.piper_noise)


@dataclass(frozen=True)
class Inference:
    """One unit's raw model audio and where its spoken words lie in it."""

    audio: np.ndarray
    words: UnitWords


class LoadedVoice(Protocol):
    info: VoiceInfo

    @property
    def sample_rate(self) -> int: ...

    def phonemize(self, units: list[str], language: str = "") -> list[PhonemeUnit]: ...

    def settings(self, speed: float, variation: float, speaker: int | str | None,
                 style: str = "") -> InferenceSettings: ...

    def warm(self) -> None:
        """Make inference ready now; loading a voice reads only what planning needs."""

    def infer(self, unit: PhonemeUnit, settings: InferenceSettings) -> np.ndarray: ...

    def infer_batch(self, units: list[PhonemeUnit], settings: InferenceSettings) -> list[np.ndarray]: ...

    def infer_timed(self, units: list[PhonemeUnit], settings: InferenceSettings,
                    batch: bool = False) -> list[Inference]:
        """``infer`` (or ``infer_batch`` with ``batch``) with each unit's word
        timings; the synthesis paths use this, so every clip has them."""

    @property
    def can_batch(self) -> bool: ...


@dataclass(frozen=True)
class BackendCost:
    """What planning knows of a backend before it has run here.

    ``seconds_per_audio_second``: inference time per second of model audio on
    one single-threaded session of this CPU (the scheduler replaces it with
    what it measures). ``seconds_per_phoneme``: output length per phoneme
    unit, the length predictor's prior. ``batches``: padded batches possible.
    """

    seconds_per_audio_second: float
    seconds_per_phoneme: float
    batches: bool


class VoiceBackend(Protocol):
    name: str
    cost: BackendCost

    def load(self, info: VoiceInfo) -> LoadedVoice: ...
