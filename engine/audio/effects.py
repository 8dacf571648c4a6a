"""Effect presets for role lanes and the master bus (pedalboard), by name.

This module is the one home of the preset names: the file format, the
studio and the command line all check against :data:`LANE_EFFECTS` and
:data:`MASTER_EFFECTS`. A producer picks a preset, not a plug-in graph:
what a drama needs is a handful of settings that sound right on speech.

Lane presets sit on a lane after its fader and pan (an insert on the lane's
stereo bus). Each keeps a line's loudness where the levelling put it
(-23 LUFS), measured on the bundled voice, except ``distance``, whose point
is to be quieter. Every effect here runs sample by sample with no latency,
so stems stay aligned with the mix.

The master chain is the preset's stage (nothing for ``clean``; a dialogue
compressor for ``broadcast``) followed by the true-peak limiter, always
last. The loudness-normalizing gain comes before the chain; the compressor's
threshold moves with that gain, so it compresses the same syllables whatever
the target loudness is. That also lets the render analyse the programme
once at unity gain and solve the gain afterwards (see
:meth:`engine.audio.programme.Programme.analyse`).

pedalboard is imported when a chain is built, not with this module, so the
data model can use the names without loading the effects library.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.audio.loudness import CLIP_LUFS
from engine.project.presets import LANE_EFFECTS, MASTER_EFFECTS

if TYPE_CHECKING:
    from engine.audio.limiter import LookaheadLimiter


# Sample-peak ceiling of the master limiter. Speech limited at -2 dBFS keeps
# the inter-sample (true) peak under -1 dBTP, which the tests check by 4x
# oversampling.
LIMITER_CEILING_DB = -2.0

# A wet lane whose input has been silent for its tail time and whose output
# has decayed below this level (-100 dBFS) is idle: its blocks are passed
# through (they are silence) without calling pedalboard, so a lane costs only
# while it speaks. (Output alone is not enough: a compressor's envelope is
# still falling while silence comes out of it.)
_IDLE_LEVEL = 1e-5
# The block size pedalboard prepares plug-ins for. pedalboard prepares a
# plug-in for the block it is given (up to this size) and resets filters and
# compressors whenever a block is larger than any before (measured: a 5-frame
# block after 3-frame ones restarts the filters). So every chain is primed
# with one block of this size of silence, which leaves the state of a fresh
# chain exactly as it was, and is never re-prepared after.
_BUFFER = 8192
_SILENCE: np.ndarray | None = None


def _silence() -> np.ndarray:
    global _SILENCE
    if _SILENCE is None:
        _SILENCE = np.zeros((_BUFFER, 2), dtype=np.float32)
        _SILENCE.flags.writeable = False
    return _SILENCE

# broadcast: the compressor's threshold above the level lines arrive at
# (each line is levelled to CLIP_LUFS; the detector follows the peaks of
# each channel with a 5 ms attack). Measured on the sample at -16 LUFS,
# thresholds 0/+2/+4/+8/+12 dB over the line level: at +4 the compressor
# takes up to 3.4 dB off the loudest 5 % of syllables (7 dB at most), and
# the limiter's deepest reduction falls from 8.8 to 5.2 dB, the time it
# spends over 3 dB from 4.9 % to 0.5 % of the programme.
BROADCAST_THRESHOLD_OVER_LINE_DB = 4.0
BROADCAST_RATIO = 3.0

# Make-up gains that keep a line's loudness through a preset (mean change on
# the sample's 48 lines, measured), and the direct-sound drop of ``distance``.
TELEPHONE_MAKEUP_DB = 3.5
RADIO_MAKEUP_DB = 8.9
ROOM_MAKEUP_DB = -0.1
HALL_MAKEUP_DB = -0.3
DISTANCE_DIRECT_DB = -8.0


def _check(name: str, table: dict[str, str], kind: str) -> None:
    if name not in table:
        raise ValueError(f"unknown {kind} {name!r} (choose {', '.join(table)})")


class EffectChain:
    """One preset's plug-ins with their state (filter memory, reverb tail).

    ``process`` takes consecutive (frames, 2) float32 blocks of at least
    :data:`MIN_FRAMES` frames (pedalboard cannot tell the channel axis of a
    shorter block; :class:`~engine.audio.programme.Programme` takes care of
    that) and returns the processed block. A dry chain (``none``, ``clean``)
    returns its input unchanged and never calls pedalboard.

    Thread: the thread that runs the programme (export, or the live mixer
    thread) calls ``process`` and ``reset``; a chain is built on any thread
    and handed over whole.
    """

    MIN_FRAMES = 3

    def __init__(self, name: str, rate: int, plugins: list[Any] | None = None, tail_s: float = 0.0) -> None:
        self.name = name
        self.rate = rate
        self.tail_s = tail_s  # how long it rings after its input stops
        self.dry = not plugins
        self._board: Any = None
        if plugins:
            import pedalboard

            self._board = pedalboard.Pedalboard(plugins)  # type: ignore[attr-defined]
            self._prime()
        self._idle = True
        self._tail_frames = int(tail_s * rate)
        self._silent_frames = 0

    def process(self, block: np.ndarray, reset: bool = False) -> np.ndarray:
        """Process the next block (after a seek, pass ``reset=True`` or call :meth:`reset`)."""
        if self._board is None:
            return block
        if reset:
            self.reset()
        silent = not block.any()
        if silent and self._idle:
            return block  # silence in, nothing ringing: silence out
        out: np.ndarray = self._board.process(block, self.rate, buffer_size=_BUFFER, reset=False)
        self._silent_frames = self._silent_frames + block.shape[0] if silent else 0
        self._idle = (self._silent_frames >= self._tail_frames
                      and float(out.max()) < _IDLE_LEVEL and float(out.min()) > -_IDLE_LEVEL)
        return out

    def reset(self) -> None:
        """Forget the state (tails, filter memory): call on a seek."""
        if self._board is not None:
            self._board.reset()
            self._prime()
        self._idle = True
        self._silent_frames = 0

    def _prime(self) -> None:
        self._board.process(_silence(), self.rate, buffer_size=_BUFFER, reset=False)


class MasterStage(EffectChain):
    """The pre-limiter part of a master preset; its compressor's threshold
    follows the master gain applied before it (:meth:`set_gain_db`)."""

    def __init__(self, name: str, rate: int, plugins: list[Any] | None = None,
                 compressor: Any = None, threshold_db: float = 0.0, tail_s: float = 0.0) -> None:
        super().__init__(name, rate, plugins, tail_s)
        self._compressor = compressor
        self._threshold_db = threshold_db

    def set_gain_db(self, gain_db: float) -> None:
        """The gain the programme applies before this stage (any thread; next block)."""
        if self._compressor is not None:
            self._compressor.threshold_db = self._threshold_db + gain_db


def _band(low_hz: float, high_hz: float, order: int) -> list[Any]:
    """A band-pass from cascaded first-order filters (6 dB/octave per stage)."""
    import pedalboard as pb

    return [pb.HighpassFilter(low_hz) for _ in range(order)] + [pb.LowpassFilter(high_hz) for _ in range(order)]


def _drive(drive_db: float) -> list[Any]:
    """tanh saturation that leaves quiet passages at their level and rounds off peaks."""
    import pedalboard as pb

    return [pb.Distortion(drive_db), pb.Gain(-drive_db)]


def _telephone() -> tuple[list[Any], float]:
    import pedalboard as pb

    return [*_band(300.0, 3400.0, 2), *_drive(8.0), pb.Gain(TELEPHONE_MAKEUP_DB)], 0.05


def _radio() -> tuple[list[Any], float]:
    import pedalboard as pb

    return [*_band(450.0, 2800.0, 2), pb.PeakFilter(1500.0, 5.0, 1.0), *_drive(14.0),
            pb.Compressor(threshold_db=-30.0, ratio=3.0, attack_ms=2.0, release_ms=80.0),
            pb.Gain(RADIO_MAKEUP_DB)], 0.5  # the compressor's envelope falls for ~0.3 s


# JUCE's reverb (Freeverb) scales dry by 2 and its wet output comes out some
# 6-11 dB over the input at wet_level 1 (measured on speech: 6.4 dB for the
# room, 7.2 for distance, 10.7 for the hall), so dry_level 0.5 is the direct
# sound at unity and wet_level sets the reverb's level under it.
def _reverb(room_size: float, damping: float, wet_db: float, wet_at_unity_db: float, width: float,
            dry: float = 0.5) -> Any:
    import pedalboard as pb

    wet = 10 ** ((wet_db - wet_at_unity_db) / 20)
    return pb.Reverb(room_size=room_size, damping=damping, wet_level=wet, dry_level=dry, width=width)


def _room() -> tuple[list[Any], float]:
    import pedalboard as pb

    # Reverb 14 dB under the direct sound: close voices in a small room.
    return [_reverb(0.25, 0.6, -14.0, 6.4, 0.7), pb.Gain(ROOM_MAKEUP_DB)], 0.8


def _hall() -> tuple[list[Any], float]:
    import pedalboard as pb

    # Reverb 8 dB under the direct sound, ringing some 2.6 s.
    return [_reverb(0.8, 0.35, -8.0, 10.7, 1.0), pb.Gain(HALL_MAKEUP_DB)], 2.6


def _distance() -> tuple[list[Any], float]:
    import pedalboard as pb

    # Farther away: the direct sound drops and dulls, the room does not, so
    # the reverb ends up about level with it.
    direct = 10 ** (DISTANCE_DIRECT_DB / 20) / 2
    return [pb.LowpassFilter(3000.0),
            _reverb(0.4, 0.5, DISTANCE_DIRECT_DB - 2.0, 7.2, 0.8, dry=direct)], 1.0


_LANE_FACTORIES: dict[str, Callable[[], tuple[list[Any], float]]] = {
    "telephone": _telephone, "radio": _radio, "room": _room, "hall": _hall, "distance": _distance,
}


def lane_chain(name: str, rate: int) -> EffectChain:
    """A fresh chain for a lane preset (``ValueError`` names the choices)."""
    _check(name, LANE_EFFECTS, "lane effect")
    if name == "none":
        return EffectChain(name, rate)
    plugins, tail_s = _LANE_FACTORIES[name]()
    return EffectChain(name, rate, plugins, tail_s)


def master_stage(name: str, rate: int, gain_db: float = 0.0) -> MasterStage:
    """The pre-limiter stage of a master preset, for a programme whose master
    gain is ``gain_db``."""
    _check(name, MASTER_EFFECTS, "master effect")
    if name == "clean":
        return MasterStage(name, rate)
    import pedalboard as pb

    threshold = CLIP_LUFS + BROADCAST_THRESHOLD_OVER_LINE_DB
    compressor = pb.Compressor(threshold_db=threshold + gain_db, ratio=BROADCAST_RATIO,
                               attack_ms=5.0, release_ms=150.0)
    # Through a pause the envelope keeps falling (~58 dB in 1 s at a 150 ms
    # release) while silence comes out: only then may the stage idle.
    return MasterStage(name, rate, [compressor], compressor, threshold, tail_s=1.0)


class MasterChain:
    """Master preset stage, then the true-peak limiter (always last).

    ``process`` takes the programme *after* the master gain; its output is
    delayed by :attr:`latency` frames (the limiter's look-ahead) and
    :meth:`flush` returns the last ones. Changing the preset swaps the stage
    and keeps the limiter, so its delay line plays on without a gap.
    """

    def __init__(self, name: str, rate: int, gain_db: float = 0.0,
                 ceiling_db: float = LIMITER_CEILING_DB, channels: int = 2) -> None:
        self.rate = rate
        self.ceiling_db = ceiling_db
        self.channels = channels
        self._gain_db = gain_db
        self.stage = master_stage(name, rate, gain_db)
        self.limiter = self._new_limiter()

    def _new_limiter(self) -> LookaheadLimiter:
        from engine.audio.limiter import LookaheadLimiter

        return LookaheadLimiter(self.rate, self.ceiling_db, channels=self.channels)

    @property
    def name(self) -> str:
        return self.stage.name

    @property
    def latency(self) -> int:
        return self.limiter.latency

    def set_preset(self, name: str) -> None:
        """Swap the preset stage (built here, then swapped in whole)."""
        self.stage = master_stage(name, self.rate, self._gain_db)

    def set_gain_db(self, gain_db: float) -> None:
        self._gain_db = gain_db
        self.stage.set_gain_db(gain_db)

    def compress(self, block: np.ndarray) -> np.ndarray:
        """The preset stage alone (the block itself for ``clean``)."""
        return self.stage.process(block)

    def process(self, block: np.ndarray) -> np.ndarray:
        return self.limiter.process(self.stage.process(block))

    def flush(self) -> np.ndarray:
        return self.limiter.flush()

    def reset(self) -> None:
        self.stage.reset()
        self.limiter = self._new_limiter()
