"""`radioplay bench`: the scheduler's policies side by side, in one run.

The same seeded workload (a busy rehearsal: lead and minor roles, short and
long lines, a burst of concurrent submissions) runs through ``fifo`` and
``role-priority`` on the real bundled voice, each with a cold cache, next to
the raw single-session ONNX ceiling measured in the same run on the same
lines. Ratios, not absolute numbers, are what the targets are about: shared
machines are noisy, and both sides of a ratio see the same machine.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.metrics.hub import MetricsHub
from engine.project.model import VoiceParams
from engine.project.starting_voices import starting_voice
from engine.sched.batching import DEVICE_CANDIDATES, BatchSizer
from engine.sched.policy import PendingArrays, Playhead, make_policy
from engine.sched.request import Origin, request_for
from engine.sched.scheduler import Scheduler
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.backends.synth_device import SynthDevice, layout_for
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer

RATE = 48_000
_WORDS = ("storm harbour lantern signal morning letter window station ferry captain whisper river "
          "promise thunder garden engine silver ticket bridge candle voice shadow winter summer "
          "kitchen doctor stranger message minute quiet broken golden distant careful sudden "
          "the a of and to in we you they never always tonight tomorrow again here there "
          "listen wait remember believe carry follow answer open close hold find").split()


@dataclass(frozen=True)
class WorkItem:
    role: str
    text: str
    lead: bool


@dataclass(frozen=True)
class Cast:
    names: list[str]
    leads: set[str]
    voices: dict[str, VoiceParams]
    weights: dict[str, float]


def make_cast(roles: int, voice: str) -> Cast:
    """A cast like an imported play: every fourth role is a lead (weight 3), and the
    roles on one voice told apart as an import tells them (engine/project/starting_voices.py:
    pitch within ±1.5 semitones, speed, variation)."""
    names = [f"ROLE{i + 1}" for i in range(roles)]
    leads = {n for i, n in enumerate(names) if i % 4 == 0}
    voices = {n: starting_voice(i, VoiceParams(voice=voice))[0] for i, n in enumerate(names)}
    weights = {n: 3.0 if n in leads else 1.0 for n in names}
    return Cast(names, leads, voices, weights)


def make_workload(requests: int, cast: Cast, seed: int = 7) -> list[WorkItem]:
    """Seeded lines: 70 % short (4-12 words), 30 % long (2-3 sentences); all distinct."""
    rng = random.Random(seed)
    items = []
    for i in range(requests):
        role = rng.choice(cast.names)
        sentences = 1 if rng.random() < 0.7 else rng.randint(2, 3)
        parts = []
        for _ in range(sentences):
            words = [rng.choice(_WORDS) for _ in range(rng.randint(4, 12))]
            parts.append(" ".join(words).capitalize() + rng.choice(".?!"))
        items.append(WorkItem(role, f"{' '.join(parts)} Take {i}.", role in cast.leads))
    return items


def measure_ceiling(plans: list[ClipPlan], synth: ClipSynthesizer) -> tuple[float, float]:
    """(model seconds, wall seconds) of one default ONNX session running the
    plans' phoneme ids back to back: the raw single-session ceiling."""
    jobs: list[tuple[Any, Any, Any]] = []
    for plan in plans:
        model = synth.voice(plan.voice)
        jobs.extend((model, unit, plan.settings) for unit in model.phonemize(list(plan.prepared.units)))
    model, unit, settings = jobs[0]
    model.infer(unit, settings)  # warm-up: the first run allocates ORT's arenas
    samples = 0
    started = time.perf_counter()
    for model, unit, settings in jobs:
        samples += model.infer(unit, settings).shape[0]
    return samples / jobs[0][0].sample_rate, time.perf_counter() - started


def ceiling_synthesizer(library: VoiceLibrary, device: SynthDevice | None = None) -> ClipSynthesizer:
    """One session on every core, its threads spinning (ONNX Runtime's defaults), run plainly on the
    device's providers: what a plain Piper integration runs there, the device's raw ceiling."""
    providers = device.providers if device is not None else None
    return ClipSynthesizer(library, RATE, ClipCache(), SessionLayout(spin=True), providers)


def fresh_synthesizer(library: VoiceLibrary, device: SynthDevice | None = None) -> ClipSynthesizer:
    """What the scheduler runs on (the device's sessions, its runs bound there: one
    single-threaded session per core on the CPU), with a cold in-memory cache so every
    run synthesizes everything."""
    return ClipSynthesizer(library, RATE, ClipCache(), layout_for(device), device=device)


