"""Synthesis on the tiny generated voices: real ONNX Runtime, real espeak-ng."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pyloudnorm
import pytest

from engine.project.model import VoiceParams
from engine.synth.cache import ClipCache
from engine.synth.errors import TextError, VoiceError, VoiceNotInstalled
from engine.synth.library import VoiceLibrary, read_voice_info
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.signals import dominant_hz
from tests.support.vowels import f0_median


def test_clip_is_at_project_rate_and_levelled(tiny_voices, tiny_synth):
    clip = tiny_synth.synthesize("Hello there. How are you?", VoiceParams(voice=str(tiny_voices["single"])))
    assert clip.dtype == np.float32 and clip.ndim == 1
    # Loudness-levelled to -23 LUFS before resampling, which keeps the level.
    assert pyloudnorm.Meter(48_000).integrated_loudness(clip.astype(np.float64)) == pytest.approx(-23.0, abs=0.3)
    # The tiny voice sings 220 Hz at 16 kHz; resampled to 48 kHz it stays 220 Hz.
    assert dominant_hz(clip, 48_000) == pytest.approx(220, rel=0.03)


def test_two_sentences_are_joined_with_a_pause(tiny_voices, tiny_synth):
    voice = VoiceParams(voice=str(tiny_voices["single"]), variation=1.0)
    one = tiny_synth.synthesize("Hello there.", voice)
    two = tiny_synth.synthesize("Hello there. Hello there.", voice)
    # Two sentences plus a sentence pause (0.28 s), minus nothing else.
    assert two.size / 48_000 == pytest.approx(2 * one.size / 48_000 + 0.28, abs=0.05)
    mid = two[one.size + 2000: one.size + int(0.28 * 48_000) - 2000]
    assert np.max(np.abs(mid)) < 1e-6


def test_speed_changes_length(tiny_voices, tiny_synth):
    text = "A line long enough to measure how speed changes its length."
    normal = tiny_synth.synthesize(text, VoiceParams(voice=str(tiny_voices["single"])))
    slow = tiny_synth.synthesize(text, VoiceParams(voice=str(tiny_voices["single"]), speed=0.5))
    assert slow.size == pytest.approx(2 * normal.size, rel=0.05)


def test_multi_speaker_by_name_and_id(tiny_voices, tiny_synth):
    voice = str(tiny_voices["multi"])
    alice = tiny_synth.synthesize("Hello there.", VoiceParams(voice=voice, speaker="alice"))
    bob = tiny_synth.synthesize("Hello there.", VoiceParams(voice=voice, speaker=1))
    assert dominant_hz(alice, 48_000) == pytest.approx(220, rel=0.03)
    assert dominant_hz(bob, 48_000) == pytest.approx(330, rel=0.03)


def test_pitch_shift_is_applied(tiny_voices, tiny_synth):
    # Praat's pitch, not the spectrum's peak: PSOLA raises a pure tone's period (the tiny
    # voice speaks a 220 Hz sine) by re-laying its cycles, which leaves a pure tone's
    # energy spread over the new period's harmonics rather than in one peak.
    up = tiny_synth.synthesize("Hello there, how are you?", VoiceParams(voice=str(tiny_voices["single"]), pitch=12))
    assert f0_median(up, 48_000) == pytest.approx(440, rel=0.05)


@pytest.mark.parametrize("speaker, message", [("dave", "no speaker 'dave'"), (7, "speakers 0..2, not 7")])
def test_unknown_speaker_is_named(tiny_voices, tiny_synth, speaker, message):
    with pytest.raises(VoiceError, match=message):
        tiny_synth.plan("Hello.", VoiceParams(voice=str(tiny_voices["multi"]), speaker=speaker))


@pytest.mark.parametrize("text", ["", "   \n", "😀 🎭", "<b></b> [laughs]"])
def test_unspeakable_text_is_an_error_not_silence(tiny_voices, tiny_synth, text):
    with pytest.raises(TextError):
        tiny_synth.synthesize(text, VoiceParams(voice=str(tiny_voices["single"])))


def test_missing_and_broken_voice_files_are_named(tmp_path, tiny_voices, tiny_synth):
    with pytest.raises(VoiceError, match="voice model not found: .*nowhere.onnx"):
        tiny_synth.plan("Hello.", VoiceParams(voice=str(tmp_path / "nowhere.onnx")))
    lonely = tmp_path / "lonely.onnx"
    shutil.copy(tiny_voices["single"], lonely)
    with pytest.raises(VoiceError, match="voice config not found: .*lonely.onnx.json"):
        tiny_synth.plan("Hello.", VoiceParams(voice=str(lonely)))
    (tmp_path / "lonely.onnx.json").write_text("{not json")
    with pytest.raises(VoiceError, match="unreadable voice config .*lonely.onnx.json"):
        tiny_synth.plan("Hello.", VoiceParams(voice=str(lonely)))
    with pytest.raises(VoiceNotInstalled, match="voice en_GB-nobody is not installed: get it with Voices > Get "
                                                "Voices or `radioplay voices --download en_GB-nobody`"):
        tiny_synth.plan("Hello.", VoiceParams(voice="en_GB-nobody"))


def test_cache_serves_repeats_and_survives_restart(tmp_path, tiny_voices):
    voice = VoiceParams(voice=str(tiny_voices["single"]))
    first = ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache(tmp_path / "c"))
    a = first.synthesize("Hello there.", voice)
    first.synthesize("Hello there.", voice)
    assert first.synth_calls == 1
    second = ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache(tmp_path / "c"))
    b = second.synthesize("Hello there.", voice)
    assert second.synth_calls == 0
    np.testing.assert_array_equal(a, b)
    # A changed voice file is a different voice: its clips are not reused.
    copy = tmp_path / "copy.onnx"
    shutil.copy(tiny_voices["single"], copy)
    config = Path(f"{tiny_voices['single']}.json").read_text().replace('"noise_scale": 0.667', '"noise_scale": 0.5')
    Path(f"{copy}.json").write_text(config)
    second.synthesize("Hello there.", VoiceParams(voice=str(copy)))
    assert second.synth_calls == 1


def test_user_voice_folder_is_listed(tmp_path, tiny_voices, monkeypatch):
    folder = tmp_path / "voices"
    folder.mkdir()
    for suffix in ("", ".json"):
        shutil.copy(f"{tiny_voices['multi']}{suffix}", folder / f"tiny-multi.onnx{suffix}")
    (folder / "broken.onnx").write_bytes(b"x")
    library = VoiceLibrary(user_dir=folder)
    ids = [v.id for v in library.all()]
    assert "tiny-multi" in ids
    assert library.resolve("tiny-multi").speakers == {"alice": 0, "bob": 1, "carol": 2}
    assert [p.name for p, _ in library.broken_user_voices()] == ["broken.onnx"]
    info = read_voice_info(folder / "tiny-multi.onnx")
    assert (info.sample_rate, info.num_speakers) == (16_000, 3)


def test_a_clip_shifted_beside_others_is_the_same_samples_as_shifted_alone():
    """A take is the same samples however it was shaped: in a full render's
    group of a role's clips, alone after an edit, or on a render-farm actor."""
    from engine.synth.shaping import pitch_shift

    rate = 22_050

    def burst(seconds: float, hz: float) -> np.ndarray:
        t = np.arange(int(seconds * rate)) / rate
        x = (0.5 * np.sin(2 * np.pi * hz * t)).astype(np.float32)
        x[: int(0.1 * rate)] = 0
        x[-int(0.1 * rate):] = 0
        return x

    clips = [burst(1.0, 200), burst(2.3, 300), burst(0.6, 250)]
    batched = [pitch_shift(clip.copy(), rate, 4.0) for clip in clips]
    for clip, out in zip(clips, batched, strict=True):
        assert out.shape == clip.shape
        np.testing.assert_array_equal(out, pitch_shift(clip, rate, 4.0))
        # And the pitch really moved: +4 semitones.
        assert dominant_hz(out, rate) == pytest.approx(dominant_hz(clip, rate) * 2 ** (4 / 12), rel=0.04)


def test_lines_are_levelled_by_loudness_not_peak():
    """A line with a loud spike and a plain line end at the same loudness;
    a line too short to measure falls back to a -1 dBFS peak."""
    from engine.synth.shaping import level_loudness

    rate = 22_050
    t = np.arange(3 * rate) / rate
    plain = (0.1 * np.sin(2 * np.pi * 200 * t)).astype(np.float32)
    spiky = plain.copy()
    spiky[rate: rate + 200] = 0.9  # a plosive
    meter = pyloudnorm.Meter(rate)
    for line in (plain, spiky):
        assert meter.integrated_loudness(level_loudness(line.copy(), rate).astype(np.float64)) == \
            pytest.approx(-23.0, abs=0.1)
    short = (0.2 * np.sin(2 * np.pi * 200 * t[: rate // 5])).astype(np.float32)
    assert np.max(np.abs(level_loudness(short.copy(), rate))) == pytest.approx(10 ** (-1 / 20), rel=1e-5)
