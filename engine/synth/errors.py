"""Errors a producer can act on: each names the voice file, role or line."""

from __future__ import annotations


class VoiceError(RuntimeError):
    """A voice cannot be found, read or used (names the file or voice id)."""


class VoiceNotInstalled(VoiceError):
    """A role names a voice this machine does not have. Nothing is wrong with the role or
    its lines, and nothing failed: the voice is to be installed (``how``) or the role recast.
    ``voice`` is the id as the cast shows it (``kokoro:jf_nezumi``, ``en_GB-alan-medium``)."""

    def __init__(self, voice: str, how: str, installed: str) -> None:
        super().__init__(f"voice {voice} is not installed: {how} (installed: {installed})")
        self.voice, self.how, self.installed = voice, how, installed


class TextError(ValueError):
    """A line's text cannot be spoken (empty, or nothing speakable left)."""


class CatalogueError(ValueError):
    """A voice catalogue cannot be read, or lacks the voice asked for (names the source and key)."""


class DownloadError(RuntimeError):
    """A download failed: offline, HTTP error, size or checksum mismatch, full disk.

    Nothing is installed under a final name when this is raised."""
