"""What every part of the Session shares: its state, declared once.

The Session is one object split by concept into mixins (engine/session/):
the line book (lines.py), the playback pass (playback.py), the live mix
(mix.py) and the control thread with the public interface (control.py).
They call each other through the methods declared here; only the control
thread ("radioplay-live") runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine.audio.leveller import LineEnvelope
from engine.audio.live import LivePlayer, PendingLines
from engine.audio.mixer import BlockMixer
from engine.audio.programme import Programme
from engine.audio.sinks import OutputSink
from engine.audio.soundbus import SoundBus
from engine.export.sounds import SoundSet
from engine.metrics.hub import MetricsHub
from engine.project.model import Project
from engine.project.timeline import Placement, SoundPlacement
from engine.sched.request import Deadline, LineRequest, Origin
from engine.sched.scheduler import Scheduler
from engine.session.views import ClipView, LineStatus, SoundView
from engine.synth.sounds import SoundLibrary
from engine.synth.synthesizer import ClipPlan, ClipSynthesizer


@dataclass
class LineRecord:
    """The control thread's record of one line."""

    plan: ClipPlan | None = None
    error: str | None = None
    clip: np.ndarray | None = None
    clip_key: str | None = None  # the key ``clip`` was made for (pinned in the cache)
    request: LineRequest | None = None
    failed: str | None = None
    recording: str | None = None  # the recorded take ``clip`` was read from (no plan, no synthesis)


@dataclass
class PassState:
    """What one playback pass keeps fixed (reset on play, seek and loop wrap)."""

    frozen: dict[str, float] = field(default_factory=dict)  # passed without a clip: estimated length
    held: dict[str, np.ndarray] = field(default_factory=dict)  # edited while playing: old clip this pass
    held_keys: list[str] = field(default_factory=list)  # their cache pins, released with the pass
    pinned: dict[str, float] = field(default_factory=dict)  # late lines: start where they arrived
    waiting: set[str] = field(default_factory=set)  # reached (or under the playhead) without a clip


class SessionCore:
    project: Project  # the snapshot the control thread has applied
    project_path: Path | None
    rate: int
    prerender: bool
    lookahead_s: float
    synth: ClipSynthesizer
    metrics: MetricsHub
    scheduler: Scheduler
    audio_error: str | None
    last_error: str | None
    late_log: list[tuple[str, float]]
    master_gain_db: float | None
    mixer: BlockMixer
    programme: Programme
    player: LivePlayer
    _lines: dict[str, LineRecord]
    _pass: PassState
    _placements: list[Placement]
    _placement_of: dict[str, Placement]
    # The dialogue leveller's curve of each placed clip, by (clip id, level offset), with the clip.
    _envelopes: dict[tuple[int, float], tuple[np.ndarray, LineEnvelope]]
    _clip_views: list[ClipView]
    _status: dict[str, LineStatus]
    _requested_until: float
    _prerendering: bool
    _play_origin: float
    _lane_of: dict[str, int]
    _loudness_signature: object
    _loudness: ThreadPoolExecutor
    _block: int
    _pending: PendingLines
    _closed: bool
    _quiet: dict[str, float]
    _auditions: dict[str, LineRequest]  # role -> its newest audition not played yet
    # Sound design (engine/session/sounds.py).
    sound_folders: list[Path]
    sound_set: SoundSet
    sound_bus: SoundBus | None
    _library: SoundLibrary | None
    _sound_views: list[SoundView]

    # Implemented by the mixins (the Session inherits them all).
    def _post(self, event: Callable[[], None]) -> None:
        raise NotImplementedError

    def _replan(self, line_ids: list[str], edited: bool = False) -> None:
        raise NotImplementedError

    def _request(self, line_id: str, record: LineRecord, origin: Origin, deadline: Deadline | None = None) -> None:
        raise NotImplementedError

    def _release(self, record: LineRecord) -> None:
        raise NotImplementedError

    def _publish_status(self) -> None:
        raise NotImplementedError

    def _relayout(self) -> None:
        raise NotImplementedError

    def _placement(self, line_id: str) -> Placement | None:
        raise NotImplementedError

    def _under_playhead(self, line_id: str, position_s: float) -> bool:
        raise NotImplementedError

    def _reset_pass(self) -> None:
        raise NotImplementedError

    def _on_late(self, line_id: str, start_frame: int) -> None:
        raise NotImplementedError

    def _on_wrap(self) -> None:
        raise NotImplementedError

    def _apply_lanes(self) -> None:
        raise NotImplementedError

    def _master_changed(self) -> None:
        raise NotImplementedError

    def _reshape_lanes(self) -> None:
        raise NotImplementedError

    def _make_player(self, sink: OutputSink) -> LivePlayer:
        raise NotImplementedError

    def _new_sound_bus(self) -> SoundBus | None:
        raise NotImplementedError

    def _resolve_sounds(self) -> None:
        raise NotImplementedError

    def _sounds_changed(self, old: Project) -> None:
        raise NotImplementedError

    def _place_sound_clips(self, placements: Sequence[SoundPlacement]) -> None:
        raise NotImplementedError
