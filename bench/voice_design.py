"""What a voice design costs: CPU per audio-second, word error rate and where the
pitch lands, per method (PSOLA, or WORLD with a setting).

    python bench/voice_design.py [--sentences 12] [--presets woman,older man,deep|all]
                                 [--design formant=0.9,f0_shift=-4 ...]
                                 [--settings psola,praat:5:0,dio:5:0,harvest:5:0,...] [--json]
    python bench/voice_design.py --pitch-cost   # +1.5 st alone: WORLD now against Rubber Band before
    python bench/voice_design.py --similarity --presets all   # speaker similarity between presets (Resemblyzer)

The bundled joe voice speaks held-out sentences (bench/shaping_wer.py's,
none in the sample), and each method applies each preset's design to the
same synthesized lines: ``psola`` (engine.synth.psola, what a design without
breath takes) or a WORLD setting (F0 estimator, frame period in ms, FFT size;
0 = WORLD's default for the rate, 1024 at 22.05 kHz; engine.synth.design's
apply_world, what a breathy design takes). Praat's median F0 of the result
says where the pitch landed. pocketsphinx's bundled
US English model (it has never heard this voice) writes down what it hears;
the word error rate is against the text. The first row is the plain voice,
the baseline of the same run. Cost is the CPU time of the method (one
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

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.shaping_wer import SENTENCES, Recognizer, edit_distance, words  # noqa: E402
from engine.project.design import VoiceDesign  # noqa: E402
from engine.project.model import VoiceParams  # noqa: E402
from engine.project.voice_presets import PRESET_NAMES, design_for  # noqa: E402
from engine.synth import world  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.design import apply_design, apply_overlap_add, apply_world  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402

DEFAULT_SETTINGS = "psola,praat:5:0,dio:5:0"


def parse_setting(text: str) -> world.WorldSettings:
    estimator, frame_ms, fft = text.split(":")
    return world.WorldSettings(estimator, float(frame_ms), int(fft))


def f0_median(audio: np.ndarray, rate: int) -> float:
    """Praat's median pitch of the voiced frames (praat-parselmouth), Hz."""
    import parselmouth

    pitch = parselmouth.Sound(np.asarray(audio, dtype=np.float64), rate).to_pitch_ac(pitch_floor=60.0,
                                                                                     pitch_ceiling=700.0)
    hz = pitch.selected_array["frequency"]
    return float(np.median(hz[hz > 0])) if np.any(hz > 0) else 0.0


def parse_design(spec: str) -> VoiceDesign:
    """``"formant=0.9,f0_shift=-4"`` -> that design."""
    pairs = (item.split("=", 1) for item in spec.split(",") if item)
    return VoiceDesign.from_dict({key.strip(): float(value) for key, value in pairs}, where="--design")


