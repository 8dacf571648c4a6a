"""Script importers: each parses to a ParsedScript; build.py casts it."""
