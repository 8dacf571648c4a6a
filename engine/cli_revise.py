"""The ``radioplay revise`` verb: bring a revised draft into a production, report what
changed, and write the production with every take, lock, recording and placement of
the lines whose words stayed (engine/synth/revision_import.py does the work). Beside
engine/cli.py, which adds it to the one parser; at the top floor because its estimate of
the synthesis time uses the scheduler's speed priors (engine/sched/cost.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _error(message: str) -> int:
    print(f"radioplay: error: {message}", file=sys.stderr)
    return 1


def cmd_revise(args: argparse.Namespace) -> int:
    from engine.project.fileformat import ProjectFileError, load_project, save_project
    from engine.project.importers.parsed import ScriptSyntaxError
    from engine.sched.cost import prior_realtime
    from engine.synth.revision_import import revise_from_script

    path, script = Path(args.project), Path(args.new_script)
    out = Path(args.output) if args.output else path
    try:
        production = load_project(path)
    except (ProjectFileError, ValueError) as exc:
        return _error(str(exc))
    if not script.exists():
        return _error(f"{script}: no such script file")
    try:
        revised, warnings = revise_from_script(production, script, destination=out, name=args.name)
    except (ScriptSyntaxError, ValueError) as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"cannot read {script}: {exc.strerror or exc}")
    report = revised.report
    synthesis_s = report.synthesis_seconds(prior_realtime)
    written = None
    if not args.dry_run:
        try:
            save_project(revised.project, out)
        except OSError as exc:
            return _error(f"cannot write {out}: {exc.strerror or exc}")
        written = str(out)
    if args.json:
        data = report.to_json()
        data["revoice"]["estimated_synthesis_seconds"] = round(synthesis_s, 1)
        print(json.dumps({**data, "warnings": warnings, "written": written}, indent=2, ensure_ascii=False))
        return 0
    for line in report.text_lines():
        print(line)
    if report.revoice:
        print(f"Re-voicing {len(report.revoice)} lines (about {report.revoice_seconds:.0f} s of speech) should take "
              f"about {synthesis_s:.0f} s of synthesis here (the voices' expected speed)")
    for warning in warnings:
        print(f"warning: {warning}")
    if written is None:
        print(f"Dry run: nothing written (without --dry-run the revision goes to {out})")
    else:
        print(f"Wrote {out} ({len(report.revoice)} lines to voice on the next render or play)")
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("revise", help="bring a revised draft of the script into a production, keeping the takes, "
                       "locks, recordings and placement of every line whose words did not change")
    p.add_argument("project", help="project file (.radioplay)")
    p.add_argument("new_script", metavar="NEW_SCRIPT", help="the new draft (.fountain, or plain text with NAME: line)")
    p.add_argument("-o", "--output", default=None, metavar="OUT",
                   help="write the revised production here (default: PROJECT itself, replaced atomically)")
    p.add_argument("--dry-run", action="store_true", help="report what would change; write nothing")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.add_argument("--name", default=None, help="the revision's name (default: the next revision colour's, "
                   "'Blue Revision', then Pink, Yellow, ...)")
    p.set_defaults(func=cmd_revise)
