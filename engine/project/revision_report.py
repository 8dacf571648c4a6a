"""What a revision does, said before it is applied: per role the lines added, changed
and removed (old and new words side by side), the lines to re-voice and their length,
the roles, scenes and sound cues that came or went, and the recordings that no longer
match. ``radioplay revise`` prints it (:meth:`RevisionReport.text_lines`) or writes
it as JSON (:meth:`RevisionReport.to_json`); the studio's dialog shows the same object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Kinds of change, in the order a report lists them.
KINDS = ("changed", "split", "merged", "added", "removed", "moved")


@dataclass(frozen=True)
class Change:
    """One line's fate. ``old_id``/``old_text``: the production's line (None when added);
    ``new_id``/``new_text``: the revised line (None when removed). A split's second part
    and a merge's second old line are their own entries, pointing at their partner."""

    kind: str  # one of KINDS
    role: str
    old_id: str | None
    new_id: str | None
    old_text: str = ""
    new_text: str = ""
    partner: str | None = None  # a split's first part, a merged line's survivor

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "old_id": self.old_id, "new_id": self.new_id}
        if self.old_id is not None:
            d["old_text"] = self.old_text
        if self.new_id is not None:
            d["new_text"] = self.new_text
        if self.partner is not None:
            d["partner"] = self.partner
        return d


@dataclass
class RevisionReport:
    name: str
    date: str
    colour: str
    script: str
    unchanged: int = 0  # lines whose words stayed, in place
    changes: list[Change] = field(default_factory=list)
    new_roles: list[str] = field(default_factory=list)
    roles_without_lines: list[str] = field(default_factory=list)  # kept in the cast, with their settings
    scenes: list[str] = field(default_factory=list)  # one sentence per scene change
    cues: list[str] = field(default_factory=list)  # one sentence per sound cue change
    flagged: list[tuple[str, str]] = field(default_factory=list)  # (line id, recording) no longer matching
    revoice: list[str] = field(default_factory=list)  # ids of the lines to synthesize
    revoice_seconds: float = 0.0  # their estimated length of speech
    revoice_by_backend: dict[str, float] = field(default_factory=dict)  # that speech by synthesis backend
    locks_kept: int = 0
    takes_kept: int = 0  # lines that keep their chosen take
    recordings_kept: int = 0

    def synthesis_seconds(self, realtime: Callable[[str], float]) -> float:
        """How long voicing them should take: ``realtime(backend)`` is the audio seconds the
        backend makes per second here (the scheduler's prior, or the studio's measured figure)."""
        return sum(seconds / max(realtime(backend), 1e-6) for backend, seconds in self.revoice_by_backend.items())

    def count(self, kind: str) -> int:
        return sum(1 for c in self.changes if c.kind == kind and not (kind in ("split", "merged") and c.partner))

    def counts(self) -> dict[str, int]:
        return {"unchanged": self.unchanged, **{kind: self.count(kind) for kind in KINDS}}

    def by_role(self) -> dict[str, list[Change]]:
        out: dict[str, list[Change]] = {}
        for change in self.changes:
            out.setdefault(change.role, []).append(change)
        return out

    @property
    def has_changes(self) -> bool:
        return bool(self.changes or self.new_roles or self.scenes or self.cues)

    def summary(self) -> str:
        c = self.counts()
        parts = [f"{c[k]} {k}" for k in ("changed", "added", "removed", "moved", "split", "merged") if c[k]]
        return (f"{self.name} ({self.date}) from {self.script}: {c['unchanged']} unchanged"
                + (", " + ", ".join(parts) if parts else ", no line changed")
                + f"; {len(self.revoice)} line{'s' if len(self.revoice) != 1 else ''} to re-voice"
                + f" (about {self.revoice_seconds:.0f} s of speech)")

    def text_lines(self) -> list[str]:
        """The terminal report: the summary, then per role each change with old -> new words."""
        lines = [f"Revision: {self.summary()}"]
        for role, changes in self.by_role().items():
            counts = {k: sum(1 for c in changes if c.kind == k) for k in KINDS}
            said = ", ".join(f"{n} {k}" for k, n in counts.items() if n)
            lines.append(f"{role}: {said}")
            for c in changes:
                lines.append("  " + _change_line(c))
        for role in self.new_roles:
            lines.append(f"New role: {role}")
        for role in self.roles_without_lines:
            lines.append(f"Role without lines in this draft: {role} (kept in the cast with its settings)")
        lines += [f"Scene: {s}" for s in self.scenes]
        lines += [f"Sound cue: {s}" for s in self.cues]
        for line_id, recording in self.flagged:
            lines.append(f"Recording flagged: {line_id}'s recording {recording} no longer matches the words "
                         "(kept in the revision's history; the line is synthesized until it is recorded again)")
        lines.append(f"Kept: {self.takes_kept} lines keep their takes, {self.locks_kept} locks, "
                     f"{self.recordings_kept} recordings")
        return lines

    def to_json(self) -> dict[str, Any]:
        roles: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for role, changes in self.by_role().items():
            roles[role] = {k: [c.to_json() for c in changes if c.kind == k] for k in KINDS}
        return {
            "revision": {"name": self.name, "date": self.date, "colour": self.colour, "script": self.script},
            "counts": self.counts(),
            "roles": roles,
            "new_roles": list(self.new_roles),
            "roles_without_lines": list(self.roles_without_lines),
            "scenes": list(self.scenes),
            "cues": list(self.cues),
            "flagged_recordings": [{"id": i, "recording": r} for i, r in self.flagged],
            "revoice": {"lines": len(self.revoice), "ids": list(self.revoice),
                        "estimated_seconds": round(self.revoice_seconds, 1)},
            "kept": {"takes": self.takes_kept, "locks": self.locks_kept, "recordings": self.recordings_kept},
        }


def _change_line(c: Change) -> str:
    if c.kind == "added":
        return f"+ {c.new_id}: {c.new_text!r}"
    if c.kind == "removed":
        return f"- {c.old_id}: {c.old_text!r}"
    if c.kind == "moved":
        return f"~ {c.old_id} moved: {c.new_text!r}"
    if c.kind == "split" and c.partner:
        return f"  {c.new_id} (second part of {c.partner}): {c.new_text!r}"
    if c.kind == "merged" and c.partner:
        return f"  {c.old_id} merged into {c.partner}: {c.old_text!r}"
    return f"* {c.old_id} {c.kind}: {c.old_text!r} -> {c.new_text!r}"
