"""Voices > Get Voices…, Cast > Suggest Cast and speaker audition in the studio, against a
real catalogue served on 127.0.0.1 whose voices are the tiny generated ones."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtGui import QImage

from app.cast.get_voices import COLUMNS
from app.cast.model import Col as CastCol
from engine.synth.download import download_voice, load_catalogue
from tests.support.paths import ARTIFACTS
from tests.support.signals import dominant_hz
from tests.support.studio import wait_engine
from tests.support.voice_files import install_voice
from tests.support.voice_server import MULTI_KEY, SINGLE_KEY, CatalogueServer, build_catalogue


@pytest.fixture
def voice_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "user voices"
    monkeypatch.setenv("RADIOPLAY_VOICE_DIR", str(folder))
    return folder


@pytest.fixture
def served(tmp_path: Path, tiny_voices: dict[str, Path]) -> Iterator[CatalogueServer]:
    sample = tmp_path / "sample.wav"
    t = np.arange(22_050) / 22_050
    sf.write(sample, (0.4 * np.sin(2 * np.pi * 330 * t)).astype(np.float32), 22_050)
    build_catalogue(tmp_path / "mirror", tiny_voices, sample=sample)
    server = CatalogueServer(tmp_path / "mirror")
    yield server
    server.close()


def _rows(dialog) -> list[str]:  # type: ignore[no-untyped-def]
    return [dialog.table.item(r, 0).text() for r in range(dialog.table.rowCount())]


def test_browse_filter_hear_and_download_a_voice(qtbot, make_window, tiny_file, served, voice_dir):
    window = make_window(tiny_file)
    session = wait_engine(qtbot, window)
    dialog = window.get_voices(served.url)
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 10, timeout=10_000)
    assert [dialog.table.horizontalHeaderItem(c).text() for c in range(len(COLUMNS))] == list(COLUMNS)
    dialog.search.setText("tiny")
    assert _rows(dialog) == [MULTI_KEY, SINGLE_KEY]
    row = [dialog.table.item(0, c).text() for c in range(len(COLUMNS))]
    assert row[:4] == [MULTI_KEY, "English (Great Britain)", "x_low", "3"] and row[5] == ""
    dialog.search.clear()
    dialog.quality.setCurrentIndex(dialog.quality.findData("medium"))
    dialog.language.setCurrentIndex(dialog.language.findData("en_GB"))
    assert _rows(dialog) == ["en_GB-alba-medium", "en_GB-vctk-medium"]
    dialog.quality.setCurrentIndex(0)
    dialog.language.setCurrentIndex(0)

    # A sample: only where the catalogue lists one; otherwise the button says why not.
    dialog.select(SINGLE_KEY)
    assert not dialog.play_button.isEnabled()
    assert dialog.play_button.toolTip() == f"The catalogue lists no sample recording for {SINGLE_KEY}"
    dialog.select(MULTI_KEY)
    assert [dialog.speaker.itemText(i) for i in range(3)] == ["alice (0)", "bob (1)", "carol (2)"]
    assert not dialog.play_button.isEnabled()
    dialog.speaker.setCurrentIndex(1)
    assert dialog.play_button.isEnabled()
    session.player._audition = None
    dialog.play_button.click()
    qtbot.waitUntil(lambda: session.player._audition is not None, timeout=10_000)
    assert dominant_hz(session.player._audition[0], session.rate) == pytest.approx(330, rel=0.03)
    assert "Playing the sample of" in dialog.status.text()

    # Download in the background, with progress; the voice is then in every role's picker.
    served.httpd.chunk_size, served.httpd.delay_per_chunk = 400, 0.05
    seen: list[int] = []
    dialog.progress.valueChanged.connect(seen.append)
    threads: list[str] = []
    worker_progress = dialog._worker_progress
    dialog._worker_progress = lambda *a: (threads.append(threading.current_thread().name), worker_progress(*a))
    dialog.download_button.click()
    assert dialog.cancel_button.isEnabled() and not dialog.download_button.isEnabled()
    qtbot.waitUntil(lambda: "Installed" in dialog.status.text(), timeout=30_000)
    assert set(threads) == {"radioplay-download"}  # never the GUI thread
    assert any(0 < v < 1000 for v in seen)  # progress arrived while it ran
    assert dialog.download_button.text() == "Installed" and not dialog.download_button.isEnabled()
    assert sorted(p.name for p in voice_dir.iterdir()) == [f"{MULTI_KEY}.onnx", f"{MULTI_KEY}.onnx.json"]
    picker = dict(window.cast._voice_choices(window.cast.model.index(0, CastCol.VOICE)))
    assert picker[f"{MULTI_KEY} (user folder)"] == MULTI_KEY
    dialog.installed_only.setChecked(True)
    assert _rows(dialog) == [MULTI_KEY]


def test_cancel_keeps_nothing_installed(qtbot, make_window, tiny_file, served, voice_dir):
    window = make_window(tiny_file, show=False)
    dialog = window.get_voices(served.url)
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 10, timeout=10_000)
    served.httpd.chunk_size, served.httpd.delay_per_chunk = 100, 0.1
    dialog.select(SINGLE_KEY)
    dialog.download_button.click()
    qtbot.waitUntil(lambda: dialog.progress.value() > 0, timeout=10_000)
    dialog.cancel_button.click()
    qtbot.waitUntil(lambda: "cancelled" in dialog.status.text(), timeout=10_000)
    assert not [p for p in voice_dir.iterdir() if not p.name.startswith(".")]
    assert dialog.download_button.isEnabled()


def test_offline_catalogue_says_why(qtbot, make_window, tiny_file, voice_dir):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    window = make_window(tiny_file, show=False)
    dialog = window.get_voices(f"http://127.0.0.1:{port}/voices.json")
    qtbot.waitUntil(lambda: "Cannot read the catalogue" in dialog.status.text(), timeout=10_000)
    assert f"cannot reach 127.0.0.1:{port}: connection refused" in dialog.status.text()
    assert dialog.table.rowCount() == 0 and not dialog.download_button.isEnabled()


def test_screenshot_of_get_voices(qtbot, make_window, tiny_file, served, voice_dir):
    catalogue = load_catalogue(served.url)
    download_voice(catalogue, catalogue.find(SINGLE_KEY), voice_dir)
    window = make_window(tiny_file)
    dialog = window.get_voices(served.url)
    qtbot.waitExposed(dialog)
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 10, timeout=10_000)
    dialog.select("en_GB-vctk-medium")
    qtbot.wait(100)
    image = dialog.grab().toImage()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / "get-voices.png"
    assert image.save(str(path))
    print(f"\nscreenshot: {path}")
    small = image.scaled(64, 40).convertToFormat(QImage.Format.Format_RGB32)
    assert len({small.pixel(x, y) for x in range(64) for y in range(40)}) > 10


@pytest.mark.timeout(1800)  # a cold measured cast of every installed voice: minutes on a loaded 2-core machine
def test_suggest_cast_is_the_quick_cast_then_the_measured_one_each_one_undo_step(
        qtbot, make_window, tiny_file, voice_dir, tiny_voices):
    install_voice(voice_dir, tiny_voices["multi"], "tiny-multi")
    window = make_window(tiny_file, show=False)
    before = [r.voice for r in window.doc.project.cast]
    window.actions_["suggest_cast"].trigger()  # the quick cast at once, measured off the GUI thread after
    quick = [r.voice for r in window.doc.project.cast]
    assert len(set(quick)) == 3 and quick != before
    qtbot.waitUntil(lambda: window.cast.last_cast is not None, timeout=1_500_000)
    after = [(r.voice.voice, r.voice.speaker, r.voice.design) for r in window.doc.project.cast]
    assert len(set(after)) == 3 and all(r.voice.pitch == 0 for r in window.doc.project.cast)
    window.actions_["undo"].trigger()
    assert [r.voice for r in window.doc.project.cast] == quick
    window.actions_["undo"].trigger()
    assert [r.voice for r in window.doc.project.cast] == before


def test_browsing_speakers_auditions_each(qtbot, make_window, tiny_file, voice_dir, tiny_voices):
    install_voice(voice_dir, tiny_voices["multi"], "tiny-multi")
    window = make_window(tiny_file, show=False)
    model = window.cast.model
    assert model.setData(model.index(0, CastCol.VOICE), "tiny-multi")
    delegate = window.cast.view.itemDelegateForColumn(CastCol.SPEAKER)
    with qtbot.waitSignal(window.cast.auditionVoice, timeout=5_000) as heard:
        delegate.browse(0, "bob")
        delegate.browse(0, "carol")  # moved on before the pause: only carol is heard
    role, _text, voice = heard.args
    assert (role, voice.voice, voice.speaker) == ("ROLE0", "tiny-multi", "carol")
    assert window.doc.project.cast[0].voice.speaker is None  # browsing does not recast
