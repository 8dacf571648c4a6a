"""A placed effect in a room, measured: level and direct-to-reverberant ratio of
an effect at 1 m and at 8 m (and unplaced, the baseline of the same run).

    python bench/staging_effects.py [--room hall] [--distances 1,8] [--json]

The effect is a click (one sample) and a 40 ms noise burst (a knock), each a
sound file on an effects lane, placed by the product's path
(engine/mixdown/sound_placement.py resolve_sounds and place_sounds, as the
export and live playback place it) in a scene of the room, and read back as
its lane plays it (engine/export/daw/handoff.py clip_as_played). Measured:
the click's peak and its direct-to-reverberant ratio (the first 2.5 ms from
its onset over the rest), the knock's momentary loudness over its first
400 ms by pyloudnorm (ITU-R BS.1770, one 400 ms block: an integrated
loudness would average the room's quiet tail in) and its late energy share
(after 50 ms).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyloudnorm
import soundfile as sf

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.audio.rooms import RoomResponses  # noqa: E402
from engine.audio.staging import Stager  # noqa: E402
from engine.export.daw.handoff import clip_as_played  # noqa: E402
from engine.mixdown.sound_placement import resolve_sounds  # noqa: E402
from engine.project.model import Line, Project, Role, Scene  # noqa: E402
from engine.project.sound import SoundClip, SoundLane  # noqa: E402
from engine.project.staging import ROOM_PRESETS, Position  # noqa: E402
from engine.project.timeline import layout_all  # noqa: E402

RATE = 48_000
DIRECT_S = 0.0025


def effect_files(folder: Path) -> dict[str, Path]:
    click = np.zeros(RATE // 2, dtype=np.float32)
    click[100] = 0.05
    knock = np.zeros(RATE // 2, dtype=np.float32)
    knock[100:100 + int(0.04 * RATE)] = np.random.default_rng(5).normal(0.0, 0.05, int(0.04 * RATE))
    files = {"click": folder / "click.wav", "knock": folder / "knock.wav"}
    sf.write(files["click"], click, RATE, subtype="FLOAT")
    sf.write(files["knock"], knock, RATE, subtype="FLOAT")
    return files


def played(file: Path, room: str, position: Position | None, stager: Stager) -> np.ndarray:
    project = Project(title="Effects", sample_rate=RATE, scenes=[Scene("S1", "INT.", room=ROOM_PRESETS[room])],
                      cast=[Role("ANN")], lines=[Line(id="L1", role="ANN", scene="S1", text="Listen.")])
    project.sound_lanes = [SoundLane.of_kind("effects")]
    project.sounds = [SoundClip(id="X1", lane="FX", file=str(file), anchor="line_end", line="L1", position=position)]
    sounds = resolve_sounds(project, None, stager=stager)
    _, placed = layout_all(project, {"L1": 1.0}, sounds.durations(RATE))
    return clip_as_played(project, sounds, placed[0])


def measure(files: dict[str, Path], room: str, position: Position | None, stager: Stager) -> dict[str, float]:
    click = played(files["click"], room, position, stager).astype(np.float64)
    energy = (click ** 2).sum(axis=1)
    onset = int(np.flatnonzero(energy > energy.max() * 1e-6)[0])
    cut = onset + int(DIRECT_S * RATE)
    knock = played(files["knock"], room, position, stager).astype(np.float64)
    knock_energy = (knock ** 2).sum(axis=1)
    late = 100 + int(0.05 * RATE)
    onset_block = knock[100:100 + int(0.4 * RATE)]
    return {"click_peak_db": float(20 * np.log10(np.abs(click).max())),
            "click_energy_db": float(10 * np.log10(energy.sum())),
            "drr_db": (float(10 * np.log10(energy[:cut].sum() / energy[cut:].sum())) if energy[cut:].sum() > 1e-20
                       else float("inf")),
            "knock_lufs": float(pyloudnorm.Meter(RATE, block_size=0.4).integrated_loudness(onset_block)),
            "knock_late_share": float(knock_energy[late:].sum() / knock_energy.sum()),
            "seconds": click.shape[0] / RATE}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--room", default="hall", choices=list(ROOM_PRESETS))
    p.add_argument("--distances", default="1,8")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    print(f"load average {os.getloadavg()[0]:.2f} at start", file=sys.stderr)
    stager = Stager(RoomResponses())
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        files = effect_files(Path(folder))
        rows["unplaced"] = measure(files, args.room, None, stager)
        for d in (float(x) for x in args.distances.split(",")):
            rows[f"{d:g} m"] = measure(files, args.room, Position(distance=d), stager)
    base = next(iter(rows.values()))
    print(f"{args.room}: {'':10} click peak  energy   DRR     knock LUFS(M) late share  length")
    for name, row in rows.items():
        print(f"  {name:10} {row['click_peak_db']:7.1f} dB {row['click_energy_db']:6.1f} dB "
              f"{row['drr_db']:+6.1f} dB {row['knock_lufs']:7.1f}       {row['knock_late_share']:6.1%}    "
              f"{row['seconds']:.2f} s  (peak {row['click_peak_db'] - base['click_peak_db']:+.1f} dB vs unplaced)")
    print(f"load average {os.getloadavg()[0]:.2f} at the end", file=sys.stderr)
    if args.json:
        print(json.dumps({"room": args.room, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
