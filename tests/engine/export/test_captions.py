"""Captions: SRT and WebVTT (parsed back with a small parser), and the cue sheet."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.export.captions import _stamp, cue_sheet, srt, vtt
from engine.project.model import Line, Project, Role
from engine.project.timeline import Placement, layout
from engine.synth.frontend import caption_text


def make_project() -> tuple[Project, list[Placement]]:
    project = Project(
        title="The Night Ferry — «draft»",
        cast=[Role("MAGGIE"), Role("MR. HOLLIS"), Role("A<B & C")],
        lines=[
            Line("L1", "MAGGIE", "Hello there."),
            Line("L2", "MR. HOLLIS", "Good evening.\n\nA fine night\tfor it,   isn't it?"),
            Line("L3", "A<B & C", "Is 3 < 4 & 5 > 2? <b>Yes</b>."),
            Line("L4", "MAGGIE", "Quite — «so» they say. Ünïcödé ✓"),
        ],
    )
    placements = [
        Placement("L1", "MAGGIE", 0.0, 1.25),
        Placement("L2", "MR. HOLLIS", 1.6004, 4.9996),
        Placement("L3", "A<B & C", 3723.4567, 3725.0),  # over an hour in
        Placement("L4", "MAGGIE", 5.5, 61.0005),
    ]
    return project, placements


SRT_CUE = re.compile(
    r"(?P<n>\d+)\n(?P<a>\d{2}):(?P<b>\d{2}):(?P<c>\d{2}),(?P<d>\d{3}) --> "
    r"(?P<e>\d{2}):(?P<f>\d{2}):(?P<g>\d{2}),(?P<h>\d{3})\n(?P<text>[^\n]+(?:\n[^\n]+)?)\n"
)
VTT_CUE = re.compile(
    r"(?P<id>[^\n]+)\n(?P<a>\d{2}):(?P<b>\d{2}):(?P<c>\d{2})\.(?P<d>\d{3}) --> "
    r"(?P<e>\d{2}):(?P<f>\d{2}):(?P<g>\d{2})\.(?P<h>\d{3})\n<v (?P<role>[^>]+)>(?P<text>[^\n]*(?:\n[^\n]+)?)\n"
)


def seconds(h: str, m: str, s: str, ms: str) -> float:
    return int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000


def parse_srt(text: str) -> list[dict]:
    blocks = [b for b in text.split("\n\n") if b.strip()]
    cues = []
    for block in blocks:
        m = SRT_CUE.fullmatch(block if block.endswith("\n") else block + "\n")
        assert m, f"malformed SRT cue: {block!r}"
        cues.append({"n": int(m["n"]), "start": seconds(*m.group("a", "b", "c", "d")),
                     "end": seconds(*m.group("e", "f", "g", "h")), "text": m["text"].replace("\n", " "),
                     "rows": m["text"].split("\n")})
    return cues


def parse_vtt(text: str) -> list[dict]:
    header, _, body = text.partition("\n")
    assert header == "WEBVTT"
    assert not body or body.startswith("\n")  # a blank line separates the header
    blocks = [b for b in body[1:].split("\n\n") if b.strip()]
    cues = []
    for block in blocks:
        m = VTT_CUE.fullmatch(block if block.endswith("\n") else block + "\n")
        assert m, f"malformed VTT cue: {block!r}"
        cues.append({"id": m["id"], "start": seconds(*m.group("a", "b", "c", "d")),
                     "end": seconds(*m.group("e", "f", "g", "h")), "role": m["role"],
                     "text": m["text"].replace("\n", " "), "rows": m["text"].split("\n")})
    return cues


def unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def test_srt_numbering_stamps_and_roles() -> None:
    project, placements = make_project()
    text = srt(project, placements)
    cues = parse_srt(text)
    ordered = sorted(placements, key=lambda p: p.start)
    assert [c["n"] for c in cues] == list(range(1, len(placements) + 1))
    for cue, p in zip(cues, ordered, strict=True):
        assert abs(cue["start"] - p.start) <= 0.0005 + 1e-9
        assert abs(cue["end"] - p.end) <= 0.0005 + 1e-9
        assert cue["text"].startswith(f"{p.role}: ")
    # Multi-line, tabbed text collapses to single spaces, in rows of at most
    # 42 characters (two to a cue: the broadcast convention).
    assert cues[1]["text"] == "MR. HOLLIS: Good evening. A fine night for it, isn't it?"
    assert cues[1]["rows"] == ["MR. HOLLIS: Good evening. A fine night for", "it, isn't it?"]
    assert cues[0]["rows"] == ["MAGGIE: Hello there."]  # a short line stays one row
    assert "01:02:03,457 --> 01:02:05,000" in text
    assert "00:00:05,500 --> 00:01:01,00" in text


def test_vtt_voice_tags_escaping_and_times() -> None:
    project, placements = make_project()
    text = vtt(project, placements)
    assert text.startswith("WEBVTT\n")
    cues = parse_vtt(text)
    ordered = sorted(placements, key=lambda p: p.start)
    assert [c["id"] for c in cues] == [p.line_id for p in ordered]
    for cue, p in zip(cues, ordered, strict=True):
        assert abs(cue["start"] - p.start) <= 0.0005 + 1e-9
        assert abs(cue["end"] - p.end) <= 0.0005 + 1e-9
        assert unescape(cue["role"]) == p.role
        line = project.line(p.line_id)
        # Captions show the words without markup ("<b>Yes</b>" reads "Yes").
        assert unescape(cue["text"]) == " ".join(caption_text(line.text).split())
        # No raw markup characters survive in cue text: they would be parsed as tags.
        assert "<" not in cue["text"] and ">" not in cue["text"]
        assert re.sub(r"&(amp|lt|gt);", "", cue["text"]).count("&") == 0
    l3 = next(c for c in cues if c["id"] == "L3")
    assert l3["role"] == "A&lt;B &amp; C"
    assert l3["text"] == "Is 3 &lt; 4 &amp; 5 &gt; 2? Yes."
    assert "01:02:03.457 --> 01:02:05.000" in text
    assert "Ünïcödé ✓" in text


def test_cue_sheet_json() -> None:
    project, placements = make_project()
    data = json.loads(cue_sheet(project, placements))
    assert data["title"] == project.title
    cues = data["cues"]
    ordered = sorted(placements, key=lambda p: p.start)
    assert [c["id"] for c in cues] == [p.line_id for p in ordered]
    for cue, p in zip(cues, ordered, strict=True):
        assert set(cue) >= {"id", "role", "text", "start", "end"}
        assert cue["role"] == p.role
        assert cue["text"] == project.line(p.line_id).text  # the script's text, verbatim
        assert abs(cue["start"] - p.start) < 1e-4 and abs(cue["end"] - p.end) < 1e-4
        assert cue["start"] < cue["end"]


def test_cue_sheet_is_utf8_not_escaped() -> None:
    project, placements = make_project()
    assert "«draft»" in cue_sheet(project, placements)


@pytest.mark.parametrize(("t", "srt_stamp"), [
    (0.0, "00:00:00,000"),
    (0.0004, "00:00:00,000"),
    (0.0006, "00:00:00,001"),
    (59.9996, "00:01:00,000"),
    (3599.9999, "01:00:00,000"),
    (3723.4567, "01:02:03,457"),
    (36000.001, "10:00:00,001"),
    (100 * 3600 + 1.5, "100:00:01,500"),
])
def test_stamp_rounding(t: float, srt_stamp: str) -> None:
    assert _stamp(t, ",") == srt_stamp
    assert _stamp(t, ".") == srt_stamp.replace(",", ".")


@settings(max_examples=300, deadline=None)
@given(st.floats(min_value=0.0, max_value=5 * 3600.0, allow_nan=False))
def test_stamp_round_trip_within_a_millisecond(t: float) -> None:
    m = re.fullmatch(r"(\d{2,}):(\d{2}):(\d{2}),(\d{3})", _stamp(t, ","))
    assert m
    assert int(m[2]) < 60 and int(m[3]) < 60
    assert abs(seconds(*m.groups()) - t) <= 0.0005 + 1e-9


def test_captions_from_layout_sorted_with_overlaps() -> None:
    """Placements from the real layout, including an interruption, come out in start order."""
    project = Project(
        cast=[Role("ANNA"), Role("BEN")],
        lines=[
            Line("a", "ANNA", "First line is rather long, you know."),
            Line("b", "BEN", "Cut in!", overlap=1.0),
            Line("c", "ANNA", "Together", with_previous=True),
            Line("d", "BEN", "Pinned early.", start=0.5),
        ],
    )
    placements = layout(project, {"a": 3.0, "b": 1.0, "c": 1.0, "d": 0.7})
    starts = sorted(p.start for p in placements)
    srt_cues = parse_srt(srt(project, placements))
    vtt_cues = parse_vtt(vtt(project, placements))
    assert [round(c["start"], 3) for c in srt_cues] == [round(s, 3) for s in starts]
    assert [round(c["start"], 3) for c in vtt_cues] == [round(s, 3) for s in starts]
    assert len(srt_cues) == len(vtt_cues) == 4


def test_empty_placements() -> None:
    project = Project()
    assert parse_srt(srt(project, [])) == []
    assert parse_vtt(vtt(project, [])) == []
    assert json.loads(cue_sheet(project, []))["cues"] == []
