"""What `radioplay render` says when the operating system refuses a file."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from engine.export.command import render_os_error


def _refused(path: Path) -> OSError:
    """The error the system gives for reading a missing file (raised for real, not built by hand)."""
    try:
        path.open("rb")
    except OSError as exc:
        return exc
    pytest.fail(f"{path} exists")


def test_a_missing_file_outside_the_output_is_not_blamed_on_the_output(tmp_path: Path) -> None:
    data = tmp_path / "site-packages" / "pyroomacoustics" / "data" / "materials.json"
    message = render_os_error(_refused(data), Path("show.radioplay"), tmp_path / "out")
    assert message == f"show.radioplay: cannot render: No such file or directory: {data}"
    assert "export" not in message


def test_a_file_in_the_output_folder_is(tmp_path: Path) -> None:
    out = tmp_path / "out"
    inside = out / "stems" / "MAGGIE.wav"
    message = render_os_error(_refused(inside), Path("show.radioplay"), out)
    assert message == f"cannot write the export to {out}: No such file or directory ({inside})"


def test_a_relative_output_folder_is_matched_after_resolving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    inside = Path("out") / "mix.wav"
    message = render_os_error(_refused(tmp_path / inside), Path("show.radioplay"), Path("out"))
    assert message.startswith("cannot write the export to out: ")


def test_an_error_without_a_file_names_the_output() -> None:
    full = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    assert render_os_error(full, Path("show.radioplay"), Path("out")) == (
        "cannot write the export to out: No space left on device")
