"""What makes a cached export fast, checked as behaviour: nothing unneeded is
loaded (voices' inference sessions, scipy), the master gain of an unchanged
programme is reused and gives the same files, an edit measures again, and the
numpy running minimum that replaced scipy's agrees with the definition."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.audio.limiter import sliding_min
from engine.export.compliance import measure
from engine.export.lines import synthesize_lines
from engine.export.mix_memo import MixMemo, staging_hint_key
from engine.export.render import RenderOptions, render_project
from engine.export.texts import TEXT_FILES, timed_lines
from engine.mixdown.memo import clip_identities
from engine.project.defaults import DEFAULT_TARGET_LUFS
from engine.project.fileformat import load_project, save_project
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import make_synthesizer
from engine.synth.wordmap import line_words, written_words
from tests.support.paths import REPO
from tests.support.projects import tiny_project


@pytest.fixture
def saved(tmp_path, tiny_voices):
    project = tiny_project(tiny_voices["single"])
    project.cast[0].effect = "telephone"
    project.master_effect = "broadcast"
    path = tmp_path / "tiny.radioplay"
    save_project(project, path)
    return path


def _render(path: Path, out: Path):  # type: ignore[no-untyped-def]
    project = load_project(path)
    return render_project(project, make_synthesizer(path, project.sample_rate), out, RenderOptions())


def test_an_unchanged_programme_reuses_its_master_gain_and_writes_the_same_mix(tmp_path, saved):
    first = _render(saved, tmp_path / "a")
    assert first.analysis_pass and not first.gain_reused
    second = _render(saved, tmp_path / "b")  # a new synthesizer: as a new process would
    assert second.gain_reused and not second.analysis_pass
    assert (second.gain_db, second.premix_lufs, second.predicted_lufs) == \
        (first.gain_db, first.premix_lufs, first.predicted_lufs)
    assert (tmp_path / "a" / "mix.wav").read_bytes() == (tmp_path / "b" / "mix.wav").read_bytes()
    # The compliance report's measurement of the mix is remembered too, and
    # is what measuring the file again gives.
    assert (tmp_path / "a" / "report.json").read_text() == (tmp_path / "b" / "report.json").read_text()
    assert second.compliance is not None
    assert second.compliance.files[0] == measure(tmp_path / "b" / "mix.wav", "mix.wav")


def _wavs(out: Path) -> dict[Path, bytes]:
    return {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*.wav"))}


def test_a_re_render_into_its_folder_keeps_the_same_audio_and_writes_what_changed_since(tmp_path, saved):
    out = tmp_path / "out"
    first = _render(saved, out)
    written, report = _wavs(out), (out / "report.json").read_text()
    texts = {name: (out / name).read_text() for name in TEXT_FILES}
    assert not first.audio_kept and {Path("mix.wav"), Path("dme/DX.wav")} <= set(written)
    second = _render(saved, out)
    assert second.audio_kept and second.gain_reused
    assert _wavs(out) == written and (out / "report.json").read_text() == report
    # The captions' word timings came from the memo this time: the same files.
    assert {name: (out / name).read_text() for name in TEXT_FILES} == texts
    assert (second.limiter_max_db, second.limiter_working_s) == (first.limiter_max_db, first.limiter_working_s)
    # A file saved over since (an editor, another tool) is not what the render wrote: written again.
    mix = out / "mix.wav"
    damaged = bytearray(mix.read_bytes())
    damaged[-1] ^= 0xFF
    mix.write_bytes(damaged)
    third = _render(saved, out)
    assert not third.audio_kept and _wavs(out) == written
    # The write pass itself (a new folder: nothing to keep) writes the same bytes.
    fourth = _render(saved, tmp_path / "other")
    assert not fourth.audio_kept and _wavs(tmp_path / "other") == written
    # An edit of the programme is another key: the folder's audio is not kept.
    project = load_project(saved)
    project.cast[1].gain_db += 6.0
    save_project(project, saved)
    edited = _render(saved, out)
    assert not edited.audio_kept and _wavs(out) != written


def test_remembered_word_timings_are_the_timed_ones_and_a_new_text_is_timed_again(tmp_path, saved):
    project = load_project(saved)
    synth = make_synthesizer(saved, project.sample_rate)
    render_project(project, synth, tmp_path / "a", RenderOptions())
    result = synthesize_lines(project, synth)
    fresh = {line.id: line_words(line.text, result.plans[line.id], synth.cache) for line in project.lines}
    memo = MixMemo(synth.cache.directory)
    assert timed_lines(project, synth, result, memo) == fresh and all(fresh.values())
    project.lines[0].text = "Another line entirely, with other words."
    edited = synthesize_lines(project, synth)
    again = timed_lines(project, synth, edited, memo)
    assert [w for w, _, _ in again[project.lines[0].id]] == [w for w, _, _ in written_words(project.lines[0].text)]
    assert {k: v for k, v in again.items() if k != project.lines[0].id} == \
        {k: v for k, v in fresh.items() if k != project.lines[0].id}


@pytest.mark.parametrize("measured", [True, False])
def test_a_wrong_levelling_hint_changes_nothing_a_render_writes(tmp_path, saved, measured):
    """The levelling an unchanged export plans its mix for first is a hint: wrong, or with the
    programme's gain forgotten (measured again from the estimate), the files are the same."""
    first = _render(saved, tmp_path / "a")
    written = _wavs(tmp_path / "a")
    project = load_project(saved)
    synth = make_synthesizer(saved, project.sample_rate)
    result = synthesize_lines(project, synth)
    memo = MixMemo(synth.cache.directory)
    hint = staging_hint_key(clip_identities(project, result), DEFAULT_TARGET_LUFS)
    memo.save_staging(hint, first.staging_db + 4.0)
    if not measured:
        for entry in (synth.cache.directory / "loudness").glob("*.json"):
            if "gain_db" in json.loads(entry.read_text()):
                entry.unlink()
    again = _render(saved, tmp_path / "b")
    assert again.gain_reused == measured and again.staging_db == first.staging_db
    assert _wavs(tmp_path / "b") == written


