"""What a word should sound like, for the recognizer, when its dictionary
does not know it.

The speech check compares a clip with its *text*: a word the CMU dictionary
knows is expected as the dictionary says it (so a lexicon entry that makes
"thunder" say "lemonade" is caught); an invented name ("Llanfair") is
expected as the producer's lexicon entry says it, or as espeak-ng reads it,
turned from IPA into the recognizer's CMU phones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

# espeak-ng's English IPA -> CMU (ARPAbet) phones, longest symbols first.
_IPA = sorted({
    "tʃ": "CH", "dʒ": "JH", "aɪ": "AY", "aʊ": "AW", "eɪ": "EY", "oʊ": "OW", "ɔɪ": "OY", "əʊ": "OW",
    "ɜː": "ER", "ɚ": "ER", "ɝ": "ER", "ɜ": "ER", "ə": "AH", "æ": "AE", "ɑ": "AA", "ɒ": "AA", "ɔ": "AO",
    "ɛ": "EH", "ɪ": "IH", "ᵻ": "IH", "i": "IY", "ʊ": "UH", "u": "UW", "ʌ": "AH", "ɐ": "AH", "e": "EH",
    "a": "AA", "o": "OW", "b": "B", "d": "D", "f": "F", "ɡ": "G", "g": "G", "h": "HH", "k": "K", "l": "L",
    "m": "M", "n": "N", "p": "P", "s": "S", "t": "T", "v": "V", "w": "W", "z": "Z", "ŋ": "NG", "ʃ": "SH",
    "ʒ": "ZH", "θ": "TH", "ð": "DH", "j": "Y", "ɹ": "R", "r": "R", "ɾ": "D", "ʔ": "T", "ɬ": "L", "x": "K",
    "ç": "HH", "ɫ": "L",
}.items(), key=lambda kv: -len(kv[0]))
_MARKS = re.compile("[ˈˌːˑ\u0329\u0361\u203f-]")


def ipa_to_cmu(ipa: str) -> str:
    """CMU phones for espeak-ng IPA ("hˈɛloʊ" -> "HH EH L OW"); unknown symbols are skipped."""
    text = _MARKS.sub("", ipa)
    out: list[str] = []
    i = 0
    while i < len(text):
        for symbol, phone in _IPA:
            if text.startswith(symbol, i):
                out.append(phone)
                i += len(symbol)
                break
        else:
            i += 1
    return " ".join(out)


def espeak_cmu(text: str, language: str = "en-us") -> str:
    """CMU phones of ``text`` as espeak-ng reads it (``[[...]]`` is IPA already)."""
    if text.startswith("[[") and text.endswith("]]"):
        return ipa_to_cmu(text[2:-2])
    from engine.synth.espeak import clauses

    return ipa_to_cmu(" ".join(phonemes for phonemes, _, _ in clauses(language, text)))


def unknown_words(words: Iterable[str], known: Mapping[str, str], lexicon: Mapping[str, str]) -> dict[str, str]:
    """Pronunciations for the words ``known`` lacks: the lexicon's entry when
    there is one (case-insensitive), else the word as espeak-ng reads it."""
    entries = {k.lower(): v for k, v in lexicon.items()}
    out: dict[str, str] = {}
    for word in words:
        if word in known or word in out or not re.fullmatch(r"[a-z]+(?:'[a-z]+)*", word):
            continue
        phones = espeak_cmu(entries.get(word, word))
        if phones:
            out[word] = phones
    return out
