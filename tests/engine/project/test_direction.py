"""The direction parser: what of a written line is spoken, paused and performed."""

from __future__ import annotations

import pytest

from engine.project.deliveries import VOCABULARY, match_delivery
from engine.project.direction import direction_spans, lead_pause, parse_line, spoken_text
from engine.project.importers.build import build_project
from engine.project.importers.fountain import parse_fountain
from engine.project.importers.plaintext import parse_plaintext
from engine.project.model import Timing


def phrases(text: str, note: str = "", timing: Timing | None = None) -> list[tuple[str, float, list[str]]]:
    return [(p.words, p.pause_before, [d.label() for d in p.deliveries]) for p in parse_line(text, note, timing).phrases]


def test_leading_direction_directs_the_whole_line() -> None:
    assert phrases("(whispering) He has the wrong ticket.") == [("He has the wrong ticket.", 0.0, ["whispering"])]


def test_mid_line_direction_applies_from_where_it_stands() -> None:
    assert phrases("Come here, Lucy. (quietly) She has been waiting.") == [
        ("Come here, Lucy.", 0.0, []), ("She has been waiting.", 0.0, ["quietly"])]


def test_a_later_delivery_replaces_the_earlier_one() -> None:
    assert phrases("(angry) Get out. (sad) Please.") == [("Get out.", 0.0, ["angry"]), ("Please.", 0.0, ["sad"])]


def test_timing_directions_are_pauses_where_they_stand_with_the_projects_lengths() -> None:
    timing = Timing(beat=0.7, pause=1.1, long_pause=2.5)
    assert phrases("Tickets, please. (beat) Both of you. (pause) Now. (long pause) Go. [pause 2] Off.", timing=timing) == [
        ("Tickets, please.", 0.0, []), ("Both of you.", 0.7, []), ("Now.", 1.1, []), ("Go.", 2.5, []),
        ("Off.", 2.0, [])]


def test_trailing_direction_is_never_spoken_and_a_trailing_pause_is_kept() -> None:
    line = parse_line("Gone. (long pause)")
    assert line.spoken == "Gone." and line.trailing_pause == Timing().long_pause
    assert parse_line("It is late (sadly)").spoken == "It is late"


def test_nested_and_bracketed_groups_are_one_direction_each() -> None:
    line = parse_line("Well (quietly (almost in a whisper)) I never [laughs] did.")
    assert line.spoken == "Well I never did."
    assert [(d.text, d.kind) for d in line.directions] == [
        ("quietly", "delivery"), ("almost in a whisper", "delivery"), ("laughs", "delivery")]
    assert [p.words for p in line.phrases] == ["Well", "I never", "did."]


def test_combined_terms_and_unknown_directions_are_kept_unperformed_and_unspoken() -> None:
    line = parse_line("(very angry, to Lucy) Out!")
    assert [(d.text, d.kind, d.intensity) for d in line.directions] == [
        ("very angry", "delivery", "strong"), ("to Lucy", "unknown", "default")]
    assert line.spoken == "Out!" and not line.directions[1].performed


def test_escaped_brackets_are_spoken_characters() -> None:
    line = parse_line(r"The sign says \(closed\) and \[sic\], *\*star\**.")
    assert line.spoken == "The sign says (closed) and [sic], *star*." and not line.directions


def test_unclosed_parenthesis_warns_and_keeps_the_words() -> None:
    quiet = parse_line("Come here. (quietly She has been waiting")
    assert quiet.spoken == "Come here. She has been waiting"
    assert quiet.phrases[-1].deliveries[0].name == "quietly"
    assert len(quiet.warnings) == 1 and "unclosed '('" in quiet.warnings[0] and "column 12" in quiet.warnings[0]
    other = parse_line("It costs (about ten pounds")
    assert other.spoken == "It costs about ten pounds" and len(other.warnings) == 1 and not other.directions


def test_emphasis_is_its_own_phrase_without_asterisks() -> None:
    line = parse_line("I said *no* to him.")
    assert [(p.words, p.emphasized) for p in line.phrases] == [("I said", False), ("no", True), ("to him.", False)]
    assert line.spoken == "I said no to him."


