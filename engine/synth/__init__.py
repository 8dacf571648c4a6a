"""Voices: library, Piper backend, text frontend, voice shaping, pipeline."""
