"""The dialogue chain's order (leveller, then staging), a staged line levelled
for the level its staging gives it, and the mixer playing the chain's clips."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from engine.audio.leveller import DIALOGUE, lane_offset_db, line_envelope
from engine.audio.mixer import BlockMixer, PlacedClip
from engine.audio.rooms import RoomResponses
from engine.audio.staging import Stager, stage_clip
from engine.mixdown.dialogue import STAGED_WALL_DB, DialogueChain, LevelledLines
from engine.project.model import Line, Project, Role, Scene, VoiceParams
from engine.project.staging import ROOM_PRESETS, Position

RATE = 48_000


def speechlike(seconds: float, seed: int) -> np.ndarray:
    """Noise with syllable-rate swings and a few hard peaks (a line the leveller has work on)."""
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    audio = rng.standard_normal(n) * 0.08 * (0.5 + 0.5 * np.sin(2 * np.pi * 4.0 * t) ** 2)
    for at in rng.integers(0, n - 200, 6):
        audio[at:at + 120] *= 6.0
    return audio.astype(np.float32)


def _project() -> Project:
    """DRY unstaged; NEAR staged close to the mic (louder than dry: the leveller must know it);
    ROOM staged in a car."""
    project = Project(title="Chain", sample_rate=RATE,
                      scenes=[Scene("S1", "INT. STUDIO"), Scene("S2", "INT. CAR", room=ROOM_PRESETS["car"])])
    voice = VoiceParams(voice="unused.onnx")
    project.cast = [Role("DRY", voice=voice, pan=-0.5, gain_db=3.0), Role("NEAR", voice=voice, gain_db=2.0),
                    Role("ROOM", voice=voice, pan=0.3)]
    project.lines = [Line(id="L1", role="DRY", scene="S1", text="A dry line."),
                     Line(id="L2", role="NEAR", scene="S1", text="A close line.",
                          position=Position(pan=0.2, distance=0.5)),
                     Line(id="L3", role="ROOM", scene="S2", text="A line in the car.")]
    return project


@pytest.fixture(scope="module")
def responses(tmp_path_factory: pytest.TempPathFactory) -> RoomResponses:
    return RoomResponses(tmp_path_factory.mktemp("rooms"))


def _as_played(placed: PlacedClip) -> np.ndarray:
    """A staged clip as its lane hears it: with its staged wall, if any, and its role's trim."""
    return placed.levelled() * np.float32(placed.gain)


def test_the_leveller_comes_before_the_staging(responses: RoomResponses) -> None:
    project = _project()
    chain = DialogueChain(project, 10.0, Stager(responses))
    clip = speechlike(2.0, seed=3)
    stage = chain.stages["L3"]
    envelope = chain.envelope("L3", "ROOM", clip)
    assert envelope.active  # hot enough at +10 dB that the leveller works
    placed = chain.placed(0, 0, "L3", "ROOM", clip)
    assert placed.envelope is None  # the curve is in the staged clip, not applied after it
    reverb = responses.response(ROOM_PRESETS["car"], RATE)
    expected = stage_clip(envelope.apply(clip), stage, RATE, reverb)
    peak = float(np.abs(expected).max())
    trim = min(1.0, chain.ceiling("ROOM") / peak)  # where the car's reverberation passed the ceiling
    np.testing.assert_allclose(placed.audio, expected, rtol=1e-5, atol=1e-7)
    assert placed.gain == pytest.approx(trim)  # the role's trim, applied by the mixer


def test_a_staged_line_is_levelled_as_a_dry_line_and_trimmed_where_its_staging_passes_the_ceiling(
        responses: RoomResponses) -> None:
    """The leveller levels the dry line (so the perspective's level survives it); a close
    position takes the staged line past the stems' ceiling, and one gain brings it back."""
    project = _project()
    staging_db = 9.0
    chain = DialogueChain(project, staging_db, Stager(responses))
    assert chain.offset_db("L2", "NEAR") == pytest.approx(lane_offset_db(2.0, 0.0) + staging_db)
    stage = chain.stages["L2"]
    clip = speechlike(2.0, seed=5)
    levelled = line_envelope(clip, RATE, lane_offset_db(2.0, 0.0) + staging_db).apply(clip)
    untrimmed = stage_clip(levelled, stage, RATE, None)  # S1 has no room
    ceiling = chain.ceiling("NEAR")
    assert float(np.abs(untrimmed).max()) > ceiling * 1.3  # 0.5 m: nearer than the reference distance
    staged = _as_played(chain.placed(0, 0, "L2", "NEAR", clip))
    assert float(np.abs(staged).max()) <= ceiling * (1 + 1e-5)
    np.testing.assert_allclose(staged, untrimmed * np.float32(ceiling / float(np.abs(untrimmed).max())),
                               rtol=1e-5, atol=1e-7)


