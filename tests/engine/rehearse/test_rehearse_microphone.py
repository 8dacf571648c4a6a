"""The table read through a real microphone path: PortAudio capturing from a
PulseAudio source (the private server's null sink monitor, tests/support/audio_server.py)
while a person's reading is played into that sink 300 ms after each cue.

Nothing is simulated inside the engine: the MicReader opens the device by
name through sounddevice like any microphone, and the line's end is found by
the voice activity detector and the recognizer on what the device delivers.
The session's own output is the null clock, so the replies never reach the
"microphone" (a reader on headphones).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from engine.project.fileformat import load_project
from engine.rehearse.reader import MicReader, ReaderError
from engine.rehearse.runner import RehearseOptions, TableRead
from engine.session import Session
from tests.support.audio_server import PulseServer
from tests.support.rehearse import ReaderAtTheMicrophone, needs_espeak


@needs_espeak
def test_a_reader_at_a_pulseaudio_microphone_is_followed_line_by_line(
        pulse_server: PulseServer, table: tuple[Path, Path]) -> None:  # noqa: F811
    if shutil.which("paplay") is None:
        pytest.skip("paplay (pulseaudio-utils) is not installed")
    path, reads = table
    project = load_project(path)
    with pytest.raises(ReaderError, match="no input device called 'Imaginary Mic'"):
        MicReader(project.sample_rate, "Imaginary Mic")
    mic = MicReader(project.sample_rate, pulse_server.mic_name)
    reader = ReaderAtTheMicrophone(mic, reads, pulse_server)
    session = Session(project, path, output="null", prerender=False)
    said: list[str] = []
    try:
        report = TableRead(session, reader, RehearseOptions(("GUEST",)), said.append).run()
    finally:
        session.close()
        reader.close()
    figures = report.figures()
    assert [r.line_id for r in report.results] == ["L1", "L2", "L3", "L4", "L5"], said
    assert figures["missed"] == 0 and figures["false_starts"] == 0, said
    assert report.gap_basis == "vad" and len(report.gaps_ms) == 2
    assert all(0 < gap < 1500 for gap in report.gaps_ms), report.gaps_ms
    assert all(r.outcome == "recognized" for r in report.results if r.live)
