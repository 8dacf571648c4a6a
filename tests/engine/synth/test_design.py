"""Voice design through PSOLA and WORLD, measured with Praat (praat-parselmouth) on
synthetic vowels whose F0 and formants are known exactly."""

from __future__ import annotations

import numpy as np
import pytest

from engine.project.design import NEUTRAL, VoiceDesign
from engine.synth.design import apply_design, apply_world, shaping_method
from engine.synth.psola import PSOLA_METHOD
from tests.support.vowels import (
    FORMANTS_E,
    f0_median,
    f0_semitone_spread,
    formant_medians,
    harmonicity_db,
    nearest,
    voiced_fraction,
    vowel,
)

RATE = 22050


@pytest.fixture(scope="module")
def source() -> np.ndarray:
    return vowel(f0=120.0, sample_rate=RATE)


def semitones(a: float, b: float) -> float:
    return float(12 * np.log2(a / b))


def test_neutral_design_is_the_clip_itself(source: np.ndarray) -> None:
    assert apply_design(source, RATE, NEUTRAL) is source
    # the gain is the caller's (after loudness levelling): alone it shapes nothing
    assert apply_design(source, RATE, VoiceDesign(gain=6.0)) is source


# apply_design takes PSOLA for a design without breath; apply_world is the breathy designs' path.
METHODS = pytest.mark.parametrize("apply", [apply_design, apply_world], ids=["psola", "world"])


def test_a_design_without_breath_takes_psola_and_a_breathy_one_world() -> None:
    assert shaping_method(VoiceDesign(f0_shift=3.0, formant=1.1, tilt=2.0, rate=1.1)) == PSOLA_METHOD
    assert shaping_method(VoiceDesign(f0_shift=3.0, breathiness=0.2)) not in (None, PSOLA_METHOD)
    assert shaping_method(VoiceDesign(gain=4.0)) is None


@METHODS
@pytest.mark.parametrize("shift", [-5.0, 4.0, 10.0])
def test_f0_shift_moves_the_pitch_by_that_many_semitones(source: np.ndarray, shift: float, apply) -> None:
    out = apply(source, RATE, VoiceDesign(f0_shift=shift))
    assert out.shape == source.shape
    assert semitones(f0_median(out, RATE), f0_median(source, RATE)) == pytest.approx(shift, abs=0.3)


@METHODS
def test_f0_shift_leaves_the_formants(source: np.ndarray, apply) -> None:
    out = apply(source, RATE, VoiceDesign(f0_shift=7.0))
    measured = formant_medians(out, RATE)
    for freq, _ in FORMANTS_E[:2]:
        assert nearest(measured, freq) < 0.06, (freq, measured)


def test_f0_range_scales_the_excursion(source: np.ndarray) -> None:
    spread = f0_semitone_spread(source, RATE)
    livelier = f0_semitone_spread(apply_design(source, RATE, VoiceDesign(f0_range=2.0)), RATE)
    flat = f0_semitone_spread(apply_design(source, RATE, VoiceDesign(f0_range=0.0)), RATE)
    assert livelier == pytest.approx(2 * spread, rel=0.2)
    assert flat < 0.25 * spread
    # the level stays
    assert semitones(f0_median(apply_design(source, RATE, VoiceDesign(f0_range=2.0)), RATE),
                     f0_median(source, RATE)) == pytest.approx(0.0, abs=0.3)


def test_f0_slope_makes_the_end_higher_than_the_start(source: np.ndarray) -> None:
    out = apply_design(source, RATE, VoiceDesign(f0_slope=6.0))
    third = out.size // 3
    rise = semitones(f0_median(out[-third:], RATE), f0_median(out[:third], RATE))
    assert rise == pytest.approx(4.0, abs=1.0)  # two thirds of the 6 st run between the thirds' centres


@METHODS
@pytest.mark.parametrize("factor", [0.85, 1.2])
def test_formant_warp_moves_the_formants_by_the_factor_and_not_the_pitch(source: np.ndarray, factor: float,
                                                                          apply) -> None:
    out = apply(source, RATE, VoiceDesign(formant=factor))
    measured = formant_medians(out, RATE)
    for freq, _ in FORMANTS_E[:2]:
        assert nearest(measured, freq * factor) < 0.05, (freq * factor, measured)
        assert nearest(measured, freq) > 0.08, (freq, measured)  # no longer where it was
    assert semitones(f0_median(out, RATE), f0_median(source, RATE)) == pytest.approx(0.0, abs=0.2)


