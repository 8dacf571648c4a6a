"""A Play's playhead and the lines it needs reach the workers as one change.

While nothing plays, pre-render runs one line at a time and keeps a worker
free for the next Play (test_prerender_leaves_a_worker.py). A Play moves the
playhead and then asks for the lines under it; a worker woken by the move
before those requests were queued took the best job it saw, a pre-render
line, and the played line waited for that inference (bench/studio_play.py).
"""

from __future__ import annotations

import threading
import time

from engine.project.fileformat import load_project
from engine.sched.policy import make_policy
from engine.sched.request import Deadline, Origin, request_for
from engine.sched.scheduler import Scheduler
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.onnx_sessions import SessionLayout
from engine.synth.piper_backend import PiperBackend
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.paths import SAMPLE

LONG = " ".join(["The storm came in off the water and the lights of the station went out one by one,"] * 6)


def test_a_worker_kept_free_takes_the_played_line_not_the_next_prerender() -> None:
    project = load_project(SAMPLE)
    role = project.cast[0]
    synth = ClipSynthesizer(VoiceLibrary(base_dir=SAMPLE.parent), project.sample_rate, ClipCache(),
                            PiperBackend(SessionLayout(2, 1)))
    started: list[str] = []
    lock = threading.Lock()
    with Scheduler(synth, make_policy("role-priority"), start=False) as scheduler:
        assert scheduler.workers == 2
        real_release = scheduler._release_slot

        def release(job):  # called as a worker takes a job
            with lock:
                started.append(job.role)
            real_release(job)

        scheduler._release_slot = release
        scheduler.set_playhead(0.0, playing=False)
        busy = request_for(synth, LONG, "BUSY", role.voice, origin=Origin.PRERENDER,
                           deadline=Deadline.on_timeline(30.0))
        scheduler.submit(busy)
        scheduler.start()
        deadline = time.monotonic() + 60.0
        while not scheduler.job_states().get(busy.key):
            assert time.monotonic() < deadline, "the first pre-render line never started"
            time.sleep(0.002)
        waiting = request_for(synth, "A line for later, rendered in the background.", "LATER", role.voice,
                              origin=Origin.PRERENDER, deadline=Deadline.on_timeline(40.0))
        scheduler.submit(waiting)
        time.sleep(0.2)
        assert started == ["BUSY"], "pre-render ran a second line at once while nothing played"
        with scheduler.together():
            scheduler.set_playhead(12.0, playing=True)
            time.sleep(0.3)  # a worker woken by the move alone takes the pre-render line meanwhile
            played = request_for(synth, "The line under the playhead.", "PLAYED", role.voice,
                                 origin=Origin.PLAYBACK, deadline=Deadline.on_timeline(11.5))
            scheduler.submit(played)
        played.future.result(timeout=120)
        waiting.future.result(timeout=120)
        busy.future.result(timeout=120)
    assert started[:2] == ["BUSY", "PLAYED"], started
