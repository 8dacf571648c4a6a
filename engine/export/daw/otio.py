"""OpenTimelineIO: an audio track per role (a second one where a role's own
lines overlap), each line a clip with its source range on its file, gaps
between them in frames at the project's rate (so positions are exact), and
a marker over each scene. Written with the opentimelineio library."""

from __future__ import annotations

from typing import Any

from engine.export.daw.handoff import Handoff, LineFile, project_file
from engine.export.outputset import OutputSet


def build(handoff: Handoff) -> Any:
    import opentimelineio as otio

    rate = handoff.rate

    def at(frames: int) -> Any:
        return otio.opentime.RationalTime(frames, rate)

    timeline = otio.schema.Timeline(name=handoff.project.title)
    for role in handoff.project.cast:
        lanes: list[tuple[Any, int]] = []  # (track, its end in frames)
        mine: list[LineFile] = [x for x in handoff.lines if x.role == role.name]
        for line in mine:
            start = int(round(line.start * rate))
            lane = next((k for k, (_, end) in enumerate(lanes) if end <= start), None)
            if lane is None:
                name = role.name if not lanes else f"{role.name} ({len(lanes) + 1})"
                track = otio.schema.Track(name=name, kind=otio.schema.TrackKind.Audio,
                                          metadata={"radioplay": {"role": role.name, "gain_db": role.gain_db,
                                                                  "pan": role.pan}})
                lanes.append((track, 0))
                lane = len(lanes) - 1
            track, end = lanes[lane]
            if start > end:
                track.append(otio.schema.Gap(source_range=otio.opentime.TimeRange(at(0), at(start - end))))
            available = otio.opentime.TimeRange(at(0), at(line.frames))
            reference = otio.schema.ExternalReference(target_url=line.file, available_range=available)
            track.append(otio.schema.Clip(name=line.line_id, media_reference=reference, source_range=available,
                                          metadata={"radioplay": {"role": line.role, "text": line.text}}))
            lanes[lane] = (track, start + line.frames)
        for track, _ in lanes:
            timeline.tracks.append(track)
    for scene in handoff.scenes:
        span = otio.opentime.TimeRange(at(int(round(scene.start * rate))),
                                       at(int(round((scene.end - scene.start) * rate))))
        timeline.tracks.markers.append(otio.schema.Marker(name=scene.title, marked_range=span))
    return timeline


def write(handoff: Handoff, output: OutputSet, name: str) -> None:
    import opentimelineio as otio

    otio.adapters.write_to_file(build(handoff), str(output.path(project_file("otio", name))))
