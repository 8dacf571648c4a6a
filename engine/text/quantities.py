"""Rules for amounts: money, percentages, units of measure, fractions.

Readings follow the BBC News style guide and the Guardian's: "£3.50" is
"three pounds fifty", "$1.5m" "one point five million dollars", "50p"
"fifty pence", "30 kg" "thirty kilograms", "5-10%" "five to ten percent".
Units are written in American spelling ("kilometers"): espeak-ng says both
spellings alike, and the recognizer's dictionary (CMUdict) knows this one.
"""

from __future__ import annotations

import re

from engine.text import numbers
from engine.text.normalizer import Context, Rule

_AMOUNT = r"\d[\d,]{0,20}(?:\.\d+)?"
_SCALES = {"k": "thousand", "m": "million", "bn": "billion", "tn": "trillion", "thousand": "thousand",
           "million": "million", "billion": "billion", "trillion": "trillion"}
# symbol: (one, many, hundredth one, hundredth many)
_CURRENCIES = {"£": ("pound", "pounds", "penny", "pence"), "$": ("dollar", "dollars", "cent", "cents"),
               "€": ("euro", "euros", "cent", "cents"), "¥": ("yen", "yen", "sen", "sen")}

MONEY = re.compile(rf"(?<![\w$£€¥])([£$€¥])({_AMOUNT})(?:\s?[-–]\s?[£$€¥]?({_AMOUNT}))?"
                   rf"(?:\s?(k|m|bn|tn|thousand|million|billion|trillion)\b)?")
PENCE = re.compile(r"(?<![\w.,])(\d+)p\b")


def _plural(amount: str, one: str, many: str) -> str:
    return one if amount.replace(",", "") in ("1", "1.0", "1.00") else many


def say_money(m: re.Match[str], ctx: Context) -> str:
    symbol, amount, upper, scale = m.group(1), m.group(2), m.group(3), m.group(4)
    one, many, small_one, small_many = _CURRENCIES[symbol]
    if ctx.word_before().lower() in ("a", "an") and ctx.word_after().islower() and ctx.text[m.end():m.end() + 1] == " ":
        many = one  # "a £10 note": the amount describes the noun, "a ten pound note"
    if scale:  # "$1.5m": the amount as a number, then the scale, then the currency
        low = numbers.number(amount) + (f" to {numbers.number(upper)}" if upper else "")
        return f"{low} {_SCALES[scale]} {many}"
    if upper:
        return f"{numbers.number(amount)} to {numbers.number(upper)} {many}"
    whole, _, cents = amount.replace(",", "").partition(".")
    if cents and len(cents) != 2:  # "£1.5": a decimal amount
        return f"{numbers.decimal(whole + '.' + cents)} {many}"
    units = int(whole or "0")
    hundredths = int(cents) if cents else 0
    if units == 0 and hundredths:
        return f"{numbers.cardinal(hundredths)} {small_one if hundredths == 1 else small_many}"
    said = f"{numbers.cardinal(units)} {one if units == 1 else many}"
    return said + (f" {numbers.cardinal(hundredths)}" if hundredths else "")


def say_pence(m: re.Match[str], _: Context) -> str:
    n = int(m.group(1))
    return f"{numbers.cardinal(n)} {'penny' if n == 1 else 'pence'}"


PERCENT = re.compile(rf"(?<![\w.,])(-?{_AMOUNT})(?:\s?[-–]\s?({_AMOUNT}))?\s?%")


def say_percent(m: re.Match[str], _: Context) -> str:
    upper = f" to {numbers.number(m.group(2))}" if m.group(2) else ""
    low = m.group(1)
    low_said = "minus " + numbers.number(low[1:]) if low.startswith("-") else numbers.number(low)
    return f"{low_said}{upper} percent"


