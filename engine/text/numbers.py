"""Numbers as words: cardinals, ordinals, years, decimals and digit strings.

num2words (LGPL, pure Python) does the spelling; this module only shapes its
output for speech: no hyphens or commas ("twenty-three thousand, four" is
said "twenty three thousand four": a comma would make espeak-ng pause inside
a number, and the speech check compares words, not hyphenated compounds).
British usage throughout ("one hundred and five"): the BBC and Guardian
style guides and the way both backends' English voices were recorded.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

_NOT_SAID = re.compile(r"[-,]")
_DIGITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


@functools.cache
def _num2words() -> Callable[..., str]:
    """num2words, imported when a number is first said: importing it loads all of its 50
    languages (30-100 ms on the busy development machine), which a line without a number,
    or a process that says none, should not pay."""
    from num2words import num2words

    return num2words  # type: ignore[no-any-return]


def _said(words: str) -> str:
    return " ".join(_NOT_SAID.sub(" ", words).split())


def to_int(written: str) -> int:
    """``"1,234"`` -> 1234 (thousands separators dropped)."""
    return int(written.replace(",", ""))


# Beyond a quadrillion nobody says the number: its digits are read.
_LARGEST_SAID = 10**15


def cardinal(n: int) -> str:
    if n < 0:
        return "minus " + cardinal(-n)
    if n >= _LARGEST_SAID:
        return digits(str(n), zero="zero")
    return _said(_num2words()(n, lang="en"))


def ordinal(n: int) -> str:
    if n >= _LARGEST_SAID:
        raise ValueError(f"{n} is too large to say as an ordinal")
    return _said(_num2words()(n, lang="en", to="ordinal"))


def year(n: int) -> str:
    """1962 -> "nineteen sixty two", 2019 -> "twenty nineteen", 2005 -> "two
    thousand and five", 1900 -> "nineteen hundred", 1905 -> "nineteen oh five"."""
    if 2000 <= n <= 2009:
        return cardinal(n)
    if 1000 <= n <= 9999 and n % 100 == 0 and n % 1000 != 0:
        return f"{cardinal(n // 100)} hundred"
    if 1000 <= n <= 9999 and n % 1000 != 0:
        high, low = divmod(n, 100)
        return f"{cardinal(high)} {'oh ' + _DIGITS[low] if low < 10 else cardinal(low)}"
    return cardinal(n)


def decade(n: int) -> str:
    """1960 -> "nineteen sixties", 80 -> "eighties"."""
    words = year(n).split() if n >= 100 else cardinal(n).split()
    last = words[-1]
    words[-1] = last[:-1] + "ies" if last.endswith("y") else last + "s"
    return " ".join(words)


def digits(written: str, zero: str = "oh") -> str:
    """Each digit alone ("0161" -> "oh one six one"), the way phone, room
    and flight numbers are read."""
    return " ".join(zero if c == "0" else _DIGITS[int(c)] for c in written if c.isdigit())


def decimal(written: str) -> str:
    """``"3.14"`` -> "three point one four", ``".5"`` -> "point five"."""
    whole, _, fraction = written.partition(".")
    head = cardinal(to_int(whole)) + " " if whole else ""
    return f"{head}point {digits(fraction, zero='zero')}" if fraction else head.strip()


def number(written: str) -> str:
    """A written number, whole or decimal, with or without thousands separators."""
    return decimal(written.replace(",", "")) if "." in written else cardinal(to_int(written))


_FRACTIONS = {2: ("half", "halves"), 4: ("quarter", "quarters")}


def fraction(numerator: int, denominator: int) -> str:
    """3/4 -> "three quarters", 1/2 -> "one half", 5/8 -> "five eighths"."""
    if denominator in _FRACTIONS:
        one, many = _FRACTIONS[denominator]
    else:
        one = ordinal(denominator)
        many = one + "s"
    return f"{cardinal(numerator)} {one if numerator == 1 else many}"
