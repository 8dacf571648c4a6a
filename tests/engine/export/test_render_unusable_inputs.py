"""Issue 57, `radioplay render` with inputs that are no sound: a clip in the cache that is
empty or not finite is voiced again, never mixed (the old render mixed it and exited 0 with
a silent or half-silent mix, once reporting "every requirement passes"); a recorded take at
a device, at a path that leaves the folder, or holding NaN is one line naming the line and
the file, with nothing written (the old render ended in a RecordingError traceback).
The hostile files are generated here, never checked in."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.cli import main
from engine.export.compliance import FileMeter, Measurement, check
from engine.export.presets import preset_named
from engine.project.fileformat import load_project, save_project
from engine.synth.clipfolder import user_cache_dir
from tests.support.hostile import project_file


def _mix(out: Path) -> np.ndarray:
    audio, _ = sf.read(out / "mix.wav", dtype="float32")
    return np.asarray(audio)


@pytest.mark.parametrize("kind", ["empty", "nan", "one-nan", "inf"])
def test_a_spoiled_clip_in_the_cache_is_voiced_again_not_mixed(tmp_path: Path, tiny_voices, capsys, kind: str
                                                               ) -> None:
    path = project_file(tmp_path, tiny_voices["single"])
    assert main(["render", str(path), "-o", str(tmp_path / "first"), "--no-stems"]) == 0
    genuine = _mix(tmp_path / "first")
    clips = sorted(user_cache_dir().glob("*.npy"))
    assert len(clips) == 2  # the two lines
    for clip in clips:
        samples = np.load(clip)
        if kind == "empty":
            samples = samples[:0]
        elif kind == "nan":
            samples[samples.size // 2:] = np.nan
        elif kind == "one-nan":
            samples[samples.size // 3] = np.nan
        else:
            samples[11] = np.inf
        np.save(clip, samples)
    capsys.readouterr()
    assert main(["render", str(path), "-o", str(tmp_path / "second"), "--no-stems"]) == 0
    out = capsys.readouterr()
    assert "(2 synthesized, 0 from cache)" in out.out, out.out
    assert np.array_equal(_mix(tmp_path / "second"), genuine)  # the old render: silence where the clips were
    report = json.loads((tmp_path / "second" / "report.json").read_text())
    assert report["passed"] and all(f["nonfinite_samples"] == 0 for f in report["files"])
    for clip in clips:  # written anew, usable
        samples = np.load(clip)
        assert samples.size and np.isfinite(samples).all()


def test_a_mix_made_from_samples_that_are_not_finite_never_passes() -> None:
    """Whatever let NaN through to the mix (a DSP stage, a future input), the report says so:
    the PCM cast turns NaN into silence the loudness gate then ignores, so the file itself
    measures fine and the old report said "every requirement passes"."""
    rate = 48_000
    t = np.arange(rate * 4) / rate
    mix = np.repeat((0.1 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)[:, None], 2, axis=1)
    mix[rate:rate + 10] = np.nan
    written = np.nan_to_num(mix, nan=0.0)  # what a 24-bit file holds where the mix was NaN
    meter = FileMeter(rate, 2)
    for start in range(0, mix.shape[0], 4096):
        meter.feed(written[start:start + 4096], made_from=mix[start:start + 4096])
    measured = meter.result(Measurement("mix.wav", sample_rate=rate, channels=2, bit_depth=24))
    assert measured.nonfinite_samples == 20 and math.isfinite(measured.integrated_lufs)
    report = check(preset_named("custom", target_lufs=round(measured.integrated_lufs)), [measured], rate, 1)
    assert not report.passed
    assert "mix.wav samples not finite (NaN, infinity) 20 (limit 0)" in report.failures()
    clean = FileMeter(rate, 2)
    clean.feed(written[:rate])
    assert clean.result(Measurement("x.wav")).nonfinite_samples == 0


def _nan_wav(path: Path) -> str:
    samples = np.full(24_000, 0.1, dtype=np.float32)
    samples[100] = np.nan
    sf.write(path, samples, 48_000, subtype="FLOAT")
    return str(path)


@pytest.mark.parametrize(("take", "problem"), [
    (lambda tmp: "/dev/zero", "a device, not a regular file"),
    (lambda tmp: "../../etc/passwd", "file not found"),
    (lambda tmp: _nan_wav(tmp / "nan.wav"), "it holds samples that are not numbers (NaN or infinity)"),
], ids=["device", "outside", "nan"])
def test_a_recorded_take_that_cannot_be_used_is_one_line_naming_the_line(tmp_path: Path, tiny_voices, capsys, take,
                                                                          problem: str) -> None:
    path = project_file(tmp_path, tiny_voices["single"])
    project = load_project(path)
    project.lines[1].recording = take(tmp_path)
    save_project(project, path)
    recording = load_project(path).lines[1].recording
    out = tmp_path / "out"
    out.mkdir()
    sf.write(out / "mix.wav", np.zeros((480, 2), dtype=np.float32), 48000)  # an earlier render's mix
    earlier = (out / "mix.wav").read_bytes()
    assert main(["render", str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err == (f"radioplay: error: {path}: line 2 (L2, role BEN): recorded take {recording}: {problem}\n")
    # Nothing written, nothing replaced: refused before any line was voiced.
    assert sorted(p.name for p in out.iterdir()) == ["mix.wav"] and (out / "mix.wav").read_bytes() == earlier
    assert not list(user_cache_dir().glob("*.npy"))
