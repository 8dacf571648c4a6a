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
- independently of pocketsphinx (which aligns the read for the transfer): where
  ``pip install '.[listen]'`` is there, Whisper base (bench/whisper_heard.py) hears
  the plain and directed takes (word error rate) and times every word of the read
  and of the take (its word timestamps), for a second onset figure; DNSMOS
  (engine/listen/quality.py) scores the plain and directed takes;
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
    if "whisper_wer_plain" in summary:
        print(f"Whisper base: word error rate plain {summary['whisper_wer_plain']:.3f}, directed "
              f"{summary['whisper_wer_take']:.3f}; word onsets after (its timestamps): "
              + ", ".join(f"{r['line']} {_ms(r['whisper_onset_before_s'])} -> {_ms(r['whisper_onset_after_s'])}"
                          for r in rows))
    print("DNSMOS OVRL plain -> directed: " + ", ".join(f"{r['line']} {r['dnsmos_plain']:.2f} -> "
                                                       f"{r['dnsmos_take']:.2f}" for r in rows))
    print(f"transfer: {summary['transfer_s_per_audio_s']:.3f} s per audio-second of take (plain finish "
          f"{summary['plain_finish_s_per_audio_s']:.3f}); read preparation {summary['prepare_s_per_read_s']:.3f} s "
          f"per second of read; radioplay direct {summary['verb_s_mean']:.1f} s a line (one process, voices loaded)")
    return 0


def _ms(seconds: object) -> str:
    return "n/a" if seconds is None else f"{float(seconds) * 1000:.0f} ms"  # type: ignore[arg-type]


def run(folder: Path) -> tuple[list[dict[str, object]], dict[str, float]]:
    import soundfile

    from engine.check.speech import text_words
    from engine.cli import main as cli
    from engine.direct import measure
    from engine.direct.read import prepare_read
    from engine.listen.quality import dnsmos
    from engine.project.fileformat import load_project
    from engine.project.takes import voice_of
    from engine.synth.pipeline import plan_line
    from engine.synth.synthesizer import make_synthesizer
    from tests.support.actor_reads import READS, SAMPLE, make_read

    project_path = folder / SAMPLE.name
    shutil.copy(SAMPLE, project_path)
    original = load_project(project_path)
    rate = original.sample_rate
    synth = make_synthesizer(project_path, rate)
    rows: list[dict[str, object]] = []
    plains, takes, texts = [], [], []
    transfer_s = plain_finish_s = take_audio_s = prepare_s = read_s = 0.0
    verb_s: list[float] = []
    whisper = _whisper()
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
            "dnsmos_plain": round(dnsmos(plain, rate)["ovrl"], 2),
            "dnsmos_take": round(dnsmos(take, rate)["ovrl"], 2),
            **_whisper_row(whisper, spoken, plain, take, rate, aligned.audio, aligned.rate),
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
    if whisper is not None:
        summary["whisper_wer_plain"] = round(whisper.word_error_rate(texts, plains, rate), 3)
        summary["whisper_wer_take"] = round(whisper.word_error_rate(texts, takes, rate), 3)
    return rows, summary


def _whisper() -> object | None:
    """Whisper base, where the listen extra is installed (else the rows go without it)."""
    try:
        import faster_whisper  # noqa: F401
    except ImportError:
        print("bench: no Whisper figures (pip install '.[listen]')", file=sys.stderr)
        return None
    sys.path.insert(0, str(REPO / "bench"))
    from whisper_heard import WhisperHeard

    return WhisperHeard()


def _whisper_words(whisper: object, audio: np.ndarray, rate: int) -> list[tuple[str, float]]:
    """(word, start) of each word Whisper hears, by its own word timestamps."""
    import soxr

    from engine.listen.heard import words as spoken_words

    audio16 = np.asarray(soxr.resample(np.asarray(audio, dtype=np.float32), rate, 16_000, quality="VHQ"),
                         dtype=np.float32)
    peak = float(np.max(np.abs(audio16))) or 1.0
    segments, _ = whisper.model.transcribe(audio16 / peak * 0.8, language="en", beam_size=1,  # type: ignore[attr-defined]
                                           temperature=0.0, condition_on_previous_text=False,
                                           word_timestamps=True, vad_filter=False)
    found: list[tuple[str, float]] = []
    for segment in segments:
        for word in segment.words or ():
            for w in spoken_words(word.word):
                found.append((w, float(word.start)))
    return found


def _spoken(text: str) -> list[str]:
    from engine.listen.heard import words as spoken_words

    return spoken_words(text)


def _starts(reference: list[str], heard: list[tuple[str, float]]) -> dict[int, float]:
    """Each word of ``reference`` Whisper heard as it is, by its index, with its start."""
    from difflib import SequenceMatcher

    matcher = SequenceMatcher(a=reference, b=[w for w, _ in heard], autojunk=False)
    return {block.a + k: heard[block.b + k][1] for block in matcher.get_matching_blocks() for k in range(block.size)}


def _whisper_row(whisper: object | None, spoken: str, plain: np.ndarray, take: np.ndarray, rate: int,
                 read: np.ndarray, read_rate: int) -> dict[str, object]:
    """Whisper's word errors on the plain and directed takes, and the largest difference of
    a word's onset (heard in both) between the take and the read, after the median offset."""
    if whisper is None:
        return {}
    errors_plain, n = whisper.word_errors(spoken, plain, rate)  # type: ignore[attr-defined]
    errors_take, _ = whisper.word_errors(spoken, take, rate)  # type: ignore[attr-defined]

    reference = _spoken(spoken)
    read_starts = _starts(reference, _whisper_words(whisper, read, read_rate))

    def onset(clip: np.ndarray, clip_rate: int) -> float | None:
        starts = _starts(reference, _whisper_words(whisper, clip, clip_rate))
        both = sorted(read_starts.keys() & starts.keys())
        if len(both) < 2:
            return None
        diffs = np.array([starts[k] - read_starts[k] for k in both])
        return round(float(np.max(np.abs(diffs - np.median(diffs)))), 3)

    return {"whisper_wer_plain": round(errors_plain / max(1, n), 3), "whisper_wer_take": round(errors_take / max(1, n), 3),
            "whisper_onset_before_s": onset(plain, rate), "whisper_onset_after_s": onset(take, rate)}


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
