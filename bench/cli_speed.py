"""What a producer waits for at the command line, process start included.

    python bench/cli_speed.py [PROJECT] [--runs 5] [--against CHECKOUT] [--cache DIR] [--json]

Every command runs as a new process (``python -m app.launch ...``, what the
``radioplay`` entry point runs), the way a user types it:

- ``radioplay --help``, ``--version`` and ``voices``;
- ``radioplay render`` of the project when nothing has changed since the
  last render (every clip in the clip cache): the cached export, reported
  as wall seconds and as times real time (the mix's length over the wall
  time), into the folder of the last render (a re-export: the audio there
  is kept when it is what the render would write) and into a new folder
  each time (``render (new folder)``: the whole write pass).

A bare ``python -c pass`` runs beside them: the interpreter's own start on
this machine at this moment. With ``--against CHECKOUT`` (another checkout
of Radioplay, e.g. main before a change) the same commands run from it too,
interleaved with this one's, and the ratios of their times are printed:
shared machines are noisy, so only numbers from the same run are compared,
and the best of ``--runs`` is used for each (noise only ever adds time).

The clip cache is a temporary folder filled by one cold render first (the
two checkouts share it when their clip keys agree), or ``--cache DIR``: a
folder filled before (its first render is then a cached one too). Bytecode is written as
an installed package has it (PYTHONDONTWRITEBYTECODE is dropped), and each
command runs once before the timed runs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import wave
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def environment(checkout: Path, cache: Path, work: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(checkout)
    env["RADIOPLAY_CACHE_DIR"] = str(cache)
    # Each checkout its own user cache folder, as one installation has: the sound index
    # there names each checkout's starter sounds by path, and two checkouts sharing one
    # index would rewrite it in turn (every render reading every sound's loudness again).
    env["XDG_CACHE_HOME"] = str(work / f"user-cache-{hashlib.sha256(str(checkout).encode()).hexdigest()[:8]}")
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    return env


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return wall


def mix_seconds(outdir: Path) -> float:
    with wave.open(str(outdir / "mix.wav"), "rb") as mix:
        return mix.getnframes() / mix.getframerate()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", nargs="?", default=str(REPO / "samples" / "the-last-broadcast.radioplay"))
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each command (best is kept)")
    parser.add_argument("--against", type=Path, help="another Radioplay checkout to compare with (the baseline)")
    parser.add_argument("--cache", type=Path, help="clip cache folder to use (default: a new one, filled first)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="radioplay-cli-speed-"))
    try:
        project = work / Path(args.project).name
        shutil.copy(args.project, project)
        cache = args.cache.resolve() if args.cache is not None else work / "clip-cache"
        checkouts = {"this": REPO}
        if args.against is not None:
            checkouts["baseline"] = args.against.resolve()
        py = sys.executable
        commands: dict[str, list[str]] = {
            "python -c pass": [py, "-c", "pass"],
            "--help": [py, "-m", "app.launch", "--help"],
            "--version": [py, "-m", "app.launch", "--version"],
            "voices": [py, "-m", "app.launch", "voices"],
        }
        cold = {}
        for name, checkout in checkouts.items():
            out = work / f"out-{name}"
            render = [py, "-m", "app.launch", "render", str(project), "-o", str(out)]
            commands[f"render (cached) [{name}]"] = render
            commands[f"render (new folder) [{name}]"] = [*render[:-1], str(work / f"new-{name}")]
            # The first render of each fills the cache (cold for the first)
            # and remembers what an unchanged project needs.
            cold[name] = timed(render, environment(checkout, cache, work), work)
        times: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.runs + 1):  # the first round writes bytecode and warms the page cache
            for command, argv in commands.items():
                for name, checkout in checkouts.items():
                    if command.startswith("render") and not command.endswith(f"[{name}]"):
                        continue
                    if command.startswith("render (new folder)"):
                        shutil.rmtree(work / f"new-{name}", ignore_errors=True)
                    times.setdefault((command, name), []).append(timed(argv, environment(checkout, cache, work), work))
        audio_s = mix_seconds(work / "out-this")
        results = []
        for (command, name), walls in times.items():
            walls = walls[1:]
            row = {"command": command.split(" [")[0], "checkout": name, "best_s": round(min(walls), 3),
                   "median_s": round(statistics.median(walls), 3)}
            if command.startswith("render"):
                row["x_real_time_best"] = round(audio_s / min(walls), 1)
                row["x_real_time_median"] = round(audio_s / statistics.median(walls), 1)
            results.append(row)
        summary = {"project": str(args.project), "audio_s": round(audio_s, 1), "runs": args.runs,
                   "load_average": os.getloadavg(), "first_render_s": {k: round(v, 2) for k, v in cold.items()},
                   "results": results}
        if "baseline" in checkouts:
            best = {(r["command"], r["checkout"]): r["best_s"] for r in results}
            summary["speedup_vs_baseline"] = {
                cmd: round(best[(cmd, "baseline")] / best[(cmd, "this")], 2)
                for cmd, who in best if who == "this" and (cmd, "baseline") in best}
        if args.json:
            print(json.dumps(summary))
            return 0
        print(f"{args.project}: {audio_s:.1f} s of audio; best of {args.runs} runs; load average "
              f"{' '.join(f'{v:.1f}' for v in summary['load_average'])}")
        for r in results:
            extra = (f"  {r['x_real_time_best']:>6.1f}x real time (median {r['x_real_time_median']:.1f}x)"
                     if "x_real_time_best" in r else "")
            print(f"  {r['command']:<26} {r['checkout']:<9} best {r['best_s']:6.3f} s  median {r['median_s']:6.3f} s"
                  f"{extra}")
        for cmd, ratio in summary.get("speedup_vs_baseline", {}).items():
            print(f"  {cmd}: {ratio:.2f}x faster than the baseline")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
