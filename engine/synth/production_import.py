"""A script imported as a production: parsed, cast from the voices installed, its sound cues
and the sounds its action lines describe (suggested cues) matched to the sound library. The one import path of ``radioplay import`` and the studio's
File > Import Script, so both make the same project and say the same about it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.project.engines import listed_id
from engine.project.importers.build import CastSuggester, ImportReport, import_script
from engine.project.model import Project, Role, VoiceParams
from engine.project.sound import SoundClip
from engine.project.sound_suggestions import describe, open_suggestions

if TYPE_CHECKING:
    from engine.synth.library import VoiceLibrary

ADD_SOUNDS_HINT = ("to give a placeholder a sound, put a file whose name says the cue (rain.wav, "
                   "door-slam.flac) in a sounds/ folder beside the project, or drop one on its clip")


@dataclass
class ImportedProduction:
    project: Project
    report: ImportReport
    matched: list[tuple[SoundClip, str]] = field(default_factory=list)  # cue -> the file it took (absolute)

    @property
    def placeholders(self) -> list[SoundClip]:
        return [clip for clip in self.project.sounds if clip.placeholder]

    def cue_lines(self) -> list[str]:
        """What became of the sound cues, a line each (empty without cues)."""
        if not self.project.sounds:
            return []
        lanes = ", ".join(lane.name for lane in self.project.sound_lanes)
        waiting = self.placeholders
        lines = [f"Sound cues: {len(self.project.sounds)} on {lanes} ({len(self.matched)} matched to a sound, "
                 f"{len(waiting)} placeholders)"]
        lines += [f"  {clip.lane}: {clip.cue!r} -> {path}" for clip, path in self.matched]
        lines += [f"  {clip.lane}: {clip.cue!r} -> no sound yet" for clip in waiting]
        if waiting:
            lines.append(f"  ({ADD_SOUNDS_HINT})")
        return lines

    def suggestion_lines(self, project_file: str = "PROJECT.radioplay") -> list[str]:
        """The sounds the action lines describe, offered as cues, a line each, and how to
        answer them (empty without any)."""
        offered = open_suggestions(self.project)
        if not offered:
            return []
        matched = sum(1 for s in offered if s.file)
        lines = [f"Suggested sounds from the action lines: {len(offered)} ({matched} with a sound in the library, "
                 f"{len(offered) - matched} with none; never spoken, no clip until accepted)"]
        lines += [f"  {describe(s)}" for s in offered]
        lines.append(f"  (accept: radioplay sounds {project_file} --accept {offered[0].id} ... or --accept all; "
                     f"dismiss: --dismiss ID; or in the studio's Sounds tab)")
        return lines

    def cast_lines(self, labels: Mapping[str, str] | None = None) -> list[str]:
        """A line per role: its lines, who the script says it is (and why), its voice.
        ``labels``: a role's voice as the casting that chose it names it (a design, a style)."""
        project, report = self.project, self.report
        lines = [f"Cast ({len(project.cast)} roles, {len(project.lines)} lines, {len(project.scenes)} scenes):"]
        width = max((len(n) for n in report.lines_per_role), default=4)
        for role in project.cast:
            count, v = report.lines_per_role.get(role.name, 0), role.voice
            speaker = f" speaker {v.speaker}" if v.speaker is not None else ""
            voice = listed_id(v.backend, v.voice)
            c = role.character
            who = f"{c.gender or '?'}/{c.age or '?'}"
            sound = (labels or {}).get(role.name) or f"{voice}{speaker}, pitch {v.pitch:+g} st, speed {v.speed:g}"
            lines.append(f"  {role.name:<{width}}  {count:>4} line{'s' if count != 1 else ' '}  {who:<14}  {sound}")
            if c.evidence:
                lines.append(f"  {'':<{width}}              ({c.evidence})")
        return lines

    def alias_notes(self) -> list[str]:
        return [f"{a!r} and {b!r} may be the same character; kept as separate roles "
                f"(merge them in the cast if they are one person)" for a, b in self.report.aliases]


def import_production(script: Path, *, destination: Path | None = None, narrate_action: bool = False,
                      sound_folders: Sequence[Path] = (), library: VoiceLibrary | None = None,
                      suggest: CastSuggester | None = None) -> ImportedProduction:
    """Parse ``script``, cast it and give each sound cue the sound it matches in the library of
    ``destination`` (the project file to be: its sounds/ folder, the user's and the starter
    sounds; the script's own folder stands in for a production not yet saved). ``suggest``
    casts the roles (``radioplay import`` measures the candidates with a speaker encoder:
    engine/check/casting.py); by default the quick casting from ``library`` (the installed
    voices when None). Raises ScriptSyntaxError, ValueError or OSError with one line."""
    from engine.synth.casting import suggest_cast
    from engine.synth.library import VoiceLibrary
    from engine.synth.sound_library import SoundLibrary, assign_matches, match_suggestions

    if suggest is None:
        voices = library if library is not None else VoiceLibrary()

        def suggest(roles: list[Role], lines: dict[str, int], spoken: dict[str, list[str]]) -> dict[str, VoiceParams]:
            return suggest_cast(roles, voices, lines)

    project, report = import_script(script, narrate_action=narrate_action, suggest=suggest)
    matched: list[tuple[SoundClip, str]] = []
    if project.sounds or project.sound_suggestions:
        where = destination if destination is not None else script
        sounds = SoundLibrary.for_project(where, [Path(f) for f in sound_folders])
        matched = [(clip, info.path) for clip, info in assign_matches(project, sounds)]
        match_suggestions(project, sounds)
    return ImportedProduction(project, report, matched)
