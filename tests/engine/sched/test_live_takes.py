"""A line a listener waits for is voiced live (engine/sched/streaming.py, live_takes.py).

Issue 54: pressing play must sound at once even where a line takes seconds to voice. The
scheduler voices the line sentence by sentence; once the playing playhead has reached it,
each sentence goes to the listener as it is made (``LineRequest.on_part``), the other
workers hold and pre-render runs stop until the take is whole, and the whole clip follows.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from engine.project.model import VoiceParams
from engine.sched.cost import LIVE_SAFETY_S, CostModel, live_margin
from engine.sched.job import Job
from engine.sched.policy import make_policy
from engine.sched.request import Deadline, Origin, request_for
from engine.sched.scheduler import Scheduler
from engine.sched.urgency import Preemption
from engine.synth.backends.base import BackendCost
from engine.synth.backends.onnx_sessions import RunStopper, SessionLayout
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.live_parts import LivePart
from engine.synth.synthesizer import ClipSynthesizer

# Six sentences of the default voice: a second or more of inference on one session.
LONG = " ".join(f"Part {n} of the opening narration is read slowly." for n in range(6))


def _synth(sessions: int) -> ClipSynthesizer:
    return ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache(), SessionLayout(sessions, 1))


def _listened(synth: ClipSynthesizer, text: str, deadline: Deadline) -> tuple[object, list[tuple[float, LivePart]]]:
    parts: list[tuple[float, LivePart]] = []
    request = request_for(synth, text, "NARRATOR", VoiceParams(), origin=Origin.PLAYBACK, deadline=deadline)
    request.on_part = lambda part: parts.append((time.monotonic(), part))
    return request, parts


def test_a_line_the_playhead_has_reached_is_heard_sentence_by_sentence_before_it_is_whole() -> None:
    synth = _synth(1)
    request, parts = _listened(synth, LONG, Deadline.on_timeline(0.0))
    with Scheduler(synth, make_policy("role-priority")) as scheduler:
        scheduler.set_playhead(2.0, playing=True)  # the playhead is past the line's start: someone waits
        scheduler.submit(request)
        clip = request.future.result(timeout=120)
        resolved = time.monotonic()
        live_runs = scheduler.cost.measured("piper", wide=True)  # what a live run costs here
    assert len(parts) >= 2
    assert parts[0][0] < resolved  # heard before the clip was whole
    takes = [part.audio for _, part in parts]
    for before, after in zip(takes, takes[1:], strict=False):
        np.testing.assert_array_equal(after[:before.size], before)  # each part extends the one before
    assert [part.final for _, part in parts] == [False] * (len(parts) - 1) + [True]
    assert takes[-1].shape == clip.shape  # the same sentences: as long as the whole clip
    assert parts[0][1].expected_s == pytest.approx(clip.shape[0] / 48_000, rel=0.35)  # laid out near its length
    assert live_runs


def test_a_line_nobody_waits_for_is_voiced_whole() -> None:
    synth = _synth(1)
    request, parts = _listened(synth, LONG, Deadline.on_timeline(30.0))
    with Scheduler(synth, make_policy("role-priority")) as scheduler:
        scheduler.set_playhead(0.0, playing=True)  # 30 s ahead of the playhead
        scheduler.submit(request)
        assert request.future.result(timeout=120).size > 0
    assert parts == []


def test_the_other_workers_hold_until_a_live_take_is_whole() -> None:
    """Two workers: the line the listener waits for has them both (its runs on every core), so
    a line due later starts once the live take is whole, not beside it."""
    synth = _synth(2)
    live, parts = _listened(synth, LONG, Deadline.on_timeline(0.0))
    later = request_for(synth, "A line due in a minute.", "OTHER", VoiceParams(), origin=Origin.PLAYBACK,
                        deadline=Deadline.on_timeline(60.0))
    done = threading.Event()
    later_at: list[float] = []
    later.future.add_done_callback(lambda f: (later_at.append(time.monotonic()), done.set()))
    with Scheduler(synth, make_policy("role-priority")) as scheduler:
        scheduler.set_playhead(2.0, playing=True)
        with scheduler.one_change():
            scheduler.submit(live, timeout=0)
            scheduler.submit(later, timeout=0)
        live.future.result(timeout=120)
        assert done.wait(120)
    final_at = next(at for at, part in parts if part.final)
    assert later_at[0] > final_at


def test_a_live_take_stops_pre_render_runs_but_no_other() -> None:
    jobs: dict[str, Job] = {}
    preemption = Preemption(jobs)
    stoppers = {name: RunStopper() for name in ("live", "render", "played")}
    for name, stopper in stoppers.items():
        preemption.register(name, stopper)
    synth = _synth(1)
    plan = synth.plan("A line.", VoiceParams())
    preemption.started("render", [Job(plan, "R", 0, Origin.PRERENDER)], 0.0)
    preemption.started("played", [Job(plan, "P", 1, Origin.PLAYBACK)], 0.0)
    preemption.started("live", [Job(plan, "L", 2, Origin.PRERENDER)], 0.0)  # its own run is never stopped
    preemption.yield_to("live")
    assert [name for name, s in stoppers.items() if s.stopped] == ["render"]


def test_a_live_take_starts_once_every_later_part_will_come_before_the_playhead() -> None:
    # An engine faster than real time: the first part's safety margin, no more.
    assert live_margin(1.0, [2.0, 2.0], rate=0.5) == pytest.approx(LIVE_SAFETY_S)
    # A slower one waits, so that each part is made before the playhead reaches it.
    for ready, remaining, rate in ((1.0, [2.0, 2.0], 2.0), (0.5, [3.0, 1.0, 0.5], 1.4), (1.0, [1.0], 3.0)):
        wait = live_margin(ready, remaining, rate)
        made, needed = 0.0, wait + ready
        for seconds in remaining:
            made += seconds * rate
            assert made + LIVE_SAFETY_S <= needed + 1e-9
            needed += seconds
        assert wait > LIVE_SAFETY_S
    assert live_margin(3.0, [], rate=5.0) == 0.0  # nothing more to come


def test_a_run_on_every_core_is_measured_apart_and_before_one_is_its_prior_follows_one_core() -> None:
    cost = CostModel({"kokoro": BackendCost(2.0, 0.07)})
    before = cost.seconds_per_audio_second("kokoro", wide=True)
    assert before < cost.seconds_per_audio_second("kokoro")
    cost.observe("kokoro", 3.0, 3.0)  # a single-threaded run measured here: 1 s per second
    assert cost.seconds_per_audio_second("kokoro", wide=True) < 1.0  # still faster than it, from it
    cost.observe("kokoro", 2.4, 3.0, wide=True)
    assert cost.seconds_per_audio_second("kokoro", wide=True) == pytest.approx(0.8)
    cost.observe("kokoro", 6.0, 3.0)
    assert cost.seconds_per_audio_second("kokoro", wide=True) == pytest.approx(0.8)  # measured: kept
