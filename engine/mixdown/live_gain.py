"""The master gain live playback plays at: export's, solved on the live clips.

Until every line has a clip the live mix plays at a nominal gain; then the
Session solves the gain export would choose for the same programme (the
same analysis and limiter simulation, on a private mixer), or takes it from
the memo export shares (engine/mixdown/memo.py).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from engine.audio.effects import LIMITER_CEILING_DB
from engine.audio.leveller import expected_gain_db
from engine.audio.staging import StagedStore, Stager
from engine.mixdown.memo import GainMemo, SolvedGain, programme_key
from engine.mixdown.mixplan import RESTAGES, plan_mix, restage_for
from engine.mixdown.sound_placement import SoundSet
from engine.project.defaults import DEFAULT_TARGET_LUFS
from engine.project.model import Project
from engine.synth.pipeline import Cancelled


def nominal_gain_db(project: Project, target_lufs: float = DEFAULT_TARGET_LUFS) -> float:
    """The master gain live playback plays and levels its lines at until the solve
    answers: the one the export's first pass levels for (``expected_gain_db``), so the
    lines staged meanwhile are the export's, read from the clip cache's folder when
    the project was exported before, not staged again."""
    return expected_gain_db(project, target_lufs)


def solve_live_gain(project: Project, clips: dict[str, np.ndarray], rate: int,
                    cancelled: Callable[[], bool] = lambda: False,
                    target_lufs: float = DEFAULT_TARGET_LUFS, sounds: SoundSet | None = None,
                    memo: GainMemo | None = None, keys: dict[str, str] | None = None,
                    store: StagedStore | None = None) -> SolvedGain:
    """The master gain export would choose for these clips (same programme,
    analysis and limiter simulation), on a private mixer, with the gain the
    dialogue leveller levelled the lines for (``staging_db``: live playback
    levels its lines for it, as the export does, so they mix the same
    samples). Raises Cancelled between blocks once ``cancelled()`` says so
    (the session is closing).
    With ``memo`` (and ``keys``, each synthesized line's clip key) a gain the
    export remembered for the same programme is used instead of a pass over
    it, and a gain solved here is remembered for the export. With ``store`` (the
    clip cache's folder) the staged lines are the export's: read from there when
    staged before, kept there when staged now."""
    identities = dict(keys or {})
    for lid, clip in clips.items():  # recorded takes: the export's identity of the take's audio
        identities.setdefault(lid, "take:" + hashlib.sha256(clip.tobytes()).hexdigest()[:32])
    # One stager for the passes: a staged line whose curve did not change is not staged again.
    staging, stager = expected_gain_db(project, target_lufs), Stager(store=store)
    programme, placements, _, total = plan_mix(project, clips, sounds=sounds, staging_db=staging, stager=stager,
                                               clip_keys=identities)
    key = None
    if memo is not None:
        key = programme_key(project, placements, identities, programme.lane_effects, programme.master_effect,
                            total, target_lufs, LIMITER_CEILING_DB, sounds)
        known = memo.load(key)
        if known is not None:
            if not math.isfinite(known.staging_db):
                known = replace(known, staging_db=staging)
            return known

    def check() -> None:
        if cancelled():
            raise Cancelled("the session closed")

    # As the render does (engine/export/render.py): the lines levelled again
    # while the measured gain is above the one they were levelled for.
    excess: float | None = None
    for restage in range(1 + RESTAGES):
        if restage:
            programme, placements, _, total = plan_mix(project, clips, sounds=sounds, staging_db=staging,
                                                       stager=stager, clip_keys=identities)
        analysis = programme.analyse(total, check=check)
        gain_db, predicted = analysis.solve_gain(target_lufs, LIMITER_CEILING_DB)
        solved = SolvedGain(analysis.loudness(), gain_db, predicted, staging)
        next_staging = restage_for(staging, gain_db, excess)
        if next_staging is None:
            break
        excess, staging = gain_db - staging, next_staging
    if memo is not None and key is not None:
        memo.save(key, solved)
    return solved
