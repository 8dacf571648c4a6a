"""File > Import Script and `radioplay import` are one import: the same project, the same sound
cues matched to the same files, the same summary (issue "studio" item 1: the studio's import left
every cue a placeholder and saved `"file": ""` while the CLI matched 5 of 5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import main
from engine.project.fileformat import load_project
from engine.project.importers.parsed import Dialogue, SoundCue
from engine.project.importers.plaintext import parse_plaintext
from tests.support.paths import ARTIFACTS, REPO, SAMPLES

SAMPLE_SCRIPT = SAMPLES / "the-last-broadcast.txt"


@pytest.fixture
def script(tmp_path: Path) -> Path:
    """The sample's script with every cue, scene and pause as written, its dialogue said by two
    roles: the cues are what these tests compare, and the sample's seven roles cost minutes of
    measured casting (each designed pick heard on its role's lines) in both imports."""
    text = SAMPLE_SCRIPT.read_text(encoding="utf-8")
    lines = text.splitlines()
    spoken = [e.source_line for e in parse_plaintext(text).elements if isinstance(e, Dialogue)]
    for n, number in enumerate(spoken):
        lines[number - 1] = f"{('MAGGIE', 'OWEN')[n % 2]}: Line {n + 1} of the night."
    path = tmp_path / "cues.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _cli_import(script: Path, tmp_path: Path) -> dict[str, str]:
    """The cue id -> matched file name of `radioplay import` of ``script``."""
    out = tmp_path / "cli" / "play.radioplay"
    out.parent.mkdir()
    assert main(["import", str(script), "-o", str(out)]) == 0
    project = load_project(out)
    matched = {clip.id: Path(clip.file).name for clip in project.sounds if clip.file}
    assert project.sounds and len(matched) == len(project.sounds)  # the sample's cues all match
    return matched


def test_the_studios_import_matches_the_cues_as_radioplay_import_does(qtbot, make_window, tmp_path, capsys,
                                                                       script):
    expected = _cli_import(script, tmp_path)
    summary = capsys.readouterr().out
    cues = [e for e in parse_plaintext(script.read_text(encoding="utf-8")).elements if isinstance(e, SoundCue)]
    assert "2 roles" in summary and len(expected) == sum(not cue.out for cue in cues)  # a cue's end is no clip
    window = make_window()
    dialog = window.files.import_script(script)
    assert dialog is not None and dialog.imported is not None
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    dialog.grab().save(str(ARTIFACTS / "import-preview.png"))
    studio = {clip.id: Path(clip.file).name for clip in dialog.imported.project.sounds if clip.file}
    assert studio == expected
    lines = dialog.imported.cue_lines()
    assert lines and all(line in summary for line in lines)  # what the CLI printed: the same import
    assert lines[0] in dialog.cues_summary.text()  # the preview says it too, with a row per cue
    rows = {(dialog.cues.item(r, 0).text(), dialog.cues.item(r, 1).text(), dialog.cues.item(r, 2).text())
            for r in range(dialog.cues.rowCount())}
    assert rows == {(clip.lane, clip.cue, Path(clip.file).name) for clip in dialog.imported.project.sounds}
    dialog.accept()
    saved = tmp_path / "studio" / "play.radioplay"
    saved.parent.mkdir()
    assert window.files.save_as(saved)
    reopened = load_project(saved)
    assert {clip.id: Path(clip.file).name for clip in reopened.sounds if clip.file} == expected
    assert all(clip.file for clip in reopened.sounds)


def test_studio_on_a_script_imports_it_and_the_self_test_reports_each_cues_file(tmp_path, script):
    expected = _cli_import(script, tmp_path)
    report = tmp_path / "report.json"
    env = os.environ | {"QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path / "home"),
                        "XDG_CONFIG_HOME": str(tmp_path / "config"), "RADIOPLAY_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-m", "app.launch", "studio", "--self-test", str(report), str(script),
                           "--output", "null"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    data = json.loads(report.read_text())
    imported = data["imported"]
    assert imported["script"] == str(script) and imported["lines"] == data["script_lines"] > 0
    assert {cue["id"]: Path(cue["file"]).name for cue in imported["sound_cues"] if cue["file"]} == expected
