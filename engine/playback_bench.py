"""``radioplay bench --playback``: time to first audio against bare synthesis.

TTFA is measured from the play command to the first non-silent frame leaving
the live mixer, on a cold clip cache, at 20 seeded play positions of the
sample, each inside a line (the line at the playhead starts from its
beginning once ready), with the voices loaded, as they are once the studio
has opened a project.
Beside it, in the same run, the bare synthesis time of the same first line
heard (plan, phonemes, inference, shaping: one call, nothing else running).
Target: ``ttfa_p95 <= 1.3 x (bare_p95 + one buffer period)``.

Then one full playback of the sample from the start on the null sink (a
real-time clock; ``speed`` > 1 runs it faster) with background pre-render
on, counting late lines after the first 2 seconds and ring underruns.

``check``: every Session runs the speech check in the background, as the
studio does (engine/session/checking.py); the report says how many clips it
checked during the full playback. The figures should not move.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from engine.audio.live import BLOCK
from engine.audio.sinks import NullSink
from engine.project.fileformat import load_project
from engine.project.model import Project
from engine.session import Session
from engine.synth.backends.synth_device import SynthDevice, layout_for
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "the-last-broadcast.radioplay"
GRACE_S = 2.0  # late lines in the first seconds of a cold start are expected


def _pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


def measure_ttfa(project: Project, synth: ClipSynthesizer, line_index: int, fraction: float,
                 timeout_s: float = 60.0, check: bool = False) -> tuple[float | None, str]:
    """Play from ``fraction`` of the way into line ``line_index`` (a line at
    the playhead, which starts from its beginning once ready) on a cold cache;
    returns (milliseconds to the first non-silent frame out of the mixer, line id).
    None: nothing was heard before the programme ended (the last line, voiced
    only after the playhead had passed it, is heard on the next pass)."""
    synth.cache = ClipCache()  # cold: nothing synthesized yet
    # Pre-render waits for play here: the measurement is a cold start with idle workers.
    with Session(project, None, sink=NullSink(project.sample_rate), synth=synth,
                 prerender_on_open=False, check=check) as session:
        session.wait_idle(60.0)
        clip = session.clips()[line_index]
        position_s = clip.start + fraction * (clip.end - clip.start)
        commanded = time.monotonic()
        session.play(position_s)
        deadline = commanded + timeout_s
        while session.player.first_audio_at is None or session.player.first_audio_at < commanded:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no audio {timeout_s:.0f} s after play at {position_s:.1f} s")
            transport = session.transport()
            if transport.ended or transport.duration_s and transport.position_s >= transport.duration_s:
                return None, clip.line_id  # played to the end (where the pass laid it out) unheard
            time.sleep(0.002)
        return (session.player.first_audio_at - commanded) * 1000.0, clip.line_id


def measure_bare(project: Project, synth: ClipSynthesizer, line_id: str) -> float:
    """One synthesis of the line, alone, on a cold cache (milliseconds)."""
    synth.cache = ClipCache()
    line = project.line(line_id)
    params = project.role(line.role).voice
    started = time.perf_counter()
    synth.synthesize(line.text, params, project.lexicon_for(line.role))
    return (time.perf_counter() - started) * 1000.0


def full_playback(project: Project, synth: ClipSynthesizer, speed: float = 1.0,
                  progress: Callable[[str], None] | None = None, check: bool = False) -> dict[str, Any]:
    synth.cache = ClipCache()
    sink = NullSink(project.sample_rate, speed=speed)
    with Session(project, None, sink=sink, synth=synth, prerender=True, check=check) as session:
        session.wait_idle(60.0)
        session.play(0.0)
        session.wait_idle(10.0)
        last_report = time.monotonic()
        while True:
            time.sleep(0.2)
            t = session.transport()
            if t.ended or t.duration_s and t.position_s >= t.duration_s:  # playing stops at the end
                break
            if progress and time.monotonic() - last_report > 10:
                last_report = time.monotonic()
                progress(f"full playback at {t.position_s:.0f} / {t.duration_s:.0f} s")
        t = session.transport()
        late_after = [lid for lid, at in session.late_log if at >= GRACE_S]
        return {"late_lines": len(late_after), "late_lines_total": t.late_lines, "underruns": t.underruns,
                "duration_s": round(t.duration_s, 2),
                "checked": session.checker.checked if session.checker is not None else None}


def run(positions: int = 20, seed: int = 11, project_path: Path = SAMPLE, speed: float = 1.0,
        full: bool = True, progress: Callable[[str], None] | None = None, check: bool = False,
        device: SynthDevice | None = None) -> dict[str, Any]:
    project = load_project(project_path)
    library = VoiceLibrary(base_dir=project_path.parent)
    synth = ClipSynthesizer(library, project.sample_rate, ClipCache(), layout_for(device), device=device)
    # Load the voices and let ORT allocate its arenas before anything is timed.
    for role in project.cast:
        synth.synthesize("Warming up.", role.voice)
    rng = random.Random(seed)
    trials = [(rng.randrange(len(project.lines)), rng.uniform(0.0, 0.8)) for _ in range(positions)]
    ttfa: list[float] = []
    bare: list[float] = []
    missed = 0  # play positions in the last line whose voice came after the playhead had passed it
    # Time to first audio is the time to the line's first sound: without the sound lanes,
    # whose ambience under the sample's lines would be the first non-silent frame.
    dialogue = replace(project, sound_lanes=[], sounds=[])
    for i, (index, fraction) in enumerate(trials):
        ms, line_id = measure_ttfa(dialogue, synth, index, fraction, check=check)
        bare.append(measure_bare(project, synth, line_id))
        if ms is None:
            missed += 1
        else:
            ttfa.append(ms)
        if progress:
            heard = "nothing heard before the end" if ms is None else f"first audio after {ms:.0f} ms"
            progress(f"play {fraction:.0%} into line {index + 1} ({line_id}): {heard} "
                     f"(bare synthesis {bare[-1]:.0f} ms) [{i + 1}/{positions}]")
    period_ms = BLOCK / project.sample_rate * 1000.0
    result: dict[str, Any] = {
        "ttfa_p50_ms": round(_pct(ttfa, 50), 1),
        "ttfa_p95_ms": round(_pct(ttfa, 95), 1),
        "bare_synth_p95_ms": round(_pct(bare, 95), 1),
        "buffer_period_ms": round(period_ms, 2),
    }
    # The ratio is taken from the figures as reported, so a reader recomputes it exactly; on
    # tiny voices (bare synthesis under a millisecond) the ratio is large and the rounding of
    # unrounded inputs would move its third decimal.
    result["ttfa_ratio"] = round(result["ttfa_p95_ms"]
                                 / (result["bare_synth_p95_ms"] + result["buffer_period_ms"]), 3)
    result["bare_synth_p50_ms"] = round(_pct(bare, 50), 1)
    result["positions"] = positions
    result["ttfa_missed"] = missed
    result["check"] = check
    if full:
        if progress:
            progress(f"full playback of {project.title!r} at {speed:g}x real time")
        playback = full_playback(project, synth, speed, progress, check)
        result["late_lines"] = playback["late_lines"]
        result["late_lines_first_2s"] = playback["late_lines_total"] - playback["late_lines"]
        result["underruns"] = playback["underruns"]
        result["playback_speed"] = speed
        result["checked"] = playback["checked"]
    else:
        result["late_lines"] = None
        result["underruns"] = None
    return result


def format_report(r: dict[str, Any]) -> str:
    lines = [
        f"Time to first audio over {r['positions']} play positions (cold cache)"
        + (f", {r['ttfa_missed']} missed (the last line voiced after the playhead had passed it)"
           if r.get("ttfa_missed") else "") + ":",
        f"  TTFA           p50 {r['ttfa_p50_ms']:8.1f} ms   p95 {r['ttfa_p95_ms']:8.1f} ms",
        f"  bare synthesis p50 {r['bare_synth_p50_ms']:8.1f} ms   p95 {r['bare_synth_p95_ms']:8.1f} ms",
        f"  buffer period  {r['buffer_period_ms']:.1f} ms",
        f"  ratio p95 TTFA / (bare p95 + period) = {r['ttfa_ratio']:.3f}  (target <= 1.3)",
    ]
    if r.get("late_lines") is not None:
        lines.append(f"Full playback at {r['playback_speed']:g}x: late lines after {GRACE_S:g} s {r['late_lines']} "
                     f"(target 0; {r['late_lines_first_2s']} in the first {GRACE_S:g} s), underruns {r['underruns']}")
        if r.get("check"):
            lines.append(f"Speech check in the background: {r['checked']} clips checked during the full playback")
    return "\n".join(lines)
