"""Export from the studio: the dialog, the worker thread, cancel, and clip moves reaching the files."""
# ruff: noqa: F811 - the fixtures come from tests/support/studio.py and are named as arguments

from __future__ import annotations

import json
import threading

import pytest
import soundfile as sf
from PySide6.QtCore import Qt, QTimer

from app.dialogs import export as export_dialog
from app.dialogs.export import ExportJob
from app.document.marshal import Marshal
from engine.export.render import RenderOptions, RenderReport, stem_filename
from engine.project.timeline import layout
from engine.synth.pipeline import Cancelled
from tests.support.paths import ARTIFACTS
from tests.support.studio import export_through_dialog, voice_everything, wait_engine


def test_export_through_the_dialog_writes_valid_files(qtbot, make_window, tiny_file, tmp_path):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    outdir = tmp_path / "out"
    report = export_through_dialog(qtbot, window, outdir)
    mix = sf.info(str(outdir / "mix.wav"))
    assert (mix.samplerate, mix.channels, mix.subtype) == (48_000, 2, "FLOAT")
    assert mix.duration == pytest.approx(report.duration_s, abs=0.01) and mix.duration > 1.0
    for role in window.doc.project.role_names():
        stem = sf.info(str(outdir / "stems" / stem_filename(role)))
        assert stem.frames == mix.frames
    cues = json.loads((outdir / "cues.json").read_text())["cues"]
    assert [c["id"] for c in cues] == [line.id for line in window.doc.project.lines]
    assert "-->" in (outdir / "captions.srt").read_text()
    assert window.settings.value("export/folder") == str(outdir)


def test_progress_shows_each_stage_when_every_line_is_cached(qtbot, make_window, tiny_file, tmp_path,
                                                              monkeypatch):
    """Not "Voicing lines… 0 of 0, 0%" while the files are mixed and written (issue 16)."""
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    voice_everything(qtbot, window)
    labels: list[str] = []
    told = export_dialog.stage_text

    def record(stage: str, done: int, total: int) -> str:  # what the dialog is told to show
        labels.append(told(stage, done, total))
        return labels[-1]

    monkeypatch.setattr(export_dialog, "stage_text", record)
    export_through_dialog(qtbot, window, tmp_path / "out")
    stages = list(dict.fromkeys(label.split("…")[0] for label in labels))
    assert stages == ["Measuring loudness", "Mixing and writing files", "Finishing the files"], labels
    assert "Mixing and writing files… 100%" in labels and not any("0 of 0" in label for label in labels)


def test_moving_a_clip_changes_the_exported_timing(qtbot, make_window, tiny_file, tmp_path):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    # A move lands relative to the previous line as the timeline shows it: with its real length,
    # not the estimate it had before it was voiced (the export's voicing reaches the timeline
    # later; without this the move was measured from an estimated end and landed 3.3 s off).
    voice_everything(qtbot, window)
    before = {c["id"]: c for c in json.loads(
        (export_through_dialog(qtbot, window, tmp_path / "a").outdir / "cues.json").read_text())["cues"]}
    moved = window.doc.project.lines[3].id
    target = before[moved]["start"] + 2.0
    window.timeline.clip_moved.emit(moved, target)  # what a drag on the timeline reports
    assert window.doc.undo.count() == 1 and window.isWindowModified()
    after = {c["id"]: c for c in json.loads(
        (export_through_dialog(qtbot, window, tmp_path / "b").outdir / "cues.json").read_text())["cues"]}
    assert after[moved]["start"] == pytest.approx(target, abs=0.01)
    first = window.doc.project.lines[0].id
    assert after[first]["start"] == before[first]["start"]  # earlier lines stay put
    window.actions_["undo"].trigger()
    undone = {c["id"]: c for c in json.loads(
        (export_through_dialog(qtbot, window, tmp_path / "c").outdir / "cues.json").read_text())["cues"]}
    assert undone[moved]["start"] == pytest.approx(before[moved]["start"], abs=0.01)


def test_a_clip_moved_over_voiced_lines_stays_relative_and_lands_exactly(qtbot, make_window, tiny_file,
                                                                         tmp_path):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    voice_everything(qtbot, window)  # real lengths on the timeline
    durations = {c.line_id: c.end - c.start for c in window.engine.state().clips}
    assert not any(c.estimated for c in window.engine.state().clips)
    line = window.doc.project.lines[4]
    previous = layout(window.doc.project, durations)[3]
    target = previous.end - 0.2  # over the end of the previous line: an interruption
    window.timeline.clip_moved.emit(line.id, target)
    assert line.start is None and line.overlap == pytest.approx(0.2, abs=0.002)
    cues = {c["id"]: c for c in json.loads(
        (export_through_dialog(qtbot, window, tmp_path / "out").outdir / "cues.json").read_text())["cues"]}
    assert cues[line.id]["start"] == pytest.approx(target, abs=0.01)


def test_cancel_stops_the_export_and_the_window_stays_responsive(qtbot, tmp_path):
    from PySide6.QtWidgets import QPushButton, QWidget

    parent = QWidget()
    qtbot.addWidget(parent)
    started = threading.Event()

    def exporter(outdir, options, progress, cancel) -> RenderReport:
        progress("synthesizing", 0, 10)
        started.set()
        if not cancel.wait(30):  # a long export that only Cancel ends
            raise AssertionError("never cancelled")
        raise Cancelled("render cancelled")

    job = ExportJob(exporter, tmp_path, RenderOptions(), Marshal(parent), parent)
    outcome: list[str] = []
    job.cancelled.connect(lambda: outcome.append("cancelled"))
    job.finished.connect(lambda report: outcome.append("finished"))
    ticks: list[int] = []
    timer = QTimer(parent)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    job.start()
    assert started.wait(10)
    qtbot.waitUntil(lambda: "Voicing lines" in job.progress.labelText())  # progress crossed threads
    qtbot.waitUntil(lambda: len(ticks) >= 5)  # the event loop runs while the export works
    assert job.running()
    qtbot.mouseClick(job.progress.findChild(QPushButton), Qt.MouseButton.LeftButton)  # Cancel
    qtbot.waitUntil(lambda: outcome == ["cancelled"], timeout=10_000)
    job.wait(5)
    assert not job.running()
    timer.stop()


