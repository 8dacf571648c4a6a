"""The Session: playback-driven synthesis, edits during playback, late lines.

Real scheduler, real (tiny, generated) ONNX voices, the null sink on a
real-time clock (sped up so a pass takes a second or two).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from engine.audio.sinks import NullSink
from engine.export.session_render import render_session
from engine.project.model import Project, VoiceParams
from engine.project.snapshot import with_line, with_role
from engine.session import LineState, Session
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.projects import tiny_project
from tests.support.session import states, wait_for
from tests.support.signals import dominant_hz

RATE = 48_000




@pytest.fixture
def project(tiny_voices: dict[str, Path]) -> Project:
    return tiny_project(tiny_voices["single"], roles=3, lines_per_role=3)






def test_opening_plans_every_line_and_waits_for_play_without_prerender_on_open(
        session_factory: Callable[..., Session], project: Project) -> None:
    session = session_factory(project, prerender_on_open=False)
    assert set(states(session).values()) == {LineState.MISSING}
    assert session.synth.synth_calls == 0
    clips = session.clips()
    assert [c.line_id for c in clips] == [line.id for line in project.lines]
    assert all(c.estimated for c in clips)
    assert all(b.start >= a.end for a, b in zip(clips, clips[1:], strict=False))


def test_opening_prerenders_in_the_background_by_default(session_factory: Callable[..., Session],
                                                         project: Project) -> None:
    session = session_factory(project)
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="every line pre-rendered")
    assert not session.transport().playing
    assert session.synth.synth_calls == len(project.lines)


def test_play_synthesizes_what_the_playhead_needs_and_plays_it(session_factory: Callable[..., Session],
                                                               project: Project) -> None:
    session = session_factory(project)
    session.play(0.0)
    wait_for(lambda: session.player.first_audio_at is not None, what="first audio")
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="every line ready (pre-render)")
    assert not any(c.estimated for c in session.clips())
    peaks = session.clip_peaks(project.lines[0].id, 50)
    assert peaks is not None and peaks.shape == (50, 2) and peaks[:, 1].max() > 0
    start = session.transport().position_s
    wait_for(lambda: session.transport().position_s > start + 0.5, what="the playhead to advance")
    assert session.transport().playing


def test_play_from_the_middle_cancels_nothing_ahead_and_starts_there(session_factory: Callable[..., Session],
                                                                     project: Project) -> None:
    session = session_factory(project, prerender=False)
    middle = session.clips()[5].start
    session.play(middle)
    wait_for(lambda: session.player.first_audio_at is not None, what="first audio")
    session.wait_idle()
    status = states(session)
    ids = [line.id for line in project.lines]
    # Without pre-render, the lines before the play position are left alone.
    assert all(status[i] is LineState.MISSING for i in ids[:5])
    assert all(status[i] is not LineState.MISSING for i in ids[5:])


def test_a_line_whose_clip_is_on_its_way_is_not_shown_missing(session_factory: Callable[..., Session],
                                                              project: Project) -> None:
    # The scheduler lets go of a job before the clip's hand-over reaches the control thread;
    # a status published in between (a tick) showed the line missing, and the test above
    # failed under load by reading it. Here the control thread is held right after Play, so
    # the hand-over waits while the clip is made, and the status is published in that gap.
    session = session_factory(project, prerender=False)
    middle_line = project.lines[5].id
    held, release = threading.Event(), threading.Event()
    session.play(session.clips()[5].start)
    session._post(lambda: (held.set(), release.wait(30)))  # behind Play: its requests are made
    try:
        assert held.wait(30)
        record = session.book.records[middle_line]
        assert record.request is not None
        wait_for(lambda: record.request is not None and record.request.future.done(), what="the clip made")
        assert record.clip is None  # made, not yet handed over
        session.book.publish_status()  # what a tick in that gap does (the control thread is held)
        assert session.line_status()[middle_line].state is LineState.SYNTHESIZING
    finally:
        release.set()
    wait_for(lambda: states(session)[middle_line] is LineState.READY, what="the clip handed over")


def test_late_lines_are_counted_and_still_play_from_the_playhead(session_factory: Callable[..., Session],
                                                                 project: Project) -> None:
    # No look-ahead, no pre-render: every line is requested only when the
    # playhead reaches it, so each one is late and must start once ready.
    session = session_factory(project, speed=2.0, prerender=False, lookahead_s=0.0)
    estimated = {c.line_id: c.start for c in session.clips()}
    session.play(0.0)
    wait_for(lambda: session.transport().late_lines >= 3, what="three late lines")
    wait_for(lambda: sum(s is LineState.READY for s in states(session).values()) >= 3, what="late lines ready")
    session.wait_idle()
    placed = {c.line_id: c for c in session.clips()}
    late_ids = [lid for lid, _ in session.late_log]
    ready_late = [lid for lid in late_ids if not placed[lid].estimated]
    assert ready_late, "a late line got its clip"
    for line_id in ready_late:
        # It starts where the playhead was when it arrived: at or after its planned start.
        assert placed[line_id].start >= estimated[line_id] - 1e-6


def test_editing_a_line_during_playback_resynthesizes_only_that_line(session_factory: Callable[..., Session],
                                                                     project: Project) -> None:
    session = session_factory(project)
    session.play(0.0)
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="all lines ready")
    calls = session.synth.synth_calls
    target = project.lines[-1]
    before = session._lines[target.id].clip
    assert before is not None
    session.update(with_line(project, target.id,
                             text="A completely different and much longer line of dialogue, for the edit test."))
    wait_for(lambda: states(session)[target.id] is LineState.READY and session._lines[target.id].clip is not before,
             what="the edited line re-synthesized")
    assert session.synth.synth_calls == calls + 1
    after = session._lines[target.id].clip
    assert after is not None and after.shape[0] > before.shape[0]
    # The mixer then holds the new take where the line sits (handed over by the control thread:
    # on a loaded machine a moment after the line reads READY).
    wait_for(lambda: any(c.audio is after for c in session.mixer.clips), what="the mixer to hold the new take")


def test_recasting_a_role_requeues_only_its_lines(session_factory: Callable[..., Session], project: Project) -> None:
    session = session_factory(project)
    session.play(0.0)
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="all lines ready")
    session.pause()
    role = project.cast[1]
    calls = session.synth.synth_calls
    session.update(with_role(project, role.name, voice=role.voice.with_changes(pitch=role.voice.pitch + 3.0)))
    session.wait_idle()
    status = states(session)
    for line in project.lines:
        if line.role != role.name:
            assert status[line.id] is LineState.READY
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="the recast lines ready")
    assert session.synth.synth_calls == calls + sum(1 for line in project.lines if line.role == role.name)


def test_mute_and_solo_apply_live_without_resynthesis(session_factory: Callable[..., Session],
                                                      project: Project) -> None:
    session = session_factory(project, prerender=False)  # nothing voiced in the background
    calls = session.synth.synth_calls
    names = [role.name for role in project.cast]
    soloed = with_role(project, names[0], solo=True)
    session.update(soloed)
    session.wait_idle()
    audible = session.mixer._audible.tolist()
    assert audible == [True, False, False]
    muted = with_role(with_role(soloed, names[0], solo=False), names[2], mute=True)
    session.update(muted)
    session.wait_idle()
    assert session.mixer._audible.tolist() == [True, True, False]
    session.update(replace(with_role(muted, names[1], effect="telephone"), master_effect="clean"))
    session.wait_idle()
    assert session.programme.lane_effects == ("none", "telephone", "none")
    assert session.programme.master_effect == "clean"
    assert session.synth.synth_calls == calls


def test_live_levels_and_master_gain_follow_the_programme(session_factory: Callable[..., Session],
                                                          project: Project) -> None:
    session = session_factory(project)
    assert session.master_gain_db is None  # nothing synthesized: a nominal live gain
    session.play(0.0)
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="all lines ready")
    # Every clip exists: the gain is solved as export would solve it.
    wait_for(lambda: session.master_gain_db is not None, what="the master gain solved")
    assert session.programme.gain_db == pytest.approx(session.master_gain_db)
    wait_for(lambda: (lv := session.levels()) is not None and lv.master_peak_db > -60.0, what="the meters moving")
    levels = session.levels()
    assert levels is not None and len(levels.lane_peak_db) == len(project.cast)


def test_seek_pause_stop_and_loop(session_factory: Callable[..., Session], project: Project) -> None:
    session = session_factory(project)
    session.play(0.5)
    wait_for(lambda: session.transport().playing, what="playing")
    session.pause()
    session.wait_idle()
    wait_for(lambda: not session.transport().playing, what="paused")
    here = session.transport().position_s
    time.sleep(0.2)
    assert session.transport().position_s == pytest.approx(here, abs=0.03)
    session.seek(2.0)
    session.wait_idle()
    wait_for(lambda: abs(session.transport().position_s - 2.0) < 0.05, what="seek while paused")
    session.set_loop((1.0, 1.5))
    session.play()
    session.wait_idle()
    wait_for(lambda: session.player.snapshot().loop == (1.0, 1.5), what="loop set")
    time.sleep(0.6)  # at 4x, more than two passes of the half-second loop
    for _ in range(20):
        assert 1.0 - 0.05 <= session.player.snapshot().mixed_s <= 1.5 + 0.05
        time.sleep(0.01)
    session.stop()
    session.wait_idle()
    wait_for(lambda: not session.transport().playing, what="stopped")
    assert not session._pass.pinned and not session._pass.frozen  # the export layout again
    with pytest.raises(ValueError, match="end must come after"):
        session.set_loop((3.0, 2.0))


class HeldMixerSink(NullSink):
    """The null sink, whose ``service`` (called by the mixer thread before it
    applies transport commands) can be held: a mixer thread starved of the CPU
    on a busy machine, while the device keeps playing."""

    def __init__(self, rate: int, speed: float) -> None:
        super().__init__(rate, speed=speed)
        self.go = threading.Event()
        self.go.set()

    def service(self) -> None:
        self.go.wait()


def test_pause_stops_where_the_listener_is_when_the_mixer_takes_it(tiny_synth: ClipSynthesizer,
                                                                    project: Project) -> None:
    # The pause used to seek to the position read when the control thread took the
    # command: if the mixer thread applied it later, the listener had heard further and
    # the playhead jumped back (the resume repeated audio); under load the flaky
    # test_seek_pause_stop_and_loop saw 0.549 s become 0.5 s.
    # A trial counts only if the ring never ran dry (what was heard was mixed). On a busy
    # machine (two burners beside three workers: load 5-6) a mixer thread starved of the CPU
    # ran the 170 ms ring dry in one trial of a whole suite: that trial says nothing about
    # the pause, so the next is taken; every trial running dry fails, with the load.
    def trial() -> bool:
        """One pause on a held mixer; False when the ring ran dry (nothing judged)."""
        sink = HeldMixerSink(RATE, speed=1.0)  # the held mixer's ring lasts 170 ms: ample to look
        with Session(project, None, sink=sink, synth=tiny_synth) as session:  # type: ignore[arg-type]
            session.play(0.5)
            wait_for(lambda: session.transport().position_s > 0.6, what="playing")
            sink.go.clear()
            session.pause()
            assert session.wait_idle()
            asked_at = session.transport().position_s
            wait_for(lambda: session.transport().position_s > asked_at + 0.03, what="the sink to play on")
            heard = session.transport().position_s
            sink.go.set()
            wait_for(lambda: not session.transport().playing, what="paused")
            if session.transport().underruns:
                return False
            paused_at = session.transport().position_s
            time.sleep(0.1)
            seen = session.transport().position_s
            assert seen >= paused_at >= heard, f"the playhead went back from {heard:.3f} s to {seen:.3f} s"
            assert seen <= paused_at + 1024 / RATE + 1e-6  # at most the block the device was reading goes on
            time.sleep(0.1)
            assert session.transport().position_s == seen
            return True

    dry = []
    while not trial():
        dry.append(os.getloadavg()[0])
        assert len(dry) < 5, f"the ring ran dry in every trial (load {dry}): the pause was never seen on mixed audio"


def test_audition_synthesizes_at_once_and_plays_while_stopped(session_factory: Callable[..., Session],
                                                              project: Project) -> None:
    session = session_factory(project, prerender=False)
    session.audition(project.cast[0].name, "Testing, one two three.")
    wait_for(lambda: session.player._audition is not None or session.synth.synth_calls > 0, what="audition")
    wait_for(lambda: session.synth.synth_calls >= 1, what="audition synthesized")
    assert not session.transport().playing


def test_a_line_that_cannot_be_voiced_is_failed_with_the_reason(session_factory: Callable[..., Session],
                                                                project: Project) -> None:
    project.lines[2].role = "NOBODY"
    session = session_factory(project)
    status = session.line_status()[project.lines[2].id]
    assert status.state is LineState.FAILED
    assert status.error is not None and "NOBODY" in status.error


def test_export_voices_missing_lines_and_the_session_sees_them_ready(session_factory: Callable[..., Session],
                                                                     project: Project, tmp_path: Path) -> None:
    session = session_factory(project, prerender=False)
    report = render_session(session, tmp_path / "first")
    assert report.synthesized == len(project.lines)
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="exported lines ready in the session")
    assert not any(c.estimated for c in session.clips())


def test_export_from_a_session_shares_its_clips(session_factory: Callable[..., Session], project: Project,
                                                tmp_path: Path) -> None:
    session = session_factory(project)
    session.play(0.0)
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="all lines ready")
    calls = session.synth.synth_calls
    report = render_session(session, tmp_path / "out")
    assert report.synthesized == 0 and report.cached == len(project.lines)
    assert session.synth.synth_calls == calls
    assert (tmp_path / "out" / "mix.wav").is_file()


def test_waveform_peaks_bound_the_clip() -> None:
    from engine.session import waveform_peaks

    clip = np.sin(np.linspace(0, 20, 1000)).astype(np.float32)
    peaks = waveform_peaks(clip, 10)
    assert peaks.shape == (10, 2)
    assert np.all(peaks[:, 0] <= peaks[:, 1])
    assert peaks[:, 0].min() == pytest.approx(clip.min()) and peaks[:, 1].max() == pytest.approx(clip.max())


def test_switching_output_keeps_the_playhead_and_an_unknown_device_falls_back_with_the_reason(
        session_factory: Callable[..., Session], project: Project) -> None:
    session = session_factory(project)
    session.play(1.0)
    wait_for(lambda: session.transport().position_s > 1.2, what="playing")
    session.set_output("no such device")
    session.wait_idle()
    transport = session.transport()
    assert transport.output == "null"
    assert transport.audio_error is not None and "no such device" in transport.audio_error
    wait_for(lambda: session.transport().playing, what="playing on the new output")
    assert session.transport().position_s >= 1.2  # carried over, not restarted
    assert [t.name for t in threading.enumerate()].count("radioplay-mixer") == 1


def test_a_line_edited_while_heard_finishes_with_its_old_take_kept_pinned(session_factory: Callable[..., Session],
                                                                          project: Project) -> None:
    session = session_factory(project, speed=1.0)
    wait_for(lambda: set(states(session).values()) == {LineState.READY}, what="every line pre-rendered")
    target = session.clips()[4]
    old_key = session._lines[target.line_id].clip_key
    assert old_key is not None
    # Loop over the line so the playhead stays on it while it is edited.
    session.set_loop((target.start, target.end))
    session.play(target.start)
    wait_for(lambda: session.transport().playing and target.start <= session.player.snapshot().mixed_s < target.end,
             what="playing the line")
    session.update(with_line(project, target.line_id, text="An entirely new reading of this line, edited mid-take."))
    session.wait_idle()
    store = session.synth.cache.store
    # Either still in this pass (old take held and pinned) or the loop already wrapped (released).
    if target.line_id in session._pass.held:
        assert store.pins(old_key) >= 1
    wait_for(lambda: target.line_id not in session._pass.held, what="the loop to wrap into a new pass")
    assert store.pins(old_key) == 0
    wait_for(lambda: states(session)[target.line_id] is LineState.READY, what="the new take")


def test_the_session_keeps_its_own_snapshot_and_applies_the_newest_update(session_factory: Callable[..., Session],
                                                                          project: Project) -> None:
    session = session_factory(project, prerender=False)
    project.lines[0].text = "Changed behind the session's back."
    project.cast[0].mute = True
    session.wait_idle()
    assert session.project.lines[0].text != project.lines[0].text and not session.project.cast[0].mute
    snapshot = session.project
    target = snapshot.lines[1].id
    for i in range(300):  # faster than the control thread applies them: the newest wins
        snapshot = with_line(snapshot, target, pause_before=i / 100)
        session.update(snapshot)
    assert session.wait_idle()
    assert session.project is snapshot
    clips = {c.line_id: c for c in session.clips()}
    first = clips[snapshot.lines[0].id]
    assert clips[target].start == pytest.approx(first.end + snapshot.timing.line_gap + 2.99)


def test_typing_replans_a_line_once_it_has_been_quiet(session_factory: Callable[..., Session],
                                                      project: Project) -> None:
    session = session_factory(project, prerender=False)
    target = project.lines[2].id
    plan = session._lines[target].plan
    assert plan is not None
    snapshot = session.project
    for text in ("A", "A n", "A new line"):
        snapshot = with_line(snapshot, target, text=text)
        session.update(snapshot, typing=True)
        session.wait_idle()
        assert session._lines[target].plan is plan  # not re-planned on every keystroke
    wait_for(lambda: session._lines[target].plan is not plan, timeout=5.0, what="the quiet line re-planned")
    new_plan = session._lines[target].plan
    assert new_plan is not None and new_plan.key == session.synth.plan("A new line", project.cast[2].voice).key


def test_audition_tries_another_speaker_without_recasting(session_factory: Callable[..., Session],
                                                          project: Project, tiny_voices: dict[str, Path]) -> None:
    session = session_factory(project, prerender=False)
    role = project.cast[0]
    trial = VoiceParams(voice=str(tiny_voices["multi"]), speaker="carol")
    session.audition(role.name, "Testing, one two three.", trial)
    wait_for(lambda: session.player._audition is not None, what="audition of another speaker")
    clip, _ = session.player._audition
    assert dominant_hz(clip, session.rate) == pytest.approx(440, rel=0.05)  # carol (220 Hz x 2), not the role's voice
    assert session.project.role(role.name).voice == role.voice


def test_a_recording_plays_at_once_at_the_project_rate(session_factory: Callable[..., Session],
                                                       project: Project) -> None:
    session = session_factory(project, prerender=False)
    t = np.arange(16_000, dtype=np.float32) / 16_000
    session.play_recording(0.3 * np.sin(2 * np.pi * 440 * t), 16_000)
    wait_for(lambda: session.player._audition is not None, what="recording")
    clip, _ = session.player._audition
    assert clip.shape[0] == pytest.approx(session.rate, rel=0.01)  # one second, resampled
    assert dominant_hz(clip, session.rate) == pytest.approx(440, rel=0.02)


def test_a_newer_audition_of_a_role_supersedes_an_older_one(session_factory: Callable[..., Session],
                                                            project: Project) -> None:
    """A producer moving a blend's weights asks for audition after audition: only the
    newest is heard (an older one is cancelled if not started, dropped if it arrives later)."""
    session = session_factory(project, prerender=False)
    played: list[int] = []
    audition = session.player.audition
    session.player.audition = lambda clip, *args: (played.append(clip.shape[0]), audition(clip, *args))  # type: ignore[method-assign]
    role = project.cast[0]
    session.audition(role.name, " ".join(["A long sentence that takes the voice a while to say."] * 8))
    session.audition(role.name, "Short.")
    wait_for(lambda: bool(played), what="an audition")
    wait_for(lambda: not session.scheduler.job_states(), what="the older audition finished or cancelled")
    assert session.wait_idle(10.0)
    assert played == [session.synth.synthesize("Short.", role.voice).shape[0]]
