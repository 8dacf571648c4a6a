"""What a voice design costs: CPU per audio-second and word error rate, per WORLD setting.

    python bench/voice_design.py [--sentences 12] [--presets woman,older man,deep]
                                 [--settings dio:5:0,dio:10:0,harvest:5:0,...] [--json]

The bundled joe voice speaks held-out sentences (bench/shaping_wer.py's,
none in the sample), and each WORLD setting (F0 estimator, frame period in
ms, FFT size; 0 = WORLD's default for the rate, 1024 at 22.05 kHz) applies
each preset's design to the same synthesized lines. pocketsphinx's bundled
US English model (it has never heard this voice) writes down what it hears;
the word error rate is against the text. The first row is the plain voice,
the baseline of the same run. Cost is the CPU time of apply_design (one
thread: WORLD is single-threaded) over the seconds of audio it made, and
its ratio to real time. Every setting shapes the same lines, so the columns
compare settings and not renditions.
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
from engine.project.model import VoiceParams  # noqa: E402
from engine.project.voice_presets import design_for  # noqa: E402
from engine.synth import world  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.design import apply_design  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402

DEFAULT_SETTINGS = "dio:5:0,dio:10:0,dio:5:2048,harvest:5:0,harvest:10:0"


def parse_setting(text: str) -> world.WorldSettings:
    estimator, frame_ms, fft = text.split(":")
    return world.WorldSettings(estimator, float(frame_ms), int(fft))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=12)
    parser.add_argument("--presets", default="woman,older man,deep")
    parser.add_argument("--settings", default=DEFAULT_SETTINGS, help="estimator:frame_ms:fft_size, comma separated")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    sentences = SENTENCES[:args.sentences]
    refs = [words(s) for s in sentences]
    total_words = sum(len(r) for r in refs)
    library = VoiceLibrary()
    rate = library.resolve(VoiceParams().voice).sample_rate
    synth = ClipSynthesizer(library, rate, ClipCache())
    plain = [synth.synthesize(s, VoiceParams()) for s in sentences]
    audio_s = sum(c.size for c in plain) / rate
    recognize = Recognizer()

    def wer(clips: list) -> float:  # type: ignore[type-arg]
        return sum(edit_distance(r, words(recognize(c, rate))) for r, c in zip(refs, clips, strict=True)) / total_words

    rows: list[dict[str, object]] = [{"setting": "plain", "preset": "-", "wer": wer(plain)}]
    print(f"{len(sentences)} sentences, {audio_s:.1f} s of audio; plain WER {rows[0]['wer']:.3f}", file=sys.stderr)
    for text in args.settings.split(","):
        settings = parse_setting(text)
        for name in args.presets.split(","):
            design = design_for(name, "male")
            started = time.process_time()
            shaped = [apply_design(c, rate, design, settings) for c in plain]
            cpu = time.process_time() - started
            made = sum(c.size for c in shaped) / rate
            row = {"setting": text, "preset": name, "wer": wer(shaped), "cpu_per_audio_s": cpu / made,
                   "x_real_time": made / cpu}
            rows.append(row)
            print(f"  {text:14s} {name:12s} WER {row['wer']:.3f}  {row['cpu_per_audio_s'] * 1000:6.1f} ms CPU per "
                  f"audio-s ({row['x_real_time']:.0f}x real time)", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("| setting | preset | WER | CPU ms per audio-s | x real time |")
        print("|---|---|---|---|---|")
        for row in rows:
            cost = (f"{row['cpu_per_audio_s'] * 1000:.1f} | {row['x_real_time']:.0f}"  # type: ignore[operator]
                    if "cpu_per_audio_s" in row else "- | -")
            print(f"| {row['setting']} | {row['preset']} | {row['wer']:.3f} | {cost} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
