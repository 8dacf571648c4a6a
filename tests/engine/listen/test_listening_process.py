"""Live recognition in a child process (engine/listen/listening_process.py): it hears
what the recognizer in this process hears, its final pass never holds this process's
GIL, and a child that dies is named, not waited on."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest
import soundfile

from engine.listen.follow import RecognizerFollower, recognize_here
from engine.listen.listening_process import ListeningFailed, ListeningProcess
from engine.listen.vad import VAD_RATE
from tests.support.rehearse import espeak, needs_espeak

TEXT = "He kept the lamp burning for forty years without a single night off."
CONTEXT = ["Tell us about the lighthouse keeper.", "That is a remarkable story."]


@pytest.fixture(scope="module")
def said(tmp_path_factory: pytest.TempPathFactory) -> np.ndarray:
    """The line, said by espeak-ng, at the recognizer's rate."""
    from engine.synth.shaping import resample

    path = tmp_path_factory.mktemp("said") / "line.wav"
    espeak(TEXT, path)
    audio, rate = soundfile.read(str(path), dtype="float32")
    return resample(audio, rate, VAD_RATE)


def _follow(follower: RecognizerFollower, audio: np.ndarray) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the running hypothesis at the end, the final hearing), fed in 20 ms buffers."""
    step = VAD_RATE // 50
    for k in range(0, audio.size, step):
        follower.feed(audio[k:k + step])
    running = follower.progress().said
    final = follower.close()
    assert final is not None
    return running, final.said


@needs_espeak
def test_a_line_heard_in_the_child_is_heard_as_in_this_process(said: np.ndarray) -> None:
    here = _follow(RecognizerFollower(TEXT, CONTEXT, recognize=recognize_here), said)
    with ListeningProcess() as listening:
        assert listening.pid is not None and listening.pid != os.getpid()
        there = _follow(RecognizerFollower(TEXT, CONTEXT, recognize=listening.recognizer), said)
        again = _follow(RecognizerFollower(TEXT, CONTEXT, recognize=listening.recognizer), said)
    assert there == here == again  # the same decoder, the same words, line after line
    assert len(set(here[1]) & set(TEXT.lower().rstrip(".").split())) >= 6
    with pytest.raises(ProcessLookupError):
        os.kill(listening.pid, 0)  # closed with the read, and reaped


def _longest_stall(work: object) -> float:
    """The longest this process's other threads went without running Python while ``work()`` ran."""
    ticks: list[float] = []
    done = threading.Event()

    def tick() -> None:
        while not done.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    time.sleep(0.05)
    start = time.perf_counter()
    work()  # type: ignore[operator]
    end = time.perf_counter()
    done.set()
    ticker.join()
    inside = [t for t in ticks if start - 0.01 <= t <= end + 0.01]
    return max((b - a for a, b in zip(inside, inside[1:], strict=False)), default=end - start)


@needs_espeak
def test_the_final_pass_over_a_line_does_not_hold_this_process(said: np.ndarray) -> None:
    """pocketsphinx's final pass holds the GIL in this process (a ticking thread stops for
    all of it); in the child it does not. Compared in one run: a loaded machine stretches both."""
    long_line = np.concatenate([said] * 4)  # ~16 s: a final pass of a few hundred ms

    def final_pass(recognize: object) -> float:
        follower = RecognizerFollower(TEXT, CONTEXT, recognize=recognize)  # type: ignore[arg-type]
        step = VAD_RATE // 50
        for k in range(0, long_line.size, step):
            follower.feed(long_line[k:k + step])
        follower.progress()  # everything fed has been decoded: what is left is the final pass
        return _longest_stall(follower.close)

    held_here = final_pass(recognize_here)
    with ListeningProcess() as listening:
        held_there = final_pass(listening.recognizer)
    assert held_here > 0.03, f"the in-process final pass held the GIL only {held_here * 1000:.0f} ms"
    assert held_there < held_here / 3, (f"in the child, other threads still stopped {held_there * 1000:.0f} ms "
                                        f"(in this process {held_here * 1000:.0f} ms)")


def test_a_child_that_dies_is_named_at_the_next_question() -> None:
    with ListeningProcess() as listening:
        recognizer = listening.recognizer(["hello there"], [])
        assert recognizer.hypothesis() == []  # alive, and nothing fed
        assert listening.pid is not None
        os.kill(listening.pid, signal.SIGKILL)
        with pytest.raises(ListeningFailed, match=r"listening process \(pid \d+\) ended unexpectedly \(exit code -9\)"):
            for _ in range(50):  # a feed may still fit in the pipe's buffer; a question never does
                recognizer.feed(np.zeros(320, dtype=np.float32))
                recognizer.hypothesis()


def test_a_recognizer_that_cannot_start_says_why_at_the_next_question() -> None:
    with ListeningProcess() as listening:
        nothing = listening.recognizer(["zzqx vvbrk"], [])  # no word the dictionary knows
        nothing.feed(np.zeros(320, dtype=np.float32))
        with pytest.raises(ListeningFailed, match="nothing to listen for"):
            nothing.hypothesis()
        fine = listening.recognizer(["hello there"], [])  # the child goes on serving
        assert fine.hypothesis() == []
