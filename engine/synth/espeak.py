"""espeak-ng, the phonemizer both backends use (the copy piper-tts bundles).

espeak-ng is one C library with process-global state (the current voice,
its buffers): two threads phonemizing at once, even for different voices or
backends, corrupt each other's phonemes. Every call goes through
:data:`ESPEAK_LOCK`; phonemizing is cheap next to inference, so the lock
costs nothing measurable.
"""

from __future__ import annotations

import threading
import unicodedata

ESPEAK_LOCK = threading.Lock()
_phonemizer: object | None = None


def clauses(language: str, text: str) -> list[tuple[str, str, bool]]:
    """``(phonemes, terminator, end_of_sentence)`` per clause of ``text`` in
    espeak-ng's IPA with stress marks, language-switch flags removed, NFC."""
    import re

    from piper import espeakbridge
    from piper.phonemize_espeak import EspeakPhonemizer

    global _phonemizer
    with ESPEAK_LOCK:
        if _phonemizer is None:
            _phonemizer = EspeakPhonemizer()  # points espeak-ng at piper's bundled data
        espeakbridge.set_voice(language)
        raw = espeakbridge.get_phonemes(text)
    return [(unicodedata.normalize("NFC", re.sub(r"\([^)]+\)", "", p)), t, end) for p, t, end in raw]
