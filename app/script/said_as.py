"""What a line is said as, for the text column's tooltip: the spoken form the voice is
given (engine.synth.frontend.spoken_form: the lexicon, then engine.text's normalizer),
shown only where it differs from the words as written ("£20" -> "twenty pounds").

Pure text work, well under a millisecond a line: it runs on hover in the GUI thread
and never touches the engine or a voice. The voice's language comes from its name, as
its engine's row says (engine/project/engines.py: a Piper id begins with it,
``en_GB-alan-medium``; a Kokoro style's first letter).
"""

from __future__ import annotations

from engine.project.direction import spoken_text
from engine.project.engines import engine_named
from engine.project.model import Line, Project
from engine.project.takes import voice_of
from engine.synth.frontend import clean, spoken_form


def voice_language(project: Project, line: Line) -> str:
    try:
        voice = voice_of(project, line)
    except KeyError:
        return "en-us"
    return engine_named(voice.backend).language(voice.voice) or "en-us"


def said_as(project: Project, line: Line) -> str | None:
    """``"Said as: ..."`` when the voice says the line differently from how it is written."""
    written = spoken_text(line.text)
    if not written.strip():
        return None
    said = spoken_form(written, project.lexicon_for(line.role), voice_language(project, line))
    if said == clean(written) or not said:
        return None
    return f"Said as: {said}"
