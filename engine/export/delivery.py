"""From the programme to the delivered files of a preset, and their report.

The render writes the programme (the master chain's output, float, at the
project's rate) and this module makes the deliverable from it: resampled to
the preset's rate, cut into one file per scene where the preset asks, with
room tone at head and tail, levelled, encoded with tags and chapters, then
measured as written (engine/export/compliance.py); a file that measures off
its target (an encoder's low-pass takes level, its overshoot adds peak) is
made again with the measured error corrected.

Levelling is a loop on the real chain, not a limiter alone: a gain, then a
look-ahead limiter at a ceiling a margin under the preset's peak limit; the
level of the limited result (integrated loudness, or RMS for ACX) is
measured and the gain corrected until it is on target (the limiter takes a
little level where it works). Room tone is laid under the whole file after
levelling, at its own fixed level. If the written file still measures over
the peak limit (an encoder's overshoot), that file is made again with the
ceiling lowered by the excess: the report must pass on the files, not on
the intent.

Where the preset is the project's own WAV (``custom``, no resampling, no
cutting), the render writes ``mix.wav`` directly and this only measures it.

Memory: one file's audio at a time (one chapter, or the whole programme
for a single-file preset) is held in memory, a few copies of it at most.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np
import soundfile as sf

from engine.audio.limiter import LookaheadLimiter
from engine.audio.loudness import LoudnessMeter
from engine.export.compliance import REPORT_FILE, ComplianceReport, LimiterWork, Measurement, check, measure
from engine.export.encoders import Mark, Tags, chapter_marks, write_audio
from engine.export.names import unique_file_names
from engine.export.outputset import OutputSet
from engine.export.presets import DeliveryPreset
from engine.project.model import Project
from engine.project.timeline import Placement
from engine.synth.pipeline import Progress

PREMASTER = ".premaster.wav"  # the programme, in the staging folder only (never committed)
MIX = "mix"
CHAPTER_DIR = "chapters"
_RELEASE_S = 0.3  # kept after a scene's last line: the release of its last word
_LEAD_S = 0.5  # a chapter mark starts this much (at most half the gap) before its first line
_MAX_PASSES = 6
_BISECT = 8  # steps of the search for the loudest gain within the limiting budget (1/256 of the span)
# The most a delivered file's limiter takes off while its level may still give way (down to
# level_floor, inside the spec's range): a sparse ACX chapter, its pauses and room tone
# counted in its RMS, reached -20 dBFS only with 10-30 dB of limiting, audibly squashed. The
# dialogue leveller does the levelling before (engine/export/chapter_levels.py); this is
# what is left to the limiter: an encoder's or a resampler's overshoot, a hot syllable.
LIMITING_BUDGET_DB = 2.0
_RETRIES = 2
_BLOCK = 65_536
# How far a written file may sit off its target before it is made again: half
# the preset's loudness tolerance (LU), or 0.5 dB of RMS. A second encode
# doubled the podcast's delivery time for 0.2 LU it did not need.
_LEVEL_SLACK = 0.5


@dataclass(frozen=True)
class Chapter:
    title: str
    line_ids: tuple[str, ...]
    file: str = ""  # its own file (per-scene presets)
    scene: str | None = None  # the scene it is (None: the lines outside any scene)


@dataclass
class DeliveryPlan:
    preset: DeliveryPreset
    rate: int  # of the delivered files
    direct: bool  # the render writes the delivered mix.wav itself
    master: str  # what the render writes: mix.wav, or the premaster
    files: list[str]
    chapters: list[Chapter]
    tags: Tags = field(default_factory=Tags)

    @property
    def master_subtype(self) -> str:
        return "FLOAT" if not self.direct or self.preset.bit_depth == 32 else "PCM_24"


def plan_delivery(project: Project, preset: DeliveryPreset, tags: Tags | None = None) -> DeliveryPlan:
    """The files a preset makes of this project, known before anything is voiced."""
    rate = preset.sample_rate or project.sample_rate
    direct = (preset.container == "wav" and rate == project.sample_rate and preset.bit_depth in (24, 32)
              and not preset.per_scene and preset.head_s == 0 and preset.tail_s == 0
              and preset.room_tone_db is None and preset.level == "loudness")
    chapters = scene_chapters(project)
    if preset.per_scene:
        width = max(2, len(str(len(chapters))))
        # Words of the heading only: names.py makes any name safe, this also makes it readable.
        words = [" ".join(re.findall(r"\w+", c.title)) for c in chapters]
        names = unique_file_names([f"{n:0{width}d} {w}" for n, w in enumerate(words, start=1)],
                                  preset.extension())
        chapters = [Chapter(c.title, c.line_ids, f"{CHAPTER_DIR}/{name.file}", c.scene)
                    for c, name in zip(chapters, names, strict=True)]
        files = [c.file for c in chapters]
    else:
        files = [MIX + preset.extension()]
    tags = tags or Tags()
    tags.title = tags.title or project.title
    return DeliveryPlan(preset, rate, direct, files[0] if direct else PREMASTER, files, chapters, tags)


def scene_chapters(project: Project) -> list[Chapter]:
    """One chapter per scene that has lines, in scene order; lines outside
    any scene make a chapter named after the production, first."""
    order = {s.id: i for i, s in enumerate(project.scenes)}
    heading = {s.id: (s.heading or s.id) for s in project.scenes}
    groups: dict[str | None, list[str]] = {}
    for line in project.lines:
        key = line.scene if line.scene in order else None
        groups.setdefault(key, []).append(line.id)
    keys = sorted(groups, key=lambda k: -1 if k is None else order[k])
    return [Chapter(project.title if k is None else heading[k], tuple(groups[k]), scene=k) for k in keys]


def deliver(plan: DeliveryPlan, project: Project, placements: list[Placement], output: OutputSet,
            progress: Progress | None = None, check_cancel: Callable[[], None] | None = None,
            known: Measurement | None = None, master: LimiterWork | None = None) -> ComplianceReport:
    """Write the preset's files into ``output`` and ``report.json``; returns the report.
    ``known``: the measurement of the directly written mix, when the render knows it
    already (the same programme measured before: engine/mixdown/memo.py). ``master``:
    what the programme's limiter did, for the report."""
    preset = plan.preset
    work = [master] if master is not None else []
    if plan.direct:
        measured = [known or measure(output.path(plan.files[0]), plan.files[0])]
        return _finish(plan, output, measured, work)
    spans = file_spans(plan, placements, project.sample_rate, sf.info(output.path(PREMASTER)).frames)
    measured = []
    for n, (rel, (start, stop), marks) in enumerate(spans):
        if check_cancel:
            check_cancel()
        if progress:
            progress("delivering", n, len(spans))
        source, _ = sf.read(output.path(PREMASTER), start=start, stop=stop, dtype="float32", always_2d=True)
        audio = _resample(source, project.sample_rate, plan.rate)
        del source
        ceiling, offset, floor = limiter_ceiling(preset), 0.0, level_floor(preset)
        for _attempt in range(_RETRIES + 1):
            made, levelled, reached = _make_file(audio, plan.rate, preset, ceiling, level_target(preset) + offset,
                                                 n, floor + offset)
            tags = Tags(plan.tags.title if not preset.per_scene else plan.chapters[n].title,
                        plan.tags.author, plan.tags.album or plan.tags.title, plan.tags.comment,
                        plan.tags.cover, [Mark(m.title, m.start, m.end) for m in marks])
            if preset.container == "bwf":
                tags.loudness = _loudness_fields(made, plan.rate)
            write_audio(output.path(rel), made, plan.rate, preset, tags)
            result = measure(output.path(rel), rel, room_tone=preset.room_tone_db is not None)
            over = _peak_excess(preset, result.true_peak_dbtp, result.sample_peak_dbfs)
            # What the encoder took (its low-pass) of the level the file was made at: a file the
            # limiting budget held under its target is not pushed into the limiter again.
            measured_level = result.rms_dbfs if preset.level == "rms" else result.integrated_lufs
            miss = reached - measured_level if math.isfinite(reached) else math.nan
            slack = _LEVEL_SLACK * (preset.lufs_tolerance if preset.level == "loudness" else 1.0)
            if over <= 0 and (abs(miss) <= slack or not math.isfinite(miss)):
                break
            if over > 0:
                ceiling -= over + 0.2
            else:  # the encoder took some level: ask for that much more
                offset += miss
        measured.append(result)
        work.append(LimiterWork(rel, *levelled))
    if progress:
        progress("delivering", len(spans), len(spans))
    return _finish(plan, output, measured, work)


