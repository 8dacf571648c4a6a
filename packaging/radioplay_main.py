"""The desktop build's one executable: the same ``app.launch:main`` as the
``radioplay`` console script, so ``radioplay`` with no arguments opens the
studio, ``radioplay render ...`` and the other headless verbs work from the
bundle, and ``radioplay studio --self-test REPORT.json`` (app/self_test.py)
gives the smoke test its report.
"""

from __future__ import annotations

import sys

from app.launch import main

if __name__ == "__main__":
    sys.exit(main())
