"""How to whisper without losing the line: the methods measured side by side.

    python bench/whisper_methods.py [--lines 4] [--voices joe,kokoro:jm_kumo,kokoro:jf_gongitsune]

Each voice says held-out lines (bench/shaping_wer.py's) plainly through the
product (ClipSynthesizer); each method whispers the same clips, which are then
levelled and lowered 9 dB as a whispered phrase is (engine/synth/performance.py).
Measured as bench/direction.py does: DNSMOS P.835 OVRL (with SIG and BAK),
the speaker encoder's similarity to the role's reference sentence, Praat's
voiced fraction and pocketsphinx's word error rate. Methods:

- ``world-noise``  the whisper before: WORLD's envelope excited by noise alone
                   (random-phase overlap-add, engine.synth.world.whisper)
- ``world-ap1``    WORLD's own synthesis, the aperiodicity 1 everywhere, F0 kept
- ``lpc-noise``    noise-excited LPC: 25 ms frames every 5 ms, order rate/1000 + 2,
                   white noise through each frame's all-pole filter, overlap-added
- ``breath``       the product's whisper (engine.synth.breath.aspirate at 1): noise
                   above the crossover, a thread of the voice below it
- ``plain``        the clip itself (lowered 9 dB), for the ceiling
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.direction import voice_params  # noqa: E402
from bench.shaping_wer import SENTENCES, Recognizer, edit_distance, words  # noqa: E402
from engine.check.candidate_measures import REFERENCE  # noqa: E402
from engine.listen import quality, speaker  # noqa: E402
from engine.synth import breath, shaping, world  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402
from tests.support.listening import features  # noqa: E402

RATE = 22050


def world_noise(audio: np.ndarray, rate: int) -> np.ndarray:
    return world.whisper(world.analyse(audio, rate, aperiodicity=False), audio.size, audio)


def world_ap1(audio: np.ndarray, rate: int) -> np.ndarray:
    analysis = world.analyse(audio, rate, aperiodicity=False)  # the aperiodicity is 1 everywhere
    return world.synthesize(analysis, audio.size)


def lpc_noise(audio: np.ndarray, rate: int) -> np.ndarray:
    from scipy.linalg import solve_toeplitz
    from scipy.signal import lfilter

    x = lfilter([1, -0.97], [1], audio.astype(np.float64))
    order, size, hop = rate // 1000 + 2, int(0.025 * rate), int(0.005 * rate)
    window = np.hanning(size)
    noise = np.random.default_rng(1).standard_normal(x.size + size)
    out, weight = np.zeros(x.size + size), np.zeros(x.size + size)
    for start in range(0, x.size, hop):
        frame = np.zeros(size)
        part = x[start:start + size]
        frame[:part.size] = part * window[:part.size]
        ac = np.correlate(frame, frame, "full")[size - 1:size + order]
        if ac[0] <= 1e-9:
            continue
        ac[0] *= 1.0 + 1e-6
        a = solve_toeplitz(ac[:-1], -ac[1:])
        gain = np.sqrt(max(ac[0] + np.dot(a, ac[1:]), 0.0) / np.sum(window * window))
        out[start:start + size] += lfilter([gain], np.r_[1.0, a], noise[start:start + size]) * window
        weight[start:start + size] += window * window
    y = out[:x.size] / np.maximum(weight[:x.size], 1e-3)
    return lfilter([1], [1, -0.97], y).astype(np.float32)


METHODS: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
    "world-noise": world_noise, "world-ap1": world_ap1, "lpc-noise": lpc_noise,
    "breath": lambda a, r: breath.aspirate(a, r, 1.0), "plain": lambda a, r: a,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=4)
    parser.add_argument("--voices", default="joe,kokoro:jm_kumo,kokoro:jf_gongitsune")
    args = parser.parse_args()
    synth = ClipSynthesizer(VoiceLibrary(), RATE, ClipCache())
    recognize, encoder = Recognizer(), speaker.encoder()
    texts = SENTENCES[:args.lines]
    print("| voice | method | OVRL | SIG | BAK | similarity | voiced | WER |")
    print("|" + "---|" * 8)
    for voice in args.voices.split(","):
        params = voice_params(voice)
        reference = encoder.embed(synth.synthesize(REFERENCE, params), RATE)
        clips = [np.array(synth.synthesize(t, params), dtype=np.float32) for t in texts]
        for name, method in METHODS.items():
            rows = []
            for text, clip in zip(texts, clips, strict=True):
                whispered = np.array(method(clip.copy(), RATE), dtype=np.float32)
                whispered = shaping.level_loudness(whispered, RATE) * np.float32(10 ** (-9 / 20))
                mos = quality.dnsmos(whispered, RATE)
                rows.append((mos["ovrl"], mos["sig"], mos["bak"],
                             speaker.similarity(encoder.embed(whispered, RATE), reference),
                             features(whispered, RATE).voiced_fraction,
                             edit_distance(words(text), words(recognize(whispered, RATE))) / len(words(text))))
            m = np.mean(rows, axis=0)
            print(f"| {voice} | {name} | {m[0]:.2f} | {m[1]:.2f} | {m[2]:.2f} | {m[3]:.2f} | {m[4]:.2f} | {m[5]:.2f} |",
                  flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
