"""Direct by Voice on the bundled sample: what ``radioplay direct`` makes of three reads.

    python bench/direct.py [--json]

espeak-ng reads three lines of the sample as the "actor" (tests/support/actor_reads.py:
a rise on a question for MAGGIE, a Kokoro style; a slow emphatic line for MR. HOLLIS,
Piper's joe; a long pause mid-line for JUNE, joe with a design). For each, on a copy of
the sample in a temporary folder (its own clip cache):

- before: the line's plain take against the read; after: the take ``radioplay direct``
  made (the verb run in this process, as a user runs it). F0 is Pearson's r over the
  voiced frames of both, in semitones, placed by the words each is aligned to; onset
  is the largest difference of a word's start from the read's, after the median offset
  (engine/direct/measure.py);
- identity: the speaker encoder's similarity of the take to the role's plain take and
  to the read;
- words: the word error rate of the plain takes and of the directed ones (pocketsphinx's
  general model, long pauses cut: engine/direct/measure.py);
- reproduction: the saved project voiced again by a synthesizer with no cache, compared
  sample for sample;
- cost: the transfer (finishing the directed plan less finishing the plain one, on the
  same model audio) per audio-second of take, the read's preparation (VAD, recognizer,
  alignment) per second of read, and the whole verb.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="radioplay-direct-bench-") as tmp:
        os.environ["RADIOPLAY_CACHE_DIR"] = str(Path(tmp) / "cache")
        rows, summary = run(Path(tmp))
    if args.json:
        print(json.dumps({"lines": rows, **summary}, indent=2))
        return 0
    print(f"{'line':6} {'role':11} {'voice':18} {'r before':>8} {'r after':>8} {'onset before':>12} "
          f"{'onset after':>11} {'sim role':>8} {'sim read':>8} {'WER plain':>9} {'WER take':>8} {'same':>5}")
    for r in rows:
        print(f"{r['line']:6} {r['role']:11} {r['voice']:18} {r['f0_r_before']:8.2f} {r['f0_r_after']:8.2f} "
              f"{r['onset_before_s'] * 1000:10.0f}ms {r['onset_after_s'] * 1000:9.0f}ms {r['similarity_role']:8.3f} "
              f"{r['similarity_read']:8.3f} {r['wer_plain']:9.2f} {r['wer_take']:8.2f} "
              f"{'yes' if r['reproduced'] else 'NO':>5}")
    print(f"word error rate over the three lines: plain {summary['wer_plain']:.3f}, directed {summary['wer_take']:.3f}")
    print(f"transfer: {summary['transfer_s_per_audio_s']:.3f} s per audio-second of take (plain finish "
          f"{summary['plain_finish_s_per_audio_s']:.3f}); read preparation {summary['prepare_s_per_read_s']:.3f} s "
          f"per second of read; radioplay direct {summary['verb_s_mean']:.1f} s a line (one process, voices loaded)")
    return 0


def run(folder: Path) -> tuple[list[dict[str, object]], dict[str, float]]:
    from engine.check.speech import text_words
    from engine.cli import main as cli
    from engine.direct import measure
    from engine.direct.read import prepare_read
    from engine.project.fileformat import load_project
    from engine.project.takes import voice_of
    from engine.synth.pipeline import plan_line
    from engine.synth.synthesizer import make_synthesizer
    from tests.support.actor_reads import READS, SAMPLE, make_read

    import soundfile

    project_path = folder / SAMPLE.name
    shutil.copy(SAMPLE, project_path)
    original = load_project(project_path)
    rate = original.sample_rate
    synth = make_synthesizer(project_path, rate)
    rows: list[dict[str, object]] = []
    plains, takes, texts = [], [], []
    transfer_s = plain_finish_s = take_audio_s = prepare_s = read_s = 0.0
    verb_s: list[float] = []
    for read in READS:
        line = original.line(read.line_id)
        wav = make_read(read, folder / f"read-{read.name}.wav")
        audio, read_rate = soundfile.read(str(wav), dtype="float32")
        started = time.perf_counter()
        aligned = prepare_read(audio, read_rate, line.text, lexicon=original.lexicon_for(line.role))
        prepare_s += time.perf_counter() - started
        read_s += audio.size / read_rate
        plain = np.asarray(synth.synthesize_plan(plan_line(synth, original, line)))
        started = time.perf_counter()
        code = cli(["direct", str(project_path), read.line_id, "--read", str(wav)])
        verb_s.append(time.perf_counter() - started)
        if code != 0:
            raise SystemExit(f"radioplay direct failed on {read.line_id} ({code})")
        saved = load_project(project_path)
        directed = saved.line(read.line_id)
        plan = plan_line(synth, saved, directed)
        take = np.asarray(synth.synthesize_plan(plan))
        fresh = make_synthesizer(project_path, rate, use_cache=False)
        again = np.asarray(fresh.synthesize_plan(plan_line(fresh, load_project(project_path), directed)))
        t_transfer, t_plain = _finish_times(fresh, saved, directed)
        transfer_s += t_transfer
        plain_finish_s += t_plain
        take_audio_s += take.size / rate
        words = text_words(line.text)
        read_words = measure.aligned(aligned.audio, aligned.rate, words)
        if read_words is None:
            raise SystemExit(f"the read of {read.line_id} cannot be aligned for measuring")
        before = measure.follow(plain, rate, _aligned(measure, plain, rate, words), aligned.audio, aligned.rate,
                                read_words)
        after = measure.follow(take, rate, _aligned(measure, take, rate, words), aligned.audio, aligned.rate,
                               read_words)
        spoken = " ".join(words)
        plains.append(plain)
        takes.append(take)
        texts.append(spoken)
        rows.append({
            "line": read.line_id, "read": read.name, "role": line.role,
            "voice": voice_of(saved, directed).voice,
            "f0_r_before": round(before.f0_r or 0.0, 3), "f0_r_after": round(after.f0_r or 0.0, 3),
            "onset_before_s": round(before.onset_s, 3), "onset_after_s": round(after.onset_s, 3),
            "similarity_role": round(measure.similarity(take, rate, plain, rate), 3),
            "similarity_read": round(measure.similarity(take, rate, aligned.audio, aligned.rate), 3),
            "wer_plain": round(measure.word_error_rate([spoken], [plain], rate), 3),
            "wer_take": round(measure.word_error_rate([spoken], [take], rate), 3),
            "reproduced": bool(np.array_equal(take, again)),
            "take_s": round(take.size / rate, 2),
        })
    summary = {
        "wer_plain": round(measure.word_error_rate(texts, plains, rate), 3),
        "wer_take": round(measure.word_error_rate(texts, takes, rate), 3),
        "transfer_s_per_audio_s": round(max(0.0, transfer_s - plain_finish_s) / take_audio_s, 4),
        "plain_finish_s_per_audio_s": round(plain_finish_s / take_audio_s, 4),
        "prepare_s_per_read_s": round(prepare_s / read_s, 4),
        "verb_s_mean": round(float(np.mean(verb_s)), 2),
    }
    return rows, summary


def _aligned(measure: object, clip: np.ndarray, rate: int, words: list[str]) -> list[object]:
    found = measure.aligned(clip, rate, words)  # type: ignore[attr-defined]
    if found is None:
        raise SystemExit("a take cannot be aligned to its words for measuring")
    return list(found)


def _finish_times(synth: object, project: object, line: object) -> tuple[float, float]:
    """(finishing the directed plan, finishing the plain plan) on the same model audio."""
    from dataclasses import replace

    from engine.synth.pipeline import plan_line

    plan = plan_line(synth, project, line)  # type: ignore[arg-type]
    raw = synth.infer(plan)  # type: ignore[attr-defined]
    started = time.perf_counter()
    synth.finish(raw)  # type: ignore[attr-defined]
    directed = time.perf_counter() - started
    plain_raw = replace(raw, plan=replace(plan, read=None, key=plan.key + "-plain"), reservation=None)
    started = time.perf_counter()
    synth.finish(plain_raw)  # type: ignore[attr-defined]
    return directed, time.perf_counter() - started


if __name__ == "__main__":
    sys.exit(main())