# written: (one, many). Longest first in the pattern, case as written.
_UNITS = {
    "kg": ("kilogram", "kilograms"), "g": ("gram", "grams"), "mg": ("milligram", "milligrams"),
    "km": ("kilometer", "kilometers"), "m": ("meter", "meters"), "cm": ("centimeter", "centimeters"),
    "mm": ("millimeter", "millimeters"), "ft": ("foot", "feet"), "in": ("inch", "inches"),
    "mi": ("mile", "miles"), "yd": ("yard", "yards"), "lb": ("pound", "pounds"), "lbs": ("pound", "pounds"),
    "oz": ("ounce", "ounces"), "l": ("liter", "liters"), "ml": ("milliliter", "milliliters"),
    "mph": ("mile per hour", "miles per hour"), "km/h": ("kilometer per hour", "kilometers per hour"),
    "kph": ("kilometer per hour", "kilometers per hour"), "°C": ("degree Celsius", "degrees Celsius"),
    "°F": ("degree Fahrenheit", "degrees Fahrenheit"), "°": ("degree", "degrees"), "kW": ("kilowatt", "kilowatts"),
    "W": ("watt", "watts"), "V": ("volt", "volts"), "GB": ("gigabyte", "gigabytes"), "MB": ("megabyte", "megabytes"),
    "TB": ("terabyte", "terabytes"), "kB": ("kilobyte", "kilobytes"), "Hz": ("hertz", "hertz"),
    "kHz": ("kilohertz", "kilohertz"), "MHz": ("megahertz", "megahertz"), "hrs": ("hour", "hours"),
    "hr": ("hour", "hours"), "mins": ("minute", "minutes"), "min": ("minute", "minutes"),
    "secs": ("second", "seconds"), "sec": ("second", "seconds"), "ms": ("millisecond", "milliseconds"),
    "sq ft": ("square foot", "square feet"), "ha": ("hectare", "hectares"), "mpg": ("mile per gallon", "miles per gallon"),
}
# Units that are also words or letters: only right after the number, no space ("5m", "6in").
_TIGHT = {"m", "in", "l", "V", "ha"}
_UNIT_ALTERNATION = "|".join(re.escape(u) for u in sorted(_UNITS, key=len, reverse=True))
UNIT = re.compile(rf"(?<![\w.,])(-?{_AMOUNT})(?:\s?[-–]\s?({_AMOUNT}))?(\s?)({_UNIT_ALTERNATION})(?![\w/])")


def say_unit(m: re.Match[str], ctx: Context) -> str | None:
    low, upper, space, unit = m.group(1), m.group(2), m.group(3), m.group(4)
    if space and unit in _TIGHT:
        return None
    one, many = _UNITS[unit]
    said = numbers.number(low.lstrip("-"))
    if low.startswith("-"):
        said = "minus " + said
    if upper:
        return f"{said} to {numbers.number(upper)} {many}"
    return f"{said} {one if low in ('1', '-1') else many}"


FRACTION = re.compile(r"(?<![\w/.])(\d+)/(\d+)(?![\w/])")
VULGAR = re.compile(r"(?<!\d)(\d*)([½⅓⅔¼¾⅛])")  # from the first digit only: linear in a run of digits
_VULGAR = {"½": (1, 2), "⅓": (1, 3), "⅔": (2, 3), "¼": (1, 4), "¾": (3, 4), "⅛": (1, 8)}


def is_fraction(numerator: int, denominator: int) -> bool:
    """"3/4" is a fraction, "3/14" a date: a fraction's denominator is small
    and larger than its numerator."""
    return 0 < numerator < denominator and denominator in (2, 3, 4, 5, 6, 8, 10, 16, 100)


def say_fraction(m: re.Match[str], _: Context) -> str | None:
    numerator, denominator = int(m.group(1)), int(m.group(2))
    return numbers.fraction(numerator, denominator) if is_fraction(numerator, denominator) else None


def say_vulgar(m: re.Match[str], _: Context) -> str:
    numerator, denominator = _VULGAR[m.group(2)]
    part = "a half" if denominator == 2 else numbers.fraction(numerator, denominator)
    if m.group(1):
        return f"{numbers.cardinal(int(m.group(1)))} and {part}"
    return numbers.fraction(numerator, denominator)


RULES = (
    Rule("money", MONEY, say_money),
    Rule("money", PENCE, say_pence),
    Rule("percentage", PERCENT, say_percent),
    Rule("unit", UNIT, say_unit),
    Rule("fraction", FRACTION, say_fraction),
    Rule("fraction", VULGAR, say_vulgar),
)
