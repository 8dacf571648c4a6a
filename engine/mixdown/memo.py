"""The master gain of a programme (export's and live playback's), and the
folder that remembers it for the same programme.

Solving the master gain needs a pass over the whole programme through its
lane effects and compressor (engine/audio/normalize.py) whenever an effect is
on: half of a cached export's time, measured 3.1 s of 7.3 s on the sample.
The result depends only on what is mixed (every clip's content key, lane
and start frame, each lane's gain, pan, audibility and effect, the sound
design: its lanes, clips and the audio each plays, the master preset, the
length, the rate) and on the target, so an export of an
unchanged programme reuses it. The same holds for the compliance report's
measurement of a mix.wav the render writes itself (loudness, range, true
peak by 4x oversampling: a second pass over the file, measured 4 s of a 6.5 s
cached export): the mix is the same bytes for the same programme, gain and
format (tests/engine/export/test_export_speed.py), so its measurement is remembered with
the file's name, format and size (engine/export/mix_memo.py, in the same folder). A remembered result is a few numbers in a
small JSON file beside the clips of the shared cache (``loudness/``), named
by a hash of all of that; the newest :data:`KEEP` are kept.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from engine import ENGINE_VERSION
from engine.audio.staging import staging_identity
from engine.memofolder import MemoFolder
from engine.mixdown.sound_placement import SoundSet
from engine.project.model import Project
from engine.project.timeline import Placement
from engine.synth.pipeline import SynthesisResult

# Bump when the analysis, the effects or the limiter change what a gain gives.
# 2: the sound design is part of the programme; 3: the dialogue leveller; 4: the leveller before the
# staging, a staged line trimmed under the stems' ceiling; 5: the leveller levels a staged line as a dry one
# 6: a directed line levelled at its neutral level, its role trimmed by its loudest direction;
# 7: a role's staged lines trimmed together (the largest trim any needs), not line by line
# 9: the scenes' lines levelled for the gain their delivered file is made at (scene_db)
MEMO_VERSION = 9
KEEP = 256
FOLDER = "loudness"


@dataclass(frozen=True)
class SolvedGain:
    premix_lufs: float  # before the master gain and the limiter
    gain_db: float
    predicted_lufs: float  # of the limited master
    # The master gain the dialogue leveller levelled for (engine/audio/leveller.py
    # expected_gain_db, or the render's second levelling); NaN: the estimate.
    staging_db: float = math.nan
    # How much louder than staging_db each scene's lines were levelled for (the gain their
    # delivered file takes over the master gain: engine/export/chapter_levels.py).
    scene_db: tuple[tuple[str, float], ...] = ()


def programme_key(project: Project, placements: list[Placement], clip_keys: dict[str, str],
                  lane_effects: tuple[str, ...], master_effect: str, frames: int,
                  target_lufs: float, ceiling_db: float, sounds: SoundSet | None = None) -> str:
    """A hash of everything the master gain depends on."""
    rate = project.sample_rate
    audible = project.audible_roles()
    lanes = {r.name: i for i, r in enumerate(project.cast)}
    payload = {
        "memo": MEMO_VERSION, "engine": ENGINE_VERSION, "rate": rate, "frames": frames,
        "target": round(target_lufs, 6), "ceiling": round(ceiling_db, 6), "master": master_effect,
        "lanes": [[r.name, round(r.gain_db, 6), round(r.pan, 6), r.name in audible, effect]
                  for r, effect in zip(project.cast, lane_effects, strict=True)],
        "clips": [[lanes[p.role], int(round(p.start * rate)), clip_keys[p.line_id]] for p in placements],
        "sounds": sound_identity(project, sounds),
        "staging": staging_identity(project),
    }
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()[:32]


def sound_identity(project: Project, sounds: SoundSet | None) -> list[object]:
    """The sound design as mixed: every sound lane's and clip's settings (their
    placements follow from these and the lines' lengths) and a hash of the
    audio each clip plays, so another recording under the same file name is
    another programme."""
    audio = sounds.audio if sounds is not None else {}
    hashes: dict[int, str] = {}  # one file played by several clips is hashed once
    for clip_audio in audio.values():
        if id(clip_audio) not in hashes:
            hashes[id(clip_audio)] = hashlib.sha256(np.ascontiguousarray(clip_audio).tobytes()).hexdigest()[:32]
    identity: list[object] = [
        [repr(lane) for lane in project.sound_lanes],
        [[repr(clip), hashes.get(id(audio[clip.id]), "") if clip.id in audio else ""] for clip in project.sounds]]
    if any(clip.perspective or clip.position is not None for clip in project.sounds):
        # A placed effect is staged in its scene's room (its perspective and position are in its repr).
        identity.append([[scene.id, repr(scene.room)] for scene in project.scenes])
    return identity


def clip_identities(project: Project, result: SynthesisResult) -> dict[str, str]:
    """What each line is heard as: its clip's content key, or for a recorded
    take (not a synthesized clip) a hash of the take's audio."""
    recorded = {line.id for line in project.lines if line.recording is not None}
    return {lid: (plan.key if lid not in recorded
                  else "take:" + hashlib.sha256(result.clips[lid].tobytes()).hexdigest()[:32])
            for lid, plan in result.plans.items()}


class GainMemo:
    """Remembered gains in ``directory``'s ``loudness/`` (None: remember nothing, e.g. a
    memory-only clip cache)."""

    def __init__(self, directory: Path | None) -> None:
        self.folder = MemoFolder(directory / FOLDER if directory is not None else None, KEEP)

    def load(self, key: str) -> SolvedGain | None:
        data = self.folder.read(key)
        if data is None:
            return None  # none yet, or unreadable: measure again
        try:
            solved = SolvedGain(float(data["premix_lufs"]), float(data["gain_db"]), float(data["predicted_lufs"]),
                                float(data.get("staging_db", math.nan)),
                                tuple((str(scene), float(db)) for scene, db in data.get("scene_db", [])))
        except (ValueError, KeyError, TypeError):
            return None
        if not (math.isfinite(solved.gain_db) and math.isfinite(solved.predicted_lufs)):
            return None
        self.folder.touch(key)
        return solved

    def save(self, key: str, solved: SolvedGain) -> None:
        """Best effort: a cache folder that cannot be written costs a pass next time, nothing more."""
        if math.isfinite(solved.gain_db):
            self.folder.write(key, asdict(solved))
