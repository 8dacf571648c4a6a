"""Export: the options dialog, and the job that runs the export off the GUI thread.

The export itself is the engine's (engine.export.session_render over the
running Session, the same renderer as ``radioplay render``). It blocks, so :class:`ExportJob` runs it on a named
worker thread; progress comes back through the Marshal, and Cancel sets a
threading.Event the renderer checks between blocks. The window never waits
on it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressDialog,
    QPushButton,
    QWidget,
)

from app.document.marshal import Marshal, Task, run_task
from engine.export.presets import PRESETS, preset_named
from engine.export.render import RenderOptions, RenderReport
from engine.progress import ProgressRate
from engine.project.defaults import DEFAULT_TARGET_LUFS, TARGET_LUFS_RANGE

# What the renderer calls its stages, as a producer would say them.
STAGES = {"synthesizing": "Voicing lines", "analysing": "Measuring loudness",
          "writing": "Mixing and writing files", "finishing": "Finishing the files",
          "delivering": "Levelling and encoding the delivery files"}
# How often the progress bar moves while a stage runs (a screen's refresh is 60 Hz; a label
# changing faster than this is not read).
PROGRESS_HZ = 20
# The presets as the dialog names them (the keys are --preset's names).
PRESET_LABELS = {"custom": "Custom (the settings below)", "podcast": "Podcast", "acx": "ACX / Audible audiobook",
                 "ebu-r128": "EBU R128 broadcast"}
DAW_LABELS = {"": "None", "reaper": "REAPER project", "audacity": "Audacity (file list + labels)",
              "otio": "OpenTimelineIO"}


def stage_text(stage: str, done: int, total: int) -> str:
    """The progress label: lines for voicing, a percentage for the stages
    that count blocks (a block count means nothing to a producer)."""
    name = STAGES.get(stage, stage.capitalize())
    if stage == "synthesizing":
        return f"{name}… {done} of {total}"
    return f"{name}… {100 * done // max(total, 1)}%"


@dataclass(frozen=True)
class ExportChoices:
    """What the producer chose last time, offered again (app/document/settings.py keeps it)."""

    preset: str = "custom"
    format: str = "wav24"
    stems: bool = True
    daw: str = ""


class ExportDialog(QDialog):
    """Folder and options; ``options()`` and ``folder()`` after it is accepted."""

    def __init__(self, folder: Path, parent: QWidget | None = None, name: str = "",
                 cluster: str | None = None, choices: ExportChoices | None = None) -> None:
        super().__init__(parent)
        self.name = name  # the project file's: the DAW project is named after it
        self.setObjectName("exportDialog")
        self.setWindowTitle("Export")
        self.folder_edit = QLineEdit(str(folder), self)
        self.folder_edit.setToolTip("mix.wav, stems/, captions and cues.json are written here")
        browse = QPushButton("Choose…", self)
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.folder_edit)
        row.addWidget(browse)
        self.loudness = QDoubleSpinBox(self)
        self.loudness.setRange(*TARGET_LUFS_RANGE)
        self.loudness.setValue(DEFAULT_TARGET_LUFS)
        self.loudness.setSuffix(" LUFS")
        self.loudness.setToolTip("Integrated loudness of the mix (-16 for podcasts, -23 for EBU broadcast)")
        self.stems = QCheckBox("One stem per role (32-bit float)", self)
        self.stems.setChecked(True)
        self.format = QComboBox(self)
        self.format.addItem("WAV 24-bit", "wav24")
        self.format.addItem("WAV 32-bit float", "wav32f")
        self.preset = QComboBox(self)
        for key in PRESETS:
            self.preset.addItem(PRESET_LABELS.get(key, key), key)
        self.preset.setToolTip("Deliver to a spec; a compliance report measured on the written files "
                               "follows every export (report.json)")
        self.spec = QLabel(self)
        self.spec.setObjectName("presetSpec")
        self.spec.setWordWrap(True)
        self.daw = QComboBox(self)
        for key, label in DAW_LABELS.items():
            self.daw.addItem(label, key)
        self.daw.setToolTip("Also write a project for a DAW, with one file per line in lines/")
        self.cluster_edit = QLineEdit(cluster or "", self)
        self.cluster_edit.setObjectName("exportCluster")
        self.cluster_edit.setPlaceholderText("this computer")
        self.cluster_edit.setToolTip("Voice the lines on a Ray cluster: auto (RAY_ADDRESS, else a Ray instance on "
                                     "this computer), HOST:PORT or ray://HOST:PORT; needs radioplay[cluster]. "
                                     "Mixing and writing stay on this computer")
        form = QFormLayout(self)
        form.addRow("Folder", row)
        form.addRow("Preset", self.preset)
        form.addRow("", self.spec)
        form.addRow("Loudness", self.loudness)
        form.addRow("Mix format", self.format)
        form.addRow("", self.stems)
        form.addRow("DAW hand-off", self.daw)
        form.addRow("Ray cluster", self.cluster_edit)
        self.setMinimumWidth(560)  # a preset's description reads on one or two lines, not cut off
        chosen = choices or ExportChoices()
        for combo, value in ((self.preset, chosen.preset), (self.format, chosen.format), (self.daw, chosen.daw)):
            index = combo.findData(value)
            combo.setCurrentIndex(index if index >= 0 else 0)  # a choice this version no longer has: the first
        self.stems.setChecked(chosen.stems)
        self.preset.currentIndexChanged.connect(self._preset_changed)
        self._preset_changed()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _preset_changed(self) -> None:
        preset = PRESETS[str(self.preset.currentData())]
        custom = preset.name == "custom"
        self.format.setEnabled(custom)
        self.loudness.setEnabled(preset.level == "loudness")
        if not custom:
            self.loudness.setValue(preset.target_lufs)
        self.spec.setText(preset.describe() if not custom else "WAV at the project's rate, the loudness above")
        self.adjustSize()  # the description may take another line: grow rather than cut it

    def choices(self) -> ExportChoices:
        return ExportChoices(preset=str(self.preset.currentData()), format=str(self.format.currentData()),
                             stems=self.stems.isChecked(), daw=str(self.daw.currentData()))

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Export to", self.folder_edit.text())
        if folder:
            self.folder_edit.setText(folder)

    def folder(self) -> Path:
        return Path(self.folder_edit.text()).expanduser()

    def cluster(self) -> str | None:
        """The Ray cluster to voice the lines on; None: this computer."""
        return self.cluster_edit.text().strip() or None

    def options(self) -> RenderOptions:
        name = str(self.preset.currentData())
        level = PRESETS[name].level == "loudness"
        depth = 32 if self.format.currentData() == "wav32f" else 24
        preset = preset_named(name, target_lufs=self.loudness.value() if level else None,
                              bit_depth=depth if name == "custom" else None)
        return RenderOptions(target_lufs=preset.target_lufs, stems=self.stems.isChecked(),
                             format=str(self.format.currentData()), preset=preset,
                             daw=str(self.daw.currentData()), name=self.name)


Exporter = Callable[[Path, RenderOptions, Callable[[str, int, int], None], threading.Event], RenderReport]


class ExportJob(QObject):
    """One export on a worker thread, with a cancellable progress dialog.

    ``finished(report)`` / ``failed(message)`` / ``cancelled()`` arrive on the
    GUI thread. Thread: "radioplay-export" runs ``exporter``; joined in
    ``wait()`` (the window calls it on close after cancelling).
    """

    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, exporter: Exporter, outdir: Path, options: RenderOptions, marshal: Marshal,
                 parent: QWidget) -> None:
        super().__init__(parent)
        self.outdir, self.options = outdir, options
        self.cancel_event = threading.Event()
        self.progress = QProgressDialog("Preparing export…", "Cancel", 0, 0, parent)
        self.progress.setObjectName("exportProgress")
        self.progress.setWindowTitle("Exporting")
        self.progress.setWindowModality(Qt.WindowModality.WindowModal)
        self.progress.setMinimumDuration(0)
        self.progress.setAutoClose(False)
        self.progress.setAutoReset(False)
        self.progress.canceled.connect(self.cancel)
        self._marshal = marshal
        self._exporter = exporter
        self.task: Task | None = None
        self.stage = ""
        # The outcome is delivered (on the GUI thread) a moment before the worker thread
        # exits: from then on the export is over, whatever the thread is still doing.
        self._settled = False

    def start(self) -> None:
        self.progress.show()
        self.task = run_task("radioplay-export", self._run, self._marshal, self._done, self._error)

    def _run(self) -> RenderReport:
        # The bar shows at most PROGRESS_HZ reports a second (a stage's start and end always), so
        # the export does not queue a call on the GUI thread per block, both threads taking the GIL.
        rate = ProgressRate(PROGRESS_HZ)

        def progress(stage: str, done: int, total: int) -> None:  # worker thread
            if rate.due(stage, done, total):
                self._marshal.to_main(self._progress, stage, done, total)

        return self._exporter(self.outdir, self.options, progress, self.cancel_event)

    def _progress(self, stage: str, done: int, total: int) -> None:
        if self.cancel_event.is_set():
            return
        self.stage = stage
        self.progress.setLabelText(stage_text(stage, done, total))
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(min(done, max(total, 1)))

    def cancel(self) -> None:
        self.cancel_event.set()
        self.progress.setLabelText("Cancelling…")

    def running(self) -> bool:
        return self.task is not None and not self._settled and self.task.running()

    def wait(self, timeout: float | None = None) -> None:
        if self.task is not None:
            self.task.join(timeout)

    def _close_progress(self) -> None:
        self._settled = True
        self.progress.canceled.disconnect(self.cancel)  # closing the dialog emits canceled()
        self.progress.close()

    def _done(self, report: Any) -> None:
        self._close_progress()
        self.finished.emit(report)

    def _error(self, exc: BaseException) -> None:
        cancelled = self.cancel_event.is_set()
        self._close_progress()
        if cancelled:
            self.cancelled.emit()
        else:
            self.failed.emit(describe_export_error(exc))


def describe_export_error(exc: BaseException) -> str:
    from engine.synth.pipeline import LineErrors, VoicesNotInstalled

    if isinstance(exc, VoicesNotInstalled):
        return str(exc)  # one fact about this machine, not a failure of each line
    if isinstance(exc, LineErrors):
        shown = exc.problems[:8]
        more = len(exc.problems) - len(shown)
        return (f"{len(exc.problems)} line(s) cannot be voiced:\n" + "\n".join(shown)
                + (f"\n… and {more} more" if more > 0 else ""))
    if isinstance(exc, OSError):
        return f"Cannot write the files: {exc.strerror or exc}"
    return str(exc) or type(exc).__name__
