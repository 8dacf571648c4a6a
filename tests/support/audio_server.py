"""A private PulseAudio server with a null sink, for end-to-end playback tests.

The live-playback tests play through PortAudio (``sounddevice``) into a real
audio server and record what it received, with no sound hardware:

    PortAudio (ALSA host API) -> ALSA "pulse" plugin -> private pulseaudio
        -> null sink ``radioplay_test`` -> its monitor -> parec -> numpy

PortAudio from Debian has only the ALSA and OSS host APIs, so it reaches the
server through the ALSA pulse plugin (package libasound2-plugins). Nothing here
reads or writes the user's home, real sound server or ALSA configuration: the
daemon, its sockets, state and config, the ALSA configuration PortAudio sees
and the recordings all live in one temporary folder.

Use (the ``pulse_server`` fixture in conftest.py does the first three steps)::

    with PulseServer() as server, server.activated() as sd:
        device = find_output_device(server.device_name)
        with server.recorder() as rec:
            ...play through sd.OutputStream(device=device, latency=0.2, ...)...
            rec.wait_for_frames(rec.frames_recorded + server.rate // 4)
        offset, corr = locate(rec.audio[:, 0], reference)

Facts learned the hard way (see also ``PulseServer`` and ``MonitorRecorder``):

- PortAudio lists devices only when it initializes, and ``import sounddevice``
  initializes it. The environment (``PulseServer.env``) must be in
  ``os.environ`` before that, or PortAudio re-initialized afterwards:
  ``activated()`` / ``use_environment()`` do both.
- Closing an output stream right after the callback finished drops what the
  pulse plugin still buffers (about the stream latency: the plugin's drain
  returns before the server played it). Pad what you play with trailing
  silence longer than the latency (0.5 s is plenty), and with some leading
  silence too.
- The recording starts with silence of no fixed length (recorder start-up,
  stream start, buffering): find the signal by cross-correlation (``locate``).
- With a float32 48 kHz stereo stream into the float32 48 kHz stereo null sink
  at unity volume the path is bit-exact; other formats or rates get converted
  or resampled by the server.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

import numpy as np

SINK_NAME = "radioplay_test"
SAMPLE_RATE = 48_000
CHANNELS = 2
# parec's format; the null sink uses the same so nothing is converted.
SAMPLE_FORMAT = "float32le"

# sockaddr_un.sun_path is 108 bytes on Linux, with the terminating NUL.
_MAX_SOCKET_PATH = 100


class PulseServerError(RuntimeError):
    """The private PulseAudio server (or its recorder) did not start or answer."""


def missing_requirements() -> str | None:
    """Why live-audio tests cannot run on this machine, or None when they can.

    Only the two things CI installs count: the ``pulseaudio`` binary and the
    PortAudio library. Anything else missing (pactl, parec, the ALSA pulse
    plugin) is a broken installation and must fail the test, not skip it.
    """
    if shutil.which("pulseaudio") is None:
        return "the pulseaudio binary is not installed (apt-get install pulseaudio)"
    has_bundled = importlib.util.find_spec("_sounddevice_data") is not None  # macOS/Windows wheels
    if ctypes.util.find_library("portaudio") is None and not has_bundled:
        return "the PortAudio library is not installed (apt-get install libportaudio2)"
    return None


def _parent_death_signal() -> Callable[[], None] | None:
    """A preexec_fn that makes the child get SIGTERM when this process dies,
    so a killed test run leaves no daemon behind (Linux only), and SIGINT interrupt it."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1
    sigterm = int(signal.SIGTERM)

    def preexec() -> None:
        prctl(pr_set_pdeathsig, sigterm, 0, 0, 0)
        # A suite started in the background (`make test &`, nohup) has SIGINT ignored, and a
        # child inherits that: parec, stopped by SIGINT, would run on until it is killed.
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    return preexec


