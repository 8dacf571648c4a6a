"""Transport > Table Read…: the studio's face of ``radioplay rehearse``.

The dialog picks the live roles, the input (a microphone listed by
sounddevice, or a folder of ``<LINE_ID>.wav`` recordings read as a simulated
reader), whether each live line is recorded as a take, the strictness, a
section (from a line to a line, repeated) and whether the reader's own lines
are hidden until said. The run itself is engine/rehearse's :class:`TableRead`,
driven on a worker thread through :func:`app.document.marshal.run_task`
through the studio's own running Session (voices loaded and clips in memory:
the read starts at once, and the window's transport and playhead are the
read's), with the live roles muted in what the window hands it
(``lend_session``) until the read ends; only without a running Session does
it open one of its own. Each line as it comes is selected in the script
(``follow_read``). Its ``say`` lines come back through the Marshal to a small
panel that shows the current line, the prompt words when the reader stops
mid-line, Advance (the key Ctrl+Return), Back and Stop buttons, and the
report at the end with the per-line accuracy table
(app/transport/table_read_report.py). Recorded takes land in the document
as one undo step (the line's ``recording``), so save and reopen keep them.

Threads: ``radioplay-tableread`` (one per run, joined when the panel closes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut, QUndoCommand
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
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.document.document import Document
from app.document.marshal import Task, run_task
from app.transport.access import TableReadStudio
from app.transport.table_read_report import AccuracyTable, report_text
from engine.project.model import Line, Project
from engine.rehearse.reader import has_default_input
from engine.rehearse.reader import input_names as input_devices
from engine.rehearse.report import Report
from engine.rehearse.strictness import STRICTNESS
from engine.session import Session

if TYPE_CHECKING:  # imported where a read starts: the runner loads the listening stack
    from engine.rehearse.runner import TableRead

SIMULATE = "Simulate from a folder…"
ADVANCE_KEY = "Ctrl+Return"


@dataclass(frozen=True)
class TableReadChoice:
    roles: tuple[str, ...]
    device: str | None  # an input device's name; None: the system default
    simulate: Path | None  # a folder of <LINE_ID>.wav read as the microphone
    record: Path | None  # where the takes go; None: nothing recorded
    strictness: str = "normal"
    from_line: str | None = None  # the section; None: from the top / to the end
    to_line: str | None = None
    loop: int = 1  # passes through the section; 0: until Stop
    hide_own: bool = False  # the reader's lines are cued without their words


NO_MICROPHONE = ("No microphone found: connect one and open Table Read again, or choose "
                 "Simulated reader to read the part from recordings.")


class TableReadDialog(QDialog):
    def __init__(self, roles: list[str], project_path: Path | None, parent: QWidget | None = None,
                 lines: list[Line] | None = None) -> None:
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
        self.microphone = has_default_input()
        self.device.addItem("System default input" if self.microphone else "No microphone found", None)
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
        self.strictness = QComboBox()
        self.strictness.setObjectName("tableReadStrictness")
        for name, level in STRICTNESS.items():
            self.strictness.addItem(f"{name.capitalize()}: {level.summary}", name)
        self.strictness.setCurrentIndex(self.strictness.findData("normal"))
        self.from_line, self.to_line = QComboBox(), QComboBox()
        spoken = [line for line in (lines or []) if line.text.strip()]
        for combo, edge in ((self.from_line, "the first line"), (self.to_line, "the last line")):
            combo.addItem(f"({edge})", None)
            for n, line in enumerate(spoken, start=1):
                text = line.text if len(line.text) <= 40 else line.text[:39] + "…"
                combo.addItem(f"{n}  {line.role}: {text}", line.id)
        self.loop = QSpinBox()
        self.loop.setObjectName("tableReadLoop")
        self.loop.setRange(0, 99)
        self.loop.setValue(1)
        self.loop.setSpecialValueText("until Stop")
        self.loop.setSuffix(" time(s)")
        self.hide_own = QCheckBox("Hide my lines until I have said them (cue only)")
        section = QHBoxLayout()
        section.addWidget(self.from_line, 1)
        section.addWidget(QLabel("to"))
        section.addWidget(self.to_line, 1)
        form = QFormLayout()
        form.addRow("Roles read live:", self.roles)
        form.addRow("Input:", self.device)
        form.addRow("Simulated reader:", sim_row)
        form.addRow(self.record)
        form.addRow("Takes folder:", self.record_dir)
        form.addRow("Strictness:", self.strictness)
        form.addRow("Section:", section)
        form.addRow("Read it:", self.loop)
        form.addRow(self.hide_own)
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
        for combo in (self.from_line, self.to_line):
            combo.currentIndexChanged.connect(self.error.clear)
        # A few rows show the cast; more scroll (the options below stay in view).
        self.roles.setMaximumHeight(self.roles.sizeHintForRow(0) * min(max(len(roles), 3), 6) + 8)
        self.record.toggled.connect(self._sync)
        self.resize(620, self.sizeHint().height())
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
        return TableReadChoice(self.checked_roles(), None if data == SIMULATE else data, simulate, record,
                               str(self.strictness.currentData()), self.from_line.currentData(),
                               self.to_line.currentData(), self.loop.value(), self.hide_own.isChecked())

    def _accept(self) -> None:
        choice = self.choice()
        if not choice.roles:
            self.error.setText("Choose at least one role to read live.")
        elif self.device.currentIndex() == 0 and not self.microphone:
            self.error.setText(NO_MICROPHONE)
        elif self.device.currentData() == SIMULATE and not (choice.simulate and choice.simulate.is_dir()):
            self.error.setText(f"Simulated reader: {self.folder.text() or 'no folder'} is not a folder.")
        elif choice.record is not None and not self.record_dir.text().strip():
            self.error.setText("Takes folder: empty.")
        elif self.to_line.currentIndex() and self.from_line.currentIndex() > self.to_line.currentIndex():
            self.error.setText("Section: the last line comes before the first.")
        else:
            self.accept()


class TableReadPanel(QDialog):
    """Non-modal: the studio stays usable (and repaints) while the run goes on."""

    def __init__(self, window: TableReadStudio, choice: TableReadChoice) -> None:
        super().__init__(window if isinstance(window, QWidget) else None)
        self.setWindowTitle("Table Read")
        self.setObjectName("tableReadPanel")
        self.window_, self.choice = window, choice
        self.table: TableRead | None = None
        self.task: Task | None = None
        self.report: Report | None = None
        self.started_at: float | None = None
        self.first_line_at: float | None = None  # when the read reached its first line (GUI thread)
        self.line = QLabel("Getting the cast ready…")
        self.line.setWordWrap(True)
        self.line.setStyleSheet("font-size: 15pt")
        self.prompt = QLabel()
        self.prompt.setWordWrap(True)
        self.prompt.setStyleSheet("font-size: 13pt; color: #1565c0")
        self.result_label = QLabel()
        self.result_label.setWordWrap(True)
        self.advance_button = QPushButton(f"Advance ({QKeySequence(ADVANCE_KEY).toString()})")
        self.advance_button.clicked.connect(self.advance)
        QShortcut(QKeySequence(ADVANCE_KEY), self, self.advance)
        self.back_button = QPushButton("Back a line")
        self.back_button.clicked.connect(self.back)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("End the read after this line")
        self.stop_button.clicked.connect(self.stop)
        buttons = QHBoxLayout()
        buttons.addWidget(self.advance_button)
        buttons.addWidget(self.back_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        self.accuracy = AccuracyTable()
        self.accuracy.hide()
        mode = [f"strictness {choice.strictness}"]
        if choice.from_line or choice.to_line:
            mode.append(f"lines {choice.from_line or 'first'} to {choice.to_line or 'last'}")
        if choice.loop != 1:
            mode.append("repeated until Stop" if choice.loop == 0 else f"{choice.loop} times")
        if choice.hide_own:
            mode.append("your lines hidden")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Reading live: {', '.join(choice.roles)} ({', '.join(mode)})"))
        layout.addWidget(self.line)
        layout.addWidget(self.prompt)
        layout.addLayout(buttons)
        layout.addWidget(self.result_label)
        layout.addWidget(self.accuracy, 1)
        layout.addStretch(0)
        self.resize(640, 420)

    # --- the keys (GUI thread; TableRead posts them to its own thread) ---

    def advance(self) -> None:
        if self.table is not None:
            self.table.advance()

    def back(self) -> None:
        if self.table is not None:
            self.table.back()

    def stop(self) -> None:
        if self.table is not None:
            self.table.stop()

    def start(self) -> None:
        from engine.rehearse.runner import muted_for_reading

        w = self.window_
        w.stop()  # the studio's own playback would talk over the read
        project, path = w.doc.snapshot(), w.doc.path
        roles = self.choice.roles
        session = w.session()
        if session is not None:  # warm: the read plays through it, the live roles muted in all it is handed
            w.lend_session(lambda snapshot: muted_for_reading(snapshot, roles))
        self.started_at = time.monotonic()
        self.task = run_task("radioplay-tableread", lambda: self._run(project, path, session), w.marshal,
                             self._done, self._failed)

    # --- the run (thread radioplay-tableread) ---

    def _run(self, project: Project, path: Path | None, lent: Session | None) -> Report:
        from engine.rehearse.reader import MicReader, Reader, SimulatedReader
        from engine.rehearse.runner import RehearseOptions, TableRead, plan_lines
        from engine.rehearse.take_names import take_file_names

        c = self.choice
        options = RehearseOptions(c.roles, c.from_line, c.record, to_line=c.to_line, loop=c.loop,
                                  strictness=c.strictness, hide_own=c.hide_own)
        lines = plan_lines(project, options)
        rate = project.sample_rate
        names = take_file_names([ln.id for ln in project.lines])
        if c.record is not None:  # before anything plays: the takes never replace the recordings read
            from engine.rehearse.takes import check_takes

            live = [ln.id for ln in lines if ln.role in c.roles]
            inputs: list[tuple[str, str | Path]] = [("the project", path)] if path is not None else []
            if c.simulate is not None:
                inputs += [("a recording the simulated reader reads", c.simulate / names[lid]) for lid in live]
            check_takes(c.record, [names[lid] for lid in live], inputs)
        reader: Reader = (SimulatedReader(c.simulate, rate, [ln.id for ln in lines if ln.role in c.roles],
                                          file_names=names)
                          if c.simulate is not None else MicReader(rate, c.device))
        session = lent
        marshal = self.window_.marshal
        try:
            if session is None:
                session = self.window_.session_factory(project, path)
            table = TableRead(session, reader, options, lambda text: marshal.to_main(self._said, text),
                              follow=lambda line_id: marshal.to_main(self._follow, line_id))
            self.table = table
            return table.run()
        finally:
            self.table = None
            if session is not None and session is not lent:
                session.close()
            reader.close()

    # --- back on the GUI thread ---

    def _follow(self, line_id: str) -> None:
        if self.first_line_at is None:
            self.first_line_at = time.monotonic()
        self.window_.follow_read(line_id)

    def _said(self, text: str) -> None:
        if text.startswith("  ..."):
            self.prompt.setText(f"Next: {text.strip(' .')}")
        elif text.startswith("  = "):  # a hidden line, said (or missed): shown now
            self.prompt.setText(f"Your line: {text[4:]}")
        elif not text.startswith("  "):
            self.line.setText(text)
            self.prompt.clear()

    def _end(self) -> None:
        self.window_.lend_session(None)  # the studio's Session hears the document as it is again
        for button in (self.advance_button, self.back_button, self.stop_button):
            button.setEnabled(False)

    def _done(self, report: Report) -> None:
        self.report = report
        self._end()
        self.line.setText("The table read is over.")
        self.prompt.clear()
        takes = {r.line_id: r.take for r in report.results if r.take}
        order = [line.id for line in self.window_.doc.project.lines]
        self.result_label.setText(report_text(report, order, len(takes)))
        self.accuracy.show_report(report, order)
        self.accuracy.setVisible(any(r.live for r in report.results))
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
        self._end()
        self.line.setText("The table read stopped.")
        self.result_label.setText(f"Error: {exc}")

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if self.task is not None and self.task.running():
            self.result_label.setText("Finish the read first (Advance through the remaining lines).")
            event.ignore()
            return
        super().closeEvent(event)


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
    dialog = TableReadDialog(window.doc.project.role_names(), window.doc.path, parent, window.doc.project.lines)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    panel = TableReadPanel(window, dialog.choice())
    panel.show()
    panel.start()
    return panel
