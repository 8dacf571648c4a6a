"""Written forms are said as words before the voice sees them (engine.text), on the
tiny generated voices: real ONNX Runtime, real espeak-ng."""

from __future__ import annotations

import functools
import re

import pytest

from engine.project.model import VoiceParams
from engine.synth import frontend
from engine.synth.errors import TextError
from engine.synth.espeak import clauses
from engine.synth.frontend import prepare, spoken_form
from engine.synth.wordmap import word_times
from engine.synth.wordtimes import ClipWords
from engine.text import ENGLISH, Rule, normalize
from engine.text.dates import CLOCK
from engine.text.numbers import cardinal


def test_the_voice_is_given_the_spoken_form(tiny_voices, tiny_synth):
    plan = tiny_synth.plan("Dr. Penrose paid £3.50 at 11:20.", VoiceParams(voice=str(tiny_voices["single"])))
    assert plan.prepared.normalized == "Doctor Penrose paid three pounds fifty at eleven twenty."


def test_the_lexicon_wins_over_the_normalizer():
    lexicon = {"St.": "Street", "£20": "twenty quid", "Penrose": "[[ pˈɛnɹoʊz ]]"}
    prepared = prepare("St. Ives costs £20 and 11:20 for Penrose.", lexicon)
    assert prepared.normalized == "Street Ives costs twenty quid and eleven twenty for [[ pˈɛnɹoʊz ]]."
    assert dict(prepared.lexicon_used) == lexicon
    # A replacement is not read again: "quid" stays, digits inside a respelling stay.
    assert prepare("It is 4x4.", {"4x4": "four by 4"}).normalized == "It is four by 4."


def test_phoneme_blocks_are_never_normalized():
    assert spoken_form("Say [[ 1 2 ]] at 7pm.") == "Say [[ 1 2 ]] at seven p m."


def test_a_voice_of_another_language_reads_its_own_numbers():
    assert prepare("Son las 11:20.", language="es").normalized == "Son las 11:20."
    assert prepare("It is 11:20.", language="en-gb").normalized == "It is eleven twenty."


def _quarter_past(m: re.Match[str], _: object) -> str:
    """A later rule set: "11:20" as "twenty past eleven"."""
    return f"{cardinal(int(m.group(2)))} past {cardinal(int(m.group(1)))}"


def test_new_rules_re_voice_only_the_lines_they_read_differently(tiny_voices, tiny_synth, monkeypatch):
    voice = VoiceParams(voice=str(tiny_voices["single"]))
    lines = ["Meet me at 11:20.", "It cost £20.", "Nothing to say aloud here.", "Back by 7:05, then."]
    before = {line: tiny_synth.plan(line, voice).key for line in lines}
    for line in lines:
        tiny_synth.synthesize(line, voice)
    assert tiny_synth.synth_calls == 4

    upgraded = tuple(Rule(r.category, r.pattern, _quarter_past) if r.pattern is CLOCK else r for r in ENGLISH)
    monkeypatch.setattr(frontend, "normalize", functools.partial(normalize, rules=upgraded))
    after = {line: tiny_synth.plan(line, voice).key for line in lines}
    for line in lines:
        tiny_synth.synthesize(line, voice)

    assert tiny_synth.synth_calls == 6  # the two times only
    assert [line for line in lines if before[line] != after[line]] == ["Meet me at 11:20.", "Back by 7:05, then."]
    assert tiny_synth.plan("Meet me at 11:20.", voice).prepared.normalized == "Meet me at twenty past eleven."


@pytest.mark.parametrize("text", ["£", "%", "#", "&", "$ %"])
def test_a_lone_symbol_is_nothing_speakable(text):
    """No rule reads a symbol with nothing to say it of: the line is an error, not silence."""
    with pytest.raises(TextError, match="nothing speakable"):
        prepare(text)


def _clip_of(spoken: str) -> ClipWords:
    """A clip's spoken words laid end to end, 0.08 s a phoneme (as espeak-ng counts them)."""
    out, at = [], 0.0
    for word in spoken.split():
        n = max(1, sum(c.isalpha() for phonemes, _, _ in clauses("en-us", word) for c in phonemes))
        out.append((round(at, 4), round(at + 0.08 * n, 4), n))
        at += 0.08 * n + 0.05
    return ClipWords(tuple(out), estimated=False)


def test_word_timings_give_a_written_form_the_time_of_its_spoken_words():
    text = "Pay £3.50 at 11:20 & go."
    clip = _clip_of(spoken_form(text))  # Pay three pounds fifty at eleven twenty and go.
    timed = {word: (start, end) for word, start, end in word_times(text, clip)}
    spoken = clip.words
    assert list(timed) == ["Pay", "3.50", "at", "11", "20", "go"]
    assert timed["3.50"] == pytest.approx((spoken[1][0], spoken[3][1]), abs=0.02)  # three pounds fifty
    assert timed["11"][0] == pytest.approx(spoken[5][0], abs=0.02)  # eleven
    assert timed["20"][1] == pytest.approx(spoken[7][1], abs=0.15)  # twenty (and "and", said after it)
    assert timed["go"] == pytest.approx((spoken[8][0], spoken[8][1]), abs=0.02)
