"""The Sounds panel: the sound lanes' settings and the sound library.

Top: one row per sound lane (kind, gain, ducking depth, mute, solo), each
change one undoable edit (app/sound/edits.py). Below: the library (sounds/
beside the project, the user sound folder, the starter sounds), searchable,
with a preview through the engine; a sound is dragged onto a sound lane (a
new clip there) or onto a clip (it becomes that clip's sound), or given to
the selected sound clip with Assign. The library is indexed on a worker
thread (``radioplay-sound-index``, through app/marshal.run_task): a first
index reads every file once. GUI thread only, but for that task.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QMimeData, QObject, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QVBoxLayout,
    QWidget,
)

from app.document.marshal import run_task
from app.sound import edits as sound_edits
from app.sound.access import SoundStudio
from app.sound.clip_form import SoundClipForm
from app.timeline.scene import LaneKind
from engine.synth.sound_library import SOUND_SUFFIXES, SoundInfo, SoundLibrary, load_sound

_COLUMNS = ("Lane", "Kind", "Gain dB", "Duck dB", "M", "S")


class _LibraryList(QListWidget):
    """Library rows that drag out as file URLs."""

    def mimeData(self, items: Sequence[QListWidgetItem]) -> QMimeData:  # noqa: N802 - Qt override
        data = QMimeData()
        data.setUrls([QUrl.fromLocalFile(item.data(Qt.ItemDataRole.UserRole)) for item in items])
        return data


class SoundPanel(QWidget):
    def __init__(self, window: SoundStudio, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("soundPanel")
        self.studio = window  # not self.window: that would hide QWidget.window()
        self.library: SoundLibrary | None = None
        self.selected_clip: str | None = None
        self._task: Any = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.lanes = QTableWidget(0, len(_COLUMNS), self)
        self.lanes.setObjectName("soundLanes")
        self.lanes.setHorizontalHeaderLabels(_COLUMNS)
        self.lanes.verticalHeader().hide()
        self.lanes.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.lanes.setFixedHeight(self.lanes.horizontalHeader().sizeHint().height() + 3 * 32 + 4)  # three lanes
        self.lanes.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        layout.addWidget(QLabel("Sound lanes"))
        layout.addWidget(self.lanes)
        self.search = QLineEdit(self)
        self.search.setObjectName("soundSearch")
        self.search.setPlaceholderText("Search sounds (rain, door, theme...)")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._fill)
        layout.addWidget(QLabel("Library"))
        layout.addWidget(self.search)
        self.list = _LibraryList(self)
        self.list.setObjectName("soundList")
        self.list.setDragEnabled(True)
        self.list.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.list.setMinimumHeight(120)
        layout.addWidget(self.list, 1)
        buttons = QHBoxLayout()
        self.preview = QPushButton("Preview", self)
        self.preview.clicked.connect(self.play_preview)
        self.assign = QPushButton("Assign to selected clip", self)
        self.assign.setObjectName("soundAssign")
        self.assign.clicked.connect(self.assign_selected)
        buttons.addWidget(self.preview)
        buttons.addWidget(self.assign)
        layout.addLayout(buttons)
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.form = SoundClipForm(window.doc, self)
        layout.addWidget(self.form)
        window.doc.projectChanged.connect(self._project_changed)
        window.doc.projectReplaced.connect(self.reload)
        window.timeline.clip_selected.connect(self._clip_selected)
        window.timeline.viewport().setAcceptDrops(True)
        window.timeline.viewport().installEventFilter(self)
        self.reload()

    # ---- lanes ------------------------------------------------------------------------
    def _project_changed(self, field: str) -> None:
        if field == "sound_lanes":  # the timeline's lanes follow through the main window
            self.show_lanes()

    def reload(self) -> None:
        self.show_lanes()
        self.scan()

    def show_lanes(self) -> None:
        lanes = self.studio.doc.project.sound_lanes
        self.lanes.setRowCount(len(lanes))
        for row, lane in enumerate(lanes):
            self.lanes.setCellWidget(row, 0, QLabel(f" {lane.name}"))
            self.lanes.setCellWidget(row, 1, QLabel(f" {lane.kind}"))
            gain = self._spin(lane.gain_db, -60.0, 24.0, lambda v, n=lane.name: self._edit(n, gain_db=v))
            self.lanes.setCellWidget(row, 2, gain)
            duck = self._spin(lane.ducking.depth_db, -60.0, 0.0,
                              lambda v, n=lane.name: self._edit_ducking(n, v))
            duck.setToolTip("How far the lane steps back under dialogue (0: no ducking)")
            self.lanes.setCellWidget(row, 3, duck)
            for col, field in ((4, "mute"), (5, "solo")):
                box = QCheckBox(self)
                box.setChecked(getattr(lane, field))
                box.toggled.connect(lambda on, n=lane.name, f=field: self._edit(n, **{f: on}))
                self.lanes.setCellWidget(row, col, box)

    def _spin(self, value: float, lo: float, hi: float, changed: Any) -> QDoubleSpinBox:
        spin = QDoubleSpinBox(self)
        spin.setRange(lo, hi)
        spin.setDecimals(1)
        spin.setSingleStep(1.0)
        spin.setValue(value)
        spin.setKeyboardTracking(False)
        spin.valueChanged.connect(changed)
        return spin

    def _edit(self, lane: str, **values: Any) -> None:
        command = sound_edits.set_lane(self.studio.doc, lane, values, f"Change sound lane {lane}")
        if command is not None:
            self.studio.doc.undo.push(command)

    def _edit_ducking(self, lane: str, depth: float) -> None:
        current = self.studio.doc.project.sound_lane(lane).ducking
        from dataclasses import replace

        self._edit(lane, ducking=replace(current, depth_db=depth))

    # ---- library ----------------------------------------------------------------------
    def scan(self) -> None:
        """Index the library in the background (a first index reads every file once)."""
        path = self.studio.doc.path
        self.status.setText("Indexing sounds…")

        def done(library: SoundLibrary) -> None:
            self.library = library
            self._fill()
            problems = f"; {len(library.problems)} unreadable" if library.problems else ""
            self.status.setText(f"{len(library.sounds)} sounds{problems}")

        self._task = run_task("radioplay-sound-index", lambda: SoundLibrary.for_project(path),
                              self.studio.marshal, done, lambda exc: self.status.setText(str(exc)))

    def _fill(self, *_: object) -> None:
        self.list.clear()
        if self.library is None:
            return
        for info in self.library.search(self.search.text()):
            item = QListWidgetItem(f"{info.name}   {info.duration:.1f} s, "
                                   f"{'stereo' if info.channels == 2 else 'mono'}")
            item.setData(Qt.ItemDataRole.UserRole, info.path)
            item.setToolTip(info.path)
            self.list.addItem(item)

    def chosen(self) -> SoundInfo | None:
        item = self.list.currentItem()
        if item is None or self.library is None:
            return None
        path = item.data(Qt.ItemDataRole.UserRole)
        return next((s for s in self.library.sounds if s.path == path), None)

    def play_preview(self) -> None:
        info = self.chosen()
        if info is None:
            return
        rate = self.studio.doc.project.sample_rate
        audio = load_sound(Path(info.path), rate)
        if not self.studio.engine.play_recording(audio.mean(axis=1), rate):
            self.status.setText("Preview needs the engine (it is not running)")

    def _clip_selected(self, clip_id: str) -> None:
        self.selected_clip = clip_id if self.studio.doc.sound_clip(clip_id) is not None else None
        self.form.show_clip(self.selected_clip)

    def assign_selected(self) -> None:
        info = self.chosen()
        if info is None or self.selected_clip is None:
            self.status.setText("Choose a sound and click a sound clip on the timeline first")
            return
        self._assign(self.selected_clip, Path(info.path))

    def _assign(self, clip_id: str, file: Path) -> None:
        command = sound_edits.assign_file(self.studio.doc, clip_id, file)
        if command is not None:
            self.studio.doc.undo.push(command)

    # ---- dropping sounds on the timeline ----------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            drag: QDragEnterEvent = event  # type: ignore[assignment]
            if _sound_file(drag.mimeData()) is not None:
                drag.acceptProposedAction()
                return True
        elif event.type() == QEvent.Type.Drop:
            drop: QDropEvent = event  # type: ignore[assignment]
            file = _sound_file(drop.mimeData())
            if file is not None and self.drop(file, drop.position().x(), drop.position().y()):
                drop.acceptProposedAction()
                return True
        return super().eventFilter(watched, event)

    def drop(self, file: Path, x: float, y: float) -> bool:
        """A sound dropped at viewport (x, y): onto a sound clip, or onto a sound lane."""
        timeline = self.studio.timeline
        for item in timeline.items(int(x), int(y)):
            clip_id = getattr(item, "line_id", None)
            if clip_id is not None and timeline.clip_kind(clip_id) is LaneKind.SOUND:
                self._assign(clip_id, file)
                return True
        lane = timeline.lane_at(y)
        if lane is None or lane.kind is not LaneKind.SOUND:
            return False  # a role's lane takes no sounds
        target = self.studio.doc.project.sound_lane(lane.subject)
        self.studio.doc.undo.push(sound_edits.add_clip(self.studio.doc, target, file, timeline.time_at(x)))
        return True


def scrolled(panel: QWidget, name: str = "soundScroll") -> QScrollArea:
    """The panel in a scroll area: a short dock scrolls it rather than squash its neighbours."""
    area = QScrollArea()
    area.setObjectName(name)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(panel)
    return area


def _sound_file(data: QMimeData) -> Path | None:
    for url in data.urls() if data.hasUrls() else []:
        path = Path(url.toLocalFile())
        if path.suffix.lower() in SOUND_SUFFIXES:
            return path
    return None
