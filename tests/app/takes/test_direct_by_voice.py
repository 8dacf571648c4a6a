"""Takes > Direct by Voice… in a real window offscreen: the producer's read recorded from a
PulseAudio microphone (the private server's null-sink monitor, tests/support/audio_server.py,
an espeak-ng read played into it with paplay), made into a take on a worker thread, chosen
as one undo step, and kept through save and reopen; a read that does not say the line gets
one line in the dialog and no take."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer

from app.takes.direct_dialog import FROM_FILE, DirectByVoiceDialog
from engine.project.fileformat import load_project, save_project
from engine.project.model import Line, Project, Role, Scene
from engine.project.takes import read_take_of
from engine.session import LineState
from engine.synth.pipeline import plan_line
from tests.support.actor_reads import ESPEAK, READS, espeak_wav, make_read
from tests.support.audio_server import PulseServer
from tests.support.paths import ARTIFACTS
from tests.support.studio import wait_engine

PAUSE = next(r for r in READS if r.name == "pause")
TEXT = "Needle's down. Owen, is it going out?"  # the sample's L0039, which PAUSE reads


def _project(path: Path) -> Path:
    project = Project(title="Direct", cast=[Role(name="JUNE")], scenes=[Scene("S1")],
                      lines=[Line("L1", "JUNE", "The lamp was still burning when the tide came in.", "S1"),
                             Line("L2", "JUNE", TEXT, "S1")])
    save_project(project, path)
    return path


@pytest.mark.skipif(ESPEAK is None or shutil.which("paplay") is None, reason="espeak-ng reads, paplay plays it")
@pytest.mark.integration
def test_direct_by_voice_records_from_the_microphone_and_chooses_the_take(
        qtbot, make_window, pulse_server: PulseServer, tmp_path):
    path = _project(tmp_path / "direct.radioplay")
    read = make_read(PAUSE, tmp_path / "read.wav")
    window = make_window(path)
    wait_engine(qtbot, window)
    window.script.select_line("L2")
    panel = window.takes
    assert panel.line_id == "L2" and panel.direct_button.isEnabled()
    dialog = panel.direct_by_voice()
    assert isinstance(dialog, DirectByVoiceDialog)
    qtbot.waitExposed(dialog)
    dialog.input.setCurrentIndex(dialog.input.findData(pulse_server.mic_name))
    assert dialog.input.currentData() == pulse_server.mic_name

    # Recording: the GUI keeps turning while the microphone's buffers are drained and metered.
    ticks: list[float] = []
    timer = QTimer(dialog)
    timer.timeout.connect(lambda: ticks.append(time.monotonic()))
    timer.start(20)
    dialog.record_button.click()
    assert dialog.mic is not None and dialog.record_button.text() == "Stop"
    player = subprocess.Popen(["paplay", f"--device={pulse_server.sink}", str(read)], env=pulse_server.child_env())
    qtbot.waitUntil(lambda: player.poll() is not None, timeout=60_000)
    qtbot.wait(600)  # the room after the read
    peak_seen = dialog.meter.level_db
    ARTIFACTS.mkdir(exist_ok=True)
    dialog.grab().save(str(ARTIFACTS / "direct_by_voice_recording.png"))
    dialog.record_button.click()
    assert dialog.mic is None and dialog.recorded_s() > 3.0 and peak_seen > -40.0

    dialog.make_button.click()
    assert dialog.progress.isVisible() and not dialog.make_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.task is None, timeout=120_000)
    timer.stop()
    gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
    assert max(gaps) < 1.0, f"the GUI thread stalled {max(gaps):.2f} s"
    assert dialog.made is not None, dialog.status.text()
    line = window.doc.project.line("L2")
    take = read_take_of(line)
    assert take is not None and line.take == take.seed == dialog.made.seed and len(line.takes) == 2
    assert Path(take.read).parent == tmp_path / "takes" and len(take.words) == 7
    assert "take 2 of 2" in panel.title.text() and "by voice" in panel.list.item(1).text()
    panel.grab().save(str(ARTIFACTS / "direct_by_voice_takes.png"))
    # The studio's Session voices the chosen take through its read, as it voices any take.
    session = window.session()
    assert session is not None
    plan = plan_line(session.synth, window.doc.project, line)
    assert plan.read is not None
    status = lambda: window.engine.state().line_status["L2"]  # noqa: E731
    qtbot.waitUntil(lambda: session.synth.cache.get(plan.key) is not None or status().state is LineState.FAILED,
                    timeout=120_000)
    assert status().state is LineState.READY, status()

    window.doc.undo.undo()  # one undo step
    assert read_take_of(window.doc.project.line("L2")) is None and window.doc.project.line("L2").take == 0
    window.doc.undo.redo()
    assert window.files.save()
    saved = load_project(path).line("L2")
    assert read_take_of(saved) == take


@pytest.mark.skipif(ESPEAK is None, reason="espeak-ng reads")
@pytest.mark.integration
def test_a_read_of_another_sentence_says_so_in_the_dialog_and_makes_no_take(qtbot, make_window, tmp_path):
    path = _project(tmp_path / "direct.radioplay")
    other = espeak_wav("The weather over the harbour is fine and the boats are all in.", tmp_path / "other.wav")
    window = make_window(path)
    wait_engine(qtbot, window)
    window.script.select_line("L2")
    dialog = window.takes.direct_by_voice()
    assert isinstance(dialog, DirectByVoiceDialog)
    dialog.input.setCurrentIndex(dialog.input.findData(FROM_FILE))
    dialog.choose_file(other)
    dialog.make_button.click()
    qtbot.waitUntil(lambda: dialog.task is None, timeout=120_000)
    assert dialog.isVisible() and dialog.made is None
    assert "the read does not say this line" in dialog.status.text() and "\n" not in dialog.status.text()
    dialog.grab().save(str(ARTIFACTS / "direct_by_voice_refused.png"))
    assert window.doc.project.line("L2").read_takes == () and not window.doc.undo.canUndo()
    assert not (tmp_path / "takes").exists()
