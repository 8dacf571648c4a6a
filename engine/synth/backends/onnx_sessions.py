"""ONNX Runtime sessions for a voice: how many, how threaded, made on first use, and
a run with its output bound on the synthesis device.

Shared by every ONNX backend (Piper, Kokoro) and by the scheduler, the farm
and the benchmarks that choose a layout.
"""

from __future__ import annotations

import contextlib
import os
import queue
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.synth.errors import VoiceError


def make_session(model: str | bytes, threads: int = 0, providers: list[str] | None = None,  # type: ignore[no-untyped-def]
                 spin: bool = False):
    """An ONNX Runtime session; ``threads=0`` lets ORT use every core.

    ``spin``: whether the intra-op threads busy-wait between operators (ORT's default).
    Off unless asked: on 2 cores a two-thread Kokoro run cost 2.36-2.63 CPU-s spinning
    against 2.07-2.15 not, in the same wall time (1.2-1.3 s; one thread: 1.98 CPU-s),
    and the spinning thread takes its core from whatever else runs (the mixer, the GUI,
    the other sessions, a second process). Only the benchmarks' raw ceiling spins."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Every line has its own input length, and ONNX Runtime keeps a memory
    # plan per input shape it has seen (mem pattern): a session's memory grows
    # with the number of lines voiced, so no plan is kept. The CPU arena stays:
    # within a run it hands the operators' buffers back and forth instead of
    # malloc (faster, and a lower peak than without it on a Kokoro render), and
    # every run gives back what it grew (run_options: arena shrinkage), so
    # memory does not grow with the lines either (_new_run_options below;
    # bench/memprobe.py; the figures in docs/dev/benchmarks.md, "Session memory").
    options.enable_mem_pattern = False
    options.enable_cpu_mem_arena = True
    providers = providers or ["CPUExecutionProvider"]
    if isinstance(model, bytes):
        # A session made from bytes keeps them for as long as it lives (to
        # re-create itself on a provider fallback): the patched voice, 64 MB,
        # held by every session for nothing. One made from a file keeps its path.
        with tempfile.TemporaryDirectory(prefix="radioplay-voice-") as folder:
            path = Path(folder) / "voice.onnx"
            path.write_bytes(model)
            return ort.InferenceSession(str(path), options, providers=providers)
    return ort.InferenceSession(model, options, providers=providers)


_this_thread = threading.local()


def _new_run_options() -> Any:
    """RunOptions whose run frees the CPU arena's unused chunks at its end: the arena
    (make_session) serves a run's buffers, and without shrinkage it keeps the largest
    run's worth for the session's life: with shrinkage a session is as quick as with the
    arena kept and its peak the lowest of the three ways (docs/dev/benchmarks.md,
    "Session memory")."""
    import onnxruntime as ort

    options = ort.RunOptions()
    options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    return options


def run_options() -> Any:
    """The calling thread's ONNX Runtime RunOptions: a scheduler worker's, which
    another thread can stop (:class:`RunStopper`), or the thread's own default.
    Every backend passes it to ``session.run``, so a run is stoppable wherever the
    caller made it so, and every run gives its arena back (``_new_run_options``)."""
    options = getattr(_this_thread, "options", None)
    if options is None:
        options = _this_thread.options = _new_run_options()
    return options


def bound_run(session: Any, outputs: list[str] | None, feeds: dict[str, Any], options: Any,
              device: str, index: int = 0) -> list[Any]:
    """One run with IO binding: the inputs from host memory, the first output (the graph's
    waveform) bound to ``device`` ("cpu", "cuda") and allocated there by ONNX Runtime,
    any other (Piper's durations, a few numbers) to the host.

    The waveform comes back as a view of ONNX Runtime's own buffer, not a copy: a numpy
    array on the CPU, a torch tensor on CUDA (both through DLPack, which keeps the buffer
    alive while the view is), for the synthesizer to gather into its device pool and
    copy to the host once per clip (engine/memory/device_pool.py). It cannot be bound
    to a buffer of the caller's: ONNX Runtime accepts a pre-allocated output only of
    exactly the shape the graph computes while it runs (engine/memory/device.py)."""
    binding = session.io_binding()
    for name, value in feeds.items():
        binding.bind_cpu_input(name, value)
    names = outputs if outputs is not None else [o.name for o in session.get_outputs()]
    for position, name in enumerate(names):
        if position == 0:
            binding.bind_output(name, device, index)
        else:
            binding.bind_output(name, "cpu")
    session.run_with_iobinding(binding, options)
    values = binding.get_outputs()
    return [device_view(values[0], device), *(value.numpy() for value in values[1:])]


def device_view(value: Any, device: str) -> Any:
    """An OrtValue's memory seen without a copy: numpy on the CPU, torch on a GPU."""
    if device == "cpu":
        import numpy as np

        return np.from_dlpack(value)
    from torch.utils.dlpack import from_dlpack

    return from_dlpack(value)


class RunStopper:
    """The ONNX runs of one thread, which another thread can end: ONNX Runtime
    cannot pause a run, but a run whose RunOptions say ``terminate`` fails
    within milliseconds (measured 6 ms into a 5.6 s Kokoro sentence), and so
    does every run after it until the options are armed again. The owning
    thread calls :meth:`install` once; whoever hands it work calls :meth:`arm`
    first and :meth:`stop` to end that work."""

    def __init__(self) -> None:
        self.options = _new_run_options()

    def install(self) -> None:
        """The calling thread's runs use these options from now on."""
        _this_thread.options = self.options

    def arm(self) -> None:
        self.options.terminate = False

    def stop(self) -> None:
        self.options.terminate = True

    @property
    def stopped(self) -> bool:
        return bool(self.options.terminate)


@contextlib.contextmanager
def wide_runs() -> Iterator[None]:
    """The calling thread's runs inside go to its voice's session on every core (a pool's
    ``wide`` one) while it is free: the line a listener waits for (engine/sched/streaming.py).
    A pool without one, or with it lent, lends a single-threaded session as ever."""
    before = getattr(_this_thread, "wide", False)
    _this_thread.wide = True
    try:
        yield
    finally:
        _this_thread.wide = before


class SessionPool:
    """A voice's inference sessions, created on first use.

    Planning a line (its cache key, its settings) needs only the voice's
    config; creating the sessions is most of a voice's load time (measured
    0.8 s per session of the default voice), so a render whose lines are all
    cached never pays for them. Who wants them ready before the first line
    (playback, the service) calls :meth:`warm`. Thread-safe: ``borrow`` lends
    each session to one caller at a time. A failed creation raises the same
    VoiceError on every later use instead of retrying per line.

    ``wide`` (optional) makes one more session, on every core, made with the others:
    lent only to a thread inside :func:`wide_runs` (a line someone waits for, while
    the other workers hold), since several lines at once voice more on one
    single-threaded session each (``SessionLayout``).
    """

    def __init__(self, create: Callable[[], list[object]], wide: Callable[[], object] | None = None) -> None:
        self._create = create
        self._make_wide = wide
        self._lock = threading.Lock()
        self._sessions: list[object] | None = None
        self._free: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._wide: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._error: VoiceError | None = None

    def sessions(self) -> list[object]:
        """The sessions (created now if they are not yet)."""
        sessions = self._sessions
        if sessions is not None:
            return sessions
        with self._lock:
            if self._sessions is None:
                if self._error is not None:
                    raise self._error
                try:
                    made = self._create()
                    wide = self._make_wide() if self._make_wide is not None else None
                except VoiceError as exc:
                    self._error = exc
                    raise
                for session in made:
                    self._free.put(session)
                if wide is not None:
                    self._wide.put(wide)
                self._sessions = made
            return self._sessions

    def warm(self) -> None:
        self.sessions()

    @contextlib.contextmanager
    def borrow(self) -> Iterator[object]:
        self.sessions()
        queue_ = self._free
        session: object | None = None
        if getattr(_this_thread, "wide", False):
            try:
                session, queue_ = self._wide.get_nowait(), self._wide
            except queue.Empty:
                pass
        if session is None:
            session = self._free.get()
        try:
            yield session
        finally:
            queue_.put(session)


@dataclass(frozen=True)
class SessionLayout:
    """How a voice's inference is spread over the CPU.

    Measured on 2 cores with the default voice: one session using both cores
    gives 23.6 model-audio-s/s, two single-threaded sessions running two
    lines at once 25.2 (intra-op threads scale 1.8x on 2 cores and spin while
    they wait, which also starves the post-processing thread). Throughput
    jobs (render, pre-render) use one single-threaded session per core; a
    lone latency-critical request is faster on one session with every core.
    """

    sessions: int = 1
    threads_per_session: int = 0  # 0: let ONNX Runtime use every core
    spin: bool = False  # busy-waiting intra-op threads (make_session): the raw ceiling's alone
    # Threads of the one session on every core a slow engine adds for the line a listener
    # waits for (SessionPool ``wide``); 0: none (one core, or a layout on every core already).
    wide_threads: int = 0

    @staticmethod
    def for_throughput(cores: int | None = None) -> SessionLayout:
        cores = cores or os.cpu_count() or 1
        sessions = max(1, min(cores, 4))
        return SessionLayout(sessions, max(1, cores // sessions), wide_threads=cores if sessions > 1 else 0)
