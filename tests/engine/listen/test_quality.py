"""DNSMOS through onnxruntime: speechmos' own numbers, and noise scores below speech."""

from __future__ import annotations

import numpy as np
import pytest

from engine.listen import quality
from engine.project.model import VoiceParams
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

# speechmos is in the test extra (through [voices]): a missing model is a broken set-up, not a skip.
quality.model_path()


def test_scores_match_speechmos_and_noise_scores_below_clean_speech() -> None:
    synth = ClipSynthesizer(VoiceLibrary(), 16000, ClipCache())
    clean = synth.synthesize("The radio was on all night, and nobody was listening to it.", VoiceParams())
    noisy = np.clip(clean + np.random.default_rng(3).normal(0, 0.08, clean.shape).astype(np.float32), -1, 1)
    mine = quality.dnsmos(clean, 16000)
    from speechmos import dnsmos

    theirs = dnsmos.run(clean.astype(np.float32), 16000)
    assert mine["ovrl"] == pytest.approx(float(theirs["ovrl_mos"]), abs=1e-4)
    assert mine["sig"] == pytest.approx(float(theirs["sig_mos"]), abs=1e-4)
    assert quality.quality(noisy, 16000) < mine["ovrl"] - 0.5


def test_a_speech_of_minutes_is_scored_in_a_bounded_number_of_windows() -> None:
    # Issue 57: a 6,000-character line's 307 windows took 55 s of CPU in the speech check.
    import time

    synth = ClipSynthesizer(VoiceLibrary(), 16000, ClipCache())
    sentence = synth.synthesize("The radio was on all night, and nobody was listening to it.", VoiceParams())

    def scored(seconds: float) -> tuple[float, float]:
        clip = np.tile(sentence, int(np.ceil(seconds * 16000 / sentence.size)))
        start = time.thread_time()
        score = quality.quality(clip, 16000)
        return score, time.thread_time() - start

    minute, minute_cost = scored(60)
    five, five_cost = scored(300)
    assert five_cost < 2 * minute_cost  # five times the speech, the same windows (it was five times the work)
    assert five == pytest.approx(minute, abs=0.1)
