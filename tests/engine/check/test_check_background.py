"""The speech check in the background of a Session (engine/session/checking.py):
it starts no check while the scheduler has more urgent synthesis pending, it
checks a clip once (per clip key), and Session.state() shows what it found."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from engine.audio.sinks import NullSink
from engine.project.fileformat import load_project, save_project
from engine.project.model import Line, Project, Role, Scene
from engine.sched.policy import make_policy
from engine.sched.request import Deadline, LineRequest, Origin
from engine.sched.scheduler import Scheduler
from engine.session import Session
from engine.session.checking import SpeechChecker
from engine.synth.pipeline import plan_line
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.projects import tiny_project


def _until(condition, timeout: float = 60.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_no_check_starts_while_playback_synthesis_is_pending(tiny_synth: ClipSynthesizer,
                                                             tiny_voices: dict[str, Path]) -> None:
    project = tiny_project(tiny_voices["single"], roles=1, lines_per_role=2)
    first, second = project.lines
    voiced = plan_line(tiny_synth, project, first)
    tiny_synth.synthesize(first.text, project.role(first.role).voice, project.lexicon)  # L1 has a clip
    assert voiced.key in tiny_synth.cache
    with Scheduler(tiny_synth, make_policy("role-priority"), start=False) as scheduler:
        # L2 is wanted for playback and still pending (the workers have not started).
        wanted = LineRequest(plan_line(tiny_synth, project, second), second.role, Origin.PLAYBACK,
                             Deadline.on_timeline(1.0))
        heard = scheduler.submit(wanted)
        checker = SpeechChecker(tiny_synth, scheduler)
        try:
            checker.offer(project, {first.id: voiced})
            time.sleep(1.5)
            assert checker.checked == 0 and not checker.results  # L1 waits for L2's synthesis
            assert not scheduler.quiet_below(Origin.CHECK)
            scheduler.start()
            assert _until(lambda: first.id in checker.results)
            assert heard.done() and not heard.cancelled()
            assert checker.checked == 1
            # The same clip offered again (a new snapshot, nothing changed in the line) is not checked again.
            checker.offer(project, {first.id: voiced})
            time.sleep(0.5)
            assert checker.checked == 1 and first.id in checker.results
        finally:
            checker.close()


def test_no_check_starts_while_an_export_of_cached_lines_writes(tiny_synth: ClipSynthesizer,
                                                                tiny_voices: dict[str, Path]) -> None:
    """A cached export queues no job, yet mixes and writes for seconds: the check's child took
    a core from it (3 CPU-s in each 4 s studio export of the sample)."""
    project = tiny_project(tiny_voices["single"], roles=1, lines_per_role=1)
    [line] = project.lines
    voiced = plan_line(tiny_synth, project, line)
    tiny_synth.synthesize(line.text, project.role(line.role).voice, project.lexicon)
    with Scheduler(tiny_synth, make_policy("role-priority")) as scheduler:
        checker = SpeechChecker(tiny_synth, scheduler)
        try:
            with scheduler.foreground(Origin.EXPORT):
                assert not scheduler.quiet_below(Origin.CHECK) and scheduler.quiet_below(Origin.EXPORT)
                checker.offer(project, {line.id: voiced})
                time.sleep(1.5)
                assert checker.checked == 0 and not checker.results  # it waits for the export
            assert scheduler.quiet_below(Origin.CHECK)
            assert _until(lambda: line.id in checker.results)
        finally:
            checker.close()


def test_a_check_origin_request_is_served_after_prerender(tiny_synth: ClipSynthesizer,
                                                         tiny_voices: dict[str, Path]) -> None:
    project = tiny_project(tiny_voices["single"], roles=1, lines_per_role=2)
    with Scheduler(tiny_synth, make_policy("role-priority"), start=False) as scheduler:
        order: list[str] = []
        for line, origin in zip(project.lines, (Origin.CHECK, Origin.PRERENDER), strict=True):
            request = LineRequest(plan_line(tiny_synth, project, line), line.role, origin)
            scheduler.submit(request).add_done_callback(lambda f, o=origin: order.append(o.label))
        scheduler.start()
        assert _until(lambda: len(order) == 2, 30.0)
    assert order == ["prerender", "check"]


def _lexicon_project(tmp_path: Path) -> Path:
    project = Project(title="Check", cast=[Role(name="NARRATOR")], scenes=[Scene("S1")],
                      lexicon={"thunder": "lemonade"})
    texts = ["A crack of thunder. The studio lights flickered, dimmed, and went out.",
             "The record had not been played in thirty years.",
             "Good morning. The storm has passed, and we're still here."]
    project.lines = [Line(f"L{i}", "NARRATOR", text, scene="S1") for i, text in enumerate(texts, 1)]
    path = tmp_path / "check.radioplay"
    save_project(project, path)
    return path


@pytest.mark.integration
def test_session_state_shows_the_line_a_lexicon_entry_changed_as_flagged(tmp_path: Path) -> None:
    path = _lexicon_project(tmp_path)
    project = load_project(path)
    with Session(project, path, sink=NullSink(project.sample_rate), check=True) as session:
        assert _until(lambda: len(session.state().checks) == 3, 240.0), session.state().checks
        checks = session.state().checks
        assert [lid for lid, r in checks.items() if r.flagged] == ["L1"], checks
        assert "thunder" in checks["L1"].suspect and "thunder" in checks["L1"].reason
