"""The clip key of every line of a project, as cast and on every installed voice.

    python bench/clip_keys.py [PROJECT] > keys.json

A clip key (engine/synth/cache.py ``clip_key``) names a clip in every user's
shared cache: a change to how a plan is made that moves a key re-voices every
cache. Run this on two trees (a branch and main) and compare the outputs with
``diff``: a restructuring of the voice backends must print the same keys.

Default: samples/the-last-broadcast.radioplay, whose cast mixes Piper and Kokoro
roles with designs. Besides the cast, each line is keyed on every installed
voice (each Piper voice, each Kokoro style, a blend of the first two styles), as
a second take, with a Delivery note. Nothing is synthesized; only plans are made.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.project.fileformat import load_project  # noqa: E402
from engine.project.model import VoiceParams  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.errors import TextError, VoiceError  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402


def role_voices(library: VoiceLibrary) -> list[VoiceParams]:
    """A VoiceParams per installed voice, as a role stores it (backend and voice apart),
    and one blend of the first two styles of one voices file."""
    voices = []
    styles = []
    for info in library.all():
        if info.style:
            voices.append(VoiceParams(backend=info.backend, voice=info.style))
            styles.append(info)
        else:
            voices.append(VoiceParams(backend=info.backend, voice=info.id))
    if len(styles) > 1:
        voices.append(VoiceParams(backend=styles[0].backend, voice=f"{styles[0].style}:0.6+{styles[1].style}:0.4"))
    return voices


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("project", nargs="?", default=str(REPO / "samples" / "the-last-broadcast.radioplay"))
    args = parser.parse_args()
    project = load_project(args.project)
    library = VoiceLibrary(base_dir=Path(args.project).parent)
    synth = ClipSynthesizer(library, project.sample_rate, ClipCache())
    roles = {r.name: r for r in project.cast}
    keys: dict[str, str] = {}

    def key(name: str, text: str, params: VoiceParams, **kw: object) -> None:
        try:
            keys[name] = synth.plan(text, params, project.lexicon_for(line.role), **kw).key  # type: ignore[arg-type]
        except (TextError, VoiceError) as exc:
            keys[name] = f"error: {exc}"

    for line in project.lines:
        if not line.text.strip():
            continue
        key(f"{line.id} as cast", line.text, roles[line.role].voice, note=line.note, timing=project.timing)
        for params in role_voices(library):
            key(f"{line.id} {params.backend}:{params.voice}", line.text, params)
            key(f"{line.id} {params.backend}:{params.voice} take 2, angrily", line.text, params, seed=2,
                note="angrily", timing=project.timing)
    json.dump(keys, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
