"""A voice design: how a role's installed voice is transformed into a character.

One installed voice (often the only one a user has) becomes many characters
by moving what a listener hears as *who* is speaking: the pitch of the voice
(F0 level and range), the length of the vocal tract (formants up or down,
independently of pitch), breathiness, the steadiness of the pitch (an older
voice's jitter), brightness (spectral tilt) and the speaking rate. The same
fields express a *delivery* (a direction such as
"whispering" or "slowly" moves them from the role's design for one line or
part of one), so the role's design and a line's direction compose with
:meth:`VoiceDesign.then` into the one transformation the shaping stage
applies.

The design is part of the voice parameters and so of every clip cache key;
the neutral design changes nothing and keys as it always did.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace

# Bounds a producer cannot push past: beyond them the vocoder's output stops
# being a voice (measured when the shaping stage was built; see docs/dev).
F0_SHIFT_LIMIT_ST = 18.0  # a girl over a man's voice is +16 (88 -> 223 Hz; engine/project/voice_presets.py)
F0_SLOPE_LIMIT_ST = 12.0
F0_RANGE_LIMITS = (0.0, 3.0)
FORMANT_LIMITS = (0.7, 1.4)
BREATHINESS_LIMITS = (0.0, 1.0)
# A hoarse, unsteady voice: a few per cent of period perturbation (Praat's local jitter of an
# older voice is about 1-2 % above a young one's); a tenth is already a rough, broken voice.
JITTER_LIMITS = (0.0, 0.1)
TILT_LIMIT_DB = 12.0
RATE_LIMITS = (0.5, 2.0)
GAIN_LIMIT_DB = 18.0
# Each field's bounds, by name (what a project file may store).
FIELD_LIMITS: dict[str, tuple[float, float]] = {
    "f0_shift": (-F0_SHIFT_LIMIT_ST, F0_SHIFT_LIMIT_ST),
    "f0_range": F0_RANGE_LIMITS,
    "f0_slope": (-F0_SLOPE_LIMIT_ST, F0_SLOPE_LIMIT_ST),
    "formant": FORMANT_LIMITS,
    "breathiness": BREATHINESS_LIMITS,
    "jitter": JITTER_LIMITS,
    "tilt": (-TILT_LIMIT_DB, TILT_LIMIT_DB),
    "rate": RATE_LIMITS,
    "gain": (-GAIN_LIMIT_DB, GAIN_LIMIT_DB),
}


@dataclass(frozen=True)
class VoiceDesign:
    """A transformation of a voice; every field at its default changes nothing.

    - ``f0_shift``: F0 level in semitones (+ higher), formants left in place.
    - ``f0_range``: scale of the F0 excursion around the line's median
      (1 = as spoken, 0 = monotone, 1.5 = livelier).
    - ``f0_slope``: semitones added across the line, start to end (a falling
      or rising contour; 0 = none).
    - ``formant``: vocal-tract length factor as a frequency warp of the
      spectral envelope (> 1 = shorter tract, formants up: a woman's or a
      child's; < 1 = longer, a larger man's).
    - ``breathiness``: share of aperiodic (noise) excitation added, 0..1;
      1 = fully unvoiced (a whisper).
    - ``jitter``: the pitch made unsteady from one period to the next: each
      pitch point moved at random by this share (0.02 = 2 %, seeded, so a
      clip is made the same way every time), the roughness of an older voice.
    - ``tilt``: spectral tilt in dB per octave above 1 kHz (+ brighter,
      - darker, softer).
    - ``rate``: speaking rate (> 1 faster); the model's own length control
      where the backend has one, time-scaling otherwise.
    - ``gain``: level offset in dB kept through per-line loudness levelling
      (a shout stays louder than the same line said plainly).
    """

    f0_shift: float = 0.0
    f0_range: float = 1.0
    f0_slope: float = 0.0
    formant: float = 1.0
    breathiness: float = 0.0
    jitter: float = 0.0
    tilt: float = 0.0
    rate: float = 1.0
    gain: float = 0.0

    @property
    def is_neutral(self) -> bool:
        return self == NEUTRAL

    def then(self, other: VoiceDesign) -> VoiceDesign:
        """This design followed by ``other`` (a role's design, then a line's
        direction): shifts and offsets add, ratios multiply, breathiness
        combines as independent noise shares, jitter as independent
        perturbations (their variances add)."""
        return VoiceDesign(
            f0_shift=self.f0_shift + other.f0_shift,
            f0_range=self.f0_range * other.f0_range,
            f0_slope=self.f0_slope + other.f0_slope,
            formant=self.formant * other.formant,
            breathiness=1.0 - (1.0 - self.breathiness) * (1.0 - other.breathiness),
            jitter=(self.jitter ** 2 + other.jitter ** 2) ** 0.5,
            tilt=self.tilt + other.tilt,
            rate=self.rate * other.rate,
            gain=self.gain + other.gain,
        ).clamped()

    def scaled(self, amount: float) -> VoiceDesign:
        """The same transformation at ``amount`` of its strength (0 = neutral,
        1 = as is): a direction's light or strong intensity."""
        return VoiceDesign(
            f0_shift=self.f0_shift * amount,
            f0_range=self.f0_range ** amount,
            f0_slope=self.f0_slope * amount,
            formant=self.formant ** amount,
            breathiness=min(1.0, self.breathiness * amount),
            jitter=self.jitter * amount,
            tilt=self.tilt * amount,
            rate=self.rate ** amount,
            gain=self.gain * amount,
        ).clamped()

    def clamped(self) -> VoiceDesign:
        def clip(value: float, lo: float, hi: float) -> float:
            return min(hi, max(lo, value))

        return VoiceDesign(
            f0_shift=clip(self.f0_shift, -F0_SHIFT_LIMIT_ST, F0_SHIFT_LIMIT_ST),
            f0_range=clip(self.f0_range, *F0_RANGE_LIMITS),
            f0_slope=clip(self.f0_slope, -F0_SLOPE_LIMIT_ST, F0_SLOPE_LIMIT_ST),
            formant=clip(self.formant, *FORMANT_LIMITS),
            breathiness=clip(self.breathiness, *BREATHINESS_LIMITS),
            jitter=clip(self.jitter, *JITTER_LIMITS),
            tilt=clip(self.tilt, -TILT_LIMIT_DB, TILT_LIMIT_DB),
            rate=clip(self.rate, *RATE_LIMITS),
            gain=clip(self.gain, -GAIN_LIMIT_DB, GAIN_LIMIT_DB),
        )

    def with_changes(self, **changes: float) -> VoiceDesign:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, float]:
        """The fields that differ from neutral (what a project file stores)."""
        return {k: v for k, v in asdict(self).items() if v != getattr(NEUTRAL, k)}

    @classmethod
    def from_dict(cls, data: dict[str, object], where: str = "design") -> VoiceDesign:
        """Read a stored design; an unknown field or a non-number is a one-line error."""
        known = {f.name for f in fields(cls)}
        values: dict[str, float] = {}
        for key, value in data.items():
            if key not in known:
                raise ValueError(f"{where}: unknown field {key!r} (known: {', '.join(sorted(known))})")
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
                raise ValueError(f"{where}.{key}: expected a number, got {value!r}")
            values[key] = float(value)
        return cls(**values).clamped()


NEUTRAL = VoiceDesign()
