"""The studio's Play on a cold cache, to sound at the output, against ``radioplay bench --playback``.

    python bench/studio_play.py [--positions 6] [--span 180] [--project P.radioplay] [--at-load] [--json]

A private PulseAudio daemon with a null sink (tests/support/audio_server.py, as the
live-playback tests start it) is the studio's output device, and its monitor
is recorded. For each of ``--positions`` play positions (the playback
benchmark's seeded positions: line and fraction into it):

- an empty clip cache (``RADIOPLAY_CACHE_DIR``; the rooms' responses in it copied
  from where ``bench --playback`` found them, the user cache, simulated once per
  machine: only the lines are cold, on both sides) and the real studio window
  (offscreen) on a copy of the sample, with the studio's own Session
  (pre-render on from the moment the project opens, as in the studio);
- once the window says the engine is ready and the Session has loaded its
  voices (the playback benchmark loads them before it times, too), the
  playhead is put there (``MainWindow.seek``) and Play is triggered through
  its action (Space); where the studio asks first because synthesis cannot
  keep up from there (app/live/play_gate.py: a cold cache of Kokoro roles),
  the answer is Play Anyway, which plays at once as the benchmark does, and
  the trial counts as asked;
- timed from the trigger to the first non-silent frame out of the live mixer
  (``first audio``, the benchmark's definition) and to the first non-silent
  frame recorded at the sink's monitor (``at the output``: PortAudio, the ALSA
  pulse plugin and the server's buffering included).

The sample's sound lanes are left out of the copy (as the playback benchmark
leaves them out): its ambience plays under the lines, and the first sound
must be the dialogue's. Then one more window plays from the start on a cold
cache for ``--span`` seconds (or to the programme's end) through the sink: its first sound (as above, and
whether it asked first), late lines after the first 2 seconds and ring underruns.

In the same run, before the studio: ``radioplay bench --playback --positions N
--speed 8`` as its own process (its ratio, p50/p95, late lines in its full
playback on the null output at 8x). The studio's ratio is computed as the
benchmark computes its own: p95 time to first audio over (the benchmark's
bare-synthesis p95 + one buffer period); target <= 1.3. ``--project`` plays another
production the same way (a script ``radioplay import``-ed first); ``bench --playback``
plays only the sample, so it is left out there. ``--at-load`` instead opens the studio
on a cold cache and leaves it alone: the time until pre-render has voiced every line,
beside the pre-render time the play outlook offered when the engine was ready.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from qt_wait import wait_until  # noqa: E402 - beside this script in bench/

SAMPLE = REPO / "samples" / "the-last-broadcast.radioplay"
SILENCE = 1e-4  # a frame above this is sound (the monitor gives exact zeros while nothing plays)
GRACE_S = 2.0


def playback_bench(positions: int, speed: float) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "app.launch", "bench", "--playback", "--positions", str(positions),
                           "--speed", str(speed), "--json"], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"radioplay bench --playback failed:\n{done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


class SoundWatch:
    """Polls the monitor recording for the first frame of sound after ``arm()``."""

    def __init__(self, recorder: Any) -> None:
        self.recorder = recorder
        self.heard_at: float | None = None
        self._from_frame = 0
        self._armed = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bench-sound-watch", daemon=True)
        self._thread.start()

    def arm(self) -> None:
        self.heard_at = None
        self._from_frame = self.recorder.frames_recorded
        self._armed.set()

    def _run(self) -> None:
        channels = self.recorder.server.channels
        while not self._stop.is_set():
            if not self._armed.wait(0.05):
                continue
            have = self.recorder.frames_recorded
            if have > self._from_frame:
                with open(self.recorder.path, "rb") as f:
                    f.seek(self._from_frame * 4 * channels)
                    chunk = np.frombuffer(f.read((have - self._from_frame) * 4 * channels), dtype="<f4")
                if chunk.size and float(np.max(np.abs(chunk))) > SILENCE:
                    self.heard_at = time.monotonic()
                    self._armed.clear()
                    continue
                self._from_frame = have
            time.sleep(0.002)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


class Studio:
    def __init__(self, project: Path, work: Path, device: str) -> None:
        from PySide6.QtCore import QSettings

        from app.document.recovery import RecoveryStore
        from app.main import make_app
        from app.shell.main_window import MainWindow, default_session_factory

        self.app = make_app()
        settings = QSettings(str(work / "settings.ini"), QSettings.Format.IniFormat)
        self.window = MainWindow(project, settings=settings, session_factory=default_session_factory(output=device),
                                 recovery=RecoveryStore(work / "state"))
        self.window.files.ask_save_changes = lambda: "discard"  # type: ignore[method-assign]
        self.window.show()

    def wait(self, done: Any, timeout: float = 180.0, what: str = "") -> None:
        wait_until(done, timeout, what)  # in the event loop, as the studio waits for its user

    def open_engine(self) -> Any:
        self.wait(lambda: self.window.engine_label.text() == "Engine: ready", what="the engine start")
        session = self.window.session()
        assert session is not None
        if session.audio_error:
            raise SystemExit(f"the studio could not open the sink: {session.audio_error}")
        if not session.wait_idle(120.0):  # its queue handled: voices loaded (the window waits meanwhile)
            raise SystemExit("the studio's engine did not load its voices within 120 s")
        return session

    def play(self) -> bool:
        """Play through its action (Space), as ``bench --playback`` plays: at once. When the
        studio asks first (synthesis cannot keep up from here: app/live/play_gate.py), the
        answer is Play Anyway, the one that starts now; returns whether it asked."""
        self.window.actions_["play_pause"].trigger()
        prompt = self.window.presenter.gate.prompt
        if prompt is None or not prompt.isVisible():
            return False
        prompt.anyway_button.click()
        return True

    def close(self) -> None:
        self.window.close()
        self.window.engine.wait()
        self.app.processEvents()


def cold_cache(work: Path, rooms: Path) -> None:
    """A new empty clip cache for the studio, with the rooms' responses ``bench --playback``
    played with (a room is simulated once per machine; a line is voiced once per text)."""
    folder = Path(tempfile.mkdtemp(prefix="cache-", dir=work))
    if rooms.is_dir():
        shutil.copytree(rooms, folder / "rooms")
    os.environ["RADIOPLAY_CACHE_DIR"] = str(folder)


def trial(project: Path, work: Path, rooms: Path, device: str, watch: SoundWatch, line_index: int,
          fraction: float) -> dict[str, Any]:
    cold_cache(work, rooms)
    studio = Studio(project, work, device)
    try:
        session = studio.open_engine()
        clip = session.clips()[line_index]
        position = clip.start + fraction * (clip.end - clip.start)
        studio.window.seek(position)
        studio.wait(lambda: abs(session.transport().position_s - position) < 1e-3, what="the seek")
        watch.arm()
        pressed = time.monotonic()
        asked = studio.play()
        player = session.player
        studio.wait(lambda: player.first_audio_at is not None and player.first_audio_at >= pressed
                    and watch.heard_at is not None, timeout=120.0, what="sound")
        assert player.first_audio_at is not None and watch.heard_at is not None
        return {"line": clip.line_id, "position_s": round(position, 2), "asked": asked,
                "first_audio_ms": (player.first_audio_at - pressed) * 1000.0,
                "at_output_ms": (watch.heard_at - pressed) * 1000.0}
    finally:
        studio.close()


def cold_play(project: Path, work: Path, rooms: Path, device: str, span_s: float, watch: SoundWatch) -> dict[str, Any]:
    cold_cache(work, rooms)
    studio = Studio(project, work, device)
    try:
        session = studio.open_engine()
        watch.arm()
        pressed = time.monotonic()
        asked = studio.play()
        player = session.player
        studio.wait(lambda: player.first_audio_at is not None and player.first_audio_at >= pressed
                    and watch.heard_at is not None, timeout=120.0, what="sound from the start")
        assert player.first_audio_at is not None and watch.heard_at is not None
        first = {"start_first_audio_ms": (player.first_audio_at - pressed) * 1000.0,
                 "start_at_output_ms": (watch.heard_at - pressed) * 1000.0}
        # The span, or the whole programme where it is shorter (playing stops at its end).
        studio.wait(lambda: session.transport().position_s >= span_s or session.transport().ended,
                    timeout=span_s * 4 + 60, what="the span")
        t = session.transport()
        return {"span_s": min(span_s, t.position_s), "span_asked": asked, "late_lines": sum(1 for _, at in session.late_log if at >= GRACE_S),
                "late_lines_first_2s": sum(1 for _, at in session.late_log if at < GRACE_S),
                "late_log": [(line, round(at, 2)) for line, at in session.late_log],
                "underruns": t.underruns, "device_underflows": t.device_underflows, **first}
    finally:
        studio.close()


def voiced_at_load(project: Path, work: Path, rooms: Path, device: str) -> dict[str, Any]:
    """The studio opened on a cold cache and left alone: from the window's start to every line
    voiced by pre-render (or failed), beside the pre-render time the play outlook gave when
    the engine was ready (what the status bar offers to wait)."""
    cold_cache(work, rooms)
    opened = time.monotonic()
    studio = Studio(project, work, device)
    try:
        session = studio.open_engine()
        ready_s = time.monotonic() - opened
        outlook = session.outlook(0.0)
        offered = getattr(outlook, "prerender_s", outlook.wait_s)  # the status bar's figure

        def coming() -> int:
            return sum(1 for st in session.line_status().values() if st.state.coming)

        studio.wait(lambda: coming() == 0, timeout=1800.0, what="every line voiced")
        states = [st.state.value for st in session.line_status().values()]
        return {"lines": len(states), "ready": states.count("ready"), "failed": states.count("failed"),
                "engine_ready_s": round(ready_s, 1), "all_voiced_s": round(time.monotonic() - opened, 1),
                "prerender_offered_s": round(offered, 1), "keeps_up": outlook.keeps_up}
    finally:
        studio.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--seed", type=int, default=11, help="the playback benchmark's seed (its positions)")
    parser.add_argument("--span", type=float, default=180.0, help="seconds played from the start for late lines")
    parser.add_argument("--bench-speed", type=float, default=8.0, help="bench --playback's full playback clock")
    parser.add_argument("--project", type=Path, default=SAMPLE,
                        help="a .radioplay project (a script: `radioplay import` it first); not the sample: "
                             "without bench --playback, which plays only the sample")
    parser.add_argument("--at-load", action="store_true",
                        help="instead: open the studio on a cold cache and time every line voiced by pre-render")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from engine.project.fileformat import load_project
    from tests.support.audio_server import PulseServer, missing_requirements

    if (reason := missing_requirements()) is not None:
        raise SystemExit(f"needs PulseAudio and PortAudio: {reason}")
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from engine.audio.rooms import rooms_cache_dir

    sample = args.project.resolve() == SAMPLE.resolve()
    bench = playback_bench(args.positions, args.bench_speed) if sample and not args.at_load else None
    rooms = rooms_cache_dir()  # where bench --playback, a process of this environment, found them
    work = Path(tempfile.mkdtemp(prefix="radioplay-studio-play-"))
    os.environ["RADIOPLAY_STATE_DIR"] = str(work / "state")
    try:
        data = json.loads(args.project.read_text(encoding="utf-8"))
        data["sound_lanes"], data["sounds"] = [], []  # the dialogue's first sound, as bench --playback
        project = work / args.project.name
        project.write_text(json.dumps(data), encoding="utf-8")
        lines = len(load_project(project).lines)
        rng = random.Random(args.seed)  # the same positions as bench --playback's
        positions = [(rng.randrange(lines), rng.uniform(0.0, 0.8)) for _ in range(args.positions)]
        if args.at_load:
            with PulseServer(work / "pulse") as server, server.activated():
                loaded = voiced_at_load(project, work, rooms, server.device_name)
            loaded = {"project": args.project.name, "load_average": os.getloadavg(), **loaded}
            print(json.dumps(loaded) if args.json else
                  f"{args.project.name}, opened on a cold cache: {loaded['ready']} of {loaded['lines']} lines voiced "
                  f"({loaded['failed']} failed) {loaded['all_voiced_s']:.0f} s after the window opened (engine "
                  f"ready at {loaded['engine_ready_s']:.0f} s; the outlook offered pre-render "
                  f"~{loaded['prerender_offered_s']:.0f} s, keeps up: {loaded['keeps_up']}); load average "
                  f"{' '.join(f'{v:.1f}' for v in loaded['load_average'])}")
            return 0
        results = []
        with PulseServer(work / "pulse") as server, server.activated(), server.recorder() as recorder:
            watch = SoundWatch(recorder)
            try:
                for i, (index, fraction) in enumerate(positions):
                    r = trial(project, work, rooms, server.device_name, watch, index, fraction)
                    results.append(r)
                    if not args.json:
                        print(f"[{i + 1}/{len(positions)}] play {fraction:.0%} into line {index + 1} ({r['line']}): "
                              f"first audio {r['first_audio_ms']:.0f} ms, at the output {r['at_output_ms']:.0f} ms",
                              flush=True)
                played = cold_play(project, work, rooms, server.device_name, args.span, watch)
            finally:
                watch.close()
        first = [r["first_audio_ms"] for r in results]
        heard = [r["at_output_ms"] for r in results]
        p95 = float(np.percentile(first, 95))
        ratio = round(p95 / (bench["bare_synth_p95_ms"] + bench["buffer_period_ms"]), 3) if bench else None
        summary = {
            "project": args.project.name, "positions": args.positions, "load_average": os.getloadavg(),
            "studio": {"first_audio_p50_ms": round(statistics.median(first), 1), "first_audio_p95_ms": round(p95, 1),
                       "at_output_p50_ms": round(statistics.median(heard), 1),
                       "at_output_p95_ms": round(float(np.percentile(heard, 95)), 1),
                       "ttfa_ratio": ratio,
                       "asked": sum(r["asked"] for r in results), **played},
            "bench_playback": bench, "trials": results,
        }
        if args.json:
            print(json.dumps(summary))
            return 0
        s = summary["studio"]
        print(f"{args.project.name}; load average {' '.join(f'{v:.1f}' for v in summary['load_average'])}")
        if bench is not None:
            print(f"radioplay bench --playback: TTFA p50 {bench['ttfa_p50_ms']:.0f} / p95 {bench['ttfa_p95_ms']:.0f} "
                  f"ms, bare p95 {bench['bare_synth_p95_ms']:.0f} ms, ratio {bench['ttfa_ratio']:.2f}; full playback "
                  f"at {bench['playback_speed']:g}x: late lines {bench['late_lines']}, underruns {bench['underruns']}")
        ratio_text = f", ratio {s['ttfa_ratio']:.2f} (target <= 1.3)" if s["ttfa_ratio"] is not None else ""
        print(f"studio Play:                first audio p50 {s['first_audio_p50_ms']:.0f} / p95 "
              f"{s['first_audio_p95_ms']:.0f} ms, at the output p50 {s['at_output_p50_ms']:.0f} / p95 "
              f"{s['at_output_p95_ms']:.0f} ms{ratio_text}; asked first (then "
              f"Play Anyway) in {s['asked']} of {len(results)}")
        print(f"studio, {s['span_s']:.0f} s from the start on a cold cache: first audio {s['start_first_audio_ms']:.0f} ms, "
              f"at the output {s['start_at_output_ms']:.0f} ms; asked first: {'yes' if s['span_asked'] else 'no'}; "
              f"late lines {s['late_lines']} (after {GRACE_S:g} s; {s['late_lines_first_2s']} before), "
              f"underruns {s['underruns']}, device underflows {s['device_underflows']}")
        if s["late_log"]:
            print(f"  late: {', '.join(f'{line} at {at:g} s' for line, at in s['late_log'])}")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
