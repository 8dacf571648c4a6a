"""What checking a prepared voice against its seal costs, against loading it (issue 57).

    python bench/sealed_load.py [--runs 5] [--json]

On the bundled voice (joe), prepared first in a temporary cache, in this process, the best
of ``--runs`` of each (noise only ever adds time):

- ``session from path``: one ONNX Runtime session made from the prepared file's path, as
  voices loaded before the seal (a voice makes one session per core, so a load is one or
  more of these);
- ``sealed, unchanged``: ``sealed_source`` of the file whose identity the seal records (the
  seal read, the file opened and its identity compared, nothing hashed: its path is handed
  on), then a session from it: a load now;
- ``sealed, new identity``: the same after the file was copied over itself (a new inode:
  a restore, a copy), so its bytes are read and hashed (SHA-256) and the seal updated, then
  a session from those bytes;
- ``voice digest``: the blake2b of the voice file each process computes to find the prepared
  file (unchanged by the seal; for comparison).

``check, unchanged`` and ``check, new identity`` are ``sealed_source`` alone: the check's own
cost, printed as a share of ``session from path`` like every figure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.synth.backends.onnx_sessions import make_session  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402


def best(runs: int, work: Callable[[], object], before: Callable[[], None] | None = None) -> float:
    times = []
    for _ in range(runs):
        if before is not None:
            before()
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["XDG_CACHE_HOME"] = home
        from engine.synth.backends.piper import prepared_voice
        from engine.synth.backends.sealed_model import sealed_source

        joe = VoiceLibrary().bundled()[0]
        prepared_voice.prepared_model(joe.model_path)
        [prepared] = prepared_voice.prepared_voices_dir().glob("*.onnx")
        sealed_source(prepared)  # the first check hashes and records the identity

        def copy_over() -> None:
            copy = prepared.with_name(prepared.name + ".copy")
            shutil.copyfile(prepared, copy)
            os.replace(copy, prepared)

        def digest() -> str:
            with open(joe.model_path, "rb") as f:
                return hashlib.file_digest(f, "blake2b").hexdigest()

        data = prepared.read_bytes()
        figures = {
            "session from path": best(args.runs, lambda: make_session(str(prepared), 1)),
            "session from bytes": best(args.runs, lambda: make_session(data, 1)),
            "sealed, unchanged": best(args.runs, lambda: make_session(sealed_source(prepared), 1)),
            "sealed, new identity": best(args.runs, lambda: make_session(sealed_source(prepared), 1), copy_over),
            "check, unchanged": best(args.runs, lambda: sealed_source(prepared)),
            "check, new identity": best(args.runs, lambda: sealed_source(prepared), copy_over),
            "voice digest": best(args.runs, digest),
        }
    base = figures["session from path"]
    if args.json:
        print(json.dumps({k: round(v, 4) for k, v in figures.items()}))
        return 0
    print(f"prepared voice: {prepared.name} ({len(data) / 2**20:.0f} MiB), best of {args.runs}")
    for name, seconds in figures.items():
        print(f"  {name:<26} {seconds * 1000:9.2f} ms  {seconds / base:5.2f} x session from path")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
