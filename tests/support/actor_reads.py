"""A producer's reads for Direct by Voice, made by espeak-ng as the "actor".

Three reads of lines of the bundled sample, each with a shape no plain take of it has:
a rise on a question, a slow emphatic line with its accents in odd places, and a long
pause in the middle of a line. espeak-ng's SSML ``<prosody>`` and ``<break>`` make them;
its Klatt and female variants are voices pocketsphinx can follow (its default voice it
hears as noise). Shared by tests/engine/direct/ and bench/direct.py.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import soundfile

ESPEAK = shutil.which("espeak-ng")
SAMPLE = Path(__file__).resolve().parents[2] / "samples" / "the-last-broadcast.radioplay"


@dataclass(frozen=True)
class ActorRead:
    """A read of sample line ``line_id``: espeak-ng's voice, words a minute and SSML."""

    name: str
    line_id: str
    voice: str
    rate: int
    ssml: str


READS = (
    # MAGGIE (Kokoro): "Mr. Hollis? Are you sure?" low, then a steep rise on the last word.
    ActorRead("question", "L0037", "en-us+klatt", 140,
              '<prosody pitch="x-high">Mr. Hollis?</prosody> <prosody pitch="x-low">Are you</prosody> '
              '<prosody pitch="x-high">sure?</prosody>'),
    # MR. HOLLIS (Piper joe): "Play the record, Maggie." slow and emphatic: low and level
    # on "Play the", then up high on "record" and held high on the name (the plain line
    # starts high and falls).
    ActorRead("slow", "L0036", "en-us+f3", 100,
              '<prosody pitch="x-low">Play</prosody> <prosody pitch="x-low">the</prosody> '
              '<prosody pitch="x-high">record,</prosody> <prosody pitch="x-high">Maggie.</prosody>'),
    # JUNE (Piper joe with a design): "Needle's down. Owen, is it going out?" with a held pause.
    ActorRead("pause", "L0039", "en-us+klatt", 150,
              '<prosody pitch="x-high">Needle\'s down.</prosody> <break time="900ms"/> '
              '<prosody pitch="x-low">Owen,</prosody> is it going out?'),
)


def make_read(read: ActorRead, path: Path, *, noise: float = 1e-3) -> Path:
    """The read as a WAV at ``path`` (espeak-ng's rate, mono), with a little room noise
    under it so no frame is digital silence."""
    assert ESPEAK is not None, "espeak-ng is not installed (apt-get install espeak-ng)"
    subprocess.run([ESPEAK, "-m", "-v", read.voice, "-s", str(read.rate), "-w", str(path),
                    f"<speak>{read.ssml}</speak>"], check=True)
    audio, rate = soundfile.read(str(path), dtype="float32")
    hiss = np.random.default_rng(7).normal(0.0, noise, audio.size).astype(np.float32)
    soundfile.write(str(path), audio * 0.7 + hiss, rate)
    return path


def espeak_wav(text: str, path: Path, voice: str = "en-us+klatt", rate: int = 150) -> Path:
    """Plain espeak-ng speech of ``text`` (another sentence, for a read that does not match)."""
    assert ESPEAK is not None
    subprocess.run([ESPEAK, "-v", voice, "-s", str(rate), "-w", str(path), text], check=True)
    return path
