"""File commands of the main window: New, Open, Save, Import, Export, Recover.

Every question to the producer goes through one of the ``ask_*`` methods
(tests replace them), and every failure ends in StudioWindow.show_error with
the engine's own message (file, JSON path, problem), never a traceback.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QStandardPaths, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QFileDialog, QMessageBox, QPushButton

from app import panels
from app.export_dialog import ExportDialog, ExportJob
from app.files import FILE_FILTER, SCRIPT_FILTER, RecentFiles, read_project, with_extension, write_project
from app.import_dialog import ImportDialog
from app.recovery import Recovery
from app.settings import EXPORT_FOLDER
from app.studio_window import StudioWindow
from engine.export.render import RenderOptions, RenderReport
from engine.project.fileformat import ProjectFileError


class FileOps(QObject):
    def __init__(self, window: StudioWindow) -> None:
        super().__init__(window)
        self.window = window
        self.doc = window.doc
        self.recent = RecentFiles(window.settings)
        self.export_job: ExportJob | None = None
        self.last_report: RenderReport | None = None

    # ---- questions (tests replace these) ---------------------------------------
    def ask_save_changes(self) -> str:
        """'save', 'discard' or 'cancel'."""
        answer = QMessageBox.question(
            self.window, "Unsaved changes", f"Save the changes to {self.doc.display_name()}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save)
        return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(
            answer, "cancel")

    def ask_recover(self, recovery: Recovery) -> bool:
        when = datetime.fromtimestamp(recovery.saved_at).strftime("%Y-%m-%d %H:%M")
        what = recovery.original.name if recovery.original else (recovery.title or "an unsaved production")
        answer = QMessageBox.question(
            self.window, "Recover unsaved work?",
            f"Radioplay did not close properly last time. Unsaved changes to {what} were kept "
            f"(autosaved {when}).\n\nRecover them?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, QMessageBox.StandardButton.Yes)
        return answer == QMessageBox.StandardButton.Yes

    def ask_open_path(self) -> Path | None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Open project", self._start_dir(), FILE_FILTER)
        return Path(path) if path else None

    def ask_save_path(self) -> Path | None:
        suggestion = self.doc.path or Path(self._start_dir()) / f"{self.doc.project.title or 'Untitled'}.radioplay"
        path, _ = QFileDialog.getSaveFileName(self.window, "Save project as", str(suggestion), FILE_FILTER)
        return with_extension(path) if path else None

    def ask_script_path(self) -> Path | None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Import script", self._start_dir(), SCRIPT_FILTER)
        return Path(path) if path else None

    def _start_dir(self) -> str:
        if self.doc.path:
            return str(self.doc.path.parent)
        recent = self.recent.paths()
        if recent:
            return str(recent[0].parent)
        return QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)

    # ---- documents ------------------------------------------------------------------
    def maybe_save(self) -> bool:
        """True when it is fine to drop the open document."""
        if not self.doc.is_modified():
            return True
        answer = self.ask_save_changes()
        if answer == "save":
            return self.save()
        return answer == "discard"

    def new(self) -> None:
        if self.maybe_save():
            self.doc.replace(panels.new_project(), None)
            self.window.statusBar().showMessage("New production: press Ctrl+Enter in the script to add a line", 6000)

    def open(self, path: Path | None = None) -> bool:
        if not self.maybe_save():
            return False
        path = path or self.ask_open_path()
        return self.load(path) if path else False

    def load(self, path: Path) -> bool:
        try:
            project = read_project(path)
        except ProjectFileError as exc:
            self.window.show_error("Cannot open the project", str(exc))
            return False
        self.doc.replace(project, Path(path))
        self.recent.add(Path(path))
        self.window.statusBar().showMessage(f"Opened {Path(path).name}", 4000)
        return True

    def save(self) -> bool:
        if self.doc.path is None:
            return self.save_as()
        return self._write(self.doc.path)

    def save_as(self, path: Path | None = None) -> bool:
        path = path or self.ask_save_path()
        if path is None:
            return False
        if not self._write(with_extension(path)):
            return False
        self.doc.set_path(with_extension(path))
        self.window.catalog.set_base_dir(self.doc.path.parent if self.doc.path else None)
        return True

    def _write(self, path: Path) -> bool:
        try:
            write_project(self.doc.project, path)
        except OSError as exc:
            self.window.show_error("Cannot save the project", str(exc))
            return False
        self.doc.undo.setClean()
        self.recent.add(path)
        self.window.statusBar().showMessage(f"Saved {path.name}", 4000)
        return True

    # ---- import ------------------------------------------------------------------------
    def import_script(self, path: Path | None = None) -> ImportDialog | None:
        """Opens the preview dialog (window-modal, not blocking); accepting it replaces the project."""
        if not self.maybe_save():
            return None
        path = path or self.ask_script_path()
        if path is None:
            return None
        from engine.synth.casting import suggest_cast

        library = self.window.catalog.library
        dialog = ImportDialog(path, self.window, suggest=lambda roles, lines: suggest_cast(roles, library, lines))
        dialog.accepted.connect(lambda: self._imported(dialog))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def _imported(self, dialog: ImportDialog) -> None:
        if dialog.project is None:
            return
        self.doc.replace(dialog.project, None, modified=True)
        self.window.statusBar().showMessage(
            f"Imported {dialog.script.name}: {len(dialog.project.lines)} lines. Save to keep it.", 8000)

    # ---- export --------------------------------------------------------------------------
    def default_export_dir(self) -> Path:
        saved = EXPORT_FOLDER.read(self.window.settings)
        if self.doc.path is not None:
            return self.doc.path.parent / "out" / self.doc.path.stem
        if saved:
            return Path(saved)
        return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.MusicLocation)) / "Radioplay"

    def export(self, folder: Path | None = None) -> ExportDialog | None:
        if self.export_job is not None and self.export_job.running():
            self.window.statusBar().showMessage("An export is already running", 4000)
            return None
        dialog = ExportDialog(folder or self.default_export_dir(), self.window)
        dialog.accepted.connect(lambda: self.start_export(dialog.folder(), dialog.options()))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def start_export(self, outdir: Path, options: RenderOptions) -> ExportJob:
        EXPORT_FOLDER.write(self.window.settings, str(outdir))
        job = ExportJob(self._exporter(), outdir, options, self.window.marshal, self.window)
        job.finished.connect(self._export_done)
        job.failed.connect(lambda message: self.window.show_error("Export failed", message))
        job.cancelled.connect(lambda: self.window.statusBar().showMessage("Export cancelled", 5000))
        self.export_job = job
        job.start()
        return job

    def _exporter(self) -> Callable[[Path, RenderOptions, Callable[[str, int, int], None], threading.Event], Any]:
        session = self.window.session()
        if session is not None:
            return lambda outdir, options, progress, cancel: session.export(outdir, options, progress, cancel)
        # No engine running (it failed to start): render with a private synthesizer, like the CLI.
        project, path = self.doc.snapshot(), self.doc.path

        def render(outdir: Path, options: RenderOptions, progress: Callable[[str, int, int], None],
                   cancel: threading.Event) -> RenderReport:
            from engine.export.render import render_project
            from engine.synth.synthesizer import make_synthesizer

            synth = make_synthesizer(path, project.sample_rate)
            return render_project(project, synth, outdir, options, progress, cancel, project_path=path)

        return render

    def _export_done(self, report: RenderReport) -> None:
        self.last_report = report
        minutes, seconds = divmod(report.duration_s, 60)
        self.window.statusBar().showMessage(
            f"Exported {int(minutes)}:{seconds:04.1f} to {report.outdir} ({report.synthesized} lines voiced, "
            f"{report.cached} from cache)", 10000)
        box = QMessageBox(QMessageBox.Icon.Information, "Export finished",
                          f"Wrote {len(report.files)} files to {report.outdir}:\nmix.wav, "
                          f"{'stems, ' if any('stems' in str(f) for f in report.files) else ''}captions and cues.",
                          QMessageBox.StandardButton.Close, self.window)
        box.setObjectName("exportDoneBox")
        show = QPushButton("Show Folder", box)
        box.addButton(show, QMessageBox.ButtonRole.ActionRole)
        show.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(report.outdir))))
        box.finished.connect(box.deleteLater)
        box.open()

    def finish_export(self) -> bool:
        """On close: cancel a running export and wait for its thread."""
        job = self.export_job
        if job is None or not job.running():
            return True
        job.cancel()
        job.wait()
        return True

    # ---- crash recovery ----------------------------------------------------------------
    def offer_recovery(self) -> bool:
        """Offer the autosave left by a studio that did not exit cleanly; True if recovered."""
        store = self.window.recovery
        recovery = store.pending()
        if recovery is None:
            return False
        if not self.ask_recover(recovery):
            store.discard()
            return False
        try:
            project = store.load()
        except ProjectFileError as exc:
            store.discard()
            self.window.show_error("The autosave cannot be read", str(exc))
            return False
        self.doc.replace(project, recovery.original, modified=True)
        self.window.statusBar().showMessage("Recovered your unsaved changes; save to keep them", 10000)
        return True
