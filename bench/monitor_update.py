"""Cost of one monitor update on a full window: ``python bench/monitor_update.py``.

Fills a real :class:`engine.metrics.hub.MetricsHub` (fake clock) with 30 s of 50 ms ticks for
8 roles (priorities, queue depths, finished requests in every latency decade, two devices, a
pool), then times, per frame, the parts the GUI thread pays at each timer tick: the hub's
snapshot, :meth:`app.transport.monitor.MonitorDock.update_from`, and a synchronous repaint of the plots.
Runs headless (QT_QPA_PLATFORM=offscreen is set if no platform is chosen).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(REPO))

ROLES = 8


class FakeClock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def tick(hub: object, clock: FakeClock, rng: np.random.Generator, roles: list[str], dt: float = 0.05) -> None:
    """One scheduler tick's worth of metrics."""
    clock.t += dt
    for role in roles:
        pending = rng.random() > 0.3
        hub.set_role_priority(role, float(10 ** rng.uniform(-1, 4)) if pending else 0.0)  # type: ignore[attr-defined]
        hub.set_queue_depth(role, int(rng.integers(1, 6)) if pending else 0)  # type: ignore[attr-defined]
    for _ in range(3):
        hub.record_request(roles[int(rng.integers(len(roles)))], "playback", "role-priority",  # type: ignore[attr-defined]
                           0.01, 0.1, float(10 ** rng.uniform(-2.2, 1.8)), 2.0)
    for device in ("infer-0", "infer-1"):
        hub.set_device_busy(device, float(rng.random()))  # type: ignore[attr-defined]
    hub.set_pool_stats("host", int(rng.integers(8, 60)) * 2**20, 64 * 2**20, 24 * 2**20,  # type: ignore[attr-defined]
                       float(rng.random() * 0.4))


def full_hub(roles: int = ROLES, seconds: float = 30.0, seed: int = 7) -> tuple[object, FakeClock, list[str]]:
    from engine.metrics.hub import MetricsHub

    clock = FakeClock()
    hub = MetricsHub(clock=clock)
    names = [f"ROLE{i}" for i in range(roles)]
    rng = np.random.default_rng(seed)
    for _ in range(round(seconds / 0.05)):
        tick(hub, clock, rng, names)
    return hub, clock, names


@dataclass
class Timing:
    snapshot_ms: list[float]
    update_ms: list[float]
    paint_ms: list[float]

    def summary(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for name in ("snapshot_ms", "update_ms", "paint_ms"):
            values = sorted(getattr(self, name))
            out[f"{name}_median"] = statistics.median(values)
            out[f"{name}_p95"] = values[min(len(values) - 1, int(0.95 * len(values)))]
        total = [a + b + c for a, b, c in zip(self.snapshot_ms, self.update_ms, self.paint_ms, strict=True)]
        out["frame_ms_median"] = statistics.median(total)
        out["frame_ms_max"] = max(total)
        return out


def measure(frames: int = 100, roles: int = ROLES, size: tuple[int, int] = (900, 800)) -> Timing:
    """Time ``frames`` monitor frames; each frame first records 100 ms of new metrics."""
    from PySide6.QtWidgets import QApplication

    from app.transport.monitor import MonitorDock

    app = QApplication.instance() or QApplication([])
    hub, clock, names = full_hub(roles)
    dock = MonitorDock()
    dock.resize(*size)
    dock.show()
    app.processEvents()
    rng = np.random.default_rng(1)
    timing = Timing([], [], [])
    for frame in range(frames + 5):
        tick(hub, clock, rng, names)
        tick(hub, clock, rng, names)
        t0 = time.perf_counter()
        snap = hub.snapshot()  # type: ignore[attr-defined]
        t1 = time.perf_counter()
        dock.update_from(snap)
        t2 = time.perf_counter()
        for view in dock.graphics_views():  # paint now, as the event loop would after the tick
            if view.isVisible():
                view.viewport().repaint()
        t3 = time.perf_counter()
        if frame >= 5:  # the first frames build ticks, legends and caches
            timing.snapshot_ms.append((t1 - t0) * 1e3)
            timing.update_ms.append((t2 - t1) * 1e3)
            timing.paint_ms.append((t3 - t2) * 1e3)
    dock.close()
    dock.deleteLater()
    return timing


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--roles", type=int, default=ROLES)
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    summary = measure(args.frames, args.roles).summary()
    print(f"monitor update, {args.roles} roles, 30 s window (600 columns), {args.frames} frames:")
    for key, value in summary.items():
        print(f"  {key:22s} {value:7.2f}")


if __name__ == "__main__":
    main()
