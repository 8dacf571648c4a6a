"""File names from names in a user's file (issue 20, item 3): one safe file
per role, nothing outside the output folder, collisions numbered and reported."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cli import main
from engine.export.names import MAX_NAME_BYTES, safe_stem, unique_file_names
from engine.export.render import render_project
from engine.project.fileformat import load_project, save_project
from engine.project.model import Line, Project, Role, Scene, VoiceParams
from tests.support.render import synth_for

# Names that sanitize alike (the hostile pass found 19 roles making 11 stems).
HOSTILE = ["A B", "A_B", "A/B", "../../evil", "evil", "/abs", "abs", "a\0b", "a b", "🎭", "...", "role",
           "CON", "con.wav", "NUL", ".hidden", "hidden", "ANNA", "anna"]


def _valid_file_name(file: str) -> bool:
    return ("/" not in file and "\\" not in file and "\0" not in file and not file.startswith(".")
            and file not in (".", "..") and len(file.encode()) <= MAX_NAME_BYTES + len(".wav"))


@pytest.mark.parametrize(("name", "stem"), [
    ("MR. HOLLIS", "MR._HOLLIS"), ("../../evil", "evil"), ("/abs", "abs"), ("a\0b", "a_b"),
    ("🎭", "role"), ("...", "role"), (".hidden", "hidden"), ("CON", "CON_"), ("com1", "com1_"),
    ("nul.txt", "nul_.txt"), ("  Ana  ", "Ana"), ("C:\\x", "C_x"), ("Zoë", "Zoë"),
])
def test_safe_stem(name: str, stem: str) -> None:
    assert safe_stem(name) == stem


def test_long_names_are_cut_on_a_character_boundary() -> None:
    stem = safe_stem("é" * 300)
    assert len(stem.encode()) <= MAX_NAME_BYTES and stem == "é" * (MAX_NAME_BYTES // 2)
    assert len(safe_stem("x" * 5000).encode()) == MAX_NAME_BYTES


def test_names_that_sanitize_alike_get_numbered_files_in_cast_order() -> None:
    files = unique_file_names(HOSTILE, ".wav")
    assert [f.file for f in files][:5] == ["A_B.wav", "A_B-2.wav", "A_B-3.wav", "evil.wav", "evil-2.wav"]
    folded = [f.file.casefold() for f in files]
    assert len(set(folded)) == len(HOSTILE)  # also distinct where the file system folds case
    assert all(_valid_file_name(f.file) for f in files)
    assert files[1].shared_with == "A B" and files[0].shared_with is None
    assert files == unique_file_names(HOSTILE, ".wav")  # deterministic


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=300), min_size=1, max_size=12, unique=True))
def test_any_names_make_distinct_plain_file_names(names: list[str]) -> None:
    files = [f.file for f in unique_file_names(names, ".wav")]
    assert all(_valid_file_name(f) for f in files), files
    folded = {unicodedata.normalize("NFC", unicodedata.normalize("NFD", f).casefold()) for f in files}
    assert len(folded) == len(names)


def _hostile_project(voice: Path, names: list[str]) -> Project:
    project = Project(title="Hostile", sample_rate=48_000, scenes=[Scene("S1", "A room")])
    for i, name in enumerate(names):
        project.cast.append(Role(name=name, voice=VoiceParams(voice=str(voice), pitch=float(i % 5))))
        project.lines.append(Line(id=f"L{i + 1:04d}", role=name, scene="S1", text=f"Line {i + 1} here."))
    return project


def test_hostile_role_names_render_one_stem_each_inside_the_folder(tmp_path, tiny_voices, capsys):
    project_path = tmp_path / "work" / "hostile.radioplay"
    project_path.parent.mkdir()
    save_project(_hostile_project(tiny_voices["single"], HOSTILE), project_path)
    outdir = tmp_path / "work" / "out" / "deep"
    before = {p for p in tmp_path.rglob("*")}
    assert main(["render", str(project_path), "-o", str(outdir)]) == 0
    printed = capsys.readouterr().out
    stems = sorted((outdir / "stems").iterdir())
    assert len(stems) == len(HOSTILE)
    listed = [line.strip() for line in printed.splitlines() if line.strip().startswith(f"{outdir}/")]
    assert len(listed) == len(set(listed)) == len(HOSTILE) + 6  # mix, dme/DX, captions, cues, report, a stem per role
    assert "note: role 'A_B' makes the same file name as 'A B': its stem is stems/A_B-2.wav" in printed
    made = {p for p in tmp_path.rglob("*")} - before
    outside = [p for p in made if p.is_file() and outdir not in p.parents
               and not any(part.endswith("-cache") for part in p.parts)]
    assert outside == []
    # Each stem holds its own role's line: no role's stem was overwritten by another's.
    project = load_project(project_path)
    report = render_project(project, synth_for(project_path), tmp_path / "again")
    energies = []
    for role in project.cast:
        audio, _ = sf.read(report.stems[role.name], dtype="float32")
        energies.append(float(np.abs(audio).max()))
    assert min(energies) > 0.01
    assert sorted(report.stems.values()) == sorted(p for p in report.files if "stems" in p.parts)


def test_a_role_name_too_long_for_a_file_name_renders(tmp_path, tiny_voices, capsys):
    long_name = "THE " + "VERY " * 120 + "LONG ROLE"
    project_path = tmp_path / "long.radioplay"
    save_project(_hostile_project(tiny_voices["single"], [long_name, "B"]), project_path)
    assert main(["render", str(project_path), "-o", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    names = sorted(p.name for p in (tmp_path / "out" / "stems").iterdir())
    assert len(names) == 2 and all(len(n.encode()) <= MAX_NAME_BYTES + 4 for n in names)
    assert not [p for p in (tmp_path / "out").rglob("*") if re.search(r"\.part$|^\.radioplay-export-", p.name)]
