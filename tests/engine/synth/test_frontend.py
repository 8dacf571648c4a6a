"""Text frontend: cleaning, the lexicon and splitting into units."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.synth.errors import TextError
from engine.synth.frontend import MAX_UNIT_CHARS, apply_lexicon, clean, prepare, split_units, spoken_form

# ---------------------------------------------------------------- errors


@pytest.mark.parametrize("text", ["", " ", "   \n\t  ", "\u00a0"])
def test_empty_or_whitespace_raises(text: str) -> None:
    with pytest.raises(TextError):
        prepare(text)


@pytest.mark.parametrize("text", [
    "😀👍🏽",
    "<break time='1s'/>",
    "[laughs]",
    "*_*",
    "😀 <b></b> [sighs] ... !?",
    "🇬🇧 ❤️ ✨",
])
def test_nothing_speakable_raises_naming_the_problem(text: str) -> None:
    with pytest.raises(TextError) as info:
        prepare(text)
    message = str(info.value)
    assert "nothing speakable" in message
    assert text.strip()[:20] in message  # the offending text is quoted


def test_text_error_is_value_error() -> None:
    with pytest.raises(ValueError):
        prepare("")


def test_phonemes_alone_are_speakable() -> None:
    assert prepare("[[ h ə l oʊ ]]").units == ("[[ h ə l oʊ ]]",)


# ---------------------------------------------------------------- cleaning


@pytest.mark.parametrize(("text", "spoken"), [
    ("Hello <emphasis level=\"strong\">there</emphasis>.", "Hello there."),
    ("Wait<break time=\"500ms\"/> what?", "Wait what?"),
    ("<speak><prosody rate='slow'>Slowly</prosody></speak>", "Slowly"),
    ("I *really* mean it.", "I really mean it."),
    ("I **really** mean it.", "I really mean it."),
    ("That is _underlined_ here.", "That is underlined here."),
    ("Oh [laughs] stop it.", "Oh stop it."),
    ("Oh [laughs].", "Oh."),
    ("[quietly] Come here.", "Come here."),
    ("Say [[ h ə ˈl oʊ ]] now.", "Say [[ h ə ˈl oʊ ]] now."),
    ("Great 😀 news 👍🏽!", "Great news!"),
    ("Keycap 1️⃣ and flag 🇬🇧 done.", "Keycap 1 and flag done."),
    ("“Quoted” and ‘single’…", "\"Quoted\" and 'single'..."),
    ("snake_case and 2*3 stay.", "snake_case and 2*3 stay."),
    ("a\u200bb\u0007c", "abc"),
    ("  many   spaces\n\nand lines  ", "many spaces and lines"),
])
def test_markup_removed(text: str, spoken: str) -> None:
    assert clean(text) == spoken
    # Numbers are then said as words (engine.text; tests/engine/text).
    said = spoken.replace("Keycap 1", "Keycap one").replace("2*3", "two times three")
    assert prepare(text).normalized == said


def test_phoneme_block_untouched_by_cleaning() -> None:
    block = "[[ *not* _emphasis_ <x> ]]"
    assert block in clean(f"Before {block} after")


# ---------------------------------------------------------------- lexicon


def test_lexicon_case_insensitive_whole_words() -> None:
    lexicon = {"Llanfair": "Clan vire"}
    prepared = prepare("Llanfair, LLANFAIR and llanfair but not Llanfairpwll or xLlanfair.", lexicon)
    assert prepared.normalized == "Clan vire, Clan vire and Clan vire but not Llanfairpwll or xLlanfair."
    assert prepared.lexicon_used == (("Llanfair", "Clan vire"),)


def test_lexicon_used_sorted_and_unused_not_reported() -> None:
    lexicon = {"Zed": "zedd", "Alder": "All der", "Penrose": "[[ p ɛ n r oʊ z ]]", "Unused": "nope"}
    prepared = prepare("Penrose met Zed and Alder.", lexicon)
    assert prepared.lexicon_used == (
        ("Alder", "All der"), ("Penrose", "[[ p ɛ n r oʊ z ]]"), ("Zed", "zedd"))
    assert prepared.normalized == "[[ p ɛ n r oʊ z ]] met zedd and All der."


def test_lexicon_ignores_removed_markup() -> None:
    """A word only inside a stage direction is not spoken, so not 'used'."""
    prepared = prepare("Hello [Alder laughs] there.", {"Alder": "All der"})
    assert prepared.lexicon_used == ()
    assert prepared.normalized == "Hello there."


def test_longest_entry_wins() -> None:
    lexicon = {"York": "Yawk", "New York": "Noo Yawk"}
    text, used = apply_lexicon("New York is not York.", lexicon)
    assert text == "Noo Yawk is not Yawk."
    assert used == (("New York", "Noo Yawk"), ("York", "Yawk"))
    text, used = apply_lexicon("Only New York.", lexicon)
    assert text == "Only Noo Yawk."
    assert used == (("New York", "Noo Yawk"),)


def test_empty_lexicon_is_identity() -> None:
    assert apply_lexicon("Some text.", {}) == ("Some text.", ())


def test_lexicon_replacements_are_not_rewritten_by_other_entries() -> None:
    lexicon = {"Llanfair": "Clan vire", "vire": "veer"}
    text, used = apply_lexicon("Llanfair station.", lexicon)
    assert text == "Clan vire station."
    assert used == (("Llanfair", "Clan vire"),)


def test_lexicon_never_rewrites_phoneme_blocks() -> None:
    prepared = prepare("Say [[ h ə l oʊ ]] to Penrose.", {"h": "aitch", "z": "zed",
                                                           "Penrose": "[[ p ɛ n r oʊ z ]]"})
    assert prepared.normalized == "Say [[ h ə l oʊ ]] to [[ p ɛ n r oʊ z ]]."
    assert prepared.lexicon_used == (("Penrose", "[[ p ɛ n r oʊ z ]]"),)


@pytest.mark.parametrize(("key", "text", "spoken"), [
    ("ſ", "ſ or s", "ess or s"),  # the long s is its own letter: it respells itself, not every s
    ("İstanbul", "İstanbul and İSTANBUL and ISTANBUL", "ist and ist and ISTANBUL"),  # İ lower-cases to two characters; I is not İ
    ("straße", "STRASSE straße", "STRASSE stras"),
    ("ﬁne", "ﬁne", "fine-ish"),
])
def test_lexicon_keys_whose_case_folding_changes_length_or_letters(key: str, text: str, spoken: str) -> None:
    # Issue 20 item 11: KeyError in the lookup (a traceback in render, a dropped line in play, 500 in serve).
    respelling = {"ſ": "ess", "İstanbul": "ist", "straße": "stras", "ﬁne": "fine-ish"}[key]
    out, used = apply_lexicon(text, {key: respelling, "unrelated": "x"})
    assert out == spoken
    assert used == ((key, respelling),)


@pytest.mark.parametrize("key", ["", " ", "\t"])
def test_an_empty_lexicon_key_respells_nothing(key: str) -> None:
    # Issue 20 item 14: the empty key inserted its respelling between every word.
    assert apply_lexicon("One, two. Three!", {key: "um", "two": "too"}) == ("One, too. Three!", (("two", "too"),))
    assert prepare("One, two -- three.", {key: "um"}).normalized == "One, two -- three."


# ---------------------------------------------------------------- units


def test_short_text_is_one_unit() -> None:
    text = "Mr. Hollis arrived. Dr. Penrose left! Did J. R. Hartley call? Yes."
    assert prepare(text).units == ("Mister Hollis arrived. Doctor Penrose left! Did J. R. Hartley call? Yes.",)
    exact = "x" * MAX_UNIT_CHARS
    assert split_units(exact) == [exact]


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ", min_size=1, max_size=14)
TOKEN = st.one_of(
    WORD,
    st.builds(lambda w, p: w + p, WORD, st.sampled_from([".", ",", ";", ":", "!", "?", "...", "—"])),
    st.sampled_from(["Mr.", "Mrs.", "Dr.", "St.", "J.", "R.", "etc.", "p.m."]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(TOKEN, min_size=1, max_size=150), st.integers(min_value=20, max_value=300))
def test_units_respect_max_chars_and_keep_all_words(tokens: list[str], max_chars: int) -> None:
    text = " ".join(tokens)
    units = split_units(text, max_chars)
    assert all(units), "no empty units"
    assert all(len(u) <= max_chars for u in units), [len(u) for u in units]
    assert " ".join(units).split() == text.split()
    if len(text) <= max_chars:
        assert units == [text]


@settings(max_examples=100, deadline=None)
@given(st.lists(TOKEN, min_size=1, max_size=120))
def test_prepare_units_respect_default_limit(tokens: list[str]) -> None:
    text = " ".join(tokens)
    prepared = prepare(text)
    assert all(len(u) <= MAX_UNIT_CHARS for u in prepared.units)
    # Every word said, none lost at a unit boundary (titles are said in full: "Mister").
    assert prepared.normalized.split() == spoken_form(text).split()


ABBREVIATION_END = re.compile(r"(?:\b(?:Mr|Mrs|Dr|St)|\b[A-Z])\.$")


def test_abbreviations_do_not_end_units_at_sentence_splits() -> None:
    sentence = "Then Mr. Hollis told Dr. Penrose about J. R. Hartley and St. Ives."
    text = " ".join(f"{sentence[:-1]} number {i}." for i in range(20))
    for max_chars in (80, 100, 150, 240):
        units = split_units(text, max_chars)
        assert len(units) > 1
        assert all(len(u) <= max_chars for u in units)
        for u in units:
            assert not ABBREVIATION_END.search(u), u
            assert u.endswith(".") and re.search(r"number \d+\.$", u), u
        assert " ".join(units) == text


def test_real_sentence_ends_do_split() -> None:
    text = " ".join(["This is a sentence that goes on for a while."] * 12)
    units = split_units(text, 100)
    assert len(units) > 1
    assert all(u.endswith(".") for u in units)


def test_long_sentence_splits_at_clauses_first() -> None:
    clause = "the rain came down on the harbour"
    text = ", ".join([clause] * 12) + "."
    units = split_units(text, 100)
    assert all(len(u) <= 100 for u in units)
    assert all(u.endswith((",", ".")) for u in units), units
    assert " ".join(units) == text


def test_abbreviations_do_not_end_units_at_word_splits() -> None:
    for k in range(20, 60):
        text = " ".join(["word"] * k + ["then", "Mr.", "Hollis", "went"] + ["word"] * 50)
        units = split_units(text, 240)
        assert len(units) > 1
        for u in units[:-1]:
            assert not ABBREVIATION_END.search(u), (k, u[-20:])


def test_a_huge_lexicon_costs_each_line_no_more_than_a_small_one() -> None:
    """Issue 20 item 16: a 150,000-entry lexicon was turned into one regular expression for every
    line planned (a quarter of a second a line). The index is built once per lexicon; a line's
    cost follows its text. Compared with a ten-entry lexicon on the same machine, not a clock."""
    import random
    import string
    import time

    rng = random.Random(16)
    huge: dict[str, str] = {"Llanfair": "Clan vire"}
    while len(huge) < 150_000:
        huge["".join(rng.choice(string.ascii_letters) for _ in range(rng.randint(3, 12)))] = "x"
    small = dict(list(huge.items())[:10])
    lines = [f"Line {i}: Llanfair is where the keeper said {i} words about the lamp." for i in range(200)]

    def cost(lexicon: dict[str, str]) -> float:
        apply_lexicon(lines[0], lexicon)  # the one-off index
        start = time.perf_counter()
        for line in lines:
            text, used = apply_lexicon(line, lexicon)
            assert used == (("Llanfair", "Clan vire"),) and "Clan vire" in text
        return time.perf_counter() - start

    small_cost = min(cost(small) for _ in range(3))
    assert cost(huge) < 10 * small_cost + 0.05


def test_an_empty_lexicon_key_is_no_word() -> None:
    assert apply_lexicon("Two words.", {"": "oops", "words": "wurdz"}) == ("Two wurdz.", (("words", "wurdz"),))
