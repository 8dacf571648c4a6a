"""The studio window: script in the middle, cast, timeline and monitor around it.

The composition root: makes the Document (project, undo stack), the panels,
the EngineLink (the one way to the engine Session) and the EnginePresenter
(which draws the Session's state on one QTimer), and wires actions to
commands. The GUI thread never waits on the engine. File commands live in
app/shell/file_ops.py. Each feature sees the window through its own small Protocol
(app/<feature>/access.py), which this window satisfies; the shell's own modules see it
as app/shell/studio_window.py's StudioWindow.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSettings, QSize, Qt
from PySide6.QtGui import QCloseEvent, QGuiApplication
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QMenu, QMessageBox, QWidget

from app.cast.get_voices import GetVoicesDialog
from app.cast.panel import CastPanel
from app.cast.voices import VoiceCatalog
from app.dialogs.timing import edit_timing
from app.document.document import Document
from app.document.marshal import Marshal
from app.document.recovery import Autosaver, RecoveryStore
from app.document.settings import OUTPUT_DEVICE, SYNTH_DEVICE, WINDOW_GEOMETRY, WINDOW_STATE
from app.lexicon import script as lexicon_script
from app.lexicon.panel import LexiconPanel
from app.live import draw
from app.live.engine_link import EngineLink, SessionFactory, default_session_factory
from app.live.outlook import OutlookLabel
from app.live.presenter import EnginePresenter
from app.script.check_marks import CheckMarks
from app.script.editor import ScriptEditor
from app.shell import context_menus, menus, panels
from app.shell.actions import build_actions
from app.shell.file_ops import FileOps
from app.sound import edits as sound_edits
from app.sound import lanes as sound_lanes
from app.sound.panel import SoundPanel, scrolled
from app.takes.panel import TakesPanel
from app.timeline.scene import LaneKind
from app.widgets.status_bar import StatusBar
from engine.project.model import Project, VoiceParams
from engine.session import Session

__all__ = ["MainWindow", "SessionFactory", "default_session_factory"]



DEFAULT_SIZE = QSize(1600, 1000)


def first_size() -> QSize:
    """The window's size before the producer sizes it (app/main.py): DEFAULT_SIZE within the
    screen's free area. Larger than a 1280x720 screen, the window put the script's Line column and the meters
    past the screen's edge wherever the window manager does not shrink it (X11 without one
    does not)."""
    screen = QGuiApplication.primaryScreen()
    return DEFAULT_SIZE if screen is None else DEFAULT_SIZE.boundedTo(screen.availableGeometry().size())

class MainWindow(QMainWindow):
    def __init__(self, path: Path | None = None, *, settings: QSettings | None = None,
                 session_factory: SessionFactory | None = None, recovery: RecoveryStore | None = None,
                 catalog: VoiceCatalog | None = None, project: Project | None = None,
                 output: str | None = None, device: str | None = None, size: QSize = DEFAULT_SIZE) -> None:
        super().__init__()
        self.setObjectName("radioplayMainWindow")
        self.settings = settings if settings is not None else QSettings()
        self.synthesis_device = device or SYNTH_DEVICE.read(self.settings)  # --device over the remembered one
        self.session_factory = session_factory or default_session_factory(
            output=output or OUTPUT_DEVICE.read(self.settings), device=lambda: self.synthesis_device)
        self.marshal = Marshal(self)
        self.catalog = catalog or VoiceCatalog()
        self.doc = Document(project or panels.new_project(), None, self)
        self.recovery = recovery or RecoveryStore()
        self.autosaver = Autosaver(self.doc, self.recovery, self)
        self.engine = EngineLink(self.doc, self.session_factory, self.marshal, self)
        self.catalog.measured_realtime = self.engine.realtime  # the picker says how fast each backend runs here
        self.catalog.measured = self.engine.measured
        self.last_error: str | None = None  # the last error shown to the producer (tests read it)
        self.voices_dialog: GetVoicesDialog | None = None
        # Made by app/shell/menus.py:
        self.recent_menu: QMenu
        self.output_menu: QMenu
        self.device_menu: QMenu
        self.master_menu: QMenu
        self.resize(size)  # before the default layout, which is made for it (app/shell/panels.arrange_default)

        self.script = ScriptEditor(self.doc, self)
        self.setCentralWidget(self.script)
        self.cast = CastPanel(self.doc, self.catalog, self)
        self.timeline = panels.make_timeline(self.engine.peaks, self)
        self.monitor = panels.make_monitor(self)
        self.transport = panels.make_transport(self)
        # Script in the middle; cast above the monitor on the left; the timeline across the bottom.
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.cast_dock = self._dock("castDock", "Cast", self.cast, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.monitor_dock = self.monitor  # MonitorDock is a dock itself
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.monitor_dock)
        self.splitDockWidget(self.cast_dock, self.monitor_dock, Qt.Orientation.Vertical)
        self.timeline_dock = self._dock("timelineDock", "Timeline", self.timeline,
                                        Qt.DockWidgetArea.BottomDockWidgetArea)
        self.takes = TakesPanel(self, self)
        self.takes_dock = self._dock("takesDock", "Takes", self.takes, Qt.DockWidgetArea.LeftDockWidgetArea)
        # A tab beside the monitor: the script keeps the middle's width.
        self.tabifyDockWidget(self.monitor_dock, self.takes_dock)
        # Sound lanes' settings, the selected sound clip and the library: a tab there too.
        self.sound_panel = SoundPanel(self, self)
        self.sounds_dock = self._dock("soundsDock", "Sounds", scrolled(self.sound_panel),
                                      Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tabifyDockWidget(self.monitor_dock, self.sounds_dock)
        self.lexicon = LexiconPanel(self, self)
        self.lexicon_dock = self._dock("lexiconDock", "Lexicon", scrolled(self.lexicon, "lexiconScroll"),
                                       Qt.DockWidgetArea.LeftDockWidgetArea)
        self.tabifyDockWidget(self.monitor_dock, self.lexicon_dock)
        self.monitor_dock.raise_()

        self.actions_ = build_actions(self)
        panels.adopt_transport_actions(self)
        self.files = FileOps(self)
        menus.build_menus(self)
        menus.build_toolbars(self)
        self._build_status_bar()
        self.presenter = EnginePresenter(self, self.engine, self)
        self.check_marks = CheckMarks(self, self)  # the speech check and locks in script and timeline
        panels.arrange_default(self)  # after the bars: they take their height from the docks
        panels.set_tab_order(self)
        self._connect()
        self._default_state = self.saveState()
        if not self._restore_settings():
            panels.arrange_when_shown(self)  # the default layout, for the size the window opens at

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
        self.setStatusBar(StatusBar(self))  # cuts a long message at a word, not mid-word
        status = self.statusBar()
        self.engine_label = QLabel("Engine: starting…", self)
        self.engine_label.setObjectName("engineLabel")
        self.lines_label = QLabel("", self)
        self.lines_label.setObjectName("linesLabel")
        self.outlook_label = OutlookLabel(self)  # shown while synthesis cannot keep up with playback
        status.addPermanentWidget(self.cast.casting_progress)  # shown while a measured cast runs
        status.addPermanentWidget(self.outlook_label)
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
        a["suggest_cast"].triggered.connect(self.cast.suggest_cast)
        a["design_voice"].triggered.connect(lambda: self.cast.design_voice())
        a["blend_voice"].triggered.connect(lambda: self.cast.blend_voice())
        a["get_voices"].triggered.connect(lambda: self.get_voices())
        a["play_line"].triggered.connect(self.play_from_line)
        a["reset_layout"].triggered.connect(lambda: panels.reset_layout(self, self._default_state))
        a["shortcuts"].triggered.connect(self.show_shortcuts)
        a["timing"].triggered.connect(lambda: edit_timing(self.doc, self))
        a["about"].triggered.connect(self.show_about)
        doc.projectChanged.connect(self._project_changed)
        doc.roleChanged.connect(self._role_changed)
        doc.castReset.connect(self._cast_reset)
        doc.projectReplaced.connect(self._project_replaced)
        doc.pathChanged.connect(self._update_title)
        self.cast.auditionRequested.connect(self.audition)
        self.cast.auditionVoice.connect(self.audition_voice)
        self.engine.problem.connect(self.show_status)
        for source in (self.cast.status, self.script.status):
            source.connect(self.show_status)
        self.script.lineActivated.connect(self.seek_to_line)
        self.script.auditionLine.connect(self.audition_line)
        self.script.view.selectionModel().currentChanged.connect(self.takes.follow_current)
        doc.lineChanged.connect(self.takes.line_changed)
        panels.connect_timeline(self)
        panels.connect_transport(self)
        context_menus.install(self)
        lexicon_script.install(self, self.lexicon)

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
    def _restore_settings(self) -> bool:
        """The window's size and panels as the producer left them; True if there were any."""
        geometry = WINDOW_GEOMETRY.read(self.settings)
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = WINDOW_STATE.read(self.settings)
        if state is not None:
            self.restoreState(state)
        return state is not None

    def _save_settings(self) -> None:
        WINDOW_GEOMETRY.write(self.settings, self.saveGeometry())
        WINDOW_STATE.write(self.settings, self.saveState())
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
    def start_engine(self) -> None:
        self.presenter.starting()
        self.engine.start()

    def session(self) -> Session | None:
        """The running Session, up to date with every edit (for the export worker and tests)."""
        return self.engine.session()

    def lend_session(self, transform: Callable[[Project], Project] | None) -> None:
        """The table read plays through this window's Session with ``transform`` applied."""
        self.engine.hand_over_as(transform)

    def another_window(self) -> MainWindow:
        """A second studio (a recovery opens one per further autosave): this one's settings and
        engine factory, its own autosave slot and voice catalogue, sized for the screen."""
        return MainWindow(None, settings=self.settings, session_factory=self.session_factory,
                          recovery=RecoveryStore(self.recovery.root), size=first_size())

    def follow_read(self, line_id: str) -> None:
        """The table read is at this line: select it in the script (the playhead is the Session's)."""
        self.script.select_line(line_id)

    def audition_line(self, line_id: str) -> None:
        """Hear a line as it now is, in its chosen take (its delivery was just picked)."""
        session = self.session()
        line = next((x for x in self.doc.project.lines if x.id == line_id), None)
        if session is not None and line is not None:
            session.audition_take(line_id, line.take)

    def _role_changed(self, name: str, field: str) -> None:
        draw.update_lanes(self.timeline, self.doc.project)
        if field.startswith("voice"):
            self.statusBar().showMessage(f"{name}'s lines will be voiced again with the new settings", 4000)

    def _cast_reset(self) -> None:
        draw.update_lanes(self.timeline, self.doc.project)

    def _project_changed(self, field: str) -> None:
        if field == "sound_lanes":  # the lanes are the cast's and the sound lanes, always
            draw.update_lanes(self.timeline, self.doc.project)
        elif field == "master_effect":
            self.statusBar().showMessage(f"Master effect: {self.doc.project.master_effect}", 4000)

    def set_output(self, name: str) -> None:
        """Play through another device (remembered for the next start)."""
        OUTPUT_DEVICE.write(self.settings, name)
        self.engine.set_output(name)

    def _project_replaced(self) -> None:
        self.catalog.set_base_dir(self.doc.path.parent if self.doc.path else None)
        self._update_title()
        draw.show_new_project(self.timeline, self.doc.project)
        self.start_engine()  # it forgets the previous engine's clips, so the estimates show
        self.autosaver.schedule()

    def move_clip(self, line_id: str, new_start: float) -> None:
        """The timeline dropped a clip at ``new_start``: one undoable edit of the line's placement
        (a sound clip's: app/sound/edits.py)."""
        clips = self.presenter.clips()
        sound = self.doc.sound_clip(line_id) if self.timeline.clip_kind(line_id) is LaneKind.SOUND else None
        if sound is not None:
            fields = sound_lanes.drop_fields(sound, self.presenter.sounds(), clips, new_start)
            moved = sound_edits.set_clip(self.doc, line_id, fields, "Move sound")
            if moved is not None:
                self.doc.undo.push(moved)
            else:
                draw.show_clips(self.timeline, self.doc.project, clips, self.presenter.sounds())
            return
        command = panels.drop_command(self.doc, clips, line_id, new_start)
        if command.new:
            self.doc.undo.push(command)
        else:  # dropped where it was: put the dragged item back
            draw.show_clips(self.timeline, self.doc.project, clips, self.presenter.sounds())

    # ---- transport -------------------------------------------------------------------------
    def _playing(self) -> bool:
        state = self.engine.state()
        return state is not None and state.transport.playing

    def play_pause(self) -> None:
        self.set_playing(not self._playing())

    def set_playing(self, play: bool) -> None:
        if play:
            self.presenter.gate.play()  # asks first when synthesis cannot keep up
        else:
            self.presenter.gate.cancel()
            self.engine.pause()

    def stop(self) -> None:
        self.presenter.gate.cancel()
        self.engine.stop_playback()

    def from_start(self) -> None:
        """Home (Play from Start): play from the top, playing or stopped. Stopped, Play asks
        first when synthesis cannot keep up from there, as Play does."""
        self.timeline.set_playhead(0.0)
        if self._playing():
            self.engine.play(0.0)
        else:
            self.presenter.gate.play(0.0)

    def seek(self, seconds: float) -> None:
        self.engine.seek(max(0.0, seconds))
        self.timeline.set_playhead(max(0.0, seconds))

    def seek_to_line(self, line_id: str) -> None:
        start = self.script.model.start_of(line_id)
        if start is not None:
            self.seek(start)

    def play_from_line(self) -> None:
        line_id = self.script.current_line_id()
        start = self.script.model.start_of(line_id) if line_id else None
        self.engine.play(start)

    def _loop_toggled(self, on: bool) -> None:
        region = self.timeline.loop_region() if on else None
        if on and region is None:
            self.statusBar().showMessage("Drag on the timeline ruler to choose the loop region first", 6000)
            self.actions_["loop"].setChecked(False)
            return
        self.engine.set_loop(region)

    def loop_changed(self, region: tuple[float, float] | None) -> None:
        loop = self.actions_["loop"]
        loop.blockSignals(True)
        loop.setChecked(region is not None)
        loop.blockSignals(False)
        self.engine.set_loop(region)

    def audition(self, role: str, text: str) -> None:
        if not self.engine.running():
            return
        self.engine.audition(role, text)
        self.statusBar().showMessage(f"Auditioning {role}: “{text[:60]}”", 5000)

    def audition_voice(self, role: str, text: str, voice: VoiceParams) -> None:
        """Hear a role with trial voice settings (a speaker being browsed), not recasting it."""
        if not self.engine.running():
            return
        self.engine.audition(role, text, voice)
        speaker = f" as speaker {voice.speaker}" if voice.speaker is not None else ""
        self.statusBar().showMessage(f"Auditioning {role}{speaker}: “{text[:60]}”", 5000)

    def get_voices(self, location: str | None = None) -> GetVoicesDialog:
        """Voices > Get Voices…: one dialog per window, kept while hidden so a download goes on."""
        if self.voices_dialog is None:
            self.voices_dialog = GetVoicesDialog(self.catalog, self.marshal, self.engine.play_recording,
                                                 location, self)
            self.voices_dialog.voiceInstalled.connect(self._voice_installed)
            self.voices_dialog.load()
        self.voices_dialog.show()
        self.voices_dialog.raise_()
        return self.voices_dialog

    def _voice_installed(self, key: str) -> None:
        self.cast.model.reset()  # roles waiting for this voice lose their red mark; pickers list it
        self.statusBar().showMessage(f"Installed voice {key}: pick it in any role's Voice column", 8000)

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
        self.presenter.timer.stop()
        self.autosaver.timer.stop()
        self.cast.casting.stop()
        self._save_settings()
        self.engine.stop()
        self.engine.wait()
        if clean:
            self.recovery.discard()
        else:  # unsaved work stays for the next start to offer
            self.recovery.release()

