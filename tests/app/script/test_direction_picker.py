"""The script's Delivery column is a direction picker (vocabulary and intensity),
shows which directions are performed, auditions the line when its delivery is
picked (a real Session on the null output), and the Line column draws inline
directions apart from the words; a screenshot at the default size."""
# ruff: noqa: F811 - the fixtures come from tests/app/studio.py and are named as arguments

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QStyleOptionViewItem

from app.script.direction_picker import DirectionDelegate, DirectionPicker
from app.script.directions import PERFORMED, UNPERFORMED, direction_formats
from app.script.model import Col
from engine.project.model import Line, Project, Role, Scene
from engine.synth.pipeline import plan_line
from tests.support.studio import wait_engine

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


def project() -> Project:
    return Project(cast=[Role("TOM"), Role("LUCY")], scenes=[Scene("S1", "INT. STATION - NIGHT")], lines=[
        Line("L1", "TOM", "Tickets, please. (beat) Both of you.", "S1"),
        Line("L2", "LUCY", "Come here. (quietly) She has been waiting (to Tom).", "S1"),
        Line("L3", "TOM", "He has the wrong ticket.", "S1", note="whispering"),
        Line("L4", "LUCY", "Then he must go back.", "S1", note="to the guard"),
    ])


def test_inline_directions_are_styled_apart_performed_or_not(qapp) -> None:
    text = "Come here. (quietly) She has been waiting (to Tom)."
    formats = direction_formats(text)
    assert [(f.start, f.length) for f in formats] == [(11, 9), (42, 8)]
    assert text[11:20] == "(quietly)" and text[42:50] == "(to Tom)"
    assert formats[0].format.foreground().color() == PERFORMED
    assert formats[1].format.foreground().color() == UNPERFORMED
    assert all(f.format.fontItalic() for f in formats)
    assert direction_formats("No directions here.") == []


def test_picking_a_delivery_sets_the_note_shows_it_performed_and_auditions_the_line(qtbot, make_window) -> None:
    window = make_window(project=project())
    session = wait_engine(qtbot, window)
    script = window.script
    model = script.model
    delegate = script.view.itemDelegateForColumn(Col.NOTE)
    assert isinstance(delegate, DirectionDelegate)

    known = model.index(model.row_of_line("L3"), Col.NOTE)
    unknown = model.index(model.row_of_line("L4"), Col.NOTE)
    assert known.data() == "(whispering)" and "Performed: whispering" in known.data(Qt.ItemDataRole.ToolTipRole)
    assert known.data(Qt.ItemDataRole.ForegroundRole).color() == PERFORMED
    assert unknown.data() == "(to the guard?)" and "Not performed" in unknown.data(Qt.ItemDataRole.ToolTipRole)
    assert unknown.data(Qt.ItemDataRole.ForegroundRole).color() == UNPERFORMED

    index = model.index(model.row_of_line("L4"), Col.NOTE)
    editor = delegate.createEditor(script.view.viewport(), QStyleOptionViewItem(), index)
    assert isinstance(editor, DirectionPicker)
    delegate.setEditorData(editor, index)
    assert editor.delivery.currentText() == "to the guard"  # a note outside the vocabulary is kept as typed
    offered = [editor.delivery.itemText(i) for i in range(editor.delivery.count())]
    assert {"whispering", "shouting", "slowly", "sad"} <= set(offered) and len(offered) > 20
    editor.delivery.setCurrentText("tired")
    editor.intensity.setCurrentIndex(editor.intensity.findData("strong"))
    with qtbot.waitSignal(script.auditionLine, timeout=5_000) as picked:
        delegate.setModelData(editor, model, index)
    assert picked.args == ["L4"]
    line = window.doc.project.line("L4")
    assert line.note == "very tired" and index.data() == "(very tired)"
    assert "Performed: very tired" in index.data(Qt.ItemDataRole.ToolTipRole)
    window.doc.undo.undo()
    assert window.doc.project.line("L4").note == "to the guard"
    window.doc.undo.redo()

    # The audition voices the line as now directed (its clip, keyed by the direction, is made).
    key = plan_line(session.synth, window.doc.project, window.doc.project.line("L4")).key
    qtbot.waitUntil(lambda: key in session.synth.cache, timeout=120_000)

    script.select_line("L2")
    image = window.grab().toImage()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert image.save(str(ARTIFACTS / "script-directions.png"))
