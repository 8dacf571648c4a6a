"""The post stage shapes each clip as it arrives (engine/sched/post.py).

It used to park export and pre-render clips up to a second for others of their
voice and pitch (a shared Rubber Band run, long gone): a pre-render that runs one
line at a time while nothing plays then made a line a second, whatever the
voice (150 short lines of a studio test took 160 s; 10 s after). The clock is
frozen here, so a clip held back for time to pass is never shaped: the test
then fails on its timeout instead of measuring time.
"""

from __future__ import annotations

from pathlib import Path

from engine.project.model import VoiceParams
from engine.sched.policy import make_policy
from engine.sched.request import Origin, request_for
from engine.sched.scheduler import Scheduler
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer


def test_a_pre_render_line_is_shaped_without_waiting_for_time_or_its_voices_other_lines(
        tiny_voices: dict[str, Path]) -> None:
    # Two workers: while nothing plays, pre-render keeps one free (one line at a time), so the
    # voice's other lines stay queued while the first is shaped: the old parking waited for them.
    synth = ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache(), SessionLayout(2, 1))
    voice = VoiceParams(voice=str(tiny_voices["single"]), pitch=0.0)
    requests = [request_for(synth, f"Background line number {n} of the play.", "ROLE", voice,
                            origin=Origin.PRERENDER) for n in range(4)]
    with Scheduler(synth, make_policy("role-priority"), clock=lambda: 1000.0) as scheduler:
        assert scheduler.workers == 2
        futures = [scheduler.submit(request) for request in requests]
        clips = [future.result(timeout=60) for future in futures]
        assert all(clip.size > 0 for clip in clips)
        assert scheduler.stats().completed == len(requests)