def local_jitter(audio: np.ndarray) -> float:
    """Praat's local jitter: the mean difference of consecutive periods over the mean period."""
    import parselmouth
    from parselmouth.praat import call

    pulses = call(parselmouth.Sound(audio.astype(np.float64), RATE), "To PointProcess (periodic, cc)", 60.0, 700.0)
    return float(call(pulses, "Get jitter (local)", 0.0, 0.0, 0.0001, 0.02, 1.3))


@METHODS
def test_jitter_makes_the_periods_unsteady_and_keeps_the_pitch(source: np.ndarray, apply) -> None:
    steady = local_jitter(apply(source, RATE, VoiceDesign(f0_shift=-2.0)))
    rough = apply(source, RATE, VoiceDesign(f0_shift=-2.0, jitter=0.04))
    assert local_jitter(rough) > steady + 0.01
    assert semitones(f0_median(rough, RATE), f0_median(source, RATE)) == pytest.approx(-2.0, abs=0.4)


def test_breathiness_adds_noise_and_one_is_a_whisper(source: np.ndarray) -> None:
    assert voiced_fraction(source, RATE) > 0.9
    breathy = apply_design(source, RATE, VoiceDesign(breathiness=0.5))
    assert harmonicity_db(breathy, RATE) < harmonicity_db(source, RATE) - 3.0
    whisper = apply_design(source, RATE, VoiceDesign(breathiness=1.0))
    assert voiced_fraction(whisper, RATE) < 0.1
    # Noise as loud as the voice it replaces (the delivery's gain lowers it later),
    # through the same vocal tract: the vowel's formants stay where they were.
    level_db = 20 * np.log10(np.sqrt(np.mean(whisper**2)) / np.sqrt(np.mean(source**2)))
    assert abs(level_db) < 1.0
    for freq, _ in FORMANTS_E:
        assert nearest(formant_medians(whisper, RATE), freq) < 0.05, freq
    # The same clip whispers the same way every time (the clip cache keys the design, not a draw).
    assert np.array_equal(whisper, apply_design(source, RATE, VoiceDesign(breathiness=1.0)))


@METHODS
def test_tilt_changes_the_level_above_the_corner_only(source: np.ndarray, apply) -> None:
    def band_db(audio: np.ndarray, lo: float, hi: float) -> float:
        spectrum = np.abs(np.fft.rfft(audio)) ** 2
        freqs = np.fft.rfftfreq(audio.size, 1 / RATE)
        return float(10 * np.log10(np.sum(spectrum[(freqs >= lo) & (freqs < hi)])))

    dark = apply(source, RATE, VoiceDesign(tilt=-6.0))
    # 1.84 kHz and 2.48 kHz sit about 0.9-1.3 octaves above the 1 kHz corner
    assert band_db(dark, 1700, 2700) - band_db(source, 1700, 2700) == pytest.approx(-6.5, abs=2.0)
    assert band_db(dark, 300, 800) - band_db(source, 300, 800) == pytest.approx(0.0, abs=1.0)


@METHODS
@pytest.mark.parametrize("rate", [0.8, 1.25])
def test_rate_time_scales_and_keeps_the_pitch(source: np.ndarray, rate: float, apply) -> None:
    out = apply(source, RATE, VoiceDesign(rate=rate))
    assert out.size == round(source.size / rate)
    assert semitones(f0_median(out, RATE), f0_median(source, RATE)) == pytest.approx(0.0, abs=0.3)
    measured = formant_medians(out, RATE)
    assert nearest(measured, FORMANTS_E[1][0]) < 0.05


