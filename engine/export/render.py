"""Offline render: master mix, one stem per role, DME stems, captions and a cue sheet.

The mix runs through the same :class:`~engine.audio.programme.Programme`
the live path plays (block mixer, lane effects, master gain, master preset,
true-peak limiter), in two steps:
1. analyse the programme before the limiter at unity gain (peaks and
   K-weighted power per millisecond) and solve for the gain whose *limited*
   loudness hits the target. With every lane dry and the ``clean`` master
   this is assembled from each clip's own analysis, without a pass over the
   mix; otherwise it takes one pass through the real chain;
2. render with that gain and write the master and the stems (post lane
   effect and master gain, pre master chain: they sum to what enters it).
   With stems, ``dme/DX.wav`` (every role), ``dme/FX.wav`` (effects and
   ambience lanes) and ``dme/MX.wav`` (music lanes) are written too, after
   ducking: the three sum to what enters the master chain as well.
Sound clips are resolved first (engine/export/sounds.py): a missing or
unreadable file fails the render with one line naming the file and the
cue, before any synthesis, unless ``allow_missing_sounds``.
Memory stays flat with production length (clips are memory-mapped from the
cache, blocks are reused). Every file is written under a temporary name and
renamed only when all of them are complete, so an interrupted render never
leaves a half-written file under a final name.
"""

from __future__ import annotations

import contextlib
import math
import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.audio.effects import LIMITER_CEILING_DB
from engine.audio.mixer import BlockMixer, PlacedClip
from engine.audio.programme import Programme
from engine.audio.wavwriter import SparseWavWriter
from engine.export import captions
from engine.export.lines import release_clips, synthesize_lines
from engine.export.sounds import SoundSet, build_sound_bus, check_sounds, resolve_sounds
from engine.fsutil import atomic_write_text, commit, temp_path_for
from engine.project.defaults import DEFAULT_TARGET_LUFS, TARGET_LUFS_RANGE
from engine.project.model import Project
from engine.project.timeline import Placement, SoundPlacement, layout_all
from engine.sched.scheduler import Scheduler
from engine.synth.cache import ClipCache
from engine.synth.pipeline import Cancelled, Progress, SynthesisResult
from engine.synth.sounds import SoundLibrary
from engine.synth.synthesizer import ClipSynthesizer

FORMATS = {"wav24": "PCM_24", "wav32f": "FLOAT"}
DME_FILES = ("DX.wav", "FX.wav", "MX.wav")  # OUTDIR/dme/: dialogue, effects (and ambience), music
STEM_SUBTYPE = "FLOAT"
BLOCK = 8192
# The release of the last consonant (and the limiter's) needs this much after
# the last clip; lane reverbs ring longer and extend it.
TAIL_S = 0.5


@dataclass
class RenderOptions:
    target_lufs: float = DEFAULT_TARGET_LUFS
    stems: bool = True
    format: str = "wav24"
    block: int = BLOCK
    allow_missing_sounds: bool = False  # render the rest, with silence where a sound file is missing
    sound_folders: tuple[Path, ...] = ()  # --sounds DIR: searched after sounds/ beside the project

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r} (choose {', '.join(FORMATS)})")
        lo, hi = TARGET_LUFS_RANGE
        if not lo <= self.target_lufs <= hi:
            raise ValueError(f"target loudness {self.target_lufs} LUFS is outside {lo:g}..{hi:g}")


@dataclass
class RenderReport:
    outdir: Path
    files: list[Path] = field(default_factory=list)
    duration_s: float = 0.0
    lines: int = 0
    synthesized: int = 0
    cached: int = 0
    audio_seconds_synthesized: float = 0.0
    model_seconds: float = 0.0
    premix_lufs: float = -math.inf  # before the master gain and the limiter
    predicted_lufs: float = -math.inf  # of mix.wav, from the limiter simulation
    gain_db: float = 0.0
    master_effect: str = ""
    analysis_pass: bool = False  # effects needed a pass through the real chain
    analysis_wall_s: float = 0.0
    synth_wall_s: float = 0.0
    wall_s: float = 0.0
    placements: list[Placement] = field(default_factory=list)
    sound_placements: list[SoundPlacement] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # placeholders, sounds rendered as silence
    # Output-length predictor after this render (arena blocks taken before inference).
    prediction_p90_error: float = 0.0
    prediction_misses: int = 0
    prediction_observations: int = 0


