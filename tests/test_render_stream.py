"""The cold render's tail overlaps its work: the mix is measured for the
compliance report as it is written (the same numbers as reading the file
back), and sound files are checked before synthesis but read while the lines
are voiced."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine.audio.wavwriter import SparseWavWriter
from engine.export.compliance import FileMeter, described, measure
from engine.export.render import RenderOptions, render_project
from engine.project.fileformat import load_project, save_project
from engine.synth.synthesizer import make_synthesizer
from tests.conftest import tiny_project

RATE = 48_000


def _programme(seconds: float) -> np.ndarray:
    """Speech-like bursts over silence, with peaks past full scale (clipped when written)."""
    rng = np.random.default_rng(3)
    n = int(seconds * RATE)
    audio = rng.normal(0.0, 0.2, (n, 2)).astype(np.float32)
    envelope = (np.sin(np.arange(n) / RATE * 2.1) > 0.3).astype(np.float32)
    audio *= envelope[:, None]
    audio[n // 3] = 1.4
    return audio


@pytest.mark.parametrize("subtype", ["PCM_24", "FLOAT"])
def test_a_file_metered_as_written_measures_what_reading_it_back_gives(tmp_path: Path, subtype: str) -> None:
    audio = _programme(7.3)
    path = tmp_path / "mix.wav"
    meter = FileMeter(RATE, 2)
    with SparseWavWriter(path, RATE, 2, subtype, frames_hint=audio.shape[0]) as writer:
        # Uneven blocks, a silent one (a hole in the file) among them.
        cuts = [0, 1000, 9192, 9192 + 8192, 70_000, 150_001, audio.shape[0]]
        audio[9192:9192 + 8192] = 0.0
        for a, b in zip(cuts, cuts[1:], strict=False):
            writer.write(audio[a:b])
            meter.feed(writer.decoded(audio[a:b]))
    streamed = meter.result(described(path, "mix.wav"), room_tone=True)
    assert streamed == measure(path, "mix.wav", room_tone=True)  # every field, exactly


def test_a_new_programme_is_measured_while_written_and_matches_the_file(tmp_path: Path,
                                                                        tiny_voices: dict[str, Path]) -> None:
    project = tiny_project(tiny_voices["single"])
    project.cast[0].effect = "telephone"
    project.master_effect = "broadcast"
    path = tmp_path / "tiny.radioplay"
    save_project(project, path)
    report = render_project(load_project(path), make_synthesizer(path, RATE), tmp_path / "out", RenderOptions())
    assert not report.gain_reused and report.compliance is not None
    assert report.compliance.files[0] == measure(tmp_path / "out" / "mix.wav", "mix.wav")
