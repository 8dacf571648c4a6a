"""The studio driving the real engine Session (tiny voices, null output)."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import threading

from PySide6.QtCore import Qt

from app.cast.model import Col as CastCol
from app.script.model import Col as ScriptCol
from engine.project.fileformat import load_project, save_project
from engine.project.model import VoiceParams
from tests.support.studio import voice_everything, wait_all_ready, wait_engine


def test_recasting_a_role_requeues_only_its_lines(qtbot, make_window, tiny_file):
    window = make_window(tiny_file, prerender=True)
    session = wait_engine(qtbot, window)
    voice_everything(qtbot, window)
    project = window.doc.project
    others = [line.id for line in project.lines if line.role != "ROLE1"]
    recast = [line.id for line in project.lines if line.role == "ROLE1"]
    before = session.synth.synth_calls
    not_ready: set[str] = set()

    def watch() -> None:  # every snapshot the window draws, until the recast is voiced
        state = window.engine.state()
        not_ready.update(lid for lid, s in state.line_status.items() if s.state.name != "READY")

    window.presenter.timer.timeout.connect(watch)
    cast = window.cast.model
    assert cast.setData(cast.index(cast.row_of("ROLE1"), CastCol.PITCH), 5.0)
    qtbot.waitUntil(lambda: session.synth.synth_calls >= before + len(recast), timeout=30_000)
    wait_all_ready(qtbot, window)
    window.presenter.timer.timeout.disconnect(watch)
    assert session.synth.synth_calls == before + len(recast)  # ROLE1's lines and nothing else
    assert not_ready.isdisjoint(others)
    assert project.role("ROLE1").voice.pitch == 5.0


def test_a_line_that_cannot_be_voiced_shows_why_in_the_script(qtbot, make_window, tiny_file, tmp_path):
    window = make_window(tiny_file, prerender=True)
    wait_engine(qtbot, window)
    cast = window.cast.model
    damaged = tmp_path / "damaged.onnx"  # a voice that is there but cannot be used: no config beside it
    damaged.write_bytes(b"not a model")
    cast.setData(cast.index(cast.row_of("ROLE2"), CastCol.VOICE), str(damaged))
    model = window.script.model
    broken = [line.id for line in window.doc.project.lines if line.role == "ROLE2"]

    def shown() -> bool:
        return all((model.status_of(lid) or ("", None))[0] == "FAILED" for lid in broken)

    qtbot.waitUntil(shown, timeout=30_000)
    row = model.row_of_line(broken[0])
    assert model.data(model.index(row, ScriptCol.STATUS)) == "failed"
    assert "voice config not found" in model.data(model.index(row, ScriptCol.TEXT))
    assert "damaged.onnx.json" in model.data(model.index(row, ScriptCol.TEXT), Qt.ItemDataRole.ToolTipRole)
    voice = cast.index(cast.row_of("ROLE2"), CastCol.VOICE)
    assert cast.data(voice).endswith("— missing")
    assert "FAILED" not in {(model.status_of(line.id) or ("", None))[0]
                            for line in window.doc.project.lines if line.role != "ROLE2"}
    window.actions_["undo"].trigger()  # the voice comes back, and so do the lines
    qtbot.waitUntil(lambda: not any((model.status_of(lid) or ("", None))[0] == "FAILED" for lid in broken),
                    timeout=30_000)


def test_a_project_whose_voice_is_not_installed_says_so_once_and_no_line_fails(qtbot, make_window, tiny_file):
    project = load_project(tiny_file)
    for role in ("ROLE0", "ROLE2"):  # made on a machine that had this voice
        project.role(role).voice = VoiceParams(voice="xx_XX-nobody-medium")
    save_project(project, tiny_file)
    window = make_window(tiny_file, prerender=True)
    said: list[str] = []
    window.statusBar().messageChanged.connect(lambda text: said.append(text) if "not installed" in text else None)
    wait_engine(qtbot, window)
    cast = window.cast.model
    model = window.script.model
    unvoiced = [line.id for line in window.doc.project.lines if line.role in ("ROLE0", "ROLE2")]

    def shown() -> bool:
        return all((model.status_of(lid) or ("", None))[0] == "NO_VOICE" for lid in unvoiced)

    qtbot.waitUntil(shown, timeout=30_000)
    row = model.row_of_line(unvoiced[0])
    assert model.data(model.index(row, ScriptCol.STATUS)) == "no voice"
    text = window.doc.project.line(unvoiced[0]).text
    assert model.data(model.index(row, ScriptCol.TEXT)) == text  # no failure written under each line
    assert "radioplay voices --download xx_XX-nobody-medium" in model.data(
        model.index(row, ScriptCol.STATUS), Qt.ItemDataRole.ToolTipRole)
    qtbot.waitUntil(lambda: "without a voice" in window.lines_label.text(), timeout=10_000)
    assert "failed" not in window.lines_label.text()
    assert window.lines_label.text().endswith(f"{len(unvoiced)} without a voice")
    assert said and said[0] == window.lines_label.toolTip()
    assert said[0].startswith(f"1 voice the cast needs is not installed, so {len(unvoiced)} lines cannot be voiced; "
                              "get it with Voices > Get Voices")
    assert said[0].endswith("Not installed: xx_XX-nobody-medium (ROLE0, ROLE2)")
    assert cast.data(cast.index(cast.row_of("ROLE0"), CastCol.VOICE)).endswith("— not installed")
    assert "FAILED" not in {(model.status_of(line.id) or ("", None))[0] for line in window.doc.project.lines}
    cast.setData(cast.index(cast.row_of("ROLE1"), CastCol.VOICE), "xx_XX-nobody-medium")  # the same voice again
    qtbot.waitUntil(lambda: window.lines_label.text().endswith("6 without a voice"), timeout=30_000)
    assert len(said) == 1 and "(ROLE0, ROLE1, ROLE2)" in window.lines_label.toolTip()


def test_audition_is_synthesized_on_the_session_control_thread_not_the_gui(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    session = wait_engine(qtbot, window)
    calls: list[tuple[str, str]] = []
    real = session.scheduler.submit

    def spy(request, timeout=None):
        calls.append((request.origin.name, threading.current_thread().name))
        return real(request, timeout=timeout)

    session.scheduler.submit = spy
    window.cast.select_role("ROLE2")
    window.actions_["audition"].trigger()
    qtbot.waitUntil(lambda: any(origin == "AUDITION" for origin, _ in calls))
    origin, thread = next(c for c in calls if c[0] == "AUDITION")
    assert thread == "radioplay-live"  # the GUI thread only asked; the Session's control thread submitted


def test_play_moves_the_playhead_feeds_the_monitor_and_stop_returns(qtbot, make_window, tiny_file):
    import numpy as np

    window = make_window(tiny_file, prerender=True)
    wait_engine(qtbot, window)
    qtbot.waitUntil(lambda: window.monitor.latency_data() is not None)
    before = window.monitor.latency_data().copy()
    window.actions_["play_pause"].trigger()
    qtbot.waitUntil(lambda: window.engine.state().transport.playing, timeout=10_000)
    qtbot.waitUntil(lambda: window.timeline.playhead() > 0.3, timeout=10_000)
    assert window.transport.play_action.isChecked()
    # Lines voiced for playback show up in the monitor's latency heatmap.
    qtbot.waitUntil(lambda: not np.array_equal(window.monitor.latency_data(), before), timeout=10_000)
    window.actions_["stop"].trigger()
    qtbot.waitUntil(lambda: not window.engine.state().transport.playing, timeout=10_000)
    qtbot.waitUntil(lambda: window.timeline.playhead() < 0.3, timeout=10_000)


def test_seeking_from_a_script_line_moves_the_playhead_there(qtbot, make_window, tiny_file):
    window = make_window(tiny_file, prerender=True)
    wait_engine(qtbot, window)
    voice_everything(qtbot, window)
    line = window.doc.project.lines[3]
    start = window.script.model.start_of(line.id)
    assert start is not None and start > 0
    window.script.lineActivated.emit(line.id)
    qtbot.waitUntil(lambda: abs(window.engine.state().transport.position_s - start) < 0.05, timeout=10_000)


def test_master_effect_and_sound_output_menus(qtbot, make_window, tiny_file):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    window.master_menu.aboutToShow.emit()
    presets = {a.text(): a for a in window.master_menu.actions()}
    assert presets["Broadcast"].isChecked() and window.doc.project.master_effect == "broadcast"
    presets["Clean"].trigger()
    assert window.doc.project.master_effect == "clean" and window.isWindowModified()
    window.actions_["undo"].trigger()
    assert window.doc.project.master_effect == "broadcast"
    window.output_menu.aboutToShow.emit()
    outputs = {a.text(): a for a in window.output_menu.actions()}
    assert outputs["No sound (silent clock)"].isChecked()  # the tests run on the null output
    outputs["No sound (silent clock)"].trigger()
    assert window.settings.value("audio/output") == "null"
