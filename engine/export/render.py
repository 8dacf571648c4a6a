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
   ducking: the three sum to what enters the master chain as well. FX and MX
   are written only where a clip plays a sound on their lanes
   (engine/export/dme.py).
Sound clips are resolved first (engine/export/sound_check.py): a missing or
unreadable file fails the render with one line naming the file and the
cue, before any synthesis, unless ``allow_missing_sounds``.
Memory stays flat with production length (clips are memory-mapped from the
cache, blocks are reused). The files are one set (engine/export/outputset.py):
written into a staging folder inside the output folder and swapped in
together at the end, so an interrupted or failed render leaves the previous
render's files as they were, never a mix of old and new. Stem names come
from engine/export/names.py (safe, and one file per role).
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from engine.audio.effects import LIMITER_CEILING_DB
from engine.audio.leveller import expected_gain_db
from engine.audio.programme import Programme
from engine.audio.wavwriter import SparseWavWriter
from engine.export.compliance import REPORT_FILE, ComplianceReport, FileMeter, LimiterWork, described
from engine.export.delivery import DeliveryPlan, deliver, plan_delivery
from engine.export.dme import dme_buses, dme_files
from engine.export.encoders import Tags
from engine.export.lines import release_clips, synthesize_lines
from engine.export.master_gain import gain_target, solve_master_gain
from engine.export.mix_memo import MixMemo, kept_key, mix_key, staging_hint_key
from engine.export.names import STEM_NAME_STYLES, FileName, broadcast_stem, unique_file_names
from engine.export.outputset import OutputSet, check_output, file_identity
from engine.export.pages import PassedClips
from engine.export.prefix import PrefixAnalysis
from engine.export.presets import DeliveryPreset
from engine.export.sound_check import project_sounds
from engine.export.texts import TEXT_FILES, write_texts
from engine.mixdown.memo import SolvedGain, clip_identities, programme_key
from engine.mixdown.mixplan import BLOCK, plan_mix
from engine.mixdown.sound_placement import SoundSet
from engine.project.defaults import DEFAULT_TARGET_LUFS, TARGET_LUFS_RANGE
from engine.project.model import Project
from engine.project.timeline import Placement, SoundPlacement
from engine.sched.scheduler import Scheduler
from engine.synth.pipeline import Cancelled, Progress, SynthesisResult
from engine.synth.synthesizer import ClipSynthesizer

FORMATS = {"wav24": "PCM_24", "wav32f": "FLOAT"}
STEM_SUBTYPE = "FLOAT"
LIMITER_FIELDS = ("limiter_max_db", "limiter_working_s")  # kept with the audio, for the report


