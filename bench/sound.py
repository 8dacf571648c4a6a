"""Sound lanes' cost: a production rendered with and without 3 sound lanes and
30 sound clips, in the same run, and a live playback of it with its sounds.

    python bench/sound.py [PROJECT] [--renders 2] [--speed 4] [--json]

The production (the bundled sample by default) is rendered bare (no sound
lanes) and with three sound lanes (effects, ambience, music: the starter
sounds) holding 30 clips: one-shots at cues and line ends, looping beds
ducked under the dialogue, and music stings. Renders alternate between the
two, each on a cold clip cache (synthesis included, as a producer's first
render), then once more each on the warm cache (mix and write only: the
sound lanes' share of the mixing itself). The best wall time of each is
kept (a shared machine's noise can only lengthen a run). Target: with /
without <= 1.15.

Then the production with its sounds plays through the live Session on the
null sink (a real-time clock; ``--speed`` > 1 runs it faster) with
pre-render on, counting ring underruns (target 0) and late lines.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.export.render import RenderOptions, render_project  # noqa: E402
from engine.playback_bench import full_playback  # noqa: E402
from engine.project.fileformat import load_project, save_project  # noqa: E402
from engine.project.model import Project  # noqa: E402
from engine.project.sound import SoundClip, SoundLane  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.sound_library import starter_sound_dir  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer, make_synthesizer  # noqa: E402

EFFECTS = ("door-knock", "footsteps", "phone-ring", "thunder", "radio-tuning")
BEDS = ("rain", "wind", "room-tone", "radio-static")


def with_sounds(project: Project, clips: int = 30) -> Project:
    """The production with 3 sound lanes and ``clips`` clips (starter sounds)."""
    starter = starter_sound_dir()
    lanes = [SoundLane.of_kind("effects"), SoundLane.of_kind("ambience"), SoundLane.of_kind("music")]
    lines = [line.id for line in project.lines]
    sounds: list[SoundClip] = []
    for i in range(clips):
        line = lines[(i * 7) % len(lines)]
        kind = i % 3
        if kind == 0:  # a one-shot at a cue, overlapping the next line, or at a line's end
            name = EFFECTS[(i // 3) % len(EFFECTS)]
            anchor = "cue" if i % 2 else "line_end"
            sounds.append(SoundClip(f"X{i:03d}", "FX", cue=name, file=str(starter / f"{name}.flac"),
                                    anchor=anchor, line=line, overlap=True, gain_db=-6.0))
        elif kind == 1:  # a looping ambience bed under 20 s of lines, ducked
            name = BEDS[(i // 3) % len(BEDS)]
            sounds.append(SoundClip(f"X{i:03d}", "AMBIENCE", cue=name, file=str(starter / f"{name}.flac"),
                                    anchor="line_start", line=line, offset=-1.0, loop=True, end="length",
                                    length=20.0, fade_in=1.0, fade_out=1.5, gain_db=-10.0))
        else:  # a music sting, ducked
            sounds.append(SoundClip(f"X{i:03d}", "MUSIC", cue="theme", file=str(starter / "theme.flac"),
                                    anchor="line_start", line=line, loop=True, end="length", length=12.0,
                                    fade_in=0.5, fade_out=2.0, gain_db=-8.0))
    return replace(project, sound_lanes=lanes, sounds=sounds)


def render_once(project: Project, workdir: Path, synth: ClipSynthesizer | None = None) -> tuple[float, float,
                                                                                                ClipSynthesizer]:
    """(wall s, production s, the synthesizer) of one render; a new synthesizer is cold.
    The stages' wall times go to ``STAGES`` (synthesis, then analysis + mix + write)."""
    path = workdir / "production.radioplay"
    save_project(project, path)
    if synth is None:
        os.environ["RADIOPLAY_CACHE_DIR"] = str(workdir / "cache")  # a shared user cache folder, if any: cold
        synth = make_synthesizer(path, project.sample_rate)
        synth.voice(synth.library.resolve(project.cast[0].voice.voice))  # loading is not rendering
    out = workdir / f"out-{time.monotonic_ns()}"
    cpu = time.process_time()
    report = render_project(project, synth, out, RenderOptions(), project_path=path)
    CPU.append(time.process_time() - cpu)
    STAGES.append((report.synth_wall_s, report.wall_s - report.synth_wall_s))
    return report.wall_s, report.duration_s, synth


