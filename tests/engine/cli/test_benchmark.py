"""`radioplay bench`: the JSON contract and the workload, on the real voice."""

from __future__ import annotations

import json
import math
import os

import pytest

from engine import benchmark
from engine.cli import main
from tests.support.paths import BENCH


def test_workload_is_seeded_distinct_and_mixed():
    cast = benchmark.make_cast(8, "en_US-joe-medium")
    a = benchmark.make_workload(200, cast, seed=7)
    assert a == benchmark.make_workload(200, cast, seed=7)
    assert a != benchmark.make_workload(200, cast, seed=8)
    assert len({w.text for w in a}) == 200
    assert cast.leads == {"ROLE1", "ROLE5"} and 0 < sum(w.lead for w in a) < 200
    lengths = [len(w.text.split()) for w in a]
    assert min(lengths) < 15 < max(lengths)  # short and long lines


def test_the_workload_casts_as_an_import_does():
    # The bench measures the shaping an imported play needs: pitch within ±1.5 st
    # (the old table's -7..+4.5 st shifts made pitch shifting cost more than any cast does).
    from engine.project.starting_voices import PITCHES, SPEEDS, VARIATIONS, starting_voice

    cast = benchmark.make_cast(8, "en_US-joe-medium")
    for i, name in enumerate(cast.names):
        voice = cast.voices[name]
        assert voice == starting_voice(i, voice.with_changes(pitch=0.0, speed=1.0, variation=1.0))[0]
        assert voice.pitch in PITCHES and voice.speed in SPEEDS and voice.variation in VARIATIONS
    assert len({(v.pitch, v.speed, v.variation) for v in cast.voices.values()}) == 8


def test_decision_cost_is_measured():
    assert 0 < benchmark.decision_cost_ms(n=2000, repeats=3) < 1000


@pytest.mark.integration
def test_bench_json_contract(capsys):
    # The benchmark's code path on a tiny workload (two of the four lines a lead's) and a given
    # batch size: the contract depends on neither, the batch measurement (BatchSizer.measure) is
    # tested in tests/engine/sched, and the full run is `make bench`.
    assert main(["bench", "--requests", "4", "--roles", "2", "--concurrency", "4", "--batch", "1", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) >= {"policies", "ceiling_audio_s_per_s", "scheduler_decision_ms_10k", "unserved", "ratios"}
    assert set(result["policies"]) == {"fifo", "role-priority"}
    for policy in result["policies"].values():
        assert set(policy) >= {"mean_ms", "p50_ms", "p95_ms", "p99_ms", "lead_p95_ms",
                               "throughput_audio_s_per_s", "completed"}
        assert policy["completed"] == 4
        assert policy["p50_ms"] <= policy["p95_ms"] <= policy["p99_ms"]
    assert result["unserved"] == 0
    assert set(result["ratios"]) >= {"lead_p95_priority_over_fifo", "throughput_over_ceiling"}
    assert all(math.isfinite(v) and v > 0 for v in result["ratios"].values())
    assert result["ceiling_audio_s_per_s"] > 0 and result["scheduler_decision_ms_10k"] > 0
    assert result["batch"] == {"chosen": 1, "measured": False, "measured_audio_s_per_s": {}}
    assert result["workload"] == {"requests": 4, "roles": 2, "concurrency": 4, "seed": 7, "lead_requests": 2}


def test_bench_refuses_a_batch_below_one(capsys):
    assert main(["bench", "--batch", "0"]) == 1
    err = capsys.readouterr().err.strip()
    assert "--batch" in err and "at least 1" in err and len(err.splitlines()) == 1


@pytest.mark.integration
def test_gpu_check_runs_on_the_cpu_twin():
    """bench/gpu_check.py is the prepared GPU script; its CPU twin runs here, on a few lines
    of the sample (the path is the same for every line; the whole sample is the GPU run's)."""
    import subprocess
    import sys

    script = BENCH / "gpu_check.py"
    done = subprocess.run([sys.executable, str(script), "--device", "cpu", "--batches", "1,2", "--lines", "6", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["device"] == "cpu" and set(result["batches"]) == {"1", "2"} and result["units"] >= 6
    for size in result["batches"].values():
        assert size["audio_s_per_s"] > 0 and 0.0 <= size["pool_fragmentation"] < 1.0
        assert size["pool_used_mb"] > 0
    assert result["best_batch"] in (1, 2)


@pytest.mark.integration
def test_make_gpu_check_prints_and_writes_its_json_on_the_cpu_provider(tmp_path):
    """bench/device_check.py (make gpu-check) in the form a GPU machine runs it, here on the CPU:
    the device tests counted, render and serve on the device and the CPU provider, the ceiling,
    the ratios, and the JSON in $OUT."""
    import subprocess
    import sys

    from engine.synth.backends.synth_device import choose_device

    env = {**os.environ, "OUT": str(tmp_path)}
    done = subprocess.run([sys.executable, str(BENCH / "device_check.py"), "--lines", "2",
                           "--tests", "tests/engine/memory/test_device_pool.py"],
                          capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, done.stderr
    written = json.loads((tmp_path / "gpu-check.json").read_text())
    assert done.stdout.strip().splitlines()[-1] == json.dumps(written)  # the table, then the same JSON
    auto = choose_device("auto")
    assert written["device"] == {"name": auto.name, "asked": "auto", "reason": auto.reason}
    assert written["lines"] == 2 and written["backends"] == ["kokoro", "piper"]
    assert written["tests"]["passed"] == 7 and written["tests"]["failed"] == 0
    for verb in ("render", "serve"):
        on_device, on_cpu = written[verb]["device"], written[verb]["cpu"]
        assert on_device["audio_s"] > 1.0  # the same lines voiced on both
        assert on_device["audio_s"] == pytest.approx(on_cpu["audio_s"], rel=0.05)
        assert written[verb]["device_over_cpu"] == pytest.approx(
            on_device["audio_s_per_s"] / on_cpu["audio_s_per_s"], abs=0.01)
        assert written[verb]["device_over_ceiling"] > 0
    pool = written["render"]["device"]["device_pool"]
    assert pool["clips"] == pool["host_copies"] > 0 and pool["high_water_mb"] > 0


def test_make_gpu_check_on_a_gpu_that_is_not_here_is_one_line():
    import subprocess
    import sys

    from engine.synth.backends.synth_device import cuda_offered

    if cuda_offered():
        pytest.skip("ONNX Runtime offers CUDA here")
    done = subprocess.run([sys.executable, str(BENCH / "device_check.py"), "--device", "cuda"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("gpu-check: error: --device cuda: onnxruntime ")


def test_bench_on_a_gpu_that_is_not_here_is_one_line(capsys):
    from engine.synth.backends.synth_device import cuda_offered

    if cuda_offered():
        pytest.skip("ONNX Runtime offers CUDA here")
    assert main(["bench", "--requests", "1", "--device", "cuda:1", "--json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("radioplay: error: --device cuda:1: onnxruntime ")
    assert main(["bench", "--requests", "1", "--device", "tpu", "--json"]) == 1
    assert capsys.readouterr().err == ("radioplay: error: --device 'tpu': expected auto, cpu, cuda or cuda:N\n")
