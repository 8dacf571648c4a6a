"""What a line is said as, for the text column's tooltip: the spoken form the voice is
given (engine.synth.frontend.spoken_form: the lexicon, then engine.text's normalizer),
shown only where it differs from the words as written ("£20" -> "twenty pounds").

Pure text work, well under a millisecond a line: it runs on hover in the GUI thread
and never touches the engine or a voice. The voice's language comes from its name
(a Piper id begins with it: ``en_GB-alan-medium``; a Kokoro style's first letter).
"""

from __future__ import annotations

import re

from engine.project.direction import spoken_text
from engine.project.model import Line, Project
from engine.project.takes import voice_of
from engine.synth.frontend import clean, spoken_form
from engine.synth.kokoro_phonemes import language_of

_PIPER_LANGUAGE = re.compile(r"^([a-z]{2,3})[_-]([A-Za-z]{2})\b")


def voice_language(project: Project, line: Line) -> str:
    try:
        voice = voice_of(project, line)
    except KeyError:
        return "en-us"
    if voice.backend == "kokoro":
        return language_of(voice.voice)
    m = _PIPER_LANGUAGE.match(voice.voice.rsplit("/", 1)[-1])
    return f"{m.group(1)}-{m.group(2).lower()}" if m else "en-us"


def said_as(project: Project, line: Line) -> str | None:
    """``"Said as: ..."`` when the voice says the line differently from how it is written."""
    written = spoken_text(line.text)
    if not written.strip():
        return None
    said = spoken_form(written, project.lexicon_for(line.role), voice_language(project, line))
    if said == clean(written) or not said:
        return None
    return f"Said as: {said}"
