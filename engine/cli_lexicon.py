"""``radioplay lexicon PROJECT [--import FILE] [--export FILE]``: the
pronunciation lexicon headless (the studio's Lexicon panel does the same).

With neither flag it lists every entry (word, say, scope) and what is wrong
with the bad ones; exit status 1 when one is bad. ``--import`` adds a PLS
(``.pls``) or CSV (``.csv``: ``word,say[,role]``) file's entries (each
replaces the same word in its scope) and saves the project atomically;
``--export`` writes them (PLS keeps the project's entries only: it has no
roles; CSV keeps all). Kept apart so the command line module stays under its
size limit.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from engine.output_paths import OVERWRITE_FLAG, OutputPathError, in_place
from engine.terminal_text import print_error, terminal_line


def add_parser(sub: Any) -> None:
    p = sub.add_parser("lexicon", help="list, import (PLS, CSV) or export a project's pronunciation lexicon")
    p.add_argument("project", help="project file (.radioplay)")
    p.add_argument("--import", dest="import_file", metavar="FILE",
                   help="add the entries of a .pls or .csv (word,say[,role]) file and save the project")
    p.add_argument("--export", dest="export_file", metavar="FILE", help="write the entries to a .pls or .csv file")
    p.add_argument(OVERWRITE_FLAG, action="store_true", help="let --export replace a file that holds something "
                   "else than a lexicon of its format (never the project or the --import file)")
    p.set_defaults(func=cmd_lexicon)


def _error(message: str) -> int:
    return print_error(message)


def cmd_lexicon(args: argparse.Namespace) -> int:
    from engine.project.fileformat import ProjectFileError, load_project, save_project
    from engine.project.lexicon_io import (
        LexiconFileError,
        entries_of,
        lexicon_output,
        merged,
        read_lexicon,
        write_lexicon,
    )
    from engine.synth.lexicon_check import entry_problem, phoneme_problem

    path = Path(args.project)
    try:
        project = load_project(path)
        # Both outputs checked before either is written: a wrong --export leaves the project as it was.
        saved = in_place(path) if args.import_file else None
        inputs = [("the project", path)] + ([("the --import file", args.import_file)] if args.import_file else [])
        export = (lexicon_output(args.export_file, option="--export", inputs=inputs, overwrite=args.overwrite)
                  if args.export_file else None)
        if saved is not None:
            entries = read_lexicon(Path(args.import_file), phoneme_problem)
            project.lexicon, roles = merged(project, entries)
            for role in project.cast:
                role.lexicon = roles.get(role.name, role.lexicon)
            save_project(project, saved.path, guard=saved.check_again)
            print(terminal_line(f"Imported {len(entries)} entries from {args.import_file} into {path}"))
        if export is not None:
            count = write_lexicon(export, entries_of(project))
            print(terminal_line(f"Exported {count} entries to {args.export_file}"))
    except (ProjectFileError, LexiconFileError, OutputPathError, OSError) as exc:
        return _error(str(exc))
    if args.import_file or args.export_file:
        return 0
    bad = 0
    for entry in entries_of(project):
        problem = entry_problem(entry.word, entry.say)
        bad += problem is not None
        print(terminal_line(f"{entry.word}\t{entry.say}\t{entry.role or 'Project'}"
                            + (f"\t{problem}" if problem else "")))
    print(f"{len(entries_of(project))} entries, {bad} bad", file=sys.stderr)
    return 1 if bad else 0
