"""Which designs over which installed voices a listener (and a speaker encoder) can tell apart.

    python bench/cast_search.py measure [--sources joe,jf_gongitsune,...] [--cache PATH]
    python bench/cast_search.py assign [--cache PATH] [--roles female/child,female,female,male/older,male]

``measure``: every source voice speaks three fixed sentences (the casting's
reference sentence and two of bench/shaping_wer.py's held-out ones) once;
each is analysed by WORLD once, and every design of a grid (F0 level,
formant warp, tilt) is synthesized from that analysis, levelled, embedded
by the GE2E speaker encoder (engine/listen/speaker.py, the mean over the
three sentences) and scored by DNSMOS OVRL (engine/listen/quality.py).
Results are kept in a JSON cache (one row per source and design), so a
second run measures only what is new.

``assign``: from the cache, the assignment of one candidate per role that
minimizes the closest pair's similarity, exhaustively, over candidates that
fit each role (gender and age read from the designed median F0 and the
tract: see ``kind``) and whose DNSMOS OVRL is at least ``--quality``;
then the best cast per bound on the designs' strength (the frontier).
Word error rates of the picks are measured with pocketsphinx's general
model against the same sentences in the plain source (``--wer``).

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

from bench.shaping_wer import SENTENCES, Recognizer, edit_distance, words  # noqa: E402
from engine.check.candidate_measures import REFERENCE  # noqa: E402
from engine.listen import quality, speaker  # noqa: E402
from engine.project.design import VoiceDesign  # noqa: E402
from engine.project.model import VoiceParams  # noqa: E402
from engine.synth import shaping, world  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.design import designed_f0, tilt_gains, warp_frequency  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402

RATE = 24000
TEXTS = [REFERENCE]  # the casting's own measurement: one sentence per candidate
DEFAULT_SOURCES = ["joe", "jf_gongitsune", "jf_nezumi", "jm_kumo", "jf_gongitsune:0.5+jf_nezumi:0.5"]
CACHE = Path("/tmp/cast/search.json")


def source_voice(name: str) -> VoiceParams:
    return VoiceParams() if name == "joe" else VoiceParams(backend="kokoro", voice=name)


def grid(source: str) -> list[VoiceDesign]:
    """Designs to try: pitch moves toward the other sex and beyond, the tract both ways."""
    if source == "joe":  # WORLD costs Piper's joe quality: only a few, to see how much
        shifts, formants = [0.0, 3.0, 6.0, 10.0], [1.0, 1.1, 1.2]
    elif male(source):
        shifts, formants = [-2.0, 0.0, 4.0, 8.0, 11.0], [0.95, 1.0, 1.1, 1.2]
    else:  # a female source plays women and children (kumo and joe play the men)
        shifts, formants = [-4.0, 0.0, 3.0, 6.0], [0.93, 1.0, 1.07, 1.14, 1.2]
        # The trio of women was the closest (0.79): the tract further both ways
        extra = [VoiceDesign(f0_shift=s, formant=f) for s in (-4.0, 0.0, 3.0) for f in (0.86, 1.26)]
        return extra + [VoiceDesign(f0_shift=s, formant=f) for s in shifts for f in formants] + [
            VoiceDesign(f0_shift=s, tilt=t) for s in shifts[:2] for t in (-3.0, 3.0)]
    designs = [VoiceDesign(f0_shift=s, formant=f) for s in shifts for f in formants]
    return designs + [VoiceDesign(f0_shift=s, tilt=t) for s in shifts[:2] for t in (-3.0, 3.0)]


def male(source: str) -> bool:
    """joe is an adult man; a Kokoro style by its second letter, a blend by its first part."""
    return source == "joe" or source[1] == "m"


def render(analysis: world.Analysis, length: int, design: VoiceDesign) -> np.ndarray:
    a = world.Analysis(designed_f0(analysis.f0, design), analysis.envelope, analysis.aperiodicity,
                       analysis.sample_rate, analysis.settings)
    if design.formant != 1.0:
        a.envelope = warp_frequency(a.envelope, design.formant, log=True)
        a.aperiodicity = warp_frequency(a.aperiodicity, design.formant, log=False)
    if design.tilt:
        a.envelope = a.envelope * tilt_gains(design.tilt, a.sample_rate, a.fft_size)
    out = world.synthesize(a, length).astype(np.float32)
    return shaping.level_loudness(out, a.sample_rate)


def key(source: str, d: VoiceDesign) -> str:
    return f"{source}|{d.f0_shift:g}|{d.formant:g}|{d.tilt:g}"


def measure(args: argparse.Namespace) -> int:
    cache: dict[str, dict[str, object]] = json.loads(args.cache.read_text()) if args.cache.is_file() else {}
    library = VoiceLibrary()
    synth = ClipSynthesizer(library, RATE, ClipCache())
    encoder = speaker.encoder()
    for source in args.sources.split(","):
        started = time.perf_counter()
        plain = [synth.synthesize(t, source_voice(source)) for t in TEXTS]
        analyses = [world.analyse(c.astype(np.float64), RATE) for c in plain]
        voiced = np.concatenate([a.f0[a.f0 > 0] for a in analyses])
        source_f0 = float(np.median(voiced))
        designs = grid(source)
        todo: list[VoiceDesign | None] = [d for d in designs if key(source, d) not in cache]
        print(f"{source}: median F0 {source_f0:.0f} Hz, {len(todo)} of {len(designs)} designs to measure; "
              f"load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
        if f"{source}|plain" not in cache:  # as installed: no WORLD round trip at all
            todo.insert(0, None)
        for i, d in enumerate(todo):
            if d is None:
                clips, d, name = plain, VoiceDesign(), f"{source}|plain"
            else:
                clips = [render(a, c.size, d) for a, c in zip(analyses, plain, strict=True)]
                name = key(source, d)
            emb = encoder.embed_speaker([(c, RATE) for c in clips])
            ref = encoder.embed(clips[0], RATE)
            mos = float(np.mean([quality.quality(c, RATE) for c in clips]))
            f0 = float(np.median(np.concatenate([designed_f0(a.f0, d)[a.f0 > 0] for a in analyses])))
            cache[name] = {"source": source, "source_f0": round(source_f0, 1), "f0": round(f0, 1),
                                     "design": [d.f0_shift, d.formant, d.tilt], "dnsmos": round(mos, 3),
                                     "emb": [round(float(x), 5) for x in emb],
                                     "ref": [round(float(x), 5) for x in ref]}
            if i % 10 == 9:
                args.cache.write_text(json.dumps(cache))
        args.cache.write_text(json.dumps(cache))
        print(f"  {source}: {time.perf_counter() - started:.0f} s; load {os.getloadavg()[0]:.1f}",
              file=sys.stderr, flush=True)
    return 0


def kind(row: dict[str, object]) -> set[str]:
    """Who a candidate can play, as heard: a man from a male source moved little
    (joe's DIO median reads ~160 Hz, an octave error on part of his frames) or
    any source at a median F0 below 150 Hz over an adult man's tract; a woman
    at 170-280 Hz over a tract 8-30 % shorter than a man's; a child from a high
    F0 (240 Hz and up) over a tract at least 20 % shorter than a man's (a female
    source's raised)."""
    f0 = float(row["f0"])  # type: ignore[arg-type]
    shift, formant, _ = row["design"]  # type: ignore[misc]
    from_male = male(str(row["source"]))
    tract = formant * (1.0 if from_male else 1.17)  # relative to an adult man's
    kinds: set[str] = set()
    if (from_male and shift <= 3 and tract <= 1.1) or (f0 < 150 and tract <= 1.08):
        kinds |= {"male", "male/older"}
    if 170 <= f0 <= 280 and 1.08 <= tract <= 1.3:
        kinds |= {"female", "female/older"}
    if f0 >= 240 and tract >= 1.2:
        kinds.add("female/child")
    return kinds


def best_assignment(roles: list[str], rows: list[dict[str, object]], sim: np.ndarray,
                    allowed: list[list[int]]) -> tuple[float, list[int]]:
    """Exhaustive with pruning: the assignment whose closest pair is least similar."""
    best: list[float | list[int]] = [2.0, []]

    def walk(i: int, chosen: list[int], worst: float) -> None:
        if worst >= best[0]:  # type: ignore[operator]
            return
        if i == len(roles):
            best[0], best[1] = worst, list(chosen)
            return
        for c in allowed[i]:
            if c in chosen:
                continue
            w = max([worst] + [float(sim[c, o]) for o in chosen])
            walk(i + 1, chosen + [c], w)

    walk(0, [], -1.0)
    return float(best[0]), best[1]  # type: ignore[arg-type, return-value]


def strength(row: dict[str, object]) -> float:
    shift, formant, tilt = row["design"]  # type: ignore[misc]
    return abs(float(shift)) / 12 + abs(np.log(float(formant))) / np.log(1.24) + abs(float(tilt)) / 6


def assign(args: argparse.Namespace) -> int:
    cache: dict[str, dict[str, object]] = {}
    for path in args.caches:
        cache.update(json.loads(path.read_text()))
    rows = [r for r in cache.values() if r["dnsmos"] >= args.quality
            and r["source"] not in args.exclude.split(",") and args.formant[0] <= r["design"][1] <= args.formant[1]]
    field = "ref" if args.reference else "emb"
    emb = np.array([r[field] for r in rows], dtype=np.float32)
    sim = emb @ emb.T
    roles = args.roles.split(",")
    allowed = [[i for i, r in enumerate(rows) if role in kind(r)] for role in roles]
    print(f"{len(rows)} candidates at DNSMOS >= {args.quality}; per role: "
          + ", ".join(f"{role} {len(a)}" for role, a in zip(roles, allowed, strict=True)))
    # Smaller sets first prune sooner; keep the order of the printout by role.
    order = sorted(range(len(roles)), key=lambda i: len(allowed[i]))
    for limit in args.strength:
        sub = [[c for c in allowed[i] if strength(rows[c]) <= limit] for i in order]
        value, picks = best_assignment([roles[i] for i in order], rows, sim, sub)
        if not picks:
            print(f"strength <= {limit}: none")
            continue
        by_role = dict(zip(order, picks, strict=True))
        print(f"strength <= {limit}: closest pair {value:.3f}")
        for i, role in enumerate(roles):
            r = rows[by_role[i]]
            print(f"  {role}: {r['source']} {r['design']} f0 {r['f0']} DNSMOS {r['dnsmos']}")
    return 0


def wer(args: argparse.Namespace) -> int:
    """WER of designs (source|shift|formant|tilt, comma separated) vs plain, on held-out sentences."""
    library = VoiceLibrary()
    synth = ClipSynthesizer(library, RATE, ClipCache())
    recognize = Recognizer()
    texts = SENTENCES[: args.sentences]
    total = sum(len(words(t)) for t in texts)
    plain_wer: dict[str, float] = {}
    for spec in args.designs.split(","):
        source, shift, formant, tilt = spec.split("|")
        voice = source_voice(source)
        if source not in plain_wer:
            clips = [synth.synthesize(t, voice) for t in texts]
            plain_wer[source] = sum(edit_distance(words(t), words(recognize(c, RATE)))
                                    for t, c in zip(texts, clips, strict=True)) / total
        d = VoiceDesign(f0_shift=float(shift), formant=float(formant), tilt=float(tilt))
        clips = [synth.synthesize(t, voice.with_changes(design=d)) for t in texts]
        value = sum(edit_distance(words(t), words(recognize(c, RATE))) for t, c in zip(texts, clips, strict=True))
        print(f"{spec}: WER {value / total:.3f} plain {plain_wer[source]:.3f}; load {os.getloadavg()[0]:.1f}",
              flush=True)
    return 0


def wer_grid(args: argparse.Namespace) -> int:
    """WER of the general recognizer over a grid of designs, each rendered from one
    WORLD analysis per sentence (as ``measure`` renders them), against the plain clips."""
    library = VoiceLibrary()
    synth = ClipSynthesizer(library, RATE, ClipCache())
    recognize = Recognizer()
    texts = SENTENCES[: args.sentences]
    total = sum(len(words(t)) for t in texts)
    designs = [VoiceDesign(f0_shift=float(s), formant=float(f), tilt=float(t))
               for s, f, t in (spec.split("|") for spec in args.designs.split(","))]
    for source in args.sources.split(","):
        plain = [synth.synthesize(t, source_voice(source)) for t in texts]
        analyses = [world.analyse(c.astype(np.float64), RATE) for c in plain]

        def error(clips: list[np.ndarray]) -> float:
            return sum(edit_distance(words(t), words(recognize(c, RATE)))
                       for t, c in zip(texts, clips, strict=True)) / total

        print(f"{source} plain: WER {error(plain):.3f}; load {os.getloadavg()[0]:.1f}", flush=True)
        for d in designs:
            clips = [render(a, c.size, d) for a, c in zip(analyses, plain, strict=True)]
            print(f"{key(source, d)}: WER {error(clips):.3f}; load {os.getloadavg()[0]:.1f}", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--sources", default=",".join(DEFAULT_SOURCES))
    m.add_argument("--cache", type=Path, default=CACHE)
    a = sub.add_parser("assign")
    a.add_argument("caches", type=Path, nargs="*", default=[CACHE])
    a.add_argument("--roles", default="female/child,female,female,male/older,male")
    a.add_argument("--quality", type=float, default=3.0)
    a.add_argument("--exclude", default="", help="sources left out, comma separated")
    a.add_argument("--formant", type=float, nargs=2, default=[0.0, 9.0], help="formant warps allowed (low high)")
    a.add_argument("--reference", action="store_true", help="embeddings of the reference sentence only")
    a.add_argument("--strength", type=float, nargs="*", default=[0.5, 1.0, 1.5, 2.0, 3.0])
    w = sub.add_parser("wer")
    w.add_argument("designs")
    w.add_argument("--sentences", type=int, default=6)
    g = sub.add_parser("wer-grid")
    g.add_argument("sources")
    g.add_argument("designs", help="shift|formant|tilt, comma separated")
    g.add_argument("--sentences", type=int, default=6)
    args = parser.parse_args()
    return {"measure": measure, "assign": assign, "wer": wer, "wer-grid": wer_grid}[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())
