"""Which Kokoro styles of another language read English intelligibly, measured.

    python bench/kokoro_english.py [--sentences 8] [--styles jf_alpha,...] [--json]

Every installed Kokoro style (and the bundled joe, the baseline of the same
run) speaks held-out sentences (bench/shaping_wer.py's, none in the sample).
Two recognizers write down what they hear: the speech check's (engine/check:
pocketsphinx biased to the line, as ``radioplay check`` hears every line) and
pocketsphinx's general US English model. The word error rate is the
word-level edit distance to the text over the number of words. The speech
check's figure per style is what engine/synth/casting.py's ``ENGLISH_WER``
stores (the voice picker shows it; casting offers a style below
``ENGLISH_WER_MAX``); paste the printed table there when the styles change.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.shaping_wer import SENTENCES, Recognizer, edit_distance, words  # noqa: E402
from engine.check.speech import check_clip, text_words  # noqa: E402
from engine.project.model import VoiceParams  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402

RATE = 24000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=8)
    parser.add_argument("--styles", default="", help="only these Kokoro styles, comma separated (and joe)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sentences = SENTENCES[:args.sentences]
    library = VoiceLibrary()
    voices = [VoiceParams()] + [VoiceParams(backend="kokoro", voice=v.style)
                                for v in library.bundled() + library.user() if v.backend == "kokoro"
                                and (not args.styles or v.style in args.styles.split(","))]
    synth = ClipSynthesizer(library, RATE, ClipCache())
    general = Recognizer()
    total = sum(len(words(s)) for s in sentences)
    rows = []
    for voice in voices:
        started = time.perf_counter()
        clips = [synth.synthesize(s, voice) for s in sentences]
        check_errors = general_errors = 0
        for s, clip in zip(sentences, clips, strict=True):
            heard = check_clip(clip, RATE, s, context=[t for t in sentences if t != s][:2]).heard
            check_errors += edit_distance(text_words(s), [w.lower() for w in heard])
            general_errors += edit_distance(words(s), words(general(clip, RATE)))
        name = voice.voice if voice.backend == "piper" else f"kokoro:{voice.voice}"
        rows.append({"voice": name, "check_wer": round(check_errors / total, 3),
                     "general_wer": round(general_errors / total, 3)})
        print(f"{name:22s} check WER {rows[-1]['check_wer']:.3f}  general WER {rows[-1]['general_wer']:.3f}  "
              f"({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("| voice | WER, speech check's recognizer | WER, general model |")
        print("|---|---|---|")
        for row in rows:
            print(f"| {row['voice']} | {row['check_wer']:.3f} | {row['general_wer']:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
