"""What a Play asks of the scheduler: the line under the playhead first.

On the sample's Kokoro roles a Play inside a line was heard 14 s later, not 5: a
worker freed by the playhead's move took the next pre-render line before the
played lines were asked for (now one change, ``Scheduler.one_change``), and the
played line then lost to a lead's next line, both "as late as can be" once their
inference was counted (now a line the playhead has reached outranks every line
ahead: engine/sched/policy.py).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from engine.project.model import VoiceParams
from engine.sched.policy import KIND_NONE, KIND_TIMELINE, PendingArrays, Playhead, make_policy
from engine.sched.request import Origin, request_for
from engine.sched.scheduler import Scheduler
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer


def test_the_line_the_playhead_is_in_goes_before_a_leads_next_line_as_late_as_it() -> None:
    # The sample at a Play 69 % into line 29 (a minor role's, started at 158.6 s): line 30, the
    # lead's (weight 3), starts at 164.2 s; a Kokoro line takes ~8 s, so counted with its
    # inference each is past due; a pre-render line far ahead is the third.
    playhead = Playhead(162.5, True, since=100.0)
    pending = PendingArrays(weight=np.array([1.0, 3.0, 1.0]),
                            origin=np.array([Origin.PLAYBACK, Origin.PLAYBACK, Origin.PRERENDER]),
                            kind=np.array([KIND_TIMELINE, KIND_TIMELINE, KIND_TIMELINE]),
                            deadline=np.array([158.6, 164.2, 240.0]), arrival=np.array([100.0, 100.0, 100.0]),
                            role=np.array([0, 1, 2]), work=np.array([8.0, 8.0, 8.0]))
    policy = make_policy("role-priority")
    scores = policy.scores(pending, 100.0, playhead)
    assert int(np.argmax(scores)) == 0
    assert scores[1] > scores[2]  # ahead of the playhead, the lead's line before pre-render
    # An export's line behind the playhead (exports carry timeline deadlines) is not waited for.
    export = PendingArrays(weight=np.array([1.0, 3.0]), origin=np.array([Origin.EXPORT, Origin.PLAYBACK]),
                           kind=np.array([KIND_TIMELINE, KIND_TIMELINE]), deadline=np.array([158.6, 164.2]),
                           arrival=np.array([100.0, 100.0]), role=np.array([0, 1]), work=np.array([8.0, 8.0]))
    assert int(np.argmax(policy.scores(export, 100.0, playhead))) == 1
    # Stopped, nothing is reached: the weights order them again.
    stopped = policy.scores(pending, 100.0, Playhead(162.5, False, since=100.0))
    assert int(np.argmax(stopped)) == 1
    # A request with no deadline is never "reached".
    none = PendingArrays(weight=np.array([1.0, 3.0]), origin=np.array([Origin.SERVICE, Origin.SERVICE]),
                         kind=np.array([KIND_NONE, KIND_NONE]), deadline=np.array([0.0, 0.0]),
                         arrival=np.array([100.0, 100.0]), role=np.array([0, 1]))
    assert int(np.argmax(policy.scores(none, 100.0, playhead))) == 1


def test_no_worker_starts_a_job_inside_one_change_and_each_picks_from_all_of_it(
        tiny_voices: dict[str, Path]) -> None:
    synth = ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache(), SessionLayout(2, 1))
    voice = VoiceParams(voice=str(tiny_voices["single"]), pitch=0.0)
    background = [request_for(synth, f"Background line number {n} of the play.", f"R{n}", voice,
                              origin=Origin.PRERENDER) for n in range(3)]
    played = request_for(synth, "The line the listener is waiting for.", "PLAYED", voice, origin=Origin.PLAYBACK)
    with Scheduler(synth, make_policy("role-priority")) as scheduler:
        with scheduler.one_change():
            futures = [scheduler.submit(request, timeout=0.0) for request in background]
            scheduler.set_playhead(0.0, playing=True)
            time.sleep(0.5)  # two idle workers, three lines queued: none may start yet
            assert scheduler.stats().running == 0 and not any(f.done() for f in futures)
            futures.append(scheduler.submit(played, timeout=0.0))
        # The played line, submitted last, was in the change: the first worker to pick took it
        # (the other, a background line beside it; which finishes first is the machine's).
        # Looked at in this order, a background line seen started means the played one shows
        # as started too (it was picked first), unless it was not.
        limit = time.monotonic() + 60
        while True:
            background_done = any(f.done() for f in futures[:3])
            states = scheduler.job_states()
            if states.get(played.plan.key) or played.future.done():
                break
            assert not background_done and not any(states.values()), "a background line started first"
            assert time.monotonic() < limit, "nothing started"
            time.sleep(0.0005)
        assert all(future.result(timeout=60).size > 0 for future in futures)
