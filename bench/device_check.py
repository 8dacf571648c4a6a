"""``make gpu-check``: the prepared check a machine with a GPU runs (a few minutes), the same
here on the CPU provider.

    python bench/device_check.py [--device auto|cuda|cuda:N|cpu] [--lines 16] [--tests PATH ...]
                                 [--no-tests] [--json]

1. Every device test (``pytest -m device``) on the device under test (RADIOPLAY_TEST_DEVICE,
   tests/support/device.py): the binding path, the device pool, /metrics, on the GPU itself.
2. Throughput in audio seconds per wall second on the same lines of the bundled sample (its
   Kokoro and Piper roles both): ``render`` (render_project on ``make_synthesizer(device=...)``,
   as ``radioplay render --device`` runs it) and ``serve`` (``radioplay serve --device`` in
   this process, every line POSTed to /tts at once from eight clients), each on the device and
   on the CPU provider in the same run, and the device's raw ceiling: the bare session of each
   voice on the same lines, no scheduler, no binding, no shaping.
3. The ratios: device over CPU provider, and device over its ceiling, for render and serve.

Each engine runs a line before its timing (CUDA's kernels and ONNX Runtime's arenas are made
on a first run), and each serve run has a fresh clip cache, so every line is synthesized.
Prints a table and the JSON (``--json``: the JSON only) and writes the JSON to
``$OUT/gpu-check.json`` when OUT is set. Where no GPU answers, ``auto`` takes the CPU and the
JSON says why: the same form, with ratios near 1. A device asked for by name that is not here
is one line and exit status 1; so is a failed device test (after the measurements).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine import benchmark  # noqa: E402
from engine.export.render import render_project  # noqa: E402
from engine.project.fileformat import load_project, save_project  # noqa: E402
from engine.project.model import Line, Project, Role  # noqa: E402
from engine.serve.server import ServeConfig, start_in_thread  # noqa: E402
from engine.synth.backends.synth_device import SynthDevice, choose_device  # noqa: E402
from engine.synth.clipfolder import CACHE_DIR_ENV  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.pipeline import plan_lines  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer, make_synthesizer  # noqa: E402
from tests.support.device import DEVICE_ENV  # noqa: E402

SAMPLE = REPO / "samples" / "the-last-broadcast.radioplay"
CLIENTS = 8  # serve: lines asked for at once
TESTS_LIMIT_S = 300


def cut_sample(lines: int) -> Project:
    """``lines`` of the sample's spoken lines, taken from each engine's in turn (so a short
    check has both), in script order; its sounds left out (the check measures voices)."""
    project = load_project(SAMPLE)
    by_backend: dict[str, list[Line]] = {}
    for line in project.lines:
        if line.text.strip():
            by_backend.setdefault(project.role(line.role).voice.backend, []).append(line)
    taken: set[str] = set()
    for turn in range(max(map(len, by_backend.values()), default=0)):
        for queue in by_backend.values():
            if turn < len(queue) and len(taken) < lines:
                taken.add(queue[turn].id)
    spoken = [line for line in project.lines if line.id in taken]
    return dataclasses.replace(project, lines=spoken, sounds=[], sound_suggestions=[], revisions=[])


def first_role_of_each_engine(project: Project) -> list[Role]:
    """A role on each engine: an engine's voices share its sessions (Kokoro's styles one model)."""
    return list({role.voice.backend: role for role in reversed(project.cast)}.values())


def warm(synth: ClipSynthesizer, project: Project) -> None:
    """A short line on each engine: the first run of a model on a device makes its kernels."""
    for role in first_role_of_each_engine(project):
        synth.synthesize("Warming up the voice.", role.voice)


def device_tests(device: SynthDevice, paths: list[str]) -> dict[str, Any]:
    """``pytest -m device`` on ``device``, counted from pytest's JUnit XML."""
    with tempfile.TemporaryDirectory(prefix="radioplay-device-tests-") as folder:
        report = Path(folder) / "junit.xml"
        env = {**os.environ, DEVICE_ENV: device.name, "QT_QPA_PLATFORM": "offscreen"}
        started = time.perf_counter()
        try:
            done = subprocess.run([sys.executable, "-m", "pytest", "-m", "device", "-n", "0", "-q",
                                   "-p", "no:cacheprovider", f"--junitxml={report}", *paths],
                                  cwd=REPO, env=env, capture_output=True, text=True, timeout=TESTS_LIMIT_S)
        except subprocess.TimeoutExpired:
            return {"passed": 0, "failed": 0, "skipped": 0, "wall_s": TESTS_LIMIT_S,
                    "problem": f"the device tests ran past {TESTS_LIMIT_S} s"}
        wall = time.perf_counter() - started
        counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        if report.is_file():
            for suite in ElementTree.parse(report).getroot().iter("testsuite"):
                for key in counts:
                    counts[key] += int(suite.get(key, 0))
    failed = counts["failures"] + counts["errors"]
    result: dict[str, Any] = {"passed": counts["tests"] - failed - counts["skipped"], "failed": failed,
                              "skipped": counts["skipped"], "wall_s": round(wall, 1)}
    if done.returncode not in (0, 5) or failed:  # 5: nothing collected, which the counts say
        tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["pytest failed"]
        result["problem"] = tail[0][:300]
    return result


