"""The ``radioplay direct`` verb: a line directed by voice, headless.

``radioplay direct PROJECT LINE_ID --read FILE.wav`` takes a producer's read of the
line (engine/direct/take.py: trimmed, checked against the line's words, aligned),
keeps it beside the project's takes, voices a new take of the line in its role's voice
with the read's timing and intonation (engine/synth/read_transfer.py), chooses it, and
writes the project (in place, or ``-o``). A read that does not say the line (another
sentence, silence, noise) is refused in one line and nothing is written. Beside
engine/cli.py, which adds it to the one parser.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from engine.output_paths import OVERWRITE_FLAG, PROJECT, OutputPathError, in_place, output_file
from engine.terminal_text import echo, print_error


def cmd_direct(args: argparse.Namespace) -> int:
    from engine.audio.sound_file import AudioFileError, read_audio
    from engine.direct.read import MAX_READ_S, ReadRefused
    from engine.direct.take import DirectError, direct_line, discard_read, strengths
    from engine.listen.recognizer import RecognizerUnavailable
    from engine.project.fileformat import ProjectFileError, load_project, save_project
    from engine.project.takes import takes_of, voice_of
    from engine.synth.errors import TextError, VoiceError
    from engine.synth.pipeline import plan_line
    from engine.synth.synthesizer import make_synthesizer

    path, read_path = Path(args.project), Path(args.read)
    try:
        timing, intonation = strengths(args.follow, args.strength)
        project = load_project(path)
        target = (output_file(args.output, PROJECT, option="-o", inputs=[("the read (--read)", read_path)],
                              overwrite=args.overwrite, default_name=path.name)
                  if args.output else in_place(path))
        audio, rate = read_audio(read_path, MAX_READ_S)
    except (DirectError, ProjectFileError, OutputPathError) as exc:
        return print_error(str(exc))
    except AudioFileError as exc:
        return print_error(f"--read {echo(exc.path)}: {exc.problem}")
    except ValueError as exc:
        return print_error(str(exc))
    started = time.perf_counter()
    try:
        directed = direct_line(project, Path(target.path), args.line_id, audio, rate, timing=timing,
                               intonation=intonation)
    except ReadRefused as exc:
        return print_error(f"--read {echo(read_path)}: {exc}; no take made")
    except (DirectError, OutputPathError) as exc:
        return print_error(str(exc))
    except RecognizerUnavailable as exc:
        return print_error(str(exc))
    line = directed.project.line(args.line_id)
    try:
        synth = make_synthesizer(Path(target.path), project.sample_rate)
        plan = plan_line(synth, directed.project, line)
        clip = synth.synthesize_plan(plan)
    except (TextError, VoiceError, KeyError) as exc:
        discard_read(project, Path(directed.take.read))
        return print_error(f"line {echo(args.line_id, 60)} (role {echo(line.role, 60)}): {exc}; no take made")
    seconds = time.perf_counter() - started
    try:
        save_project(directed.project, target.path, guard=target.check_again)
    except OutputPathError as exc:
        discard_read(project, Path(directed.take.read))
        return print_error(str(exc))
    except OSError as exc:
        discard_read(project, Path(directed.take.read))
        return print_error(f"cannot write {echo(target.shown)}: {exc.strerror or exc}")
    number = takes_of(line).index(line.take) + 1
    length = clip.shape[0] / project.sample_rate
    kept = Path(directed.take.read)
    if args.json:
        print(json.dumps({"line": line.id, "role": line.role, "take": number, "seed": line.take,
                          "timing": timing, "intonation": intonation, "read": str(kept),
                          "sha256": directed.take.sha256, "words": len(directed.take.words),
                          "heard": " ".join(directed.read.heard), "seconds": round(length, 3),
                          "voice": voice_of(directed.project, line).voice, "written": target.shown,
                          "elapsed_s": round(seconds, 2)}, ensure_ascii=False))
        return 0
    print(f"Line {echo(line.id, 60)} ({echo(line.role, 60)}): take {number} directed by the read "
          f"({directed.take.what}), {length:.1f} s, chosen")
    print(f"Read kept as {echo(kept)} ({len(directed.take.words)} words aligned)")
    print(f"Wrote {echo(target.shown)}")
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("direct", help="direct a line by voice: your read of it, performed by the role's voice "
                       "with your timing and intonation, as a new take")
    p.add_argument("project", help="project file (.radioplay)")
    p.add_argument("line_id", metavar="LINE_ID", help="the line's id (as in the script: L0003)")
    p.add_argument("--read", required=True, metavar="FILE.wav", help="your read of the line (a WAV file)")
    p.add_argument("--follow", choices=("both", "timing", "intonation"), default="both",
                   help="what the take follows of the read (default: both)")
    p.add_argument("--strength", type=int, default=100, metavar="PERCENT",
                   help="how closely it follows, 0-100 %% (default: 100)")
    p.add_argument("-o", "--output", default=None, metavar="OUT",
                   help="write the project here (default: PROJECT itself, replaced atomically); the read is kept "
                   "in takes/ beside it")
    p.add_argument(OVERWRITE_FLAG, action="store_true", help="let -o replace a file that holds something else "
                   "than a project")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.set_defaults(func=cmd_direct)
