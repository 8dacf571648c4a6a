"""Issue 51: every delivery preset is levelled before its limiter. ACX levels each chapter on
its own (RMS -20 dBFS counting its pauses and room tone, peaks under -3 dBFS): the dialogue
leveller now levels each scene's lines for the gain its chapter is delivered at
(engine/export/chapter_levels.py), and a sparse chapter is delivered quieter within the
spec's range rather than squashed (engine/export/delivery.py LIMITING_BUDGET_DB). Before,
this script's sparse middle chapter took 29.6 dB of limiting and the others 5-6 dB.
Rendered with the real bundled voice, one voicing shared by the three presets."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.export.presets import preset_named
from engine.export.render import RenderOptions, render_project
from engine.project.fileformat import save_project
from engine.project.importers.build import import_script
from tests.support.render import synth_for

# Three scenes: two of plain dialogue, one sparse (pauses inside and between its lines).
SCRIPT = """\
# Title: Three Rooms
# Scene 1 - The quay
ANNA: The boat is late again, and the harbour master has gone home for his supper.
TOM: Then we wait here by the wall until the light comes round again.
ANNA: I can see the mast now, past the point, coming in slowly on the tide.
# Scene 2 - The shed
ANNA: Father, the boat is in. [pause 3] Father? Are you awake in there?
[pause 2]
TOM: He sleeps like the dead. [pause 3] Leave him, we can manage it ourselves.
# Scene 3 - The boat
TOM: Throw me the line! Quickly now, before she drifts off the wall!
ANNA: It is too short, Tom, it will never reach you from here!
"""
BUDGET_DB = 3.0  # the bar: at most 3 dB of gain reduction on any chapter


@pytest.mark.integration
def test_every_preset_levels_its_chapters_before_the_limiter(tmp_path: Path) -> None:
    script = tmp_path / "rooms.txt"
    script.write_text(SCRIPT, encoding="utf-8")
    project, _ = import_script(script)
    path = tmp_path / "rooms.radioplay"
    save_project(project, path)
    synth = synth_for(path)
    for name in ("podcast", "acx", "ebu-r128"):
        preset = preset_named(name)
        options = RenderOptions(target_lufs=preset.target_lufs, preset=preset, stems=False)
        report = render_project(project, synth, tmp_path / name, options, project_path=path)
        compliance = report.compliance
        assert compliance is not None and compliance.passed, (name, compliance and compliance.failures())
        work = {w.stage: w.max_reduction_db for w in compliance.levelling}
        assert len(work) == (4 if name == "acx" else 2)  # the master and each delivered file
        assert max(work.values()) <= BUDGET_DB, (name, work)
    # The others are levelled to -20 dBFS; the sparse chapter reaches it too, or gives way
    # inside ACX's range (never squashed past the budget, asserted above).
    acx = tmp_path / "acx" / "chapters"
    rms = []
    for file in sorted(acx.iterdir()):
        audio, _ = sf.read(file, dtype="float32")
        rms.append(10 * np.log10(np.mean(np.square(audio, dtype=np.float64))))
    assert len(rms) == 3 and all(-23.0 <= r <= -18.0 for r in rms), rms
    assert abs(rms[0] + 20.0) <= 1.0 and abs(rms[2] + 20.0) <= 1.0, rms
    assert abs(rms[1] + 20.0) <= 1.0 or -22.5 <= rms[1] < min(rms[0], rms[2]), rms
