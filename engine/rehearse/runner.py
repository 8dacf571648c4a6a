"""The table read: the engine plays the synthetic parts, a person reads the rest.

The run walks the script in order. A stretch of synthetic lines is played
through the live :class:`~engine.session.Session` (``play_lines``: from the
first line's start to the last one's end, then it stops); a live line is
cued to the reader and listened to (engine/rehearse/listener.py) until the
reader has finished it, and then the next stretch starts at once. The roles
read live are muted in the session (through ``Session.update``, as any
edit), and the synthetic lines are prefetched at the front of the scheduler
in script order, so a reply plays from memory.

A section (``from_line`` to ``to_line``) may be read ``loop`` times over (0:
until :meth:`stop`); ``hide_own`` cues the reader's lines without their
words (shown once said or missed); ``follow(line_id)`` is told each line as
it comes (the studio selects it and puts its playhead there).

Threads: :meth:`TableRead.run` runs on the caller's thread and alone drives
the session and drains the reader's queue; :meth:`advance`, :meth:`back` and
:meth:`stop` (the keys) may be called from any other thread. The live lines
are heard in one child process per run (engine/listen/listening_process.py).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from engine.listen.follow import Recognize, recognize_here
from engine.listen.listening_process import ListeningProcess
from engine.listen.recognizer import read_dictionary_ahead
from engine.listen.vad import VoiceDetector, make_detector
from engine.output_paths import OutputPathError
from engine.project.direction import spoken_text
from engine.project.model import Line, Project
from engine.rehearse.listener import Heard, LineListener, Outcome
from engine.rehearse.reader import Reader
from engine.rehearse.report import LineResult, Report
from engine.rehearse.strictness import strictness
from engine.rehearse.take_names import take_file_names
from engine.rehearse.takes import save_take
from engine.session import LineState, Session

POLL_S = 0.002  # how often the run looks at the sink's clock while a stretch plays
READY_TIMEOUT_S = 600.0  # a reply's clip must exist within this (first run of a long script on a slow machine)
CONTEXT_LINES = 2  # lines either side whose words a paraphrase may borrow


@dataclass(frozen=True)
class RehearseOptions:
    roles: tuple[str, ...]
    from_line: str | None = None
    record: Path | None = None
    manual: bool = False
    vad: str = "auto"
    to_line: str | None = None  # the section ends with this line (included)
    loop: int = 1  # passes through the section; 0: until stopped
    strictness: str = "normal"  # engine/rehearse/strictness.py
    hide_own: bool = False  # cue the reader's lines without their words


class RehearseError(ValueError):
    """Bad options: an unknown role or line, nothing to read."""


def plan_lines(project: Project, options: RehearseOptions) -> list[Line]:
    """The lines of the run, in order, checked against the options."""
    roles = set(project.role_names())
    for role in options.roles:
        if role not in roles:
            raise RehearseError(f"--role {role!r}: no such role (cast: {', '.join(project.role_names())})")
    strictness(options.strictness)  # ValueError names the known ones
    if options.loop < 0:
        raise RehearseError(f"--loop {options.loop}: a number of passes, 0 for until stopped")
    lines = [line for line in project.lines if line.text.strip()]
    ids = [line.id for line in lines]
    for flag, line_id in (("--from", options.from_line), ("--to", options.to_line)):
        if line_id is not None and line_id not in ids:
            raise RehearseError(f"{flag} {line_id!r}: no such line")
    first = ids.index(options.from_line) if options.from_line is not None else 0
    last = ids.index(options.to_line) if options.to_line is not None else len(ids) - 1
    if last < first:
        raise RehearseError(f"--to {options.to_line!r} comes before --from {options.from_line!r}")
    lines = lines[first:last + 1]
    if not any(line.role in options.roles for line in lines):
        raise RehearseError(f"no line of {', '.join(options.roles)} to read")
    return lines


def muted_for_reading(project: Project, roles: tuple[str, ...]) -> Project:
    """The production with the live roles silent (their clips still exist: the
    synthetic voice of a live line is how long it is expected to take)."""
    cast = [replace(r, mute=True, solo=False) if r.name in roles else r for r in project.cast]
    return replace(project, cast=cast)


class TableRead:
    def __init__(self, session: Session, reader: Reader, options: RehearseOptions,
                 say: Callable[[str], None] = lambda text: None, detector: VoiceDetector | None = None,
                 follow: Callable[[str], None] = lambda line_id: None) -> None:
        self.session = session
        self.reader = reader
        self.options = options
        self.say = say
        self.project = session.project
        self.lines = plan_lines(self.project, options)
        self.take_files = take_file_names([line.id for line in self.project.lines])
        self.detector = detector or make_detector(options.vad)
        self.strictness = strictness(options.strictness)
        self.follow = follow
        self._commands: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._stopping = threading.Event()
        self._last_pass = threading.Event()
        self._results: dict[tuple[int, str], LineResult] = {}
        self._order: list[tuple[int, str]] = []
        self._pass = 1
        self._recognize: Recognize = recognize_here  # run() sets the listening process's

    # --- keys (any thread) -------------------------------------------------------------

    def advance(self) -> None:
        self._commands.put("advance")

    def back(self) -> None:
        self._commands.put("back")

    def stop(self) -> None:
        """End the read after the line being read or played (a looped section, or enough)."""
        self._stopping.set()
        self._commands.put("advance")

    def last_pass(self) -> None:
        """End the read when this pass through the section is over."""
        self._last_pass.set()

    # --- the run (the caller's thread) -------------------------------------------------

    def run(self) -> Report:
        # Each live line is decoded in a child process: pocketsphinx holds the GIL
        # through its final pass over a line (engine/listen/listening_process.py).
        with ListeningProcess() as listening:
            self._recognize = listening.recognizer
            return self._run()

    def _run(self) -> Report:
        live = set(self.options.roles)
        read_dictionary_ahead()  # while the first replies get ready
        self.session.update(muted_for_reading(self.project, self.options.roles))
        self.session.prefetch([line.id for line in self.lines if line.role not in live])
        self.reader.start()
        report = Report(vad=self.detector.name, recognizer="manual" if self.options.manual else "pocketsphinx")
        self._pass = 1
        while not self._stopping.is_set():
            self._read_section(live, report)
            if (self.options.loop and self._pass >= self.options.loop) or self._last_pass.is_set():
                break
            self._pass += 1
            if not self._stopping.is_set():
                self.say(f"  (again from {self.lines[0].id}: pass {self._pass})")
        report.gap_basis = "recording" if any(self.reader.truth(lid) for _p, lid in self._order) else "vad"
        report.results = [self._results[key] for key in self._order]
        return report

    def _read_section(self, live: set[str], report: Report) -> None:
        pending: tuple[LineListener, Heard] | None = None  # the live line whose reply comes next
        i = 0
        while i < len(self.lines) and not self._stopping.is_set():
            line = self.lines[i]
            if line.role in live:
                if pending is not None:
                    self._close(pending[0])
                listener, i = self._read(i)
                pending = (listener, listener.heard) if listener.heard.outcome is not None else None
                continue
            j = i
            while j + 1 < len(self.lines) and self.lines[j + 1].role not in live:
                j += 1
            self._wait_ready([ln.id for ln in self.lines[i:j + 1]])
            first_sound = self._play(self.lines[i:j + 1], pending[0] if pending else None)
            if pending is not None:
                self._gap(pending[1], first_sound, report)
                self._close(pending[0])
                pending = None
            for ln in self.lines[i:j + 1]:
                self._record(LineResult(ln.id, ln.role, False, "played", pass_no=self._pass))
                self.say(f"{ln.id}  {ln.role}: {ln.text}")
            i = j + 1
        if pending is not None:
            self._close(pending[0])

    def _close(self, listener: LineListener) -> None:
        """Free the listener's recognizer; its final hearing scores the line."""
        listener.close()
        heard = listener.heard
        result = self._results.get((self._pass, heard.line_id))
        progress = heard.final or heard.progress
        if result is not None and progress is not None:
            result.score(progress)

    def _read(self, i: int) -> tuple[LineListener, int]:
        """Listen to live line ``i`` until it is over; the index to go on from."""
        line = self.lines[i]
        # The reader says the words, not the directions.
        context = [spoken_text(ln.text) for ln in self.lines[max(0, i - CONTEXT_LINES):i + CONTEXT_LINES + 1]
                   if ln is not line]
        listener = LineListener(line.id, spoken_text(line.text), self.reader.rate, self.detector, manual=self.options.manual,
                                context=context, strictness=self.strictness, recognize=self._recognize)
        self._drain()  # what the microphone heard before the cue is not this line
        self._seek_to(line.id)
        self.follow(line.id)
        self.reader.cue(line.id)
        shown = f"({len(spoken_text(line.text).split())} words, hidden)" if self.options.hide_own else line.text
        self.say(f"{line.id}  {line.role} (you): {shown}")
        while listener.heard.outcome is None:
            command = self._command()
            if command == "advance":
                listener.advance(time.monotonic())
                break
            if command == "back" and i > 0:
                self.say("  (back one line)")
                listener.close()  # its recognizer is freed; the line is read again
                return listener, i - 1
            try:
                chunk = self.reader.chunks.get(timeout=0.01)
            except queue.Empty:
                continue
            prompt = listener.take(chunk)
            if prompt:
                self.say(f"  ... {' '.join(prompt)}")
        heard = listener.heard
        if self.options.hide_own:
            self.say(f"  = {line.text}")  # the reader's line, shown once said (or missed)
        result = LineResult(line.id, line.role, True, heard.outcome.value if heard.outcome else "missed",
                            prompts=len(heard.prompts), pass_no=self._pass)
        if heard.progress is not None:
            result.score(heard.progress)  # the running hearing; the final one replaces it at close
        if heard.speech_start is not None and heard.speech_end is not None:
            result.speech_s = round(heard.speech_end - heard.speech_start, 3)
        if self.options.record is not None and heard.outcome is not Outcome.MISSED:
            try:
                path = save_take(heard, self.reader.rate, self.options.record, self.take_files[line.id])
            except OutputPathError as exc:  # the take's name holds a FIFO or a device now: the read goes on
                self.say(f"  (take not saved: {exc})")
                path = None
            result.take = str(path) if path is not None else None
        self._record(result)
        return listener, i + 1

    def _play(self, stretch: list[Line], listening: LineListener | None) -> float:
        """Play a stretch of lines; returns when the first sound was heard (monotonic).
        The line just read keeps listening until the stretch ends (false starts)."""
        player = self.session.player
        starts = {c.line_id: c.start for c in self.session.clips()}
        to_follow = [(starts[ln.id], ln.id) for ln in stretch if ln.id in starts]
        commanded = time.monotonic()
        self.session.play_lines(stretch[0].id, stretch[-1].id)
        while player.play_command_at < commanded:
            time.sleep(POLL_S)
        heard_first: float | None = None
        while True:
            player = self.session.player
            sink = player.sink.stats()
            now = time.monotonic()
            if heard_first is None and player.first_sound_counter is not None \
                    and sink.frames_played >= player.first_sound_counter:
                heard_first = now + sink.latency_s
                if listening is not None:
                    listening.replied(heard_first)
            if to_follow and player.snapshot().position_s >= to_follow[0][0] - 0.05:
                self.follow(to_follow.pop(0)[1])
            if player.hold_counter is not None and sink.frames_played >= player.hold_counter:
                break
            if listening is not None:
                self._listen_on(listening)
            time.sleep(POLL_S)
        return heard_first if heard_first is not None else time.monotonic()

    def _listen_on(self, listener: LineListener) -> None:
        while True:
            try:
                listener.take(self.reader.chunks.get_nowait())
            except queue.Empty:
                return

    def _gap(self, heard: Heard, first_sound: float, report: Report) -> None:
        result = self._results[(self._pass, heard.line_id)]
        truth = self.reader.truth(heard.line_id)
        end = truth[1] if truth is not None else heard.speech_end
        if end is None or heard.outcome is Outcome.MISSED:
            return
        result.gap_ms = round((first_sound - end) * 1000.0, 1)
        if heard.decided_at is not None:
            result.decided_ms = round((heard.decided_at - end) * 1000.0, 1)
        result.false_start = first_sound < end or heard.resumed_after_reply
        self.say(f"  reply after {result.gap_ms:.0f} ms (line over after {result.decided_ms or 0:.0f} ms)"
                 f"{' (FALSE START)' if result.false_start else ''}")

    def _wait_ready(self, line_ids: list[str]) -> None:
        """Block until these lines' clips exist (prefetched: normally at once)."""
        deadline = time.monotonic() + READY_TIMEOUT_S
        told = False
        while True:
            status = self.session.line_status()
            views = {c.line_id: c for c in self.session.clips()}
            waiting = [lid for lid in line_ids if status.get(lid) is None or status[lid].state is not LineState.READY
                       or lid not in views or views[lid].estimated]
            failed = [lid for lid in waiting if status.get(lid) is not None
                      and status[lid].state in (LineState.FAILED, LineState.NO_VOICE)]
            if failed:
                raise RehearseError(f"line {failed[0]} cannot be voiced: {status[failed[0]].error}")
            if not waiting:
                return
            if time.monotonic() > deadline:
                raise RehearseError(f"line {waiting[0]} was not voiced in {READY_TIMEOUT_S:.0f} s")
            if not told and time.monotonic() > deadline - READY_TIMEOUT_S + 1.0:
                self.say(f"  (voicing {len(waiting)} line(s) first...)")
                told = True
            time.sleep(0.01)

    def _seek_to(self, line_id: str) -> None:
        """The playhead to a live line (nothing plays: the studio shows where the read is)."""
        start = next((c.start for c in self.session.clips() if c.line_id == line_id), None)
        if start is not None:
            self.session.seek(start)

    def _record(self, result: LineResult) -> None:
        key = (result.pass_no, result.line_id)
        if key not in self._results:
            self._order.append(key)
        self._results[key] = result

    def _drain(self) -> None:
        while True:
            try:
                self.reader.chunks.get_nowait()
            except queue.Empty:
                return

    def _command(self) -> str | None:
        try:
            return self._commands.get_nowait()
        except queue.Empty:
            return None
