"""Peak and anonymous memory of a cold in-process render, sampled every 0.2 s.

    python bench/memprobe.py [--minutes 15] [--variant base] ...

Each variant runs as a new process (cold: empty clip cache) rendering the
same generated production (bench/scale.py's generator); prints one JSON line
per run: peak VmHWM, peak and final RssAnon, wall seconds, audio-s per s.
Variants: product (the sessions as engine/synth/backends/onnx_sessions.py makes them:
memory pattern off, CPU arena on and given back after each run), base (ONNX
Runtime's defaults: memory pattern and CPU arena on, kept), noarena (CPU arena
off), nopattern (memory pattern off, the arena kept), nopattern_noarena (both
off: the product before 2026-12-07),
trim (malloc_trim(0) every second), arena2 (MALLOC_ARENA_MAX=2).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import wave
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def status() -> dict[str, int]:
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmHWM", "VmRSS", "RssAnon", "RssFile"):
                out[key] = int(rest.split()[0]) // 1024
    return out


def child(minutes: float, variant: str, work: Path, project: str | None) -> None:
    from bench.scale import production
    from engine.project.fileformat import save_project

    os.environ["RADIOPLAY_CACHE_DIR"] = str(work / "cache")
    path = work / "p.radioplay"
    if project:  # a given project instead of a generated one
        shutil.copy(project, path)
    else:
        save_project(production(minutes), path)
    if variant != "product":  # every other variant states its session options (base: ORT's defaults)
        import onnxruntime as ort

        import engine.synth.backends.base as base
        import engine.synth.backends.onnx_sessions as sessions

        def make_session(model, threads=0, providers=None, spin=False):  # type: ignore[no-untyped-def]
            options = ort.SessionOptions()
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
            options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.enable_cpu_mem_arena = "noarena" not in variant
            options.enable_mem_pattern = "nopattern" not in variant
            return ort.InferenceSession(model, options, providers=providers or ["CPUExecutionProvider"])
        base.make_session = make_session  # every engine's sessions are made there
        sessions._new_run_options = ort.RunOptions  # runs keep what the arena grew to
    peak_anon = [0]
    stop = threading.Event()
    libc = None
    if variant == "trim":
        import ctypes
        libc = ctypes.CDLL("libc.so.6")

    def sample() -> None:
        last_trim = time.monotonic()
        while not stop.wait(0.2):
            peak_anon[0] = max(peak_anon[0], status()["RssAnon"])
            if libc is not None and time.monotonic() - last_trim > 1.0:
                libc.malloc_trim(0)
                last_trim = time.monotonic()
    threading.Thread(target=sample, daemon=True).start()
    from app.launch import main
    started = time.perf_counter()
    rc = main(["render", str(path), "-o", str(work / "out")])
    wall = time.perf_counter() - started
    stop.set()
    end = status()
    with wave.open(str(work / "out" / "mix.wav"), "rb") as mix:
        audio_s = mix.getnframes() / mix.getframerate()
    print("RESULT " + json.dumps({"variant": variant, "rc": rc, "minutes": minutes, "wall_s": round(wall, 1),
                                  "audio_s": round(audio_s, 1), "audio_s_per_s": round(audio_s / wall, 2),
                                  "peak_hwm_mib": end["VmHWM"], "peak_anon_mib": peak_anon[0],
                                  "end_anon_mib": end["RssAnon"], "load": os.getloadavg()[0]}), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=15.0)
    parser.add_argument("--variant", nargs="+", default=["base"])
    parser.add_argument("--project", help="render this project instead of a generated one")
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--work")
    args = parser.parse_args()
    if args.child:
        child(args.minutes, args.variant[0], Path(args.work), args.project)
        return 0
    for variant in args.variant:
        with tempfile.TemporaryDirectory(prefix="radioplay-memprobe-") as work:
            env = dict(os.environ, PYTHONPATH=str(REPO))
            if variant == "arena2":
                env["MALLOC_ARENA_MAX"] = "2"
            done = subprocess.run([sys.executable, __file__, "--child", "--minutes", str(args.minutes),
                                   "--variant", variant, "--work", work]
                                  + (["--project", str(Path(args.project).resolve())] if args.project else []), env=env, capture_output=True, text=True)
            lines = [row for row in done.stdout.splitlines() if row.startswith("RESULT ")]
            print(lines[-1][7:] if lines else f"{variant} failed: {done.stderr[-1500:]}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