def test_an_unstaged_line_keeps_its_curve_for_the_mixer_and_the_hand_off_gets_it_applied(
        responses: RoomResponses) -> None:
    project = _project()
    chain = DialogueChain(project, 10.0, Stager(responses))
    clip = speechlike(1.5, seed=7)
    placed = chain.placed(0, 0, "L1", "DRY", clip)
    assert placed.audio is clip and placed.envelope is not None and placed.envelope.active
    lines = LevelledLines(project, {"L1": clip}, 10.0)
    assert_array_equal(lines["L1"], placed.levelled())
    mixer = BlockMixer([placed], 3, 4096)
    mixer.set_lane(0, 3.0, -0.5, True)
    mixed = np.concatenate([mixer.process(t, min(4096, clip.shape[0] - t))[1][0].copy()
                            for t in range(0, clip.shape[0], 4096)])
    assert np.abs(mixed).max() * 10 ** (10.0 / 20) <= 10 ** (DIALOGUE.ceiling_db / 20) * (1 + 1e-4)


def test_a_stager_stages_again_only_when_the_curve_changes(responses: RoomResponses) -> None:
    project = _project()
    stager = Stager(responses)
    clip = speechlike(1.0, seed=9)
    first = DialogueChain(project, 10.0, stager).placed(0, 0, "L3", "ROOM", clip).audio
    assert DialogueChain(project, 10.0, stager).placed(0, 0, "L3", "ROOM", clip).audio is first
    hotter = DialogueChain(project, 14.0, stager).placed(0, 0, "L3", "ROOM", clip).audio
    assert hotter is not first and float(np.abs(hotter).max()) < float(np.abs(first).max())


def test_a_deadline_leaves_the_lines_not_staged_yet_for_a_later_place(responses: RoomResponses) -> None:
    """Live playback stages for a slice of its control thread at a time: past ``until`` a
    staged line made before is placed, one not made yet is left out and named, and the
    next call places it; the unstaged line needs no staging and is always placed."""
    project = _project()
    stager = Stager(responses)
    clips = {line_id: speechlike(1.0, seed=i) for i, line_id in enumerate(("L1", "L2", "L3"))}
    lines = [(i, i * RATE, line_id, role, clips[line_id], None)
             for i, (line_id, role) in enumerate((("L1", "DRY"), ("L2", "NEAR"), ("L3", "ROOM")))]
    everything = DialogueChain(project, 10.0, Stager(responses)).place(lines)
    DialogueChain(project, 10.0, stager).placed(1, RATE, "L2", "NEAR", clips["L2"])  # L2 staged before
    chain = DialogueChain(project, 10.0, stager)
    placed = chain.place(lines, until=0.0)  # the deadline has passed at the first line
    assert chain.deferred == ["L3"]
    assert [c.start for c in placed] == [0, RATE]
    later = DialogueChain(project, 10.0, stager)
    again = later.place(lines, until=float("inf"))
    assert later.deferred == [] and len(again) == 3
    for got, expected in zip(again, everything, strict=True):
        np.testing.assert_array_equal(got.audio, expected.audio)


def test_a_line_in_a_reverberant_room_is_trimmed_under_the_ceiling(responses: RoomResponses) -> None:
    """A voice at 0.7 m in a cellar (the sample's): its direct sound and the room's field
    together pass the ceiling the leveller held the dry line to: the stager trims it by
    one gain."""
    project = _project()
    project.scenes.append(Scene("S3", "INT. CELLAR", room=ROOM_PRESETS["cellar"]))
    project.lines.append(Line(id="L4", role="ROOM", scene="S3", text="Down here.", position=Position(distance=0.7)))
    staging_db = 12.0
    stager = Stager(responses)
    chain = DialogueChain(project, staging_db, stager)
    clip = speechlike(2.0, seed=13)
    untrimmed = stage_clip(chain.envelope("L4", "ROOM", clip).apply(clip), chain.stages["L4"], RATE,
                           responses.response(ROOM_PRESETS["cellar"], RATE))
    ceiling = chain.ceiling("ROOM")
    assert float(np.abs(untrimmed).max()) > ceiling * 1.2  # the room alone passes the ceiling
    staged = _as_played(chain.placed(0, 0, "L4", "ROOM", clip))
    assert float(np.abs(staged).max()) <= ceiling * (1 + 1e-5)
    # One gain for the whole staged line: its shape (the voice and its room) is kept.
    np.testing.assert_allclose(staged, untrimmed * np.float32(ceiling / float(np.abs(untrimmed).max())),
                               rtol=1e-5, atol=1e-7)