def similarity(count: int, presets: str, designs: list[str]) -> int:
    """Cosine similarity of the mean GE2E embedding (Resemblyzer, its weights in its
    wheel) of each preset's lines over joe, every pair; "man" over joe is joe."""
    import importlib.util
    import types

    import numpy as np

    if importlib.util.find_spec("pkg_resources") is None:
        # webrtcvad (Resemblyzer's silence trimmer) imports setuptools' pkg_resources only
        # to read its own version; this venv has no setuptools.
        version = types.SimpleNamespace(version="unknown")
        sys.modules["pkg_resources"] = types.SimpleNamespace(get_distribution=lambda _name: version)  # type: ignore[assignment]
    from resemblyzer import VoiceEncoder, preprocess_wav

    from engine.synth import shaping

    named = [(n, design_for(n, "male")) for n in (PRESET_NAMES if presets == "all"
                                                  else [p for p in presets.split(",") if p])]
    named += [(spec, parse_design(spec)) for spec in designs]
    names = [n for n, _ in named]
    library = VoiceLibrary()
    rate = library.resolve(VoiceParams().voice).sample_rate
    synth = ClipSynthesizer(library, rate, ClipCache())
    plain = [synth.synthesize(s, VoiceParams()) for s in SENTENCES[:count]]
    encoder = VoiceEncoder("cpu", verbose=False)
    means = {}
    for name, design in named:
        clips = [shaping.resample(apply_design(c, rate, design), rate, 16_000) for c in plain]
        embeds = np.array([encoder.embed_utterance(preprocess_wav(c, 16_000)) for c in clips])
        mean = embeds.mean(axis=0)
        means[name] = mean / np.linalg.norm(mean)
    print("| | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for a in names:
        print(f"| {a} | " + " | ".join(f"{float(means[a] @ means[b]):.2f}" for b in names) + " |")
    return 0


def pitch_cost(count: int, rounds: int = 3) -> int:
    """CPU per audio-second of the pitch-only shift, both methods on the same
    lines, alternated ``rounds`` times (best of each: the machine is shared)."""
    from bench.shaping_wer import _rubberband
    from engine.synth.shaping import pitch_shift

    library = VoiceLibrary()
    rate = library.resolve(VoiceParams().voice).sample_rate
    synth = ClipSynthesizer(library, rate, ClipCache())
    plain = [synth.synthesize(s, VoiceParams()) for s in SENTENCES[:count]]
    audio_s = sum(c.size for c in plain) / rate
    best = {"world": float("inf"), "rubberband": float("inf")}
    for _ in range(rounds):
        for method in best:
            started = time.process_time()
            for clip in plain:
                if method == "world":
                    pitch_shift(clip, rate, 1.5)
                else:
                    _rubberband(clip, rate, 1.5)
            best[method] = min(best[method], time.process_time() - started)
    for method, cpu in best.items():
        print(f"{method:10s} +1.5 st: {cpu / audio_s * 1000:6.1f} ms CPU per audio-s ({audio_s / cpu:.0f}x real time)")
    print(f"WORLD / Rubber Band cost: {best['world'] / best['rubberband']:.2f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=12)
    parser.add_argument("--presets", default="woman,older man,deep", help="comma separated, or 'all'")
    parser.add_argument("--design", action="append", default=[], metavar="FIELD=V,...",
                        help="also a design of your own, e.g. formant=0.9,f0_shift=-4 (repeatable)")
    parser.add_argument("--settings", default=DEFAULT_SETTINGS, help="estimator:frame_ms:fft_size, comma separated")
    parser.add_argument("--pitch-cost", action="store_true",
                        help="only compare the CPU cost of a +1.5 st shift: WORLD (now) against Rubber Band (before)")
    parser.add_argument("--similarity", action="store_true",
                        help="only the speaker similarity (Resemblyzer) of each preset's lines to the others'")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.pitch_cost:
        return pitch_cost(args.sentences)
    if args.similarity:
        return similarity(args.sentences, args.presets, args.design)
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

    def shape(method: str, clip: object, design: VoiceDesign) -> object:
        if design.with_changes(gain=0.0).is_neutral:
            return clip
        if method == "psola":
            return apply_overlap_add(clip, rate, design)  # type: ignore[arg-type]
        return apply_world(clip, rate, design, parse_setting(method))  # type: ignore[arg-type]

    rows: list[dict[str, object]] = [{"setting": "plain", "preset": "-", "wer": wer(plain),
                                      "f0_hz": f0_median(np.concatenate(plain), rate)}]
    print(f"{len(sentences)} sentences, {audio_s:.1f} s of audio; plain WER {rows[0]['wer']:.3f}, "
          f"F0 {rows[0]['f0_hz']:.0f} Hz", file=sys.stderr)
    for text in args.settings.split(","):
        named = [(n, design_for(n, "male")) for n in (PRESET_NAMES if args.presets == "all"
                                                      else [p for p in args.presets.split(",") if p])]
        named += [(spec, parse_design(spec)) for spec in args.design]
        for name, design in named:
            started = time.process_time()
            shaped = [shape(text, c, design) for c in plain]
            cpu = time.process_time() - started
            made = sum(c.size for c in shaped) / rate  # type: ignore[attr-defined]
            row = {"setting": text, "preset": name, "wer": wer(shaped), "cpu_per_audio_s": cpu / made,
                   "x_real_time": made / cpu if cpu > 1e-3 else float("inf"),  # neutral: no analysis
                   "f0_hz": f0_median(np.concatenate(shaped), rate)}  # type: ignore[arg-type]
            rows.append(row)
            print(f"  {text:14s} {name:16s} WER {row['wer']:.3f}  F0 {row['f0_hz']:4.0f} Hz  "
                  f"{row['cpu_per_audio_s'] * 1000:6.1f} ms CPU per audio-s ({row['x_real_time']:.0f}x real time)",
                  file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print("| method | preset | WER | F0 Hz | CPU ms per audio-s | x real time |")
        print("|---|---|---|---|---|---|")
        for row in rows:
            cost = (f"{row['cpu_per_audio_s'] * 1000:.1f} | {row['x_real_time']:.0f}"  # type: ignore[operator]
                    if "cpu_per_audio_s" in row else "- | -")
            print(f"| {row['setting']} | {row['preset']} | {row['wer']:.3f} | {row['f0_hz']:.0f} | {cost} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