@pytest.mark.parametrize("breath", [0.0, 0.2], ids=["psola", "world"])
def test_the_same_clip_and_design_give_the_same_samples(source: np.ndarray, breath: float) -> None:
    # A voiceless stretch between two vowels, as speech has: Praat's overlap-add draws random
    # numbers there when it stretches, and the same clip came out different on every call.
    hiss = np.random.default_rng(3).normal(0.0, 0.05, RATE // 3).astype(np.float32)
    speech = np.concatenate([source, hiss, source])
    design = VoiceDesign(f0_shift=3.0, formant=1.1, breathiness=breath, jitter=0.03, tilt=2.0, rate=0.9)  # stretched
    first = apply_design(speech, RATE, design)
    for other in (design.with_changes(formant=0.9), design):  # whatever was shaped in between
        apply_design(speech, RATE, other)
    np.testing.assert_array_equal(first, apply_design(speech.copy(), RATE, design))


def test_a_jittered_design_gives_the_same_samples_on_every_call(source: np.ndarray) -> None:
    # Praat draws its Gaussians in pairs and keeps the second: after a clip with an odd number
    # of pitch points the next call's jitter began with that leftover, so every other call of
    # the same design differed (0.6 of full scale), whatever ran before in the process.
    design = VoiceDesign(f0_shift=3.0, formant=1.1, jitter=0.03, rate=0.9)
    for cut in (0, 1, 2, 3, 5, 8):  # clips of a few lengths: some have an odd number of points
        clip = source[: len(source) - cut * RATE // 100]
        first, again = apply_design(clip, RATE, design), apply_design(clip.copy(), RATE, design)
        np.testing.assert_array_equal(first, again, err_msg=f"{cut * 10} ms shorter")


@pytest.mark.parametrize("breath", [0.0, 0.3], ids=["psola", "world"])
@pytest.mark.parametrize("length", [1, 10, 1000, 30_000])
def test_short_and_silent_clips_come_back_finite_at_the_rate_s_length(length: int, breath: float) -> None:
    design = VoiceDesign(f0_shift=3.0, formant=1.2, breathiness=breath, tilt=2.0, rate=1.3)
    for clip in (np.zeros(length, dtype=np.float32),
                 (0.1 * np.random.default_rng(length).standard_normal(length)).astype(np.float32)):
        out = apply_design(clip, RATE, design)
        assert out.shape == (round(length / 1.3),) and np.all(np.isfinite(out))


@pytest.mark.parametrize("scale", [1.0, 1.2])
def test_the_praat_formula_moves_a_pitch_tier_as_the_contour_rule_does(scale: float) -> None:
    # PSOLA moves its pitch tier by one Praat Formula; WORLD its frames by designed_contour.
    import parselmouth  # noqa: F401  (Praat's objects come from here)
    from parselmouth.praat import call

    from engine.synth.pitch_contour import contour_formula, designed_contour

    times = np.linspace(0.05, 2.0, 40)
    hertz = 110.0 * 2 ** (np.sin(times * 3.0) / 6.0)
    design = VoiceDesign(f0_shift=5.0, f0_range=1.4, f0_slope=-3.0)  # no jitter: its draws differ by generator
    tier = call("Create PitchTier", "t", 0.0, 2.1)
    for t, f in zip(times, hertz * scale, strict=True):
        call(tier, "Add point", float(t), float(f))
    call(tier, "Formula", contour_formula(times, hertz, design, scale))
    moved = np.array([call(tier, "Get value at index", i + 1) for i in range(times.size)])
    np.testing.assert_allclose(moved, designed_contour(times, hertz, design), rtol=1e-9)


def test_a_pitch_tier_is_read_in_one_go_as_its_points_are_one_by_one() -> None:
    # PSOLA reads the Manipulation's own pitch points through a table (one analysis a
    # clip): they must be the points Praat holds, in order, and none for an empty tier.
    import parselmouth  # noqa: F401  (Praat's objects come from here)
    from parselmouth.praat import call

    from engine.synth.psola import tier_points

    tier = call("Create PitchTier", "t", 0.0, 2.1)
    assert tier_points(tier).shape == (0, 2)
    times = np.linspace(0.05, 2.0, 37)[::-1]  # added out of order: the tier sorts them
    for t, f in zip(times, 90.0 + 40.0 * np.cos(times), strict=True):
        call(tier, "Add point", float(t), float(f))
    one_by_one = np.array([[call(tier, "Get time from index", i + 1), call(tier, "Get value at index", i + 1)]
                           for i in range(times.size)])
    np.testing.assert_array_equal(tier_points(tier), one_by_one)
