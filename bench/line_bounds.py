"""The lines of issue 57 through ``radioplay import`` and ``render``, each measured.

Each case is a line within MAX_LINE_CHARS whose directions ask for more than a
render can give (hours of pauses in the Delivery note, in one group, mid-line
and at the end; a 60 s beat; 1,500 directed phrases; 2,000 emphasized words;
19,990 digits; 19,990 unclosed brackets). It is imported from a ``NAME: line``
script, then rendered from a project file holding the same line written
directly (as a file from before the bounds, or by hand, would). ``--long``
renders and checks lines of ordinary words of the given lengths instead (the
memory one line's clip takes). Prints one row a command: exit status, wall and
CPU seconds, peak resident memory (the child's own rusage), the size of its
output, whether it printed a traceback, its last line.

    PYTHONPATH=. python bench/line_bounds.py [--limit-s 120] [--as-gb 6] [--only CASE,...]
    PYTHONPATH=. python bench/line_bounds.py --long 6000,10000 [--check]

``--as-gb`` caps each command's address space: against a tree without the
bounds one render of these grew past 20 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
P60 = "[pause 60] "
CASES = {  # name: (the script line, the project's beat length)
    "note_10h": ("A: (60s, " + "60s, " * 599 + "60s) Hello there.", None),
    "group_10h": ("A: Hi. (60s, " + "60s, " * 599 + "60s) Hello there.", None),
    "mid_10h": ("A: Hello there. " + P60 * 600 + "Goodbye now.", None),
    "trailing_10h": ("A: Hello there. " + P60 * 600, None),
    "beat_60s": ("A: Hello. " + "(beat) " * 2800 + "Bye.", 60.0),
    "phrases_1500": ("A: " + "(sad) a (happy) b " * 750, None),
    "emphasis_2000": ("A: " + "*a* " * 2000, None),
    "digits_19990": ("A: " + "9" * 19990, None),
    "unclosed_19990": ("A: x" + "(" * 19990, None),
}
WORDS = ("the of and a to in is you that it he was for on are as with his they at be this have from or one "
         "had by word but not what all were we when your can said there use each which she do how their if "
         "will up other about out many then them these so some her would make like him into time has look two "
         "more write go see number no way could people my than first water been call who its now find long "
         "down day did get come made may part").split()


def run(args: argparse.Namespace, label: str, command: list[str], env: dict[str, str]) -> None:
    cap = int(args.as_gb * 2**30)
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen([sys.executable, "-m", "engine.cli", *command], cwd=ROOT, stdout=out,
                                   stderr=err, env=env,
                                   preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)))
        killed = False
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - start > args.limit_s:
                process.kill()
                killed = True
                _, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.05)
        wall = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    last = (stderr.strip().splitlines() or stdout.strip().splitlines() or [""])[-1]
    print(f"{label:24s} {command[0]:7s} exit={os.waitstatus_to_exitcode(status):<4d}"
          f"{' KILLED' if killed else ''} wall={wall:6.1f}s cpu={usage.ru_utime + usage.ru_stime:6.1f}s "
          f"peak={usage.ru_maxrss / 1024:6.0f}MB stdout={len(stdout)}B stderr={len(stderr)}B "
          f"traceback={'Traceback' in stderr} | {last[:160]}", flush=True)


def direct_project(path: Path, line: str, beat: float | None) -> None:
    role, _, said = line.partition(": ")
    note = ""
    if said.startswith("(") and ")" in said:
        note, said = said[1:said.index(")")], said[said.index(")") + 1:].strip()
    timing = {"line_gap": 0.35, "scene_gap": 1.5, **({"beat": beat} if beat is not None else {})}
    path.write_text(json.dumps({"format_version": 3, "cast": [{"name": role}], "timing": timing,
                                "lines": [{"id": "L1", "role": role, "text": said, "note": note}]}))


def ordinary_words(chars: int) -> str:
    rng = random.Random(chars)
    sentences: list[str] = []
    while sum(map(len, sentences)) + len(sentences) < chars:
        sentences.append(" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize() + ".")
    return " ".join(sentences)[:chars]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit-s", type=float, default=120.0)
    parser.add_argument("--as-gb", type=float, default=6.0)
    parser.add_argument("--only", default="")
    parser.add_argument("--long", default="", help="lengths of ordinary lines to render, e.g. 6000,10000")
    parser.add_argument("--check", action="store_true", help="with --long: radioplay check each too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = dict(os.environ, PYTHONPATH=str(ROOT), RADIOPLAY_CACHE_DIR=str(folder / "cache"))
        if args.long:
            for chars in (int(n) for n in args.long.split(",")):
                project = folder / f"long{chars}.radioplay"
                direct_project(project, "A: " + ordinary_words(chars), None)
                run(args, f"{chars} characters", ["render", str(project), "-o", str(folder / f"out{chars}")], env)
                if args.check:
                    run(args, f"{chars} characters", ["check", str(project)], env)
            return 0
        only = set(filter(None, args.only.split(",")))
        for name, (line, beat) in CASES.items():
            if only and name not in only:
                continue
            script, project, direct = folder / f"{name}.txt", folder / f"{name}.radioplay", folder / f"{name}-direct.radioplay"
            script.write_text(line + "\n", encoding="utf-8")
            run(args, name, ["import", str(script), "-o", str(project), "--force"], env)
            direct_project(direct, line, beat)
            out = folder / f"{name}-out"
            run(args, name, ["render", str(direct), "-o", str(out)], env)
            print(f"{'':24s} written: project {project.exists()}, render {sorted(p.name for p in out.iterdir()) if out.exists() else 'nothing'}")
            shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
