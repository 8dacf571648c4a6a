"""What keeping word timings costs: inference with and without the durations output.

    python bench/word_timings.py [--lines 12] [--rounds 5]

The sample's first lines in the default voice, phonemized before the clock
starts, run through one single-threaded ONNX session two ways, alternating
round by round so load from other processes falls on both alike:

- ``audio``: ``infer`` as before word timings (the "output" tensor only);
- ``timed``: ``infer_timed`` (the durations tensor fetched beside it and split
  into words).

It also times what the post stage adds per clip (placing the words in the
clip, writing the sidecar) and mapping a line's spoken words onto its
written words (``line_words``, done when captions are written or the studio
lights a word). Prints median (and fastest) seconds per round and the difference.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main() -> int:
    from engine.project.fileformat import load_project
    from engine.synth.backends.onnx_sessions import SessionLayout
    from engine.synth.cache import ClipCache
    from engine.synth.library import VoiceLibrary
    from engine.synth.synthesizer import ClipSynthesizer
    from engine.synth.wordmap import line_words

    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=12)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--finish-rounds", type=int, default=3)
    args = parser.parse_args()

    project = load_project(REPO / "samples" / "the-last-broadcast.radioplay")
    lines = project.lines[: args.lines]
    with tempfile.TemporaryDirectory() as folder:
        synth = ClipSynthesizer(VoiceLibrary(), project.sample_rate, ClipCache(Path(folder)),
                                SessionLayout(1, 1))
        plans = [synth.plan(line.text, project.role(line.role).voice) for line in lines]
        model = synth.warm(plans[0].voice)
        jobs = [(plan, synth.phonemize(plan)) for plan in plans]
        model.infer(jobs[0][1][0], jobs[0][0].settings)  # warm-up: ORT allocates its arenas
        audio_s, timed_s = [], []
        for _ in range(args.rounds):
            for kind, out in (("audio", audio_s), ("timed", timed_s)):
                started = time.perf_counter()
                for plan, units in jobs:
                    if kind == "audio":
                        [model.infer(u, plan.settings) for u in units]
                    else:
                        model.infer_timed(units, plan.settings)
                out.append(time.perf_counter() - started)
        synth.finish(synth.infer(*jobs[0]))  # warm-up: the first shaping imports its libraries
        with_s, without_s = [], []
        for _ in range(args.finish_rounds):
            for keep, out in ((True, with_s), (False, without_s)):
                raws = [synth.infer(plan, units) for plan, units in jobs]
                if not keep:
                    for raw in raws:
                        raw.words = None  # the same shaping and writing, without the words
                started = time.perf_counter()
                for raw in raws:
                    synth.finish(raw)
                out.append(time.perf_counter() - started)
        finish_s, finish_plain_s = statistics.median(with_s), statistics.median(without_s)
        started = time.perf_counter()
        for line, plan in zip(lines, plans, strict=True):
            line_words(line.text, plan, synth.cache)
        first_map_s = time.perf_counter() - started
        started = time.perf_counter()
        for line, plan in zip(lines, plans, strict=True):
            line_words(line.text, plan, synth.cache)
        map_s = time.perf_counter() - started
    a, t = statistics.median(audio_s), statistics.median(timed_s)
    print(f"{len(lines)} lines, {args.rounds} rounds, one single-threaded session")
    print(f"inference, audio only : {a:.3f} s (median of {len(audio_s)} rounds)")
    print(f"inference, with words : {t:.3f} s  ({(t - a) / a * 100:+.1f} %)")
    best_a, best_t = min(audio_s), min(timed_s)  # the least disturbed round of each: steadier on a shared machine
    print(f"fastest rounds        : {best_a:.3f} s audio only, {best_t:.3f} s with words "
          f"({(best_t - best_a) / best_a * 100:+.1f} %)")
    print(f"finish (shape + cache): {finish_s:.3f} s with words, {finish_plain_s:.3f} s without "
          f"({(finish_s - finish_plain_s) * 1000 / len(lines):+.1f} ms per line)")
    print(f"written words mapped  : {first_map_s * 1000 / len(lines):.2f} ms per line first time, "
          f"{map_s * 1000 / len(lines):.2f} ms after (espeak-ng lengths cached)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
