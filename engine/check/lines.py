"""The speech check over a project's lines, and fixing the flagged ones.

``check_lines`` checks every line's clip (engine.check.speech) with its
neighbours' text as the recognizer's context and the length the voice's
predictor expects. ``fix_line`` makes up to N new takes of a flagged line
(a take is a seed: engine.project.takes), checks each and keeps the
best-scoring one; locked lines are never touched.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from engine.check.speech import ClipCheck, check_clip
from engine.check.voice import VoiceJudge, take_rank
from engine.project.direction import spoken_text
from engine.project.model import Line, Project
from engine.project.takes import voice_of, with_new_take, with_take
from engine.synth.clipfolder import usable_samples
from engine.synth.errors import TextError
from engine.synth.pipeline import LineErrors, plan_line, plan_lines
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer

CONTEXT_LINES = 2  # neighbours on each side whose words the recognizer may also hear


@dataclass(frozen=True)
class LineResult:
    id: str
    role: str
    score: float
    flagged: bool
    reason: str
    take: int = 0
    suspect: tuple[str, ...] = ()
    similarity: float | None = None  # to the role's voice (engine/check/voice.py); None: not measured
    quality: float | None = None  # DNSMOS overall, 1-5

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "role": self.role, "score": _number(self.score), "flagged": self.flagged,
                "reason": self.reason, "similarity": _number(self.similarity), "quality": _number(self.quality)}


def _number(value: float | None) -> float | None:
    """A measure as JSON has it: NaN or infinity (a measure of no sound) is null, never a bare NaN."""
    return value if value is not None and math.isfinite(value) else None


@dataclass(frozen=True)
class Skipped:
    """A line with nothing to say (blank, or only directions): no clip, so nothing to check."""

    id: str
    role: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "role": self.role, "reason": self.reason}


@dataclass
class CheckReport:
    lines: list[LineResult] = field(default_factory=list)
    fixed: list[str] = field(default_factory=list)  # lines whose chosen take --fix changed
    rates: dict[str, float] = field(default_factory=dict)  # seconds per phoneme by voice (seconds_per_phoneme)
    skipped: list[Skipped] = field(default_factory=list)  # lines with nothing to say

    @property
    def flagged(self) -> int:
        return sum(1 for r in self.lines if r.flagged)

    def to_json(self) -> dict[str, Any]:
        return {"lines": [r.to_json() for r in self.lines], "flagged": self.flagged, "fixed": list(self.fixed),
                "skipped": [s.to_json() for s in self.skipped]}


def plan_checked(project: Project, synth: ClipSynthesizer) -> tuple[dict[str, ClipPlan], list[Skipped]]:
    """The plans of the lines to check, and the lines skipped because they have nothing to
    say (blank, or only directions: TextError). Any other problem (an unknown role, a voice
    that cannot be had) is LineErrors with plan_lines' own words."""
    try:
        return plan_lines(project, synth), []
    except LineErrors as exc:
        errors = exc
    plans: dict[str, ClipPlan] = {}
    skipped: list[Skipped] = []
    prefixes = []
    for number, line in enumerate(project.lines, start=1):
        try:
            plans[line.id] = plan_line(synth, project, line)
        except TextError as text:
            skipped.append(Skipped(line.id, line.role, str(text)))
            prefixes.append(f"line {number} ({line.id}, role {line.role}): ")
        except Exception:  # noqa: BLE001 - said by plan_lines, in its words
            continue
    rest = [problem for problem in errors.problems if not problem.startswith(tuple(prefixes))]
    if rest == errors.problems:
        raise errors
    if rest:
        raise LineErrors(rest)
    return plans, skipped


def context_of(project: Project, index: int) -> list[str]:
    lines = project.lines
    return [spoken_text(line.text)
            for line in lines[max(0, index - CONTEXT_LINES):index] + lines[index + 1:index + 1 + CONTEXT_LINES]]


def phoneme_count(synth: ClipSynthesizer, plan: ClipPlan) -> int:
    try:
        return sum(len(u.ids) for u in synth.phonemize(plan))
    except Exception:  # a voice that cannot phonemize here: no length check, not a failed check
        return 0


