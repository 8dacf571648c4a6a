"""The PySide6 studio (windows, widgets, EngineThread). May import engine; never the reverse."""

from app import qt_compat as _qt_compat  # noqa: F401 - must run before any widget is made
