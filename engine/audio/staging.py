"""Staging a line: its perspective's filters and level, its position and movement,
and its scene's room, applied to its clip.

A staged line is a stereo clip ((frames + the room's tail, 2) float32):

* the direct sound: the clip through the perspective's device (a
  telephone, a radio: band, compression, drive, hiss; engine/audio/devices.py)
  or muffling (a door's low-pass), at the
  perspective's level, at the line's distance (inverse distance law from the
  reference distance) and pan (constant power), both following the line's
  movement keyframes sample by sample;
* the room: the same filtered clip convolved (overlap-add, blockwise FFT:
  ``scipy.signal.oaconvolve``) with the room's reverberant response
  (:mod:`engine.audio.rooms`), whose level does not depend on distance (a
  diffuse field), so a far voice is wetter and a near one drier. A
  hypercardioid microphone hears a quarter of a diffuse field (-6 dB).

The room's reverberation stays in the role's stem: each role's stem is its
staged voice, tail included (docs/user/staging.md).

The dialogue leveller comes first (a re-recording engineer levels the dry
dialogue, then sends it to the room): :meth:`Stager.clip` stages the clip
with the leveller's curve applied (engine/audio/leveller.py), made for the
dry line's level, so the perspective's level offsets survive it. Where the
staging takes the line past the stems' ceiling (a close position, a
reverberant cellar, a distant voice that is mostly room), the staged line is
trimmed back by one gain, as an editor pulls a line's clip gain down.

A line is staged once when its clip arrives (live: on the session's control
thread; export: as the mix is planned), never in the mixer's blocks, so the
real-time path is the block mixer's as before: it reads a staged clip as it
reads any clip and allocates nothing. Live playback and export stage with
this one function, so they mix the same samples.

A staged clip is kept, like a voiced one, in the clip cache's folder
(:class:`StagedStore`), named by :func:`staged_key`: the dry clip's key and
everything staging does to it (room, perspective, position and movement,
the rate, the room simulation's and this module's versions). An export of
an unchanged production reads its staged lines memory-mapped from there and
convolves nothing (scipy is imported only to stage a line).
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from engine.audio.devices import through_device
from engine.audio.leveller import LineEnvelope
from engine.audio.rooms import ROOMS_VERSION, RoomResponses, shared_responses
from engine.project.model import Line, Project, Scene
from engine.project.sound import SoundClip
from engine.project.staging import REFERENCE_DISTANCE_M, LineStage, line_stage

# A hypercardioid's random-energy efficiency: it hears 1/4 of a diffuse field (-6 dB), as a
# drama studio's mic keeps the room behind the voice (measured: with a cardioid's 1/3 and
# lines at 1 m the recognizer's word error rate in a kitchen tripled, bench/staging.py).
MIC_DIRECTIVITY = math.sqrt(1 / 4)
# Nearer than this a voice gets no louder (a close mic's working limit).
NEAREST_M = 0.3
FILTER_ORDER_MUFFLE = 4
# Bumped when staging a clip gives other samples, so kept staged clips are made again.
STAGING_VERSION = 1


class StagedStore(Protocol):
    """Where staged clips are kept between runs (engine/synth/clipfolder.py's ClipFolder)."""

    def load_staged(self, key: str) -> np.ndarray | None:
        """The staged clip (frames, 2) float32, memory-mapped, or None."""

    def save(self, key: str, audio: np.ndarray) -> None:
        """Keep it under ``key`` (atomically; OSError when it cannot)."""


def staged_key(clip_key: str, stage: LineStage, rate: int, envelope: LineEnvelope | None = None,
               ceiling: float | None = None) -> str:
    """The kept staged clip's name: everything that changes it (the dialogue
    leveller's curve before the staging and the trim's ceiling too)."""
    payload: list[object] = [clip_key, repr(stage), rate, ROOMS_VERSION, STAGING_VERSION]
    curve = curve_digest(envelope)
    if curve or ceiling is not None:
        payload += [curve, repr(ceiling)]
    return "staged-" + hashlib.sha256(json.dumps(payload).encode()).hexdigest()[:32]


def curve_digest(envelope: LineEnvelope | None) -> str:
    """A leveller curve's content as a name ("" for unity)."""
    if envelope is None or not envelope.active:
        return ""
    return hashlib.sha256(envelope.gains.tobytes() + str(envelope.cell).encode()).hexdigest()[:32]


def line_stages(project: Project) -> dict[str, LineStage]:
    """Each staged line's staging (lines with nothing to stage are left out)."""
    scenes: dict[str, Scene] = {s.id: s for s in project.scenes}
    pans = {r.name: r.pan for r in project.cast}
    stages: dict[str, LineStage] = {}
    for line in project.lines:
        stage = stage_of(line, scenes, pans)
        if stage is not None:
            stages[line.id] = stage
    return stages


def staging_identity(project: Project) -> list[list[str]]:
    """What the mix's staging depends on, for the memo of solved gains: each staged
    line's staging and the room simulation's version (another room, perspective or
    position is another programme)."""
    return [[line_id, repr(stage)] for line_id, stage in sorted(line_stages(project).items())] + \
        [["rooms", str(ROOMS_VERSION)]]


def stage_of(line: Line, scenes: Mapping[str, Scene], pans: Mapping[str, float]) -> LineStage | None:
    scene = scenes.get(line.scene) if line.scene is not None else None
    return line_stage(scene.room if scene is not None else None, line.perspective, line.position,
                      pans.get(line.role, 0.0))


def sound_stage(clip: SoundClip, lane_kind: str, scene: Scene | None) -> LineStage | None:
    """A sound clip's staging: an effect the producer placed (a perspective or a
    position) is staged in its scene's room as a line is, from the clip's pan; an
    effect left unplaced plays as it did before staging, and ambience and music
    are never staged (an ambience is the room)."""
    if lane_kind != "effects" or (not clip.perspective and clip.position is None):
        return None
    return line_stage(scene.room if scene is not None else None, clip.perspective, clip.position, clip.pan)


def sound_stages(project: Project, scene_of: Mapping[str, str | None]) -> dict[str, LineStage]:
    """Each staged sound clip's staging (``scene_of``: clip id -> the scene it is
    heard in, engine/project/timeline.py SoundPlacement.scene)."""
    scenes: dict[str, Scene] = {s.id: s for s in project.scenes}
    kinds = {lane.name: lane.kind for lane in project.sound_lanes}
    stages: dict[str, LineStage] = {}
    for clip in project.sounds:
        scene_id = scene_of.get(clip.id)
        stage = sound_stage(clip, kinds.get(clip.lane, "effects"), scenes.get(scene_id) if scene_id else None)
        if stage is not None:
            stages[clip.id] = stage
    return stages


def automation(stage: LineStage, frames: int) -> tuple[np.ndarray, np.ndarray]:
    """Pan and distance per frame across a line of ``frames`` (linear between
    keyframes; before the first and after the last, held)."""
    at = np.array([key[0] for key in stage.path], dtype=np.float64) * max(frames - 1, 0)
    pans = np.array([key[1] for key in stage.path], dtype=np.float64)
    distances = np.array([key[2] for key in stage.path], dtype=np.float64)
    if len(stage.path) == 1 or frames == 0:
        return np.full(frames, pans[0]), np.full(frames, distances[0])
    t = np.arange(frames, dtype=np.float64)
    return np.interp(t, at, pans), np.interp(t, at, distances)


def direct_gains(pan: np.ndarray, distance: np.ndarray, level_db: float) -> np.ndarray:
    """(frames, 2) left and right gains of the direct sound: constant-power pan
    (as the mixer pans an unstaged lane) times the inverse distance law."""
    theta = (np.clip(pan, -1.0, 1.0) + 1.0) * (math.pi / 4)
    near = REFERENCE_DISTANCE_M / np.maximum(distance, NEAREST_M)
    g = near * 10 ** (level_db / 20)
    return np.stack([g * np.cos(theta), g * np.sin(theta)], axis=1)


def direct_db(stage: LineStage) -> float:
    """The loudest the line's direct sound is along its path, in dB against the unstaged
    clip (the inverse distance law and the perspective's level): an O.S. line's -24 dB."""
    nearest = min(distance for _, _, distance in stage.path)
    return stage.level_db + 20 * math.log10(REFERENCE_DISTANCE_M / max(nearest, NEAREST_M))


def perspective_filter(stage: LineStage, audio: np.ndarray, rate: int) -> np.ndarray:
    """The clip as the perspective hears it: through its device (engine/audio/devices.py),
    then muffled by its low-pass."""
    from scipy.signal import butter, sosfilt  # here: a cached render stages nothing

    nyquist = rate / 2
    out = np.asarray(audio, dtype=np.float64)
    if stage.device is not None:
        out = through_device(out, stage.device, rate)
    if stage.lowpass_hz is not None and stage.lowpass_hz < nyquist * 0.95:
        sos = butter(FILTER_ORDER_MUFFLE, stage.lowpass_hz, btype="lowpass", fs=rate, output="sos")
        out = sosfilt(sos, out)
    return out


def stage_clip(audio: np.ndarray, stage: LineStage, rate: int, reverb: np.ndarray | None) -> np.ndarray:
    """The staged stereo clip of a mono clip; ``reverb`` is the scene's room
    response (None: no room)."""
    from scipy.signal import oaconvolve

    frames = int(audio.shape[0])
    heard = perspective_filter(stage, audio, rate)
    pan, distance = automation(stage, frames)
    gains = direct_gains(pan, distance, stage.level_db)
    wet = reverb is not None and stage.reverb > 0 and frames > 0
    tail = int(reverb.shape[0]) - 1 if wet and reverb is not None else 0
    out = np.zeros((frames + tail, 2), dtype=np.float64)
    out[:frames] = heard[:, None] * gains
    if wet and reverb is not None:
        send = heard * (10 ** (stage.level_db / 20) * stage.reverb * MIC_DIRECTIVITY)
        for channel in (0, 1):
            out[:, channel] += oaconvolve(send, reverb[:, channel].astype(np.float64))
    return np.ascontiguousarray(out, dtype=np.float32)


@dataclass
class _Staged:
    clip: np.ndarray
    stage: LineStage
    rate: int
    key: str  # staged_key ("" for a clip given no key: matched by identity, curve and ceiling)
    envelope: LineEnvelope | None
    ceiling: float | None
    staged: np.ndarray
    # Staged without its room (live playback, the room still being made): made again
    # once the room is ready, remembered until then (each relayout must not redo it).
    roomless: bool = False


def same_curve(a: LineEnvelope | None, b: LineEnvelope | None) -> bool:
    """Two leveller curves that level a clip alike (None and a curve that does nothing are unity)."""
    if a is b:
        return True
    a = a if a is not None and a.active else None
    b = b if b is not None and b.active else None
    if a is None or b is None:
        return a is b
    return a.cell == b.cell and np.array_equal(a.gains, b.gains)


def _trimmed(staged: np.ndarray, ceiling: float | None) -> np.ndarray:
    """``staged`` brought under ``ceiling`` by one gain (in place)."""
    peak = float(np.max(np.abs(staged))) if staged.size else 0.0
    if ceiling is not None and peak > ceiling:
        staged *= np.float32(ceiling / peak)
    return staged


class Stager:
    """Staged clips by line, made once per clip and staging: a mix rebuilt
    after every arriving clip (live playback, the export's prefix analysis)
    stages only what changed. One entry per line, so it holds no more than
    the project's lines. With a ``store`` a clip given its dry key is read
    from there when it was staged before (by any process), and kept there
    when it is staged now."""

    def __init__(self, responses: RoomResponses | None = None,
                 room_ready: Callable[[], None] | None = None, store: StagedStore | None = None) -> None:
        """``room_ready`` None: a room not made yet is waited for (export). Set (live
        playback's control thread, which must not wait seconds for a cathedral): the
        line is staged without its room for now, the room is made in the background,
        and ``room_ready`` is called (on that thread) to stage it again."""
        self._responses = responses
        self.room_ready = room_ready
        self.store = store
        self._memo: dict[str, _Staged] = {}
        self._peaks: dict[str, tuple[np.ndarray, float]] = {}  # by line: the staged clip and its peak
        # by line: the staged clip, the level its wall was made for and the wall
        self._walls: dict[str, tuple[np.ndarray, float, LineEnvelope]] = {}
        self._lock = threading.Lock()

    @property
    def responses(self) -> RoomResponses:
        """The rooms' responses (the process's, at first use: a cached render needs none)."""
        if self._responses is None:
            self._responses = shared_responses()
        return self._responses

    def clip(self, line_id: str, audio: np.ndarray, stage: LineStage | None, rate: int,
             clip_key: str = "", *, envelope: LineEnvelope | None = None,
             ceiling: float | None = None) -> np.ndarray:
        """``audio`` as the mix hears it: levelled by ``envelope`` (the dialogue
        leveller's curve, None: unity) and staged (stereo) when the line has a
        staging, else the mono clip itself (the mixer then applies the curve).
        ``ceiling``: the largest sample the staged clip may have; a room's
        reverberation that takes it past is trimmed back, the whole staged line
        by one gain (exact: the staging, a device's included, is homogeneous in
        its input). ``clip_key``: the dry clip's content key (engine/synth/cache.py), which lets the
        staged clip be kept in the store (under a key with the curve and the
        ceiling in it)."""
        if stage is None:
            return audio
        key = staged_key(clip_key, stage, rate, envelope, ceiling) if clip_key else ""
        made = self._known(line_id, audio, stage, rate, key, envelope, ceiling)
        if made is not None:
            return made
        store = self.store if key else None
        levelled = envelope.apply(audio) if envelope is not None and envelope.active else audio
        room = stage.room
        reverb = None
        if room is not None and stage.reverb > 0:
            if self.room_ready is None:
                reverb = self.responses.response(room, rate)
            else:
                reverb = self.responses.ready(room, rate)
                if reverb is None:
                    self.responses.prepare(room, rate, self.room_ready)
                    roomless = _trimmed(stage_clip(levelled, stage, rate, None), ceiling)
                    roomless.setflags(write=False)
                    return self._remember(line_id, audio, stage, rate, key, envelope, ceiling, roomless,
                                          roomless=True)
        staged = _trimmed(stage_clip(levelled, stage, rate, reverb), ceiling)
        if store is not None:
            try:
                store.save(key, staged)
            except OSError:
                pass  # a cache folder that cannot be written costs a staging next time, nothing more
            else:
                # Mapped from its file: the pages can go once a pass is past it (engine/export/pages.py).
                mapped = store.load_staged(key)
                staged = mapped if mapped is not None else staged
        staged.setflags(write=False)
        return self._remember(line_id, audio, stage, rate, key, envelope, ceiling, staged)

    def staged(self, line_id: str, audio: np.ndarray, stage: LineStage, rate: int, clip_key: str = "", *,
               envelope: LineEnvelope | None = None, ceiling: float | None = None) -> np.ndarray | None:
        """The line's staged clip if it is made already (remembered, or in the store), else
        None: never stages (live playback stages what it has time for and asks again)."""
        key = staged_key(clip_key, stage, rate, envelope, ceiling) if clip_key else ""
        return self._known(line_id, audio, stage, rate, key, envelope, ceiling)

    def _known(self, line_id: str, audio: np.ndarray, stage: LineStage, rate: int, key: str,
               envelope: LineEnvelope | None, ceiling: float | None) -> np.ndarray | None:
        """``staged`` for the staged key ``key`` ("": a clip given no key)."""
        with self._lock:
            held = self._memo.get(line_id)
        if held is not None and held.key == key and held.stage == stage and held.rate == rate and \
                (key or (held.clip is audio and same_curve(held.envelope, envelope) and held.ceiling == ceiling)):
            room = stage.room
            if not held.roomless or room is None or self.responses.ready(room, rate) is None:
                return held.staged
            return None  # its room is ready now: staged again, with it
        kept = self.store.load_staged(key) if self.store is not None and key else None
        if kept is not None and kept.shape[0] >= audio.shape[0]:
            return self._remember(line_id, audio, stage, rate, key, envelope, ceiling, kept)
        return None

    def _remember(self, line_id: str, audio: np.ndarray, stage: LineStage, rate: int, key: str,
                  envelope: LineEnvelope | None, ceiling: float | None, staged: np.ndarray, *,
                  roomless: bool = False) -> np.ndarray:
        with self._lock:
            self._memo[line_id] = _Staged(audio, stage, rate, key, envelope, ceiling, staged, roomless)
        return staged

    def peak(self, line_id: str, staged: np.ndarray) -> float:
        """The largest sample of ``staged`` (the line's staged clip), remembered while
        the line keeps that clip: a mix rebuilt after every arriving clip reads it once."""
        with self._lock:
            held = self._peaks.get(line_id)
        if held is not None and held[0] is staged:
            return held[1]
        peak = float(np.max(np.abs(staged))) if staged.size else 0.0
        with self._lock:
            self._peaks[line_id] = (staged, peak)
        return peak

    def wall(self, line_id: str, staged: np.ndarray, offset_db: float,
             make: Callable[[], LineEnvelope]) -> LineEnvelope:
        """The staged wall of ``staged`` (the line's staged clip) for a level of
        ``offset_db`` (engine/mixdown/dialogue.py), ``make()`` when it is not the one
        remembered: a live mix placed again on every arriving clip makes each once."""
        with self._lock:
            held = self._walls.get(line_id)
        if held is not None and held[0] is staged and held[1] == offset_db:
            return held[2]
        wall = make()
        with self._lock:
            self._walls[line_id] = (staged, offset_db, wall)
        return wall

    def forget_except(self, line_ids: set[str]) -> None:
        with self._lock:
            for gone in [k for k in self._walls if k not in line_ids]:
                del self._walls[gone]
            for gone in [k for k in self._memo if k not in line_ids]:
                del self._memo[gone]
            for gone in [k for k in self._peaks if k not in line_ids]:
                del self._peaks[gone]
