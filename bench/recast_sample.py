"""Re-cast the bundled sample as a fresh import of its script casts it (measured casting).

    python bench/recast_sample.py [--check]

Reads samples/the-last-broadcast.txt, casts it as ``radioplay import`` does
(engine/check/casting.py ``cast_roles``: characters from the script, voices
and designs measured apart) and writes those voices and characters, and the
script's lines and scenes (their directions, perspectives and rooms), into
samples/the-last-broadcast.radioplay; its sounds, lexicon and mix are kept.
Run it when the script, the casting or the installed default voices change.
``--check`` writes nothing and exits 1, naming each role that differs, when a
fresh import would cast the sample otherwise (the README's claim; minutes
cold: seven roles heard on their own lines, so it is no unit test). The cast
follows the stored speaker embeddings of the machine that measured them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.check.casting import cast_roles  # noqa: E402
from engine.project.fileformat import load_project, save_project  # noqa: E402
from engine.project.importers.build import import_script  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402

SAMPLE = REPO / "samples" / "the-last-broadcast.radioplay"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a fresh import casts the sample otherwise")
    args = parser.parse_args()
    library = VoiceLibrary()
    summary = []

    def suggest(roles, lines, spoken):  # type: ignore[no-untyped-def]
        measured = cast_roles(roles, library, lines, spoken=spoken)
        summary.append(measured.summary())
        return measured.voices

    fresh, _ = import_script(SAMPLE.with_suffix(".txt"), suggest=suggest)
    sample = load_project(SAMPLE)
    if [line.id for line in fresh.lines] != [line.id for line in sample.lines]:
        raise SystemExit("the script's lines no longer match the sample's: its sounds are anchored to line ids")
    by_name = {r.name: r for r in fresh.cast}
    if args.check:
        differ = [f"{role.name}: committed {role.voice}, a fresh import {by_name[role.name].voice}"
                  for role in sample.cast if (role.voice, role.character) != (by_name[role.name].voice,
                                                                               by_name[role.name].character)]
        if sample.lines != fresh.lines or sample.scenes != fresh.scenes:
            differ.append("the script's lines or scenes differ from the sample's")
        print("\n".join(differ) or f"the sample is cast as a fresh import casts it ({len(sample.cast)} roles)")
        return 1 if differ else 0
    sample.lines, sample.scenes = fresh.lines, fresh.scenes
    for role in sample.cast:
        role.voice, role.character = by_name[role.name].voice, by_name[role.name].character
    save_project(sample, SAMPLE)
    for role in sample.cast:
        print(f"{role.name}: {role.character.gender or '?'}/{role.character.age or '?'} {role.voice}")
    print(summary[0] if summary else "")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