def seconds_per_phoneme(project: Project, synth: ClipSynthesizer,
                        clips: Mapping[str, np.ndarray]) -> dict[str, float]:
    """Per voice, the median clip length per phoneme (at length scale 1) over
    the project's lines: what a line's length is predicted from. Measured
    here rather than taken from the voice's length predictor, which knows only
    a prior until it has seen this voice synthesize."""
    rates: dict[str, list[float]] = {}
    for line in project.lines:
        clip = clips.get(line.id)
        if clip is None:
            continue
        plan = plan_line(synth, project, line)
        phonemes = phoneme_count(synth, plan)
        if phonemes:
            rates.setdefault(ClipSynthesizer.length_key(plan), []).append(
                clip.shape[0] / synth.sample_rate / (phonemes * plan.settings.length_scale))
    return {key: float(np.median(values)) for key, values in rates.items()}


def clip_inputs(project: Project, synth: ClipSynthesizer, line: Line, index: int, rates: Mapping[str, float],
                plan: ClipPlan) -> dict[str, Any]:
    """What ``check_clip`` needs besides the samples (plain data: the studio's
    background check sends it to another process)."""
    rate = rates.get(ClipSynthesizer.length_key(plan))
    phonemes = phoneme_count(synth, plan) if rate else 0
    # What is said (directions never are); a directed line's pauses are part of its expected length.
    pauses = sum(p.pause_before for p in plan.phrases) + plan.trailing_pause
    return {"text": spoken_text(line.text), "lexicon": dict(project.lexicon_for(line.role)),
            "context": context_of(project, index),
            "predicted_s": rate * phonemes * plan.settings.length_scale + pauses if rate else None,
            "pitch": voice_of(project, line).pitch, "language": plan.voice.language}


def line_result(line: Line, plan: ClipPlan, result: ClipCheck) -> LineResult:
    return LineResult(line.id, line.role, result.score, result.flagged, result.reason, plan.settings.seed,
                      result.suspect)


def check_line(project: Project, synth: ClipSynthesizer, line: Line, clip: np.ndarray, index: int,
               rates: Mapping[str, float], plan: ClipPlan | None = None, judge: VoiceJudge | None = None) -> LineResult:
    plan = plan or plan_line(synth, project, line)
    inputs = clip_inputs(project, synth, line, index, rates, plan)
    result = line_result(line, plan, check_clip(clip, synth.sample_rate, **inputs))
    if judge is None or not usable_samples(clip):  # no voice to compare in no sound
        return result
    return judge.judge(result, clip, voice_of(project, line))


def check_lines(project: Project, synth: ClipSynthesizer, clips: Mapping[str, np.ndarray],
                progress: Callable[[int, int], None] | None = None, judge: VoiceJudge | None = None) -> CheckReport:
    """Check every line that has a clip (blank lines have none); with ``judge``,
    also its similarity to the role's voice and its quality."""
    report = CheckReport(rates=seconds_per_phoneme(project, synth, clips))
    for index, line in enumerate(project.lines):
        clip = clips.get(line.id)
        if clip is not None:
            report.lines.append(check_line(project, synth, line, clip, index, report.rates, judge=judge))
        if progress:
            progress(index + 1, len(project.lines))
    return report


def voice_clip(synth: ClipSynthesizer, plan: ClipPlan) -> np.ndarray:
    cached = synth.cache.get(plan.key)
    return cached if cached is not None else synth.finish(synth.infer(plan))


def fix_line(project: Project, synth: ClipSynthesizer, line: Line, index: int, takes: int,
             current: LineResult, rates: Mapping[str, float],
             judge: VoiceJudge | None = None) -> tuple[Line, LineResult]:
    """Up to ``takes`` new takes of a flagged line; the best take is chosen
    (engine/check/voice.py ``take_rank``: words, then quality, then similarity;
    the current one when none beats it), every take made is kept in the
    line's takes. Stops at the first take that passes."""
    if line.locked is not None:
        return line, current
    best_line, best = line, current
    trial = line
    for _ in range(max(0, takes)):
        trial = with_new_take(trial)
        plan = plan_line(synth, project, trial)
        result = check_line(project, synth, trial, voice_clip(synth, plan), index, rates, plan, judge)
        if take_rank(result) > take_rank(best):
            best_line, best = trial, result
        if not result.flagged:
            break
    return with_take(trial, best_line.take), best
