"""The engine's state drawn on the timeline and the transport bar: the lanes (the cast's, then
the sound lanes under them), line and sound clips, the playhead and the lane meters.

Those widgets (app/timeline/view.py, app/transport/bar.py) take plain data; these functions
turn the document and the Session's snapshots into it. The presenter (app/live/presenter.py)
calls them on its poll and the main window when the document changes. GUI thread only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from app.script.staging import staged_positions
from app.sound import lanes as sound_lanes
from app.timeline.scene import Lane, TimelineScene
from app.timeline.view import TimelineView
from app.transport.bar import TransportBar
from engine.project.model import Project


def timeline_lanes(project: Project) -> list[Lane]:
    """The cast's lanes, then the sound lanes under them (app/sound/lanes.py)."""
    audible = project.audible_roles()
    return [Lane(r.name, r.colour, r.name not in audible) for r in project.cast] + sound_lanes.sound_lanes(project)


def update_lanes(timeline: TimelineView, project: Project) -> None:
    """The cast or the sound lanes changed: the timeline's lanes follow them."""
    timeline.set_lanes(timeline_lanes(project))


def show_new_project(timeline: TimelineView, project: Project) -> None:
    """New, Open, Import, Recover: the timeline starts over on the new cast, scrolled to the top
    and the start, with none of the previous project's clips."""
    timeline.reset(timeline_lanes(project))


def show_clips(timeline: TimelineView, project: Project, clips: Iterable[Any], sounds: Sequence[Any] = ()) -> None:
    """Line clips and sound clips (the Session's SoundViews, or the estimate before it has any)."""
    clips = list(clips) + sound_lanes.timeline_clips(project, sounds)
    texts = {line.id: line.text for line in project.lines} | sound_lanes.labels(project, sounds)
    timeline.set_clips(clips, texts)
    # The scene holds the clips; placed effects carry their position as lines do.
    scene = timeline.scene()
    assert isinstance(scene, TimelineScene)  # the view's own
    scene.set_positions(staged_positions(project) | sound_lanes.staged_positions(project))
    timeline.set_duration(max((c.end for c in clips), default=0.0))


def _by_lane(project: Project, values: Any) -> dict[str, float]:
    if values is None:
        return {}
    if isinstance(values, Mapping):
        return dict(values)
    # MeterSnapshot: cast order, then the sound lanes
    names = project.role_names() + [sound_lanes.lane_key(lane.name) for lane in project.sound_lanes]
    return dict(zip(names, values, strict=False))


def show_transport(timeline: TimelineView, transport: TransportBar, project: Project, snap: Any,
                   levels: Any = None) -> None:
    timeline.set_playhead(snap.position_s)
    # Nothing plays: the engine meters nothing and its last levels stay; the lanes fall.
    playing = levels is not None and snap.playing
    overs = getattr(levels, "lane_overs", None)  # counted while playing and kept: a pause loses none
    timeline.set_lane_levels(_by_lane(project, getattr(levels, "lane_peak_db", None) if playing else None),
                             _by_lane(project, getattr(levels, "lane_hold_db", None) if playing else None),
                             _by_lane(project, getattr(levels, "lane_short_term_lufs", None) if playing else None),
                             {k: int(v) for k, v in _by_lane(project, overs).items()} if overs else None)
    transport.update_from(snap, levels)
