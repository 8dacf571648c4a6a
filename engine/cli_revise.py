"""The ``radioplay revise`` verb: bring a revised draft into a production, report what
changed, and write the production with every take, lock, recording and placement of
the lines whose words stayed (engine/synth/revision_import.py does the work). Beside
engine/cli.py, which adds it to the one parser; at the top floor because its estimate of
the synthesis time uses the scheduler's speed priors (engine/sched/cost.py).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from engine.output_paths import OVERWRITE_FLAG, PROJECT, OutputPathError, in_place, output_file
from engine.project.defaults import MAX_REVISION_NAME_CHARS
from engine.terminal_text import echo, print_error, print_lines


def _error(message: str) -> int:
    return print_error(message)


def cmd_revise(args: argparse.Namespace) -> int:
    from engine.project.fileformat import ProjectFileError, load_project, save_project
    from engine.project.importers.parsed import ScriptSyntaxError
    from engine.project.revision import revision_name_problem
    from engine.sched.cost import prior_realtime
    from engine.synth.revision_import import revise_from_script

    path, script = Path(args.project), Path(args.new_script)
    if args.name is not None and (problem := revision_name_problem(args.name.strip())) is not None:
        return _error(f"--name {echo(args.name, 60)}: {problem}")
    try:
        production = load_project(path)
    except (ProjectFileError, ValueError) as exc:
        return _error(str(exc))
    if not script.exists():
        return _error(f"{echo(script)}: no such script file")
    try:  # before the draft is read: -o onto the draft, a FIFO or a folder fails here
        target = (output_file(args.output, PROJECT, option="-o", inputs=[("the new draft (NEW_SCRIPT)", script)],
                              overwrite=args.overwrite, default_name=path.name)
                  if args.output else in_place(path))
    except OutputPathError as exc:
        return _error(str(exc))
    out = Path(target.shown)
    try:
        revised, warnings = revise_from_script(production, script, destination=target.path, name=args.name)
    except (ScriptSyntaxError, ValueError) as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"cannot read {echo(script)}: {exc.strerror or exc}")
    report = revised.report
    synthesis_s = report.synthesis_seconds(prior_realtime)
    written = None
    if not args.dry_run:
        try:
            save_project(revised.project, target.path, guard=target.check_again)
        except OutputPathError as exc:
            return _error(str(exc))
        except OSError as exc:
            return _error(f"cannot write {echo(out)}: {exc.strerror or exc}")
        written = str(out)
    if args.json:
        data = report.to_json()
        data["revoice"]["estimated_synthesis_seconds"] = round(synthesis_s, 1)
        print(json.dumps({**data, "warnings": warnings, "written": written}, indent=2, ensure_ascii=False))
        return 0
    print_lines(report.text_lines())
    if report.revoice:
        print(f"Re-voicing {len(report.revoice)} lines (about {report.revoice_seconds:.0f} s of speech) should take "
              f"about {synthesis_s:.0f} s of synthesis here (the voices' expected speed)")
    print_lines(f"warning: {warning}" for warning in warnings)
    if written is None:
        print(f"Dry run: nothing written (without --dry-run the revision goes to {echo(out)})")
    else:
        print(f"Wrote {echo(out)} ({len(report.revoice)} lines to voice on the next render or play)")
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("revise", help="bring a revised draft of the script into a production, keeping the takes, "
                       "locks, recordings and placement of every line whose words did not change")
    p.add_argument("project", help="project file (.radioplay)")
    p.add_argument("new_script", metavar="NEW_SCRIPT", help="the new draft (.fountain, or plain text with NAME: line)")
    p.add_argument("-o", "--output", default=None, metavar="OUT",
                   help="write the revised production here (default: PROJECT itself, replaced atomically; OUT/ or "
                   "a folder: PROJECT's name inside it); never NEW_SCRIPT")
    p.add_argument(OVERWRITE_FLAG, action="store_true", help="let -o replace a file that holds something else "
                   "than a project")
    p.add_argument("--dry-run", action="store_true", help="report what would change; write nothing")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--name", default=None, help=f"the revision's name, one line of at most {MAX_REVISION_NAME_CHARS} characters "
                   "(default: the next revision colour's, 'Blue Revision', then Pink, Yellow, ...)")
    p.set_defaults(func=cmd_revise)
