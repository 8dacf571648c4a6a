"""Workers outside the scheduler's threads (what engine/farm's Ray actors are),
here played by plain threads on the tiny voices, and the --ray errors that
need no cluster. The Ray tests themselves are tests/engine/farm/test_farm.py."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from engine.cli import main
from engine.farm.cluster import ClusterError, check_reachable, split_address
from engine.project.fileformat import save_project
from engine.project.model import VoiceParams
from engine.sched.outside import NoWorkers
from engine.sched.policy import RolePriorityPolicy
from engine.sched.request import request_for
from engine.sched.scheduler import Scheduler
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.projects import tiny_project


@pytest.fixture
def synth() -> ClipSynthesizer:
    return ClipSynthesizer(VoiceLibrary(), 48_000, ClipCache())


def worker(scheduler: Scheduler, name: str, synth: ClipSynthesizer, lose_after: int | None = None) -> None:
    """An outside worker: its own synthesizer (its own process, in a farm); lost after ``lose_after`` lines."""
    done = 0
    while (jobs := scheduler.take(name)) is not None:
        if lose_after is not None and done >= lose_after:
            scheduler.requeue(jobs)
            scheduler.remove_worker(name)
            return
        for job in jobs:
            raw = synth.infer(job.plan, job.units)
            scheduler.deliver(name, job, synth.finish(raw), raw.seconds, 0.01)
            done += 1


def test_a_lost_outside_worker_gives_back_its_lines_and_only_its_roles_move(synth, tiny_voices):
    roles = [f"ROLE{i}" for i in range(8)]
    requests = [request_for(synth, f"Line {i} for the scene.", roles[i % 8], VoiceParams(voice=str(tiny_voices["single"])))
                for i in range(24)]
    with Scheduler(synth, RolePriorityPolicy(), local_workers=False) as scheduler:
        assert scheduler.workers == 0 and not scheduler.ring.nodes
        for name in ("a", "b", "c"):
            scheduler.add_worker(name, weight=2.0)
        before = scheduler.placement(roles)
        futures = [scheduler.submit(r) for r in requests]
        threads = [threading.Thread(target=worker, args=(scheduler, "a", ClipSynthesizer(VoiceLibrary(), 48_000),
                                                         2))]
        threads += [threading.Thread(target=worker, args=(scheduler, n, ClipSynthesizer(VoiceLibrary(), 48_000)))
                    for n in ("b", "c")]
        for thread in threads:
            thread.start()
        clips = [f.result(timeout=60) for f in futures]
        after = scheduler.placement(roles)
    for thread in threads:
        thread.join(10)
    assert all(c.shape[0] > 0 for c in clips)
    assert scheduler.stats().completed == 24 and scheduler.stats().failed == 0
    assert "a" not in after.values()
    assert {r: w for r, w in before.items() if w != "a"} == {r: w for r, w in after.items() if before[r] != "a"}
    for request in requests:  # every clip went into the content-addressed cache
        assert request.key in synth.cache


def test_with_no_outside_worker_left_the_waiting_lines_fail(synth, tiny_voices):
    with Scheduler(synth, RolePriorityPolicy(), local_workers=False) as scheduler:
        scheduler.add_worker("only")
        futures = [scheduler.submit(request_for(synth, f"Line {i}.", "A", VoiceParams(voice=str(tiny_voices["single"]))))
                   for i in range(3)]
        jobs = scheduler.take("only")
        assert jobs
        scheduler.requeue(jobs)
        scheduler.remove_worker("only")
        for future in futures:
            with pytest.raises(NoWorkers):
                future.result(timeout=5)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_cluster_is_one_line_before_any_work(tmp_path, tiny_voices, capsys, _isolated_clip_cache):
    project = tmp_path / "tiny.radioplay"
    save_project(tiny_project(tiny_voices["single"]), project)
    port = free_port()  # nothing listens there
    out = tmp_path / "out"
    assert main(["render", str(project), "-o", str(out), "--ray", f"127.0.0.1:{port}"]) == 1
    err = capsys.readouterr().err
    assert err.strip() == (f"radioplay: error: cannot reach the Ray cluster at 127.0.0.1:{port} "
                           f"(127.0.0.1:{port}): connection refused")
    assert not out.exists()
    assert not any(Path(_isolated_clip_cache).rglob("*.npy"))  # nothing was voiced


def test_cluster_addresses():
    assert split_address("10.0.0.5:6379") == ("10.0.0.5", 6379)
    assert split_address("ray://head.example:10001") == ("head.example", 10001)
    assert split_address("ray://head") == ("head", 10001)
    assert split_address("head") == ("head", 6379)
    assert split_address("[::1]:7000") == ("::1", 7000)
    with pytest.raises(ClusterError, match="expected auto, HOST:PORT"):
        split_address("ray://:5")
    with pytest.raises(ClusterError, match="cannot reach"):
        check_reachable(f"127.0.0.1:{free_port()}", timeout_s=1.0)


def test_serve_with_an_unreachable_cluster_is_one_line_before_listening(tmp_path, tiny_voices, capsys):
    project = tmp_path / "tiny.radioplay"
    save_project(tiny_project(tiny_voices["single"]), project)
    port, api = free_port(), free_port()
    assert main(["serve", str(project), "--port", str(api), "--metrics-port", "0", "--ray", f"127.0.0.1:{port}"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"radioplay: error: cannot reach the Ray cluster at 127.0.0.1:{port} "
                   f"(127.0.0.1:{port}): connection refused")
    assert not (tmp_path / "tiny.radioplay-renders").exists()
