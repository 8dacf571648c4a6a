"""A line's text as the words a person says: lower case, digits spelled out.

The recognizer hears "nineteen sixty two" where the script has "1962", and
"twenty pounds" for "£20"; both sides are compared as these words.
"""

from __future__ import annotations

import re

_ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
         "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
_TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_TOKEN = re.compile(r"[£$€]?\d+(?:[.,]\d+)*%?|[a-zA-Z]+(?:'[a-zA-Z]+)*")
_CURRENCY = {"£": "pounds", "$": "dollars", "€": "euros"}


def _under_100(n: int) -> list[str]:
    if n < 20:
        return [_ONES[n]]
    tens, ones = divmod(n, 10)
    return [_TENS[tens]] + ([_ONES[ones]] if ones else [])


def _under_1000(n: int) -> list[str]:
    hundreds, rest = divmod(n, 100)
    out = [_ONES[hundreds], "hundred"] if hundreds else []
    if rest or not out:
        out += (["and"] if out else []) + _under_100(rest)
    return out


def number_words(n: int) -> list[str]:
    """Cardinal words; 1100-1999 and 2010-2099 read as years ("nineteen sixty two")."""
    if 1100 <= n <= 1999 or 2010 <= n <= 2099:
        high, low = divmod(n, 100)
        return _under_100(high) + (["hundred"] if low == 0 else (["oh"] if low < 10 else []) + _under_100(low))
    if n >= 1_000_000:
        millions, rest = divmod(n, 1_000_000)
        return _under_1000(millions % 1000) + ["million"] + (number_words(rest) if rest else [])
    if n >= 1000:
        thousands, rest = divmod(n, 1000)
        return _under_1000(thousands) + ["thousand"] + (_under_1000(rest) if rest else [])
    return _under_1000(n)


def spoken_words(text: str) -> list[str]:
    """The words of ``text`` as spoken, lower case, in order."""
    out: list[str] = []
    for token in _TOKEN.findall(text):
        if token[0].isalpha():
            out.append(token.lower())
            continue
        unit = _CURRENCY.get(token[0])
        digits = token.lstrip("£$€")
        percent = digits.endswith("%")
        whole = digits.rstrip("%").replace(",", "").split(".")[0]
        out += number_words(int(whole)) if whole.isdigit() else []
        if unit:
            out.append(unit)
        if percent:
            out.append("percent")
    return out
