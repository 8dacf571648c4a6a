"""Script revisions without voices: the alignment, applying a draft, and the file format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.project.fileformat import (
    ProjectFileError,
    load_project,
    project_from_dict,
    project_to_dict,
    save_project,
)
from engine.project.model import Line, Project, Role, Scene, VoiceParams
from engine.project.revision import history_of, marks, next_revision_look, removed_lines
from engine.project.revision_align import Kind, align
from engine.project.revision_apply import revise
from engine.project.sound import SoundClip, SoundLane
from tests.support.paths import SAMPLE


def _project(lines: list[tuple[str, str]], ids: list[str] | None = None) -> Project:
    roles = sorted({role for role, _ in lines})
    return Project(
        cast=[Role(name=r, voice=VoiceParams(pitch=float(i))) for i, r in enumerate(roles)],
        scenes=[Scene("S1", "INT. KITCHEN")],
        lines=[Line(id=(ids[k] if ids else f"L{k + 1:04d}"), role=role, text=text, scene="S1")
               for k, (role, text) in enumerate(lines)],
    )


SCRIPT = [("A", "Good morning, is the kettle on?"), ("B", "Yes."), ("A", "Then pour me a cup, would you?"),
          ("B", "Yes."), ("A", "And the paper, if the boy has been."), ("B", "He has not, the rain kept him home."),
          ("A", "Then I shall read yesterday's again."), ("B", "Yes.")]


def _kinds(old: list[tuple[str, str]], new: list[tuple[str, str]]) -> list[tuple[str, tuple[int, ...], tuple[int, ...]]]:
    return [(m.kind.value, m.old, m.new) for m in align(old, new).matches]


def test_an_identical_draft_is_all_unchanged_even_with_repeated_lines():
    assert _kinds(SCRIPT, list(SCRIPT)) == [("unchanged", (i,), (i,)) for i in range(len(SCRIPT))]


def test_white_space_is_not_a_change_but_role_and_punctuation_are():
    new = [(r, "  " + t.replace(" ", "  ") + " ") for r, t in SCRIPT]
    assert all(kind == "unchanged" for kind, _, _ in _kinds(SCRIPT, new))
    new = list(SCRIPT)
    new[2] = ("A", "Then pour me a cup, would you!")
    new[4] = ("B", SCRIPT[4][1])  # the same words, said by another role
    alignment = align(SCRIPT, new)
    assert alignment.by_new()[2].kind is Kind.CHANGED
    assert 4 in alignment.added and 4 in alignment.removed


def test_a_moved_line_among_repeated_ones_is_found_where_it_went():
    new = list(SCRIPT)
    moved = new.pop(5)
    new.insert(1, moved)
    alignment = align(SCRIPT, new)
    assert alignment.by_new()[1] .kind is Kind.MOVED and alignment.by_new()[1].old == (5,)
    assert sum(m.kind is Kind.UNCHANGED for m in alignment.matches) == len(SCRIPT) - 1
    assert not alignment.added and not alignment.removed


def test_split_merge_edit_insert_and_delete_in_one_draft():
    new = list(SCRIPT)
    new[6:7] = [("A", "Then I shall read"), ("A", "yesterday's again.")]  # split
    new[4:6] = [("A", "And the paper, if the boy has been."), ("B", "He has not; the rain kept him at home.")]
    new[0:2] = [("A", "Good morning, is the kettle on? Yes.")]  # wrong roles to merge: added + removed
    new.insert(2, ("C", "Breakfast is served."))
    kinds = _kinds(SCRIPT, new)
    by_kind: dict[str, list[tuple[tuple[int, ...], tuple[int, ...]]]] = {}
    for kind, old, nw in kinds:
        by_kind.setdefault(kind, []).append((old, nw))
    assert by_kind["split"] == [((6,), (6, 7))]
    assert ((5,), (5,)) in by_kind["changed"]
    alignment = align(SCRIPT, new)
    assert 2 in alignment.added and 1 in alignment.removed


def test_two_lines_of_a_role_merged_into_one():
    old = [("A", "Where were you last night?"), ("B", "Out."), ("B", "Walking by the river."), ("A", "Alone?")]
    new = [("A", "Where were you last night?"), ("B", "Out. Walking by the river."), ("A", "Alone?")]
    assert _kinds(old, new) == [("unchanged", (0,), (0,)), ("merged", (1, 2), (1,)), ("unchanged", (3,), (2,))]


def test_revise_keeps_unchanged_lines_whole_and_voices_changed_ones_again(tmp_path: Path):
    production = _project(SCRIPT)
    production.lines[0].take, production.lines[0].takes = 7, (0, 7)
    production.lines[0].locked = VoiceParams(pitch=3.0)
    production.lines[0].start = 1.5
    production.lines[0].note = "sleepy"
    production.lines[2].recording = str(tmp_path / "take.wav")  # a person's recording of words that change
    production.lines[2].locked = VoiceParams(pitch=-2.0)
    production.lines[4].recording = str(tmp_path / "kept.wav")  # of words that stay
    new = list(SCRIPT)
    new[2] = ("A", "Then pour me a big cup, would you?")
    del new[5]
    draft = _project(new, ids=[f"D{k}" for k in range(len(new))])
    draft.cast.append(Role(name="C"))
    draft.lines.append(Line(id="D99", role="C", text="The post has come.", scene="S1"))
    revised = revise(production, draft, name="Blue Revision", date="2026-12-01", colour="#4a7bd0")
    project, report = revised.project, revised.report
    assert production.lines[2].text == SCRIPT[2][1]  # the production itself is untouched
    kept = project.line("L0001")
    assert (kept.take, kept.takes, kept.locked, kept.start, kept.note) == (7, (0, 7), VoiceParams(pitch=3.0), 1.5,
                                                                           "sleepy")
    assert project.line("L0005").recording == str(tmp_path / "kept.wav")
    changed = project.line("L0003")
    assert changed.text == new[2][1] and changed.recording is None and changed.locked is None
    assert report.flagged == [("L0003", str(tmp_path / "take.wav"))]
    [(revision, earlier)] = history_of(project, "L0003")
    assert earlier.recording == str(tmp_path / "take.wav") and earlier.text == SCRIPT[2][1]
    assert earlier.locked == VoiceParams(pitch=-2.0) and revision.flagged == ("L0003",)
    assert [line.id for _, line in removed_lines(project)] == ["L0006"]
    assert report.counts() == {"unchanged": 6, "changed": 1, "split": 0, "merged": 0, "added": 1, "removed": 1,
                               "moved": 0}
    added_id = [c.new_id for c in report.changes if c.kind == "added"][0]
    assert added_id not in {line.id for line in production.lines} and report.new_roles == ["C"]
    assert report.revoice == ["L0003", added_id] and report.revoice_seconds > 0
    assert set(marks(project)) == {"L0003", added_id}
    assert report.locks_kept == 1 and report.recordings_kept == 1 and report.takes_kept == 6
    text = "\n".join(report.text_lines())
    assert "'Then pour me a cup, would you?' -> 'Then pour me a big cup, would you?'" in text
    assert "Recording flagged: L0003" in text
    # the revised production saves and loads back with its history
    path = tmp_path / "revised.radioplay"
    save_project(project, path)
    loaded = load_project(path)
    assert loaded.revisions[0].earlier[0].recording == str(tmp_path / "take.wav")
    assert json.loads(path.read_text())["revisions"][0]["earlier"][0]["recording"] == "take.wav"
    assert project_to_dict(loaded, tmp_path) == project_to_dict(project, tmp_path)


def test_cues_still_in_the_draft_keep_the_producers_sound_and_removed_lines_move_their_clips():
    production = _project(SCRIPT)
    production.sound_lanes = [SoundLane.of_kind("effects"), SoundLane.of_kind("music")]
    fx, music = production.sound_lanes[0].name, production.sound_lanes[1].name
    production.sounds = [
        SoundClip(id="X0001", lane=fx, cue="kettle whistles", file="/s/kettle.wav", line="L0002", gain_db=-6.0),
        SoundClip(id="X0002", lane=music, cue="morning theme", file="/s/theme.wav", line="L0006"),
    ]
    new = [x for k, x in enumerate(SCRIPT) if k != 5]  # the line the theme stood before goes
    draft = _project(new, ids=[f"D{k}" for k in range(len(new))])
    draft.sound_lanes = [SoundLane.of_kind("effects")]
    draft.sounds = [SoundClip(id="X0001", lane=fx, cue="Kettle  whistles", line="D2"),
                    SoundClip(id="X0002", lane=fx, cue="door bell", line="D4")]
    revised = revise(production, draft, name="Pink Revision", date="2026-12-02", colour="#e58bb5")
    clips = {c.id: c for c in revised.project.sounds}
    assert clips["X0001"].file == "/s/kettle.wav" and clips["X0001"].gain_db == -6.0
    assert clips["X0001"].line == "L0003"  # it stands before the draft's third line now
    assert clips["X0002"].line == "L0007"  # its line left: the next line that stayed
    [bell] = [c for c in revised.project.sounds if c.cue == "door bell"]
    assert bell.id not in ("X0001", "X0002") and bell.placeholder and bell.line == "L0005"
    assert any("door bell" in note for note in revised.report.cues)
    assert any("morning theme" in note and "no longer in the draft" in note for note in revised.report.cues)
    project_from_dict(project_to_dict(revised.project))  # loads: no clip points at a line that left


def test_revision_colours_follow_the_screenwriters_order():
    project = Project()
    names = []
    for _ in range(3):
        name, colour = next_revision_look(project)
        names.append(name)
        project = revise(project, Project(), name=name, date="2026-12-01", colour=colour).project
    assert names == ["Blue Revision", "Pink Revision", "Yellow Revision"]


def test_a_version_2_file_opens_and_a_bad_revision_names_its_field(tmp_path: Path):
    sample = json.loads(SAMPLE.read_text())
    sample["format_version"] = 2  # before revisions: the sample has none, so it is a version 2 file as well
    older = tmp_path / "older.radioplay"
    older.write_text(json.dumps(sample), encoding="utf-8")
    project = load_project(older)
    assert project.revisions == []
    assert "revisions" not in project_to_dict(project)
    data = project_to_dict(project)
    data["revisions"] = [{"name": "Blue", "date": "1 Dec", "colour": "#000000"}]
    with pytest.raises(ProjectFileError, match=r"revisions\[0\]\.date: expected a day as YYYY-MM-DD"):
        project_from_dict(data, "p.radioplay")
    data["revisions"] = [{"name": "Blue", "date": "2026-12-01", "colour": "#000000",
                          "removed": [{"id": "L9", "role": "A", "text": 5}]}]
    with pytest.raises(ProjectFileError, match=r"revisions\[0\]\.removed\[0\]\.text: expected a string"):
        project_from_dict(data, "p.radioplay")
