"""Kokoro in the studio: the voice picker offers Kokoro styles by backend with each
backend's speed here, picking one sets backend and voice as one undo step and the role
renders; Cast > Blend Kokoro Styles… blends styles with debounced audition; the status bar
says when a Kokoro cast cannot keep up with playback. Real window offscreen, real
Session, the tiny generated Kokoro model in the user voice folder."""

# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QComboBox

from app.cast.blend_editor import AUDITION_DELAY_MS, BlendEditor
from app.cast.model import Col
from app.cast.panel import BLEND, GROUP
from engine.project.fileformat import load_project, save_project
from engine.project.model import VoiceParams
from tests.support.paths import ARTIFACTS
from tests.support.projects import tiny_project
from tests.support.studio import wait_engine
from tests.support.voices.generate_test_kokoro import generate_kokoro


@pytest.fixture
def kokoro_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "user voices"
    generate_kokoro(folder)  # styles af_alpha, am_beta, bf_gamma
    monkeypatch.setenv("RADIOPLAY_VOICE_DIR", str(folder))
    return folder


@pytest.fixture
def piper_file(tmp_path: Path, tiny_voices: dict[str, Path]) -> Path:
    path = tmp_path / "cast.radioplay"
    save_project(tiny_project(tiny_voices["single"], roles=2, lines_per_role=1), path)
    return path


def _open_picker(window, row: int = 0) -> QComboBox:  # type: ignore[no-untyped-def]
    view = window.cast.view
    index = window.cast.model.index(row, Col.VOICE)
    view.setCurrentIndex(index)
    view.edit(index)
    combo = view.indexWidget(index) or view.findChild(QComboBox)
    assert isinstance(combo, QComboBox)
    return combo


def _pick(combo: QComboBox, value: str) -> None:
    combo.setCurrentIndex(combo.findData(value))
    combo.activated.emit(combo.currentIndex())


def test_picker_groups_voices_by_backend_and_a_kokoro_pick_renders(qtbot, make_window, piper_file, kokoro_dir):
    window = make_window(piper_file, prerender=True)
    wait_engine(qtbot, window)
    combo = _open_picker(window)
    items = [(combo.itemText(i), combo.itemData(i), combo.model().item(i).isEnabled()) for i in range(combo.count())]
    headings = [text for text, data, _ in items if data == GROUP]
    assert [h.split(" · ")[0] for h in headings] == ["Piper", "Kokoro"]
    assert headings[1].endswith("real time expected") and "~" in headings[1]  # no Kokoro line voiced yet
    assert not any(enabled for _, data, enabled in items if data == GROUP)  # headings cannot be picked
    kokoro = [data for _, data, _ in items if isinstance(data, str) and data.startswith("kokoro:")]
    assert {"kokoro:af_alpha", "kokoro:am_beta", "kokoro:bf_gamma"} <= set(kokoro)
    assert BLEND in [data for _, data, _ in items]
    image = window.grab().toImage()
    combo.showPopup()
    popup = combo.view().window().grab().toImage()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert image.save(str(ARTIFACTS / "kokoro-picker-window.png")) and popup.save(str(ARTIFACTS / "kokoro-picker.png"))
    combo.hidePopup()

    role = window.doc.project.cast[0]
    before = role.voice
    _pick(combo, "kokoro:am_beta")
    assert role.voice == before.with_changes(backend="kokoro", voice="am_beta", speaker=None)
    model = window.cast.model
    assert model.data(model.index(0, Col.VOICE)) == "kokoro:am_beta"  # not "— missing"
    assert "Kokoro · ~" in model.data(model.index(0, Col.VOICE), 3)  # the tooltip says how fast it runs here

    # The role's line renders with the Kokoro model, through the same Session.
    line = next(ln for ln in window.doc.project.lines if ln.role == role.name)

    def voiced() -> bool:
        session = window.engine.session()
        record = session._lines.get(line.id) if session is not None else None
        return bool(record and record.clip is not None and record.plan is not None
                    and record.plan.voice.backend == "kokoro")

    qtbot.waitUntil(voiced, timeout=60_000)

    window.doc.undo.undo()  # backend and voice went together: one step back to Piper
    assert role.voice == before
    window.files.save()
    assert load_project(piper_file).cast[0].voice == before
    window.doc.undo.redo()
    window.files.save()
    saved = load_project(piper_file).cast[0].voice
    assert (saved.backend, saved.voice) == ("kokoro", "am_beta")


