"""The desktop build's one executable: the same ``app.launch:main`` as the
``radioplay`` console script, so ``radioplay`` with no arguments opens the
studio, ``radioplay render ...`` and the other headless verbs work from the
bundle, and ``radioplay studio --self-test REPORT.json`` (app/shell/self_test.py)
gives the smoke test its report.
"""

from __future__ import annotations

import multiprocessing
import sys

from app.launch import main

if __name__ == "__main__":
    # The studio's speech check runs its recognizer in a spawned process
    # (engine/session/checking.py): frozen, that process starts this executable.
    multiprocessing.freeze_support()
    sys.exit(main())
