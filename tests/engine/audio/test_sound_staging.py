"""Sound clips in the scenes' rooms: an effect placed at a distance is staged by
the lines' stager (lower and wetter far away), an ambience is not, the
placement is kept in the file and in the mix's keys, and live playback mixes
what the export writes."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from numpy.testing import assert_allclose

from engine.audio.rooms import RoomResponses
from engine.audio.sinks import NullSink
from engine.audio.staging import Stager, sound_stages
from engine.export.captions import cue_sheet
from engine.export.daw.handoff import clip_as_played
from engine.export.session_render import render_session
from engine.mixdown.memo import sound_identity
from engine.mixdown.sound_placement import SoundSet, resolve_sounds
from engine.project.fileformat import load_project, save_project
from engine.project.model import Line, Project, Role, Scene, VoiceParams
from engine.project.sound import SoundClip, SoundLane
from engine.project.staging import ROOM_PRESETS, Position
from engine.project.timeline import SoundPlacement, layout_all
from engine.session.control import Session
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

RATE = 48_000
CLICK_AT = 100


@pytest.fixture(scope="module")
def responses(tmp_path_factory: pytest.TempPathFactory) -> RoomResponses:
    return RoomResponses(tmp_path_factory.mktemp("rooms"))


def _click(folder: Path, name: str = "click.wav", stereo: bool = False) -> Path:
    audio = np.zeros(RATE // 5, dtype=np.float32)
    audio[CLICK_AT] = 0.05  # quiet: no trim of the sound lane's stem gets in the way of the levels
    path = folder / name
    sf.write(path, np.stack([audio, audio], axis=1) if stereo else audio, RATE, subtype="FLOAT")
    return path


def _project(sound: Path, room: str = "living room", lane: str = "effects",
             position: Position | None = None, perspective: str = "") -> Project:
    project = Project(title="Placed", sample_rate=RATE, scenes=[Scene("S1", "INT. ROOM", room=ROOM_PRESETS[room])],
                      cast=[Role("ANN")], lines=[Line(id="L1", role="ANN", scene="S1", text="Who is there?")])
    project.sound_lanes = [SoundLane.of_kind(lane)]
    project.sounds = [SoundClip(id="X1", lane=project.sound_lanes[0].name, file=str(sound), anchor="line_end",
                                line="L1", position=position, perspective=perspective)]
    return project


def _played(project: Project, sounds: SoundSet) -> tuple[SoundPlacement, np.ndarray]:
    _, placed = layout_all(project, {"L1": 1.0}, sounds.durations(RATE))
    return placed[0], clip_as_played(project, sounds, placed[0])


def _levels(audio: np.ndarray) -> tuple[float, float, float]:
    """Peak (dB), energy (dB) and direct-to-reverberant ratio (the first 2.5 ms
    from the click over the rest, dB) of a played click."""
    energy = (audio.astype(np.float64) ** 2).sum(axis=1)
    onset = int(np.flatnonzero(energy > energy.max() * 1e-6)[0])
    cut = onset + int(0.0025 * RATE)
    return (float(20 * np.log10(np.abs(audio).max())), float(10 * np.log10(energy.sum())),
            float(10 * np.log10(energy[:cut].sum() / energy[cut:].sum())))


def test_an_effect_placed_far_is_lower_and_wetter_than_near(responses: RoomResponses, tmp_path: Path) -> None:
    click = _click(tmp_path)
    measured = {}
    for distance in (1.0, 6.0):
        project = _project(click, position=Position(distance=distance))
        sounds = resolve_sounds(project, None, stager=Stager(responses))
        placement, played = _played(project, sounds)
        assert placement.scene == "S1"
        # The room's tail rings on past the file's end.
        assert played.shape[0] > RATE // 5 + RATE // 10
        measured[distance] = _levels(played)
    (near_peak, near, near_drr), (far_peak, far, far_drr) = measured[1.0], measured[6.0]
    print(f"effect in a living room: 1 m peak {near_peak:.1f} dB, energy {near:.1f} dB, DRR {near_drr:+.1f} dB; "
          f"6 m peak {far_peak:.1f} dB, energy {far:.1f} dB, DRR {far_drr:+.1f} dB")
    # Lower: the direct sound (the peak) falls by the inverse distance law, 15.6 dB from 1 m to
    # 6 m; the whole energy less, as the room's field, which does not depend on distance, stays.
    assert far_peak < near_peak - 6.0
    assert far < near - 1.5
    # Wetter: the direct sound falls against that field.
    assert far_drr < near_drr - 10.0


def test_an_effect_is_staged_by_the_lines_stager_from_its_pan(responses: RoomResponses, tmp_path: Path) -> None:
    project = _project(_click(tmp_path, stereo=True), position=Position(pan=-0.8, distance=1.0))
    project.sounds[0].pan = 0.5  # the position's pan wins, as on a line
    sounds = resolve_sounds(project, None, stager=Stager(responses))
    _, played = _played(project, sounds)
    direct = played[CLICK_AT]
    assert direct[0] > 4 * direct[1]  # left: the position's pan, constant power
    stage = sound_stages(project, {"X1": "S1"})["X1"]
    assert stage.room == ROOM_PRESETS["living room"] and stage.path == ((0.0, -0.8, 1.0),)


def test_ambience_and_unplaced_effects_are_not_staged(tmp_path: Path) -> None:
    click = _click(tmp_path)
    for project in (_project(click), _project(click, lane="ambience", position=Position(distance=8.0))):
        assert sound_stages(project, {"X1": "S1"}) == {}
        sounds = resolve_sounds(project, None)
        placement, played = _played(project, sounds)
        assert played.shape[0] == int(round(placement.end * RATE)) - int(round(placement.start * RATE))
        # The file as it was, centred (constant power: both sides at cos 45 degrees).
        assert_allclose(played[CLICK_AT], [0.05 * np.sqrt(0.5)] * 2, rtol=1e-5)
        assert np.count_nonzero(played[:, 0]) == 1


def test_a_time_pinned_effect_is_heard_in_the_scene_then_playing(tmp_path: Path) -> None:
    project = _project(_click(tmp_path), perspective="distant")
    project.scenes.append(Scene("S2", "EXT. STREET", room=ROOM_PRESETS["street"]))
    project.lines.append(Line(id="L2", role="ANN", scene="S2", text="Outside now."))
    lines, _ = layout_all(project, {"L1": 1.0, "L2": 1.0}, {})
    for at, scene in ((lines[1].start - 0.1, "S1"), (lines[1].start + 0.1, "S2")):
        project.sounds[0] = replace(project.sounds[0], anchor="time", line=None, offset=at)
        _, placed = layout_all(project, {"L1": 1.0, "L2": 1.0}, {"X1": 0.2})
        assert placed[0].scene == scene
    assert sound_stages(project, {"X1": placed[0].scene})["X1"].room == ROOM_PRESETS["street"]


def test_the_placement_is_saved_and_old_files_load_unplaced(tmp_path: Path) -> None:
    project = _project(_click(tmp_path), perspective="door",
                       position=Position(pan=0.3, distance=8.0, path=((0.0, 0.3, 8.0), (1.0, -0.3, 2.0))))
    path = tmp_path / "placed.radioplay"
    save_project(project, path)
    loaded = load_project(path)
    assert loaded.sounds[0].perspective == "door"
    assert loaded.sounds[0].position == project.sounds[0].position
    # An unplaced clip writes no staging keys: a file from before loads (and saves) unplaced.
    project.sounds[0] = replace(project.sounds[0], perspective="", position=None)
    save_project(project, path)
    text = path.read_text()
    assert '"position"' not in text and '"perspective"' not in text
    assert load_project(path).sounds[0].position is None


def test_the_cue_sheet_gives_a_placed_effect_its_room_and_position(tmp_path: Path) -> None:
    project = _project(_click(tmp_path), perspective="distant", position=Position(pan=-0.5))
    lines, sounds = layout_all(project, {"L1": 1.0}, {"X1": 0.2})
    cue = next(c for c in json.loads(cue_sheet(project, lines, sounds))["cues"] if c["id"] == "X1")
    assert cue["room"] == "living room" and cue["perspective"] == "distant"
    assert cue["position"] == {"pan": [-0.5, -0.5], "distance": [12.0, 12.0]}  # the perspective's distance


def test_a_bad_placement_is_named_with_its_clip_and_field(tmp_path: Path) -> None:
    project = _project(_click(tmp_path), position=Position(distance=8.0))
    path = tmp_path / "bad.radioplay"
    save_project(project, path)
    path.write_text(path.read_text().replace('"distance": 8.0', '"distance": 900'))
    with pytest.raises(ValueError, match=r"sounds\[0\]\.position\.distance"):
        load_project(path)


def test_the_placement_is_in_the_mix_memo_and_the_staged_clips_key(tmp_path: Path) -> None:
    click = _click(tmp_path)
    cache = ClipCache(tmp_path / "cache")
    keys = set()
    identities = []
    for distance in (1.0, 8.0, 8.0):
        project = _project(click, room="car", position=Position(distance=distance))
        sounds = resolve_sounds(project, None, cache=cache)
        _played(project, sounds)
        identities.append(sound_identity(project, sounds))
        keys |= {p.name for p in (tmp_path / "cache").rglob("staged-*")}
    assert identities[0] != identities[1] == identities[2]
    assert len(keys) == 2  # one staged clip per position, the same one again for the same position
    other_room = _project(click, room="bathroom", position=Position(distance=8.0))
    assert sound_identity(other_room, resolve_sounds(other_room, None)) != identities[1]


def test_live_playback_mixes_a_placed_effect_as_the_export_writes(tiny_voices: dict[str, Path],
                                                                  tmp_path: Path) -> None:
    project = _project(_click(tmp_path), room="car", position=Position(pan=0.4, distance=3.0))
    project.cast = [Role("ANN", voice=VoiceParams(voice=str(tiny_voices["single"])))]
    synth = ClipSynthesizer(VoiceLibrary(base_dir=tmp_path), RATE, ClipCache(tmp_path / "cache"))
    live = Session(project, None, sink=NullSink(RATE, speed=8.0), synth=synth)
    try:
        assert live.wait_idle(30.0)
        report = render_session(live, tmp_path / "out")
        written = sf.read(tmp_path / "out" / "dme" / "FX.wav", dtype="float32")[0]
        frames = min(int(report.duration_s * RATE), written.shape[0])
        assert np.abs(written).max() > 1e-3
        lane = len(project.cast)

        def live_fx() -> np.ndarray:
            programme = live.programme
            programme.set_master_gain(report.gain_db)
            got = np.zeros((frames, 2), dtype=np.float32)
            for t in range(0, frames, 1024):  # the live mixer's block, not the export's
                n = min(1024, frames - t)
                got[t:t + n] = programme.mix(t, n)[1][lane]
            return got

        # Live staging never waits for the room: until it is made the effect plays dry of it.
        deadline = time.monotonic() + 60.0
        while True:
            assert live.wait_idle(30.0)
            got = live_fx()
            if np.allclose(got, written[:frames], atol=1e-5) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert_allclose(got, written[:frames], atol=1e-5)
    finally:
        live.close()
