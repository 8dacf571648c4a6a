"""``radioplay sounds PROJECT [--accept ID ...|all] [--dismiss ID ...|all]``: the sounds a
script's action lines describe, offered as cues (engine/project/sound_suggestions.py),
answered headless as the studio's Sounds tab answers them.

With no flag it lists every suggestion (id, cue, lane kind, where it stands, the library
sound it matched or that none did, the script's sentence) and the project's sound clips.
``--accept`` makes each named suggestion a clip on a lane of its kind where it stands (the
matched sound, or a placeholder saying what to find); ``--dismiss`` keeps it, answered, so
it is not offered again; ``all`` names every suggestion not answered yet. The project is
saved atomically. ``radioplay import --accept-sound-cues`` accepts them all at import.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engine.output_paths import OutputPathError, in_place
from engine.terminal_text import echo, print_error, print_lines


def add_parser(sub: Any) -> None:
    p = sub.add_parser("sounds", help="list, accept or dismiss the sounds the action lines describe")
    p.add_argument("project", help="project file (.radioplay)")
    p.add_argument("--accept", nargs="+", default=[], metavar="ID",
                   help="make these suggested sounds clips where they stand (all: every one not answered)")
    p.add_argument("--dismiss", nargs="+", default=[], metavar="ID",
                   help="dismiss these suggested sounds (all: every one not answered)")
    p.set_defaults(func=cmd_sounds)


def _error(message: str) -> int:
    return print_error(message)


def _ids(named: list[str], offered: list[str]) -> list[str]:
    return offered if [n.lower() for n in named] == ["all"] else named


def cmd_sounds(args: argparse.Namespace) -> int:
    from engine.project.fileformat import ProjectFileError, load_project, save_project
    from engine.project.sound_suggestions import answer, describe, open_suggestions

    path = Path(args.project)
    try:
        project = load_project(path)
        # Before the work: where the answers are saved (a link is followed, never replaced).
        saved = in_place(path) if args.accept or args.dismiss else None
    except (ProjectFileError, ValueError) as exc:  # OutputPathError is a ValueError
        return _error(str(exc))
    offered = [s.id for s in open_suggestions(project)]
    if args.accept or args.dismiss:
        try:
            answered = answer(project, _ids(args.accept, offered), _ids(args.dismiss, offered))
        except KeyError as exc:
            return _error(f"{path}: {exc.args[0]}")
        except ValueError as exc:
            return _error(f"{path}: {exc}")
        answered.apply(project)
        assert saved is not None
        try:
            save_project(project, saved.path, guard=saved.check_again)
        except OutputPathError as exc:
            return _error(str(exc))
        except OSError as exc:
            return _error(f"cannot write {echo(path)}: {exc.strerror or exc}")
        # Cues and sentences come from the script: escaped and capped.
        print_lines(f"Accepted: {clip.lane}: {clip.cue!r} -> "
                    f"{clip.file.rsplit('/', 1)[-1] if clip.file else 'no sound yet (a placeholder)'}"
                    for clip in answered.made)
        dismissed = len(set(_ids(args.dismiss, offered)))
        print_lines([f"Saved {path}: {len(answered.made)} accepted, {dismissed} dismissed, "
                     f"{len(open_suggestions(project))} still offered"])
        return 0
    if not project.sound_suggestions:
        print_lines([f"{path}: no suggested sounds (the action lines describe none the vocabulary knows)"])
    print_lines(describe(suggestion) for suggestion in project.sound_suggestions)
    print_lines(f"clip {clip.id} {clip.lane}: {clip.cue!r} -> {clip.file or 'no sound yet'}"
                for clip in project.sounds)
    return 0
