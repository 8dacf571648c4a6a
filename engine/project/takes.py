"""Takes and locks: which of a line's takes is heard, and what keeps it.

A take is a seed. Synthesis is deterministic per (text, voice, settings,
seed), so a line records only seeds: the chosen one (``Line.take``) and the
others the producer made (``Line.takes``); their clips live in the clip
cache and are made again, identical, where the cache is gone. A locked line
(``Line.locked``) keeps the voice settings its chosen take was made with, so
recasting its role does not re-voice it; unlocking re-voices it with the
role's settings.

Functions here never change their arguments (lines are shared between
project snapshots).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.project.model import Line, Project, VoiceParams
from engine.project.read_takes import ReadTake

SEED_MAX = 2**31 - 1


def takes_of(line: Line) -> tuple[int, ...]:
    """Every take the line has, in the order they were made (the chosen one included)."""
    seeds = list(line.takes)
    if line.take not in seeds:
        seeds.insert(0, line.take)
    return tuple(seeds)


def voice_of(project: Project, line: Line) -> VoiceParams:
    """The voice a line is heard in: its lock's, else its role's (KeyError: no such role)."""
    if line.locked is not None:
        return line.locked
    return project.role(line.role).voice


def with_new_take(line: Line) -> Line:
    """The line with one more take, chosen: the next unused seed."""
    seeds = takes_of(line)
    seed = max(seeds) + 1 if max(seeds) < SEED_MAX else min(set(range(len(seeds) + 1)) - set(seeds))
    return replace(line, takes=(*seeds, seed), take=seed)


def with_take(line: Line, seed: int) -> Line:
    """The line with ``seed`` chosen (added to its takes if new)."""
    seeds = takes_of(line)
    return replace(line, take=seed, takes=seeds if seed in seeds else (*seeds, seed))


def locked(project: Project, line: Line) -> Line:
    """The line locked to the voice its chosen take is made with now."""
    return replace(line, locked=voice_of(project, line))


def unlocked(line: Line) -> Line:
    return replace(line, locked=None)


# -- the project file (engine.project.fileformat calls these) -----------------

def takes_to_dict(line: Line, voice_to_dict: Any) -> dict[str, Any]:
    """The line's take fields for the file; nothing for an untouched line."""
    d: dict[str, Any] = {}
    if line.take or line.takes:
        d["take"] = line.take
    if len(takes_of(line)) > 1:
        d["takes"] = list(takes_of(line))
    if line.locked is not None:
        d["locked_voice"] = voice_to_dict(line.locked)
    return d


def takes_from_dict(r: Any, d: dict[str, Any], path: str, voice_from_dict: Any) -> dict[str, Any]:
    """Line fields from the file; ``r`` is the file format's reader (errors name the JSON path)."""
    take = r.num(d, "take", path, 0, lo=0, hi=SEED_MAX)
    if not isinstance(take, int):
        raise r.fail(f"{path}.take", f"expected a whole-number seed, got {take}")
    seeds: list[int] = []
    seen: set[int] = set()  # a list's ``in`` would make loading many takes quadratic
    for i, seed in enumerate(r.items(d.get("takes", []), f"{path}.takes")):
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
            raise r.fail(f"{path}.takes[{i}]", f"expected a whole-number seed in [0, {SEED_MAX}], got {seed!r}")
        if seed in seen:
            raise r.fail(f"{path}.takes[{i}]", f"take {seed} is listed twice")
        seen.add(seed)
        seeds.append(seed)
    lock = d.get("locked_voice")
    return {"take": take, "takes": tuple(seeds),
            "locked": None if lock is None else voice_from_dict(r, lock, f"{path}.locked_voice")}


def read_take_of(line: Line, seed: int | None = None) -> ReadTake | None:
    """The read behind take ``seed`` (the chosen take by default), or None for a plain take."""
    seed = line.take if seed is None else seed
    return next((t for t in line.read_takes if t.seed == seed), None)


def with_read_take(line: Line, take: ReadTake) -> Line:
    """The line with ``take`` (a take directed by a read: engine/project/read_takes.py)
    added as its newest take, chosen."""
    seeds = takes_of(line)
    if take.seed in seeds:
        raise ValueError(f"line {line.id!r} already has a take {take.seed}")
    return replace(line, takes=(*seeds, take.seed), take=take.seed, read_takes=(*line.read_takes, take))
