"""Does every direction move the voice the way it claims, and keep its quality? Measured, not assumed.

    python bench/direction.py [--lines 3] [--directions whispering,sad,...] [--voices joe,kokoro:jm_kumo]
                              [--json] [--markdown]

Each voice (the bundled joe by default, and a Kokoro style) says the same
held-out lines (bench/shaping_wer.py's, none in the sample production)
neutral and with each direction of the vocabulary (engine/project/deliveries.py)
leading them, through the product's planning and shaping (ClipSynthesizer,
one take: seed 0). Measured on each clip:

- what the speech check measures (engine/check/voice.py): DNSMOS P.835's
  overall score (engine/listen/quality.py) and the speaker encoder's
  similarity to the role's plain voice (its reference sentence,
  engine/check/candidate_measures.py REFERENCE);
- with praat-parselmouth (tests/support/listening.py): F0 median (semitones
  against neutral), F0 range (10th-90th percentile, semitones), intensity
  (dB, Praat's mean over the sounding part), speaking rate (words per second
  of the span from the first to the last voiced frame), the voiced fraction,
  the harmonics-to-noise ratio above 1.2 kHz (breath) and the median second
  formant (a smile; printed, not claimed: Praat's F2 track wanders by more
  than a smile moves it on a high voice);
- the clip's length against neutral (a sound before the words lengthens it);
- pocketsphinx (its general en-US model, which never heard these voices):
  the word error rate against the text.

Each direction claims what its performance sets, and a claim holds when the
measured change goes that way by the stated margin, averaged over the lines:

- quality: DNSMOS OVRL at least 2.5 and similarity at least 0.70 (the speech
  check's flags), claimed by every direction;
- F0 level: at least half the designed shift, and at least 0.5 semitone
  (claimed when the shift is 1 semitone or more);
- F0 range: 0.5 semitone wider or narrower (claimed when the design scales
  the range by 1.25 or more, or 0.8 or less, and the voice is not whispered);
- intensity: at least half the designed gain (claimed from 2 dB);
- speaking rate: at least half the designed change (claimed from 8 %);
- breath: the HNR above the breath stage's crossover (1.2 kHz) 1.5 dB lower
  (claimed from breath 0.3); a whisper: the voiced fraction below 0.2 and
  below half the neutral one;
- a sound before the words: the clip 0.4 s longer at least;
- length: no more than 1.1 times neutral's, for a direction that neither
  slows the rate nor adds a sound or pauses.

Prints one table per voice, every claimed feature marked ok or MISS; with
``--json`` one JSON object instead (per voice, per direction, every measure).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.shaping_wer import SENTENCES, Recognizer, edit_distance, words  # noqa: E402
from engine.check.candidate_measures import REFERENCE  # noqa: E402
from engine.listen import quality, speaker  # noqa: E402
from engine.project.deliveries import VOCABULARY, Delivery  # noqa: E402
from engine.project.model import VoiceParams  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402
from tests.support.listening import Features, features  # noqa: E402

RATE = 22050
QUALITY_MIN = 2.5  # the speech check's (engine/check/voice.py QUALITY_MIN, DRIFT_MIN)
SIMILARITY_MIN = 0.70


@dataclass(frozen=True)
class Measured:
    """One clip's measures."""

    features: Features
    rate: float  # words per second of the voiced span
    dnsmos: float
    similarity: float
    seconds: float  # the clip's whole length
    hnr: float  # dB, Praat's harmonicity over the clip's sounding frames
    f2: float  # Hz, median second formant over voiced frames
    errors: int  # word errors against the text
    words: int


@dataclass(frozen=True)
class Row:
    name: str
    dnsmos: float
    similarity: float
    f0_st: float  # median F0 change, semitones
    range_st: float  # F0 range change, semitones
    intensity_db: float
    rate: float  # speaking rate ratio
    length: float  # clip length ratio
    voiced: float  # voiced fraction (absolute)
    voiced_ratio: float
    hnr_db: float  # HNR change
    f2: float  # F2 ratio
    wer: float
    claims: dict[str, bool]