def test_the_bar_moves_a_few_times_a_second_not_once_a_block(qtbot, tmp_path):
    """The writer reports every block (1,536 on the sample); a call queued on the GUI thread
    for each cost the export a tenth of its time (bench/studio_export.py)."""
    from PySide6.QtWidgets import QWidget

    parent = QWidget()
    qtbot.addWidget(parent)
    blocks = 1536

    def exporter(outdir, options, progress, cancel) -> str:
        progress("analysing", 0, 1)
        for block in range(blocks):
            progress("writing", block + 1, blocks)
        return "written"

    job = ExportJob(exporter, tmp_path, RenderOptions(), Marshal(parent), parent)
    shown: list[tuple[str, int, int]] = []
    relay = job._progress
    job._progress = lambda stage, done, total: (shown.append((stage, done, total)), relay(stage, done, total))
    ended: list[str] = []
    job.finished.connect(ended.append)
    job.start()
    qtbot.waitUntil(lambda: ended == ["written"], timeout=10_000)
    assert shown[0] == ("analysing", 0, 1) and shown[-1] == ("writing", blocks, blocks)
    assert len(shown) < 2 + blocks // 100, f"{len(shown)} reports crossed to the GUI thread for {blocks} blocks"


def test_an_export_that_fails_names_the_lines(qtbot, make_window, tiny_file, tmp_path):
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    window.doc.apply_line_field(window.doc.project.lines[2].id, "text", "...")  # nothing to say
    job = window.files.start_export(tmp_path / "out", RenderOptions())
    failures: list[str] = []
    job.failed.connect(failures.append)
    qtbot.waitUntil(lambda: bool(failures), timeout=30_000)
    assert "line 3" in failures[0] and "L0003" in failures[0]
    assert "Export failed" in window.last_error
    assert not (tmp_path / "out" / "mix.wav").exists()


def test_without_an_engine_the_window_still_edits_and_exports(qtbot, tiny_file, tmp_path, state_dir):
    from PySide6.QtCore import QSettings

    from app.document.recovery import RecoveryStore
    from app.shell.main_window import MainWindow

    def broken(project, path):
        raise RuntimeError("no sound card and no voices today")

    window = MainWindow(tiny_file, settings=QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat),
                        session_factory=broken, recovery=RecoveryStore(state_dir))
    window.show()
    try:
        qtbot.waitUntil(lambda: window.engine_label.text() == "Engine: not running")
        assert "no sound card" in window.last_error and "keep editing" in window.last_error
        assert not window.actions_["play_pause"].isEnabled()
        window.cast.add_role()  # editing still works
        assert window.isWindowModified()
        job = window.files.start_export(tmp_path / "out", RenderOptions())
        qtbot.waitUntil(lambda: window.files.last_report is not None, timeout=60_000)
        assert not job.running()
        assert sf.info(str(tmp_path / "out" / "mix.wav")).frames > 0
    finally:
        window.files.ask_save_changes = lambda: "discard"
        window.close()


def test_the_dialog_offers_the_presets_and_shows_the_compliance_report(qtbot, make_window, tiny_file, tmp_path):

    from PySide6.QtWidgets import QMessageBox

    artifacts = ARTIFACTS
    artifacts.mkdir(parents=True, exist_ok=True)
    window = make_window(tiny_file)
    wait_engine(qtbot, window)
    dialog = window.files.export(tmp_path / "out")
    assert [dialog.preset.itemData(i) for i in range(dialog.preset.count())] == ["podcast", "acx", "ebu-r128",
                                                                                  "custom"]
    dialog.preset.setCurrentIndex(dialog.preset.findData("acx"))
    assert "192 kbps CBR" in dialog.spec.text() and not dialog.loudness.isEnabled()
    dialog.preset.setCurrentIndex(dialog.preset.findData("podcast"))
    assert dialog.loudness.value() == -16.0 and not dialog.format.isEnabled()
    dialog.daw.setCurrentIndex(dialog.daw.findData("reaper"))
    qtbot.wait(50)
    assert dialog.grab().save(str(artifacts / "export-dialog.png"))
    options = dialog.options()
    assert options.preset is not None and options.preset.name == "podcast" and options.daw == "reaper"
    dialog.accept()
    job = window.files.export_job
    qtbot.waitUntil(lambda: window.files.last_report is not None and not job.running(), timeout=60_000)
    report = window.files.last_report
    assert report.compliance is not None and report.compliance.passed
    assert (tmp_path / "out" / "mix.mp3").is_file() and (tmp_path / "out" / "tiny.rpp").is_file()
    box = window.findChild(QMessageBox, "exportDoneBox")
    qtbot.waitUntil(lambda: box is not None and box.isVisible())
    assert "integrated loudness" in box.informativeText() and "every requirement passes" in box.informativeText()
    qtbot.wait(50)
    assert box.grab().save(str(artifacts / "export-report.png"))
    box.close()
