"""Modal dialogs: export, import and crash recovery."""
