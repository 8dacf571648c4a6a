"""Synthesize every line a job needs, overlapping inference and post-processing.

Threads: ``radioplay-infer-N`` workers (one per ONNX session of the voice,
see SessionLayout) run inference, which releases the GIL; one
``radioplay-post`` thread trims, pitch-shifts and resamples, so a session is
never idle waiting for DSP. Identical requests (same cache key) are
synthesized once. The role-priority scheduler builds on these stages.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from engine.project.model import Project
from engine.synth.errors import TextError, VoiceError
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer, RawAudio

Progress = Callable[[str, int, int], None]
# Clips of one voice and pitch are shaped together up to this much audio.
BATCH_SECONDS = 30.0


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
    pinned: list[str] = field(default_factory=list)


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
    workers = max(1, synth.backend.layout.sessions)
    done = 0
    # Lines of one voice and pitch are inferred one after another and shaped
    # together (pitch_shift_many); state below is touched only by the post
    # thread, which runs one task at a time.
    groups: dict[tuple[str, float], list[ClipPlan]] = defaultdict(list)
    for plan in missing.values():
        groups[(str(plan.voice.model_path), plan.params.pitch)].append(plan)
    remaining = {key: len(group) for key, group in groups.items()}
    waiting: dict[tuple[str, float], list[RawAudio]] = defaultdict(list)

    def shape(key: tuple[str, float], raw: RawAudio) -> None:
        nonlocal done
        waiting[key].append(raw)
        remaining[key] -= 1
        if remaining[key] and sum(r.seconds for r in waiting[key]) < BATCH_SECONDS:
            return
        batch = waiting.pop(key)
        clips = synth.finish_many(batch)
        for r, clip in zip(batch, clips, strict=True):
            result.model_seconds += r.seconds
            result.audio_seconds_synthesized += clip.shape[0] / synth.sample_rate
        done += len(batch)
        if progress:
            progress("synthesizing", done, total)

    def run(key: tuple[str, float], plan: ClipPlan) -> Future[None]:
        # Inference on this worker (ORT releases the GIL), then hand the raw
        # audio to the post thread and take the next line at once.
        if cancel is not None and cancel.is_set():
            raise Cancelled("synthesis cancelled")
        units = synth.phonemize(plan)
        reservation = synth.reserve(plan, units)  # arena room before inference
        try:
            raw = synth.infer(plan, units)
        except BaseException:
            if reservation is not None:
                synth.cache.release(plan.key)
            raise
        raw.reservation = reservation
        return post.submit(shape, key, raw)

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="radioplay-post") as post, \
            ThreadPoolExecutor(max_workers=workers, thread_name_prefix="radioplay-infer") as infer:
        futures = [infer.submit(run, key, plan) for key, group in groups.items() for plan in group]
        try:
            for future in futures:
                future.result().result()
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    result.synthesized = total
    # Pinned so later work cannot evict what the caller is about to mix; the
    # caller unpins (release_clips) when done.
    for line_id, plan in plans.items():
        clip = synth.cache.get(plan.key, pin=True)
        if clip is None:  # evicted from memory and no disk cache: make it again
            synth.finish(synth.infer(plan))
            clip = synth.cache.get(plan.key, pin=True)
        if clip is None:
            raise RuntimeError(f"clip for line {line_id} could not be kept in memory or on disk")
        if synth.cache.store.pins(plan.key):
            result.pinned.append(plan.key)
        result.clips[line_id] = clip
    return result


def release_clips(synth: ClipSynthesizer, result: SynthesisResult) -> None:
    """Undo the pins synthesize_lines took."""
    for key in result.pinned:
        synth.cache.unpin(key)
    result.pinned.clear()
