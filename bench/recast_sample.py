"""Re-cast the bundled sample as a fresh import of its script casts it (measured casting).

    python bench/recast_sample.py

Reads samples/the-last-broadcast.txt, casts it as ``radioplay import`` does
(engine/check/casting.py ``cast_roles``: characters from the script, voices
and designs measured apart) and writes those voices and characters, and the
script's lines and scenes (their directions, perspectives and rooms), into
samples/the-last-broadcast.radioplay; its sounds, lexicon and mix are kept.
Run it when the script, the casting or the installed default voices change.
No test checks that the sample is still cast so: the cast follows the stored
speaker embeddings of the machine that measured them.
"""

from __future__ import annotations

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
    sample.lines, sample.scenes = fresh.lines, fresh.scenes
    by_name = {r.name: r for r in fresh.cast}
    for role in sample.cast:
        role.voice, role.character = by_name[role.name].voice, by_name[role.name].character
    save_project(sample, SAMPLE)
    for role in sample.cast:
        print(f"{role.name}: {role.character.gender or '?'}/{role.character.age or '?'} {role.voice}")
    print(summary[0] if summary else "")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
