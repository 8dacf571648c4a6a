"""How render time and memory grow with the length of a production.

    python bench/scale.py [--minutes 4 15 60] [--json]

Generates productions of about the given lengths (10 roles with the bundled
voice at distinct pitches and speeds, two lanes with effects, the broadcast
master, seeded sentences of 4-12 words: about 4.3 s a line, so 60 minutes is
~850 lines), then for each: a cold ``radioplay render`` (fresh clip cache) and
a cached re-render of the unchanged project, each a new process timed from
the outside, with the peak resident memory of the process (``ru_maxrss``).
The sample (3:48) is rendered cold in the same run as the reference for
time per audio-second: ``per_audio_s_ratio`` is each production's over the
sample's (target: within 1.15 for 60 minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.project.fileformat import save_project  # noqa: E402
from engine.project.model import Line, Project, Role, Scene, VoiceParams  # noqa: E402

SAMPLE = REPO / "samples" / "the-last-broadcast.radioplay"
WORDS = ("storm tower signal kettle harbour letter window morning lantern ferry static valley voice river "
         "station engine evening whisper orchard ledger candle bridge rumour winter the a of and to in "
         "we never said it was quiet before the lights went out over the hill").split()
SECONDS_PER_LINE = 4.3  # measured on these sentences with the bundled voice, pauses included


def production(minutes: float, seed: int = 7) -> Project:
    rng = random.Random(seed)
    project = Project(title=f"Scale {minutes:g} min", sample_rate=48_000, master_effect="broadcast")
    effects = ["none"] * 8 + ["telephone", "room"]
    for i in range(10):
        project.cast.append(Role(name=f"ROLE{i + 1:02d}", voice=VoiceParams(pitch=(i - 5) * 0.6, speed=0.9 + 0.02 * i),
                                 pan=(i - 4.5) / 6, priority=3.0 if i < 2 else 1.0, effect=effects[i]))
    lines = max(1, round(minutes * 60 / SECONDS_PER_LINE))
    scenes = max(1, lines // 40)
    for s in range(scenes):
        project.scenes.append(Scene(f"S{s + 1}", f"Scene {s + 1}"))
    for n in range(lines):
        role = project.cast[min(int(rng.expovariate(0.35)), 9)].name  # leads speak most
        words = [rng.choice(WORDS) for _ in range(rng.randint(4, 12))]
        text = " ".join(words).capitalize() + rng.choice(".?!") + f" Line {n + 1}."
        project.lines.append(Line(id=f"L{n + 1:05d}", role=role, text=text, scene=f"S{n * scenes // lines + 1}"))
    return project


def render(project: Path, out: Path, cache: Path) -> dict[str, float]:
    """One ``radioplay render`` as a new process: wall seconds, peak RSS, audio length."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"], env["RADIOPLAY_CACHE_DIR"] = str(REPO), str(cache)
    code = ("import resource, sys; from app.launch import main; rc = main(sys.argv[1:]); "
            "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss); sys.exit(rc)")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, "render", str(project), "-o", str(out)], env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"render of {project} failed:\n{done.stderr[-2000:]}")
    maxrss_kb = int(done.stdout.rsplit("MAXRSS", 1)[1].split()[0])
    with wave.open(str(out / "mix.wav"), "rb") as mix:
        audio_s = mix.getnframes() / mix.getframerate()
    return {"wall_s": wall, "peak_rss_mib": maxrss_kb / 1024, "audio_s": audio_s}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, nargs="+", default=[4.0, 15.0, 60.0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="radioplay-scale-"))
    rows = []
    try:
        shutil.copy(SAMPLE, work / SAMPLE.name)
        reference = render(work / SAMPLE.name, work / "out-sample", work / "cache-sample")
        per_s_ref = reference["wall_s"] / reference["audio_s"]
        for minutes in args.minutes:
            path = work / f"scale-{minutes:g}.radioplay"
            project = production(minutes)
            save_project(project, path)
            cache = work / f"cache-{minutes:g}"
            cold = render(path, work / f"out-{minutes:g}", cache)
            cached = render(path, work / f"out-{minutes:g}", cache)
            rows.append({"minutes": minutes, "lines": len(project.lines), "roles": len(project.cast),
                         "audio_s": round(cold["audio_s"], 1), "cold_s": round(cold["wall_s"], 1),
                         "cold_peak_mib": round(cold["peak_rss_mib"]), "cached_s": round(cached["wall_s"], 2),
                         "cached_peak_mib": round(cached["peak_rss_mib"]),
                         "per_audio_s_ratio": round(cold["wall_s"] / cold["audio_s"] / per_s_ref, 3)})
            shutil.rmtree(cache, ignore_errors=True)
            if not args.json:
                r = rows[-1]
                print(f"{minutes:5g} min  {r['lines']:4d} lines  {r['audio_s']:7.1f} s audio  cold {r['cold_s']:7.1f} s"
                      f" ({r['per_audio_s_ratio']:.2f}x the sample's time per audio-s), peak {r['cold_peak_mib']} MiB;"
                      f"  cached {r['cached_s']:6.2f} s, peak {r['cached_peak_mib']} MiB", flush=True)
        summary = {"load_average": os.getloadavg(), "sample": {k: round(v, 2) for k, v in reference.items()},
                   "rows": rows}
        if args.json:
            print(json.dumps(summary))
        else:
            print(f"sample (reference): {reference['audio_s']:.1f} s audio, cold {reference['wall_s']:.1f} s, peak "
                  f"{reference['peak_rss_mib']:.0f} MiB; load average "
                  f"{' '.join(f'{v:.1f}' for v in summary['load_average'])}")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
