"""The script's time column shows where the engine laid each line out (its
SessionState's clips), and never lays the timeline out a second time."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex

from app.document.commands import SetLineField
from app.document.document import Document
from app.script.model import Col, ScriptModel
from engine.project.model import Line, Project, Role, VoiceParams
from engine.session import ClipView


@pytest.fixture
def doc(qapp):
    cast = [Role("ANNA", "#e6194b", VoiceParams()), Role("BEN", "#3cb44b", VoiceParams())]
    lines = [Line("L1", "ANNA", "Good morning."), Line("L2", "BEN", "Is it?"), Line("L3", "ANNA", "It is now.")]
    return Document(Project(title="T", cast=cast, lines=lines))


def _time(model: ScriptModel, line_id: str) -> str:
    return model.data(model.index(model.row_of_line(line_id), Col.TIME))


def test_the_time_column_and_the_line_heard_follow_the_engines_clips(doc):
    model = ScriptModel(doc)
    assert model.start_of("L2") is None  # nothing laid out yet: no time of its own making
    changed: list[tuple[int, int]] = []
    model.dataChanged.connect(lambda first, last, *_: changed.append((first.row(), last.row())))
    # A late line pinned where it arrived: starts no layout of the document would give.
    model.set_layout([ClipView("L1", "ANNA", 0.0, 1.2, False), ClipView("L2", "BEN", 7.5, 8.0, False),
                     ClipView("L3", "ANNA", 8.3, 9.9, True)])
    assert (model.start_of("L1"), model.start_of("L2"), model.start_of("L3")) == (0.0, 7.5, 8.3)
    assert _time(model, "L2") == "0:07.5" and changed
    assert model.line_at(7.6) == "L2" and model.line_at(3.0) == "L1" and model.line_at(9.0) == "L3"
    # An edit changes the document, not the starts: they wait for the engine's next layout.
    doc.undo.push(SetLineField(doc, "L1", "text", "Good morning to you, and to everyone in the house."))
    assert model.start_of("L2") == 7.5
    changed.clear()
    model.set_layout([ClipView("L1", "ANNA", 0.0, 3.0, False), ClipView("L2", "BEN", 7.5, 8.0, False),
                     ClipView("L3", "ANNA", 8.3, 9.9, True)])
    assert changed == []  # no start moved: no row redrawn


def test_a_replaced_project_forgets_the_old_starts(doc):
    model = ScriptModel(doc)
    model.set_layout([ClipView("L1", "ANNA", 0.0, 1.2, False)])
    doc.projectReplaced.emit()
    assert model.start_of("L1") is None and model.line_at(0.5) is None
    assert model.rowCount(QModelIndex()) == 3
