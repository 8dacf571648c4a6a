"""``radioplay`` / ``radioplay studio [PROJECT]`` open the window; the engine stays Qt-free."""
# ruff: noqa: F811 - the fixtures come from tests/app/studio.py and are named as arguments

from __future__ import annotations

import os
import subprocess
import sys
import threading

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication

import app.main
from app.main_window import MainWindow
from engine import cli
from tests.app.studio import state_dir, tiny_file  # noqa: F401
from tests.conftest import REPO, SAMPLE


def test_no_arguments_and_studio_open_the_window(monkeypatch):
    calls = []
    monkeypatch.setattr(app.main, "run", lambda project=None, output=None: calls.append((project, output)) or 0)
    assert cli.main([]) == 0
    assert cli.main(["studio", "drama.radioplay", "--output", "null"]) == 0
    assert calls == [(None, None), ("drama.radioplay", "null")]


def test_without_a_display_the_studio_says_so_instead_of_aborting():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run([sys.executable, "-m", "engine.cli", "studio", str(SAMPLE)], cwd=REPO, env=env,
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
    assert cli.main(["studio", str(tiny_file), "--output", "null"]) == 0
    assert seen and seen[0].doc.path == tiny_file
    assert not seen[0].engine.running()  # closed: the Session was closed and its threads joined
    assert not [t.name for t in threading.enumerate() if t.name.startswith(("radioplay-engine", "radioplay-live"))]
    assert (tmp_path / "config").is_dir()  # settings went to the isolated folder
