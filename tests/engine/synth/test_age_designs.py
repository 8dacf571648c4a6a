"""Children and older voices that sound their age, on real rendered clips of both
engines (the bundled joe, Kokoro's jm_kumo and jf_gongitsune), measured with Praat
(engine/listen/voice_traits.py): a child of ten is above 200 Hz with formants a
shorter tract puts at least 10 % above the plain adult man's of the same script and
engine; an older voice speaks in a narrower pitch range than its source, and less
steadily than the same design without its jitter. The words are held by the bench
(bench/ages.py, Whisper base; docs/dev/voice-design.md)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from bench.shaping_wer import SENTENCES
from engine.listen.voice_traits import VoiceTraits, voice_traits
from engine.project.model import VoiceParams
from engine.project.voice_presets import design_for, source_gender
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

pytestmark = pytest.mark.integration

TEXTS = SENTENCES[:2]
SOURCES = {
    "joe": VoiceParams(variation=0.0),  # no noise: the same lines every run
    "jm_kumo": VoiceParams(backend="kokoro", voice="jm_kumo"),
    "jf_gongitsune": VoiceParams(backend="kokoro", voice="jf_gongitsune"),
}
ADULT_MAN = {"piper": "joe", "kokoro": "jm_kumo"}  # the plain man of the same engine


@pytest.fixture(scope="module")
def render() -> Callable[[str, str | None], tuple[list[np.ndarray], int]]:
    """``render(source, preset)``: the lines as the source says them under the preset
    (None: as installed), through the synthesizer's whole path; each kept once."""
    library = VoiceLibrary()
    synths: dict[int, ClipSynthesizer] = {}
    made: dict[tuple[str, str | None], tuple[list[np.ndarray], int]] = {}

    def clips(source: str, preset: str | None) -> tuple[list[np.ndarray], int]:
        if (source, preset) not in made:
            base = SOURCES[source]
            rate = library.resolve(base.voice, base.backend).sample_rate
            synth = synths.setdefault(rate, ClipSynthesizer(library, rate, ClipCache()))
            params = base if preset is None else base.with_changes(
                design=design_for(preset, source_gender(base.backend, base.voice)))
            made[source, preset] = [np.array(synth.synthesize(t, params)) for t in TEXTS], rate
        return made[source, preset]

    return clips


@pytest.fixture(scope="module")
def traits(render: Callable[[str, str | None], tuple[list[np.ndarray], int]]
           ) -> Callable[[str, str | None], VoiceTraits]:
    measured: dict[tuple[str, str | None], VoiceTraits] = {}

    def of(source: str, preset: str | None) -> VoiceTraits:
        if (source, preset) not in measured:
            measured[source, preset] = voice_traits(*render(source, preset))
        return measured[source, preset]

    return of


@pytest.mark.parametrize("preset", ["boy", "girl"])
@pytest.mark.parametrize("source", list(SOURCES))
def test_a_child_of_ten_is_above_200_hz_with_a_childs_formants(
        traits: Callable[[str, str | None], VoiceTraits], source: str, preset: str) -> None:
    child = traits(source, preset)
    man = traits(ADULT_MAN[SOURCES[source].backend], None)
    assert child.f0_hz > 200.0, child
    # F2 by its median over the voiced frames and by its mean (the median is the weaker
    # figure over a high voice: engine/listen/voice_traits.py), F3 too.
    assert child.formants_hz[1] >= 1.10 * man.formants_hz[1], (child, man)
    assert child.formant_means_hz[1] >= 1.10 * man.formant_means_hz[1], (child, man)
    assert child.formants_hz[2] >= 1.10 * man.formants_hz[2], (child, man)


@pytest.mark.parametrize("preset", ["older man", "older woman"])
@pytest.mark.parametrize("source", list(SOURCES))
def test_an_older_voice_moves_its_pitch_less_than_its_source(
        traits: Callable[[str, str | None], VoiceTraits], source: str, preset: str) -> None:
    assert traits(source, preset).f0_span_st < 0.9 * traits(source, None).f0_span_st


@pytest.mark.parametrize("source", ["joe", "jm_kumo"])
def test_an_older_man_is_lower_and_less_steady_than_the_same_design_without_jitter(
        render: Callable[[str, str | None], tuple[list[np.ndarray], int]],
        traits: Callable[[str, str | None], VoiceTraits], source: str) -> None:
    from engine.synth.design import apply_design

    assert traits(source, "older man").f0_hz < traits(source, None).f0_hz
    design = design_for("older man", "male")
    assert design.jitter > 0.0
    plain, rate = render(source, None)
    steady = [apply_design(c, rate, design.with_changes(jitter=0.0)) for c in plain]
    rough = [apply_design(c, rate, design) for c in plain]
    assert np.mean([local_jitter(c, rate) for c in rough]) > np.mean([local_jitter(c, rate) for c in steady]) + 0.003


def local_jitter(audio: np.ndarray, rate: int) -> float:
    """Praat's local jitter: the mean difference of consecutive periods over the mean period."""
    import parselmouth
    from parselmouth.praat import call

    pulses = call(parselmouth.Sound(np.asarray(audio, dtype=np.float64), rate),
                  "To PointProcess (periodic, cc)", 60.0, 700.0)
    return float(call(pulses, "Get jitter (local)", 0.0, 0.0, 0.0001, 0.02, 1.3))


def test_the_casting_keeps_a_childs_tract_over_a_kokoro_style() -> None:
    """The boy cast from jm_kumo measured a man's formants at a raised pitch: the casting
    took the tract out of every design over a Kokoro style (a general recognizer lost the
    words; Whisper does not, docs/dev/voice-design.md)."""
    from engine.synth.cast_candidates import Casting, candidates

    for style, gender in (("jm_kumo", "male"), ("jf_gongitsune", "female")):
        pool = candidates([(Casting(style, backend="kokoro"), gender)])
        for preset in ("boy", "girl"):
            cast = next(c for c in pool if c.label == f"kokoro:{style} as {preset}")
            assert cast.design == design_for(preset, gender)
