"""Export from an open Session: the production as last handed to it, through
its synthesizer, cache and scheduler, so lines already heard are not
synthesized again, and the lines the export voiced are ready in the Session
afterwards. Export takes the Session (the Session knows nothing of export).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from engine.export.render import RenderOptions, RenderReport, render_project
from engine.farm.farm import open_farm
from engine.sched.request import Origin
from engine.session.control import Session


def render_session(session: Session, outdir: Path, options: RenderOptions | None = None,
                   progress: Callable[[str, int, int], None] | None = None,
                   cancel: threading.Event | None = None, ray: str | None = None) -> RenderReport:
    """Render mix, stems, captions and cue sheet of the session's newest
    snapshot (blocking: call it from a worker thread). ``ray``: a cluster
    address (or auto) whose actors voice what is missing (engine/farm;
    NoWorkers when none); each actor's work shows in the engine monitor
    beside the session's own."""
    try:
        if options is not None and session.sound_folders and not options.sound_folders:
            options = replace(options, sound_folders=tuple(session.sound_folders))
        # Foreground work: the session's speech check waits while it runs, even when every
        # line is cached and no job is queued (engine/sched/background.py).
        with session.scheduler.foreground(Origin.EXPORT), \
                open_farm(ray, session.synth, metrics=session.metrics) as farm:
            return render_project(session.handed_over(), session.synth, outdir, options, progress, cancel,
                                  scheduler=farm.scheduler if farm else session.scheduler,
                                  project_path=session.project_path)
    finally:
        session.refresh_from_cache()  # lines the export voiced are ready there too
