"""The post stage hands over the clip a listener waits for before it shapes a
pre-render clip of the same voice that reached it first (each clip is shaped
alone, so nothing is gained by holding the urgent one for its group)."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np

from engine.project.model import VoiceParams
from engine.sched.job import Job
from engine.sched.post import Inferred, PostStage
from engine.sched.request import Origin
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer, RawAudio


def inferred(synth: ClipSynthesizer, text: str, params: VoiceParams, origin: Origin, started: float) -> Inferred:
    """One line through the synthesizer's own inference path (as the scheduler's workers run it)."""
    plan = synth.plan(text, params)
    units = synth.phonemize(plan)
    model = synth.voice(plan.voice)
    out = synth.infer_units(model, plan, units)
    raw = RawAudio(plan, [o.audio for o in out], [u.pause_after for u in units], model.sample_rate,
                   sum(len(u.ids) for u in units), None, [o.words for o in out], [u.phrase for u in units])
    return Inferred(Job(plan, origin.name, 0, origin), raw, started, started)


def test_a_playback_clip_is_handed_over_before_a_prerender_clip_of_its_voice(tiny_voices: dict[str, Path]) -> None:
    synth = ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache())
    params = VoiceParams(voice=str(tiny_voices["single"]), pitch=2.0)
    before = inferred(synth, "A long narration rendered in the background. " * 4, params, Origin.PRERENDER, 1.0)
    played = inferred(synth, "The line under the playhead.", params, Origin.PLAYBACK, 2.0)
    assert before.job.shape_key == played.job.shape_key  # one shape group
    handed: list[str] = []
    all_done = threading.Event()

    def done(item: Inferred, clip: np.ndarray, _at: float) -> None:
        assert clip.shape[0] > 0
        handed.append(item.job.role)
        if len(handed) == 2:
            all_done.set()

    stage = PostStage(synth, done=done, failed=lambda jobs, exc: handed.append(f"failed: {exc}"),
                      outstanding=lambda key: 2)
    stage.put(before)  # the pre-render clip reached the stage first
    stage.put(played)
    stage.thread.start()
    assert all_done.wait(120.0), handed
    stage.close()
    stage.thread.join(60.0)
    assert handed == ["PLAYBACK", "PRERENDER"]
