"""Files from the studio: save/open, import through the preview dialog, autosave and crash recovery."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from app.dialogs.import_script import ImportDialog
from app.document.recovery import RecoveryStore
from engine.project.fileformat import load_project
from tests.support.paths import SAMPLE
from tests.support.studio import wait_all_ready, wait_engine

FOUNTAIN = """Title: The Lighthouse

INT. LAMP ROOM - NIGHT

The lamp turns.

KEEPER
(quietly)
Did you hear that?

MR. ASH
Only the sea.

KEEPER
It was a bell--

ASH
There is no bell.
"""


def test_save_as_then_open_round_trips_through_the_file_format(qtbot, make_window, tiny_file, tmp_path):
    window = make_window(tiny_file)
    window.doc.project.title = "Renamed"  # a change the file must carry
    window.cast.add_role()
    target = tmp_path / "copy"
    assert window.files.save_as(target)
    saved = tmp_path / "copy.radioplay"
    assert window.doc.path == saved and not window.isWindowModified()
    assert "copy.radioplay" in window.windowTitle()
    reloaded = load_project(saved)
    assert reloaded.title == "Renamed" and len(reloaded.cast) == 4
    assert not list(tmp_path.glob("*.part")) and not list(tmp_path.glob(".copy*"))
    other = make_window()
    assert other.files.open(saved)
    assert other.doc.project.role_names() == reloaded.role_names()
    assert other.files.recent.paths()[0] == saved.resolve()


def test_save_as_to_a_new_folder_and_reopen_voices_nothing_again(qtbot, make_window, tiny_file, tmp_path):
    """Clips follow their content, not the project's path (issue 16)."""
    window = make_window(tiny_file, prerender=True)
    wait_engine(qtbot, window)
    wait_all_ready(qtbot, window)
    (tmp_path / "elsewhere").mkdir()
    assert window.files.save_as(tmp_path / "elsewhere" / "copy")
    window.close()
    reopened = make_window(tmp_path / "elsewhere" / "copy.radioplay", prerender=True)
    session = wait_engine(qtbot, reopened)
    wait_all_ready(qtbot, reopened)
    assert session.synth.synth_calls == 0


def test_import_a_fountain_script_through_the_preview_dialog(qtbot, make_window, tmp_path):
    script = tmp_path / "lighthouse.fountain"
    script.write_text(FOUNTAIN, encoding="utf-8")
    window = make_window()
    window.files.ask_script_path = lambda: script
    window.actions_["import"].trigger()
    dialog = window.findChild(ImportDialog)
    assert dialog is not None and dialog.isVisible()
    names = [dialog.cast.item(r, 0).text() for r in range(dialog.cast.rowCount())]
    assert names == ["KEEPER", "MR. ASH", "ASH"]
    assert [dialog.cast.item(r, 2).text() for r in range(3)] == ["2", "1", "1"]
    assert dialog.cast.item(1, 1).text() == "male"  # the Who column: "MR." says so (gender, no age)
    assert "'MR. ASH' and 'ASH' may be the same character" in dialog.notes.text()  # as radioplay import says it
    dialog.narrate.setChecked(True)  # the action line becomes a NARRATOR line
    assert [dialog.cast.item(r, 0).text() for r in range(dialog.cast.rowCount())][0] == "NARRATOR"
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.doc.project.title == "The Lighthouse")
    project = window.doc.project
    assert [line.role for line in project.lines] == ["NARRATOR", "KEEPER", "MR. ASH", "KEEPER", "ASH"]
    assert project.lines[1].note == "quietly"
    assert project.lines[4].overlap > 0  # "a bell--" is interrupted
    assert window.isWindowModified() and window.doc.path is None
    assert window.cast.model.rowCount() == 4
    assert window.script.model.rowCount() == 1 + 5  # the scene heading and five lines
    wait_engine(qtbot, window)  # the engine restarted on the imported production


def test_save_as_of_an_import_starts_beside_the_script_not_where_the_last_project_was(qtbot, make_window, tmp_path):
    """The first hour: the studio opens on the bundled sample (the last project, in samples/),
    then the producer imports their own script; Save As offers the script's folder."""
    last = tmp_path / "samples" / "the-last-broadcast.radioplay"
    last.parent.mkdir()
    last.write_bytes(SAMPLE.read_bytes())
    scripts = tmp_path / "my scripts"
    scripts.mkdir()
    script = scripts / "lighthouse.fountain"
    script.write_text(FOUNTAIN, encoding="utf-8")
    window = make_window(last)
    assert window.files.save_suggestion() == last
    dialog = window.files.import_script(script)
    dialog.accept()
    qtbot.waitUntil(lambda: window.doc.project.title == "The Lighthouse")
    assert window.doc.path is None
    assert window.files.save_suggestion() == scripts / "The Lighthouse.radioplay"
    assert window.files.save_as(window.files.save_suggestion())
    assert window.files.save_suggestion() == scripts / "The Lighthouse.radioplay"


