"""One voice session in a Ray worker process: what a farm actor runs.

A plain class (Ray makes it an actor in engine/farm/farm.py), so it imports
no Ray itself. It does the whole synthesis of a line where it runs, the same
stages and code as a local session (phonemes, inference, trim, level, pitch,
resample), and returns the finished clip at the project rate: shaping there
keeps the machine that mixes from becoming the farm's bottleneck. Clips go
back through Ray's object store; the caller keeps them in its own cache, so
the actor's memory cache is small.
"""

from __future__ import annotations

import os
import socket
import time

import numpy as np

from engine.synth import shaping
from engine.synth.backends.base import PhonemeUnit
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer
from engine.synth.wordtimes import ClipWords

ACTOR_CACHE_BYTES = 16 << 20


class VoiceSession:
    """One ONNX session with ``threads`` threads; voices load on first use and stay loaded."""

    def __init__(self, sample_rate: int, threads: int = 1) -> None:
        self.synth = ClipSynthesizer(VoiceLibrary(), sample_rate, ClipCache(memory_budget_bytes=ACTOR_CACHE_BYTES),
                                     SessionLayout(1, threads))
        # Load the shaping libraries now, while the caller plans its lines: the
        # first voice design loads WORLD and the resampler.
        shaping.resample(shaping.pitch_shift(np.zeros(1024, dtype=np.float32), 16_000, 1.0), 16_000, sample_rate)

    def where(self) -> tuple[str, int]:
        """(host name, process id): proves the actor is up and says where it runs."""
        return socket.gethostname(), os.getpid()

    def synthesize(self, plan: ClipPlan, units: list[PhonemeUnit] | None
                   ) -> tuple[np.ndarray, float, float, ClipWords | None]:
        """(clip, seconds of raw model audio, CPU seconds it took, where its words lie) for one line.

        CPU time of this thread (ONNX Runtime's single-threaded session runs on
        it): with two lines in flight, wall time would also count the wait for
        the session while the other line is inferred."""
        started = time.thread_time()
        if not plan.voice.model_path.exists():
            from engine.synth.errors import VoiceError

            raise VoiceError(f"voice model {plan.voice.model_path} is not on Ray node {socket.gethostname()}: "
                             f"install the project's voices at the same path on every node")
        raw = self.synth.infer(plan, units)
        clip = self.synth.finish(raw)
        words = self.synth.cache.words(plan.key)
        return np.array(clip, dtype=np.float32), raw.seconds, time.thread_time() - started, words
