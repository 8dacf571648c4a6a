"""Offline render end to end: tiny voices for the fast checks, the real
bundled voice and the bundled sample for the integration checks."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import numpy as np
import pyloudnorm
import pytest
import soundfile as sf

from engine.audio.effects import LIMITER_CEILING_DB, MasterChain, lane_chain
from engine.audio.loudness import true_peak_dbtp
from engine.cli import main
from engine.export.render import RenderOptions, render_project, stem_filename
from engine.export.session_render import render_session
from engine.project.defaults import DEFAULT_VOICE
from engine.project.fileformat import load_project, save_project
from engine.project.model import VoiceParams
from engine.project.starting_voices import starting_voice
from engine.synth.cache import cache_dir_for
from engine.synth.pipeline import Cancelled, LineErrors, plan_lines
from engine.synth.synthesizer import make_synthesizer
from tests.support.paths import SAMPLE, SAMPLES
from tests.support.projects import tiny_project
from tests.support.render import synth_for
from tests.support.sample_clips import copy_sample_clips

_STAMP = r"(\d\d):(\d\d):(\d\d)[.,](\d\d\d)"


def _seconds(h: str, m: str, s: str, ms: str) -> float:
    return int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000


def parse_captions(text: str) -> list[tuple[float, float, str]]:
    cues = []
    for match in re.finditer(rf"{_STAMP} --> {_STAMP}\n(.+)", text):
        g = match.groups()
        cues.append((_seconds(*g[0:4]), _seconds(*g[4:8]), g[8]))
    return cues




def through_master_chain(summed_stems: np.ndarray, rate: int, master_effect: str, gain_db: float) -> np.ndarray:
    """What mix.wav must be: the project's master chain on the sum of the stems
    (which carry the master gain already), its look-ahead delay dropped."""
    chain = MasterChain(master_effect, rate, gain_db)
    block = 8192
    out = [chain.process(summed_stems[i:i + block]) for i in range(0, summed_stems.shape[0], block)]
    return np.concatenate([*out, chain.flush()])[chain.latency:]


# --- fast checks on tiny voices ------------------------------------------------


@pytest.fixture
def tiny_saved(tmp_path, tiny_voices):
    project = tiny_project(tiny_voices["single"])
    path = tmp_path / "tiny.radioplay"
    save_project(project, path)
    return path


def test_edit_one_line_resynthesizes_only_that_line(tmp_path, tiny_saved):
    project = load_project(tiny_saved)
    first = synth_for(tiny_saved)
    render_project(project, first, tmp_path / "a")
    assert first.synth_calls == len(project.lines)

    project.lines[2].text = "A completely different line."
    again = synth_for(tiny_saved)
    report = render_project(project, again, tmp_path / "b")
    assert again.synth_calls == 1
    assert (report.synthesized, report.cached) == (1, len(project.lines) - 1)


def test_recasting_a_role_resynthesizes_only_its_lines(tmp_path, tiny_saved):
    project = load_project(tiny_saved)
    render_project(project, synth_for(tiny_saved), tmp_path / "a")
    role = project.cast[1]
    role.voice = role.voice.with_changes(pitch=-4.0)
    synth = synth_for(tiny_saved)
    render_project(project, synth, tmp_path / "b")
    assert synth.synth_calls == sum(1 for line in project.lines if line.role == role.name)

    # Mix settings never touch synthesis.
    role.gain_db, role.pan, project.cast[0].mute = -6.0, 0.8, True
    synth = synth_for(tiny_saved)
    render_project(project, synth, tmp_path / "c")
    assert synth.synth_calls == 0


def test_render_releases_its_pins_and_reservations(tmp_path, tiny_saved):
    project = load_project(tiny_saved)
    synth = synth_for(tiny_saved)
    report = render_project(project, synth, tmp_path / "out")
    stats = synth.cache.store.stats()
    assert stats.pinned == 0 and stats.reserved == 0 and stats.entries == len(project.lines)
    assert report.prediction_observations == len(project.lines)


def test_muted_role_stem_is_silent_and_absent_from_mix(tmp_path, tiny_saved):
    project = load_project(tiny_saved)
    project.cast[0].mute = True
    report = render_project(project, synth_for(tiny_saved), tmp_path / "out", RenderOptions(format="wav32f"))
    muted, _ = sf.read(report.outdir / "stems" / stem_filename("ROLE0"))
    assert np.max(np.abs(muted)) == 0.0
    loud, _ = sf.read(report.outdir / "stems" / stem_filename("ROLE1"))
    assert np.max(np.abs(loud)) > 0.05


def test_bad_lines_are_all_reported_with_line_and_role(tmp_path, tiny_saved):
    project = load_project(tiny_saved)
    project.lines[1].text = "   "
    project.lines[4].text = "🎭"
    with pytest.raises(LineErrors) as caught:
        render_project(project, synth_for(tiny_saved), tmp_path / "out")
    assert caught.value.problems == [
        "line 2 (L0002, role ROLE1): text is empty",
        "line 5 (L0005, role ROLE1): nothing speakable in '🎭' (only markup, emoji or punctuation)",
    ]
    assert not (tmp_path / "out").exists()


def test_cancelled_render_leaves_no_files_under_final_names(tmp_path, tiny_saved):
    project = load_project(tiny_saved)
    cancel = threading.Event()

    def progress(stage: str, done: int, total: int) -> None:
        if stage == "writing" and done == 2:
            cancel.set()

    out = tmp_path / "out"
    with pytest.raises(Cancelled):
        render_project(project, synth_for(tiny_saved), out, RenderOptions(block=1024), progress, cancel)
    leftovers = sorted(p.name for p in out.rglob("*") if p.is_file())
    assert leftovers == []


def test_a_damaged_cached_clip_is_voiced_again_and_counted_as_voiced(tmp_path, tiny_saved, capsys):
    assert main(["render", str(tiny_saved), "-o", str(tmp_path / "a")]) == 0
    capsys.readouterr()
    synth = make_synthesizer(tiny_saved, 48_000)  # what the command uses
    assert synth.cache.directory is not None
    damaged = sorted(synth.cache.directory.glob("*.npy"))[0]
    damaged.write_bytes(damaged.read_bytes()[:200])  # cut short: its header promises more
    report = render_project(load_project(tiny_saved), synth, tmp_path / "b")
    assert synth.synth_calls == 1
    assert (report.synthesized, report.cached) == (1, 5) and report.audio_seconds_synthesized > 0
    damaged.write_bytes(b"not a clip")
    assert main(["render", str(tiny_saved), "-o", str(tmp_path / "c")]) == 0
    assert "1 synthesized, 5 from cache" in capsys.readouterr().out


def test_progress_names_each_stage_and_never_reads_0_of_0(tmp_path, tiny_saved):
    project = load_project(tiny_saved)
    render_project(project, synth_for(tiny_saved), tmp_path / "a")  # everything cached from here on
    project.cast[0].effect = "room"  # an effects pass: the analysis is a real pass over the mix
    seen: list[tuple[str, int, int]] = []
    render_project(project, synth_for(tiny_saved), tmp_path / "b", RenderOptions(block=1024),
                   lambda stage, done, total: seen.append((stage, done, total)))
    stages = [s for s, _, _ in seen]
    assert "synthesizing" not in stages and all(total > 0 for _, _, total in seen)
    assert list(dict.fromkeys(stages)) == ["analysing", "writing", "finishing"]
    for stage in ("analysing", "writing", "finishing"):
        steps = [(d, t) for s, d, t in seen if s == stage]
        assert steps[-1][0] == steps[-1][1] and [d for d, _ in steps] == sorted(d for d, _ in steps)
    assert len([s for s in stages if s == "analysing"]) > 10  # real progress, block by block


@pytest.mark.parametrize("effect", ["none", "room"])
def test_the_transport_and_the_export_agree_on_the_length(tmp_path, tiny_saved, effect):
    """One length, tails included (the mix was 52.83 s while the transport said 0:52.3)."""
    from engine.audio.sinks import NullSink
    from engine.session import LineState, Session

    project = load_project(tiny_saved)
    project.cast[1].effect = effect  # the room's reverb rings longer than the release tail
    with Session(project, tiny_saved, sink=NullSink(48_000, speed=4.0), synth=synth_for(tiny_saved)) as session:
        deadline = time.monotonic() + 60
        while {s.state for s in session.line_status().values()} != {LineState.READY}:
            assert time.monotonic() < deadline, "every line voiced"
            time.sleep(0.05)
        shown = session.transport().duration_s
        report = render_session(session, tmp_path / "out")
    info = sf.info(report.outdir / "mix.wav")
    assert report.duration_s == pytest.approx(info.frames / info.samplerate, abs=1e-9)
    assert shown == pytest.approx(report.duration_s, abs=1 / 48_000)


def test_stems_stay_under_full_scale_and_sum_to_the_pre_limiter_mix(tmp_path, tiny_saved):
    """Even at a loud target the dialogue leveller keeps every stem under
    0 dBFS (float stems, so a DAW sees the level as mixed), and mix.wav is
    still the master chain on their sum."""
    project = load_project(tiny_saved)
    report = render_project(project, synth_for(tiny_saved), tmp_path / "out", RenderOptions(target_lufs=-9.0))
    stems = [sf.read(report.outdir / "stems" / stem_filename(r.name), dtype="float32")[0] for r in project.cast]
    assert all(sf.info(report.outdir / "stems" / stem_filename(r.name)).subtype == "FLOAT" for r in project.cast)
    assert all(np.max(np.abs(stem)) < 1.0 for stem in stems)
    total = sum(stems)
    mix, rate = sf.read(report.outdir / "mix.wav", dtype="float32")
    assert np.max(np.abs(mix)) <= 10 ** (LIMITER_CEILING_DB / 20) + 1e-3
    expected = through_master_chain(total, rate, project.master_effect, report.gain_db)
    np.testing.assert_allclose(mix, expected, atol=2e-7 + 2 ** -23)  # 24-bit master


def _tiny_with_effects(tiny_saved: Path):  # type: ignore[no-untyped-def]
    project = load_project(tiny_saved)
    project.cast[0].effect = "telephone"
    project.cast[1].effect = "room"
    project.cast[2].gain_db = 8.0  # loud enough for the broadcast compressor to work
    project.master_effect = "broadcast"
    return project


def test_effects_and_broadcast_master_land_on_the_target(tmp_path, tiny_saved):
    project = _tiny_with_effects(tiny_saved)
    report = render_project(project, synth_for(tiny_saved), tmp_path / "out", RenderOptions(format="wav32f"))
    assert report.analysis_pass and report.master_effect == "broadcast"
    mix, rate = sf.read(report.outdir / "mix.wav")
    assert report.predicted_lufs == pytest.approx(-16.0, abs=0.05)
    assert pyloudnorm.Meter(rate).integrated_loudness(mix) == pytest.approx(-16.0, abs=0.3)
    assert max(true_peak_dbtp(mix[:, 0], rate), true_peak_dbtp(mix[:, 1], rate)) <= -1.0
    # mix.wav is the master chain on the stems, and the compressor did work
    # (a limiter alone on the same stems gives another mix).
    stems = sum(sf.read(report.outdir / "stems" / stem_filename(r.name), dtype="float32")[0] for r in project.cast)
    mix32 = mix.astype(np.float32)
    np.testing.assert_allclose(mix32, through_master_chain(stems, rate, "broadcast", report.gain_db), atol=2e-6)
    assert np.abs(mix32 - through_master_chain(stems, rate, "clean", report.gain_db)).max() > 0.01


def test_lane_effects_are_in_the_stems_and_the_mix(tmp_path, tiny_saved):
    """The tiny voices are ~220 Hz tones: the telephone band (from 300 Hz)
    takes several dB off ROLE0's stem; the dry lanes are untouched."""
    dry = load_project(tiny_saved)
    dry.master_effect = "clean"
    plain = render_project(dry, synth_for(tiny_saved), tmp_path / "dry", RenderOptions(format="wav32f"))
    assert not plain.analysis_pass  # all dry, clean master: the fast path
    wet = load_project(tiny_saved)
    wet.master_effect = "clean"
    wet.cast[0].effect = "telephone"
    phoned = render_project(wet, synth_for(tiny_saved), tmp_path / "wet", RenderOptions(format="wav32f"))
    assert phoned.analysis_pass

    def stem_rms_db(report, role: str) -> float:  # type: ignore[no-untyped-def]
        stem, _ = sf.read(report.outdir / "stems" / stem_filename(role), dtype="float64")
        return float(10 * np.log10(np.mean(stem ** 2))) - report.gain_db  # before the master gain

    assert stem_rms_db(phoned, "ROLE0") < stem_rms_db(plain, "ROLE0") - 3.0
    assert stem_rms_db(phoned, "ROLE1") == pytest.approx(stem_rms_db(plain, "ROLE1"), abs=1e-4)
    a, _ = sf.read(plain.outdir / "mix.wav")
    b, _ = sf.read(phoned.outdir / "mix.wav")
    assert a.shape == b.shape and np.abs(a - b).max() > 0.01


