"""The speech check hears who speaks and how well: `radioplay check --json` reports a
similarity and a quality per line, and a take in another role's voice is flagged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.check.lines import check_line
from engine.check.voice import DRIFT_MIN, MEASURES_FOLDER, VoiceJudge
from engine.listen import quality, speaker
from engine.project.fileformat import save_project
from engine.project.model import Line, Project, Role, Scene, VoiceParams
from engine.project.voice_presets import design_for
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

REPO = Path(__file__).resolve().parents[3]
# Resemblyzer's weights, DNSMOS and pocketsphinx are all in the test extra: a missing
# one is a broken set-up, not a skip.
speaker.weights_path()
quality.model_path()

GIRL = VoiceParams(design=design_for("girl", "male"))
TEXTS = ("The storm came in from the west just after the harbour lights went on.",
         "Nobody on the island had seen a sea like it in forty years.")


def _project() -> Project:
    project = Project(title="Drift", sample_rate=22050, scenes=[Scene("S1", "A room")],
                      cast=[Role("KEEPER", voice=VoiceParams()), Role("ROSIE", voice=GIRL)])
    project.lines = [Line("L1", "KEEPER", TEXTS[0], scene="S1"), Line("L2", "ROSIE", TEXTS[1], scene="S1")]
    return project


@pytest.mark.integration
def test_radioplay_check_json_reports_similarity_and_quality_per_line(tmp_path: Path) -> None:
    path = tmp_path / "drift.radioplay"
    save_project(_project(), path)
    out = subprocess.run([sys.executable, "-m", "engine.cli", "check", str(path), "--json"], cwd=REPO,
                         capture_output=True, text=True, timeout=900)
    report = json.loads(out.stdout)
    for line in report["lines"]:
        assert isinstance(line["similarity"], float) and isinstance(line["quality"], float), line
        # Each line is in its own role's voice: close to it, and clean synthetic speech.
        assert line["similarity"] >= DRIFT_MIN and 1.0 <= line["quality"] <= 5.0, line


def test_a_take_in_another_roles_voice_is_flagged_as_drift(tmp_path: Path) -> None:
    project = _project()
    synth = ClipSynthesizer(VoiceLibrary(), project.sample_rate, ClipCache(tmp_path / "cache"))
    judge = VoiceJudge(synth)
    own = synth.synthesize(TEXTS[0], VoiceParams())
    drifted = synth.synthesize(TEXTS[0], GIRL)  # KEEPER's line, in ROSIE's voice
    line = project.lines[0]
    kept = check_line(project, synth, line, own, 0, {}, judge=judge)
    wrong = check_line(project, synth, line, drifted, 0, {}, judge=judge)
    assert kept.similarity is not None and wrong.similarity is not None
    assert not kept.flagged and kept.similarity >= DRIFT_MIN, kept
    assert wrong.flagged and wrong.similarity < DRIFT_MIN and "voice drift" in wrong.reason, wrong


def test_a_clip_is_measured_once_and_its_measures_are_kept_by_its_samples(tmp_path: Path) -> None:
    project = _project()
    synth = ClipSynthesizer(VoiceLibrary(), project.sample_rate, ClipCache(tmp_path / "cache"))
    own = synth.synthesize(TEXTS[0], VoiceParams())
    line = project.lines[0]
    first = check_line(project, synth, line, own, 0, {}, judge=VoiceJudge(synth))
    memos = list((tmp_path / "cache" / MEASURES_FOLDER).glob("*.json"))
    assert len(memos) == 1
    kept = json.loads(memos[0].read_text(encoding="utf-8"))
    assert kept["quality"] == first.quality and len(kept["embedding"]) == speaker.EMBEDDING_SIZE
    # A later check (another judge, as another `radioplay check` run) reads what was kept: a
    # remembered score that fails is reported, which measuring again would not.
    memos[0].write_text(json.dumps({**kept, "quality": 1.5}), encoding="utf-8")
    again = check_line(project, synth, line, own, 0, {}, judge=VoiceJudge(synth))
    assert again.quality == 1.5 and again.flagged and "low quality" in again.reason
    assert again.similarity == first.similarity
    # One sample changed is another clip, measured anew.
    other = own.copy()
    other[len(other) // 2] += 1e-3
    changed = check_line(project, synth, line, other, 0, {}, judge=VoiceJudge(synth))
    assert changed.quality is not None and abs(changed.quality - first.quality) < 0.05 and not changed.flagged
    assert len(list((tmp_path / "cache" / MEASURES_FOLDER).glob("*.json"))) == 2
