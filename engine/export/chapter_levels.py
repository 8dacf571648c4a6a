"""How much louder than the master gain each delivered file is made, predicted from the
programme's analysis before anything is written, so the dialogue leveller levels each
scene's lines for the gain its file is delivered at.

The dialogue leveller (engine/audio/leveller.py) brings each line's peaks under the stems'
ceiling for the gain the line reaches the listener at. For the podcast and broadcast
presets that is the master gain: the render solves it for the preset's loudness and the
delivered file takes no more (its own levelling gain is 0 dB), so the leveller did the
work and the delivery's limiter has none. ACX levels every chapter on its own to an RMS
of -20 dBFS, counting its pauses and 3.25 s of room tone, under a peak limit 1.5 dB below
the stems' ceiling: a chapter is delivered several dB louder than the master gain (a
sparse one, with quiet off-stage lines, 12 dB), and what the leveller never saw, the
delivery's limiter took off (up to 10.9 dB on the held-out storm script). Here each file's
delivery gain is predicted on the analysis (its RMS or loudness at the master gain, its
head and tail counted) and the lines of its scenes are levelled for it, with the
delivery's ceiling: one leveller, one rule, for every preset; a preset whose files take
the master gain as it is gets nothing here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from engine.audio.effects import LIMITER_CEILING_DB
from engine.audio.leveller import STEM_CEILING_DB
from engine.audio.normalize import ProgrammeAnalysis
from engine.export.delivery import DeliveryPlan, file_spans, level_target, limiter_ceiling
from engine.mixdown.mixplan import RESTAGE_DB, RESTAGE_LEAD, RESTAGE_SHRINK
from engine.project.timeline import Placement

# The leveller's wall sits this far under the delivery limiter's ceiling (as the stems'
# ceiling sits under the master limiter's): the limiter then only catches what the
# resampling and the sum of voices and sounds add.
_UNDER_LIMITER_DB = STEM_CEILING_DB - LIMITER_CEILING_DB


def ceiling_offset_db(plan: DeliveryPlan) -> float:
    """How much harder than for the stems' ceiling a delivered file's lines are levelled:
    its limiter's ceiling lies that much lower (ACX's -3 dBFS peaks: 2 dB), 0 for the rest."""
    return max(0.0, STEM_CEILING_DB - (limiter_ceiling(plan.preset) + _UNDER_LIMITER_DB))


def delivery_gains(analysis: ProgrammeAnalysis, plan: DeliveryPlan, placements: list[Placement], frames: int,
                   gain_db: float) -> list[float]:
    """Each delivered file's own levelling gain (dB over the master gain ``gain_db``), as
    engine/export/delivery.py will measure it: its level through the master limiter
    against the preset's target, its head and tail of room tone counted."""
    preset, rate = plan.preset, analysis.rate
    silent = int(round((preset.head_s + preset.tail_s) * rate))
    rms = preset.level == "rms"
    gains = []
    for _, (start, stop), _ in file_spans(plan, placements, rate, frames):
        level = analysis.span_level(start, stop, gain_db, LIMITER_CEILING_DB, rms, silent)
        gains.append(level_target(preset) - level if math.isfinite(level) else 0.0)
    return gains


def scene_levels(analysis: ProgrammeAnalysis, plan: DeliveryPlan, placements: list[Placement], frames: int,
                 gain_db: float, staging_db: float) -> dict[str, float]:
    """Each scene's lines: how much louder than ``staging_db`` (the master gain the
    leveller levels for) they are delivered, with the delivery's ceiling taken in.
    Empty where every file is delivered at the master gain (within RESTAGE_DB)."""
    if plan.direct:
        return {}
    offset = ceiling_offset_db(plan)
    gains = delivery_gains(analysis, plan, placements, frames, gain_db)
    if all(g + offset <= RESTAGE_DB for g in gains):
        return {}
    scenes = [c.scene for c in plan.chapters]
    files = [[c.scene] for c in plan.chapters] if plan.preset.per_scene else [scenes]
    levels: dict[str, float] = {}
    for members, gain in zip(files, gains, strict=True):
        for scene in members:
            if scene is not None:
                # Never under the master gain: the stems are written at it and keep their ceiling.
                levels[scene] = max(0.0, gain_db + gain + offset - staging_db)
    return levels


def next_levels(wanted: Mapping[str, float], levelled: Mapping[str, float],
                before: Mapping[str, float] | None) -> tuple[dict[str, float], dict[str, float]] | None:
    """The scene levels to level for next, and how far each scene's prediction landed above
    its levelling, after a pass levelled for ``levelled`` predicted ``wanted`` (``before``:
    how far the pass before landed, None for the first); None when no scene is to be
    levelled harder. A scene within RESTAGE_DB of its levelling is done; so is a scene whose
    excess did not at least halve since the pass before (RESTAGE_SHRINK): its lines are at
    the leveller's wall, where levelling harder turns whole words down and the file's gain
    walks away with the levelling (a sparse chapter of quiet off-stage lines and a shout),
    and its delivery's limiter takes the rest. Levelling harder takes a little level, which
    the next prediction asks back: aim past it, as the master gain's restaging does."""
    excess = {s: wanted.get(s, 0.0) - levelled.get(s, 0.0) for s in {*wanted, *levelled}}
    harder = {s for s, e in excess.items()
              if e > RESTAGE_DB and (before is None or s not in before or e <= before[s] * RESTAGE_SHRINK)}
    if not harder:
        return None
    out = dict(levelled)
    for scene in harder:
        out[scene] = wanted[scene] + RESTAGE_LEAD * excess[scene]
    return out, {s: excess[s] for s in harder}
