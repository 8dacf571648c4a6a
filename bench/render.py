"""Render throughput against the raw ONNX ceiling, measured in the same run.

    python bench/render.py [PROJECT] [--json]

Ceiling: the same voice's ONNX session running the same lines' phoneme ids
with the same per-role settings, back to back, nothing else: model output
seconds per second of ``session.run``. Render: a full cold-cache
``radioplay render`` of the project (synthesis, voice shaping, two loudness
passes, limiter, mix + stems + captions written). Both are counted in the
same unit (untrimmed model output seconds), so their ratio is the share of
the ceiling the whole render achieves. The production length per wall second
is printed too. The ceiling is measured before and after the render and the
better of the two is used, so machine noise cannot flatter the ratio.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.audio.cache import ClipCache, cache_dir_for  # noqa: E402
from engine.audio.render import RenderOptions, render_project  # noqa: E402
from engine.project.fileformat import load_project  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.pipeline import plan_lines  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402


def measure_ceiling(project_path: Path) -> tuple[float, float]:
    """(model seconds, wall seconds) of bare inference over every line once."""
    project = load_project(project_path)
    synth = ClipSynthesizer(VoiceLibrary(base_dir=project_path.parent), project.sample_rate, ClipCache())
    plans = plan_lines(project, synth)
    jobs = []
    for plan in {p.key: p for p in plans.values()}.values():
        model = synth.voice(plan.voice)
        jobs.extend((model, unit, plan.settings) for unit in model.phonemize(list(plan.prepared.units)))
    model, unit, settings = jobs[0]
    model.infer(unit, settings)  # warm-up: first run allocates ORT arenas
    samples = 0
    started = time.perf_counter()
    for model, unit, settings in jobs:
        samples += model.infer(unit, settings).shape[0]
    wall = time.perf_counter() - started
    return samples / jobs[0][0].sample_rate, wall


def measure_render(project_path: Path, workdir: Path) -> dict[str, float]:
    copy = workdir / project_path.name
    shutil.copy(project_path, copy)
    shutil.rmtree(cache_dir_for(copy), ignore_errors=True)
    project = load_project(copy)
    synth = ClipSynthesizer(VoiceLibrary(base_dir=project_path.parent), project.sample_rate,
                            ClipCache(cache_dir_for(copy)))
    synth.voice(synth.library.resolve(project.cast[0].voice.voice))  # load outside the timing, as the ceiling does
    report = render_project(project, synth, workdir / "out", RenderOptions())
    return {"wall_s": report.wall_s, "model_s": report.model_seconds, "production_s": report.duration_s,
            "synth_wall_s": report.synth_wall_s, "lines": report.lines}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", nargs="?", default=str(REPO / "samples" / "the-last-broadcast.radioplay"))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    project_path = Path(args.project).resolve()

    before = measure_ceiling(project_path)
    with tempfile.TemporaryDirectory(prefix="radioplay-bench-") as tmp:
        render = measure_render(project_path, Path(tmp))
    after = measure_ceiling(project_path)
    ceiling = max(before[0] / before[1], after[0] / after[1])
    throughput = render["model_s"] / render["wall_s"]
    result = {
        "project": str(project_path),
        "lines": render["lines"],
        "model_audio_s": round(render["model_s"], 2),
        "production_s": round(render["production_s"], 2),
        "ceiling_audio_s_per_s": round(ceiling, 3),
        "ceiling_runs_audio_s_per_s": [round(before[0] / before[1], 3), round(after[0] / after[1], 3)],
        "render_wall_s": round(render["wall_s"], 2),
        "render_synthesis_wall_s": round(render["synth_wall_s"], 2),
        "render_audio_s_per_s": round(throughput, 3),
        "render_production_s_per_s": round(render["production_s"] / render["wall_s"], 3),
        "ratio_render_over_ceiling": round(throughput / ceiling, 3),
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"project                {result['project']} ({result['lines']} lines)")
    print(f"raw ONNX ceiling       {ceiling:8.2f} audio-s/s  (runs: {result['ceiling_runs_audio_s_per_s']})")
    print(f"full render, cold      {throughput:8.2f} audio-s/s  ({render['model_s']:.1f} s of model audio "
          f"in {render['wall_s']:.2f} s; synthesis stage {render['synth_wall_s']:.2f} s)")
    print(f"production per second  {result['render_production_s_per_s']:8.2f} s/s  "
          f"({render['production_s']:.1f} s long)")
    print(f"ratio render/ceiling   {result['ratio_render_over_ceiling']:8.3f}  (target >= 0.85)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
