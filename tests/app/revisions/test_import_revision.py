"""File > Import Revision: the report before applying, applying as one undo step, offscreen."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from app.revisions.dialog import RevisionDialog, open_revision_dialog
from engine.project.fileformat import load_project, save_project
from engine.project.takes import locked, with_new_take
from engine.synth.production_import import import_production
from tests.support.paths import ARTIFACTS
from tests.support.revisions import HELD_OUT_SCRIPT, write_script


def _production(tmp_path: Path) -> Path:
    script = write_script(tmp_path / "harbour.txt", HELD_OUT_SCRIPT)
    project = import_production(script, suggest=lambda roles, lines, spoken: {}).project
    project.lines[2] = locked(project, with_new_take(project.lines[2]))
    project.lines[5].recording = str(tmp_path / "table-read-L0006.wav")  # a person's take of words that change
    path = tmp_path / "harbour.radioplay"
    save_project(project, path)
    return path


def _draft(tmp_path: Path) -> Path:
    lines = list(HELD_OUT_SCRIPT)
    lines[1] = lines[1].replace("the last bus", "the late bus")
    lines[5] = lines[5].replace("a red umbrella", "a green umbrella")
    lines.insert(4, "MARA: Then we wait. Nobody walks the coast road at night.")
    del lines[5]
    lines.insert(0, lines.pop(6))
    return write_script(tmp_path / "harbour-draft2.txt", lines)


def test_import_revision_shows_the_report_and_applies_as_one_undo_step(qtbot, make_window, tmp_path):
    path = _production(tmp_path)
    before = load_project(path)
    window = make_window(path)
    file_menu = window.menuBar().actions()[0].menu()
    assert "importRevisionAction" in [a.objectName() for a in file_menu.actions()]
    dialog = open_revision_dialog(window, _draft(tmp_path))
    assert isinstance(dialog, RevisionDialog) and dialog.revised is not None
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(ARTIFACTS / "revision-dialog.png"))
    rows = [tuple(dialog.table.item(r, c).text() for c in range(5)) for r in range(dialog.table.rowCount())]
    kinds = sorted(row[1] for row in rows)
    assert kinds == ["added", "changed", "changed", "moved", "removed"]
    changed = {row[2]: (row[3], row[4]) for row in rows if row[1] == "changed"}
    assert changed[before.lines[1].id] == (before.lines[1].text, before.lines[1].text.replace("last bus", "late bus"))
    assert "Blue Revision" == dialog.name.text()
    assert "3 lines to re-voice" in dialog.notes.text()
    assert f"The recording of {before.lines[5].id} no longer matches" in dialog.notes.text()
    assert window.doc.project.lines[1].text == before.lines[1].text  # nothing applied before the button

    undo_steps = window.doc.undo.count()
    dialog.name.setText("Draft 3 (blue)")
    dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert window.doc.undo.count() == undo_steps + 1
    project = window.doc.project
    assert [x.id for x in project.lines][0] == before.lines[6].id
    assert project.line(before.lines[2].id).locked == before.lines[2].locked  # the lock of a kept line stays
    assert project.line(before.lines[5].id).recording is None  # the stale recording is not reused
    assert project.revisions[-1].name == "Draft 3 (blue)"
    qtbot.wait(50)  # the views redraw from the signals (an exception there fails the test)
    model = window.script.model
    headers = {model.line_id_at(row): model.headerData(row, Qt.Orientation.Vertical)
               for row in range(model.rowCount()) if model.line_id_at(row)}
    marked = {line_id for line_id, text in headers.items() if text.endswith(" *")}
    assert marked == {before.lines[1].id, before.lines[5].id, *project.revisions[-1].added}
    tip = model.headerData(model.row_of_line(before.lines[1].id), Qt.Orientation.Vertical, Qt.ItemDataRole.ToolTipRole)
    assert tip == f"Changed by Draft 3 (blue) ({project.revisions[-1].date})"
    window.grab().save(str(ARTIFACTS / "revision-marks.png"))

    window.doc.undo.undo()  # one step takes the whole revision back
    assert [(x.id, x.text) for x in window.doc.project.lines] == [(x.id, x.text) for x in before.lines]
    assert window.doc.project.revisions == []
    qtbot.wait(50)
    window.doc.undo.redo()
    assert window.files.save()
    saved = load_project(path)
    assert saved.revisions[0].name == "Draft 3 (blue)" and saved.revisions[0].flagged == (before.lines[5].id,)


def test_a_draft_that_cannot_be_read_says_why_and_applies_nothing(qtbot, make_window, tmp_path):
    path = _production(tmp_path)
    window = make_window(path)
    broken = tmp_path / "draft.txt"
    broken.write_bytes(b"MARA: \xff\xfe not text")
    dialog = open_revision_dialog(window, broken)
    assert dialog is not None and dialog.revised is None
    assert "not UTF-8 text" in dialog.notes.text()
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()
