"""Children end when their parent dies: the one home of that rule.

A kill -9 of the studio or of ``radioplay render --ray`` runs no cleanup, so
nothing in the parent can stop its children; they must notice themselves,
or be stopped by something that outlives the parent. Two mechanisms:

- :func:`end_with_parent`, called first thing in a child process this
  program starts (the studio's speech-check worker): a daemon thread exits
  the process as soon as it is re-parented (its parent is gone). The child's
  own children that hold nothing but a pipe to it (multiprocessing's
  resource tracker) then see the pipe close and end too. A watch rather than
  ``PR_SET_PDEATHSIG``: that signal follows the parent *thread* that started
  the child, and a worker thread's end would kill a healthy worker.
- :func:`start_reaper`, for process trees this program does not write (a
  local Ray instance: its dashboard and runtime-env agents outlive a killed
  driver). The parent's environment gets a mark (``RADIOPLAY_LIFELINE``) that
  every process it starts from then on inherits, however deep; a small
  watcher process also records every descendant as it appears
  (``/proc/PID/task/*/children``, with each one's start time so a reused pid
  is never hit). When the parent is gone it kills the recorded descendants
  and every process carrying the mark: a grandchild whose own parent died
  first (Ray's agents, re-parented to init when the raylet ends) is found by
  the mark. Linux only (it needs /proc); elsewhere it does nothing.

Run as ``python -m engine.lifeline PARENT_PID`` (what start_reaper starts).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

WATCH_S = 0.2  # how often a child looks at its parent, and the reaper at the tree


def end_with_parent(poll_s: float = WATCH_S) -> None:
    """In a child process: exit (status 0, no cleanup) once the parent is gone."""
    parent = os.getppid()
    if parent == 1:  # already orphaned before this ran
        os._exit(0)

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="radioplay-lifeline", daemon=True).start()


def _start_time(pid: int) -> int | None:
    """The kernel's start time of ``pid`` (clock ticks since boot), None when gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[19])  # field 22; the name before ")" may hold spaces


def _children(pid: int) -> list[int]:
    out: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                out += [int(c) for c in (task / "children").read_text().split()]
    return out


def _descendants(root: int, skip: int) -> dict[int, int]:
    """pid -> start time of every live descendant of ``root`` except ``skip``."""
    found: dict[int, int] = {}
    frontier = [root]
    while frontier:
        for child in _children(frontier.pop()):
            if child == skip or child in found:
                continue
            started = _start_time(child)
            if started is not None:
                found[child] = started
                frontier.append(child)
    return found


MARK = "RADIOPLAY_LIFELINE"


def _marked(mark: str, skip: int) -> dict[int, int]:
    """pid -> start time of every process whose environment carries ``MARK=mark``."""
    wanted = f"{MARK}={mark}".encode()
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == skip:
            continue
        with contextlib.suppress(OSError):
            if wanted in (entry / "environ").read_bytes().split(b"\0"):
                started = _start_time(int(entry.name))
                if started is not None:
                    found[int(entry.name)] = started
    return found


def reap(parent: int, mark: str = "", poll_s: float = WATCH_S) -> None:
    """Record the parent's descendants until it dies, then SIGKILL what is left
    of them and of the processes carrying ``mark``."""
    me = os.getpid()
    parent_started = _start_time(parent)
    seen: dict[int, int] = {}
    while parent_started is not None and _start_time(parent) == parent_started:
        seen.update(_descendants(parent, me))
        time.sleep(poll_s)
    for _ in range(3):  # a dying child may have started one more: look again
        if mark:
            seen.update(_marked(mark, me))
        for pid, started in list(seen.items()):
            if _start_time(pid) == started:
                seen.update(_descendants(pid, me))
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
        time.sleep(poll_s)


_reaper: subprocess.Popen[bytes] | None = None
_reaper_lock = threading.Lock()
_reaper_parent = 0  # the process that started it (a forked child needs its own)


def start_reaper() -> subprocess.Popen[bytes] | None:
    """Start the watcher for this process's tree (see :func:`reap`), once per
    process; None where there is no /proc. It ends by itself after this process does."""
    global _reaper
    with _reaper_lock:
        if _reaper is not None and _reaper.poll() is None and _reaper_parent == os.getpid():
            return _reaper
        _reaper = _spawn_reaper()
        return _reaper


def _spawn_reaper() -> subprocess.Popen[bytes] | None:
    global _reaper_parent
    _reaper_parent = os.getpid()
    if not Path(f"/proc/{os.getpid()}/task").is_dir() or getattr(sys, "frozen", False):
        return None
    mark = f"{os.getpid()}-{_start_time(os.getpid())}"
    here = str(Path(__file__).resolve().parent.parent)  # where ``engine`` is, however this one was found
    env = {k: v for k, v in os.environ.items() if k != MARK}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)
    os.environ[MARK] = mark  # inherited by every process this one starts from now on
    return subprocess.Popen([sys.executable, "-m", "engine.lifeline", str(os.getpid()), mark], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)  # a Ctrl-C to the render's group is not for it


if __name__ == "__main__":
    reap(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "")
