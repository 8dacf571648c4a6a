"""Whether the speaker presets sound their age: pitch, formants, words, similarity and
quality of each preset over each source voice.

    python bench/ages.py [--sources joe,jm_kumo,jf_gongitsune] [--sentences 16]
                         [--presets "man,woman,boy,girl,older man,older woman"]
                         [--design "label=field=v,field=v" ...] [--method product|psola|world]
                         [--cache-dir DIR] [--json PATH]

Each source (joe: the bundled Piper voice, an adult man; a Kokoro style by its name)
speaks the held-out sentences (bench/shaping_wer.py's) once; every preset's design for
that source (engine/project/voice_presets.py ``design_for``: the preset table as the
studio and the casting take it) shapes the same lines through the shaping stage
(``shape_voice``: the design, then loudness levelling), so the rows compare designs and
not renditions. ``--design`` adds a design of your own over an adult man, converted for
a female source as a speaker preset is (``over_female_source``: the woman taken out;
``boy2=f0_shift=15,formant=1.3``); ``--as-written`` one applied as written over every source. ``--method`` forces PSOLA or WORLD for every
design (default: whichever the product picks).

Per row: Praat's median F0 and the pitch's span within a line (10th-90th percentile, in
semitones), the median F1-F3 from Praat's FormantPath (engine/listen/voice_traits.py),
F2 against the plain adult man's of the same engine (joe for Piper, jm_kumo for Kokoro;
the median's ratio, then the mean's),
the word error rate heard by Whisper base (bench/whisper_heard.py) and its difference to
the plain source's on the same sentences, DNSMOS OVRL (engine/listen/quality.py, the
mean over the first four lines), and the GE2E speaker similarity (engine/listen/speaker.py)
to the plain source and to the closest other row. Print the load average beside it:
the figures are not timings, but the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.shaping_wer import SENTENCES  # noqa: E402
from bench.voice_design import parse_design  # noqa: E402
from bench.whisper_heard import WhisperHeard  # noqa: E402
from engine.listen import quality, speaker  # noqa: E402
from engine.listen.voice_traits import VoiceTraits, voice_traits  # noqa: E402
from engine.project.design import NEUTRAL, VoiceDesign  # noqa: E402
from engine.project.model import VoiceParams  # noqa: E402
from engine.project.voice_presets import FEMALE, MALE, design_for, over_female_source, source_gender  # noqa: E402
from engine.synth import shaping  # noqa: E402
from engine.synth.cache import ClipCache  # noqa: E402
from engine.synth.design import apply_overlap_add, apply_world  # noqa: E402
from engine.synth.library import VoiceLibrary  # noqa: E402
from engine.synth.synthesizer import ClipSynthesizer  # noqa: E402

SPEAKERS = "man,woman,boy,girl,older man,older woman"
DNSMOS_LINES = 4
# The plain adult man each engine's F2 is compared with: the same script, the same engine.
ADULT_MAN = {"piper": "joe", "kokoro": "jm_kumo"}


@dataclass
class Row:
    source: str
    name: str
    design: VoiceDesign
    clips: list[np.ndarray] = field(default_factory=list)
    traits: VoiceTraits | None = None
    wer: float = 0.0
    dnsmos: float = 0.0
    embedding: np.ndarray | None = None


def voice_of(name: str) -> VoiceParams:
    return VoiceParams() if name == "joe" else VoiceParams(backend="kokoro", voice=name)


def shaped(clip: np.ndarray, rate: int, design: VoiceDesign, method: str) -> np.ndarray:
    if method == "product":
        return shaping.shape_voice(clip.copy(), rate, design)
    made = apply_overlap_add(clip, rate, design) if method == "psola" else apply_world(clip, rate, design)
    return shaping.level_loudness(np.asarray(made, dtype=np.float32), rate)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sources", default="joe,jm_kumo,jf_gongitsune")
    parser.add_argument("--sentences", type=int, default=16)
    parser.add_argument("--presets", default=SPEAKERS, help="comma separated preset names ('' for none)")
    parser.add_argument("--design", action="append", default=[], metavar="LABEL=FIELD=V,...",
                        help="a design of your own over a man (converted for a woman), e.g. boy2=f0_shift=15,formant=1.3")
    parser.add_argument("--as-written", action="append", default=[], metavar="LABEL=FIELD=V,...",
                        help="a design applied as written over every source, not converted for a woman")
    parser.add_argument("--method", choices=("product", "psola", "world"), default="product")
    parser.add_argument("--cache-dir", type=Path, default=None, help="keep the plain clips here between runs")
    parser.add_argument("--no-similarity", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()

    texts = SENTENCES[:args.sentences]
    library = VoiceLibrary()
    hear = WhisperHeard()
    encoder = None if args.no_similarity else speaker.encoder()
    presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    own = [(spec.split("=", 1)[0], parse_design(spec.split("=", 1)[1])) for spec in args.design]
    written = [(spec.split("=", 1)[0], parse_design(spec.split("=", 1)[1])) for spec in args.as_written]
    rows: list[Row] = []
    rates: dict[str, int] = {}
    started = time.monotonic()
    for source in [s for s in args.sources.split(",") if s]:
        params = voice_of(source)
        rate = library.resolve(params.voice, params.backend).sample_rate
        rates[source] = rate
        cache = ClipCache(args.cache_dir / source) if args.cache_dir else ClipCache()
        synth = ClipSynthesizer(library, rate, cache)
        plain = [np.array(synth.synthesize(t, params)) for t in texts]
        gender = source_gender(params.backend, params.voice)
        named = [("plain", NEUTRAL)]
        named += [(p, design_for(p, gender)) for p in presets if not (p == "man" and gender == MALE)]
        named += [(label, over_female_source(d) if gender == FEMALE else d) for label, d in own]
        named += written
        for name, design in named:
            row = Row(source, name, design)
            row.clips = plain if design.is_neutral else [shaped(c, rate, design, args.method) for c in plain]
            row.traits = voice_traits(row.clips, rate)
            row.wer = hear.word_error_rate(texts, row.clips, rate)
            row.dnsmos = float(np.mean([quality.quality(c, rate) for c in row.clips[:DNSMOS_LINES]]))
            if encoder is not None:
                row.embedding = encoder.embed_speaker([(c, rate) for c in row.clips])
            rows.append(row)
            f1, f2, f3 = row.traits.formants_hz
            print(f"  {source:14s} {name:14s} F0 {row.traits.f0_hz:4.0f} Hz span {row.traits.f0_span_st:4.1f} st  "
                  f"F1-3 {f1:4.0f} {f2:4.0f} {f3:4.0f}  WER {row.wer:.3f}  DNSMOS {row.dnsmos:.2f}  "
                  f"({time.monotonic() - started:.0f} s)", file=sys.stderr, flush=True)
    report(rows, args.no_similarity, args.json)
    return 0


def report(rows: list[Row], no_similarity: bool, out: Path | None) -> None:
    plain = {r.source: r for r in rows if r.name == "plain"}
    records = []
    print("| source | preset | design | F0 Hz | span st | F1 | F2 | F3 | F2 / man's (mean) | WER (plain) | DNSMOS "
          "| sim. to plain | closest other |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        assert row.traits is not None
        base = plain[row.source]
        man = plain.get(ADULT_MAN["piper" if row.source == "joe" else "kokoro"])
        f2_ratio = f2_mean_ratio = float("nan")
        if man and man.traits:
            f2_ratio = row.traits.formants_hz[1] / man.traits.formants_hz[1]
            f2_mean_ratio = row.traits.formant_means_hz[1] / man.traits.formant_means_hz[1]
        sim_plain = closest_name = ""
        sim = closest = float("nan")
        if not no_similarity and row.embedding is not None and base.embedding is not None:
            sim = speaker.similarity(row.embedding, base.embedding)
            others = [(speaker.similarity(row.embedding, o.embedding), o) for o in rows
                      if o is not row and o.embedding is not None]
            closest, near = max(others, key=lambda pair: pair[0])
            sim_plain, closest_name = f"{sim:.2f}", f"{closest:.2f} {near.source} {near.name}"
        design = ", ".join(f"{k} {v:g}" for k, v in row.design.to_dict().items()) or "-"
        f1, f2, f3 = row.traits.formants_hz
        print(f"| {row.source} | {row.name} | {design} | {row.traits.f0_hz:.0f} | {row.traits.f0_span_st:.1f} "
              f"| {f1:.0f} | {f2:.0f} | {f3:.0f} | {f2_ratio:.2f} ({f2_mean_ratio:.2f}) | {row.wer:.3f} ({base.wer:.3f}) "
              f"| {row.dnsmos:.2f} | {sim_plain} | {closest_name} |")
        records.append({"source": row.source, "preset": row.name, "design": row.design.to_dict(),
                        "f0_hz": row.traits.f0_hz, "f0_span_st": row.traits.f0_span_st,
                        "formants_hz": list(row.traits.formants_hz), "f2_over_man": f2_ratio,
                        "formant_means_hz": list(row.traits.formant_means_hz), "f2_mean_over_man": f2_mean_ratio,
                        "wer": row.wer, "plain_wer": base.wer, "dnsmos": row.dnsmos,
                        "similarity_to_plain": sim, "closest": closest})
    if out is not None:
        out.write_text(json.dumps(records, indent=2))


if __name__ == "__main__":
    raise SystemExit(main())
