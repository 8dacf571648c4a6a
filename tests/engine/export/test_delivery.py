"""Delivery presets end to end on tiny voices: the files each preset writes,
measured by an independent meter (pyloudnorm on the files as libsndfile
decodes them, peaks and RMS in numpy), their tags and chapters read back
with mutagen, and report.json / the exit status agreeing with them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import mutagen
import numpy as np
import pyloudnorm
import pytest
import soundfile as sf
import soxr

from engine.cli import main
from engine.export.encoders import read_bext
from engine.export.presets import PRESETS, preset_named
from engine.export.render import RenderOptions, render_project
from engine.project.fileformat import load_project, save_project
from engine.project.model import Scene
from engine.synth.cache import ClipCache, cache_dir_for
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.projects import tiny_project

HOSTILE_HEADING = "../../The Hall/..\\CON"


@pytest.fixture
def two_scenes(tmp_path, tiny_voices):
    """Six lines in two scenes; the second heading tries to leave the folder."""
    project = tiny_project(tiny_voices["single"])
    project.scenes.append(Scene("S2", HOSTILE_HEADING))
    for line in project.lines[3:]:
        line.scene = "S2"
    path = tmp_path / "two.radioplay"
    save_project(project, path)
    return path


def _synth(path: Path) -> ClipSynthesizer:
    return ClipSynthesizer(VoiceLibrary(base_dir=path.parent), 48_000, ClipCache(cache_dir_for(path)))


def _render(path: Path, out: Path, preset: str, **overrides: object):
    options = RenderOptions(preset=preset_named(preset, **overrides), stems=False)
    return render_project(load_project(path), _synth(path), out, options)


def _true_peak_db(audio: np.ndarray, rate: int) -> float:
    up = soxr.resample(audio, rate, rate * 4)
    return 20 * math.log10(float(np.max(np.abs(up))))


def _db(x: float) -> float:
    return 20 * math.log10(x) if x > 0 else -math.inf


def test_presets_are_one_named_value_and_flags_override_single_values():
    acx = PRESETS["acx"]
    assert (acx.container, acx.sample_rate, acx.bitrate_kbps, acx.vbr, acx.per_scene) == ("mp3", 44_100, 192, False, True)
    assert acx.rms_range == (-23.0, -18.0) and acx.sample_peak_max == -3.0 and acx.noise_floor_max == -60.0
    assert PRESETS["podcast"].target_lufs == -16.0 and PRESETS["ebu-r128"].target_lufs == -23.0
    podcast = preset_named("podcast", target_lufs=-18.0, bitrate_kbps=None)
    assert podcast.target_lufs == -18.0 and podcast.bitrate_kbps == 128  # None leaves the preset's value
    with pytest.raises(ValueError, match="unknown preset 'spotify'"):
        preset_named("spotify")
    with pytest.raises(ValueError, match="MP3 needs a sample rate of 32000, 44100, 48000 Hz, not 22050"):
        preset_named("acx", sample_rate=22_050)
    with pytest.raises(ValueError, match="bit depth 32 is not possible in flac"):
        preset_named("custom", container="flac", bit_depth=32)


def test_podcast_mp3_measures_on_target_with_a_chapter_per_scene(tmp_path, two_scenes):
    report = _render(two_scenes, tmp_path / "out", "podcast")
    mp3 = tmp_path / "out" / "mix.mp3"
    audio, rate = sf.read(mp3, dtype="float32")  # libsndfile's decoder, not the product's (PyAV)
    assert rate == 44_100
    loudness = pyloudnorm.Meter(rate).integrated_loudness(audio)
    assert -17.0 <= loudness <= -15.0
    assert _true_peak_db(audio, rate) <= -1.0
    media = mutagen.File(mp3)
    assert round(media.info.bitrate / 1000) == 128 and "CBR" in str(media.info.bitrate_mode)
    chapters = sorted((media.tags[k].start_time, media.tags[k].sub_frames["TIT2"].text[0])
                      for k in media.tags if k.startswith("CHAP:"))
    assert [t for _, t in chapters] == ["A room", HOSTILE_HEADING]
    cues = json.loads((tmp_path / "out" / "cues.json").read_text())["cues"]
    second = min(c["start"] for c in cues if c["id"] in {"L0004", "L0005", "L0006"})
    assert chapters[0][0] == 0 and second * 1000 - 500 <= chapters[1][0] <= second * 1000
    assert media.tags["TIT2"].text == ["Tiny"]
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert data["preset"] == "podcast" and data["passed"] is True and report.compliance.passed
    measured = {r["requirement"]: r["measured"] for r in data["requirements"] if r["file"] == "mix.mp3"}
    assert abs(measured["integrated loudness"] - loudness) < 0.2
    assert measured["chapters"] == 2


def test_acx_writes_one_levelled_mp3_per_scene_with_room_tone(tmp_path, two_scenes):
    report = _render(two_scenes, tmp_path / "out", "acx")
    files = sorted((tmp_path / "out" / "chapters").iterdir())
    assert [f.name for f in files] == ["01_A_room.mp3", "02_The_Hall_CON.mp3"]  # numbered, inside the folder
    for file in files:
        audio, rate = sf.read(file, dtype="float32")
        media = mutagen.File(file)
        assert rate == 44_100 and round(media.info.bitrate / 1000) == 192 and "CBR" in str(media.info.bitrate_mode)
        rms = _db(float(np.sqrt(np.mean(np.square(audio, dtype=np.float64)))))
        assert -23.0 <= rms <= -18.0 and abs(rms - -20.0) < 0.5
        assert _db(float(np.max(np.abs(audio)))) <= -3.0
        # Room tone: 10 ms windows under -50 dBFS from each end, quiet but not digital silence.
        windows = np.sqrt(np.mean(np.square(audio[: len(audio) // 441 * 441].reshape(-1, 441, 2)), axis=(1, 2)))
        loud = np.flatnonzero(20 * np.log10(np.maximum(windows, 1e-12)) > -50)
        head, tail = loud[0] * 0.01, (len(windows) - loud[-1] - 1) * 0.01
        assert 0.5 <= head <= 1.0 and 1.0 <= tail <= 5.0
        floor = _db(float(np.sqrt(np.mean(np.square(audio[: int(0.4 * rate)], dtype=np.float64)))))
        assert -75.0 < floor <= -60.0
    assert report.compliance.passed
    rows = json.loads((tmp_path / "out" / "report.json").read_text())["requirements"]
    assert {r["requirement"] for r in rows} >= {"RMS", "peak", "noise floor", "room tone at head",
                                                "room tone at tail", "sample rate", "bitrate", "files"}
    assert all(r["passed"] for r in rows)


def test_ebu_r128_is_a_broadcast_wav_with_its_bext_chunk(tmp_path, two_scenes):
    _render(two_scenes, tmp_path / "out", "ebu-r128")
    wav = tmp_path / "out" / "mix.wav"
    info = sf.info(wav)
    assert (info.samplerate, info.subtype, info.channels) == (48_000, "PCM_24", 2)
    audio, rate = sf.read(wav, dtype="float32")
    assert abs(pyloudnorm.Meter(rate).integrated_loudness(audio) - -23.0) <= 0.5
    assert _true_peak_db(audio, rate) <= -1.0
    bext = read_bext(wav)
    assert bext["originator"] == "Radioplay" and bext["description"] == "Tiny" and bext["version"] == 2
    assert len(bext["origination_date"]) == 10 and len(bext["origination_time"]) == 8
    assert bext["time_reference"] == 0 and abs(bext["loudness_value"] - -23.0) <= 0.5


def test_flac_and_m4b_with_chapters_title_author_and_cover(tmp_path, two_scenes):
    _render(two_scenes, tmp_path / "flac", "custom", container="flac", bit_depth=16, sample_rate=44_100)
    info = sf.info(tmp_path / "flac" / "mix.flac")
    assert (info.format, info.subtype, info.samplerate) == ("FLAC", "PCM_16", 44_100)

    from engine.export.encoders import Tags

    cover = b"\x89PNG\r\n\x1a\n" + bytes(64)
    options = RenderOptions(preset=preset_named("custom", container="m4b", bitrate_kbps=64, sample_rate=44_100),
                            stems=False, tags=Tags(author="A. Writer", cover=cover))
    report = render_project(load_project(two_scenes), _synth(two_scenes), tmp_path / "m4b", options)
    media = mutagen.File(tmp_path / "m4b" / "mix.m4b")
    assert media.tags["©nam"] == ["Tiny"] and media.tags["©ART"] == ["A. Writer"]
    assert bytes(media.tags["covr"][0]) == cover
    assert [c.title for c in media.chapters] == ["A room", HOSTILE_HEADING]
    assert report.compliance.passed, report.compliance.table()


def test_cli_prints_the_table_and_fails_when_a_requirement_fails(tmp_path, two_scenes, capsys):
    assert main(["render", str(two_scenes), "-o", str(tmp_path / "ok"), "--preset", "podcast", "--no-stems"]) == 0
    out = capsys.readouterr().out
    assert "integrated loudness" in out and "Preset podcast: every requirement passes" in out
    # -3 LUFS under a -1 dBTP ceiling is out of reach for speech: the report says so and the exit status too.
    assert main(["render", str(two_scenes), "-o", str(tmp_path / "loud"), "--preset", "podcast",
                 "--target-lufs", "-3", "--no-stems"]) == 1
    captured = capsys.readouterr()
    assert "FAIL" in captured.out and "does not meet the podcast preset" in captured.err
    # One line saying what was missed, by how much, where the whole report is.
    error = captured.err.strip()
    assert "\n" not in error and "integrated loudness" in error and "LUFS" in error and "report.json" in error
    data = json.loads((tmp_path / "loud" / "report.json").read_text())
    assert data["passed"] is False and data["spec"]["target_lufs"] == -3.0
    assert main(["render", str(two_scenes), "-o", str(tmp_path / "x"), "--preset", "acx",
                 "--sample-rate", "22050"]) == 1
    assert "MP3 needs a sample rate" in capsys.readouterr().err


def test_a_plain_render_that_misses_the_loudness_target_stands_with_a_warning(tmp_path, two_scenes, capsys):
    # No --preset: no delivery spec was asked for, so the files are the result and the run
    # succeeds; the report still shows the miss, and one warning line says so.
    assert main(["render", str(two_scenes), "-o", str(tmp_path / "loud"), "--target-lufs", "-3",
                 "--no-stems"]) == 0
    captured = capsys.readouterr()
    assert "FAIL" in captured.out and (tmp_path / "loud" / "mix.wav").is_file()
    warning = [line for line in captured.err.splitlines() if "integrated loudness" in line]
    assert len(warning) == 1 and warning[0].startswith("radioplay: warning:") and "--preset" in warning[0]
    assert json.loads((tmp_path / "loud" / "report.json").read_text())["passed"] is False


def test_broadcast_stem_names_name_title_stem_channels_rate_and_bits(tmp_path, two_scenes, capsys):
    project = load_project(two_scenes)
    project.title = "../The Long Night"  # a title from the user's file never leaves the folder
    save_project(project, two_scenes)
    plain = tmp_path / "plain"
    assert main(["render", str(two_scenes), "-o", str(plain)]) == 0
    out = tmp_path / "bc"
    assert main(["render", str(two_scenes), "-o", str(out), "--stem-names", "broadcast"]) == 0
    capsys.readouterr()
    roles = [r.name for r in project.cast]
    assert sorted(p.name for p in (out / "stems").iterdir()) == sorted(
        f"The_Long_Night_{role}STEM_2ch_48k_32b.wav" for role in roles)
    # No sound lanes: DX alone (an FX or MX stem would be silence).
    assert sorted(p.name for p in (out / "dme").iterdir()) == ["The_Long_Night_DXSTEM_2ch_48k_32b.wav"]
    # The same audio as the plain names: only the names differ.
    pairs = [("dme/DX.wav", "dme/The_Long_Night_DXSTEM_2ch_48k_32b.wav")]
    pairs += [(f"stems/{r}.wav", f"stems/The_Long_Night_{r}STEM_2ch_48k_32b.wav") for r in roles]
    for a, b in pairs:
        audio_a, rate = sf.read(plain / a, dtype="float32")
        audio_b, _ = sf.read(out / b, dtype="float32")
        assert rate == 48_000 and audio_b.shape[1] == 2 and np.array_equal(audio_a, audio_b)
    assert np.abs(sf.read(out / pairs[0][1], dtype="float32")[0]).max() > 0.01  # DX holds the dialogue
    assert not (out / "stems" / "DX.wav").exists() and [p for p in tmp_path.rglob("*STEM*")
                                                       if out not in p.parents] == []


@pytest.mark.parametrize("frames", [1, 64, 65_536, 65_537, 200_001])
def test_levelling_limits_in_blocks_exactly_as_in_one_piece(frames):
    from engine.audio.limiter import LookaheadLimiter
    from engine.export.delivery import _limit

    x = (np.random.default_rng(frames).standard_normal((frames, 2)) * 0.5).astype(np.float32)
    whole = LookaheadLimiter(48_000, -3.0, channels=2)
    expected = np.concatenate([whole.process(x * np.float32(10 ** (2 / 20))), whole.flush()])
    np.testing.assert_array_equal(_limit(x, 48_000, -3.0, gain_db=2.0)[0],
                                  expected[whole.latency:whole.latency + frames])
