"""The open production: its file, undo commands, autosave, settings and thread hand-over."""
