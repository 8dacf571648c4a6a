"""Transport > Table Read…: the studio's face of ``radioplay rehearse``.

The dialog picks the live roles, the input (a microphone listed by
sounddevice, or a folder of ``<LINE_ID>.wav`` recordings read as a simulated
reader) and whether each live line is recorded as a take. The run itself is
engine/rehearse's :class:`TableRead`, driven on a worker thread through
:func:`app.document.marshal.run_task` with a Session of its own (from the window's
session factory, so it plays where the studio plays); its ``say`` lines come
back through the Marshal to a small panel that shows the current line, the
prompt words when the reader stops mid-line, an Advance button (the key
Ctrl+Return) and the report at the end. Recorded takes land in the document
as one undo step (the line's ``recording``), so save and reopen keep them.

Threads: ``radioplay-tableread`` (one per run, joined when the panel closes).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut, QUndoCommand
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.document.document import Document
from app.document.marshal import Task, run_task
from app.transport.access import TableReadStudio
from engine.rehearse.listener import GIVE_UP_S, NO_SPEECH_S
from engine.rehearse.report import Report

SIMULATE = "Simulate from a folder…"
ADVANCE_KEY = "Ctrl+Return"


@dataclass(frozen=True)
class TableReadChoice:
    roles: tuple[str, ...]
    device: str | None  # an input device's name; None: the system default
    simulate: Path | None  # a folder of <LINE_ID>.wav read as the microphone
    record: Path | None  # where the takes go; None: nothing recorded


def input_devices() -> list[str]:
    """Names of the input devices PortAudio knows (none when it cannot run here)."""
    try:
        import sounddevice
        return [str(d["name"]) for d in sounddevice.query_devices() if int(d["max_input_channels"]) > 0]
    except (ImportError, OSError):
        return []


class TableReadDialog(QDialog):
    def __init__(self, roles: list[str], project_path: Path | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Table Read")
        self.setObjectName("tableReadDialog")
        self.roles = QListWidget()
        for name in roles:
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            self.roles.addItem(item)
        self.device = QComboBox()
        self.device.addItem("System default input", None)
        for name in input_devices():
            self.device.addItem(name, name)
        self.device.addItem(SIMULATE, SIMULATE)
        self.folder = QLineEdit()
        self.folder.setPlaceholderText("folder of <LINE_ID>.wav recordings")
        browse = QPushButton("Browse…")
        browse.clicked.connect(lambda: self._browse(self.folder))
        self.record = QCheckBox("Record each live line as a take")
        base = project_path.parent if project_path is not None else Path.home()
        self.record_dir = QLineEdit(str(base / "takes"))
        sim_row = QHBoxLayout()
        sim_row.addWidget(self.folder)
        sim_row.addWidget(browse)
        form = QFormLayout()
        form.addRow("Roles read live:", self.roles)
        form.addRow("Input:", self.device)
        form.addRow("Simulated reader:", sim_row)
        form.addRow(self.record)
        form.addRow("Takes folder:", self.record_dir)
        self.error = QLabel()
        self.error.setStyleSheet("color: #b00020")
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Start")
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        self.device.currentIndexChanged.connect(self._sync)
        self.record.toggled.connect(self._sync)
        self.resize(560, self.sizeHint().height())
        self._sync()

    def _browse(self, edit: QLineEdit) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Recordings folder", edit.text())
        if folder:
            edit.setText(folder)

    def _sync(self) -> None:
        self.folder.setEnabled(self.device.currentData() == SIMULATE)
        self.record_dir.setEnabled(self.record.isChecked())
        self.error.clear()

    def checked_roles(self) -> tuple[str, ...]:
        return tuple(self.roles.item(i).text() for i in range(self.roles.count())
                     if self.roles.item(i).checkState() == Qt.CheckState.Checked)

    def choice(self) -> TableReadChoice:
        data = self.device.currentData()
        simulate = Path(self.folder.text()) if data == SIMULATE else None
        record = Path(self.record_dir.text()) if self.record.isChecked() else None
        return TableReadChoice(self.checked_roles(), None if data == SIMULATE else data, simulate, record)

    def _accept(self) -> None:
        choice = self.choice()
        if not choice.roles:
            self.error.setText("Choose at least one role to read live.")
        elif self.device.currentData() == SIMULATE and not (choice.simulate and choice.simulate.is_dir()):
            self.error.setText(f"Simulated reader: {self.folder.text() or 'no folder'} is not a folder.")
        elif choice.record is not None and not self.record_dir.text().strip():
            self.error.setText("Takes folder: empty.")
        else:
            self.accept()


class TableReadPanel(QDialog):
    """Non-modal: the studio stays usable (and repaints) while the run goes on."""

    def __init__(self, window: TableReadStudio, choice: TableReadChoice) -> None:
        super().__init__(window if isinstance(window, QWidget) else None)
        self.setWindowTitle("Table Read")
        self.setObjectName("tableReadPanel")
        self.window_, self.choice = window, choice
        self.table: object | None = None
        self.task: Task | None = None
        self.report: Report | None = None
        self.line = QLabel("Getting the cast ready…")
        self.line.setWordWrap(True)
        self.line.setStyleSheet("font-size: 15pt")
        self.prompt = QLabel()
        self.prompt.setWordWrap(True)
        self.prompt.setStyleSheet("font-size: 13pt; color: #1565c0")
        self.result = QLabel()
        self.result.setWordWrap(True)
        self.advance_button = QPushButton(f"Advance ({QKeySequence(ADVANCE_KEY).toString()})")
        self.advance_button.clicked.connect(self.advance)
        QShortcut(QKeySequence(ADVANCE_KEY), self, activated=self.advance)
        self.back_button = QPushButton("Back a line")
        self.back_button.clicked.connect(self.back)
        buttons = QHBoxLayout()
        buttons.addWidget(self.advance_button)
        buttons.addWidget(self.back_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Reading live: {', '.join(choice.roles)}"))
        layout.addWidget(self.line)
        layout.addWidget(self.prompt)
        layout.addLayout(buttons)
        layout.addWidget(self.result)
        layout.addStretch(1)
        self.resize(560, 340)

    # --- the keys (GUI thread; TableRead posts them to its own thread) ---

    def advance(self) -> None:
        if self.table is not None:
            self.table.advance()  # type: ignore[attr-defined]

    def back(self) -> None:
        if self.table is not None:
            self.table.back()  # type: ignore[attr-defined]

    def start(self) -> None:
        w = self.window_
        w.stop()  # the studio's own playback would talk over the read
        project, path = w.doc.snapshot(), w.doc.path
        self.task = run_task("radioplay-tableread", lambda: self._run(project, path), w.marshal,
                             self._done, self._failed)

    # --- the run (thread radioplay-tableread) ---

    def _run(self, project: object, path: Path | None) -> Report:
        from engine.rehearse.reader import MicReader, Reader, SimulatedReader
        from engine.rehearse.runner import RehearseOptions, TableRead, plan_lines
        from engine.rehearse.take_names import take_file_names

        c = self.choice
        options = RehearseOptions(c.roles, record=c.record)
        lines = plan_lines(project, options)  # type: ignore[arg-type]
        rate = project.sample_rate  # type: ignore[attr-defined]
        names = take_file_names([ln.id for ln in project.lines])  # type: ignore[attr-defined]
        reader: Reader = (SimulatedReader(c.simulate, rate, [ln.id for ln in lines if ln.role in c.roles],
                                          file_names=names)
                          if c.simulate is not None else MicReader(rate, c.device))
        session = None
        try:
            session = self.window_.session_factory(project, path)  # type: ignore[arg-type]
            table = TableRead(session, reader, options, lambda text: self.window_.marshal.to_main(self._said, text))
            self.table = table
            return table.run()
        finally:
            self.table = None
            if session is not None:
                session.close()
            reader.close()

    # --- back on the GUI thread ---

    def _said(self, text: str) -> None:
        if text.startswith("  ..."):
            self.prompt.setText(f"Next: {text.strip(' .')}")
        elif not text.startswith("  "):
            self.line.setText(text)
            self.prompt.clear()

    def _done(self, report: Report) -> None:
        self.report = report
        self.line.setText("The table read is over.")
        self.prompt.clear()
        self.advance_button.setEnabled(False)
        self.back_button.setEnabled(False)
        f = report.figures()
        gaps = (f"{f['gap_p50_ms']:.0f} ms / {f['gap_p95_ms']:.0f} ms" if f["gap_p50_ms"] is not None else "—")
        takes = {r.line_id: r.take for r in report.results if r.take}
        missed = missed_lines(report, [line.id for line in self.window_.doc.project.lines])
        self.result.setText(f"Lines read live: {f['live_lines']} of {f['lines']} (missed {f['missed']})\n"
                            f"Reply gap p50 / p95: {gaps}\n"
                            f"False starts: {f['false_starts']}   Manual advances: {f['manual_advances']}\n"
                            f"Recorded takes: {len(takes)}"
                            + "".join(f"\nMissed {text}" for text in missed))
        self._attach(takes)

    def _attach(self, takes: dict[str, str]) -> None:
        """The recorded takes into the production, one undo step."""
        doc = self.window_.doc
        known = {line.id for line in doc.project.lines}
        todo = {lid: str(Path(p).absolute()) for lid, p in takes.items() if lid in known}
        if not todo:
            return
        doc.undo.push(RecordTakes(doc, todo))

    def _failed(self, exc: BaseException) -> None:
        self.line.setText("The table read stopped.")
        self.result.setText(f"Error: {exc}")
        self.advance_button.setEnabled(False)
        self.back_button.setEnabled(False)

    def closeEvent(self, event: object) -> None:  # noqa: N802
        if self.task is not None and self.task.running():
            self.result.setText("Finish the read first (Advance through the remaining lines).")
            event.ignore()  # type: ignore[attr-defined]
            return
        super().closeEvent(event)  # type: ignore[arg-type]


def missed_lines(report: Report, order: list[str]) -> list[str]:
    """Each live line the read gave up on, by its number in the script and why:
    ``line 12 (MAGGIE): nothing heard for 20 s`` or ``... 3.2 s heard, its end not recognized``."""
    number = {line_id: n for n, line_id in enumerate(order, start=1)}
    out = []
    for r in report.results:
        if not r.live or r.outcome != "missed":
            continue
        where = f"line {number[r.line_id]}" if r.line_id in number else f"line {r.line_id}"
        why = (f"nothing heard for {NO_SPEECH_S:.0f} s" if r.speech_s is None else
               f"{r.speech_s:.1f} s heard, its last words not recognized (moved on after {GIVE_UP_S:.0f} s of silence)")
        out.append(f"{where} ({r.role}): {why}")
    return out


class RecordTakes(QUndoCommand):
    """The table read's recorded takes, one undo step (each line's ``recording``)."""

    def __init__(self, doc: Document, takes: dict[str, str]) -> None:
        super().__init__(f"Record {len(takes)} take(s) at the table read")
        self.doc, self.new = doc, dict(takes)
        self.old = {lid: doc.project.line(lid).recording for lid in takes}

    def redo(self) -> None:
        for line_id, take in self.new.items():
            self.doc.apply_line_field(line_id, "recording", take)

    def undo(self) -> None:
        for line_id, take in self.old.items():
            self.doc.apply_line_field(line_id, "recording", take)


def open_table_read(window: TableReadStudio) -> TableReadPanel | None:
    """Transport > Table Read…: the dialog, then the running panel."""
    parent = window if isinstance(window, QWidget) else None
    dialog = TableReadDialog(window.doc.project.role_names(), window.doc.path, parent)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    panel = TableReadPanel(window, dialog.choice())
    panel.show()
    panel.start()
    return panel
