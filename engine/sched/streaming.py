"""Voicing one line sentence by sentence, so a listener waiting for it hears its first words first.

A local worker voices a job that is not batched one unit (a sentence: the model's own
run, ending where the model pauses anyway) at a time (:class:`UnitRunner`). Between
two units it asks whether a listener now waits for the line (the playing playhead has
reached its start: :meth:`LiveQueue.waited_for`). From then on the line is *live*:

- what is voiced so far, and then each sentence as it comes, goes to the post stage as
  a part of the line's live take (engine/synth/live_parts.py), which hands the line so
  far to the requests that listen for parts (``LineRequest.on_part``);
- every run goes to the voice's session on every core (``onnx_sessions.wide_runs``),
  while the other workers start nothing less urgent and pre-render runs stop
  (:meth:`LiveQueue.begin_live`, engine/sched/live_takes.py), until the take is whole.

The sentences are the runs the whole line is voiced from in any case, so the cached clip
is made from them as every clip is (ClipSynthesizer.finish), with nothing voiced twice.
A sentence is not cut at its clauses: a clause voiced alone ends 2-8 dB quieter than the
same words inside their sentence (the model closes it as an utterance), which is a step
a listener hears at the seam (measured on the sample: docs/dev/scheduling-and-playback.md).

Each run is measured on its own (``CostModel.observe``: per second of the clip it makes,
edges trimmed, pause included, and whether it ran on every core), so the cost model knows
what a live part costs here.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Protocol

from engine.memory.device_pool import on_host
from engine.sched.cost import CostModel
from engine.sched.job import Job
from engine.sched.post import LiveItem, PostStage
from engine.synth import shaping
from engine.synth.backends.base import Inference, LoadedVoice, PhonemeUnit
from engine.synth.backends.onnx_sessions import wide_runs
from engine.synth.live_parts import LiveShaper
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer

# A sentence of a line's length (a run costs about its length, plus the model's own edges).
CALIBRATION_TEXT = "The storm had passed, and the old radio was still playing in the kitchen."


class LiveQueue(Protocol):
    """What the unit runner asks of the scheduler (under the scheduler's lock inside)."""

    def waited_for(self, job: Job) -> bool:
        """A listener waits for ``job``'s line now (the playing playhead has reached it)."""

    def begin_live(self, worker: str, job: Job) -> bool:
        """``job`` goes live on ``worker``: the other workers make way until its live take
        is whole. False: ``worker``'s run was stopped meanwhile (the job waits again)."""


class UnitRunner:
    def __init__(self, synth: ClipSynthesizer, cost: CostModel, post: PostStage, queue: LiveQueue,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.synth, self.cost, self._post, self._queue, self.clock = synth, cost, post, queue, clock

    def voice(self, worker: str, job: Job, model: LoadedVoice) -> list[Inference]:
        """Every unit of ``job`` voiced (the clip's inferences, in order), its live take
        handed to the post stage on the way once a listener waits for it."""
        units = job.units or []
        done: list[Inference] = []
        live: LiveShaper | None = None
        handed = 0  # the units handed to the live take so far
        for i, unit in enumerate(units):
            if live is None and self._queue.waited_for(job) and self._queue.begin_live(worker, job):
                live = LiveShaper(job.plan, model.sample_rate, self.synth.sample_rate)
                if done and part_ends(job.plan, units, i - 1):  # what is voiced already is the first part
                    self._part(job, live, units, done, 0, model.sample_rate)
                    handed = i
            done += self._run(model, job.plan, [unit], wide=live is not None)
            if live is not None and part_ends(job.plan, units, i):
                self._part(job, live, units, done, handed, model.sample_rate)
                handed = i + 1
        return done

    def calibrate(self, plan: ClipPlan) -> None:
        """Measure what ``plan``'s engine costs here, unless its lines have been voiced here
        already: a sentence of a calibration text in its voice, on one single-threaded
        session, so the play outlook and a live take's margin know it before the first line
        a listener waits for (the engines' priors were measured on another machine)."""
        if self.cost.measured(plan.voice.backend):
            return
        model = self.synth.voice(plan.voice)
        text = self.synth.plan(CALIBRATION_TEXT, plan.params)
        self._run(model, text, self.synth.phonemize(text)[:1], wide=False)

    def _run(self, model: LoadedVoice, plan: ClipPlan, units: list[PhonemeUnit], wide: bool) -> list[Inference]:
        started = self.clock()
        with wide_runs() if wide else contextlib.nullcontext():
            inferred = self.synth.infer_units(model, plan, units)
        # What the run makes of the clip, the unit's pause after it included: the model's own
        # silence at the edges costs the same to make, but the listener waits for words.
        heard = sum(hi - lo for lo, hi in (shaping.trim_bounds(on_host(i.audio), model.sample_rate) for i in inferred))
        heard_s = heard / model.sample_rate + sum(u.pause_after for u in units)
        self.cost.observe(plan.voice.backend, self.clock() - started, heard_s, wide=wide)
        return inferred

    def _part(self, job: Job, live: LiveShaper, units: list[PhonemeUnit], done: list[Inference], start: int,
              rate: int) -> None:
        """Hand the units from ``start`` to the last one voiced (``done``: every run so far) to
        the post stage as the live take's next part, with the predicted length (seconds) of
        each unit still to come after it: at the pace of the line's own sentences so far,
        the measure nearest to what is coming."""
        voiced, to_come = units[:len(done)], units[len(done):]
        part, inferred = voiced[start:], done[start:]
        ids = sum(len(u.ids) for u in voiced)
        spoken = sum(hi - lo for lo, hi in (shaping.trim_bounds(on_host(r.audio), rate) for r in done)) / rate
        per_id = spoken / max(1, ids) / (1.0 if job.plan.phrases else job.plan.params.effective_design.rate)
        remaining = tuple(per_id * len(u.ids) + u.pause_after for u in to_come)
        self._post.put_live(LiveItem(job, live, [on_host(i.audio) for i in inferred], [u.pause_after for u in part],
                                     [u.phrase for u in part], not to_come, remaining))


def part_ends(plan: ClipPlan, units: list[PhonemeUnit], i: int) -> bool:
    """Whether a part of the live take may end after unit ``i``: anywhere but inside a
    directed phrase that performs a sound before its words (a sigh, a laugh), which is
    made from the phrase's words whole (engine/synth/performance.py ``add_sounds``)."""
    if i + 1 >= len(units) or not plan.phrases:
        return True
    phrase = units[i].phrase
    return units[i + 1].phrase != phrase or not plan.phrases[phrase].sound
