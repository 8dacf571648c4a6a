"""The studio names the system libraries its Qt lacks, in one line, before Qt can abort
(app/qt_libraries.py, run by app/launch.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from app.qt_libraries import DEBIAN_PACKAGES, describe, missing_libraries, platform_name
from tests.support.paths import REPO, SAMPLE

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the check is the Linux loader's")


def _pyside() -> Path:
    import PySide6

    return Path(PySide6.__file__).parent


def _plugin_needing(tmp_path: Path, absent: bytes) -> Path:
    """A copy of the real xcb platform plugin whose list of needed libraries names ``absent``
    instead of libxcb-keysyms.so.1 (a name of the same length, so the ELF stays whole), beside
    the wheel's Qt libraries as the plugin's RUNPATH ($ORIGIN/../../lib) expects: a plugin that
    cannot load here as it could not on a machine without that library."""
    real = _pyside() / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    needed = b"libxcb-keysyms.so.1\x00"
    data = real.read_bytes()
    assert data.count(needed) == 1 and len(absent) == len(needed) - 1
    platforms = tmp_path / "Qt" / "plugins" / "platforms"
    platforms.mkdir(parents=True)
    (tmp_path / "Qt" / "lib").symlink_to(_pyside() / "Qt" / "lib")
    (platforms / "libqxcb.so").write_bytes(data.replace(needed, absent + b"\x00"))
    return platforms


def test_a_platform_plugin_that_cannot_load_is_one_line_naming_the_library_not_a_qt_abort(tmp_path):
    platforms = _plugin_needing(tmp_path, b"libxcb-keysyms.so.9")
    env = os.environ | {"QT_QPA_PLATFORM": "xcb", "QT_QPA_PLATFORM_PLUGIN_PATH": str(platforms),
                        "DISPLAY": ":999", "HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-m", "app.launch", "studio", str(SAMPLE)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr  # Qt's abort is -6 (SIGABRT)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("radioplay: error: the studio's window (Qt, xcb platform) needs")
    assert "libxcb-keysyms.so.9" in lines[0] and "Traceback" not in done.stderr


def test_the_offscreen_platform_the_suite_runs_on_lacks_nothing():
    """No false alarm: where Qt runs (every studio test here runs it offscreen) the check passes."""
    assert missing_libraries({"QT_QPA_PLATFORM": "offscreen"}) is None


def test_the_message_names_each_missing_library_and_the_packages_that_install_them():
    line = describe(["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libgthread-2.0.so.0", "libglib-2.0.so.0"],
                    "xcb", apt=True)
    assert "libxcb-icccm.so.4 libxcb-keysyms.so.1" in line
    assert line.endswith("apt-get install libxcb-icccm4 libxcb-keysyms1 libglib2.0-0")  # one package once
    assert "\n" not in line
    elsewhere = describe(["libxcb-icccm.so.4", "libfoo.so.3"], "xcb", apt=False)
    assert "on Debian and Ubuntu:" in elsewhere and "libfoo.so.3" in elsewhere


def test_the_platform_checked_is_the_one_qt_tries_first():
    assert platform_name({}) == "xcb"
    assert platform_name({"QT_QPA_PLATFORM": "offscreen"}) == "offscreen"
    assert platform_name({"QT_QPA_PLATFORM": "wayland;xcb"}) == "wayland"
    assert platform_name({"QT_QPA_PLATFORM": "vnc:size=800x600"}) == "vnc"
    assert platform_name({"XDG_SESSION_TYPE": "wayland", "WAYLAND_DISPLAY": "wayland-0"}) == "wayland"
    assert platform_name({"XDG_SESSION_TYPE": "wayland"}) == "xcb"  # no compositor to talk to


GLIBC = ("libc.", "libm.", "libstdc++", "libgcc_s", "libpthread", "libdl.", "librt.", "ld-linux")
REQUIRED = {"zlib1g", "libzstd1"}  # Debian's "required" priority: on every Debian and Ubuntu system


def _system_libraries(*platforms: str) -> set[str]:
    """The system libraries PySide6's QtWidgets and these platform plugins name as needed, with
    the wheel's own Qt libraries they need followed (objdump: what each file itself asks for)."""
    pyside = _pyside()
    qt_lib = pyside / "Qt" / "lib"
    todo = [pyside / "QtWidgets.abi3.so"] + [pyside / "Qt" / "plugins" / "platforms" / f"libq{name}.so"
                                             for name in platforms]
    seen: set[Path] = set()
    system: set[str] = set()
    while todo:
        file = todo.pop()
        if file in seen:
            continue
        seen.add(file)
        done = subprocess.run(["objdump", "-p", str(file)], capture_output=True, text=True, check=True)
        for name in (row.split()[1] for row in done.stdout.splitlines() if row.strip().startswith("NEEDED")):
            if (qt_lib / name).is_file():
                todo.append(qt_lib / name)
            elif not name.startswith(GLIBC + ("libpyside", "libshiboken")):
                system.add(name)
    return system


needs_objdump = pytest.mark.skipif(shutil.which("objdump") is None, reason="objdump (binutils) reads what a file needs")


@needs_objdump
def test_every_library_the_wheels_plugins_link_has_its_package_named():
    """The table covers what QtWidgets and the xcb, offscreen and Wayland plugins link (system
    libraries only: the wheel's own Qt and ICU, and glibc's, come with every machine)."""
    assert _system_libraries("xcb", "offscreen", "wayland") - set(DEBIAN_PACKAGES) == set()


def _apt_lines(text: str) -> list[set[str]]:
    """The packages of each `apt-get install` command in ``text`` (continued lines joined)."""
    joined = text.replace("\\\n", " ")
    return [{word for word in line.split("install", 1)[1].split() if not word.startswith("-")}
            for line in joined.splitlines() if line.strip().startswith(("sudo apt-get install", "$SUDO apt-get install"))]


@needs_objdump
def test_the_readme_names_what_the_studio_needs_and_ci_installs_it():
    readme = _apt_lines((REPO / "README.md").read_text(encoding="utf-8"))
    assert len(readme) == 2, readme  # one line for the studio, one for the tests
    studio, tests = readme
    xcb = {DEBIAN_PACKAGES[name] for name in _system_libraries("xcb")} - REQUIRED
    assert xcb - studio == set()
    assert {"python3-venv", "make", "libportaudio2"} <= studio
    ci = set().union(*_apt_lines((REPO / ".ci" / "run").read_text(encoding="utf-8")))
    ci |= {"libglib2.0-0"} if '"$GLIB"' in ci else set()  # the name it installs under, by release
    assert (studio | tests) - ci == set()
