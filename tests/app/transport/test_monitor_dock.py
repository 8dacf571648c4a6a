"""The engine monitor dock, fed by a real MetricsHub on a fake clock."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.transport.monitor import LATENCY_LEVELS, PRIORITY_FLOOR, PRIORITY_LEVELS, MonitorDock
from app.transport.monitor_trace import Trace
from bench.monitor_update import FakeClock, measure
from engine.metrics.hub import MetricsHub

ROLES = ["MAGGIE", "TOM", "NARRATOR"]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def hub(clock) -> MetricsHub:
    hub = MetricsHub(clock=clock)
    for role in ROLES:
        hub.set_role_priority(role, 1.0)
        hub.set_queue_depth(role, 1)
    return hub


@pytest.fixture
def dock(qtbot) -> MonitorDock:
    d = MonitorDock()
    qtbot.addWidget(d)
    d.resize(800, 700)
    d.show()
    qtbot.waitExposed(d)
    return d


def test_priority_heatmap_changes_with_new_data(dock, hub, clock):
    dock.update_from(hub.snapshot())
    before = dock.priority_data().copy()
    assert before.shape == (3, 600)
    clock.t += 0.5
    hub.set_role_priority("TOM", 5000.0)
    dock.update_from(hub.snapshot())
    after = dock.priority_data()
    assert not np.array_equal(before, after)
    assert after[1, -1] == pytest.approx(math.log10(5000.0))  # TOM's row, newest column
    assert after[0, -1] == pytest.approx(0.0)  # MAGGIE held at priority 1
    # the older columns scrolled left by the 10 columns of 0.5 s
    np.testing.assert_allclose(after[:, :-10], before[:, 10:])


def test_heatmap_levels_follow_the_data_rarely_and_update_in_place(dock, hub, clock):
    assert tuple(dock.priority_image.getLevels()) == PRIORITY_LEVELS  # before any data
    assert tuple(dock.latency_image.getLevels()) == pytest.approx(LATENCY_LEVELS)
    dock.update_from(hub.snapshot())
    buffer = dock.priority_data()
    clock.t += 0.2
    hub.set_role_priority("MAGGIE", 1e12)  # far above the old top: the levels reach it
    hub.record_request("MAGGIE", "playback", "role-priority", 0.0, 0.1, 0.2, 1.0)
    dock.update_from(hub.snapshot())
    lo, hi = tuple(dock.priority_image.getLevels())
    assert lo <= 0.0 and hi >= 12.0
    assert dock.latency_image.getLevels()[1] == pytest.approx(math.log1p(1))  # one request: the top colour
    assert dock.priority_image.lut is not None and dock.latency_image.lut is not None
    assert np.shares_memory(dock.priority_data(), buffer)  # the same preallocated array every frame
    clock.t += 0.1
    hub.set_role_priority("MAGGIE", 1e11)  # within the levels: they stay put, colours do not jump
    dock.update_from(hub.snapshot())
    assert tuple(dock.priority_image.getLevels()) == (lo, hi)


def test_images_span_the_last_30_seconds_and_one_row_per_role(dock, hub):
    dock.update_from(hub.snapshot())
    for item, rows in ((dock.priority_image, 3), (dock.latency_image, 25)):
        rect = item.mapRectToParent(item.boundingRect())
        assert (rect.left(), rect.right()) == (pytest.approx(-30.0), pytest.approx(0.0))
        assert (rect.top(), rect.bottom()) == (pytest.approx(0.0), pytest.approx(rows))


def test_role_labels_on_the_heatmap_axis(dock, hub, clock):
    dock.update_from(hub.snapshot())
    ticks = dock.priority_plot.getAxis("left")._tickLevels[0]
    assert [label for _, label in ticks] == ROLES
    clock.t += 0.1
    hub.set_role_priority("GHOST", 3.0)
    dock.update_from(hub.snapshot())
    assert [label for _, label in dock.priority_plot.getAxis("left")._tickLevels[0]] == [*ROLES, "GHOST"]
    assert dock.priority_data().shape[0] == 4


def test_latency_heatmap_counts_finished_requests_in_their_bin(dock, hub, clock):
    dock.update_from(hub.snapshot())
    assert dock.latency_data().max() == 0.0
    clock.t += 0.1
    for _ in range(3):
        hub.record_request("TOM", "playback", "role-priority", 0.01, 0.1, 0.2, 1.0)
    snap = hub.snapshot()
    dock.update_from(snap)
    row = int(np.searchsorted(snap.latency_bins_ms, 200.0))  # le-bucket of 200 ms
    heat = dock.latency_data()
    assert heat[row, -1] == pytest.approx(math.log1p(3))
    assert heat.sum() == pytest.approx(math.log1p(3))


def test_queue_busy_and_pool_curves(dock, hub, clock):
    clock.t += 0.1
    hub.set_queue_depth("MAGGIE", 4)
    hub.set_device_busy("infer-0", 0.75)
    hub.set_pool_stats("host", 16 * 2**20, 48 * 2**20, 40 * 2**20, 1 - 40 / 48)
    dock.update_from(hub.snapshot())
    x, depth = dock.curve_data("queue")
    assert x[-1] == 0.0 and x[0] == pytest.approx(-29.95) and depth[-1] == 4 + 1 + 1
    _, busy = dock.curve_data("busy:infer-0")
    assert busy[-1] == pytest.approx(75.0)
    _, use = dock.curve_data("pool:host:use")
    _, frag = dock.curve_data("pool:host:frag")
    assert use[-1] == pytest.approx(25.0) and frag[-1] == pytest.approx(100 * (1 - 40 / 48))
    assert "host pool 16/64 MiB" in dock.summary.text()


def test_the_synthesis_device_and_the_device_pool_with_its_high_water_mark(dock, hub, clock):
    from engine.metrics.hub import DeviceTraffic

    assert dock.device_label.text() == "Synthesis device: not started"
    hub.set_synthesis_device("cpu", "auto", "auto: onnxruntime 1.32.0 here offers no CUDA provider, only CPU")
    hub.set_pool_stats("device:cpu", 0, 32 * 2**20, 32 * 2**20, 0.0, high_water_bytes=8 * 2**20)
    hub.set_pool_stats("host", 64 * 2**20, 192 * 2**20, 100 * 2**20, 0.25, high_water_bytes=96 * 2**20)
    hub.set_device_traffic(DeviceTraffic(clips=5, host_copies=5, bytes_to_host=3 * 2**20))
    clock.t += 0.1
    dock.update_from(hub.snapshot())
    assert dock.device_label.text() == ("Synthesis on cpu (auto: onnxruntime 1.32.0 here offers no CUDA provider, "
                                        "only CPU)")
    _, high = dock.curve_data("pool:device:cpu:high")
    _, use = dock.curve_data("pool:device:cpu:use")
    assert high[-1] == pytest.approx(25.0) and use[-1] == 0.0
    _, host_high = dock.curve_data("pool:host:high")
    assert host_high[-1] == pytest.approx(37.5)
    assert dock.pools.label.text() == (
        "device:cpu: 0.0 of 32 MiB in use, high-water 8.0 MiB, fragmentation 0 % · "
        "host: 64.0 of 256 MiB in use, high-water 96.0 MiB, fragmentation 25 % · "
        "5 clips to the host in 5 copies (3.0 MiB)")


def test_a_hidden_dock_draws_the_latest_snapshot_when_shown(qtbot, dock, hub, clock):
    dock.update_from(hub.snapshot())
    drawn = dock.updates
    dock.hide()
    clock.t += 0.3
    hub.set_role_priority("NARRATOR", 100.0)
    dock.update_from(hub.snapshot())
    assert dock.updates == drawn  # nothing drawn while hidden
    dock.show()
    assert dock.updates == drawn + 1
    assert dock.priority_data()[2, -1] == pytest.approx(2.0)


def test_start_polls_the_source_while_visible(qtbot, dock, hub):
    calls = []

    def source():
        calls.append(1)
        return hub.snapshot()

    dock.start(source, interval_ms=10)
    qtbot.waitUntil(lambda: dock.updates >= 2)
    dock.stop()
    assert len(calls) == dock.updates


def test_trace_keeps_the_window_and_forgets_the_rest():
    trace = Trace(4)
    for t in range(6):
        trace.append(float(t), 10.0 * t)
    t, v = trace.window(now=5.0, window_s=2.0)
    np.testing.assert_allclose(t, [-2.0, -1.0, 0.0])
    np.testing.assert_allclose(v, [30.0, 40.0, 50.0])
    assert len(trace) == 4


def test_update_cost_on_a_full_window_is_reported(qtbot, capsys):
    """Prints the cost of a frame (8 roles, 30 s window); the numbers are for reading, not
    for asserting: this machine is shared."""
    timing = measure(frames=20)
    summary = timing.summary()
    with capsys.disabled():
        print("\nmonitor frame (8 roles, 30 s): " + ", ".join(f"{k} {v:.2f}" for k, v in summary.items()))
    assert len(timing.update_ms) == 20 and all(v > 0 for v in timing.paint_ms)


def _colour_spread(item, data: np.ndarray, floor: float) -> float:
    """How much of the colour map the cells above ``floor`` use (0: one solid colour, 1: all)."""
    lo, hi = item.getLevels()
    cells = np.clip((data[data > floor] - lo) / (hi - lo), 0.0, 1.0)
    return float(cells.max() - cells.min())


def test_priorities_within_two_decades_use_most_of_the_colour_map(dock, clock):
    """Issue 30: the sample under load holds priorities of 8-220 (measured); on levels of
    0.1-100k they were one band of colour."""
    hub = MetricsHub(clock=clock)
    rng = np.random.default_rng(7)
    for _ in range(200):
        clock.t += 0.1
        for role in ROLES:
            hub.set_role_priority(role, float(10 ** rng.uniform(math.log10(8.0), math.log10(220.0))))
    dock.update_from(hub.snapshot())
    spread = _colour_spread(dock.priority_image, dock.priority_data(), math.log10(PRIORITY_FLOOR))
    assert spread >= 0.8, f"the priorities use {spread:.0%} of the colour map"
    ticks = [label for _, label in dock.priority_bar.axis._tickLevels[0]]
    assert "10" in ticks and "100" in ticks  # the colour bar reads the fitted range in priority units


def test_a_few_requests_fill_the_latency_heatmap_as_blocks_of_a_second(dock, hub, clock):
    """Issue 30: a request every few seconds drew one-pixel dots on a 50 ms grid of 25 bins."""
    for latency in (0.08, 0.12, 0.3, 0.09, 0.2):
        clock.t += 5.0
        hub.record_request("TOM", "playback", "role-priority", 0.0, latency, latency, 1.0)
    snap = hub.snapshot()
    dock.update_from(snap)
    heat = dock.latency_data()
    assert heat.shape[1] == 30  # 1 s columns
    first, end = dock.latency_rows()
    rows = sorted({int(np.searchsorted(snap.latency_bins_ms, 1000 * t)) for t in (0.08, 0.12, 0.3, 0.09, 0.2)})
    assert first <= rows[0] and rows[-1] < end and end - first <= rows[-1] - rows[0] + 3
    shown = heat[first:end]
    lit = np.count_nonzero(shown) / shown.size  # share of the drawn area in colour
    assert lit >= 0.02, f"{lit:.1%} of the latency heatmap lit"
    assert shown.max() == pytest.approx(dock.latency_image.getLevels()[1])  # the busiest cell is the top colour
