"""The voice backend protocol: what any synthesis engine must provide.

Piper is the first backend; the protocol is what the synthesizer, the
scheduler and the benchmarks talk to, so a second engine slots in beside it.
Synthesis is split into ``phonemize`` (text -> id sequences, CPU, cheap) and
``infer`` (ids -> audio, the expensive part) so the pipeline can overlap them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engine.synth.library import VoiceInfo


@dataclass(frozen=True)
class PhonemeUnit:
    """One sentence worth of model input and how it should be followed."""

    ids: tuple[int, ...]
    phonemes: str
    pause_after: float  # seconds of silence before the next unit


@dataclass(frozen=True)
class InferenceSettings:
    """Per-request model settings derived from a role's VoiceParams."""

    length_scale: float
    noise_scale: float
    noise_w_scale: float
    speaker_id: int | None
    seed: int = 0  # the take: same seed, same samples (engine.synth.piper_noise)


class LoadedVoice(Protocol):
    info: VoiceInfo

    @property
    def sample_rate(self) -> int: ...

    def phonemize(self, units: list[str]) -> list[PhonemeUnit]: ...

    def settings(self, speed: float, variation: float, speaker: int | str | None,
                 seed: int = 0) -> InferenceSettings: ...

    def infer(self, unit: PhonemeUnit, settings: InferenceSettings) -> np.ndarray: ...


class VoiceBackend(Protocol):
    name: str

    def load(self, info: VoiceInfo) -> LoadedVoice: ...
