"""Issue 52: voices heard through a device (telephone, radio, tannoy, intercom) band-limited,
compressed and driven like one, measured on the real bundled voice; outdoor rooms with no
tail; the small hard rooms ringing as an interior does."""

from __future__ import annotations

import numpy as np
import pytest

from engine.audio.devices import through_device
from engine.audio.rooms import RoomResponses
from engine.audio.staging import stage_clip
from engine.project.model import VoiceParams
from engine.project.staging import DEVICE_PERSPECTIVES, DEVICES, ROOM_PRESETS, LineStage, line_stage
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

RATE = 48_000
SPEECH_BAND = (300.0, 3400.0)  # the band a telephone channel is measured on


@pytest.fixture(scope="module")
def voice() -> np.ndarray:
    """A line of the bundled voice (a man's: most of its energy under 300 Hz is his voice's own)."""
    synth = ClipSynthesizer(VoiceLibrary(), RATE, ClipCache())
    text = "Kilbrae light, Kilbrae light, this is Stornoway coastguard. Do you read, over?"
    return np.asarray(synth.synthesize(text, VoiceParams()), dtype=np.float32)


def band_db(audio: np.ndarray) -> tuple[float, float]:
    """Energy below 300 Hz and above 3.4 kHz, each in dB against the energy between (FFT)."""
    mono = audio.mean(axis=1) if audio.ndim == 2 else audio
    power = np.abs(np.fft.rfft(mono.astype(np.float64))) ** 2
    freqs = np.fft.rfftfreq(mono.shape[0], 1 / RATE)
    inside = power[(freqs >= SPEECH_BAND[0]) & (freqs <= SPEECH_BAND[1])].sum()
    below = power[(freqs > 20.0) & (freqs < SPEECH_BAND[0])].sum()
    above = power[freqs > SPEECH_BAND[1]].sum()
    return float(10 * np.log10(below / inside)), float(10 * np.log10(above / inside))


def test_there_is_a_perspective_for_every_device() -> None:
    assert set(DEVICE_PERSPECTIVES) == set(DEVICES) == {"phone", "radio", "tannoy", "intercom"}


@pytest.mark.parametrize("perspective", sorted(DEVICES))
def test_a_device_keeps_20_db_and_more_under_its_band_on_the_real_voice(voice: np.ndarray,
                                                                       perspective: str) -> None:
    stage = line_stage(None, perspective, None, 0.0)
    assert stage is not None and stage.device is not None
    below, above = band_db(stage_clip(voice, stage, RATE, None))
    assert below <= -20.0 and above <= -20.0, (below, above)


def test_a_voice_over_is_full_band_where_a_device_is_not(voice: np.ndarray) -> None:
    stage = line_stage(None, "voice-over", None, 0.0)
    assert stage is not None and stage.device is None
    below, above = band_db(stage_clip(voice, stage, RATE, None))
    assert below > -20.0 and above > -20.0  # the measure tells them apart: the bundled voice is full band


@pytest.mark.parametrize("device", sorted(DEVICES))
def test_a_device_squeezes_the_voice_as_its_compressor_and_drive_do(voice: np.ndarray, device: str) -> None:
    """Against the same band alone: the peaks come down towards the body of the speech (a lower
    crest factor), and the level is kept (the perspective's level sets it, not the device)."""
    from engine.audio.devices import band_limited

    spec = DEVICES[device]
    clean = band_limited(voice.astype(np.float64), spec.band_hz, RATE)
    heard = through_device(voice, spec, RATE)
    assert heard.shape == clean.shape

    def crest_db(x: np.ndarray) -> float:
        return float(20 * np.log10(np.max(np.abs(x)) / np.sqrt(np.mean(x ** 2))))

    assert crest_db(heard) < crest_db(clean) - 3.0
    np.testing.assert_allclose(np.sqrt(np.mean(heard ** 2)), np.sqrt(np.mean(clean ** 2)), rtol=1e-6)


def test_a_device_is_the_same_samples_every_time_and_scales_with_its_input(voice: np.ndarray) -> None:
    """A staged clip is kept under its key (the same staging must give the same samples), and
    the staging's trims after it assume twice the input gives twice the output."""
    stage = line_stage(None, "radio", None, 0.0)
    assert stage is not None
    once = stage_clip(voice, stage, RATE, None)
    np.testing.assert_array_equal(once, stage_clip(voice, stage, RATE, None))
    np.testing.assert_allclose(stage_clip(voice * np.float32(0.25), stage, RATE, None), once * 0.25,
                               rtol=1e-4, atol=1e-7)


@pytest.fixture(scope="module")
def responses(tmp_path_factory: pytest.TempPathFactory) -> RoomResponses:
    return RoomResponses(tmp_path_factory.mktemp("rooms"))


def _late_share(room: str, responses: RoomResponses) -> float:
    """Of a click staged in ``room`` at 2 m, the energy 150 ms and more after it."""
    click = np.zeros(RATE, dtype=np.float32)
    click[0] = 1.0
    stage = LineStage(room=ROOM_PRESETS[room], path=((0.0, 0.0, 2.0),))
    staged = stage_clip(click, stage, RATE, responses.response(ROOM_PRESETS[room], RATE))
    energy = (staged.astype(np.float64) ** 2).sum(axis=1)
    return float(energy[int(0.15 * RATE):].sum() / energy.sum())


@pytest.mark.parametrize("room", ["gallery", "harbour", "open air", "street", "field", "beach"])
def test_outside_nothing_rings_after_the_ground_and_the_near_walls(room: str, responses: RoomResponses) -> None:
    assert ROOM_PRESETS[room].outdoor
    assert _late_share(room, responses) < 1e-5


@pytest.mark.parametrize("room", ["lamp room", "stairwell", "living room"])
def test_inside_the_room_rings(room: str, responses: RoomResponses) -> None:
    assert _late_share(room, responses) > 1e-3  # a hundred times what any outdoor room keeps


def test_the_small_hard_rooms_ring_longer_than_a_furnished_room_and_a_cabin_less(responses: RoomResponses) -> None:
    shares = {room: _late_share(room, responses) for room in ("lamp room", "living room", "cabin")}
    assert shares["lamp room"] > 3 * shares["living room"] > 3 * shares["cabin"], shares


def test_the_gallery_has_the_lamp_rooms_glass_behind_it_and_a_clifftop_nothing(responses: RoomResponses) -> None:
    """One near wall reflects on the gallery: its early energy over the open air's."""
    def early(room: str) -> float:
        return float((responses.response(ROOM_PRESETS[room], RATE).astype(np.float64) ** 2).sum())

    assert early("gallery") > 2 * early("open air")
    assert ROOM_PRESETS["gallery"].walls == 1 and ROOM_PRESETS["open air"].walls == 0
