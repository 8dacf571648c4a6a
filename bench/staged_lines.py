"""What a listener hears of each line of a rendered production, measured in its role's stem.

    python bench/staged_lines.py PROJECT.radioplay RENDER_FOLDER [--roles MORAG,ANGUS]

For a production imported and rendered with the commands a producer runs
(``radioplay import``, ``radioplay render``), each line's span of its role's stem
(``stems/ROLE.wav``, from ``cues.json``) is measured, not with the product's code:

- intensity: praat-parselmouth's mean over the sounding part (tests/support/listening.py);
- loudness: pyloudnorm's integrated loudness of the span (LUFS);
- band: the energy below 300 Hz and above 3.4 kHz, each in dB against the energy
  between (one FFT of the span): a telephone or radio voice keeps 20 dB and more under;
- tail: the energy 100-500 ms after the line's end against the line's own (dB, per
  sample): a room rings there, outside nothing does (-100 and under: silence).

Prints one row per line with its perspective and Delivery note. Compare two renders
(a line with and without a direction) by running it on each.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.export.names import safe_stem  # noqa: E402
from engine.project.fileformat import load_project  # noqa: E402
from tests.support.listening import features  # noqa: E402


def _db(num: float, den: float) -> float:
    return 10 * math.log10(max(num, 1e-30) / max(den, 1e-30))


def main(argv: list[str] | None = None) -> int:
    import pyloudnorm
    import soundfile as sf

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("render", type=Path)
    parser.add_argument("--roles", default="", help="only these roles (comma-separated)")
    args = parser.parse_args(argv)
    project = load_project(args.project)
    roles = {r.strip() for r in args.roles.split(",") if r.strip()}
    cues = [c for c in json.loads((args.render / "cues.json").read_text(encoding="utf-8"))["cues"]
            if c["kind"] == "line"]
    stems: dict[str, tuple[np.ndarray, int]] = {}
    print("line  role            perspective  intensity  LUFS    <300Hz  >3.4kHz  tail    note")
    for line, cue in zip(project.lines, cues, strict=True):
        if roles and line.role not in roles:
            continue
        if line.role not in stems:
            audio, rate = sf.read(args.render / "stems" / f"{safe_stem(line.role)}.wav", dtype="float64")
            stems[line.role] = (audio if audio.ndim == 2 else audio[:, None], rate)
        stem, rate = stems[line.role]
        start, end = int(cue["start"] * rate), int(cue["end"] * rate)
        span = stem[start:end]
        mono = span.mean(axis=1)
        power = np.abs(np.fft.rfft(mono)) ** 2
        freqs = np.fft.rfftfreq(mono.shape[0], 1 / rate)
        inside = float(power[(freqs >= 300.0) & (freqs <= 3400.0)].sum())
        below = float(power[(freqs > 20.0) & (freqs < 300.0)].sum())
        above = float(power[freqs > 3400.0].sum())
        after = stem[end + int(0.1 * rate):end + int(0.5 * rate)].mean(axis=1)
        tail = _db(float(np.mean(after ** 2)) if after.size else 0.0, float(np.mean(mono ** 2)))
        lufs = pyloudnorm.Meter(rate).integrated_loudness(span)
        intensity = features(np.ascontiguousarray(mono, dtype=np.float32), rate).intensity_db
        print(f"{line.id:5s} {line.role:15s} {line.perspective or '-':12s} {intensity:6.1f} dB  {lufs:6.1f}  "
              f"{_db(below, inside):6.1f}  {_db(above, inside):6.1f}  {max(tail, -120.0):6.1f}  {line.note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
