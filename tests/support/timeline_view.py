"""The timeline widget driven with plain clip records and synthetic mouse input: lanes, clips,
pointer helpers, and the ``peaks``/``view`` fixtures (a plugin of tests/conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.timeline.view import LANE_HEIGHT, Lane, TimelineView

NOMOD = Qt.KeyboardModifier.NoModifier
LEFT = Qt.MouseButton.LeftButton


@dataclass(frozen=True)
class Clip:
    line_id: str
    role: str
    start: float
    end: float
    estimated: bool = False


LANES = [Lane("MAGGIE", "#e6194b"), Lane("TOM", "#3cb44b"), Lane("NARRATOR", "#4363d8", muted=True)]
CLIPS = [Clip("L1", "MAGGIE", 0.0, 2.13), Clip("L2", "TOM", 3.0, 4.5), Clip("L3", "NARRATOR", 5.0, 7.0),
         Clip("L4", "MAGGIE", 8.0, 9.0, estimated=True)]


class Peaks:
    """A peaks callable that counts calls: a sine envelope, or None for lines without audio."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self.missing: set[str] = set()

    def __call__(self, line_id: str, columns: int) -> np.ndarray | None:
        self.calls.append((line_id, columns))
        if line_id in self.missing:
            return None
        env = np.abs(np.sin(np.linspace(0, 6, columns)))
        return np.stack([-env, env], axis=1).astype(np.float32)


@pytest.fixture
def peaks() -> Peaks:
    return Peaks()


@pytest.fixture
def view(qtbot, peaks) -> TimelineView:
    v = TimelineView(peaks)
    qtbot.addWidget(v)
    v.resize(1000, 320)
    v.set_lanes(LANES)
    v.set_clips(CLIPS, {"L1": "Is anyone there?"})
    v.show()
    qtbot.waitExposed(v)
    v.set_zoom(100.0, 0.0)
    v.horizontalScrollBar().setValue(0)
    return v


def vp(view: TimelineView, seconds: float, lane: int) -> QPoint:
    """Viewport point at a time, in the middle of a lane."""
    y = view.mapFromScene(0.0, lane * LANE_HEIGHT + LANE_HEIGHT / 2).y()
    return QPoint(round(view.x_of(seconds)), y)


def move(widget, pos: QPoint, mods=NOMOD, buttons=LEFT) -> None:
    """A mouse move, by default with the left button held. Sent directly: QTest.mouseMove can
    carry no modifiers and drops a move to where the previous test left the cursor."""
    local = QPointF(pos)
    event = QMouseEvent(QEvent.Type.MouseMove, local, widget.mapToGlobal(local), Qt.MouseButton.NoButton,
                        buttons, mods)
    QApplication.sendEvent(widget, event)


def drag(view: TimelineView, start: QPoint, end: QPoint, mods=NOMOD) -> None:
    w = view.viewport()
    QTest.mousePress(w, LEFT, mods, start)
    move(w, QPoint((start.x() + end.x()) // 2, start.y()), mods)
    move(w, end, mods)
    QTest.mouseRelease(w, LEFT, mods, end)