def test_no_stems_and_formats(tmp_path, tiny_saved):
    project = load_project(tiny_saved)
    report = render_project(project, synth_for(tiny_saved), tmp_path / "out", RenderOptions(stems=False))
    assert not (report.outdir / "stems").exists()
    assert sf.info(report.outdir / "mix.wav").subtype == "PCM_24"
    report = render_project(project, synth_for(tiny_saved), tmp_path / "f", RenderOptions(format="wav32f"))
    assert sf.info(report.outdir / "mix.wav").subtype == "FLOAT"
    with pytest.raises(ValueError, match="unknown format 'mp3'"):
        RenderOptions(format="mp3")


def test_cli_render_and_errors(tmp_path, tiny_saved, capsys):
    assert main(["render", str(tiny_saved), "-o", str(tmp_path / "out"), "--no-stems"]) == 0
    out = capsys.readouterr().out
    assert "6 synthesized, 0 from cache" in out and "mix.wav" in out
    assert main(["render", str(tiny_saved), "-o", str(tmp_path / "out2")]) == 0
    assert "0 synthesized, 6 from cache" in capsys.readouterr().out

    broken = tmp_path / "broken.radioplay"
    broken.write_text(tiny_saved.read_text().replace('"role": "ROLE2"', '"role": "HERO"', 1))
    assert main(["render", str(broken), "-o", str(tmp_path / "x")]) == 1
    err = capsys.readouterr().err
    assert re.search(r"broken\.radioplay: lines\[\d+\]\.role: unknown role 'HERO'", err)


