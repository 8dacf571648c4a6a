"""The script's row heights on a long script: ``python bench/script_rows.py [--lines 2000]``.

The Line column wraps, so a new width (the window resized, a column dragged) changes every
row's height. Qt's way (``resizeRowsToContents``, each row measured by asking every cell)
fits them all in one go; app/script/row_heights.py asks only the cells that wrap and fits the
rows in view first, then a chunk per turn of the event loop. This times, on the sample's
lines repeated to ``--lines`` in a real ScriptEditor (offscreen):

- Qt's pass: every row measured by ``QTableView.sizeHintForRow`` and set, in one go: the
  event loop stops for all of it;
- the script's pass: each turn of the event loop (:meth:`RowHeights._work`) until every row
  is fitted; the longest turn is the longest the event loop stops.

It prints both and their ratios (measured in the same run: figures from another machine or
load do not compare). Runs headless (QT_QPA_PLATFORM=offscreen is set if no platform is chosen).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(REPO))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="passes of each kind; the best is kept")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication, QTableView

    from app.document.document import Document
    from app.script.editor import ScriptEditor
    from engine.project.fileformat import load_project

    app = QApplication.instance() or QApplication([])
    project = load_project(REPO / "samples" / "the-last-broadcast.radioplay")
    lines = [replace(project.lines[i % len(project.lines)], id=f"L{i:05d}") for i in range(args.lines)]
    editor = ScriptEditor(Document(replace(project, lines=lines)))
    editor.resize(1000, 700)
    editor.show()
    app.processEvents()
    view, heights = editor.view, editor.view.heights
    while heights.pending():
        app.processEvents()
    rows = editor.model.rowCount()

    def qt_pass() -> float:
        start = time.perf_counter()
        header = view.verticalHeader()
        for row in range(rows):  # what resizeRowsToContents does, with Qt's own measure of a row
            header.resizeSection(row, max(QTableView.sizeHintForRow(view, row), header.sectionSizeHint(row)))
        return time.perf_counter() - start

    turns: list[float] = []
    work = heights._work

    def timed_work() -> None:
        start = time.perf_counter()
        work()
        turns.append(time.perf_counter() - start)

    heights._timer.timeout.disconnect()
    heights._timer.timeout.connect(timed_work)

    def script_pass() -> tuple[float, float, int]:
        turns.clear()
        heights.all()
        while heights.pending():
            app.processEvents()
        return max(turns), sum(turns), len(turns)

    qt = min(qt_pass() for _ in range(args.repeat))
    longest, total, count = min(script_pass() for _ in range(args.repeat))
    print(f"{rows} rows ({args.lines} lines), Line column {view.columnWidth(5)} px")
    print(f"Qt's pass, in one go:          {qt * 1000:7.1f} ms")
    print(f"the script's pass, in {count:3d} turns: {total * 1000:7.1f} ms, the longest turn {longest * 1000:6.1f} ms")
    print(f"the event loop's longest stop: {qt / longest:5.1f}x shorter; all rows fitted in {total / qt:4.2f}x "
          "Qt's time")
    editor.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
