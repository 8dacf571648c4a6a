"""Voicing one line unit by unit, so a listener waiting for it hears its first words first.

A local worker voices a job that is not batched one unit (a sentence) at a time
(:class:`UnitRunner`). Between two units it asks whether a listener now waits for the
line (the playing playhead has reached it: :meth:`LiveQueue.waited_for`). From then on
the line is *live*:

- what is voiced so far, and then each unit as it comes, goes to the post stage as a
  part of the line's live take (engine/synth/live_parts.py), which hands the line so
  far to the requests that listen for parts (``LineRequest.on_part``);
- if nothing was voiced yet, the first sentence is voiced clause by clause where the
  engine can cut it (``split_clauses``: a slow engine's), so the first part is short;
- every run goes to the voice's session on every core (``onnx_sessions.wide_runs``),
  while the other workers start nothing less urgent and pre-render runs stop
  (:meth:`LiveQueue.begin_live`, engine/sched/urgency.py), until the live take is whole.

The clip cached under the line's key is made as every clip is, from the whole units:
when the first sentence was voiced in clauses, it is voiced whole too, after the live
take is complete (a clause said alone is said a little differently:
docs/dev/scheduling-and-playback.md), on a single-threaded session.

Each run is measured on its own (``CostModel.observe``: per second of the clip it makes,
edges trimmed, pause included, and whether it ran on every core), so the cost model knows
what a live part costs here.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Protocol

from engine.sched.cost import CostModel
from engine.sched.job import Job
from engine.sched.post import LiveItem, PostStage
from engine.synth import shaping
from engine.synth.backend import Inference, LoadedVoice, PhonemeUnit
from engine.synth.live_parts import LiveShaper
from engine.synth.onnx_sessions import wide_runs
from engine.synth.synthesizer import ClipSynthesizer


class LiveQueue(Protocol):
    """What the unit runner asks of the scheduler (under the scheduler's lock inside)."""

    def waited_for(self, job: Job) -> bool:
        """A listener waits for ``job``'s line now (the playing playhead has reached it)."""

    def begin_live(self, worker: str, job: Job) -> bool:
        """``job`` goes live on ``worker``: the other workers make way until its live take
        is whole. False: ``worker``'s run was stopped meanwhile (the job waits again)."""

    def listeners_only(self, job: Job) -> bool:
        """Every caller of ``job`` takes its live take (no render, no service waits for it)."""


class UnitRunner:
    def __init__(self, synth: ClipSynthesizer, cost: CostModel, post: PostStage, queue: LiveQueue,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.synth, self.cost, self._post, self._queue, self.clock = synth, cost, post, queue, clock

    def voice(self, worker: str, job: Job, model: LoadedVoice) -> list[Inference] | None:
        """Every unit of ``job`` voiced (the whole clip's inferences, in order), its live
        take handed to the post stage on the way once a listener waits for it. None: the
        first sentence was voiced in clauses and only listeners wait for the line: their
        live take is the line for them (the post stage hands it over, ``put_live_done``);
        the cached clip is voiced later, as pre-render (engine/session/lines.py), rather
        than now, while the next lines are wanted."""
        units = job.units or []
        plan = job.plan
        whole: list[Inference | None] = [None] * len(units)
        live: LiveShaper | None = None
        i = 0
        while i < len(units):
            if live is None and self._queue.waited_for(job) and self._queue.begin_live(worker, job):
                live = LiveShaper(plan, model.sample_rate, self.synth.sample_rate)
                if i:  # what is voiced already is the first part
                    self._part(job, live, units[:i], [w for w in whole[:i] if w is not None], units[i:])
                elif len(clauses := self.synth.live_units(plan, units[0])) > 1:
                    for k, clause in enumerate(clauses):
                        self._part(job, live, [clause], self._run(model, job, [clause], wide=True),
                                   clauses[k + 1:] + units[1:])
                    i = 1  # the first sentence whole (for the cached clip) is voiced last
                    continue
            inferred = self._run(model, job, [units[i]], wide=live is not None)
            whole[i] = inferred[0]
            if live is not None:
                self._part(job, live, [units[i]], inferred, units[i + 1:])
            i += 1
        if live is not None and any(w is None for w in whole) and self._queue.listeners_only(job):
            self._post.put_live_done(job, live)
            return None
        return [w if w is not None else self._run(model, job, [units[k]], wide=False)[0]
                for k, w in enumerate(whole)]

    def _run(self, model: LoadedVoice, job: Job, units: list[PhonemeUnit], wide: bool) -> list[Inference]:
        started = self.clock()
        with wide_runs() if wide else contextlib.nullcontext():
            inferred = self.synth.infer_units(model, job.plan, units)
        # What the run makes of the clip, the unit's pause after it included: the model's own
        # silence at the edges costs the same to make, but the listener waits for words.
        heard = sum(hi - lo for lo, hi in (shaping.trim_bounds(i.audio, model.sample_rate) for i in inferred))
        heard_s = heard / model.sample_rate + sum(u.pause_after for u in units)
        self.cost.observe(job.plan.voice.backend, self.clock() - started, heard_s, wide=wide)
        return inferred

    def _part(self, job: Job, live: LiveShaper, units: list[PhonemeUnit], inferred: list[Inference],
              to_come: list[PhonemeUnit]) -> None:
        """Hand a part of the live take to the post stage, with the predicted length (seconds)
        of each unit still to come after it."""
        synth, plan = self.synth, job.plan
        key, scale = synth.length_key(plan), synth.length_scale(plan)
        base = synth.predictor.predict(key, 0, scale)  # the line's own edges, not a unit's
        remaining = tuple((synth.predictor.predict(key, len(u.ids), scale) - base) / synth.sample_rate
                          + u.pause_after for u in to_come)
        self._post.put_live(LiveItem(job, live, [i.audio for i in inferred], [u.pause_after for u in units],
                                     [u.phrase for u in units], not to_come, remaining))
