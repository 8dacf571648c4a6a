"""Kokoro-82M voices: the backend, where its model and style vectors come from, its phonemes."""
