"""Must show (issue 32): a held-out script full of written forms, rendered with the real
voice, is heard saying the spoken forms, its captions show the written forms, and
`radioplay check` flags none of its lines.

The recognizer is pocketsphinx (not ours), with a language model of the whole script's
spoken lines, none weighted toward the clip it hears (the table read's way of
listening): it must tell the lines' words apart by their sound. The same recognizer on
the same lines voiced without the normalizer (espeak-ng's own readings) hears 57% of
the forms, and pocketsphinx's general English model hears 68% of them with the
normalizer against 32% without (bench/normalize_heard.py; docs/dev/text-normalization.md).
Forms are scored on the words pocketsphinx's dictionary has.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engine.listen.recognizer import Recognizer, pronunciations
from engine.listen.vad import VAD_RATE
from engine.project.fileformat import save_project
from engine.project.model import Line, Project, Role, Scene
from engine.synth import shaping
from engine.synth.frontend import spoken_form
from engine.synth.synthesizer import make_synthesizer
from tests.support.held_out import forms_heard, script, words
from tests.support.paths import REPO

HEARD_MIN = 0.8


def _radioplay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "engine.cli", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=900)


def _caption_text(srt: Path) -> str:
    """The captions' words in order: each cue's rows, less its number, times and "ROLE: "."""
    rows = []
    for block in srt.read_text(encoding="utf-8").strip().split("\n\n"):
        rows += block.split("\n")[2:]
    return " ".join(" ".join(rows).replace("NARRATOR: ", "").split())


@pytest.mark.integration
def test_a_script_of_written_forms_is_heard_as_said_captioned_as_written_and_not_flagged(tmp_path: Path) -> None:
    lines = script()
    project = Project(title="Forms", cast=[Role(name="NARRATOR")], scenes=[Scene("S1")])
    project.lines = [Line(f"L{i}", "NARRATOR", line.text, scene="S1") for i, line in enumerate(lines, 1)]
    path = tmp_path / "forms.radioplay"
    save_project(project, path)

    out = tmp_path / "out"
    rendered = _radioplay("render", str(path), "-o", str(out), "--no-stems")
    assert rendered.returncode == 0, rendered.stderr

    # Captions and the cue sheet keep the written forms.
    assert _caption_text(out / "captions.srt") == " ".join(line.text for line in lines)
    # The WebVTT's word stamps time the written words ("<00:00:05.120>£12.40,").
    vtt = (out / "captions.vtt").read_text(encoding="utf-8")
    assert re.search(r"<\d\d:\d\d:\d\d\.\d{3}>£12\.40,", vtt), vtt
    plain = re.sub(r"<[^>]*>", "", vtt)
    assert "£12.40" in plain and "Henry VII" in plain and "twelve pounds" not in plain
    cues = json.loads((out / "cues.json").read_text(encoding="utf-8"))
    cue_texts = [c["text"] for c in (cues["cues"] if isinstance(cues, dict) else cues) if c.get("kind") == "line"]
    assert cue_texts == [line.text for line in lines]

    # The clips the render made (the same cache), heard by pocketsphinx.
    synth = make_synthesizer(path, project.sample_rate)
    spoken = [spoken_form(line.text) for line in lines]
    recognizer = Recognizer(spoken)
    vocabulary = set(pronunciations())
    results = []
    for line, said, written in zip(lines, spoken, project.lines, strict=True):
        plan = synth.plan(written.text, project.role("NARRATOR").voice)
        clip = synth.cache.get(plan.key)
        assert clip is not None, f"{written.id} was not rendered into the cache"
        audio16 = np.asarray(shaping.resample(np.asarray(clip), project.sample_rate, VAD_RATE), dtype=np.float32)
        heard = [w.text.split("(")[0] for w in recognizer.recognize(audio16)]
        results += [(written.id, form.written, ok) for form, ok in forms_heard(words(said), heard, line.forms,
                                                                              vocabulary)]
    share = sum(ok for _, _, ok in results) / len(results)
    assert len(results) >= 40
    assert share >= HEARD_MIN, [r for r in results if not r[2]]

    # `radioplay check` hears every line as its spoken form and flags none of them (a
    # loud line's float crest past full scale is not clipping: it was, on line 3).
    checked = _radioplay("check", str(path), "--json")
    report = json.loads(checked.stdout)
    assert len(report["lines"]) == len(lines)
    flags = [(r["id"], r["reason"]) for r in report["lines"] if r["flagged"]]
    assert not flags and report["flagged"] == 0, flags
    assert checked.returncode == 0
    assert all(r["score"] >= 0.9 for r in report["lines"]), [(r["id"], r["score"]) for r in report["lines"]]
