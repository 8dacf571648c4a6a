"""Is a lexicon entry one the voices can say? The one home of that question.

An entry is bad when its word is empty, its ``[[phonemes]]`` hold a symbol
no voice knows (Piper reads the block symbol by symbol and silently drops
the symbols its phoneme map lacks: the name would come out mangled, not
refused), or its respelling says nothing (only punctuation or markup). The
studio shows the problem in the lexicon panel; planning a line that uses a
bad entry fails that line alone with the same words (:func:`used_problem`),
so every other line still renders.
"""

from __future__ import annotations

from functools import cache

from engine.project.defaults import lexicon_entry_too_long
from engine.synth.frontend import clean, split_phonemes


@cache
def phoneme_symbols() -> frozenset[str]:
    """The symbols of espeak-ng's IPA that Piper voices map to ids."""
    from piper.phoneme_ids import DEFAULT_PHONEME_ID_MAP  # piper's package import is ~75 ms: only when asked

    return frozenset(DEFAULT_PHONEME_ID_MAP)


def phoneme_problem(phonemes: str) -> str | None:
    """What is wrong with the inside of a ``[[...]]`` block, or None."""
    if not phonemes.strip():
        return "the phoneme block is empty"
    symbols = phoneme_symbols()
    unknown = sorted({c for c in phonemes if not c.isspace() and c not in symbols})
    if unknown:
        shown = " ".join(f"{c!r} (U+{ord(c):04X})" for c in unknown[:3])
        return f"{shown} {'is not a phoneme' if len(unknown) == 1 else 'are not phonemes'} of espeak-ng's IPA"
    return None


def entry_problem(word: str, say: str) -> str | None:
    """What is wrong with the entry ``word`` -> ``say``, in words for the producer, or None."""
    if not word.strip():
        return "the word is empty"
    if not say.strip():
        return "say is empty: give a respelling or [[phonemes]]"
    if (long := lexicon_entry_too_long(word, say)) is not None:
        return long
    spoken = False
    for block, part in split_phonemes(say):
        if block:
            problem = phoneme_problem(part[2:-2])
            if problem is not None:
                return problem
            spoken = True
        elif "[[" in part or "]]" in part:
            return "an unclosed [[ or ]]: phonemes go between [[ and ]] on one line"
        elif any(c.isalnum() for c in clean(part)):
            spoken = True
    return None if spoken else f"the respelling {say.strip()!r} says nothing (only punctuation or markup)"


def used_problem(used: tuple[tuple[str, str], ...]) -> str | None:
    """The first bad entry among those a line uses, as a line's error."""
    for word, say in used:
        problem = entry_problem(word, say)
        if problem is not None:
            return f"lexicon entry {word!r}: {problem}"
    return None
