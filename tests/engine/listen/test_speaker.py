"""The GE2E speaker encoder run in numpy: the same numbers as the network run by
torch (from the same weights file, with librosa's mel spectrogram), and it tells
one voice from another."""

from __future__ import annotations

import numpy as np
import pytest

from engine.listen import speaker
from engine.project.model import VoiceParams
from engine.synth.cache import ClipCache
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer

# The weights ship in resemblyzer's wheel, which the test extra installs (through
# [voices]): a missing encoder is a broken set-up, not a skip.
speaker.weights_path()
RATE = 22050
TEXTS = ("The lighthouse keeper climbed the stairs every night for forty years.",
         "Nobody ever asked him why he stayed, and he never said.")


@pytest.fixture(scope="module")
def joe() -> list[np.ndarray]:
    synth = ClipSynthesizer(VoiceLibrary(), RATE, ClipCache())
    return [synth.synthesize(t, VoiceParams()) for t in TEXTS]


def test_the_mel_spectrogram_is_librosas() -> None:
    import librosa

    wav = np.random.default_rng(1).standard_normal(16000).astype(np.float32) * 0.1
    theirs = librosa.feature.melspectrogram(y=wav, sr=16000, n_fft=400, hop_length=160, n_mels=40).T
    np.testing.assert_allclose(speaker.mel_frames(wav), theirs, rtol=2e-4, atol=1e-6)


def test_numpy_embeddings_match_the_network_run_by_torch(joe: list[np.ndarray]) -> None:
    import torch

    checkpoint = torch.load(speaker.weights_path(), map_location="cpu", weights_only=False)["model_state"]
    lstm = torch.nn.LSTM(40, 256, 3, batch_first=True)
    linear = torch.nn.Linear(256, 256)
    lstm.load_state_dict({k[5:]: v for k, v in checkpoint.items() if k.startswith("lstm.")})
    linear.load_state_dict({k[7:]: v for k, v in checkpoint.items() if k.startswith("linear.")})
    wav = speaker.prepare(joe[0], RATE)
    mels = np.stack([speaker.mel_frames(wav)[s:s + 160] for s in (0, 40, 80)])
    with torch.no_grad():
        _, (hidden, _) = lstm(torch.from_numpy(mels))
        raw = torch.relu(linear(hidden[-1]))
        theirs = (raw / torch.norm(raw, dim=1, keepdim=True)).numpy()
    mine = speaker.encoder().partials(mels)
    np.testing.assert_allclose(mine, theirs, atol=2e-5)


def test_one_voice_scores_higher_with_itself_than_with_another(joe: list[np.ndarray]) -> None:
    library = VoiceLibrary()
    kokoro = [v for v in library.bundled() if v.backend == "kokoro" and v.style.startswith("jf")]
    assert kokoro, "the bundled Kokoro voices (a default dependency) are not installed"
    synth = ClipSynthesizer(library, RATE, ClipCache())
    other = synth.synthesize(TEXTS[1], VoiceParams(backend="kokoro", voice=kokoro[0].style))
    enc = speaker.encoder()
    same = speaker.similarity(enc.embed(joe[0], RATE), enc.embed(joe[1], RATE))
    different = speaker.similarity(enc.embed(joe[0], RATE), enc.embed(other, RATE))
    assert same > 0.8 and different < same - 0.1, (same, different)


def test_a_speech_of_minutes_is_embedded_from_a_bounded_number_of_windows(joe: list[np.ndarray]) -> None:
    # Issue 57: every 1.6 s window of a 6,000-character line at once took a gigabyte.
    import time

    encoder = speaker.encoder()
    one = np.concatenate(joe)

    def embedded(seconds: float) -> tuple[np.ndarray, float]:
        clip = np.tile(one, int(np.ceil(seconds * RATE / one.size)))
        start = time.thread_time()
        embedding = encoder.embed(clip, RATE)
        return embedding, time.thread_time() - start

    minute, minute_cost = embedded(60)
    five, five_cost = embedded(300)
    assert five_cost < 2 * minute_cost
    assert speaker.similarity(five, minute) > 0.99
    assert speaker.similarity(five, encoder.embed(one, RATE)) > 0.95