def _finish(plan: DeliveryPlan, output: OutputSet, measured: list[Measurement],
            work: list[LimiterWork]) -> ComplianceReport:
    chapters = len(plan.chapters) if not plan.preset.per_scene and len(plan.chapters) > 1 else 0
    report = check(plan.preset, measured, plan.rate, len(plan.files), chapters)
    report.levelling = work
    output.path(REPORT_FILE).write_text(report.to_json(), encoding="utf-8", newline="\n")
    return report


def file_spans(plan: DeliveryPlan, placements: list[Placement], rate: int,
               frames: int) -> list[tuple[str, tuple[int, int], list[Mark]]]:
    """Each delivered file's span of the premaster (frames) and its chapter marks (seconds in the file)."""
    by_line = {p.line_id: p for p in placements}
    ranges = []
    for chapter in plan.chapters:
        placed = [by_line[i] for i in chapter.line_ids if i in by_line]
        ranges.append((min(p.start for p in placed), max(p.end for p in placed)) if placed else (0.0, 0.0))
    head = plan.preset.head_s
    if not plan.preset.per_scene:
        starts = [0.0]
        for k in range(1, len(ranges)):  # a little before the first line, never past half the gap
            s, previous_end = ranges[k][0], ranges[k - 1][1]
            starts.append(max(starts[-1], s - _LEAD_S, (previous_end + s) / 2 if s > previous_end else s))
        length = head + frames / rate + plan.preset.tail_s
        marks = chapter_marks([c.title for c in plan.chapters], [head * (k > 0) + s for k, s in enumerate(starts)],
                              length) if len(plan.chapters) > 1 else []
        return [(plan.files[0], (0, frames), marks)]
    spans: list[tuple[str, tuple[int, int], list[Mark]]] = []
    for k, (chapter, (s, e)) in enumerate(zip(plan.chapters, ranges, strict=True)):
        nxt = ranges[k + 1][0] if k + 1 < len(ranges) else frames / rate
        end = min(frames, int(round(min(e + _RELEASE_S, max(e, nxt)) * rate)))
        spans.append((chapter.file, (int(round(s * rate)), end), []))
    return spans


