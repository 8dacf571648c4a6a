"""The desktop build's one executable: the same ``engine.cli:main`` as the
``radioplay`` console script, so ``radioplay`` with no arguments opens the
studio and ``radioplay render ...`` and the other headless verbs work from
the bundle.

``RADIOPLAY_SMOKE_REPORT=FILE`` turns on the smoke-test hook (see
packaging/smoke_hook.py): the studio opens, waits until it is usable, writes
a JSON report to FILE and closes itself. Without it nothing changes.
"""

from __future__ import annotations

import os
import sys


def main() -> int:
    report = os.environ.get("RADIOPLAY_SMOKE_REPORT")
    if report:
        import smoke_hook

        smoke_hook.install(report)
    from engine.cli import main as cli_main

    return int(cli_main())


if __name__ == "__main__":
    sys.exit(main())
