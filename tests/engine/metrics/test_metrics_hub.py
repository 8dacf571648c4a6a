"""The metrics hub: histograms, percentiles, scrolling grids, snapshots, anomalies, bounded memory."""

from __future__ import annotations

import threading
import tracemalloc

import numpy as np
import pytest

from engine.metrics.anomaly import AnomalyDetector
from engine.metrics.hub import LATENCY_EDGES_S, MAX_ROLES, RECENT_LATENCIES, EngineSnapshot, MetricsHub
from engine.metrics.rings import OTHER_ROW

COL = 0.05


class FakeClock:
    def __init__(self, t: float = 1000.0 + COL / 2) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, columns: int) -> None:
        self.t += columns * COL


def request(hub: MetricsHub, e2e: float, role: str = "AMY", origin: str = "gui", policy: str = "fast",
            audio: float = 1.0) -> bool:
    return hub.record_request(role, origin, policy, queue_wait_s=e2e * 0.25, synth_s=e2e * 0.5, e2e_s=e2e,
                              audio_s=audio)


# --------------------------------------------------------------------------- histograms and percentiles


def test_latency_edges_are_log_spaced_5ms_to_60s() -> None:
    assert len(LATENCY_EDGES_S) == 24
    assert LATENCY_EDGES_S[0] == 0.005 and LATENCY_EDGES_S[-1] == 60.0
    ratios = LATENCY_EDGES_S[1:] / LATENCY_EDGES_S[:-1]
    assert np.allclose(ratios, ratios.mean(), rtol=0.01)


def test_histogram_counts_sums_and_bucket_boundaries() -> None:
    hub = MetricsHub(clock=FakeClock())
    edges = LATENCY_EDGES_S
    samples = [0.001, 0.005, 0.0051, 0.1, 0.1, 0.131, 5.0, 61.0, 1000.0]  # 0.005 and 0.131 sit on edges
    for s in samples:
        request(hub, s)
    request(hub, 0.2, policy="batch")
    (fast,) = [h for h in hub.histograms() if h.policy == "fast"]
    assert fast.role == "AMY" and fast.count == len(samples)
    assert fast.sum_s == pytest.approx(sum(samples))
    assert fast.queue_wait_sum_s == pytest.approx(0.25 * sum(samples))
    assert fast.synth_sum_s == pytest.approx(0.5 * sum(samples))
    assert fast.counts.shape == (25,) and fast.counts.sum() == len(samples)
    expected = np.zeros(25, dtype=np.int64)
    for s in samples:  # "le" semantics: a value equal to an edge belongs to that edge's bucket
        expected[int(np.searchsorted(edges, s, side="left"))] += 1
    assert fast.counts.tolist() == expected.tolist()
    assert fast.counts[0] == 2  # 1 ms and exactly 5 ms
    assert fast.counts[-1] == 2  # over 60 s: the +Inf bucket
    assert fast.counts[list(edges).index(0.131)] == 3  # 0.1, 0.1 and exactly 0.131
    (batch,) = [h for h in hub.histograms() if h.policy == "batch"]
    assert batch.count == 1


def test_percentiles_are_exact_over_recent_latencies() -> None:
    hub = MetricsHub(clock=FakeClock())
    amy = np.arange(1, 101) / 1000.0  # 1..100 ms
    for v in amy:
        request(hub, float(v), role="AMY", policy="fast" if v < 0.05 else "batch")
    for v in (0.5, 0.7):
        request(hub, v, role="BO")
    assert hub.latency_percentile(95, "AMY") == pytest.approx(np.percentile(amy, 95))
    assert hub.latency_percentile(50, "AMY", "fast") == pytest.approx(np.percentile(amy[amy < 0.05], 50))
    assert hub.latency_percentile(99, "AMY", "batch") == pytest.approx(np.percentile(amy[amy >= 0.05], 99))
    assert hub.latency_percentile(50) == pytest.approx(np.percentile(np.r_[amy, 0.5, 0.7], 50))
    assert hub.latency_percentile(95, "NOBODY") is None
    assert hub.latency_percentile(95, "AMY", "nope") is None
    with pytest.raises(ValueError):
        hub.latency_percentile(95, policy="fast")
    snap = hub.snapshot()
    assert snap.p95_ms_by_role["AMY"] == pytest.approx(np.percentile(amy, 95) * 1000)
    assert snap.p95_ms_by_role["BO"] == pytest.approx(np.percentile([500, 700], 95))


def test_percentiles_only_see_the_last_ring_of_latencies() -> None:
    hub = MetricsHub(clock=FakeClock())
    for _ in range(5000):
        request(hub, 10.0)  # old and slow
    recent = np.linspace(0.01, 0.02, RECENT_LATENCIES)
    for v in recent:
        request(hub, float(v))
    assert hub.latency_percentile(99, "AMY") == pytest.approx(np.percentile(recent, 99))
    assert hub.snapshot().p95_ms_by_role["AMY"] == pytest.approx(np.percentile(recent, 95) * 1000)
    (h,) = hub.histograms()
    assert h.count == 5000 + RECENT_LATENCIES  # the histogram itself is cumulative forever


