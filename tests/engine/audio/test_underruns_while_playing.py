"""Issue 51: the Underruns counter counts only while the transport plays.

A stopped transport's ring holds silence; when the mixer thread cannot refill it (the GIL
held for a while: loading a voice, a re-plan of many lines) the device runs it dry and
plays silence all the same. It used to count each one, so the producer's trouble counter
climbed (0 -> 31) with nothing playing. Here the real device path (PortAudio and rtmixer
into the private PulseAudio server's null sink) runs dry for real: this thread keeps the
GIL for half a second at a time, as a voice loading does, while the transport is
stopped, then while it plays.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.session import Session
from tests.support.audio_server import PulseServer
from tests.support.projects import tiny_project
from tests.support.session import wait_for

HOG_S = 2.0  # long enough for the 170 ms ring to run dry several times


@contextmanager
def _gil_hogged(switch_s: float = 0.5) -> Iterator[None]:
    """This thread keeps the GIL ``switch_s`` at a time (the interpreter's switch interval),
    so the mixer thread waits that long whenever it wants it back."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(switch_s)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _busy(seconds: float) -> None:
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1


def test_a_dry_ring_counts_as_an_underrun_only_while_playing(pulse_server: PulseServer,
                                                             tiny_voices: dict[str, Path]) -> None:
    project = tiny_project(tiny_voices["single"], roles=2, lines_per_role=4)
    with Session(project, None, output=pulse_server.device_name, prerender=False) as session:
        assert session.audio_error is None, session.audio_error
        session.play(0.0)  # starts the player and its device
        wait_for(lambda: session.transport().playing, what="playing")
        session.stop()
        wait_for(lambda: not session.transport().playing, what="stopped")
        session.wait_idle()
        time.sleep(0.3)
        before = session.transport().underruns
        with _gil_hogged():
            _busy(HOG_S)
        time.sleep(0.3)  # the mixer thread restarts the ring and would count it now
        stopped = session.transport().underruns
        assert stopped == before, f"{stopped - before} underruns counted with the transport stopped"

        session.play(0.0)
        wait_for(lambda: session.transport().playing, what="playing again")
        with _gil_hogged():
            _busy(HOG_S)
        time.sleep(0.3)
        playing = session.transport().underruns
        session.stop()
    assert playing > stopped, "a ring run dry while playing is an underrun, and is counted"
