"""Transport > Table Read… follows the read in the main window and reports each line:
a real window offscreen with its real Session (null output), every line voiced
first; the read (the simulated reader: espeak-ng recordings as the microphone)
plays through the window's own Session, so the script selects each line as it
comes and the window's playhead is at it; the reader's line is hidden until
said; a section with a strictness; the per-line accuracy table at the end.
Screenshots of the dialog and the report at their default sizes."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer

from app.transport.table_read import SIMULATE, TableReadDialog, TableReadPanel
from tests.support.paths import ARTIFACTS
from tests.support.rehearse import LINES, needs_espeak
from tests.support.studio import wait_all_ready, wait_engine


@needs_espeak
@pytest.mark.integration
def test_the_read_plays_through_the_studio_session_and_the_script_and_playhead_follow_it(
        qtbot, make_window, table) -> None:
    path, reads = table
    window = make_window(path, prerender=True)
    session = wait_engine(qtbot, window)
    wait_all_ready(qtbot, window, timeout=240_000)
    spans = {c.line_id: (c.start, c.end) for c in session.clips()}

    dialog = TableReadDialog(window.doc.project.role_names(), path, window, window.doc.project.lines)
    dialog.show()
    qtbot.waitExposed(dialog)
    dialog.roles.findItems("GUEST", Qt.MatchFlag.MatchExactly)[0].setCheckState(Qt.CheckState.Checked)
    dialog.device.setCurrentIndex(dialog.device.findData(SIMULATE))
    dialog.folder.setText(str(reads))
    dialog.strictness.setCurrentIndex(dialog.strictness.findData("strict"))
    dialog.from_line.setCurrentIndex(dialog.from_line.findData("L4"))
    dialog.to_line.setCurrentIndex(dialog.to_line.findData("L2"))
    dialog.buttons.accepted.emit()  # the section backwards: refused, with the reason
    assert dialog.isVisible() and "last line comes before the first" in dialog.error.text()
    dialog.from_line.setCurrentIndex(dialog.from_line.findData("L2"))
    dialog.to_line.setCurrentIndex(dialog.to_line.findData("L5"))
    dialog.hide_own.setChecked(True)
    ARTIFACTS.mkdir(exist_ok=True)
    assert dialog.grab().save(str(ARTIFACTS / "table-read-dialog.png"))
    dialog.buttons.accepted.emit()
    choice = dialog.choice()
    assert (choice.strictness, choice.from_line, choice.to_line, choice.loop, choice.hide_own) == (
        "strict", "L2", "L5", 1, True)

    panel = TableReadPanel(window, choice)
    panel.show()
    qtbot.waitExposed(panel)
    seen: list[tuple[str | None, float, bool, str]] = []  # (selected line, playhead, GUEST muted, panel text)

    def sample() -> None:
        live = window.session()
        muted = live is not None and live.handed_over().role("GUEST").mute
        seen.append((window.script.current_line_id(), live.transport().position_s if live else -1.0, muted,
                     panel.line.text()))

    timer = QTimer(panel)
    timer.timeout.connect(sample)
    timer.start(20)
    panel.start()
    qtbot.waitUntil(lambda: panel.report is not None or panel.result_label.text().startswith("Error"), timeout=240_000)
    timer.stop()
    panel.task.join(10)
    assert panel.report is not None, panel.result_label.text()
    assert window.session() is session  # the read played through the studio's own Session

    # The script selected each line of the section in turn, and the playhead was inside it meanwhile.
    selected = [line for line, *_ in seen if line is not None]
    order = [line for i, line in enumerate(selected) if i == 0 or selected[i - 1] != line]
    assert order[-4:] == ["L2", "L3", "L4", "L5"], order
    for line_id in ("L3", "L5"):  # played lines: the playhead ran through them
        start, end = spans[line_id]
        assert any(line == line_id and start - 0.05 <= pos <= end + 0.05 for line, pos, *_ in seen), line_id
    for line_id in ("L2", "L4"):  # read lines: the playhead waits at the line
        start, _end = spans[line_id]
        assert any(line == line_id and abs(pos - start) < 0.3 for line, pos, *_ in seen), line_id
    # GUEST was muted in the window's Session during the read, heard again after it.
    assert any(muted for *_, muted, _text in seen)
    assert not window.session().handed_over().role("GUEST").mute
    # The reader's lines were cued hidden.
    cues = {text for *_, text in seen if "(you)" in text}
    assert cues and all("words, hidden)" in text for text in cues), cues
    assert not any(text in cue for cue in cues for role, text in LINES if role == "GUEST")

    report = panel.report
    assert [r.line_id for r in report.results] == ["L2", "L3", "L4", "L5"]
    table_widget = panel.accuracy
    assert table_widget.isVisible() and table_widget.rowCount() == 2
    assert [table_widget.item(row, 0).text() for row in range(2)] == ["2", "4"]
    assert table_widget.item(1, 2).text() == "13"  # L4's words
    for row, r in enumerate([r for r in report.results if r.live]):
        assert table_widget.item(row, 4).text().startswith(f"{r.accuracy * 100:.0f} %")
    assert "Words heard:" in panel.result_label.text()
    qtbot.wait(50)
    assert panel.grab().save(str(ARTIFACTS / "table-read-accuracy.png"))