@pytest.mark.parametrize(("term", "name", "intensity"), [
    ("very quietly", "quietly", "strong"), ("a little sad", "sad", "light"), ("under her breath", "whispering", "default"),
    ("yelling", "shouting", "default"), ("out of breath", "breathless", "default"), ("slightly nervous", "nervous", "light"),
])
def test_synonyms_and_intensities(term: str, name: str, intensity: str) -> None:
    found = match_delivery(term)
    assert found is not None and (found[0].name, found[1]) == (name, intensity)


def test_vocabulary_has_the_directions_writers_use() -> None:
    names = {d.name for d in VOCABULARY}
    assert len(names) >= 20
    assert {"whispering", "quietly", "shouting", "angry", "furious", "sad", "tearful", "excited", "nervous",
            "frightened", "tired", "cold", "warm", "sarcastic", "laughing", "amused", "urgent", "slowly", "quickly",
            "hesitant", "breathless"} <= names
    assert all(not d.performance.is_neutral for d in VOCABULARY)


def test_intensity_scales_the_performance() -> None:
    light, default, strong = (parse_line(f"({w}quietly) Hi.").phrases[0].performance().design.gain
                              for w in ("slightly ", "", "very "))
    assert light > default > strong  # quieter the stronger


def test_note_directs_the_line_and_its_pause_leads_it() -> None:
    assert phrases("Wait for me!", note="out of breath") == [("Wait for me!", 0.0, ["breathless"])]
    assert lead_pause("Well.", "beat", Timing(beat=0.8)) == 0.8
    assert lead_pause("Well.", "quietly", Timing()) == 0.0


def test_spoken_text_and_spans_for_captions() -> None:
    text = "Tickets, please. (beat) Both of you."
    assert spoken_text(text) == "Tickets, please. Both of you."
    assert direction_spans(text) == ((17, 23),) and text[17:23] == "(beat)"


def test_importers_keep_mid_line_directions_in_the_text_and_warn_of_an_unclosed_one() -> None:
    project, report = build_project(parse_plaintext(
        "TOM: Tickets, please. (beat) Both of you.\nTOM: Come here. (quietly She waits\nSUE: One [pause 2] two.\n",
        "play.txt"))
    assert [line.text for line in project.lines] == [
        "Tickets, please. (beat) Both of you.", "Come here. (quietly She waits", "One [pause 2] two."]
    assert report.warnings == ["line 2 (TOM): unclosed '(' at column 12: read as the direction (quietly); "
                               "close it, or write \\( to say it"]
    project, _ = build_project(parse_fountain("TOM\nCome here, Lucy. (quietly) She has been waiting.\n",
                                              "play.fountain"))
    assert spoken_text(project.lines[0].text) == "Come here, Lucy. She has been waiting."


@pytest.mark.parametrize("piece", ["(", "[", "*x ", ")", "(a (b) ", "\\( "])
def test_parsing_a_pasted_line_is_linear(piece: str) -> None:
    """A scan from every unclosed bracket or asterisk was quadratic: 4x the text, about 4x the work."""
    import time

    def cost(n: int) -> float:
        text = piece * n + " words"
        best = float("inf")
        for k in range(3):
            start = time.thread_time()
            parse_line(f"{text}{n} {k}")  # never the cache's (a repeat of one text timed a cache hit)
            best = min(best, time.thread_time() - start)
        return best

    small = cost(2_000)
    assert cost(8_000) < small * 9


def test_changed_pause_lengths_are_saved_and_defaults_are_not_written() -> None:
    from engine.project.fileformat import project_from_dict, project_to_dict
    from engine.project.model import Project

    project = Project(timing=Timing(beat=0.8, long_pause=3.0))
    data = project_to_dict(project)
    assert data["timing"] == {"line_gap": project.timing.line_gap, "scene_gap": project.timing.scene_gap,
                              "beat": 0.8, "long_pause": 3.0}
    loaded = project_from_dict(data)
    assert (loaded.timing.beat, loaded.timing.pause, loaded.timing.long_pause) == (0.8, Timing().pause, 3.0)
    assert "beat" not in project_to_dict(Project())["timing"]
