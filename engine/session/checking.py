"""The speech check in the background of a Session, and "Fix flagged lines".

Thread ``radioplay-check`` (owned by :class:`SpeechChecker`, stopped by
``close()``): checks every line that has a clip (engine.check) at the lowest
priority there is. Before each line it waits until the scheduler has no job
more urgent than ``Origin.CHECK`` pending or running (engine.sched.background),
so playback, audition, service, export and pre-render requests are never
queued behind a check; the recognizer itself runs in one child process at a
lower OS priority (pocketsphinx holds the GIL for a whole clip, 0.1-0.3 s:
in this process that would stall the mixer thread's refills of a 0.37 s ring).

Results are kept per clip key: a line is checked again only when its clip
changes (an edit, a new take, a recast). Readers get them through
``results`` / ``fixing``, latest-value slots replaced whole, never mutated.

``fix(line_ids, takes)`` makes up to ``takes`` new takes of each line that is
not locked, each synthesized by the scheduler at origin CHECK, checks them
and keeps the best-scoring (the studio then records the chosen takes in the
project as one undo step).
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from types import MappingProxyType
from typing import Any

import numpy as np

from engine.check.lines import LineResult, clip_inputs, line_result, phoneme_count
from engine.check.speech import check_clip
from engine.check.voice import take_rank
from engine.lifeline import end_with_parent
from engine.listen.recognizer import RecognizerUnavailable
from engine.project.model import Line, Project
from engine.project.takes import with_new_take, with_take
from engine.sched.request import LineRequest, Origin
from engine.sched.scheduler import Scheduler
from engine.session.base import LineRecord
from engine.session.views import NO_CHECKS, FixOutcome, FixProgress
from engine.synth.pipeline import plan_line
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer

log = logging.getLogger("engine.session.checking")

WAIT_S = 0.25  # how long one wait (for quiet, for a result) lasts before looking at close() again
RATE_MIN = 5  # clips of a voice seen before its per-phoneme rate predicts a line's length
NICE = 10  # the check process's OS priority below the engine's


def _start_check_process() -> None:  # runs in the check process
    end_with_parent()  # a killed studio leaves no checker (nor, through its pipe, a resource tracker)
    try:
        os.nice(NICE)
    except OSError:
        pass


class SpeechChecker:
    def __init__(self, synth: ClipSynthesizer, scheduler: Scheduler) -> None:
        self.synth, self.scheduler = synth, scheduler
        self._cond = threading.Condition()
        self._closed = False
        self._project: Project | None = None  # the newest offered (a frozen snapshot)
        self._plans: Mapping[str, ClipPlan] = {}  # line id -> the plan of the clip it has now
        self._fixes: list[tuple[Project, int, tuple[str, ...], int]] = []
        self._batch = 0
        # Only the check thread touches these.
        self._by_key: dict[str, LineResult] = {}
        self._unavailable: set[str] = set()  # keys whose clip left the cache before its turn
        self._rates: dict[str, list[float]] = {}
        self._pool: ProcessPoolExecutor | None = None
        # Latest-value slots for readers.
        self.results: Mapping[str, LineResult] = NO_CHECKS
        self.fixing: FixProgress | None = None
        self.checked = 0  # clips checked so far (tests, the monitor)
        self.unavailable: str | None = None  # why no check can run here (no pocketsphinx, no process)
        self._thread = threading.Thread(target=self._run, name="radioplay-check", daemon=True)
        self._thread.start()

    # ---- any thread -----------------------------------------------------------------
    def offer(self, project: Project, plans: Mapping[str, ClipPlan]) -> None:
        """The lines that have a clip now (the control thread, when that changes)."""
        with self._cond:
            self._project, self._plans = project, plans
            self._cond.notify_all()

    def fix(self, project: Project, line_ids: Sequence[str], takes: int) -> int:
        """Queue "Fix flagged lines" for ``line_ids`` as they are in ``project``; returns the batch number."""
        with self._cond:
            self._batch += 1
            self._fixes.append((project, self._batch, tuple(line_ids), max(1, takes)))
            self.fixing = FixProgress(self._batch, len(line_ids), False)
            self._cond.notify_all()
            return self._batch

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=10.0)
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    # ---- the check thread ----------------------------------------------------------------
    def _run(self) -> None:
        published: object = None
        while True:
            todo: tuple[Line, ClipPlan, int] | None = None
            with self._cond:
                if self._closed:
                    return
                project, plans = self._project, self._plans
                fix = self._fixes.pop(0) if self._fixes else None
            if plans is not published:
                published = plans
                self._publish(plans)
            try:
                if fix is not None:
                    self._fix(*fix)
                    continue
                todo = None if self.unavailable else self._next(project, plans)
                if todo is None:
                    with self._cond:
                        if not self._closed and self._plans is plans and not self._fixes:
                            self._cond.wait()
                    continue
                if not self.scheduler.wait_quiet_below(Origin.CHECK, WAIT_S):
                    continue  # something more urgent: look again (and at close) shortly
                assert project is not None
                self._check(project, *todo)
                self._publish(plans)
            except (RecognizerUnavailable, BrokenProcessPool) as exc:  # no check here: say so once, stop
                log.warning("speech check unavailable: %s", exc)
                self.unavailable = str(exc) or type(exc).__name__
                if fix is not None:
                    with self._cond:
                        self.fixing = FixProgress(fix[1], len(fix[2]), True)
            except Exception as exc:  # noqa: BLE001 - a failed check must not end the thread
                log.exception("speech check: %s", exc)
                if fix is not None:
                    with self._cond:
                        self.fixing = FixProgress(fix[1], len(fix[2]), True)
                elif todo is not None:
                    self._unavailable.add(todo[1].key)  # not again until its clip changes

    def _next(self, project: Project | None, plans: Mapping[str, ClipPlan]) -> tuple[Line, ClipPlan, int] | None:
        if project is None:
            return None
        for index, line in enumerate(project.lines):
            plan = plans.get(line.id)
            if plan is not None and plan.key not in self._by_key and plan.key not in self._unavailable:
                return line, plan, index
        return None

    def _publish(self, plans: Mapping[str, ClipPlan]) -> None:
        self.results = MappingProxyType({line_id: self._by_key[plan.key] for line_id, plan in plans.items()
                                         if plan.key in self._by_key})

    def _clip(self, key: str) -> np.ndarray | None:
        clip, pinned = self.synth.cache.acquire(key, promote=False)
        if clip is None:
            return None
        try:
            return np.array(clip, dtype=np.float32, copy=True)  # the pin ends here: keep a copy
        finally:
            if pinned:
                self.synth.cache.unpin(key)

    def _check(self, project: Project, line: Line, plan: ClipPlan, index: int,
               clip: np.ndarray | None = None) -> LineResult | None:
        if clip is None:
            clip = self._clip(plan.key)
        if clip is None:
            self._unavailable.add(plan.key)
            return None
        length_key = ClipSynthesizer.length_key(plan)
        phonemes = phoneme_count(self.synth, plan)
        seen = self._rates.setdefault(length_key, [])
        if phonemes:
            seen.append(clip.shape[0] / self.synth.sample_rate / (phonemes * plan.settings.length_scale))
        rates = {length_key: float(np.median(seen))} if len(seen) >= RATE_MIN else {}
        inputs = clip_inputs(project, self.synth, line, index, rates, plan)
        future = self._process().submit(check_clip, clip, self.synth.sample_rate, **inputs)
        checked = self._wait(future)
        if checked is None:
            return None
        result = line_result(line, plan, checked)
        self._by_key[plan.key] = result
        self.checked += 1
        return result

    def _process(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn: forking a process that runs ONNX and audio threads is unsafe.
            self._pool = ProcessPoolExecutor(1, multiprocessing.get_context("spawn"), initializer=_start_check_process)
        return self._pool

    def _wait(self, future: Future[Any]) -> Any:
        """The future's result, or None when the checker closes first."""
        while True:
            with self._cond:
                if self._closed:
                    future.cancel()
                    return None
            try:
                return future.result(timeout=WAIT_S)
            except TimeoutError:
                continue

    def _take(self, project: Project, line: Line) -> np.ndarray | None:
        """Synthesize a take through the scheduler at origin CHECK (a copy of its clip)."""
        plan = plan_line(self.synth, project, line)
        request = LineRequest(plan=plan, role=line.role, origin=Origin.CHECK,
                              weight=project.role(line.role).priority)
        copied: list[np.ndarray] = []
        arrived = threading.Event()

        def keep(f: Future[np.ndarray]) -> None:
            # The clip is pinned only while callbacks run, and result() returns before they do: copy here.
            try:
                if not f.cancelled() and f.exception() is None:
                    copied.append(np.array(f.result(), dtype=np.float32, copy=True))
                elif not f.cancelled():
                    log.warning("speech check: a new take of %s failed: %s", line.id, f.exception())
            finally:
                arrived.set()

        request.future.add_done_callback(keep)
        self.scheduler.submit(request, timeout=None)
        while not arrived.wait(WAIT_S):
            with self._cond:
                if self._closed:
                    request.future.cancel()
                    return None
        return copied[0] if copied else None

    def _fix(self, project: Project, batch: int, line_ids: tuple[str, ...], takes: int) -> None:
        index = {line.id: i for i, line in enumerate(project.lines)}
        outcomes: dict[str, FixOutcome] = {}
        for line_id in line_ids:
            if line_id not in index:
                continue
            line = project.lines[index[line_id]]
            if line.locked is not None:
                continue  # a locked line keeps its take
            current = self._by_key.get(plan_line(self.synth, project, line).key)
            best_line, best, trial = line, current, line
            for _ in range(takes):
                trial = with_new_take(trial)
                clip = self._take(project, trial)
                if clip is None:
                    break
                result = self._check(project, trial, plan_line(self.synth, project, trial), index[line_id], clip)
                if result is None:
                    break
                if best is None or take_rank(result) > take_rank(best):  # the ranking --fix uses
                    best_line, best = trial, result
                if not result.flagged:
                    break
            if best is not None and trial is not line:
                kept = with_take(trial, best_line.take)
                outcomes[line_id] = FixOutcome(line_id, line.text, line.take, kept.takes, kept.take, best)
            with self._cond:
                self.fixing = FixProgress(batch, len(line_ids), False, MappingProxyType(dict(outcomes)))
        with self._cond:
            self.fixing = FixProgress(batch, len(line_ids), True, MappingProxyType(outcomes))


