"""Piper (VITS) voices: the backend, the model patched for Radioplay, its seeded noise."""
