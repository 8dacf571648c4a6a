"""The Lexicon panel in the studio (issue 14): an entry added from a word
selected in the script, edited, removed and imported, each one undo step that
voices again only the lines using the entry; a bad entry is shown in its row
and fails only its line. Real window offscreen, real Session, tiny voices."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor

from app.script.line_editor import LineTextEdit
from app.script.model import Col
from app.shell.main_window import MainWindow
from engine.project.fileformat import save_project
from engine.session import LineState
from tests.support.paths import ARTIFACTS
from tests.support.projects import tiny_project
from tests.support.studio import wait_all_ready, wait_engine

ARTIFACTS = ARTIFACTS
TEXTS = ["We reach Llanfair by noon.", "Llanfair? Never heard of it.", "The road is long.",
         "Llanfair is far.", "Far away, the sea.", "Quiet now."]


def _project_file(tmp_path: Path, tiny_voices: dict[str, Path]) -> Path:
    project = tiny_project(tiny_voices["single"], roles=2, lines_per_role=3)  # ROLE0: L1 L3 L5, ROLE1: L2 L4 L6
    for line, text in zip(project.lines, TEXTS, strict=True):
        line.text = text
    path = tmp_path / "lexicon.radioplay"
    save_project(project, path)
    return path


def _revoiced(qtbot: Any, window: MainWindow, edit: Any) -> tuple[set[str], int]:
    """Run ``edit``; the lines whose clip changed once the engine has settled, and how many
    syntheses that took (a line back to a sound heard before comes from the clip cache)."""
    session = window.session()
    assert session is not None
    before = {lid: record.clip for lid, record in session._lines.items()}
    calls = session.synth.synth_calls
    edit()
    assert window.session() is session  # hands the edit over now
    session.wait_idle(10.0)  # applied: the changed lines have lost their clips and are asked for

    def settled() -> bool:
        status = session.line_status()
        return (not session.scheduler.job_states()
                and all(s.state in (LineState.READY, LineState.FAILED) for s in status.values()))

    qtbot.waitUntil(settled, timeout=30_000)
    changed = {lid for lid, clip in before.items() if session._lines[lid].clip is not clip}
    return changed, session.synth.synth_calls - calls


def test_add_from_the_script_edit_remove_and_import_voice_only_the_lines_using_the_entry(
        qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(_project_file(tmp_path, tiny_voices), prerender=True)
    wait_engine(qtbot, window)
    wait_all_ready(qtbot, window)
    panel = window.lexicon

    # Select "Llanfair" in the line being edited; Add to Lexicon fills the form.
    window.script.select_line("L0002")
    window.script.view.edit(window.script.model.index(window.script.model.row_of_line("L0002"), Col.TEXT))
    editor = next(w for w in window.script.view.viewport().findChildren(LineTextEdit) if w.isVisible())
    assert editor.contextMenuPolicy() == Qt.ContextMenuPolicy.CustomContextMenu  # its menu offers the action
    cursor = editor.textCursor()
    cursor.setPosition(0)
    cursor.setPosition(len("Llanfair"), QTextCursor.MoveMode.KeepAnchor)
    editor.setTextCursor(cursor)
    panel.add_action.trigger()
    assert (panel.word.text(), panel.say.text(), panel.voice.currentText()) == ("Llanfair", "", "ROLE1")
    window.script.view.setFocus()  # the editor closes

    # Typing the respelling is heard in ROLE1's voice (the engine synthesizes it, not the GUI).
    session = window.session()
    calls = session.synth.synth_calls
    qtbot.keyClicks(panel.say, "Clan vire")
    qtbot.waitUntil(lambda: session.synth.synth_calls > calls, timeout=10_000)
    session.wait_idle(10.0)

    assert _revoiced(qtbot, window, panel.add_button.click) == ({"L0001", "L0002", "L0004"}, 3)
    assert window.doc.project.lexicon == {"Llanfair": "Clan vire"}
    assert [panel.uses.item(i).data(Qt.ItemDataRole.UserRole) for i in range(panel.uses.count())] == [
        "L0001", "L0002", "L0004"]
    panel.uses.itemClicked.emit(panel.uses.item(2))
    assert window.script.current_line_id() == "L0004"

    # Moved to ROLE1 with another respelling: ROLE1's two lines are voiced anew; ROLE0's line
    # says the written word again, a sound the cache still holds.
    panel.table.selectRow(0)
    panel.scope.setCurrentText("ROLE1")
    panel.say.setText("Thlan vire")
    assert _revoiced(qtbot, window, panel.add_button.click) == ({"L0001", "L0002", "L0004"}, 2)
    assert window.doc.project.lexicon == {} and window.doc.project.role("ROLE1").lexicon == {
        "Llanfair": "Thlan vire"}
    # One undo step puts the project's entry back: every sound is in the cache.
    assert _revoiced(qtbot, window, window.doc.undo.undo) == ({"L0001", "L0002", "L0004"}, 0)
    assert window.doc.project.lexicon == {"Llanfair": "Clan vire"}
    # A ROLE1 entry beside the project's: it wins for ROLE1's lines only.
    panel.word.setText("Llanfair")
    panel.say.setText("Hlan veer")
    panel.editing = None
    panel.scope.setCurrentText("ROLE1")
    assert _revoiced(qtbot, window, panel.add_button.click) == ({"L0002", "L0004"}, 2)
    window.doc.undo.undo()

    # Remove: the lines say the written word again.
    panel.table.selectRow(0)
    assert _revoiced(qtbot, window, panel.remove_button.click) == ({"L0001", "L0002", "L0004"}, 0)
    assert window.doc.project.lexicon == {} and panel.model.rows == []

    # Import a CSV: one good entry for ROLE0, one that says nothing for ROLE1.
    csv = tmp_path / "names.csv"
    csv.write_text("word,say,role\nfar,fahr,ROLE0\nsea,?!,ROLE1\nroad,rode,\n", encoding="utf-8")
    assert _revoiced(qtbot, window, lambda: (panel.import_file(csv), qtbot.waitUntil(
        lambda: "Imported 3 entries" in panel.status.text(), timeout=10_000))) == ({"L0003", "L0005"}, 2)
    # (L0004 "Llanfair is far." is ROLE1's: ROLE0's entry does not reach it; "sea" is ROLE0's line.)
    bad = panel.model.find("sea", "ROLE1")
    assert panel.model.index(bad, 3).data() == "the respelling '?!' says nothing (only punctuation or markup)"
    # The studio at its default size with the panel in front, for the README and a look.
    panel.table.selectRow(panel.model.find("far", "ROLE0"))
    window.lexicon_dock.raise_()
    qtbot.wait(200)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(ARTIFACTS / "lexicon-panel.png"))

    # The same file again changes nothing: no undo step.
    steps = window.doc.undo.count()
    panel.import_file(csv)
    qtbot.waitUntil(lambda: "had them all already" in panel.status.text(), timeout=10_000)
    assert window.doc.undo.count() == steps

    # Export both ways; the PLS leaves the role entries out and says so.
    panel.export_file(tmp_path / "out.csv")
    qtbot.waitUntil(lambda: "Exported 3 entries to out.csv" in panel.status.text(), timeout=10_000)
    panel.export_file(tmp_path / "out.pls")
    qtbot.waitUntil(lambda: "Exported 1 entry to out.pls (2 role entries left out" in panel.status.text(),
                    timeout=10_000)

    # A bad file: one line, the file named, nothing changed.
    hostile = tmp_path / "hostile.pls"
    hostile.write_text('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "a">]><lexicon/>', encoding="utf-8")
    lexicon_before = dict(window.doc.project.lexicon)
    panel.import_file(hostile)
    qtbot.waitUntil(lambda: "not allowed" in panel.status.text(), timeout=10_000)
    assert panel.status.text().startswith(f"{hostile}: line 1: a document type declaration")
    assert window.doc.project.lexicon == lexicon_before


def test_a_bad_entry_fails_only_its_line_and_the_panel_says_why(qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(_project_file(tmp_path, tiny_voices), prerender=True)
    wait_engine(qtbot, window)
    wait_all_ready(qtbot, window)
    panel = window.lexicon
    panel.word.setText("Quiet")
    panel.say.setText("[[kw@t]]")
    panel.say.textEdited.emit("[[kw@t]]")
    assert panel.problem.text() == "'@' (U+0040) is not a phoneme of espeak-ng's IPA"
    assert not panel.add_button.isEnabled()  # the form refuses it; a file may still bring one
    csv = tmp_path / "bad.csv"
    csv.write_text("word,say,role\nQuiet,...,ROLE1\n", encoding="utf-8")
    panel.import_file(csv)
    qtbot.waitUntil(lambda: window.doc.project.role("ROLE1").lexicon == {"Quiet": "..."}, timeout=10_000)
    qtbot.waitUntil(lambda: window.session().line_status()["L0006"].state is LineState.FAILED, timeout=30_000)
    status = window.session().line_status()
    assert status["L0006"].error == "lexicon entry 'Quiet': the respelling '...' says nothing (only punctuation or markup)"
    assert {lid for lid, s in status.items() if s.state is not LineState.READY} == {"L0006"}
    assert panel.model.index(0, 3).data().startswith("the respelling '...' says nothing")