def stem_filename(role: str) -> str:
    """A portable file name for a role (``MR. HOLLIS`` -> ``MR._HOLLIS.wav``)."""
    safe = re.sub(r"[^\w.\-]+", "_", role.strip(), flags=re.UNICODE).strip("._") or "role"
    return f"{safe}.wav"


def build_mixer(project: Project, clips: dict[str, np.ndarray], placements: list[Placement],
                max_block: int = BLOCK) -> BlockMixer:
    lane = {r.name: i for i, r in enumerate(project.cast)}
    rate = project.sample_rate
    placed = [PlacedClip(lane[p.role], int(round(p.start * rate)), clips[p.line_id]) for p in placements]
    mixer = BlockMixer(placed, len(project.cast), max_block)
    audible = project.audible_roles()
    for i, role in enumerate(project.cast):
        mixer.set_lane(i, role.gain_db, role.pan, role.name in audible)
    return mixer


def build_programme(project: Project, mixer: BlockMixer, sounds: SoundSet | None = None,
                    sound_placements: list[SoundPlacement] | None = None) -> Programme:
    """The programme of a project: its lanes' effects, its sound lanes and its master preset."""
    bus = build_sound_bus(project, sounds or SoundSet(), sound_placements or [], mixer.max_block)
    return Programme(mixer, project.sample_rate, [r.effect for r in project.cast], project.master_effect,
                     sounds=bus)


def programme_for(project: Project, clips: dict[str, np.ndarray], block: int = BLOCK,
                  sounds: SoundSet | None = None) -> tuple[Programme, list[Placement], int]:
    """What export mixes from these clips: the layout from their real lengths,
    the mixer, the lanes' effects, sound lanes and master chain, and the
    programme's length in frames with the tail (reverb, limiter release, the
    last consonant)."""
    programme, placements, _, total = plan_mix(project, clips, block, sounds)
    return programme, placements, total


def plan_mix(project: Project, clips: dict[str, np.ndarray], block: int = BLOCK, sounds: SoundSet | None = None,
             ) -> tuple[Programme, list[Placement], list[SoundPlacement], int]:
    """:func:`programme_for` with the sound clips' placements too."""
    rate = project.sample_rate
    sounds = sounds or SoundSet()
    placements, sound_placements = layout_all(project, {lid: clip.shape[0] / rate for lid, clip in clips.items()},
                                              sounds.durations(rate))
    mixer = build_mixer(project, clips, placements, block)
    programme = build_programme(project, mixer, sounds, sound_placements)
    end = max(mixer.length, programme.sounds.length if programme.sounds is not None else 0)
    return programme, placements, sound_placements, end + int(max(TAIL_S, programme.tail_s) * rate)


def project_sounds(project: Project, project_path: Path | None, options: RenderOptions,
                   cache: ClipCache | None = None) -> tuple[SoundSet, list[str]]:
    """The project's sounds for a render and the warnings to show; raises
    MissingSound (one line) for an unusable file unless allowed."""
    if not project.sounds:
        return SoundSet(), []
    project_dir = Path(project_path).resolve().parent if project_path is not None else None
    library = SoundLibrary.for_project(project_path, options.sound_folders)
    sounds = resolve_sounds(project, project_dir, library, cache)
    return sounds, check_sounds(sounds, options.allow_missing_sounds)


def _write_blocks(writers: list[SparseWavWriter], blocks: list[np.ndarray]) -> None:
    for writer, block in zip(writers, blocks, strict=True):
        writer.write(block)


def render_project(project: Project, synth: ClipSynthesizer, outdir: Path,
                   options: RenderOptions | None = None, progress: Progress | None = None,
                   cancel: threading.Event | None = None, scheduler: Scheduler | None = None,
                   project_path: Path | None = None) -> RenderReport:
    """``project_path`` locates ``sounds/`` and the clips' relative sound files."""
    options = options or RenderOptions()
    started = time.perf_counter()
    outdir = Path(outdir)
    report = RenderReport(outdir=outdir, lines=len(project.lines))
    sounds, report.warnings = project_sounds(project, project_path, options, synth.cache)
    result = synthesize_lines(project, synth, progress, cancel, scheduler)
    try:
        _mix_and_write(project, synth, result, report, outdir, options, progress, cancel, started, sounds)
    finally:
        release_clips(synth, result)  # the clips were pinned for the mix
    report.wall_s = time.perf_counter() - started
    return report


