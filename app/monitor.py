"""Engine monitor dock: live heatmaps and curves of what the scheduler and workers are doing.

Shows, over the last 30 s in 50 ms columns (the grids ``engine.metrics.hub.MetricsHub`` keeps):

* a role x time heatmap of scheduler priority (log scale: the displayed priority spans decades);
* a latency heatmap: requests finished per latency bin and column;
* queue depth (all roles) and device busy curves;
* pool use and fragmentation curves, and a one-line summary.

Fed by :meth:`MonitorDock.update_from` with an ``EngineSnapshot``, from the main window's QTimer
or from :meth:`MonitorDock.start`. Every update writes into preallocated arrays that the
ImageItems keep (``setImage(..., autoLevels=False)`` with fixed levels and a lookup table), so
a frame allocates little and never rescans the data for levels. While the dock is hidden,
updates only keep the latest snapshot; it is drawn when the dock shows again. GUI thread only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QDockWidget, QLabel, QVBoxLayout, QWidget

from app.monitor_trace import Trace

#: log10 of the displayed priority: 0.1 (a role with little pending) .. 100,000 (due now, aged).
PRIORITY_LEVELS = (-1.0, 5.0)
PRIORITY_FLOOR = 10.0 ** (PRIORITY_LEVELS[0] - 1)  # roles with nothing pending (priority 0) read black
#: log(1 + requests per 50 ms column and latency bin).
LATENCY_LEVELS = (0.0, math.log1p(20.0))
MAX_ROWS = 64  # MetricsHub.MAX_ROLES
TRACE_SAMPLES = 1024  # device and pool samples kept (30 s at up to 30 Hz)


def latency_label(upper_ms: float) -> str:
    if not math.isfinite(upper_ms):
        return "slower"
    return f"{upper_ms:.0f} ms" if upper_ms < 1000 else f"{upper_ms / 1000:.3g} s"


class MonitorDock(QDockWidget):
    """The monitor as a dock (object name ``MonitorDock`` for saveState/restoreState)."""

    def __init__(self, parent: QWidget | None = None, window_s: float = 30.0) -> None:
        super().__init__("Engine Monitor", parent)
        self.setObjectName("MonitorDock")
        self.window_s = window_s
        self._pending: Any = None
        self._timer: QTimer | None = None
        self._source: Callable[[], Any] | None = None
        self._roles: list[str] = []
        self._bins: tuple[float, ...] = ()
        self._columns = 0
        self._x: np.ndarray = np.zeros(0)
        self._prio = np.zeros((MAX_ROWS, 1))
        self._heat = np.zeros((1, 1))
        self._busy: dict[str, Trace] = {}
        self._pool_use: dict[str, Trace] = {}
        self._pool_frag: dict[str, Trace] = {}
        self._curves: dict[str, pg.PlotDataItem] = {}
        self.updates = 0  # snapshots drawn (hidden updates that were skipped do not count)

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 4, 4, 4)
        self.summary = QLabel("No engine activity yet")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.graphics = pg.GraphicsLayoutWidget()
        layout.addWidget(self.graphics, 1)
        self.setWidget(body)
        self._build_plots()

    # ------------------------------------------------------------------ construction

    def _build_plots(self) -> None:
        g = self.graphics
        cmap = pg.colormap.get("inferno")
        lut = cmap.getLookupTable(nPts=256)

        self.priority_plot = g.addPlot(row=0, col=0, title="Scheduler priority by role (log10)")
        self.priority_image = pg.ImageItem(axisOrder="row-major")
        self.priority_image.setLookupTable(lut)
        self.priority_image.setLevels(PRIORITY_LEVELS)
        self.priority_plot.addItem(self.priority_image)
        self.priority_plot.invertY(True)
        self.priority_bar = pg.ColorBarItem(values=PRIORITY_LEVELS, colorMap=cmap, interactive=False, width=12)
        g.addItem(self.priority_bar, row=0, col=1)

        self.latency_plot = g.addPlot(row=1, col=0, title="Requests finished by latency")
        self.latency_image = pg.ImageItem(axisOrder="row-major")
        self.latency_image.setLookupTable(lut)
        self.latency_image.setLevels(LATENCY_LEVELS)
        self.latency_plot.addItem(self.latency_image)

        self.queue_plot = g.addPlot(row=2, col=0, title="Queue depth (all roles)")
        self.queue_curve = self.queue_plot.plot(pen=pg.mkPen("#4cc3ff", width=1.5))
        self.busy_plot = g.addPlot(row=3, col=0, title="Device busy %")
        self.busy_plot.setYRange(0, 100, padding=0.02)
        self.busy_plot.addLegend(offset=(8, 4), labelTextSize="7pt")  # left: new data is on the right
        self.pool_plot = g.addPlot(row=4, col=0, title="Pool use % (solid) / fragmentation % (dashed)")
        self.pool_plot.setYRange(0, 100, padding=0.02)

        for plot in (self.priority_plot, self.latency_plot, self.queue_plot, self.busy_plot, self.pool_plot):
            plot.setMouseEnabled(x=False, y=False)
            plot.hideButtons()
            plot.setMenuEnabled(False)
            plot.setXRange(-self.window_s, 0.0, padding=0)
            plot.getAxis("left").setWidth(72)
            if plot is not self.pool_plot:
                plot.getAxis("bottom").setStyle(showValues=False)
        for plot in (self.priority_plot, self.latency_plot, self.busy_plot, self.pool_plot):
            plot.disableAutoRange()  # fixed ranges: no per-frame scan of the data
        self.queue_plot.disableAutoRange()
        self._queue_top = 0.0
        self.pool_plot.setLabel("bottom", "seconds ago")
        for i, stretch in enumerate((3, 3, 1, 1, 1)):
            g.ci.layout.setRowStretchFactor(i, stretch)

    # ------------------------------------------------------------------ feeding

    def start(self, source: Callable[[], Any], interval_ms: int = 100) -> None:
        """Poll ``source()`` (e.g. ``session.metrics.snapshot``) every ``interval_ms`` while
        the dock is visible; a hidden dock does not even take snapshots."""
        self._source = source
        if self._timer is None:
            self._timer = QTimer(self)
            self._timer.timeout.connect(self._poll)
        self._timer.start(interval_ms)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()

    def _poll(self) -> None:
        if self._source is not None and self.isVisible():
            self.update_from(self._source())

    def update_from(self, snapshot: Any) -> None:
        """Draw an ``engine.metrics.hub.EngineSnapshot`` (kept for later while hidden)."""
        if not self.isVisible():
            self._pending = snapshot
            return
        self._pending = None
        self._draw(snapshot)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._pending is not None:
            snapshot, self._pending = self._pending, None
            self._draw(snapshot)

    # ------------------------------------------------------------------ drawing

    def _draw(self, snap: Any) -> None:
        columns = int(snap.priority.shape[1])
        if columns != self._columns:
            self._resize_columns(columns, float(snap.column_s))
        self._draw_priority(snap)
        self._draw_latency(snap)
        depth = snap.queue_depth.sum(axis=0) if snap.queue_depth.size else np.zeros(columns)
        self.queue_curve.setData(self._x, depth)
        top = max(4.0, float(depth.max()) if depth.size else 0.0)
        if not 0.5 * self._queue_top <= top <= self._queue_top:  # rescale rarely: auto-range scans every frame
            self._queue_top = top * 1.25
            self.queue_plot.setYRange(0.0, self._queue_top, padding=0)
        self._draw_devices(snap)
        self._draw_pools(snap)
        self._draw_summary(snap)
        self.updates += 1

    def _resize_columns(self, columns: int, column_s: float) -> None:
        self._columns = columns
        self._x = (np.arange(columns, dtype=np.float64) - (columns - 1)) * column_s
        self._prio = np.zeros((MAX_ROWS, columns))
        self._heat = np.zeros((1, columns))
        self._bins = ()

    def _draw_priority(self, snap: Any) -> None:
        roles = list(snap.roles)
        n = len(roles)
        if roles != self._roles:
            self._roles = roles
            self.priority_plot.getAxis("left").setTicks([[(i + 0.5, name) for i, name in enumerate(roles)]])
            self.priority_plot.setYRange(0, max(n, 1), padding=0)
        if n == 0:
            self.priority_image.clear()
            return
        buf = self._prio[:n]
        np.maximum(snap.priority[:MAX_ROWS], PRIORITY_FLOOR, out=buf)
        np.log10(buf, out=buf)
        self._set_image(self.priority_image, buf)

    def _draw_latency(self, snap: Any) -> None:
        heat = snap.latency_heat
        rows = heat.shape[0]
        bins = tuple(float(b) for b in snap.latency_bins_ms)
        if self._heat.shape[0] != rows:
            self._heat = np.zeros((rows, self._columns))
        if bins != self._bins:
            self._bins = bins
            uppers = [*bins, math.inf][:rows]
            step = max(1, rows // 6)
            ticks = [(i + 0.5, latency_label(u)) for i, u in enumerate(uppers) if i % step == 0 or i == rows - 1]
            self.latency_plot.getAxis("left").setTicks([ticks])
            self.latency_plot.setYRange(0, rows, padding=0)
        np.log1p(heat, out=self._heat)
        self._set_image(self.latency_image, self._heat)

    def _set_image(self, item: pg.ImageItem, data: np.ndarray) -> None:
        """New pixels into an ImageItem: fixed levels and LUT, and the same array each frame.
        setRect scales by the current image's size, so it follows a change of shape."""
        old = item.image
        item.setImage(data, autoLevels=False)
        if old is None or old.shape != data.shape:
            item.setRect(QRectF(-self.window_s, 0.0, self.window_s, float(data.shape[0])))

    def _curve(self, key: str, plot: pg.PlotItem, index: int, name: str | None, dashed: bool = False) -> Any:
        curve = self._curves.get(key)
        if curve is None:
            pen = pg.mkPen(pg.intColor(index, hues=8), width=1.5)
            if dashed:
                pen.setStyle(pg.QtCore.Qt.PenStyle.DashLine)
            curve = self._curves[key] = plot.plot(pen=pen, name=name)
        return curve

    def _draw_devices(self, snap: Any) -> None:
        for i, (device, busy) in enumerate(sorted(snap.device_busy.items())):
            trace = self._busy.get(device)
            if trace is None:
                trace = self._busy[device] = Trace(TRACE_SAMPLES)
            trace.append(snap.t, 100.0 * busy)
            t, v = trace.window(snap.t, self.window_s)
            self._curve(f"busy:{device}", self.busy_plot, i, device).setData(t, v)

    def _draw_pools(self, snap: Any) -> None:
        for i, (name, pool) in enumerate(sorted(snap.pools.items())):
            total = pool.used_bytes + pool.free_bytes
            use = 100.0 * pool.used_bytes / total if total else 0.0
            for traces, value, dashed in ((self._pool_use, use, False),
                                          (self._pool_frag, 100.0 * pool.fragmentation, True)):
                trace = traces.get(name)
                if trace is None:
                    trace = traces[name] = Trace(TRACE_SAMPLES)
                trace.append(snap.t, value)
                t, v = trace.window(snap.t, self.window_s)
                key = f"pool:{name}:{'frag' if dashed else 'use'}"
                self._curve(key, self.pool_plot, i, None, dashed).setData(t, v)

    def _draw_summary(self, snap: Any) -> None:
        parts = [f"{snap.requests} lines synthesized", f"{snap.audio_seconds_total:.0f} s of audio"]
        if snap.anomalies:
            parts.append(f"{snap.anomalies} slow outliers")
        for name, pool in sorted(snap.pools.items()):
            total = pool.used_bytes + pool.free_bytes
            if total:
                parts.append(f"{name} pool {pool.used_bytes / 2**20:.0f}/{total / 2**20:.0f} MiB, "
                             f"fragmentation {pool.fragmentation:.0%}")
        if snap.p95_ms_by_role:
            slowest = sorted(snap.p95_ms_by_role.items(), key=lambda kv: -kv[1])[:3]
            parts.append("p95 " + ", ".join(f"{role} {ms:.0f} ms" for role, ms in slowest))
        text = " \u00b7 ".join(parts)
        if self.summary.text() != text:
            self.summary.setText(text)

    # ------------------------------------------------------------------ for tests and diagnostics

    def priority_data(self) -> np.ndarray | None:
        return self.priority_image.image

    def latency_data(self) -> np.ndarray | None:
        return self.latency_image.image

    def curve_data(self, key: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(x, y) of a curve: ``"queue"``, ``"busy:DEVICE"``, ``"pool:NAME:use"`` or ``":frag"``."""
        curve = self.queue_curve if key == "queue" else self._curves.get(key)
        if curve is None:
            return None
        x, y = curve.getData()
        return (np.asarray(x), np.asarray(y)) if x is not None else None
