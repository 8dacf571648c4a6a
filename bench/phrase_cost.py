"""What a separately performed phrase costs against plain words (engine/serve/params.py PHRASE_COST_CHARS).

Synthesizes, on the bundled voice with no cache, 1,000 characters of plain words,
then lines of emphasized words (``*a*``), of alternating deliveries
(``(sad) w. (happy) x.``) and of breathy ones shaped through WORLD
(``(whispering) w. (breathless) x.``), and prints the thread CPU seconds of each and per
phrase, and what a phrase costs in characters of plain words.

    PYTHONPATH=. python bench/phrase_cost.py
"""

from __future__ import annotations

import os
import tempfile
import time

os.environ.setdefault("RADIOPLAY_CACHE_DIR", tempfile.mkdtemp(prefix="radioplay-bench-"))

from engine.project.model import VoiceParams  # noqa: E402 - after the cache folder is chosen
from engine.synth.synthesizer import make_synthesizer  # noqa: E402


def main() -> None:
    synth = make_synthesizer(None, 48_000, use_cache=False)
    voice = VoiceParams()

    def cost(text: str) -> float:
        start = time.process_time()
        synth.synthesize(text, voice)
        return time.process_time() - start

    cost("Warm up the voice.")
    words = "the quick brown fox jumps over a lazy dog while seven wizards quietly hex the bold jumping zebras " * 20
    per_char = cost(words[:1000]) / 1000
    print(f"plain words: {per_char * 1000:.2f} CPU-s per 1,000 characters")
    for n in (10, 40):
        for kind, text in (("emphasized", ("*a* " * n).strip()),
                           ("delivery", " ".join(f"(sad) w{i}. (happy) x{i}." for i in range(n // 2))),
                           ("whispered (WORLD)", " ".join(f"(whispering) w{i}. (breathless) x{i}." for i in range(n // 2)))):
            seconds = cost(text)
            per_phrase = (seconds - len(text) * per_char) / n
            print(f"{n} {kind} phrases ({len(text)} characters): {seconds:.2f} CPU-s, {per_phrase * 1000:.0f} ms "
                  f"a phrase beyond its words = {per_phrase / per_char:.0f} characters of plain words")


if __name__ == "__main__":
    main()
