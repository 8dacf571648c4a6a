"""Issue 30 item 4: a producer's own sound files come in from the studio (Add Files…, Add
Folder…, dropped from the desktop), copied into the project's sounds/ folder; a WAV saved into
sounds/ from elsewhere is listed without reopening; cues without a sound say so and how to fix."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import soundfile as sf
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from tests.support.paths import REPO
from tests.support.studio import scored_file

RATE = 48_000


def _wav(path: Path, hz: float, seconds: float = 0.5) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    t = np.arange(int(RATE * seconds)) / RATE
    sf.write(path, 0.2 * np.sin(2 * np.pi * hz * t), RATE)
    return path


def _names(panel) -> list[str]:
    return [panel.list.item(i).text().split()[0] for i in range(panel.list.count())]


def _open(qtbot, make_window, tmp_path, tiny_voices):
    window = make_window(scored_file(tmp_path, tiny_voices["single"]))
    panel = window.sound_panel
    qtbot.waitUntil(lambda: panel.library is not None and "rain" in _names(panel), timeout=30_000)
    return window, panel


def test_add_files_and_folders_copy_into_the_projects_sounds(qtbot, make_window, tmp_path, tiny_voices):
    window, panel = _open(qtbot, make_window, tmp_path, tiny_voices)
    desktop = tmp_path / "desktop"
    creak = _wav(desktop / "creak.wav", 300)
    copies = panel.add_files([creak, desktop / "notes.txt"])
    assert copies == [tmp_path / "sounds" / "creak.wav"] and copies[0].read_bytes() == creak.read_bytes()
    assert "Copied 1 sound into sounds/" in panel.status.text() and "notes.txt: no such file" in panel.status.text()
    qtbot.waitUntil(lambda: "creak" in _names(panel), timeout=30_000)
    assert panel.add_files([creak]) == copies  # the same bytes again: reused, not doubled
    other = _wav(desktop / "other" / "creak.wav", 600)
    assert panel.add_files([other]) == [tmp_path / "sounds" / "creak-2.wav"]  # a different file: kept apart

    _wav(desktop / "foley" / "steps.wav", 120)
    _wav(desktop / "foley" / "wood" / "knock.wav", 800)
    (desktop / "foley" / "readme.txt").write_text("not a sound")
    copied = panel.add_files([desktop / "foley"])
    assert sorted(p.relative_to(tmp_path / "sounds") for p in copied) == [Path("foley/steps.wav"),
                                                                          Path("foley/wood/knock.wav")]
    qtbot.waitUntil(lambda: {"steps", "knock"} <= set(_names(panel)), timeout=30_000)
    assert not list((tmp_path / "sounds").rglob("*.part"))  # copies land whole


def test_a_wav_saved_into_sounds_is_listed_without_reopening(qtbot, make_window, tmp_path, tiny_voices):
    window, panel = _open(qtbot, make_window, tmp_path, tiny_voices)
    assert "thunderclap" not in _names(panel)
    _wav(tmp_path / "sounds" / "thunderclap.wav", 80)  # written by another program
    qtbot.waitUntil(lambda: "thunderclap" in _names(panel), timeout=30_000)
    _wav(tmp_path / "sounds" / "new-folder" / "owl.wav", 500)  # a new subfolder is watched too
    qtbot.waitUntil(lambda: "owl" in _names(panel), timeout=30_000)


def test_files_dropped_from_the_desktop_on_the_library_are_copied_in(qtbot, make_window, tmp_path, tiny_voices):
    window, panel = _open(qtbot, make_window, tmp_path, tiny_voices)
    wind = _wav(tmp_path / "desktop" / "wind.wav", 150)
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(wind))])
    drop = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    # Qt delivers a drop only inside a real drag session; this is the call it makes then.
    assert panel.eventFilter(panel.list.viewport(), drop) and drop.isAccepted()
    assert (tmp_path / "sounds" / "wind.wav").read_bytes() == wind.read_bytes()
    qtbot.waitUntil(lambda: "wind" in _names(panel), timeout=30_000)

    # Onto a sound lane of the timeline: copied in too, and the new clip plays the copy.
    timeline = window.timeline
    lane = next(i for i, lane in enumerate(timeline.lanes()) if lane.subject == "FX")
    top, height = timeline.lane_span(lane)
    hoot = _wav(tmp_path / "desktop" / "hoot.wav", 400)
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(hoot))])
    drop = QDropEvent(QPointF(timeline.x_of(0.5), top + height / 2), Qt.DropAction.CopyAction, data,
                      Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    assert panel.eventFilter(timeline.viewport(), drop)
    clip = window.doc.project.sounds[-1]
    assert Path(clip.file).name == "hoot.wav" and (tmp_path / "sounds" / "hoot.wav").is_file()


def test_cues_without_a_sound_are_listed_with_how_to_fix_them(qtbot, make_window, tmp_path, tiny_voices):
    window, panel = _open(qtbot, make_window, tmp_path, tiny_voices)
    text = panel.missing.text()
    assert panel.missing.isVisible() and "2 cues without a sound" in text
    assert "a gong" in text and "no sound yet" in text
    assert "door" in text and "sounds/door-missing.wav is not there" in text
    assert "To fix" in text and "Assign" in text
    window.sounds_dock.raise_()
    qtbot.waitUntil(panel.isVisible)
    artifacts = Path(os.environ.get("RADIOPLAY_ARTIFACTS", REPO / "tests" / "app" / "artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    assert window.grab().save(str(artifacts / "sounds-missing.png"))
    panel._assign("X2", tmp_path / "sounds" / "bell.wav")
    assert "1 cue without a sound" in panel.missing.text() and "a gong" not in panel.missing.text()
