"""Live recognition in a child process, so that it never stalls the studio.

pocketsphinx's Python binding holds the GIL through every call into the
decoder. Fed 20 ms at a time, a call is short (about 1 ms); the final pass
over a line (``end_utt``: the flat-lexicon search over the whole utterance)
is not: 50-110 ms for a 3-5 s line here, alone, 290 ms for 16 s. While it
runs, no other thread of the process runs Python: the studio's GUI thread,
its mixer thread. Under load the hold stretches with the decoder's share of a
core: with two CPU burners, a watchdog caught the studio's GUI thread missing
its 20 ms timer by more than 120 ms while the read thread sat in this pass.
The speech check runs its recognizer in a child process for the same reason
(engine/session/checking.py).

A table read starts one :class:`ListeningProcess` and asks it for a
:class:`RemoteRecognizer` per line; each line's decoder lives in the child,
named by a number. Starting a decoder and feeding it are one-way messages
(the pipe keeps their order; the table read waits on the child only when
the pipe's buffer, about a second of sound, is full); a hypothesis or the
final words wait for the child's answer, which comes after everything sent
before it. The final words free the line's decoder. The child reads the
pronunciation dictionary as soon as it starts, while the first replies play.

One thread uses a process and its recognizers (the table read's). The child
ends with :meth:`ListeningProcess.close`, or on its own when this process
dies (engine/lifeline.py).
"""

from __future__ import annotations

import itertools
import multiprocessing
from collections.abc import Iterable
from multiprocessing.connection import Connection
from typing import Any

import numpy as np

from engine.listen.recognizer import Word

STOP_WAIT_S = 2.0  # how long close() waits for the child to end before it is terminated


class ListeningFailed(RuntimeError):
    """The listening process ended, or its recognizer failed."""


def _serve(conn: Connection) -> None:  # runs in the child process
    from engine.lifeline import end_with_parent
    from engine.listen.recognizer import Recognizer, alternates, pronunciations

    end_with_parent()
    pronunciations()  # ahead of the first line
    alternates()
    decoders: dict[int, Recognizer] = {}
    failed: dict[int, str] = {}  # a one-way message that failed: said at the next question
    while True:
        try:
            op, key, *args = conn.recv()
        except EOFError:  # the parent closed its end
            return
        if op == "stop":
            return
        try:
            if key in failed and op in ("hypothesis", "finish"):
                raise RuntimeError(failed.pop(key))
            if op == "new":
                decoders[key] = Recognizer(*args)
                decoders[key].start()
            elif op == "feed":
                if key in decoders:
                    decoders[key].feed(np.frombuffer(args[0], dtype=np.float32))
            elif op == "hypothesis":
                conn.send(("ok", decoders[key].hypothesis()))
            elif op == "finish":
                conn.send(("ok", decoders.pop(key).finish()))
        except Exception as exc:  # noqa: BLE001 - any failure is sent back, named, never lost
            message = f"{type(exc).__name__}: {exc}"
            if op in ("hypothesis", "finish"):
                conn.send(("error", message))
            else:
                decoders.pop(key, None)
                failed[key] = message


class ListeningProcess:
    """One child process that runs pocketsphinx decoders (see the module's doc)."""

    def __init__(self) -> None:
        # spawn: forking a process that runs ONNX, Qt and audio threads is unsafe.
        context = multiprocessing.get_context("spawn")
        self._conn, child_end = context.Pipe()
        self._process = context.Process(target=_serve, args=(child_end,), name="radioplay-listen", daemon=True)
        self._process.start()
        child_end.close()
        self._keys = itertools.count(1)

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def recognizer(self, expected: Iterable[str], context: Iterable[str] = ()) -> RemoteRecognizer:
        """A decoder biased to ``expected`` (see :class:`~engine.listen.recognizer.Recognizer`),
        started: it listens from the first :meth:`RemoteRecognizer.feed`."""
        key = next(self._keys)
        self.post(("new", key, list(expected), list(context)))
        return RemoteRecognizer(self, key)

    def close(self) -> None:
        try:
            self._conn.send(("stop", 0))
        except OSError:
            pass  # already gone
        self._process.join(STOP_WAIT_S)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(STOP_WAIT_S)
        self._conn.close()

    def __enter__(self) -> ListeningProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def post(self, message: tuple[Any, ...]) -> None:
        """A one-way message to the child (the recognizers' protocol)."""
        try:
            self._conn.send(message)
        except OSError:
            raise self._gone() from None

    def ask(self, message: tuple[Any, ...]) -> Any:
        """A question to the child; its answer, after everything posted before."""
        self.post(message)
        try:
            status, value = self._conn.recv()
        except (EOFError, OSError):
            raise self._gone() from None
        if status == "error":
            raise ListeningFailed(f"speech recognition failed: {value}")
        return value

    def _gone(self) -> ListeningFailed:
        self._process.join(0.5)
        return ListeningFailed(f"the listening process (pid {self._process.pid}) ended unexpectedly "
                               f"(exit code {self._process.exitcode})")


class RemoteRecognizer:
    """A :class:`~engine.listen.recognizer.Recognizer`'s live side (feed, hypothesis,
    finish) for one utterance, decoded in a :class:`ListeningProcess`."""

    def __init__(self, process: ListeningProcess, key: int) -> None:
        self._process = process
        self._key = key
        self._open = True

    def feed(self, audio: np.ndarray) -> None:
        """Mono float32 sound at 16 kHz."""
        audio = np.ascontiguousarray(audio, dtype=np.float32)
        if audio.size and self._open:
            self._process.post(("feed", self._key, audio.tobytes()))

    def hypothesis(self) -> list[str]:
        """The words heard so far, after everything fed."""
        words: list[str] = self._process.ask(("hypothesis", self._key))
        return words

    def finish(self) -> list[Word]:
        """End the utterance: the final words, with times from its start. The decoder is freed."""
        self._open = False
        words: list[Word] = self._process.ask(("finish", self._key))
        return words
