"""The table read's rehearsal modes with the real parts: a PulseAudio microphone
(the private server's null sink monitor, read through PortAudio) into which a
reader's espeak-ng recordings are played after each cue, the real voice
activity detector and recognizer, the real Session on the null clock.

- a section (L2..L4) looped twice, the reader's lines hidden until said, every
  line followed in order, each live line scored (words expected and heard);
- the same half-said line accepted when loose, not when strict;
- ``radioplay rehearse --report`` writes the per-line accuracy report.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from engine.listen.words import spoken_words
from engine.project.fileformat import load_project
from engine.rehearse.reader import MicReader
from engine.rehearse.runner import RehearseError, RehearseOptions, TableRead, plan_lines
from engine.session import Session
from tests.support.audio_server import PulseServer
from tests.support.paths import REPO
from tests.support.rehearse import LINES, ReaderAtTheMicrophone, espeak, needs_espeak

pytestmark = [needs_espeak, pytest.mark.skipif(shutil.which("paplay") is None,
                                               reason="paplay (pulseaudio-utils) is not installed")]


def read(path: Path, reads: Path, server: PulseServer, options: RehearseOptions):
    project = load_project(path)
    reader = ReaderAtTheMicrophone(MicReader(project.sample_rate, server.mic_name), reads, server)
    session = Session(project, path, output="null", prerender=False)
    said: list[str] = []
    followed: list[str] = []
    try:
        report = TableRead(session, reader, options, said.append, follow=followed.append).run()
    finally:
        session.close()
        reader.close()
    return report, said, followed


def test_a_looped_section_with_hidden_lines_is_followed_and_scored_line_by_line(
        pulse_server: PulseServer, table: tuple[Path, Path]) -> None:
    path, reads = table
    options = RehearseOptions(("GUEST",), from_line="L2", to_line="L4", loop=2, hide_own=True)
    report, said, followed = read(path, reads, pulse_server, options)
    assert [(r.line_id, r.pass_no) for r in report.results] == [
        ("L2", 1), ("L3", 1), ("L4", 1), ("L2", 2), ("L3", 2), ("L4", 2)], said
    assert followed == ["L2", "L3", "L4", "L2", "L3", "L4"]
    guest = {f"L{i + 1}": text for i, (role, text) in enumerate(LINES) if role == "GUEST"}
    cues = [s for s in said if "(you)" in s]
    assert len(cues) == 4 and all("words, hidden)" in c for c in cues), cues
    assert not any(text in c for c in cues for text in guest.values())  # never shown before it is said
    assert said.count(f"  = {guest['L2']}") == 2 and said.count(f"  = {guest['L4']}") == 2
    assert any("again from L2: pass 2" in s for s in said)
    live = [r for r in report.results if r.live]
    assert len(live) == 4 and all(r.outcome == "recognized" for r in live), said
    for r in live:
        assert r.expected is not None and r.expected.split() == spoken_words(guest[r.line_id])
        assert r.accuracy is not None and r.accuracy >= 0.5, (r.line_id, r.heard)
        expected = r.expected.split()
        assert r.accuracy == round((len(expected) - len(r.missed_words)) / len(expected), 3)
        assert set(r.missed_words) <= set(expected) and r.heard_count >= 1
    assert report.figures()["accuracy"] >= 0.5
    assert [row["pass"] for row in report.accuracy_lines()] == [1, 1, 2, 2]


def test_half_a_line_is_taken_when_loose_and_not_when_strict(
        pulse_server: PulseServer, table: tuple[Path, Path], tmp_path: Path) -> None:
    path, _ = table
    half = tmp_path / "half"
    half.mkdir()
    espeak("He kept the lamp burning for forty years.", half / "L4.wav")  # 7 of the line's 13 words
    loose, said, _ = read(path, half, pulse_server, RehearseOptions(("GUEST",), "L4", to_line="L4",
                                                                   strictness="loose"))
    assert [r.outcome for r in loose.results] == ["recognized"], said
    strict, said, _ = read(path, half, pulse_server, RehearseOptions(("GUEST",), "L4", to_line="L4",
                                                                    strictness="strict"))
    assert [r.outcome for r in strict.results] == ["missed"], said  # the end was never heard
    (result,) = strict.results
    assert result.accuracy is not None and result.accuracy < 0.85 and "single" in result.missed_words


def test_rehearse_writes_the_accuracy_report_and_names_bad_sections(
        pulse_server: PulseServer, table: tuple[Path, Path], tmp_path: Path) -> None:
    path, reads = table
    report_file = tmp_path / "out" / "accuracy.json"
    report_file.parent.mkdir()
    run = subprocess.run([sys.executable, "-m", "app.launch", "rehearse", str(path), "--role", "GUEST",
                          "--input", pulse_server.mic_name, "--device", "null", "--from", "L3", "--to", "L4",
                          "--report", str(report_file)], capture_output=True, text=True, timeout=300, cwd=REPO,
                         env={**pulse_server.child_env(), "PYTHONPATH": str(REPO)}, stdin=subprocess.DEVNULL)
    # the reader never speaks here (no one plays into the microphone): the line is missed, and said so
    assert run.returncode == 0, run.stderr
    data = json.loads(report_file.read_text())
    assert data["live_lines"] == 1 and data["missed"] == 1
    (row,) = data["lines_read"]
    assert row["line_id"] == "L4" and row["outcome"] == "missed" and row["words_expected"] == 13
    assert row["words_heard"] == 0 and row["accuracy"] == 0.0 and len(row["missed_words"]) == 13
    assert "words" in run.stdout and "accuracy" in run.stdout and "L4" in run.stdout

    project = load_project(path)
    with pytest.raises(RehearseError, match="--to 'L1' comes before --from 'L3'"):
        plan_lines(project, RehearseOptions(("GUEST",), "L3", to_line="L1"))
    with pytest.raises(RehearseError, match="--to 'L9': no such line"):
        plan_lines(project, RehearseOptions(("GUEST",), to_line="L9"))