def _mix_and_write(project: Project, synth: ClipSynthesizer, result: SynthesisResult, report: RenderReport,
                   outdir: Path, options: RenderOptions, progress: Progress | None,
                   cancel: threading.Event | None, started: float, sounds: SoundSet) -> None:
    report.synth_wall_s = time.perf_counter() - started
    report.synthesized, report.cached = result.synthesized, result.cached
    prediction = synth.predictor.report()
    report.prediction_p90_error = prediction.p90_error
    report.prediction_misses, report.prediction_observations = prediction.misses, prediction.observations
    report.audio_seconds_synthesized = result.audio_seconds_synthesized
    report.model_seconds = result.model_seconds

    rate = project.sample_rate
    programme, placements, sound_placements, total = plan_mix(project, result.clips, options.block, sounds)
    report.placements, report.sound_placements = placements, sound_placements
    report.duration_s = total / rate
    blocks = range(0, total, options.block)

    def check_cancel() -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled("render cancelled")

    analysed = time.perf_counter()
    report.master_effect, report.analysis_pass = programme.master_effect, not programme.dry
    analysis = programme.analyse(total, options.block, check_cancel)
    report.analysis_wall_s = time.perf_counter() - analysed
    report.premix_lufs = analysis.loudness()
    report.gain_db, report.predicted_lufs = analysis.solve_gain(options.target_lufs, LIMITER_CEILING_DB)
    programme.set_master_gain(report.gain_db)

    outdir.mkdir(parents=True, exist_ok=True)
    subtype = FORMATS[options.format]
    finals = [outdir / "mix.wav"]
    if options.stems:
        (outdir / "stems").mkdir(exist_ok=True)
        finals += [outdir / "stems" / stem_filename(r.name) for r in project.cast]
        (outdir / "dme").mkdir(exist_ok=True)
        finals += [outdir / "dme" / name for name in DME_FILES]
    temps = [temp_path_for(f) for f in finals]
    writers: list[SparseWavWriter] = []
    latency = programme.latency
    # Encoding and writing run on two writer threads, the mix on one and the
    # stems on the other (numpy and file I/O release the GIL), while the mixer
    # makes the next block; at most one block per thread is in flight.
    mix_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="radioplay-writer-mix")
    stem_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="radioplay-writer-stems")
    pending: list[Future[None]] = []
    try:
        # Stems carry the pre-limiter level (they sum to the mix before the
        # limiter), which goes past full scale wherever the limiter works: in
        # 24-bit they would clip (measured on the sample: peaks of 1.8), so
        # stems are always 32-bit float; --format chooses the master's format.
        for k, temp in enumerate(temps):
            writers.append(SparseWavWriter(temp, rate, 2, subtype if k == 0 else STEM_SUBTYPE))
        for i, t in enumerate(blocks):
            check_cancel()
            n = min(options.block, total - t)
            limited, stems = programme.process(t, n)
            if t == 0:  # drop the look-ahead delay so the mix lines up with the stems
                limited = limited[latency:]
            # Copies: the writer thread encodes them while the next block is mixed.
            stem_blocks = [stems[lane].copy() for lane in range(len(writers) - 1 - len(DME_FILES))]
            if options.stems:
                stem_blocks += list(programme.buses(stems).copy())
            for future in pending:
                future.result()
            pending = [mix_pool.submit(_write_blocks, writers[:1], [limited])]
            if stem_blocks:
                pending.append(stem_pool.submit(_write_blocks, writers[1:], stem_blocks))
            if progress:
                progress("writing", i + 1, len(blocks))
        for future in pending:
            future.result()
        writers[0].write(programme.flush()[:latency])
        for writer in writers:
            writer.close()
        # Text outputs also go through temporary names (atomic_write_text).
        atomic_write_text(outdir / "captions.srt", captions.srt(project, placements))
        atomic_write_text(outdir / "captions.vtt", captions.vtt(project, placements))
        atomic_write_text(outdir / "cues.json", captions.cue_sheet(project, placements, sound_placements,
                                                                   sounds.files))
        for temp, final in zip(temps, finals, strict=True):
            commit(temp, final)
    except BaseException:
        for pool in (mix_pool, stem_pool):
            pool.shutdown(wait=True, cancel_futures=True)
        for writer in writers:
            with contextlib.suppress(Exception):
                writer.close()
        for temp in temps:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
        raise
    for pool in (mix_pool, stem_pool):
        pool.shutdown(wait=True)
    report.files = finals + [outdir / "captions.srt", outdir / "captions.vtt", outdir / "cues.json"]


