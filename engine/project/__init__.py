"""Project model, .radioplay file format, timeline and script importers."""
