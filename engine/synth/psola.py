"""Voice design by pitch-synchronous overlap-add (Praat's PSOLA, praat-parselmouth).

The design path for every design that adds no breath: the clip's own periods
are cut out at Praat's glottal pulses and laid again at the designed pitch
and duration, so the voice keeps its own excitation instead of a vocoder's
(engine.synth.world rebuilds it from an F0 track, an envelope and an
aperiodicity). Measured on the bundled voice (12 held-out sentences,
pocketsphinx, docs/dev/voice-design.md): the same designs cost no more words
than WORLD's, often fewer, at a fifth of the CPU time, and the pitch lands
where it is asked (DIO, WORLD's default estimator, reads that voice an
octave high, so its designs sang an octave above the preset).

- F0 level, range and slope move the points of the pitch tier (semitones
  around the line's median, as engine.synth.design does for WORLD).
- ``formant`` is the classic resampling trick (Praat's "Change gender"): the
  clip played ``formant`` times faster moves formants and pitch up together,
  then PSOLA puts the pitch back and the duration with it, so only the
  formants stay moved.
- ``jitter`` moves each pitch point at random by that share (Praat's generator,
  seeded), so the periods laid from the tier are unsteady as an older voice's.
- ``rate`` is the duration tier's factor. The tilt is a filter after either
  method (engine.synth.design).
"""

from __future__ import annotations

import threading

import numpy as np

from engine.project.design import VoiceDesign
from engine.synth.pitch_contour import ContourCentre, contour_formula

# What a design made here is, in the clip keys: a change to the samples this
# module makes changes this, so no cache serves the old ones.
PSOLA_METHOD = "psola-design-3"  # 2: the pitch tier moved by one Formula; 3: reproducible
# Praat's pulse search range; the ceiling sits above a child's speaking pitch
# (the formant trick raises the pitch it analyses by the factor, and the range with it).
PITCH_FLOOR_HZ = 60.0
PITCH_CEILING_HZ = 700.0
# The pitch analysis' step (Praat's default for a Manipulation).
TIME_STEP_S = 0.01
# Praat's overlap-add draws from Praat's one random generator where it stretches (a duration
# tier, which the formant trick and the rate make): unseeded, the same clip came out different
# on every run (0.13 of full scale apart), so a clip key did not name its samples and the
# recognizer heard a word more or less each time. Seeded before each resynthesis, under one
# lock, since the generator is shared by every thread.
_RANDOM_SEED = 1
_RESYNTHESIS = threading.Lock()
# Below one analysis window Praat finds no period: such a clip is only stretched.
_MIN_SECONDS = 3.0 / PITCH_FLOOR_HZ + 0.01


def takes(design: VoiceDesign) -> bool:
    """Whether this path makes ``design``: any design without breath (breath and
    whispers need the vocoder's aperiodicity, engine.synth.world)."""
    return design.breathiness <= 0.0


def apply_psola(audio: np.ndarray, sample_rate: int, design: VoiceDesign,
                centre: ContourCentre | None = None) -> np.ndarray:
    """``audio`` (mono float) moved in pitch, formants and rate by ``design``
    (its breath, tilt and gain are not this path's), of exactly
    ``round(len / design.rate)`` samples."""
    if design.with_changes(breathiness=0.0, tilt=0.0, gain=0.0).is_neutral:
        return audio  # a tilt or a gain alone: nothing for overlap-add to move
    length = int(round(audio.shape[0] / design.rate))
    x = np.ascontiguousarray(audio, dtype=np.float64)
    factor = design.formant
    if factor != 1.0:
        import soxr

        # Read at `factor` times the rate and brought back to it: formants and pitch
        # up by the factor, the clip shorter by it (both undone below but the formants).
        x = np.asarray(soxr.resample(x, sample_rate * factor, sample_rate, quality="HQ"), dtype=np.float64)
    if x.shape[0] / sample_rate >= _MIN_SECONDS:
        y = _overlap_add(x, sample_rate, design, centre)
    elif x.shape[0] > 1 and abs(x.shape[0] - length) > 2:
        import soxr

        # Too short to hold a period: only stretched to the design's length.
        y = np.asarray(soxr.resample(x, x.shape[0], length, quality="HQ"), dtype=np.float64)
    else:
        y = x
    out = np.zeros(length, dtype=np.float32)  # Praat ends on whole periods: a few samples either way
    n = min(length, y.shape[0])
    out[:n] = y[:n]
    return out


