"""``radioplay import SCRIPT -o PROJECT``: a Fountain or ``NAME: line`` script made a
production, cast as the studio's File > Import Script casts it (the quick cast, then the
measured one, engine/check/casting.py), its described sounds offered as cues.

The cast and what tells its roles apart are printed; the measured cast's progress goes to
standard error, a line per role cast and at most one every few seconds between, since a cold
cast voices and hears lines for minutes on a small machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.export.command import add_sounds_option
from engine.output_paths import OVERWRITE_FLAG
from engine.terminal_text import echo, print_error, print_lines

if TYPE_CHECKING:
    from engine.check.cast_progress import CastProgress


def add_parser(sub: Any) -> None:
    p = sub.add_parser("import", help="import a Fountain or 'NAME: line' script into a project")
    p.add_argument("script", help="script file (.fountain, or plain text with NAME: line)")
    p.add_argument("-o", "--output", required=True, help="project file to write (.radioplay)")
    p.add_argument("--narrate-action", action="store_true", help="voice action paragraphs with a NARRATOR role")
    p.add_argument(OVERWRITE_FLAG, "--force", dest="overwrite", action="store_true",
                   help="replace an existing file at -o (never SCRIPT itself); --force is the same")
    p.add_argument("--accept-sound-cues", action="store_true",
                   help="make every sound the action lines describe a clip where it stands (else: radioplay sounds)")
    add_sounds_option(p)
    p.set_defaults(func=cmd_import)


def cmd_import(args: argparse.Namespace) -> int:
    from engine.check.casting import cast_project
    from engine.output_paths import PROJECT, OutputPathError, output_file
    from engine.project.fileformat import save_project
    from engine.project.importers.parsed import ScriptSyntaxError
    from engine.project.starting_voices import cast_summary
    from engine.synth.library import VoiceLibrary
    from engine.synth.production_import import import_production

    script = Path(args.script)
    if not script.exists():
        return print_error(f"{echo(script)}: no such script file")
    try:  # before the voices are measured: never the script, a FIFO, a device or a folder
        # import replaces no existing file at all without the flag (said below), so the kind is not asked
        target = output_file(args.output, PROJECT, option="-o", inputs=[("the script (SCRIPT)", script)],
                             overwrite=True, default_name=script.stem + ".radioplay")
    except OutputPathError as exc:
        return print_error(str(exc))
    out = Path(target.shown)
    if target.path.exists() and not args.overwrite:
        return print_error(f"{echo(out)} exists; pass {OVERWRITE_FLAG} (or --force) to replace it")
    library = VoiceLibrary()
    try:  # the quick cast first, as the studio shows it
        imported = import_production(script, destination=target.path, narrate_action=args.narrate_action,
                                     sound_folders=[Path(f) for f in args.sounds], library=library)
    except (ScriptSyntaxError, ValueError) as exc:
        return print_error(str(exc))
    measured = cast_project(imported.project, library, progress=_CastReport())  # then the measured one, as the studio does
    for role in imported.project.cast:
        role.voice = measured.voices.get(role.name, role.voice)
    imported.report.casting = cast_summary(imported.project.cast)
    if args.accept_sound_cues:
        from engine.project.sound_suggestions import answer, open_suggestions

        answered = answer(imported.project, [s.id for s in open_suggestions(imported.project)])
        answered.apply(imported.project)
        imported.matched += [(clip, clip.file) for clip in answered.made if clip.file]
    try:
        save_project(imported.project, target.path, guard=target.check_again)
    except OutputPathError as exc:
        return print_error(str(exc))
    except OSError as exc:
        return print_error(f"cannot write {echo(out)}: {exc.strerror or exc}")
    # Names and words from the script: escaped and capped (a role named with ESC or BEL)
    print_lines([f"Imported {script} -> {out}", f"Title: {imported.project.title}",
                 *imported.cast_lines(measured.labels)])
    if imported.report.casting:
        print_lines([imported.report.casting])
    if measured.closest is not None:
        print_lines([measured.summary()])
    print_lines(f"note: {note}" for note in imported.alias_notes())
    if unperformed := imported.report.unperformed_note():
        print_lines([f"note: {unperformed}"])
    print_lines(imported.cue_lines())
    print_lines(imported.suggestion_lines(str(out)))
    print_lines(f"warning: {warning}" for warning in imported.report.warnings)
    return 0


class _CastReport:
    """The measured cast's progress on standard error: a line when a role is cast, and at
    most one every few seconds in between."""

    def __init__(self, every_s: float = 5.0) -> None:
        import time

        self.clock, self.every_s = time.monotonic, every_s
        self.last, self.settled = -every_s, -1

    def __call__(self, progress: CastProgress) -> None:
        now = self.clock()
        if progress.settled != self.settled or now - self.last >= self.every_s:
            self.last, self.settled = now, progress.settled
            print(f"... casting: {progress.describe()}", file=sys.stderr, flush=True)
