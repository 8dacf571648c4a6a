"""A painted peak meter with a dBFS scale, a peak-hold mark, a clip light and a LUFS readout.

On the master (the transport bar) the readout is a producer's loudness meter: momentary (400 ms)
and short-term (3 s) LUFS, with the master limiter's gain reduction under them, live. The clip
light follows the engine's count of overs when it is given one (a sample of the metered signal
at or past 0 dBFS), not the bar.

The engine's meters (``engine.audio.meters``) apply the ballistics (falling bar, hold mark) to
the audio they meter, but nothing is metered while playback is paused or stopped, so their last
snapshot stays lit. The widgets therefore fall on their own clock too (:func:`fall`, the
engine's 20 dB/s): fed silence once nothing plays, the bar sinks to the floor instead of
freezing. When no hold value comes with a level the meter keeps its own hold (``hold_s``), so it
also works fed with raw peaks. GUI thread only; it is fed by the transport's QTimer.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QLinearGradient, QMouseEvent, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

SCALE_MARKS_DB = (-48, -36, -24, -18, -12, -6, -3, 0)
CLIP_DB = -0.1  # a peak at or above this lights the clip indicator until it is clicked
FALL_DB_PER_S = 20.0  # engine.audio.meters.LevelMeters' decay


def fall(shown_db: float, target_db: float, dt: float, rate: float = FALL_DB_PER_S) -> float:
    """A bar's next value: it jumps up to ``target_db`` at once and falls toward it at ``rate``
    dB per second, so after ``dt`` seconds it reads the higher of the two."""
    if not target_db < shown_db:
        return target_db
    return max(target_db, shown_db - rate * max(0.0, dt))


def format_lufs(lufs: float | None) -> str:
    if lufs is None or not math.isfinite(lufs):
        return "-- LUFS"
    return f"{lufs:.1f} LUFS".replace("-", "\u2212")


class LevelMeter(QWidget):
    """Peak meter, ``floor_db`` .. 0 dBFS, horizontal (toolbar) or vertical (mixer strip)."""

    def __init__(self, orientation: Qt.Orientation = Qt.Orientation.Horizontal, floor_db: float = -60.0,
                 hold_s: float = 1.5, clock: Callable[[], float] = time.monotonic,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.orientation = orientation
        self.floor_db = floor_db
        self.hold_s = hold_s
        self._clock = clock
        self.level_db = -math.inf
        self.hold_db = -math.inf
        self.lufs: float | None = None
        self.momentary: float | None = None  # LUFS, last 400 ms (None: not shown)
        self.reduction_db: float | None = None  # the master limiter's gain reduction (None: not shown)
        self.reduction_max_db = 0.0
        self._overs: int | None = None
        self.clipped = False
        self._hold_at = 0.0
        self._fed_at = clock()
        if orientation == Qt.Orientation.Horizontal:
            self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        else:
            self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self.setToolTip("Master level (dBFS peak, hold mark), momentary (M) and short-term (S) loudness in LUFS, "
                        "and the master limiter's gain reduction (GR); click to reset the clip light")
        self._font = QFont(self.font())
        self._font.setPointSizeF(max(6.5, self._font.pointSizeF() * 0.75))

    def sizeHint(self) -> QSize:
        return QSize(260, 24) if self.orientation == Qt.Orientation.Horizontal else QSize(28, 160)

    # ------------------------------------------------------------------ data in

    def set_dynamics(self, momentary: float | None, reduction_db: float | None, reduction_max_db: float = 0.0,
                     overs: int | None = None) -> None:
        """The master's momentary loudness, its limiter's gain reduction now and at most (dB,
        >= 0), and the engine's count of overs (a new one lights the clip light)."""
        momentary = None if momentary is None or not math.isfinite(momentary) else float(momentary)
        clipped = self.clipped
        if overs is not None:
            clipped = clipped or (self._overs is not None and overs > self._overs)
            self._overs = overs
        state = (momentary, reduction_db, reduction_max_db, clipped)
        if state != (self.momentary, self.reduction_db, self.reduction_max_db, self.clipped):
            self.momentary, self.reduction_db, self.reduction_max_db, self.clipped = state
            self.update()

    def set_levels(self, peak_db: float | None, hold_db: float | None = None, lufs: float | None = None) -> None:
        """Show a peak (dBFS; None or -inf is silence), its hold mark (None: keep our own) and
        the short-term loudness (None: not measured yet). Repaints only if something moved.
        Once :meth:`set_dynamics` has given a count of overs, only overs light the clip light."""
        now = self._clock()
        given = -math.inf if peak_db is None or math.isnan(peak_db) else float(peak_db)
        peak = fall(self.level_db, given, now - self._fed_at)
        if peak != given and peak < self.floor_db:
            peak = -math.inf  # fallen off the scale: silence, and no repaint per tick from here
        self._fed_at = now
        if hold_db is not None and not math.isnan(hold_db):
            hold = float(hold_db)
        elif peak >= self.hold_db:
            hold, self._hold_at = peak, now
        elif now - self._hold_at > self.hold_s:
            hold = peak  # held long enough: the mark rides the falling bar
        else:
            hold = self.hold_db
        clipped = self.clipped or (self._overs is None and max(peak, hold) >= CLIP_DB)
        lufs = None if lufs is None or not math.isfinite(lufs) else float(lufs)
        if (peak, hold, lufs, clipped) != (self.level_db, self.hold_db, self.lufs, self.clipped):
            self.level_db, self.hold_db, self.lufs, self.clipped = peak, hold, lufs, clipped
            self.update()

    def reset(self) -> None:
        self.level_db = self.hold_db = -math.inf
        self.lufs = None
        self.clipped = False
        self.update()

    def lufs_text(self) -> str:
        if self.momentary is None and self.reduction_db is None:
            return format_lufs(self.lufs)
        short = format_lufs(self.lufs).removesuffix(" LUFS")
        momentary = format_lufs(self.momentary).removesuffix(" LUFS")
        return f"M {momentary}  S {short} LUFS"

    def reduction_text(self) -> str:
        """The limiter's gain reduction now and its deepest ("" when not metered)."""
        if self.reduction_db is None:
            return ""
        return f"GR {self.reduction_db:.1f} dB (max {self.reduction_max_db:.1f})"

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self.clipped:
            self.clipped = False
            self.update()
        event.accept()

    # ------------------------------------------------------------------ painting

    def fraction(self, db: float) -> float:
        """Where ``db`` sits on the bar, 0 (floor) .. 1 (0 dBFS)."""
        if not math.isfinite(db):
            return 0.0 if db < 0 else 1.0
        return min(1.0, max(0.0, (db - self.floor_db) / -self.floor_db))

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        pal = self.palette()
        horizontal = self.orientation == Qt.Orientation.Horizontal
        p.setFont(self._font)
        widest = "M \u221288.8  S \u221288.8 LUFS" if self.reduction_db is not None else "\u221288.8 LUFS"
        fm_w = p.fontMetrics().horizontalAdvance(widest) + 6 if horizontal else 0
        clip_w = 8.0
        w, h = float(self.width()), float(self.height())
        if horizontal:
            bar = QRectF(1.0, 2.0, max(10.0, w - fm_w - clip_w - 4), h * 0.45)
        else:
            bar = QRectF(w * 0.2, clip_w + 2, w * 0.45, max(10.0, h - clip_w - 4))
        p.fillRect(bar, QColor(30, 30, 30))
        grad = QLinearGradient(bar.bottomLeft() if not horizontal else bar.topLeft(),
                               bar.topRight() if horizontal else bar.topLeft())
        grad.setColorAt(0.0, QColor("#2e9e44"))
        grad.setColorAt(self.fraction(-18.0), QColor("#4cc35a"))
        grad.setColorAt(self.fraction(-6.0), QColor("#e8c547"))
        grad.setColorAt(1.0, QColor("#e5483b"))
        f = self.fraction(self.level_db)
        if f > 0:
            lit = (QRectF(bar.left(), bar.top(), bar.width() * f, bar.height()) if horizontal
                   else QRectF(bar.left(), bar.bottom() - bar.height() * f, bar.width(), bar.height() * f))
            p.fillRect(lit, grad)
        hf = self.fraction(self.hold_db)
        if hf > 0:
            p.setPen(QPen(QColor("#ffffff"), 2.0))
            if horizontal:
                x = bar.left() + bar.width() * hf
                p.drawLine(int(x), int(bar.top()), int(x), int(bar.bottom()))
            else:
                y = bar.bottom() - bar.height() * hf
                p.drawLine(int(bar.left()), int(y), int(bar.right()), int(y))
        # scale
        p.setPen(pal.windowText().color())
        free_from = -1e9  # labels left to right, skipping any that would overlap the previous one
        for mark in SCALE_MARKS_DB:
            if mark < self.floor_db:
                continue
            fm = self.fraction(mark)
            if horizontal:
                x = bar.left() + bar.width() * fm
                p.drawLine(int(x), int(bar.bottom()) + 1, int(x), int(bar.bottom()) + 3)
                label = str(mark)
                tw = p.fontMetrics().horizontalAdvance(label)
                left = min(max(x - tw / 2, 0), bar.right() - tw)
                if left >= free_from:
                    p.drawText(int(left), int(h) - 1, label)
                    free_from = left + tw + 3
            else:
                y = bar.bottom() - bar.height() * fm
                p.drawLine(int(bar.right()) + 1, int(y), int(bar.right()) + 3, int(y))
        # clip light
        clip = (QRectF(bar.right() + 2, bar.top(), clip_w, bar.height()) if horizontal
                else QRectF(bar.left(), 1.0, bar.width(), clip_w))
        p.fillRect(clip, QColor("#ff2d2d") if self.clipped else QColor(70, 30, 30))
        if horizontal:
            p.setPen(pal.windowText().color())
            reduction = self.reduction_text()
            align = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if reduction:  # two rows: loudness, then the limiter
                p.drawText(QRectF(w - fm_w, 0.0, fm_w, h / 2), align, self.lufs_text())
                if self.reduction_db is not None and self.reduction_db >= 1.0:
                    p.setPen(QColor("#e8a13a"))  # working: more than 1 dB off
                p.drawText(QRectF(w - fm_w, h / 2, fm_w, h / 2), align, reduction)
            else:
                p.drawText(QRectF(w - fm_w, 0.0, fm_w, h), align, self.lufs_text())
        p.end()