def _overlap_add(x: np.ndarray, sample_rate: int, design: VoiceDesign,
                 centre: ContourCentre | None = None) -> np.ndarray:
    """Praat's Manipulation of ``x`` (already read ``design.formant`` times faster):
    its pitch points moved by the design (and back down by the formant factor),
    its duration by the formant factor over the rate, resynthesized by overlap-add."""
    import parselmouth
    from parselmouth.praat import call

    factor = design.formant
    sound = parselmouth.Sound(x, sampling_frequency=sample_rate)
    floor, ceiling = PITCH_FLOOR_HZ * min(1.0, factor), PITCH_CEILING_HZ * max(1.0, factor)
    manipulation = call(sound, "To Manipulation", TIME_STEP_S, floor, ceiling)
    tier = call(manipulation, "Extract pitch tier")
    formula = None
    if factor != 1.0 or design.f0_shift or design.f0_range != 1.0 or design.f0_slope or design.jitter:
        points = tier_points(tier)
        if points.shape[0]:
            # One Formula moves every point by the contour's median and span, read from
            # the tier itself: the Manipulation's own analysis, so the clip is analysed
            # once (a second pitch analysis for them was a third of this path's time).
            formula = contour_formula(points[:, 0], points[:, 1] / factor, design, factor, centre)
    stretch = factor / design.rate
    if stretch != 1.0:
        durations = call("Create DurationTier", "designed", sound.xmin, sound.xmax)
        call(durations, "Add point", sound.xmin, stretch)
        call([manipulation, durations], "Replace duration tier")
    return resynthesize(manipulation, tier, formula)


def resynthesize(manipulation: object, tier: object = None, formula: str | None = None) -> np.ndarray:
    """Praat's overlap-add of a Manipulation, reproducibly (its random generator seeded,
    under the lock every resynthesis shares): the samples of a design here and of a take
    directed by a read (engine/synth/read_transfer.py). ``formula``, when given, moves
    ``tier`` (the manipulation's pitch tier) first, under the same seed."""
    from parselmouth.praat import call, run

    with _RESYNTHESIS:
        if formula is not None and tier is not None:
            # The jitter's draws, from the same seed every time (a formula without jitter draws nothing).
            run(f"random_initializeWithSeedUnsafelyButPredictably ({_RANDOM_SEED})")
            call(tier, "Formula", formula)
            if "randomGauss" in formula and int(call(tier, "Get number of points")) % 2:
                # Praat draws its Gaussians in pairs and keeps the second for the next draw,
                # which seeding does not clear: after an odd number of draws the next design's
                # jitter began with this one's leftover, and every other call differed.
                run("spare = randomGauss (0, 1)")
            call([manipulation, tier], "Replace pitch tier")
        run(f"random_initializeWithSeedUnsafelyButPredictably ({_RANDOM_SEED})")
        resynthesis = call(manipulation, "Get resynthesis (overlap-add)")
    return np.asarray(resynthesis.values[0], dtype=np.float64)


def tier_points(tier: object) -> np.ndarray:
    """A PitchTier's points as rows of (seconds, Hz), in one read: through a table and a
    matrix, whose values parselmouth hands over as an array (two Praat calls a point
    were 61 ms on a 4.7 s line, this is under a millisecond)."""
    from parselmouth.praat import call

    if not int(call(tier, "Get number of points")):
        return np.zeros((0, 2))
    matrix = call(call(tier, "Down to TableOfReal", "Hertz"), "To Matrix")
    return np.asarray(matrix.values, dtype=np.float64).reshape(-1, 2)
