"""Sound lanes in the mix: effects, ambience and music clips, ducked.

The dialogue's :class:`~engine.audio.mixer.BlockMixer` mixes mono lines; a
sound clip is a file (mono or stereo, at the programme rate) that may loop
under many lines, fade in and out and be ducked by the dialogue. This bus
mixes those for any block [t, t+n) (random access, like the block mixer),
one stereo stem per sound lane, and applies each lane's ducking curve
(:mod:`engine.audio.ducking`), built from the dialogue mixer's clips
whenever they or its lane settings change.

A bed longer than its file loops with a crossfade baked into a loop body
once (:func:`place_sound`): frame f of the clip reads the file itself until
the loop point, then the body modulo its length, so the loop seam is the
crossfade and the block loop only indexes.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.audio.ducking import DialogueKey, DuckSettings, GainReader, duck_curve
from engine.audio.mixer import BlockMixer

LOOP_CROSSFADE_S = 0.5
OFF = DuckSettings(0.0, 0.1, 0.5, 0.1)


@dataclass(frozen=True)
class PlacedSound:
    """A sound clip on a sound lane: frames [start, start + length) of the
    programme play ``audio`` ((frames, channels) float32), looping through
    ``body`` when it is set, with linear fades and per-channel gains."""

    lane: int
    start: int
    length: int
    audio: np.ndarray
    gains: tuple[float, float]
    fade_in: int = 0
    fade_out: int = 0
    body: np.ndarray | None = None  # the loop body (crossfade baked in); None: play once

    @property
    def end(self) -> int:
        return self.start + self.length


def balance_gains(gain_db: float, pan: float, channels: int) -> tuple[float, float]:
    """Constant-power pan for a mono file; a balance for a stereo one (the
    far side is turned down, the near side kept)."""
    g = 10 ** (gain_db / 20)
    pan = max(-1.0, min(1.0, pan))
    if channels == 1:
        theta = (pan + 1.0) * math.pi / 4
        return g * math.cos(theta), g * math.sin(theta)
    return g * min(1.0, 1.0 - pan), g * min(1.0, 1.0 + pan)


def place_sound(lane: int, start: int, length: int | None, audio: np.ndarray, rate: int, *,
                gain_db: float = 0.0, pan: float = 0.0, fade_in_s: float = 0.0, fade_out_s: float = 0.0,
                loop: bool = False) -> PlacedSound:
    """A sound clip ready for the bus. ``length`` None plays the file once;
    a longer length loops (with ``loop``) or ends in silence."""
    if audio.ndim == 1:
        audio = audio[:, None]
    frames = audio.shape[0]
    length = frames if length is None else max(0, length)
    body = None
    if loop and length > frames and frames > 1:
        fade = min(int(LOOP_CROSSFADE_S * rate), frames // 2)
        cut = frames - fade
        body = np.array(audio[:cut], dtype=np.float32, copy=True)
        if fade:
            up = np.linspace(0.0, 1.0, fade, endpoint=False, dtype=np.float32)[:, None]
            body[:fade] = audio[:fade] * up + audio[cut:] * (1.0 - up)
        body.setflags(write=False)
    elif not loop:
        length = min(length, frames)
    fade_in = min(int(fade_in_s * rate), length)
    fade_out = min(int(fade_out_s * rate), length)
    return PlacedSound(lane, start, length, audio, balance_gains(gain_db, pan, audio.shape[1]),
                       fade_in, fade_out, body)


class SoundIndex:
    """Sound clips sorted by start (immutable; swapped whole)."""

    def __init__(self, sounds: Sequence[PlacedSound]) -> None:
        self.sounds = sorted(sounds, key=lambda s: s.start)
        self.starts = [s.start for s in self.sounds]
        self.longest = max((s.length for s in self.sounds), default=0)
        self.length = max((s.end for s in self.sounds), default=0)


class SoundBus:
    """Mixes sound lanes for any block; ducks them under the dialogue.

    Threads: ``process`` runs on the programme's thread; ``set_sounds``,
    ``set_lane`` and ``set_ducking`` may be called from any thread (each
    swaps in whole values, read once per block). The ducking curves are
    rebuilt on the programme's thread, at the first block after the
    dialogue or a setting changed (a few milliseconds for an hour of
    dialogue: per-clip energies are cached).
    """

    def __init__(self, kinds: Sequence[str], rate: int, max_block: int = 8192) -> None:
        self.kinds = tuple(kinds)
        self.lanes = len(self.kinds)
        self.rate = rate
        self.max_block = max_block
        self._index = SoundIndex([])
        self._lane_gains = np.ones((self.lanes, 2), dtype=np.float32)
        self._audible = np.ones(self.lanes, dtype=bool)
        self._ducking: tuple[DuckSettings, ...] = (OFF,) * self.lanes
        self._key = DialogueKey(rate)
        self._reader = GainReader(self._key.hop, max_block)
        self._curves: list[np.ndarray] = [np.ones(0, dtype=np.float32)] * self.lanes
        self._signature: tuple[object, ...] | None = None
        # Live playback rebuilds the curves on its control thread when clips arrive
        # (sync there), never in the mixer thread's block loop: False keeps process from it.
        self.sync_in_blocks = True
        self._settings_version = 0
        self._scratch = np.zeros((max_block, 2), dtype=np.float32)
        self._env = np.zeros(max_block, dtype=np.float32)
        self._tail = np.zeros(max_block, dtype=np.float32)
        self._touched = np.zeros(self.lanes, dtype=bool)
        self._gain_rows: dict[tuple[float, float], np.ndarray] = {}  # a clip's (left, right) as an array
        self._ramp = np.arange(max_block, dtype=np.float32)

    @property
    def length(self) -> int:
        return self._index.length

    @property
    def sounds(self) -> list[PlacedSound]:
        return self._index.sounds

    def set_sounds(self, sounds: Sequence[PlacedSound]) -> None:
        self._index = SoundIndex(sounds)
        self._settings_version += 1

    def set_lane(self, lane: int, gain_db: float, audible: bool, pan: float = 0.0) -> None:
        """The lane's gain and balance (its stem is stereo), and whether it is heard."""
        self._lane_gains[lane] = balance_gains(gain_db, pan, 2)
        self._audible[lane] = audible

    def set_ducking(self, lane: int, settings: DuckSettings) -> None:
        ducking = list(self._ducking)
        ducking[lane] = settings
        self._ducking = tuple(ducking)
        self._settings_version += 1

    def ducking(self, lane: int) -> DuckSettings:
        return self._ducking[lane]

    def duck_gains(self, lane: int) -> np.ndarray:
        """The lane's ducking gain per 10 ms hop (tests, meters)."""
        return self._curves[lane]

    # --- the stream (the programme's thread) ---------------------------------------------

    def sync(self, dialogue: BlockMixer) -> None:
        """Rebuild the ducking curves if the dialogue or a setting changed. The
        new curves are swapped in whole, so a block mixed meanwhile on another
        thread reads the old ones or the new ones, never half of each."""
        signature = (dialogue.version, self._settings_version, self._ducking)
        if signature == self._signature:
            return
        if not any(d.on for d in self._ducking):
            curves = [np.ones(0, dtype=np.float32)] * self.lanes
        else:
            frames = max(dialogue.length, self.length) + self.rate * 4
            key = self._key.build(dialogue.key_clips(), frames)
            curves = [duck_curve(key, d) for d in self._ducking]
        self._curves, self._signature = curves, signature

    def process(self, t: int, n: int, stems: np.ndarray) -> None:
        """Mix frames [t, t+n) into ``stems`` ((lanes, n, 2), overwritten)."""
        index = self._index
        stems.fill(0.0)
        touched = self._touched
        touched.fill(False)
        first = bisect.bisect_left(index.starts, t - index.longest)
        last = bisect.bisect_left(index.starts, t + n)
        for i in range(first, last):
            sound = index.sounds[i]
            if sound.end <= t or not self._audible[sound.lane]:
                continue
            a, b = max(t, sound.start), min(t + n, sound.end)
            self._add(sound, a - sound.start, b - a, stems[sound.lane, a - t:b - t])
            touched[sound.lane] = True
        for lane in range(self.lanes):
            if not touched[lane]:  # silent: nothing to scale or duck
                continue
            if self._lane_gains[lane, 0] != 1.0 or self._lane_gains[lane, 1] != 1.0:
                stems[lane] *= self._lane_gains[lane]
            curve = self._curves[lane]
            if curve.size:
                gains = self._reader.read(curve, t, n)
                if isinstance(gains, float):
                    if gains != 1.0:
                        stems[lane] *= gains
                else:
                    stems[lane] *= gains[:, None]

    def _add(self, sound: PlacedSound, offset: int, length: int, target: np.ndarray) -> None:
        """Add ``length`` frames of the clip from ``offset`` into ``target``: each
        stretch of the file (or of its loop body) is scaled by the clip's gains
        (and fades) into scratch and added, two array operations a stretch."""
        env = self._envelope(sound, offset, length)
        gains = self._gain_rows.get(sound.gains)
        if gains is None:
            gains = self._gain_rows[sound.gains] = np.asarray(sound.gains, dtype=np.float32)
        audio, body = sound.audio, sound.body
        done = 0
        while done < length:
            at = offset + done
            if body is None:
                if at >= audio.shape[0]:  # a clip longer than its file ends in silence
                    break
                source, pos, limit = audio, at, audio.shape[0]
            elif at < body.shape[0]:  # the first pass plays the file itself up to the loop point
                source, pos, limit = audio, at, body.shape[0]
            else:
                source, pos, limit = body, (at - body.shape[0]) % body.shape[0], body.shape[0]
            k = min(length - done, limit - pos)
            chunk = source[pos:pos + k, :2]
            scratch = self._scratch[:k]
            np.multiply(chunk, gains, out=scratch)  # a mono chunk spreads to both channels here
            if env is not None:
                scratch *= env[done:done + k, None]
            out = target[done:done + k]
            np.add(out, scratch, out=out)
            done += k

    def _envelope(self, sound: PlacedSound, offset: int, length: int) -> np.ndarray | None:
        """The fades' gain over frames [offset, offset + length) of the clip; None outside them."""
        fading_in = sound.fade_in and offset < sound.fade_in
        fading_out = sound.fade_out and offset + length > sound.length - sound.fade_out
        if not fading_in and not fading_out:
            return None
        env = self._env[:length]
        ramp = self._ramp[:length]
        env.fill(1.0)
        if fading_in:
            np.add(ramp, offset, out=env)
            env /= sound.fade_in
            np.minimum(env, 1.0, out=env)
        if fading_out:
            # (length_total - frame) / fade_out, below 1 only inside the fade
            tail = self._tail[:length]
            np.add(ramp, offset, out=tail)
            np.subtract(sound.length, tail, out=tail)
            tail /= sound.fade_out
            np.minimum(env, tail, out=env)
        return env