# --- integration: the bundled sample on the real voice --------------------------


@pytest.fixture(scope="module")
def sample_render(tmp_path_factory, sample_clips):
    """The sample rendered from the session's voiced clips (what these tests check comes after
    synthesis; the cold render's own claims are the tiny project's tests above)."""
    folder = tmp_path_factory.mktemp("sample")
    project_path = folder / SAMPLE.name
    project_path.write_bytes(SAMPLE.read_bytes())
    project = load_project(project_path)
    copy_sample_clips(sample_clips, cache_dir_for(project_path))
    report = render_project(project, synth_for(project_path), folder / "out", RenderOptions(format="wav32f"))
    assert report.synthesized == 0, "the session's sample clips were not found under their keys"
    return project_path, project, report


@pytest.mark.integration
def test_sample_outputs_exist_and_line_up(sample_render):
    _, project, report = sample_render
    mix, rate = sf.read(report.outdir / "mix.wav", dtype="float32")
    assert rate == 48_000 and mix.shape[1] == 2
    for role in project.cast:
        stem, stem_rate = sf.read(report.outdir / "stems" / stem_filename(role.name), dtype="float32")
        assert stem.shape == mix.shape and stem_rate == rate


@pytest.mark.integration
def test_sample_loudness_and_true_peak(sample_render):
    _, _, report = sample_render
    mix, rate = sf.read(report.outdir / "mix.wav")
    assert pyloudnorm.Meter(rate).integrated_loudness(mix) == pytest.approx(-16.0, abs=0.5)
    assert max(true_peak_dbtp(mix[:, 0], rate), true_peak_dbtp(mix[:, 1], rate)) <= -1.0


