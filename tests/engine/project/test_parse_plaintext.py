"""Plain-text importer: the NAME: text format, its comments, pauses and errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.project.importers.parsed import Action, Dialogue, Note, Pause, SceneHeading, ScriptSyntaxError
from engine.project.importers.plaintext import parse_plaintext
from engine.project.sound import parse_cue
from tests.support.paths import SAMPLES

SAMPLES = SAMPLES


def els(text: str) -> list:
    return parse_plaintext(text).elements


def error(text: str) -> ScriptSyntaxError:
    with pytest.raises(ScriptSyntaxError) as info:
        parse_plaintext(text, source="play.txt")
    return info.value


def test_dialogue_lines_and_name_normalization() -> None:
    text = "MAGGIE: Hello there.\n\n  mr.   hollis :   Good   evening.  \nDr. O'Neil-2: Yes: quite.\n"
    assert els(text) == [
        Dialogue("MAGGIE", "Hello there.", 1),
        Dialogue("MR. HOLLIS", "Good evening.", 3),
        Dialogue("DR. O'NEIL-2", "Yes: quite.", 4),
    ]


def test_parenthetical_note() -> None:
    assert els("Bob (quietly): Hi.\nSUE (to Bob: low) : Hey.\nAL (): Yo.\n") == [
        Dialogue("BOB", "Hi.", 1, note="quietly"),
        Dialogue("SUE", "Hey.", 2, note="to Bob: low"),
        Dialogue("AL", "Yo.", 3),
    ]


def test_title_and_comments() -> None:
    script = parse_plaintext("# Title:  The Last   Broadcast\n# just a note: BOB is tired\n#\nBOB: Hi.\n")
    assert script.title == "The Last Broadcast"
    assert script.metadata == {"title": "The Last Broadcast"}
    # Issue 16: comments are kept (as scene notes), not dropped; a bare "#" holds nothing.
    assert script.elements == [Note("just a note: BOB is tired", 2), Dialogue("BOB", "Hi.", 4)]


def test_scene_comments() -> None:
    text = (
        "# Scene: The studio\n# Scene 1 \u2014 The hill, 2:40 a.m.\n# Scene 2 - The caller\n"
        "#SCENE 3: Night\n# scene 4\n# Scene\n# Scene 12b. Dawn\n# Scenery is lovely\n"
    )
    assert els(text) == [
        SceneHeading("The studio", 1),
        SceneHeading("The hill, 2:40 a.m.", 2),
        SceneHeading("The caller", 3),
        SceneHeading("Night", 4),
        SceneHeading("Scene 4", 5),
        SceneHeading("Scene", 6),
        SceneHeading("Dawn", 7),
        Note("Scenery is lovely", 8),
    ]


def test_pause_lines() -> None:
    assert els("[pause 1.5]\n[pause]\n[Pause 500ms]\n  [ pause 2s ]  \n[pause 0.25 seconds]\n[pause .5]\n") == [
        Pause(1.5, 1),
        Pause(1.0, 2),
        Pause(0.5, 3),
        Pause(2.0, 4),
        Pause(0.25, 5),
        Pause(0.5, 6),
    ]


def test_pause_at_start_and_end_of_dialogue() -> None:
    text = "BOB: [pause 2] Hold on.\nSUE: Wait. [pause]\nAL: [pause 1] Both. [pause 300ms]\n[pause 3] JO: First.\n"
    assert els(text) == [
        Pause(2.0, 1),
        Dialogue("BOB", "Hold on.", 1),
        Dialogue("SUE", "Wait.", 2),
        Pause(1.0, 2),
        Pause(1.0, 3),
        Dialogue("AL", "Both.", 3),
        Pause(0.3, 3),
        Pause(3.0, 4),
        Dialogue("JO", "First.", 4),
    ]


def test_crlf_bom_and_lone_cr() -> None:
    assert els("\ufeffBOB: Hi.\r\n\r\nSUE: Yo.\rAL: Hey.\r\n") == [
        Dialogue("BOB", "Hi.", 1),
        Dialogue("SUE", "Yo.", 3),
        Dialogue("AL", "Hey.", 4),
    ]


def test_empty_input() -> None:
    script = parse_plaintext("", source="x.txt")
    assert script.source == "x.txt" and script.elements == [] and script.title == ""


# --- errors -----------------------------------------------------------------


def test_error_line_without_name() -> None:
    err = error("BOB: Hi.\n\nThis line has no speaker at all.\n")
    assert (err.source, err.line) == ("play.txt", 3)
    assert err.problem == "expected 'NAME: text', got 'This line has no speaker at all.'"
    assert str(err) == "play.txt:3: expected 'NAME: text', got 'This line has no speaker at all.'"


def test_error_shows_at_most_60_characters() -> None:
    long = "x" * 100
    err = error(f"BOB: Hi.\n{long}\n")
    assert err.line == 2
    assert err.problem == f"expected 'NAME: text', got '{'x' * 60}\u2026 (100 characters)'"


def test_error_escapes_control_characters_of_the_line() -> None:
    err = error("SUE\x1b[31m\x07: Hello there.\n")
    assert err.problem == "expected 'NAME: text', got 'SUE\\x1b[31m\\x07: Hello there.'"


@pytest.mark.parametrize(
    "line",
    ["BOB! : hi", ": no name", "(note): hi", "123: digits only", "BOB (a)(b): hi", "[music] x", "B_B: hi",
     "(unclosed: hi"],
)
def test_error_bad_names(line: str) -> None:
    err = error(f"# c\n{line}\n")
    assert err.line == 2
    assert err.problem == f"expected 'NAME: text', got '{line}'"


def test_error_empty_line() -> None:
    err = error("BOB: Hi.\nsue :   \n")
    assert (err.line, err.problem) == (2, "empty line for SUE")
    assert error("AL: [pause 2]\n").problem == "empty line for AL"


@pytest.mark.parametrize("value", ["-1", "-200ms", "abc", "1,5", "1.5 min", "--1"])
def test_error_bad_pause(value: str) -> None:
    err = error(f"BOB: Hi.\n\n[pause {value}]\n")
    assert err.line == 3
    if value.startswith("-") and not value.startswith("--"):
        assert err.problem == f"pause length must not be negative, got '{value}'"
    else:
        assert err.problem == (
            f"pause length must be seconds or milliseconds like 1.5 or 500ms, got '{value}'"
        )


def test_error_bad_inline_pause() -> None:
    assert error("BOB: Hi [pause -2]\n").problem == "pause length must not be negative, got '-2'"


def test_error_huge_pause() -> None:
    assert error("[pause " + "9" * 400 + "]\n").problem.startswith("pause length is at most 600 seconds")


def test_a_pause_the_loader_would_refuse_is_an_error_at_its_line() -> None:
    # Issue 20 item 13: import wrote pause_before 1000, which render then refused.
    err = error("BOB: Hi.\n[pause 1000]\nBOB: Bye.\n")
    assert (err.line, err.problem) == (2, "pause length is at most 600 seconds, got '1000'")
    assert error("BOB: Hi. [pause 601s]\n").problem == "pause length is at most 600 seconds, got '601s'"
    assert els("[pause 600]\nBOB: Hi.\n") == [Pause(600.0, 1), Dialogue("BOB", "Hi.", 2)]


# --- issue 16: stage directions, delivery notes --------------------------------------


@pytest.mark.parametrize("line", ["(Foghorn, far off.)", "[Foghorn, far off.]", "  ( Foghorn,  far off. )  "])
def test_stage_direction_on_its_own_line_is_action(line: str) -> None:
    assert els(f"TOM: Listen.\n{line}\nSUE: What was that?\n") == [
        Dialogue("TOM", "Listen.", 1), Action("Foghorn, far off.", 2), Dialogue("SUE", "What was that?", 3)]


def test_nested_and_empty_directions() -> None:
    assert els("(A boat (small) passes.)\n()\n[]\n") == [Action("A boat (small) passes.", 1)]


def test_inline_parenthetical_is_the_delivery_note() -> None:
    assert els("TOM: (out of breath) Wait for me!\n") == [Dialogue("TOM", "Wait for me!", 1, note="out of breath")]
    assert els("TOM (calling): ( out of  breath )Wait!\n") == [
        Dialogue("TOM", "Wait!", 1, note="calling; out of breath")]
    assert els("TOM: [pause 2] (softly) Go. [pause]\n") == [
        Pause(2.0, 1), Dialogue("TOM", "Go.", 1, note="softly"), Pause(1.0, 1)]
    assert els("TOM: (softly) [pause 2] Go.\n") == [Pause(2.0, 1), Dialogue("TOM", "Go.", 1, note="softly")]


def test_parentheses_after_the_first_word_are_spoken() -> None:
    assert els("TOM: Wait (please) for me.\nSUE: (unclosed aside\n") == [
        Dialogue("TOM", "Wait (please) for me.", 1), Dialogue("SUE", "(unclosed aside", 2)]


def test_a_note_without_words_is_kept_as_a_scene_note() -> None:
    assert els("TOM: (nods)\nSUE (dryly): (shrugs)\n") == [Note("TOM (nods)", 1), Note("SUE (dryly; shrugs)", 2)]


# --- properties and samples -----------------------------------------------------

_NAMES = st.from_regex(r"[A-Za-z][A-Za-z0-9 .'\-]{0,15}", fullmatch=True)
_TEXTS = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9 ,.!?'\-:]{0,40}", fullmatch=True)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("AB b:#()[]pause.-12\n\r ms")), max_size=120) | st.text(max_size=200))
def test_any_text_raises_only_script_syntax_error(text: str) -> None:
    try:
        script = parse_plaintext(text)
    except ScriptSyntaxError as err:
        assert err.line >= 1
        return
    for element in script.elements:
        if isinstance(element, Pause):
            assert element.seconds >= 0
        if isinstance(element, Dialogue):
            assert element.text and element.character == element.character.upper()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_NAMES.filter(lambda n: parse_cue(f"{n}: x") is None), _TEXTS), min_size=1, max_size=10))
def test_well_formed_lines_round_trip(pairs: list[tuple[str, str]]) -> None:
    # Names that are cue words (FX, Music, ...) make sound cues, never roles (tested with the cues).
    text = "\n".join(f"{name}: {line}" for name, line in pairs)
    expected = [
        Dialogue(" ".join(name.split()).upper(), " ".join(line.split()), number)
        for number, (name, line) in enumerate(pairs, start=1)
    ]
    assert parse_plaintext(text).elements == expected


def test_sample_last_broadcast() -> None:
    path = SAMPLES / "the-last-broadcast.txt"
    script = parse_plaintext(path.read_text(encoding="utf-8"), source=path.name)
    assert sum(isinstance(e, Dialogue) for e in script.elements) >= 20
    assert script.title
