"""Text -> Kokoro's phoneme symbols, from espeak-ng's IPA.

Kokoro-82M was trained on misaki's phonemes, which write diphthongs and
affricates as single symbols (``A`` = eɪ, ``I`` = aɪ, ``O`` = oʊ, ``ʧ``,
``ʤ``, ``ᵊl`` ...). misaki's own English G2P needs spaCy and downloads a
spaCy model at run time, which an offline studio cannot do; so the phonemes
come from espeak-ng (the copy piper-tts already ships) and are rewritten into
misaki's notation with the table misaki itself uses for its espeak fallback
(misaki/espeak.py, Apache-2.0), adjusted for espeak output without tie marks.

Measured (bench/kokoro_phonemes.py: each dictionary word of a script against
misaki's gold dictionary, the phonemes Kokoro learnt): espeak as kokoro-onnx
feeds it agrees on 31 % of the sample's 210 words (35 % ignoring stress),
after this rewrite on 82 % (93 %); on the held-out the-lighthouse (228
words) 29 % (32 %) -> 80 % (90 %). A dictionary-first G2P (misaki's gold
and silver lists, espeak for the rest) is the next step for the remainder.
"""

from __future__ import annotations

import re

# Longest first, applied in order (misaki's E2M for en-us, no tie marks).
_EN_US = (
    ("ʔn̩", "ʔn"), ("eɪ", "A"), ("aɪ", "I"), ("aʊ", "W"), ("ɔɪ", "Y"), ("oʊ", "O"),
    ("dʒ", "ʤ"), ("tʃ", "ʧ"), ("ɚɹ", "əɹ"), ("ɚ", "əɹ"), ("ɐ", "ə"), ("ɪʲ", "i"), ("ʲ", ""),
    ("r", "ɹ"), ("x", "k"), ("ç", "k"), ("ɬ", "l"), ("ɜːɹ", "ɜɹ"), ("ɜː", "ɜɹ"), ("ɪə", "iə"),
    ("ː", ""), ("\u0303", ""),
)
_EN_GB = (
    ("ʔn̩", "ʔn"), ("eɪ", "A"), ("aɪ", "I"), ("aʊ", "W"), ("ɔɪ", "Y"), ("əʊ", "Q"),
    ("dʒ", "ʤ"), ("tʃ", "ʧ"), ("ɐ", "ə"), ("ʲ", ""), ("r", "ɹ"), ("x", "k"), ("ç", "k"),
    ("ɬ", "l"), ("eə", "ɛː"), ("iə", "ɪə"), ("\u0303", ""),
)
# Other languages: misaki's EspeakG2P rewrites only the shared diphthongs.
_OTHER = (("aɪ", "I"), ("aʊ", "W"), ("dz", "ʣ"), ("dʒ", "ʤ"), ("eɪ", "A"), ("oʊ", "O"), ("əʊ", "Q"),
          ("ts", "ʦ"), ("tʃ", "ʧ"), ("ɔɪ", "Y"))
_SYLLABIC_L = re.compile(r"əl\b")  # word-final "əl" is espeak's syllabic l: misaki's ᵊl
_SYLLABIC = re.compile(r"(\S)\u0329")


def to_kokoro(ipa: str, language: str) -> str:
    """Rewrite one clause of espeak-ng IPA into Kokoro's symbols."""
    if language == "en-us":
        for old, new in _EN_US:
            ipa = ipa.replace(old, new)
        ipa = _SYLLABIC_L.sub("ᵊl", ipa).replace("o", "ɔ")
    elif language == "en-gb":
        for old, new in _EN_GB:
            ipa = ipa.replace(old, new)
        ipa = _SYLLABIC_L.sub("ᵊl", ipa)
    else:
        for old, new in _OTHER:
            ipa = ipa.replace(old, new)
    return _SYLLABIC.sub(r"ᵊ\1", ipa).replace("\u0329", "")
