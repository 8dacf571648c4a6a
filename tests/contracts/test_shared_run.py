"""The run-wide results of tests/support/shared_run.py: made once however many workers ask
at the same moment, read whole by the others, and made again when a worker died half way."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO
from tests.support.shared_run import made_once

# A worker: asks for the shared folder, slowly made (the others must wait, not make it too),
# and prints what it read.
WORKER = """
import sys, time
from pathlib import Path
from tests.support.shared_run import made_once

def make(folder):
    with open(Path(sys.argv[1]) / "makers.log", "a") as log:
        log.write(sys.argv[2] + "\\n")
    time.sleep(1.0)
    (folder / "result.txt").write_text("whole")

print(sys.argv[2], (made_once(Path(sys.argv[1]), "shared", make) / "result.txt").read_text())
"""


def test_workers_asking_at_once_make_it_once_and_all_read_it_whole(tmp_path: Path) -> None:
    workers = [subprocess.Popen([sys.executable, "-c", WORKER, str(tmp_path), f"gw{i}"], cwd=REPO,
                                stdout=subprocess.PIPE, text=True) for i in range(3)]
    outputs = [w.communicate(timeout=300)[0].split() for w in workers]
    assert [w.returncode for w in workers] == [0, 0, 0]
    assert sorted(outputs) == [["gw0", "whole"], ["gw1", "whole"], ["gw2", "whole"]]
    assert len((tmp_path / "makers.log").read_text().split()) == 1


def test_a_half_made_folder_is_made_again_and_a_whole_one_is_not(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "partial.npy").write_bytes(b"half")  # a worker died here: no .done
    made: list[Path] = []

    def make(folder: Path) -> None:
        made.append(folder)
        (folder / "result.txt").write_text("whole")

    folder = made_once(tmp_path, "shared", make)
    assert made == [folder] and sorted(p.name for p in folder.iterdir()) == ["result.txt"]
    assert made_once(tmp_path, "shared", make) == folder and len(made) == 1
