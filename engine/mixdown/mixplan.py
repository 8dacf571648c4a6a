"""What export and live playback mix: a project's clips laid out on the timeline, the block
mixer, the lanes' effects, the sound lanes and the master chain, as one
:class:`~engine.audio.programme.Programme` (engine/export/render.py writes
it; live playback mixes the same programme, engine/session/mix.py LiveMix), and the
programme's length with its tail.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from engine.audio.leveller import expected_gain_db
from engine.audio.mixer import BlockMixer, PlacedClip
from engine.audio.programme import Programme
from engine.audio.staging import Stager
from engine.mixdown.dialogue import DialogueChain
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
# (engine/export/render.py) and the live gain (engine/mixdown/live_gain.py) both
# do, through :func:`restage_for`.
RESTAGE_DB = 0.5
RESTAGES = 3
# Levelling for a gain g2 after a first estimate g1 takes loudness, so the gain
# then measured lands past g2 by about a quarter of (g2 - g1) (measured on the
# sample and the mix tests' held-out script); aiming that far past converges in one pass.
RESTAGE_LEAD = 0.25
# A pass must at least halve how far the measured gain lands above the levelling,
# or the lines are at the leveller's wall: levelling harder only squashes them
# (the measured gain walks away with the levelling, pass after pass), and the
# solve keeps the programme it has.
RESTAGE_SHRINK = 0.5


def restage_for(staging_db: float, gain_db: float, excess_before: float | None) -> float | None:
    """The master gain to level the lines for next, after a pass levelled for
    ``staging_db`` measured ``gain_db`` (``excess_before``: how far the pass
    before landed above its levelling, None for the first), or None: done,
    because the gain is within RESTAGE_DB of the levelling, or because the
    excess did not shrink (the wall). The caller bounds the passes (RESTAGES)."""
    excess = gain_db - staging_db
    if excess <= RESTAGE_DB:
        return None
    if excess_before is not None and excess > excess_before * RESTAGE_SHRINK:
        return None
    # Levelling harder takes a little loudness, which the next gain puts back: aim past it.
    return gain_db + excess * RESTAGE_LEAD


def placed_clips(project: Project, clips: dict[str, np.ndarray], placements: list[Placement],
                 staging_db: float | None = None, stager: Stager | None = None,
                 clip_keys: dict[str, str] | None = None, scene_db: Mapping[str, float] | None = None,
                 ) -> list[PlacedClip]:
    """The lines' clips where the mixer plays them (lane = the role's place in
    the cast), through the dialogue chain (engine/mixdown/dialogue.py): the
    leveller's curve for a master gain of ``staging_db`` (default:
    :func:`expected_gain_db` at the default target), then the staging in
    their scenes' rooms and perspectives (``stager``: one that remembers
    what it staged, for a mix planned again; ``clip_keys``: the clips'
    content keys, under which a stager with a store keeps the staged clips; ``scene_db``:
    how much louder each scene's lines are delivered, engine/mixdown/dialogue.py)."""
    chain = DialogueChain(project, expected_gain_db(project) if staging_db is None else staging_db, stager,
                          clip_keys, scene_db=scene_db)
    lane = {r.name: i for i, r in enumerate(project.cast)}
    rate = project.sample_rate
    return chain.place([(lane[p.role], int(round(p.start * rate)), p.line_id, p.role, clips[p.line_id], None)
                        for p in placements])


def build_mixer(project: Project, clips: dict[str, np.ndarray], placements: list[Placement],
                max_block: int = BLOCK, staging_db: float | None = None, stager: Stager | None = None,
                clip_keys: dict[str, str] | None = None, scene_db: Mapping[str, float] | None = None) -> BlockMixer:
    mixer = BlockMixer(placed_clips(project, clips, placements, staging_db, stager, clip_keys, scene_db),
                       len(project.cast), max_block)
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
                  sounds: SoundSet | None = None, staging_db: float | None = None, stager: Stager | None = None,
                  ) -> tuple[Programme, list[Placement], int]:
    """What export mixes from these clips: the layout from their real lengths,
    the mixer, the lanes' effects, sound lanes and master chain, and the
    programme's length in frames with the tail (reverb, limiter release, the
    last consonant)."""
    programme, placements, _, total = plan_mix(project, clips, block, sounds, staging_db, stager)
    return programme, placements, total


def plan_mix(project: Project, clips: dict[str, np.ndarray], block: int = BLOCK, sounds: SoundSet | None = None,
             staging_db: float | None = None, stager: Stager | None = None,
             clip_keys: dict[str, str] | None = None, scene_db: Mapping[str, float] | None = None,
             ) -> tuple[Programme, list[Placement], list[SoundPlacement], int]:
    """:func:`programme_for` with the sound clips' placements too (``stager``: share one
    between the plans of one mix, levelled again, so that a line whose curve did not
    change is not staged again; ``clip_keys``: see :func:`placed_clips`)."""
    rate = project.sample_rate
    sounds = sounds or SoundSet()
    placements, sound_placements = layout_all(project, {lid: clip.shape[0] / rate for lid, clip in clips.items()},
                                              sounds.durations(rate))
    mixer = build_mixer(project, clips, placements, block, staging_db, stager, clip_keys, scene_db)
    programme = build_programme(project, mixer, sounds, sound_placements, staging_db)
    end = max(mixer.length, programme.sounds.length if programme.sounds is not None else 0)
    return programme, placements, sound_placements, programme_frames(end, programme)


def programme_frames(end_frame: int, programme: Programme) -> int:
    """The programme's length: to the end of its last clip, plus the tail
    (reverb, limiter release, the last consonant). The transport shows this
    length, so it agrees with the exported mix to the frame."""
    return end_frame + int(max(TAIL_S, programme.tail_s) * programme.rate)
