"""Prometheus exposition of the hub, checked by parsing it back with prometheus_client's parser."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from engine.metrics.hub import LATENCY_EDGES_S, MetricsHub
from engine.metrics.prometheus import exposition, prometheus_registry


def families(hub: MetricsHub) -> dict[str, list[Sample]]:
    text = exposition(hub).decode("utf-8")
    return {f.name: list(f.samples) for f in text_string_to_metric_families(text)}


def value(samples: list[Sample], name: str, **labels: str) -> float:
    found = [s.value for s in samples if s.name == name and s.labels == labels]
    assert len(found) == 1, (name, labels, samples)
    return float(found[0])


@pytest.fixture
def hub() -> MetricsHub:
    hub = MetricsHub(clock=lambda: 100.0)
    hub.set_role_priority("AMY", 2.5)
    hub.set_role_priority("BO", -1.0)
    hub.set_queue_depth("AMY", 7)
    for latency in (0.004, 0.1, 0.1, 0.3, 2.0, 90.0):
        hub.record_request("AMY", "gui", "fast", 0.01, 0.05, latency, 1.25)
    for _ in range(60):
        hub.record_request("BO", "batch", "bulk", 0.0, 0.1, 0.1, 0.5)
    assert hub.record_request("BO", "batch", "bulk", 0.0, 0.1, 1.0, 0.5)  # an anomaly
    hub.set_device_busy("cuda:0", 0.625)
    hub.record_batch("cuda:0", 4, 0.2)
    hub.set_pool_stats("cuda:0", used_bytes=1000, free_bytes=3000, largest_free_bytes=2048, fragmentation=0.3)
    hub.set_predictor(p90_error=0.08, misses=2, observations=50)
    return hub


def test_role_gauges(hub: MetricsHub) -> None:
    fam = families(hub)
    assert value(fam["radioplay_role_priority"], "radioplay_role_priority", role="AMY") == 2.5
    assert value(fam["radioplay_role_priority"], "radioplay_role_priority", role="BO") == -1.0
    assert value(fam["radioplay_queue_depth"], "radioplay_queue_depth", role="AMY") == 7


def test_latency_histograms_are_cumulative_and_match_counts(hub: MetricsHub) -> None:
    samples = families(hub)["radioplay_request_latency_seconds"]
    name = "radioplay_request_latency_seconds"
    for role, policy, n, total in (("AMY", "fast", 6, 0.004 + 0.2 + 0.3 + 2.0 + 90.0), ("BO", "bulk", 61, 7.0)):
        buckets = [s for s in samples if s.name == name + "_bucket"
                   and s.labels["role"] == role and s.labels["policy"] == policy]
        les = [float(s.labels["le"]) for s in buckets]
        assert les == [*LATENCY_EDGES_S.tolist(), math.inf]
        counts = [s.value for s in buckets]
        assert counts == sorted(counts), "buckets must be cumulative"
        assert counts[-1] == n == value(samples, name + "_count", role=role, policy=policy)
        assert value(samples, name + "_sum", role=role, policy=policy) == pytest.approx(total)
    amy = {float(s.labels["le"]): s.value for s in samples
           if s.name == name + "_bucket" and s.labels["role"] == "AMY"}
    assert amy[0.005] == 1  # 4 ms
    assert amy[0.131] == 3  # + two of 100 ms
    assert amy[0.447] == 4  # + 300 ms
    assert amy[60.0] == 5 and amy[math.inf] == 6  # 90 s only in +Inf


def test_counters(hub: MetricsHub) -> None:
    fam = families(hub)
    # prometheus_client names counter families without the _total its samples carry
    assert value(fam["radioplay_synthesized_audio_seconds"], "radioplay_synthesized_audio_seconds_total") \
        == pytest.approx(6 * 1.25 + 61 * 0.5)
    reqs = fam["radioplay_requests"]
    assert value(reqs, "radioplay_requests_total", role="AMY", policy="fast") == 6
    assert value(reqs, "radioplay_requests_total", role="BO", policy="bulk") == 61
    assert value(fam["radioplay_anomalies"], "radioplay_anomalies_total", origin="batch") == 1
    assert not [s for s in fam["radioplay_anomalies"] if s.labels.get("origin") == "gui"]
    assert value(fam["radioplay_queue_wait_seconds"], "radioplay_queue_wait_seconds_total",
                 role="AMY", policy="fast") == pytest.approx(0.06)
    assert value(fam["radioplay_device_batches"], "radioplay_device_batches_total", device="cuda:0") == 1


def test_device_pool_and_predictor_gauges(hub: MetricsHub) -> None:
    fam = families(hub)
    assert value(fam["radioplay_device_busy_ratio"], "radioplay_device_busy_ratio", device="cuda:0") == 0.625
    pool = fam["radioplay_pool_bytes"]
    assert value(pool, "radioplay_pool_bytes", pool="cuda:0", state="used") == 1000
    assert value(pool, "radioplay_pool_bytes", pool="cuda:0", state="free") == 3000
    assert value(pool, "radioplay_pool_bytes", pool="cuda:0", state="largest_free") == 2048
    assert value(fam["radioplay_pool_fragmentation"], "radioplay_pool_fragmentation", pool="cuda:0") == 0.3
    assert value(fam["radioplay_length_prediction_p90_error"], "radioplay_length_prediction_p90_error") == 0.08


def test_registry_reads_the_hub_at_scrape_time() -> None:
    from prometheus_client import generate_latest

    hub = MetricsHub(clock=lambda: 0.0)
    registry = prometheus_registry(hub)
    assert b'role="AMY"' not in generate_latest(registry)
    hub.set_role_priority("AMY", 4.0)
    assert b'radioplay_role_priority{role="AMY"} 4.0' in generate_latest(registry)
    # an empty hub still exposes valid text
    assert "radioplay_role_priority" in {f.name for f in text_string_to_metric_families(
        exposition(MetricsHub()).decode())}


def test_engine_does_not_import_prometheus_client_until_serving() -> None:
    code = ("import sys, engine.metrics.hub, engine.metrics.prometheus\n"
            "assert 'prometheus_client' not in sys.modules, 'imported eagerly'\n"
            "engine.metrics.prometheus.exposition(engine.metrics.hub.MetricsHub())\n"
            "assert 'prometheus_client' in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)
