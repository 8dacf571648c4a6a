"""REAPER's pan sign in the hand-off: what the .rpp writer emits for a line
walking left to right, read back by an RPP parser we did not write (rpp).

REAPER's track pan (VOLPAN) runs from -1 (left) to +1 (right); its pan
envelope (<PANENV2, the post-FX track pan) runs the other way, +1 left and -1
right, as SWS formats its points ("50%L" for +0.5: BR_EnvelopeUtil.cpp,
BR_Envelope::FormatValue; docs/dev/staging.md). Linear points (shape 0)
between keyframes, as the stager interpolates."""

from __future__ import annotations

import rpp

from engine.export.daw import reaper
from engine.export.daw.handoff import Handoff, LineFile
from engine.export.daw.staging import automation
from engine.project.model import Line, Project, Role
from engine.project.staging import Position
from engine.project.timeline import layout

RATE = 48_000


def _walk(start: Position) -> tuple[Project, str]:
    project = Project(title="Walk", sample_rate=RATE, cast=[Role("ANN", pan=-0.5), Role("BOB", pan=0.25)])
    project.lines = [Line(id="L1", role="ANN", text="I am crossing over.", position=start),
                     Line(id="L2", role="BOB", text="Mind the step.")]
    placements = layout(project, {"L1": 2.0, "L2": 1.0})
    lines = [LineFile(p.line_id, p.role, "", f"lines/{p.line_id}.wav", p.start, int(p.duration * RATE))
             for p in placements]
    handoff = Handoff(project, RATE, lines, [], max(p.end for p in placements), [], automation(project, placements))
    return project, reaper.render(handoff)


def test_a_line_walking_left_to_right_starts_positive_and_ends_negative_in_the_pan_envelope() -> None:
    project, text = _walk(Position(path=((0.0, -0.8, 2.0), (1.0, 0.8, 4.0))))
    tracks = {t.find("NAME")[1]: t for t in rpp.loads(text).findall("TRACK")}
    placed = layout(project, {"L1": 2.0, "L2": 1.0})[0]
    ann = tracks["ANN"]
    # The track's own pan keeps REAPER's track sign: the role on the left is negative.
    assert float(ann.find("VOLPAN")[2]) == -0.5
    assert float(tracks["BOB"].find("VOLPAN")[2]) == 0.25 and tracks["BOB"].find("PANENV2") is None
    pan = ann.find("PANENV2")
    points = [(float(pt[1]), float(pt[2]), int(pt[3])) for pt in pan.findall("PT")]
    # Left at the line's start is +0.8 in REAPER's pan envelope, right at its end -0.8.
    assert points == [(placed.start, 0.8, 0), (placed.end, -0.8, 0)]
    assert pan.find("DEFSHAPE")[1] == "0" and pan.find("ACT")[1] == "1"
    volume = [float(pt[2]) for pt in ann.find("VOLENV2").findall("PT")]
    assert volume == [0.5, 0.25]  # the direct sound's gain at 2 m and at 4 m (1 m / distance)


def test_a_line_placed_right_is_negative_for_its_whole_length() -> None:
    _, text = _walk(Position(pan=0.6, distance=1.0))
    ann = {t.find("NAME")[1]: t for t in rpp.loads(text).findall("TRACK")}["ANN"]
    assert [float(pt[2]) for pt in ann.find("PANENV2").findall("PT")] == [-0.6, -0.6]
