"""The speech check: word comparison, silences, clipping, and `radioplay check`
on the bundled voice (a lexicon entry that makes a line say another word is
flagged; the same lines unaltered are not)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.check.pronounce import ipa_to_cmu
from engine.check.speech import clipped, compare_words, longest_inner_silence, text_words
from engine.listen.vad import EnergyVad
from engine.project.fileformat import load_project, save_project
from engine.project.model import Line, Project, Role, Scene
from tests.support.paths import REPO


def test_words_compare_with_function_words_light_and_moved_words_forgiven() -> None:
    expected = "a crack of thunder the studio lights flickered".split()
    assert compare_words(expected, expected)[0] == 1.0
    score, missing, garbled, extra = compare_words(expected, "a crack of owen the studio lights flickered".split())
    assert garbled == ["thunder"] and not missing and score < 1.0
    score, missing, _, _ = compare_words(expected, "crack of thunder the studio lights flickered".split())
    assert missing == ["a"] and score > 0.95  # a dropped "a" costs a quarter word
    _, missing, garbled, extra = compare_words(["twenty", "pounds", "that"], ["pounds", "twenty", "that"])
    assert not missing and not garbled and not extra


def test_text_words_spell_numbers_and_titles() -> None:
    assert text_words("Dr. Penrose paid £20 in 1962.") == ["doctor", "penrose", "paid", "twenty", "pounds", "in",
                                                           "nineteen", "sixty", "two"]


def test_ipa_becomes_cmu_phones() -> None:
    assert ipa_to_cmu("θˈʌndɚ") == "TH AH N D ER"
    assert ipa_to_cmu("lˈɛmənˌeɪd") == "L EH M AH N EY D"


def test_clipping_and_inner_silence() -> None:
    rate = 16_000
    t = np.arange(rate) / rate
    tone = (0.3 * np.sin(2 * np.pi * 220 * t)).astype(np.float32)
    assert not clipped(tone)
    assert clipped(np.clip(tone * 10, -1, 1))
    # A recording clipped at the 16-bit ceiling is cut off too.
    pcm = np.clip(np.round(tone * 10 * 32767), -32768, 32767).astype(np.int16)
    assert clipped(pcm.astype(np.float32) / 32768)
    # A float line whose smooth crest swings past full scale (a loud line at the
    # per-line loudness: the mix brings it under 0 dBFS) was not cut off.
    assert not clipped(tone * 4)
    gap = np.concatenate([tone, np.zeros(int(1.5 * rate), np.float32), tone])
    seconds, at = longest_inner_silence(gap, EnergyVad())  # silero hears no speech in a tone
    assert 1.3 <= seconds <= 1.7 and 0.9 <= at <= 1.1


def _project(tmp_path: Path, lexicon: dict[str, str]) -> Path:
    project = Project(title="Check", cast=[Role(name="NARRATOR")], scenes=[Scene("S1")], lexicon=lexicon)
    texts = ["A crack of thunder. The studio lights flickered, dimmed, and went out.",
             "The record had not been played in thirty years.",
             "Good morning. The storm has passed, and we're still here."]
    project.lines = [Line(f"L{i}", "NARRATOR", text, scene="S1") for i, text in enumerate(texts, 1)]
    path = tmp_path / "check.radioplay"
    save_project(project, path)
    return path


def _check(path: Path, *extra: str) -> tuple[int, dict[str, object]]:
    out = subprocess.run([sys.executable, "-m", "engine.cli", "check", str(path), "--json", *extra], cwd=REPO,
                         capture_output=True, text=True, timeout=600)
    return out.returncode, json.loads(out.stdout)


@pytest.mark.integration
def test_radioplay_check_flags_the_line_a_lexicon_entry_changed(tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    clean.mkdir()
    code, report = _check(_project(clean, {}))
    assert (code, report["flagged"]) == (0, 0), report
    assert [r["id"] for r in report["lines"]] == ["L1", "L2", "L3"]  # type: ignore[index]
    assert set(report["lines"][0]) == {"id", "role", "score", "flagged", "reason",  # type: ignore[index]
                                       "similarity", "quality"}
    swapped = tmp_path / "swapped"
    swapped.mkdir()
    path = _project(swapped, {"thunder": "lemonade"})
    code, report = _check(path)
    flagged = [r for r in report["lines"] if r["flagged"]]  # type: ignore[attr-defined]
    assert code == 1 and [r["id"] for r in flagged] == ["L1"], report
    assert "thunder" in flagged[0]["reason"]
    # --fix cannot make "lemonade" say "thunder": it tries the takes, keeps the best, saves them.
    code, report = _check(path, "--fix", "--takes", "2")
    assert code == 1
    assert load_project(path).lines[0].takes[:3] == (0, 1, 2)
