"""Table read benchmark: a held-out scene read live by a different synthesizer.

    python bench/tableread/run.py OUT [--role ROSA] [--vad auto|silero|energy] [--noise-db -60]

1. Imports bench/tableread/the-night-ferry.txt (a scene no test or tuning
   used) into OUT/ferry.radioplay, cast with the bundled Piper voice (pitch
   and speed apart per role).
2. Records the live role's lines with espeak-ng (a formant synthesizer: a
   voice nothing like the cast's), with a little room noise, as
   OUT/reader/<LINE_ID>.wav.
3. Runs ``radioplay rehearse OUT/ferry.radioplay --role ROSA --simulate
   OUT/reader --json --device null`` and checks the issue's targets: reply
   gap p95 <= 600 ms, p50 <= 400 ms, 0 false starts, 0 missed, every line in
   order. Exit status 0 when all hold.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import soundfile

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCRIPT = HERE / "the-night-ferry.txt"
CAST = {"CAPTAIN": (-2.0, 0.95), "ROSA": (2.0, 1.05), "DECKHAND": (0.0, 1.1)}  # pitch st, speed


def make_project(out: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    from engine.project.fileformat import save_project
    from engine.project.importers.build import import_script
    from engine.project.model import VoiceParams

    project, _ = import_script(SCRIPT)
    cast = [replace(r, voice=VoiceParams(pitch=CAST[r.name][0], speed=CAST[r.name][1])) for r in project.cast]
    path = out / "ferry.radioplay"
    save_project(replace(project, cast=cast), path)
    return path


def record(project_path: Path, role: str, folder: Path, noise_db: float) -> list[str]:
    from engine.project.fileformat import load_project

    espeak = shutil.which("espeak-ng")
    if espeak is None:
        raise SystemExit("espeak-ng is needed for the reader's voice (apt-get install espeak-ng)")
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(17)
    ids = []
    for line in load_project(project_path).lines:
        if line.role != role:
            continue
        wav = folder / f"{line.id}.wav"
        subprocess.run([espeak, "-v", "en-us+f3", "-s", "160", "-w", str(wav), line.text], check=True)
        audio, rate = soundfile.read(str(wav), dtype="float32")
        audio = np.concatenate([np.zeros(int(0.2 * rate), np.float32), audio * 0.5])  # a breath before speaking
        audio += rng.normal(0.0, 10 ** (noise_db / 20), audio.size).astype(np.float32)
        soundfile.write(str(wav), audio, rate)
        ids.append(line.id)
    return ids


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--role", default="ROSA")
    parser.add_argument("--vad", default="auto")
    parser.add_argument("--noise-db", type=float, default=-60.0, help="room noise RMS in dBFS (default -60)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    project = make_project(args.out)
    record(project, args.role, args.out / "reader", args.noise_db)
    cmd = [sys.executable, "-m", "engine.cli", "rehearse", str(project), "--role", args.role, "--simulate",
           str(args.out / "reader"), "--json", "--device", "null", "--vad", args.vad]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    sys.stderr.write(done.stderr)
    if done.returncode != 0:
        print(done.stdout)
        return done.returncode
    report = json.loads(done.stdout)
    print(json.dumps({k: v for k, v in report.items() if k != "per_line"}, indent=2))
    from engine.project.fileformat import load_project

    order = [line.id for line in load_project(project).lines]
    ok = (report["order"] == order and report["missed"] == 0 and report["false_starts"] == 0
          and report["gap_p50_ms"] <= 400 and report["gap_p95_ms"] <= 600)
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
