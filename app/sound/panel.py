"""The Sounds panel: the sound lanes' settings and the sound library.

Top: one row per sound lane (kind, gain, ducking depth, mute, solo), each
change one undoable edit (app/sound/edits.py). Below: the library (sounds/
beside the project, the user sound folder, the starter sounds), searchable,
with a preview through the engine; a sound is dragged onto a sound lane (a
new clip there) or onto a clip (it becomes that clip's sound), or given to
the selected sound clip with Assign. The library is indexed on a worker
thread (``radioplay-sound-index``, through app/marshal.run_task): a first
index reads every file once. GUI thread only, but for that task.

A producer's own files come in with Add Files…/Add Folder… or dropped from
the desktop on the panel or the timeline: they are copied into the
project's sounds/ folder (app/sound/bring_in.py says why). The library's
folders are watched (QFileSystemWatcher), so a file saved into sounds/ from
elsewhere is listed without reopening; the cues that have no sound, or
whose file is gone, are listed under the library with what to do.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from PySide6.QtCore import QEvent, QFileSystemWatcher, QMimeData, QObject, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDoubleSpinBox,
    QFileDialog,
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
from app.sound.bring_in import bring_in, sounds_folder
from app.sound.clip_form import SoundClipForm
from app.sound.suggestions import SuggestedSounds
from app.timeline.scene import LaneKind
from engine.synth.sound_library import SOUND_SUFFIXES, SoundInfo, SoundLibrary, library_folders, load_sound

RESCAN_AFTER_MS = 400  # a file being written fires several changes: index once they settle
MISSING_SHOWN = 6
BED_AT_S = 10.0  # a sound this long or longer, dropped where there is no lane, starts an ambience lane

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
        # Scans run on their own threads and may finish in any order: only the latest one's
        # library is shown (the window's first scan, made before its file is opened, knows
        # no project folder and must not land after the one made once it is).
        self._scans = 0
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        # The sounds the script describes first: after an import, they are what to answer.
        self.suggested = SuggestedSounds(window, self)
        layout.addWidget(self.suggested)
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
        # What is missing first: it is what the producer has to act on.
        self.missing = QLabel("", self)
        self.missing.setObjectName("soundMissing")
        self.missing.setWordWrap(True)
        layout.addWidget(self.missing)
        self.library_header = QHBoxLayout()
        self.library_header.addWidget(QLabel("Library"), 1)
        layout.addLayout(self.library_header)
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
        self.add_files_button = QPushButton("Add Files…", self)
        self.add_files_button.setToolTip("Copy sound files into the project's sounds/ folder")
        self.add_files_button.clicked.connect(self.choose_files)
        self.add_folder_button = QPushButton("Add Folder…", self)
        self.add_folder_button.setToolTip("Copy a folder's sound files into the project's sounds/ folder")
        self.add_folder_button.clicked.connect(self.choose_folder)
        self.library_header.addWidget(self.add_files_button)
        self.library_header.addWidget(self.add_folder_button)
        self.status = QLabel("", self)
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self._rescan = QTimer(self)
        self._rescan.setSingleShot(True)
        self._rescan.setInterval(RESCAN_AFTER_MS)
        self._rescan.timeout.connect(lambda: self.scan())
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(lambda _: self._rescan.start())
        self.setAcceptDrops(True)
        self.list.setAcceptDrops(True)
        self.list.viewport().installEventFilter(self)
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
        if field == "sounds":
            self.show_missing()

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
    def scan(self, note: str = "") -> None:
        """Index the library in the background (a first index reads every file once);
        ``note`` (what was just done) stays in the status line."""
        path = self.studio.doc.path
        self.status.setText("; ".join(filter(None, [note, "indexing sounds…"])))

        self._watch(path)
        self._scans += 1
        scan_number = self._scans

        def done(library: SoundLibrary) -> None:
            if scan_number != self._scans:  # a later scan is under way: its result is the one shown
                return
            self.library = library
            self._fill()
            problems = f"; {len(library.problems)} unreadable: {library.problems[0]}" if library.problems else ""
            self.status.setText("; ".join(filter(None, [note, f"{len(library.sounds)} sounds{problems}"])))
            self.show_missing()

        def failed(exc: BaseException) -> None:
            if scan_number == self._scans:
                self.status.setText(str(exc))

        self._task = run_task("radioplay-sound-index", lambda: SoundLibrary.for_project(path),
                              self.studio.marshal, done, failed)

    def _watch(self, project_path: Path | None) -> None:
        """Watch the library's folders and their subfolders (and the project's folder, so a
        sounds/ folder made there is seen)."""
        folders = library_folders(project_path)
        if project_path is not None:
            folders.append(Path(project_path).resolve().parent)
        wanted = {str(f) for f in folders if f.is_dir()}
        for folder in folders[:-1] if project_path is not None else folders:
            if folder.is_dir():
                wanted.update(str(d) for d in folder.rglob("*") if d.is_dir() and not d.name.startswith("."))
        watched = set(self.watcher.directories())
        if watched - wanted:
            self.watcher.removePaths(sorted(watched - wanted))
        if wanted - watched:
            self.watcher.addPaths(sorted(wanted - watched))

    # ---- bringing files in --------------------------------------------------------------
    def choose_files(self) -> None:
        suffixes = " ".join(f"*{s}" for s in SOUND_SUFFIXES)
        files, _ = QFileDialog.getOpenFileNames(self, "Add Sound Files", str(Path.home()),
                                                f"Sounds ({suffixes})")
        if files:
            self.add_files([Path(f) for f in files])

    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a Folder of Sounds", str(Path.home()))
        if folder:
            self.add_files([Path(folder)])

    def add_files(self, files: Sequence[Path]) -> list[Path]:
        """Copy sound files (or folders of them) into the project's sounds/ folder and index
        them; the copies' paths. The status line says where they went, or what went wrong."""
        folder = sounds_folder(self.studio.doc.path)
        copied, problems = bring_in(files, folder)
        where = "sounds/" if self.studio.doc.path is not None else f"{folder} (save the project to keep them beside it)"
        text = f"Copied {len(copied)} sound{'s' if len(copied) != 1 else ''} into {where}" if copied else ""
        if problems:
            text = "; ".join([text, *problems[:3]] if text else problems[:3])
        self.status.setText(text)
        if copied:
            self.scan(text)
        return copied

    def show_missing(self) -> None:
        """The cues with no sound yet, or whose file is gone, each with what to do."""
        project_dir = self.studio.doc.path.resolve().parent if self.studio.doc.path is not None else None
        missing = []
        for clip in self.studio.doc.project.sounds:
            name = f"\u201c{clip.cue or clip.id}\u201d ({clip.lane})"
            if not clip.file:
                missing.append(f"{name}: no sound yet")
                continue
            path = Path(clip.file)
            if not path.is_absolute() and project_dir is not None:
                path = project_dir / path
            if not path.is_file():
                missing.append(f"{name}: {clip.file} is not there")
        if not missing:
            self.missing.setText("")
            self.missing.hide()
            return
        more = f"<br>and {len(missing) - MISSING_SHOWN} more" if len(missing) > MISSING_SHOWN else ""
        self.missing.setText(f"<b>{len(missing)} cue{'s' if len(missing) != 1 else ''} without a sound:</b><br>"
                             + "<br>".join(missing[:MISSING_SHOWN]) + more
                             + "<br>To fix: drop a file on its clip, or select the clip and a sound and click "
                               "Assign; Add Files… brings your own into the library.")
        self.missing.show()

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
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt override
        if _outside_files(event.mimeData(), self._library_paths()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt override
        files = _outside_files(event.mimeData(), self._library_paths())
        if files:
            self.add_files(files)
            event.acceptProposedAction()

    def _library_paths(self) -> set[str]:
        return {s.path for s in self.library.sounds} if self.library is not None else set()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if watched == self.list.viewport():  # files from the desktop dropped on the library list
            if event.type() in (QEvent.Type.DragEnter, QEvent.Type.DragMove, QEvent.Type.Drop):
                drag = cast(QDropEvent, event)  # the event's type() says which class Qt made
                files = _outside_files(drag.mimeData(), self._library_paths())
                if files:
                    if event.type() == QEvent.Type.Drop:
                        self.add_files(files)
                    drag.acceptProposedAction()
                    return True
            return super().eventFilter(watched, event)
        if event.type() in (QEvent.Type.DragEnter, QEvent.Type.DragMove):
            entering = cast(QDragEnterEvent, event)
            if _sound_file(entering.mimeData()) is not None:
                entering.acceptProposedAction()
                return True
        elif event.type() == QEvent.Type.Drop:
            drop = cast(QDropEvent, event)
            file = _sound_file(drop.mimeData())
            if file is not None and str(file) not in self._library_paths():  # from the desktop: copied in first
                copies = self.add_files([file])
                file = copies[0] if copies else None
            if file is not None and self.drop(file, drop.position().x(), drop.position().y()):
                drop.acceptProposedAction()
                return True
        return super().eventFilter(watched, event)

    def drop(self, file: Path, x: float, y: float) -> bool:
        """A sound dropped at viewport (x, y): onto a sound clip (its sound), onto a sound lane
        (a new clip there), or onto the empty timeline under the lanes, or anywhere while the
        play has no sound lane yet (a new lane with the clip: its first one comes by a drop)."""
        timeline = self.studio.timeline
        for item in timeline.items(int(x), int(y)):
            clip_id = getattr(item, "line_id", None)
            if clip_id is not None and timeline.clip_kind(clip_id) is LaneKind.SOUND:
                self._assign(clip_id, file)
                return True
        lane = timeline.lane_at(y)
        doc = self.studio.doc
        if lane is None or not doc.project.sound_lanes:  # no sound lane there (or none at all): make one
            doc.undo.push(sound_edits.add_lane_with_clip(doc, self._kind_of(file), file, timeline.time_at(x)))
            return True
        if lane.kind is not LaneKind.SOUND:
            return False  # a role's lane takes no sounds
        doc.undo.push(sound_edits.add_clip(doc, doc.project.sound_lane(lane.subject), file, timeline.time_at(x)))
        return True

    def _kind_of(self, file: Path) -> str:
        """The lane kind a sound dropped on no lane starts: a bed (ambience) for a long file, an
        effect for a short one (the producer moves it or changes the lane's kind after)."""
        info = next((s for s in self.library.sounds if s.path == str(file)), None) if self.library else None
        return "ambience" if info is not None and info.duration >= BED_AT_S else "effects"


def scrolled(panel: QWidget, name: str = "soundScroll") -> QScrollArea:
    """The panel in a scroll area: a short dock scrolls it rather than squash its neighbours."""
    area = QScrollArea()
    area.setObjectName(name)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(panel)
    return area


def _outside_files(data: QMimeData, library: set[str]) -> list[Path]:
    """Local files and folders dropped from elsewhere (not the library's own rows)."""
    paths = [Path(url.toLocalFile()) for url in data.urls() if url.isLocalFile()] if data.hasUrls() else []
    return [p for p in paths if str(p) not in library and (p.is_dir() or p.suffix.lower() in SOUND_SUFFIXES)]


def _sound_file(data: QMimeData) -> Path | None:
    for url in data.urls() if data.hasUrls() else []:
        path = Path(url.toLocalFile())
        if path.suffix.lower() in SOUND_SUFFIXES:
            return path
    return None
