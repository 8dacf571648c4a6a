"""The table read's strictness levels judge the same hearing differently, and the
per-line score names the words missed and the words heard that are not the line's."""

from __future__ import annotations

import pytest

from engine.listen.follow import progress_of
from engine.listen.words import spoken_words
from engine.rehearse.report import LineResult, Report
from engine.rehearse.strictness import STRICTNESS, strictness

LINE = "He kept the lamp burning for forty years without a single night off."


def judged(level: str, heard: str):
    words = spoken_words(LINE)
    return progress_of(words, list(range(len(words))), heard.split(), STRICTNESS[level].judging)


def test_a_line_said_to_its_end_with_a_word_changed_is_complete_at_every_level_but_strict_needs_the_last_word() -> None:
    paraphrase = "he kept the lamp lit for forty years without a single night off"
    assert all(judged(level, paraphrase).complete for level in ("loose", "normal", "strict"))
    looser = "he kept the lamp lit for forty years without one night off"  # 10 of 13: under strict's 85 %
    assert judged("normal", looser).complete and not judged("strict", looser).complete
    dropped_end = "he kept the lamp burning for forty years without a single night"
    assert judged("normal", dropped_end).complete  # one of the last two words
    assert not judged("strict", dropped_end).complete  # the last word itself


def test_half_a_line_is_enough_only_when_loose() -> None:
    half = "he kept the lamp burning"
    assert not judged("normal", half).complete and not judged("strict", half).complete
    # a third of it and near its end: loose takes a reader who skips to the end
    skipped = "he kept the lamp night off"
    assert judged("loose", skipped).complete and not judged("strict", skipped).complete


def test_loose_matches_words_alike_in_their_first_letters() -> None:
    said = "he kept the lamps burned for forty years without a single night off"
    loose, normal = judged("loose", said), judged("normal", said)
    assert loose.heard == loose.total == 13 and loose.extra_words == ()
    assert normal.heard == 11 and normal.missed_words == ("lamp", "burning")
    assert normal.extra_words == ("lamps", "burned")


def test_missed_and_extra_words_and_accuracy_of_a_line() -> None:
    progress = judged("normal", "he kept the lamp lit for forty years without one night off")
    assert progress.missed_words == ("burning", "a", "single")
    assert progress.extra_words == ("lit", "one")
    result = LineResult("L4", "GUEST", True, "recognized")
    result.score(progress)
    assert (result.expected_count, result.heard_count, result.accuracy) == (13, 12, round(10 / 13, 3))
    report = Report([LineResult("L3", "HOST", False, "played"), result])
    assert report.figures()["accuracy"] == round(10 / 13, 3)
    (row,) = report.accuracy_lines()
    assert row["missed_words"] == ["burning", "a", "single"] and row["extra_words"] == ["lit", "one"]
    assert row["words_expected"] == 13 and row["words_heard"] == 12
    table = report.accuracy_table()
    assert "L4" in table and "77 %" in table and "burning a single / lit one" in table and "L3" not in table


def test_an_unknown_strictness_is_named() -> None:
    with pytest.raises(ValueError, match="--strictness 'lax': one of loose, normal, strict"):
        strictness("lax")
