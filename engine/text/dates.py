"""Rules for times and dates.

"11:20" is "eleven twenty", "7:05" "seven oh five", "11:00" "eleven
o'clock", "7pm" "seven p m", "14:00" "fourteen hundred"; "14 March 2019"
is "the fourteenth of March twenty nineteen" (British order, as the BBC
reads it), "March 14, 2019" "March fourteenth twenty nineteen"; "3/14" is a
month and a day, "14/3" a day and a month, and where both could be (3/4
is a fraction, 3/7 either) the voice's English decides: American voices read
month first, British day first.
"""

from __future__ import annotations

import re

from engine.text import numbers
from engine.text.normalizer import Context, Rule

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)  # the most a month has (a leap February)
_SHORT = {m[:3]: m for m in MONTHS} | {"Sept": "September"}
_MONTH = r"(January|February|March|April|May|June|July|August|September|October|November|December|" \
         r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)\.?"


def _month(written: str) -> str:
    return _SHORT.get(written.rstrip("."), written.rstrip("."))


def clock(hours: int, minutes: int) -> str:
    if minutes == 0:
        return f"{numbers.cardinal(hours)} o'clock" if hours <= 12 else f"{numbers.cardinal(hours)} hundred"
    low = f"oh {numbers.cardinal(minutes)}" if minutes < 10 else numbers.cardinal(minutes)
    return f"{numbers.cardinal(hours)} {low}"


MERIDIEM = re.compile(r"(?<![\w:.])(\d{1,2})(?:[:.]([0-5]\d))?\s?([aApP])\.?[mM]\b\.?")


def say_meridiem(m: re.Match[str], ctx: Context) -> str | None:
    hours = int(m.group(1))
    if not 1 <= hours <= 12:
        return None
    minutes = int(m.group(2) or 0)
    said = numbers.cardinal(hours) + (" " + clock(hours, minutes).split(" ", 1)[1] if minutes else "")
    said += f" {m.group(3).lower()} m"
    return said + "." if ctx.ends_sentence() else said


CLOCK = re.compile(r"(?<![\w:.])([01]?\d|2[0-3]):([0-5]\d)(?![\w:])")


def say_clock(m: re.Match[str], _: Context) -> str:
    return clock(int(m.group(1)), int(m.group(2)))


DAY_MONTH = re.compile(rf"(?<![\w/])(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:,?\s+(\d{{4}}))?(?![\w])")


def say_day_month(m: re.Match[str], ctx: Context) -> str | None:
    day = int(m.group(1))
    if not 1 <= day <= _DAYS[MONTHS.index(_month(m.group(2)))]:
        return None
    article = "" if ctx.word_before().lower() in ("the", "on the") else "the "
    year = f" {numbers.year(int(m.group(3)))}" if m.group(3) else ""
    return f"{article}{numbers.ordinal(day)} of {_month(m.group(2))}{year}"


MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(\d{{1,4}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?(?![\w:/])")


def say_month_day(m: re.Match[str], _: Context) -> str | None:
    month, number, year = _month(m.group(1)), m.group(2), m.group(3)
    if len(number) == 4 and not year:  # "March 2019"
        return f"{month} {numbers.year(int(number))}"
    day = int(number)
    if not 1 <= day <= 31:
        return None
    return f"{month} {numbers.ordinal(day)}" + (f" {numbers.year(int(year))}" if year else "")


NUMERIC_DATE = re.compile(r"(?<![\w/.])(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?(?![\w/])")


# Said as they are known, not as dates.
_IDIOMS = {("24", "7"): "twenty four seven", ("9", "11"): "nine eleven", ("50", "50"): "fifty fifty"}


def say_numeric_date(m: re.Match[str], ctx: Context) -> str | None:
    if not m.group(3) and (m.group(1), m.group(2)) in _IDIOMS:
        return _IDIOMS[(m.group(1), m.group(2))]
    a, b = int(m.group(1)), int(m.group(2))
    year = m.group(3)
    day_first = ctx.language.lower().replace("_", "-") != "en-us"
    if a > 12 and 1 <= b <= 12:
        day_first = True
    elif b > 12 and 1 <= a <= 12:
        day_first = False
    elif not (1 <= a <= 12 and 1 <= b <= 12):
        return None
    day, month = (a, b) if day_first else (b, a)
    if not 1 <= day <= _DAYS[month - 1]:
        return None
    said = (f"the {numbers.ordinal(day)} of {MONTHS[month - 1]}" if day_first
            else f"{MONTHS[month - 1]} {numbers.ordinal(day)}")
    if year:
        full = int(year) if len(year) == 4 else 2000 + int(year) if int(year) < 50 else 1900 + int(year)
        said += f" {numbers.year(full)}"
    return said


RULES = (
    Rule("time", MERIDIEM, say_meridiem),
    Rule("time", CLOCK, say_clock),
    Rule("date", DAY_MONTH, say_day_month),
    Rule("date", MONTH_DAY, say_month_day),
)
# Numeric dates go after fractions (engine.text.quantities): "3/4" is three quarters.
NUMERIC_RULES = (Rule("date", NUMERIC_DATE, say_numeric_date),)
