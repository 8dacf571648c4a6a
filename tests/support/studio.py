"""Fixtures for the studio window tests (imported by tests/app/test_studio_*.py).

Every window gets its own QSettings file and recovery folder, runs the real
engine Session on the null output (a real-time clock, no sound device), and
is closed at the end of the test with its threads joined: a test that
leaves an engine, export or playback thread behind fails.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf
from PySide6.QtCore import QSettings

from app.dialogs.export import ExportDialog
from app.document.recovery import RecoveryStore
from app.shell.main_window import MainWindow, default_session_factory
from engine.export.render import RenderReport
from engine.project.fileformat import save_project
from engine.project.model import Project
from engine.project.sound import SoundClip, SoundLane
from tests.support.projects import tiny_project

RATE = 48_000

# Python threads the studio and its Session start; none may outlive its window.
STUDIO_THREADS = ("radioplay-engine", "radioplay-export", "radioplay-live", "radioplay-mixer", "radioplay-null-sink", "radioplay-sched", "radioplay-post",
                  "radioplay-check", "radioplay-casting")
THREADS_END_S = 120.0


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "state"
    monkeypatch.setenv("RADIOPLAY_STATE_DIR", str(folder))
    return folder


@pytest.fixture
def settings_path(tmp_path: Path) -> Path:
    return tmp_path / "settings.ini"


@pytest.fixture
def make_window(qtbot: Any, state_dir: Path, settings_path: Path) -> Iterator[Callable[..., MainWindow]]:
    windows: list[MainWindow] = []
    # Threads of this name already running belong to an earlier test of this worker (an
    # engine test's scheduler, say): they are that test's leak, not this window's.
    earlier = {t.ident for t in threading.enumerate() if t.name.startswith(STUDIO_THREADS)}

    def make(path: Path | None = None, *, prerender: bool = False, show: bool = True,
             project: Project | None = None, check: bool = False, output: str = "null",
             device: str | None = None) -> MainWindow:
        # check: the background speech check (a recognizer process per window): only where a test looks at it.
        # output: a device name (the pulse_server fixture's) where a test records what the studio plays.
        # device: synthesize on the window's synthesis device (--device, then Transport > Synthesis
        # Device), as the studio does; None: plain CPU sessions.
        settings = QSettings(str(settings_path), QSettings.Format.IniFormat)
        made: list[MainWindow] = []  # the window, once made: its engine may start before the constructor returns
        asks = (lambda: made[0].synthesis_device if made else device) if device is not None else None
        window = MainWindow(path, settings=settings, project=project, device=device,
                            session_factory=default_session_factory(output=output, prerender=prerender,
                                                                    check=check, device=asks),
                            recovery=RecoveryStore(state_dir))
        made.append(window)
        window.files.ask_save_changes = lambda: "discard"  # type: ignore[method-assign]
        windows.append(window)
        if show:
            window.show()
            qtbot.waitExposed(window)
        return window

    yield make
    for window in windows:
        if window.isVisible() or window.engine.running():
            window.close()
        if window.engine.running():  # close was refused or never happened
            window.shutdown()
    # A thread left behind never ends; one that is ending may take long on a busy machine
    # (at a load of 10, a window's close took 17 s): a generous limit, the load in the failure.
    started, deadline = os.getloadavg(), time.monotonic() + THREADS_END_S
    while time.monotonic() < deadline and _studio_threads(earlier):
        time.sleep(0.05)
    left = _studio_threads(earlier)
    assert not left, (f"threads left running {THREADS_END_S:g} s after the windows closed: "
                      f"{[t.name for t in left]} (load {started} at the close, {os.getloadavg()} now); "
                      f"where they are:\n{_stacks(left)}")


def _studio_threads(earlier: set[int | None]) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(STUDIO_THREADS) and t.ident not in earlier]


def _stacks(threads: list[threading.Thread]) -> str:
    """Each thread's stack as it is now, so a failure says what the thread waits on."""
    import sys
    import traceback

    frames = sys._current_frames()
    return "\n".join(f"{t.name}:\n" + "".join(traceback.format_stack(frames[t.ident]))
                     for t in threads if t.ident in frames)


def wait_engine(qtbot: Any, window: MainWindow, timeout: int = 180_000) -> Any:
    """Wait for the Session, the window's "ready" and a first snapshot; returns the Session."""
    qtbot.waitUntil(lambda: window.session() is not None and window.engine.state() is not None
                    and window.engine_label.text() == "Engine: ready", timeout=timeout)
    return window.session()


def wait_all_ready(qtbot: Any, window: MainWindow, timeout: int = 180_000) -> None:
    def ready() -> bool:
        state = window.engine.state()
        return (state is not None and len(state.line_status) == len(window.doc.project.lines)
                and all(s.state.name == "READY" for s in state.line_status.values()))

    qtbot.waitUntil(ready, timeout=timeout)


def voice_everything(qtbot: Any, window: MainWindow, timeout: int = 180_000) -> None:
    """Play (the Session pre-renders the rest once playback has started), wait until every
    line is voiced, and stop."""
    window.actions_["play_pause"].trigger()
    wait_all_ready(qtbot, window, timeout)
    window.actions_["stop"].trigger()
    qtbot.waitUntil(lambda: not window.engine.state().transport.playing, timeout=timeout)


@pytest.fixture
def tiny_file(tmp_path: Path, tiny_voices: dict[str, Path]) -> Path:
    """Three roles, six lines, on the tiny generated voice, saved as a project file."""
    path = tmp_path / "tiny.radioplay"
    save_project(tiny_project(tiny_voices["single"]), path)
    return path


def export_through_dialog(qtbot, window, outdir: Path) -> RenderReport:
    window.files.last_report = None
    dialog = window.files.export(outdir)
    assert isinstance(dialog, ExportDialog) and dialog.isVisible()
    assert dialog.folder() == outdir
    dialog.format.setCurrentIndex(dialog.format.findData("wav32f"))
    dialog.accept()
    job = window.files.export_job
    assert job is not None
    # The report can arrive while the worker thread is still returning (a modal
    # progress dialog handles queued events inside setValue): wait for both.
    qtbot.waitUntil(lambda: window.files.last_report is not None and not job.running(), timeout=60_000)
    assert not job.progress.isVisible()
    return window.files.last_report


def scored_file(tmp_path: Path, voice: Path) -> Path:
    (tmp_path / "sounds").mkdir()
    t = np.arange(RATE) / RATE
    sf.write(tmp_path / "sounds" / "rain.wav", 0.2 * np.sin(2 * np.pi * 200 * t), RATE)
    sf.write(tmp_path / "sounds" / "bell.wav", 0.3 * np.sin(2 * np.pi * 900 * t[: RATE // 2]), RATE)
    project = tiny_project(voice, roles=2, lines_per_role=2)
    project.sound_lanes = [SoundLane.of_kind("effects"), SoundLane.of_kind("ambience")]
    project.sounds = [
        SoundClip("X1", "AMBIENCE", cue="rain", file="sounds/rain.wav", line="L0001", loop=True, end="length",
                  length=5.0),
        SoundClip("X2", "FX", cue="a gong", line="L0003"),  # a placeholder: nothing matches a gong
        SoundClip("X3", "FX", cue="door", file="sounds/door-missing.wav", anchor="line_end", line="L0004"),
    ]
    path = tmp_path / "scored.radioplay"
    save_project(project, path)
    return path
