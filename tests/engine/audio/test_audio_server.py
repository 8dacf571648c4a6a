"""The live-audio harness itself: PortAudio -> private PulseAudio -> null sink monitor.

Plays a known chirp through sounddevice into the ``radioplay_test`` null sink
while recording its monitor, and finds it again, intact, in the recording. The
negative control records with nothing playing and must not find it, so these
assertions can fail.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tests.support.audio_server import PulseServer, find_output_device, level_db, locate

RATE = 48_000
# Stream latency: generous, so a loaded 2-core CI machine does not underflow.
LATENCY_S = 0.2
# This harness plays from a Python callback (the studio's mixer is rtmixer's C callback): on two
# cores with a dozen processes running, the interpreter can miss one buffer. A stream that cannot
# keep up underflows on every attempt; a starved one does not on the next.
ATTEMPTS = 3
# Leading silence, and trailing silence longer than the latency: closing the
# stream drops what the ALSA pulse plugin still buffers.
LEAD_S, TAIL_S = 0.3, 0.6


def chirp(seconds: float = 1.0) -> np.ndarray:
    """A 200 Hz -> 6 kHz linear chirp, -6 dBFS peak, 10 ms fades: one unambiguous correlation peak."""
    t = np.arange(int(seconds * RATE)) / RATE
    f0, f1 = 200.0, 6000.0
    wave = 0.5 * np.sin(2 * np.pi * (f0 * t + (f1 - f0) / (2 * seconds) * t**2))
    fade = np.minimum(1.0, np.minimum(t, t[-1] - t) / 0.010)
    return (wave * fade).astype(np.float32)


def stereo_programme(signal: np.ndarray) -> np.ndarray:
    """Left: the signal; right: the signal inverted at half level (catches swapped or summed channels)."""
    body = np.stack([signal, -0.5 * signal], axis=1)
    lead = np.zeros((int(LEAD_S * RATE), 2), np.float32)
    tail = np.zeros((int(TAIL_S * RATE), 2), np.float32)
    return np.concatenate([lead, body, tail]).astype(np.float32)


def play(sd: Any, device: int, frames: np.ndarray) -> list[Any]:
    """Play ``frames`` through an OutputStream with a callback; the status
    flags PortAudio reported (only those that were set)."""
    statuses: list[Any] = []
    position = 0
    finished = threading.Event()

    def callback(outdata: np.ndarray, count: int, _time: Any, status: Any) -> None:
        nonlocal position
        if status:
            statuses.append(status)
        chunk = frames[position: position + count]
        outdata[: len(chunk)] = chunk
        outdata[len(chunk):] = 0.0
        position += count
        if position >= len(frames):
            raise sd.CallbackStop

    with sd.OutputStream(samplerate=RATE, channels=2, dtype="float32", device=device,
                         latency=LATENCY_S, callback=callback, finished_callback=finished.set):
        # A hang guard, not a timing assertion: the programme lasts ~2 s.
        assert finished.wait(timeout=120.0), "PortAudio never finished the stream"
    return statuses


def test_portaudio_lists_the_null_sink(pulse_server: PulseServer) -> None:
    import sounddevice as sd

    index = find_output_device(pulse_server.device_name)
    info = sd.query_devices(index)
    assert info["name"] == "radioplay_test"
    assert sd.query_hostapis(info["hostapi"])["name"] == "ALSA"
    assert info["max_output_channels"] >= 2
    assert "Default Sink: radioplay_test" in pulse_server.info


def test_chirp_played_through_portaudio_arrives_in_the_sink_monitor(pulse_server: PulseServer) -> None:
    import sounddevice as sd

    device = find_output_device(pulse_server.device_name, sd)
    signal = chirp()
    programme = stereo_programme(signal)
    underflowed = []
    for _attempt in range(ATTEMPTS):
        with pulse_server.recorder() as rec:
            statuses = play(sd, device, programme)
            # Let the monitor deliver what the sink rendered last.
            rec.wait_for_frames(rec.frames_recorded + RATE // 4)
        if not [s for s in statuses if s.output_underflow]:
            break
        underflowed.append(statuses)
    recording = rec.audio
    assert recording is not None and recording.dtype == np.float32 and recording.shape[1] == 2

    assert len(underflowed) < ATTEMPTS, f"PortAudio reported underflows on every attempt: {underflowed}"
    assert len(recording) > len(programme) // 2, f"only {len(recording)} frames recorded"

    offset, coefficient = locate(recording[:, 0], signal)
    assert coefficient > 0.9, f"chirp not found in the left channel (peak correlation {coefficient:.3f})"
    left = recording[offset: offset + len(signal), 0]
    right = recording[offset: offset + len(signal), 1]
    right_ref = -0.5 * signal
    right_coefficient = float(np.dot(right, right_ref) / (np.linalg.norm(right) * np.linalg.norm(right_ref) + 1e-30))
    assert right_coefficient > 0.9, f"right channel does not carry the inverted chirp ({right_coefficient:.3f})"
    assert abs(level_db(left) - level_db(signal)) < 1.0, (level_db(left), level_db(signal))
    assert abs(level_db(right) - level_db(right_ref)) < 1.0, (level_db(right), level_db(right_ref))
    # The lead-in played before the chirp: the recording holds silence there.
    assert offset >= int(LEAD_S * RATE) // 2


def test_without_playback_the_chirp_is_not_found(pulse_server: PulseServer) -> None:
    """Negative control: the same analysis on a recording of nothing fails."""
    signal = chirp()
    with pulse_server.recorder() as rec:
        rec.wait_for_frames(rec.frames_recorded + len(signal) + RATE // 4)
    recording = rec.audio
    assert recording is not None and len(recording) > len(signal)
    _, coefficient = locate(recording[:, 0], signal)
    assert coefficient < 0.5
    assert level_db(recording) == float("-inf") or level_db(recording) < -60.0


def test_a_client_subprocess_reaches_the_server(pulse_server: PulseServer) -> None:
    """``child_env()`` is enough for a separate process (here pactl) to find the sink."""
    sinks = pulse_server.pactl("list", "short", "sinks")
    assert f"{pulse_server.sink}\t" in sinks
    assert f"float32le 2ch {RATE}Hz" in sinks