def render_rate(project: Project, path: Path, device: SynthDevice, folder: Path) -> dict[str, Any]:
    """render_project on the device into ``folder``: audio seconds synthesized per second of its synthesis."""
    synth = make_synthesizer(path, project.sample_rate, use_cache=False, device=device)
    warm(synth, project)
    report = render_project(project, synth, folder, project_path=path)
    result = {"audio_s": round(report.audio_seconds_synthesized, 2), "wall_s": round(report.synth_wall_s, 2),
              "audio_s_per_s": round(report.audio_seconds_synthesized / max(report.synth_wall_s, 1e-9), 2)}
    if synth.device_pool is not None:
        traffic, stats = synth.device_pool.traffic(), synth.device_pool.stats()
        result["device_pool"] = {"clips": traffic.clips, "host_copies": traffic.host_copies,
                                 "misses": traffic.misses, "overflows": traffic.overflows,
                                 "high_water_mb": round(stats.high_water_bytes / 2**20, 2)}
    return result


@contextmanager
def fresh_cache(folder: Path) -> Iterator[None]:
    """A clip cache of its own for a serve run: every line synthesized, none found from the last."""
    before = os.environ.get(CACHE_DIR_ENV)
    os.environ[CACHE_DIR_ENV] = str(folder)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(CACHE_DIR_ENV, None)
        else:
            os.environ[CACHE_DIR_ENV] = before


