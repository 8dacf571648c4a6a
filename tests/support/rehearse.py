"""The table read's test material: lines read by espeak-ng (a voice unlike the cast's) and the
``table`` fixture (a project and a folder of one role's reads; a plugin of tests/conftest.py)."""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest
import soundfile

from engine.project.fileformat import save_project
from engine.project.model import Line, Project, Role, Scene, VoiceParams
from engine.rehearse.reader import MicReader
from tests.support.audio_server import PulseServer

ESPEAK = shutil.which("espeak-ng")
needs_espeak = pytest.mark.skipif(ESPEAK is None, reason="espeak-ng is not installed (apt-get install espeak-ng)")

LINES = [
    ("HOST", "Good evening, and welcome back to the show."),
    ("GUEST", "Thank you for having me on such a stormy night."),
    ("HOST", "Tell us about the lighthouse keeper."),
    ("GUEST", "He kept the lamp burning for forty years without a single night off."),
    ("HOST", "That is a remarkable story."),
]


def espeak(text: str, path: Path) -> None:
    assert ESPEAK is not None
    subprocess.run([ESPEAK, "-v", "en-us+f3", "-s", "165", "-w", str(path), text], check=True)
    audio, rate = soundfile.read(str(path), dtype="float32")
    noise = np.random.default_rng(3).normal(0.0, 1e-3, audio.size).astype(np.float32)
    soundfile.write(str(path), audio * 0.5 + noise, rate)


def two_hander(voice: Path) -> Project:
    project = Project(title="Two-hander", sample_rate=48_000, scenes=[Scene("S1", "A studio")])
    project.cast = [Role("HOST", voice=VoiceParams(voice=str(voice))), Role("GUEST", voice=VoiceParams(voice=str(voice)))]
    project.lines = [Line(f"L{i + 1}", role, text, scene="S1") for i, (role, text) in enumerate(LINES)]
    return project


@pytest.fixture
def table(tiny_voices: dict[str, Path], tmp_path: Path) -> tuple[Path, Path]:
    """A project file and a folder of the GUEST's lines read by espeak-ng."""
    project = two_hander(tiny_voices["single"])
    path = tmp_path / "show.radioplay"
    save_project(project, path)
    reads = tmp_path / "reads"
    reads.mkdir()
    for line in project.lines:
        if line.role == "GUEST":
            espeak(line.text, reads / f"{line.id}.wav")
    return path, reads


class ReaderAtTheMicrophone:
    """A person at the microphone: plays their reading of a line into the
    source's sink a reaction time after the cue, with paplay."""

    def __init__(self, mic: MicReader, reads: Path, server: PulseServer) -> None:
        self.mic, self.reads, self.server = mic, reads, server
        self.rate, self.chunks = mic.rate, mic.chunks
        self.players: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        self.mic.start()

    def cue(self, line_id: str) -> None:
        def speak() -> None:
            self.players.append(subprocess.Popen(
                ["paplay", f"--device={self.server.sink}", str(self.reads / f"{line_id}.wav")],
                env=self.server.child_env()))

        threading.Timer(0.3, speak).start()

    def truth(self, line_id: str) -> tuple[float, float] | None:
        return None

    def close(self) -> None:
        self.mic.close()
        for player in self.players:
            player.wait(timeout=30)