def test_design_voice_blends_styles_with_debounced_audition(qtbot, make_window, piper_file, kokoro_dir):
    window = make_window(piper_file)
    wait_engine(qtbot, window)
    heard: list[tuple[str, VoiceParams]] = []
    window.cast.auditionVoice.connect(lambda role, _text, voice: heard.append((role, voice)))
    window.cast.view.setCurrentIndex(window.cast.model.index(1, Col.NAME))
    window.actions_["blend_voice"].trigger()
    editor = window.cast.designer
    assert isinstance(editor, BlendEditor) and editor.isVisible()
    assert [name for name, _ in editor.parts()] == ["af_alpha", "am_beta"]  # a Piper role starts half and half

    for value in (60, 65, 70):  # a drag: one audition when the hand rests, not one per step
        editor.rows[0].weight.setValue(value)
    editor.rows[1].weight.setValue(30)
    assert editor.rows[0].share.text() == "70%"
    qtbot.waitUntil(lambda: len(heard) == 1, timeout=5_000)
    qtbot.wait(AUDITION_DELAY_MS + 200)
    assert len(heard) == 1
    role, voice = heard[0]
    assert role == "ROLE1" and (voice.backend, voice.voice) == ("kokoro", "af_alpha:0.7+am_beta:0.3")
    session = window.engine.session()
    qtbot.waitUntil(lambda: session.player._audition is not None, timeout=30_000)  # heard through the Session
    assert window.doc.project.cast[1].voice.backend == "piper"  # auditioning does not recast

    editor.add_part()
    assert [name for name, _ in editor.parts()] == ["af_alpha", "am_beta", "bf_gamma"]
    editor.rows[2].style.setCurrentText("af_alpha")  # twice in one blend: refused, said, not auditioned
    assert not editor.ok.isEnabled() and "twice" in editor.result_label.text()
    editor.remove_part(editor.rows[2])
    assert editor.ok.isEnabled()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert editor.grab().toImage().save(str(ARTIFACTS / "blend-editor.png"))

    depth = window.doc.undo.count()
    editor.accept()
    voice = window.doc.project.cast[1].voice
    assert (voice.backend, voice.voice) == ("kokoro", "af_alpha:0.7+am_beta:0.3")
    assert window.doc.undo.count() == depth + 1
    window.files.save()
    assert load_project(piper_file).cast[1].voice.voice == "af_alpha:0.7+am_beta:0.3"
    model = window.cast.model
    assert model.data(model.index(1, Col.VOICE)) == "kokoro:af_alpha:0.7+am_beta:0.3"

    # Reopened, the designer starts from the role's own blend.
    window.actions_["blend_voice"].trigger()
    assert window.cast.designer is not None and window.cast.designer.parts() == [("af_alpha", 70), ("am_beta", 30)]
    window.cast.designer.reject()


def test_status_bar_says_when_a_kokoro_cast_cannot_keep_up_and_only_then(qtbot, make_window, tmp_path, tiny_voices, kokoro_dir):
    piper = tiny_project(tiny_voices["single"], roles=2, lines_per_role=6)
    save_project(piper, tmp_path / "piper.radioplay")
    kokoro = tiny_project(tiny_voices["single"], roles=2, lines_per_role=6)
    for role in kokoro.cast:
        role.voice = role.voice.with_changes(backend="kokoro", voice="af_alpha")
    save_project(kokoro, tmp_path / "kokoro.radioplay")

    window = make_window(tmp_path / "piper.radioplay")  # no pre-render: nothing is voiced before play
    wait_engine(qtbot, window)
    qtbot.wait(800)
    assert not window.outlook_label.isVisible()  # Piper's speed measured here keeps up with playback
    window.files.load(tmp_path / "kokoro.radioplay")
    session = wait_engine(qtbot, window)
    assert session.wait_idle(60)  # its voices loaded, and Kokoro's speed measured here
    qtbot.wait(800)
    assert not window.outlook_label.isVisible()  # the tiny Kokoro voice keeps up too: no warning
    # What the workers measure on a machine that makes a second of Kokoro audio in 30 s.
    session.scheduler.cost.observe("kokoro", 150.0, 5.0)
    session.scheduler.cost.observe("kokoro", 150.0, 5.0, wide=True)
    qtbot.waitUntil(window.outlook_label.isVisible, timeout=5_000)
    text = window.outlook_label.text()
    assert text.startswith("⚠ Kokoro ~") and "pre-render ~" in text
    assert "pre-render first" in window.outlook_label.toolTip()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert window.grab().toImage().save(str(ARTIFACTS / "kokoro-outlook.png"))
    window.actions_["play_pause"].trigger()  # Play asks first (app/live/play_gate.py) ...
    gate = window.presenter.gate
    qtbot.waitUntil(lambda: gate.prompt is not None and gate.prompt.isVisible(), timeout=5_000)
    gate.prompt.anyway_button.click()  # ... played anyway: the status line says why lines may be late
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Playing ahead of synthesis"),
                    timeout=5_000)
    window.actions_["stop"].trigger()


