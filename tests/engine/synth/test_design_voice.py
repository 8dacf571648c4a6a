"""Voice designs on the real bundled voice, through the synthesizer's shaping
stage (the path audition, playback, export, farm actors and the service
share), measured with tools the project did not write: Praat for pitch,
pyloudnorm for loudness, pocketsphinx for words."""

from __future__ import annotations

import numpy as np
import pytest

from bench.shaping_wer import SENTENCES, Recognizer, edit_distance, words
from engine.project.design import VoiceDesign
from engine.project.model import VoiceParams
from engine.project.voice_presets import design_for
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.vowels import f0_median

PLAIN = VoiceParams(variation=0.0)  # no noise: the same line every run, so only the design differs


@pytest.fixture(scope="module")
def synth() -> tuple[ClipSynthesizer, int]:
    library = VoiceLibrary()
    rate = library.resolve(PLAIN.voice).sample_rate
    return ClipSynthesizer(library, rate, ClipCache()), rate


def word_error_rate(clips: list[np.ndarray], texts: list[str], rate: int) -> float:
    recognize = Recognizer()
    errors = sum(edit_distance(words(t), words(recognize(c, rate))) for t, c in zip(texts, clips, strict=True))
    return errors / sum(len(words(t)) for t in texts)


@pytest.mark.integration
def test_joe_as_a_woman_is_an_octave_ish_higher_and_still_understood(synth: tuple[ClipSynthesizer, int]) -> None:
    engine, rate = synth
    texts = SENTENCES[:8]
    woman = PLAIN.with_changes(design=design_for("woman", "male"))
    plain = [np.array(engine.synthesize(t, PLAIN)) for t in texts]
    designed = [np.array(engine.synthesize(t, woman)) for t in texts]
    rise = 12 * np.log2(f0_median(np.concatenate(designed), rate) / f0_median(np.concatenate(plain), rate))
    assert rise > 6.0
    assert word_error_rate(designed, texts, rate) <= word_error_rate(plain, texts, rate) + 0.08


@pytest.mark.integration
def test_a_designs_gain_survives_loudness_levelling(synth: tuple[ClipSynthesizer, int]) -> None:
    import pyloudnorm

    engine, rate = synth
    text = SENTENCES[0]
    meter = pyloudnorm.Meter(rate)
    plain = meter.integrated_loudness(np.array(engine.synthesize(text, PLAIN), dtype=np.float64))
    louder = meter.integrated_loudness(np.array(engine.synthesize(
        text, PLAIN.with_changes(design=VoiceDesign(gain=6.0))), dtype=np.float64))
    whisper = meter.integrated_loudness(np.array(engine.synthesize(
        text, PLAIN.with_changes(design=VoiceDesign(breathiness=1.0))), dtype=np.float64))
    assert louder - plain == pytest.approx(6.0, abs=0.5)
    assert whisper == pytest.approx(plain, abs=1.0)  # levelled after the design, not before


@pytest.mark.integration
def test_a_faster_design_shortens_the_clip_and_its_word_timings(synth: tuple[ClipSynthesizer, int]) -> None:
    engine, rate = synth
    text = SENTENCES[1]
    plain_plan = engine.plan(text, PLAIN)
    fast_plan = engine.plan(text, PLAIN.with_changes(design=VoiceDesign(rate=1.25)))
    plain = engine.finish(engine.infer(plain_plan))
    fast = engine.finish(engine.infer(fast_plan))
    assert fast.size == pytest.approx(plain.size / 1.25, rel=0.02)
    plain_words, fast_words = engine.cache.words(plain_plan.key), engine.cache.words(fast_plan.key)
    assert plain_words is not None and fast_words is not None
    assert len(fast_words.words) == len(plain_words.words)
    for (s0, e0, _), (s1, e1, _) in zip(plain_words.words, fast_words.words, strict=True):
        assert s1 == pytest.approx(s0 / 1.25, abs=0.02) and e1 == pytest.approx(e0 / 1.25, abs=0.02)


@pytest.mark.integration
@pytest.mark.parametrize("design", [VoiceDesign(f0_shift=-3.0), VoiceDesign(f0_shift=4.0, formant=1.15),
                                    VoiceDesign(f0_shift=-3.0, breathiness=0.2)],
                         ids=["psola-down", "psola-up-shorter-tract", "world-breathy-down"])
def test_a_designed_pitch_lands_where_it_is_asked_on_the_bundled_voice(
        synth: tuple[ClipSynthesizer, int], design: VoiceDesign) -> None:
    # The bundled voice speaks at about 88 Hz, where WORLD's DIO reads the octave above:
    # a design made on DIO's track came out 8-11 semitones above the one asked for.
    engine, rate = synth
    texts = SENTENCES[2:4]
    plain = np.concatenate([np.array(engine.synthesize(t, PLAIN)) for t in texts])
    designed = np.concatenate([np.array(engine.synthesize(t, PLAIN.with_changes(design=design))) for t in texts])
    moved = 12 * np.log2(f0_median(designed, rate) / f0_median(plain, rate))
    assert moved == pytest.approx(design.f0_shift, abs=1.0)
