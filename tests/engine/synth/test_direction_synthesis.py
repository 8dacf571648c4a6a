"""A directed line on the real voice: pauses where the direction stands, each
delivery moving what it claims (Praat measures it), the direction in the clip's key,
a take still a seed."""

from __future__ import annotations

import numpy as np
import pytest

from engine.project.model import Timing, VoiceParams
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.listening import features, longest_inner_silence

LINE = "She has been waiting here for an hour."


@pytest.fixture(scope="module")
def synth() -> ClipSynthesizer:
    library = VoiceLibrary()
    return ClipSynthesizer(library, library.resolve(VoiceParams().voice).sample_rate, ClipCache())


def voiced(synth: ClipSynthesizer, text: str, seed: int = 0, timing: Timing | None = None) -> np.ndarray:
    plan = synth.plan(text, VoiceParams(), seed=seed, timing=timing)
    return np.asarray(synth.finish(synth.infer(plan)))


def test_directions_and_pause_lengths_are_in_the_key_and_plain_lines_key_as_before(synth: ClipSynthesizer) -> None:
    params = VoiceParams()
    plain = synth.plan(LINE, params)
    assert not plain.phrases
    assert synth.plan(f"(to Lucy) {LINE}", params).key == plain.key  # unperformed: the same words, the same clip
    keys = {synth.plan(f"(quietly) {LINE}", params).key, synth.plan(f"(very quietly) {LINE}", params).key,
            synth.plan("She has (beat) been waiting.", params).key,
            synth.plan("She has (beat) been waiting.", params, timing=Timing(beat=1.2)).key, plain.key}
    assert len(keys) == 5
    assert synth.plan(LINE, params, note="quietly").key == synth.plan(f"(quietly) {LINE}", params).key


@pytest.mark.integration
def test_a_directed_take_is_still_a_seed(synth: ClipSynthesizer) -> None:
    text = f"Come here. (nervous) {LINE}"
    first, again, other = voiced(synth, text, 3), voiced(synth, text, 3), voiced(synth, text, 4)
    assert np.array_equal(first, again)
    assert first.shape != other.shape or not np.array_equal(first, other)


@pytest.mark.integration
def test_a_pause_stands_where_its_direction_stands(synth: ClipSynthesizer) -> None:
    rate = synth.sample_rate
    before = voiced(synth, "One, two, three.")
    clip = voiced(synth, "One, two, three. (long pause) Four, five.", timing=Timing(long_pause=1.5))
    start, length = longest_inner_silence(clip, rate)
    assert length >= 1.5
    # It starts where the words before it end (the first phrase said alone), within 0.2 s.
    assert abs(start - before.shape[0] / rate) < 0.25


@pytest.mark.integration
@pytest.mark.parametrize(("direction", "check"), [
    ("quietly", lambda n, d: d.intensity_db <= n.intensity_db - 3.0),
    ("sad", lambda n, d: d.f0_median < n.f0_median and d.seconds > n.seconds),
    ("quickly", lambda n, d: d.seconds <= n.seconds * 0.87),
    ("excited", lambda n, d: d.f0_median > n.f0_median * 1.1),
])
def test_a_delivery_moves_its_features_the_right_way(synth: ClipSynthesizer, direction, check) -> None:
    rate = synth.sample_rate
    neutral = features(voiced(synth, LINE), rate)
    directed = features(voiced(synth, f"({direction}) {LINE}"), rate)
    assert check(neutral, directed), (neutral, directed)


@pytest.mark.integration
def test_kokoro_performs_a_direction_with_its_speed_and_the_shaping() -> None:
    """Kokoro-82M int8 (the bundled Kokoro voices): the rate through Kokoro's speed, the rest through shaping."""
    library = VoiceLibrary()
    bundled = [v for v in library.bundled() if v.backend == "kokoro"]
    assert bundled, "the bundled Kokoro voices (a default dependency) are not installed"
    rate = 24_000
    synth = ClipSynthesizer(library, rate, ClipCache())
    params = VoiceParams(backend="kokoro", voice=bundled[0].style)
    text = "The radio was on all night."

    def said(prefix: str) -> np.ndarray:
        return np.asarray(synth.finish(synth.infer(synth.plan(prefix + text, params))))

    neutral, slow, shout = (features(said(p), rate) for p in ("", "(slowly) ", "(shouting) "))
    assert slow.seconds >= neutral.seconds * 1.15
    assert shout.intensity_db >= neutral.intensity_db + 4.0 and shout.f0_median > neutral.f0_median


@pytest.mark.integration
def test_a_directed_line_keeps_its_roles_voice_design(synth: ClipSynthesizer) -> None:
    """The role's design, then the direction: a role pitched 4 semitones down says a slow line lower."""
    import math

    from engine.project.design import VoiceDesign

    rate = synth.sample_rate
    text = f"(slowly) {LINE}"

    def said(params: VoiceParams) -> np.ndarray:
        return np.asarray(synth.finish(synth.infer(synth.plan(text, params))))

    plain, designed = features(said(VoiceParams()), rate), features(said(VoiceParams(design=VoiceDesign(f0_shift=-4))),
                                                                    rate)
    assert 12 * math.log2(designed.f0_median / plain.f0_median) <= -2.0
    assert designed.seconds >= plain.seconds * 0.9  # still slow: the direction's rate is kept
