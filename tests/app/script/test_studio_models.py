"""The studio's document, undo commands and item models, without a window or engine."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.cast.model import CastModel
from app.cast.model import Col as CastCol
from app.cast.voices import VoiceCatalog
from app.document.commands import SetLineField, move_clip, remove_lines
from app.document.document import Document
from app.script.line_editor import TYPING_ROLE
from app.script.model import LINE_ID, ScriptModel
from app.script.model import Col as ScriptCol
from app.widgets.delegates import resolve_role
from engine.project.model import Line, Project, Role, Scene, VoiceParams
from engine.project.timeline import layout
from engine.synth.library import VoiceLibrary


def _project(voice: str = "en_US-joe-medium") -> Project:
    cast = [Role("ANNA", "#e6194b", VoiceParams(voice=voice)), Role("BEN", "#3cb44b", VoiceParams(voice=voice))]
    scenes = [Scene("S1", "Kitchen"), Scene("S2", "Garden")]
    lines = [Line("L1", "ANNA", "Good morning.", "S1"), Line("L2", "BEN", "Is it?", "S1"),
             Line("L3", "ANNA", "It is now.", "S1"), Line("L4", "BEN", "Out here, then.", "S2")]
    return Project(title="T", cast=cast, scenes=scenes, lines=lines)


@pytest.fixture
def doc(qapp):
    return Document(_project())


def test_typing_in_one_session_is_one_undo_step(doc):
    model = ScriptModel(doc)
    index = model.index(model.row_of_line("L1"), ScriptCol.TEXT)
    for text in ("G", "Go", "Goo", "Good night."):
        assert model.setData(index, (text, 7), TYPING_ROLE)
    assert doc.project.line("L1").text == "Good night."
    assert doc.undo.count() == 1
    # A second editing session is a second step.
    model.setData(index, ("Good night!", 8), TYPING_ROLE)
    assert doc.undo.count() == 2
    doc.undo.undo()
    assert doc.project.line("L1").text == "Good night."
    doc.undo.undo()
    assert doc.project.line("L1").text == "Good morning."
    doc.undo.redo()
    assert doc.project.line("L1").text == "Good night."


def test_every_edit_reaches_listeners_through_one_signal(doc):
    changed: list[str] = []
    doc.lineChanged.connect(changed.append)
    doc.undo.push(SetLineField(doc, "L2", "note", "sleepily"))
    doc.undo.undo()
    assert changed == ["L2", "L2"]


def test_next_speaker_follows_the_alternation(doc):
    assert doc.guess_next_role(2) == "BEN"  # ANNA, BEN, ANNA -> BEN
    assert doc.guess_next_role(1) == "ANNA"
    doc.project.lines.append(Line("L5", "BEN", "Again.", "S2"))
    assert doc.guess_next_role(4) == "ANNA"  # BEN, BEN: the last other speaker


def test_deleting_lines_is_one_step_and_undo_restores_their_order(doc):
    before = [line.id for line in doc.project.lines]
    doc.undo.push(remove_lines(doc, ["L1", "L3"]))
    assert [line.id for line in doc.project.lines] == ["L2", "L4"]
    assert doc.undo.count() == 1
    doc.undo.undo()
    assert [line.id for line in doc.project.lines] == before


def _start(doc: Document, line_id: str, durations: dict[str, float]) -> float:
    return next(p.start for p in layout(doc.project, durations) if p.line_id == line_id)


@pytest.mark.parametrize("target, field", [(9.0, "pause_before"), (3.0, "overlap"), (1.5, "start")])
def test_a_dropped_clip_lands_where_it_was_dropped(doc, target, field):
    durations = {"L1": 2.0, "L2": 1.0, "L3": 1.0, "L4": 1.5}
    # L2 sits at 2.35-3.35 and L3 follows it at 3.7; a later drop is a pause, a drop over
    # L2 an overlap (an interruption), a drop before L2 a pinned start.
    command = move_clip(doc, "L3", target, durations)
    doc.undo.push(command)
    line = doc.project.line("L3")
    assert _start(doc, "L3", durations) == pytest.approx(target, abs=0.002)
    assert getattr(line, field) not in (None, 0.0)
    doc.undo.undo()
    assert (line.start, line.overlap, line.pause_before) == (None, 0.0, 0.0)


def test_script_rows_show_scene_headings_before_their_lines(doc):
    model = ScriptModel(doc)
    kinds = ["scene" if model.is_scene_row(r) else model.data(model.index(r, 0), LINE_ID)
             for r in range(model.rowCount())]
    assert kinds == ["scene", "L1", "L2", "L3", "scene", "L4"]
    assert "Garden" in model.data(model.index(4, 0))
    assert not model.flags(model.index(0, ScriptCol.TEXT)) & Qt.ItemFlag.ItemIsEditable


def test_script_status_column_shows_a_failure_with_its_reason(doc):
    from types import SimpleNamespace

    model = ScriptModel(doc)
    failed = SimpleNamespace(state=SimpleNamespace(name="FAILED"), error="text has nothing to say")
    ready = SimpleNamespace(state=SimpleNamespace(name="READY"), error=None)
    model.set_status({"L1": failed, "L2": ready})
    row = model.row_of_line("L1")
    assert model.data(model.index(row, ScriptCol.STATUS)) == "failed"
    assert model.data(model.index(row, ScriptCol.TEXT)) == "Good morning.\n⚠ text has nothing to say"
    assert model.data(model.index(row, ScriptCol.TEXT), Qt.ItemDataRole.EditRole) == "Good morning."
    assert "nothing to say" in model.data(model.index(row, ScriptCol.STATUS), Qt.ItemDataRole.ToolTipRole)
    assert model.data(model.index(model.row_of_line("L2"), ScriptCol.STATUS)) == "ready"


def test_role_is_typed_ahead_and_unknown_roles_are_refused(doc):
    names = doc.project.role_names() + ["MR. HOLLIS", "MRS. ALDER"]
    assert resolve_role("ann", names) == "ANNA"
    assert resolve_role("holl", names) == "MR. HOLLIS"
    assert resolve_role("mr", names) is None  # MR. HOLLIS and MRS. ALDER: ambiguous
    model = ScriptModel(doc)
    index = model.index(model.row_of_line("L1"), ScriptCol.ROLE)
    assert not model.setData(index, "NOBODY")
    assert model.setData(index, "BEN")
    assert doc.project.line("L1").role == "BEN"


def test_cast_edits_are_undoable_and_clamped_to_the_engine_ranges(doc, tmp_path):
    model = CastModel(doc, VoiceCatalog(VoiceLibrary(user_dir=tmp_path)))
    speed = model.index(0, CastCol.SPEED)
    assert model.setData(speed, 9.0)  # beyond VOICE_RANGES["speed"]
    assert doc.project.cast[0].voice.speed == 4.0
    solo = model.index(1, CastCol.SOLO)
    model.setData(solo, Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole)
    assert doc.project.cast[1].solo
    doc.undo.undo()
    doc.undo.undo()
    assert doc.project.cast[0].voice.speed == 1.0 and not doc.project.cast[1].solo


def test_a_missing_voice_is_shown_in_its_cast_row(qapp, tmp_path):
    doc = Document(_project(voice="no-such-voice"))
    model = CastModel(doc, VoiceCatalog(VoiceLibrary(user_dir=tmp_path)))
    voice = model.index(0, CastCol.VOICE)
    assert model.data(voice).endswith("— not installed")
    assert "voice no-such-voice is not installed: get it with Voices > Get Voices" in model.data(
        voice, Qt.ItemDataRole.ToolTipRole)


def test_renaming_a_role_renames_its_lines_and_undoes(doc, tmp_path):
    model = CastModel(doc, VoiceCatalog(VoiceLibrary(user_dir=tmp_path)))
    assert model.setData(model.index(0, CastCol.NAME), "ANNE")
    assert [line.role for line in doc.project.lines] == ["ANNE", "BEN", "ANNE", "BEN"]
    assert not model.setData(model.index(0, CastCol.NAME), "BEN")  # names stay unique
    doc.undo.undo()
    assert doc.project.role_names() == ["ANNA", "BEN"]
    assert doc.project.line("L1").role == "ANNA"


def test_voice_picker_lists_bundled_and_user_voices_and_speakers(qapp, tmp_path, tiny_voices):
    import shutil

    from app.cast.panel import BROWSE, CastPanel

    user = tmp_path / "voices"
    user.mkdir()
    for suffix in ("", ".json"):
        shutil.copy(f"{tiny_voices['multi']}{suffix}", user / f"tiny-multi.onnx{suffix}")
    doc = Document(_project())
    panel = CastPanel(doc, VoiceCatalog(VoiceLibrary(user_dir=user)))
    choices = dict(panel._voice_choices(panel.model.index(0, CastCol.VOICE)))
    assert choices["en_US-joe-medium (bundled)"] == "en_US-joe-medium"
    assert choices["tiny-multi (user folder)"] == "tiny-multi"
    assert choices["Model file…"] == BROWSE
    model = panel.model
    speaker = model.index(0, CastCol.SPEAKER)
    assert not model.flags(speaker) & Qt.ItemFlag.ItemIsEditable  # one speaker: nothing to pick
    assert model.setData(model.index(0, CastCol.VOICE), "tiny-multi")
    assert model.flags(speaker) & Qt.ItemFlag.ItemIsEditable
    assert [label for label, _ in panel._speaker_choices(speaker)] == ["alice (0)", "bob (1)", "carol (2)"]
    assert [value for _, value in panel._speaker_choices(speaker)] == ["alice", "bob", "carol"]
    assert model.setData(speaker, 1)  # a number picks the speaker; a named one is stored by name
    assert doc.project.cast[0].voice.speaker == "bob" and model.data(speaker) == "bob"
    assert not model.setData(speaker, "bob")  # the same speaker: no edit
    doc.undo.undo()
    doc.undo.undo()
    assert doc.project.cast[0].voice.voice == "en_US-joe-medium" and doc.project.cast[0].voice.speaker is None
