"""Prometheus text exposition of a :class:`~engine.metrics.hub.MetricsHub`.

Why a custom collector: the hub already owns every number (in bounded rings, under its lock), so
rather than mirroring each write into prometheus_client's own metric objects, a collector reads the
hub at scrape time, on whatever thread serves the scrape (``radioplay serve``'s HTTP thread).

``prometheus_client`` is imported inside the functions only: the CLI and the GUI import the engine
without paying for it unless they serve metrics.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry
    from prometheus_client.metrics_core import Metric

    from engine.metrics.hub import MetricsHub


class HubCollector:
    """Yields the hub's current state as metric families; registered by :func:`prometheus_registry`."""

    def __init__(self, hub: MetricsHub) -> None:
        self.hub = hub

    def collect(self) -> Iterator[Metric]:
        from prometheus_client.core import (
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
            InfoMetricFamily,
        )

        snap = self.hub.snapshot()
        histograms = self.hub.histograms()

        priority = GaugeMetricFamily("radioplay_role_priority", "Current scheduling priority of a role.",
                                     labels=["role"])
        for role, value in snap.current_priority.items():
            priority.add_metric([role], value)
        yield priority

        depth = GaugeMetricFamily("radioplay_queue_depth", "Requests waiting per role.", labels=["role"])
        for role, n in snap.queue_depth_now.items():
            depth.add_metric([role], n)
        yield depth

        latency = HistogramMetricFamily("radioplay_request_latency_seconds",
                                        "End-to-end request latency.", labels=["role", "policy"])
        requests = CounterMetricFamily("radioplay_requests", "Finished requests.", labels=["role", "policy"])
        waits = CounterMetricFamily("radioplay_queue_wait_seconds", "Total time requests spent queued.",
                                    labels=["role", "policy"])
        synth = CounterMetricFamily("radioplay_synthesis_seconds", "Total synthesis time of requests.",
                                    labels=["role", "policy"])
        for h in histograms:
            cumulative = h.counts.cumsum()
            bounds = [repr(float(b)) for b in h.upper_bounds_s] + ["+Inf"]
            buckets = [(le, float(c)) for le, c in zip(bounds, cumulative, strict=True)]
            latency.add_metric([h.role, h.policy], buckets, h.sum_s)
            requests.add_metric([h.role, h.policy], h.count)
            waits.add_metric([h.role, h.policy], h.queue_wait_sum_s)
            synth.add_metric([h.role, h.policy], h.synth_sum_s)
        yield from (latency, requests, waits, synth)

        yield CounterMetricFamily("radioplay_synthesized_audio_seconds", "Seconds of audio synthesized.",
                                  value=snap.audio_seconds_total)

        anomalies = CounterMetricFamily("radioplay_anomalies", "Requests flagged as latency anomalies.",
                                        labels=["origin"])
        for origin, n in snap.anomalies_by_origin.items():
            anomalies.add_metric([origin], n)
        yield anomalies

        busy = GaugeMetricFamily("radioplay_device_busy_ratio", "Fraction of time a device is busy.",
                                 labels=["device"])
        for device, fraction in snap.device_busy.items():
            busy.add_metric([device], fraction)
        yield busy

        batches = CounterMetricFamily("radioplay_device_batches", "Batches run per device.", labels=["device"])
        items = CounterMetricFamily("radioplay_device_batch_items", "Requests run in batches per device.",
                                    labels=["device"])
        for device, d in snap.device_batches.items():
            batches.add_metric([device], d.batches)
            items.add_metric([device], d.items)
        yield from (batches, items)

        pool_bytes = GaugeMetricFamily("radioplay_pool_bytes", "Memory pool bytes by state.",
                                       labels=["pool", "state"])
        fragmentation = GaugeMetricFamily("radioplay_pool_fragmentation", "Memory pool fragmentation (0-1).",
                                          labels=["pool"])
        for pool, p in snap.pools.items():
            pool_bytes.add_metric([pool, "used"], p.used_bytes)
            pool_bytes.add_metric([pool, "free"], p.free_bytes)
            pool_bytes.add_metric([pool, "largest_free"], p.largest_free_bytes)
            pool_bytes.add_metric([pool, "high_water"], p.high_water_bytes)
            fragmentation.add_metric([pool], p.fragmentation)
        yield from (pool_bytes, fragmentation)

        synthesis = snap.synthesis_device
        if synthesis.name:
            info = InfoMetricFamily("radioplay_synthesis_device", "Where synthesis runs, what was asked and why.",
                                    labels=["device", "asked", "reason"])
            info.add_metric([synthesis.name, synthesis.asked, synthesis.reason], {})
            yield info
        traffic = snap.device_traffic
        yield CounterMetricFamily("radioplay_device_pool_clips", "Clips landed from the device pool on the host.",
                                  value=traffic.clips)
        yield CounterMetricFamily("radioplay_device_pool_host_copies",
                                  "Device-to-host copies of clips (one per clip).", value=traffic.host_copies)
        yield CounterMetricFamily("radioplay_device_pool_host_bytes", "Bytes copied from the device pool to the host.",
                                  value=traffic.bytes_to_host)
        yield CounterMetricFamily("radioplay_device_pool_misses",
                                  "Device reservations the length predictor made too small.", value=traffic.misses)

        yield GaugeMetricFamily("radioplay_length_prediction_p90_error",
                                "90th percentile relative error of audio length predictions.",
                                value=snap.predictor["p90_error"])
        yield CounterMetricFamily("radioplay_length_prediction_misses", "Length predictions that missed.",
                                  value=snap.predictor["misses"])
        yield CounterMetricFamily("radioplay_length_prediction_observations", "Length predictions checked.",
                                  value=snap.predictor["observations"])


def prometheus_registry(hub: MetricsHub) -> CollectorRegistry:
    """A fresh registry holding only the hub's collector (no process/platform collectors)."""
    from prometheus_client import CollectorRegistry

    registry = CollectorRegistry()
    registry.register(HubCollector(hub))
    return registry


def exposition(hub: MetricsHub) -> bytes:
    """The hub in the Prometheus text format, as served at ``/metrics``."""
    from prometheus_client import generate_latest

    return generate_latest(prometheus_registry(hub))