STAGES: list[tuple[float, float]] = []
CPU: list[float] = []  # CPU seconds of each render, every thread of the process (steadier on a busy machine)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", nargs="?", default=str(REPO / "samples" / "the-last-broadcast.radioplay"))
    parser.add_argument("--renders", type=int, default=2, help="cold renders of each variant (best is kept)")
    parser.add_argument("--speed", type=float, default=4.0, help="live playback speed on the null sink")
    parser.add_argument("--no-play", action="store_true", help="skip the live playback")
    parser.add_argument("--control", action="store_true",
                        help="also play the production without sounds (what the machine's load alone costs)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    loaded = load_project(args.project)
    bare = replace(loaded, sound_lanes=[], sounds=[])
    sounded = with_sounds(bare)
    cold: dict[str, list[float]] = {"without": [], "with": []}
    warm: dict[str, list[float]] = {"without": [], "with": []}
    mixing: dict[str, list[float]] = {"without": [], "with": []}  # cold renders less their synthesis
    cold_cpu: dict[str, list[float]] = {"without": [], "with": []}
    length: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="radioplay-sound-bench-") as tmp:
        for attempt in range(args.renders):
            order = [("without", bare), ("with", sounded)]
            for name, project in order if attempt % 2 == 0 else order[::-1]:
                workdir = Path(tmp) / f"{name}-{attempt}"
                workdir.mkdir()
                wall, length[name], synth = render_once(project, workdir)
                cold[name].append(wall)
                cold_cpu[name].append(CPU[-1])
                synth_s, after_s = STAGES[-1]
                mixing[name].append(after_s)
                if attempt == 0:
                    warm[name].append(render_once(project, workdir, synth)[0])
                    warm[name].append(render_once(project, workdir, synth)[0])
                print(f"{name:>7} sounds: cold render {wall:6.2f} s (synthesis {synth_s:.2f} s)", file=sys.stderr)
    result: dict[str, object] = {
        "project": args.project, "lines": len(bare.lines), "sound_lanes": len(sounded.sound_lanes),
        "sound_clips": len(sounded.sounds)}
    if args.renders:
        result |= {
            "production_s": {k: round(v, 2) for k, v in length.items()},
            "cold_runs_wall_s": {k: [round(x, 2) for x in v] for k, v in cold.items()},
            "warm_runs_wall_s": {k: [round(x, 3) for x in v] for k, v in warm.items()},
            "cold_ratio": round(min(cold["with"]) / min(cold["without"]), 3),
            "warm_ratio": round(min(warm["with"]) / min(warm["without"]), 3),
            "cold_after_synthesis_s": {k: [round(x, 2) for x in v] for k, v in mixing.items()},
            "cold_cpu_s": {k: [round(x, 2) for x in v] for k, v in cold_cpu.items()},
            "cold_cpu_ratio": round(min(cold_cpu["with"]) / min(cold_cpu["without"]), 3),
        }
    if not args.no_play:
        synth = ClipSynthesizer(VoiceLibrary(base_dir=Path(args.project).parent), sounded.sample_rate, ClipCache())
        for role in sounded.cast:
            synth.synthesize("Warming up.", role.voice)
        result["live"] = {**full_playback(sounded, synth, args.speed), "speed": args.speed}
        if args.control:
            result["live_without_sounds"] = {**full_playback(bare, synth, args.speed), "speed": args.speed}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"production               {result['project']} ({result['lines']} lines; with sounds: "
          f"{result['sound_lanes']} lanes, {result['sound_clips']} clips)")
    if args.renders:
        print(f"cold render without      {min(cold['without']):8.2f} s   (runs {[round(x, 2) for x in cold['without']]})")
        print(f"cold render with sounds  {min(cold['with']):8.2f} s   (runs {[round(x, 2) for x in cold['with']]})")
        print(f"ratio with/without       {result['cold_ratio']:8.3f}     (target <= 1.15)")
        print(f"cold render CPU time     {min(cold_cpu['without']):8.2f} s without, {min(cold_cpu['with']):.2f} s with: "
              f"ratio {result['cold_cpu_ratio']:.3f}")
        print(f"cold, after synthesis    {min(mixing['without']):8.2f} s without, {min(mixing['with']):.2f} s with "
              f"(sounds read, analysis, mix, write)")
        print(f"warm render (mix+write)  {min(warm['without']):8.3f} s without, {min(warm['with']):.3f} s with: "
              f"ratio {result['warm_ratio']:.3f}")
    for key, label in (("live", f"live playback at {args.speed:g}x"), ("live_without_sounds", "  without sounds")):
        live = result.get(key)
        if isinstance(live, dict):
            print(f"{label:<24} underruns {live['underruns']} (target 0), late lines after 2 s "
                  f"{live['late_lines']}, {live['duration_s']} s")
    return 0

if __name__ == "__main__":
    sys.exit(main())