@dataclass
class RenderOptions:
    target_lufs: float = DEFAULT_TARGET_LUFS
    stems: bool = True
    format: str = "wav24"
    block: int = BLOCK
    allow_missing_sounds: bool = False  # render the rest, with silence where a sound file is missing
    sound_folders: tuple[Path, ...] = ()  # --sounds DIR: searched after sounds/ beside the project
    # A delivery preset (engine/export/presets.py); None: the project's own
    # WAV at target_lufs in ``format`` (the custom preset).
    preset: DeliveryPreset | None = None
    tags: Tags | None = None  # title, author, cover of the delivered files
    daw: str = ""  # also write a DAW project (engine/export/daw: reaper, audacity, otio)
    name: str = ""  # of the project file: the DAW project's name (default: the title)
    # Stem file names: plain (stems/ROLE.wav, dme/DX.wav) or broadcast
    # (stems/TITLE_ROLESTEM_2ch_48k_32b.wav, dme/TITLE_DXSTEM_2ch_48k_32b.wav).
    stem_names: str = "plain"
    # Replace a file in the folder that the last render did not write and that holds
    # something else than the render writes there (``--overwrite``; engine/output_paths.py).
    overwrite: bool = False

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r} (choose {', '.join(FORMATS)})")
        if self.stem_names not in STEM_NAME_STYLES:
            raise ValueError(f"unknown stem naming {self.stem_names!r} (choose {', '.join(STEM_NAME_STYLES)})")
        if self.daw:  # the hand-offs' modules (0.2 s of imports) only when one is asked for
            from engine.export.daw import DAWS

            if self.daw not in DAWS:
                raise ValueError(f"unknown DAW {self.daw!r} (choose {', '.join(DAWS)})")
        lo, hi = TARGET_LUFS_RANGE
        if not lo <= self.target_lufs <= hi:
            raise ValueError(f"target loudness {self.target_lufs} LUFS is outside {lo:g}..{hi:g}")

    def delivery_preset(self) -> DeliveryPreset:
        if self.preset is not None:
            return self.preset
        return DeliveryPreset("custom", target_lufs=self.target_lufs, bit_depth=32 if self.format == "wav32f" else 24)


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
    staging_db: float = 0.0  # the master gain the dialogue leveller levelled the lines for
    # Each scene's lines levelled this much louder: the gain their delivered file takes (ACX's chapters).
    scene_db: dict[str, float] = field(default_factory=dict)
    limiter_max_db: float = 0.0  # the master limiter's deepest gain reduction
    limiter_working_s: float = 0.0  # how long it took more than 1 dB off
    master_effect: str = ""
    analysis_pass: bool = False  # effects needed a pass through the real chain
    gain_reused: bool = False  # the same programme was measured before (engine/mixdown/memo.py)
    audio_kept: bool = False  # the folder held this audio already: kept, not written again
    analysis_wall_s: float = 0.0
    analysis_streamed: int = 0  # frames analysed while the lines were voiced (engine/export/prefix.py)
    synth_wall_s: float = 0.0
    wall_s: float = 0.0
    placements: list[Placement] = field(default_factory=list)
    sound_placements: list[SoundPlacement] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # placeholders, sounds rendered as silence
    stems: dict[str, Path] = field(default_factory=dict)  # role -> its stem file
    # Roles whose names make the same file name as an earlier role's: their
    # stems got a numbered suffix ("role 'A/B' -> stems/A_B-2.wav (...)").
    notes: list[str] = field(default_factory=list)
    # Output-length predictor after this render (arena blocks taken before inference).
    prediction_p90_error: float = 0.0
    prediction_misses: int = 0
    prediction_observations: int = 0
    compliance: ComplianceReport | None = None  # the preset's requirements, measured on the written files
    dme_buses: tuple[int, ...] = (0, 1, 2)  # the DME stems written (engine/export/dme.py)


def stem_filename(role: str) -> str:
    """The stem file of a role alone (``MR. HOLLIS`` -> ``MR._HOLLIS.wav``);
    in a cast, :func:`stem_files` (roles that sanitize alike get suffixes)."""
    return unique_file_names([role], ".wav")[0].file


def stem_files(project: Project, style: str = "plain") -> list[FileName]:
    """One distinct stem file name per role, in cast order."""
    if style == "broadcast":
        role_of = {_broadcast(project, r.name): r.name for r in reversed(project.cast)}  # the first role's
        names = unique_file_names([_broadcast(project, r.name) for r in project.cast], ".wav")
        return [FileName(r.name, n.file, n.shared_with and role_of[n.shared_with])
                for r, n in zip(project.cast, names, strict=True)]
    return unique_file_names([r.name for r in project.cast], ".wav")


def _broadcast(project: Project, name: str) -> str:
    return broadcast_stem(project.title, name, project.sample_rate, 32)  # stems are 32-bit float (STEM_SUBTYPE)


def _measure(meter: FileMeter, writer: SparseWavWriter, block: np.ndarray) -> None:
    meter.feed(writer.decoded(block), made_from=block)


def _write_blocks(writers: list[SparseWavWriter], blocks: list[np.ndarray | int]) -> None:
    """Each block into its writer (a number: that many frames of silence)."""
    for writer, block in zip(writers, blocks, strict=True):
        if isinstance(block, int):
            writer.write_silence(block)
        else:
            writer.write(block)


def _held(block: np.ndarray) -> np.ndarray | int:
    """A copy of a stem's block for a writer thread, or for a silent one (most
    of a role's stem) its length: nothing to copy, encode or write."""
    return block.copy() if block.any() else block.shape[0]


