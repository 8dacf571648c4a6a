"""Staging measured: each room preset's reverberation and direct-to-reverberant
ratio, intelligibility per room and perspective, and what staging costs.

    python bench/staging.py [--sentences 6] [--rooms kitchen,cathedral,...] [--skip-wer] [--json]

1. Rooms. A unit impulse is staged in each preset (engine.audio.staging.
   stage_clip with the room's cached response: the direct sound and the
   room together) at 1 m and at 8 m. Its RT60 is measured by
   pyroomacoustics' own ``experimental.measure_rt60`` (Schroeder backward
   integration, the T20 slope extrapolated to 60 dB), not by the simulation's
   own calibration (engine/audio/rooms.py: Eyring, then one correction by its
   own Schroeder fit on the response without its direct sound). The check is
   on the 8 m impulse, as a room's RT60 is measured beyond its critical
   distance: at 1 m in a hall the direct sound is 11 dB over the whole
   reverberant field and the T20 range starts inside its drop. Indoors it must
   land within 20 % of the preset's RT60. The DRR (direct over everything
   after 2.5 ms) is shown at both distances: 8 m is 18 dB lower than 1 m by
   the inverse distance law. Outdoor presets have no reverberant field:
   their decay is no reverberation time and is not checked.
2. Word error rate. The bundled joe voice speaks held-out sentences
   (bench/shaping_wer.py's, none in the sample); each is staged in every
   room (as a line with no perspective: 0.7 m) and with every perspective
   in the living room, then heard by pocketsphinx's bundled en-US model with its general
   language model (not the product's recognizer, which is biased to the
   text). WER against the same sentences dry.
3. Cost. Staging a 10 s line per room (convolution by overlap-add) against
   mixing the same line dry through the block mixer, both per audio second,
   in the same run; and the mixer's 1024-frame block with a staged (stereo)
   clip against a mono one (the live path per block).
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
from engine.audio.mixer import BlockMixer, PlacedClip  # noqa: E402
from engine.audio.rooms import RoomResponses  # noqa: E402
from engine.audio.staging import stage_clip  # noqa: E402
from engine.project.model import VoiceParams  # noqa: E402
from engine.project.staging import PERSPECTIVES, ROOM_PRESETS, LineStage, line_stage  # noqa: E402

RATE = 48_000
DIRECT_S = 0.0025


def room_table(names: list[str], responses: RoomResponses) -> list[dict[str, object]]:
    import pyroomacoustics as pra

    rows: list[dict[str, object]] = []
    for name in names:
        room = ROOM_PRESETS[name]
        began = time.perf_counter()
        reverb = responses.response(room, RATE)
        made_s = time.perf_counter() - began
        click = np.zeros(RATE // 10, dtype=np.float32)
        click[0] = 1.0
        measured: dict[float, float] = {}
        drr: dict[float, float] = {}
        for distance in (1.0, 8.0):
            stage = LineStage(room=room, path=((0.0, 0.0, distance),))
            mono = stage_clip(click, stage, RATE, reverb).astype(np.float64).mean(axis=1)
            cut = int(DIRECT_S * RATE)
            drr[distance] = float(10 * np.log10((mono[:cut] ** 2).sum() / max((mono[cut:] ** 2).sum(), 1e-30)))
            try:
                measured[distance] = float(pra.experimental.measure_rt60(mono, RATE, decay_db=20))
            except (ValueError, IndexError):
                measured[distance] = float("nan")
        error = measured[8.0] / room.rt60 - 1.0
        ok = None if room.outdoor else bool(abs(error) <= 0.2)
        rows.append({"room": name, "outdoor": room.outdoor, "rt60": room.rt60,
                     "measured_rt60_8m": round(measured[8.0], 3), "measured_rt60_1m": round(measured[1.0], 3),
                     "error": round(error, 3), "within_20pct": ok, "drr_db_1m": round(drr[1.0], 1),
                     "drr_db_8m": round(drr[8.0], 1), "response_s": round(reverb.shape[0] / RATE, 2),
                     "made_s": round(made_s, 2)})
        verdict = "outdoor" if ok is None else ("ok" if ok else "MISS")
        print(f"  {name:12s} RT60 {room.rt60:4.2f} s measured {measured[8.0]:5.2f} s ({error:+6.1%}) {verdict:7s} "
              f"(at 1 m {measured[1.0]:5.2f} s)  DRR 1 m {drr[1.0]:+6.1f} dB, 8 m {drr[8.0]:+6.1f} dB  "
              f"response {reverb.shape[0] / RATE:4.2f} s  ({made_s:.1f} s to get)", file=sys.stderr, flush=True)
    return rows


def wer_table(count: int, rooms: list[str], responses: RoomResponses) -> dict[str, float]:
    from engine.synth.cache import ClipCache
    from engine.synth.library import VoiceLibrary
    from engine.synth.synthesizer import ClipSynthesizer

    synth = ClipSynthesizer(VoiceLibrary(), RATE, ClipCache())
    sentences = SENTENCES[:count]
    clips = [synth.synthesize(s, VoiceParams()) for s in sentences]
    hear = Recognizer()
    conditions: list[tuple[str, LineStage | None]] = [("dry", None)]
    # As a line with no perspective is staged: 0.7 m, centre (engine.project.staging.NO_PERSPECTIVE).
    conditions += [(f"room {name}", line_stage(ROOM_PRESETS[name], "", None, 0.0)) for name in rooms]
    living = ROOM_PRESETS["living room"]
    for perspective in PERSPECTIVES:
        conditions.append((f"living room, {perspective}", line_stage(living, perspective, None, 0.0)))
    table: dict[str, float] = {}
    for label, stage in conditions:
        errors = total = 0
        for text, clip in zip(sentences, clips, strict=True):
            if stage is None:  # dry: the clip as an unstaged line is mixed
                heard = clip
            else:
                reverb = responses.response(stage.room, RATE) if stage.room is not None and stage.reverb else None
                heard = stage_clip(clip, stage, RATE, reverb).mean(axis=1)
            ref = words(text)
            errors += edit_distance(ref, words(hear(heard, RATE)))
            total += len(ref)
        table[label] = errors / total
        print(f"  {label:28s} WER {errors / total:.3f}", file=sys.stderr, flush=True)
    return table


def cost_table(rooms: list[str], responses: RoomResponses, repeats: int = 3) -> dict[str, object]:
    rng = np.random.default_rng(5)
    line = (rng.normal(0, 0.1, 10 * RATE)).astype(np.float32)
    seconds = line.shape[0] / RATE

    def best(fn) -> float:  # type: ignore[no-untyped-def]
        times = []
        for _ in range(repeats):
            began = time.perf_counter()
            fn()
            times.append(time.perf_counter() - began)
        return min(times)

    def mix_dry() -> None:
        mixer = BlockMixer([PlacedClip(0, 0, line)], 1, 8192)
        for t in range(0, line.shape[0], 8192):
            mixer.process(t, min(8192, line.shape[0] - t))

    baseline = best(mix_dry) / seconds
    per_room: dict[str, float] = {}
    for name in rooms:
        room = ROOM_PRESETS[name]
        reverb = responses.response(room, RATE)
        per_room[name] = best(lambda: stage_clip(line, LineStage(room=room), RATE, reverb)) / seconds  # noqa: B023
        print(f"  staging in {name:12s} {per_room[name] * 1e3:6.2f} ms per audio second "
              f"({per_room[name] / baseline:5.1f} x the dry mix's {baseline * 1e3:.2f} ms)", file=sys.stderr,
              flush=True)
    staged = stage_clip(line, LineStage(room=ROOM_PRESETS["cathedral"]), RATE,
                        responses.response(ROOM_PRESETS["cathedral"], RATE))

    def blocks(audio: np.ndarray) -> float:
        mixer = BlockMixer([PlacedClip(0, 0, audio)], 1, 1024)
        began = time.perf_counter()
        n = 0
        for t in range(0, line.shape[0], 1024):
            mixer.process(t, 1024)
            n += 1
        return (time.perf_counter() - began) / n

    mono_block = min(blocks(line) for _ in range(repeats))
    stereo_block = min(blocks(staged) for _ in range(repeats))
    print(f"  live block (1024 frames): mono clip {mono_block * 1e6:.0f} us, staged clip {stereo_block * 1e6:.0f} us "
          f"({stereo_block / mono_block:.2f} x)", file=sys.stderr, flush=True)
    return {"dry_mix_s_per_audio_s": baseline, "staging_s_per_audio_s": per_room,
            "block_mono_s": mono_block, "block_staged_s": stereo_block}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sentences", type=int, default=6)
    p.add_argument("--rooms", default=",".join(ROOM_PRESETS))
    p.add_argument("--skip-wer", action="store_true")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    rooms = [r.strip() for r in args.rooms.split(",") if r.strip()]
    unknown = [r for r in rooms if r not in ROOM_PRESETS]
    if unknown:
        p.error(f"unknown room {unknown[0]!r} (choose {', '.join(ROOM_PRESETS)})")
    responses = RoomResponses()
    print(f"load average {os.getloadavg()[0]:.2f} at start", file=sys.stderr)
    print("rooms (impulse at 1 m):", file=sys.stderr)
    result: dict[str, object] = {"rooms": room_table(rooms, responses)}
    if not args.skip_wer:
        print("word error rate (pocketsphinx, general language model):", file=sys.stderr)
        result["wer"] = wer_table(args.sentences, rooms, responses)
    print("cost:", file=sys.stderr)
    result["cost"] = cost_table(rooms, responses)
    result["load_average_end"] = os.getloadavg()[0]
    print(f"load average {os.getloadavg()[0]:.2f} at the end", file=sys.stderr)
    if args.json:
        print(json.dumps(result, indent=2))
    misses = [r["room"] for r in result["rooms"] if r["within_20pct"] is False]  # type: ignore[index, union-attr]
    if misses:
        print(f"RT60 more than 20% off in: {', '.join(str(m) for m in misses)}", file=sys.stderr)
    return 1 if misses else 0


if __name__ == "__main__":
    raise SystemExit(main())
