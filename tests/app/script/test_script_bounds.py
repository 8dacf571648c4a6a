"""Issue 57 in the studio: an edit that takes a line past its bounds (engine/project/bounds.py)
is not taken, and the status bar says why; otherwise the studio would save a production its
own loader refuses. Typing, paste, replace all and the timing dialog, in a real window
offscreen. Screenshot of the refusal."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextCursor
from PySide6.QtWidgets import QDialogButtonBox

from app.dialogs.timing import TimingDialog
from app.script.line_editor import LineTextEdit
from app.script.model import Col
from engine.project.fileformat import load_project, save_project

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
PAUSES = " [pause 60] [pause 60] [pause 60] Gone."  # 180 s: over a line's 120


def test_typing_a_line_past_its_bounds_is_refused_with_the_reason(qtbot, make_window, tiny_file: Path) -> None:
    window = make_window(tiny_file)
    line = window.doc.project.lines[1]
    before = line.text
    view = window.script.view
    index = window.script.model.index(window.script.model.row_of_line(line.id), Col.TEXT)
    view.setCurrentIndex(index)
    view.edit(index)
    editor = view.findChild(LineTextEdit)
    assert editor is not None
    editor.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(editor, PAUSES)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    # The text is written as it is typed: it keeps what was typed up to the key that went over.
    assert line.text == before + PAUSES[:PAUSES.rindex("]")]
    message = window.statusBar().currentMessage()
    assert message == (f"Edit not taken: line {line.id}: its pauses add up to more than 120 s by '[pause 60]' at "
                       f"column {len(before) + 24} of the line; a longer silence goes before the next line, as its "
                       f"pause")
    qtbot.waitUntil(lambda: window.script.view.findChild(LineTextEdit) is None
                    or not window.script.view.findChild(LineTextEdit).isVisible())  # Enter closed the cell
    qtbot.wait(100)  # the status bar painted
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert window.grab().save(str(ARTIFACTS / "script-bound-refused.png"))
    window.files.save()
    load_project(tiny_file)  # what the studio saves, the loader opens


def test_paste_and_replace_all_past_the_bounds_change_nothing(qtbot, make_window, tiny_file: Path) -> None:
    window = make_window(tiny_file)
    doc, script = window.doc, window.script
    texts = [line.text for line in doc.project.lines]
    script.select_line(doc.project.lines[0].id)
    QGuiApplication.clipboard().setText("ROLE0: Fine.\nROLE1: " + "*so* " * 101 + "\n")
    script.paste_action.trigger()
    assert [line.text for line in doc.project.lines] == texts
    assert window.statusBar().currentMessage().startswith("Cannot paste: line ")
    assert "it emphasizes more than 100 words by '*so*' at column 501" in window.statusBar().currentMessage()

    script.replace_action.trigger()
    script.find_bar.find_edit.setText("spoken by")
    script.find_bar.replace_edit.setText(PAUSES)
    assert script.find_bar.replace_all() == 0
    assert [line.text for line in doc.project.lines] == texts
    assert window.statusBar().currentMessage().startswith(f"Not replaced: line {doc.project.lines[0].id}: its pauses")


def test_the_timing_dialog_keeps_beats_that_would_take_a_line_past_its_bounds(qtbot, make_window,
                                                                               tiny_file: Path) -> None:
    project = load_project(tiny_file)
    project.lines[0].text = "Wait. (beat) (beat) (beat) Now."
    save_project(project, tiny_file)
    window = make_window(tiny_file)
    window.actions_["timing"].trigger()
    qtbot.waitUntil(lambda: any(d.isVisible() for d in window.findChildren(TimingDialog)), timeout=5_000)
    dialog = next(d for d in window.findChildren(TimingDialog) if d.isVisible())
    dialog.spins["beat"].setValue(45.0)  # three beats: 135 s
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert dialog.isVisible() and window.doc.project.timing.beat == 0.6
    assert dialog.problem.isVisible()
    assert dialog.problem.text().startswith("With these lengths line L0001 would ask for too much: its pauses add "
                                            "up to more than 120 s by '(beat)' at column 21")
    dialog.spins["beat"].setValue(30.0)
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert not dialog.isVisible() and window.doc.project.timing.beat == 30.0