# --------------------------------------------------------------------------- time grids and snapshots


def test_priority_and_queue_depth_scroll_with_the_clock() -> None:
    clock = FakeClock()
    hub = MetricsHub(clock=clock, window_s=1.0, column_s=COL)  # 20 columns
    hub.set_role_priority("AMY", 1.0)
    hub.set_queue_depth("AMY", 4)
    clock.advance(3)
    hub.set_role_priority("BO", 2.0)
    hub.set_role_priority("AMY", 3.0)
    hub.set_queue_depth("AMY", 1)
    clock.advance(2)
    snap = hub.snapshot()
    assert snap.roles == ["AMY", "BO"]
    assert snap.priority.shape == (2, 20) and snap.queue_depth.shape == (2, 20)
    # columns oldest -> newest; the last column is "now"
    assert snap.priority[0, -6:].tolist() == [1, 1, 1, 3, 3, 3]
    assert snap.priority[1, -6:].tolist() == [0, 0, 0, 2, 2, 2]
    assert snap.queue_depth[0, -6:].tolist() == [4, 4, 4, 1, 1, 1]
    assert snap.queue_depth[1].sum() == 0  # BO never had a depth: zeros, but same row order
    assert snap.current_priority == {"AMY": 3.0, "BO": 2.0}
    assert snap.queue_depth_now == {"AMY": 1}
    clock.advance(100)  # the whole window later the gauges are held flat
    snap = hub.snapshot()
    assert (snap.priority[0] == 3.0).all() and (snap.priority[1] == 2.0).all()


def test_latency_heat_counts_requests_per_bin_and_column() -> None:
    clock = FakeClock()
    hub = MetricsHub(clock=clock, window_s=1.0, column_s=COL)
    for _ in range(3):
        request(hub, 0.1)
    clock.advance(2)
    request(hub, 2.0)
    request(hub, 100.0)
    snap = hub.snapshot()
    assert snap.latency_bins_ms.tolist() == (LATENCY_EDGES_S * 1000).tolist()
    assert snap.latency_heat.shape == (25, 20)
    b_100ms = int(np.searchsorted(LATENCY_EDGES_S, 0.1))
    b_2s = int(np.searchsorted(LATENCY_EDGES_S, 2.0))
    assert snap.latency_heat[b_100ms, -3] == 3
    assert snap.latency_heat[b_2s, -1] == 1 and snap.latency_heat[-1, -1] == 1
    assert snap.latency_heat.sum() == 5
    clock.advance(40)  # scrolled out
    assert hub.snapshot().latency_heat.sum() == 0


def test_snapshot_contents_and_copies() -> None:
    clock = FakeClock()
    hub = MetricsHub(clock=clock)
    request(hub, 0.3, audio=2.5)
    request(hub, 0.4, role="BO", audio=1.5)
    hub.record_batch("cuda:0", 4, 0.2)
    hub.record_batch("cuda:0", 8, 0.3)
    hub.set_device_busy("cuda:0", 0.75)
    hub.set_pool_stats("cuda:0", used_bytes=100, free_bytes=50, largest_free_bytes=30, fragmentation=0.4)
    hub.set_predictor(p90_error=0.12, misses=3, observations=40)
    hub.set_role_priority("AMY", 5.0)
    snap = hub.snapshot()
    assert isinstance(snap, EngineSnapshot)
    assert snap.t == clock.t and snap.column_s == COL
    assert snap.roles == ["AMY", "BO"] and snap.priority.shape == (2, 600)
    assert snap.requests == 2 and snap.anomalies == 0
    assert snap.audio_seconds_total == pytest.approx(4.0)
    assert snap.device_busy == {"cuda:0": 0.75}
    dev = snap.device_batches["cuda:0"]
    assert (dev.batches, dev.items, dev.recent_max_batch) == (2, 12, 8)
    assert dev.busy_s_total == pytest.approx(0.5) and dev.recent_mean_batch == 6.0
    pool = snap.pools["cuda:0"]
    assert (pool.used_bytes, pool.free_bytes, pool.largest_free_bytes, pool.fragmentation) == (100, 50, 30, 0.4)
    assert snap.predictor == {"p90_error": 0.12, "misses": 3.0, "observations": 40.0}
    # The snapshot is a copy: later writes and edits of its arrays do not leak either way.
    snap.priority[:] = -1
    hub.set_role_priority("AMY", 6.0)
    assert snap.current_priority == {"AMY": 5.0}
    assert hub.snapshot().priority[0, -1] == 6.0
    with pytest.raises(AttributeError):
        snap.requests = 3  # type: ignore[misc]


# --------------------------------------------------------------------------- anomalies


