"""Does the background speech check stall the engine's process? The longest
time a thread of the engine's process waits to run (a 1 ms sleeper's longest
oversleep, which is what the mixer thread would see: the GIL or the CPU
taken) while idle, while the studio's SpeechChecker checks every line of the
sample (recognizer in its niced child process), and while the same lines are
checked in this process (what the design avoids).

    python bench/check_stall.py [PROJECT] [--json]

The lines are voiced first (clip cache beside the project); phases alternate
idle / background / in-process so a shared machine's load hits each alike.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from engine.check.lines import check_line, voice_clip  # noqa: E402
from engine.metrics.hub import MetricsHub  # noqa: E402
from engine.project.fileformat import load_project  # noqa: E402
from engine.sched.policy import make_policy  # noqa: E402
from engine.sched.scheduler import Scheduler  # noqa: E402
from engine.session.checking import SpeechChecker  # noqa: E402
from engine.synth.pipeline import plan_lines  # noqa: E402
from engine.synth.synthesizer import make_synthesizer  # noqa: E402

SAMPLE = REPO / "samples" / "the-last-broadcast.radioplay"


class Sleeper:
    """A thread that sleeps 1 ms at a time and records how late it wakes."""

    def __init__(self) -> None:
        self.late: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            t = time.perf_counter()
            time.sleep(0.001)
            self.late.append(time.perf_counter() - t - 0.001)

    def __enter__(self) -> Sleeper:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> dict[str, float]:
        late = np.asarray(self.late) * 1000.0
        return {"max_ms": round(float(late.max()), 1), "p99_ms": round(float(np.percentile(late, 99)), 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", nargs="?", default=str(SAMPLE))
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    path = Path(args.project)
    project = load_project(path)
    synth = make_synthesizer(path, project.sample_rate)
    plans = plan_lines(project, synth)
    clips = {line_id: voice_clip(synth, plan) for line_id, plan in plans.items()}  # voiced once, cached
    index = {line.id: i for i, line in enumerate(project.lines)}
    results: dict[str, object] = {"lines": len(plans)}

    with Sleeper() as idle:
        time.sleep(10.0)
    results["idle"] = idle.summary()

    with Scheduler(synth, make_policy("role-priority"), metrics=MetricsHub()) as scheduler:
        checker = SpeechChecker(synth, scheduler)
        try:
            started = time.perf_counter()
            with Sleeper() as background:
                checker.offer(project, plans)
                while checker.checked < len(plans) and time.perf_counter() - started < 600:
                    time.sleep(0.1)
            results["background"] = {**background.summary(), "checked": checker.checked,
                                     "seconds": round(time.perf_counter() - started, 1)}
        finally:
            checker.close()

    started = time.perf_counter()
    with Sleeper() as inline:
        for line_id, clip in clips.items():
            check_line(project, synth, project.line(line_id), clip, index[line_id], {})
    results["in_process"] = {**inline.summary(), "seconds": round(time.perf_counter() - started, 1)}
    if args.json:
        print(json.dumps(results))
    else:
        for phase in ("idle", "background", "in_process"):
            print(f"{phase:>10}: {results[phase]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
