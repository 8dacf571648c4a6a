"""A project's sound clips, found, loaded and placed for the Programme.

Export and live playback both come here (one home): each clip's file is
found relative to the project (or matched from the sound library when the
clip is still a placeholder: the match is used for this render or session
and never written back behind the producer's back), loaded at the project
rate through the clip cache, and turned into the
:class:`~engine.audio.soundbus.SoundBus` the Programme mixes, with each
lane's gain, mute/solo and ducking.

An effect the producer placed (a perspective or a position) is staged in
its scene's room by the stager that stages lines
(engine/audio/staging.py ``sound_stage``): a point source, its file heard in
mono, panned and distanced, its room's tail after it. Ambience and music
are not staged: an ambience is the room.

A missing, unreadable or unsupported file is a problem named with its file
and cue (``SoundSet.problems``): export refuses it unless told to render the
rest with silence there (engine/export/sound_check.py); the studio shows the
clip in red.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.audio.ducking import DuckSettings
from engine.audio.leveller import expected_gain_db, sound_trim
from engine.audio.soundbus import PlacedSound, SoundBus, balance_gains, place_sound
from engine.audio.staging import Stager, sound_stages
from engine.project.model import Project
from engine.project.sound import SoundClip
from engine.project.timeline import SoundPlacement
from engine.synth.cache import ClipCache
from engine.synth.sound_library import SoundError, SoundLibrary, load_sound, probe_sound, sound_key


@dataclass
class SoundSet:
    """What a project's sound clips sound like, for one render or session."""

    audio: dict[str, np.ndarray] = field(default_factory=dict)  # clip id -> (frames, channels)
    files: dict[str, str] = field(default_factory=dict)  # clip id -> the file it plays
    matched: dict[str, str] = field(default_factory=dict)  # placeholder id -> library file chosen
    relinked: dict[str, str] = field(default_factory=dict)  # clip id -> a note: the same-named file used
    placeholders: list[SoundClip] = field(default_factory=list)  # no sound yet: silent
    problems: dict[str, str] = field(default_factory=dict)  # clip id -> one-line reason
    keys: dict[str, str] = field(default_factory=dict)  # clip id -> its sound's content key (staged under it)
    # Placed effects staged once per clip and staging (live: one that does not wait for a room).
    stager: Stager = field(default_factory=Stager)
    _mono: dict[str, np.ndarray] = field(default_factory=dict)  # content key -> the file heard in mono

    def mono(self, clip_id: str) -> np.ndarray:
        """A clip's sound as one channel (a placed effect is a point source)."""
        audio = self.audio[clip_id]
        key = self.keys.get(clip_id, "")
        held = self._mono.get(key) if key else None
        if held is None:
            held = audio[:, 0] if audio.shape[1] == 1 else audio.mean(axis=1, dtype=np.float32)
            if key:
                self._mono[key] = held
        return held

    def durations(self, rate: int) -> dict[str, float]:
        return {cid: a.shape[0] / rate for cid, a in self.audio.items()}


def describe(clip: SoundClip) -> str:
    cue = clip.cue or clip.id
    return f"cue '{cue}' ({clip.lane} lane, clip {clip.id})"


def resolve_sounds(project: Project, project_dir: Path | None, library: SoundLibrary | None = None,
                   cache: ClipCache | None = None, load: bool = True, stager: Stager | None = None) -> SoundSet:
    """Find and load every clip's sound (problems are recorded, not raised).
    ``load=False`` only opens each file's header: the problems a render must
    report before synthesis, without reading or resampling any audio.
    ``stager``: what stages placed effects (default: one that waits for a
    room and keeps staged effects in the clip cache's folder)."""
    out = SoundSet(stager=stager or Stager(store=cache.disk if cache is not None else None))
    loaded: dict[str, np.ndarray] = {}
    for clip in project.sounds:
        if clip.file:
            path = Path(clip.file).expanduser()
            if not path.is_absolute() and project_dir is not None:
                path = project_dir / path
            shown = clip.file
            if not path.exists() and library is not None and (same := library.named(path.name)) is not None:
                # A project moved without its sound folder: the library's file of the same
                # name stands in (as a DAW relinks missing media), and the render says so.
                out.relinked[clip.id] = (f"sound file {clip.file} for {describe(clip)} was not found; "
                                         f"{same.path} (the same name, from the sound library) plays")
                path, shown = Path(same.path), same.path
        else:
            match = library.match(clip.cue) if library is not None else None
            if match is None:
                out.placeholders.append(clip)
                continue
            path, shown = Path(match.path), match.path
            out.matched[clip.id] = match.path
        key = str(path)
        try:
            if key not in loaded:
                loaded[key] = (load_sound(path, project.sample_rate, cache) if load
                               else np.zeros((0, probe_sound(path)), dtype=np.float32))
        except SoundError as exc:
            reason = str(exc).split(": ", 1)[-1] if str(exc).startswith(str(path)) else str(exc)
            out.problems[clip.id] = f"sound file {shown} for {describe(clip)}: {reason}"
            continue
        out.audio[clip.id] = loaded[key]
        out.files[clip.id] = shown
        try:
            out.keys[clip.id] = sound_key(path, project.sample_rate)
        except OSError:
            pass  # staged again each time it is placed, nothing worse
    return out


