"""A take of one line heard alone, levelled and staged as playback plays it.

The Takes panel compares takes (its A/B) by hearing each by itself. Heard as
the raw clip it was another level than the line in the programme (the clip is
levelled to the synthesis's loudness, the programme's line by the dialogue
leveller for the master gain, staged in its room, through its lane and the
master chain): several dB louder, so the comparison said more about the path
than about the takes. Here the take goes through the line's
own path: the dialogue chain (engine/mixdown/dialogue.py) for the master gain
playback levels for, with its role's staged trim in the whole mix, its lane
(fader, pan, effect) and the master chain at the master gain playback plays at.
"""

from __future__ import annotations

import numpy as np

from engine.audio.mixer import BlockMixer
from engine.audio.programme import Programme
from engine.audio.staging import Stager
from engine.mixdown.dialogue import DialogueChain
from engine.mixdown.mixplan import BLOCK, programme_frames
from engine.project.model import Project


def take_alone(project: Project, line_id: str, clip: np.ndarray, *, staging_db: float, gain_db: float,
               stager: Stager | None = None, trims: dict[str, float] | None = None) -> np.ndarray:
    """``clip`` (a take of ``line_id``) as the programme plays the line, alone: (frames, 2),
    after the master chain, with the programme's tail. ``staging_db``: the master gain the
    lines are levelled for; ``gain_db``: the master gain; ``trims``: the roles' staged trims
    in the whole mix (a staged role's lines share one). Its lane is heard even when muted:
    the producer asked for this take. Raises KeyError for a line or role not in ``project``."""
    line = project.line(line_id)
    role = project.role(line.role)
    lane = [r.name for r in project.cast].index(role.name)
    chain = DialogueChain(project, staging_db, stager)
    placed = chain.place([(lane, 0, line_id, role.name, clip, None)], trims=trims)
    mixer = BlockMixer(placed, len(project.cast), max_block=BLOCK)
    mixer.set_lane(lane, role.gain_db, role.pan, True)
    programme = Programme(mixer, project.sample_rate, [r.effect for r in project.cast], project.master_effect,
                          gain_db=gain_db)
    return programme.render(programme_frames(mixer.length, programme))