def _resample(audio: np.ndarray, rate: int, target: int) -> np.ndarray:
    if rate == target:
        return audio
    import soxr

    return np.asarray(soxr.resample(audio, rate, target, quality="VHQ"), dtype=np.float32)


def limiter_ceiling(preset: DeliveryPreset) -> float:
    """Where the limiter sits: under the limit by what resampling and an
    encoder may add to a peak (measured on the sample: MP3 at 128 kbps adds
    up to 0.6 dB, inter-sample peaks of speech 0.3 dB)."""
    margin = 1.0 if preset.lossy else 0.5
    if preset.sample_peak_max is not None:
        return preset.sample_peak_max - margin
    return (preset.true_peak_max if preset.true_peak_max is not None else 0.0) - margin


def _peak_excess(preset: DeliveryPreset, true_peak: float, sample_peak: float) -> float:
    over = 0.0
    if preset.true_peak_max is not None:
        over = max(over, true_peak - preset.true_peak_max)
    if preset.sample_peak_max is not None:
        over = max(over, sample_peak - preset.sample_peak_max)
    return over


def _make_file(programme: np.ndarray, rate: int, preset: DeliveryPreset, ceiling_db: float, target: float,
               seed: int, floor: float | None = None) -> tuple[np.ndarray, tuple[float, float, float], float]:
    """Head room, programme, tail room; levelled; room tone under it all. Also (gain dB, the
    limiter's deepest reduction dB, its seconds over 1 dB) and the level reached. Where
    ``target`` takes more than LIMITING_BUDGET_DB of limiting, the file is made as loud as
    the budget allows, but not under ``floor`` (:func:`level_floor`)."""
    head, tail = int(round(preset.head_s * rate)), int(round(preset.tail_s * rate))
    channels = programme.shape[1]
    silent = head + tail
    gain_db, limited, limiter, level = _reach(programme, rate, preset, ceiling_db, target, silent)
    reduction = -limiter.gain_reduction_db
    if floor is not None and floor < target and reduction > LIMITING_BUDGET_DB:
        # The loudest gain whose file takes at most the budget, or reaches no higher than the
        # floor: both hold below one gain (the limiting and the level grow with the gain), found
        # by halving; under the budget's gain less the target's own limiting, both hold.
        lo, hi = gain_db - (target - floor) - reduction, gain_db
        limited, limiter = _limit(programme, rate, ceiling_db, lo)
        gain_db, level = lo, _level(preset, limited, rate, silent)
        for _ in range(_BISECT):
            mid = (lo + hi) / 2
            made, lim = _limit(programme, rate, ceiling_db, mid)
            reached = _level(preset, made, rate, silent)
            if -lim.gain_reduction_db <= LIMITING_BUDGET_DB or reached <= floor:
                lo, gain_db, limited, limiter, level = mid, mid, made, lim, reached
            else:
                hi = mid
    out = np.zeros((head + limited.shape[0] + tail, channels), dtype=np.float32)
    out[head:head + limited.shape[0]] = limited
    if preset.room_tone_db is not None:
        out += room_tone(out.shape[0], channels, rate, preset.room_tone_db, seed)
    return out, (gain_db, -limiter.gain_reduction_db, limiter.working_s), level


