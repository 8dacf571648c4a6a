"""OpenTimelineIO: an audio track per role and per sound lane (a second one
where a role's own lines or a lane's clips overlap), each line and sound clip a clip with its source range on its file, gaps
between them in frames at the project's rate (so positions are exact), and
a marker over each scene; a staged role's stem (the rendered staging) on a
track of its own. Written with the opentimelineio library."""

from __future__ import annotations

from typing import Any

from engine.export.daw.handoff import Handoff, project_file
from engine.export.daw.staging import tail_s
from engine.export.outputset import OutputSet


def build(handoff: Handoff) -> Any:
    import opentimelineio as otio

    rate = handoff.rate

    def at(frames: int) -> Any:
        return otio.opentime.RationalTime(frames, rate)

    timeline = otio.schema.Timeline(name=handoff.project.title)
    # (name, track metadata, its items: (start, frames, clip name, file, clip metadata))
    groups: list[tuple[str, dict[str, Any], list[tuple[float, int, str, str, dict[str, Any]]]]] = [
        (role.name, {"role": role.name, "gain_db": role.gain_db, "pan": role.pan},
         [(x.start, x.frames, x.line_id, x.file, {"role": x.role, "text": x.text})
          for x in handoff.lines if x.role == role.name]) for role in handoff.project.cast]
    groups += [(lane.name, {"sound_lane": lane.name, "kind": lane.kind, "gain_db": lane.gain_db, "pan": lane.pan},
                [(x.start, x.frames, x.clip_id, x.file, {"lane": x.lane, "cue": x.cue})
                 for x in handoff.sounds if x.lane == lane.name]) for lane in handoff.project.sound_lanes]
    for group, meta, items in groups:
        lanes: list[tuple[Any, int]] = []  # (track, its end in frames)
        for start_s, frames, clip_name, file, clip_meta in items:
            start = int(round(start_s * rate))
            lane = next((k for k, (_, end) in enumerate(lanes) if end <= start), None)
            if lane is None:
                name = group if not lanes else f"{group} ({len(lanes) + 1})"
                track = otio.schema.Track(name=name, kind=otio.schema.TrackKind.Audio,
                                          metadata={"radioplay": meta})
                lanes.append((track, 0))
                lane = len(lanes) - 1
            track, end = lanes[lane]
            if start > end:
                track.append(otio.schema.Gap(source_range=otio.opentime.TimeRange(at(0), at(start - end))))
            available = otio.opentime.TimeRange(at(0), at(frames))
            reference = otio.schema.ExternalReference(target_url=file, available_range=available)
            track.append(otio.schema.Clip(name=clip_name, media_reference=reference, source_range=available,
                                          metadata={"radioplay": clip_meta}))
            lanes[lane] = (track, start + frames)
        for track, _ in lanes:
            timeline.tracks.append(track)
    length = int(round((handoff.length_s + tail_s(handoff.project)) * rate))
    for role, stem in handoff.stems.items():  # the rendered staging, beside the dry lines
        track = otio.schema.Track(name=f"{role} (staged)", kind=otio.schema.TrackKind.Audio,
                                  metadata={"radioplay": {"role": role, "staged": True}})
        available = otio.opentime.TimeRange(at(0), at(length))
        track.append(otio.schema.Clip(name=f"{role} staged", source_range=available,
                                      media_reference=otio.schema.ExternalReference(target_url=stem,
                                                                                    available_range=available)))
        timeline.tracks.append(track)
    for scene in handoff.scenes:
        span = otio.opentime.TimeRange(at(int(round(scene.start * rate))),
                                       at(int(round((scene.end - scene.start) * rate))))
        timeline.tracks.markers.append(otio.schema.Marker(name=scene.title, marked_range=span))
    return timeline


def write(handoff: Handoff, output: OutputSet, name: str) -> None:
    import opentimelineio as otio

    otio.adapters.write_to_file(build(handoff), str(output.path(project_file("otio", name))))
