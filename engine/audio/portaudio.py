"""Finding PortAudio (sounddevice + rtmixer) without crashing where it is absent.

``sounddevice`` loads the PortAudio shared library at import time and raises
OSError when it is missing. Everything that can play headless (the null sink,
renders, the studio without sound) must keep working then, and the producer
must be told how to get sound, so the import happens here, once, lazily.
"""

from __future__ import annotations

import threading
from typing import Any

MISSING_PORTAUDIO = ("no sound: the PortAudio library is missing "
                     "(install it: `sudo apt-get install libportaudio2`); playing on the silent null output")

_lock = threading.Lock()
_loaded: dict[str, Any] = {}
_error: list[str] = []


def _load() -> None:
    with _lock:
        if _loaded or _error:
            return
        try:
            import rtmixer
            import sounddevice
        except OSError as exc:  # sounddevice: "PortAudio library not found"
            _error.append(f"{MISSING_PORTAUDIO} [{exc}]")
            return
        except ImportError as exc:
            _error.append(f"no sound: {exc} (reinstall radioplay's dependencies)")
            return
        _loaded["sd"] = sounddevice
        _loaded["rtmixer"] = rtmixer


def load_sounddevice() -> Any | None:
    _load()
    return _loaded.get("sd")


def load_rtmixer() -> Any | None:
    _load()
    return _loaded.get("rtmixer")


def portaudio_error() -> str | None:
    """Why there is no sound device support, or None when there is."""
    _load()
    return _error[0] if _error else None


def refresh_devices() -> None:
    """Re-scan the devices (PortAudio only lists them at initialization)."""
    sd = load_sounddevice()
    if sd is not None:
        sd._terminate()
        sd._initialize()


def output_devices() -> list[str]:
    """Names of the devices that can play stereo, as PortAudio lists them."""
    sd = load_sounddevice()
    if sd is None:
        return []
    return [str(d["name"]) for d in sd.query_devices() if int(d["max_output_channels"]) >= 2]


def find_output_device(name: str) -> int | None:
    """Index of the output device called ``name`` (exact match first, then
    case-insensitive substring), or None. Devices are remembered by name
    because indices change when devices come and go."""
    sd = load_sounddevice()
    if sd is None:
        return None
    devices = [(i, str(d["name"])) for i, d in enumerate(sd.query_devices()) if int(d["max_output_channels"]) >= 2]
    for index, device in devices:
        if device == name:
            return index
    lowered = name.lower()
    for index, device in devices:
        if lowered in device.lower():
            return index
    return None
