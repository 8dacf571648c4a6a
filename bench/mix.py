"""The mix as a re-recording engineer checks it: before and after the dialogue leveller.

    python bench/mix.py [PROJECT] [--hour [--minutes M]] [--json] [--keep DIR]

For each project (the sample by default; ``--hour`` adds a generated
production of about an hour, the sample's lines repeated in new scenes) the
project is rendered twice with ``radioplay render`` in one run, as new
processes, with a private clip cache shared by both (so the voices are the
same):

- ``before``: the dialogue leveller off. There is no product switch for
  that: ``bench/_render_unlevelled.py`` runs the same render with the
  leveller's curve replaced by unity (and no remembered master gain);
- ``after``: the render as shipped.

Measured on the written files, with pyloudnorm as the independent meter
(not the project's own loudness code): the master's integrated loudness,
true peak (4x oversampling, soxr) and loudness range (pyloudnorm's
EBU Tech 3342 is not in pyloudnorm: the LRA here is this script's own
3 s-window percentile over pyloudnorm's K-weighting), its peak-to-loudness
ratio (PLR = true peak - integrated), every role stem's and DME stem's
sample peak, the stems' sum against mix.wav (Pearson correlation over the
whole file, and the sum's peak: the sum is the master before the limiter),
and what the master limiter did (from report.json: deepest reduction and
seconds over 1 dB). Printed as one table, with the load average (the
machine is shared).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import soundfile as sf

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "the-last-broadcast.radioplay"


def peak_db(audio: np.ndarray) -> float:
    peak = float(np.max(np.abs(audio))) if audio.size else 0.0
    return 20 * math.log10(peak) if peak > 0 else -math.inf


def true_peak_db(audio: np.ndarray, rate: int) -> float:
    import soxr

    return peak_db(np.asarray(soxr.resample(audio, rate, rate * 4, quality="VHQ")))


def loudness_range(audio: np.ndarray, rate: int) -> float:
    """EBU Tech 3342: 3 s windows every 100 ms over pyloudnorm's K-weighting, gated -70 / -20, 95th - 10th."""
    import pyloudnorm
    from scipy.signal import lfilter

    meter = pyloudnorm.Meter(rate)
    window, hop = int(3 * rate), int(0.1 * rate)
    weighted = audio.astype(np.float64)
    for stage in meter._filters.values():  # pyloudnorm's K-weighting (high shelf, high pass)
        weighted = lfilter(stage.b, stage.a, weighted, axis=0)
    power = np.sum(weighted.astype(np.float64) ** 2, axis=1)
    csum = np.concatenate([[0.0], np.cumsum(power)])
    starts = np.arange(0, max(1, audio.shape[0] - window + 1), hop)
    ms = (csum[starts + window] - csum[starts]) / window
    with np.errstate(divide="ignore"):
        level = -0.691 + 10 * np.log10(np.maximum(ms, 1e-20))
    kept = level[level >= -70]
    if kept.size == 0:
        return 0.0
    relative = -0.691 + 10 * math.log10(float(np.mean(ms[level >= -70]))) - 20
    gated = level[(level >= -70) & (level >= relative)]
    return float(np.percentile(gated, 95) - np.percentile(gated, 10)) if gated.size else 0.0


def measure(outdir: Path) -> dict[str, Any]:
    """Everything the table shows of one render's folder."""
    import pyloudnorm

    mix, rate = sf.read(outdir / "mix.wav", dtype="float32", always_2d=True)
    stems = {p.stem: sf.read(p, dtype="float32", always_2d=True)[0] for p in sorted((outdir / "stems").glob("*.wav"))}
    dme = {p.stem: sf.read(p, dtype="float32", always_2d=True)[0] for p in sorted((outdir / "dme").glob("*.wav"))}
    lufs = pyloudnorm.Meter(rate).integrated_loudness(mix.astype(np.float64))
    tp = true_peak_db(mix, rate)
    total = sum(dme.values()) if dme else sum(stems.values())
    n = min(total.shape[0], mix.shape[0])
    corr = float(np.corrcoef(total[:n].ravel(), mix[:n].ravel())[0, 1])
    report = json.loads((outdir / "report.json").read_text())
    master = next((w for w in report.get("levelling", []) if w["stage"] == "master"), None)
    return {
        "lufs": lufs, "true_peak": tp, "lra": loudness_range(mix, rate), "plr": tp - lufs,
        "stem_peaks": {k: peak_db(v) for k, v in stems.items()},
        "dme_peaks": {k: peak_db(v) for k, v in dme.items()},
        "sum_peak": peak_db(total), "sum_corr": corr,
        "limiter_max_db": master["max_reduction_db"] if master else float("nan"),
        "limiter_over_1db_s": master["time_above_1db_s"] if master else float("nan"),
        "duration_s": mix.shape[0] / rate,
    }


