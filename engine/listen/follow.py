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

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Protocol

import numpy as np

from engine.listen.recognizer import Recognizer, Word
from engine.listen.words import spoken_words

END_WORDS = 2  # the line is complete once one of its last this-many words was heard...
MIN_COVERAGE = 0.5  # ...and at least this share of its words
STEM_LETTERS = 4  # a loose match: words alike in their first letters ("waiting" / "waited")


@dataclass(frozen=True)
class Judging:
    """How the reader's words are matched to the line. ``end_words`` and
    ``min_coverage``: when the line counts as complete (one of its last
    ``end_words`` heard, and that share of its words); ``stems``: a word
    matches one alike in its first :data:`STEM_LETTERS` letters ("waited"
    for "waiting"), not only itself."""

    end_words: int = END_WORDS
    min_coverage: float = MIN_COVERAGE
    stems: bool = False

    def key(self, word: str) -> str:
        return word[:STEM_LETTERS] if self.stems and len(word) > STEM_LETTERS else word


NORMAL_JUDGING = Judging()


@dataclass(frozen=True)
class Progress:
    heard: int  # the line's words matched so far
    total: int  # the line's words the recognizer can hear
    complete: bool  # the reader has reached the end of the line
    next_words: tuple[str, ...]  # the words after the furthest one heard (a prompt)
    expected: tuple[str, ...] = ()  # the line's words the recognizer can hear, in order
    matched: tuple[int, ...] = ()  # indices into ``expected`` of those heard
    said: tuple[str, ...] = ()  # what the recognizer heard
    extra_words: tuple[str, ...] = ()  # heard, not the line's (in the order heard)

    @property
    def missed_words(self) -> tuple[str, ...]:
        got = set(self.matched)
        return tuple(w for i, w in enumerate(self.expected) if i not in got)

    @property
    def coverage(self) -> float:
        return self.heard / self.total if self.total else 1.0


class LineFollower(Protocol):
    def feed(self, audio: np.ndarray) -> None:
        """Mono float32 sound at 16 kHz, as it arrives."""
        ...

    def progress(self) -> Progress: ...

    def close(self) -> Progress | None:
        """End the utterance; the progress on a final hearing of it, if there is one."""
        ...


def _blocks(expected: list[str], heard: list[str], judging: Judging) -> list[tuple[int, int, int]]:
    matcher = SequenceMatcher(None, [judging.key(w) for w in expected], [judging.key(w) for w in heard],
                              autojunk=False)
    return [(b.a, b.b, b.size) for b in matcher.get_matching_blocks()]


def align(expected: list[str], heard: list[str], judging: Judging = NORMAL_JUDGING) -> list[int]:
    """Indices into ``expected`` of the words ``heard`` matched, in order."""
    return [a + k for a, _b, size in _blocks(expected, heard, judging) for k in range(size)]


def heard_indices(expected: list[str], heard: list[str], judging: Judging = NORMAL_JUDGING) -> list[int]:
    """Indices into ``heard`` of the words that matched ``expected`` (the other side of :func:`align`)."""
    return [b + k for _a, b, size in _blocks(expected, heard, judging) for k in range(size)]


def progress_of(words: list[str], known: list[int], heard: list[str], judging: Judging = NORMAL_JUDGING) -> Progress:
    """Progress through ``words`` (the line as spoken) of which ``known``
    (indices) the recognizer can hear, given the hypothesis ``heard``."""
    expected = [words[i] for i in known]
    matched = align(expected, heard, judging)
    total = len(expected)
    furthest = max(matched, default=-1)
    complete = total == 0 or (furthest >= total - judging.end_words
                              and len(matched) >= max(1.0, judging.min_coverage * total))
    resume = known[furthest] + 1 if furthest >= 0 else 0
    used = set(heard_indices(expected, heard, judging))
    return Progress(len(matched), total, complete, tuple(words[resume:resume + 4]), tuple(expected),
                    tuple(matched), tuple(heard), tuple(w for i, w in enumerate(heard) if i not in used))


class Hearing(Protocol):
    """The recognizer a follower listens through: a started utterance."""

    def feed(self, audio: np.ndarray) -> None: ...

    def hypothesis(self) -> list[str]: ...

    def finish(self) -> list[Word]: ...


# (expected texts, context texts) -> a started recognizer
Recognize = Callable[[list[str], list[str]], Hearing]


def recognize_here(expected: list[str], context: list[str]) -> Hearing:
    """A recognizer in this process (engine/listen/listening_process.py has one in another)."""
    recognizer = Recognizer(expected, context)
    recognizer.start()
    return recognizer


class RecognizerFollower:
    """Aligns the recognizer's running hypothesis to the line's words."""

    def __init__(self, text: str, context: Iterable[str] = (), judging: Judging = NORMAL_JUDGING,
                 recognize: Recognize = recognize_here) -> None:
        self.judging = judging
        self.words = spoken_words(text)
        hearable = set(Recognizer.known(self.words))
        self.known = [i for i, w in enumerate(self.words) if w in hearable]
        self.recognizer = recognize([text], list(context)) if self.known else None

    def feed(self, audio: np.ndarray) -> None:
        if self.recognizer is not None:
            self.recognizer.feed(audio)

    def progress(self) -> Progress:
        heard = self.recognizer.hypothesis() if self.recognizer is not None else []
        return progress_of(self.words, self.known, heard, self.judging)

    def close(self) -> Progress | None:
        """End the utterance: the progress on the recognizer's final pass over it (a
        better hearing than the running hypothesis), or None without a recognizer."""
        if self.recognizer is None:
            return None
        heard = [w.text for w in self.recognizer.finish()]
        self.recognizer = None
        return progress_of(self.words, self.known, heard, self.judging)
