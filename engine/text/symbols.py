"""Rules for web addresses, e-mail addresses, phone numbers and symbols.

"www.radioplay.org/help" is "w w w dot radioplay dot org slash help" (the
scheme, "https://", is not said, as broadcasters read addresses);
"jo@example.co.uk" is "jo at example dot co dot uk"; a phone number is read
digit by digit, 0 as "oh", its groups kept as short pauses ("0161 496 0000"
-> "oh one six one, four nine six, oh oh oh oh"); "&" is "and", "+" "plus",
"=" "equals", "#7" "number seven", "@" "at".
"""

from __future__ import annotations

import re

from engine.text import numbers
from engine.text.normalizer import Context, Rule

_SAID = {".": " dot ", "/": " slash ", "@": " at ", "-": " dash ", "_": " underscore ", ":": " colon ",
         "~": " tilde ", "?": " question mark ", "=": " equals ", "&": " and ", "+": " plus ", "#": " hash "}
_LETTERS_ONLY = re.compile(r"^[bcdfghjklmnpqrstvwxz]{2,4}$")  # no vowel: spelled ("www", "bbc")

# Parts bounded as the standards bound them (a local part of 64, labels of 63, a few labels):
# unbounded, a 40 kB run of "a-a-a-..." took minutes, every start scanning to its end.
EMAIL = re.compile(r"(?<![\w.+-])\w[\w.+-]{0,63}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,6}")
URL = re.compile(r"(?<![\w@.-])(?:https?://)?(?:www\.)?[a-z0-9][a-z0-9-]{0,62}(?:\.[a-z0-9-]{1,63}){0,6}"
                 r"\.(?:com|org|net|co|uk|io|gov|edu|info|fm|tv|ly|me|app|dev)\b(?:/[\w./?=&%-]{0,200}[\w/])?",
                 re.IGNORECASE)


def _address(written: str) -> str:
    out: list[str] = []
    for piece in re.split(r"([./@\-_:~?=&+#])", written):
        if not piece:
            continue
        if piece in _SAID:
            out.append(_SAID[piece].strip())
        elif piece.isdigit():
            out.append(numbers.digits(piece) if len(piece) > 2 else numbers.cardinal(int(piece)))
        elif _LETTERS_ONLY.match(piece.lower()):
            out.append(" ".join(piece.lower()))
        else:
            out.append(piece.lower())
    return " ".join(out)


def say_email(m: re.Match[str], _: Context) -> str:
    return _address(m.group())


def say_url(m: re.Match[str], ctx: Context) -> str:
    written = re.sub(r"^https?://", "", m.group(), flags=re.IGNORECASE)
    return _address(written)


PHONE = re.compile(r"(?<![\w+])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,5}\)[ .-]?)?\d{2,5}(?:[ .-]\d{2,6}){1,3}(?![\w]|[.-]\d)"
                   r"|(?<![\w+])0\d{9,10}(?!\w)")
_GROUPS = re.compile(r"\+?\(?\d+\)?")


def say_phone(m: re.Match[str], ctx: Context) -> str | None:
    written = m.group()
    digits = re.sub(r"\D", "", written)
    grouped = " " in written or "-" in written or "." in written or "(" in written
    # A phone number: starts with + or 0 or (, or is three groups, or 555-0123 shapes; never a range or a sum.
    groups = _GROUPS.findall(written)
    if len(digits) < 7 and not written.startswith("+"):
        return None
    if not (written[0] in "+0(" or len(groups) >= 3 or re.fullmatch(r"\d{3}-\d{4}", written)):
        return None
    if not grouped and not written.startswith("0"):
        return None
    said = []
    for group in groups:
        head = "plus " if group.startswith("+") else ""
        said.append(head + numbers.digits(group))
    return ", ".join(said)


SYMBOL = re.compile(r"(?<=\S)&(?=\S)|(?<=\s)[&+=×@](?=\s)|#(?=[A-Za-z])|(?<=\d)\s?[+×x*]\s?(?=\d)|(?<=\d)\s?=\s?(?=\d)")
_SYMBOLS = {"&": "and", "+": "plus", "=": "equals", "×": "times", "x": "times", "*": "times", "@": "at", "#": "hashtag"}


def say_symbol(m: re.Match[str], _: Context) -> str:
    return _SYMBOLS[m.group().strip()]


RULES = (
    Rule("email", EMAIL, say_email),
    Rule("url", URL, say_url),
    Rule("phone", PHONE, say_phone),
)
LAST_RULES = (Rule("symbol", SYMBOL, say_symbol),)
