"""The studio's synthesis device: ``radioplay studio --device``, the Transport > Synthesis Device
menu (remembered in the preferences), and where synthesis runs shown in the monitor."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings

from app.document.settings import SYNTH_DEVICE
from app.launch import main
from app.shell.menus import fill_device_menu
from engine.synth.backends.synth_device import cuda_offered
from tests.support.studio import wait_engine


@pytest.mark.skipif(cuda_offered(), reason="ONNX Runtime offers CUDA here")
def test_studio_on_a_gpu_that_is_not_here_is_one_line_before_any_window(capsys) -> None:
    assert main(["studio", "--device", "cuda"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("radioplay: error: --device cuda: onnxruntime ")


def test_the_menu_says_where_synthesis_runs_and_a_choice_is_remembered(qtbot, make_window, tiny_file,
                                                                       settings_path) -> None:
    window = make_window(tiny_file, device="cpu")  # --device cpu for this run
    session = wait_engine(qtbot, window)
    assert (session.synth.device.name, session.synth.device.asked) == ("cpu", "cpu")
    window.monitor_dock.raise_()
    qtbot.waitUntil(lambda: window.monitor.device_label.text() == "Synthesis on cpu (asked for)", timeout=30_000)

    fill_device_menu(window)
    actions = window.device_menu.actions()
    assert actions[0].text() == "Now: cpu (asked for)" and not actions[0].isEnabled()
    choices = {a.text(): a for a in actions if a.isCheckable()}
    assert list(choices)[:2] == ["Auto (a GPU that answers, else the CPU)", "CPU"]
    assert choices["CPU"].isChecked() and not choices["Auto (a GPU that answers, else the CPU)"].isChecked()

    choices["Auto (a GPU that answers, else the CPU)"].trigger()  # the engine starts again, on auto
    qtbot.waitUntil(lambda: window.session() is not None and window.session() is not session, timeout=180_000)
    wait_engine(qtbot, window)
    device = window.session().synth.device
    assert device.asked == "auto" and device.reason.startswith("auto")
    assert SYNTH_DEVICE.read(QSettings(str(settings_path), QSettings.Format.IniFormat)) == "auto"


@pytest.mark.skipif(cuda_offered(), reason="ONNX Runtime offers CUDA here")
def test_a_remembered_gpu_gone_since_is_said_and_the_engine_runs_on_auto(qtbot, make_window, tiny_file) -> None:
    window = make_window(tiny_file, device="cuda")  # as a GPU chosen in the menu on a machine it has left
    session = wait_engine(qtbot, window)
    device = session.synth.device
    assert (device.kind, device.asked) == ("cpu", "auto")
    assert device.reason.startswith("the preferred cuda is not here; auto: onnxruntime ")
    fill_device_menu(window)
    actions = window.device_menu.actions()
    assert actions[0].text() == f"Now: cpu ({device.reason})"
    checked = [a.text() for a in actions if a.isCheckable() and a.isChecked()]
    assert checked == ["cuda"]  # what was chosen stays shown, and chosen, until another is
