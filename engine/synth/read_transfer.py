"""A take directed by a read: the role's voice with the read's timing, intonation and loudness.

A producer reads a line the way it should go (engine/direct/). The take is the
line voiced plainly in the role's voice, then moved onto the read, word by word,
in one overlap-add resynthesis (Praat's PSOLA, as the voice designs are made:
engine/synth/psola.py):

- timing: a duration tier stretches each word and each gap of the plain clip
  to the read's (a pause the plain clip has no room for is silence laid in first,
  so no consonant is smeared across it);
- intonation: a pitch tier made from the read's F0, in semitones relative to the
  read's median and range, placed on the plain clip's median and range (the role's
  register, not the reader's);
- loudness: the read's intensity envelope relative to its own level, smoothed,
  applied as a gain over the take's own envelope
(both in engine/synth/read_contours.py).

Each is blended with the plain clip by the take's strengths (timing; intonation,
which carries the loudness too). Only an F0 track, word times and a smoothed
envelope come from the read, never its spectrum, so nothing of the reader's
timbre reaches the take (measured: docs/dev/direct-by-voice.md). The role's
design and the line's staging follow as for any take.

The read travels in the plan as samples (a farm's worker has no project folder),
with the words it was aligned to when the take was made: the take reproduces
from the project and the read's file.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.audio.sound_file import AudioFileError, read_audio
from engine.fsutil import read_regular_bytes
from engine.project.design import VoiceDesign
from engine.project.model import Line
from engine.project.takes import read_take_of
from engine.synth.errors import TextError
from engine.synth.psola import PITCH_CEILING_HZ, PITCH_FLOOR_HZ, TIME_STEP_S, resynthesize, tier_points
from engine.synth.read_contours import follow_loudness, follow_pitch
from engine.synth.word_pairs import align
from engine.synth.wordtimes import ClipWords, UnitWords, clip_words

# What a directed take is made by, in its clip key: a change to the samples made here changes it.
TRANSFER_METHOD = "read-transfer-1"
MAX_READ_S = 120.0  # one line's read
MAX_READ_BYTES = 64 << 20
# How far a word or a gap may be stretched or squeezed by overlap-add before it stops
# sounding like speech; a read asking for more gets as much as this allows.
WORD_STRETCH = (0.75, 3.0)
GAP_STRETCH = (0.05, 3.0)
# A gap the read holds this much longer than the plain clip is laid in as silence rather
# than stretched: the plain clip's gap holds the model's breath and noise, which stretched
# reads as the start of the next word (to a listener and to the aligner alike).
INSERT_MIN_S = 0.06
# A silence between two words longer than this in the read (or, longer still, in the plain
# clip: a sentence's end) is a pause: the words either side of it are anchored at their
# edges; elsewhere only onsets are, which the aligner finds far better than ends.
READ_PAUSE_S = 0.15
PLAIN_PAUSE_S = 0.2
# Inside a word, how much of its stretch its unvoiced sounds take (as the exponent of the
# word's factor): a person slowing down holds vowels, not plosives (docs/dev/direct-by-voice.md).
UNVOICED_SHARE = 0.3
_FADE_S = 0.008  # the crossfade either side of laid-in silence


class ReadError(TextError):
    """A directed take's read cannot be used (missing, changed, unreadable); the message names the file."""


@dataclass(frozen=True, eq=False)
class ReadDirection:
    """What a directed take is made from: the read (mono samples at ``rate``), its words as
    aligned when the take was made ((start, end, phonemes) in read seconds), and how much
    of its timing and intonation the take follows (0..1)."""

    audio: np.ndarray = field(repr=False)
    rate: int
    words: tuple[tuple[float, float, int], ...]
    timing: float
    intonation: float
    digest: str

    def key(self) -> list[object]:
        """What of the direction changes the take's samples (part of the clip key)."""
        return [TRANSFER_METHOD, self.digest, [[round(a, 4), round(b, 4), n] for a, b, n in self.words],
                round(self.timing, 4), round(self.intonation, 4)]


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


_reads: dict[tuple[str, int, int], tuple[str, np.ndarray, int]] = {}  # (path, size, mtime) -> digest, audio, rate
_reads_lock = threading.Lock()
_MAX_KEPT = 64


