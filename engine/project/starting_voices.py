"""Starting voices: every role sounds different from every other from the start.

Until a cast can draw on several voice models, roles share one voice and are
told apart by small changes of its settings. Small on purpose: pitch shifts
of about 3 semitones measurably hurt intelligibility, so pitch stays within
1.5 semitones and is combined with speaking speed (0.90-1.10) and the
model's variation (0.8-1.2); lanes are also panned apart. The settings are
ordered so that each next role is as far as possible from all earlier ones,
with the first (usually the lead) on the voice's own settings.

The importers cast with :func:`starting_voice`; the studio's "Add role" asks
:func:`suggest_new_role`, which picks settings no existing role has.
"""

from __future__ import annotations

import math
from functools import cache

from engine.project.model import Project, Role, VoiceParams, next_colour

PITCHES = (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5)  # semitones
SPEEDS = (0.90, 0.95, 1.00, 1.05, 1.10)
VARIATIONS = (0.8, 1.0, 1.2)
PANS = (0.0, -0.3, 0.3, -0.15, 0.15, -0.45, 0.45)
_SCALE = (1.5, 0.10, 0.4)  # how far each setting may move; variation counts half as much as the others

Settings = tuple[float, float, float]  # pitch, speed, variation


@cache
def distinct_settings() -> tuple[Settings, ...]:
    """Every (pitch, speed, variation) combination, most distinct first
    (farthest-point order from the voice's own settings)."""
    grid = [(p, s, v) for p in PITCHES for s in SPEEDS for v in VARIATIONS]

    def distance(a: Settings, b: Settings) -> float:
        return math.sqrt(sum(((x - y) / k) ** 2 for x, y, k in zip(a, b, _SCALE, strict=True)))

    neutral = (0.0, 1.0, 1.0)
    order = [neutral]
    nearest = {g: distance(g, neutral) for g in grid if g != neutral}
    while nearest:
        # Farthest from everything chosen; ties go to the one nearer the voice's own sound.
        best = max(nearest, key=lambda g: (round(nearest[g], 9), -distance(g, neutral), g))
        order.append(best)
        del nearest[best]
        for g in nearest:
            nearest[g] = min(nearest[g], distance(g, best))
    return tuple(order)


def starting_voice(index: int, base: VoiceParams | None = None) -> tuple[VoiceParams, float]:
    """Voice settings and pan of the ``index``-th role of a fresh cast."""
    settings = distinct_settings()
    pitch, speed, variation = settings[index % len(settings)]
    voice = (base or VoiceParams()).with_changes(pitch=pitch, speed=speed, variation=variation)
    return voice, PANS[index % len(PANS)]


def casting_summary(roles: int) -> str:
    """What the import did to tell the roles apart, in words a producer reads."""
    n = len(distinct_settings())
    ranges = (f"pitch within ±{max(PITCHES):g} semitones, speed {min(SPEEDS):.2f}-{max(SPEEDS):.2f}×, "
              f"variation {min(VARIATIONS):g}-{max(VARIATIONS):g}")
    if roles <= n:
        return (f"Every role starts with its own settings of the voice ({ranges}) and the lanes are "
                f"panned apart; recast them in the cast panel.")
    return (f"The first {n} roles start with their own settings of the voice ({ranges}); the other "
            f"{roles - n} repeat those settings, since one voice has no more distinct ones. Give them "
            f"other voices in the cast panel.")


def cast_summary(cast: list[Role]) -> str:
    """What a cast drawn from the installed voices does to tell the roles apart."""
    models = {(r.voice.backend, r.voice.voice, r.voice.speaker) for r in cast}
    shared = len(cast) - len(models)
    if not cast:
        return ""
    if shared == 0:
        return (f"Every role has a voice or speaker of its own ({len(models)} in all), leads first; "
                f"recast them in the cast panel.")
    return (f"{len(cast)} roles on {len(models)} voices or speakers, leads first: {shared} share a voice and "
            f"are told apart by small changes of its settings (pitch within ±{max(PITCHES):g} semitones, "
            f"speed {min(SPEEDS):.2f}-{max(SPEEDS):.2f}×). Install more voices (radioplay voices --catalog) "
            f"for more distinct ones.")


def _sound(voice: VoiceParams) -> tuple[object, ...]:
    return (voice.backend, voice.voice, voice.speaker, voice.pitch, voice.speed, voice.variation)


def suggest_new_role(project: Project, name: str | None = None) -> Role:
    """A role for "Add role": the voice model of the last role, settings no role
    has yet (most distinct first), the least used pan and the next colour.
    Without ``name`` it is called ``ROLE n``, unused in the cast."""
    names = set(project.role_names())
    if name is None:
        n = len(project.cast) + 1
        while f"ROLE {n}" in names:
            n += 1
        name = f"ROLE {n}"
    base = project.cast[-1].voice if project.cast else VoiceParams()
    taken = {_sound(role.voice) for role in project.cast}
    voice = next((v for v in (starting_voice(i, base)[0] for i in range(len(distinct_settings())))
                  if _sound(v) not in taken), starting_voice(len(project.cast), base)[0])
    pans = [role.pan for role in project.cast]
    pan = min(PANS, key=lambda p: (sum(1 for q in pans if math.isclose(p, q)), PANS.index(p)))
    return Role(name=name, colour=next_colour(len(project.cast)), voice=voice, pan=pan)