def render_project(project: Project, synth: ClipSynthesizer, outdir: Path,
                   options: RenderOptions | None = None, progress: Progress | None = None,
                   cancel: threading.Event | None = None, scheduler: Scheduler | None = None,
                   project_path: Path | None = None) -> RenderReport:
    """Raises ExportError (one line) when the set cannot be written to
    ``outdir``, checked before any synthesis and again before the commit, and
    MissingSound (one line: file and cue) for an unusable sound file unless
    ``options.allow_missing_sounds``. ``project_path`` locates ``sounds/`` and
    the clips' relative sound files."""
    options = options or RenderOptions()
    started = time.perf_counter()
    outdir = Path(outdir)
    report = RenderReport(outdir=outdir, lines=len(project.lines))
    stems = stem_files(project, options.stem_names) if options.stems else []
    for stem in stems:
        report.stems[stem.name] = outdir / "stems" / stem.file
        if stem.shared_with is not None:
            report.notes.append(f"role {stem.name!r} makes the same file name as {stem.shared_with!r}: "
                                f"its stem is stems/{stem.file}")
    plan = plan_delivery(project, options.delivery_preset(), options.tags)
    # A missing or unreadable sound file fails the render before any synthesis
    # (its header is enough); the audio is read and resampled while the lines
    # are voiced: the first resample imports scipy.signal (~2 s on the
    # development machine), which used to delay the first line. What it finds
    # says which DME buses carry a sound.
    heard, _ = project_sounds(project, project_path, options.sound_folders, options.allow_missing_sounds, load=False)
    report.dme_buses = dme_buses(project, set(heard.files) - set(heard.problems))
    dme = [f"dme/{name}" for name in dme_files(project, options.stem_names, report.dme_buses)] if options.stems else []
    files = [*plan.files, *(f"stems/{s.file}" for s in stems), *dme, *TEXT_FILES, REPORT_FILE]
    if options.daw:
        from engine.export.daw import daw_files

        files += daw_files(options.daw, project, options.name or project.title)
    inputs: list[tuple[str, str | Path]] = [("the project", project_path)] if project_path is not None else []
    inputs += [("a sound file the project plays", file) for file in sorted(set(heard.files.values()))]
    check_output(outdir, files, inputs, options.overwrite)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="radioplay-sounds") as loader:
        loading = loader.submit(project_sounds, project, project_path, options.sound_folders,
                                options.allow_missing_sounds, synth.cache)
        # The analysis pass follows the lines as they are voiced (engine/export/prefix.py).
        prefix = PrefixAnalysis(project, synth, options.block, loading, partial(_cancelled, cancel))
        prefix.staging_db = expected_gain_db(project, gain_target(plan))
        try:
            try:
                result = synthesize_lines(project, synth, progress, cancel, scheduler, prefix)
            except BaseException:
                loading.cancel()
                raise
            try:
                sounds, report.warnings = loading.result()
            except BaseException:
                release_clips(synth, result)
                raise
            try:
                with OutputSet(outdir, files, inputs, options.overwrite).open() as output:
                    _mix_and_write(project, synth, result, report, output, options, plan, progress, cancel,
                                   started, sounds, prefix)
            finally:
                release_clips(synth, result)  # the clips were pinned for the mix
        finally:
            prefix.close()
    report.wall_s = time.perf_counter() - started
    return report


