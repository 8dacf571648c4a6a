"""Errors a producer can act on: each names the voice file, role or line."""

from __future__ import annotations


class VoiceError(RuntimeError):
    """A voice cannot be found, read or used (names the file or voice id)."""


class TextError(ValueError):
    """A line's text cannot be spoken (empty, or nothing speakable left)."""


class CatalogueError(ValueError):
    """A voice catalogue cannot be read, or lacks the voice asked for (names the source and key)."""


class DownloadError(RuntimeError):
    """A download failed: offline, HTTP error, size or checksum mismatch, full disk.

    Nothing is installed under a final name when this is raised."""
