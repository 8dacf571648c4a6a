"""The system libraries the studio's Qt needs, checked before Qt is loaded.

PySide6's wheels carry Qt itself but not the X11, OpenGL and font libraries of
the system it runs on. Where one is missing, importing QtGui fails with a
loader error, and a platform plugin that cannot load makes Qt abort the
process with advice about a library that is often not the missing one
(``xcb-cursor0 ... is needed`` where libxcb-icccm4 is what is missing). This
module asks the dynamic loader (``ldd``) which libraries of QtWidgets and of
the platform plugin Qt will use are not found, and says in one line which
Debian packages provide them. It imports no Qt (app/launch.py runs it before
the studio's first Qt import) and costs one ``ldd`` run of two files.

The platform is the one Qt picks: ``QT_QPA_PLATFORM`` (its first entry: with
``wayland;xcb`` Qt falls back to the next, so the check asks only that one
platform load), else Wayland in a Wayland session, else xcb. The plugin is
looked up where Qt looks (``QT_QPA_PLATFORM_PLUGIN_PATH``, ``QT_PLUGIN_PATH``,
then PySide6's own folder). Off Linux, in the desktop build (which carries
these libraries), or where ``ldd`` or the plugin is not there, nothing is
checked (Qt's own message stands).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

LDD_TIMEOUT_S = 20.0

# soname -> the Debian (and Ubuntu) package that provides it: the system libraries PySide6's
# QtWidgets, its xcb, offscreen and Wayland platform plugins and the wheel's Qt libraries they
# load link (objdump -p: tests/app/test_qt_libraries.py keeps the table whole).
DEBIAN_PACKAGES: Mapping[str, str] = {
    "libGL.so.1": "libgl1",
    "libEGL.so.1": "libegl1",
    "libGLX.so.0": "libglx0",
    "libGLdispatch.so.0": "libglvnd0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libpng16.so.16": "libpng16-16",
    "libz.so.1": "zlib1g",
    "libzstd.so.1": "libzstd1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libwayland-client.so.0": "libwayland-client0",
    "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
}


def platform_name(environ: Mapping[str, str]) -> str:
    """The platform plugin Qt tries first, as Qt 6 chooses it on Linux."""
    asked = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if asked:
        return asked
    if environ.get("XDG_SESSION_TYPE") == "wayland" and environ.get("WAYLAND_DISPLAY"):
        return "wayland"
    return "xcb"


def _qt_dir() -> Path | None:
    """PySide6's Qt folder, found without importing PySide6."""
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def platform_plugin(name: str, environ: Mapping[str, str], pyside: Path | None) -> Path | None:
    """The plugin file Qt loads for platform ``name``, searched where Qt searches."""
    folders = [Path(p) for p in environ.get("QT_QPA_PLATFORM_PLUGIN_PATH", "").split(os.pathsep) if p]
    folders += [Path(p) / "platforms" for p in environ.get("QT_PLUGIN_PATH", "").split(os.pathsep) if p]
    if pyside is not None:
        folders.append(pyside / "Qt" / "plugins" / "platforms")
    for folder in folders:
        plugin = folder / f"libq{name}.so"
        if plugin.is_file():
            return plugin
    return None


def not_found(files: Iterable[Path], ldd: str) -> list[str]:
    """The sonames the dynamic loader cannot find for ``files``, in the order ldd names them."""
    missing: list[str] = []
    for file in files:
        try:
            done = subprocess.run([ldd, str(file)], capture_output=True, text=True, timeout=LDD_TIMEOUT_S,
                                  check=False)
        except (OSError, subprocess.SubprocessError):
            continue  # no verdict: Qt's own message stands
        for row in done.stdout.splitlines():
            name, _, where = row.strip().partition("=>")
            if where.strip() == "not found" and name.strip() not in missing:
                missing.append(name.strip())
    return missing


def describe(missing: list[str], platform: str, apt: bool) -> str:
    """One line: what is missing, and the command that installs it."""
    packages = list(dict.fromkeys(DEBIAN_PACKAGES[s] for s in missing if s in DEBIAN_PACKAGES))
    unknown = [s for s in missing if s not in DEBIAN_PACKAGES]
    what = f"the studio's window (Qt, {platform} platform) needs system libraries that are not installed: " \
           + " ".join(missing)
    if not packages:
        return f"{what} (install the packages that provide them)"
    sudo = "sudo " if os.geteuid() != 0 else ""
    install = f"{sudo}apt-get install " + " ".join(packages)
    how = install if apt else f"on Debian and Ubuntu: {install}"
    return f"{what}; install them: {how}" + (f" (and whatever provides {' '.join(unknown)})" if unknown else "")


def missing_libraries(environ: Mapping[str, str] | None = None) -> str | None:
    """Why the studio's Qt cannot load here (one line), or None when nothing is known to be missing."""
    if not sys.platform.startswith("linux") or getattr(sys, "frozen", False):
        return None  # the desktop build carries the libraries it found (packaging/README.md)
    env = os.environ if environ is None else environ
    ldd = shutil.which("ldd")
    pyside = _qt_dir()
    if ldd is None or pyside is None:
        return None
    platform = platform_name(env)
    files = [pyside / name for name in ("QtWidgets.abi3.so",) if (pyside / name).is_file()]
    plugin = platform_plugin(platform, env, pyside)
    if plugin is not None:
        files.append(plugin)
    missing = not_found(files, ldd)
    return describe(missing, platform, shutil.which("apt-get") is not None) if missing else None