@pytest.mark.integration
def test_sample_stems_have_energy_inside_cues_and_silence_outside(sample_render):
    _, project, report = sample_render
    cues = [c for c in json.loads((report.outdir / "cues.json").read_text())["cues"] if c["kind"] == "line"]
    assert len(cues) == len(project.lines)
    rate = 48_000
    from engine.audio.rooms import shared_responses
    from engine.audio.staging import line_stages

    stages = line_stages(project)
    for role in project.cast:
        stem, _ = sf.read(report.outdir / "stems" / stem_filename(role.name), dtype="float32")
        mono = np.abs(stem).max(axis=1)
        inside = np.zeros(mono.size, dtype=bool)
        tail = int(lane_chain(role.effect, rate).tail_s * rate)  # a lane effect rings on a little
        for cue in (c for c in cues if c["role"] == role.name):
            a, b = int(cue["start"] * rate), int(cue["end"] * rate)
            assert np.sqrt(np.mean(stem[a:b] ** 2)) > 0.01, f"{role.name} silent in cue {cue['id']}"
            stage = stages.get(cue["id"])  # a staged line's room rings on in its role's stem
            room = (shared_responses().response(stage.room, rate).shape[0]
                    if stage is not None and stage.room is not None and stage.reverb > 0 else 0)
            inside[max(0, a - 48): b + 48 + tail + room] = True
        assert np.max(mono[~inside], initial=0.0) < 1e-6, f"{role.name} sounds outside its cues"


