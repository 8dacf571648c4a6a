"""Delivery notes typed into a line's text: ``(out of breath) Wait for me!``.

A leading parenthetical tells the actor how to say the line; it is never
spoken and never captioned. Writers type it in front of the words in every
format (Fountain dialogue, ``NAME: text`` scripts, the studio's text cell),
so one function splits it off and every importer and the studio use it.
"""

from __future__ import annotations


def split_delivery_note(text: str) -> tuple[str, str]:
    """``"(out of breath) Wait for me!"`` -> ``("out of breath", "Wait for me!")``.

    Only a parenthetical at the very start counts (``Wait (pants) for me`` keeps
    its words: mid-line parentheses are often spoken asides). Nested parentheses
    stay inside the note; an unclosed ``(`` is not a note, so no words are lost.
    Without a note the text comes back unchanged with an empty note.
    """
    group = _leading_group(text.lstrip(), "(", ")")
    if group is None:
        return "", text
    inner, rest = group
    return " ".join(inner.split()), rest.strip()


def stage_direction(line: str) -> str | None:
    """The words of a line that is nothing but ``(...)`` or ``[...]``, else None.

    ``(Foghorn, far off.)`` -> ``"Foghorn, far off."``; ``(a) b`` and
    ``[pause] [laughs]`` are not one direction.
    """
    line = line.strip()
    for opener, closer in ("()", "[]"):
        group = _leading_group(line, opener, closer)
        if group is not None and not group[1].strip():
            return " ".join(group[0].split())
    return None


def _leading_group(text: str, opener: str, closer: str) -> tuple[str, str] | None:
    """``(a (b)) c`` -> ("a (b)", " c"); None when ``text`` does not open with a closed group."""
    if not text.startswith(opener):
        return None
    depth = 0
    for i, ch in enumerate(text):
        if ch == opener:
            depth += 1
        elif ch == closer:
            depth -= 1
            if depth == 0:
                return text[1:i], text[i + 1:]
    return None


def join_notes(*notes: str) -> str:
    """Notes from several places (cue, line start) as one, without empty parts."""
    return "; ".join(n for n in notes if n)
