"""Issue 19's speed figures side by side, in one run: every benchmark a new
process as a user runs it, each against the baseline it measures in the
same run, printed as docs/dev/benchmarks.md's table (markdown) with its target.

    python bench/speed_table.py            # about 10 minutes on 2 cores
    python bench/speed_table.py --scale    # also bench/scale.py (4, 15, 60 min: ~20 minutes more)

The service row needs piper's HTTP server's Flask (``pip install flask``);
without it the row says so. The machine's load average is printed per row:
the ratios hold on a shared machine, the absolute times do not.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent


def run(script: str, *args: str, timeout: float = 1800.0) -> tuple[dict[str, Any] | None, str, float]:
    """The benchmark's JSON (its last line of output), or None and why."""
    started = time.monotonic()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # measure with bytecode, as installed
    try:
        done = subprocess.run([sys.executable, str(BENCH / script), *args, "--json"], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout:.0f} s", time.monotonic() - started
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        return None, f"exit {done.returncode}: {tail[0][:200]}", time.monotonic() - started
    return json.loads(lines[-1]), "", time.monotonic() - started


def verdict(ok: bool) -> str:
    return "met" if ok else "**short**"


def cli_rows(r: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    by = {row["command"]: row for row in r["results"] if row["checkout"] == "this"}
    render = by["render (cached)"]
    rows = [("cached `radioplay render` of the sample, process start included (`cli_speed.py`)",
             f"{render['best_s']:.2f} s best, {render['median_s']:.2f} s median: "
             f"**{render['x_real_time_best']:.0f}x** real time ({render['x_real_time_median']:.0f}x median); "
             f"`python -c pass` {by['python -c pass']['best_s']:.3f} s",
             ">= 150x (issue 33)", verdict(render["x_real_time_best"] >= 150))]
    quick = {k: by[k]["best_s"] for k in ("--help", "--version", "voices")}
    rows.append(("`radioplay --help` / `--version` / `voices` (`cli_speed.py`, best of runs)",
                 " / ".join(f"{v:.3f}" for v in quick.values()) + " s", "< 0.3 s",
                 verdict(max(quick.values()) < 0.3)))
    return rows


def cold_rows(r: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    ratio = r["ratio_production_over_ceiling"]
    return [("cold `radioplay render` of the sample as a new process vs the raw ONNX ceiling (`render.py --cli`)",
             f"{r['render_wall_s']:.1f} s for {r['production_s']:.0f} s of audio; ceiling "
             f"{r['ceiling_audio_s_per_s']:.1f} audio-s/s (runs {r['ceiling_runs_audio_s_per_s']}): **{ratio:.2f}x**",
             ">= 0.85x", verdict(ratio >= 0.85))]


def serve_rows(r: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    ok = r["throughput_ratio"] >= 1.0 and r["lead_p95_ratio"] <= 0.35 and r["non_2xx"] == 0
    return [("`radioplay serve` vs piper's HTTP server, 160 **unique** texts a burst (`serve_unique.py`)",
             f"throughput **{r['throughput_ratio']:.2f}x**, lead p95 **{r['lead_p95_ratio']:.2f}x**, "
             f"requests per CPU-second {r['per_cpu_second_ratio']:.2f}x, {r['non_2xx']} non-2xx "
             f"(median of {r['rounds']} interleaved rounds)",
             ">= 1.0x (aim 1.15x), lead p95 <= 0.35x, 0 non-2xx", verdict(ok))]


def launch_rows(r: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    paint = r["first_paint_s"]
    return [("studio launch to painted window (`studio_launch.py`)",
             f"median **{paint['median']:.2f} s** (best {paint['best']:.2f}); a bare Qt window "
             f"{r['bare_window_s']['median']:.2f} s", "< 1.5 s", verdict(paint["median"] < 1.5))]


def play_rows(r: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    studio, bench = r["studio"], r["bench_playback"]
    worst_s = max(studio["at_output_p95_ms"], studio["start_at_output_ms"]) / 1000.0
    ok = (worst_s <= 1.5 and studio["late_lines"] == 0 and studio["underruns"] == 0 and not studio["asked"]
          and not studio["span_asked"])
    return [("studio Play on a cold cache to sound (`studio_play.py`) vs `radioplay bench --playback`",
             f"at the output p50/p95 {studio['at_output_p50_ms']:.0f} / {studio['at_output_p95_ms']:.0f} ms, from "
             f"the start {studio['start_at_output_ms']:.0f} ms; first audio p95 ratio **{studio['ttfa_ratio']:.2f}** "
             f"(bench --playback {bench.get('ttfa_ratio', float('nan')):.2f}); "
             f"{studio.get('asked', 0) + int(studio['span_asked'])} of {r['positions'] + 1} Plays asked first; "
             f"{studio['span_s']:.0f} s from the start: {studio['late_lines']} late lines, "
             f"{studio['underruns']} underruns",
             "first sound p95 <= 1.5 s, 0 late lines, 0 underruns, no prompt (issue 54)", verdict(ok))]


def export_rows(r: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    x = r["x_real_time_median"]
    return [("studio Export of a cached project vs `radioplay render` (`studio_export.py`)",
             f"CLI {x['cli']:.0f}x real time (start included); studio settled {x['studio-settled']:.0f}x: "
             f"**{r['rate_ratio_settled_over_cli']:.2f}x** the CLI's rate; right after opening "
             f"{r['rate_ratio_studio_over_cli']:.2f}x", ">= 1.0x", verdict(r["rate_ratio_settled_over_cli"] >= 1.0))]


def scale_rows(r: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    sample = r["sample"]
    rows = [("the sample, cold (`scale.py` reference)",
             f"{sample['wall_s']:.0f} s for {sample['audio_s']:.0f} s of audio, peak {sample['peak_rss_mib']:.0f} MiB",
             "", "")]
    for row in r["rows"]:
        hour = row["minutes"] >= 60
        ok = row["cold_peak_mib"] < 1536 and row["per_audio_s_ratio"] <= 1.15 and row["cached_s"] < 60
        rows.append((f"generated {row['minutes']:g}-minute production ({row['lines']} lines, {row['roles']} roles)",
                     f"cold {row['cold_s']:.0f} s ({row['per_audio_s_ratio']:.2f}x the sample's time per audio-s), "
                     f"peak **{row['cold_peak_mib']} MiB**; cached re-export {row['cached_s']:.1f} s, peak "
                     f"{row['cached_peak_mib']} MiB",
                     "peak < 1.5 GiB, <= 1.15x, cached < 60 s" if hour else "",
                     verdict(ok) if hour else ""))
    return rows


BENCHES: list[tuple[str, list[str], Callable[[dict[str, Any]], list[tuple[str, str, str, str]]]]] = [
    ("cli_speed.py", ["--runs", "5"], cli_rows),
    ("render.py", ["--cli", "--renders", "2"], cold_rows),
    ("studio_launch.py", ["--runs", "5"], launch_rows),
    ("studio_export.py", ["--rounds", "3"], export_rows),
    ("studio_play.py", ["--positions", "6"], play_rows),
    ("serve_unique.py", ["--rounds", "2"], serve_rows),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", action="store_true", help="also run bench/scale.py (4, 15 and 60 minutes)")
    parser.add_argument("--only", nargs="+", help="run only these scripts (e.g. cli_speed.py)")
    args = parser.parse_args()
    benches = list(BENCHES) + ([("scale.py", [], scale_rows)] if args.scale else [])
    if args.only:
        benches = [b for b in benches if b[0] in args.only]
    print("| benchmark | result | target | | load |\n|---|---|---|---|---|", flush=True)
    for script, extra, rows in benches:
        if script == "serve_unique.py" and importlib.util.find_spec("flask") is None:
            print(f"| {script} | not run: piper's HTTP server needs Flask (`pip install flask`) | | | |", flush=True)
            continue
        before = os.getloadavg()[0]
        result, why, wall = run(script, *extra)
        load = f"{before:.1f}-{os.getloadavg()[0]:.1f}"
        if result is None:
            print(f"| {script} | failed: {why} | | | {load} |", flush=True)
            continue
        for name, text, target, met in rows(result):
            print(f"| {name} | {text} | {target} | {met} | {load} |", flush=True)
        print(json.dumps({"script": script, "wall_s": round(wall, 1), "result": result}), file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
