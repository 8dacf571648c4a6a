"""The held-out script of written forms (tests/engine/text/data/held_out_script.tsv) and
how far an independent recognizer's hearing of it agrees with the spoken forms."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "engine" / "text" / "data" / "held_out_script.tsv"


@dataclass(frozen=True)
class Form:
    written: str
    spoken: tuple[str, ...]


@dataclass(frozen=True)
class ScriptLine:
    text: str
    forms: tuple[Form, ...]


def words(text: str) -> list[str]:
    return re.findall(r"[a-z]+(?:'[a-z]+)*", text.lower())


def script(path: Path = SCRIPT) -> list[ScriptLine]:
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        text, forms = raw.split("\t")
        pairs = [f.split("=", 1) for f in forms.split(" | ")]
        out.append(ScriptLine(text, tuple(Form(w, tuple(words(s))) for w, s in pairs)))
    return out


# pocketsphinx's language model was trained on news text, which writes titles abbreviated:
# it hears "mister" and writes "mr" (its dictionary: MR  M IH S T ER). Same words.
_ABBREVIATED = {"mr": "mister", "mrs": "missus", "dr": "doctor", "ms": "miz"}


def _as_said(word: str, expected: list[str]) -> str:
    if word == "st":  # the LM's "st" is both Saint and Street
        return "saint" if "saint" in expected and "street" not in expected else "street"
    return _ABBREVIATED.get(word, word)


def forms_heard(expected: list[str], heard: list[str], forms: tuple[Form, ...],
                vocabulary: set[str]) -> list[tuple[Form, bool]]:
    """Per form with a word the recognizer can know: whether all its known words were heard
    where the line's spoken words put them (a monotone alignment of the two word lists).
    Words outside the recognizer's dictionary cannot be heard and are not scored."""
    heard = [_as_said(word, expected) for word in heard]
    matcher = difflib.SequenceMatcher(a=expected, b=heard, autojunk=False)
    matched = [False] * len(expected)
    for block in matcher.get_matching_blocks():
        for k in range(block.a, block.a + block.size):
            matched[k] = True
    out = []
    at = 0
    for form in forms:
        n = len(form.spoken)
        start = next((i for i in range(at, len(expected) - n + 1) if tuple(expected[i:i + n]) == form.spoken), None)
        if start is None:
            raise ValueError(f"{form.written!r}: {' '.join(form.spoken)!r} is not in the spoken line")
        at = start + n
        known = [k for k in range(start, start + n) if expected[k] in vocabulary]
        if known:
            out.append((form, all(matched[k] for k in known)))
    return out
