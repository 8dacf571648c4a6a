"""``radioplay check PROJECT [--json] [--fix [--takes N]]``: the speech check, headless.

Voices every line that has no clip yet (from the clip cache beside the
project otherwise), checks each clip against its text and prints one row per
flagged line (id, role, score, reason) and a summary; ``--json`` prints one
object instead: ``{"lines": [{"id", "role", "score", "flagged", "reason"}],
"flagged": N, "skipped": [{"id", "role", "reason"}]}``, always valid JSON
(a measure of no sound is null, never NaN), and ``{"error": MESSAGE}`` when
the check cannot run (the message also goes to stderr, as one line). Lines
with nothing to say (blank, or only directions) have no clip: they are
skipped, and listed as such. ``--fix`` makes up to ``--takes`` new takes of each flagged
line that is not locked, keeps the best-scoring one and saves the project
(atomically) with the takes chosen. Exit status: 0 when nothing is flagged
(after fixing, with ``--fix``), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from engine.output_paths import OutputPathError, in_place
from engine.terminal_text import print_error, print_lines, terminal_line

DEFAULT_TAKES = 3


def add_parser(sub: Any) -> None:
    p = sub.add_parser("check", help="check every line's clip against its text (missing, extra or garbled "
                                     "words, long silences, clipping, length)")
    p.add_argument("project", help="project file (.radioplay)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    p.add_argument("--fix", action="store_true",
                   help="make new takes of flagged lines (not locked ones), keep the best and save the project")
    p.add_argument("--takes", type=int, default=DEFAULT_TAKES, metavar="N",
                   help=f"with --fix: at most N new takes per flagged line (default {DEFAULT_TAKES})")
    p.set_defaults(func=cmd_check)


def _error(message: str, as_json: bool = False, problems: list[str] | None = None) -> int:
    """One line on stderr (escaped and capped); with ``--json`` also ``{"error": message}`` on
    stdout (and ``"problems"``, every one, when there are several), so a script reading stdout
    always gets JSON."""
    if as_json:
        print(json.dumps({"error": message, **({"problems": problems} if problems else {})}, ensure_ascii=False))
    return print_error(message)


def cmd_check(args: argparse.Namespace) -> int:
    from engine.check.lines import check_lines, fix_line, plan_checked, voice_clip
    from engine.check.voice import VoiceJudge
    from engine.listen.recognizer import RecognizerUnavailable
    from engine.project.fileformat import ProjectFileError, load_project, save_project
    from engine.synth.clipfolder import CacheFolderError
    from engine.synth.errors import VoiceError
    from engine.synth.pipeline import LineErrors
    from engine.synth.synthesizer import make_synthesizer

    if args.takes < 1:
        return _error(f"--takes {args.takes}: must be at least 1", args.json)
    if args.takes != DEFAULT_TAKES and not args.fix:
        return _error("--takes needs --fix", args.json)
    path = Path(args.project)
    try:
        project = load_project(path)
        saved = in_place(path) if args.fix else None  # before the work: where --fix saves it
    except (ProjectFileError, ValueError) as exc:  # OutputPathError is a ValueError
        return _error(str(exc), args.json)

    def say(message: str) -> None:
        if not args.json:
            print(terminal_line(f"... {message}"), file=sys.stderr)

    try:
        synth = make_synthesizer(path, project.sample_rate)
        plans, skipped = plan_checked(project, synth)
    except CacheFolderError as exc:
        return _error(str(exc), args.json)
    except LineErrors as exc:
        problems = exc.problems
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return _error(f"{path}: {problems[0]}{more}", args.json, problems if len(problems) > 1 else None)
    clips = {}
    missing = [line_id for line_id, plan in plans.items() if plan.key not in synth.cache]
    if missing:
        say(f"voicing {len(missing)} line(s) not in the clip cache")
    try:
        for line_id, plan in plans.items():
            clips[line_id] = voice_clip(synth, plan)
        say(f"checking {len(clips)} line(s)")
        judge = VoiceJudge(synth)
        report = check_lines(project, synth, clips, judge=judge)
    except (RecognizerUnavailable, VoiceError) as exc:
        return _error(str(exc), args.json)
    report.skipped = skipped
    if args.fix:
        index = {line.id: i for i, line in enumerate(project.lines)}
        lines = list(project.lines)
        for n, result in enumerate(report.lines):
            if not result.flagged or project.line(result.id).locked is not None:
                continue
            say(f"new takes of {result.id} ({result.reason})")
            fixed, best = fix_line(project, synth, project.line(result.id), index[result.id], args.takes, result,
                                   report.rates, judge)
            lines[index[result.id]] = fixed
            report.lines[n] = best
            if best.take != result.take:
                report.fixed.append(result.id)
        project = replace(project, lines=lines)
        if saved is not None:
            try:
                save_project(project, saved.path, guard=saved.check_again)
            except (OSError, OutputPathError) as exc:
                return _error(f"cannot save {path} with the new takes: {exc}")
    _print(report, args.json)
    return 1 if report.flagged else 0


def _print(report: Any, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report.to_json(), allow_nan=False))
        return
    rows = [r for r in report.lines if r.flagged]
    if rows:
        width = max(len(r.role) for r in rows)
        print_lines(f"{r.id}  {r.role:<{width}}  {r.score:.2f}  {r.reason}" for r in rows)
    fixed = f", {len(report.fixed)} fixed with a new take" if report.fixed else ""
    skipped = f", {len(report.skipped)} skipped (nothing to say)" if report.skipped else ""
    print(f"{report.flagged} of {len(report.lines)} lines flagged{fixed}{skipped}")
