"""PyInstaller runtime hook: let sounddevice find the PortAudio library in the bundle.

sounddevice locates PortAudio with ``ctypes.util.find_library("portaudio")``,
which on Linux asks ldconfig/gcc and never looks inside the bundle, then
dlopens the result through cffi (so PyInstaller's own ctypes patch does not
apply). This hook answers that one question with the bundled copy when it
loads here (it needs the system's libasound, which is not bundled: see
packaging/README.md) and otherwise with the system's answer, so a machine
without ``libportaudio2`` still has sound and one where the bundled copy
cannot load still uses its own.
"""


def _install() -> None:
    import ctypes
    import ctypes.util
    import os
    import sys

    bundled = os.path.join(getattr(sys, "_MEIPASS", ""), "libportaudio.so.2")
    system_find = ctypes.util.find_library
    state: dict[str, str | None] = {}

    def find_library(name: str) -> str | None:
        if name != "portaudio":
            return system_find(name)
        if "path" not in state:
            state["path"] = None
            if os.environ.get("RADIOPLAY_PORTAUDIO") != "system" and os.path.isfile(bundled):
                try:
                    ctypes.CDLL(bundled)
                    state["path"] = bundled
                except OSError:
                    pass
            if state["path"] is None:
                state["path"] = system_find(name)
        return state["path"]

    ctypes.util.find_library = find_library


_install()
del _install
