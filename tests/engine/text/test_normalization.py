"""The normalizer against the table of written forms (tests/engine/text/data), and
the rules' context decisions one by one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.text import ENGLISH, normalize
from tests.support.normalize_table import rows, score

# The share of the table said right, measured when the table was written (266 forms,
# all right); a rule change that breaks a reading shows up as a listed failure.
TABLE_SHARE = 0.97


def test_the_table_has_every_category_and_is_large() -> None:
    table = rows()
    assert len(table) >= 200
    categories = {row.category for row in table}
    assert {"cardinal", "ordinal", "year", "date", "time", "money", "percentage", "unit", "abbreviation", "roman",
            "phone", "url", "symbol", "decimal", "fraction", "range", "platform"} <= categories


def test_the_table_is_said_as_a_newsreader_says_it() -> None:
    share, per, wrong = score(lambda text, language: normalize(text, language).text, rows())
    assert share >= TABLE_SHARE, "\n".join(wrong)
    assert all(right / total >= 0.75 for right, total in per.values()), per


@pytest.mark.parametrize(("written", "spoken"), [
    ("St. Paul's is on Elm St.", "Saint Paul's is on Elm Street."),
    ("Dr. Penrose lives on Mulholland Dr.", "Doctor Penrose lives on Mulholland Drive."),
    ("In 1962 she was born.", "In nineteen sixty two she was born."),
    ("1962 people came.", "one thousand nine hundred and sixty two people came."),
    ("platform 4 for room 101", "platform four for room one oh one"),
    ("3/4 of them left on 3/14.", "three quarters of them left on March fourteenth."),
    ("It ends at 7pm.", "It ends at seven p m."),
])
def test_context_decides(written: str, spoken: str) -> None:
    assert normalize(written, "en-us").text == spoken


def test_day_and_month_order_follows_the_voice() -> None:
    assert normalize("5/9", "en-us").text == "May ninth"
    assert normalize("5/9", "en-gb").text == "the fifth of September"


def test_other_languages_pass_through() -> None:
    """espeak-ng's Spanish or French rules read their own numbers; nothing is rewritten."""
    for language in ("es", "fr-fr", "it", "pt-br", "hi", "ja"):
        said = normalize("£20 el 14 de marzo", language)
        assert said.text == "£20 el 14 de marzo" and not said.rewrites


def test_rewrites_say_where_each_written_form_is() -> None:
    text = "Pay £3.50 at 11:20."
    said = normalize(text)
    assert [(text[r.start:r.end], r.spoken, r.category) for r in said.rewrites] == [
        ("£3.50", "three pounds fifty", "money"), ("11:20", "eleven twenty", "time")]


def test_protected_spans_are_left_as_written() -> None:
    text = "St. Ives at 11:20"
    assert normalize(text, protected=[(0, 3)]).text == "St. Ives at eleven twenty"


def test_rules_are_in_an_order_where_addresses_come_before_numbers() -> None:
    categories = [rule.category for rule in ENGLISH]
    assert categories.index("url") < categories.index("money") < categories.index("cardinal")
    assert categories[-1] == "cardinal"


@pytest.mark.parametrize(("written", "spoken"), [
    ("9" * 400, " ".join(["nine"] * 400)),  # past what num2words says: digits, not an error
    ("31/2", "thirty one / two"),  # no such date, no such fraction: left to espeak-ng's slash
    ("30 February", "thirty February"),
    ("24/7", "twenty four seven"),
    ("9/11", "nine eleven"),
])
def test_forms_no_rule_can_read_are_left_for_the_next_rule(written: str, spoken: str) -> None:
    assert normalize(written).text == spoken


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789 .,:/-–%£$€#&+=@xXIVCLMStDrNo()'pmkg½\n", max_size=80))
def test_any_text_is_read_without_error_and_rewrites_are_in_order(text: str) -> None:
    said = normalize(text)
    end = 0
    for rewrite in said.rewrites:
        assert rewrite.start >= end and text[rewrite.start:rewrite.end] == rewrite.written and rewrite.spoken
        end = rewrite.end
