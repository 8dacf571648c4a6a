"""Who each role was cast as, heard: every role's lines voiced as cast, their median F0 by Praat.

    python bench/cast_pitch.py SCRIPT [--plain] [--quick] [--lines N]

Imports SCRIPT as ``radioplay import`` does (the quick cast, then the measured one where the
speaker encoder is installed; ``--quick``: the quick cast only), or with ``--plain`` as the
plain install casts it (joe alone, no measuring), voices each role's first N lines
(default 3) and prints per role: who the script says it is, its voice, the median F0 of its
lines (praat-parselmouth, the test extra) and its speaking rate. Then the rules of issue 51:
every woman and girl on a female voice or design, every boy and girl above the adult men's
F0, older roles designed older.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.project.starting_voices import voice_label  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.cast_candidates import Casting  # noqa: E402
from engine.synth.casting import lines_per_role, quick_cast  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.production_import import import_production  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402

RATE = 24000


def median_f0(clip: np.ndarray) -> float:
    import parselmouth

    pitch = parselmouth.Sound(clip.astype(np.float64), sampling_frequency=RATE).to_pitch(
        pitch_floor=60.0, pitch_ceiling=500.0)
    hertz = pitch.selected_array["frequency"]
    return float(np.median(hertz[hertz > 0])) if np.any(hertz > 0) else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script", type=Path)
    parser.add_argument("--plain", action="store_true", help="joe alone, as the plain install casts")
    parser.add_argument("--quick", action="store_true", help="the quick cast only, not the measured one")
    parser.add_argument("--lines", type=int, default=3)
    args = parser.parse_args()
    library = VoiceLibrary()
    project = import_production(args.script, library=library).project
    if args.plain:
        lines = lines_per_role(project.cast, [line.role for line in project.lines])
        voices = quick_cast(project.cast, library, lines, sources=[(Casting("en_US-joe-medium"), "male")]).voices
    elif args.quick:
        voices = {role.name: role.voice for role in project.cast}
    else:
        from engine.check.casting import cast_project

        voices = cast_project(project, library).voices
    synth = ClipSynthesizer(library, RATE, ClipCache())
    rows = []
    for role in project.cast:
        texts = [line.text for line in project.lines if line.role == role.name][:args.lines]
        clip = np.concatenate([synth.synthesize(text, voices[role.name]) for text in texts])
        voice = voices[role.name]
        rows.append((role, voice, median_f0(clip), voice.design.rate * voice.speed))
    print(f"{'role':<14} {'who':<14} {'F0 Hz':>6} {'rate':>5}  voice")
    for role, voice, f0, rate in rows:
        who = f"{role.character.gender or '?'}/{role.character.age or '?'}"
        print(f"{role.name:<14} {who:<14} {f0:6.0f} {rate:5.2f}  {voice_label(voice)}")
    men = [f0 for role, _, f0, _ in rows if role.character.gender == "male" and role.character.age != "child"
           and role.character.age != "older"]
    top = max(men, default=0.0)
    failures = []
    for role, voice, f0, _rate in rows:
        c = role.character
        if c.age == "child" and f0 <= top:
            failures.append(f"{role.name}, a child, at {f0:.0f} Hz is not above the men ({top:.0f} Hz)")
        if c.gender == "female" and f0 <= top:
            failures.append(f"{role.name}, a woman or girl, at {f0:.0f} Hz is not above the men ({top:.0f} Hz)")
        if c.age == "older" and not (voice.design.rate < 1.0 and voice.design.f0_range < 1.0):
            failures.append(f"{role.name}, older, is not designed older")
    print("\n".join(failures) or f"every rule holds (adult men up to {top:.0f} Hz)")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
