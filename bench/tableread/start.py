"""How long a table read takes to start when every line is already voiced.

    python bench/tableread/start.py [--project samples/the-last-broadcast.radioplay] [--role MAGGIE]

The production's clips are made first in a private cache folder (a first
Session pre-renders them all: this is the state of a studio that has played
the production). Then, in the same run, from the moment the read is asked
for to the moment it reaches its first line (its first stretch of replies
ready to play: ``follow`` is told the first line):

- ``studio before``: what Transport > Table Read… did until now: a Session
  of its own (prerendering, as the window's factory makes them) beside the
  studio's, which plans every line again and loads every voice for
  inference, then the read;
- ``cli``: ``radioplay rehearse``: a new Session (it cannot borrow one),
  which now leaves the inference of a voice with every line cached unloaded;
- ``studio now``: the read through the studio's own running Session.

Prints each time, the ratio to ``studio before``, and whether the voice's
inference sessions were created (they need not be: nothing is synthesized).
The speech check (the studio runs one per Session) is left off in all three,
so the figures are the read's own.
"""

from __future__ import annotations

import argparse
import os
import queue
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))


class SilentReader:
    """A reader who is never heard: the run is stopped at its first line."""

    def __init__(self, rate: int) -> None:
        self.rate = rate
        self.chunks: queue.SimpleQueue[object] = queue.SimpleQueue()

    def start(self) -> None: ...

    def cue(self, line_id: str) -> None: ...

    def truth(self, line_id: str) -> None:
        return None

    def close(self) -> None: ...


def until_first_line(session: object, project: object, role: str) -> float:
    """Seconds from the read's start to its first line, through ``session``."""
    from engine.rehearse.runner import RehearseOptions, TableRead

    started = time.perf_counter()
    reached: list[float] = []
    table: TableRead

    def follow(line_id: str) -> None:
        if not reached:
            reached.append(time.perf_counter() - started)
            table.stop()

    table = TableRead(session, SilentReader(project.sample_rate), RehearseOptions((role,), vad="energy"),  # type: ignore[arg-type, attr-defined]
                      follow=follow)
    table.run()
    return reached[0]


def inference_loaded(session: object) -> bool:
    synth = session.synth  # type: ignore[attr-defined]
    return any(getattr(getattr(v, "_pool", None), "_sessions", None) is not None for v in synth._voices.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--project", default=str(REPO / "samples" / "the-last-broadcast.radioplay"))
    parser.add_argument("--role", default="MAGGIE")
    parser.add_argument("--lines", type=int, default=20, help="the production's first N lines (0: all)")
    args = parser.parse_args()
    os.environ["RADIOPLAY_CACHE_DIR"] = tempfile.mkdtemp(prefix="radioplay-start-bench-")
    from dataclasses import replace

    from engine.project.fileformat import load_project
    from engine.session import LineState, Session

    path = Path(args.project)
    project = load_project(path)
    if args.lines:
        project = replace(project, lines=project.lines[:args.lines])
    t = time.perf_counter()
    studio = Session(project, path, output="null", prerender=True)
    while not (len(studio.line_status()) == len(project.lines)
               and all(s.state is LineState.READY for s in studio.line_status().values())):
        time.sleep(0.1)
    print(f"voiced {len(project.lines)} lines first: {time.perf_counter() - t:.0f} s", flush=True)
    rows = []

    t = time.perf_counter()
    second = Session(project, path, output="null", prerender=True)
    while len(second.line_status()) < len(project.lines):  # planned (the control thread's first job)
        time.sleep(0.01)
    # As it was: every cast voice loaded for inference (on the control thread) before any reply played.
    plans = [record.plan for record in list(second.book.records.values()) if record.plan is not None]
    for info in {plan.voice.model_path: plan.voice for plan in plans}.values():
        second.synth.warm(info)
    before = time.perf_counter() - t + until_first_line(second, project, args.role)
    rows.append(("studio before (a second Session)", before, inference_loaded(second)))
    second.close()

    t = time.perf_counter()
    cli = Session(project, path, output="null", prerender=False)
    rows.append(("cli (a new Session)", time.perf_counter() - t + until_first_line(cli, project, args.role),
                 inference_loaded(cli)))
    cli.close()

    rows.append(("studio now (the running Session)", until_first_line(studio, project, args.role),
                 inference_loaded(studio)))
    studio.close()
    print(f"{'path':<34} {'to first line':>13} {'vs before':>9}  inference loaded")
    for name, seconds, loaded in rows:
        print(f"{name:<34} {seconds:>11.2f} s {seconds / before:>8.2f}x  {'yes' if loaded else 'no'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
