"""``radioplay rehearse``: the table read from a terminal.

Kept out of engine/cli.py (which only registers it) so that module stays
small; nothing heavy is imported until the verb runs.

Keys (a line on standard input): Enter advances when recognition cannot,
``b`` then Enter goes back a line, ``q`` then Enter ends the read (a looped
section: after this line). With ``--manual`` lines advance only so.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path
from typing import Any

from engine.output_paths import (
    OVERWRITE_FLAG,
    TABLE_READ_REPORT,
    OutputFile,
    OutputPathError,
    in_place,
    output_file,
)
from engine.terminal_text import echo, print_error, terminal_line


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rehearse", help="table read: read roles live while the engine plays the others on cue")
    p.add_argument("project", help="project file (.radioplay)")
    p.add_argument("--role", action="append", required=True, metavar="NAME", help="a role read live (repeatable)")
    p.add_argument("--input", metavar="DEVICE", help="microphone by name (default: the system's default input)")
    p.add_argument("--from", dest="from_line", metavar="LINE_ID", help="start at this line")
    p.add_argument("--to", dest="to_line", metavar="LINE_ID", help="end with this line (included)")
    p.add_argument("--loop", type=int, default=1, metavar="N", help="read the section (--from .. --to) N times "
                   "(default 1; 0: until q then Enter)")
    p.add_argument("--strictness", choices=["loose", "normal", "strict"], default="normal",
                   help="how much of a line must be heard, and how exactly: loose (a third, words alike count, "
                   "paraphrase welcome), normal (default: half and its end), strict (85 %% and the last word, "
                   "word for word)")
    p.add_argument("--hide-own", action="store_true", help="cue your lines without their words (shown once "
                   "said or missed): test yourself")
    p.add_argument("--report", metavar="FILE", help="write the per-line accuracy report as JSON: each line "
                   "read live, its words expected and heard, accuracy, missed and extra words")
    p.add_argument("--record", metavar="DIR", help="save each live line as a recorded take in DIR, used by the "
                   "mix and the export instead of synthesis (the project file is saved with them)")
    p.add_argument(OVERWRITE_FLAG, action="store_true", help="let --report replace a file that holds something "
                   "else than a table-read report, and --record a take's name that holds something else than a WAV "
                   "(the project and the --simulate recordings never)")
    p.add_argument("--manual", action="store_true", help="advance only with the key (Enter), never by recognition")
    p.add_argument("--simulate", metavar="DIR", help="a simulated reader: DIR/<LINE_ID>.wav is read as the "
                   "microphone, starting 300 ms after each cue, in real time")
    p.add_argument("--json", action="store_true", help="print the run's figures as one JSON object")
    p.add_argument("--device", default=None, metavar="NAME|null", help="output device (default: the system's "
                   "default output; null: a silent real-time clock)")
    p.add_argument("--vad", choices=["auto", "silero", "energy"], default="auto",
                   help="voice activity detector (default auto: silero where installed)")
    p.set_defaults(func=run)


def _error(message: str) -> int:
    return print_error(message)


def check_outputs(args: argparse.Namespace, path: Path, live_ids: list[str], take_files: dict[str, str]
                  ) -> OutputFile | None:
    """``--report`` and ``--record``'s takes checked before the read starts (engine/output_paths.py):
    never the project or a recording ``--simulate`` reads, a device, a FIFO or a folder. Returns the
    report's target; raises OutputPathError."""
    inputs: list[tuple[str, str | Path]] = [("the project", path)]
    if args.simulate:
        inputs += [("a --simulate recording", Path(args.simulate) / take_files[lid]) for lid in live_ids]
    if args.record:
        from engine.rehearse.takes import check_takes

        check_takes(Path(args.record), [take_files[lid] for lid in live_ids], inputs, args.overwrite)
    if not args.report:
        return None
    return output_file(args.report, TABLE_READ_REPORT, option="--report", inputs=inputs, overwrite=args.overwrite)


