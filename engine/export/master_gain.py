"""A render's master gain: remembered for its programme, or measured by a pass
over it (streamed while the lines were voiced where it could be,
engine/export/prefix.py), with the dialogue leveller's lines levelled again
while the measured gain lands above the gain they were levelled for
(engine/mixdown/mixplan.py RESTAGE_DB), and each scene's lines levelled again for the gain
its delivered file takes over the master gain (engine/export/chapter_levels.py).

The render (engine/export/render.py) writes with the programme this hands
back; live playback solves the same way on its own clips
(engine/mixdown/live_gain.py).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial

from engine.audio.effects import LIMITER_CEILING_DB
from engine.audio.normalize import ProgrammeAnalysis
from engine.audio.programme import Programme
from engine.export.chapter_levels import next_levels, scene_levels
from engine.export.delivery import DeliveryPlan
from engine.export.mix_memo import MixMemo
from engine.export.pages import PassedClips
from engine.export.prefix import PrefixAnalysis
from engine.mixdown.memo import SolvedGain
from engine.mixdown.mixplan import RESTAGES, restage_for
from engine.project.timeline import Placement, SoundPlacement
from engine.synth.pipeline import Progress


def gain_target(plan: DeliveryPlan) -> float:
    """The loudness the master gain aims at. ACX levels each file's RMS later;
    a programme near that level leaves its limiter little to do."""
    return plan.preset.target_lufs if plan.preset.level == "loudness" else plan.preset.rms_target


@dataclass
class MasterGain:
    """What the solve found, and what it took."""

    solved: SolvedGain
    staging_db: float  # the master gain the lines of ``programme`` are levelled for
    scene_db: dict[str, float]  # each scene's lines levelled this much louder (their delivered file's gain)
    programme: Programme  # levelled again where it was; its master gain set
    passed: PassedClips  # its mapped clips (a programme levelled again has staged clips of its own)
    reused: bool  # remembered for the same programme (engine/mixdown/memo.py)
    analysis_pass: bool  # effects needed a pass through the real chain
    streamed: int  # frames analysed while the lines were voiced
    wall_s: float


def solve_master_gain(key: str, memo: MixMemo, programme: Programme, placements: list[Placement],
                      sound_placements: list[SoundPlacement], total: int, block: int, plan: DeliveryPlan,
                      staging: float, replan: Callable[[float, dict[str, float]], Programme], passed: PassedClips,
                      prefix: PrefixAnalysis, progress: Progress | None,
                      check_cancel: Callable[[], None]) -> MasterGain:
    """The master gain of ``programme`` (``total`` frames, its lines levelled for a
    master gain of ``staging``). ``replan(staging_db, scene_db)`` is the same programme
    with the lines levelled for another gain (each scene's that much louder); ``key`` is
    the programme's in ``memo``; ``passed``: its mapped clips."""
    blocks = range(0, total, block)
    analysed = time.perf_counter()
    solved = memo.load(key)
    reused = solved is not None
    analysis_pass, streamed = False, 0
    scene_db: dict[str, float] = {}
    if solved is not None and math.isfinite(solved.staging_db) and (solved.staging_db != staging or solved.scene_db):
        staging = solved.staging_db  # levelled again when it was measured: the same lines again
        scene_db = dict(solved.scene_db)
        programme = replan(staging, scene_db)
        passed = _passing(programme)
    if solved is None:  # not exported like this before: measure the programme
        analysis_pass = not programme.dry
        count, at = _counting(check_cancel, progress, "analysing", len(blocks)), iter(blocks)

        def steps() -> None:  # before each block of the pass
            count()
            passed.release_before(next(at, total))

        analysis = prefix.finish(programme, placements, sound_placements, total, steps)
        streamed = prefix.frames if analysis is not None else 0
        if analysis is None:
            analysis = programme.analyse(total, block, steps)
        passed.release_before(total)  # a dry programme's analysis read every clip at once
        passed.rewind()
        target = gain_target(plan)
        solved = SolvedGain(analysis.loudness(), *analysis.solve_gain(target, LIMITER_CEILING_DB), staging)
        excess: float | None = None
        for _ in range(RESTAGES):  # louder than expected: level the lines for this gain
            restage = restage_for(staging, solved.gain_db, excess)
            if restage is None:
                break
            excess, staging = solved.gain_db - staging, restage
            programme, passed, analysis = _pass(replan(staging, scene_db), total, block, check_cancel)
            analysis_pass = analysis_pass or not programme.dry
            solved = SolvedGain(analysis.loudness(), *analysis.solve_gain(target, LIMITER_CEILING_DB), staging)
        shortfall: dict[str, float] | None = None
        for _ in range(RESTAGES):  # a delivered file louder than the master gain: level its scenes for it
            levels = next_levels(scene_levels(analysis, plan, placements, total, solved.gain_db, staging), scene_db,
                                 shortfall)
            if levels is None:
                break
            scene_db, shortfall = levels
            programme, passed, analysis = _pass(replan(staging, scene_db), total, block, check_cancel)
            analysis_pass = analysis_pass or not programme.dry
            solved = SolvedGain(analysis.loudness(), *analysis.solve_gain(target, LIMITER_CEILING_DB), staging)
        solved = SolvedGain(solved.premix_lufs, solved.gain_db, solved.predicted_lufs, staging,
                            tuple(sorted(scene_db.items())))
        memo.save(key, solved)
    if progress:
        progress("analysing", len(blocks), len(blocks))
    programme.set_master_gain(solved.gain_db)
    return MasterGain(solved, staging, scene_db, programme, passed, reused, analysis_pass, streamed,
                      time.perf_counter() - analysed)


def _pass(programme: Programme, total: int, block: int,
          check_cancel: Callable[[], None]) -> tuple[Programme, PassedClips, ProgrammeAnalysis]:
    """A programme levelled again, analysed by one more pass (not counted: the progress
    never goes back), its mapped clips handed back as the pass goes."""
    passed = _passing(programme)
    analysis = programme.analyse(total, block, partial(_step_quietly, check_cancel, passed,
                                                        iter(range(0, total, block)), total))
    passed.release_before(total)
    passed.rewind()
    return programme, passed, analysis


def _passing(programme: Programme) -> PassedClips:
    """The programme's mapped clips (dry or staged), for a pass to hand back (engine/export/pages.py)."""
    return PassedClips((clip.end, clip.audio) for clip in programme.mixer.clips)


def _step_quietly(check: Callable[[], None], passed: PassedClips, at: Iterator[int], total: int) -> None:
    """Before each block of a pass that shows no progress: cancellation, and the pages it is past."""
    check()
    passed.release_before(next(at, total))


def _counting(check: Callable[[], None], progress: Progress | None, stage: str, total: int) -> Callable[[], None]:
    """``check`` that also reports each block as progress of ``stage``."""
    done = 0

    def step() -> None:
        nonlocal done
        check()
        if progress:
            progress(stage, done, total)
        done += 1

    return step
