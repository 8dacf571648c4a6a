"""Scripts and drafts for the revision tests (a held-out script: not a sample, not a bench scene)."""

from __future__ import annotations

from pathlib import Path

HELD_OUT_SCRIPT = [
    "MARA: The harbour lights are out again, and the ferry is late.",
    "TOBIAS: It always is. I told you we should have taken the last bus.",
    "MARA: The last bus left before the storm did.",
    "TOBIAS: Then we sit here and count the waves.",
    "MARA: I have counted four hundred already.",
    "TOBIAS: Look, a woman on the pier with a red umbrella.",
    "MARA: She has been standing there since we came.",
    "TOBIAS: Maybe she is waiting for the same boat.",
]


def write_script(path: Path, lines: list[str]) -> Path:
    path.write_text("# Title: Harbour\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path
