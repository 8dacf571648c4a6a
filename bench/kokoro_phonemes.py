"""How close Radioplay's Kokoro phonemes are to the ones Kokoro was trained on.

    python bench/kokoro_phonemes.py GOLD.json [SCRIPT ...]

Kokoro-82M learnt English from misaki's phonemes; misaki's gold dictionary
(``misaki/data/us_gold.json`` in the misaki wheel: ``pip download --no-deps
misaki``) holds them for ~90,000 words. For every dictionary word of the
scripts (the bundled samples by default) this compares espeak-ng's IPA as
kokoro-onnx feeds it (raw) and after engine.synth.backends.kokoro.phonemes rewrites
it (mapped), exactly and ignoring stress marks. The rewrite table was tuned
on the-last-broadcast; the-lighthouse is held out.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.synth.backends.kokoro.phonemes import to_kokoro  # noqa: E402
from engine.synth.espeak import clauses  # noqa: E402


def words_of(path: Path) -> set[str]:
    if path.suffix == ".radioplay":
        text = " ".join(line["text"] for line in json.loads(path.read_text())["lines"])
    else:
        text = path.read_text()
    return {w.lower() for w in re.findall(r"[A-Za-z']+", text)}


def agreement(gold: dict[str, object], words: set[str]) -> dict[str, float]:
    def unstressed(s: str) -> str:
        return s.replace("ˈ", "").replace("ˌ", "")

    counts = {"words": 0, "raw": 0, "mapped": 0, "raw_unstressed": 0, "mapped_unstressed": 0}
    for word in sorted(words):
        want = gold.get(word) or gold.get(word.capitalize())
        if not isinstance(want, str):
            continue  # heteronyms (a dict by part of speech) and words the dictionary lacks
        raw = "".join(p for p, _, _ in clauses("en-us", word)).strip()
        mapped = to_kokoro(raw, "en-us")
        counts["words"] += 1
        counts["raw"] += raw == want
        counts["mapped"] += mapped == want
        counts["raw_unstressed"] += unstressed(raw) == unstressed(want)
        counts["mapped_unstressed"] += unstressed(mapped) == unstressed(want)
    n = max(1, counts["words"])
    return {k: (v if k == "words" else round(v / n, 3)) for k, v in counts.items()}


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    gold = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    scripts = [Path(p) for p in sys.argv[2:]] or [REPO / "samples" / "the-last-broadcast.radioplay",
                                                    REPO / "samples" / "the-lighthouse.fountain"]
    for script in scripts:
        print(f"{script.name}: {json.dumps(agreement(gold, words_of(script)))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
