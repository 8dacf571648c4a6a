"""The play outlook of a Session's lines: what ``playback_outlook`` (engine/sched/cost.py) is
asked about the lines as the studio sees them (Session.outlook)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from engine.project.defaults import DEFAULT_BACKEND
from engine.project.direction import spoken_text
from engine.project.model import Project
from engine.sched.cost import CostModel, Outlook, PendingLine, playback_outlook
from engine.session.views import ClipView, LineState, LineStatus

_SENTENCE = re.compile(r"[.!?\u2026](?=\s|$)")


def first_sentence_share(text: str) -> float:
    """How much of a line its first sentence is (by its spoken characters): what a listener
    waiting for the line hears first (engine/sched/streaming.py)."""
    spoken = spoken_text(text).strip()
    cut = _SENTENCE.search(spoken)
    return (cut.end() / len(spoken)) if cut is not None and spoken else 1.0


def session_outlook(project: Project, clips: Sequence[ClipView], status: Mapping[str, LineStatus], cost: CostModel,
                    workers: int, from_s: float) -> Outlook:
    """The outlook from ``from_s`` of the lines as laid out (``clips``) in their states. A
    line whose voice is not installed is no work for the workers: it is left out (the
    studio says how to get it); a blank line has nothing to voice; a failed one nothing
    that will come."""
    backend = {r.name: r.voice.backend for r in project.cast}
    texts = {line.id: line.text for line in project.lines}
    lines = []
    for c in clips:
        known = status.get(c.line_id)
        state = known.state if known is not None else LineState.MISSING
        lines.append(PendingLine(c.start, c.end - c.start, backend.get(c.role, DEFAULT_BACKEND),
                                 not c.estimated or state is LineState.EMPTY, not state.unvoiceable,
                                 (c.end - c.start) * first_sentence_share(texts.get(c.line_id, ""))))
    return playback_outlook(lines, cost, workers, from_s)
