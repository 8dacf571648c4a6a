"""Transport > Table Read… in the studio: a real window offscreen, the
simulated reader (espeak-ng recordings as the microphone), the run on its
own thread while the GUI keeps turning, the report shown, and the recorded
takes in the production through save and reopen."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import time

import pytest
from PySide6.QtCore import Qt, QTimer

from app.transport.table_read import SIMULATE, TableReadChoice, TableReadDialog, TableReadPanel
from engine.project.fileformat import load_project
from tests.support.paths import ARTIFACTS
from tests.support.rehearse import espeak, needs_espeak
from tests.support.studio import wait_engine


@needs_espeak
@pytest.mark.integration
def test_a_table_read_in_the_studio_runs_off_the_gui_thread_and_keeps_the_takes(qtbot, make_window, table, tmp_path):
    path, reads = table
    window = make_window(path)
    wait_engine(qtbot, window)
    assert any(a.objectName() == "tableReadAction" for m in window.menuBar().findChildren(type(window.output_menu))
               for a in m.actions())

    dialog = TableReadDialog(window.doc.project.role_names(), path, window)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.buttons.accepted.emit()  # no role yet: refused, with the reason
    assert dialog.isVisible() and "at least one role" in dialog.error.text()
    guest = dialog.roles.findItems("GUEST", Qt.MatchFlag.MatchExactly)[0]
    guest.setCheckState(Qt.CheckState.Checked)
    dialog.device.setCurrentIndex(dialog.device.findData(SIMULATE))
    dialog.folder.setText(str(reads))
    dialog.record.setChecked(True)
    dialog.record_dir.setText(str(tmp_path / "takes"))
    ARTIFACTS.mkdir(exist_ok=True)
    dialog.grab().save(str(ARTIFACTS / "table_read_dialog.png"))
    dialog.buttons.accepted.emit()
    assert dialog.result() == dialog.DialogCode.Accepted
    choice = dialog.choice()
    assert choice.roles == ("GUEST",) and choice.simulate == reads and choice.record == tmp_path / "takes"

    panel = TableReadPanel(window, choice)
    panel.show()
    qtbot.waitExposed(panel)
    ticks: list[float] = []  # the GUI thread's timer keeps firing while the read runs
    timer = QTimer(panel)
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(20)
    panel.start()
    shot = False

    def over() -> bool:
        nonlocal shot
        if not shot and "(you)" in panel.line.text():
            panel.grab().save(str(ARTIFACTS / "table_read_running.png"))
            shot = True
        return panel.report is not None

    qtbot.waitUntil(over, timeout=240_000)
    timer.stop()
    panel.task.join(10)
    assert shot
    gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
    assert len(ticks) > 50 and max(gaps) < 1.0, f"the GUI thread stalled {max(gaps):.2f} s"
    panel.grab().save(str(ARTIFACTS / "table_read_report.png"))
    figures = panel.report.figures()
    assert (figures["lines"], figures["live_lines"], figures["missed"]) == (5, 2, 0)
    assert "Lines read live: 2 of 5" in panel.result_label.text() and "p50 / p95" in panel.result_label.text()
    assert "Recorded takes: 2" in panel.result_label.text()

    # The takes are one undo step in the document, and survive save and reopen.
    recorded = {ln.id for ln in window.doc.project.lines if ln.recording}
    assert recorded == {"L2", "L4"}
    window.doc.undo.undo()
    assert not any(ln.recording for ln in window.doc.project.lines)
    window.doc.undo.redo()
    panel.close()
    assert window.files.save()
    assert {ln.id for ln in load_project(path).lines if ln.recording} == {"L2", "L4"}


@needs_espeak
@pytest.mark.integration
def test_a_reader_who_stops_mid_line_sees_the_next_words_and_the_key_moves_on(qtbot, make_window, table):
    path, reads = table
    espeak("He kept the lamp burning", reads / "L4.wav")  # the reader loses their place here
    window = make_window(path)
    wait_engine(qtbot, window)
    panel = TableReadPanel(window, TableReadChoice(("GUEST",), None, reads, None))
    panel.show()
    qtbot.waitExposed(panel)
    panel.start()
    qtbot.waitUntil(lambda: panel.prompt.text().startswith("Next:"), timeout=120_000)
    assert "forty years" in panel.prompt.text() and panel.line.text().startswith("L4")
    panel.grab().save(str(ARTIFACTS / "table_read_prompt.png"))
    qtbot.keyClick(panel, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: panel.report is not None, timeout=120_000)
    panel.task.join(10)
    figures = panel.report.figures()
    assert (figures["live_lines"], figures["missed"], figures["manual_advances"]) == (2, 0, 1)
    assert "Manual advances: 1" in panel.result_label.text()
    assert not any(ln.recording for ln in window.doc.project.lines)  # Record was off
