"""What pitch shaping costs intelligibility: word error rate by method and shift.

    python bench/shaping_wer.py [--shifts 0,-1.5,1.5,-3,3] [--methods rubberband,world,...] [--sentences 36]
                                [--jobs 2] [--json]

The bundled joe voice speaks held-out sentences (below; none is in the sample
production), each method shapes the model's audio, and an independent offline
recognizer (pocketsphinx's bundled US English model, which has never heard
this voice) writes down what it hears. The word error rate is the word-level
edit distance to the text over the number of words. Methods:

- ``product``     engine.synth.shaping.pitch_shift as it is now: WORLD down, Rubber Band up
- ``rubberband``  the product's shaping before this measurement: Rubber Band R2
                  through pedalboard, formants preserved
- ``rubberband-r3`` the same with Rubber Band's R3 engine (``high_quality``)
- ``world``       WORLD vocoder (pyworld): F0 scaled, spectral envelope kept
- ``formant``     WORLD with the spectral envelope warped by the same ratio and F0
                  kept: a shorter or longer vocal tract at the same pitch
- ``world-both``  WORLD with F0 scaled and the envelope warped by half the ratio
                  (in semitones), the usual "other speaker" recipe
- ``speed``       no DSP: the model speaks 4 % faster (+) or slower (-) per
                  semitone of the column (speed 0.88..1.12 at +-3)

Every method shapes the same synthesized lines (Piper's noise makes every
synthesis a different rendition, which moved the unshifted figure from 0.10
to 0.14 between two runs). Shift 0 is each method's round trip (WORLD
analyses and resynthesizes even then), so the column shows what a method
costs before it shifts anything.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.listen.heard import RATE as HEARD_RATE  # noqa: E402
from engine.listen.heard import GeneralRecognizer, edit_distance, words  # noqa: E402, F401
from engine.project.model import VoiceParams  # noqa: E402
from engine.synth import shaping  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402
from engine.synth.world import _pyworld  # noqa: E402

# Held out: written for this benchmark, not taken from samples/ or the tests.
SENTENCES = [
    "The old man walked slowly down the hill to the river.",
    "Please close the window before you leave the room.",
    "She bought three apples and a loaf of bread at the market.",
    "We will meet again at the station tomorrow morning.",
    "The children were playing in the garden all afternoon.",
    "He could not find his keys anywhere in the house.",
    "The train was late because of the heavy snow.",
    "My sister works as a doctor in a small town.",
    "They painted the kitchen a bright shade of yellow.",
    "The dog barked at the stranger by the gate.",
    "I have never seen so many birds in one place.",
    "The meeting has been moved to next Thursday.",
    "Turn left at the church and follow the road to the farm.",
    "The water in the lake was cold and very clear.",
    "Could you tell me the way to the nearest hospital?",
    "The captain ordered the crew to raise the sails.",
    "Her letter arrived three weeks after she had sent it.",
    "The lights went out just as the music began.",
    "We found an old map hidden inside the book.",
    "The baker opens his shop early every day.",
    "It was the coldest winter anyone could remember.",
    "The teacher asked the students to read the first chapter.",
    "A strong wind blew the leaves across the street.",
    "He promised to call as soon as he got home.",
    "The museum is closed on Mondays and public holidays.",
    "They sat by the fire and told stories until midnight.",
    "The soldiers marched through the village at dawn.",
    "I think we should wait for the rain to stop.",
    "The doctor told him to rest for a few days.",
    "Nobody knew where the money had come from.",
    "The phone rang twice and then stopped.",
    "She opened the door and looked out into the dark.",
    "The ship sailed north along the rocky coast.",
    "Every morning he drinks a cup of black coffee.",
    "The road was blocked by a fallen tree.",
    "We listened to the radio while we waited.",
]

RECOGNIZER_RATE = HEARD_RATE


def _world(audio: np.ndarray, rate: int, f0_ratio: float, envelope_ratio: float) -> np.ndarray:
    """WORLD analysis/synthesis with F0 scaled and the spectral envelope's frequency
    axis stretched by ``envelope_ratio`` (> 1 moves formants up)."""
    pw = _pyworld()
    x = audio.astype(np.float64)
    # DIO + StoneMask, not Harvest: Harvest took 2.3 s for a 2.6 s line here, too slow for
    # a step that runs on every clip; DIO 0.07 s.
    f0, t = pw.dio(x, rate, frame_period=5.0)  # type: ignore[attr-defined]
    f0 = pw.stonemask(x, f0, t, rate)  # type: ignore[attr-defined]
    sp = pw.cheaptrick(x, f0, t, rate)  # type: ignore[attr-defined]
    ap = pw.d4c(x, f0, t, rate)  # type: ignore[attr-defined]
    if abs(envelope_ratio - 1.0) > 1e-6:
        bins = np.arange(sp.shape[1], dtype=np.float64)
        source = np.clip(bins / envelope_ratio, 0, sp.shape[1] - 1)
        sp = np.stack([np.interp(source, bins, row) for row in sp])
        ap = np.stack([np.interp(source, bins, row) for row in ap])
    y = pw.synthesize(f0 * f0_ratio, np.ascontiguousarray(sp), np.ascontiguousarray(ap), rate,  # type: ignore[attr-defined]
                      frame_period=5.0)
    return np.asarray(y, dtype=np.float32)


Method = Callable[[np.ndarray, int, float], np.ndarray]

def _rubberband(audio: np.ndarray, rate: int, semitones: float, high_quality: bool = False) -> np.ndarray:
    import pedalboard

    if not semitones:
        return audio
    shifted = pedalboard.time_stretch(audio[None, :], float(rate), stretch_factor=1.0,
                                      pitch_shift_in_semitones=float(semitones), preserve_formants=True,
                                      high_quality=high_quality)
    return np.ascontiguousarray(shifted[0], dtype=np.float32)


METHODS: dict[str, Method] = {
    "product": lambda a, r, s: shaping.pitch_shift(a.copy(), r, s),
    "rubberband": lambda a, r, s: _rubberband(a, r, s),
    "rubberband-r3": lambda a, r, s: _rubberband(a, r, s, high_quality=True),
    "world": lambda a, r, s: _world(a, r, 2 ** (s / 12), 1.0),
    "formant": lambda a, r, s: _world(a, r, 1.0, 2 ** (s / 12)),
    "world-both": lambda a, r, s: _world(a, r, 2 ** (s / 12), 2 ** (s / 24)),
}
SPEED_PER_SEMITONE = 0.04


# The general-model listener and the word error rate live in the engine (the casting measures
# what a design costs with them); the benchmarks import them from here as before.
Recognizer = GeneralRecognizer


_worker: dict[str, object] = {}


def _start_worker(rate: int, sentences: list[str]) -> None:
    _worker.update(recognize=Recognizer(), rate=rate, refs=[words(s) for s in sentences], sentences=sentences)


def _cell(method: str, shift: float, plain: list[np.ndarray]) -> tuple[str, float, float, float]:
    """(method, shift, word error rate, seconds) of one cell of the table, in a worker process."""
    started = time.perf_counter()
    rate = int(_worker["rate"])  # type: ignore[call-overload]
    recognize: Recognizer = _worker["recognize"]  # type: ignore[assignment]
    refs: list[list[str]] = _worker["refs"]  # type: ignore[assignment]
    if method == "speed":
        synth = ClipSynthesizer(VoiceLibrary(), rate, ClipCache())
        params = VoiceParams(speed=1 + SPEED_PER_SEMITONE * shift)
        clips = [synth.synthesize(s, params) for s in _worker["sentences"]]  # type: ignore[attr-defined]
    elif method == "plain":
        clips = plain
    else:
        clips = [METHODS[method](c, rate, shift) for c in plain]
    errors = sum(edit_distance(ref, words(recognize(clip, rate))) for ref, clip in zip(refs, clips, strict=True))
    return method, shift, errors / sum(len(r) for r in refs), time.perf_counter() - started


def run(shifts: list[float], methods: list[str], count: int, jobs: int) -> dict[str, dict[str, float]]:
    """Every (method, shift) cell on the same synthesized lines (Piper's noise makes each
    synthesis different: comparing methods across runs would compare renditions too).
    Shift 0 of rubberband and speed is the plain line, recognized once."""
    from concurrent.futures import ProcessPoolExecutor

    sentences = SENTENCES[:count]
    library = VoiceLibrary()
    rate = library.resolve(VoiceParams().voice).sample_rate
    synth = ClipSynthesizer(library, rate, ClipCache())
    plain = [synth.synthesize(s, VoiceParams()) for s in sentences]
    identity = {"product", "rubberband", "rubberband-r3", "speed"}
    cells = [("plain", 0.0)] + [(m, s) for m in methods for s in shifts if not (s == 0 and m in identity)]
    table: dict[str, dict[str, float]] = {m: {} for m in methods}
    with ProcessPoolExecutor(jobs, initializer=_start_worker, initargs=(rate, sentences)) as pool:
        futures = [pool.submit(_cell, m, s, plain) for m, s in cells]
        for future in futures:
            method, shift, wer, seconds = future.result()
            print(f"  {method:14s} {shift:+5.1f} st  WER {wer:.3f}  ({seconds:.1f} s)", file=sys.stderr, flush=True)
            if method == "plain":
                for m in methods:
                    if m in identity and 0.0 in shifts:
                        table[m]["+0"] = wer
            else:
                table[method][f"{shift:+g}"] = wer
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shifts", default="0,-1.5,1.5,-3,3", help="semitones, comma separated")
    parser.add_argument("--methods", default="rubberband,world,formant,speed,product", help=f"comma separated from {', '.join([*METHODS, 'speed'])}")
    parser.add_argument("--sentences", type=int, default=len(SENTENCES))
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (cells run in parallel)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    shifts = [float(s) for s in args.shifts.split(",")]
    methods = args.methods.split(",")
    table = run(shifts, methods, args.sentences, args.jobs)
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    count = min(args.sentences, len(SENTENCES))
    print(f"word error rate, joe voice, {count} held-out sentences "
          f"({sum(len(words(s)) for s in SENTENCES[:count])} words), pocketsphinx en-US")
    columns = [f"{s:+g}" for s in shifts]
    print(f"{'method':14s}" + "".join(f"{c + ' st':>9s}" for c in columns) + f"{'mean':>9s}")
    for method, row in table.items():
        shifted = [row[c] for c in columns if c != "+0"]
        mean = sum(shifted) / len(shifted) if shifted else row["+0"]
        print(f"{method:14s}" + "".join(f"{row[c]:9.3f}" for c in columns) + f"{mean:9.3f}")
    print("shift 0 of product, rubberband and speed is the unshifted line; WORLD methods resynthesize even at 0")
    print("mean: over the non-zero shifts")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
