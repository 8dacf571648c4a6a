"""Reading who a role is stays linear in the script, whatever the prose repeats (issue 57).

"TOM (" forty thousand times in one action paragraph made every unclosed parenthesis read
to the paragraph's end: 200 KB took 99 s to import. Hypothesis builds the paragraph from the
pieces the rules look for (names, parentheses, commas, ages, pronouns, descriptions) and the
work is measured at n and 4n characters, up to 100,000 (the method of test_linear_time.py:
a ratio of thread CPU times, never a wall-clock threshold).
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.project.casting import infer_characters
from engine.project.importers.build import import_script
from engine.project.model import Line, Project, Role, Scene
from tests.support.growth import LINEAR, growth

PIECES = ("TOM", "TOM ", "TOM (", "(", ")", ", ", "Tom is ", "MACLEOD ", "a man ", "a woman ", "in his ", "in her ",
          "seventies", "70s", "nine", "-year-old ", "aged ", "he ", "she ", "her son ", "I am ", "I'm ", "my name is ",
          " ", ".", "\"")
LARGE = 100_000  # characters at 4n


def _project(prose: str) -> Project:
    return Project(cast=[Role(name="TOM"), Role(name="NARRATOR")], scenes=[Scene(id="S1", notes=[prose])],
                   lines=[Line(id="L1", role="NARRATOR", text=prose[:2_000], scene="S1"),
                          Line(id="L2", role="TOM", text=prose[:2_000], scene="S1")])


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join))
def test_character_inference_is_linear_in_the_prose(unit: str) -> None:
    def make(n: int) -> Project:
        return _project((unit * (n // len(unit) + 1))[:n])

    assert growth(infer_characters, make, LARGE // 4) < LINEAR


def test_an_action_paragraph_of_unclosed_parentheses_imports_in_linear_time(tmp_path: Path) -> None:
    def run(paragraph: str) -> object:
        script = tmp_path / "play.fountain"
        script.write_text(f"INT. ROOM - DAY\n\n{paragraph}\n\nTOM\nHello.\n", encoding="utf-8")
        return import_script(script)

    assert growth(run, lambda n: "TOM (" * n, 5_000) < LINEAR
