"""What a voice design asks of a line's pitch contour, whichever method makes it.

The WORLD path (engine.synth.design) moves its F0 frames and the PSOLA path
(engine.synth.psola) its pitch points by the same rule, so a design sounds
at the same pitch whichever of the two shapes it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.project.design import VoiceDesign

# A designed F0 is kept inside what either method synthesizes cleanly.
F0_MIN_HZ = 40.0
F0_MAX_HZ = 1000.0
# A design's jitter is drawn from this seed (numpy's generator for WORLD's frames; Praat's
# generator, seeded by engine.synth.psola, for its pitch points): a clip key names one draw.
JITTER_SEED = 0x717E


@dataclass
class ContourCentre:
    """The median (semitones) a design moves a contour's range around, shared by the parts
    of one line shaped apart (engine/synth/live_parts.py): the first part's contour sets it,
    the later parts' use it, so a sentence's pitch does not move against the one before it
    by where its own median lies. ``None`` until a contour sets it."""

    median: float | None = None


def designed_contour(positions: np.ndarray, hertz: np.ndarray, design: VoiceDesign,
                     centre: ContourCentre | None = None) -> np.ndarray:
    """Voiced pitch values (Hz, at ``positions``: frame indices or seconds, in
    order) with the design's level, range and slope: semitones around their
    median (``centre``'s, where one is given), the slope running from -slope/2 at
    the first position to +slope/2 at the last (so it bends the contour without
    moving its level); each value then moved at random by the design's jitter (a
    share of it, seeded)."""
    if hertz.size == 0:
        return hertz
    semitones, median, start, span = _centred(positions, hertz, centre)
    moved = median + design.f0_range * (semitones - median) + design.f0_shift
    if design.f0_slope != 0.0:
        moved = moved + design.f0_slope * ((positions - start) / span - 0.5)
    contour: np.ndarray = 2.0 ** (moved / 12.0)
    if design.jitter > 0.0:
        contour = contour * (1.0 + design.jitter * np.random.default_rng(JITTER_SEED).standard_normal(contour.size))
    clipped: np.ndarray = np.clip(contour, F0_MIN_HZ, F0_MAX_HZ)
    return clipped


def contour_formula(positions: np.ndarray, hertz: np.ndarray, design: VoiceDesign, scale: float = 1.0,
                    centre: ContourCentre | None = None) -> str:
    """:func:`designed_contour` as a Praat formula over a pitch tier whose points are
    ``scale`` times ``hertz`` at ``positions`` (seconds): ``self`` a point's Hz, ``x`` its
    time. The median and the span are the voiced contour's, computed here, so one Formula
    call moves every point (the PSOLA path: two Praat calls a point were 60 % of its time).
    The jitter draws from Praat's random generator, which the caller seeds."""
    _, median, start, span = _centred(positions, hertz, centre)
    moved = (f"{median!r} + {design.f0_range!r} * (12 * log2(self / {scale!r}) - {median!r}) + {design.f0_shift!r}"
             f" + {design.f0_slope!r} * ((x - {start!r}) / {span!r} - 0.5)")
    hertz_moved = f"2 ^ (({moved}) / 12)"
    if design.jitter > 0.0:
        hertz_moved = f"{hertz_moved} * (1 + {design.jitter!r} * randomGauss(0, 1))"
    return f"max({F0_MIN_HZ!r}, min({F0_MAX_HZ!r}, {hertz_moved}))"


def _centred(positions: np.ndarray, hertz: np.ndarray,
             centre: ContourCentre | None = None) -> tuple[np.ndarray, float, float, float]:
    """What the rule is relative to: the contour in semitones, their median (the
    centre's, setting it if it has none yet), and where the contour starts and how
    long it runs (for the slope)."""
    semitones = 12.0 * np.log2(np.maximum(hertz, 1e-6))
    start = float(positions[0])
    median = float(np.median(semitones))
    if centre is not None:
        if centre.median is None:
            centre.median = median
        median = centre.median
    return semitones, median, start, max(1e-9, float(positions[-1]) - start)
