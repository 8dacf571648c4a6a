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

from engine.project.design import NEUTRAL, VoiceDesign
from engine.project.engines import listed_id
from engine.project.model import Project, Role, VoiceParams, next_colour
from engine.project.voice_presets import PRESETS, design_for, preset_matching, source_gender

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
    """What tells the roles of a cast apart, in words a producer reads: how many voices, how
    many roles are designed from them (the presets, and how far their pitch moves), and
    which share a sound and differ only by small offsets."""
    if not cast:
        return ""
    voices = {(r.voice.backend, r.voice.voice, r.voice.speaker) for r in cast}
    sounds: dict[tuple[object, ...], int] = {}
    for r in cast:
        key = (r.voice.backend, r.voice.voice, r.voice.speaker, r.voice.design)
        sounds[key] = sounds.get(key, 0) + 1
    shared = sum(n - 1 for n in sounds.values())
    designed = [r for r in cast if not r.voice.design.is_neutral]
    text = f"{len(cast)} roles on {len(voices)} voice{'s' if len(voices) != 1 else ''}, leads first"
    parts = []
    if len(cast) > len(designed):
        parts.append(f"{len(cast) - len(designed)} as installed")
    if designed:
        kinds = sorted({design_name(r.voice) for r in designed})
        shifts = [r.voice.design.f0_shift for r in designed]
        moved = f"pitch {min(shifts):+g} semitones" if min(shifts) == max(shifts) else \
            f"pitch {min(shifts):+g} to {max(shifts):+g} semitones"
        parts.append(f"{len(designed)} by voice designs ({', '.join(kinds)}; {moved})")
    text += ": " + " and ".join(parts)
    if shared:
        offsets = max(abs(r.voice.pitch) for r in cast)
        text += (f"; {shared} share a sound with another role and are told apart only by small offsets "
                 f"(pitch within ±{offsets:g} semitones, variation). Install more voices (radioplay voices "
                 f"--catalog) for more distinct ones.")
    else:
        text += "; every role has a sound of its own. Recast them in the cast panel."
    return text


def voice_label(voice: VoiceParams) -> str:
    """A role's voice in words: "en_US-joe-medium as older woman", "kokoro:jf_nezumi"."""
    name = listed_id(voice.backend, voice.voice)
    if voice.speaker is not None:
        name += f" speaker {voice.speaker}"
    if voice.design.is_neutral:
        return name
    design = design_name(voice)  # "older woman", "woman (bright)", "deep": as the casting labels them
    person, _, colour = design.removesuffix(")").partition(" (")
    if person in COLOUR_NAMES:
        return f"{name}, {person}"
    return f"{name} as {person}, {colour}" if colour else f"{name} as {person}"


COLOUR_NAMES = frozenset(p.name for p in PRESETS if p.gender is None)


def design_name(voice: VoiceParams) -> str:
    """The presets a design is made of ("older woman", "woman (bright)", "deep"), else "custom"
    (a Kokoro style's designs keep its tract: the formant is capped at 1 as the casting caps it)."""
    return _design_name(source_gender(voice.backend, voice.voice), voice.design)


@cache  # a cast of thousands has a handful of designs
def _design_name(gender: str, design: VoiceDesign) -> str:
    if (name := preset_matching(design, gender)) is not None:
        return name
    for person in [None, *(p.name for p in PRESETS if p.gender is not None)]:
        for colour in [None, *(p.name for p in PRESETS if p.gender is None)]:
            made = design_for(person, gender) if person else NEUTRAL
            made = made.then(design_for(colour, gender)) if colour else made
            if (person or colour) and design in (made, made.with_changes(formant=min(made.formant, 1.0))):
                return f"{person} ({colour})" if person and colour else person or colour or ""
    return "custom"


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
