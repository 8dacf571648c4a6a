"""Rules for abbreviations and roman numerals.

Context decides ("St." is Saint before a name, Street after one; "Dr." is
Doctor before a name, Drive after one); an abbreviation's full stop that
also ends the sentence stays ("Elm St." -> "Elm Street."), one before a name
goes ("Dr. Penrose" -> "Doctor Penrose", without espeak-ng's pause).

Roman numerals are read where a name or a numbered part precedes them
(Chicago Manual 9.44: monarchs and popes take the ordinal): "Henry VIII" is
"Henry the eighth", "Chapter IV" "Chapter four", "World War II" "World War
two". A lone "I" is a numeral only after a numbered part or a monarch's name.
"""

from __future__ import annotations

import re

from engine.text.normalizer import Context, Rule
from engine.text.numbers import cardinal, ordinal

# written (case as written, full stop optional): what is said.
_PLAIN = {
    "Mr": "Mister", "Mrs": "Missus", "Ms": "Miz", "Prof": "Professor", "Capt": "Captain", "Sgt": "Sergeant",
    "Lt": "Lieutenant", "Col": "Colonel", "Gen": "General", "Rev": "Reverend", "Revd": "Reverend",
    "Insp": "Inspector", "Supt": "Superintendent", "Det": "Detective", "Cllr": "Councillor", "Fr": "Father",
    "Jr": "Junior", "Sr": "Senior", "vs": "versus", "v": "versus", "etc": "et cetera", "approx": "approximately",
    "Ave": "Avenue", "Rd": "Road", "Mt": "Mount", "Ln": "Lane", "Sq": "Square", "Bros": "Brothers",
    "Ltd": "Limited", "Inc": "Incorporated", "Dept": "Department", "Govt": "Government", "Fig": "Figure",
    "Vol": "Volume", "Ch": "Chapter", "Pt": "Part", "Cpl": "Corporal", "Pte": "Private", "Adm": "Admiral",
    "Esq": "Esquire", "Hon": "Honourable", "e.g": "for example", "i.e": "that is", "a.k.a": "also known as",
    "Co": "Company", "Corp": "Corporation", "Blvd": "Boulevard", "Pl": "Place", "Cres": "Crescent",
}
# Titles come before a name: their full stop never ends a sentence.
_TITLES = frozenset("Mr Mrs Ms Prof Capt Sgt Lt Col Gen Rev Revd Insp Supt Det Cllr Fr Cpl Pte Adm Hon".split())
# Needs its full stop to be an abbreviation (else a word: "Co", "Ch", "v", "Pt").
_NEEDS_STOP = frozenset("v Co Ch Pt Pl Fig Vol Hon Gen Col Det Fr Ln Sq Corp Cres Adm Pte".split())
_ALTERNATION = "|".join(re.escape(k) for k in sorted(_PLAIN, key=len, reverse=True))
ABBREVIATION = re.compile(rf"(?<![\w.])({_ALTERNATION})(\.?)(?![\w])")


def _stop(ctx: Context) -> str:
    return "." if ctx.ends_sentence() else ""


def say_abbreviation(m: re.Match[str], ctx: Context) -> str | None:
    written, stop = m.group(1), m.group(2)
    if written in _NEEDS_STOP and not stop:
        return None
    if written in ("v", "Co", "Pl") and not (ctx.word_after()[:1].isupper() or ctx.word_before()[:1].isupper()):
        return None
    said = _PLAIN[written]
    return said if written in _TITLES else said + _stop(ctx)


SAINT_STREET = re.compile(r"(?<![\w.])(St|Dr)\.?(?!\w)")


def say_saint_street(m: re.Match[str], ctx: Context) -> str:
    """A name after and none before ("Dr. Penrose", "St Ives"): Saint or
    Doctor; a name before and none after ("Elm St.", "Mulholland Dr."): Street
    or Drive; names on both sides: Street, unless the one before begins the
    sentence ("Yesterday Dr. Penrose"); neither: Street, Doctor."""
    saint, street = ("Saint", "Street") if m.group(1) == "St" else ("Doctor", "Drive")
    before = ctx.word_before()
    name_after = ctx.word_after()[:1].isupper() and ctx.text[ctx.end:ctx.end + 1] == " "
    name_before = before[:1].isupper() and ctx.gap_before() == " "
    if name_before and name_after:
        head = ctx.text[:ctx.start - len(before) - 1].rstrip()
        name_before = bool(head) and head[-1] not in ".!?:\"“"
    if name_after and not name_before:
        return saint
    if name_before or m.group(1) == "St":
        return street + _stop(ctx)
    return saint


NUMERO = re.compile(r"(?<![\w.])(No|no|Nos|nos)\.\s?(?=\d)|#(?=\d)")


def say_numero(m: re.Match[str], _: Context) -> str:
    return "numbers" if (m.group(1) or "").lower() == "nos" else "number"


_ROMAN = re.compile(r"M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})")
_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
# Before a numeral read as a count ("Chapter four", "World War two").
_PARTS = frozenset("Chapter Part Act Scene Book Volume Vol War Phase Round Level Apollo Bowl Series Season Stage "
                   "Section Episode Mark Mk Type Class Grade Appendix Article Psalm Rocky Star Wars Schedule "
                   "Title Canto Movement Symphony".split())
# Names that take a lone "I" as "the first".
_MONARCHS = frozenset("Elizabeth James Charles Henry Edward George William Richard Mary Anne Victoria Louis "
                      "Peter Catherine Nicholas Alexander John Paul Pius Leo Gregory Benedict Innocent Clement "
                      "Philip Frederick Ferdinand Napoleon Alfonso Juan Carlos David Robert Stephen "
                      "Matilda Harold Ivan Constantine Otto Rudolf Francis Joseph Wilhelm Gustav Olaf Haakon "
                      "Christian Umberto Victor Emmanuel".split())
ROMAN = re.compile(r"(?<![\w.])([IVXLCDM]+)(?![\w])")


def roman_value(written: str) -> int | None:
    if not written or _ROMAN.fullmatch(written) is None:
        return None
    total = 0
    for i, c in enumerate(written):
        value = _VALUES[c]
        total += -value if i + 1 < len(written) and _VALUES[written[i + 1]] > value else value
    return total or None


def say_roman(m: re.Match[str], ctx: Context) -> str | None:
    written = m.group(1)
    value = roman_value(written)
    before = ctx.word_before()
    if value is None or ctx.gap_before() != " " or not before[:1].isupper() or before.isupper():
        return None
    if before in _PARTS:
        return cardinal(value)
    if len(written) == 1 and written != "I" and before not in _MONARCHS:
        return None  # "Vitamin C", "Plan B" style letters
    if written == "I" and before not in _MONARCHS:
        return None
    return f"the {ordinal(value)}"


RULES = (
    Rule("abbreviation", NUMERO, say_numero),
    Rule("abbreviation", SAINT_STREET, say_saint_street),
    Rule("abbreviation", ABBREVIATION, say_abbreviation),
    Rule("roman", ROMAN, say_roman),
)
