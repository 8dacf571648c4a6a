"""The ``radioplay render`` verb: its flags, the export, and what the terminal
shows (the summary and the compliance report's table). engine/cli.py adds
it to the one parser; the studio's export dialog drives the same
render_project with the same presets.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from engine.export.presets import CONTAINERS, PRESET_NAMES, PRESETS
from engine.output_paths import OVERWRITE_FLAG
from engine.project.defaults import DEFAULT_TARGET_LUFS
from engine.terminal_text import echo, print_error, print_lines

if TYPE_CHECKING:
    from engine.export.encoders import Tags
    from engine.export.presets import DeliveryPreset


def _error(message: str) -> int:
    return print_error(message)


def render_os_error(exc: OSError, project: Path, output: Path) -> str:
    """One line for an OSError out of a render, blaming the output folder only when the file is in it.

    A file the render reads (a library's data, a sound) or the clip cache it writes is not the
    output folder's fault: saying so sent a user to check a folder that was fine.
    """
    reason = exc.strerror or str(exc)
    if not exc.filename:
        return f"cannot write the export to {output}: {reason}"
    name = Path(str(exc.filename))
    try:
        name.resolve().relative_to(output.resolve())
    except ValueError:
        return f"{project}: cannot render: {reason}: {name}"
    return f"cannot write the export to {output}: {reason} ({name})"


def cmd_render(args: argparse.Namespace) -> int:
    from engine.export.outputset import ExportError
    from engine.export.render import RenderOptions, render_project
    from engine.farm.farm import NoWorkers, open_farm
    from engine.progress import TerminalProgress
    from engine.project.fileformat import ProjectFileError, load_project
    from engine.synth.errors import VoiceError
    from engine.synth.pipeline import LineErrors, VoicesNotInstalled

    path = Path(args.project)
    try:
        project = load_project(path)
        preset = _preset(args)
        options = RenderOptions(target_lufs=preset.target_lufs, stems=not args.no_stems,
                                format="wav32f" if preset.bit_depth == 32 else "wav24", preset=preset, tags=_tags(args),
                                daw=args.daw or "", name=path.stem, allow_missing_sounds=args.allow_missing_sounds,
                                sound_folders=tuple(Path(f) for f in args.sounds), stem_names=args.stem_names,
                                overwrite=args.overwrite)
    except (ProjectFileError, ValueError) as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"cannot read {exc.filename}: {exc.strerror or exc}")
    from engine.synth.backends.synth_device import choose_device
    from engine.synth.clipfolder import CacheFolderError
    from engine.synth.recording import RecordingError
    from engine.synth.synthesizer import make_synthesizer

    try:
        device = choose_device(args.device)  # a device that is not here: one line, nothing written
        synth = make_synthesizer(path, project.sample_rate, use_cache=not args.no_cache, device=device)
    except (CacheFolderError, ValueError) as exc:
        return _error(str(exc))
    progress = TerminalProgress()
    try:
        with open_farm(args.ray, synth) as farm:  # --ray: synthesis on Ray actors, placed by the same scheduler
            report = render_project(project, synth, Path(args.output), options, progress,
                                    scheduler=farm.scheduler if farm else None, project_path=path)
    except VoicesNotInstalled as exc:
        # Refused, not rendered without them: a drama missing some of its cast is not a
        # deliverable, and silence in their place would pass the loudness checks.
        progress.close()
        return _error(f"{path}: {exc}")
    except LineErrors as exc:
        progress.close()
        return _error(f"{path}: lines cannot be voiced:\n  " + "\n  ".join(exc.problems))
    except (VoiceError, RecordingError) as exc:  # RecordingError names the line and the file
        progress.close()
        return _error(f"{path}: {exc}")
    except (ExportError, NoWorkers) as exc:  # NoWorkers: a Ray cluster unreachable, or every actor lost
        progress.close()
        return _error(str(exc))
    except OSError as exc:  # a disk that fills up, a folder that vanishes mid-render, a file it reads
        progress.close()
        return _error(render_os_error(exc, path, Path(args.output)))
    progress.close()
    print_lines(f"warning: {warning}" for warning in report.warnings)
    minutes, seconds = divmod(report.duration_s, 60)
    print(f"Rendered '{echo(project.title)}': {int(minutes)}:{seconds:04.1f} of audio, {report.lines} lines "
          f"({report.synthesized} synthesized, {report.cached} from cache) in {report.wall_s:.1f} s")
    print(f"Loudness: pre-mix {report.premix_lufs:.1f} LUFS, gain {report.gain_db:+.1f} dB, limiter "
          f"-> {report.predicted_lufs:.1f} LUFS (target {_render_target(preset):.1f})")
    if preset.name != "custom":
        print(f"Preset {preset.name}: {preset.describe()}")
    if args.ray:  # the actors voice the lines on their own CPU sessions (engine/farm/actor.py)
        print("Synthesis on the Ray actors (their own CPU sessions: --device is not theirs)")
    else:
        print(f"Synthesis on {device.name} ({device.reason})")
    if report.prediction_observations:
        print(f"Clip lengths predicted before synthesis: p90 error {report.prediction_p90_error:.1%}, "
              f"{report.prediction_misses} of {report.prediction_observations} reservations too small")
    print_lines(f"  {file}" for file in report.files)
    print_lines(f"note: {note}" for note in report.notes)
    if farm:
        print("\n".join(farm.summary()))
    if report.compliance is not None:
        print()
        print(report.compliance.table())
        if not report.compliance.passed:
            report_json = Path(args.output) / "report.json"
            if args.preset is None:
                # No delivery spec was asked for: the files are the result, the miss is information.
                print(f"radioplay: warning: {report.compliance.failures()}; no --preset asked for a "
                      f"delivery spec, so the render stands (see {report_json})", file=sys.stderr)
                return 0
            return _error(f"the export does not meet the {report.compliance.preset.name} preset: "
                          f"{report.compliance.failures()} (see {report_json})")
    return 0


def _render_target(preset: DeliveryPreset) -> float:
    """The programme's loudness before delivery levels each file (ACX levels RMS)."""
    return preset.target_lufs if preset.level == "loudness" else preset.rms_target


def _preset(args: argparse.Namespace) -> DeliveryPreset:
    """``--preset`` with the single values the other flags override."""
    from engine.export.presets import preset_named

    depth = {"wav16": 16, "wav24": 24, "wav32f": 32}.get(args.format or "")
    return preset_named(args.preset or "custom", target_lufs=args.target_lufs, bit_depth=depth,
                        container=args.container, sample_rate=args.sample_rate, bitrate_kbps=args.bitrate,
                        vbr=True if args.vbr else None, per_scene=True if args.per_scene else None)


def _tags(args: argparse.Namespace) -> Tags:
    from engine.export.encoders import Tags

    cover = _read_cover(args.cover) if args.cover else None
    return Tags(author=args.author or "", cover=cover)


MAX_COVER_BYTES = 32 << 20  # cover art is a picture of a few MB at most


def _read_cover(name: str) -> bytes:
    """The --cover picture through the checked reader (a device or FIFO would never end)."""
    from engine.fsutil import read_regular_bytes

    try:
        return read_regular_bytes(Path(name), MAX_COVER_BYTES)
    except FileNotFoundError:
        raise ValueError(f"--cover {name}: file not found") from None
    except OSError as exc:
        raise ValueError(f"--cover {name}: cannot read: {exc.strerror or exc}") from None


def add_render_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("render", help="render master mix, stems, captions and cue sheet")
    p.add_argument("project", help="project file (.radioplay)")
    p.add_argument("-o", "--output", required=True, help="output folder")
    p.add_argument(OVERWRITE_FLAG, action="store_true", help="replace a file in the output folder that the last "
                   "render did not write even when it holds something else (the project and its sounds never)")
    p.add_argument("--preset", choices=list(PRESET_NAMES), default=None,
                   help="deliver to a spec: " + "; ".join(f"{k}: {v.describe()}" for k, v in PRESETS.items())
                   + " (default custom); the flags below override single values. With --preset a file that misses "
                   "the spec fails the render (exit 1); without, the miss is a warning")
    p.add_argument("--target-lufs", type=float, default=None,
                   help=f"integrated loudness of the master (default: the preset's; custom {DEFAULT_TARGET_LUFS:g})")
    p.add_argument("--no-stems", action="store_true", help="write only the mix, captions and cue sheet")
    p.add_argument("--stem-names", choices=["plain", "broadcast"], default="plain",
                   help="stem file names: plain (stems/ROLE.wav, dme/DX.wav) or broadcast "
                        "(stems/TITLE_ROLESTEM_2ch_48k_32b.wav, dme/TITLE_DXSTEM_2ch_48k_32b.wav)")
    p.add_argument("--format", choices=["wav16", "wav24", "wav32f"], default=None,
                   help="sample format of a WAV or FLAC master (default wav24); stems are always 32-bit float, "
                   "since they carry the pre-limiter level")
    p.add_argument("--container", choices=list(CONTAINERS), default=None, help="file type of the master (mp3 alone: 44.1 kHz 128 kbps; m4b alone: 44.1 kHz 64 kbps AAC; "
                   "--sample-rate and --bitrate override)")
    p.add_argument("--sample-rate", type=int, default=None, help="sample rate of the master in Hz")
    p.add_argument("--bitrate", type=int, default=None, help="MP3 or AAC bitrate in kbps")
    p.add_argument("--vbr", action="store_true", help="variable-bitrate MP3")
    p.add_argument("--per-scene", action="store_true", help="one file per scene (chapters/NN_SCENE.ext)")
    p.add_argument("--daw", choices=["reaper", "audacity", "otio"], default=None,
                   help="also write a DAW project (OUTDIR/PROJECT.rpp, .lof + labels, .otio) and one file per "
                   "line in OUTDIR/lines/")
    p.add_argument("--author", default=None, help="author tag of the delivered files")
    p.add_argument("--cover", default=None, help="cover image (JPEG or PNG) for MP3 and M4B")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the clip cache (the user's cache folder)")
    p.add_argument("--ray", metavar="auto|ADDRESS", help="synthesize on Ray actors: auto (RAY_ADDRESS, else a "
                   "private local instance) or a cluster's HOST:PORT / ray://HOST:PORT (needs radioplay[cluster])")
    add_device_option(p)
    add_sounds_option(p, render=True)
    p.set_defaults(func=cmd_render)


def add_device_option(p: argparse.ArgumentParser, default: str | None = "auto", remembered: bool = False) -> None:
    """``--device auto|cpu|cuda[:N]``: the synthesis device (render, serve, bench, studio). The
    verbs that play sound (play, rehearse) keep ``--device`` for the sound device. Resolved by
    engine/synth/backends/synth_device.py ``choose_device`` (not imported here: building the parser
    loads no engine). ``remembered``: the studio's, whose default is the device chosen last time."""
    p.add_argument("--device", default=default, metavar="auto|cpu|cuda[:N]",
                   help="where synthesis runs: auto (a GPU when ONNX Runtime offers its CUDA provider and the "
                        "device answers, else the CPU), cpu, cuda or cuda:N (default "
                        + ("the one chosen last time in Transport > Synthesis Device, at first auto)" if remembered
                           else "auto)"))


def add_sounds_option(p: argparse.ArgumentParser, render: bool = False) -> None:
    """``--sounds DIR`` (import, render, play) and ``--allow-missing-sounds`` (render)."""
    p.add_argument("--sounds", action="append", default=[], metavar="DIR",
                   help="a folder of sound files for the cues (after sounds/ beside the project; repeatable)")
    if render:
        p.add_argument("--allow-missing-sounds", action="store_true",
                       help="render even if a sound file is missing or unreadable (silence there)")
