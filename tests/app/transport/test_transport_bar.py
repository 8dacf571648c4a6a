"""Transport bar and master meter: key bindings, signals, and what a snapshot shows."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest

from app.transport.bar import TransportBar, master_levels
from app.widgets.meter import LevelMeter


@dataclass(frozen=True)
class Transport:
    """The fields of engine.session.TransportSnapshot."""

    position_s: float = 0.0
    playing: bool = False
    duration_s: float = 228.0
    loop: tuple[float, float] | None = None
    late_lines: int = 0
    underruns: int = 0
    cpu_load: float = 0.0
    output: str = "null"
    audio_error: str | None = None


@dataclass(frozen=True)
class Meters:
    """The fields of engine.audio.meters.MeterSnapshot the bar reads."""

    master_peak_db: float = -math.inf
    master_hold_db: float = -math.inf
    short_term_lufs: float = -math.inf
    lane_peak_db: tuple[float, ...] = ()


@pytest.fixture
def bar(qtbot) -> TransportBar:
    b = TransportBar()
    qtbot.addWidget(b)
    b.show()
    return b


def test_actions_carry_their_key_bindings(bar):
    keys = {a.text(): a.shortcut() for a in bar.transport_actions}
    assert keys == {"Play": QKeySequence("Space"), "Stop": QKeySequence("Shift+Space"),
                    "From Start": QKeySequence("Home"), "Loop": QKeySequence("L")}
    for a in bar.transport_actions:
        assert a in bar.actions()
        assert a.shortcutContext() == Qt.ShortcutContext.WindowShortcut


def test_play_toggles_between_play_and_pause(qtbot, bar):
    with qtbot.waitSignal(bar.play_toggled) as play:
        bar.play_action.trigger()
    assert play.args == [True]
    assert bar.play_action.text() == "Pause"
    with qtbot.waitSignal(bar.play_toggled) as pause:
        bar.play_action.trigger()
    assert pause.args == [False]
    assert bar.play_action.text() == "Play"


def test_stop_home_and_loop_emit(qtbot, bar):
    with qtbot.waitSignal(bar.stop_requested):
        bar.stop_action.trigger()
    with qtbot.waitSignal(bar.home_requested):
        bar.home_action.trigger()
    with qtbot.waitSignal(bar.loop_toggled) as loop:
        bar.loop_action.trigger()
    assert loop.args == [True]
    with qtbot.waitSignal(bar.loop_toggled) as loop:
        bar.loop_action.trigger()
    assert loop.args == [False]


def test_a_snapshot_sets_the_state_without_echoing_signals(qtbot, bar):
    with qtbot.assertNotEmitted(bar.play_toggled), qtbot.assertNotEmitted(bar.loop_toggled):
        bar.update_from(Transport(position_s=83.44, playing=True, loop=(10.0, 20.0)))
    assert bar.play_action.isChecked() and bar.play_action.text() == "Pause"
    assert bar.loop_action.isChecked()
    bar.update_from(Transport(position_s=84.0, playing=False))
    assert not bar.play_action.isChecked() and not bar.loop_action.isChecked()


def test_update_from_shows_the_time_and_counters(bar):
    bar.update_from(Transport(position_s=83.44, duration_s=228.0, late_lines=2, underruns=0, cpu_load=0.35))
    assert bar.time_label.text() == "01:23.4 / 03:48.0"
    assert bar.late_label.text() == "Late 2" and bar.late_label.property("highlighted") is True
    assert bar.underrun_label.text() == "Underruns 0" and bar.underrun_label.property("highlighted") is False
    assert bar.cpu_label.text() == "CPU 35%"
    bar.update_from(Transport(late_lines=0, underruns=3))
    assert bar.late_label.property("highlighted") is False
    assert bar.underrun_label.text() == "Underruns 3" and bar.underrun_label.property("highlighted") is True


def test_an_audio_error_is_shown_with_its_fix_and_cleared(qtbot, bar):
    bar.resize(900, bar.sizeHint().height())
    assert not bar.audio_error_visible()
    bar.update_from(Transport(audio_error="no sound: PortAudio is missing (install libportaudio2)"))
    assert bar.audio_error_visible()
    qtbot.waitUntil(lambda: bar.audio_error_label.isVisibleTo(bar))  # laid out in the bar, not the overflow
    assert "No sound" in bar.audio_error_label.text() and "install libportaudio2" in bar.audio_error_label.text()
    assert bar.output_label.text() == "Output: silent (no device)"
    bar.update_from(Transport(output="pulse"))
    assert not bar.audio_error_visible() and bar.output_label.text() == "Output: pulse"


def test_levels_drive_the_master_meter(qtbot):
    clock = Clock()
    bar = TransportBar(clock=clock)
    qtbot.addWidget(bar)
    playing = Transport(playing=True)
    bar.update_from(playing, Meters(master_peak_db=-12.5, master_hold_db=-6.0, short_term_lufs=-16.14))
    assert bar.meter.level_db == -12.5 and bar.meter.hold_db == -6.0
    assert bar.meter.lufs_text() == "\u221216.1 LUFS"
    clock.t += 0.1
    bar.update_from(playing, None)  # no levels: silence, no error; the bar falls, it does not jump
    assert bar.meter.level_db == pytest.approx(-14.5) and bar.meter.lufs_text() == "-- LUFS"
    clock.t += 3.0
    bar.update_from(playing, None)
    assert bar.meter.level_db == -math.inf


def test_the_meter_falls_to_silence_when_nothing_plays(qtbot):
    """Paused or stopped, the engine meters nothing and its last snapshot stays lit."""
    clock = Clock()
    bar = TransportBar(clock=clock)
    qtbot.addWidget(bar)
    loud = Meters(master_peak_db=-8.0, master_hold_db=-6.0, short_term_lufs=-16.0)
    bar.update_from(Transport(playing=True), loud)
    assert bar.meter.level_db == -8.0
    clock.t += 0.5
    bar.update_from(Transport(playing=False, position_s=12.0), loud)
    assert -20.0 < bar.meter.level_db < -8.0  # falling, at the engine's 20 dB/s
    for _ in range(60):  # 3 s of 20 Hz polls of the same stale snapshot
        clock.t += 0.05
        bar.update_from(Transport(playing=False, position_s=12.0), loud)
    assert bar.meter.level_db == -math.inf and bar.meter.hold_db == -math.inf
    assert bar.meter.lufs_text() == "-- LUFS"


def test_levels_without_a_master_peak_use_the_loudest_lane():
    @dataclass
    class LaneOnly:
        lane_peaks_db: dict[str, float]
        short_term_lufs: float

    assert master_levels(LaneOnly({"MAGGIE": -20.0, "TOM": -9.5}, -18.0)) == (-9.5, None, -18.0)
    assert master_levels(None) == (None, None, None)


def test_the_engine_snapshots_have_the_fields_the_bar_reads():
    import engine.audio.meters as meters
    import engine.session as session

    fields = {f.name for f in dataclasses.fields(session.TransportSnapshot)}
    assert {f.name for f in dataclasses.fields(Transport)} <= fields
    assert {"master_peak_db", "master_hold_db", "short_term_lufs"} <= {
        f.name for f in dataclasses.fields(meters.MeterSnapshot)}


# ------------------------------------------------------------------------------ the meter itself


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_meter_holds_its_own_peak_for_hold_s_when_given_raw_peaks(qtbot):
    clock = Clock()
    meter = LevelMeter(hold_s=1.5, clock=clock)
    qtbot.addWidget(meter)
    meter.set_levels(-10.0)
    clock.t += 1.0
    meter.set_levels(-20.0)
    assert meter.level_db == -20.0 and meter.hold_db == -10.0
    clock.t += 1.0  # 2 s after the peak: the hold drops to the bar
    meter.set_levels(-22.0)
    assert meter.hold_db == -22.0


def test_meter_clip_light_latches_until_clicked(qtbot):
    meter = LevelMeter()
    qtbot.addWidget(meter)
    meter.show()
    meter.set_levels(-1.0)
    assert not meter.clipped
    meter.set_levels(0.0)
    meter.set_levels(-30.0)
    assert meter.clipped
    QTest.mouseClick(meter, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, QPoint(5, 5))
    assert not meter.clipped


def test_meter_scale_maps_dbfs_to_the_bar():
    meter = LevelMeter(floor_db=-60.0)
    assert meter.fraction(-60.0) == 0.0 and meter.fraction(0.0) == 1.0
    assert meter.fraction(-30.0) == pytest.approx(0.5)
    assert meter.fraction(-math.inf) == 0.0 and meter.fraction(6.0) == 1.0
    meter.deleteLater()


@pytest.mark.parametrize("orientation", [Qt.Orientation.Horizontal, Qt.Orientation.Vertical])
def test_meter_paints_in_both_orientations(qtbot, orientation):
    meter = LevelMeter(orientation)
    qtbot.addWidget(meter)
    meter.resize(meter.sizeHint())
    meter.set_levels(-6.0, -3.0, -14.0)
    image = meter.grab().toImage()
    assert not image.isNull() and image.size() == meter.sizeHint()
