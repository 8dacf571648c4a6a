"""The sound lanes of the live session: found, loaded, placed, mixed.

The same :mod:`engine.mixdown.sound_placement` export uses resolves the project's sound
clips (files beside the project, the library for placeholders), so live
playback mixes what export writes; the SoundBus is part of the live
Programme and is laid out by the same pass as the lines
(:func:`engine.project.timeline.layout_all`). Files are read on the control
thread when the clips or lanes change, once per file and rate (the clip
cache keeps them). A placed effect is staged there too, by the export's
function; its room is made in the background (``room_ready`` lays the
session out again when it is), never waited for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from engine.audio.soundbus import SoundBus
from engine.audio.staging import Stager
from engine.mixdown.sound_placement import SoundSet, apply_sound_lanes, place_sounds, resolve_sounds
from engine.project.model import Project
from engine.project.timeline import SoundPlacement
from engine.session.views import SoundView, waveform_peaks
from engine.synth.cache import ClipCache
from engine.synth.sound_library import SoundLibrary


class SoundDesk:
    def __init__(self, project: Callable[[], Project], project_path: Path | None, folders: Sequence[Path],
                 cache: ClipCache, rate: int, reshape_lanes: Callable[[], None],
                 room_ready: Callable[[], None] | None = None) -> None:
        """``project``: the snapshot the control thread applied; ``reshape_lanes``:
        the live mix's, when the sound lanes change shape; ``room_ready``: called
        (on the rooms' thread) when a room a placed effect waited for is made."""
        self._project, self.project_path, self._cache, self.rate = project, project_path, cache, rate
        self._reshape_lanes = reshape_lanes
        self.folders = [Path(f) for f in folders]  # --sounds DIR: searched after sounds/
        self.sound_set = SoundSet()
        self.bus: SoundBus | None = None
        self._library: SoundLibrary | None = None
        self.views: list[SoundView] = []
        self.stager = Stager(room_ready=room_ready or (lambda: None))

    def renew_bus(self, max_block: int) -> SoundBus | None:
        """A SoundBus for the project's sound lanes as they are now (None without any)."""
        lanes = self._project().sound_lanes
        if not lanes:
            self.bus = None
            return None
        bus = SoundBus([lane.kind for lane in lanes], self.rate, max_block=max_block)
        bus.sync_in_blocks = False  # the ducking is rebuilt on the control thread (LiveMix.apply_lanes)
        self.bus = bus
        return bus

    def _sound_library(self) -> SoundLibrary | None:
        """The library (made once): placeholders are matched and moved files relinked from it."""
        if not self._project().sounds:
            return self._library
        if self._library is None:
            self._library = SoundLibrary.for_project(self.project_path, self.folders)
        return self._library

    def resolve(self) -> None:
        project_dir = self.project_path.resolve().parent if self.project_path is not None else None
        self.sound_set = resolve_sounds(self._project(), project_dir, self._sound_library(), self._cache,
                                        stager=self.stager)

    def changed(self, old: Project) -> None:
        """Sound lanes or clips changed in the newest snapshot."""
        project = self._project()
        shape = [(lane.name, lane.kind) for lane in old.sound_lanes]
        if shape != [(lane.name, lane.kind) for lane in project.sound_lanes]:
            self._reshape_lanes()
        if old.sounds is not project.sounds:
            self.resolve()

    def place(self, placements: Sequence[SoundPlacement]) -> None:
        project = self._project()
        bus = self.bus
        if bus is not None:
            apply_sound_lanes(project, bus)
            bus.set_sounds(place_sounds(project, self.sound_set, placements))
        self.stager.forget_except({p.clip_id for p in placements})  # a removed clip's staging goes
        problems = self.sound_set.problems
        self.views = [SoundView(p.clip_id, p.lane, p.start, p.end, p.clip_id not in self.sound_set.audio,
                                self.sound_set.files.get(p.clip_id, ""), problems.get(p.clip_id))
                      for p in placements]

    def peaks(self, clip_id: str, columns: int) -> np.ndarray | None:
        """(columns, 2) min/max of a sound clip as laid out (its file's first
        channel, repeated where the clip loops, cut where it ends early)."""
        audio = self.sound_set.audio.get(clip_id)
        view = next((v for v in self.views if v.clip_id == clip_id), None)
        if audio is None or view is None or columns <= 0:
            return None
        clip = next((c for c in self._project().sounds if c.id == clip_id), None)
        length = max(1, int(round((view.end - view.start) * self.rate)))
        channel = audio[:, 0]
        if length > channel.shape[0] and clip is not None and clip.loop:
            channel = np.resize(channel, length)  # repeats the file, as the loop plays it
        return waveform_peaks(np.ascontiguousarray(channel[:length]), columns)
