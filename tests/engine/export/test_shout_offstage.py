"""Issue 52: a shout off stage is a loud voice heard from far away, louder than the same line
off stage said plainly, through the commands a producer runs (``radioplay import`` and
``radioplay render``), measured in the role's stem with praat-parselmouth.

Two renders of one script, the second without the ``(shouting)``: the same role, the same
words, the same perspective. The role trim that keeps a shout under the stems' ceiling
pulled the whole role down by the shout's offset, so the off-stage shout came out as loud
as the plain off-stage line (-0.4 dB on the held-out storm script); a shout 6 m away and
round a corner is 24 dB under the ceiling already and needs no trim."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.cli import main
from tests.support.listening import features

SCRIPT = """\
Title: Off the skerry

EXT. HARBOUR WALL - NIGHT

OLD TAM
There is a green light out there, off the north skerry.

ANGUS (O.S.)
{direction}Kilbrae! Our engine has gone and we are drifting!

OLD TAM
They will be on the rocks inside the hour.

ANGUS
I owe you a bottle for tonight, Tam, and that is a promise.
"""


def _render(folder: Path, direction: str) -> dict[str, float]:
    script = folder / "skerry.fountain"
    script.write_text(SCRIPT.format(direction=direction), encoding="utf-8")
    project = folder / "skerry.radioplay"
    out = folder / "out"
    assert main(["import", str(script), "-o", str(project)]) == 0
    assert main(["render", str(project), "-o", str(out)]) == 0
    cues = [c for c in json.loads((out / "cues.json").read_text(encoding="utf-8"))["cues"]
            if c["kind"] == "line" and c["role"] == "ANGUS"]
    stem, rate = sf.read(out / "stems" / "ANGUS.wav", dtype="float32")
    mono = stem.mean(axis=1)
    levels = {}
    for cue in cues:
        span = mono[int(cue["start"] * rate):int(cue["end"] * rate)]
        levels[cue.get("perspective", "")] = features(np.ascontiguousarray(span), rate).intensity_db
    return levels


@pytest.fixture(scope="module")
def levels(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, float], dict[str, float]]:
    shouted = _render(tmp_path_factory.mktemp("shouted"), "(shouting)\n")
    plain = _render(tmp_path_factory.mktemp("plain"), "")
    return shouted, plain


@pytest.mark.integration
def test_a_shout_off_stage_is_louder_than_the_same_line_off_stage(
        levels: tuple[dict[str, float], dict[str, float]]) -> None:
    shouted, plain = levels
    assert set(shouted) == set(plain) == {"off", ""}
    assert shouted["off"] >= plain["off"] + 4.0, (shouted, plain)
    # ...and still a voice from over there: well under the role's own line at the mic.
    assert shouted["off"] <= shouted[""] - 6.0, shouted


@pytest.mark.integration
def test_a_shout_off_stage_leaves_the_roles_other_lines_where_they_were(
        levels: tuple[dict[str, float], dict[str, float]]) -> None:
    shouted, plain = levels
    assert abs(shouted[""] - plain[""]) <= 1.0, (shouted, plain)