def duck_settings(project: Project, lane: int) -> DuckSettings:
    d = project.sound_lanes[lane].ducking
    return DuckSettings(d.depth_db, d.attack_s, d.release_s, d.lookahead_s)


def build_sound_bus(project: Project, sounds: SoundSet, placements: Sequence[SoundPlacement],
                    max_block: int, staging_db: float | None = None) -> SoundBus | None:
    """The sound lanes of a project as a SoundBus (None without sound lanes)."""
    if not project.sound_lanes:
        return None
    rate = project.sample_rate
    bus = SoundBus([lane.kind for lane in project.sound_lanes], rate, max_block)
    apply_sound_lanes(project, bus)
    bus.set_sounds(place_sounds(project, sounds, placements, staging_db))
    return bus


def apply_sound_lanes(project: Project, bus: SoundBus) -> None:
    """Lane gain, mute/solo and ducking from the project (any thread)."""
    audible = project.audible_sound_lanes()
    for i, lane in enumerate(project.sound_lanes[:bus.lanes]):
        bus.set_lane(i, lane.gain_db, lane.name in audible, lane.pan)
        settings = duck_settings(project, i)
        if bus.ducking(i) != settings:
            bus.set_ducking(i, settings)


def place_sounds(project: Project, sounds: SoundSet, placements: Sequence[SoundPlacement],
                 staging_db: float | None = None) -> list[PlacedSound]:
    """The sound clips on the bus, each trimmed where it would clip its stem at
    a master gain of ``staging_db`` (engine/audio/leveller.py ``sound_trim``;
    default: the gain expected at the default target)."""
    if staging_db is None:
        staging_db = expected_gain_db(project)
    rate = project.sample_rate
    peaks: dict[int, float] = {}  # a file played by several clips is read once
    lanes = project.sound_lanes
    lane_index = {lane.name: i for i, lane in enumerate(project.sound_lanes)}
    clips = {c.id: c for c in project.sounds}
    stages = sound_stages(project, {p.clip_id: p.scene for p in placements})
    placed = []
    for p in placements:
        clip, audio, lane = clips.get(p.clip_id), sounds.audio.get(p.clip_id), lane_index.get(p.lane)
        if clip is None or audio is None or lane is None:
            continue
        start = int(round(p.start * rate))
        length = int(round(p.end * rate)) - start
        pan = clip.pan
        stage = stages.get(clip.id)
        if stage is not None and audio.shape[0]:
            # Staged as a line is: stereo, panned by its staging, its room's tail after the file's end.
            dry_frames = audio.shape[0]
            key = sounds.keys.get(clip.id, "")
            audio = sounds.stager.clip(clip.id, sounds.mono(clip.id), stage, rate, key and f"sound:{key}")
            pan = 0.0
            if not clip.loop:
                length += audio.shape[0] - dry_frames
        if id(audio) not in peaks:
            peaks[id(audio)] = float(np.max(np.abs(audio))) if audio.size else 0.0
        channels = audio.shape[1] if audio.ndim == 2 else 1
        reach = max(balance_gains(clip.gain_db, pan, channels)) * max(
            balance_gains(lanes[lane].gain_db, lanes[lane].pan, 2))
        trim_db = 20 * math.log10(sound_trim(peaks[id(audio)], reach, staging_db))
        placed.append(place_sound(lane, start, length, audio, rate, gain_db=clip.gain_db + trim_db, pan=pan,
                                  fade_in_s=clip.fade_in, fade_out_s=clip.fade_out, loop=clip.loop))
    return placed