def load_read(path: str, digest: str, words: Sequence[tuple[float, float, int]], timing: float,
              intonation: float) -> ReadDirection:
    """The read at ``path`` as a direction, checked against the digest the take was made
    with. Raises ReadError naming the file (missing, unreadable, or changed since)."""
    try:
        st = Path(path).stat()
        memo = (path, st.st_size, st.st_mtime_ns)
    except OSError as exc:
        raise ReadError(f"the read {path} of its directed take: {exc.strerror or exc}") from None
    with _reads_lock:
        kept = _reads.get(memo)
    if kept is None:
        try:
            found = file_digest(read_regular_bytes(path, MAX_READ_BYTES))
            audio, rate = read_audio(path, MAX_READ_S)
        except AudioFileError as exc:
            raise ReadError(f"the read {exc.path} of its directed take: {exc.problem}") from None
        except (OSError, ValueError) as exc:
            raise ReadError(f"the read {path} of its directed take: {exc}") from None
        kept = (found, np.ascontiguousarray(audio.mean(axis=1), dtype=np.float32), int(rate))
        with _reads_lock:
            _reads[memo] = kept
            while len(_reads) > _MAX_KEPT:
                _reads.pop(next(iter(_reads)))
    found, samples, rate = kept
    if found != digest:
        raise ReadError(f"the read {path} is not the one its directed take was made from (the file changed "
                        "since); direct the line again")
    return ReadDirection(samples, rate, tuple((float(a), float(b), int(n)) for a, b, n in words),
                         min(1.0, max(0.0, timing)), min(1.0, max(0.0, intonation)), digest)


def direction_for(line: Line, seed: int) -> ReadDirection | None:
    """The read take ``seed`` of ``line`` is directed by, or None for a plain take. Raises
    ReadError when the read cannot be used or the line's words changed since."""
    take = read_take_of(line, seed)
    if take is None:
        return None
    if take.text != line.text:
        raise ReadError("its words changed since this take was directed by a read; direct it again (Direct by "
                        "Voice) or choose another take")
    return load_read(take.read, take.sha256, take.words, take.timing / 100.0, take.intonation / 100.0)


@dataclass(frozen=True)
class _Anchors:
    """Word boundaries matched in the plain clip and the read, with the clip's edges:
    ``plain`` (seconds of the plain clip, increasing), ``read`` (read seconds), ``target``
    (seconds of the take, as asked), ``gap`` (per segment: between two words' sounds)."""

    plain: np.ndarray
    read: np.ndarray
    target: np.ndarray
    gap: np.ndarray


def _anchors(plain_words: ClipWords, length_s: float, direction: ReadDirection, design_rate: float) -> _Anchors:
    """Each word's onset, matched in the plain clip and the read; a word's end as well where
    a pause follows it on either side (so the pause can be held or closed) and at the last."""
    spoken, said = plain_words.words, direction.words
    groups = [(r0, r1, p0, p1) for r0, r1, p0, p1 in
              align([float(max(n, 1)) for _, _, n in said], [max(n, 1) for _, _, n in spoken])
              if r1 > r0 and p1 > p0]  # a word on one side only sets no anchor: its neighbours' do
    if not groups:
        return _Anchors(np.array([0.0, length_s]), np.array([0.0, length_s]),
                        np.array([0.0, length_s / design_rate]), np.array([False]))
    plain: list[float] = []
    read: list[float] = []
    kinds: list[str] = []
    for k, (r0, r1, p0, p1) in enumerate(groups):
        # Between two words said together a model's durations leave the word gap's token
        # (Piper's and Kokoro's space) to neither: the words meet in its middle.
        before = spoken[p0 - 1][1] if p0 > 0 else None
        joined = before is not None and spoken[p0][0] - before <= PLAIN_PAUSE_S
        plain.append((before + spoken[p0][0]) / 2 if joined and before is not None else spoken[p0][0])
        read.append(said[r0][0])
        kinds.append("start")
        last = k == len(groups) - 1
        if last or said[groups[k + 1][0]][0] - said[r1 - 1][1] > READ_PAUSE_S or \
                spoken[groups[k + 1][2]][0] - spoken[p1 - 1][1] > PLAIN_PAUSE_S:
            plain.append(spoken[p1 - 1][1])
            read.append(said[r1 - 1][1])
            kinds.append("end")
    p = np.asarray(plain)
    r = np.asarray(read)
    s = direction.timing
    # The take starts its first word where the plain clip does (a read's lead-in is the
    # reader's, not the line's); from there it follows the read as far as ``timing`` asks.
    t = (1.0 - s) * p / design_rate + s * (r - r[0] + p[0] / design_rate)
    kinds = ["edge", *kinds, "edge"]
    r = np.concatenate([[r[0] - p[0]], r, [r[-1] + length_s - p[-1]]])
    t = np.concatenate([[0.0], t, [t[-1] + (length_s - p[-1]) / design_rate]])
    p = np.concatenate([[0.0], p, [length_s]])
    # Anchors closer than 5 ms in the plain clip (a word the model said in no time) are one.
    keep = [0]
    for k in range(1, p.size - 1):
        if p[k] > p[keep[-1]] + 0.005 and p[k] < length_s - 0.005:
            keep.append(k)
    keep.append(p.size - 1)
    idx = np.asarray(keep)
    gap = np.array([kinds[a] == "end" and kinds[b] == "start" for a, b in zip(keep, keep[1:], strict=False)])
    return _Anchors(p[idx], r[idx], np.maximum.accumulate(t[idx]), gap)


