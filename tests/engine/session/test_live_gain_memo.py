"""The live session and export share the remembered master gain (engine/mixdown/memo.py)
and the staged lines (engine/audio/staging.py, kept in the clip cache's folder).

Opening a project that was exported before must not run a second pass over
its programme, nor stage its lines again, beside whatever the producer does
next (an Export pressed right after opening competed with both for the CPU:
bench/studio_export.py), and an export after listening finds the gain the
session already solved.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from engine.audio.sinks import NullSink
from engine.export.render import render_project
from engine.export.session_render import render_session
from engine.project.fileformat import load_project, save_project
from engine.project.staging import ROOM_PRESETS
from engine.session import Session
from engine.synth.synthesizer import make_synthesizer
from tests.support.projects import tiny_project


def wait_for(condition: Callable[[], bool], timeout: float = 60.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.fixture
def project_path(tmp_path: Path, tiny_voices: dict[str, Path]) -> Path:
    path = tmp_path / "tiny.radioplay"
    save_project(tiny_project(tiny_voices["single"]), path)
    return path


def solved_gain_files(cache: Path) -> list[Path]:
    """The memo's solved gains (its other entries are measurements of written mixes)."""
    return [p for p in (cache / "loudness").glob("*.json") if "gain_db" in json.loads(p.read_text())]


def open_session(path: Path) -> Session:
    project = load_project(path)
    return Session(project, path, sink=NullSink(project.sample_rate, speed=4.0))


def test_a_session_opened_after_an_export_takes_its_remembered_gain(project_path: Path, tmp_path: Path,
                                                                   _isolated_clip_cache: Path) -> None:
    project = load_project(project_path)
    report = render_project(project, make_synthesizer(project_path, project.sample_rate), tmp_path / "out")
    [memo] = solved_gain_files(_isolated_clip_cache)
    # Mark the remembered gain: a session that measured the programme again would not find this value.
    data = json.loads(memo.read_text())
    data["gain_db"] = report.gain_db + 1.25
    memo.write_text(json.dumps(data))
    with open_session(project_path) as session:
        wait_for(lambda: session.master_gain_db is not None, what="the live master gain")
        assert session.master_gain_db == pytest.approx(report.gain_db + 1.25)


def test_an_export_after_listening_reuses_the_gain_the_session_solved(project_path: Path, tmp_path: Path,
                                                                      _isolated_clip_cache: Path) -> None:
    with open_session(project_path) as session:  # pre-renders every line, then solves the gain
        wait_for(lambda: session.master_gain_db is not None, what="the live master gain")
        live_gain = session.master_gain_db
        report = render_session(session, tmp_path / "out")
    assert report.synthesized == 0
    assert report.gain_reused, "the export measured the programme the session had measured"
    assert report.gain_db == pytest.approx(live_gain, abs=1e-9)


def test_a_session_opened_after_an_export_plays_the_lines_the_export_staged(tmp_path: Path,
                                                                           tiny_voices: dict[str, Path],
                                                                           _isolated_clip_cache: Path) -> None:
    project = tiny_project(tiny_voices["single"])
    project.scenes[0].room = ROOM_PRESETS["bathroom"]  # every line staged: its room, stereo
    path = tmp_path / "staged.radioplay"
    save_project(project, path)
    render_project(project, make_synthesizer(path, project.sample_rate), tmp_path / "out")
    staged = {p.name for p in _isolated_clip_cache.rglob("staged-*.npy")}
    assert len(staged) >= len(project.lines)
    with open_session(path) as session:
        wait_for(lambda: session.master_gain_db is not None, what="the live master gain")
        mixer = session.live_mix.mixer
        wait_for(lambda: len(mixer.clips) == len(project.lines), what="every line placed")
        # Played from the export's files, memory-mapped: the same curve and staging, not staged again.
        heard = [clip.audio for clip in mixer.clips]
        assert all(isinstance(audio, np.memmap) and Path(str(audio.filename)).name in staged for audio in heard)
    assert {p.name for p in _isolated_clip_cache.rglob("staged-*.npy")} == staged
