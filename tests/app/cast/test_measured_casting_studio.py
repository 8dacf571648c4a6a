"""Import Script and Suggest Cast in the studio: the quick cast at once, the measured one
(radioplay import's) in the background with progress and Cancel, the same cast as the
command line gives (issues 51, 52)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from app.cast.model import Col
from app.dialogs.import_script import ImportDialog
from engine.cli import main
from engine.project.fileformat import load_project
from engine.project.model import VoiceParams
from engine.project.voice_presets import design_for

ARTIFACTS = Path(os.environ.get("RADIOPLAY_ARTIFACTS", Path(__file__).parents[1] / "artifacts"))
SCRIPT = """Title: The Ferry

INT. FERRY CABIN - NIGHT

MAIRI DUNCAN (70s) knits by the window. GREGOR, a man in his forties, reads a chart.

MAIRI
The crossing will be rough tonight, Gregor.

GREGOR
It always is in October, Mairi.

PIP
(a boy of eight)
Are we nearly there?
"""


def _import_in_the_studio(qtbot, make_window, tmp_path: Path):  # type: ignore[no-untyped-def]
    script = tmp_path / "ferry.fountain"
    script.write_text(SCRIPT, encoding="utf-8")
    window = make_window()
    window.files.ask_script_path = lambda: script
    window.actions_["import"].trigger()
    dialog = window.findChild(ImportDialog)
    assert dialog is not None
    who = {dialog.cast.item(r, 0).text(): dialog.cast.item(r, 1).text() for r in range(dialog.cast.rowCount())}
    assert who == {"MAIRI": "older woman", "GREGOR": "man", "PIP": "boy"}
    shown = {dialog.cast.item(r, 0).text(): dialog.cast.item(r, 3).text() for r in range(dialog.cast.rowCount())}
    qtbot.mouseClick(dialog.buttons.button(QDialogButtonBox.StandardButton.Ok), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.doc.project.title == "The Ferry")
    return window, script, shown


@pytest.mark.integration
@pytest.mark.timeout(1800)  # a cold measured cast of every installed voice: minutes on a loaded 2-core machine
def test_import_script_gives_the_cast_radioplay_import_gives(qtbot, make_window, tmp_path: Path) -> None:
    window, script, shown = _import_in_the_studio(qtbot, make_window, tmp_path)
    quick = {r.name: r.voice for r in window.doc.project.cast}
    assert "as older woman" in shown["MAIRI"] and "as boy" in shown["PIP"]  # the quick cast, shown at once
    progress = window.cast.casting_progress
    qtbot.waitUntil(progress.isVisible, timeout=10_000)  # measuring in the background, the studio free
    qtbot.waitUntil(lambda: window.cast.casting.last_progress is not None, timeout=600_000)
    window.resize(1500, 800)
    image = window.grab().toImage()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert image.save(str(ARTIFACTS / "casting-progress.png"))
    assert "Measuring the cast:" in progress.label.text() and progress.cancel_button.isVisible()
    qtbot.waitUntil(lambda: window.cast.last_cast is not None, timeout=1_500_000)
    assert not progress.isVisible()
    studio = {r.name: r.voice for r in window.doc.project.cast}
    assert main(["import", str(script), "-o", str(tmp_path / "ferry.radioplay")]) == 0
    command_line = {r.name: r.voice for r in load_project(tmp_path / "ferry.radioplay").cast}
    assert studio == command_line
    # One undo step back to the quick cast; the table shows what the voice holds.
    window.actions_["undo"].trigger()
    assert {r.name: r.voice for r in window.doc.project.cast} == quick


def test_cancel_keeps_the_quick_cast_and_hides_the_progress(qtbot, make_window, tmp_path: Path) -> None:
    window, _script, _shown = _import_in_the_studio(qtbot, make_window, tmp_path)
    quick = {r.name: r.voice for r in window.doc.project.cast}
    casting = window.cast.casting
    qtbot.waitUntil(window.cast.casting_progress.isVisible, timeout=10_000)
    with qtbot.waitSignal(casting.ended, timeout=10_000) as ended:
        window.cast.casting_progress.cancel_button.click()
    assert "cancelled" in ended.args[0] and not window.cast.casting_progress.isVisible()
    qtbot.waitUntil(lambda: not casting.task.running(), timeout=300_000)  # stops within a clip
    assert {r.name: r.voice for r in window.doc.project.cast} == quick and casting.last is None


def test_the_cast_table_shows_a_whole_new_voice_at_once(qtbot, make_window, tiny_file) -> None:
    # Suggest Cast sets whole voices: speed, pitch and variation were stale until another edit.
    window = make_window(tiny_file, show=False)
    model, doc = window.cast.model, window.doc
    changed: list[tuple[int, int]] = []
    model.dataChanged.connect(lambda first, last, *_: changed.append((first.column(), last.column())))
    name = doc.project.cast[0].name
    voice = VoiceParams(voice=doc.project.cast[0].voice.voice, pitch=1.5, speed=1.1, variation=0.8,
                        design=design_for("woman", "male"))
    from app.document.commands import SetRoleField

    doc.undo.push(SetRoleField(doc, name, "voice", voice))
    covered = {c for first, last in changed for c in range(first, last + 1)}
    assert {Col.VOICE, Col.SPEED, Col.PITCH, Col.VARIATION} <= covered
