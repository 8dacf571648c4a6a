"""Rules for numbers on their own: ordinals, decades, ranges, years, counts,
and numbers read digit by digit.

Context decides how a bare number is read (the Chicago Manual and BBC
conventions for speech): "1962" is a year ("nineteen sixty two") unless a
plural noun or a unit follows it ("1500 metres" is still "fifteen hundred",
which is how it is said); after "room", "flight" or "gate" three digits or
more are read one by one ("room one oh one"); "platform 4" is "platform
four"; "007" and other numbers with a leading zero are digits; "1990-95" is
"nineteen ninety to ninety five".
"""

from __future__ import annotations

import re

from engine.text import numbers
from engine.text.normalizer import Context, Rule

ORDINAL = re.compile(r"(?<![\w.,])(\d[\d,]{0,20})(st|nd|rd|th)\b")


def say_ordinal(m: re.Match[str], _: Context) -> str:
    return numbers.ordinal(numbers.to_int(m.group(1)))


DECADE = re.compile(r"(?<![\w.])(?:(\d{2})|['’])(\d0)['’]?s\b")


def say_decade(m: re.Match[str], _: Context) -> str:
    if m.group(1):
        return numbers.decade(int(m.group(1) + m.group(2)))
    return numbers.decade(int(m.group(2)))


YEAR_RANGE = re.compile(r"(?<![\w.,])(1[1-9]\d\d|20\d\d)\s?[-–]\s?(\d\d|1[1-9]\d\d|20\d\d)(?![\w.,]\d)")


def say_year_range(m: re.Match[str], _: Context) -> str | None:
    first, second = m.group(1), m.group(2)
    last = int(first[:2] + second) if len(second) == 2 else int(second)
    if last <= int(first):
        return None
    if len(second) == 4 or (first.startswith("20") and int(first) < 2010):
        tail = numbers.year(last)
    else:  # "1990-95": the century is not said again
        low = last % 100
        tail = "oh " + numbers.cardinal(low) if low < 10 else numbers.cardinal(low)
    return f"{numbers.year(int(first))} to {tail}"


RANGE = re.compile(r"(?<![\w.,])(\d[\d,]{0,20})\s?[-–]\s?(\d[\d,]{0,20})(?![\w.,]\d|[\w%])")


def say_range(m: re.Match[str], _: Context) -> str | None:
    low, high = numbers.to_int(m.group(1)), numbers.to_int(m.group(2))
    if high <= low or m.group(1).startswith("0"):
        return None
    return f"{numbers.cardinal(low)} to {numbers.cardinal(high)}"


# After these, a number of three digits or more is an identifier, read digit by digit.
DIGIT_CONTEXT = frozenset(
    "room flat apartment suite gate flight cell locker extension ext unit bay cabin berth code pin call dial ring".split())
# Before a year: words that make a four-digit number one.
_YEAR_BEFORE = frozenset(
    "in since from until till by of circa c before after around year summer winter spring autumn fall "
    "during early late mid".split())
_NOT_PLURAL = frozenset("is was has as his this us yes its does goes".split())
_IRREGULAR_PLURALS = frozenset("people men women children feet teeth mice geese sheep staff police crew".split())
NUMBER = re.compile(r"(?<![\w.,])(-?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w]|[.,]\d)")


def is_year(n: int, ctx: Context) -> bool:
    if not 1000 <= n <= 2099:
        return False
    if ctx.word_before().lower() in _YEAR_BEFORE:
        return True
    if n < 1100:  # "1066" is a year only where a word before says so
        return False
    after = ctx.word_after()
    gap = ctx.text[ctx.end:ctx.end + 2]
    # "1962 people": a count, not a year; "in 1962, she" or "1962 was": a year.
    plural = gap.startswith(" ") and after.islower() and (
        (after.endswith("s") and after not in _NOT_PLURAL) or after in _IRREGULAR_PLURALS)
    return not plural


def say_number(m: re.Match[str], ctx: Context) -> str:
    sign, whole, fraction = m.group(1), m.group(2), m.group(3)
    before = ctx.word_before().lower()
    if fraction:
        said = numbers.decimal(whole.replace(",", "") + fraction)
    elif len(whole) > 1 and whole.startswith("0"):
        said = numbers.digits(whole)
    elif before in DIGIT_CONTEXT and len(whole) >= 3 and "," not in whole:
        said = numbers.digits(whole)
    elif "," not in whole and not sign and is_year(int(whole), ctx):
        said = numbers.year(int(whole))
    else:
        said = numbers.cardinal(numbers.to_int(whole))
    return ("minus " if sign else "") + said


RULES = (
    Rule("ordinal", ORDINAL, say_ordinal),
    Rule("year", DECADE, say_decade),
    Rule("range", YEAR_RANGE, say_year_range),
    Rule("range", RANGE, say_range),
)
LAST_RULES = (Rule("cardinal", NUMBER, say_number),)
