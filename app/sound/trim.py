"""Fades and trims on the timeline's sound clips, and mute by clicking a sound lane's header.

A selected sound clip shows two small handles at its top corners, placed at its fade-in and
fade-out lengths, with the fade ramps drawn from its bottom corners. Dragging a handle sets
that fade; dragging the clip's left edge trims its start (the offset moves later, the length
shrinks, the end stays put); dragging its right edge sets its length. Each drag is one
undoable edit through :func:`app.sound.edits.set_clip`, the command the Sounds panel's form
uses. Clicking a sound lane's name in the lane header mutes it (Shift: solos it), through
:func:`app.sound.edits.set_lane` as the panel's checkboxes do. This lives beside the view
(an event filter on its viewport and header) so the cast-lane timeline stays unaware of
sound clips. GUI thread only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QMouseEvent, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsPathItem, QGraphicsRectItem

from app.sound import edits as sound_edits
from app.sound.access import SoundStudio
from app.timeline.items import ClipItem
from app.timeline.scene import LaneKind

HANDLE = 8.0  # px, the fade handles' side
EDGE = 5.0  # px inside a clip's left/right edge that grabs the edge
MIN_LENGTH = 0.05  # s, what a trim leaves at least


@dataclass
class _Grip:
    item: ClipItem
    mode: str  # "fade_in", "fade_out", "left" or "right"
    press_x: float
    dx: float = 0.0


class SoundTrim(QObject):
    def __init__(self, window: SoundStudio) -> None:
        super().__init__(window.timeline)
        self.window = window
        self.timeline = window.timeline
        self._grip: _Grip | None = None
        self._handles: list[Any] = []
        self._key: tuple[str, float, float] | None = None  # what the handles were placed for
        self.timeline.viewport().installEventFilter(self)
        self.timeline.header.installEventFilter(self)
        self.timeline.clip_selected.connect(lambda _id: self.refresh())
        # After the presenter has redrawn the clips (same turn of the event loop), not before.
        window.doc.projectChanged.connect(lambda _f: QTimer.singleShot(0, self.refresh))

    # ------------------------------------------------------------------ the selected clip

    def selected(self) -> tuple[ClipItem, Any] | None:
        """The selected sound clip's item and its SoundClip, if a sound clip is selected."""
        line_id = self.timeline.selected_line()
        item = self.timeline.clip_item(line_id) if line_id else None
        clip = self.window.doc.sound_clip(line_id) if line_id else None
        return (item, clip) if item is not None and clip is not None else None

    def refresh(self) -> None:
        """Put the handles and ramps on the selected sound clip (or take them away)."""
        for old in self._handles:
            try:
                if old.scene() is not None:
                    old.scene().removeItem(old)
            except RuntimeError:  # its clip left the scene, and took its handles with it
                pass
        self._handles = []
        self._key = None
        chosen = self.selected()
        if chosen is None:
            return
        item, clip = chosen
        w, h = item.boundingRect().width(), item.boundingRect().height()
        zoom = self.timeline.zoom()
        self._key = (clip.id, zoom, w)
        fin, fout = min(w, clip.fade_in * zoom), min(w, clip.fade_out * zoom)
        ramp = QPainterPath(QPointF(0.0, h))
        ramp.lineTo(fin, 0.0)
        ramp.moveTo(w - fout, 0.0)
        ramp.lineTo(w, h)
        path = QGraphicsPathItem(ramp, item)
        path.setPen(QPen(QColor("#ffffff"), 1.0, Qt.PenStyle.DashLine))
        self._handles.append(path)
        for x in (fin, w - fout):
            box = QGraphicsRectItem(QRectF(-HANDLE / 2, 0.0, HANDLE, HANDLE), item)
            box.setPos(min(max(x, HANDLE / 2), w - HANDLE / 2), 0.0)
            box.setBrush(QBrush(QColor("#ffffff")))
            box.setPen(QPen(QColor("#202020"), 1.0))
            self._handles.append(box)

    def grip_at(self, pos: QPointF) -> _Grip | None:
        """What pressing at viewport ``pos`` grabs on the selected sound clip, if anything."""
        chosen = self.selected()
        if chosen is None:
            return None
        item = chosen[0]
        for handle, mode in zip(self._handles[1:], ("fade_in", "fade_out"), strict=False):
            rect = self.timeline.mapFromScene(handle.sceneBoundingRect()).boundingRect()
            if QRectF(rect).adjusted(-2, -2, 2, 2).contains(pos):
                return _Grip(item, mode, pos.x())
        rect = QRectF(self.timeline.mapFromScene(item.sceneBoundingRect()).boundingRect())
        if rect.top() <= pos.y() <= rect.bottom():
            if abs(pos.x() - rect.left()) <= EDGE:
                return _Grip(item, "left", pos.x())
            if abs(pos.x() - rect.right()) <= EDGE:
                return _Grip(item, "right", pos.x())
        return None

    # ------------------------------------------------------------------ the edit

    def fields(self, grip: _Grip, seconds: float) -> dict[str, Any]:
        """The clip's new fields after its ``grip.mode`` moved by ``seconds``."""
        clip = self.window.doc.sound_clip(grip.item.line_id)
        assert clip is not None, "a grip is only made on a selected sound clip"
        # A length the clip already has is the truth; the item may still show the previous edit.
        length = clip.length if clip.end == "length" and clip.length else grip.item.duration
        if grip.mode == "fade_in":
            return {"fade_in": round(min(length, max(0.0, clip.fade_in + seconds)), 3)}
        if grip.mode == "fade_out":
            return {"fade_out": round(min(length, max(0.0, clip.fade_out - seconds)), 3)}
        if grip.mode == "right":
            return {"end": "length", "length": round(max(MIN_LENGTH, length + seconds), 3)}
        cut = min(seconds, length - MIN_LENGTH)
        return {"offset": round(clip.offset + cut, 4), "end": "length", "length": round(length - cut, 3)}

    def commit(self, grip: _Grip) -> None:
        seconds = grip.dx / self.timeline.zoom()
        if abs(grip.dx) < 1.0:
            return
        words = {"fade_in": "Fade in sound", "fade_out": "Fade out sound", "left": "Trim sound start",
                 "right": "Trim sound end"}
        command = sound_edits.set_clip(self.window.doc, grip.item.line_id, self.fields(grip, seconds),
                                       words[grip.mode])
        if command is not None:
            self.window.doc.undo.push(command)

    def _stale(self) -> bool:
        item = self.timeline.clip_item(self._key[0]) if self._key else None
        return item is None or self._key != (item.line_id, self.timeline.zoom(), item.boundingRect().width())

    def _show_hint(self, grip: _Grip) -> None:
        """What releasing here sets, in the drag hint above the clip."""
        values = self.fields(grip, grip.dx / self.timeline.zoom())
        hint = self.timeline.drag.hint
        hint.setText(", ".join(f"{k.replace('_', ' ')} {v:.2f} s" for k, v in values.items()
                               if isinstance(v, float) and k != "offset"))
        clip = grip.item.sceneBoundingRect()
        hint.setPos(clip.left() + 2.0, max(0.0, clip.top() - hint.boundingRect().height()))
        hint.show()

    # ------------------------------------------------------------------ events

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.timeline.header:
            return self._header_event(event)
        kind = event.type()
        if kind == QEvent.Type.Paint and self._key is not None and self._stale():
            QTimer.singleShot(0, self.refresh)  # zoomed, or the clip was redrawn longer or shorter
        elif kind == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent):
            if event.button() == Qt.MouseButton.LeftButton:
                self._grip = self.grip_at(event.position())
                return self._grip is not None
        elif kind == QEvent.Type.MouseMove and self._grip is not None and isinstance(event, QMouseEvent):
            self._grip.dx = event.position().x() - self._grip.press_x
            self._show_hint(self._grip)
            return True
        elif kind == QEvent.Type.MouseButtonRelease and self._grip is not None:
            grip, self._grip = self._grip, None
            self.timeline.drag.hint.hide()
            self.commit(grip)
            return True
        return False

    def _header_event(self, event: QEvent) -> bool:
        if event.type() != QEvent.Type.MouseButtonPress or not isinstance(event, QMouseEvent):
            return False
        pos = event.position()
        lane = self.timeline.lane_at(pos.y())
        if lane is None or lane.kind is not LaneKind.SOUND:
            return False
        index = self.timeline.lanes().index(lane)
        if self.timeline.header.clip_rect(index).adjusted(-3, -4, 3, 4).contains(pos):
            return False  # the level meter's clip light keeps its own click
        field = "solo" if event.modifiers() & Qt.KeyboardModifier.ShiftModifier else "mute"
        command = sound_edits.toggle_lane(self.window.doc, lane.subject, field)
        if command is not None:
            self.window.doc.undo.push(command)
        return True
