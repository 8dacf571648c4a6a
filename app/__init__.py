"""The PySide6 studio (windows, widgets, the engine link and presenter). May import engine; never the reverse."""