def voice_params(name: str) -> VoiceParams:
    if name.startswith("kokoro:"):
        return VoiceParams(backend="kokoro", voice=name.split(":", 1)[1])
    return VoiceParams() if name == "joe" else VoiceParams(voice=name)


def hnr_and_f2(clip: np.ndarray) -> tuple[float, float]:
    import parselmouth
    from scipy.signal import butter, sosfiltfilt

    from engine.synth.breath import CROSSOVER_HZ

    sound = parselmouth.Sound(np.asarray(clip, dtype=np.float64), RATE)
    # Breath lives above the first formants (engine/synth/breath.py): the HNR of that band.
    high = sosfiltfilt(butter(4, CROSSOVER_HZ, "high", fs=RATE, output="sos"), np.asarray(clip, dtype=np.float64))
    harmonicity = parselmouth.Sound(high, RATE).to_harmonicity_cc(time_step=0.01, minimum_pitch=60.0).values[0]
    hnr = float(np.mean(harmonicity[harmonicity > -100])) if np.any(harmonicity > -100) else -100.0
    pitch = sound.to_pitch(time_step=0.01, pitch_floor=60.0, pitch_ceiling=600.0)
    formant = sound.to_formant_burg(time_step=0.01, max_number_of_formants=5, maximum_formant=5500.0)
    f2 = [formant.get_value_at_time(2, t) for t, f in zip(pitch.xs(), pitch.selected_array["frequency"], strict=True)
          if f > 0]
    f2v = [v for v in f2 if v == v]
    return hnr, float(np.median(f2v)) if f2v else 0.0