def _stop_process(proc: subprocess.Popen[bytes], sig: int, timeout: float) -> None:
    """Send ``sig``, wait up to ``timeout`` s, then SIGKILL and reap."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)


class PulseServer:
    """A private ``pulseaudio`` daemon with one null sink, in a temporary folder.

    The daemon runs in the foreground of a child process (``--daemonize=no``),
    as the current user, root included (``--system=no``; as root it only
    warns), with no default script (``-n``), no pid file, no idle exit, no
    D-Bus, no real-time scheduling and no shared memory. It loads exactly:

    - ``module-null-sink`` named ``sink`` (float32le, ``rate`` Hz, stereo), whose
      monitor source is ``<sink>.monitor``;
    - ``module-native-protocol-unix`` on ``<root>/run/native``, anonymous auth.

    ``env`` holds the variables a client needs to reach it; ``child_env()`` is
    ``os.environ`` plus those, for subprocesses; ``use_environment()`` and
    ``activated()`` put them in ``os.environ`` for this process:

    - ``PULSE_SERVER``: ``unix:<root>/run/native`` (libpulse, pactl, parec)
    - ``PULSE_SINK`` / ``PULSE_SOURCE``: the null sink / its monitor
    - ``PULSE_CLIENTCONFIG``: a client.conf with ``autospawn = no``, so a
      client never starts the user's own daemon when this one is gone
    - ``PULSE_COOKIE``, ``PULSE_RUNTIME_PATH``: in the temporary folder, so
      libpulse writes nothing into the user's home
    - ``ALSA_CONFIG_PATH``: an ALSA configuration that defines only three PCMs,
      the pulse plugin on this server's null sink: ``radioplay_test``
      (``device_name``) and ``default``, and on its monitor ``radioplay_test_mic``
      (``mic_name``: an input that hears what is played into the sink, for the
      table read's microphone path). PortAudio therefore lists exactly these
      devices (host API "ALSA").

    ``root``: the folder to use (kept after ``stop()``, so the log can be read);
    default: a fresh temporary folder, removed by ``stop()``. The log of the
    daemon is ``<root>/pulseaudio.log`` (``log_text()``).

    The daemon gets SIGTERM when the thread that started it dies (Linux
    parent-death signal), so start it from the main thread.
    """

    def __init__(
        self,
        root: Path | str | None = None,
        *,
        sink: str = SINK_NAME,
        rate: int = SAMPLE_RATE,
        channels: int = CHANNELS,
        start_timeout: float = 60.0,
    ) -> None:
        self.sink = sink
        self.monitor = f"{sink}.monitor"
        self.device_name = sink  # the ALSA PCM, and so the PortAudio device, name
        self.mic_name = f"{sink}_mic"  # a PortAudio input: records the sink's monitor (a microphone hearing it)
        self.rate = rate
        self.channels = channels
        self.start_timeout = start_timeout
        self._own_root = root is None
        self.root = Path(tempfile.mkdtemp(prefix="radioplay-pulse-")) if root is None else Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.root = self.root.resolve()
        run_dir = self.root / "run"
        self._extra_dirs: list[Path] = []
        if len(str(run_dir / "native")) > _MAX_SOCKET_PATH:
            run_dir = Path(tempfile.mkdtemp(prefix="rp-pulse-"))
            self._extra_dirs.append(run_dir)
        self.run_dir = run_dir
        self.socket = run_dir / "native"
        self.server = f"unix:{self.socket}"
        self.log_path = self.root / "pulseaudio.log"
        self.alsa_config = self.root / "asound.conf"
        self.env: dict[str, str] = {
            "PULSE_SERVER": self.server,
            "PULSE_SINK": self.sink,
            "PULSE_SOURCE": self.monitor,
            "PULSE_CLIENTCONFIG": str(self.root / "client.conf"),
            "PULSE_COOKIE": str(self.root / "client-cookie"),
            "PULSE_RUNTIME_PATH": str(self.run_dir),
            "ALSA_CONFIG_PATH": str(self.alsa_config),
        }
        self.info = ""  # `pactl info` once it answered
        self.proc: subprocess.Popen[bytes] | None = None
        self._log_file: Any = None
        self._recorders: list[MonitorRecorder] = []

    # -- lifecycle ---------------------------------------------------------

    def __enter__(self) -> PulseServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> PulseServer:
        """Start the daemon and wait until ``pactl info`` answers and the sink exists.

        Raises PulseServerError (with the daemon's log) when it exits early or
        does not answer within ``start_timeout`` seconds.
        """
        if self.proc is not None:
            raise PulseServerError("this PulseServer was already started")
        for tool in ("pulseaudio", "pactl", "parec"):
            if shutil.which(tool) is None:
                raise PulseServerError(f"`{tool}` is not installed (apt-get install pulseaudio pulseaudio-utils)")
        self._write_config()
        daemon_env = self._daemon_env()
        cmd = [
            "pulseaudio",
            "--daemonize=no", "--system=no", "--use-pid-file=no",
            "--exit-idle-time=-1", "--disallow-exit=yes",
            "--realtime=no", "--high-priority=no", "--no-cpu-limit=yes",
            "--disable-shm=yes",
            "-n",  # no default.pa: only the modules below
            "--fail=yes",
            "--log-target=stderr", "--log-level=info", "--log-time=yes",
            f"--load=module-null-sink sink_name={self.sink} format={SAMPLE_FORMAT} rate={self.rate} "
            f"channels={self.channels} sink_properties=device.description=Radioplay_test_sink",
            f"--load=module-native-protocol-unix socket={self.socket} auth-anonymous=1",
        ]
        self._log_file = open(self.log_path, "ab")  # noqa: SIM115 - closed in stop()
        try:
            self.proc = subprocess.Popen(
                cmd, env=daemon_env, stdin=subprocess.DEVNULL, stdout=self._log_file,
                stderr=subprocess.STDOUT, cwd=self.root, preexec_fn=_parent_death_signal(),
            )
            self._wait_until_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self, timeout: float = 15.0) -> None:
        """Stop recorders still running, then the daemon (SIGTERM, wait,
        SIGKILL on timeout); remove the temporary folder if it is ours."""
        for rec in list(self._recorders):
            with contextlib.suppress(Exception):
                rec.stop(timeout=timeout)
        if self.proc is not None:
            _stop_process(self.proc, signal.SIGTERM, timeout)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        for extra in self._extra_dirs:
            shutil.rmtree(extra, ignore_errors=True)
        self._extra_dirs.clear()
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)

    def log_text(self, tail: int = 6000) -> str:
        """The last ``tail`` characters of the daemon's log."""
        try:
            return self.log_path.read_text(errors="replace")[-tail:]
        except OSError:
            return ""

    # -- environment -------------------------------------------------------

    def child_env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """``base`` (default ``os.environ``) plus ``env``: for a client subprocess."""
        env = dict(os.environ if base is None else base)
        env.update(self.env)
        return env

    @contextlib.contextmanager
    def use_environment(self) -> Iterator[None]:
        """Put ``env`` into ``os.environ`` for the duration; restore afterwards.
        Does not touch PortAudio (see ``activated``)."""
        saved = {key: os.environ.get(key) for key in self.env}
        os.environ.update(self.env)
        try:
            yield
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    @contextlib.contextmanager
    def activated(self) -> Iterator[ModuleType]:
        """``use_environment()`` plus a PortAudio (re)initialization, so
        ``sounddevice`` sees this server's devices; yields the module. On exit
        the environment is restored and PortAudio initialized again, if it had
        been imported before, so it sees the machine's own devices."""
        was_imported = "sounddevice" in sys.modules
        with self.use_environment():
            sd = reinit_sounddevice()
            try:
                yield sd
            finally:
                _terminate_streams(sd)
        if was_imported:
            reinit_sounddevice()

    # -- clients -----------------------------------------------------------

    def pactl(self, *args: str, timeout: float = 30.0) -> str:
        """Run ``pactl ARGS`` against this server; its stdout. Raises
        PulseServerError when it fails."""
        try:
            done = subprocess.run(["pactl", *args], env=self.child_env(), capture_output=True,
                                  text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            raise PulseServerError(f"pactl {' '.join(args)} timed out after {timeout} s") from exc
        if done.returncode != 0:
            raise PulseServerError(f"pactl {' '.join(args)} failed ({done.returncode}): {done.stderr.strip()}")
        return done.stdout

    def recorder(self, path: Path | str | None = None, *, latency_ms: int = 20) -> MonitorRecorder:
        """A recorder of the null sink's monitor (not started; ``with`` starts it)."""
        if path is None:
            path = self.root / f"monitor-{len(self._recorders):03d}.f32"
        rec = MonitorRecorder(self, Path(path), latency_ms=latency_ms)
        self._recorders.append(rec)
        return rec

    # -- internals ---------------------------------------------------------

    def _write_config(self) -> None:
        for sub in ("home/.config", "state"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.run_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Read by the daemon through PULSE_CONFIG: server defaults equal to the
        # sink's format, so nothing is converted or resampled on the way.
        (self.root / "daemon.conf").write_text(
            f"default-sample-format = {SAMPLE_FORMAT}\n"
            f"default-sample-rate = {self.rate}\n"
            f"alternate-sample-rate = {self.rate}\n"
            f"default-sample-channels = {self.channels}\n"
            "avoid-resampling = yes\n"
            "flat-volumes = no\n"
        )
        (self.root / "client.conf").write_text("autospawn = no\n")
        pulse = f'type pulse\n    server "{self.server}"\n    device "{self.sink}"'
        ctl = f'type pulse\n    server "{self.server}"\n    device "{self.sink}"'
        self.alsa_config.write_text(
            "# Written by tests/support/audio_server.py: the only ALSA devices the test process sees.\n"
            f"pcm.{self.device_name} {{\n    {pulse}\n"
            f'    hint {{\n        show on\n        description "Radioplay test null sink"\n    }}\n}}\n'
            f"ctl.{self.device_name} {{\n    {ctl}\n}}\n"
            f'pcm.{self.mic_name} {{\n    type pulse\n    server "{self.server}"\n    device "{self.monitor}"\n'
            f'    hint {{\n        show on\n        description "Radioplay test microphone (the sink\'s monitor)"\n'
            f"    }}\n}}\n"
            f"pcm.!default {{\n    {pulse}\n}}\n"
            f"ctl.!default {{\n    {ctl}\n}}\n"
        )

    def _daemon_env(self) -> dict[str, str]:
        env = dict(os.environ)
        for key in ("PULSE_SERVER", "PULSE_SINK", "PULSE_SOURCE", "DISPLAY", "WAYLAND_DISPLAY"):
            env.pop(key, None)
        env.update({
            "HOME": str(self.root / "home"),
            "XDG_CONFIG_HOME": str(self.root / "home/.config"),
            "XDG_RUNTIME_DIR": str(self.run_dir),
            "PULSE_RUNTIME_PATH": str(self.run_dir),
            "PULSE_STATE_PATH": str(self.root / "state"),
            "PULSE_CONFIG": str(self.root / "daemon.conf"),
            "PULSE_CLIENTCONFIG": str(self.root / "client.conf"),
            # A user's own session bus may already carry a PulseAudio (its
            # org.PulseAudio1 name would make this daemon exit); give it none.
            "DBUS_SESSION_BUS_ADDRESS": f"unix:path={self.root / 'no-dbus'}",
        })
        return env

    def _wait_until_ready(self) -> None:
        assert self.proc is not None
        deadline = time.monotonic() + self.start_timeout
        last_error = "no answer yet"
        while True:
            code = self.proc.poll()
            if code is not None:
                raise PulseServerError(f"pulseaudio exited with status {code} while starting; "
                                       f"its log ({self.log_path}):\n{self.log_text()}")
            if self.socket.exists():
                try:
                    info = self.pactl("info", timeout=10.0)
                    sinks = self.pactl("list", "short", "sinks", timeout=10.0)
                except PulseServerError as exc:
                    last_error = str(exc)
                else:
                    if any(line.split("\t")[1:2] == [self.sink] for line in sinks.splitlines()):
                        self.info = info
                        return
                    last_error = f"sink {self.sink} missing from: {sinks!r}"
            if time.monotonic() > deadline:
                raise PulseServerError(f"pulseaudio did not answer within {self.start_timeout} s "
                                       f"({last_error}); its log ({self.log_path}):\n{self.log_text()}")
            time.sleep(0.05)


class MonitorRecorder:
    """Records the null sink's monitor with ``parec`` in a background process.

    Raw ``float32le`` frames at the server's rate and channel count go to
    ``path``; ``stop()`` returns them as a float32 array of shape (n, channels)
    (also kept as ``audio``). ``start()`` returns once frames arrive, i.e. the
    record stream is connected, so anything played afterwards is captured.
    While nothing plays the monitor delivers exact zeros.

    ``latency_ms`` is parec's fragment size: without it the server delivers
    recorded data in chunks of up to 2 s, and what is still in the server
    when parec is stopped is lost. Even so, call ``wait_for_frames`` after
    playback to let the tail arrive before stopping.
    """

    def __init__(self, server: PulseServer, path: Path, *, latency_ms: int = 20) -> None:
        self.server = server
        self.path = path
        self.latency_ms = latency_ms
        self.frame_bytes = 4 * server.channels
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = path.with_suffix(".parec.log")
        self.audio: np.ndarray | None = None
        self._file: Any = None
        self._log: Any = None

    def __enter__(self) -> MonitorRecorder:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()

    @property
    def frames_recorded(self) -> int:
        """Frames written so far (grows by the sink's rate in real time)."""
        try:
            return self.path.stat().st_size // self.frame_bytes
        except FileNotFoundError:
            return 0

    def start(self, timeout: float = 60.0) -> MonitorRecorder:
        if self.proc is not None:
            raise PulseServerError("this recorder was already started")
        if not self.server.running:
            raise PulseServerError("the PulseAudio server is not running")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "wb")  # noqa: SIM115 - closed in stop()
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        cmd = [
            "parec", f"--device={self.server.monitor}", f"--format={SAMPLE_FORMAT}",
            f"--channels={self.server.channels}", f"--rate={self.server.rate}", "--raw",
            f"--latency-msec={self.latency_ms}", "--client-name=radioplay-test-recorder",
        ]
        self.proc = subprocess.Popen(cmd, env=self.server.child_env(), stdin=subprocess.DEVNULL,
                                     stdout=self._file, stderr=self._log,
                                     preexec_fn=_parent_death_signal())
        try:
            self.wait_for_frames(1, timeout=timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def wait_for_frames(self, frames: int, timeout: float = 60.0) -> int:
        """Block until at least ``frames`` frames are in the file; returns the count.
        Raises PulseServerError when parec exits or ``timeout`` s pass."""
        deadline = time.monotonic() + timeout
        while True:
            have = self.frames_recorded
            if have >= frames:
                return have
            if self.proc is None or self.proc.poll() is not None:
                raise PulseServerError(f"parec is not recording (exit status "
                                       f"{None if self.proc is None else self.proc.returncode}): "
                                       f"{self._stderr()}")
            if time.monotonic() > deadline:
                raise PulseServerError(f"only {have} of {frames} frames recorded after {timeout} s")
            time.sleep(0.01)

    def stop(self, timeout: float = 15.0) -> np.ndarray:
        """Stop parec (SIGINT, then SIGKILL on timeout) and read the recording."""
        if self.proc is not None:
            _stop_process(self.proc, signal.SIGINT, timeout)
        for handle in (self._file, self._log):
            if handle is not None:
                handle.close()
        self._file = self._log = None
        if self in self.server._recorders:
            self.server._recorders.remove(self)
        if self.audio is None:
            self.audio = self.read()
        return self.audio

    def read(self) -> np.ndarray:
        """What is in the file now, as float32 (n, channels); a partial last frame is dropped."""
        try:
            raw = np.fromfile(self.path, dtype="<f4")
        except FileNotFoundError:
            raw = np.zeros(0, dtype="<f4")
        n = raw.size // self.server.channels
        return raw[: n * self.server.channels].reshape(n, self.server.channels).astype(np.float32)

    def _stderr(self) -> str:
        try:
            return self.log_path.read_text(errors="replace").strip()[-2000:]
        except OSError:
            return ""


# -- PortAudio / sounddevice ----------------------------------------------


def reinit_sounddevice() -> ModuleType:
    """Import ``sounddevice`` or, if it was imported already, re-initialize
    PortAudio, so its device list reflects the current ``os.environ`` (put the
    server's ``env`` there first). Open streams are closed by PortAudio.

    Pa_Terminate only takes effect at the last of nested Pa_Initialize calls,
    so every nesting level sounddevice counts is undone and redone.
    """
    if "sounddevice" not in sys.modules:
        import sounddevice

        return sounddevice
    import sounddevice as sd

    depth = int(sd._initialized)
    for _ in range(depth):
        sd._terminate()
    for _ in range(max(depth, 1)):
        sd._initialize()
    return sd


def _terminate_streams(sd: ModuleType) -> None:
    """Stop sounddevice's convenience stream (sd.play/sd.rec), if any."""
    with contextlib.suppress(Exception):
        sd.stop()


def find_output_device(name: str, sd: ModuleType | None = None) -> int:
    """PortAudio index of the output device called exactly ``name`` (else the
    only one whose name starts with it). Raises LookupError listing what
    PortAudio does see, the usual sign the environment was set too late."""
    if sd is None:
        import sounddevice as sd
    devices = [(i, str(d["name"])) for i, d in enumerate(sd.query_devices())
               if int(d["max_output_channels"]) > 0]
    for index, device in devices:
        if device == name:
            return index
    prefixed = [index for index, device in devices if device.startswith(name)]
    if len(prefixed) == 1:
        return prefixed[0]
    raise LookupError(f"no PortAudio output device {name!r}; PortAudio sees {[d for _, d in devices]} "
                      f"(ALSA_CONFIG_PATH={os.environ.get('ALSA_CONFIG_PATH')!r}; was PortAudio "
                      "initialized before the server's environment was set? see reinit_sounddevice)")


# -- analysis ----------------------------------------------------------------


def locate(recording: np.ndarray, reference: np.ndarray) -> tuple[int, float]:
    """Where ``reference`` (1-D) lies in ``recording`` (1-D), by cross-correlation.

    Returns (offset, coefficient): the sample offset of the correlation peak,
    and the normalized correlation (cosine similarity, -1..1) between the
    reference and the recording segment at that offset; 0.0 for a silent
    segment. The offset is searched where the whole reference fits.
    """
    from scipy.signal import correlate

    rec = np.asarray(recording, dtype=np.float64)
    ref = np.asarray(reference, dtype=np.float64)
    if rec.ndim != 1 or ref.ndim != 1:
        raise ValueError("locate() takes 1-D signals (one channel)")
    if rec.size < ref.size or ref.size == 0:
        return 0, 0.0
    corr = correlate(rec, ref, mode="valid", method="fft")
    offset = int(np.argmax(np.abs(corr)))
    segment = rec[offset: offset + ref.size]
    norm = float(np.linalg.norm(segment) * np.linalg.norm(ref))
    if norm == 0.0:
        return offset, 0.0
    return offset, float(np.dot(segment, ref) / norm)


def level_db(signal: np.ndarray) -> float:
    """RMS level in dBFS (-inf for silence)."""
    rms = float(np.sqrt(np.mean(np.square(np.asarray(signal, dtype=np.float64)))))
    return 20.0 * np.log10(rms) if rms > 0.0 else float("-inf")


def no_sound_devices(folder: Path) -> Path:
    """An ALSA configuration whose only devices talk to a sound server that is not there: PortAudio
    (through ALSA, its only host API on Debian) then finds no device at all, as on a machine
    without sound hardware."""
    config = folder / "asound.conf"
    socket = folder / "no-server"
    config.write_text("".join(f'{kind}.!default {{\n    type pulse\n    server "unix:{socket}"\n}}\n'
                              for kind in ("pcm", "ctl")))
    return config