@pytest.mark.integration
def test_sample_stems_sum_to_what_enters_the_master_chain(sample_render):
    project_path, project, report = sample_render
    stems = sum(sf.read(report.outdir / "stems" / stem_filename(r.name), dtype="float32")[0] for r in project.cast)
    dme = [sf.read(report.outdir / "dme" / name, dtype="float32")[0] for name in ("DX.wav", "FX.wav", "MX.wav")]
    np.testing.assert_allclose(dme[0], stems, atol=1e-6)  # DX is every role's stem
    stems = dme[0] + dme[1] + dme[2]  # with the sample's sound lanes: what enters the master chain
    mix, rate = sf.read(report.outdir / "mix.wav", dtype="float32")
    expected = through_master_chain(stems, rate, project.master_effect, report.gain_db)
    np.testing.assert_allclose(mix, expected, atol=2e-6)
    # The master chain works on the louder syllables: much of the programme
    # passes at the plain sum of the stems.
    untouched = np.all(np.abs(mix - stems) <= 2e-6, axis=1)
    assert untouched.mean() > 0.5


@pytest.mark.integration
def test_sample_captions_parse_and_match_cues(sample_render):
    _, project, report = sample_render
    cues = [c for c in json.loads((report.outdir / "cues.json").read_text())["cues"] if c["kind"] == "line"]
    vtt = (report.outdir / "captions.vtt").read_text()
    assert vtt.startswith("WEBVTT\n")
    parsed_vtt = parse_captions(vtt)
    parsed_srt = parse_captions((report.outdir / "captions.srt").read_text())
    assert len(parsed_vtt) == len(parsed_srt) >= len(cues)
    # A long line is several cues (two rows of 42 characters each), back to back:
    # the line's first cue carries its id, the others its id and -2, -3...
    ids = re.findall(rf"(?m)^(\S+)\n{_STAMP} --> ", vtt)
    assert len(ids) == len(parsed_vtt)
    spans: dict[str, list[tuple[float, float, str]]] = {}
    line_ids = {cue["id"] for cue in cues}
    for (ident, *_), (start, end, text) in zip(ids, parsed_vtt, strict=True):
        line_id = ident if ident in line_ids else ident.rsplit("-", 1)[0]
        spans.setdefault(line_id, []).append((start, end, text))
    assert len(spans) == len(cues)
    for cue in cues:
        parts = spans[cue["id"]]
        assert parts[0][0] == pytest.approx(cue["start"], abs=1e-3)
        assert parts[-1][1] == pytest.approx(cue["end"], abs=1e-3)
        assert all(text.startswith(f"<v {cue['role']}>") for _, _, text in parts)
    assert any(len(parts) > 1 for parts in spans.values())  # the sample has long lines
    overlaps = sum(1 for a, b in zip(cues, cues[1:], strict=False) if b["start"] < a["end"])
    assert overlaps >= 3


