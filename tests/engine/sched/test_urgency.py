"""Making way for the lines someone waits for (engine/sched/urgency.py).

A pre-render line in inference is stopped when a more urgent line waits for its worker.

The studio pre-renders from the moment a project opens; a Kokoro line takes
seconds (the sample's opening narration 12 s), so a Play waited for the line
a worker was inside. ONNX Runtime ends a run whose RunOptions say terminate
(engine/synth/backends/onnx_sessions.py ``RunStopper``): the scheduler stops the
pre-render run, voices the urgent line, and voices the stopped one again
afterwards (engine/sched/urgency.py).
"""

from __future__ import annotations

import time

from engine.project.model import VoiceParams
from engine.sched.job import Job
from engine.sched.policy import make_policy
from engine.sched.request import Origin, request_for
from engine.sched.scheduler import Scheduler
from engine.sched.urgency import FOCUS_MAX_S, Focus
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

# About forty seconds of speech: seconds of inference for one single-threaded session.
LONG = " ".join(f"Part {n} of the long opening narration, read slowly and with care." for n in range(12))


def test_a_played_line_stops_the_pre_render_line_in_inference_which_is_voiced_after_it() -> None:
    synth = ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache(), SessionLayout(1, 1))
    voice = VoiceParams()  # the default voice: a real model, seconds for the long line
    background = request_for(synth, LONG, "NARRATOR", voice, origin=Origin.PRERENDER)
    played = request_for(synth, "The line the listener is waiting for.", "LEAD", voice, origin=Origin.PLAYBACK)
    finished: list[str] = []
    background.future.add_done_callback(lambda f: finished.append("background"))
    played.future.add_done_callback(lambda f: finished.append("played"))
    with Scheduler(synth, make_policy("role-priority")) as scheduler:
        scheduler.submit(background)
        limit = time.monotonic() + 120
        while not scheduler.job_states().get(background.key):  # the one worker is inside it
            assert time.monotonic() < limit, "the pre-render line never started"
            time.sleep(0.01)
        scheduler.set_playhead(0.0, playing=True)
        scheduler.submit(played)
        played_clip = played.future.result(timeout=120)
        background_clip = background.future.result(timeout=240)
        stats = scheduler.stats()
    assert finished == ["played", "background"], "the played line waited for the pre-render line to end"
    assert played_clip.size > 0
    # Voiced again from the start, whole (a stopped run gives no audio: nothing partial is kept).
    assert background_clip.shape[0] / 48_000 > 20.0
    assert (stats.completed, stats.failed) == (2, 0)


def test_focus_holds_the_other_workers_only_for_a_line_made_within_the_hold(tiny_voices) -> None:
    """A Kokoro line the listener waits for takes seconds: holding the second worker for it
    made the next line too late for its span too (first audio 12.5 s instead of 4.6 s on the
    sample); a Piper line of a few tenths of a second gets the machine to itself."""
    synth = ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache(), SessionLayout(1, 1))
    plan = request_for(synth, "A line.", "A", VoiceParams(voice=str(tiny_voices["single"]))).plan
    quick, slow = Job(plan, "A", 0), Job(plan, "B", 1)
    focus = Focus()
    focus.start(slow, now=10.0, work_s=FOCUS_MAX_S * 3)
    assert not focus.holding(10.1)
    focus.start(quick, now=10.0, work_s=0.3)
    assert focus.holding(10.1) and not focus.holding(10.0 + FOCUS_MAX_S)
    assert focus.end([slow]) is False and focus.end([quick]) is True
    assert not focus.holding(10.1)
    other = Job(plan, "C", 2)
    focus.start(quick, now=20.0, work_s=0.3)
    focus.start(other, now=20.0, work_s=0.3)
    assert focus.end([quick, other]) is True  # a batch of two ends both
    assert not focus.holding(20.1)