def decision_cost_ms(n: int = 10_000, repeats: int = 20, seed: int = 1) -> float:
    """Median time of one re-prioritization + pick over ``n`` pending requests."""
    rng = np.random.default_rng(seed)
    arrays = PendingArrays(rng.uniform(0.5, 3, n), rng.integers(0, 5, n), rng.integers(0, 3, n),
                           rng.uniform(0, 100, n), rng.uniform(0, 10, n), rng.integers(0, 8, n))
    policy = make_policy("role-priority")
    playhead = Playhead(10.0, True, 5.0)
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        int(np.argmax(policy.scores(arrays, 11.0, playhead)))
        times.append(time.perf_counter() - started)
    return float(np.median(times) * 1000)


def calibrate_batch(cast: Cast, library: VoiceLibrary, device: SynthDevice | None = None) -> BatchSizer:
    """Measure the batch size on this device (the start-up measurement)."""
    synth = fresh_synthesizer(library, device)
    text = ("Yes. A line of middling length, to see how batches run here. "
            "And a much longer sentence, the kind a narrator reads, with a clause or two in it, "
            "so that padding the short ones costs what it costs in real work. No?")
    plan = synth.plan(text, cast.voices[cast.names[0]])
    sizer = BatchSizer(DEVICE_CANDIDATES) if device is not None and device.kind != "cpu" else BatchSizer()
    sizer.measure(synth.voice(plan.voice), plan.settings, synth.phonemize(plan) * 4)
    return sizer


def run_policy(policy: str, work: list[WorkItem], cast: Cast, library: VoiceLibrary,
               concurrency: int, batch_size: int = 1, device: SynthDevice | None = None) -> dict[str, Any]:
    """Submit the workload (at most ``concurrency`` in flight) and time every request."""
    synth = fresh_synthesizer(library, device)
    warm = synth.plan("Warming up the voice.", cast.voices[cast.names[0]])
    synth.voice(warm.voice).infer(synth.phonemize(warm)[0], warm.settings)
    plans = [request_for(synth, w.text, w.role, cast.voices[w.role], weight=cast.weights[w.role],
                         origin=Origin.SERVICE) for w in work]
    hub = MetricsHub()
    latencies: list[float | None] = [None] * len(work)
    gate = threading.Semaphore(concurrency)
    finished = threading.Event()
    remaining = [len(work)]
    lock = threading.Lock()

    def on_done(index: int, submitted: float) -> Callable[[Any], None]:
        def done(future: Any) -> None:
            if not future.cancelled() and future.exception() is None:
                latencies[index] = time.perf_counter() - submitted
            gate.release()
            with lock:
                remaining[0] -= 1
                if remaining[0] == 0:
                    finished.set()
        return done

    with Scheduler(synth, make_policy(policy), metrics=hub, batch=BatchSizer(fixed=batch_size),
                   capacity=max(256, len(work))) as scheduler:
        started = time.perf_counter()
        for index, request in enumerate(plans):
            gate.acquire()
            submitted = time.perf_counter()
            scheduler.submit(request, timeout=60.0).add_done_callback(on_done(index, submitted))
        finished.wait(timeout=600)
        wall = time.perf_counter() - started
        stats = scheduler.stats()
    done = [x for x in latencies if x is not None]
    lead = [x for x, w in zip(latencies, work, strict=True) if x is not None and w.lead]

    def pct(values: list[float], q: float) -> float:
        return round(float(np.percentile(values, q)) * 1000, 1) if values else float("nan")

    return {
        "mean_ms": round(float(np.mean(done)) * 1000, 1) if done else float("nan"),
        "p50_ms": pct(done, 50), "p95_ms": pct(done, 95), "p99_ms": pct(done, 99),
        "lead_p95_ms": pct(lead, 95),
        "throughput_audio_s_per_s": round(stats.model_seconds / wall, 3),
        "completed": len(done),
        "wall_s": round(wall, 2),
        "anomalies": hub.snapshot().anomalies,
    }