def test_design_voice_presets_and_sliders_audition_through_the_session(qtbot, make_window, piper_file):
    """Cast > Design Voice…: a preset fills the sliders for the installed voice's
    gender, a drag auditions once when it rests (through the Session), OK is one
    undo step stored in the project."""
    from app.cast.design_editor import AUDITION_DELAY_MS as DESIGN_DELAY_MS
    from app.cast.design_editor import DesignEditor
    from engine.project.design import NEUTRAL
    from engine.project.voice_presets import design_for

    window = make_window(piper_file)
    wait_engine(qtbot, window)
    heard: list[tuple[str, VoiceParams]] = []
    window.cast.auditionVoice.connect(lambda role, _text, voice: heard.append((role, voice)))
    window.cast.view.setCurrentIndex(window.cast.model.index(1, Col.NAME))
    window.actions_["design_voice"].trigger()
    editor = window.cast.designer
    assert isinstance(editor, DesignEditor) and editor.isVisible()
    assert editor.gender.currentText() == "male" and editor.design() == NEUTRAL

    editor.preset.setCurrentText("woman")
    woman = design_for("woman", "male")
    assert editor.design() == woman  # every slider filled at once
    qtbot.waitUntil(lambda: len(heard) == 1, timeout=5_000)
    qtbot.wait(DESIGN_DELAY_MS + 200)
    assert len(heard) == 1 and heard[0][1].design == woman  # one audition for the whole preset

    formant = editor.rows["formant"].slider
    for value in (118, 120, 122):  # a drag: one audition when the hand rests
        formant.setValue(value)
    assert editor.rows["formant"].value.text() == "×1.22"
    assert editor.preset.currentText() == "(custom)"
    qtbot.waitUntil(lambda: len(heard) == 2, timeout=5_000)
    qtbot.wait(DESIGN_DELAY_MS + 200)
    assert len(heard) == 2
    role, voice = heard[1]
    assert role == "ROLE1" and voice.design == woman.with_changes(formant=1.22)
    assert voice.voice == window.doc.project.cast[1].voice.voice  # the same installed voice, designed
    session = window.engine.session()
    qtbot.waitUntil(lambda: session.player._audition is not None, timeout=30_000)  # heard through the Session
    assert window.doc.project.cast[1].voice.design == NEUTRAL  # auditioning does not recast

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert editor.grab().toImage().save(str(ARTIFACTS / "design-editor.png"))
    depth = window.doc.undo.count()
    editor.accept()
    designed = woman.with_changes(formant=1.22)
    assert window.doc.project.cast[1].voice.design == designed
    assert window.doc.undo.count() == depth + 1
    model = window.cast.model
    assert str(model.data(model.index(1, Col.VOICE))).endswith(" · designed")  # the cast table says so
    window.files.save()
    assert load_project(piper_file).cast[1].voice.design == designed
    window.doc.undo.undo()
    assert window.doc.project.cast[1].voice.design == NEUTRAL
    window.doc.undo.redo()

    window.actions_["design_voice"].trigger()  # reopened: the sliders hold the role's design
    assert window.cast.designer is not None and window.cast.designer.design() == designed
    window.cast.designer.reject()
