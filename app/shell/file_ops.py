"""File commands of the main window: New, Open, Save, Import, Export, Recover.

Every question to the producer goes through one of the ``ask_*`` methods
(tests replace them), and every failure ends in StudioWindow.show_error with
the engine's own message (file, JSON path, problem), never a traceback.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QStandardPaths, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QFileDialog, QMessageBox, QPushButton

from app.dialogs.export import ExportChoices, ExportDialog, ExportJob
from app.dialogs.import_script import ImportDialog
from app.dialogs.recovery import DISCARD, RecoveryDialog
from app.document.files import (
    FILE_FILTER,
    SCRIPT_FILTER,
    FileIdentity,
    RecentFiles,
    read_project,
    with_extension,
    write_project,
)
from app.document.recovery import Recovery
from app.document.settings import (
    EXPORT_DAW,
    EXPORT_FOLDER,
    EXPORT_FORMAT,
    EXPORT_PRESET,
    EXPORT_PROJECT,
    EXPORT_STEMS,
    RAY_CLUSTER,
)
from app.shell import panels
from app.shell.studio_window import StudioWindow
from engine.export.render import RenderOptions, RenderReport
from engine.output_paths import OutputPathError
from engine.project.fileformat import ProjectFileError
from engine.project.soundformat import absolute_sounds


class FileOps(QObject):
    def __init__(self, window: StudioWindow) -> None:
        super().__init__(window.window())
        self.window = window
        self.dialog_parent = window.window()  # the window as a QWidget: the parent of every dialog asked
        self.doc = window.doc
        self.recent = RecentFiles(window.settings)
        self.export_job: ExportJob | None = None
        self.last_report: RenderReport | None = None
        self.recovered_windows: list[StudioWindow] = []  # more windows opened by a recovery (kept alive here)

    # ---- questions (tests replace these) ---------------------------------------
    def ask_save_changes(self) -> str:
        """'save', 'discard' or 'cancel'."""
        answer = QMessageBox.question(
            self.dialog_parent, "Unsaved changes", f"Save the changes to {self.doc.display_name()}?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save)
        return {QMessageBox.StandardButton.Save: "save", QMessageBox.StandardButton.Discard: "discard"}.get(
            answer, "cancel")

    def ask_recover(self, recoveries: list[Recovery]) -> list[Recovery] | None:
        """The ones to recover (the others are discarded), or None to keep them all for the next start."""
        dialog = RecoveryDialog(recoveries, self.dialog_parent)
        result = dialog.exec()
        if result == QDialog.DialogCode.Accepted:
            return dialog.chosen()
        return [] if result == DISCARD else None

    def ask_open_path(self) -> Path | None:
        path, _ = QFileDialog.getOpenFileName(self.dialog_parent, "Open project", self._start_dir(), FILE_FILTER)
        return Path(path) if path else None

    def ask_save_path(self) -> Path | None:
        path, _ = QFileDialog.getSaveFileName(self.dialog_parent, "Save project as", str(self.save_suggestion()), FILE_FILTER)
        return with_extension(path) if path else None

    def save_suggestion(self) -> Path:
        """What Save As offers: the project's own file, else its title in the folder it belongs in."""
        return self.doc.path or Path(self._start_dir()) / f"{self.doc.project.title or 'Untitled'}.radioplay"

    def ask_script_path(self) -> Path | None:
        path, _ = QFileDialog.getOpenFileName(self.dialog_parent, "Import script", self._start_dir(), SCRIPT_FILTER)
        return Path(path) if path else None

    def _start_dir(self) -> str:
        """Where a file dialog opens: beside the project's file, or the script of an unsaved import;
        else where the last project was, else Documents."""
        if self.doc.path:
            return str(self.doc.path.parent)
        if self.doc.source is not None:
            return str(self.doc.source.parent)
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
        try:
            identity: FileIdentity | None = FileIdentity.of(Path(path))
        except OSError:
            identity = None  # read a moment ago; without it a crash recovery opens as unsaved
        self.doc.replace(project, Path(path), identity=identity)
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
        # The dialog asked about the name it returned, not about one with the extension added.
        if not self._write(with_extension(path), confirmed=with_extension(path) == Path(path)):
            return False
        self.window.catalog.set_base_dir(self.doc.path.parent if self.doc.path else None)
        return True

    def _write(self, path: Path, confirmed: bool = True) -> bool:
        old = self.doc.path
        if old is not None and old.resolve().parent != Path(path).resolve().parent:
            # Sound files named relative to the old folder stay where they are.
            self.doc.project.sounds = absolute_sounds(self.doc.project.sounds, old.resolve().parent)
            self.doc.project.sound_suggestions = absolute_sounds(self.doc.project.sound_suggestions,
                                                                 old.resolve().parent)
        try:
            identity = write_project(self.doc.project, path, current=old, confirmed=confirmed)
        except (OSError, OutputPathError) as exc:
            self.window.show_error("Cannot save the project", str(exc))
            return False
        self.doc.set_path(path, identity)
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
        dialog = ImportDialog(path, self.dialog_parent, library=self.window.catalog.library)
        dialog.accepted.connect(lambda: self._imported(dialog))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def _imported(self, dialog: ImportDialog) -> None:
        if dialog.project is None:
            return
        self.doc.replace(dialog.project, None, modified=True, source=dialog.script)
        # The quick cast is in place; the measured one (radioplay import's) refines it meanwhile.
        measuring = self.window.cast.casting.start("Import Script")
        self.window.statusBar().showMessage(
            f"Imported {dialog.script.name}: {len(dialog.project.lines)} lines. Save to keep it."
            + (" Measuring the cast in the background…" if measuring else ""), 8000)

    # ---- export --------------------------------------------------------------------------
    def default_export_dir(self) -> Path:
        saved = EXPORT_FOLDER.read(self.window.settings)
        if self.doc.path is not None:
            if saved and EXPORT_PROJECT.read(self.window.settings) == str(self.doc.path):
                return Path(saved)  # where this production was exported last
            return self.doc.path.parent / "out" / self.doc.path.stem
        if saved:
            return Path(saved)
        return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.MusicLocation)) / "Radioplay"

    def export(self, folder: Path | None = None) -> ExportDialog | None:
        if self.export_job is not None and self.export_job.running():
            self.window.statusBar().showMessage("An export is already running", 4000)
            return None
        name = self.doc.path.stem if self.doc.path is not None else ""
        settings = self.window.settings
        remembered = ExportChoices(preset=EXPORT_PRESET.read(settings) or "custom",
                                   format=EXPORT_FORMAT.read(settings) or "wav24",
                                   stems=EXPORT_STEMS.read(settings) != "no", daw=EXPORT_DAW.read(settings) or "")
        dialog = ExportDialog(folder or self.default_export_dir(), self.dialog_parent, name,
                              cluster=RAY_CLUSTER.read(settings), choices=remembered)
        dialog.accepted.connect(lambda: self._remember(dialog.choices()))
        dialog.accepted.connect(lambda: self.start_export(dialog.folder(), dialog.options(), dialog.cluster()))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    def _remember(self, choices: ExportChoices) -> None:
        settings = self.window.settings
        EXPORT_PRESET.write(settings, choices.preset)
        EXPORT_FORMAT.write(settings, choices.format)
        EXPORT_STEMS.write(settings, "yes" if choices.stems else "no")
        EXPORT_DAW.write(settings, choices.daw)

    def start_export(self, outdir: Path, options: RenderOptions, cluster: str | None = None) -> ExportJob:
        """``cluster``: a Ray cluster (or auto) whose actors voice the lines; remembered for the next export."""
        EXPORT_FOLDER.write(self.window.settings, str(outdir))
        EXPORT_PROJECT.write(self.window.settings, str(self.doc.path) if self.doc.path is not None else "")
        RAY_CLUSTER.write(self.window.settings, cluster or "")
        job = ExportJob(self._exporter(cluster), outdir, options, self.window.marshal, self.dialog_parent)
        job.finished.connect(self._export_done)
        job.failed.connect(lambda message: self.window.show_error("Export failed", message))
        job.cancelled.connect(lambda: self.window.statusBar().showMessage("Export cancelled", 5000))
        self.export_job = job
        job.start()
        return job

    def _exporter(self, cluster: str | None = None
                  ) -> Callable[[Path, RenderOptions, Callable[[str, int, int], None], threading.Event], Any]:
        session = self.window.session()
        if session is not None:
            def render_live(outdir: Path, options: RenderOptions, progress: Callable[[str, int, int], None],
                            cancel: threading.Event) -> RenderReport:
                from engine.export.session_render import render_session

                return render_session(session, outdir, options, progress, cancel, ray=cluster)

            return render_live
        # No engine running (it failed to start): render with a private synthesizer, like the CLI.
        project, path = self.doc.snapshot(), self.doc.path

        def render(outdir: Path, options: RenderOptions, progress: Callable[[str, int, int], None],
                   cancel: threading.Event) -> RenderReport:
            from engine.export.render import render_project
            from engine.farm.farm import open_farm
            from engine.synth.synthesizer import make_synthesizer

            synth = make_synthesizer(path, project.sample_rate)
            with open_farm(cluster, synth) as farm:
                return render_project(project, synth, outdir, options, progress, cancel,
                                      scheduler=farm.scheduler if farm else None, project_path=path)

        return render

    def _export_done(self, report: RenderReport) -> None:
        self.last_report = report
        minutes, seconds = divmod(report.duration_s, 60)
        self.window.statusBar().showMessage(
            f"Exported {int(minutes)}:{seconds:04.1f} to {report.outdir} ({report.synthesized} lines voiced, "
            f"{report.cached} from cache)", 10000)
        compliance = report.compliance
        passed = compliance is None or compliance.passed
        audio = [m.file for m in compliance.files] if compliance is not None else ["mix.wav"]
        box = QMessageBox(QMessageBox.Icon.Information if passed else QMessageBox.Icon.Warning,
                          "Export finished" if passed else "Export finished: the preset is not met",
                          f"Wrote {len(report.files)} files to {report.outdir}:\n{', '.join(audio[:3])}"
                          f"{f' and {len(audio) - 3} more' if len(audio) > 3 else ''}, "
                          f"{'stems, ' if any('stems' in str(f) for f in report.files) else ''}captions and cues."
                          + "".join(f"\n\nNote: {note}" for note in report.notes),
                          QMessageBox.StandardButton.Close, self.dialog_parent)
        box.setObjectName("exportDoneBox")
        if compliance is not None:  # the compliance report, as the terminal shows it
            box.setInformativeText(f"<pre>{html.escape(compliance.table())}</pre>")
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
        """Offer every autosave left by studios that did not exit cleanly; True if any was recovered.

        The first one recovered replaces this window's (unmodified) document, each further one opens
        in a new window."""
        recoveries = self.window.recovery.pending()
        if not recoveries:
            return False
        chosen = self.ask_recover(recoveries)
        if chosen is None:  # later: offered again at the next start
            for recovery in recoveries:
                recovery.release()
            return False
        for recovery in recoveries:
            if recovery not in chosen:
                recovery.discard()
        recovered = 0
        for recovery in chosen:
            window = self.window if recovered == 0 else self._new_window()
            recovered += window.files.recover(recovery)
        return recovered > 0

    def recover(self, recovery: Recovery) -> bool:
        """Put one autosave back into this window's document; False if it cannot be read."""
        try:
            project = recovery.load()
        except ProjectFileError as exc:
            recovery.discard()
            self.window.show_error("The autosave cannot be read", str(exc))
            return False
        self.doc.replace(project, recovery.restore_to, modified=True, identity=recovery.identity)
        self.window.autosaver.flush()  # this window's own autosave holds it before the old one goes
        if self.window.autosaver.error is None:
            recovery.discard()
        else:
            recovery.release()
        if recovery.reason:
            self.window.show_error("Recovered as a new production",
                                   f"The recovered changes were not put back into their file: {recovery.reason}."
                                   "\n\nSave asks for a name, so nothing is overwritten.")
        else:
            self.window.statusBar().showMessage("Recovered your unsaved changes; save to keep them", 10000)
        return True

    def _new_window(self) -> StudioWindow:
        other = self.window.another_window()
        other.show()
        self.recovered_windows.append(other)
        return other