class CheckDesk:
    """The Session's side: offer the checker the lines with a clip, ask it to fix lines."""

    def __init__(self, checker: SpeechChecker | None, records: Callable[[], Mapping[str, LineRecord]],
                 project: Callable[[], Project], post: Callable[[Callable[[], None]], None]) -> None:
        """``records``: the line book's; ``project``: the applied snapshot; ``post``: onto the control thread."""
        self.checker, self._records, self._project, self._post = checker, records, project, post
        self._offered: dict[str, str] = {}

    def offer_checks(self) -> None:
        """Control thread, every tick: hand over the clips when a line's changed."""
        if self.checker is None:
            return
        plans = {line_id: r.plan for line_id, r in self._records().items()
                 if r.clip is not None and r.plan is not None and r.recording is None}
        keys = {line_id: plan.key for line_id, plan in plans.items()}
        if keys != self._offered:
            self._offered = keys
            self.checker.offer(self._project(), MappingProxyType(plans))

    def fix_lines(self, line_ids: Sequence[str], takes: int) -> None:
        """Up to ``takes`` new takes of each of ``line_ids`` that is not locked,
        made at origin CHECK; ``state().fixing`` reports the best of each."""
        if self.checker is None:
            raise RuntimeError("this session has no speech check (Session(check=True))")
        checker, ids, project = self.checker, tuple(line_ids), self._project

        def fix() -> None:  # on the control thread: with the snapshot the edits so far made
            checker.fix(project(), ids, takes)

        self._post(fix)
