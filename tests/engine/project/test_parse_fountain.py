"""Fountain importer: exact element sequences for each syntax rule we support."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.project.importers.fountain import parse_fountain
from engine.project.importers.parsed import Action, Dialogue, SceneHeading, Transition
from tests.support.paths import SAMPLES

SAMPLES = SAMPLES


def els(text: str) -> list:
    return parse_fountain(text).elements


# --- title page -------------------------------------------------------------


def test_title_page_with_multiline_values_and_markup() -> None:
    script = parse_fountain(
        "Title:\n    _**BRICK & STEEL**_\n\t**FULL RETIRED**\nCredit: Written by\n"
        "Author: Stu Maschwitz\nDraft Date: 1/20/2012\n\nINT. HOUSE - DAY\n",
        source="brick.fountain",
    )
    assert script.source == "brick.fountain"
    assert script.title == "BRICK & STEEL FULL RETIRED"
    assert script.metadata == {
        "title": "BRICK & STEEL\nFULL RETIRED",
        "credit": "Written by",
        "author": "Stu Maschwitz",
        "draft date": "1/20/2012",
    }
    assert script.elements == [SceneHeading("INT. HOUSE - DAY", 8)]


def test_fade_in_is_not_a_title_page() -> None:
    script = parse_fountain("FADE IN:\n\nINT. HOUSE - DAY\n")
    assert script.title == "" and script.metadata == {}
    assert script.elements == [Action("FADE IN:", 1), SceneHeading("INT. HOUSE - DAY", 3)]


def test_no_title_page_when_a_line_is_not_key_value() -> None:
    script = parse_fountain("Title: X\nJust some action.\n")
    assert script.metadata == {}
    assert script.elements == [Action("Title: X\nJust some action.", 1)]


# --- scene headings ---------------------------------------------------------


def test_scene_heading_prefixes_and_scene_numbers() -> None:
    text = (
        "INT. HOUSE - DAY #1A#\n\next. garden\n\nEST. CITY\n\nINT./EXT. CAR - MOVING\n\n"
        "I/E KITCHEN\n\n.SNIPER SCOPE POV #12#\n\n...and then silence.\n\nINTERIOR DESIGN\n"
    )
    assert els(text) == [
        SceneHeading("INT. HOUSE - DAY", 1),
        SceneHeading("ext. garden", 3),
        SceneHeading("EST. CITY", 5),
        SceneHeading("INT./EXT. CAR - MOVING", 7),
        SceneHeading("I/E KITCHEN", 9),
        SceneHeading("SNIPER SCOPE POV", 11),
        Action("...and then silence.", 13),
        Action("INTERIOR DESIGN", 15),
    ]


def test_heading_needs_blank_line_before_and_rest_of_paragraph_is_action() -> None:
    assert els("Some action.\nINT. HOUSE\n\nINT. BARN\nThe cows low.\n") == [
        Action("Some action.\nINT. HOUSE", 1),
        SceneHeading("INT. BARN", 4),
        Action("The cows low.", 5),
    ]


# --- character cues and dialogue --------------------------------------------


def test_cue_with_extensions_are_stripped_and_kept() -> None:
    text = "BOB (V.O.)\nHello.\n\nMARY (O.S.) (cont'd)\nHi there.\n\nMR. O'NEIL-SMITH 2\nYes.\n"
    assert els(text) == [
        Dialogue("BOB", "Hello.", 1, extensions=("V.O.",)),
        Dialogue("MARY", "Hi there.", 4, extensions=("O.S.", "cont'd")),
        Dialogue("MR. O'NEIL-SMITH 2", "Yes.", 7),
    ]


def test_forced_cue_keeps_case_and_dual_dialogue() -> None:
    text = "@McCLANE (CONT'D)\nYippee.\n\nBRICK\nScrew retirement.\n\nSTEEL ^\nScrew retirement.\n\n@tom^\nMe too.\n"
    assert els(text) == [
        Dialogue("McCLANE", "Yippee.", 1, extensions=("CONT'D",)),
        Dialogue("BRICK", "Screw retirement.", 4),
        Dialogue("STEEL", "Screw retirement.", 7, dual=True),
        Dialogue("tom", "Me too.", 10, dual=True),
    ]


def test_lowercase_line_is_not_a_cue_and_cue_needs_blank_line_before() -> None:
    assert els("Bob\nHello.\n\nAction here.\nBOB\nHello.\n") == [
        Action("Bob\nHello.", 1),
        Action("Action here.\nBOB\nHello.", 4),
    ]


def test_multiline_dialogue_joined_and_two_space_line_keeps_block() -> None:
    text = "BOB\nThis is line one\nand line two.\n  \nStill me.\n\nNot me.\n"
    assert els(text) == [
        Dialogue("BOB", "This is line one and line two. Still me.", 1),
        Action("Not me.", 7),
    ]


def test_parenthetical_at_start_is_note() -> None:
    assert els("BOB\n(quietly)\nHello.\n") == [Dialogue("BOB", "Hello.", 1, note="quietly")]


def test_parenthetical_mid_block_splits_dialogue() -> None:
    text = "BOB (V.O.) ^\n(softly)\nHello.\nAre you there?\n(beat)\n(louder)\nHELLO?\n"
    assert els(text) == [
        Dialogue("BOB", "Hello. Are you there?", 1, extensions=("V.O.",), note="softly", dual=True),
        Dialogue("BOB", "HELLO?", 5, extensions=("V.O.",), note="beat; louder", dual=True),
    ]


def test_parenthetical_over_two_lines() -> None:
    assert els("BOB\n(softly,\nalmost a whisper)\nHi.\n") == [
        Dialogue("BOB", "Hi.", 1, note="softly, almost a whisper")
    ]


def test_trailing_parenthetical_warns() -> None:
    script = parse_fountain("BOB\nHello.\n(sighs)\n")
    assert script.elements == [Dialogue("BOB", "Hello.", 1)]
    assert script.warnings == ["line 3: parenthetical '(sighs)' has no dialogue after it"]


def test_lyrics_in_dialogue_lose_tilde() -> None:
    assert els("BOB\n~Willy Wonka!\n") == [Dialogue("BOB", "Willy Wonka!", 1)]


# --- emphasis, action, centered, lyrics -----------------------------------------


def test_emphasis_is_stripped_and_escapes_kept() -> None:
    text = "BOB\nThis is ***very*** **bold**, *italic* and _under_ \\*not\\* snake_case 2 * 3.\n\n*Dark* _room_.\n"
    assert els(text) == [
        Dialogue("BOB", "This is very bold, italic and under *not* snake_case 2 * 3.", 1),
        Action("Dark room.", 4),
    ]


def test_action_paragraphs_forced_centered_and_lyrics() -> None:
    text = "The door opens.\nA cat walks in.\n\n!SCREAMING\nIn the dark.\n\n> THE END <\n\n~Sing a song\n~of sixpence\n"
    assert els(text) == [
        Action("The door opens.\nA cat walks in.", 1),
        Action("SCREAMING\nIn the dark.", 4),
        Action("THE END", 7),
        Action("Sing a song\nof sixpence", 9),
    ]


def test_two_space_line_inside_action_keeps_a_blank() -> None:
    assert els("One.\n  \nTwo.\n") == [Action("One.\n\nTwo.", 1)]


# --- transitions ------------------------------------------------------------


def test_transitions_natural_and_forced() -> None:
    text = "Action.\n\nCUT TO:\n\nINT. HOUSE\n\n> Burn to white.\n\nSMASH CUT TO:\nmore\n"
    assert els(text) == [
        Action("Action.", 1),
        Transition("CUT TO:", 3),
        SceneHeading("INT. HOUSE", 5),
        Transition("Burn to white.", 7),
        Action("SMASH CUT TO:\nmore", 9),
    ]


def test_transition_needs_blank_line_before() -> None:
    assert els("He runs.\nCUT TO:\n") == [Action("He runs.\nCUT TO:", 1)]


# --- ignored markup and line numbers -----------------------------------------


def test_boneyard_spanning_lines_keeps_line_numbers() -> None:
    text = "/*\nINT. CUT SCENE\n\nBOB\nGone.\n*/\n\nINT. KEPT - DAY\n\nBOB\nHello /* inline */ there.\n"
    script = parse_fountain(text)
    assert script.elements == [
        SceneHeading("INT. KEPT - DAY", 8),
        Dialogue("BOB", "Hello there.", 10),
    ]
    assert script.warnings == []


def test_notes_inline_and_multiline_are_removed() -> None:
    text = "BOB\nHello [[fix this]] there.\n[[a note\non two lines]]\nStill Bob.\n\nALICE\nHi.[[x]]\n"
    assert els(text) == [
        Dialogue("BOB", "Hello there. Still Bob.", 1),
        Dialogue("ALICE", "Hi.", 7),
    ]


def test_note_with_empty_line_is_not_a_note() -> None:
    assert els("[[open\n\nclose]]\n") == [Action("[[open", 1), Action("close]]", 3)]


def test_sections_synopses_page_breaks_ignored() -> None:
    text = "# ACT ONE\n\n= They meet.\n\nINT. HOUSE\n\n===\n\n## Sequence\n= More\nBOB\nHi.\n"
    assert els(text) == [SceneHeading("INT. HOUSE", 5), Dialogue("BOB", "Hi.", 11)]


def test_crlf_bom_tabs_trailing_whitespace() -> None:
    text = "\ufeffTitle: Tab Test\r\n\r\nINT. HOUSE   \r\n\r\n\tBOB (V.O.)  \r\n\tHello\t\r\nthere.  \r\n"
    script = parse_fountain(text)
    assert script.title == "Tab Test"
    assert script.elements == [
        SceneHeading("INT. HOUSE", 3),
        Dialogue("BOB", "Hello there.", 5, extensions=("V.O.",)),
    ]


def test_lone_carriage_returns_count_as_lines() -> None:
    assert els("A.\r\rB.\r") == [Action("A.", 1), Action("B.", 3)]


# --- warnings ---------------------------------------------------------------


def test_forced_cue_without_dialogue_warns() -> None:
    script = parse_fountain("Action.\n\n@BOB\n\nMore action.\n")
    assert script.elements == [Action("Action.", 1), Action("More action.", 5)]
    assert script.warnings == ["line 3: character cue 'BOB' has no dialogue"]


def test_cue_with_only_parenthetical_warns() -> None:
    script = parse_fountain("BOB\n(sighs)\n")
    assert script.elements == []
    assert script.warnings == ["line 1: character cue 'BOB' has no dialogue"]


def test_lone_upper_case_line_of_a_known_speaker_warns() -> None:
    text = "BOB\nHi.\n\nBOB (CONT'D)\n\nSILENCE.\n"
    script = parse_fountain(text)
    assert script.elements == [Dialogue("BOB", "Hi.", 1), Action("SILENCE.", 6)]
    assert script.warnings == ["line 4: character cue 'BOB' has no dialogue"]


def test_unterminated_boneyard_warns_and_keeps_text() -> None:
    script = parse_fountain("INT. HOUSE\n\n/*\nBOB\nStill here.\n")
    assert script.elements == [SceneHeading("INT. HOUSE", 1), Dialogue("BOB", "Still here.", 4)]
    assert script.warnings == ["line 3: boneyard '/*' is never closed with '*/'; marker ignored"]


def test_warnings_are_sorted_by_line() -> None:
    script = parse_fountain("/* open\n\n@ANN\n\n@BOB\n")
    assert [w.split(":")[0] for w in script.warnings] == ["line 1", "line 3", "line 5"]


def test_empty_and_blank_input() -> None:
    for text in ("", "\n\n", "\ufeff", "   \r\n\t"):
        script = parse_fountain(text)
        assert script.elements == [] and script.warnings == [] and script.title == ""


# --- properties and samples -----------------------------------------------------

_TOKENS = list("ABob .:#=@!>~<^()[]/*_\\\n\r\t'-") + ["INT. ", "CUT TO:", "  \n", "\n\n", "\ufeff", "/*", "*/", "[[", "]]"]
_FOUNTAINISH = st.lists(st.sampled_from(_TOKENS), max_size=120).map("".join)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=300), _FOUNTAINISH))
def test_any_text_never_raises_and_lines_are_in_order(text: str) -> None:
    script = parse_fountain(text)
    n_lines = text.count("\n") + text.count("\r") + 1
    lines = [e.source_line for e in script.elements]
    assert lines == sorted(lines)
    assert all(1 <= line <= n_lines for line in lines)
    for element in script.elements:
        if isinstance(element, Dialogue):
            assert element.text.strip() and element.character
    assert all(w.startswith("line ") for w in script.warnings)


def test_sample_lighthouse() -> None:
    path = SAMPLES / "the-lighthouse.fountain"
    script = parse_fountain(path.read_text(encoding="utf-8"), source=path.name)
    assert sum(isinstance(e, Dialogue) for e in script.elements) >= 20
    assert script.title
