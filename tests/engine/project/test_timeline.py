"""Timeline layout: gaps, pauses, pinned starts, overlaps, dual dialogue."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.project.model import Line, Project, Role, Timing, VoiceParams
from engine.project.timeline import (
    CHARS_PER_SECOND,
    Placement,
    estimate_duration,
    layout,
    start_if,
    total_duration,
)

LINE_GAP, SCENE_GAP = 0.5, 2.0


def make(lines: list[Line], speeds: dict[str, float] | None = None) -> Project:
    speeds = speeds or {}
    roles = sorted({line.role for line in lines})
    return Project(
        cast=[Role(name=r, voice=VoiceParams(speed=speeds.get(r, 1.0))) for r in roles],
        lines=lines,
        timing=Timing(line_gap=LINE_GAP, scene_gap=SCENE_GAP),
    )


def L(lid: str, role: str = "A", scene: str | None = "S1", **kw: object) -> Line:  # noqa: N802
    return Line(id=lid, role=role, text=f"text of {lid}", scene=scene, **kw)  # type: ignore[arg-type]


def spans(placements: list[Placement]) -> list[tuple[str, float, float]]:
    return [(p.line_id, round(p.start, 9), round(p.end, 9)) for p in placements]


def test_empty_project() -> None:
    assert layout(make([]), {}) == []
    assert total_duration([]) == 0.0


def test_first_line_starts_at_zero() -> None:
    p = layout(make([L("a")]), {"a": 2.0})
    assert spans(p) == [("a", 0.0, 2.0)]
    assert p[0].role == "A"
    assert p[0].duration == pytest.approx(2.0)


def test_sequential_lines_are_separated_by_line_gap() -> None:
    project = make([L("a"), L("b", "B"), L("c")])
    p = layout(project, {"a": 2.0, "b": 1.0, "c": 3.0})
    assert spans(p) == [("a", 0.0, 2.0), ("b", 2.5, 3.5), ("c", 4.0, 7.0)]
    assert [x.role for x in p] == ["A", "B", "A"]


def test_gap_comes_from_project_timing() -> None:
    project = make([L("a"), L("b")])
    project.timing = Timing(line_gap=0.0, scene_gap=0.0)
    assert spans(layout(project, {"a": 1.0, "b": 1.0})) == [("a", 0.0, 1.0), ("b", 1.0, 2.0)]


def test_scene_change_uses_scene_gap() -> None:
    project = make([L("a", scene="S1"), L("b", scene="S2"), L("c", scene="S2"), L("d", scene=None)])
    p = layout(project, {"a": 1.0, "b": 1.0, "c": 1.0, "d": 1.0})
    assert spans(p) == [("a", 0.0, 1.0), ("b", 3.0, 4.0), ("c", 4.5, 5.5), ("d", 7.5, 8.5)]


def test_first_line_gets_no_gap_even_in_a_scene() -> None:
    p = layout(make([L("a", scene="S7")]), {"a": 1.0})
    assert p[0].start == 0.0


def test_pause_before_adds_to_the_gap() -> None:
    project = make([L("a", pause_before=1.0), L("b", pause_before=1.5), L("c", scene="S2", pause_before=0.25)])
    p = layout(project, {"a": 1.0, "b": 1.0, "c": 1.0})
    assert spans(p) == [("a", 1.0, 2.0), ("b", 4.0, 5.0), ("c", 7.25, 8.25)]


def test_explicit_start_pins_the_line() -> None:
    project = make([L("a"), L("b", start=10.0), L("c")])
    p = layout(project, {"a": 2.0, "b": 1.0, "c": 1.0})
    assert spans(p) == [("a", 0.0, 2.0), ("b", 10.0, 11.0), ("c", 11.5, 12.5)]


def test_pinned_start_ignores_gap_and_pause() -> None:
    project = make([L("a"), L("b", scene="S2", start=0.5, pause_before=3.0)])
    p = layout(project, {"a": 2.0, "b": 1.0})
    assert p[1].start == 0.5


def test_line_after_early_pin_follows_whichever_ended_last() -> None:
    # b is pinned inside a; a ends last, so c follows a, not b.
    project = make([L("a"), L("b", "B", start=1.0), L("c")])
    p = layout(project, {"a": 5.0, "b": 1.0, "c": 1.0})
    assert spans(p) == [("a", 0.0, 5.0), ("b", 1.0, 2.0), ("c", 5.5, 6.5)]


def test_line_after_long_pin_follows_the_pin() -> None:
    # b is pinned inside a but runs past it; c follows b.
    project = make([L("a"), L("b", "B", start=1.0), L("c")])
    p = layout(project, {"a": 5.0, "b": 7.0, "c": 1.0})
    assert spans(p) == [("a", 0.0, 5.0), ("b", 1.0, 8.0), ("c", 8.5, 9.5)]


def test_pinned_first_line() -> None:
    p = layout(make([L("a", start=3.0), L("b")]), {"a": 1.0, "b": 1.0})
    assert spans(p) == [("a", 3.0, 4.0), ("b", 4.5, 5.5)]


def test_overlap_starts_before_previous_end() -> None:
    project = make([L("a"), L("b", "B", overlap=0.25), L("c")])
    p = layout(project, {"a": 2.0, "b": 1.0, "c": 1.0})
    assert spans(p) == [("a", 0.0, 2.0), ("b", 1.75, 2.75), ("c", 3.25, 4.25)]


def test_overlap_is_clamped_to_previous_start() -> None:
    project = make([L("a"), L("b", "B", overlap=9.0)])
    p = layout(project, {"a": 2.0, "b": 1.0})
    assert spans(p) == [("a", 0.0, 2.0), ("b", 0.0, 1.0)]
    project = make([L("a"), L("b"), L("c", "B", overlap=9.0)])
    p = layout(project, {"a": 2.0, "b": 1.0, "c": 1.0})
    assert p[2].start == p[1].start == 2.5


def test_overlap_is_relative_to_previous_line_not_cursor() -> None:
    # a is long; b is pinned early and short; c overlaps b (its previous line), not a.
    project = make([L("a"), L("b", "B", start=1.0), L("c", "C", overlap=0.5)])
    p = layout(project, {"a": 10.0, "b": 2.0, "c": 1.0})
    assert spans(p)[2] == ("c", 2.5, 3.5)


def test_overlap_on_first_line_is_ignored() -> None:
    p = layout(make([L("a", overlap=1.0)]), {"a": 2.0})
    assert spans(p) == [("a", 0.0, 2.0)]


def test_with_previous_starts_with_previous_line() -> None:
    project = make([L("a"), L("b", "B"), L("c", "C", with_previous=True), L("d")])
    p = layout(project, {"a": 1.0, "b": 2.0, "c": 3.0, "d": 1.0})
    # c starts with b; d follows c, which ended last
    assert spans(p) == [("a", 0.0, 1.0), ("b", 1.5, 3.5), ("c", 1.5, 4.5), ("d", 5.0, 6.0)]


def test_with_previous_shorter_line_next_follows_longer() -> None:
    project = make([L("a"), L("b", "B", with_previous=True), L("c")])
    p = layout(project, {"a": 3.0, "b": 1.0, "c": 1.0})
    assert spans(p) == [("a", 0.0, 3.0), ("b", 0.0, 1.0), ("c", 3.5, 4.5)]


def test_with_previous_wins_over_overlap_and_pin_wins_over_both() -> None:
    project = make([L("a"), L("b", "B", with_previous=True, overlap=0.5),
                    L("c", "C", with_previous=True, overlap=0.5, start=7.0)])
    p = layout(project, {"a": 2.0, "b": 1.0, "c": 1.0})
    assert spans(p) == [("a", 0.0, 2.0), ("b", 0.0, 1.0), ("c", 7.0, 8.0)]


def test_with_previous_adds_its_pause() -> None:
    project = make([L("a"), L("b", "B", with_previous=True, pause_before=0.5)])
    p = layout(project, {"a": 2.0, "b": 1.0})
    assert spans(p)[1] == ("b", 0.5, 1.5)


def test_with_previous_on_first_line_is_sequential() -> None:
    p = layout(make([L("a", with_previous=True)]), {"a": 2.0})
    assert spans(p) == [("a", 0.0, 2.0)]


def test_placements_follow_line_order_and_ids() -> None:
    lines = [L(f"x{i}", role="AB"[i % 2]) for i in range(6)]
    p = layout(make(lines), {})
    assert [x.line_id for x in p] == [line.id for line in lines]
    assert [x.role for x in p] == [line.role for line in lines]


# --------------------------------------------------------------------------- estimates


def test_estimate_duration_rules() -> None:
    assert estimate_duration("x" * 140) == pytest.approx(140 / CHARS_PER_SECOND)
    assert estimate_duration("a" * 100) > estimate_duration("a" * 50)
    assert estimate_duration("a" * 100, speed=2.0) < estimate_duration("a" * 100, speed=1.0)
    assert estimate_duration("a" * 100, speed=0.5) == pytest.approx(2 * estimate_duration("a" * 100))
    assert estimate_duration("") == pytest.approx(0.3)  # never zero-length
    assert estimate_duration("hi", speed=0.0) > 0  # no division by zero


def test_missing_durations_fall_back_to_estimate() -> None:
    long_text = "This is a much longer line that keeps on going for quite a while."
    project = Project(
        cast=[Role(name="A"), Role(name="FAST", voice=VoiceParams(speed=2.0))],
        lines=[Line(id="s", role="A", text="Short.", scene="S1"),
               Line(id="l", role="A", text=long_text, scene="S1"),
               Line(id="f", role="FAST", text=long_text, scene="S1"),
               Line(id="k", role="A", text="Known.", scene="S1")],
        timing=Timing(line_gap=LINE_GAP, scene_gap=SCENE_GAP),
    )
    p = {x.line_id: x for x in layout(project, {"k": 4.0})}
    assert p["s"].duration == pytest.approx(estimate_duration("Short."))
    assert p["l"].duration == pytest.approx(estimate_duration(long_text))
    assert p["l"].duration > p["s"].duration
    assert p["f"].duration == pytest.approx(estimate_duration(long_text, 2.0))
    assert p["f"].duration < p["l"].duration  # faster role -> shorter
    assert p["k"].duration == pytest.approx(4.0)  # a known duration wins
    # the estimate also drives where later lines go
    assert p["l"].start == pytest.approx(p["s"].end + LINE_GAP)


def test_role_speed_changes_estimate_and_layout() -> None:
    lines = [Line(id="a", role="A", text="x" * 70, scene="S1"), Line(id="b", role="B", text="y", scene="S1")]
    slow = Project(cast=[Role(name="A", voice=VoiceParams(speed=0.5)), Role(name="B")], lines=lines)
    fast = Project(cast=[Role(name="A", voice=VoiceParams(speed=2.0)), Role(name="B")], lines=lines)
    assert layout(slow, {})[1].start > layout(fast, {})[1].start


def test_line_of_unknown_role_is_estimated_at_speed_one() -> None:
    project = Project(lines=[Line(id="a", role="GHOST", text="x" * 28)])
    assert layout(project, {})[0].duration == pytest.approx(2.0)


def test_total_duration_is_latest_end() -> None:
    project = make([L("a"), L("b", "B", start=1.0), L("c", "C", with_previous=True)])
    p = layout(project, {"a": 5.0, "b": 1.0, "c": 9.0})
    assert total_duration(p) == pytest.approx(10.0)  # c (1..10) ends last, not the last-started line
    assert total_duration([Placement("x", "A", 2.0, 3.5)]) == 3.5


# --------------------------------------------------------------------------- properties

_line = st.builds(
    dict,
    scene=st.sampled_from(["S1", "S2", None]),
    pause=st.sampled_from([0.0, 0.5, 1.0]),
    start=st.none() | st.floats(0, 30),
    overlap=st.sampled_from([0.0, 0.25, 5.0]),
    with_previous=st.booleans(),
    duration=st.floats(0.1, 10),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_line, min_size=1, max_size=12))
def test_layout_invariants(specs: list[dict]) -> None:
    lines = [Line(id=f"L{i}", role="AB"[i % 2], text="t", scene=s["scene"], pause_before=s["pause"],
                  start=s["start"], overlap=s["overlap"], with_previous=s["with_previous"])
             for i, s in enumerate(specs)]
    durations = {f"L{i}": s["duration"] for i, s in enumerate(specs)}
    p = layout(make(lines), durations)
    assert [x.line_id for x in p] == [line.id for line in lines]
    ends_so_far = 0.0
    for i, (x, line) in enumerate(zip(p, lines, strict=True)):
        assert x.start >= 0
        assert x.duration == pytest.approx(durations[line.id])
        if line.start is not None:
            assert x.start == line.start
        elif i > 0 and line.with_previous:
            assert x.start == pytest.approx(p[i - 1].start + line.pause_before)
        elif i > 0 and line.overlap:
            assert p[i - 1].start <= x.start + 1e-9
            assert x.start <= p[i - 1].end
        elif i > 0:
            # a plain line never starts before everything earlier has ended
            assert x.start >= ends_so_far + LINE_GAP - 1e-9
        ends_so_far = max(ends_so_far, x.end)
    assert total_duration(p) == pytest.approx(ends_so_far)


# ---- what-if: where would a line start with other placement fields (a clip drag asks) ----

PLACEMENT_FIELDS = ("start", "overlap", "with_previous", "pause_before")


def test_start_if_answers_without_changing_the_project() -> None:
    project = make([L("a"), L("b", "B", overlap=0.4), L("c")])
    before = [(line.id, *(getattr(line, f) for f in PLACEMENT_FIELDS)) for line in project.lines]
    durations = {"a": 2.0, "b": 1.0, "c": 1.0}
    natural = {"start": None, "overlap": 0.0, "with_previous": False, "pause_before": 0.0}
    assert start_if(project, durations, "b", natural) == pytest.approx(2.0 + LINE_GAP)
    assert start_if(project, durations, "b", {"start": 7.0}) == 7.0
    assert start_if(project, durations, "b", {**natural, "pause_before": 1.0}) == pytest.approx(3.0 + LINE_GAP)
    assert start_if(project, durations, "c", {"with_previous": True}) == pytest.approx(layout(project, durations)[1].start)
    after = [(line.id, *(getattr(line, f) for f in PLACEMENT_FIELDS)) for line in project.lines]
    assert after == before


def test_start_if_names_an_unknown_line() -> None:
    with pytest.raises(KeyError, match="nope"):
        start_if(make([L("a")]), {}, "nope", {"start": 1.0})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0.1, 5.0), st.floats(0.0, 2.0), st.booleans(), st.floats(0.0, 1.0)),
                min_size=1, max_size=8), st.data())
def test_start_if_agrees_with_laying_out_the_changed_project(specs: list[tuple[float, float, bool, float]],
                                                             data: st.DataObject) -> None:
    lines = [L(f"L{i}", "AB"[i % 2], pause_before=p, overlap=o, with_previous=w)
             for i, (_, p, w, o) in enumerate(specs)]
    durations = {f"L{i}": d for i, (d, *_) in enumerate(specs)}
    project = make(lines)
    target = data.draw(st.sampled_from(lines)).id
    changes = {"start": data.draw(st.none() | st.floats(0.0, 20.0)), "overlap": data.draw(st.floats(0.0, 2.0)),
               "with_previous": data.draw(st.booleans()), "pause_before": data.draw(st.floats(0.0, 2.0))}
    changed = make([Line(**{**line.__dict__, **changes}) if line.id == target else line for line in lines])
    expected = next(p.start for p in layout(changed, durations) if p.line_id == target)
    assert start_if(project, durations, target, changes) == pytest.approx(expected)
