"""The speech check in the studio (bundled voice: the recognizer needs real speech):
a line whose lexicon entry makes it say another word is flagged in the script
with its reason; Edit > Fix Flagged Lines tries new takes of it, keeps the best
(one undo step, saved with the project) and leaves a locked flagged line alone;
locked lines carry a padlock in the script and on the timeline."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QInputDialog, QLabel, QToolTip

from app.script.model import Col
from engine.project.fileformat import load_project, save_project
from engine.project.model import Line, Project, Role, Scene
from tests.support.paths import ARTIFACTS
from tests.support.studio import wait_engine

ARTIFACTS = ARTIFACTS


def _project(path: Path) -> Path:
    texts = ["A crack of thunder. The studio lights flickered, dimmed, and went out.",
             "The record had not been played in thirty years.",
             "Thunder again, closer now, over the harbour."]
    project = Project(title="Check", cast=[Role(name="NARRATOR")], scenes=[Scene("S1")],
                      lexicon={"thunder": "lemonade"},
                      lines=[Line(f"L{i}", "NARRATOR", text, "S1") for i, text in enumerate(texts, 1)])
    voice = project.role("NARRATOR").voice
    project.lines[2] = replace(project.lines[2], locked=voice)  # a locked line that is flagged too
    save_project(project, path)
    return path


@pytest.mark.integration
def test_flagged_lines_show_their_reason_and_fix_keeps_locked_lines(qtbot, make_window, tmp_path):
    path = _project(tmp_path / "check.radioplay")
    window = make_window(path, prerender=True, check=True)
    wait_engine(qtbot, window)
    marks = window.check_marks
    qtbot.waitUntil(lambda: len(marks.results) == 3, timeout=240_000)
    assert marks.flagged() == ["L1", "L3"], dict(marks.results)
    assert "thunder" in marks.results["L1"].reason
    assert "2 flagged" in window.findChild(QLabel, "checkLabel").text()

    # The flagged line's reason is its row's tooltip; the locked line says it is locked.
    view = window.script.view
    row = window.script.model.row_of_line("L1")
    rect = view.visualRect(window.script.model.index(row, Col.TEXT))
    assert "Speech check: garbled: thunder" in (marks.tooltip_at(rect.center().y(), Col.TEXT) or "")
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, rect.center(),
                                                       view.viewport().mapToGlobal(rect.center())))
    assert "thunder" in QToolTip.text()
    locked_row = window.script.model.row_of_line("L3")
    locked_y = view.visualRect(window.script.model.index(locked_row, Col.STATUS)).center().y()
    assert "Locked" in (marks.tooltip_at(locked_y, Col.STATUS) or "")
    timeline_clip = window.timeline._scene.clips["L3"]
    assert timeline_clip.locked and not window.timeline._scene.clips["L1"].locked

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    window.script.select_line("L2")
    qtbot.wait(100)
    assert window.grab().save(str(ARTIFACTS / "studio-check-1600x1000.png"))

    # Fix Flagged Lines: the dialog asks for the number of takes; L3 is locked and left alone.
    window.actions_["fix_flagged"].trigger()
    dialog = window.findChild(QInputDialog, "fixTakesDialog")
    assert dialog is not None and dialog.intValue() == 3
    dialog.setIntValue(2)
    dialog.accept()
    qtbot.waitUntil(lambda: window.doc.project.line("L1").takes != (), timeout=240_000)
    fixed, locked = window.doc.project.line("L1"), window.doc.project.line("L3")
    assert fixed.takes == (0, 1, 2) and fixed.take in fixed.takes  # "lemonade" stays: the best of three kept
    assert (locked.take, locked.takes) == (0, ())
    assert window.doc.undo.undoText() == "Fix flagged lines"
    window.doc.undo.undo()  # one undo step
    assert window.doc.project.line("L1").takes == ()
    window.doc.undo.redo()
    assert window.files.save()
    saved = load_project(path)
    assert saved.lines[0].takes == (0, 1, 2) and saved.lines[0].take == fixed.take
    assert saved.lines[2].locked is not None and saved.lines[2].takes == ()
    window.close()
