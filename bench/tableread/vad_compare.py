"""silero-vad against the energy detector, on the reader's recordings.

    python bench/tableread/vad_compare.py READER_DIR [--noise-db -60 -45 -35]

For each recording (OUT/reader/*.wav from bench/tableread/run.py) and each
level of added room noise: the error of the detected speech start and end
against the recording's own speech span (found on the clean file), the
pauses inside the line the detector takes for an end (silence of at least
the table read's END_SILENCE_S while the line goes on), and false speech in
3 s of the noise alone. Prints one row per detector and noise level.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import soundfile

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

from engine.listen.vad import FRAME_S, EnergyVad, SileroVad, SpeechTracker  # noqa: E402
from engine.rehearse.listener import END_SILENCE_S  # noqa: E402
from engine.rehearse.reader import speech_span  # noqa: E402


def run(detector_kind: type, audio: np.ndarray, rate: int) -> tuple[float | None, float | None, int]:
    tracker = SpeechTracker(detector_kind(), rate)
    splits = 0
    was_long = False
    chunk = rate // 50
    for k in range(0, audio.size, chunk):
        tracker.feed(audio[k:k + chunk])
        state = tracker.state
        long_pause = state.started_s is not None and state.silence_s >= END_SILENCE_S
        if long_pause and not was_long:
            splits += 1
        was_long = long_pause
    state = tracker.state
    return state.started_s, state.last_voice_s, max(0, splits - 1)  # the last "pause" is the real end


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("reader", type=Path)
    parser.add_argument("--noise-db", type=float, nargs="+", default=[-60.0, -45.0, -35.0])
    args = parser.parse_args()
    files = sorted(args.reader.glob("*.wav"))
    rng = np.random.default_rng(1)
    print(f"{'detector':8} {'noise dBFS':>10} {'start err ms':>13} {'end err ms':>11} {'end p95 ms':>11} "
          f"{'mid-line ends':>14} {'false speech':>13}")
    for noise_db in args.noise_db:
        for kind in (SileroVad, EnergyVad):
            starts, ends, splits, false = [], [], 0, 0
            for f in files:
                audio, rate = soundfile.read(str(f), dtype="float32")
                start, end = speech_span(audio, rate)  # the recording as made (its own light noise)
                pad = np.zeros(rate // 2, np.float32)
                noisy = np.concatenate([pad, audio, pad, pad])
                noisy = noisy + rng.normal(0, 10 ** (noise_db / 20), noisy.size).astype(np.float32)
                got_start, got_end, split = run(kind, noisy, rate)
                if got_start is None or got_end is None:
                    starts.append(float("nan"))
                    ends.append(float("nan"))
                    continue
                starts.append((got_start - 0.5 - start) * 1000)
                ends.append((got_end - 0.5 - end) * 1000)
                splits += split
                noise = rng.normal(0, 10 ** (noise_db / 20), rate * 3).astype(np.float32)
                false += run(kind, noise, rate)[0] is not None
            print(f"{kind.name:8} {noise_db:>10.0f} {np.nanmedian(np.abs(starts)):>13.0f} "
                  f"{np.nanmedian(np.abs(ends)):>11.0f} {np.nanpercentile(np.abs(ends), 95):>11.0f} "
                  f"{splits:>14d} {false:>10d}/{len(files)}")
    print(f"(frames of {FRAME_S * 1000:.0f} ms; errors are medians of |detected - true|)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
