"""A line's live take (engine/synth/live_parts.py): shaped sentence by sentence as it is voiced,
it is the whole clip's sound at the first sentence's level, and each part extends the last.

Issue 54: a listener waiting for a line hears its first sentence while the rest is voiced;
the seams must not be heard. The sentences are the runs the whole line is voiced from, so
apart from the gain (the first sentence's loudness, the whole line's being unknown until
its end) the live take is the whole clip, sample for sample, wherever a seam falls.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.audio.loudness import CLIP_LUFS, LoudnessMeter
from engine.project.design import VoiceDesign
from engine.project.model import VoiceParams
from engine.sched.streaming import part_ends
from engine.synth.backends.kokoro.backend import KokoroBackend
from engine.synth.backends.onnx_sessions import SessionLayout, wide_runs
from engine.synth.backends.piper.backend import PiperBackend
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.live_parts import LiveShaper
from engine.synth.synthesizer import ClipSynthesizer, RawAudio
from tests.support.voices.generate_test_kokoro import generate_kokoro

RATE = 48_000
TEXT = "The lights went out at three. Nobody moved in the dark studio. Then the radio spoke again."


def _voiced(synth: ClipSynthesizer, text: str, params: VoiceParams) -> tuple[np.ndarray, list[np.ndarray]]:
    """(the whole clip, the live take after each part) of one line, from the same runs, in the
    parts the unit runner hands (engine/sched/streaming.py ``part_ends``: a part a sentence,
    a phrase that performs a sound whole)."""
    plan = synth.plan(text, params)
    model = synth.voice(plan.voice)
    units = synth.phonemize(plan)
    runs = synth.infer_units(model, plan, units)
    assert len(runs) >= 2, "the line must have several sentences"
    raw = RawAudio(plan, [r.audio for r in runs], [u.pause_after for u in units], model.sample_rate,
                   words=[r.words for r in runs], phrase_of=[u.phrase for u in units])
    whole = np.array(synth.finish(raw))
    shaper = LiveShaper(plan, model.sample_rate, synth.sample_rate)
    parts: list[list[int]] = [[]]
    for k in range(len(runs)):
        parts[-1].append(k)
        if part_ends(plan, units, k) and k < len(runs) - 1:
            parts.append([])
    takes = [np.array(shaper.add([runs[k].audio for k in ks], [units[k].pause_after for k in ks],
                                 [units[k].phrase for k in ks] if plan.phrases else [], ks[-1] == len(runs) - 1))
             for ks in parts]
    return whole, takes


def _as_whole(live: np.ndarray, whole: np.ndarray) -> float:
    """The gain that makes the whole clip the live take, and how far they are apart then."""
    assert live.shape == whole.shape
    gain = float(np.dot(live, whole) / np.dot(whole, whole))
    return float(np.max(np.abs(live - gain * whole)) / np.max(np.abs(live)))


def _sounding(audio: np.ndarray) -> np.ndarray:
    """Which 10 ms frames sound (within 40 dB of the loudest)."""
    frames = audio[: audio.size // 480 * 480].reshape(-1, 480).astype(np.float64)
    power = np.mean(frames**2, axis=1)
    return power > power.max() * 1e-4


@pytest.fixture
def synth(tiny_voices, tmp_path) -> ClipSynthesizer:
    return ClipSynthesizer(VoiceLibrary(), RATE, ClipCache(tmp_path / "cache"))


def test_a_plain_line_s_live_take_is_its_whole_clip_at_its_first_sentence_s_level(synth, tiny_voices):
    whole, takes = _voiced(synth, TEXT, VoiceParams(voice=str(tiny_voices["single"])))
    live = takes[-1]
    assert _as_whole(live, whole) < 1e-4  # no seam: no pause lost or doubled, no fade inside, one gain
    # The first sentence (up to the first part's end) is levelled as a clip is.
    meter = LoudnessMeter(RATE, channels=1)
    meter.feed(takes[0][:, None])
    assert meter.integrated() == pytest.approx(CLIP_LUFS, abs=0.2)


def test_each_part_of_a_live_take_extends_the_one_before(synth, tiny_voices):
    _, takes = _voiced(synth, TEXT, VoiceParams(voice=str(tiny_voices["single"])))
    for before, after in zip(takes, takes[1:], strict=False):
        assert after.size > before.size
        np.testing.assert_array_equal(after[:before.size], before)  # what was heard never changes


def test_a_directed_line_s_live_take_is_its_whole_clip_too(synth, tiny_voices):
    """A directed line's sentences are designed one by one in the whole clip as well (its phrases'
    designs, each phrase's level offset after levelling): the live take is that clip."""
    text = "(quietly) The lights went out at three. (shouting) Nobody moved in the dark studio!"
    whole, takes = _voiced(synth, text, VoiceParams(voice=str(tiny_voices["single"])))
    assert _as_whole(takes[-1], whole) < 1e-4


