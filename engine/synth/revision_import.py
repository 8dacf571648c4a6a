"""A revised draft brought into a production: the draft imported by the one import path
(engine/synth/production_import.py, as ``radioplay import`` and File > Import Script do),
then matched and applied by engine/project/revision_apply.py. ``radioplay revise`` and
the studio's File > Import Revision both come here, so both say and do the same.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from engine.project.model import Project
from engine.project.revision import next_revision_look, revision_name_problem
from engine.project.revision_apply import RevisedProduction, revise

if TYPE_CHECKING:
    from engine.synth.library import VoiceLibrary


def today() -> str:
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def revise_from_script(production: Project, script: Path, *, destination: Path | None = None,
                       name: str | None = None, date: str | None = None,
                       library: VoiceLibrary | None = None) -> tuple[RevisedProduction, list[str]]:
    """``production`` revised by the draft ``script`` (``production`` itself is untouched), and
    the import's warnings. ``name``: the revision's (default: the next colour's, "Blue
    Revision"); ``destination``: the project file (its sounds/ folder matches new cues).
    Raises ScriptSyntaxError, ValueError or OSError with one line."""
    from engine.synth.production_import import import_production

    if name is not None and (problem := revision_name_problem(name.strip())) is not None:
        raise ValueError(f"revision name: {problem}")
    imported = import_production(Path(script), destination=destination, library=library)
    if not imported.project.lines:  # a wrong or empty file would otherwise remove every line
        raise ValueError(f"{script}: no dialogue found; a revision needs the new draft's lines")
    default_name, colour = next_revision_look(production)
    revised = revise(production, imported.project, name=(name or "").strip() or default_name,
                     date=date or today(), colour=colour, script=Path(script).name)
    return revised, list(imported.report.warnings)
