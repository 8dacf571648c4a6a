"""How long ``radioplay import`` takes to cast a script with nothing measured, and what it measured.

    python bench/cast_time.py SCRIPT [--baseline TREE] [--warm] [--roles N]

Runs ``radioplay import SCRIPT`` in a child process with an empty user cache (its own
XDG_CACHE_HOME: no clips, no speaker embeddings, no prepared voices, the Kokoro model joined
again) and prints the wall time, the CPU time of the child, the load before and after, and
what the casting measured (from the store it wrote: candidate embeddings, DNSMOS scores,
lines heard for words, pitch of the sources). ``--baseline TREE`` runs the same import with
the engine of another checkout (``git archive REF | tar -x -C TREE``) right after, cold too,
and prints the ratio: the figure to compare, both taken under the same load. ``--warm``
imports a second time into the same cache (what a producer's next import costs).
``--roles N`` imports a generated script of N roles of a line each instead of SCRIPT
(issue 57: 10,000 roles).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _import(tree: Path, script: Path, cache: Path) -> tuple[float, float, str]:
    """(wall s, child CPU s, output) of one import with the engine of ``tree``."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), PYTHONPATH=str(tree))
    env.pop("RADIOPLAY_CACHE_DIR", None)
    out = cache / "out.radioplay"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", "import sys; from engine.cli import main; sys.exit(main(sys.argv[1:]))",
                           "import", str(script), "-o", str(out), "--force"],
                          cwd=tree, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"import failed ({done.returncode}):\n{done.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def _measured(cache: Path) -> str:
    store = cache / "radioplay" / "speaker-embeddings.json"
    if not store.is_file():
        return "nothing measured"
    kinds = Counter(key.split(":", 1)[0] if ":" in key[:4] else "embedding" for key in json.loads(store.read_text()))
    names = {"embedding": "embeddings", "q": "DNSMOS", "w1": "lines heard", "w": "word checks", "f0": "source pitches"}
    return ", ".join(f"{n} {names.get(k, k)}" for k, n in sorted(kinds.items()))


def _run(label: str, tree: Path, script: Path, warm: bool) -> float:
    with tempfile.TemporaryDirectory(prefix="cast-time-") as folder:
        cache = Path(folder)
        load = os.getloadavg()[0]
        wall, cpu, output = _import(tree, script, cache)
        print(f"{label}: cold {wall:.1f} s wall, {cpu:.1f} s CPU, load {load:.1f} -> {os.getloadavg()[0]:.1f}; "
              f"{_measured(cache)}")
        closest = [line for line in output.splitlines() if line.startswith(("closest", "  "))]
        print("\n".join(f"    {line}" for line in closest if "(" not in line.strip()[:1]))
        if warm:
            wall2, cpu2, _ = _import(tree, script, cache)
            print(f"{label}: warm {wall2:.1f} s wall, {cpu2:.1f} s CPU")
        return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script", nargs="?", type=Path)
    parser.add_argument("--baseline", type=Path, help="another checkout's tree, imported the same way after")
    parser.add_argument("--warm", action="store_true", help="import again into the same cache")
    parser.add_argument("--roles", type=int, help="a generated script of this many roles instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cast-script-") as folder:
        script = args.script
        if args.roles:
            script = Path(folder) / f"roles-{args.roles}.txt"
            script.write_text("".join(f"ROLE {i}: Line number {i}.\n" for i in range(args.roles)), encoding="utf-8")
        if script is None:
            parser.error("a script or --roles N")
        print(f"{script} on {os.cpu_count()} cores")
        ours = _run("this tree", REPO, script.resolve(), args.warm)
        if args.baseline:
            theirs = _run("baseline", args.baseline.resolve(), script.resolve(), args.warm)
            print(f"ratio this/baseline: {ours / theirs:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
