"""Errors a producer can act on: each names the voice file, role or line."""

from __future__ import annotations


class VoiceError(RuntimeError):
    """A voice cannot be found, read or used (names the file or voice id)."""


class TextError(ValueError):
    """A line's text cannot be spoken (empty, or nothing speakable left)."""
