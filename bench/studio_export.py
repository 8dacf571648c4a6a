"""The studio's Export of a cached project against ``radioplay render`` of it, in one run.

    python bench/studio_export.py [PROJECT] [--rounds 3] [--json]

The project is copied into a temporary folder with its own clip cache
(``RADIOPLAY_CACHE_DIR``) and rendered once from the command line, cold: from
then on every clip, the master gain and the mix's measurement are cached,
as they are when a producer exports again after listening. Then, in rounds,
interleaved:

- ``cli``: ``radioplay render PROJECT -o DIR`` as a new process (what the
  ``radioplay`` entry point runs), **process start included**;
- ``studio``: the real studio window (offscreen, the real Session on the null
  output, pre-render on as the studio has it) opens the project; once its
  status bar says the engine is ready, File > Export is triggered, the
  dialog's folder set and its Export button pressed (the dialog's defaults
  are the CLI's: custom preset, WAV 24-bit, stems). Timed from that press to
  the "Export finished" message (the files committed): **process start, window
  and engine start excluded** (the window is open when a producer exports);
- ``studio-settled``: the same window exports again once its engine has
  nothing left to do (its live master gain solved), to separate what the
  export itself costs from what the just-opened engine does beside it.

Printed: the mix's length over the wall time (times real time) for each, the
median over the rounds, and the ratios studio / cli (above 1: the studio
writes faster). The load average is printed with it: the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "samples" / "the-last-broadcast.radioplay"

from cli_speed import mix_seconds, timed  # noqa: E402 - beside this script in bench/
from qt_wait import wait_until  # noqa: E402


def cli_render(project: Path, out: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return timed([sys.executable, "-m", "app.launch", "render", str(project), "-o", str(out)], env, project.parent)


class Studio:
    """One studio window on the project (what ``radioplay studio PROJECT`` opens, on the null output)."""

    def __init__(self, project: Path, work: Path) -> None:
        from PySide6.QtCore import QSettings

        from app.document.recovery import RecoveryStore
        from app.main import make_app
        from app.shell.main_window import MainWindow, default_session_factory

        self.app = make_app()
        settings = QSettings(str(work / "settings.ini"), QSettings.Format.IniFormat)
        self.window = MainWindow(project, settings=settings, session_factory=default_session_factory(output="null"),
                                 recovery=RecoveryStore(work / "state"))
        self.window.files.ask_save_changes = lambda: "discard"  # type: ignore[method-assign]
        self.window.show()

    def wait(self, done: Any, timeout: float = 300.0, what: str = "") -> None:
        wait_until(done, timeout, what)  # in the event loop, as the studio waits for its user

    def wait_ready(self) -> None:
        self.wait(lambda: self.window.engine_label.text() == "Engine: ready", what="the engine start")

    def wait_settled(self) -> None:
        self.wait(lambda: (s := self.window.session()) is not None and s.master_gain_db is not None,
                  what="the live master gain")

    def export(self, out: Path) -> dict[str, Any]:
        """File > Export, the folder typed in, Export pressed; seconds from the press to the finished message."""
        from PySide6.QtWidgets import QMessageBox

        from app.dialogs.export import ExportDialog

        self.window.actions_["export"].trigger()
        dialog = self.window.findChild(ExportDialog, "exportDialog")
        assert dialog is not None, "File > Export opened no dialog"
        dialog.folder_edit.setText(str(out))
        files = self.window.files
        files.last_report = None
        started = time.perf_counter()
        dialog.accept()
        self.wait(lambda: files.last_report is not None, what="the export")
        wall = time.perf_counter() - started
        report = files.last_report
        box = self.window.findChild(QMessageBox, "exportDoneBox")
        if box is not None:
            box.done(0)
        self.app.processEvents()
        return {"wall_s": wall, "render_wall_s": report.wall_s, "gain_reused": report.gain_reused,
                "synthesized": report.synthesized}

    def close(self) -> None:
        self.window.close()
        self.window.engine.wait()
        self.app.processEvents()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", nargs="?", default=str(SAMPLE))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    work = Path(tempfile.mkdtemp(prefix="radioplay-studio-export-"))
    os.environ["RADIOPLAY_CACHE_DIR"] = str(work / "clip-cache")
    os.environ["RADIOPLAY_STATE_DIR"] = str(work / "state")
    try:
        project = work / Path(args.project).name
        shutil.copy(args.project, project)
        first = cli_render(project, work / "first")  # cold: fills the clip cache and the gain memo
        audio_s = mix_seconds(work / "first")
        walls: dict[str, list[float]] = {"cli": [], "studio": [], "studio-settled": []}
        details: list[dict[str, Any]] = []
        for r in range(args.rounds):
            walls["cli"].append(cli_render(project, work / f"cli-{r}"))
            studio = Studio(project, work)
            try:
                studio.wait_ready()
                just_opened = studio.export(work / f"studio-{r}")
                studio.wait_settled()
                settled = studio.export(work / f"studio-settled-{r}")
            finally:
                studio.close()
            walls["studio"].append(just_opened["wall_s"])
            walls["studio-settled"].append(settled["wall_s"])
            details.append({"just_opened": just_opened, "settled": settled})
            if not args.json:
                print(f"round {r + 1}: cli {walls['cli'][-1]:.2f} s, studio {just_opened['wall_s']:.2f} s "
                      f"(render {just_opened['render_wall_s']:.2f} s), studio settled {settled['wall_s']:.2f} s",
                      flush=True)
        median = {k: statistics.median(v) for k, v in walls.items()}
        summary = {
            "project": str(args.project), "audio_s": round(audio_s, 2), "rounds": args.rounds,
            "first_render_s": round(first, 2), "load_average": os.getloadavg(),
            "walls": {k: [round(x, 3) for x in v] for k, v in walls.items()},
            "x_real_time_median": {k: round(audio_s / v, 1) for k, v in median.items()},
            "rate_ratio_studio_over_cli": round(median["cli"] / median["studio"], 3),
            "rate_ratio_settled_over_cli": round(median["cli"] / median["studio-settled"], 3),
            "details": details,
        }
        if args.json:
            print(json.dumps(summary))
            return 0
        print(f"{Path(args.project).name}: {audio_s:.1f} s of audio, cached; medians of {args.rounds} rounds; "
              f"load average {' '.join(f'{v:.1f}' for v in summary['load_average'])}")
        for k, v in median.items():
            print(f"  {k:<15} {v:6.2f} s  {audio_s / v:6.1f}x real time")
        print(f"studio / cli rate          {summary['rate_ratio_studio_over_cli']:.2f}  (target >= 1.0; the cli "
              f"includes its process start, the studio excludes it)")
        print(f"studio settled / cli rate  {summary['rate_ratio_settled_over_cli']:.2f}")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