def _reach(programme: np.ndarray, rate: int, preset: DeliveryPreset, ceiling_db: float, target: float,
           silent: int) -> tuple[float, np.ndarray, LookaheadLimiter, float]:
    """The gain whose limited result measures ``target``: (gain, the result, its limiter,
    its level)."""
    gain_db = applied = 0.0
    limited, limiter, level = programme, LookaheadLimiter(rate, ceiling_db, channels=programme.shape[1]), -math.inf
    for _ in range(_MAX_PASSES):
        limited, limiter = _limit(programme, rate, ceiling_db, gain_db)
        applied = gain_db
        level = _level(preset, limited, rate, silent)
        error = target - level
        if not math.isfinite(error) or abs(error) < 0.05:
            break
        gain_db += error
    return applied, limited, limiter, level


def level_floor(preset: DeliveryPreset) -> float:
    """The lowest level a file is delivered at where its target would take more limiting than
    LIMITING_BUDGET_DB: the spec's lower bound with _LEVEL_SLACK to spare (ACX: RMS -22.5
    dBFS for a target of -20; a loudness preset: its tolerance's lower half)."""
    if preset.level == "rms":
        low = preset.rms_range[0] if preset.rms_range is not None else preset.rms_target
        return min(preset.rms_target, low + _LEVEL_SLACK)
    return preset.target_lufs - preset.lufs_tolerance * (1.0 - _LEVEL_SLACK)


def level_target(preset: DeliveryPreset) -> float:
    return preset.rms_target if preset.level == "rms" else preset.target_lufs


def _level(preset: DeliveryPreset, audio: np.ndarray, rate: int, silent_frames: int) -> float:
    """RMS in dBFS over the whole file (with its head and tail), or integrated loudness."""
    if preset.level == "rms":
        squares = float(np.einsum("ij,ij->", audio, audio, dtype=np.float64))
        count = (audio.shape[0] + silent_frames) * audio.shape[1]
        return 10 * math.log10(squares / count) if squares > 0 else -math.inf
    meter = LoudnessMeter(rate, audio.shape[1])
    for i in range(0, audio.shape[0], _BLOCK):  # in blocks: the filter's float64 copies stay small
        meter.feed(audio[i:i + _BLOCK])
    return meter.integrated()


def _limit(audio: np.ndarray, rate: int, ceiling_db: float, gain_db: float = 0.0,
           ) -> tuple[np.ndarray, LookaheadLimiter]:
    """``audio`` times the gain through the limiter, in blocks (its float64
    work arrays would be several times the file's size in one piece), with
    the look-ahead delay dropped."""
    limiter = LookaheadLimiter(rate, ceiling_db, channels=audio.shape[1])
    gain = np.float32(10 ** (gain_db / 20))
    out = np.empty_like(audio)
    drop, pos = limiter.latency, 0
    blocks = (limiter.process(audio[i:i + _BLOCK] * gain) for i in range(0, audio.shape[0], _BLOCK))
    for block in _then(blocks, limiter):
        cut = min(drop, block.shape[0])
        drop -= cut
        take = min(block.shape[0] - cut, out.shape[0] - pos)
        out[pos:pos + take] = block[cut:cut + take]
        pos += take
    return out, limiter


def _then(blocks: Iterator[np.ndarray], limiter: LookaheadLimiter) -> Iterator[np.ndarray]:
    """The blocks, then what the limiter still holds (flushed only after the last block)."""
    yield from blocks
    yield limiter.flush()


def room_tone(frames: int, channels: int, rate: int, level_db: float, seed: int = 0) -> np.ndarray:
    """A quiet, steady room: noise tilted to the low end (a one-pole low-pass
    at 1 kHz over white noise) at ``level_db`` RMS, the same for every render
    (seeded), so files made twice are the same."""
    from scipy.signal import lfilter

    if frames == 0:
        return np.zeros((0, channels), dtype=np.float32)
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal((frames, channels))
    a = math.exp(-2 * math.pi * 1000 / rate)
    tone = lfilter([1 - a], [1, -a], noise, axis=0)
    rms = float(np.sqrt(np.mean(tone ** 2)))
    return np.asarray(tone * (10 ** (level_db / 20) / rms), dtype=np.float32)


def _loudness_fields(audio: np.ndarray, rate: int) -> dict[str, float]:
    from engine.audio.loudness import true_peak_dbtp

    meter = LoudnessMeter(rate, audio.shape[1])
    meter.feed(audio)
    return {"integrated": meter.integrated(), "true_peak": true_peak_dbtp(audio, rate)}

