"""The scheduler on the tiny generated voices: real ONNX sessions, real threads.

Ordering tests queue work before the threads start (``start=False``) and use
one worker, so the dispatch order is the policy's order and nothing depends
on timing.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from engine.metrics.hub import MetricsHub
from engine.project.model import VoiceParams
from engine.sched.batching import BatchSizer
from engine.sched.policy import FifoPolicy, RolePriorityPolicy, make_policy
from engine.sched.request import Deadline, LineRequest, Origin, QueueFull, request_for
from engine.sched.scheduler import Scheduler
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.backends.piper.backend import PiperVoiceModel
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer


@pytest.fixture
def synth() -> ClipSynthesizer:
    return ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache())


def voice(tiny_voices: dict[str, Path], **changes: object) -> VoiceParams:
    return VoiceParams(voice=str(tiny_voices["single"])).with_changes(**changes)


def completion_order(scheduler: Scheduler, requests: list) -> list[str]:
    order: list[str] = []
    lock = threading.Lock()
    for request in requests:
        scheduler.submit(request).add_done_callback(
            lambda _f, r=request: (lock.acquire(), order.append(r.role), lock.release()))
    scheduler.start()
    for request in requests:
        request.future.result(timeout=30)
    return order


def test_leads_are_served_before_minor_roles(synth, tiny_voices):
    requests = [request_for(synth, f"Line {i} of the scene.", "LEAD" if i % 4 == 0 else f"MINOR{i}",
                            voice(tiny_voices), weight=3.0 if i % 4 == 0 else 1.0) for i in range(12)]
    with Scheduler(synth, make_policy("role-priority"), start=False) as scheduler:
        order = completion_order(scheduler, requests)
    assert order[:3] == ["LEAD"] * 3
    assert "LEAD" not in order[3:]


def test_fifo_serves_in_arrival_order(synth, tiny_voices):
    requests = [request_for(synth, f"Line {i} of the scene.", f"R{i}", voice(tiny_voices), weight=float(i % 3 + 1))
                for i in range(8)]
    with Scheduler(synth, FifoPolicy(), start=False) as scheduler:
        order = completion_order(scheduler, requests)
    assert order == [f"R{i}" for i in range(8)]


def test_origins_and_deadlines_order_the_queue(synth, tiny_voices):
    now = time.monotonic()
    requests = [
        request_for(synth, "Background fill line.", "PRERENDER", voice(tiny_voices), origin=Origin.PRERENDER),
        request_for(synth, "An export line here.", "EXPORT", voice(tiny_voices), origin=Origin.EXPORT),
        request_for(synth, "Needed in eight seconds.", "LATER", voice(tiny_voices), origin=Origin.SERVICE,
                    deadline=Deadline.at(now + 8.0)),
        request_for(synth, "Needed right now please.", "SOON", voice(tiny_voices), origin=Origin.SERVICE,
                    deadline=Deadline.at(now + 0.2)),
        request_for(synth, "The playhead is nearly here.", "PLAYBACK", voice(tiny_voices), origin=Origin.PLAYBACK),
    ]
    with Scheduler(synth, make_policy("role-priority"), start=False) as scheduler:
        order = completion_order(scheduler, requests)
    assert order == ["SOON", "PLAYBACK", "LATER", "EXPORT", "PRERENDER"]


def test_identical_requests_share_one_synthesis(synth, tiny_voices):
    a = request_for(synth, "Exactly the same words.", "A", voice(tiny_voices))
    b = request_for(synth, "Exactly the same words.", "B", voice(tiny_voices))
    with Scheduler(synth, make_policy("role-priority"), start=False) as scheduler:
        scheduler.submit(a)
        scheduler.submit(b)
        scheduler.start()
        clip_a, clip_b = a.future.result(10), b.future.result(10)
        stats = scheduler.stats()
    assert synth.synth_calls == 1 and stats.deduplicated == 1 and stats.completed == 1
    assert clip_a is clip_b
    # Once cached, a new request resolves at once without the device.
    c = request_for(synth, "Exactly the same words.", "C", voice(tiny_voices))
    with Scheduler(synth, make_policy("role-priority")) as scheduler:
        assert scheduler.submit(c).done()
    assert synth.synth_calls == 1


def test_cancelled_and_stale_requests_never_reach_the_device(synth, tiny_voices):
    edited = request_for(synth, "The old text of line seven.", "A", voice(tiny_voices), line_id="L7")
    behind = request_for(synth, "A line the playhead left behind.", "B", voice(tiny_voices),
                         origin=Origin.PLAYBACK, deadline=Deadline.on_timeline(3.0))
    ahead = request_for(synth, "A line still ahead of the playhead.", "C", voice(tiny_voices),
                        origin=Origin.PLAYBACK, deadline=Deadline.on_timeline(40.0))
    dropped = request_for(synth, "Nobody wants this any more.", "D", voice(tiny_voices))
    kept = request_for(synth, "This one is still wanted.", "E", voice(tiny_voices))
    with Scheduler(synth, make_policy("role-priority"), start=False) as scheduler:
        for r in (edited, behind, ahead, dropped, kept):
            scheduler.submit(r)
        assert dropped.future.cancel()
        assert scheduler.cancel(lambda r: r.line_id == "L7") == 1  # the line was edited
        assert scheduler.set_playhead(20.0, playing=True) == 1  # seek past line B
        scheduler.start()
        ahead.future.result(10)
        kept.future.result(10)
        stats = scheduler.stats()
    assert edited.future.cancelled() and behind.future.cancelled() and dropped.future.cancelled()
    assert synth.synth_calls == 2 and stats.cancelled == 3 and stats.completed == 2


def test_full_queue_pushes_back_then_recovers(synth, tiny_voices):
    first, second = (request_for(synth, f"Queued line {i}.", "A", voice(tiny_voices)) for i in range(2))
    third = request_for(synth, "One line too many.", "A", voice(tiny_voices))
    with Scheduler(synth, make_policy("role-priority"), capacity=2, start=False) as scheduler:
        scheduler.submit(first)
        scheduler.submit(second)
        started = time.monotonic()
        with pytest.raises(QueueFull, match=r"synthesis queue full \(2 lines pending\) for 0.2 s"):
            scheduler.submit(third, timeout=0.2)
        assert time.monotonic() - started >= 0.2
        # A duplicate of a queued line needs no room: it joins that job.
        duplicate = request_for(synth, "Queued line 0.", "B", voice(tiny_voices))
        scheduler.submit(duplicate, timeout=0)
        scheduler.start()
        # The waiting submit gets in as soon as the workers free a slot.
        scheduler.submit(third, timeout=10).result(10)
        assert duplicate.future.result(10) is first.future.result(10)


def test_a_low_priority_request_is_served_under_an_adversarial_stream(synth, tiny_voices):
    """Aging bounds the wait: tau * ln(P_max / P_min) (about 0.9 s with tau = 0.05 s).

    The flood is established first (20+ maximally urgent lines queued and
    more arriving as fast as they are served); the humble line must overtake
    urgent lines that were queued before it was served, instead of waiting
    for every one of them (which it does with aging off: then the whole flood
    of 3000 is served first)."""
    low = request_for(synth, "The humblest line in the play.", "EXTRA", voice(tiny_voices),
                      origin=Origin.PRERENDER, weight=0.01)
    stop = threading.Event()
    low_served = threading.Event()
    order = itertools.count()
    finished: dict[int, int] = {}  # urgent line -> completion order
    queued_before_low: list[int] = []  # urgent lines submitted while the humble one waited
    low_order: list[int] = []

    # Planned up front: planning in the feeder made it slower than the worker on
    # a busy machine, and a drained backlog is no flood.
    plans = [synth.plan(f"Urgent line number {n}.", voice(tiny_voices)) for n in range(3000)]

    with Scheduler(synth, RolePriorityPolicy(tau_s=0.05)) as scheduler:
        def flood() -> None:
            for n, plan in enumerate(plans):
                if stop.is_set():
                    break
                urgent = LineRequest(plan=plan, role="STAR", origin=Origin.PLAYBACK, weight=100.0,
                                     deadline=Deadline.at(time.monotonic()))
                if not low_served.is_set():
                    queued_before_low.append(n)
                try:
                    scheduler.submit(urgent, timeout=0.5).add_done_callback(
                        lambda _f, n=n: finished.setdefault(n, next(order)))
                except QueueFull:
                    pass
                while scheduler.stats().pending > 40 and not stop.is_set():
                    time.sleep(0.001)  # a steady backlog of ~40

        def low_done(_f: object) -> None:
            low_order.append(next(order))
            low_served.set()

        feeder = threading.Thread(target=flood)
        feeder.start()
        try:
            deadline = time.monotonic() + 10
            while scheduler.stats().pending < 20 and time.monotonic() < deadline:
                time.sleep(0.005)
            assert scheduler.stats().pending >= 20, "the flood never built up"
            scheduler.submit(low).add_done_callback(low_done)
            low.future.result(timeout=30)
            time.sleep(0.5)  # let the overtaken urgent lines finish
        finally:
            stop.set()
            feeder.join()
    overtaken = [n for n in queued_before_low if finished.get(n, math.inf) > low_order[0]]
    assert overtaken, "served only after every urgent line queued before it"


def test_same_voice_jobs_are_batched_and_trimmed(tiny_voices):
    synth = ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache())
    texts = ["Short.", "A somewhat longer line of dialogue.", "The longest line of the three, by quite a margin."]
    hub = MetricsHub()
    requests = [request_for(synth, t, "A", voice(tiny_voices)) for t in texts]
    with Scheduler(synth, make_policy("role-priority"), batch=BatchSizer(fixed=3), metrics=hub,
                   start=False) as scheduler:
        futures = [scheduler.submit(r) for r in requests]
        scheduler.start()
        clips = [f.result(30) for f in futures]
    snapshot = hub.snapshot()
    assert snapshot.device_batches["infer-0"].batches == 1
    alone = ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache())
    for text, clip in zip(texts, clips, strict=True):
        reference = alone.synthesize(text, voice(tiny_voices))
        assert clip is not None and clip.shape == reference.shape
        np.testing.assert_allclose(clip, reference, atol=1e-5)


def test_batch_sizer_measures_and_adapts(tiny_voices, synth):
    plan = synth.plan("A line to measure batching with, of middling length.", voice(tiny_voices))
    model = synth.voice(plan.voice)
    assert isinstance(model, PiperVoiceModel) and model.can_batch
    sizer = BatchSizer(candidates=(1, 2, 4))
    chosen = sizer.measure(model, plan.settings, synth.phonemize(plan) * 8)
    assert chosen in (1, 2, 4) and set(sizer.measured) == {1, 2, 4}
    for _ in range(30):
        sizer.observe(4, samples=400_000, seconds=1.0)
        sizer.observe(1, samples=100_000, seconds=1.0)
        sizer.observe(2, samples=100_000, seconds=1.0)
    assert sizer.size == 4
    assert BatchSizer(fixed=1).measure(model, plan.settings, synth.phonemize(plan)) == 1


def test_metrics_see_priorities_and_requests(synth, tiny_voices):
    hub = MetricsHub()
    requests = [request_for(synth, f"Metrics line {i}.", "LEAD" if i < 2 else "MINOR", voice(tiny_voices),
                            weight=3.0 if i < 2 else 1.0) for i in range(5)]
    with Scheduler(synth, make_policy("role-priority"), metrics=hub, start=False) as scheduler:
        for r in requests:
            scheduler.submit(r)
        scheduler.publish_metrics()  # what the 50 ms tick does
        before = hub.snapshot()
        scheduler.start()
        for r in requests:
            r.future.result(10)
    after = hub.snapshot()
    assert before.current_priority["LEAD"] > before.current_priority["MINOR"] > 0
    assert before.queue_depth_now == {"LEAD": 2, "MINOR": 3}
    assert after.requests == 5 and set(after.p95_ms_by_role) == {"LEAD", "MINOR"}
    from engine.metrics.prometheus import exposition

    text = exposition(hub).decode()
    assert 'radioplay_role_priority{role="LEAD"}' in text


def test_inference_failure_fails_only_its_request(synth, tiny_voices, monkeypatch):
    bad = request_for(synth, "This line breaks the model.", "A", voice(tiny_voices))
    good = request_for(synth, "This line is fine.", "B", voice(tiny_voices))
    broken_ids = synth.phonemize(bad.plan)[0].ids
    real_infer = PiperVoiceModel.infer_timed

    def infer(self, units, settings, batch=False):  # fault injection into the real model
        if any(unit.ids == broken_ids for unit in units):
            raise RuntimeError("ORT: out of memory")
        return real_infer(self, units, settings, batch)

    monkeypatch.setattr(PiperVoiceModel, "infer_timed", infer)
    with Scheduler(synth, make_policy("role-priority"), start=False) as scheduler:
        scheduler.submit(bad)
        scheduler.submit(good)
        scheduler.start()
        with pytest.raises(RuntimeError, match="out of memory"):
            bad.future.result(10)
        assert good.future.result(10).size > 0
        assert scheduler.stats().failed == 1
    # The failed line's arena reservation was given back.
    assert synth.cache.store.stats().reserved == 0


def test_threads_are_named_and_stop_on_close(tiny_voices):
    synth = ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache(), SessionLayout(2, 1))
    pending = request_for(synth, "Never started.", "A", voice(tiny_voices))
    before = set(threading.enumerate())  # threads other tests' objects may still be closing
    scheduler = Scheduler(synth, make_policy("fifo"))
    mine = [t for t in threading.enumerate() if t not in before and t.name.startswith("radioplay-")]
    assert {"radioplay-sched", "radioplay-post", "radioplay-infer-0", "radioplay-infer-1"} <= {t.name for t in mine}
    scheduler.submit(request_for(synth, "Finished before close.", "A", voice(tiny_voices))).result(10)
    scheduler.close()
    assert not [t.name for t in mine if t.is_alive()]  # close joins every thread it started
    with pytest.raises(RuntimeError, match="closed"):
        scheduler.submit(pending)


def test_clips_land_in_the_arena_block_reserved_before_inference(synth, tiny_voices):
    hub = MetricsHub()
    requests = [request_for(synth, f"Pooled line number {i}, of some length.", "A", voice(tiny_voices))
                for i in range(6)]
    with Scheduler(synth, make_policy("role-priority"), metrics=hub) as scheduler:
        clips = [scheduler.submit(r).result(10) for r in requests]
        scheduler.publish_metrics()
    arena = synth.cache.store.arena.buffer
    for clip in clips:
        assert np.shares_memory(clip, arena) and not clip.flags.writeable  # zero-copy, read-only
    report = synth.predictor.report()
    assert report.observations == 6
    stats = synth.cache.store.stats()
    assert stats.reserved == 0 and stats.entries == 6
    snapshot = hub.snapshot()
    assert snapshot.pools["host"].used_bytes == stats.arena.used_bytes > 0
    assert snapshot.predictor["observations"] == 6
    assert 0.0 <= snapshot.device_busy["infer-0"] <= 1.0


def test_recast_cancels_a_roles_requests_and_weights_reorder(synth, tiny_voices):
    recast = [request_for(synth, f"Old voice line {i}.", "RECAST", voice(tiny_voices)) for i in range(2)]
    minor = request_for(synth, "A minor line.", "MINOR", voice(tiny_voices), weight=1.0)
    promoted = request_for(synth, "Soon to be a lead line.", "PROMOTED", voice(tiny_voices), weight=1.0)
    order: list[str] = []
    with Scheduler(synth, make_policy("role-priority"), start=False) as scheduler:
        for r in (*recast, minor, promoted):
            scheduler.submit(r).add_done_callback(lambda f, r=r: None if f.cancelled() else order.append(r.role))
        assert scheduler.cancel(lambda r: r.role == "RECAST") == 2  # the role was recast
        scheduler.set_role_weight("PROMOTED", 10.0)  # without it MINOR goes first (it arrived first)
        scheduler.start()
        minor.future.result(10)
        promoted.future.result(10)
    assert all(r.future.cancelled() for r in recast)
    assert order == ["PROMOTED", "MINOR"]
    assert synth.synth_calls == 2


def test_calibration_measures_batch_sizes_on_the_voice(synth, tiny_voices):
    plan = synth.plan("Calibrating the batch size on this device.", voice(tiny_voices))
    batch = BatchSizer(candidates=(1, 2, 4))
    chosen = batch.measure(synth.voice(plan.voice), plan.settings, synth.phonemize(plan) * 4)
    assert chosen in (1, 2, 4)
    measured = batch.measured_audio_s_per_s()
    assert set(measured) == {1, 2, 4} and all(v > 0 for v in measured.values())


def test_displayed_priority_comes_from_the_scores():
    from engine.sched.policy import PendingArrays, Playhead

    arrays = PendingArrays(np.array([3.0, 1.0]), np.array([2, 2]), np.array([0, 0]), np.zeros(2),
                           np.array([10.0, 12.0]), np.array([0, 1]))
    fifo, prio = FifoPolicy(), RolePriorityPolicy()
    now = 15.0
    np.testing.assert_allclose(fifo.displayed(fifo.scores(arrays, now, Playhead()), now), [5.0, 3.0])
    shown = prio.displayed(prio.scores(arrays, now, Playhead()), now)
    assert shown[0] > shown[1] > 0  # the lead, waiting longer, shows higher


def test_a_line_the_listener_waits_for_has_the_workers_to_itself(tiny_voices):
    """Focus: while an overdue playback line (the playhead already reached it)
    is synthesized and shaped, the other worker starts nothing less urgent."""
    synth = ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache(), SessionLayout(sessions=2, threads_per_session=1))
    with Scheduler(synth, make_policy("role-priority"), start=False) as scheduler:
        assert scheduler.workers == 2
        scheduler.set_playhead(10.0, playing=True)
        overdue = request_for(synth, "The listener is waiting for this very line right now.", "LEAD",
                              voice(tiny_voices), origin=Origin.PLAYBACK, deadline=Deadline.on_timeline(9.0))
        later = [request_for(synth, f"Background line number {i}.", f"R{i}", voice(tiny_voices),
                             origin=Origin.PRERENDER, deadline=Deadline.on_timeline(60.0 + i)) for i in range(3)]
        done_at: dict[str, float] = {}
        for request in [overdue, *later]:
            scheduler.submit(request).add_done_callback(
                lambda _f, r=request: done_at.setdefault(r.role, time.monotonic()))
        started: dict[str, float] = {}
        real_release = scheduler._release_slot

        def release(job):
            started.setdefault(job.role, time.monotonic())
            real_release(job)

        scheduler._release_slot = release  # called as a worker takes a job
        scheduler.start()
        for request in [overdue, *later]:
            request.future.result(timeout=60)
    assert min(started[f"R{i}"] for i in range(3)) >= done_at["LEAD"] - 0.005


def test_a_scheduler_closed_before_it_started_never_starts_its_threads(synth):
    # A service stopped before its scheduler ran (serve's shutdown timeout) and started
    # afterwards left radioplay-post waiting for work forever.
    before = set(threading.enumerate())
    scheduler = Scheduler(synth, FifoPolicy(), start=False)
    scheduler.close()
    scheduler.start()
    assert [t.name for t in set(threading.enumerate()) - before] == []
