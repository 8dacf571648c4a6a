"""Issue 57: `radioplay check --json` always prints valid JSON. Lines with nothing to say
(blank, or only directions) are skipped and listed, not a multi-line error with no JSON;
a clip in the cache that is empty or NaN is voiced again (the old check: an IndexError
traceback, and a bare NaN); a check that cannot run prints {"error": ...}. The hostile
projects and clips are generated here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engine.check.lines import LineResult
from engine.check.speech import check_clip
from engine.cli import main
from engine.project.fileformat import load_project, save_project
from engine.project.model import Line, Role, VoiceParams
from engine.synth.clipfolder import user_cache_dir
from engine.synth.pipeline import plan_lines
from engine.synth.synthesizer import make_synthesizer
from tests.support.hostile import project_file


def _strict(text: str) -> Any:
    """JSON as any other parser reads it: NaN and Infinity are not JSON."""
    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


def _check_json(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    capsys.readouterr()
    code = main(["check", str(path), "--json"])
    out = capsys.readouterr()
    lines = out.out.splitlines()
    assert len(lines) == 1, out.out  # one object, nothing else on stdout
    return code, _strict(lines[0]), out.err


def test_lines_with_nothing_to_say_are_skipped_and_listed(tmp_path: Path, tiny_voices, capsys) -> None:
    path = project_file(tmp_path, tiny_voices["single"])
    project = load_project(path)
    project.lines += [Line("L3", "ANNA", "   ", scene="S1"), Line("L4", "BEN", "(beat)", scene="S1"),
                      Line("L5", "ANNA", "[pause 2] (whispering)", scene="S1")]
    save_project(project, path)
    code, report, err = _check_json(path, capsys)
    assert [r["id"] for r in report["lines"]] == ["L1", "L2"]
    assert report["skipped"] == [
        {"id": "L3", "role": "ANNA", "reason": "text is empty"},
        {"id": "L4", "role": "BEN", "reason": "nothing speakable in '(beat)' (only directions or markup)"},
        {"id": "L5", "role": "ANNA", "reason": "nothing speakable in '[pause 2] (whispering)' (only directions or "
                                                "markup)"}]
    assert code == (1 if report["flagged"] else 0) and err == ""
    capsys.readouterr()
    main(["check", str(path)])
    assert capsys.readouterr().out.splitlines()[-1].endswith(", 3 skipped (nothing to say)")


@pytest.mark.parametrize("kind", ["empty", "nan"])
def test_a_spoiled_clip_in_the_cache_is_checked_as_voiced_again(tmp_path: Path, tiny_voices, capsys, kind: str
                                                                ) -> None:
    path = project_file(tmp_path, tiny_voices["single"], lines=1)
    _, first, _ = _check_json(path, capsys)
    project = load_project(path)
    clip = user_cache_dir() / f"{plan_lines(project, make_synthesizer(path, project.sample_rate))['L1'].key}.npy"
    samples = np.load(clip)
    np.save(clip, samples[:0] if kind == "empty" else np.full_like(samples, np.nan))
    code, again, err = _check_json(path, capsys)
    assert again == first and "Traceback" not in err  # the old check: IndexError, or "similarity": NaN
    assert np.array_equal(np.load(clip), samples)  # voiced again, kept anew


def test_a_check_that_cannot_run_prints_one_json_error(tmp_path: Path, tiny_voices, capsys) -> None:
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(tiny_voices["single"].read_bytes())
    Path(f"{broken}.json").write_text("{", encoding="utf-8")  # a voice whose config cannot be read
    path = project_file(tmp_path, tiny_voices["single"])
    project = load_project(path)
    project.cast.append(Role("NOBODY", voice=VoiceParams(voice=str(broken))))
    project.lines += [Line("L3", "NOBODY", "Who am I?", scene="S1"), Line("L4", "ANNA", "", scene="S1"),
                      Line("L5", "NOBODY", "Nobody.", scene="S1")]
    save_project(project, path)
    code, report, err = _check_json(path, capsys)
    assert code == 1 and set(report) == {"error"}
    # The voice's problem, once for its role; the blank line is skipped, not another problem.
    assert report["error"].startswith(f"{path}: role NOBODY (2 lines, first line 3): ")
    assert err == f"radioplay: error: {report['error']}\n"
    code, report, err = _check_json(tmp_path / "missing.radioplay", capsys)
    assert code == 1 and set(report) == {"error"} and err == f"radioplay: error: {report['error']}\n"


def test_a_clip_of_no_sound_is_flagged_without_listening() -> None:
    empty = check_clip(np.zeros(0, np.float32), 48_000, "The lamp is lit.")
    assert empty.flagged and empty.reason == "no sound: the clip is empty"
    nan = check_clip(np.full(48_000, np.nan, np.float32), 48_000, "The lamp is lit.")
    assert nan.flagged and nan.reason == "samples that are not numbers (NaN or infinity)"
    result = LineResult("L1", "ANNA", float("nan"), True, "x", similarity=float("nan"), quality=float("inf"))
    assert json.dumps(result.to_json(), allow_nan=False).count("null") == 3
