"""Crash recovery with real studio processes killed by SIGKILL (issue 20, items 1 and 2).

A child runs ``radioplay studio`` offscreen (tests/support/studio_child.py), edits
a line, waits for its autosave and is killed with SIGKILL; the window in this
process is the studio started next.
"""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.shell.main_window import MainWindow
from engine.project.fileformat import load_project, save_project
from tests.support.paths import REPO
from tests.support.projects import tiny_project


def _project_file(path: Path, voice: Path, title: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    project = tiny_project(voice)
    project.title = title
    save_project(project, path)
    return path


def _start_studio(cwd: Path, project: str, text: str, state: Path, tmp_path: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, RADIOPLAY_STATE_DIR=str(state), QT_QPA_PLATFORM="offscreen",
               XDG_CONFIG_HOME=str(tmp_path / "child-config"), PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, "-m", "tests.support.studio_child", project, text], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _kill_when_autosaved(child: subprocess.Popen[str]) -> None:
    """Wait for the child's AUTOSAVED line, then SIGKILL it (no clean exit)."""
    assert child.stdout is not None
    line = child.stdout.readline()  # the pytest-timeout guards a child that never gets there
    if line.strip() != "AUTOSAVED":
        child.kill()
        _, err = child.communicate(timeout=30)
        pytest.fail(f"the studio child did not autosave: {line!r}\n{err[-3000:]}")
    os.kill(child.pid, signal.SIGKILL)
    assert child.wait(timeout=30) == -signal.SIGKILL
    child.communicate(timeout=30)


def _accept_all(asked: list):
    def answer(recoveries):  # the prompt's "Recover" with every entry ticked
        asked.append(list(recoveries))
        return list(recoveries)

    return answer


def _close_extra(window: MainWindow) -> None:
    window.files.ask_save_changes = lambda: "discard"  # type: ignore[method-assign]
    window.close()


@pytest.mark.timeout(240)
def test_recovery_saves_into_the_file_it_came_from_not_a_namesake_in_the_new_folder(
        qtbot, make_window, tiny_voices, state_dir, tmp_path, monkeypatch):
    voice = tiny_voices["single"]
    real = _project_file(tmp_path / "a" / "COPY.radioplay", voice, "The real one")
    namesake = _project_file(tmp_path / "b" / "COPY.radioplay", voice, "An unrelated production")
    namesake_bytes = namesake.read_bytes()
    child = _start_studio(real.parent, "COPY.radioplay", "Edits that belong to A.", state_dir, tmp_path)
    _kill_when_autosaved(child)

    monkeypatch.chdir(namesake.parent)  # the next studio starts from the other folder
    window = make_window()
    asked: list = []
    window.files.ask_recover = _accept_all(asked)
    assert window.files.offer_recovery()
    [recovery] = asked[0]
    assert recovery.original == real and recovery.restore_to == real and recovery.reason is None
    assert window.doc.path == real and window.isWindowModified()
    window.actions_["save"].trigger()
    assert namesake.read_bytes() == namesake_bytes  # the unrelated file is untouched
    assert load_project(real).lines[0].text == "Edits that belong to A."


@pytest.mark.timeout(240)
def test_a_changed_file_is_never_overwritten_the_recovery_opens_unsaved_and_says_why(
        qtbot, make_window, tiny_voices, state_dir, tmp_path):
    real = _project_file(tmp_path / "a" / "drama.radioplay", tiny_voices["single"], "Drama")
    child = _start_studio(real.parent, "drama.radioplay", "Edits made before the crash.", state_dir, tmp_path)
    _kill_when_autosaved(child)
    _project_file(real, tiny_voices["single"], "Rewritten by someone else after the crash")
    rewritten = real.read_bytes()

    window = make_window()
    asked: list = []
    window.files.ask_recover = _accept_all(asked)
    assert window.files.offer_recovery()
    [recovery] = asked[0]
    assert recovery.restore_to is None and "changed" in recovery.reason and str(real) in recovery.reason
    assert window.doc.path is None and window.isWindowModified()  # Save asks for a new name
    assert window.doc.project.lines[0].text == "Edits made before the crash."
    assert "changed" in (window.last_error or "")  # the reason is shown
    window.files.ask_save_path = lambda: None  # the producer cancels Save As
    window.actions_["save"].trigger()
    assert real.read_bytes() == rewritten


@pytest.mark.timeout(240)
def test_each_studio_keeps_its_own_recovery_and_only_the_killed_ones_is_offered(
        qtbot, make_window, tiny_voices, state_dir, tmp_path):
    voice = tiny_voices["single"]
    first = _project_file(tmp_path / "a" / "first.radioplay", voice, "First")
    second = _project_file(tmp_path / "b" / "second.radioplay", voice, "Second")
    child = _start_studio(first.parent, "first.radioplay", "Words from the first studio.", state_dir, tmp_path)
    assert child.stdout is not None
    # While the first studio runs, a second window edits and autosaves after it.
    alive = make_window(second)
    model = alive.script.model
    model.setData(model.index(model.row_of_line(alive.doc.project.lines[0].id), 5), "Words from the live one.")
    _kill_when_autosaved(child)
    alive.autosaver.flush()

    window = make_window()
    asked: list = []
    window.files.ask_recover = _accept_all(asked)
    assert window.files.offer_recovery()
    [recovery] = asked[0]  # the live window's autosave is its own, not offered
    assert recovery.original == first
    assert window.doc.path == first
    assert window.doc.project.lines[0].text == "Words from the first studio."
    assert alive.recovery.file.is_file()  # the live window's autosave was left alone


@pytest.mark.timeout(300)
def test_after_a_crash_of_two_studios_the_prompt_lists_both_and_recovers_each_in_a_window(
        qtbot, make_window, tiny_voices, state_dir, tmp_path):
    voice = tiny_voices["single"]
    files = [_project_file(tmp_path / name / f"{name}.radioplay", voice, name.title()) for name in ("one", "two")]
    children = [_start_studio(f.parent, f.name, f"Lost words of {f.stem}.", state_dir, tmp_path) for f in files]
    for child in children:
        _kill_when_autosaved(child)

    window = make_window()
    asked: list = []
    window.files.ask_recover = _accept_all(asked)
    assert window.files.offer_recovery()
    assert sorted(r.original for r in asked[0]) == sorted(files)
    windows = [window, *window.files.recovered_windows]
    try:
        assert len(windows) == 2
        by_path = {w.doc.path: w for w in windows}
        assert set(by_path) == set(files)
        for f in files:
            assert by_path[f].doc.project.lines[0].text == f"Lost words of {f.stem}."
            assert by_path[f].isWindowModified()
        again = make_window()
        again.files.ask_recover = lambda recoveries: pytest.fail("recovered work offered twice")
        assert not again.files.offer_recovery()  # each now lives in a window (and its autosave)
    finally:
        for extra in windows[1:]:
            _close_extra(extra)


def test_screenshot_of_the_recovery_prompt_lists_each_autosave_and_where_it_goes(
        qtbot, make_window, tiny_voices, state_dir, tmp_path):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.dialogs.recovery import RecoveryDialog
    from app.document.files import FileIdentity
    from app.document.recovery import RecoveryStore
    from tests.support.paths import ARTIFACTS

    voice = tiny_voices["single"]
    kept = _project_file(tmp_path / "shows" / "The Lighthouse.radioplay", voice, "The Lighthouse")
    changed = _project_file(tmp_path / "shows" / "Night Ferry.radioplay", voice, "Night Ferry")
    for path in (kept, changed):  # two studios that died with unsaved edits
        store = RecoveryStore(state_dir)
        store.save(load_project(path), path, FileIdentity.of(path))
        store.release()
    _project_file(changed, voice, "Night Ferry, rewritten elsewhere")
    unsaved = RecoveryStore(state_dir)
    unsaved.save(tiny_project(voice), None)
    unsaved.release()

    window = make_window()
    shot: list = []

    def grab() -> None:
        dialog = next((w for w in QApplication.topLevelWidgets() if isinstance(w, RecoveryDialog)), None)
        if dialog is None or not dialog.isVisible():
            QTimer.singleShot(50, grab)
            return
        qtbot.wait(100)
        shot.append([dialog.list.topLevelItem(i).text(1) for i in range(dialog.list.topLevelItemCount())])
        image = dialog.grab().toImage()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert image.save(str(ARTIFACTS / "recovery-prompt.png"))
        dialog.reject()  # "Later"

    QTimer.singleShot(0, grab)
    assert not window.files.offer_recovery()  # the real prompt, answered "Later"
    [rows] = shot
    assert len(rows) == 3
    assert str(kept) in rows
    assert any(str(changed) in r and "changed" in r and r.startswith("New unsaved production") for r in rows)
    assert any("never saved" in r for r in rows)
    assert len(RecoveryStore(state_dir).pending()) == 3  # "Later" kept them all
