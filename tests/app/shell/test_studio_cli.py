"""``radioplay`` / ``radioplay studio [PROJECT]`` open the window; the engine stays Qt-free."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

import app.main
from app import launch
from app.document.recovery import RecoveryStore
from app.shell.main_window import MainWindow
from app.shell.self_test import SelfTest
from tests.support.paths import REPO, SAMPLE


def test_no_arguments_and_studio_open_the_window(monkeypatch):
    calls = []
    monkeypatch.setattr(app.main, "run", lambda project=None, output=None, self_test=None, device=None:
                        calls.append((project, output, self_test, device)) or 0)
    assert launch.main([]) == 0
    assert launch.main(["studio", "drama.radioplay", "--output", "null"]) == 0
    assert launch.main(["studio", "--self-test", "report.json"]) == 0
    assert launch.main(["studio", "--device", "cpu"]) == 0  # the synthesis device, for this run
    assert calls == [(None, None, None, None), ("drama.radioplay", "null", None, None),
                     (None, None, "report.json", None), (None, None, None, "cpu")]


def test_without_a_display_the_studio_says_so_instead_of_aborting():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run([sys.executable, "-m", "app.launch", "studio", str(SAMPLE)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "no display" in done.stderr and "Traceback" not in done.stderr


def test_radioplay_studio_runs_the_window_until_it_is_closed(qtbot, tiny_file, state_dir, tmp_path):
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(fmt, QSettings.Scope.UserScope, str(tmp_path / "config"))
    seen: list[MainWindow] = []

    def close_when_ready() -> None:
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()]
        if windows and windows[0].engine_label.text() == "Engine: ready":
            seen.append(windows[0])
            windows[0].close()
        else:
            QTimer.singleShot(50, close_when_ready)

    QTimer.singleShot(50, close_when_ready)
    assert launch.main(["studio", str(tiny_file), "--output", "null"]) == 0
    assert seen and seen[0].doc.path == tiny_file
    assert not seen[0].engine.running()  # closed: the Session was closed and its threads joined
    assert not [t.name for t in threading.enumerate() if t.name.startswith(("radioplay-engine", "radioplay-live"))]
    assert (tmp_path / "config").is_dir()  # settings went to the isolated folder


def test_self_test_writes_every_field_the_package_checks_read(tiny_file, tmp_path):
    """`radioplay studio --self-test REPORT.json`: the window opens, gets usable, reports, closes.
    The fields are the ones packaging/smoke_test.sh and packaging/build.py read from the report."""
    smoke = (REPO / "packaging" / "smoke_test.sh").read_text()
    build = (REPO / "packaging" / "build.py").read_text()
    expected = smoke.split("for expect in", 1)[1].split("; do", 1)[0]  # 'key=value' pairs
    wanted = (set(re.findall(r'json_value "\$[^"]+" (\w+)', smoke)) | set(re.findall(r"""['"](\w+)=""", expected))
              | set(re.findall(r'data\["(\w+)"\]', build)))
    assert {"qt_platform", "engine_label", "first_paint", "engine_ready", "script_lines"} <= wanted
    report = tmp_path / "report.json"
    env = os.environ | {"QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path / "home"),
                        "XDG_CONFIG_HOME": str(tmp_path / "config"), "RADIOPLAY_STATE_DIR": str(tmp_path / "state")}
    started = time.time()
    done = subprocess.run([sys.executable, "-m", "app.launch", "studio", "--self-test", str(report), str(tiny_file),
                           "--output", "null"], cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    data = json.loads(report.read_text())
    assert wanted <= set(data), wanted - set(data)
    assert data["qt_platform"] == "offscreen" and data["engine_label"] == "Engine: ready"
    assert data["application_name"] == "Radioplay Studio" and data["desktop_file_name"] == "radioplay"
    assert data["script_lines"] == 6 and data["roles"] == 3 and data["last_error"] is None
    assert data["icon_beside_app"] is True and tiny_file.name in data["window_title"]
    assert started < data["first_paint"] <= data["usable"] and started < data["engine_ready"] <= data["usable"]
    assert Path(data["screenshot"]).read_bytes()[1:4] == b"PNG"


def test_the_first_window_fits_a_small_screen_with_the_script_line_in_view(tmp_path):
    """A new user's 1280x720 screen: the window opened at 1600x1000 and, where no window manager
    shrinks it, the script's Line column and the meters were past the screen's edge. Through the
    launcher, as `make run` opens it, on a screen of that size (Qt's offscreen screens, from a file)."""
    screens = tmp_path / "screen.json"
    # No frame: the decorations are the window manager's, around the size the studio asks for.
    screens.write_text(json.dumps({"windowFrameMargins": False, "screens": [{"name": "small", "x": 0, "y": 0, "width": 1280, "height": 720,
                                                "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    report = tmp_path / "report.json"
    env = os.environ | {"QT_QPA_PLATFORM": f"offscreen:configfile={screens}", "HOME": str(tmp_path / "home"),
                        "XDG_CONFIG_HOME": str(tmp_path / "config"), "RADIOPLAY_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-m", "app.launch", "studio", "--self-test", str(report), str(SAMPLE),
                           "--output", "null"], cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    data = json.loads(report.read_text())
    assert data["screen_size"] == [1280, 720]
    assert data["window_size"][0] <= 1280 and data["window_size"][1] <= 720, data["window_size"]
    assert data["line_column_right"] <= data["script_view_width"], (data["line_column_right"],
                                                                    data["script_view_width"])
    assert data["script_view_width"] >= 300  # the script keeps room to read a line in


def test_self_test_reports_an_engine_that_cannot_start(qtbot, state_dir, tmp_path):
    def no_engine(project, path):
        raise RuntimeError("no voices on this machine")

    window = MainWindow(settings=QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat),
                        session_factory=no_engine, recovery=RecoveryStore(state_dir))
    qtbot.addWidget(window)
    probe = SelfTest(tmp_path / "report.json")
    window.show()
    probe.attach(window)
    qtbot.waitUntil(lambda: (tmp_path / "report.json").exists(), timeout=30_000)
    data = json.loads((tmp_path / "report.json").read_text())
    assert "no voices on this machine" in data["engine_failed"] and "engine_ready" not in data
    assert "voice engine did not start" in (probe.problem() or "")
    assert not window.isVisible()
