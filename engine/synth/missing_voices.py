"""The voices a production is cast on that this machine does not have.

A project made elsewhere (or the bundled sample on an install without its
voices) names voices that are not here. That is one fact about the machine,
not a failure of each line: it is said once, grouped by voice (which roles,
how many lines, how to get it), by ``radioplay render`` (which refuses),
``check`` and ``play``, and by the studio, whose script shows those lines as
"voice not installed" (engine/session: ``LineState.NO_VOICE``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.project.model import Project
from engine.project.takes import voice_of
from engine.synth.backends.voice_info import VoiceInfo
from engine.synth.errors import VoiceError, VoiceNotInstalled


@dataclass(frozen=True)
class MissingVoice:
    voice: str  # as the cast shows it: kokoro:jf_nezumi, en_GB-alan-medium
    how: str  # how to get it (engine/synth/library.py says it)
    roles: tuple[str, ...]  # in cast order
    line_ids: tuple[str, ...]  # the lines heard in it (a locked line in its lock's voice)


def missing_voices(project: Project, resolve: Callable[[str, str], VoiceInfo]) -> list[MissingVoice]:
    """The voices ``project`` needs that ``resolve`` (VoiceLibrary.resolve) does not find, in cast
    order: every role's voice, and the voice each line is locked to. Other voice problems (a file
    that cannot be read, a speaker the voice lacks) are not absences and are left to the lines."""
    absent: dict[tuple[str, str], VoiceNotInstalled | None] = {}

    def lookup(backend: str, voice: str) -> VoiceNotInstalled | None:
        if (backend, voice) not in absent:
            try:
                resolve(voice, backend)
                absent[backend, voice] = None
            except VoiceNotInstalled as exc:
                absent[backend, voice] = exc
            except VoiceError:
                absent[backend, voice] = None
        return absent[backend, voice]

    roles: dict[str, list[str]] = {}
    lines: dict[str, list[str]] = {}
    how: dict[str, str] = {}
    order = {role.name: n for n, role in enumerate(project.cast)}
    for role in project.cast:
        if (exc := lookup(role.voice.backend, role.voice.voice)) is not None:
            roles.setdefault(exc.voice, []).append(role.name)
            how[exc.voice] = exc.how
    for line in project.lines:
        try:
            params = voice_of(project, line)
        except KeyError:
            continue  # a role not in the cast: the line's own problem
        if (exc := lookup(params.backend, params.voice)) is not None:
            lines.setdefault(exc.voice, []).append(line.id)
            how[exc.voice] = exc.how
            if line.role not in roles.setdefault(exc.voice, []):
                roles[exc.voice].append(line.role)
    return [MissingVoice(voice, how[voice], tuple(sorted(names, key=lambda r: order.get(r, len(order)))),
                         tuple(lines.get(voice, ()))) for voice, names in roles.items()]


def describe_missing(missing: Sequence[MissingVoice]) -> str:
    """One line: how many voices are not installed, how to get them, then which (and whose) they are."""
    lines = sum(len(m.line_ids) for m in missing)
    voices = "; ".join(f"{m.voice} ({', '.join(m.roles)})" for m in missing)
    hows = "; ".join(dict.fromkeys(m.how for m in missing))
    count = f"{len(missing)} voice{'s' if len(missing) != 1 else ''} the cast needs"
    return (f"{count} {'are' if len(missing) != 1 else 'is'} not installed, so {lines} "
            f"line{'s' if lines != 1 else ''} cannot be voiced; {hows}. Not installed: {voices}")
