"""Issue 25, the table read: line ids that sanitize alike (``A/1`` and ``A_1``)
get distinct takes, and a recording whose header claims 1 Hz is one line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile

from engine.project.fileformat import load_project, save_project
from engine.project.model import Line, Project, Role, Scene, VoiceParams
from engine.rehearse.take_names import take_file_names
from tests.support.hostile import lying_wav

REPO = Path(__file__).resolve().parents[3]
ESPEAK = shutil.which("espeak-ng")
needs_espeak = pytest.mark.skipif(ESPEAK is None, reason="espeak-ng is not installed (apt-get install espeak-ng)")
LINES = [("HOST", "H1", "Good evening and welcome to the show."),
         ("GUEST", "A/1", "Thank you."),
         ("HOST", "H2", "Tell us about the keeper."),
         ("GUEST", "A_1", "He kept the lamp burning for forty years, through every storm and every winter.")]


def espeak(text: str, path: Path) -> None:
    assert ESPEAK is not None
    subprocess.run([ESPEAK, "-v", "en-us+f3", "-s", "165", "-w", str(path), text], check=True)
    audio, rate = soundfile.read(str(path), dtype="float32")
    noise = np.random.default_rng(3).normal(0.0, 1e-3, audio.size).astype(np.float32)
    soundfile.write(str(path), audio * 0.5 + noise, rate)


def project_file(tmp_path: Path, voice: Path) -> Path:
    project = Project(title="Ids", sample_rate=48_000, scenes=[Scene("S1", "A studio")])
    project.cast = [Role("HOST", voice=VoiceParams(voice=str(voice))), Role("GUEST", voice=VoiceParams(voice=str(voice)))]
    project.lines = [Line(lid, role, text, scene="S1") for role, lid, text in LINES]
    path = tmp_path / "ids.radioplay"
    save_project(project, path)
    return path


def rehearse(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine.cli", "rehearse", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=600)


def test_take_names_are_safe_and_distinct_for_ids_that_sanitize_alike():
    names = take_file_names(["A/1", "A_1", "../x", "a_1", "CON"])
    assert names == {"A/1": "A_1.wav", "A_1": "A_1-2.wav", "../x": "x.wav", "a_1": "a_1-3.wav", "CON": "CON_.wav"}


@needs_espeak
def test_lines_a_slash_1_and_a_underscore_1_each_keep_their_own_take(tmp_path, tiny_voices):
    path = project_file(tmp_path, tiny_voices["single"])
    reads = tmp_path / "reads"
    reads.mkdir()
    names = take_file_names([lid for _, lid, _ in LINES])
    for role, lid, text in LINES:
        if role == "GUEST":
            espeak(text, reads / names[lid])
    takes = tmp_path / "takes"
    done = rehearse(str(path), "--role", "GUEST", "--simulate", str(reads), "--json", "--device", "null",
                    "--record", str(takes))
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(p.name for p in takes.iterdir()) == ["A_1-2.wav", "A_1.wav"]  # the old run wrote one A_1.wav
    recorded = {line.id: Path(line.recording).name for line in load_project(path).lines if line.recording}
    assert recorded == {"A/1": "A_1.wav", "A_1": "A_1-2.wav"}
    first, _ = soundfile.read(str(takes / "A_1.wav"))
    second, _ = soundfile.read(str(takes / "A_1-2.wav"))
    assert second.size > first.size + 48_000  # each its own reading (short and long), not one take twice
    report = json.loads(done.stdout)
    assert report["live_lines"] == 2 and report["missed"] == 0


def test_a_recording_claiming_1_hz_is_one_line_naming_it(tmp_path, tiny_voices):
    path = project_file(tmp_path, tiny_voices["single"])
    reads = tmp_path / "reads"
    reads.mkdir()
    for name in take_file_names([lid for _, lid, _ in LINES]).values():
        lying_wav(reads / name, rate=1, seconds_claimed=20_000)
    done = rehearse(str(path), "--role", "GUEST", "--simulate", str(reads), "--device", "null")
    assert done.returncode == 1
    assert done.stderr.strip() == (f"radioplay: error: {reads / 'A_1.wav'}: cannot read: the header claims 1 Hz; a "
                                   f"sound file must be 4000-768000 Hz")
