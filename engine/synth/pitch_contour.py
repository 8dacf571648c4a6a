"""What a voice design asks of a line's pitch contour, whichever method makes it.

The WORLD path (engine.synth.design) moves its F0 frames and the PSOLA path
(engine.synth.psola) its pitch points by the same rule, so a design sounds
at the same pitch whichever of the two shapes it.
"""

from __future__ import annotations

import numpy as np

from engine.project.design import VoiceDesign

# A designed F0 is kept inside what either method synthesizes cleanly.
F0_MIN_HZ = 40.0
F0_MAX_HZ = 1000.0


def designed_contour(positions: np.ndarray, hertz: np.ndarray, design: VoiceDesign) -> np.ndarray:
    """Voiced pitch values (Hz, at ``positions``: frame indices or seconds, in
    order) with the design's level, range and slope: semitones around their
    median, the slope running from -slope/2 at the first position to +slope/2
    at the last (so it bends the contour without moving its level)."""
    if hertz.size == 0:
        return hertz
    semitones = 12.0 * np.log2(np.maximum(hertz, 1e-6))
    median = float(np.median(semitones))
    moved = median + design.f0_range * (semitones - median) + design.f0_shift
    if design.f0_slope != 0.0:
        span = max(1e-9, float(positions[-1] - positions[0]))
        moved = moved + design.f0_slope * ((positions - positions[0]) / span - 0.5)
    contour: np.ndarray = np.clip(2.0 ** (moved / 12.0), F0_MIN_HZ, F0_MAX_HZ)
    return contour
