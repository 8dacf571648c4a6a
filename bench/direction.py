"""Does every direction move the voice the way it claims? Measured, not assumed.

    python bench/direction.py [--lines 3] [--directions whispering,sad,...] [--markdown]

The bundled joe voice says the same held-out lines (bench/shaping_wer.py's,
none in the sample production) neutral and with each direction of the
vocabulary (engine/project/deliveries.py) leading them, through the product's
planning and shaping (ClipSynthesizer, one take: seed 0). praat-parselmouth
measures each clip (tests/support/listening.py): F0 median (semitones against
neutral), F0 range (10th-90th percentile, semitones), intensity (dB, Praat's
mean over the sounding part), speaking rate (words per second of the span
from the first to the last voiced frame) and the voiced fraction; pocketsphinx
(its general en-US model, which never heard this voice) writes down what it
hears, and the word error rate is against the text.

Each direction claims what its performance sets (its design's F0 shift, range,
gain and rate; breathiness for voicing), and a claim holds when the measured
change goes that way by the stated margin, averaged over the lines:

- F0 level: at least half the designed shift, and at least 0.5 semitone
  (claimed when the shift is 1 semitone or more);
- F0 range: 0.5 semitone wider or narrower (claimed when the design scales
  the range by 1.25 or more, or 0.8 or less, and the voice is not whispered);
- intensity: at least half the designed gain (claimed from 2 dB);
- speaking rate: at least half the designed change (claimed from 8 %);
- voicing: the voiced fraction 15 % lower (claimed from breathiness 0.3;
  a whisper: below half the neutral one).

Prints one row per direction, with every claimed feature marked ok or MISS.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.shaping_wer import SENTENCES, Recognizer, edit_distance, words  # noqa: E402
from engine.project.deliveries import VOCABULARY, Delivery  # noqa: E402
from engine.project.model import VoiceParams  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402
from tests.support.listening import Features, features  # noqa: E402


@dataclass(frozen=True)
class Row:
    name: str
    f0_st: float  # median F0 change, semitones
    range_st: float  # F0 range change, semitones
    intensity_db: float
    rate: float  # speaking rate ratio
    voiced: float  # voiced fraction ratio
    wer: float
    claims: dict[str, bool]


def claims(delivery: Delivery, f0_st: float, range_st: float, db: float, rate: float, voiced: float) -> dict[str, bool]:
    d = delivery.performance.design
    out: dict[str, bool] = {}
    if abs(d.f0_shift) >= 1.0:
        need = max(0.5, abs(d.f0_shift) / 2)
        out["F0"] = math.copysign(1, d.f0_shift) * f0_st >= need
    if (d.f0_range >= 1.25 or d.f0_range <= 0.8) and d.breathiness < 1.0:  # a whisper has no F0 to range
        out["range"] = range_st >= 0.5 if d.f0_range > 1 else range_st <= -0.5
    if abs(d.gain) >= 2.0:
        out["level"] = math.copysign(1, d.gain) * db >= abs(d.gain) / 2
    if abs(d.rate - 1) >= 0.08:
        out["rate"] = (rate - 1) / (d.rate - 1) >= 0.5
    if d.breathiness >= 1.0:
        out["voicing"] = voiced < 0.5
    elif d.breathiness >= 0.3:
        out["voicing"] = voiced <= 0.85
    return out


def measure(clip: np.ndarray, rate: int, text: str) -> tuple[Features, float]:
    f = features(clip, rate)
    return f, len(words(text)) / max(f.seconds, 1e-3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=3)
    parser.add_argument("--directions", default="", help="comma-separated names (default: all)")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    chosen = [d for d in VOCABULARY if not args.directions or d.name in args.directions.split(",")]
    library = VoiceLibrary()
    rate = library.resolve(VoiceParams().voice).sample_rate
    synth = ClipSynthesizer(library, rate, ClipCache())
    recognize = Recognizer()
    texts = SENTENCES[:args.lines]
    started = time.perf_counter()

    def render(prefix: str) -> tuple[list[tuple[Features, float]], float]:
        clips = [np.asarray(synth.finish(synth.infer(synth.plan(prefix + t, VoiceParams())))) for t in texts]
        errors = sum(edit_distance(words(t), words(recognize(c, rate))) for t, c in zip(texts, clips, strict=True))
        return [measure(c, rate, t) for c, t in zip(clips, texts, strict=True)], errors / sum(len(words(t))
                                                                                             for t in texts)

    neutral, neutral_wer = render("")
    rows = []
    for delivery in chosen:
        directed, wer = render(f"({delivery.name}) ")
        f0 = np.mean([12 * math.log2(d.f0_median / n.f0_median) for (d, _), (n, _) in zip(directed, neutral, strict=True)])
        rng = np.mean([d.f0_range - n.f0_range for (d, _), (n, _) in zip(directed, neutral, strict=True)])
        db = np.mean([d.intensity_db - n.intensity_db for (d, _), (n, _) in zip(directed, neutral, strict=True)])
        speed = np.mean([dr / nr for (_, dr), (_, nr) in zip(directed, neutral, strict=True)])
        voiced = np.mean([d.voiced_fraction / n.voiced_fraction for (d, _), (n, _) in zip(directed, neutral, strict=True)])
        rows.append(Row(delivery.name, float(f0), float(rng), float(db), float(speed), float(voiced), wer,
                        claims(delivery, float(f0), float(rng), float(db), float(speed), float(voiced))))
        print(f"  {delivery.name}: done ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    elapsed = time.perf_counter() - started
    held = sum(all(r.claims.values()) for r in rows)
    claimed = sum(len(r.claims) for r in rows)
    kept = sum(sum(r.claims.values()) for r in rows)
    header = "| direction | F0 (st) | F0 range (st) | intensity (dB) | speaking rate | voiced fraction | WER | claims |"
    print(f"{len(texts)} lines, joe (Piper), seed 0; neutral WER {neutral_wer:.2f}; {elapsed:.0f} s")
    print(header)
    print("|" + "---|" * 8)
    for r in rows:
        marks = ", ".join(f"{k} {'ok' if v else 'MISS'}" for k, v in r.claims.items()) or "none"
        print(f"| {r.name} | {r.f0_st:+.1f} | {r.range_st:+.1f} | {r.intensity_db:+.1f} | ×{r.rate:.2f} | "
              f"×{r.voiced:.2f} | {r.wer:.2f} | {marks} |")
    print(f"{held} of {len(rows)} directions hold every claim; {kept} of {claimed} claims hold")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
