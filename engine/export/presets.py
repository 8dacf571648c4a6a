"""Delivery presets: the spec a producer delivers to, as one named value.

A preset says what the delivered files must be (container, sample rate, bit
depth or bitrate, one file or one per scene, room tone at head and tail) and
what they must measure (loudness or RMS, peaks, noise floor). The export
writes to it (engine/export/delivery.py) and the compliance report checks
the written files against the same numbers (engine/export/compliance.py),
so the requirement and the check can never drift apart.

- ``podcast``: what the podcast hosts ask for (Apple, Spotify): -16 LUFS
  integrated, true peak at most -1 dBTP, a 44.1 kHz stereo MP3 with a chapter
  per scene.
- ``acx``: ACX/Audible audiobook submission: every file RMS -23..-18 dBFS,
  peaks at most -3 dBFS, noise floor at most -60 dB, 44.1 kHz 192 kbps CBR
  MP3, one file per chapter (scene) opening with 0.5-1 s and closing with
  1-5 s of room tone.
- ``ebu-r128``: broadcast drama: -23 LUFS, true peak at most -1 dBTP, 48 kHz
  24-bit broadcast WAV.
- ``custom``: the project's own settings (a 24-bit WAV at the project's rate,
  -16 LUFS unless told otherwise); what a render without ``--preset`` makes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.project.defaults import DEFAULT_TARGET_LUFS, TARGET_LUFS_RANGE

CONTAINERS = ("wav", "bwf", "flac", "mp3", "m4b")
BIT_DEPTHS = (16, 24, 32)  # 32 is float (WAV only)
MP3_RATES = (32_000, 44_100, 48_000)  # MPEG-1 layer III
MP3_BITRATES = (32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320)
# What a lossy container is usually delivered at (``--container mp3`` alone):
# MP3 as the podcast hosts take it, M4B as audiobook stores encode spoken word.
CONTAINER_DEFAULTS = {"mp3": {"sample_rate": 44_100, "bitrate_kbps": 128},
                      "m4b": {"sample_rate": 44_100, "bitrate_kbps": 64}}


@dataclass(frozen=True)
class DeliveryPreset:
    """``sample_rate`` 0 keeps the project's. Levels: ``level="loudness"``
    normalizes integrated loudness to ``target_lufs`` (within
    ``lufs_tolerance``); ``level="rms"`` levels each file's RMS to
    ``rms_target`` and must land in ``rms_range`` (ACX measures RMS, not
    LUFS). Peak limits are the deliverable's; the export aims a margin under
    them and the report measures the decoded files."""

    name: str
    container: str = "wav"
    sample_rate: int = 0
    bit_depth: int = 24
    bitrate_kbps: int = 0
    vbr: bool = False
    level: str = "loudness"
    target_lufs: float = DEFAULT_TARGET_LUFS
    lufs_tolerance: float = 1.0
    rms_target: float = -20.0
    rms_range: tuple[float, float] | None = None
    true_peak_max: float | None = -1.0  # dBTP
    sample_peak_max: float | None = None  # dBFS
    noise_floor_max: float | None = None  # dB RMS of the room tone
    head_s: float = 0.0
    tail_s: float = 0.0
    head_range: tuple[float, float] | None = None  # required room tone at the head, seconds
    tail_range: tuple[float, float] | None = None
    room_tone_db: float | None = None  # RMS of the room tone laid under each file; None: digital silence
    per_scene: bool = False

    def __post_init__(self) -> None:
        if self.container not in CONTAINERS:
            raise ValueError(f"preset {self.name!r}: unknown container {self.container!r} "
                             f"(choose {', '.join(CONTAINERS)})")
        if self.bit_depth not in BIT_DEPTHS or (self.bit_depth == 32 and self.container not in ("wav", "bwf")):
            raise ValueError(f"preset {self.name!r}: bit depth {self.bit_depth} is not possible in "
                             f"{self.container} (16 or 24; 32-bit float only in WAV)")
        if self.container == "mp3":
            if self.sample_rate not in MP3_RATES:
                raise ValueError(f"preset {self.name!r}: MP3 needs a sample rate of "
                                 f"{', '.join(str(r) for r in MP3_RATES)} Hz, not {self.sample_rate}")
            if self.bitrate_kbps not in MP3_BITRATES:
                raise ValueError(f"preset {self.name!r}: MP3 bitrate {self.bitrate_kbps} kbps is not one of "
                                 f"{', '.join(str(b) for b in MP3_BITRATES)}")
        if self.container == "m4b" and not 32 <= self.bitrate_kbps <= 512:
            raise ValueError(f"preset {self.name!r}: AAC bitrate {self.bitrate_kbps} kbps is outside 32..512")
        if self.sample_rate and not 8_000 <= self.sample_rate <= 192_000:
            raise ValueError(f"preset {self.name!r}: sample rate {self.sample_rate} Hz is outside 8000..192000")
        lo, hi = TARGET_LUFS_RANGE
        if not lo <= self.target_lufs <= hi:
            raise ValueError(f"target loudness {self.target_lufs} LUFS is outside {lo:g}..{hi:g}")
        if self.level not in ("loudness", "rms"):
            raise ValueError(f"preset {self.name!r}: level must be 'loudness' or 'rms', not {self.level!r}")
        if min(self.head_s, self.tail_s) < 0:
            raise ValueError(f"preset {self.name!r}: room tone lengths must not be negative")

    @property
    def lossy(self) -> bool:
        return self.container in ("mp3", "m4b")

    def extension(self) -> str:
        return {"bwf": ".wav"}.get(self.container, "." + self.container)

    def describe(self) -> str:
        """One line for the terminal and the export dialog."""
        rate = f"{self.sample_rate / 1000:g} kHz" if self.sample_rate else "project rate"
        size = (f"{self.bitrate_kbps} kbps {'VBR' if self.vbr else 'CBR'}" if self.lossy
                else ("32-bit float" if self.bit_depth == 32 else f"{self.bit_depth}-bit"))
        level = (f"RMS {self.rms_range[0]:g}..{self.rms_range[1]:g} dBFS" if self.level == "rms" and self.rms_range
                 else f"{self.target_lufs:g} LUFS")
        peak = (f"peaks <= {self.sample_peak_max:g} dBFS" if self.sample_peak_max is not None
                else f"true peak <= {self.true_peak_max:g} dBTP")
        layout = "one file per scene" if self.per_scene else "one file"
        return f"{self.container.upper()} {rate} {size}, {level}, {peak}, {layout}"


PRESETS: dict[str, DeliveryPreset] = {
    "podcast": DeliveryPreset("podcast", container="mp3", sample_rate=44_100, bitrate_kbps=128,
                              target_lufs=-16.0, lufs_tolerance=1.0, true_peak_max=-1.0),
    "acx": DeliveryPreset("acx", container="mp3", sample_rate=44_100, bitrate_kbps=192, level="rms",
                          rms_target=-20.0, rms_range=(-23.0, -18.0), true_peak_max=None, sample_peak_max=-3.0,
                          noise_floor_max=-60.0, head_s=0.75, tail_s=2.5, head_range=(0.5, 1.0),
                          tail_range=(1.0, 5.0), room_tone_db=-70.0, per_scene=True),
    "ebu-r128": DeliveryPreset("ebu-r128", container="bwf", sample_rate=48_000, bit_depth=24,
                               target_lufs=-23.0, lufs_tolerance=0.5, true_peak_max=-1.0),
    "custom": DeliveryPreset("custom"),
}
PRESET_NAMES = tuple(PRESETS)


def preset_named(name: str, **overrides: object) -> DeliveryPreset:
    """The named preset with single values overridden (``--target-lufs`` and
    friends); ``None`` overrides are ignored. Raises ValueError naming what is
    wrong (an unknown preset, a value the container cannot hold)."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r} (choose {', '.join(PRESETS)})")
    changes = {k: v for k, v in overrides.items() if v is not None}
    unknown = set(changes) - set(DeliveryPreset.__dataclass_fields__)
    if unknown:
        raise ValueError(f"unknown preset field(s): {', '.join(sorted(unknown))}")
    base = PRESETS[name]
    container = changes.get("container")
    if isinstance(container, str) and container != base.container:
        # Another container than the preset's: its usual rate and bitrate, unless given.
        for key, value in CONTAINER_DEFAULTS.get(container, {}).items():
            changes.setdefault(key, value)
    return replace(base, **changes)  # type: ignore[arg-type]
