"""Ray render vs local render of the same project on the same machine, in one run.

    python bench/farm.py [PROJECT] [--rounds 2] [--json]

Starts a private Ray instance with this machine's cores first (a farm is a
running cluster: its start, ~9 s here, is reported apart, not in the render),
then renders the project cold (a fresh, empty clip cache each time) locally
and on the Ray actors, interleaved round by round so a busy shared machine
weighs on both alike; the ratio is Ray's best wall time over the local best.
Each Ray render includes starting its actors (one per voice session) and
loading the voices in them. The machine's load average is printed beside the
times, and per-line costs (model audio and synthesis seconds per line) for
the projection in docs/dev/farm.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.export.render import RenderReport, render_project  # noqa: E402
from engine.farm.cluster import Cluster, start_local  # noqa: E402
from engine.farm.farm import ActorStats, RayFarm  # noqa: E402
from engine.project.fileformat import load_project  # noqa: E402
from engine.synth.synthesizer import make_synthesizer  # noqa: E402


def render(project_path: Path, workdir: Path,
           cluster: Cluster | None) -> tuple[float, RenderReport, list[str], list[ActorStats]]:
    os.environ["RADIOPLAY_CACHE_DIR"] = str(workdir / "clip-cache")  # cold: a fresh, empty shared cache
    project = load_project(project_path)
    started = time.perf_counter()
    synth = make_synthesizer(project_path, project.sample_rate)
    if cluster is None:
        report = render_project(project, synth, workdir / "out")
        return time.perf_counter() - started, report, [], []
    with RayFarm(cluster, synth) as farm:
        report = render_project(project, synth, workdir / "out", scheduler=farm.scheduler)
    return time.perf_counter() - started, report, farm.summary(), list(farm.stats.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", nargs="?", default=str(REPO / "samples" / "the-last-broadcast.radioplay"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    project_path = Path(args.project).resolve()
    t = time.perf_counter()
    start_local()
    cluster = Cluster("auto")
    cluster.refresh()
    ray_start_s = time.perf_counter() - t
    times: dict[str, list[float]] = {"local": [], "ray": []}
    loads: list[float] = []
    last: dict[str, RenderReport] = {}
    summary: list[str] = []
    stats: list[ActorStats] = []
    for _ in range(args.rounds):
        for kind in ("local", "ray"):
            with tempfile.TemporaryDirectory(prefix=f"radioplay-farm-{kind}-") as tmp:
                wall, report, lines, farm_stats = render(project_path, Path(tmp), cluster if kind == "ray" else None)
            times[kind].append(wall)
            loads.append(os.getloadavg()[0])
            last[kind] = report
            summary, stats = (lines, farm_stats) if lines else (summary, stats)
            print(f"{kind:5s} {wall:6.2f} s  (load average {loads[-1]:.1f})", file=sys.stderr)
    import ray

    ray.shutdown()
    local, ray_report = last["local"], last["ray"]
    busy = [s.busy_s for s in stats]
    audio = [s.audio_s for s in stats]
    result = {
        "ray_start_s": round(ray_start_s, 2),
        "local_s": [round(x, 2) for x in times["local"]],
        "ray_s": [round(x, 2) for x in times["ray"]],
        "ratio": round(min(times["ray"]) / min(times["local"]), 3),
        "load_average": [round(x, 1) for x in loads],
        "cores": os.cpu_count(),
        "lines": local.synthesized,
        "programme_s": round(local.duration_s, 1),
        "audio_s_per_line": round(local.audio_seconds_synthesized / max(1, local.synthesized), 2),
        "model_s_per_line": round(local.model_seconds / max(1, local.synthesized), 2),
        "local_core_s_per_line": round(min(times["local"]) * (os.cpu_count() or 1) / max(1, local.synthesized), 3),
        # Actor CPU seconds per second of finished clip (inference and shaping), and
        # the local mix (analysis, limiter, writing) per programme second.
        "actor_cpu_s_per_audio_s": round(sum(busy) / max(1e-9, sum(audio)), 4) if busy else None,
        "mix_s_per_programme_s": round((ray_report.wall_s - ray_report.synth_wall_s) / ray_report.duration_s, 4),
        "actors": summary,
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