@pytest.mark.integration
def test_second_render_of_unchanged_sample_synthesizes_nothing(sample_render, tmp_path):
    project_path, _, first = sample_render
    project = load_project(project_path)
    synth = synth_for(project_path)
    report = render_project(project, synth, tmp_path / "again", RenderOptions(format="wav32f"))
    assert synth.synth_calls == 0 and report.synthesized == 0
    a, _ = sf.read(first.outdir / "mix.wav", dtype="float32")
    b, _ = sf.read(report.outdir / "mix.wav", dtype="float32")
    np.testing.assert_array_equal(a, b)


@pytest.mark.integration
def test_fountain_sample_imports_and_renders(tmp_path, capsys):
    from engine.synth.production_import import import_production

    script = SAMPLES / "the-lighthouse.fountain"
    project_path = tmp_path / "lighthouse.radioplay"
    # Imported as `radioplay import` imports it, but with the quick casting: measuring the cast
    # (tests/engine/project/test_import_build.py) voices every candidate, minutes on a busy
    # machine. What is checked here does not depend on which voices were chosen, so every role
    # is told apart on the bundled Piper voice as an import does on one voice: the quick cast
    # gives 18 of the 28 lines to Kokoro styles, ten times the voicing for the same checks.
    project = import_production(script, destination=project_path).project
    for index, role in enumerate(project.cast):
        role.voice = starting_voice(index, VoiceParams(voice=DEFAULT_VOICE))[0]
    save_project(project, project_path)
    assert main(["render", str(project_path), "-o", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    # A second render of the unchanged project performs no synthesis.
    assert main(["render", str(project_path), "-o", str(tmp_path / "again")]) == 0
    assert " lines (0 synthesized, " in capsys.readouterr().out
    cues = json.loads((tmp_path / "out" / "cues.json").read_text())["cues"]
    project = load_project(project_path)
    assert [c["id"] for c in sorted(cues, key=lambda c: c["start"])] != []
    assert len(cues) == len(project.lines)
    # Dual dialogue is voiced at the same moment as the line it pairs with.
    dual = [line for line in project.lines if line.with_previous]
    assert dual
    by_id = {c["id"]: c for c in cues}
    for line in dual:
        index = [x.id for x in project.lines].index(line.id)
        assert by_id[line.id]["start"] == pytest.approx(by_id[project.lines[index - 1].id]["start"], abs=1e-3)


def test_an_unknown_speaker_is_one_line_naming_the_role(tmp_path, tiny_saved, tiny_voices):
    """A speaker name that the voice's speaker_id_map lacks is the role's problem, said once
    (not once per line), naming the role and the speakers there are."""
    project = load_project(tiny_saved)
    project.cast[1].voice = VoiceParams(voice=str(tiny_voices["multi"]), speaker="dave")
    with pytest.raises(LineErrors) as caught:
        render_project(project, synth_for(tiny_saved), tmp_path / "out")
    assert caught.value.problems == [
        "role ROLE1 (2 lines, first line 2): voice 'tiny-multi' has no speaker 'dave' "
        "(speakers: alice, bob, carol)"]


def test_a_speaker_by_name_renders_as_that_speaker(tmp_path, tiny_saved, tiny_voices):
    project = load_project(tiny_saved)
    for role, speaker in zip(project.cast, ("bob", 1, "carol"), strict=True):
        role.voice = VoiceParams(voice=str(tiny_voices["multi"]), speaker=speaker)
    synth = synth_for(tiny_saved)
    plans = plan_lines(project, synth)
    ids = {project.lines[i].role: plans[project.lines[i].id].settings.speaker_id for i in range(3)}
    assert ids == {"ROLE0": 1, "ROLE1": 1, "ROLE2": 2}
