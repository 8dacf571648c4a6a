"""Following a reader through a line: how far have they got?

The table read asks this at every pause in the reader's speech: a pause
after the line's last words is the end of the line (reply at once); a pause
in the middle is a breath, or a reader who lost their place (wait, and
prompt them with the next words). :class:`LineFollower` is the small
interface; :class:`RecognizerFollower` answers it by aligning what the
recognizer heard to the line's words, in order, skipping what does not
match, so a paraphrase or a misheard word costs coverage, not the place.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Protocol

import numpy as np

from engine.listen.recognizer import Recognizer
from engine.listen.words import spoken_words

END_WORDS = 2  # the line is complete once one of its last this-many words was heard...
MIN_COVERAGE = 0.5  # ...and at least this share of its words


@dataclass(frozen=True)
class Progress:
    heard: int  # the line's words matched so far
    total: int  # the line's words the recognizer can hear
    complete: bool  # the reader has reached the end of the line
    next_words: tuple[str, ...]  # the words after the furthest one heard (a prompt)

    @property
    def coverage(self) -> float:
        return self.heard / self.total if self.total else 1.0


class LineFollower(Protocol):
    def feed(self, audio: np.ndarray) -> None:
        """Mono float32 sound at 16 kHz, as it arrives."""
        ...

    def progress(self) -> Progress: ...

    def close(self) -> None: ...


def align(expected: list[str], heard: list[str]) -> list[int]:
    """Indices into ``expected`` of the words ``heard`` matched, in order."""
    matcher = SequenceMatcher(None, expected, heard, autojunk=False)
    return [block.a + k for block in matcher.get_matching_blocks() for k in range(block.size)]


def progress_of(words: list[str], known: list[int], heard: list[str]) -> Progress:
    """Progress through ``words`` (the line as spoken) of which ``known``
    (indices) the recognizer can hear, given the hypothesis ``heard``."""
    expected = [words[i] for i in known]
    matched = align(expected, heard)
    total = len(expected)
    furthest = max(matched, default=-1)
    complete = total == 0 or (furthest >= total - END_WORDS and len(matched) >= max(1.0, MIN_COVERAGE * total))
    resume = known[furthest] + 1 if furthest >= 0 else 0
    return Progress(len(matched), total, complete, tuple(words[resume:resume + 4]))


class RecognizerFollower:
    """Aligns the recognizer's running hypothesis to the line's words."""

    def __init__(self, text: str, context: Iterable[str] = ()) -> None:
        self.words = spoken_words(text)
        hearable = set(Recognizer.known(self.words))
        self.known = [i for i, w in enumerate(self.words) if w in hearable]
        self.recognizer = Recognizer([text], context) if self.known else None
        if self.recognizer is not None:
            self.recognizer.start()

    def feed(self, audio: np.ndarray) -> None:
        if self.recognizer is not None:
            self.recognizer.feed(audio)

    def progress(self) -> Progress:
        heard = self.recognizer.hypothesis() if self.recognizer is not None else []
        return progress_of(self.words, self.known, heard)

    def close(self) -> None:
        if self.recognizer is not None:
            self.recognizer.finish()
