"""The monitor's Pool tab and the synthesis device's line on its Queue & devices tab.

The pools are the engine's preallocated audio memory (engine/memory/): ``host``, the clip
cache's arena the mixer reads, and on a synthesis device ``device:NAME``, where each clip's
model output gathers before its one copy to the host (engine/memory/device_pool.py). Each
is drawn as its share in use (solid), its fragmentation (dashed) and its high-water mark
(dotted: the most it has held), with a line of text under the plot giving the same in MiB
and what has crossed from the device to the host. GUI thread only.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.transport.monitor_trace import Trace

MIB = float(2**20)
STYLES = (("use", "in use", Qt.PenStyle.SolidLine), ("frag", "fragmentation", Qt.PenStyle.DashLine),
          ("high", "high-water", Qt.PenStyle.DotLine))


def device_line(snap: Any) -> str:
    """``Synthesis on cpu (auto: ...)``: where synthesis runs and why; empty before an engine says."""
    device = getattr(snap, "synthesis_device", None)
    if device is None or not device.name:
        return ""
    return f"Synthesis on {device.name} ({device.reason})"


def pool_line(snap: Any) -> str:
    """Each pool in MiB (in use, of, high-water, fragmentation) and the device's copies to the host."""
    parts = []
    for name, pool in sorted(snap.pools.items()):
        total = pool.used_bytes + pool.free_bytes
        parts.append(f"{name}: {pool.used_bytes / MIB:.1f} of {total / MIB:.0f} MiB in use, high-water "
                     f"{pool.high_water_bytes / MIB:.1f} MiB, fragmentation {100.0 * pool.fragmentation:.0f} %")
    traffic = getattr(snap, "device_traffic", None)
    if traffic is not None and traffic.clips:
        parts.append(f"{traffic.clips} clips to the host in {traffic.host_copies} copies "
                     f"({traffic.bytes_to_host / MIB:.1f} MiB)")
    return " \u00b7 ".join(parts) or "No pool in use yet"


class PoolTab(QWidget):
    """The Pool tab: a plot of every pool's share in use, fragmentation and high-water mark."""

    def __init__(self, plot_factory: Any, window_s: float, samples: int) -> None:
        super().__init__()
        self.window_s, self._samples = window_s, samples
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.view = pg.GraphicsLayoutWidget()
        self.plot = plot_factory(self.view, 0, 0, "share of pool (%)", window_s)
        self.plot.setYRange(0, 100, padding=0.02)
        # A pool to a row (in use, fragmentation, high-water): two pools leave the curves in sight.
        self.plot.addLegend(offset=(8, 4), labelTextSize="8pt", colCount=len(STYLES))
        layout.addWidget(self.view, 1)
        self.label = QLabel("No pool in use yet")
        self.label.setObjectName("poolSummary")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label)
        self._traces: dict[str, Trace] = {}
        self._curves: dict[str, pg.PlotDataItem] = {}

    def draw(self, snap: Any) -> None:
        for index, (name, pool) in enumerate(sorted(snap.pools.items())):
            total = pool.used_bytes + pool.free_bytes
            share = 100.0 / total if total else 0.0
            values = {"use": pool.used_bytes * share, "frag": 100.0 * pool.fragmentation,
                      "high": pool.high_water_bytes * share}
            for kind, label, style in STYLES:
                key = f"pool:{name}:{kind}"
                trace = self._traces.get(key)
                if trace is None:
                    trace = self._traces[key] = Trace(self._samples)
                trace.append(snap.t, values[kind])
                t, v = trace.window(snap.t, self.window_s)
                self._curve(key, index, f"{name} {label}", style).setData(t, v)
        text = pool_line(snap)
        if self.label.text() != text:
            self.label.setText(text)

    def _curve(self, key: str, index: int, name: str, style: Qt.PenStyle) -> Any:
        curve = self._curves.get(key)
        if curve is None:
            pen = pg.mkPen(pg.intColor(index, hues=8), width=1.5)
            pen.setStyle(style)
            curve = self._curves[key] = self.plot.plot(pen=pen, name=name)
        return curve

    def curve_data(self, key: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(x, y) of ``pool:NAME:use``, ``:frag`` or ``:high``."""
        curve = self._curves.get(key)
        if curve is None:
            return None
        x, y = curve.getData()
        return (np.asarray(x), np.asarray(y)) if x is not None else None
