"""Seeded noise costs no speed: the voice with its random nodes (before) and
with the seeded noise table (after), on the same lines in one run.

    python bench/takes_speed.py [PROJECT] [--rounds 3] [--json]

Both models carry the durations output (as the engine loads them); the only
difference is engine.synth.backends.piper.noise. Each round runs every line's units
through both sessions, alternating which goes first; the best round of each
is kept (a shared machine's noise can only slow a round down). Also checks
that two fresh loads of the seeded model give identical samples.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
from piper.patch_voice_with_alignment import add_alignment_output  # noqa: E402

from engine.project.fileformat import load_project  # noqa: E402
from engine.synth.backends.onnx_sessions import make_session  # noqa: E402
from engine.synth.backends.piper.noise import NoiseInputs, expose_noise  # noqa: E402
from engine.synth.synthesizer import make_synthesizer  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("project", nargs="?", default=str(REPO / "samples/the-last-broadcast.radioplay"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    project = load_project(Path(args.project))
    synth = make_synthesizer(None, project.sample_rate)
    role = project.cast[0]
    model = synth.voice(synth.library.resolve(role.voice.voice))
    settings = model.settings(1.0, 1.0, None)
    units = [u for line in project.lines for u in model.phonemize([line.text])]

    graph = onnx.load(str(model.info.model_path))
    add_alignment_output(graph)
    before = make_session(graph.SerializeToString(), 0)
    noise = expose_noise(graph)
    after_bytes = graph.SerializeToString()
    after = make_session(after_bytes, 0)

    def run(session, inputs: NoiseInputs) -> tuple[float, float]:  # type: ignore[no-untyped-def]
        started, samples = time.perf_counter(), 0
        for unit in units:
            ids = np.asarray(unit.ids, dtype=np.int64)[None, :]
            lengths = np.array([ids.shape[1]], dtype=np.int64)
            feeds = {k: v for k, v in model.feeds(ids, lengths, settings).items() if not k.startswith("noise_")}
            feeds.update(inputs.feeds(ids, lengths, 0))
            samples += session.run(["output"], feeds)[0].size
        return samples / model.sample_rate, time.perf_counter() - started

    run(before, NoiseInputs(()))
    run(after, noise)
    best = {"before": 0.0, "after": 0.0}
    for r in range(args.rounds):
        order = [("before", before, NoiseInputs(())), ("after", after, noise)]
        for name, session, inputs in order if r % 2 == 0 else order[::-1]:
            audio, wall = run(session, inputs)
            best[name] = max(best[name], audio / wall)

    # Determinism: a second, fresh session of the seeded model.
    again = make_session(after_bytes, 1)
    ids = np.asarray(units[0].ids, dtype=np.int64)[None, :]
    lengths = np.array([ids.shape[1]], dtype=np.int64)
    feeds = {k: v for k, v in model.feeds(ids, lengths, settings).items() if not k.startswith("noise_")}
    first = after.run(["output"], {**feeds, **noise.feeds(ids, lengths, 0)})[0]
    second = again.run(["output"], {**feeds, **noise.feeds(ids, lengths, 0)})[0]
    other = again.run(["output"], {**feeds, **noise.feeds(ids, lengths, 1)})[0]
    result = {
        "units": len(units),
        "before_audio_s_per_s": round(best["before"], 2),
        "after_audio_s_per_s": round(best["after"], 2),
        "ratio": round(best["after"] / best["before"], 3),
        "same_seed_identical": bool(first.shape == second.shape and np.array_equal(first, second)),
        "other_seed_differs": bool(first.shape != other.shape or not np.array_equal(first, other)),
    }
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:24} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
