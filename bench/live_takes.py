"""A line voiced in parts (its live take) against the same line voiced whole, over a production.

    python bench/live_takes.py [PROJECT] [--lines L0001,L0007] [--json OUT.json]

When a listener waits for a line, the scheduler voices it sentence by sentence and the
post stage shapes each part as it comes (engine/sched/streaming.py,
engine/synth/live_parts.py): that is what is heard live, while the cached clip that every
render and every later pass plays is shaped whole from the same sentences. Here both are
made for every line of the production (the sample by default: 48 lines), as the product
makes them (``LiveShaper`` part by part, ``ClipSynthesizer.finish``, from the same model
runs), and compared:

- word error rate: what the speech check's recognizer hears (engine/check/speech.py
  ``check_clip``, with the line's neighbours as context) against the line's words;
- the F0 contour (Praat's autocorrelation pitch): each clip's voiced frames in semitones,
  their median and their range (10th to 90th percentile), and the RMS distance between
  the two contours laid over each other on a common time axis (both clips' speech scaled
  to one length);
- timing: each clip's length, and its speech (frames within 45 dB of its peak);
- the level: each clip's integrated loudness (the live take is levelled by its first
  part's loudness, the whole clip by its own);
- a loudness step at each seam (where one part ends and the next begins in the live
  take): the level (RMS, dB) of the 100 ms of speech after the seam minus the 100 ms of
  speech before it, against the same step at the same place in the whole clip (the two
  aligned by dynamic time warping of their log-mel spectrograms); the difference is what
  the seam adds.

Targets (issue 54): word error rate within 0.02 of the whole lines'; no seam steps more
than 1 dB beyond the whole line's at that place.

``--clauses`` measures the design not taken: a Kokoro line's first sentence cut after each
clause (where the model pauses inside the sentence), each clause voiced as a run of its
own, which would make the first part shorter (docs/dev/scheduling-and-playback.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.audio.loudness import LoudnessMeter  # noqa: E402
from engine.check.lines import clip_inputs  # noqa: E402
from engine.check.speech import check_clip, text_words  # noqa: E402
from engine.listen.heard import edit_distance  # noqa: E402
from engine.project.fileformat import load_project  # noqa: E402
from engine.sched.streaming import part_ends  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.live_parts import LiveShaper  # noqa: E402
from engine.synth.pipeline import plan_line  # noqa: E402
from engine.synth.synthesizer import RawAudio, make_synthesizer  # noqa: E402

SAMPLE = REPO / "samples" / "the-last-broadcast.radioplay"
WINDOW_S = 0.1  # the speech either side of a seam
SILENT_DB = -45.0  # below the clip's peak by this: silence (as shaping trims)
WORDS_DB = -35.0  # within this of the peak: words (not a breath, a tail into a pause)
FRAME_S = 0.01


def _db(x: np.ndarray) -> float:
    return float(10 * np.log10(np.mean(np.square(x, dtype=np.float64)) + 1e-12))


def _frames_db(audio: np.ndarray, rate: int) -> np.ndarray:
    n = int(FRAME_S * rate)
    frames = audio[: audio.size // n * n].reshape(-1, n).astype(np.float64)
    peak = float(np.max(np.abs(audio))) or 1.0
    return np.asarray(10 * np.log10(np.mean(frames**2, axis=1) / peak**2 + 1e-12))


def _speech_windows(audio: np.ndarray, rate: int, at: int) -> tuple[np.ndarray, np.ndarray]:
    """The WINDOW_S of words (frames within 35 dB of the clip's peak) that ends nearest
    before sample ``at``, and the WINDOW_S that starts nearest after it: the words either
    side of a seam, however long the silence between them."""
    n = int(FRAME_S * rate)
    loud = np.flatnonzero(_frames_db(audio, rate) >= WORDS_DB)
    k = int(round(WINDOW_S / FRAME_S))
    frame = at // n
    before, after = loud[loud < frame][-k:], loud[loud >= frame][:k]
    pick = lambda frames: np.concatenate([audio[f * n:(f + 1) * n] for f in frames]) if frames.size else audio[:0]  # noqa: E731
    return pick(before), pick(after)


def _step(audio: np.ndarray, rate: int, at: int) -> float:
    """The level of the speech after sample ``at`` minus the speech before it (dB)."""
    before, after = _speech_windows(audio, rate, at)
    return _db(after) - _db(before) if before.size and after.size else 0.0


def _aligned(live: np.ndarray, whole: np.ndarray, rate: int, at: int) -> int:
    """Sample ``at`` of the live take mapped onto the whole clip: dynamic time warping of the
    two log-mel spectrograms (the same words, said with other pauses and a little otherwise)."""
    import librosa

    hop = int(FRAME_S * rate)

    def mel(x: np.ndarray) -> np.ndarray:
        power = librosa.feature.melspectrogram(y=x.astype(np.float32), sr=rate, n_fft=2048, hop_length=hop, n_mels=40)
        return np.asarray(librosa.power_to_db(power + 1e-10))

    _, path = librosa.sequence.dtw(X=mel(live), Y=mel(whole), metric="euclidean")
    frame = at // hop
    matches = path[path[:, 0] == min(frame, int(path[:, 0].max()))][:, 1]
    return int(np.median(matches)) * hop if matches.size else int(at * whole.size / max(1, live.size))


def _speech_s(audio: np.ndarray, rate: int) -> float:
    return float(np.count_nonzero(_frames_db(audio, rate) >= SILENT_DB)) * FRAME_S


def _loudness(audio: np.ndarray, rate: int) -> float:
    meter = LoudnessMeter(rate, channels=1)
    meter.feed(audio[:, None])
    return float(meter.integrated())


def _contour(audio: np.ndarray, rate: int) -> tuple[np.ndarray, np.ndarray]:
    """(times, semitones re 100 Hz) of the voiced frames, times scaled to the speech's span 0..1."""
    import parselmouth

    pitch = parselmouth.Sound(audio.astype(np.float64), sampling_frequency=rate).to_pitch(time_step=FRAME_S)
    f0 = pitch.selected_array["frequency"]
    times = pitch.xs()
    voiced = f0 > 0
    if not voiced.any():
        return np.zeros(0), np.zeros(0)
    t = times[voiced]
    return (t - t[0]) / max(t[-1] - t[0], 1e-9), 12 * np.log2(f0[voiced] / 100.0)


def _f0(audio: np.ndarray, rate: int) -> dict[str, float]:
    _, st = _contour(audio, rate)
    if st.size == 0:
        return {"median_st": float("nan"), "range_st": float("nan")}
    return {"median_st": float(np.median(st)), "range_st": float(np.percentile(st, 90) - np.percentile(st, 10))}


def _contour_distance(a: np.ndarray, b: np.ndarray, rate: int) -> float:
    ta, sa = _contour(a, rate)
    tb, sb = _contour(b, rate)
    if sa.size < 2 or sb.size < 2:
        return float("nan")
    grid = np.linspace(0.0, 1.0, 200)
    return float(np.sqrt(np.mean((np.interp(grid, ta, sa) - np.interp(grid, tb, sb)) ** 2)))


def _wer(clip: np.ndarray, rate: int, inputs: dict[str, Any]) -> float:
    expected = text_words(inputs["text"], inputs["lexicon"], inputs["language"])
    heard = check_clip(clip, rate, **inputs).heard
    return edit_distance(expected, list(heard)) / max(1, len(expected))


def clause_units(unit: Any) -> list[Any]:
    """A Kokoro sentence cut after each clause (a comma, semicolon or colon), each clause a
    run of its own: the design ``--clauses`` measures, which the product does not use."""
    from engine.synth.backends.base import PAUSE_AFTER, PhonemeUnit
    from engine.synth.backends.kokoro.backend import tokenize

    text = unit.phonemes
    cuts = [i + 1 for i, ch in enumerate(text) if ch in ",;:" and text[i + 1:i + 2] == " "]
    pieces = [text[a:b].strip() for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    pieces = [p for p in pieces if tokenize(p)]
    return [PhonemeUnit(tuple(tokenize(p)), p, PAUSE_AFTER[p[-1]] if i < len(pieces) - 1 else unit.pause_after,
                        unit.phrase) for i, p in enumerate(pieces)]


def voice_both(synth: Any, plan: Any, clauses: bool = False) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """(whole clip, live take, the live take's seams in samples) of one planned line; with
    ``clauses``, a Kokoro line's first sentence voiced clause by clause in the live take."""
    model = synth.voice(plan.voice)
    units = synth.phonemize(plan)
    whole_runs = synth.infer_units(model, plan, units)
    synth.cache = ClipCache()  # nothing kept: every line is made here
    raw = RawAudio(plan, [i.audio for i in whole_runs], [u.pause_after for u in units], model.sample_rate,
                   sum(len(u.ids) for u in units), words=[i.words for i in whole_runs],
                   phrase_of=[u.phrase for u in units])
    whole = np.array(synth.finish(raw), dtype=np.float32)
    parts = list(zip(units, whole_runs, strict=True))  # the same runs: a live take's sentences
    if clauses and plan.voice.backend == "kokoro" and len(cut := clause_units(units[0])) > 1:
        parts = [(c, synth.infer_units(model, plan, [c])[0]) for c in cut] + parts[1:]
    shaper = LiveShaper(plan, model.sample_rate, synth.sample_rate)
    seams = []
    line = np.zeros(0, dtype=np.float32)
    held: list[tuple[Any, Any]] = []  # a phrase that performs a sound is one part (streaming.part_ends)
    cut_units = [unit for unit, _ in parts]
    for k, (unit, run) in enumerate(parts):
        held.append((unit, run))
        if not part_ends(plan, cut_units, k):
            continue
        line = shaper.add([r.audio for _, r in held], [u.pause_after for u, _ in held],
                          [u.phrase for u, _ in held] if plan.phrases else [], k == len(parts) - 1)
        held = []
        if k < len(parts) - 1:
            seams.append(line.size)
    return whole, np.array(line), seams


def measure(project_path: Path, only: set[str], clauses: bool = False) -> dict[str, Any]:
    project = load_project(project_path)
    synth = make_synthesizer(project_path, project.sample_rate, use_cache=False)
    rate = synth.sample_rate
    rows = []
    for index, line in enumerate(project.lines):
        if only and line.id not in only:
            continue
        plan = plan_line(synth, project, line)
        started = time.perf_counter()
        whole, live, seams = voice_both(synth, plan, clauses)
        inputs = clip_inputs(project, synth, line, index, {}, plan)
        steps = [_step(live, rate, seam) - _step(whole, rate, _aligned(live, whole, rate, seam)) for seam in seams]
        row = {
            "line": line.id, "role": line.role, "engine": plan.voice.backend, "parts": len(seams) + 1,
            "wer_whole": _wer(whole, rate, inputs), "wer_live": _wer(live, rate, inputs),
            "length_whole_s": whole.size / rate, "length_live_s": live.size / rate,
            "speech_whole_s": _speech_s(whole, rate), "speech_live_s": _speech_s(live, rate),
            "lufs_whole": _loudness(whole, rate), "lufs_live": _loudness(live, rate),
            "f0_whole": _f0(whole, rate), "f0_live": _f0(live, rate),
            "contour_rms_st": _contour_distance(whole, live, rate),
            "seam_steps_db": steps, "seconds": time.perf_counter() - started,
        }
        rows.append(row)
        print(f"{line.id} {plan.voice.backend:6} parts {row['parts']}: WER {row['wer_whole']:.2f} / "
              f"{row['wer_live']:.2f}, length {row['length_whole_s']:.2f} / {row['length_live_s']:.2f} s, "
              f"level {row['lufs_live'] - row['lufs_whole']:+.1f} dB, contour {row['contour_rms_st']:.2f} st, "
              f"seam steps {', '.join(f'{s:+.2f}' for s in steps) or '-'} dB", flush=True)
    return summarize(rows)


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    steps = [abs(s) for r in rows for s in r["seam_steps_db"]]
    split = [r for r in rows if r["parts"] > 1]

    def mean(key: str, rs: list[dict[str, Any]] = rows) -> float:
        return float(np.mean([r[key] for r in rs])) if rs else float("nan")

    med = [r["f0_live"]["median_st"] - r["f0_whole"]["median_st"] for r in rows]
    rng = [r["f0_live"]["range_st"] - r["f0_whole"]["range_st"] for r in rows]
    return {
        "lines": len(rows), "lines_in_parts": len(split), "seams": len(steps),
        "wer_whole": mean("wer_whole"), "wer_live": mean("wer_live"),
        "wer_difference": mean("wer_live") - mean("wer_whole"),
        "seam_step_max_db": max(steps, default=0.0),
        "seam_step_p95_db": float(np.percentile(steps, 95)) if steps else 0.0,
        "seams_over_1db": sum(1 for s in steps if s > 1.0),
        "length_difference_mean_s": float(np.mean([r["length_live_s"] - r["length_whole_s"] for r in rows])),
        "length_difference_split_mean_s": (float(np.mean([r["length_live_s"] - r["length_whole_s"] for r in split]))
                                           if split else 0.0),
        "speech_difference_mean_s": float(np.mean([r["speech_live_s"] - r["speech_whole_s"] for r in rows])),
        "level_difference_abs_mean_db": float(np.mean([abs(r["lufs_live"] - r["lufs_whole"]) for r in rows])),
        "level_difference_abs_max_db": float(np.max([abs(r["lufs_live"] - r["lufs_whole"]) for r in rows])),
        "f0_median_difference_abs_mean_st": float(np.nanmean(np.abs(med))),
        "f0_range_difference_mean_st": float(np.nanmean(rng)),
        "contour_rms_mean_st": float(np.nanmean([r["contour_rms_st"] for r in rows])),
        "contour_rms_mean_unsplit_st": float(np.nanmean([r["contour_rms_st"] for r in rows if r["parts"] == 1]
                                                        or [float("nan")])),
        "load_average": os.getloadavg(), "rows": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", nargs="?", type=Path, default=SAMPLE)
    parser.add_argument("--lines", default="", help="comma-separated line ids (default: every line)")
    parser.add_argument("--json", type=Path, help="write every figure here")
    parser.add_argument("--clauses", action="store_true",
                        help="the design not taken: a Kokoro line's first sentence voiced clause by clause")
    args = parser.parse_args()
    summary = measure(args.project, {s for s in args.lines.split(",") if s}, args.clauses)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    s = summary
    print(f"\n{s['lines']} lines, {s['lines_in_parts']} of them voiced in more than one part live, {s['seams']} seams")
    print(f"word error rate: whole {s['wer_whole']:.3f}, live {s['wer_live']:.3f} "
          f"(difference {s['wer_difference']:+.3f}; target within 0.02)")
    print(f"seam steps beyond the whole line's: max {s['seam_step_max_db']:.2f} dB, p95 {s['seam_step_p95_db']:.2f} dB, "
          f"{s['seams_over_1db']} over 1 dB (target 0)")
    print(f"length: live - whole {s['length_difference_mean_s']:+.2f} s a line on average "
          f"({s['length_difference_split_mean_s']:+.2f} s where the first sentence was cut), speech "
          f"{s['speech_difference_mean_s']:+.2f} s")
    print(f"level: |live - whole| {s['level_difference_abs_mean_db']:.2f} dB on average, "
          f"{s['level_difference_abs_max_db']:.2f} dB at most (the first part's loudness gain)")
    print(f"F0: |median difference| {s['f0_median_difference_abs_mean_st']:.2f} st, range difference "
          f"{s['f0_range_difference_mean_st']:+.2f} st, contour RMS {s['contour_rms_mean_st']:.2f} st "
          f"({s['contour_rms_mean_unsplit_st']:.2f} st where nothing was cut)")
    print(f"load average {' '.join(f'{v:.1f}' for v in s['load_average'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