def render(project: Path, out: Path, cache: Path, levelled: bool) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO), "RADIOPLAY_CACHE_DIR": str(cache)}
    script = ["-m", "app.launch"] if levelled else [str(REPO / "bench" / "_render_unlevelled.py")]
    started = time.perf_counter()
    subprocess.run([sys.executable, *script, "render", str(project), "-o", str(out)], env=env, check=True,
                   stdout=subprocess.DEVNULL, cwd=project.parent)
    return time.perf_counter() - started


def hour_project(work: Path, minutes: float = 60.0) -> Path:
    """The sample's lines repeated in new scenes until the script runs about ``minutes``."""
    data = json.loads(SAMPLE.read_text())
    lines, scenes = data["lines"], data.get("scenes", [])
    copies = max(1, int(round(minutes / 4.25)))  # the sample runs 4:15
    new_lines, new_scenes = [], []
    for k in range(copies):
        for scene in scenes:
            new_scenes.append({**scene, "id": f"{scene['id']}-{k}", "heading": f"{scene.get('heading', '')} ({k + 1})"})
        for line in lines:
            copy = {**line, "id": f"{line['id']}-{k}"}
            if line.get("scene"):
                copy["scene"] = f"{line['scene']}-{k}"
            new_lines.append(copy)
    data["lines"], data["scenes"] = new_lines, new_scenes
    data["sounds"], data["sound_lanes"] = [], []  # cue placements refer to the sample's line ids
    path = work / "hour.radioplay"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _fmt(value: float) -> str:
    return f"{value:+.1f}" if math.isfinite(value) else str(value)


def table(rows: list[tuple[str, str, dict[str, Any]]]) -> str:
    out = ["| project | mix | limiter max GR dB | limiter > 1 dB s | highest role stem dBFS | highest DME stem dBFS "
           "| stems' sum peak dBFS | sum vs mix corr | LUFS | dBTP | LRA LU | PLR dB |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for project, label, m in rows:
        out.append(f"| {project} | {label} | {m['limiter_max_db']:.1f} | {m['limiter_over_1db_s']:.1f} "
                   f"| {_fmt(max(m['stem_peaks'].values()))} | {_fmt(max(m['dme_peaks'].values()))} "
                   f"| {_fmt(m['sum_peak'])} | {m['sum_corr']:.4f} | {m['lufs']:.2f} | {m['true_peak']:.2f} "
                   f"| {m['lra']:.1f} | {m['plr']:.1f} |")
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("project", nargs="?", default=str(SAMPLE))
    parser.add_argument("--hour", action="store_true", help="also a generated production of about an hour")
    parser.add_argument("--minutes", type=float, default=60.0,
                        help="with --hour: how long the generated production runs (a shorter one fits a busy machine)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep", default=None, help="keep the renders in this folder")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="radioplay-mix-"))
    work.mkdir(parents=True, exist_ok=True)
    project = Path(args.project).resolve()
    local = work / project.name
    shutil.copy(project, local)
    for extra in ("sounds",):
        if (project.parent / extra).is_dir() and not (work / extra).exists():
            shutil.copytree(project.parent / extra, work / extra)
    projects = [(project.stem, local)]
    if args.hour:
        label = "generated hour" if args.minutes == 60.0 else f"generated {args.minutes:g} min"
        projects.append((label, hour_project(work, args.minutes)))
    rows = []
    for name, path in projects:
        for label, levelled in (("before", False), ("after", True)):
            out = work / f"{path.stem}-{label}"
            wall = render(path, out, work / "cache", levelled)
            m = measure(out)
            m["wall_s"] = wall
            rows.append((name, label, m))
            print(f"{name} {label}: rendered in {wall:.1f} s (load {os.getloadavg()[0]:.1f})", file=sys.stderr)
    if args.json:
        print(json.dumps([{"project": p, "mix": lbl, **m} for p, lbl, m in rows], indent=1))
    else:
        print(table(rows))
        load = os.getloadavg()
        print(f"\nload average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
