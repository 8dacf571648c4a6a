"""A whole project's lines through the scheduler, as export requests.

``radioplay render`` (and the studio's export) submit every line that is not
cached yet with origin EXPORT and the role's weight; identical lines share
one synthesis and playback or audition requests in the same scheduler stay
ahead of them. Without a scheduler of the caller's, a private one is used
for the job and closed afterwards.
"""

from __future__ import annotations

import threading
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Protocol

import numpy as np

from engine.project.model import Project
from engine.project.timeline import layout
from engine.sched.batching import BatchSizer
from engine.sched.policy import RolePriorityPolicy
from engine.sched.request import Deadline, LineRequest, Origin
from engine.sched.scheduler import Scheduler
from engine.synth.pipeline import Cancelled, Progress, SynthesisResult, plan_lines
from engine.synth.recording import load_recordings
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer


class Voiced(Protocol):
    """Told on the caller's thread as lines get their clips (engine/export/prefix.py)."""

    def begin(self, plans: dict[str, ClipPlan], pending: set[str]) -> None:
        """Every line's plan, and the keys still to synthesize."""

    def voiced(self, key: str) -> None:
        """The clip of ``key`` is in the cache."""


def synthesize_lines(project: Project, synth: ClipSynthesizer, progress: Progress | None = None,
                     cancel: threading.Event | None = None, scheduler: Scheduler | None = None,
                     voiced: Voiced | None = None) -> SynthesisResult:
    """Make sure every line has a clip; returns them pinned (see release_clips)."""
    plans = plan_lines(project, synth)
    recorded = load_recordings(project, synth.sample_rate)  # RecordingError before any line is voiced
    weights = {r.name: r.priority for r in project.cast}
    requests: dict[str, LineRequest] = {}
    # Due where each line will roughly start: lines come back in about timeline
    # order (the role's weight still counts), so the mix can follow them.
    starts = {p.line_id: p.start for p in layout(project, {})}
    for line in project.lines:
        plan = plans[line.id]
        if line.id not in recorded and plan.key not in synth.cache and plan.key not in requests:
            requests[plan.key] = LineRequest(plan=plan, role=line.role, origin=Origin.EXPORT,
                                             deadline=Deadline.on_timeline(starts[line.id]),
                                             weight=weights[line.role], line_id=line.id)
    result = SynthesisResult(clips={}, plans=plans,
                             cached=sum(1 for p in plans.values() if p.key not in requests))
    total = len(requests)
    if progress and total:  # nothing to voice: the dialog shows the next stage, not "0 of 0"
        progress("synthesizing", 0, total)
    if total:  # a fully cached project needs no scheduler (nor its voices' sessions)
        if voiced is not None:
            voiced.begin(plans, set(requests))
        _voice(list(requests.values()), synth, result, progress, cancel, scheduler, voiced)
    result.synthesized = total
    # Pinned so later work cannot evict what the caller is about to mix.
    for line_id, plan in plans.items():
        if line_id in recorded:  # a recorded take: heard instead of the synthesis
            result.clips[line_id] = recorded[line_id]
            continue
        clip = synth.cache.get(plan.key, pin=True, promote=False)  # mixed once: mapped, not copied
        if clip is None:  # evicted, or its cached file was damaged (and removed): make it again
            made = synth.finish(synth.infer(plan))
            clip = synth.cache.get(plan.key, pin=True)
            if plan.key not in requests:  # counted as cached above, but it was voiced now
                result.cached -= 1
            result.synthesized += 1
            result.audio_seconds_synthesized += made.shape[0] / synth.sample_rate
        if clip is None:
            raise RuntimeError(f"clip for line {line_id} could not be kept in memory or on disk")
        if synth.cache.store.pins(plan.key):
            result.pinned.append(plan.key)
        result.clips[line_id] = clip
    return result


def _voice(requests: list[LineRequest], synth: ClipSynthesizer, result: SynthesisResult,
           progress: Progress | None, cancel: threading.Event | None, scheduler: Scheduler | None,
           voiced: Voiced | None) -> None:
    """Submit the requests and wait for every clip, counting progress."""
    total = len(requests)
    own = scheduler is None
    if scheduler is None:
        scheduler = Scheduler(synth, RolePriorityPolicy(), capacity=max(64, total + 1),
                              batch=BatchSizer.for_device(synth.device))
    before = scheduler.stats().model_seconds
    futures: dict[Future[np.ndarray], str] = {}
    try:
        for request in requests:
            futures[scheduler.submit(request, timeout=None)] = request.plan.key
        done = 0
        while futures:
            finished, _ = wait(futures, timeout=0.1, return_when=FIRST_COMPLETED)
            for future in finished:
                made = future.result()  # raises what the synthesis raised
                result.audio_seconds_synthesized += made.shape[0] / synth.sample_rate
                done += 1
                key = futures.pop(future)
                if voiced is not None:
                    voiced.voiced(key)
            if finished and progress:
                progress("synthesizing", done, total)
            if cancel is not None and cancel.is_set():
                raise Cancelled("synthesis cancelled")
    except BaseException:
        for future in futures:
            future.cancel()
        raise
    finally:
        result.model_seconds = scheduler.stats().model_seconds - before
        if own:
            scheduler.close()


def release_clips(synth: ClipSynthesizer, result: SynthesisResult) -> None:
    """Undo the pins synthesize_lines took."""
    for key in result.pinned:
        synth.cache.unpin(key)
    result.pinned.clear()
