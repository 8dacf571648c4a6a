"""The ``radioplay`` command: ``studio`` (also with no verb) opens the window,
every other verb is engine/cli.py's, run without importing Qt.

This module imports Qt only inside :func:`studio` (through app/main.py), so
``radioplay render`` and ``radioplay --version`` start as fast as the engine
alone and work where PySide6 is not installed; an import-linter contract keeps
Qt out of this module and tests/app/test_launch.py checks it at run time.
The desktop build's executable (packaging/radioplay_main.py) runs :func:`main`.
"""

from __future__ import annotations

import argparse
import sys

from engine import cli
from engine.export.command import add_device_option

QT_MODULES = ("PySide6", "shiboken6", "pyqtgraph")


def add_studio(verbs: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = verbs.add_parser("studio", help="open the studio window (the default with no command)")
    p.add_argument("project", nargs="?", help="project file to open (.radioplay), or a script to import "
                                              "(.fountain, .spmd, .txt: opens File > Import Script of it)")
    p.add_argument("--output", dest="output_device", help="sound device name, or 'null' for no sound")
    add_device_option(p, default=None, remembered=True)
    p.add_argument("--self-test", metavar="REPORT.json",
                   help="diagnostics: open the window, wait until it is usable, write what it loaded to "
                        "REPORT.json (and a screenshot beside it), close; exit status 1 if it never got usable")
    p.set_defaults(func=studio)


def studio(args: argparse.Namespace) -> int:
    """Open the studio window. Qt is imported here, on demand, once the system
    libraries it needs are known to be there (app/qt_libraries.py)."""
    from app.qt_libraries import missing_libraries

    problem = missing_libraries()
    if problem:
        print(f"radioplay: error: {problem}", file=sys.stderr)
        return 1
    device = getattr(args, "device", None)
    if device is not None:  # asked for on the command line: not there is an error, as for render
        from engine.synth.backends.synth_device import choose_device

        try:
            choose_device(device)
        except ValueError as exc:
            print(f"radioplay: error: {exc}", file=sys.stderr)
            return 1
    try:
        from app.main import run
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith(QT_MODULES):
            raise  # a broken install of the studio itself: show the traceback
        print(f"radioplay: error: the studio window needs PySide6 ({exc}); the headless verbs work "
              f"without it (radioplay --help)", file=sys.stderr)
        return 1
    return run(getattr(args, "project", None), output=getattr(args, "output_device", None),
               self_test=getattr(args, "self_test", None), device=device)


def main(argv: list[str] | None = None) -> int:
    args = cli.build_parser(add_studio).parse_args(argv)
    if not getattr(args, "command", None):
        return studio(args)
    return cli.run(args)


if __name__ == "__main__":
    sys.exit(main())
