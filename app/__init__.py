"""The PySide6 studio (windows, widgets, EngineThread). May import engine; never the reverse."""
