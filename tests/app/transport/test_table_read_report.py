"""Issue 30 item 6 (part): the table read's report names each missed line and why."""

from __future__ import annotations

import os
from pathlib import Path

from app.transport.table_read import TableReadChoice, TableReadPanel
from engine.rehearse.report import LineResult, Report
from tests.support.paths import REPO
from tests.support.studio import wait_engine


def test_the_report_names_each_missed_line_and_why(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    lines = window.doc.project.lines
    panel = TableReadPanel(window, TableReadChoice((lines[1].role,), None, None, None))
    panel.show()
    qtbot.waitExposed(panel)
    report = Report([
        LineResult(lines[0].id, lines[0].role, False, "played"),
        LineResult(lines[1].id, lines[1].role, True, "missed"),  # the reader said nothing
        LineResult(lines[2].id, lines[2].role, False, "played"),
        LineResult(lines[4].id, lines[4].role, True, "missed", speech_s=3.2),  # spoke, end never matched
        LineResult(lines[5].id, lines[5].role, True, "recognized", gap_ms=240.0, speech_s=2.0),
    ])
    panel._done(report)  # what the run's task hands back on the GUI thread when it ends
    text = panel.result_label.text()
    assert "(missed 2)" in text
    assert f"Missed line 2 ({lines[1].role}): nothing heard for 20 s" in text
    assert f"Missed line 5 ({lines[4].role}): 3.2 s heard, its last words not recognized" in text
    assert "line 6" not in text
    artifacts = Path(os.environ.get("RADIOPLAY_ARTIFACTS", REPO / "tests" / "app" / "artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)  # the layout takes the report's new height
    assert panel.result_label.height() >= panel.result_label.heightForWidth(panel.result_label.width()) - 1  # none of it cut
    assert panel.grab().save(str(artifacts / "table-read-report.png"))
    panel.close()
