"""What export and live playback mix: a project's clips laid out on the timeline, the block
mixer, the lanes' effects, the sound lanes and the master chain, as one
:class:`~engine.audio.programme.Programme` (engine/export/render.py writes
it; live playback mixes the same programme, engine/session/mix.py LiveMix), and the
programme's length with its tail.
"""

from __future__ import annotations

import numpy as np

from engine.audio.mixer import BlockMixer, PlacedClip
from engine.audio.programme import Programme
from engine.audio.staging import Stager, line_stages
from engine.mixdown.sound_placement import SoundSet, build_sound_bus
from engine.project.model import Project
from engine.project.timeline import Placement, SoundPlacement, layout_all

BLOCK = 8192
# The release of the last consonant (and the limiter's) needs this much after
# the last clip; lane reverbs ring longer and extend it.
TAIL_S = 0.5


def placed_clips(project: Project, clips: dict[str, np.ndarray], placements: list[Placement],
                 stager: Stager | None = None, clip_keys: dict[str, str] | None = None) -> list[PlacedClip]:
    """The lines' clips where the mixer plays them (lane = the role's place in the
    cast), staged in their scenes' rooms and perspectives (engine/audio/staging.py;
    ``clip_keys``: the clips' content keys, under which a stager with a store keeps
    the staged clips)."""
    lane = {r.name: i for i, r in enumerate(project.cast)}
    rate = project.sample_rate
    stager = stager or Stager()
    stages = line_stages(project)
    keys = clip_keys or {}
    return [PlacedClip(lane[p.role], int(round(p.start * rate)),
                       stager.clip(p.line_id, clips[p.line_id], stages.get(p.line_id), rate, keys.get(p.line_id, "")))
            for p in placements]


def build_mixer(project: Project, clips: dict[str, np.ndarray], placements: list[Placement],
                max_block: int = BLOCK, stager: Stager | None = None,
                clip_keys: dict[str, str] | None = None) -> BlockMixer:
    mixer = BlockMixer(placed_clips(project, clips, placements, stager, clip_keys), len(project.cast), max_block)
    audible = project.audible_roles()
    for i, role in enumerate(project.cast):
        mixer.set_lane(i, role.gain_db, role.pan, role.name in audible)
    return mixer


def build_programme(project: Project, mixer: BlockMixer, sounds: SoundSet | None = None,
                    sound_placements: list[SoundPlacement] | None = None) -> Programme:
    """The programme of a project: its lanes' effects, its sound lanes and its master preset."""
    bus = build_sound_bus(project, sounds or SoundSet(), sound_placements or [], mixer.max_block)
    return Programme(mixer, project.sample_rate, [r.effect for r in project.cast], project.master_effect,
                     sounds=bus)


def programme_for(project: Project, clips: dict[str, np.ndarray], block: int = BLOCK,
                  sounds: SoundSet | None = None) -> tuple[Programme, list[Placement], int]:
    """What export mixes from these clips: the layout from their real lengths,
    the mixer, the lanes' effects, sound lanes and master chain, and the
    programme's length in frames with the tail (reverb, limiter release, the
    last consonant)."""
    programme, placements, _, total = plan_mix(project, clips, block, sounds)
    return programme, placements, total


def plan_mix(project: Project, clips: dict[str, np.ndarray], block: int = BLOCK, sounds: SoundSet | None = None,
             stager: Stager | None = None, clip_keys: dict[str, str] | None = None,
             ) -> tuple[Programme, list[Placement], list[SoundPlacement], int]:
    """:func:`programme_for` with the sound clips' placements too (``stager`` and
    ``clip_keys``: see :func:`placed_clips`)."""
    rate = project.sample_rate
    sounds = sounds or SoundSet()
    placements, sound_placements = layout_all(project, {lid: clip.shape[0] / rate for lid, clip in clips.items()},
                                              sounds.durations(rate))
    mixer = build_mixer(project, clips, placements, block, stager, clip_keys)
    programme = build_programme(project, mixer, sounds, sound_placements)
    end = max(mixer.length, programme.sounds.length if programme.sounds is not None else 0)
    return programme, placements, sound_placements, programme_frames(end, programme)


def programme_frames(end_frame: int, programme: Programme) -> int:
    """The programme's length: to the end of its last clip, plus the tail
    (reverb, limiter release, the last consonant). The transport shows this
    length, so it agrees with the exported mix to the frame."""
    return end_frame + int(max(TAIL_S, programme.tail_s) * programme.rate)