def test_a_shout_keeps_its_level_offset_and_its_role_is_trimmed_under_the_ceiling() -> None:
    """Issue 27's shout through issue 29's leveller: the synthesis adds the direction's +8 dB
    on top of the levelled clip; the leveller detects the line without it (the neutral
    line's curve), and the role comes down by one trim so the shout still fits."""
    project = Project(title="Shout", sample_rate=RATE, scenes=[Scene("S1", "INT. STUDIO")])
    project.cast = [Role("TOM", voice=VoiceParams(voice="unused.onnx")), Role("ANN", voice=VoiceParams(voice="x"))]
    project.lines = [Line(id="N", role="TOM", scene="S1", text="He has the wrong ticket."),
                     Line(id="S", role="TOM", scene="S1", text="(shouting) He has the wrong ticket."),
                     Line(id="A", role="ANN", scene="S1", text="So she does.")]
    staging_db = 9.0
    chain = DialogueChain(project, staging_db)
    assert chain.trim_db("TOM") == pytest.approx(8.0) and chain.trim_db("ANN") == 0.0
    neutral = speechlike(2.0, seed=7)
    shout = neutral * np.float32(10 ** (8.0 / 20))  # what the synthesis's apply_gains makes of it
    levelled_neutral = chain.levelled("N", neutral)
    levelled_shout = chain.levelled("S", shout)
    # The same curve on both: the shout stays 8 dB louder sample for sample.
    np.testing.assert_allclose(levelled_shout, levelled_neutral * np.float32(10 ** (8.0 / 20)), rtol=1e-4, atol=1e-7)
    reach_db = lane_offset_db(0.0, 0.0) + staging_db  # a centred line's louder channel, after the master gain
    ceiling = 10 ** ((DIALOGUE.ceiling_db - reach_db) / 20)
    assert float(np.abs(levelled_shout).max()) <= ceiling * (1 + 1e-4)
    # Levelling the shout as it arrives would have squashed the offset.
    squashed = line_envelope(shout, RATE, reach_db).apply(shout)
    plain = line_envelope(neutral, RATE, reach_db).apply(neutral)
    assert 20 * np.log10(np.abs(squashed).max() / np.abs(plain).max()) < 4.0
    # ANN has no direction: levelled as before.
    np.testing.assert_array_equal(chain.levelled("A", neutral), plain)


def test_a_roles_staged_lines_share_one_trim_so_an_off_stage_line_keeps_its_offset(
        responses: RoomResponses) -> None:
    """Issue 28's O.S. line through issue 29's leveller: a close line in a reverberant room
    needs a trim, the role's off-stage line does not; both get the same one, so the O.S.
    line stays as far under the close line as its staging put it."""
    project = _project()
    project.scenes.append(Scene("S3", "INT. CELLAR", room=ROOM_PRESETS["cellar"]))
    project.lines += [Line(id="C", role="ROOM", scene="S3", text="Down here.", position=Position(distance=0.5)),
                      Line(id="O", role="ROOM", scene="S3", text="Up there.", perspective="off")]
    staging_db = 12.0
    chain = DialogueChain(project, staging_db, Stager(responses))
    close, off = speechlike(2.0, seed=13), speechlike(2.0, seed=14)
    alone = chain.place([(2, 0, "O", "ROOM", off, None)])[0]
    assert alone.gain == 1.0  # the O.S. line alone fits under the ceiling
    both = chain.place([(2, 0, "C", "ROOM", close, None), (2, 480_000, "O", "ROOM", off, None)])
    over = float(np.abs(both[0].audio).max()) / chain.ceiling("ROOM")
    # The role's median line (of two, the quieter: the O.S. line) fits, so the trim is what
    # the close line needs less what the staged wall may take off it.
    trim = min(1.0, 10 ** (STAGED_WALL_DB / 20) / over)
    assert over > 1.25 and trim < 1.0
    assert both[0].gain == pytest.approx(trim) and both[1].gain == pytest.approx(trim)
    # The wall takes the close line's loudest syllables the rest of the way, after its room.
    assert both[0].envelope is not None and both[1].envelope is None
    assert both[0].envelope.max_reduction_db == pytest.approx(STAGED_WALL_DB, abs=0.05)
    assert float(np.abs(_as_played(both[0])).max()) <= chain.ceiling("ROOM") * (1 + 1e-5)
    # The off-stage line's own staging is untouched, only the role's gain moved it.
    np.testing.assert_array_equal(both[1].audio, alone.audio)
    # And the mixer plays that gain.
    mixer = BlockMixer(both, 3, 4096)
    mixer.set_lane(2, 0.0, 0.0, True)
    played = np.concatenate([mixer.process(t, 4096)[1][2].copy() for t in range(480_000, 480_000 + 8192, 4096)])
    np.testing.assert_allclose(played, both[1].audio[:8192] * np.float32(trim), rtol=1e-5, atol=1e-7)
