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
from tests.support.projects import tiny_project

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


def _mapped_kib(path: Path) -> int:
    """Resident KiB of this process's mappings of ``path`` (/proc/self/smaps)."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        fields = line.split()
        if fields and "-" in fields[0] and len(fields) >= 5 and fields[0][0] in "0123456789abcdef":
            inside = line.endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(fields[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads /proc/self/smaps (Linux)")
def test_a_pass_hands_back_the_pages_of_the_mapped_clips_it_is_past(tmp_path: Path) -> None:
    from engine.export.pages import PassedClips

    early, late = tmp_path / "early.npy", tmp_path / "late.npy"
    for path, value in ((early, 0.25), (late, 0.5)):
        np.save(path, np.full(2_000_000, value, dtype=np.float32))  # 8 MB each
    clips = [np.load(p, mmap_mode="r") for p in (early, late)]
    sums = [float(c.sum(dtype=np.float64)) for c in clips]  # a pass reads them: every page resident
    assert _mapped_kib(early) > 7000 and _mapped_kib(late) > 7000
    passed = PassedClips([(2_000_000, clips[0]), (9_000_000, clips[1]), (10, np.zeros(10, dtype=np.float32))])
    assert len(passed) == 2  # a clip in memory is not mapped: nothing to hand back
    passed.release_before(5_000_000)
    assert _mapped_kib(early) < 100 and _mapped_kib(late) > 7000
    # The samples are the file's: a later pass reads the same values.
    assert [float(c.sum(dtype=np.float64)) for c in clips] == sums
    passed.rewind()
    passed.release_before(9_000_000)
    assert _mapped_kib(late) < 100


def _solved_by_one_pass(path: Path, out: Path) -> tuple[object, tuple[float, float, float]]:
    """A cold render, and the gain the whole pass after synthesis gives on its clips."""
    from engine.audio.effects import LIMITER_CEILING_DB
    from engine.export.sound_check import project_sounds
    from engine.mixdown.mixplan import BLOCK, programme_for
    from engine.synth.pipeline import plan_lines

    project = load_project(path)
    synth = make_synthesizer(path, RATE)
    report = render_project(project, synth, out, RenderOptions(), project_path=path)
    clips = {lid: synth.cache.get(plan.key) for lid, plan in plan_lines(project, synth).items()}
    sounds = project_sounds(project, path, (), False, synth.cache)[0]
    programme, _, total = programme_for(project, clips, BLOCK, sounds)  # type: ignore[arg-type]
    analysis = programme.analyse(total)
    gain_db, predicted = analysis.solve_gain(RenderOptions().target_lufs, LIMITER_CEILING_DB)
    return report, (analysis.loudness(), gain_db, predicted)


def test_the_analysis_run_while_lines_are_voiced_is_the_whole_pass(tmp_path: Path,
                                                                   tiny_voices: dict[str, Path]) -> None:
    project = tiny_project(tiny_voices["single"], lines_per_role=4)
    project.cast[0].effect = "telephone"
    project.cast[1].effect = "room"  # a reverb: its tail carries from the prefix into the rest
    project.master_effect = "broadcast"
    path = tmp_path / "tiny.radioplay"
    save_project(project, path)
    report, whole = _solved_by_one_pass(path, tmp_path / "out")
    assert report.analysis_streamed > 0  # type: ignore[attr-defined]
    assert (report.premix_lufs, report.gain_db, report.predicted_lufs) == whole  # type: ignore[attr-defined]


def test_with_sound_cues_and_ducking_the_streamed_analysis_is_the_whole_pass(tmp_path: Path,
                                                                            tiny_voices: dict[str, Path]) -> None:
    from engine.cli import main
    from engine.project.model import VoiceParams
    from tests.support.sound_design import SCRIPT, write_sounds

    script = tmp_path / "storm.txt"
    script.write_text(SCRIPT + "".join(f"MAGGIE: And another thing to say, number {n}.\n" for n in range(6)))
    write_sounds(tmp_path / "sounds")
    path = tmp_path / "storm.radioplay"
    assert main(["import", str(script), "-o", str(path)]) == 0
    project = load_project(path)
    for role in project.cast:
        role.voice = VoiceParams(voice=str(tiny_voices["single"]))
    save_project(project, path)
    report, whole = _solved_by_one_pass(path, tmp_path / "out")
    assert (report.premix_lufs, report.gain_db, report.predicted_lufs) == whole  # type: ignore[attr-defined]


@pytest.mark.skipif(not Path("/proc/self/smaps").exists(), reason="reads /proc/self/smaps (Linux)")
def test_a_long_prefix_advance_hands_back_pages_as_it_goes(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    """The first line voiced last holds the prefix back, then one advance
    analyses the whole programme: the clips it is past must not stay resident
    until it ends (an hour's clips are 700 MB)."""
    from concurrent.futures import Future

    from engine.export.prefix import PrefixAnalysis
    from engine.mixdown.mixplan import BLOCK
    from engine.mixdown.sound_placement import SoundSet
    from engine.synth.pipeline import plan_lines

    project = tiny_project(tiny_voices["single"], lines_per_role=4)
    project.master_effect = "broadcast"  # not dry: the prefix makes a pass
    path = tmp_path / "tiny.radioplay"
    save_project(project, path)
    synth = make_synthesizer(path, RATE)
    plans = plan_lines(project, synth)
    for plan in plans.values():
        synth.finish(synth.infer(plan))
    assert synth.cache.disk is not None
    first = synth.cache.disk.path(plans[project.lines[0].id].key)
    resident_at_the_end: list[int] = []
    blocks = [0]
    sounds: Future[tuple[SoundSet, list[str]]] = Future()
    sounds.set_result((SoundSet(), []))

    def check() -> None:  # runs before each block of the pass
        # Every 25th block: reading this process's smaps before each of the pass's 280 blocks
        # was 8 CPU-s alone and 22 in a suite worker (whose libraries make it thousands of
        # mappings long). The last reading is then at most 24 blocks (4 s) before the end:
        # still long past the first line.
        if blocks[0] % 25 == 0:
            resident_at_the_end[:] = [_mapped_kib(first)]
        blocks[0] += 1

    prefix = PrefixAnalysis(project, synth, BLOCK, sounds, check)
    prefix.begin(plans, {p.key for p in plans.values()})
    for line in project.lines[1:]:
        prefix.voiced(plans[line.id].key)
    assert prefix.frames == 0  # held back by the first line
    prefix.voiced(plans[project.lines[0].id].key)
    assert prefix.frames > 4 * BLOCK and blocks[0] > 100  # the last reading came well past the first line
    assert resident_at_the_end and resident_at_the_end[0] < 8  # KiB: handed back during the pass
    prefix.close()


def test_a_staged_project_is_analysed_while_its_lines_are_voiced(tmp_path: Path,
                                                                 tiny_voices: dict[str, Path]) -> None:
    """Rooms, perspectives and movement: a staged line's tail rings into the next
    seconds, yet the prefix analysed as the lines came is the whole pass."""
    from engine.project.model import Scene
    from engine.project.staging import ROOM_PRESETS

    project = tiny_project(tiny_voices["single"], lines_per_role=4)
    project.scenes[0].room = ROOM_PRESETS["bathroom"]  # 0.9 s of tail past each line
    project.scenes.append(Scene("S2", "EXT. STREET", room=ROOM_PRESETS["street"]))
    for line in project.lines[6:]:
        line.scene = "S2"
    project.lines[1].perspective = "off"
    project.lines[4].perspective = "moving-away"
    project.lines[7].perspective = "phone"
    project.master_effect = "broadcast"
    path = tmp_path / "staged.radioplay"
    save_project(project, path)
    report, whole = _solved_by_one_pass(path, tmp_path / "out")
    assert report.analysis_streamed > 0  # type: ignore[attr-defined]
    assert (report.premix_lufs, report.gain_db, report.predicted_lufs) == whole  # type: ignore[attr-defined]
