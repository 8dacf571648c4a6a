"""Issue 27's must-show, through the commands a producer runs: ``radioplay import``
of a plain-text script with directions, then ``radioplay render``; measured on the
written files with praat-parselmouth and pocketsphinx, not with the product's code."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile

from engine.cli import main
from engine.project.fileformat import load_project
from engine.project.model import VoiceParams
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.listening import features, heard_words, longest_inner_silence

SAME = "He has the wrong ticket, and he knows it."
SCRIPT = f"""TOM: Tickets, please. (beat) Both of you.
TOM: Come here, Lucy. (quietly) She has been waiting.
TOM: {SAME}
TOM: (whispering) {SAME}
TOM: (shouting) {SAME}
TOM: (slowly) {SAME}
"""


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("direction")
    script = folder / "directed.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    project_file = folder / "directed.radioplay"
    assert main(["import", str(script), "-o", str(project_file)]) == 0
    out = folder / "out"
    assert main(["render", str(project_file), "-o", str(out)]) == 0
    project = load_project(project_file)
    cues = json.loads((out / "cues.json").read_text(encoding="utf-8"))["cues"]
    stem, rate = soundfile.read(out / "stems" / "TOM.wav", dtype="float32")
    stem = stem.mean(axis=1) if stem.ndim == 2 else stem
    lines = {}
    for line, cue in zip(project.lines, [c for c in cues if c["kind"] == "line"], strict=True):
        lines[line.id] = stem[int(cue["start"] * rate):int(cue["end"] * rate)]
    ids = [line.id for line in project.lines]
    return {"out": out, "rate": rate, "clips": [lines[i] for i in ids], "cues": cues, "stem": stem}


@pytest.mark.integration
def test_directions_are_never_heard_nor_captioned(rendered: dict[str, object]) -> None:
    out: Path = rendered["out"]  # type: ignore[assignment]
    for name in ("captions.srt", "captions.vtt", "cues.json"):
        text = (out / name).read_text(encoding="utf-8").lower()
        assert "beat" not in text and "quietly" not in text and "(" not in text, name
    clips: list[np.ndarray] = rendered["clips"]  # type: ignore[assignment]
    for clip in clips[:2]:
        heard = heard_words(clip, int(rendered["rate"]))  # type: ignore[call-overload]
        assert heard, "the recognizer heard nothing: the line is not speech"
        assert "beat" not in heard and "quietly" not in heard, heard


@pytest.mark.integration
def test_a_beat_is_a_gap_of_at_least_0_4_s_between_the_words(rendered: dict[str, object]) -> None:
    rate = int(rendered["rate"])  # type: ignore[call-overload]
    clips: list[np.ndarray] = rendered["clips"]  # type: ignore[assignment]
    _, gap = longest_inner_silence(clips[0], rate)
    assert gap >= 0.4
    # The same words without the beat have no such gap: it is the direction's.
    synth = ClipSynthesizer(VoiceLibrary(), rate, ClipCache())
    _, plain_gap = longest_inner_silence(np.asarray(synth.synthesize("Tickets, please. Both of you.", VoiceParams())),
                                         rate)
    assert plain_gap < 0.4 <= gap


@pytest.mark.integration
def test_whispering_shouting_and_slowly_move_what_they_claim(rendered: dict[str, object]) -> None:
    rate = int(rendered["rate"])  # type: ignore[call-overload]
    clips: list[np.ndarray] = rendered["clips"]  # type: ignore[assignment]
    neutral, whisper, shout, slow = (features(c, rate) for c in clips[2:6])
    assert whisper.voiced_fraction < neutral.voiced_fraction / 2
    assert shout.intensity_db >= neutral.intensity_db + 4.0  # in the role's stem: levelling kept the offset
    assert shout.f0_median > neutral.f0_median
    assert slow.seconds >= neutral.seconds * 1.15