def post(url: str, role: str, text: str) -> float:
    """Audio seconds of one /tts reply (a 16-bit mono WAV: 44 header bytes, then the samples)."""
    request = urllib.request.Request(f"{url}/tts", data=json.dumps({"role": role, "text": text}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=600) as reply:
        body = reply.read()
    rate = int.from_bytes(body[24:28], "little")
    return (len(body) - 44) / 2 / rate


def serve_rate(project: Project, path: Path, device: SynthDevice, folder: Path) -> dict[str, Any]:
    """``radioplay serve --device``, its clip cache in ``folder``: every line POSTed at once from CLIENTS clients."""
    with fresh_cache(folder):
        handle = start_in_thread(ServeConfig(project=path, port=0, metrics_port=0, device=device.name))
        try:
            for role in first_role_of_each_engine(project):
                post(handle.url, role.name, "Warming up the voice.")
            started = time.perf_counter()
            with ThreadPoolExecutor(CLIENTS) as clients:
                audio = sum(clients.map(lambda line: post(handle.url, line.role, line.text), project.lines))
            wall = time.perf_counter() - started
        finally:
            handle.stop()
    return {"audio_s": round(audio, 2), "wall_s": round(wall, 2), "audio_s_per_s": round(audio / wall, 2)}


def ceiling_rate(project: Project, device: SynthDevice) -> dict[str, Any]:
    """The device's raw ceiling: each voice's bare session (ONNX Runtime's defaults on the
    device's providers) on the same lines' phonemes, back to back."""
    synth = benchmark.ceiling_synthesizer(VoiceLibrary(base_dir=SAMPLE.parent), device)
    plans = list(plan_lines(project, synth).values())
    for plan in {p.voice.id: p for p in plans}.values():  # every model once before the timing
        synth.voice(plan.voice).infer(synth.phonemize(plan)[0], plan.settings)
    audio, wall = benchmark.measure_ceiling(plans, synth)
    return {"audio_s": round(audio, 2), "wall_s": round(wall, 2), "audio_s_per_s": round(audio / wall, 2)}


def ratio(a: dict[str, Any], b: dict[str, Any]) -> float:
    return round(a["audio_s_per_s"] / b["audio_s_per_s"], 3) if b["audio_s_per_s"] else 0.0


def run(device: SynthDevice, lines: int, tests: list[str] | None) -> dict[str, Any]:
    import onnxruntime as ort

    cpu = choose_device("cpu")
    project = cut_sample(lines)
    result: dict[str, Any] = {
        "device": {"name": device.name, "asked": device.asked, "reason": device.reason},
        "onnxruntime": ort.__version__, "providers": ort.get_available_providers(),
        "lines": len(project.lines),
        "backends": sorted({project.role(line.role).voice.backend for line in project.lines}),
    }
    if tests is not None:
        result["tests"] = device_tests(device, tests)
    with tempfile.TemporaryDirectory(prefix="radioplay-gpu-check-") as name:
        folder = Path(name)
        path = folder / "check.radioplay"
        save_project(project, path)
        result["ceiling"] = ceiling_rate(project, device)
        for verb, measure in (("render", render_rate), ("serve", serve_rate)):
            on_device = measure(project, path, device, folder / f"{verb}-device")  # a folder each: no clip
            on_cpu = measure(project, path, cpu, folder / f"{verb}-cpu")  # found from the run before
            result[verb] = {"device": on_device, "cpu": on_cpu, "device_over_cpu": ratio(on_device, on_cpu),
                            "device_over_ceiling": ratio(on_device, result["ceiling"])}
    return result


def format_table(result: dict[str, Any]) -> str:
    device = result["device"]
    rows = [f"synthesis on {device['name']} ({device['reason']}); {result['lines']} lines "
            f"({', '.join(result['backends'])})"]
    if "tests" in result:
        tests = result["tests"]
        rows.append(f"device tests: {tests['passed']} passed, {tests['failed']} failed, {tests['skipped']} skipped "
                    f"in {tests['wall_s']} s" + (f" ({tests['problem']})" if "problem" in tests else ""))
    rows.append(f"{'audio-s/s':<10}{'device':>10}{'cpu':>10}{'dev/cpu':>10}{'dev/ceiling':>13}")
    for verb in ("render", "serve"):
        r = result[verb]
        rows.append(f"{verb:<10}{r['device']['audio_s_per_s']:>10}{r['cpu']['audio_s_per_s']:>10}"
                    f"{r['device_over_cpu']:>10}{r['device_over_ceiling']:>13}")
    rows.append(f"{'ceiling':<10}{result['ceiling']['audio_s_per_s']:>10}")
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N (default auto)")
    parser.add_argument("--lines", type=int, default=16, help="lines of the sample to voice (default 16)")
    parser.add_argument("--tests", nargs="+", default=["tests"], metavar="PATH",
                        help="where the device tests are collected (default tests)")
    parser.add_argument("--no-tests", action="store_true", help="measure only")
    parser.add_argument("--json", action="store_true", help="print the JSON only")
    args = parser.parse_args()
    if args.lines < 1:
        print("gpu-check: error: --lines must be at least 1", file=sys.stderr)
        return 1
    try:
        device = choose_device(args.device)
    except ValueError as exc:
        print(f"gpu-check: error: {exc}", file=sys.stderr)
        return 1
    result = run(device, args.lines, None if args.no_tests else args.tests)
    text = json.dumps(result)
    print(text if args.json else f"{format_table(result)}\n{text}")
    if os.environ.get("OUT"):
        out = Path(os.environ["OUT"]) / "gpu-check.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        partial = out.with_suffix(".json.partial")
        partial.write_text(text + "\n")
        partial.replace(out)  # whole or not at all
    tests = result.get("tests", {})
    return 1 if tests.get("failed") or "problem" in tests else 0


if __name__ == "__main__":
    sys.exit(main())
