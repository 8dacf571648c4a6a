"""Takes in the studio: the Takes panel makes, chooses and locks takes; a take
chosen in the studio survives save, reopen and export (bundled voice: takes
really differ, and a take is the same samples in any process)."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.export.render import RenderOptions, render_project
from engine.project.fileformat import load_project, save_project
from engine.project.model import Line, Project, Role, Scene
from engine.project.snapshot import with_line
from engine.synth.synthesizer import make_synthesizer
from tests.support.studio import export_through_dialog, wait_engine


def _one_line(path: Path) -> Path:
    project = Project(title="Takes", cast=[Role(name="NARRATOR")], scenes=[Scene("S1")],
                      lines=[Line("L1", "NARRATOR", "The lamp was still burning when the tide came in.", "S1")])
    save_project(project, path)
    return path


def _render(project: Project, path: Path, outdir: Path) -> np.ndarray:
    render_project(project, make_synthesizer(path, project.sample_rate), outdir, RenderOptions(format="wav32f"))
    return np.asarray(sf.read(str(outdir / "mix.wav"), dtype="float32")[0])


@pytest.mark.integration
def test_a_take_chosen_in_the_studio_survives_save_reopen_and_export(qtbot, make_window, tmp_path):
    path = _one_line(tmp_path / "takes.radioplay")
    window = make_window(path)
    wait_engine(qtbot, window)
    window.script.select_line("L1")
    panel = window.takes
    assert panel.line_id == "L1" and panel.list.count() == 1
    panel.new_button.click()
    panel.new_button.click()
    assert panel.list.count() == 3 and window.doc.project.line("L1").take == 2
    panel.list.setCurrentRow(1)
    panel.choose_button.click()
    panel.lock_button.click()
    line = window.doc.project.line("L1")
    assert (line.take, line.takes, line.locked) == (1, (0, 1, 2), window.doc.project.role("NARRATOR").voice)
    assert "take 2 of 3, locked" in panel.title.text()
    window.doc.undo.undo()  # the lock is one undo step
    assert window.doc.project.line("L1").locked is None
    window.doc.undo.redo()
    assert window.files.save()
    window.close()

    reopened = make_window(path)
    wait_engine(qtbot, reopened)
    reopened.script.select_line("L1")
    assert reopened.takes.title.text().startswith("L1 (NARRATOR): take 2 of 3, locked")
    export_through_dialog(qtbot, reopened, tmp_path / "studio")
    exported = np.asarray(sf.read(str(tmp_path / "studio" / "mix.wav"), dtype="float32")[0])
    reopened.close()

    # The same file rendered headless in this process: the same take, the same samples.
    saved = load_project(path)
    assert saved.lines[0].take == 1
    again = _render(saved, path, tmp_path / "again")
    np.testing.assert_array_equal(exported, again)
    # Take 1 (seed 0) is another take: the export really played the chosen one.
    first = _render(with_line(saved, "L1", take=0, locked=None), path, tmp_path / "first")
    assert first.shape != exported.shape or not np.array_equal(first, exported)
