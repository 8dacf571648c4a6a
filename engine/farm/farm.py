"""A render farm: Ray actors as the scheduler's workers.

One actor per voice session on each node (a node of C cores gets the
sessions a local render would make of C cores, each pinned to its node), and
each actor joins the scheduler's weighted hash ring with the cores of its
node as weight, so a role's lines go to one actor and its voice stays warm
there; an idle actor takes other roles' lines rather than wait (the same
soft affinity as local sessions). Clips come back through Ray's object store
into the caller's content-addressed cache; mixing stays local.

An actor (or its node) that dies mid-render gives its unfinished lines back
to the scheduler and leaves the ring, so only its roles move and the render
completes on the others; with no actor left the waiting lines fail with
:class:`~engine.sched.outside.NoWorkers`.

Threads: ``IN_FLIGHT`` ``radioplay-farm-N`` per actor. Each takes the
actor's next line from the scheduler, waits on the actor for its clip, and
delivers it; it ends when the scheduler closes or its actor is lost. Two
lines in flight let an actor shape one clip while it infers the next (its
one ONNX session is still used by one line at a time), as a local session
hands shaping to the post thread, and hide the round trip.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engine.farm.actor import VoiceSession
from engine.farm.cluster import Cluster, Node, connect, import_ray
from engine.metrics.hub import MetricsHub
from engine.sched.job import Job
from engine.sched.outside import NoWorkers
from engine.sched.policy import Policy, RolePriorityPolicy
from engine.sched.scheduler import Scheduler
from engine.synth.backends.onnx_sessions import SessionLayout
from engine.synth.synthesizer import ClipSynthesizer

IN_FLIGHT = 2
__all__ = ["ActorStats", "NoWorkers", "RayFarm", "open_farm"]  # NoWorkers: what a farm's caller catches


@dataclass
class ActorStats:
    """What one actor did, for progress lines and the summary."""

    node: str
    lines: int = 0
    audio_s: float = 0.0
    busy_s: float = 0.0  # CPU seconds the actor spent on its lines (inference and shaping)
    requeued: int = 0  # its unfinished lines given back when it was lost
    lost: str = ""  # why it left ("" while it works)

    def describe(self) -> str:
        text = f"{self.lines} lines, {self.audio_s:.1f} s of audio in {self.busy_s:.1f} CPU-s"
        if self.lost:
            text += f"; lost ({self.lost}), {self.requeued} unfinished line(s) re-placed"
        return text


class RayFarm:
    """Owns a Scheduler without local sessions and the actors that serve it."""

    def __init__(self, cluster: Cluster, synth: ClipSynthesizer, policy: Policy | None = None, *,
                 capacity: int = 2048, metrics: MetricsHub | None = None,
                 actors_per_node: int | None = None, cpus_per_actor: float | None = None) -> None:
        self.ray = import_ray()
        self.cluster = cluster
        self.scheduler = Scheduler(synth, policy or RolePriorityPolicy(), capacity=capacity, metrics=metrics,
                                   local_workers=False)
        self.actors: dict[str, Any] = {}  # name -> Ray actor handle
        self.stats: dict[str, ActorStats] = {}
        self._actors_per_node = actors_per_node
        self._cpus_per_actor = cpus_per_actor
        self._remote = self.ray.remote(VoiceSession)
        self._threads: list[threading.Thread] = []
        self._closing = threading.Event()
        self._ready: dict[str, threading.Event] = {}  # set once the actor runs, or is lost
        self._lock = threading.Lock()
        for node in cluster.nodes:
            self.add_node(node)

    def add_node(self, node: Node) -> list[str]:
        """Start the node's actors (one per voice session) and put them on the ring."""
        layout = SessionLayout.for_throughput(node.cpus)
        count = self._actors_per_node or layout.sessions
        return [self.add_actor(node, layout.threads_per_session) for _ in range(count)]

    def add_actor(self, node: Node, threads: int = 1) -> str:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        index = sum(1 for s in self.stats.values() if s.node == node.node_id)
        name = f"{node.host}/{node.node_id[:8]}/session-{index}"
        handle = self._remote.options(
            num_cpus=self._cpus_per_actor or threads, max_restarts=0, max_concurrency=IN_FLIGHT,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node.node_id, soft=False),
        ).remote(self.scheduler.synth.sample_rate, threads)
        with self._lock:
            self.actors[name] = handle
            self.stats[name] = ActorStats(node.node_id)
            self._ready[name] = threading.Event()
        self.scheduler.add_worker(name, weight=float(node.cpus))
        for _ in range(IN_FLIGHT):
            thread = threading.Thread(target=self._serve, args=(name, handle), daemon=True,
                                      name=f"radioplay-farm-{len(self._threads)}")
            self._threads.append(thread)
            thread.start()
        return name

    def wait_ready(self, timeout: float) -> bool:
        """Wait until every actor runs (or was lost); False if some still wait for a CPU.
        A service waits before it listens, so its first requests go to their roles' actors."""
        with self._lock:
            events = list(self._ready.values())
        return all(event.wait(timeout) for event in events)

    def placement(self, roles: list[str]) -> dict[str, str]:
        """Which actor each role's lines go to first (the scheduler's ring)."""
        return self.scheduler.placement(roles)

    def summary(self) -> list[str]:
        """One line per actor: ``  Ray actor NAME: what it did``."""
        with self._lock:
            return [f"  Ray actor {name}: {stats.describe()}" for name, stats in self.stats.items()]

    def _serve(self, name: str, handle: Any) -> None:
        errors = self.ray.exceptions
        stats = self.stats[name]
        # Take lines only once the actor runs: one that waits for a free CPU (a
        # busy shared cluster) holds none, and the others voice its roles' lines.
        started = handle.where.remote()
        try:
            while not self.ray.wait([started], timeout=1.0)[0]:
                if self._closing.is_set():
                    return
            self.ray.get(started)
        except errors.RayError as exc:
            self._lose(name, [], type(exc).__name__)
            return
        finally:
            self._ready[name].set()
        while True:
            jobs = self.scheduler.take(name)
            if jobs is None:
                return
            refs = [handle.synthesize.remote(job.plan, job.units) for job in jobs]
            for i, (job, ref) in enumerate(zip(jobs, refs, strict=True)):
                try:
                    clip, model_s, infer_s, words = self.ray.get(ref)
                except errors.RayTaskError as exc:  # the line's own error (a voice, a text): not the actor's
                    cause = exc.cause if isinstance(exc.cause, Exception) else exc
                    self.scheduler.fail([job], cause)
                    continue
                except errors.RayError as exc:  # the actor, its worker process or its node is gone
                    self._lose(name, jobs[i:], type(exc).__name__)
                    return
                self.scheduler.deliver(name, job, clip, model_s, infer_s, words)
                with self._lock:
                    stats.lines += 1
                    stats.audio_s += clip.shape[0] / self.scheduler.synth.sample_rate
                    stats.busy_s += infer_s

    def _lose(self, name: str, unfinished: list[Job], reason: str) -> None:
        with self._lock:
            self.stats[name].lost = reason
            self.stats[name].requeued += len(unfinished)
        self.scheduler.requeue(unfinished)
        self.scheduler.remove_worker(name)

    def close(self, timeout: float = 30.0) -> None:
        """Stop the scheduler (the threads finish their line and end), then the actors."""
        self._closing.set()
        self.scheduler.close()
        for thread in self._threads:
            thread.join(timeout)
        for handle in self.actors.values():
            with contextlib.suppress(Exception):
                self.ray.kill(handle)

    def __enter__(self) -> RayFarm:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@contextlib.contextmanager
def open_farm(address: str | None, synth: ClipSynthesizer, **options: Any) -> Iterator[RayFarm | None]:
    """Connect (ClusterError, one line, before any work), start the actors, and
    at the end stop them and disconnect (shutting down a private instance).
    Without an address: None (synthesis stays local)."""
    if not address:
        yield None
        return
    cluster = connect(address)
    try:
        farm = RayFarm(cluster, synth, **options)
        try:
            yield farm
        finally:
            farm.close()
    finally:
        cluster.close()