def test_a_script_that_cannot_be_imported_says_why_and_cannot_be_accepted(qtbot, make_window, tmp_path):
    script = tmp_path / "empty.txt"
    script.write_text("# nothing but a comment\n", encoding="utf-8")
    window = make_window()
    dialog = window.files.import_script(script)
    assert not dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).isEnabled()
    assert "no dialogue" in dialog.notes.text()
    dialog.reject()


def test_autosave_after_an_edit_and_recover_after_a_crash(qtbot, make_window, tiny_file, state_dir):
    first = make_window(tiny_file)
    store = first.recovery  # the window's own slot
    line = first.doc.project.lines[0]
    first.script.model.setData(first.script.model.index(first.script.model.row_of_line(line.id), 5),
                               "Rescued words.")
    qtbot.waitUntil(lambda: store.file.is_file(), timeout=10_000)  # the debounced autosave
    meta = json.loads(store.meta.read_text())
    assert meta["original"] == str(tiny_file)
    assert meta["identity"]["sha256"] and meta["identity"]["inode"] == tiny_file.stat().st_ino
    assert RecoveryStore(state_dir).pending() == []  # its window is open: not offered
    first.shutdown(clean=False)  # the process dies here: no clean exit, the autosave stays
    assert store.file.is_file()

    second = make_window()
    asked = []
    second.files.ask_recover = lambda recoveries: asked.extend(recoveries) or recoveries
    assert second.files.offer_recovery()
    assert asked[0].original == tiny_file and asked[0].restore_to == tiny_file
    assert second.doc.project.line(line.id).text == "Rescued words."
    assert second.doc.path == tiny_file  # Save writes back to the original file
    assert second.isWindowModified()
    assert "Rescued words." not in tiny_file.read_text()  # nothing saved behind the producer's back
    assert not store.file.exists() and second.recovery.file.is_file()  # now in the new window's slot
    second.actions_["save"].trigger()
    assert "Rescued words." in tiny_file.read_text()
    assert not second.recovery.file.exists()  # saved: nothing left to recover
    assert RecoveryStore(state_dir).pending() == []


def test_a_clean_exit_leaves_nothing_to_recover(qtbot, make_window, tiny_file, state_dir):
    window = make_window(tiny_file)
    window.cast.add_role()
    window.autosaver.flush()
    assert window.recovery.file.is_file()
    window.close()  # unsaved changes discarded (the fixture answers "discard")
    assert RecoveryStore(state_dir).pending() == []
    assert not list((state_dir / "recovery").iterdir())
    again = make_window()
    again.files.ask_recover = lambda recoveries: (_ for _ in ()).throw(AssertionError("asked to recover"))
    assert not again.files.offer_recovery()


def test_declining_recovery_discards_the_autosave_and_later_keeps_it(qtbot, make_window, tiny_file, state_dir):
    store = RecoveryStore(state_dir)
    store.save(load_project(tiny_file), tiny_file)
    store.release()  # as if its studio had died
    window = make_window()
    window.files.ask_recover = lambda recoveries: None  # "Later"
    assert not window.files.offer_recovery()
    assert store.file.exists() and window.doc.path is None
    window.files.ask_recover = lambda recoveries: []  # "Discard All"
    assert not window.files.offer_recovery()
    assert not store.file.exists() and window.doc.path is None


def test_a_window_a_recovery_opens_fits_the_screen_and_keeps_its_own_slot(qtbot, make_window, tiny_file, state_dir):
    """Two autosaves left behind: the second opens in a window of its own, sized for the screen as
    the studio's first window is (app/main.py), with its own autosave slot."""
    from PySide6.QtGui import QGuiApplication

    from app.shell.main_window import DEFAULT_SIZE

    for _ in range(2):
        store = RecoveryStore(state_dir)
        store.save(load_project(tiny_file), tiny_file)
        store.release()  # as if its studio had died
    window = make_window()
    window.files.ask_recover = lambda recoveries: recoveries
    assert window.files.offer_recovery()
    (other,) = window.files.recovered_windows
    try:
        screen = QGuiApplication.primaryScreen().availableGeometry().size()  # 800x800 offscreen
        assert screen.height() < DEFAULT_SIZE.height() and screen.width() < DEFAULT_SIZE.width()
        # The screen's height; as wide as the screen, or as the panels need where that is more.
        assert other.height() <= screen.height(), (other.size(), screen)
        assert other.width() < DEFAULT_SIZE.width(), (other.size(), screen)
        assert other.recovery.file != window.recovery.file and other.recovery.root == window.recovery.root
        assert other.isWindowModified()  # the recovered work, unsaved
    finally:
        other.files.ask_save_changes = lambda: "discard"
        other.close()
        assert not other.engine.running()