def _cancelled(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled("render cancelled")


def _mix_and_write(project: Project, synth: ClipSynthesizer, result: SynthesisResult, report: RenderReport,
                   output: OutputSet, options: RenderOptions, plan: DeliveryPlan, progress: Progress | None,
                   cancel: threading.Event | None, started: float, sounds: SoundSet, prefix: PrefixAnalysis) -> None:
    """The voiced lines into the set: lay the programme out, solve its master
    gain, write the audio, the texts and the delivered files, commit."""
    _report_synthesis(report, synth, result, started)
    check_cancel = partial(_cancelled, cancel)
    rate = project.sample_rate
    # The dialogue leveller levels the lines for the master gain expected at the target
    # (engine/mixdown/dialogue.py); the solve levels them again where the measured gain is
    # higher. One stager, the prefix's: a staged line is read from the clip cache's folder when
    # it was staged before with the same curve (an unchanged production convolves nothing), and
    # a line whose curve a new levelling did not change is not staged again.
    staging = expected_gain_db(project, gain_target(plan))
    stager, identities = prefix.stager, clip_identities(project, result)
    memo = MixMemo(synth.cache.directory)
    # The levelling the last export of these clips ended with (its solve may have levelled
    # again): planned for that first, an unchanged export plans its mix once, not twice.
    hint = staging_hint_key(identities, gain_target(plan))
    start = memo.load_staging(hint)
    start = staging if start is None else start
    programme, placements, sound_placements, total = plan_mix(project, result.clips, options.block, sounds,
                                                              start, stager, identities)
    report.placements, report.sound_placements = placements, sound_placements
    report.duration_s = total / rate
    report.master_effect = programme.master_effect
    # Each pass hands back the pages of the mapped clips (dry or staged) it is past (engine/export/pages.py).
    key = programme_key(project, placements, identities, programme.lane_effects, programme.master_effect, total,
                        gain_target(plan), LIMITER_CEILING_DB, sounds)  # the same for any levelling

    def replan(staging_db: float, scene_db: dict[str, float]) -> Programme:
        return plan_mix(project, result.clips, options.block, sounds, staging_db, stager, identities, scene_db)[0]

    if start != staging and not math.isfinite((memo.load(key) or SolvedGain(0, 0, 0)).staging_db):
        programme, start = replan(staging, {}), staging  # not measured so: the solve starts from the estimate
    passed = PassedClips((clip.end, clip.audio) for clip in programme.mixer.clips)
    master = solve_master_gain(key, memo, programme, placements, sound_placements, total, options.block, plan,
                               start, replan, passed, prefix, progress, check_cancel)
    if math.isfinite(master.staging_db) and master.staging_db != start:
        memo.save_staging(hint, master.staging_db)
    programme, passed = master.programme, master.passed
    report.gain_reused, report.analysis_pass, report.analysis_streamed = (master.reused, master.analysis_pass,
                                                                          master.streamed)
    report.analysis_wall_s, report.staging_db, report.scene_db = master.wall_s, master.staging_db, master.scene_db
    report.premix_lufs, report.gain_db, report.predicted_lufs = (master.solved.premix_lufs, master.solved.gain_db,
                                                                 master.solved.predicted_lufs)
    # The audio the folder holds already, written for the same programme, gain and files, is
    # kept instead of written again (engine/export/mix_memo.py: ~350 MB for the sample).
    audio = [plan.master, *(rel for rel in output.files if rel.startswith(("stems/", "dme/")))]
    kept_as = (kept_key(key, report.gain_db, report.staging_db, (plan.master_subtype, STEM_SUBTYPE), options.block,
                        audio, output.outdir) if plan.direct else "")
    kept = memo.load_kept(kept_as) if kept_as else None
    meter = None
    if (kept is not None and sorted(kept[0]) == sorted(audio) and set(kept[1]) == set(LIMITER_FIELDS)
            and output.keep(kept[0])):
        report.audio_kept = True
        report.limiter_max_db, report.limiter_working_s = (kept[1][name] for name in LIMITER_FIELDS)
    else:
        # A new programme's mix is measured for the compliance report as it is
        # written, on a third thread, instead of read back afterwards (the same
        # numbers: FileMeter): the report's measurement no longer follows the write.
        meter = FileMeter(rate, 2) if plan.direct and not report.gain_reused else None
        _write_audio(programme, total, output, options, plan, passed, meter, progress, check_cancel,
                     report.dme_buses)
        limiter = programme.limiter  # as the last block left it
        report.limiter_max_db, report.limiter_working_s = -limiter.gain_reduction_db, limiter.working_s
    if progress:
        progress("finishing", 0, 1)
    write_texts(project, synth, result, placements, sound_placements, sounds, output, options.daw,
                options.name or project.title, {role: f"stems/{path.name}" for role, path in report.stems.items()},
                report.staging_db, memo, report.scene_db)
    _deliver(project, placements, output, plan, report, memo, key, meter, progress, check_cancel)
    check_cancel()
    report.files = output.commit()
    if kept_as:  # for the next render into this folder (renaming kept each file's identity)
        with contextlib.suppress(OSError):
            memo.save_kept(kept_as, {rel: file_identity(output.outdir / rel) for rel in audio},
                           dict(zip(LIMITER_FIELDS, (report.limiter_max_db, report.limiter_working_s), strict=True)))
    if progress:
        progress("finishing", 1, 1)


def _report_synthesis(report: RenderReport, synth: ClipSynthesizer, result: SynthesisResult, started: float) -> None:
    """What voicing the lines took, and how well their lengths were predicted."""
    report.synth_wall_s = time.perf_counter() - started
    report.synthesized, report.cached = result.synthesized, result.cached
    prediction = synth.predictor.report()
    report.prediction_p90_error = prediction.p90_error
    report.prediction_misses, report.prediction_observations = prediction.misses, prediction.observations
    report.audio_seconds_synthesized = result.audio_seconds_synthesized
    report.model_seconds = result.model_seconds


def _write_audio(programme: Programme, total: int, output: OutputSet, options: RenderOptions, plan: DeliveryPlan,
                 passed: PassedClips, meter: FileMeter | None, progress: Progress | None,
                 check_cancel: Callable[[], None], buses: tuple[int, ...] = (0, 1, 2)) -> None:
    """The master and the stems, block by block through the programme (``buses``: the DME
    buses written, :func:`dme_buses`)."""
    rate = programme.rate
    blocks = range(0, total, options.block)
    latency = programme.latency
    writers: list[SparseWavWriter] = []
    # Encoding and writing run on two writer threads, the mix on one and the
    # stems on the other (numpy and file I/O release the GIL), while the mixer
    # makes the next block; at most one block per thread is in flight.
    mix_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="radioplay-writer-mix")
    stem_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="radioplay-writer-stems")
    meter_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="radioplay-measure")
    pending: list[Future[None]] = []
    try:
        # Stems carry the pre-limiter level (they sum to the mix before the
        # limiter), which goes past full scale wherever the limiter works: in
        # 24-bit they would clip (measured on the sample: peaks of 1.8), so
        # stems are always 32-bit float; --format chooses the master's format.
        # The length is known: past 4 GiB a file is RF64 from the start.
        writers.append(SparseWavWriter(output.path(plan.master), rate, 2, plan.master_subtype, frames_hint=total))
        writers += [SparseWavWriter(output.path(rel), rate, 2, STEM_SUBTYPE, frames_hint=total)
                    for rel in output.files if rel.startswith(("stems/", "dme/"))]
        roles = len(writers) - 1 - (len(buses) if options.stems else 0)
        for i, t in enumerate(blocks):
            check_cancel()
            passed.release_before(t)
            n = min(options.block, total - t)
            limited, stems = programme.process(t, n)
            if t == 0:  # drop the look-ahead delay so the mix lines up with the stems
                limited = limited[latency:]
            # Copies: the writer thread encodes them while the next block is mixed.
            stem_blocks = [_held(stems[lane]) for lane in range(roles)]
            if options.stems:  # dme/DX, FX, MX after the roles' stems, in output.files order
                dme = programme.buses(stems)
                stem_blocks += [_held(dme[i]) for i in buses]
            for future in pending:
                future.result()
            pending = [mix_pool.submit(_write_blocks, writers[:1], [limited])]
            if meter is not None:
                pending.append(meter_pool.submit(_measure, meter, writers[0], limited))
            if stem_blocks:
                pending.append(stem_pool.submit(_write_blocks, writers[1:], stem_blocks))
            if progress:
                progress("writing", i + 1, len(blocks))
        for future in pending:
            future.result()
        last = programme.flush()[:latency]
        writers[0].write(last)
        if meter is not None:
            _measure(meter, writers[0], last)
        for writer in writers:
            writer.close()
    finally:
        for pool in (mix_pool, stem_pool, meter_pool):
            pool.shutdown(wait=True, cancel_futures=True)
        for writer in writers:
            with contextlib.suppress(Exception):
                writer.close()


def _deliver(project: Project, placements: list[Placement], output: OutputSet, plan: DeliveryPlan,
             report: RenderReport, memo: MixMemo, key: str, meter: FileMeter | None, progress: Progress | None,
             check_cancel: Callable[[], None]) -> None:
    """The delivered files and the compliance report, with the mix's
    measurement taken as it was written or remembered for the same bytes."""
    known, measured_key = None, None
    if plan.direct:  # the mix is the same bytes whenever the programme, gain and format are
        mix = output.path(plan.files[0])
        measured_key = mix_key(key, report.gain_db, plan.master_subtype, plan.files[0], mix.stat().st_size)
        known = (meter.result(described(mix, plan.files[0])) if meter is not None
                 else memo.load_measurement(measured_key))
    master = LimiterWork("master", report.gain_db, report.limiter_max_db, report.limiter_working_s)
    report.compliance = deliver(plan, project, placements, output, progress, check_cancel, known, master)
    if measured_key is not None and (meter is not None or known is None) and report.compliance.files:
        memo.save_measurement(measured_key, report.compliance.files[0])