@pytest.mark.parametrize("edit", ["text", "gain", "effect", "mute"])
def test_an_edit_that_changes_the_programme_measures_it_again(tmp_path, saved, edit):
    _render(saved, tmp_path / "a")
    project = load_project(saved)
    if edit == "text":
        project.lines[0].text = "Something else entirely, said louder!"
    elif edit == "gain":
        project.cast[1].gain_db += 6.0
    elif edit == "effect":
        project.cast[1].effect = "radio"
    else:
        project.cast[2].mute = True
    save_project(project, saved)
    again = _render(saved, tmp_path / "b")
    assert not again.gain_reused and again.analysis_pass
    mix, rate = sf.read(tmp_path / "b" / "mix.wav")
    assert again.predicted_lufs == pytest.approx(-16.0, abs=0.05)


_PROBE = """
import json, sys
from engine.cli import main
code = main(["render", sys.argv[1], "-o", sys.argv[2]])
print(json.dumps({"code": code, "modules": sorted(m for m in sys.modules
                  if m.split(".")[0] in ("scipy", "onnx", "pyloudnorm", "soxr"))}))
"""


def test_a_cached_render_in_a_new_process_loads_no_model_and_no_scipy(tmp_path, saved):
    env = {**os.environ, "PYTHONPATH": str(REPO)}

    def run() -> dict[str, object]:
        done = subprocess.run([sys.executable, "-c", _PROBE, str(saved), str(tmp_path / "out")], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout.strip().splitlines()[-1]))

    cold = run()
    assert cold["code"] == 0 and "onnx" in cold["modules"]  # it voiced the lines: the model was loaded
    cached = run()
    # Voiced nothing: no inference session (onnx patches the model as the
    # sessions are made), no loudness analysis (scipy, pyloudnorm), no resampler.
    assert cached == {"code": 0, "modules": []}