def test_a_sighed_phrase_s_live_take_is_its_whole_clip_sigh_and_all(synth, tiny_voices):
    """A sigh is made from its phrase's words and laid before them: handed a phrase at a time,
    the live take has it where the whole clip has it, at the same level, and the phrase's
    breath, so the live take is still the clip."""
    text = "(sighing) The lights went out. Nobody moved at all. (shouting) Then the radio spoke again!"
    whole, takes = _voiced(synth, text, VoiceParams(voice=str(tiny_voices["single"])))
    plain = synth.synthesize("The lights went out. Nobody moved at all. Then the radio spoke again!",
                             VoiceParams(voice=str(tiny_voices["single"])))
    assert whole.size > plain.size + 0.5 * RATE  # the sigh is in the clip
    assert len(takes) == 2 and _as_whole(takes[-1], whole) < 1e-4


def test_a_designed_line_s_live_take_keeps_its_words_where_the_whole_clip_has_them(synth, tiny_voices):
    """A plain line's design runs over each part with the pause before it (as inside the whole
    line) around the first part's F0 median: the take is as long as the clip, its sentences
    where the clip's are."""
    whole, takes = _voiced(synth, TEXT, VoiceParams(voice=str(tiny_voices["single"]), pitch=3.0))
    live = takes[-1]
    assert live.shape == whole.shape
    assert np.mean(_sounding(live) == _sounding(whole)) > 0.97  # speech and pauses line up


def test_a_quiet_sentence_after_a_loud_one_is_designed_as_in_the_whole_line(synth, tiny_voices):
    """Each part of a designed line is designed after the sentences before it (cut off again), so
    the pitch analysis judges its voicing as inside the whole line, against the loudest sample
    so far (Praat's silence threshold): a sentence under 3 % of the one before it is left
    unvoiced there, and the live take must not shift its pitch where the whole clip does not
    (on the sample, sentences designed alone stepped by up to 2.6 dB at their seams)."""
    params = VoiceParams(voice=str(tiny_voices["single"]), design=VoiceDesign(f0_shift=13.0, f0_range=1.15, tilt=5.0))
    plan = synth.plan("A loud sentence. A quiet one after it.", params)
    rate = synth.voice(plan.voice).sample_rate
    t = np.arange(int(1.2 * rate)) / rate
    vowel = np.sin(2 * np.pi * 140 * t) + 0.5 * np.sin(2 * np.pi * 280 * t) + 0.25 * np.sin(2 * np.pi * 420 * t)
    vowel *= np.hanning(t.size) ** 0.2
    pieces = [np.asarray(0.8 * vowel, np.float32), np.asarray(0.02 * vowel, np.float32)]
    pauses = [0.3, 0.0]
    whole = np.array(synth.finish(RawAudio(plan, pieces, pauses, rate)))
    shaper = LiveShaper(plan, rate, synth.sample_rate)
    seam = np.array(shaper.add(pieces[:1], pauses[:1], [], False)).size
    live = np.array(shaper.add(pieces[1:], pauses[1:], [], True))
    assert live.shape == whole.shape
    gain = float(np.dot(live[:seam], whole[:seam]) / np.dot(whole[:seam], whole[:seam]))
    quiet, as_whole = live[seam:], gain * whole[seam:]
    assert np.max(np.abs(quiet - as_whole)) < 0.1 * np.max(np.abs(quiet))  # the same waveform, not re-pitched


def test_a_listener_s_runs_go_to_the_session_on_every_core(tmp_path, tiny_voices):
    """The session on every core is lent only inside ``wide_runs`` (the line a listener waits for),
    and only one caller at a time; every other run gets a single-threaded one."""
    folder = tmp_path / "voices"
    generate_kokoro(folder)
    library = VoiceLibrary(user_dir=folder)
    backend = KokoroBackend(SessionLayout(2, 1, wide_threads=2))
    model = backend.load(library.resolve("af_alpha", "kokoro"))
    model.warm()
    pool = model._pool
    singles = {id(s) for s in pool.sessions()}
    with pool.borrow() as plain:
        assert id(plain) in singles
    with wide_runs():
        with pool.borrow() as wide:
            assert id(wide) not in singles
            assert wide.get_session_options().intra_op_num_threads == 2  # type: ignore[attr-defined]
            with pool.borrow() as second:  # lent already: a single-threaded one, not a wait
                assert id(second) in singles
    unwide = KokoroBackend(SessionLayout(1, 1)).load(library.resolve("af_alpha", "kokoro"))
    with wide_runs(), unwide._pool.borrow() as only:  # a layout without one: its session, as ever
        assert id(only) in {id(s) for s in unwide._pool.sessions()}
    # Piper keeps up on one core: no session on every core for it, whatever the layout.
    piper = PiperBackend(SessionLayout(2, 1, wide_threads=2)).load(library.resolve(str(tiny_voices["single"]), "piper"))
    with wide_runs(), piper._pool.borrow() as single:
        assert id(single) in {id(s) for s in piper._pool.sessions()}
