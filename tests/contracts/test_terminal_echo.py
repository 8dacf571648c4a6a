"""Issue 57, "raw text echoed to the terminal": what a file or an argument holds reaches
the terminal escaped and capped (engine/terminal_text.py), whichever verb quotes it."""

from __future__ import annotations

import json
import re

import pytest

from engine.cli import main
from engine.terminal_text import echo, terminal_line
from tests.support.hostile import project_file

# Anything a terminal acts on: C0 controls but tab and the message's own line end, DEL, C1.
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
HOSTILE = "\x00\x1b[2J\x1b]0;pwned\x07\r\nfake: ok\u202e"


def test_echo_escapes_every_control_and_caps_with_the_length():
    shown = echo("x" * 1_000_000 + HOSTILE)
    assert shown == "x" * 120 + f"\u2026 ({1_000_000 + len(HOSTILE):,} characters)"
    assert echo(HOSTILE) == "\\x00\\x1b[2J\\x1b]0;pwned\\x07\\r\\nfake: ok\\u202e"
    assert terminal_line("a\tb\x1b") == "a\tb\\x1b" and echo("plain words") == "plain words"


def test_an_unknown_design_key_of_a_megabyte_is_one_short_escaped_line(tmp_path, tiny_voices, capsys):
    path = project_file(tmp_path, tiny_voices["single"])
    data = json.loads(path.read_text())
    data["cast"][0]["voice"]["design"] = {"x" * (1 << 20) + HOSTILE: 1}
    data["cast"][0]["name"] = data["lines"][0]["role"] = "ANNA\x1b[31m\x07"
    path.write_text(json.dumps(data))
    for verb in (["render", str(path), "-o", str(tmp_path / "out")], ["check", str(path)], ["lexicon", str(path)]):
        assert main(verb) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and len(err) < 1000, len(err)
        assert not RAW.search(err.rstrip("\n")), repr(err[:300])
        assert "unknown design field" in err and "(1,048," in err and "\\x1b[31m\\x07" in err
    assert not (tmp_path / "out").exists()


def test_role_names_with_esc_and_bel_are_printed_escaped_by_import(tmp_path, capsys):
    script = tmp_path / "esc.fountain"
    script.write_text("INT. ROOM\n\n@Sue\x1b[31m\x07\nHello there.\n\nBOB\nHi.\n")
    assert main(["import", str(script), "-o", str(tmp_path / "esc.radioplay")]) == 0
    out = capsys.readouterr().out
    assert "Sue\\x1b[31m\\x07" in out
    assert not RAW.search(out.replace("\n", ""))


def test_revise_reports_the_drafts_words_escaped(tmp_path, capsys):
    from engine.project.fileformat import save_project
    from engine.synth.production_import import import_production
    from tests.support.revisions import HELD_OUT_SCRIPT, write_script

    path = tmp_path / "p.radioplay"
    save_project(import_production(write_script(tmp_path / "d1.txt", HELD_OUT_SCRIPT),
                                   suggest=lambda roles, lines, spoken: {}).project, path)
    lines = list(HELD_OUT_SCRIPT)
    lines[1] = lines[1] + " \x1b[2J\x07"
    assert main(["revise", str(path), str(write_script(tmp_path / "d2.txt", lines)), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "1 changed" in out and not RAW.search(out.replace("\n", ""))


@pytest.mark.parametrize("junk", [b"\x00tail", b"\x1b[31mred", b"\x01"])
def test_a_bad_authorization_header_is_400_and_never_quoted_back(tmp_path, tiny_voices, junk):
    from tests.support.hostile import raw_http, serving

    token = "s3cret-token-of-issue-57"
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    with serving(project_file(tmp_path, tiny_voices["single"]), token_file=token_file) as server:
        status, body = raw_http(server.port, b"GET /roles HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                                + token.encode() + junk + b"\r\n\r\n")
    assert status == 400
    assert json.loads(body) == {"error": "malformed request: invalid header value char", "field": None}
    assert b"s3cret" not in body and b"Authorization" not in body