def run(requests: int = 200, roles: int = 8, concurrency: int = 200, seed: int = 7,
        progress: Callable[[str], None] | None = None, batch: int | None = None,
        device: SynthDevice | None = None) -> dict[str, Any]:
    """``batch``: run batches of that size instead of measuring the best one first (the
    measurement voices a long text 33 times: two thirds of a 12-request run). ``device``:
    where the scheduler's synthesis and the ceiling's bare session run (the CPU without)."""
    library = VoiceLibrary()
    voice = library.bundled()[0].id if library.bundled() else "en_US-joe-medium"
    cast = make_cast(roles, voice)
    work = make_workload(requests, cast, seed)
    say = progress or (lambda _msg: None)

    say("measuring the raw ONNX ceiling")
    ceiling_synth = ceiling_synthesizer(library, device)
    sample = work[: max(20, len(work) // 4)]
    ceiling_plans = [ceiling_synth.plan(w.text, cast.voices[w.role]) for w in sample]
    model_s, wall = measure_ceiling(ceiling_plans, ceiling_synth)
    ceiling = model_s / wall
    if batch is None:
        say("measuring batch sizes on this device")
        sizer = calibrate_batch(cast, library, device)
    else:
        sizer = BatchSizer(fixed=batch)
    policies: dict[str, dict[str, Any]] = {}
    ceilings = [ceiling]
    for name in ("fifo", "role-priority"):
        say(f"running {requests} requests through {name}")
        policies[name] = run_policy(name, work, cast, library, concurrency, sizer.size, device)
        # Between and after the runs again: on a shared machine one session on
        # every core varies a lot (18-24 audio-s/s seen minutes apart); the
        # best of three keeps noise from flattering the throughput ratio.
        model_s, wall = measure_ceiling(ceiling_plans, ceiling_synth)
        ceilings.append(model_s / wall)
    ceiling = max(ceilings)
    unserved = sum(requests - p["completed"] for p in policies.values())
    fifo, prio = policies["fifo"], policies["role-priority"]
    return {
        "policies": policies,
        "ceiling_audio_s_per_s": round(ceiling, 3),
        "ceiling_runs_audio_s_per_s": [round(c, 3) for c in ceilings],
        "scheduler_decision_ms_10k": round(decision_cost_ms(), 3),
        "unserved": unserved,
        "ratios": {
            "lead_p95_priority_over_fifo": round(prio["lead_p95_ms"] / fifo["lead_p95_ms"], 3),
            "throughput_over_ceiling": round(prio["throughput_audio_s_per_s"] / ceiling, 3),
        },
        "batch": {"chosen": sizer.size, "measured": not sizer.fixed,
                  "measured_audio_s_per_s": {str(k): round(v, 2) for k, v in sizer.measured_audio_s_per_s().items()}},
        "device": {"name": device.name, "asked": device.asked, "reason": device.reason} if device else
                  {"name": "cpu", "asked": "", "reason": "plain CPU sessions"},
        "workload": {"requests": requests, "roles": roles, "concurrency": concurrency, "seed": seed,
                     "lead_requests": sum(1 for w in work if w.lead)},
    }


def format_report(result: dict[str, Any]) -> str:
    rows = [("mean_ms", "mean ms"), ("p50_ms", "p50 ms"), ("p95_ms", "p95 ms"), ("p99_ms", "p99 ms"),
            ("lead_p95_ms", "lead p95 ms"), ("throughput_audio_s_per_s", "audio-s / s"),
            ("completed", "completed"), ("wall_s", "wall s")]
    fifo, prio = result["policies"]["fifo"], result["policies"]["role-priority"]
    w = result["workload"]
    lines = [f"workload: {w['requests']} requests, {w['roles']} roles ({w['lead_requests']} lead-role requests), "
             f"concurrency {w['concurrency']}, seed {w['seed']}",
             f"synthesis on {result['device']['name']} ({result['device']['reason']})", "",
             f"{'':<14}{'fifo':>12}{'role-priority':>16}"]
    for key, label in rows:
        lines.append(f"{label:<14}{fifo[key]:>12}{prio[key]:>16}")
    r = result["ratios"]
    lines += ["", f"raw single-session ONNX ceiling  {result['ceiling_audio_s_per_s']} audio-s/s",
              f"scheduler decision, 10k pending  {result['scheduler_decision_ms_10k']} ms",
              f"{'batch size (measured here)' if result['batch']['measured'] else 'batch size (--batch)':<33}"
              f"{result['batch']['chosen']}  "
              f"(model audio-s/s by size: {result['batch']['measured_audio_s_per_s']})",
              f"unserved requests                {result['unserved']}",
              f"lead p95, priority / fifo        {r['lead_p95_priority_over_fifo']}  (target <= 0.35)",
              f"throughput / ceiling             {r['throughput_over_ceiling']}  (target >= 0.9)"]
    return "\n".join(lines)
