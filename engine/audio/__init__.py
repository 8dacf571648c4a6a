"""Audio: clip cache, block mixer, loudness, limiter, offline renderer."""