def test_a_voice_loads_for_planning_without_its_sessions_and_fails_once_at_inference(tmp_path, tiny_voices):
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    (tmp_path / "broken.onnx.json").write_text(Path(f"{tiny_voices['single']}.json").read_text())
    project = tiny_project(broken)
    path = tmp_path / "broken.radioplay"
    save_project(project, path)
    synth = make_synthesizer(path, project.sample_rate)
    plan = synth.plan("Planning needs only the config.", project.cast[0].voice)
    from engine.synth.errors import VoiceError

    for _ in range(2):  # the same one-line error each time, not a retry per line
        with pytest.raises(VoiceError, match="cannot load voice model .*broken.onnx"):
            synth.infer(plan)


def test_voice_identities_are_kept_for_the_next_process(tmp_path, tiny_voices):
    file = tmp_path / "voice-identities.json"
    info = VoiceLibrary().resolve(str(tiny_voices["single"]))
    first = VoiceLibrary(identity_file=file).identity(info)
    assert first == VoiceLibrary().identity(info)  # the same hash as without the file
    stored = json.loads(file.read_text())
    assert list(stored.values()) == [first]
    # The next library reads it instead of hashing the model again.
    file.write_text(json.dumps({key: "remembered" for key in stored}))
    assert VoiceLibrary(identity_file=file).identity(info) == "remembered"
    # A changed config is another voice.
    config = Path(f"{tiny_voices['single']}.json")
    copy = tmp_path / "copy.onnx"
    copy.write_bytes(Path(tiny_voices["single"]).read_bytes())
    data = json.loads(config.read_text())
    data["inference"] = {**data.get("inference", {}), "noise_scale": 0.5}
    (tmp_path / "copy.onnx.json").write_text(json.dumps(data))
    assert VoiceLibrary(identity_file=file).identity(VoiceLibrary().resolve(str(copy))) != "remembered"


@pytest.mark.parametrize("window", [1, 2, 3, 64, 65, 241])
@pytest.mark.parametrize("n", [1, 64, 65, 1000, 8193])
def test_sliding_min_is_the_minimum_of_every_full_window(window, n):
    x = np.random.default_rng(window * n).standard_normal(n)
    expected = np.array([x[i:i + window].min() for i in range(n - window + 1)])
    np.testing.assert_array_equal(sliding_min(x, window), expected)


_STARTUP = """
import sys
from app.launch import main
try:
    main([sys.argv[1]])
except SystemExit:  # --version and --help exit from argparse
    pass
print("numpy" in sys.modules)
"""


@pytest.mark.parametrize("verb", ["voices", "--version", "--help"])
def test_listing_voices_the_version_and_the_help_do_not_load_numpy(verb):
    done = subprocess.run([sys.executable, "-c", _STARTUP, verb], env={**os.environ, "PYTHONPATH": str(REPO)},
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().splitlines()[-1] == "False", done.stdout + done.stderr


def test_a_recorded_take_that_changes_is_measured_again(tmp_path, saved):
    take = tmp_path / "take.wav"
    rng = np.random.default_rng(3)
    sf.write(take, (rng.standard_normal(48_000) * 0.05).astype(np.float32), 48_000)
    project = load_project(saved)
    project.lines[0].recording = str(take)
    save_project(project, saved)
    first = _render(saved, tmp_path / "a")
    assert not first.gain_reused
    assert _render(saved, tmp_path / "b").gain_reused  # the same take: the same programme
    # Another reading under the same file name is another programme.
    sf.write(take, (np.sin(np.arange(48_000) * 0.03) * 0.3).astype(np.float32), 48_000)  # as long: same layout
    assert not _render(saved, tmp_path / "c").gain_reused
