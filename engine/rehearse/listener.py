"""Listening to the reader through one line: when have they finished it?

Voice activity says when the reader speaks and pauses; the line follower
says how far through the line they are. A pause after the line's last words
is the end (:data:`END_SILENCE_S`: the reply starts at once); a long pause
with most of the line said is a paraphrased ending; a pause mid-line is a
breath, and if it lasts, a reader who lost their place, who is prompted with
the next words. Everything here runs on the table read's thread; the
recording of the line (for ``--record``) is kept as it arrives.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from engine.listen.follow import LineFollower, Progress, Recognize, RecognizerFollower, recognize_here
from engine.listen.recognizer import RecognizerUnavailable
from engine.listen.vad import SpeechTracker, VoiceDetector
from engine.rehearse.reader import Chunk
from engine.rehearse.strictness import NORMAL, Strictness

END_SILENCE_S = 0.18  # silence after the line's last words that ends it
LOOSE_END_SILENCE_S = 0.8  # ...after most of it (a paraphrased ending: the strictness says how much)
PROMPT_AFTER_S = 1.5  # a pause mid-line this long: show the next words
GIVE_UP_S = 8.0  # silence after speech this long: move on, the line is missed
NO_SPEECH_S = 20.0  # nothing said at all this long: move on, missed


class Outcome(enum.Enum):
    RECOGNIZED = "recognized"  # the reader reached the end of the line
    MANUAL = "manual"  # the advance key
    MISSED = "missed"  # given up: nothing heard, or the end never recognized


@dataclass
class Heard:
    """What one live line sounded like, and how it ended."""

    line_id: str
    outcome: Outcome | None = None
    speech_start: float | None = None  # monotonic
    speech_end: float | None = None  # monotonic: the end of the last voiced frame
    decided_at: float | None = None
    progress: Progress | None = None
    prompts: list[tuple[str, ...]] = field(default_factory=list)
    audio: list[np.ndarray] = field(default_factory=list)  # at the project rate, from the cue
    audio_start: float | None = None  # monotonic time of the first recorded sample
    resumed_after_reply: bool = False  # speech heard again after the reply began (a false start)
    final: Progress | None = None  # the recognizer's final hearing of the line (when it is closed)


def _follower(text: str, context: Iterable[str], strictness: Strictness, manual: bool,
              recognize: Recognize) -> LineFollower | None:
    """A manual read still listens where it can (the accuracy report); only its end is the key's."""
    try:
        return RecognizerFollower(text, context, strictness.judging, recognize)
    except RecognizerUnavailable:
        if manual:
            return None
        raise


class LineListener:
    def __init__(self, line_id: str, text: str, rate: int, detector: VoiceDetector, *, manual: bool = False,
                 context: Iterable[str] = (), follower: LineFollower | None = None,
                 strictness: Strictness = NORMAL, recognize: Recognize = recognize_here) -> None:
        detector.reset()
        self.rate = rate
        self.manual = manual
        self.strictness = strictness
        self.tracker = SpeechTracker(detector, rate)
        self.follower = follower if follower is not None else _follower(text, context, strictness, manual, recognize)
        self.heard = Heard(line_id)
        self._prompted_at: float | None = None  # the last_voice time the prompt was shown for
        self._fed_s = 0.0
        self._replied_at: float | None = None

    def take(self, chunk: Chunk) -> tuple[str, ...] | None:
        """Feed one chunk. Decides the line when it can (``heard.outcome`` set);
        returns the next words when the reader should be prompted."""
        heard = self.heard
        if heard.audio_start is None:
            heard.audio_start = chunk.at - chunk.audio.size / self.rate
        if heard.outcome is None:
            heard.audio.append(chunk.audio)
        at16 = self.tracker.feed(chunk.audio)
        if self.follower is not None and heard.outcome is None:
            self.follower.feed(at16)
        state = self.tracker.state
        stream_to_wall = chunk.at - state.now_s
        if state.started_s is not None and heard.speech_start is None:
            heard.speech_start = state.started_s + stream_to_wall
        if state.last_voice_s is not None:
            voice_end = state.last_voice_s + stream_to_wall
            if heard.outcome is not None:
                if self._replied_at is not None and state.speaking and voice_end > self._replied_at + 0.1:
                    heard.resumed_after_reply = True
                return None
            heard.speech_end = voice_end
        if heard.outcome is not None:
            return None
        silence = state.silence_s
        if state.started_s is None:
            if state.now_s >= NO_SPEECH_S:
                self._decide(Outcome.MISSED, chunk.at)
            return None
        if self.manual or self.follower is None or silence < END_SILENCE_S:
            return None
        progress = self.follower.progress()
        heard.progress = progress
        paraphrase = self.strictness.paraphrase_coverage
        if progress.complete or (silence >= LOOSE_END_SILENCE_S and paraphrase is not None
                                 and progress.coverage >= paraphrase):
            self._decide(Outcome.RECOGNIZED, chunk.at)
        elif silence >= GIVE_UP_S:
            self._decide(Outcome.MISSED, chunk.at)
        elif silence >= PROMPT_AFTER_S and self._prompted_at != state.last_voice_s:
            self._prompted_at = state.last_voice_s
            heard.prompts.append(progress.next_words)
            return progress.next_words
        return None

    def advance(self, at: float) -> None:
        """The advance key: the line is over whatever was heard."""
        if self.heard.outcome is None:
            self._decide(Outcome.MANUAL, at)

    def replied(self, at: float) -> None:
        """The reply's first sound was heard at ``at``: from now, speech is a false start."""
        self._replied_at = at

    def _decide(self, outcome: Outcome, at: float) -> None:
        self.heard.outcome = outcome
        self.heard.decided_at = at
        if self.follower is not None:
            self.heard.progress = self.follower.progress()

    def close(self) -> None:
        """Free the recognizer: after the reply has started (its final pass over
        the utterance takes a few hundred milliseconds: never before a reply)."""
        if self.follower is not None:
            self.heard.final = self.follower.close()
            self.follower = None
