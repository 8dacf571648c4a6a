"""Radioplay engine: everything that runs without Qt (CLI, server, tests)."""

__version__ = "0.1.0"

# Bumped whenever synthesis or voice shaping changes in a way that makes old
# cached clips sound different from what the current engine would produce.
# It is part of every clip cache key.
ENGINE_VERSION = "3"  # 2: lines loudness-levelled (was peak-levelled); 3: seeded noise (takes)
