"""Issue 16 in the studio: a typed "(note)" is the line's delivery note, and
"Add role" makes a role that sounds different from every other."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QStyleOptionViewItem, QWidget

from app.document.document import Document
from app.script.line_editor import TYPING_ROLE, LineTextEdit, TypingDelegate
from app.script.model import Col, ScriptModel
from engine.project.model import Line, Project, Role, Scene, VoiceParams


@pytest.fixture
def doc(qapp):
    cast = [Role("TOM", voice=VoiceParams()), Role("SUE", voice=VoiceParams(pitch=1.5, speed=0.9, variation=1.2))]
    lines = [Line("L1", "TOM", "Hello.", "S1", note="loud"), Line("L2", "SUE", "Hi.", "S1")]
    return Document(Project(cast=cast, scenes=[Scene("S1")], lines=lines))


def test_typing_a_leading_parenthetical_makes_it_the_note_on_commit(doc, qapp):
    model = ScriptModel(doc)
    index = model.index(model.row_of_line("L1"), Col.TEXT)
    delegate = TypingDelegate()
    parent = QWidget()
    editor = delegate.createEditor(parent, QStyleOptionViewItem(), index)
    assert isinstance(editor, LineTextEdit)
    for text in ("(", "(out of breath)", "(out of breath) Wait for me!"):  # keystrokes reach the model live
        model.setData(index, (text, 99), TYPING_ROLE)
    editor.set_text("(out of breath) Wait for me!")
    delegate.setModelData(editor, model, index)  # Enter
    line = doc.project.line("L1")
    assert (line.text, line.note) == ("Wait for me!", "loud; out of breath")
    doc.undo.undo()
    assert (line.text, line.note) == ("(out of breath) Wait for me!", "loud")
    doc.undo.undo()
    assert (line.text, line.note) == ("Hello.", "loud")


def test_parentheses_later_in_the_text_stay_words(doc):
    model = ScriptModel(doc)
    assert model.setData(model.index(model.row_of_line("L2"), Col.TEXT), "Wait (please) here.")
    assert (doc.project.line("L2").text, doc.project.line("L2").note) == ("Wait (please) here.", "")


def test_add_role_differs_from_every_other_role(doc):
    for _ in range(12):
        role = doc.new_role()
        doc.project.cast.append(role)
    sounds = [(r.voice.voice, r.voice.pitch, r.voice.speed, r.voice.variation) for r in doc.project.cast]
    assert len(set(sounds)) == len(sounds), "a new role copied another role's voice"
    assert all(abs(r.voice.pitch) <= 1.5 and 0.9 <= r.voice.speed <= 1.1 for r in doc.project.cast)
    assert len({r.name for r in doc.project.cast}) == len(doc.project.cast)