def _lay_in_silence(audio: np.ndarray, rate: int, anchors: _Anchors) -> tuple[np.ndarray, np.ndarray]:
    """Silence laid into the gaps the read holds far longer than the plain clip: the audio
    and its anchors' plain times after it."""
    plain = anchors.plain
    laid = plain.copy()
    source = np.array(audio, dtype=np.float32)  # faded where silence is laid in
    cuts: list[tuple[int, int]] = []  # (sample, silence samples)
    fade = int(_FADE_S * rate)
    shift = 0.0
    for k in range(plain.size - 1):
        laid[k] = plain[k] + shift
        have = plain[k + 1] - plain[k]
        want = anchors.target[k + 1] - anchors.target[k]
        if not anchors.gap[k] or want - have < INSERT_MIN_S:
            continue
        at = _quietest(source, rate, plain[k], plain[k + 1])
        silence = int(round((want - have) * rate))
        n = min(fade, at)
        source[at - n:at] *= np.linspace(1.0, 0.0, n, dtype=np.float32)
        n = min(fade, source.size - at)
        source[at:at + n] *= np.linspace(0.0, 1.0, n, dtype=np.float32)
        cuts.append((at, silence))
        shift += silence / rate
    laid[-1] = plain[-1] + shift
    if not cuts:
        return source, laid
    pieces: list[np.ndarray] = []
    pos = 0
    for at, silence in cuts:
        pieces += [source[pos:at], np.zeros(silence, dtype=np.float32)]
        pos = at
    pieces.append(source[pos:])
    return np.concatenate(pieces), laid


