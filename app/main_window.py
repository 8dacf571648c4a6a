"""The studio window: script in the middle, cast, timeline and monitor around it.

Owns the Document (project, undo stack), the EngineThread (the Session) and
the panels. The GUI thread never waits on the engine: edits are posted to
the engine thread, and a QTimer at ``POLL_HZ`` draws the latest engine
snapshot (line status, clips, playhead, metrics). File commands live in
app/file_ops.py.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QMenu, QMessageBox, QWidget

from app import menus, panels
from app.actions import build_actions
from app.cast_panel import CastPanel
from app.commands import move_clip
from app.document import Document
from app.engine_thread import EngineThread
from app.file_ops import FileOps
from app.marshal import Marshal
from app.recovery import Autosaver, RecoveryStore
from app.script_editor import ScriptEditor
from app.voices import VoiceCatalog
from engine.project.model import Project
from engine.project.timeline import layout

POLL_HZ = 20
SessionFactory = Callable[[Project, Path | None], Any]


def default_session_factory(output: str | None = None, prerender: bool = True) -> SessionFactory:
    def make(project: Project, path: Path | None) -> Any:
        from engine.session import Session  # on the engine thread: loads voices, opens audio

        return Session(project, path, output=output, prerender=prerender)

    return make


@dataclass(frozen=True)
class _Clip:
    """An estimated clip for the timeline while the engine is not running yet."""

    line_id: str
    role: str
    start: float
    end: float
    estimated: bool = True


class MainWindow(QMainWindow):
    def __init__(self, path: Path | None = None, *, settings: QSettings | None = None,
                 session_factory: SessionFactory | None = None, recovery: RecoveryStore | None = None,
                 catalog: VoiceCatalog | None = None, project: Project | None = None) -> None:
        super().__init__()
        self.setObjectName("radioplayMainWindow")
        self.settings = settings if settings is not None else QSettings()
        saved_output = self.settings.value("audio/output")
        self.session_factory = session_factory or default_session_factory(
            output=str(saved_output) if saved_output else None)
        self.marshal = Marshal(self)
        self.catalog = catalog or VoiceCatalog()
        self.doc = Document(project or panels.new_project(), None, self)
        self.recovery = recovery or RecoveryStore()
        self.autosaver = Autosaver(self.doc, self.recovery, self)
        self.engine: EngineThread | None = None
        self._retiring: list[EngineThread] = []
        self._last_serial = -1
        self._seen: dict[str, Any] = {}
        self.last_error: str | None = None  # the last error shown to the producer (tests read it)
        # Made by app/menus.py:
        self.recent_menu: QMenu
        self.output_menu: QMenu
        self.master_menu: QMenu
        self.clock: QLabel  # only without the transport bar
        self.resize(1440, 900)

        self.script = ScriptEditor(self.doc, self)
        self.setCentralWidget(self.script)
        self.cast = CastPanel(self.doc, self.catalog, self)
        self.timeline = panels.make_timeline(self._peaks, self)
        self.monitor = panels.make_monitor(self)
        self.transport = panels.make_transport(self)
        # Script in the middle; cast above the monitor on the left; the timeline across the bottom.
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.cast_dock = self._dock("castDock", "Cast", self.cast, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.monitor_dock = panels.monitor_dock(self, self.monitor)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.monitor_dock)
        self.splitDockWidget(self.cast_dock, self.monitor_dock, Qt.Orientation.Vertical)
        self.timeline_dock = self._dock("timelineDock", "Timeline", self.timeline,
                                        Qt.DockWidgetArea.BottomDockWidgetArea)
        self.resizeDocks([self.cast_dock], [660], Qt.Orientation.Horizontal)
        self.resizeDocks([self.timeline_dock], [330], Qt.Orientation.Vertical)
        self.resizeDocks([self.cast_dock, self.monitor_dock], [280, 220], Qt.Orientation.Vertical)

        self.actions_ = build_actions(self)
        panels.adopt_transport_actions(self)
        self.files = FileOps(self)
        menus.build_menus(self)
        menus.build_toolbars(self)
        self._build_status_bar()
        self._connect()
        self._default_state = self.saveState()
        self._restore_settings()

        self.poll_timer = QTimer(self)
        self.poll_timer.setObjectName("enginePoll")
        self.poll_timer.setInterval(int(1000 / POLL_HZ))
        self.poll_timer.timeout.connect(self.poll)
        self.poll_timer.start()

        if path is not None:
            self.files.load(Path(path))
        else:
            self._project_replaced()

    # ---- construction ------------------------------------------------------
    def _dock(self, name: str, title: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable
                         | QDockWidget.DockWidgetFeature.DockWidgetFloatable
                         | QDockWidget.DockWidgetFeature.DockWidgetClosable)
        self.addDockWidget(area, dock)
        return dock

    def _build_status_bar(self) -> None:
        status = self.statusBar()
        self.engine_label = QLabel("Engine: starting…", self)
        self.engine_label.setObjectName("engineLabel")
        self.lines_label = QLabel("", self)
        self.lines_label.setObjectName("linesLabel")
        status.addPermanentWidget(self.lines_label)
        status.addPermanentWidget(self.engine_label)

    def _connect(self) -> None:
        a, doc = self.actions_, self.doc
        files = self.files
        a["new"].triggered.connect(files.new)
        a["open"].triggered.connect(lambda: files.open())
        a["save"].triggered.connect(files.save)
        a["save_as"].triggered.connect(lambda: files.save_as())
        a["import"].triggered.connect(lambda: files.import_script())
        a["export"].triggered.connect(lambda: files.export())
        a["quit"].triggered.connect(self.close)
        a["undo"].triggered.connect(doc.undo.undo)
        a["redo"].triggered.connect(doc.undo.redo)
        doc.undo.canUndoChanged.connect(a["undo"].setEnabled)
        doc.undo.canRedoChanged.connect(a["redo"].setEnabled)
        doc.undo.undoTextChanged.connect(self._undo_text)
        doc.undo.redoTextChanged.connect(self._redo_text)
        a["undo"].setEnabled(False)
        a["redo"].setEnabled(False)
        doc.undo.cleanChanged.connect(self._clean_changed)
        a["add_role"].triggered.connect(self.cast.add_role)
        a["audition"].triggered.connect(lambda: self.cast.audition_row(self.cast.current_row()))
        if self.transport is None:  # otherwise the transport bar's signals drive these (panels.py)
            a["play_pause"].triggered.connect(self.play_pause)
            a["stop"].triggered.connect(self.stop)
            a["from_start"].triggered.connect(self.from_start)
            a["loop"].toggled.connect(self._loop_toggled)
        a["play_line"].triggered.connect(self.play_from_line)
        a["reset_layout"].triggered.connect(lambda: self.restoreState(self._default_state))
        a["shortcuts"].triggered.connect(self.show_shortcuts)
        a["about"].triggered.connect(self.show_about)
        doc.projectChanged.connect(self._project_changed)

        doc.lineChanged.connect(self._line_changed)
        doc.linesReset.connect(self._lines_reset)
        doc.roleChanged.connect(self._role_changed)
        doc.castReset.connect(self._cast_reset)
        doc.projectReplaced.connect(self._project_replaced)
        doc.pathChanged.connect(self._update_title)
        self.cast.auditionRequested.connect(self.audition)
        for source in (self.cast.status, self.script.status):
            source.connect(self.show_status)
        self.script.lineActivated.connect(self.seek_to_line)
        panels.connect_timeline(self)
        panels.connect_transport(self)

    # Bound methods, not lambdas: Qt drops these connections when the window goes, while the
    # undo stack still emits as it is destroyed.
    def _undo_text(self, text: str) -> None:
        self.actions_["undo"].setText(f"&Undo {text}".strip())

    def _redo_text(self, text: str) -> None:
        self.actions_["redo"].setText(f"&Redo {text}".strip())

    def _clean_changed(self, clean: bool) -> None:
        self.setWindowModified(not clean)

    def show_status(self, message: str) -> None:
        self.statusBar().showMessage(message, 8000)

    # ---- settings ------------------------------------------------------------
    def _restore_settings(self) -> None:
        geometry = self.settings.value("window/geometry")
        if isinstance(geometry, QByteArray | bytes):
            self.restoreGeometry(QByteArray(geometry))
        state = self.settings.value("window/state")
        if isinstance(state, QByteArray | bytes):
            self.restoreState(QByteArray(state))

    def _save_settings(self) -> None:
        self.settings.setValue("window/geometry", self.saveGeometry())
        self.settings.setValue("window/state", self.saveState())
        self.settings.sync()

    def fill_recent_menu(self) -> None:
        menus.fill_recent_menu(self)

    def show_shortcuts(self) -> None:
        menus.show_shortcuts(self)

    def show_about(self) -> None:
        menus.show_about(self)

    def _update_title(self) -> None:
        self.setWindowTitle(f"{self.doc.display_name()}[*] — Radioplay")
        self.setWindowModified(self.doc.is_modified())

    # ---- the engine -------------------------------------------------------------
    def _start_engine(self) -> None:
        self._stop_engine()
        project, path, factory = self.doc.project, self.doc.path, self.session_factory
        engine = EngineThread(lambda: factory(project, path), self)
        engine.ready.connect(self._engine_ready)
        engine.failed.connect(self._engine_failed)
        engine.commandFailed.connect(self.show_status)
        self.engine = engine
        self._last_serial = -1
        self._seen.clear()
        self.engine_label.setText("Engine: starting…")
        self._set_engine_actions(False)
        engine.start()

    def _stop_engine(self) -> None:
        if self.engine is None:
            return
        engine, self.engine = self.engine, None
        for sig in (engine.ready, engine.failed):
            sig.disconnect()
        engine.stop()
        self._retiring.append(engine)
        engine.finished.connect(lambda e=engine: self._retired(e))

    def _retired(self, engine: EngineThread) -> None:
        if engine in self._retiring:
            self._retiring.remove(engine)
            engine.deleteLater()

    def _engine_ready(self) -> None:
        self.engine_label.setText("Engine: ready")
        self.engine_label.setToolTip("")
        self._set_engine_actions(True)

    def _engine_failed(self, message: str) -> None:
        self.engine_label.setText("Engine: not running")
        self.engine_label.setToolTip(message)
        self.show_error("The voice engine could not start",
                        f"{message}\n\nYou can keep editing and saving; playback and export need the engine.")

    def _set_engine_actions(self, enabled: bool) -> None:
        for name in ("play_pause", "stop", "from_start", "play_line", "loop", "audition"):
            self.actions_[name].setEnabled(enabled)

    def session(self) -> Any:
        """The running Session, or None (for the export worker and tests)."""
        if self.engine is not None and self.engine.isRunning():
            return self.engine.session
        return None

    def _post(self, command: Callable[[Any], None]) -> None:
        if self.engine is not None:
            self.engine.post(command)

    def _peaks(self, line_id: str, columns: int) -> Any:
        session = self.session()
        return session.clip_peaks(line_id, columns) if session is not None else None

    def _line_changed(self, line_id: str) -> None:
        if self.engine is not None:
            self.engine.line_changed(line_id, typing=True)
        self._refresh_layout()

    def _lines_reset(self) -> None:
        self._post(lambda s: s.lines_changed())
        self._refresh_layout()

    def _role_changed(self, name: str, field: str) -> None:
        self._post(lambda s: s.role_changed(name))
        panels.update_lanes(self)
        if field.startswith("voice"):
            self.statusBar().showMessage(f"{name}'s lines will be voiced again with the new settings", 4000)

    def _cast_reset(self) -> None:
        self._post(lambda s: s.cast_changed())
        panels.update_lanes(self)

    def _project_changed(self, field: str) -> None:
        if field == "master_effect":
            self._post(lambda s: s.master_changed())
            self.statusBar().showMessage(f"Master effect: {self.doc.project.master_effect}", 4000)

    def set_output(self, name: str) -> None:
        """Play through another device (remembered for the next start)."""
        self.settings.setValue("audio/output", name)
        self._post(lambda s: s.set_output(name))

    def _project_replaced(self) -> None:
        self.catalog.set_base_dir(self.doc.path.parent if self.doc.path else None)
        self._update_title()
        panels.update_lanes(self)
        self._refresh_layout()
        self._start_engine()
        self.autosaver.schedule()

    def _refresh_layout(self) -> None:
        """Until the engine reports clips, lanes show the estimated layout."""
        if self._seen.get("clips") is None:
            clips = [_Clip(p.line_id, p.role, p.start, p.end) for p in layout(self.doc.project, {})]
            panels.show_clips(self, clips)

    # ---- polling the engine ----------------------------------------------------------
    def poll(self) -> None:
        """Draw the engine's latest snapshot, if there is a new one (QTimer, GUI thread)."""
        state = self.engine.latest() if self.engine is not None else None
        if state is None or state.serial == self._last_serial:
            return
        self._last_serial = state.serial
        panels.draw_state(self, state, self._seen)

    def move_clip(self, line_id: str, new_start: float) -> None:
        """The timeline dropped a clip at ``new_start``: one undoable edit of the line's placement."""
        state = self.engine.latest() if self.engine is not None else None
        clips = (state.clips if state is not None and state.clips else None) or [
            _Clip(p.line_id, p.role, p.start, p.end) for p in layout(self.doc.project, {})]
        # Relative placement (pause, overlap) only when every length it depends on is real.
        index = self.doc.line_index(line_id)
        earlier = {line.id for line in self.doc.project.lines[: index + 1]}
        exact = all(not c.estimated for c in clips if c.line_id in earlier)
        command = move_clip(self.doc, line_id, new_start, {c.line_id: c.end - c.start for c in clips}, exact)
        if command.new:
            self.doc.undo.push(command)
        else:  # dropped where it was: put the dragged item back
            panels.show_clips(self, clips)

    # ---- transport -------------------------------------------------------------------------
    def _playing(self) -> bool:
        state = self.engine.latest() if self.engine is not None else None
        return bool(state and state.transport.playing)

    def play_pause(self) -> None:
        self.set_playing(not self._playing())

    def set_playing(self, play: bool) -> None:
        self._post(lambda s: s.play() if play else s.pause())

    def stop(self) -> None:
        self._post(lambda s: s.stop())

    def from_start(self) -> None:
        """Home: back to the top; keeps playing if it was."""
        if self._playing():
            self._post(lambda s: s.play(0.0))
        else:
            self.seek(0.0)

    def seek(self, seconds: float) -> None:
        self._post(lambda s: s.seek(max(0.0, seconds)))
        panels.show_playhead(self, max(0.0, seconds))

    def seek_to_line(self, line_id: str) -> None:
        start = self.script.model.start_of(line_id)
        if start is not None:
            self.seek(start)

    def play_from_line(self) -> None:
        line_id = self.script.current_line_id()
        start = self.script.model.start_of(line_id) if line_id else None
        self._post(lambda s: s.play(start if start is not None else None))

    def _loop_toggled(self, on: bool) -> None:
        region = panels.loop_region(self) if on else None
        if on and region is None:
            self.statusBar().showMessage("Drag on the timeline ruler to choose the loop region first", 6000)
            self.actions_["loop"].setChecked(False)
            return
        self._post(lambda s: s.set_loop(region))

    def loop_changed(self, region: tuple[float, float] | None) -> None:
        loop = self.actions_["loop"]
        loop.blockSignals(True)
        loop.setChecked(region is not None)
        loop.blockSignals(False)
        self._post(lambda s: s.set_loop(region))

    def audition(self, role: str, text: str) -> None:
        if self.engine is None:
            return
        self._post(lambda s: s.audition(role, text))
        self.statusBar().showMessage(f"Auditioning {role}: “{text[:60]}”", 5000)

    # ---- messages -------------------------------------------------------------------------
    def show_error(self, title: str, text: str) -> None:
        """A message box that does not block the event loop (never a traceback)."""
        self.last_error = f"{title}: {text}"
        self.statusBar().showMessage(title, 10000)
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setObjectName("errorBox")
        box.open()

    # ---- closing ---------------------------------------------------------------------------------
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self.files.maybe_save() or not self.files.finish_export():
            event.ignore()
            return
        self.shutdown()
        event.accept()

    def shutdown(self, clean: bool = True) -> None:
        """Stop timers and threads; a clean exit removes the window's recovery slot."""
        self.poll_timer.stop()
        self.autosaver.timer.stop()
        self._save_settings()
        self._stop_engine()
        for engine in list(self._retiring):
            engine.wait()
            self._retired(engine)
        if clean:
            self.recovery.discard()
        else:  # unsaved work stays for the next start to offer
            self.recovery.release()

