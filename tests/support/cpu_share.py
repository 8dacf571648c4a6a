"""How much of the machine other processes took while a test ran.

A live-audio test on a loaded machine (the whole suite on two cores in CI)
can see the audio path starved for the CPU: the device underflows although
nothing in the process did anything wrong. Whether that happened is
measurable: the CPU time the whole machine spent busy (``/proc/stat``) minus
what the test's own processes spent (``/proc/PID/stat``). A product that hogs
the CPU itself counts as its own time, not as other processes' load, so the
measure never excuses the bug such a test is there to catch.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK")


def _machine_busy_s() -> float:
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / _TICK  # guest time is already inside user


def _process_cpu_s(pid: int) -> float:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0  # gone: it counted for nothing more
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime + stime


class ForeignLoad:
    """Measure between ``start()`` and ``stop()``: the CPU cores other processes
    kept busy on average (0.0 on an idle machine, 3.0 with three spinning
    processes), leaving out ``pids`` (this process is always left out)."""

    def __init__(self, *pids: int) -> None:
        self.pids = (os.getpid(), *pids)
        self.cores = 0.0

    def _ours(self) -> float:
        return sum(_process_cpu_s(pid) for pid in self.pids)

    def start(self) -> ForeignLoad:
        self._t0, self._busy0, self._ours0 = time.monotonic(), _machine_busy_s(), self._ours()
        return self

    def stop(self) -> float:
        wall = max(time.monotonic() - self._t0, 1e-3)
        busy = _machine_busy_s() - self._busy0
        ours = self._ours() - self._ours0
        self.cores = max(0.0, busy - ours) / wall
        return self.cores
