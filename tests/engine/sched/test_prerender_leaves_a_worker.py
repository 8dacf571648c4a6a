"""While nothing plays, background pre-render leaves a worker free for the next Play.

An inference in progress cannot be interrupted: when both workers were busy
pre-rendering (as they are from the moment the studio opens a project), a
Play had to wait for one of those lines to finish before its own could start
(bench/studio_play.py measured 2-4x the time to first audio of idle workers).
"""

from __future__ import annotations

import time
from dataclasses import replace

from engine.audio.sinks import NullSink
from engine.project.fileformat import load_project
from engine.project.model import VoiceParams
from engine.session import LineState, Session
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.paths import SAMPLE


def test_prerender_while_stopped_runs_one_line_at_a_time() -> None:
    sample = load_project(SAMPLE)
    # Every role on the bundled Piper voice: the sample's Kokoro roles made this a 37 s test of
    # Kokoro's speed; what it checks is how many lines run at once.
    project = replace(sample, lines=sample.lines[:8], sound_lanes=[], sounds=[],
                      cast=[replace(role, voice=VoiceParams()) for role in sample.cast])
    synth = ClipSynthesizer(VoiceLibrary(base_dir=SAMPLE.parent), project.sample_rate, ClipCache(),
                            SessionLayout(2, 1))
    with Session(project, None, sink=NullSink(project.sample_rate, speed=4.0), synth=synth) as session:
        assert session.scheduler.workers == 2
        most = 0
        deadline = time.monotonic() + 120.0
        while not all(s.state is LineState.READY for s in session.line_status().values()) or \
                len(session.line_status()) < len(project.lines):
            assert time.monotonic() < deadline, "pre-render did not finish"
            most = max(most, sum(session.scheduler.job_states().values()))
            time.sleep(0.002)
        assert most == 1, f"{most} pre-render lines ran at once while nothing played"
