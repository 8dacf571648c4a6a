"""Recorded takes (``Line.recording``): stored with the project, heard live instead of synthesis."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile

from engine.project.fileformat import (
    ProjectFileError,
    load_project,
    project_from_dict,
    project_to_dict,
    save_project,
)
from engine.project.snapshot import freeze
from engine.session import LineState, Session
from tests.support.projects import tiny_project


def write_take(path: Path, seconds: float = 1.3, rate: int = 44_100) -> None:
    t = np.arange(int(seconds * rate)) / rate
    soundfile.write(str(path), (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32), rate)


def test_a_take_is_stored_relative_to_the_project_and_read_back_absolute(tiny_voices: dict[str, Path],
                                                                         tmp_path: Path) -> None:
    project = tiny_project(tiny_voices["single"], roles=2, lines_per_role=1)
    (tmp_path / "takes").mkdir()
    take = tmp_path / "takes" / "L0001.wav"
    project.lines[0] = replace(project.lines[0], recording=str(take))
    path = tmp_path / "p.radioplay"
    save_project(project, path)
    assert json.loads(path.read_text())["lines"][0]["recording"] == "takes/L0001.wav"
    moved = tmp_path / "moved"
    moved.mkdir()
    (tmp_path / "takes").rename(moved / "takes")
    path.rename(moved / "p.radioplay")
    assert load_project(moved / "p.radioplay").lines[0].recording == str(moved / "takes" / "L0001.wav")
    assert "recording" not in project_to_dict(project)["lines"][1]


def test_a_bad_take_entry_names_the_line_and_field(tiny_voices: dict[str, Path]) -> None:
    data = project_to_dict(tiny_project(tiny_voices["single"], roles=1, lines_per_role=1))
    data["lines"][0]["recording"] = 7
    with pytest.raises(ProjectFileError, match=r"lines\[0\]\.recording: expected the path of a WAV file"):
        project_from_dict(data, "p.radioplay")


def test_the_session_hears_the_take_instead_of_synthesis(tiny_voices: dict[str, Path], tmp_path: Path) -> None:
    project = tiny_project(tiny_voices["single"], roles=2, lines_per_role=1)
    take = tmp_path / "take.wav"
    write_take(take)
    project.lines[0] = replace(project.lines[0], recording=str(take))
    session = Session(freeze(project), None, output="null", prerender=False)
    try:
        session.wait_idle(30.0)
        assert session.line_status()["L0001"].state is LineState.READY
        clip = next(c for c in session.clips() if c.line_id == "L0001")
        assert clip.end - clip.start == pytest.approx(1.3, abs=0.01) and not clip.estimated
        # Taking the recording away voices the line again.
        unrecorded = replace(project, lines=[replace(project.lines[0], recording=None), *project.lines[1:]])
        session.update(freeze(unrecorded))
        session.wait_idle(30.0)
        session.prefetch(["L0001"])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            views = {c.line_id: c for c in session.clips()}
            if session.line_status()["L0001"].state is LineState.READY and not views["L0001"].estimated:
                break
            time.sleep(0.05)
        clip = next(c for c in session.clips() if c.line_id == "L0001")
        assert session.line_status()["L0001"].state is LineState.READY
        assert clip.end - clip.start != pytest.approx(1.3, abs=0.01)
        # A take that is missing is a failed line that says which file.
        session.update(freeze(replace(project, lines=[replace(project.lines[0], recording=str(tmp_path / "gone.wav")),
                                                      *project.lines[1:]])))
        session.wait_idle(30.0)
        status = session.line_status()["L0001"]
        assert status.state is LineState.FAILED and "gone.wav: file not found" in (status.error or "")
    finally:
        session.close()
