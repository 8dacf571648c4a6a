"""Reaching a Ray cluster: ``--ray auto`` or ``--ray ADDRESS``.

``auto`` is the cluster this process is already connected to, else the one
``RAY_ADDRESS`` names, else a private Ray instance started here with this
machine's cores, bound to the loopback interface and shut down at the end (it
never joins another user's instance on a shared machine). An ADDRESS
(``HOST:PORT`` of the head's GCS, or ``ray://HOST:PORT`` for Ray Client) is
checked with a plain TCP connection first, so an unreachable cluster is one
line (:class:`ClusterError`) within seconds, before any synthesis starts.
"""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from engine.lifeline import start_reaper
from engine.sched.outside import NoWorkers

CONNECT_TIMEOUT_S = 5.0
INSTALL_HINT = "pip install 'radioplay[cluster]'"


class ClusterError(NoWorkers):
    """No workers can be had from the cluster (Ray not installed, unreachable, no
    CPUs); one line. A NoWorkers, so callers report it like losing every actor."""


@dataclass(frozen=True)
class Node:
    node_id: str
    host: str
    cpus: int


@dataclass
class Cluster:
    address: str  # as the user gave it ("auto" for a private local instance)
    nodes: list[Node] = field(default_factory=list)
    owned: bool = False  # connected (or started) here: disconnect at close

    def refresh(self) -> list[Node]:
        """The live nodes with CPUs now (nodes may join or leave while it runs)."""
        ray = import_ray()
        self.nodes = [Node(n["NodeID"], n.get("NodeManagerAddress", "?"), int(n["Resources"].get("CPU", 0)))
                      for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1]
        return self.nodes

    def close(self) -> None:
        if self.owned:
            import_ray().shutdown()
            self.owned = False


def import_ray() -> ModuleType:
    try:
        import ray
    except ImportError:
        raise ClusterError(f"--ray needs Ray, which is not installed here: {INSTALL_HINT}") from None
    return ray


def split_address(address: str) -> tuple[str, int]:
    """(host, port) of ``HOST:PORT``, ``ray://HOST[:PORT]`` or ``HOST`` (Ray's default ports)."""
    client = address.startswith("ray://")
    rest = address.removeprefix("ray://").rstrip("/")
    host, colon, port = rest.rpartition(":")
    if not colon or not port.isdigit():
        host, port = rest, "10001" if client else "6379"
    host = host.strip("[]")
    if not host:
        raise ClusterError(f"--ray {address}: expected auto, HOST:PORT or ray://HOST:PORT")
    return host, int(port)


def check_reachable(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    host, port = split_address(address)
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc)).lower()
        raise ClusterError(f"cannot reach the Ray cluster at {address} ({host}:{port}): {reason}") from None


def connect(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> Cluster:
    """Connect for a render or a service; raises ClusterError (one line) before any work."""
    if address != "auto":
        check_reachable(address, timeout_s)  # before importing Ray: fast and clear
    ray = import_ray()
    if ray.is_initialized():
        cluster = Cluster(address)
    elif address == "auto" and not os.environ.get("RAY_ADDRESS"):
        start_local()
        cluster = Cluster(address, owned=True)
    else:
        target = os.environ["RAY_ADDRESS"] if address == "auto" else address
        if address == "auto":
            check_reachable(target, timeout_s)
        try:
            ray.init(address=target, **_QUIET)
        except Exception as exc:  # noqa: BLE001 - Ray raises many kinds; the user needs one line
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ClusterError(f"cannot connect to the Ray cluster at {target}: {first}") from None
        cluster = Cluster(target, owned=True)
    if not cluster.refresh():
        cluster.close()
        raise ClusterError(f"the Ray cluster at {cluster.address} has no live node with a free CPU")
    return cluster


# No dashboard, no usage report sent anywhere, only errors in the terminal
# (Ray's INFO lines would run through the render's progress line).
_QUIET: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}


def start_local(num_cpus: int | None = None) -> None:
    """A private Ray instance on this machine, reachable on the loopback interface only."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    # Ray binds to the machine's outward address unless told it is a one-machine
    # cluster; the setting is read when Ray is imported, so it is also set on the
    # already imported module (the raylet and workers inherit the environment).
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    ray = import_ray()
    # Ray's agents (dashboard, runtime env) outlive a driver killed with -9: the
    # reaper, started before Ray's processes, ends them after this process.
    start_reaper()
    constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
    if constants is not None and hasattr(constants, "ENABLE_RAY_CLUSTER"):
        constants.ENABLE_RAY_CLUSTER = False
    ray.init(address="local", num_cpus=num_cpus or os.cpu_count() or 1, **_QUIET)
