"""The studio from launch to a painted window, against a bare Qt window, in one run.

    python bench/studio_launch.py [--runs 5] [--json]

Each run is a new process, as a producer starts it: ``radioplay studio
--output null --self-test REPORT.json SAMPLE`` (app/shell/self_test.py writes the
wall-clock time of the window's first paint and of the engine's "ready");
the time is from just before the process is started. Interleaved with it, a
bare window: a new Python process that imports PySide6, shows an empty
QMainWindow and exits at its first paint (the floor Qt and the interpreter
set on this machine at this moment). Offscreen (``QT_QPA_PLATFORM``), with an
empty clip cache and state folder. Printed: medians and best of each, and
the studio's first paint minus the bare window's (what Radioplay itself adds).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "the-last-broadcast.radioplay"
BARE = """
import sys, time
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication(sys.argv[:1])
window = QMainWindow()
window.resize(1400, 900)
class Watch(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            print(time.time(), flush=True)
            app.quit()
        return False
watch = Watch()
window.installEventFilter(watch)
window.show()
app.exec()
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="radioplay-studio-launch-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update({"PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": env.get("QT_QPA_PLATFORM", "offscreen"),
                "RADIOPLAY_CACHE_DIR": str(work / "cache"), "RADIOPLAY_STATE_DIR": str(work / "state"),
                "XDG_CONFIG_HOME": str(work / "config")})
    paint: list[float] = []
    ready: list[float] = []
    bare: list[float] = []
    try:
        for i in range(args.runs + 1):  # the first round writes bytecode and warms the page cache
            report = work / f"report-{i}.json"
            launched = time.time()
            subprocess.run([sys.executable, "-m", "app.launch", "studio", "--output", "null", "--self-test",
                            str(report), str(SAMPLE)], env=env, cwd=work, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            data = json.loads(report.read_text())
            launched_bare = time.time()
            done = subprocess.run([sys.executable, "-c", BARE], env=env, cwd=work, check=True, capture_output=True,
                                  text=True)
            if i == 0:
                continue
            paint.append(data["first_paint"] - launched)
            ready.append(data["engine_ready"] - launched)
            bare.append(float(done.stdout.split()[-1]) - launched_bare)
        summary = {
            "runs": args.runs, "load_average": os.getloadavg(),
            "first_paint_s": {"median": round(statistics.median(paint), 3), "best": round(min(paint), 3),
                              "all": [round(x, 3) for x in paint]},
            "engine_ready_s": {"median": round(statistics.median(ready), 3), "best": round(min(ready), 3)},
            "bare_window_s": {"median": round(statistics.median(bare), 3), "best": round(min(bare), 3)},
        }
        summary["radioplay_adds_s"] = round(summary["first_paint_s"]["median"] - summary["bare_window_s"]["median"], 3)
        if args.json:
            print(json.dumps(summary))
            return 0
        print(f"{args.runs} runs; load average {' '.join(f'{v:.1f}' for v in summary['load_average'])}")
        for name in ("first_paint_s", "engine_ready_s", "bare_window_s"):
            print(f"  {name:<15} median {summary[name]['median']:.3f} s  best {summary[name]['best']:.3f} s")
        print(f"  the studio's first paint minus a bare Qt window's: {summary['radioplay_adds_s']:.3f} s "
              f"(target: first paint under 1.5 s)")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