def claims(delivery: Delivery, row: dict[str, float], neutral_voiced: float) -> dict[str, bool]:
    perf = delivery.performance
    d = perf.design
    out: dict[str, bool] = {"quality": row["dnsmos"] >= QUALITY_MIN and row["similarity"] >= SIMILARITY_MIN}
    whisper = perf.breath >= 1.0 or d.breathiness >= 1.0
    if abs(d.f0_shift) >= 1.0 and not whisper:
        need = max(0.5, abs(d.f0_shift) / 2)
        out["F0"] = math.copysign(1, d.f0_shift) * row["f0_st"] >= need
    if (d.f0_range >= 1.25 or d.f0_range <= 0.8) and not whisper:  # a whisper has no F0 to range
        out["range"] = row["range_st"] >= 0.5 if d.f0_range > 1 else row["range_st"] <= -0.5
    if abs(d.gain) >= 2.0:
        out["level"] = math.copysign(1, d.gain) * row["intensity_db"] >= abs(d.gain) / 2
    if abs(d.rate - 1) >= 0.08:
        out["rate"] = (row["rate"] - 1) / (d.rate - 1) >= 0.5
    if whisper:
        out["whisper"] = row["voiced"] < 0.2 and row["voiced"] < neutral_voiced / 2
    elif perf.breath >= 0.3:
        out["breath"] = row["hnr_db"] <= -1.5
    if perf.sound:
        out["sound"] = row["extra_s"] >= 0.4
    elif d.rate >= 0.95 and not perf.phrase_pause:
        out["length"] = row["length"] <= 1.1
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=3)
    parser.add_argument("--directions", default="", help="comma-separated names (default: all)")
    parser.add_argument("--voices", default="joe,kokoro:jm_kumo",
                        help="comma-separated: joe, a Piper voice id, kokoro:STYLE (default: joe,kokoro:jm_kumo)")
    parser.add_argument("--markdown", action="store_true", help="(the tables are Markdown already)")
    parser.add_argument("--json", action="store_true", help="one JSON object instead of tables")
    args = parser.parse_args()
    chosen = [d for d in VOCABULARY if not args.directions or d.name in args.directions.split(",")]
    synth = ClipSynthesizer(VoiceLibrary(), RATE, ClipCache())
    recognize = Recognizer()
    encoder = speaker.encoder()
    texts = SENTENCES[:args.lines]
    started = time.perf_counter()
    report: dict[str, object] = {"lines": len(texts), "seed": 0, "voices": {}}

    for voice in args.voices.split(","):
        params = voice_params(voice)
        reference = encoder.embed(synth.synthesize(REFERENCE, params), RATE)

        def render(prefix: str) -> list[Measured]:
            out = []
            for text in texts:
                clip = np.asarray(synth.finish(synth.infer(synth.plan(prefix + text, params))))  # noqa: B023
                f = features(clip, RATE)
                hnr, f2 = hnr_and_f2(clip)
                out.append(Measured(f, len(words(text)) / max(f.seconds, 1e-3), quality.quality(clip, RATE),
                                    speaker.similarity(encoder.embed(clip, RATE), reference),  # noqa: B023
                                    clip.size / RATE, hnr, f2,
                                    edit_distance(words(text), words(recognize(clip, RATE))), len(words(text))))
            return out

        neutral = render("")
        rows = [_row("neutral", neutral, neutral, None)]
        for delivery in chosen:
            rows.append(_row(delivery.name, render(f"({delivery.name}) "), neutral, delivery))
            print(f"  {voice} {delivery.name}: done ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
        report["voices"][voice] = [asdict(r) for r in rows]  # type: ignore[index]
        if not args.json:
            _print_table(voice, rows, len(texts))
    report["seconds"] = round(time.perf_counter() - started, 1)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{report['seconds']:.0f} s")
    return 0


def _row(name: str, directed: list[Measured], neutral: list[Measured], delivery: Delivery | None) -> Row:
    pairs = list(zip(directed, neutral, strict=True))
    values = {
        "dnsmos": float(np.mean([d.dnsmos for d in directed])),
        "similarity": float(np.mean([d.similarity for d in directed])),
        "f0_st": float(np.mean([12 * math.log2(max(d.features.f0_median, 1.0) / max(n.features.f0_median, 1.0))
                                for d, n in pairs])),
        "range_st": float(np.mean([d.features.f0_range - n.features.f0_range for d, n in pairs])),
        "intensity_db": float(np.mean([d.features.intensity_db - n.features.intensity_db for d, n in pairs])),
        "rate": float(np.mean([d.rate / n.rate for d, n in pairs])),
        "length": float(np.mean([d.seconds / n.seconds for d, n in pairs])),
        "extra_s": float(np.mean([d.seconds - n.seconds for d, n in pairs])),
        "voiced": float(np.mean([d.features.voiced_fraction for d in directed])),
        "voiced_ratio": float(np.mean([d.features.voiced_fraction / max(n.features.voiced_fraction, 1e-3)
                                       for d, n in pairs])),
        "hnr_db": float(np.mean([d.hnr - n.hnr for d, n in pairs])),
        "f2": float(np.mean([d.f2 / max(n.f2, 1.0) for d, n in pairs])),
        "wer": sum(d.errors for d in directed) / max(1, sum(d.words for d in directed)),
    }
    neutral_voiced = float(np.mean([n.features.voiced_fraction for n in neutral]))
    held = claims(delivery, values, neutral_voiced) if delivery is not None else {}
    values.pop("extra_s")
    return Row(name, claims=held, **values)


def _print_table(voice: str, rows: list[Row], lines: int) -> None:
    print(f"\n{voice}: {lines} lines, seed 0")
    print("| direction | DNSMOS | similarity | F0 (st) | range (st) | level (dB) | rate | length | voiced | "
          "HNR (dB) | F2 | WER | claims |")
    print("|" + "---|" * 13)
    for r in rows:
        marks = ", ".join(f"{k} {'ok' if v else 'MISS'}" for k, v in r.claims.items()) or "-"
        print(f"| {r.name} | {r.dnsmos:.2f} | {r.similarity:.2f} | {r.f0_st:+.1f} | {r.range_st:+.1f} | "
              f"{r.intensity_db:+.1f} | ×{r.rate:.2f} | ×{r.length:.2f} | {r.voiced:.2f} | {r.hnr_db:+.1f} | "
              f"×{r.f2:.2f} | {r.wer:.2f} | {marks} |")
    directed = rows[1:]
    held = sum(all(r.claims.values()) for r in directed)
    claimed = sum(len(r.claims) for r in directed)
    kept = sum(sum(r.claims.values()) for r in directed)
    print(f"{held} of {len(directed)} directions hold every claim; {kept} of {claimed} claims hold")


if __name__ == "__main__":
    raise SystemExit(main())
