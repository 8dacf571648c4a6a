"""The script editor: its table model, editing, clipboard, find, check marks and the lit word."""
