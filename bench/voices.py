"""How far apart a measured cast's voices are, and what the designs cost, measured.

    python bench/voices.py [SCRIPT_OR_PROJECT ...] [--lines 4] [--json]

Default: bench/five_roles.fountain (held out: two women, two men and a child
narrator, written for this benchmark) and the bundled sample
samples/the-last-broadcast.radioplay, each cast as ``radioplay import`` and
Suggest Cast cast it (engine/check/casting.py: characters read from the
script, voices and designs measured apart). For each role, on up to
``--lines`` of its lines:

- pair similarity: the cosine similarity of two roles' voices, each the mean
  GE2E embedding (Resemblyzer's weights, engine/listen/speaker.py) of its
  lines; every pair, and the closest;
- word error rate: pocketsphinx's general US English model (not biased to
  the line) on the role's lines as cast, and on the same lines in the plain
  voice (the same voice, no design: the baseline of the same run);
- DNSMOS OVRL (speechmos' model, engine/listen/quality.py), mean per role;
- cost: wall seconds of synthesis (design and shaping included) per audio
  second, as cast and plain.

Print the load average (uptime) beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.shaping_wer import Recognizer, words  # noqa: E402
from engine.check.casting import cast_roles  # noqa: E402
from engine.listen import quality, speaker  # noqa: E402
from engine.project.casting import infer_characters  # noqa: E402
from engine.project.design import NEUTRAL  # noqa: E402
from engine.project.direction import spoken_text  # noqa: E402
from engine.project.fileformat import load_project  # noqa: E402
from engine.project.importers.build import import_script  # noqa: E402
from engine.project.model import Project  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.casting import lines_per_role  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402

RATE = 24000
DEFAULTS = [REPO / "bench" / "five_roles.fountain", REPO / "samples" / "the-last-broadcast.radioplay"]


def cast(path: Path, library: VoiceLibrary) -> tuple[Project, str]:
    """The project as a fresh import (a script) or a re-cast with Suggest Cast (a project)."""
    if path.suffix == ".radioplay":
        project = load_project(path)
        characters = infer_characters(project)
        for role in project.cast:
            role.character = characters[role.name]
    else:
        project, _ = import_script(path)
    counts = lines_per_role(project.cast, [line.role for line in project.lines])
    measured = cast_roles(project.cast, library, counts, spoken=project.spoken_by_role())
    for role in project.cast:
        role.voice = measured.voices[role.name]
    return project, measured.summary()


def measure(project: Project, synth: ClipSynthesizer, recognize: Recognizer, per_role: int) -> dict[str, object]:
    encoder = speaker.encoder()
    roles: dict[str, dict[str, object]] = {}
    embeddings: dict[str, np.ndarray] = {}
    for role in project.cast:
        # The lines as written (mid-line directions performed), heard against their words alone,
        # as the casting hears a design (engine/check/candidate_measures.py Listener).
        texts = [line.text for line in project.lines if line.role == role.name and words(spoken_text(line.text))]
        texts = texts[:per_role]
        if not texts:
            continue
        said = [spoken_text(t) for t in texts]
        row: dict[str, float | str] = {}
        plain_voice = role.voice.with_changes(design=NEUTRAL, pitch=0.0)
        for label, voice in (("cast", role.voice), ("plain", plain_voice)):
            started = time.perf_counter()
            clips = [synth.synthesize(t, voice) for t in texts]
            wall = time.perf_counter() - started
            seconds = sum(c.size for c in clips) / RATE
            row[f"wer_{label}"] = round(recognize.word_error_rate(said, clips, RATE), 3)
            row[f"cost_{label}"] = round(wall / seconds, 3)
            if label == "cast":
                row["dnsmos"] = round(float(np.mean([quality.quality(c, RATE) for c in clips])), 3)
                embeddings[role.name] = encoder.embed_speaker([(c, RATE) for c in clips])
                row["audio_s"] = round(seconds, 1)
        c = role.character
        row["who"] = f"{c.gender or '?'}/{c.age or '?'}"
        v = role.voice
        row["voice"] = (v.voice if v.backend == "piper" else f"kokoro:{v.voice}") + (
            "" if v.design.is_neutral else " + " + json.dumps(v.design.to_dict()))
        roles[role.name] = row
        print(f"  {role.name}: {row}", file=sys.stderr, flush=True)
    names = list(embeddings)
    pairs = {f"{a} / {b}": round(speaker.similarity(embeddings[a], embeddings[b]), 3)
             for i, a in enumerate(names) for b in names[i + 1:]}
    return {"roles": roles, "pairs": pairs}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--lines", type=int, default=4, help="lines measured per role")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    library = VoiceLibrary()
    synth = ClipSynthesizer(library, RATE, ClipCache())
    recognize = Recognizer()
    results = {}
    for path in args.paths or DEFAULTS:
        started = time.perf_counter()
        project, closest = cast(path, library)
        print(f"{path.name}: cast in {time.perf_counter() - started:.0f} s ({closest}); load {os.getloadavg()[0]:.1f}",
              file=sys.stderr, flush=True)
        result = measure(project, synth, recognize, args.lines)
        result["cast_closest"] = closest
        results[path.name] = result
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for name, result in results.items():
        roles, pairs = result["roles"], result["pairs"]
        assert isinstance(roles, dict) and isinstance(pairs, dict)
        worst = max(pairs.items(), key=lambda kv: kv[1]) if pairs else ("-", 0.0)
        mos = np.mean([r["dnsmos"] for r in roles.values()])
        print(f"\n### {name}\n\nclosest pair on the lines: {worst[0]}, {worst[1]:.2f} (reference sentence: "
              f"{result['cast_closest']}); pairs below 0.80: {sum(v < 0.80 for v in pairs.values())} of "
              f"{len(pairs)}, below 0.75: {sum(v < 0.75 for v in pairs.values())}; mean DNSMOS OVRL {mos:.2f}\n")
        print("| role | who | voice (design) | WER cast | WER plain | DNSMOS OVRL | s per audio-s cast | plain |")
        print("|---|---|---|---|---|---|---|---|")
        for role, r in roles.items():
            print(f"| {role} | {r['who']} | {r['voice']} | {r['wer_cast']:.3f} | {r['wer_plain']:.3f} | "
                  f"{r['dnsmos']:.2f} | {r['cost_cast']:.3f} | {r['cost_plain']:.3f} |")
        print("\n| pair | similarity |\n|---|---|")
        for pair, value in sorted(pairs.items(), key=lambda kv: -kv[1]):
            print(f"| {pair} | {value:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
