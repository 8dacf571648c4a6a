"""Issue 57: what a line may ask for, one table (engine/project/defaults.py LineBounds)
and one check (engine/project/bounds.py), as the loader, the importers, the synthesizer
and the pieces of a line see it. Each test names the direction where a line went over."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.project.bounds import edited_overstep, line_overstep, planned_size, project_overstep
from engine.project.defaults import LINE_BOUNDS
from engine.project.deliveries import NOISE_LIMITS, delivery
from engine.project.direction import parse_line
from engine.project.fileformat import ProjectFileError, load_project, project_to_dict
from engine.project.importers.build import import_script
from engine.project.importers.parsed import ScriptSyntaxError
from engine.project.model import Line, Project, Role, Timing
from engine.synth import shaping
from engine.synth.errors import TextError
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.hostile import tiny_project

PAUSES = "Hello there. " + "[pause 60] " * 3 + "Goodbye."  # 180 s: over the line's 120


def test_a_line_past_its_pause_bound_names_the_direction_where_it_went_over() -> None:
    problem = line_overstep(PAUSES)
    assert problem is not None and problem.field == "text"
    # The third [pause 60] passes 120 s; it stands at column 36.
    assert str(problem) == ("its pauses add up to more than 120 s by '[pause 60]' at column 36 of the line; "
                            "a longer silence goes before the next line, as its pause")
    assert line_overstep("Hello there. [pause 60] [pause 60] Goodbye.") is None  # exactly the bound


def test_the_delivery_note_counts_and_is_bounded_in_length() -> None:
    assert str(line_overstep("Hello. [pause 60] Bye.", note="pause 50, pause 20")).startswith(
        "its pauses add up to more than 120 s by '[pause 60]' at column 8 of the line")  # 70 s before it
    problem = line_overstep("Hello.", note="pause 60, pause 60, pause 10")
    assert problem is not None and problem.field == "note"
    assert "more than 120 s by 'pause 60, pause 60, pause 10' at column 1 of the Delivery note" in str(problem)
    long_note = line_overstep("Hello.", note="quietly " * 200)
    assert long_note is not None and str(long_note).startswith("the Delivery note is 1,600 characters; at most 1,000")


def test_the_project_beat_length_is_what_a_beat_asks_for() -> None:
    beats = "Hello. " + "(beat) " * 3 + "Bye."
    assert line_overstep(beats) is None  # three 0.6 s beats
    problem = line_overstep(beats, timing=Timing(beat=60.0))
    assert problem is not None and "by '(beat)' at column 22" in str(problem)


@pytest.mark.parametrize(("text", "expected"), [
    ("(sad) a (happy) b " * 51, "it has more than 100 directions by '(sad)' at column 901 of the line"),
    ("(sad, happy, sad, happy) " * 26, "it has more than 100 directions by '(sad, happy, sad, happy)' at column 626"),
    ("*a* " * 101, "it emphasizes more than 100 words by '*a*' at column 401 of the line"),
    ("9" * 1_800, "its words take about 13 minutes to say; at most 12 minutes in one line"),
])
def test_directions_emphasis_and_spoken_length_are_bounded(text: str, expected: str) -> None:
    problem = line_overstep(text)
    assert problem is not None and str(problem).startswith(expected)
    assert line_overstep(text[:len(text) // 2]) is None  # half of each is within its bound


def test_one_long_pause_is_capped_with_a_warning_not_refused() -> None:
    directed = parse_line("Wait. [pause 600] Now.")
    assert directed.phrases[1].pause_before == LINE_BOUNDS.direction_pause_s == 60.0
    assert directed.warnings == ("'pause 600' at column 7: 600 s is longer than one pause may be; capped to 60 s "
                                 "(a longer silence goes before the next line, as its pause)",)
    assert parse_line("Now.", note="pause 90").warnings[0].startswith("'pause 90' in the Delivery note: 90 s")
    assert line_overstep("Wait. [pause 600] Now.") is None


def test_warnings_of_one_kind_in_a_line_are_summarized() -> None:
    warnings = parse_line("] ] ] ] x" + "(" * 19_990).warnings
    assert len(warnings) == 6
    assert warnings[2] == "unmatched ']' at column 5: ignored; write \\] to say it (and 1 more like it in this line)"
    assert warnings[5] == ("unclosed '(' at column 12: its words are spoken; close it, or write \\( to say it "
                           "(and 19,987 more like it in this line)")


def test_combined_deliveries_stay_within_what_a_voice_does() -> None:
    many = parse_line("(" + ", ".join(["very hesitant"] * 40) + ") Well. I. Think. So.")
    performance = many.phrases[0].performance()
    assert performance.phrase_pause == LINE_BOUNDS.phrase_pause_s  # not 40 x 0.4 s after every sentence
    tearful = parse_line("(" + ", ".join(["very tearful"] * 40) + ") Oh.").phrases[0].performance()
    assert tearful.noise == NOISE_LIMITS[1]
    assert delivery("tearful").performance.noise < NOISE_LIMITS[1]  # one direction is untouched


def test_planned_size_counts_words_silences_and_phrases() -> None:
    size = planned_size(parse_line("Hello there. (beat) How are you? (hesitant) Fine, thanks."))
    assert size.phrases == 3
    assert size.silence_s == pytest.approx(0.6 + 0.25 * 2)  # the beat, then a hesitant pause per clause
    assert planned_size(parse_line("1234")).said_chars == 24  # a digit is a word


def test_the_project_bound_counts_every_lines_silence() -> None:
    project = Project(cast=[Role("A")], lines=[Line(f"L{i}", "A", "Hi. [pause 60] [pause 60] Bye.", pause_before=600)
                                               for i in range(11)])
    found = project_overstep(project)  # 11 x 720 s = 2.2 hours
    assert found is not None and found[0] == 10  # ten of them are exactly two hours
    assert str(found[1]) == "the pauses of the lines up to this one add up to more than 2 hours"
    edited = replace(project.lines[0], text="Hi.", pause_before=0)
    assert edited_overstep(replace(project, lines=project.lines[:10]), edited) is None
    assert edited_overstep(project, Line("NEW", "A", PAUSES)) is not None


def test_the_loader_refuses_naming_file_line_and_direction(tmp_path: Path, tiny_voices: dict[str, Path]) -> None:
    data = project_to_dict(tiny_project(tiny_voices["single"]))
    data["lines"][1]["text"] = PAUSES
    path = tmp_path / "pauses.radioplay"
    path.write_text(json.dumps(data))
    with pytest.raises(ProjectFileError) as info:
        load_project(path)
    assert str(info.value) == (f"{path}: lines[1].text: line 'L2': its pauses add up to more than 120 s by "
                               f"'[pause 60]' at column 36 of the line; a longer silence goes before the next "
                               f"line, as its pause")


def test_the_importer_refuses_naming_the_script_line(tmp_path: Path) -> None:
    script = tmp_path / "play.txt"
    script.write_text("ANNA: Hello.\nBEN: " + "*a* " * 150 + "\n")
    with pytest.raises(ScriptSyntaxError) as info:
        import_script(script)
    assert str(info.value) == f"{script}:2: BEN's line: it emphasizes more than 100 words by '*a*' at column 401 " \
                              f"of the line"


def test_the_synthesizer_refuses_an_unbounded_line_made_in_code(tiny_synth: ClipSynthesizer,
                                                                tiny_voices: dict[str, Path]) -> None:
    voice = tiny_project(tiny_voices["single"]).cast[0].voice
    with pytest.raises(TextError, match=r"^its pauses add up to more than 120 s by '\[pause 60\]'"):
        tiny_synth.plan(PAUSES, voice)
    speech = "Word after word. " * 400  # 6,800 characters: about 8 minutes, at half speed 16
    assert line_overstep(speech) is None
    tiny_synth.plan(speech, voice)
    with pytest.raises(TextError, match=r"^its words take about 16 minutes to say at this voice's speed; at most 12"):
        tiny_synth.plan(speech, voice.with_changes(speed=0.5))


def test_silence_is_never_allocated_past_a_lines_bound() -> None:
    # The last guard: a plan that slipped past every check asks join for 10 hours of zeros.
    pieces = [np.ones(10, dtype=np.float32)] * 3
    with pytest.raises(TextError, match=r"^the line asks for 36000.3 s of silence; at most 120 s"):
        shaping.join(pieces, [0.3, 36_000.0, 0.3], 22_050)
    with pytest.raises(TextError):
        shaping.silence(float("inf"), 22_050)
    assert shaping.join(pieces, [0.3, 60.0, 0.3], 100).size == 30 + 30 + 6000
