"""``radioplay direct``: a producer's read (espeak-ng as the actor, tests/support/actor_reads.py)
voiced by the role's real voice, with the read's timing and intonation, kept as a take that
reproduces from the saved project; and every read it cannot use refused in one line, with
nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
import soundfile

from engine.cli import main
from engine.direct import measure
from engine.direct.read import prepare_read
from engine.project.fileformat import load_project
from engine.project.takes import read_take_of
from engine.synth.errors import TextError
from engine.synth.pipeline import plan_line
from engine.synth.read_transfer import ReadError
from engine.synth.synthesizer import make_synthesizer
from tests.support.actor_reads import ESPEAK, READS, SAMPLE, espeak_wav, make_read

pytestmark = pytest.mark.skipif(ESPEAK is None, reason="espeak-ng is the actor")

PAUSE = next(r for r in READS if r.name == "pause")  # JUNE, Piper's joe with a design: a 0.9 s pause mid-line


def _sample(folder: Path) -> Path:
    path = folder / SAMPLE.name
    shutil.copy(SAMPLE, path)
    return path


def test_a_read_directs_a_new_take_that_follows_it_keeps_the_role_and_reproduces(tmp_path: Path, capsys):
    project_path = _sample(tmp_path)
    wav = make_read(PAUSE, tmp_path / "read.wav")
    before = load_project(project_path)
    line = before.line(PAUSE.line_id)
    synth = make_synthesizer(project_path, before.sample_rate)
    rate = before.sample_rate
    plain = np.asarray(synth.synthesize_plan(plan_line(synth, before, line)))

    assert main(["direct", str(project_path), PAUSE.line_id, "--read", str(wav), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["line"] == PAUSE.line_id and report["take"] == 2 and report["timing"] == 100

    # Saved: the new take chosen, its read kept beside the project's takes, named relative to it.
    saved = load_project(project_path)
    directed = saved.line(PAUSE.line_id)
    take = read_take_of(directed)
    assert take is not None and directed.take == take.seed != line.take
    assert Path(take.read).parent == tmp_path / "takes" and Path(take.read).is_file()
    stored = next(d for d in json.loads(project_path.read_text())["lines"] if d["id"] == PAUSE.line_id)
    assert stored["read_takes"][0]["read"] == f"takes/{Path(take.read).name}"
    assert stored["read_takes"][0]["sha256"] == report["sha256"]

    # Voiced by the verb once, and cached: the plan's clip is there before anything synthesizes it.
    plan = plan_line(synth, saved, directed)
    assert plan.read is not None and synth.cache.get(plan.key) is not None
    clip = np.asarray(synth.synthesize_plan(plan))
    fresh = make_synthesizer(project_path, rate, use_cache=False)
    again = np.asarray(fresh.synthesize_plan(plan_line(fresh, load_project(project_path), directed)))
    np.testing.assert_array_equal(clip, again)  # sample for sample, from the project and the read's file

    # It follows the read (the plain take does not), and it is still the role, not the reader.
    read_audio, read_rate = soundfile.read(str(wav), dtype="float32")
    aligned = prepare_read(read_audio, read_rate, line.text)
    words = [w.lower().strip(".,?") for w in "needle's down owen is it going out".split()]
    read_words = measure.aligned(aligned.audio, aligned.rate, words)
    plain_words, take_words = measure.aligned(plain, rate, words), measure.aligned(clip, rate, words)
    assert read_words and plain_words and take_words
    was = measure.follow(plain, rate, plain_words, aligned.audio, aligned.rate, read_words)
    now = measure.follow(clip, rate, take_words, aligned.audio, aligned.rate, read_words)
    assert now.f0_r is not None and now.f0_r >= 0.7 and (was.f0_r or 0.0) < 0.4, (was, now)
    assert now.onset_s <= 0.08 < was.onset_s, (was, now)
    to_role = measure.similarity(clip, rate, plain, rate)
    assert to_role >= 0.8 and to_role > measure.similarity(clip, rate, aligned.audio, aligned.rate)

    # The first take is still the plain one; a changed read no longer makes its take.
    first = plan_line(synth, saved, directed, seed=line.take)
    assert first.read is None and first.key == plan_line(synth, before, line).key
    data = bytearray(Path(take.read).read_bytes())
    data[-2:] = b"\x01\x02"
    Path(take.read).write_bytes(bytes(data))
    with pytest.raises(ReadError, match="not the one its directed take was made from"):
        plan_line(synth, load_project(project_path), directed)
    assert issubclass(ReadError, TextError)  # the render and the studio report it as a line's problem


@pytest.mark.parametrize("name", ["question", "slow"])
def test_on_kokoro_and_piper_roles_the_take_follows_the_read_the_plain_take_does_not(tmp_path: Path, name: str):
    """The question's steep rise on MAGGIE (a Kokoro style) and the slow line, low then high,
    on MR. HOLLIS (Piper's joe): the figures the issue asks of each line."""
    from engine.check.speech import text_words

    read = next(r for r in READS if r.name == name)
    project_path = _sample(tmp_path)
    wav = make_read(read, tmp_path / "read.wav")
    before = load_project(project_path)
    line, rate = before.line(read.line_id), before.sample_rate
    synth = make_synthesizer(project_path, rate)
    plain = np.asarray(synth.synthesize_plan(plan_line(synth, before, line)))
    assert main(["direct", str(project_path), read.line_id, "--read", str(wav)]) == 0
    saved = load_project(project_path)
    clip = np.asarray(synth.synthesize_plan(plan_line(synth, saved, saved.line(read.line_id))))
    read_audio, read_rate = soundfile.read(str(wav), dtype="float32")
    aligned = prepare_read(read_audio, read_rate, line.text)
    words = text_words(line.text)
    read_words = measure.aligned(aligned.audio, aligned.rate, words)
    plain_words, take_words = measure.aligned(plain, rate, words), measure.aligned(clip, rate, words)
    assert read_words and plain_words and take_words
    was = measure.follow(plain, rate, plain_words, aligned.audio, aligned.rate, read_words)
    now = measure.follow(clip, rate, take_words, aligned.audio, aligned.rate, read_words)
    assert now.f0_r is not None and now.f0_r >= 0.7 and (was.f0_r or 0.0) < 0.4, (was, now)
    assert now.onset_s <= 0.08, (was, now)
    to_role = measure.similarity(clip, rate, plain, rate)
    assert to_role >= 0.8 and to_role > measure.similarity(clip, rate, aligned.audio, aligned.rate)


def _refused(tmp_path: Path, capsys, read: Path, *extra: str, line_id: str = PAUSE.line_id) -> str:
    project_path = tmp_path / SAMPLE.name
    original = project_path.read_bytes()
    assert main(["direct", str(project_path), line_id, "--read", str(read), *extra]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and project_path.read_bytes() == original
    assert not (tmp_path / "takes").exists()
    err = captured.err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_reads_it_cannot_use_are_refused_in_one_line_and_nothing_is_written(tmp_path: Path, capsys):
    _sample(tmp_path)
    wav = make_read(PAUSE, tmp_path / "read.wav")
    audio, rate = soundfile.read(str(wav), dtype="float32")

    phone = tmp_path / "phone.wav"
    import soxr

    soundfile.write(str(phone), soxr.resample(audio, rate, 8000), 8000)
    assert _refused(tmp_path, capsys, phone).endswith(
        "the read is at 8000 Hz; record it at 16000 Hz or more (a phone's 8 kHz has lost the consonants the "
        "words are told by); no take made")

    quiet = tmp_path / "quiet.wav"
    soundfile.write(str(quiet), np.random.default_rng(1).normal(0, 1e-3, 3 * rate).astype(np.float32), rate)
    assert _refused(tmp_path, capsys, quiet) == (
        f"radioplay: error: --read {quiet}: no speech in the read (silence or noise): read the line aloud; "
        "no take made")

    long = tmp_path / "long.wav"
    soundfile.write(str(long), np.zeros(16_000 * 125, dtype=np.int16), 16_000)
    assert _refused(tmp_path, capsys, long) == (
        f"radioplay: error: --read {long}: 2.1 minutes long; at most 2 minutes are read")

    other = espeak_wav("The weather over the harbour is fine and the boats are all in.", tmp_path / "other.wav")
    assert "the read does not say this line: heard" in _refused(tmp_path, capsys, other)

    assert _refused(tmp_path, capsys, wav, line_id="L9999").startswith("radioplay: error: no line L9999 in the "
                                                                       "project (lines: ")
    assert _refused(tmp_path, capsys, wav, "--strength", "140") == (
        "radioplay: error: strength 140 is out of range [0, 100] %")
    assert _refused(tmp_path, capsys, tmp_path / "missing.wav") == (
        f"radioplay: error: --read {tmp_path / 'missing.wav'}: file not found")


def test_the_same_read_twice_is_two_takes_of_one_kept_file_which_a_dropped_take_leaves(tmp_path: Path, capsys):
    from engine.direct.take import discard_read

    project_path = _sample(tmp_path)
    wav = make_read(PAUSE, tmp_path / "read.wav")
    assert main(["direct", str(project_path), PAUSE.line_id, "--read", str(wav)]) == 0
    assert main(["direct", str(project_path), PAUSE.line_id, "--read", str(wav), "--follow", "timing",
                 "--strength", "60"]) == 0
    assert "take 3 directed by the read (timing 60 %), " in capsys.readouterr().out
    saved = load_project(project_path)
    line = saved.line(PAUSE.line_id)
    first, second = line.read_takes
    assert (first.timing, first.intonation, second.timing, second.intonation) == (100, 100, 60, 0)
    assert first.read == second.read and [p.name for p in (tmp_path / "takes").iterdir()] == [Path(first.read).name]
    discard_read(saved, Path(first.read))  # another take reads it: kept
    assert Path(first.read).is_file()
    stray = tmp_path / "takes" / "stray.wav"
    stray.write_bytes(b"RIFF")
    discard_read(saved, stray)
    assert not stray.exists()