def run(args: argparse.Namespace) -> int:
    from engine.project.fileformat import ProjectFileError, load_project, save_project
    from engine.rehearse.reader import MicReader, Reader, ReaderError, SimulatedReader
    from engine.rehearse.runner import RehearseError, RehearseOptions, TableRead, plan_lines
    from engine.rehearse.take_names import take_file_names
    from engine.rehearse.takes import attach_takes
    from engine.session import Session
    from engine.synth.clipfolder import CacheFolderError

    path = Path(args.project)
    try:
        project = load_project(path)
        options = RehearseOptions(tuple(args.role), args.from_line, Path(args.record) if args.record else None,
                                  args.manual, args.vad, to_line=args.to_line, loop=args.loop,
                                  strictness=args.strictness, hide_own=args.hide_own)
        lines = plan_lines(project, options)
    except (ProjectFileError, RehearseError, ValueError) as exc:
        return _error(str(exc))
    live_ids = [line.id for line in lines if line.role in options.roles]
    take_files = take_file_names([line.id for line in project.lines])
    try:  # before anything is read or played: a wrong --report fails now, not after the read
        report_file = check_outputs(args, path, live_ids, take_files)
        saved = in_place(path) if options.record is not None else None
    except OutputPathError as exc:
        return _error(str(exc))
    reader: Reader
    try:
        if args.simulate:
            reader = SimulatedReader(Path(args.simulate), project.sample_rate, live_ids, file_names=take_files)
        else:
            reader = MicReader(project.sample_rate, args.input)
    except ReaderError as exc:
        return _error(str(exc))
    out = sys.stderr if args.json else sys.stdout

    def say(text: str) -> None:  # the script's words and names: escaped, capped
        print("\n".join(terminal_line(part) for part in text.split("\n")), file=out, flush=True)

    try:
        session = Session(project, path, output=args.device, prerender=False)
    except CacheFolderError as exc:
        reader.close()
        return _error(str(exc))
    if session.audio_error and args.device not in (None, "null"):
        session.close()
        reader.close()
        return _error(session.audio_error)
    try:
        table = TableRead(session, reader, options, say)
        if args.manual or args.loop == 0 or sys.stdin.isatty():
            threading.Thread(target=_keys, args=(table, args.loop == 0), name="radioplay-keys", daemon=True).start()
        report = table.run()
    except (RehearseError, RuntimeError) as exc:
        return _error(str(exc))
    finally:
        session.close()
        reader.close()
    if saved is not None:
        takes = {r.line_id: Path(r.take) for r in report.results if r.take}
        if takes:
            try:
                save_project(attach_takes(project, takes), saved.path, guard=saved.check_again)
            except OSError as exc:
                return _error(f"cannot save {echo(path)} with the recorded takes: {exc.strerror or exc}")
            except OutputPathError as exc:
                return _error(f"cannot save the recorded takes: {exc}")
            say(f"{len(takes)} recorded take(s) in {echo(options.record)}; {echo(path)} uses them")
    if report_file is not None:
        from engine.fsutil import atomic_write_text

        try:
            atomic_write_text(report_file.path, json.dumps({**report.figures(), "lines_read": report.accuracy_lines()},
                                                           indent=2) + "\n", guard=report_file.check_again)
        except OutputPathError as exc:
            return _error(str(exc))
        except OSError as exc:
            return _error(f"--report {echo(args.report)}: {exc.strerror or exc}")
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        say(report.summary())
        say(report.accuracy_table())
    return 0


def _keys(table: Any, stop_at_end: bool) -> None:
    """Thread ``radioplay-keys``: a line on standard input is a key. At the end of the
    input a read looped until ``q`` ends with the pass it is in (nothing could stop it later)."""
    for line in sys.stdin:
        key = line.strip().lower()
        if key == "b":
            table.back()
        elif key == "q":
            table.stop()
        else:
            table.advance()
    if stop_at_end:
        table.last_pass()