def test_anomaly_flagging_on_a_crafted_stream() -> None:
    hub = MetricsHub(clock=FakeClock())
    assert not request(hub, 5.0, origin="fresh")  # no baseline yet: never flagged
    # 500 samples, so the few probes below stay under 1 % and leave the p99 at 100 ms.
    for _ in range(500):
        assert not request(hub, 0.1, origin="gui")
    assert request(hub, 1.0, origin="gui")  # 10x the p99 and over 200 ms
    assert not request(hub, 0.15, origin="gui")  # 1.5x: under the factor
    assert not request(hub, 0.199, origin="gui")  # > 1.8 x 100 ms but under the 200 ms floor
    assert request(hub, 0.25, origin="gui")  # > 1.8 x 100 ms and over the floor
    # Another origin has its own baseline: 1 s is normal for batch renders.
    for _ in range(100):
        request(hub, 2.0, origin="batch")
    assert not request(hub, 1.0, origin="batch")
    assert request(hub, 4.0, origin="batch")
    snap = hub.snapshot()
    assert snap.anomalies == 3 and snap.anomalies_by_origin == {"gui": 2, "batch": 1}


def test_detector_needs_min_samples_and_adapts() -> None:
    det = AnomalyDetector(factor=1.8, floor_s=0.2, min_samples=50, window=100)
    for _ in range(49):
        det.check("o", 0.1)
    assert det.baseline("o") is None
    assert not det.check("o", 5.0)  # 49 samples before it: too few to judge
    assert det.baseline("o") == pytest.approx(np.percentile([0.1] * 49 + [5.0], 99))
    # Flagged values enter the window: a lasting slowdown becomes the new normal.
    det2 = AnomalyDetector(min_samples=10, window=20)
    for _ in range(20):
        det2.check("o", 0.1)
    flags = [det2.check("o", 1.0) for _ in range(20)]
    assert flags[0] and not flags[-1]
    assert det2.flagged == {"o": sum(flags)} and det2.total_flagged == sum(flags)
    with pytest.raises(ValueError):
        AnomalyDetector(min_samples=10, window=5)


# --------------------------------------------------------------------------- bounds and threads


def _burst(hub: MetricsHub, start: int, n: int) -> None:
    for i in range(start, start + n):
        hub.record_request(f"ROLE{i % 500}", f"origin{i % 300}", f"policy{i % 40}", 0.01, 0.05,
                           0.05 + (i % 97) / 1000.0, 1.0)
        if i % 10 == 0:
            hub.set_role_priority(f"ROLE{i % 500}", float(i % 7))
            hub.set_queue_depth(f"ROLE{i % 500}", i % 13)
            hub.record_batch(f"dev{i % 50}", 1 + i % 8, 0.01)


def test_memory_is_bounded_after_100k_records() -> None:
    clock = FakeClock()
    hub = MetricsHub(clock=clock)
    _burst(hub, 0, 20_000)  # every capped key exists and every ring is full by now
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        for chunk in range(8):
            _burst(hub, 20_000 + chunk * 10_000, 10_000)
            clock.advance(7)
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert grown < 256 * 1024, f"hub grew by {grown} bytes over 80k more records"
    snap = hub.snapshot()
    assert snap.requests == 100_000
    assert len(snap.roles) == MAX_ROLES and snap.roles[-1] == OTHER_ROW
    assert snap.priority.shape == (MAX_ROLES, 600)
    assert len(snap.anomalies_by_origin) <= 256 and len(snap.device_batches) <= 32
    assert sum(h.count for h in hub.histograms()) == 100_000


def test_concurrent_writers_lose_nothing() -> None:
    hub = MetricsHub()
    threads = [threading.Thread(target=_burst, args=(hub, k * 5000, 5000)) for k in range(4)]
    snaps: list[EngineSnapshot] = []
    reader = threading.Thread(target=lambda: snaps.extend(hub.snapshot() for _ in range(50)))
    for t in [*threads, reader]:
        t.start()
    for t in [*threads, reader]:
        t.join()
    assert hub.snapshot().requests == 20_000
    assert sum(h.count for h in hub.histograms()) == 20_000
    assert all(s.requests <= 20_000 for s in snaps)


def test_latency_is_kept_per_origin_so_a_background_prerender_never_reads_as_a_playback_wait() -> None:
    hub = MetricsHub(clock=FakeClock())
    playback = [0.08, 0.1, 0.12, 0.2]
    for e2e in playback:
        request(hub, e2e, role="NARRATOR", origin="playback")
    for e2e in (20.0, 24.6, 30.0):  # the whole project voiced in the background
        request(hub, e2e, role="NARRATOR", origin="prerender")
    request(hub, 0.3, role="TOM", origin="audition")
    by_origin = hub.snapshot().latency_by_origin
    assert set(by_origin) == {"playback", "prerender", "audition"}
    play = by_origin["playback"]
    assert play.requests == 4
    assert play.p50_ms == pytest.approx(np.percentile(playback, 50) * 1000)
    assert play.p95_ms == pytest.approx(np.percentile(playback, 95) * 1000)
    assert play.max_ms == pytest.approx(200.0)
    assert by_origin["prerender"].p95_ms > 20_000 and by_origin["audition"].requests == 1
    # the per-role figure mixes both, which is why the studio leads with the origins
    assert hub.snapshot().p95_ms_by_role["NARRATOR"] > 20_000
