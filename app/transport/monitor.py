"""Engine monitor dock: what the scheduler and workers are doing, one view per tab.

Over the last 30 s in 50 ms columns (the grids ``engine.metrics.hub.MetricsHub`` keeps):

* **Priority**: a role x time heatmap of scheduler priority (log scale fitted to the range the
  window holds, a colour bar in priority units that says so), every row labelled with its role;
* **Latency**: end-to-end latency per origin, playback and audition first (what the listener
  waited for), background pre-render last; and a heatmap of requests finished per second and
  latency bin, cropped to the bins that hold requests (app/transport/monitor_scale.py says why);
* **Queue & devices**: where synthesis runs and why (the synthesis device), lines waiting to be
  synthesized, and each worker's busy share;
* **Pool**: each audio pool's use, fragmentation and high-water mark, the host's and the synthesis
  device's (app/transport/monitor_pools.py).

Every axis is labelled with its unit. A one-line summary above the tabs leads with the playback
wait, so a pre-render that waits 25 s by design never reads as a 25 s playback delay.

Fed by :meth:`MonitorDock.update_from` with an ``EngineSnapshot``, from the main window's QTimer
or from :meth:`MonitorDock.start`. Every update writes into preallocated arrays that the
ImageItems keep (``setImage(..., autoLevels=False)`` with levels the monitor fits itself, rarely,
and a lookup table), so a frame allocates little and pyqtgraph never rescans the data for levels. While the dock is hidden,
updates only keep the latest snapshot; it is drawn when the dock shows again. GUI thread only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QFrame,
    QLabel,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.transport import monitor_scale as scale
from app.transport.monitor_latency import OriginTable, format_ms, listener_summary
from app.transport.monitor_pools import PoolTab, device_line
from app.transport.monitor_trace import Trace

#: log10 of the displayed priority before any is known: 0.1 .. 100,000 (then fitted to the data).
PRIORITY_LEVELS = (-1.0, 5.0)
PRIORITY_FLOOR = 10.0 ** (PRIORITY_LEVELS[0] - 1)  # roles with nothing pending (priority 0) read black
PRIORITY_TICKS = [(float(e), label) for e, label in zip(range(-1, 6), ("0.1", "1", "10", "100", "1k", "10k", "100k"),
                                                        strict=True)]
#: log(1 + requests per 1 s column and latency bin) before any request (then fitted).
LATENCY_LEVELS = (0.0, math.log1p(20.0))
LATENCY_TICKS = [(math.log1p(n), str(n)) for n in (0, 1, 2, 5, 10, 20)]
MAX_ROWS = 64  # MetricsHub.MAX_ROLES
ROW_PX = 16  # the least height of a heatmap row: its role name fits
TRACE_SAMPLES = 1024  # device and pool samples kept (30 s at up to 30 Hz)
TIME_LABEL = ("time", "s")  # the bottom axes: seconds before now


def latency_label(upper_ms: float) -> str:
    return "slower" if not math.isfinite(upper_ms) else format_ms(upper_ms)


def _plot(graphics: pg.GraphicsLayoutWidget, row: int, col: int, left: str, window_s: float) -> pg.PlotItem:
    plot = graphics.addPlot(row=row, col=col)
    plot.setMouseEnabled(x=False, y=False)
    plot.hideButtons()
    plot.setMenuEnabled(False)
    plot.setXRange(-window_s, 0.0, padding=0)
    plot.disableAutoRange()  # fixed ranges: no per-frame scan of the data
    plot.setLabel("left", left)
    plot.setLabel("bottom", TIME_LABEL[0], units=TIME_LABEL[1])
    plot.getAxis("bottom").enableAutoSIPrefix(False)
    plot.getAxis("bottom").setTicks([[(float(-t), f"{-t:g}") for t in range(0, int(window_s) + 1, 10)]])
    return plot


def _colour_bar(graphics: pg.GraphicsLayoutWidget, cmap: Any, levels: tuple[float, float], label: str,
                ticks: list[tuple[float, str]]) -> pg.ColorBarItem:
    bar = pg.ColorBarItem(values=levels, colorMap=cmap, interactive=False, width=12, label=label)
    bar.axis.setTicks([ticks])
    graphics.addItem(bar, row=0, col=1)
    return bar


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
        self._counts = np.zeros((1, 1))  # requests per 1 s column and bin, before log1p
        self._prio_levels: tuple[float, float] | None = None
        self._heat_levels: tuple[float, float] | None = None
        self._heat_rows: tuple[int, int] | None = None
        self._busy: dict[str, Trace] = {}
        self._curves: dict[str, pg.PlotDataItem] = {}
        self._queue_top = 0.0
        self._lines: tuple[int, int] | None = None  # (voiced, total): the status bar's count
        self.updates = 0  # snapshots drawn (hidden updates that were skipped do not count)

        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(4, 2, 4, 4)
        layout.setSpacing(2)
        self.summary = QLabel("No engine activity yet")
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("monitorTabs")
        self.tabs.setDocumentMode(True)
        layout.addWidget(self.tabs, 1)
        self.setWidget(body)
        self._build_views()

    # ------------------------------------------------------------------ construction

    def _build_views(self) -> None:
        cmap = pg.colormap.get("inferno")
        lut = cmap.getLookupTable(nPts=256)
        w = self.window_s

        self.priority_view = pg.GraphicsLayoutWidget()
        self.priority_plot = _plot(self.priority_view, 0, 0, "role", w)
        self.priority_image = pg.ImageItem(axisOrder="row-major")
        self.priority_image.setLookupTable(lut)
        self.priority_image.setLevels(PRIORITY_LEVELS)
        self.priority_plot.addItem(self.priority_image)
        self.priority_plot.invertY(True)
        self.priority_plot.getAxis("left").setTicks([[]])  # role names only, once roles are known
        self.priority_bar = _colour_bar(self.priority_view, cmap, PRIORITY_LEVELS, "priority (log, fitted to 30 s)",
                                        PRIORITY_TICKS)
        scroll = QScrollArea()  # with many roles the canvas grows and scrolls rather than squash rows
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self.priority_view)
        self.tabs.addTab(scroll, "Priority")

        latency = QSplitter(Qt.Orientation.Horizontal)
        self.origins = OriginTable()
        latency.addWidget(self.origins)
        self.latency_view = pg.GraphicsLayoutWidget()
        self.latency_plot = _plot(self.latency_view, 0, 0, "latency (all origins)", w)
        self.latency_image = pg.ImageItem(axisOrder="row-major")
        self.latency_image.setLookupTable(lut)
        self.latency_image.setLevels(LATENCY_LEVELS)
        self.latency_plot.addItem(self.latency_image)
        self.latency_plot.getAxis("left").setTicks([[]])  # bin bounds come with the first snapshot
        self.latency_bar = _colour_bar(self.latency_view, cmap, LATENCY_LEVELS, "requests per s (log)",
                                       LATENCY_TICKS)
        latency.addWidget(self.latency_view)
        latency.setStretchFactor(1, 1)
        latency.setSizes([320, 480])
        self.tabs.addTab(latency, "Latency")

        queue = QWidget()
        column = QVBoxLayout(queue)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        self.device_label = QLabel("Synthesis device: not started")
        self.device_label.setObjectName("synthesisDevice")
        self.device_label.setWordWrap(True)
        self.device_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.device_label)
        self.queue_view = pg.GraphicsLayoutWidget()
        self.queue_plot = _plot(self.queue_view, 0, 0, "lines waiting", w)
        self.queue_curve = self.queue_plot.plot(pen=pg.mkPen("#4cc3ff", width=1.5))
        self.busy_plot = _plot(self.queue_view, 0, 1, "device busy (%)", w)
        self.busy_plot.setYRange(0, 100, padding=0.02)
        self.busy_plot.addLegend(offset=(8, 4), labelTextSize="8pt")  # left: new data is on the right
        column.addWidget(self.queue_view, 1)
        self.tabs.addTab(queue, "Queue && devices")

        self.pools = PoolTab(_plot, w, TRACE_SAMPLES)
        self.pool_view = self.pools.view
        self.tabs.addTab(self.pools, "Pool")

    def graphics_views(self) -> list[pg.GraphicsLayoutWidget]:
        """The plot canvases, in tab order (the latency tab's is beside its origin table)."""
        return [self.priority_view, self.latency_view, self.queue_view, self.pool_view]

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

    def show_lines(self, voiced: int, total: int) -> None:
        """The project's lines with a clip, of all (``SessionState.voiced_lines``): the one
        count of voiced lines, the status bar's. The engine's finished requests count more
        (every take, audition and replaced clip): the summary calls those clips made."""
        self._lines = (voiced, total)

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
        self._heat = np.zeros((1, scale.pooled_width(columns)))
        self._counts = np.zeros_like(self._heat)
        self._bins = ()

    def _draw_priority(self, snap: Any) -> None:
        roles = list(snap.roles)
        n = len(roles)
        if roles != self._roles:
            self._roles = roles
            self.priority_plot.getAxis("left").setTicks([[(i + 0.5, name) for i, name in enumerate(roles)]])
            self.priority_plot.setYRange(0, max(n, 1), padding=0)
            # Every row keeps room for its name: more roles than fit make the canvas taller, not
            # the names overprint (the tab scrolls then).
            self.priority_view.setMinimumHeight(n * ROW_PX + 70)
        if n == 0:
            self.priority_image.clear()
            return
        buf = self._prio[:n]
        np.maximum(snap.priority[:MAX_ROWS], PRIORITY_FLOOR, out=buf)
        np.log10(buf, out=buf)
        levels = scale.fit_log_levels(buf, math.log10(PRIORITY_FLOOR), self._prio_levels)
        if levels is not None and levels != self._prio_levels:
            self._prio_levels = levels
            self.priority_image.setLevels(levels)
            self.priority_bar.setLevels(values=levels, update_items=False)
            self.priority_bar.axis.setTicks([scale.decade_ticks(levels)])
        self._set_image(self.priority_image, buf)

    def _draw_latency(self, snap: Any) -> None:
        heat = snap.latency_heat
        rows = heat.shape[0]
        bins = tuple(float(b) for b in snap.latency_bins_ms)
        if self._heat.shape[0] != rows:
            self._heat = np.zeros((rows, scale.pooled_width(self._columns)))
            self._counts = np.zeros_like(self._heat)
        if bins != self._bins:
            self._bins = bins
            self._heat_rows = None
            self._show_latency_rows((0, rows))
        counts = scale.pool_columns(heat, self._counts)
        shown = scale.busy_rows(counts, self._heat_rows)
        if shown is not None and shown != self._heat_rows:
            self._show_latency_rows(shown)
        levels = scale.fit_count_levels(counts, self._heat_levels)
        if levels != self._heat_levels:
            self._heat_levels = levels
            self.latency_image.setLevels(levels)
            self.latency_bar.setLevels(values=levels, update_items=False)
            self.latency_bar.axis.setTicks([scale.count_ticks(levels)])
        np.log1p(counts, out=self._heat)
        self._set_image(self.latency_image, self._heat)
        self.origins.show_latency(getattr(snap, "latency_by_origin", {}))

    def _show_latency_rows(self, rows: tuple[int, int]) -> None:
        """Show latency bins ``rows`` (first, end), each labelled with its upper bound when
        there is room (about five labels)."""
        self._heat_rows = rows
        uppers = [*self._bins, math.inf]
        step = max(1, (rows[1] - rows[0]) // 5)
        ticks = [(i + 0.5, latency_label(uppers[i])) for i in range(rows[0], rows[1]) if (i - rows[0]) % step == 0]
        self.latency_plot.getAxis("left").setTicks([ticks])
        self.latency_plot.setYRange(rows[0], rows[1], padding=0)

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
                pen.setStyle(Qt.PenStyle.DashLine)
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
        self.pools.draw(snap)
        line = device_line(snap)
        if line and self.device_label.text() != line:
            self.device_label.setText(line)

    def _draw_summary(self, snap: Any) -> None:
        parts = [listener_summary(getattr(snap, "latency_by_origin", {}))]
        if self._lines is not None:
            parts.append(f"{self._lines[0]} of {self._lines[1]} lines voiced")
        parts += [f"{snap.requests} clip{'' if snap.requests == 1 else 's'} made",
                  f"{snap.audio_seconds_total:.0f} s of audio"]
        if snap.anomalies:
            parts.append(f"{snap.anomalies} slow outliers")
        for name, pool in sorted(snap.pools.items()):
            total = pool.used_bytes + pool.free_bytes
            if total:
                parts.append(f"{name} pool {pool.used_bytes / 2**20:.0f}/{total / 2**20:.0f} MiB")
        prerender = getattr(snap, "latency_by_origin", {}).get("prerender")
        if prerender is not None:  # last, and named for what it is: no one waits for it
            parts.append(f"background pre-render p95 {format_ms(prerender.p95_ms)}")
        text = " \u00b7 ".join(parts)
        if self.summary.text() != text:
            self.summary.setText(text)

    # ------------------------------------------------------------------ for tests and diagnostics

    def priority_data(self) -> np.ndarray | None:
        image: np.ndarray | None = self.priority_image.image  # pyqtgraph's ImageItem is untyped
        return image

    def latency_data(self) -> np.ndarray | None:
        """log1p(requests) per 1 s column (oldest left) and latency bin (fastest first)."""
        image: np.ndarray | None = self.latency_image.image
        return image

    def latency_rows(self) -> tuple[int, int] | None:
        """The latency bins the heatmap shows (first, end)."""
        return self._heat_rows

    def curve_data(self, key: str) -> tuple[np.ndarray, np.ndarray] | None:
        """(x, y) of a curve: ``"queue"``, ``"busy:DEVICE"``, ``"pool:NAME:use"``, ``":frag"`` or ``":high"``."""
        if key.startswith("pool:"):
            return self.pools.curve_data(key)
        curve = self.queue_curve if key == "queue" else self._curves.get(key)
        if curve is None:
            return None
        x, y = curve.getData()
        return (np.asarray(x), np.asarray(y)) if x is not None else None
