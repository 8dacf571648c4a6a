"""Synthesize every line a job needs, overlapping inference and post-processing.

Inference (ONNX, releases the GIL) runs on the calling thread while the
previous clip is trimmed, pitch-shifted and resampled on a post thread, so
the model is never idle waiting for DSP. Identical requests (same cache key)
are synthesized once. The role-priority scheduler builds on these stages.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from engine.project.model import Project
from engine.synth.errors import TextError, VoiceError
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer

Progress = Callable[[str, int, int], None]


class LineErrors(ValueError):
    """One or more lines cannot be synthesized; each entry names line and role."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


class Cancelled(RuntimeError):
    pass


@dataclass
class SynthesisResult:
    clips: dict[str, np.ndarray]
    plans: dict[str, ClipPlan]
    synthesized: int = 0
    cached: int = 0
    audio_seconds_synthesized: float = 0.0
    model_seconds: float = 0.0  # untrimmed model output, comparable to the ONNX ceiling
    failures: list[str] = field(default_factory=list)


def plan_lines(project: Project, synth: ClipSynthesizer) -> dict[str, ClipPlan]:
    """Plan every line or raise LineErrors listing every problem at once."""
    roles = {r.name: r for r in project.cast}
    plans: dict[str, ClipPlan] = {}
    problems: list[str] = []
    for number, line in enumerate(project.lines, start=1):
        where = f"line {number} ({line.id}, role {line.role})"
        role = roles.get(line.role)
        if role is None:
            problems.append(f"{where}: unknown role {line.role!r}")
            continue
        try:
            plans[line.id] = synth.plan(line.text, role.voice, project.lexicon)
        except (TextError, VoiceError) as exc:
            problems.append(f"{where}: {exc}")
    if problems:
        raise LineErrors(problems)
    return plans


def synthesize_lines(project: Project, synth: ClipSynthesizer, progress: Progress | None = None,
                     cancel: threading.Event | None = None) -> SynthesisResult:
    plans = plan_lines(project, synth)
    missing: dict[str, ClipPlan] = {}
    for plan in plans.values():
        if plan.key not in synth.cache and plan.key not in missing:
            missing[plan.key] = plan
    total = len(missing)
    result = SynthesisResult(clips={}, plans=plans,
                             cached=sum(1 for p in plans.values() if p.key not in missing))
    if progress:
        progress("synthesizing", 0, total)
    done = 0
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="radioplay-post") as post:
        pending: list[Future[np.ndarray]] = []
        for plan in missing.values():
            if cancel is not None and cancel.is_set():
                raise Cancelled("synthesis cancelled")
            raw = synth.infer(plan)
            result.model_seconds += raw.seconds
            pending.append(post.submit(synth.finish, raw))
            while pending and pending[0].done():
                result.audio_seconds_synthesized += pending.pop(0).result().shape[0] / synth.sample_rate
                done += 1
                if progress:
                    progress("synthesizing", done, total)
        for future in pending:
            result.audio_seconds_synthesized += future.result().shape[0] / synth.sample_rate
            done += 1
            if progress:
                progress("synthesizing", done, total)
    result.synthesized = total
    for line_id, plan in plans.items():
        clip = synth.cache.get(plan.key)
        if clip is None:  # evicted from memory and no disk cache: make it again
            clip = synth.finish(synth.infer(plan))
        result.clips[line_id] = clip
    return result
