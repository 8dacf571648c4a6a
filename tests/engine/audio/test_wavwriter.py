"""The sparse WAV writer: classic WAV up to 4 GiB, RF64 chosen up front past it."""

from __future__ import annotations

import numpy as np
import pytest
import soundfile as sf

from engine.audio.wavwriter import RIFF_MAX_DATA, SparseWavWriter, needs_rf64

HOUR = 3600 * 48_000


def test_rf64_is_chosen_from_the_length_the_format_and_the_channels() -> None:
    # A RIFF file holds 4 GiB: about 4.1 h of 24-bit stereo and 3.1 h of float stereo at 48 kHz.
    assert not needs_rf64(int(4.1 * HOUR), 2, "PCM_24")
    assert needs_rf64(int(4.2 * HOUR), 2, "PCM_24")
    assert not needs_rf64(int(3.0 * HOUR), 2, "FLOAT")
    assert needs_rf64(int(3.2 * HOUR), 2, "FLOAT")
    assert not needs_rf64(int(6.0 * HOUR), 1, "FLOAT")
    edge = RIFF_MAX_DATA // 6
    assert not needs_rf64(edge, 2, "PCM_24") and needs_rf64(edge + 1, 2, "PCM_24")


@pytest.mark.parametrize("subtype", ["PCM_24", "FLOAT"])
def test_a_file_past_the_limit_is_written_as_rf64_and_reads_back(tmp_path, subtype) -> None:
    rng = np.random.default_rng(4)
    audio = (rng.random((3000, 2), dtype=np.float32) - 0.5).astype(np.float32)
    audio[1000:2200] = 0.0  # a hole in the middle and one at the end
    audio[2900:] = 0.0
    path = tmp_path / "long.wav"
    # The threshold is the writer's parameter: 100 bytes stands in for 4 GiB.
    with SparseWavWriter(path, 48_000, 2, subtype, frames_hint=3000, riff_limit=100) as writer:
        for start in range(0, 3000, 700):
            writer.write(audio[start:start + 700])
    info = sf.info(path)
    assert (info.format, info.subtype, info.frames, info.channels) == ("RF64", subtype, 3000, 2)
    back, rate = sf.read(path, dtype="float32")
    assert rate == 48_000
    np.testing.assert_allclose(back, audio, atol=2 ** -23 if subtype == "PCM_24" else 0)


def test_a_file_within_the_limit_stays_classic_wav(tmp_path) -> None:
    path = tmp_path / "short.wav"
    with SparseWavWriter(path, 48_000, 2, "FLOAT", frames_hint=100) as writer:
        writer.write(np.full((100, 2), 0.25, dtype=np.float32))
    assert sf.info(path).format == "WAV"


def test_without_a_length_passing_the_limit_is_an_error_not_a_torn_file(tmp_path) -> None:
    path = tmp_path / "x.wav"
    with SparseWavWriter(path, 48_000, 2, "FLOAT", riff_limit=800) as writer:
        writer.write(np.zeros((100, 2), dtype=np.float32))
        with pytest.raises(OSError, match="4 GiB"):
            writer.write(np.zeros((100, 2), dtype=np.float32))


@pytest.mark.parametrize("subtype", ["PCM_24", "FLOAT"])
def test_silence_told_by_its_length_writes_the_bytes_of_written_zeros(tmp_path, subtype) -> None:
    rng = np.random.default_rng(9)
    loud = (rng.random((500, 2), dtype=np.float32) - 0.5) * 3.0  # past full scale: 24-bit clips
    zeros = np.zeros((700, 2), dtype=np.float32)
    with SparseWavWriter(tmp_path / "a.wav", 48_000, 2, subtype) as a, \
            SparseWavWriter(tmp_path / "b.wav", 48_000, 2, subtype) as b:
        for block in (loud, zeros, loud, zeros):  # a hole between and one at the end
            a.write(block)
            if block.any():
                b.write(block)
            else:
                b.write_silence(block.shape[0])
    assert (tmp_path / "a.wav").read_bytes() == (tmp_path / "b.wav").read_bytes()
    back, _ = sf.read(tmp_path / "b.wav", dtype="float32")
    assert back.shape == (2400, 2) and not back[500:1200].any() and not back[1700:].any()
    expected = np.clip(loud, -1.0, 8388607 / 8388608) if subtype == "PCM_24" else loud
    np.testing.assert_allclose(back[:500], expected, atol=1.0 / 8388608 if subtype == "PCM_24" else 0)
