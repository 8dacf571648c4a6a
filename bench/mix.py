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


BLOCK_S = 10.0  # seconds read at a time: an hour's stems are ~15 GB as float, so nothing is read whole


class StreamingPeak:
    """True peak of a signal fed in blocks: 4x oversampled through soxr's streaming resampler."""

    def __init__(self, rate: int, channels: int) -> None:
        import soxr

        self._stream = soxr.ResampleStream(rate, rate * 4, channels, dtype="float32", quality="VHQ")
        self.peak = 0.0

    def feed(self, block: np.ndarray, last: bool = False) -> None:
        out = self._stream.resample_chunk(np.ascontiguousarray(block, dtype=np.float32), last=last)
        if out.size:
            self.peak = max(self.peak, float(np.max(np.abs(out))))


class ShortTermLevels:
    """K-weighted power per 100 ms, fed in blocks (pyloudnorm's filters, their state carried across blocks)."""

    def __init__(self, rate: int, channels: int) -> None:
        import pyloudnorm

        self._stages = [(st.b, st.a) for st in pyloudnorm.Meter(rate)._filters.values()]
        self._zi = [np.zeros((len(a) - 1, channels)) for b, a in self._stages]
        self.hop = int(0.1 * rate)
        self._carry = np.zeros((0, channels))
        self.powers: list[float] = []  # summed over channels (BS.1770's gain 1 for L and R)

    def feed(self, block: np.ndarray) -> None:
        from scipy.signal import lfilter

        weighted = block.astype(np.float64)
        for k, (b, a) in enumerate(self._stages):
            weighted, self._zi[k] = lfilter(b, a, weighted, axis=0, zi=self._zi[k])
        weighted = np.concatenate([self._carry, weighted])
        whole = (weighted.shape[0] // self.hop) * self.hop
        frames = weighted[:whole].reshape(-1, self.hop, weighted.shape[1])
        self.powers.extend(np.sum(np.mean(frames**2, axis=1), axis=1).tolist())
        self._carry = weighted[whole:]

    def loudness_range(self) -> float:
        """EBU Tech 3342: 3 s windows every 100 ms, gated -70 / -20 LU, 95th - 10th percentile."""
        power = np.asarray(self.powers)
        if power.size < 30:
            return 0.0
        csum = np.concatenate([[0.0], np.cumsum(power)])
        ms = (csum[30:] - csum[:-30]) / 30
        with np.errstate(divide="ignore"):
            level = -0.691 + 10 * np.log10(np.maximum(ms, 1e-20))
        if not np.any(level >= -70):
            return 0.0
        relative = -0.691 + 10 * math.log10(float(np.mean(ms[level >= -70]))) - 20
        gated = level[(level >= -70) & (level >= relative)]
        return float(np.percentile(gated, 95) - np.percentile(gated, 10)) if gated.size else 0.0


def _db(linear: float) -> float:
    return 20 * math.log10(linear) if linear > 0 else -math.inf


def measure(outdir: Path) -> dict[str, Any]:
    """Everything the table shows of one render's folder, read in blocks of BLOCK_S seconds.

    Integrated loudness is pyloudnorm's own on the whole mix (the independent meter; an hour's
    stereo mix is ~1.4 GB as float32, which it handles); everything else streams.
    """
    import pyloudnorm

    stem_paths = sorted((outdir / "stems").glob("*.wav"))
    dme_paths = sorted((outdir / "dme").glob("*.wav"))
    summed = dme_paths or stem_paths  # the DME stems sum to the master before the limiter
    header = sf.info(str(outdir / "mix.wav"))
    rate, channels, frames = header.samplerate, header.channels, header.frames
    files = {p: sf.SoundFile(p) for p in {*stem_paths, *dme_paths}}
    peaks = dict.fromkeys(files, 0.0)
    block = int(BLOCK_S * rate)
    sum_peak = 0.0
    moments = np.zeros(5)  # sum of xy, xx, yy, x, y for the correlation of the stems' sum (x) with the mix (y)
    count = 0
    true_peak = StreamingPeak(rate, channels)
    levels = ShortTermLevels(rate, channels)
    try:
        with sf.SoundFile(outdir / "mix.wav") as mix_file:
            for start in range(0, frames, block):
                mix = mix_file.read(block, dtype="float32", always_2d=True)
                n = mix.shape[0]
                total = np.zeros((n, channels), dtype=np.float64)
                for path, handle in files.items():
                    part = handle.read(n, dtype="float32", always_2d=True)
                    if part.size:
                        peaks[path] = max(peaks[path], float(np.max(np.abs(part))))
                    if path in summed:
                        rows = min(n, part.shape[0])
                        total[:rows] += part[:rows]  # a mono stem broadcasts over the mix's channels
                sum_peak = max(sum_peak, float(np.max(np.abs(total))) if total.size else 0.0)
                x, y = total.ravel(), mix.astype(np.float64).ravel()
                moments += (x @ y, x @ x, y @ y, x.sum(), y.sum())
                count += x.size
                true_peak.feed(mix, last=start + block >= frames)
                levels.feed(mix)
    finally:
        for handle in files.values():
            handle.close()
    xy, xx, yy, sx, sy = moments.tolist()
    cov = xy - sx * sy / count
    corr = cov / math.sqrt((xx - sx * sx / count) * (yy - sy * sy / count))
    whole_mix, _ = sf.read(outdir / "mix.wav", dtype="float32", always_2d=True)
    lufs = pyloudnorm.Meter(rate).integrated_loudness(whole_mix)
    del whole_mix
    tp = _db(true_peak.peak)
    report = json.loads((outdir / "report.json").read_text())
    master = next((w for w in report.get("levelling", []) if w["stage"] == "master"), None)
    return {
        "lufs": lufs, "true_peak": tp, "lra": levels.loudness_range(), "plr": tp - lufs,
        "stem_peaks": {p.stem: _db(peaks[p]) for p in stem_paths},
        "dme_peaks": {p.stem: _db(peaks[p]) for p in dme_paths},
        "sum_peak": _db(sum_peak), "sum_corr": corr,
        "limiter_max_db": master["max_reduction_db"] if master else float("nan"),
        "limiter_over_1db_s": master["time_above_1db_s"] if master else float("nan"),
        "duration_s": frames / rate,
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