def _quietest(audio: np.ndarray, rate: int, start_s: float, end_s: float) -> int:
    """The sample at the quietest 10 ms of [start_s, end_s] (its middle, if shorter)."""
    lo, hi = int(start_s * rate), int(end_s * rate)
    step = max(1, rate // 100)
    if hi - lo < 2 * step:
        return min(audio.size, max(0, (lo + hi) // 2))
    frames = (hi - lo) // step
    power = np.square(audio[lo:lo + frames * step].reshape(frames, step), dtype=np.float64).mean(axis=1)
    return lo + int(np.argmin(power)) * step + step // 2


def _durations(plain: np.ndarray, target: np.ndarray, gap: np.ndarray) -> np.ndarray:
    """Each segment's stretch factor, inside what overlap-add does well. Each aims at its
    anchor's time in the take, so what one segment could not give (a word the read said
    faster than the voice can go) the next makes up, the pause after it first."""
    have = np.maximum(np.diff(plain), 1e-6)
    factors = np.ones(have.size)
    at = 0.0
    for k in range(have.size):
        lo, hi = GAP_STRETCH if gap[k] else WORD_STRETCH
        factors[k] = min(hi, max(lo, (target[k + 1] - at) / have[k]))
        at += have[k] * factors[k]
    return factors


def _duration_points(laid: np.ndarray, factors: np.ndarray, gap: np.ndarray,
                     voiced: np.ndarray) -> list[tuple[float, float]]:
    """The duration tier's points: each segment at its factor, a word's stretch held mostly
    by its voiced stretches (``voiced``: the times of the clip's pitch points)."""
    points: list[tuple[float, float]] = []
    for k, factor in enumerate(factors):
        a, b = float(laid[k]), float(laid[k + 1])
        runs = [(a, b, float(factor))]
        if not gap[k] and b - a > 0.03 and abs(factor - 1.0) > 0.02:
            runs = _voicing_runs(a, b, float(factor), voiced)
        for lo, hi, f in runs:
            if hi - lo > 0.004:
                points += [(lo + 0.001, f), (hi - 0.001, f)]
            else:
                points.append(((lo + hi) / 2, f))
    return points


def _voicing_runs(a: float, b: float, factor: float, voiced: np.ndarray) -> list[tuple[float, float, float]]:
    """[a, b] cut into voiced and unvoiced runs (10 ms frames), the unvoiced at
    ``factor ** UNVOICED_SHARE`` and the voiced at what keeps the segment's length."""
    edges = np.arange(a, b, TIME_STEP_S)
    centres = np.minimum(edges + TIME_STEP_S / 2, b)
    where = np.searchsorted(voiced, centres)
    near = np.full(centres.size, np.inf)
    if voiced.size:
        near = np.minimum(np.abs(voiced[np.clip(where, 0, voiced.size - 1)] - centres),
                          np.abs(voiced[np.clip(where - 1, 0, voiced.size - 1)] - centres))
    is_voiced = near <= TIME_STEP_S
    lengths = np.diff(np.append(edges, b))
    v, u = float(lengths[is_voiced].sum()), float(lengths[~is_voiced].sum())
    if v < 0.02 or u < 0.005:
        return [(a, b, factor)]
    fu = factor ** UNVOICED_SHARE
    fv = float(np.clip((factor * (u + v) - fu * u) / v, *WORD_STRETCH))
    fu = (factor * (u + v) - fv * v) / u  # what the voiced cannot take, the rest does
    runs: list[tuple[float, float, float]] = []
    start = 0
    for k in range(1, centres.size + 1):
        if k == centres.size or is_voiced[k] != is_voiced[start]:
            hi = b if k == centres.size else float(edges[k])
            runs.append((float(edges[start]), hi, fv if is_voiced[start] else max(0.05, fu)))
            start = k
    return runs


def perform(plain: np.ndarray, rate: int, plain_words: ClipWords, direction: ReadDirection,
            design_rate: float = 1.0) -> tuple[np.ndarray, ClipWords]:
    """The plain clip (mono float at ``rate``, before any design) moved onto the read,
    and where its words lie now. ``design_rate``: the role's design's rate, which the
    take's timing then includes (the design is applied after this at rate 1)."""
    import parselmouth
    from parselmouth.praat import call

    audio = np.ascontiguousarray(plain, dtype=np.float32)
    length_s = audio.size / rate
    if not plain_words.words or length_s < 3.0 / PITCH_FLOOR_HZ + 0.01:
        return audio, plain_words
    anchors = _anchors(plain_words, length_s, direction, design_rate)
    audio, laid = _lay_in_silence(audio, rate, anchors)
    factors = _durations(laid, anchors.target, anchors.gap)
    actual = np.concatenate([[0.0], np.cumsum(np.diff(laid) * factors)])
    sound = parselmouth.Sound(audio.astype(np.float64), sampling_frequency=rate)
    manipulation = call(sound, "To Manipulation", TIME_STEP_S, PITCH_FLOOR_HZ, PITCH_CEILING_HZ)
    if not np.allclose(factors, 1.0, atol=1e-4):
        voiced = tier_points(call(manipulation, "Extract pitch tier"))[:, 0]
        tier = call("Create DurationTier", "read", sound.xmin, sound.xmax)
        for t, factor in _duration_points(laid, factors, anchors.gap, voiced):
            call(tier, "Add point", t, factor)
        call([manipulation, tier], "Replace duration tier")
    if direction.intonation > 0:
        follow_pitch(manipulation, laid, anchors.read, direction.audio, direction.rate, direction.intonation,
                     sound.xmin, sound.xmax)
    out = np.asarray(resynthesize(manipulation), dtype=np.float32)
    if direction.intonation > 0:
        out = follow_loudness(out, rate, actual, anchors.read, direction.audio, direction.rate,
                              direction.intonation)
    # The plain clip's words, through the same mapping (anchors at word edges: the words move with them).
    words = tuple((round(float(np.interp(a, anchors.plain, actual)), 4),
                   round(float(np.interp(b, anchors.plain, actual)), 4), n) for a, b, n in plain_words.words)
    return out, ClipWords(words, plain_words.estimated)


def directed_clip(pieces: list[np.ndarray], pauses: list[float], words: Sequence[UnitWords] | None,
                  bounds: Sequence[tuple[int, int]], rate: int, design: VoiceDesign,
                  direction: ReadDirection) -> tuple[np.ndarray, ClipWords]:
    """A directed take from its trimmed model audio (ClipSynthesizer.finish): joined
    plainly, moved onto the read, then through the role's design (its rate is in the
    timing already), levelled and gained as every take is."""
    from engine.synth import shaping

    if words is None:
        raise ReadError("the voice gave no word timings to move onto the read")
    plain = shaping.join(pieces, pauses, rate)
    audio, timed = perform(plain, rate, clip_words(words, bounds, pauses, rate), direction, design.rate)
    return shaping.shape_voice(audio, rate, design.with_changes(rate=1.0)), timed
