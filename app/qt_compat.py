"""Work around a reference-counting bug in PySide6 6.12.0 on CPython 3.11.

In that release every call of a C++ method that returns ``void`` (``show``,
``setToolTip``, ``processEvents``, ...) gives back one reference to
``None`` it never took, and every ``Signal.emit()`` one reference to
``True``. From Python 3.12 on these singletons are immortal and nothing
happens; on 3.11 their counts run down by one per call, and after some
thousands of calls (seconds of a live window, or a pytest-qt run) the
interpreter aborts with "none_dealloc: deallocating None" or
"bool_dealloc". 6.11.x does not have the bug. The guard below detects the
leak by measuring it and, only then, makes ``None``, ``True`` and ``False``
as good as immortal, which is what CPython 3.12 does.
"""

from __future__ import annotations

import ctypes
import sys

_MARGIN = 1 << 48  # ~3e14 leaked references: centuries of calls


def guard_none_refcount() -> bool:
    """Returns True when the leak was found and the guard applied."""
    if sys.version_info >= (3, 12):
        return False
    from PySide6.QtCore import QObject

    probe = QObject()
    before = sys.getrefcount(None)
    for _ in range(64):
        probe.setObjectName("probe")
    leaked = before - sys.getrefcount(None)
    if leaked < 32:
        return False
    for singleton in (None, True, False):
        ctypes.c_ssize_t.from_address(id(singleton)).value += _MARGIN
    return True


GUARDED = guard_none_refcount()
