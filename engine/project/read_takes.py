"""Takes directed by voice: a producer's read of a line, performed by the role's voice.

A take is a seed (engine/project/takes.py); a take made from a read is a seed
with a :class:`ReadTake` beside it: the read's file (kept beside the project's
takes), its SHA-256 (a changed file no longer makes the take), where its words
lie (aligned once, when the take was made), the text it was aligned to, and how
much of its timing and intonation the take follows (0-100 %). With these the
take reproduces from the project and the read's file alone
(engine/synth/read_transfer.py makes its samples; engine/direct/ makes the take;
engine.project.takes adds one to a line and finds a take's: ``with_read_take``,
``read_take_of``).

Functions here never change their arguments (lines are shared between snapshots).
"""

from __future__ import annotations

from dataclasses import dataclass

STRENGTH_RANGE = (0, 100)  # percent


@dataclass(frozen=True)
class ReadTake:
    """``words``: (start, end, phonemes) of each spoken word of the read, in the file's seconds."""

    seed: int
    read: str  # the WAV (an absolute path in memory, relative to the project file in it)
    sha256: str
    text: str  # the line's text the read was aligned to
    words: tuple[tuple[float, float, int], ...]
    timing: int = 100
    intonation: int = 100

    @property
    def what(self) -> str:
        """What the take follows of the read, for a person ("timing and intonation, 80 %")."""
        parts = [f"timing {self.timing} %" if self.timing else "", f"intonation {self.intonation} %"
                 if self.intonation else ""]
        return ", ".join(p for p in parts if p) or "nothing of it"
