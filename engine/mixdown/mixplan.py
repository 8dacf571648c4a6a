"""What export and live playback mix: a project's clips laid out on the timeline, the block
mixer, the lanes' effects, the sound lanes and the master chain, as one
:class:`~engine.audio.programme.Programme` (engine/export/render.py writes
it; live playback mixes the same programme, engine/session/mix.py LiveMix), and the
programme's length with its tail.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import numpy as np

from engine.audio.leveller import expected_gain_db, lane_offset_db, line_envelope
from engine.audio.mixer import BlockMixer, PlacedClip
from engine.audio.programme import Programme
from engine.mixdown.sound_placement import SoundSet, build_sound_bus
from engine.project.model import Project
from engine.project.timeline import Placement, SoundPlacement, layout_all

BLOCK = 8192
# The release of the last consonant (and the limiter's) needs this much after
# the last clip; lane reverbs ring longer and extend it.
TAIL_S = 0.5
# The dialogue leveller levels for the master gain expected before the
# programme is measured; where the measured gain is higher by more than this,
# the lines are levelled again for it (a second analysis), so the stems keep
# their headroom (engine/audio/leveller.py STEM_CEILING_DB). The render
# (engine/export/render.py) and the live gain (engine/mixdown/live_gain.py) both do.
RESTAGE_DB = 0.5
RESTAGES = 3
# Levelling for a gain g2 after a first estimate g1 takes loudness, so the gain
# then measured lands past g2 by about a quarter of (g2 - g1) (measured on the
# sample and the mix tests' held-out script); aiming that far past converges in one pass.
RESTAGE_LEAD = 0.25


def placed_clips(project: Project, clips: dict[str, np.ndarray], placements: list[Placement],
                 staging_db: float | None = None) -> list[PlacedClip]:
    """The lines' clips where the mixer plays them (lane = the role's place in
    the cast), each with the dialogue leveller's curve for a master gain of
    ``staging_db`` (default: :func:`expected_gain_db` at the default target)."""
    if staging_db is None:
        staging_db = expected_gain_db(project)
    lane = {r.name: i for i, r in enumerate(project.cast)}
    # A line reaches its stem at its fader and pan (the louder channel), then the master gain.
    offset = {r.name: lane_offset_db(r.gain_db, r.pan) + staging_db for r in project.cast}
    rate = project.sample_rate
    return [PlacedClip(lane[p.role], int(round(p.start * rate)), clips[p.line_id],
                       line_envelope(clips[p.line_id], rate, offset[p.role])) for p in placements]


class LevelledLines(Mapping[str, np.ndarray]):
    """Each line's clip as the mix plays it (the dialogue leveller's curve for
    ``staging_db`` applied), made when asked for, one at a time: the DAW
    hand-off's line files, which then peak under full scale as the stems do."""

    def __init__(self, project: Project, clips: dict[str, np.ndarray], staging_db: float) -> None:
        self._clips = clips
        self._rate = project.sample_rate
        role = {line.id: line.role for line in project.lines}
        offset = {r.name: lane_offset_db(r.gain_db, r.pan) + staging_db for r in project.cast}
        self._offset = {lid: offset[role[lid]] for lid in clips if lid in role and role[lid] in offset}

    def __getitem__(self, line_id: str) -> np.ndarray:
        clip = self._clips[line_id]
        if line_id not in self._offset:
            return clip
        return line_envelope(clip, self._rate, self._offset[line_id]).apply(clip)

    def __iter__(self) -> Iterator[str]:
        return iter(self._clips)

    def __len__(self) -> int:
        return len(self._clips)


def build_mixer(project: Project, clips: dict[str, np.ndarray], placements: list[Placement],
                max_block: int = BLOCK, staging_db: float | None = None) -> BlockMixer:
    mixer = BlockMixer(placed_clips(project, clips, placements, staging_db), len(project.cast), max_block)
    audible = project.audible_roles()
    for i, role in enumerate(project.cast):
        mixer.set_lane(i, role.gain_db, role.pan, role.name in audible)
    return mixer


def build_programme(project: Project, mixer: BlockMixer, sounds: SoundSet | None = None,
                    sound_placements: list[SoundPlacement] | None = None, staging_db: float | None = None,
                    ) -> Programme:
    """The programme of a project: its lanes' effects, its sound lanes and its master preset."""
    bus = build_sound_bus(project, sounds or SoundSet(), sound_placements or [], mixer.max_block, staging_db)
    return Programme(mixer, project.sample_rate, [r.effect for r in project.cast], project.master_effect,
                     sounds=bus)


def programme_for(project: Project, clips: dict[str, np.ndarray], block: int = BLOCK,
                  sounds: SoundSet | None = None, staging_db: float | None = None,
                  ) -> tuple[Programme, list[Placement], int]:
    """What export mixes from these clips: the layout from their real lengths,
    the mixer, the lanes' effects, sound lanes and master chain, and the
    programme's length in frames with the tail (reverb, limiter release, the
    last consonant)."""
    programme, placements, _, total = plan_mix(project, clips, block, sounds, staging_db)
    return programme, placements, total


def plan_mix(project: Project, clips: dict[str, np.ndarray], block: int = BLOCK, sounds: SoundSet | None = None,
             staging_db: float | None = None) -> tuple[Programme, list[Placement], list[SoundPlacement], int]:
    """:func:`programme_for` with the sound clips' placements too."""
    rate = project.sample_rate
    sounds = sounds or SoundSet()
    placements, sound_placements = layout_all(project, {lid: clip.shape[0] / rate for lid, clip in clips.items()},
                                              sounds.durations(rate))
    mixer = build_mixer(project, clips, placements, block, staging_db)
    programme = build_programme(project, mixer, sounds, sound_placements, staging_db)
    end = max(mixer.length, programme.sounds.length if programme.sounds is not None else 0)
    return programme, placements, sound_placements, programme_frames(end, programme)


def programme_frames(end_frame: int, programme: Programme) -> int:
    """The programme's length: to the end of its last clip, plus the tail
    (reverb, limiter release, the last consonant). The transport shows this
    length, so it agrees with the exported mix to the frame."""
    return end_frame + int(max(TAIL_S, programme.tail_s) * programme.rate)
