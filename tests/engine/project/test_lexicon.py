"""The pronunciation lexicon (issue 14): per-role entries, PLS and CSV files,
bad entries. Real files, the real frontend and the tiny generated voices."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.project.fileformat import (
    ProjectFileError,
    load_project,
    project_from_dict,
    project_to_dict,
    save_project,
)
from engine.project.lexicon_io import (
    Entry,
    LexiconFileError,
    entries_of,
    merged,
    read_csv,
    read_lexicon,
    read_pls,
    write_csv,
    write_lexicon,
    write_pls,
)
from engine.project.model import Project
from engine.synth.errors import TextError
from engine.synth.frontend import prepare
from engine.synth.lexicon_check import entry_problem, phoneme_problem
from engine.synth.pipeline import plan_line
from engine.synth.synthesizer import ClipSynthesizer
from tests.support.projects import tiny_project

PLS_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n<lexicon version="1.0" '
            'xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-GB">\n')


@pytest.fixture
def project(tiny_voices: dict[str, Path]) -> Project:
    project = tiny_project(tiny_voices["single"], roles=2, lines_per_role=2)
    project.lines[0].text = "Llanfair is far."   # ROLE0
    project.lines[1].text = "Llanfair again."    # ROLE1
    project.lines[2].text = "Nothing to see."    # ROLE0
    project.lines[3].text = "Penrose, Llanfair."  # ROLE1
    project.lexicon = {"Llanfair": "Clan vire"}
    return project


# ------------------------------------------------------------ per-role entries


def test_a_roles_entry_wins_over_the_projects_for_its_lines_only(project: Project) -> None:
    project.cast[1].lexicon = {"llanfair": "Thlan vire"}
    assert prepare("Llanfair!", project.lexicon_for("ROLE0")).normalized == "Clan vire!"
    assert prepare("Llanfair!", project.lexicon_for("ROLE1")).normalized == "Thlan vire!"
    # Longest first across both layers: the project's "New York" beats the role's "York".
    project.lexicon["New York"] = "Noo Yawk"
    project.cast[1].lexicon["York"] = "Yoik"
    assert prepare("New York, York.", project.lexicon_for("ROLE1")).normalized == "Noo Yawk, Yoik."


def test_a_role_entry_changes_the_keys_of_that_roles_lines_that_use_it(project: Project,
                                                                        tiny_synth: ClipSynthesizer) -> None:
    before = {line.id: plan_line(tiny_synth, project, line).key for line in project.lines}
    project.cast[1].lexicon = {"Llanfair": "Thlan vire"}
    after = {line.id: plan_line(tiny_synth, project, line).key for line in project.lines}
    changed = {lid for lid in before if before[lid] != after[lid]}
    assert changed == {"L0002", "L0004"}  # ROLE1's lines that say Llanfair


def test_role_lexicons_round_trip_and_old_files_load(tmp_path: Path, project: Project) -> None:
    project.cast[0].lexicon = {"Penrose": "[[pˈɛnɹoʊz]]"}
    path = tmp_path / "p.radioplay"
    save_project(project, path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["cast"][0]["lexicon"] == {"Penrose": "[[pˈɛnɹoʊz]]"}
    assert "lexicon" not in saved["cast"][1]  # no role entries: the role reads as before
    again = load_project(path)
    assert again.cast[0].lexicon == {"Penrose": "[[pˈɛnɹoʊz]]"} and again.cast[1].lexicon == {}
    old = project_to_dict(project)
    del old["cast"][0]["lexicon"]
    assert project_from_dict(old).cast[0].lexicon == {}


def test_a_bad_role_entry_in_the_file_names_its_place(project: Project) -> None:
    data = project_to_dict(project)
    data["cast"][1]["lexicon"] = {"Penrose": ""}
    with pytest.raises(ProjectFileError, match=re.escape(
            "<memory>: cast[1].lexicon.Penrose: expected a non-empty respelling or [[phonemes]]")):
        project_from_dict(data)


# ------------------------------------------------------------ PLS and CSV


def test_pls_round_trip_keeps_respellings_and_phonemes(tmp_path: Path) -> None:
    entries = [Entry("Llanfair", "Clan vire"), Entry("Penrose", "[[pˈɛnɹoʊz]]"), Entry("AT&T", "A T and T <x>")]
    path = tmp_path / "out.pls"
    assert write_pls(path, entries) == 3
    text = path.read_text(encoding="utf-8")
    assert 'alphabet="ipa"' in text and "<phoneme>pˈɛnɹoʊz</phoneme>" in text and "AT&amp;T" in text
    assert read_pls(path, phoneme_problem) == entries
    assert not list(tmp_path.glob(".*part"))  # written under a temporary name, then renamed


def test_pls_from_another_tool_several_graphemes_first_pronunciation_wins(tmp_path: Path) -> None:
    path = tmp_path / "in.pls"
    path.write_text(PLS_HEAD + """
  <lexeme><grapheme>W3C</grapheme><grapheme>w3c</grapheme>
    <alias>World Wide Web Consortium</alias><alias>ignored</alias></lexeme>
  <lexeme><grapheme>tomato</grapheme><phoneme>təmˈɑːtoʊ</phoneme></lexeme>
</lexicon>""", encoding="utf-8")
    assert read_lexicon(path, phoneme_problem) == [
        Entry("W3C", "World Wide Web Consortium"), Entry("w3c", "World Wide Web Consortium"),
        Entry("tomato", "[[təmˈɑːtoʊ]]")]


@pytest.mark.parametrize(("body", "message"), [
    ('<lexeme><grapheme>Tom</grapheme><phoneme alphabet="x-sampa">t@m</phoneme></lexeme>',
     "line 4: lexeme 'Tom': phoneme: alphabet 'x-sampa' cannot be converted to the voices' phonemes"),
    ("<lexeme><grapheme>Tom</grapheme><phoneme>t@m</phoneme></lexeme>",
     "line 4: lexeme 'Tom': phoneme: '@' (U+0040) is not a phoneme of espeak-ng's IPA"),
    ("<lexeme><grapheme> </grapheme><alias>x</alias></lexeme>",
     "line 4: lexeme: grapheme: a lexeme needs a non-empty <grapheme>"),
    ("<lexeme><grapheme>Tom</grapheme></lexeme>", "line 4: lexeme 'Tom': needs an <alias> or a <phoneme>"),
    ("<lexeme><grapheme>Tom</grapheme><alias>x</alias>", "line 5: not well-formed XML (mismatched tag)"),
])
def test_bad_pls_is_one_line_naming_the_line_and_lexeme(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "bad.pls"
    path.write_text(PLS_HEAD + "\n" + body + "\n</lexicon>\n", encoding="utf-8")
    with pytest.raises(LexiconFileError) as info:
        read_pls(path, phoneme_problem)
    assert str(info.value).startswith(f"{path}: {message}") and "\n" not in str(info.value)


@pytest.mark.parametrize("doctype", [
    # billion laughs: never expanded
    '<!DOCTYPE lexicon [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>',
    # an external entity: never read
    '<!DOCTYPE lexicon [<!ENTITY secret SYSTEM "file:///etc/passwd">]>',
    '<!DOCTYPE lexicon SYSTEM "http://127.0.0.1:9/pls.dtd">',
])
def test_hostile_pls_is_refused_before_any_entity_is_expanded(tmp_path: Path, doctype: str) -> None:
    path = tmp_path / "hostile.pls"
    path.write_text('<?xml version="1.0"?>\n' + doctype + "\n" + PLS_HEAD.split("\n", 1)[1]
                    + "<lexeme><grapheme>x</grapheme><alias>&d;&secret;</alias></lexeme></lexicon>", encoding="utf-8")
    with pytest.raises(LexiconFileError, match=r"line 2: a document type declaration \(<!DOCTYPE>\) is not allowed"):
        read_pls(path)


def test_an_undeclared_entity_and_a_foreign_root_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.pls"
    path.write_text(PLS_HEAD + "<lexeme><grapheme>x</grapheme><alias>&secret;</alias></lexeme></lexicon>")
    with pytest.raises(LexiconFileError, match="not well-formed XML \\(undefined entity\\)"):
        read_pls(path)
    path.write_text('<lexicon version="1.0"><lexeme/></lexicon>')
    with pytest.raises(LexiconFileError, match="line 1: not a PLS lexicon: the root is <lexicon>"):
        read_pls(path)


def test_csv_round_trip_with_roles_and_quoting(tmp_path: Path) -> None:
    entries = [Entry("Llanfair", "Clan vire"), Entry("Smith, Jr.", 'Smith "junior"', "ROLE1"),
               Entry("Penrose", "[[pˈɛnɹoʊz]]")]
    path = tmp_path / "lex.csv"
    assert write_csv(path, entries) == 3
    assert path.read_text(encoding="utf-8").splitlines()[0] == "word,say,role"
    assert read_csv(path, phoneme_problem) == entries
    # Two columns are enough; a spreadsheet's byte-order mark is fine.
    path.write_bytes("\ufeffword,say\nTom,Thom\n\n".encode())
    assert read_lexicon(path) == [Entry("Tom", "Thom")]


@pytest.mark.parametrize(("text", "message"), [
    ("words,say\nTom,Thom\n", 'line 1: expected the header "word,say" or "word,say,role"'),
    ("word,say\n ,Thom\n", "line 2: word: is empty"),
    ("word,say\nTom,\n", "line 2: say: 'Tom' has nothing to say"),
    ("word,say\nTom,Thom,ROLE1\n", "line 2: 3 fields, the header has 2"),
    ("word,say,role\nA,b\nTom,[[t@m]]\n", "line 3: say: 'Tom': '@' (U+0040) is not a phoneme"),
])
def test_bad_csv_is_one_line_naming_the_line_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LexiconFileError) as info:
        read_csv(path, phoneme_problem)
    assert str(info.value).startswith(f"{path}: {message}")


def test_pls_export_keeps_project_entries_and_csv_keeps_all(tmp_path: Path, project: Project) -> None:
    project.cast[1].lexicon = {"Llanfair": "Thlan vire"}
    assert write_lexicon(tmp_path / "a.pls", entries_of(project)) == 1
    assert write_lexicon(tmp_path / "a.csv", entries_of(project)) == 2
    with pytest.raises(LexiconFileError, match="unknown lexicon format '.txt'"):
        write_lexicon(tmp_path / "a.txt", [])


def test_merging_imported_entries_replaces_the_same_word_in_its_scope(project: Project) -> None:
    lexicon, roles = merged(project, [Entry("LLANFAIR", "Hlan vire"), Entry("Tom", "Thom", "ROLE0")])
    assert lexicon == {"LLANFAIR": "Hlan vire"} and roles == {"ROLE0": {"Tom": "Thom"}}
    assert project.lexicon == {"Llanfair": "Clan vire"}  # the project is left alone
    with pytest.raises(LexiconFileError, match="entry 'Tom': role 'NOBODY' is not in the cast"):
        merged(project, [Entry("Tom", "Thom", "NOBODY")])


# ------------------------------------------------------------ bad entries


@pytest.mark.parametrize(("word", "say", "problem"), [
    ("", "x", "the word is empty"),
    ("Tom", "  ", "say is empty"),
    ("Tom", "...!", "the respelling '...!' says nothing"),
    ("Tom", "<break/> [sighs]", "says nothing"),
    ("Tom", "[[t@m]]", "'@' (U+0040) is not a phoneme of espeak-ng's IPA"),
    ("Tom", "[[ ]]", "the phoneme block is empty"),
    ("Tom", "[[tˈɑm", "an unclosed [[ or ]]"),
])
def test_bad_entries_say_what_is_wrong(word: str, say: str, problem: str) -> None:
    assert problem in (entry_problem(word, say) or "")


@pytest.mark.parametrize("say", ["Thom", "[[tˈɑm]]", "Tom [[ɡɹˈeɪ]]", "T. O. M."])
def test_good_entries_have_no_problem(say: str) -> None:
    assert entry_problem("Tom", say) is None


def test_a_line_using_a_bad_entry_fails_alone_with_the_entry_named(project: Project,
                                                                   tiny_synth: ClipSynthesizer) -> None:
    project.cast[1].lexicon = {"Penrose": "[[p@nrose]]"}
    with pytest.raises(TextError, match=r"^lexicon entry 'Penrose': '@' \(U\+0040\) is not a phoneme"):
        plan_line(tiny_synth, project, project.lines[3])
    for line in project.lines[:3]:
        plan_line(tiny_synth, project, line)


# ------------------------------------------------------------ radioplay lexicon


def test_the_lexicon_verb_imports_exports_and_lists_bad_entries(tmp_path: Path, project: Project,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from engine.cli import main

    path = tmp_path / "p.radioplay"
    save_project(project, path)
    names = tmp_path / "names.csv"
    names.write_text("word,say,role\nPenrose,[[pˈɛnɹoʊz]],ROLE1\nfar,?!,\n", encoding="utf-8")
    assert main(["lexicon", str(path), "--import", str(names), "--export", str(tmp_path / "out.pls")]) == 0
    saved = load_project(path)
    assert saved.lexicon == {"Llanfair": "Clan vire", "far": "?!"}
    assert saved.cast[1].lexicon == {"Penrose": "[[pˈɛnɹoʊz]]"}
    assert [e.word for e in read_pls(tmp_path / "out.pls")] == ["Llanfair", "far"]
    capsys.readouterr()
    assert main(["lexicon", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "far\t?!\tProject\tthe respelling '?!' says nothing" in out and "3 entries, 1 bad" in err
    names.write_text("word,say,role\nTom,Thom,NOBODY\n", encoding="utf-8")
    assert main(["lexicon", str(path), "--import", str(names)]) == 1
    assert capsys.readouterr().err.strip() == "radioplay: error: entry 'Tom': role 'NOBODY' is not in the cast"


def test_a_phoneme_entry_reaches_a_kokoro_voice_as_phonemes(tmp_path: Path) -> None:
    """Kokoro phonemizes with espeak-ng, which reads ``[[...]]`` as its own ASCII phoneme
    names: an IPA entry came out spelled ("pee stress open..."). The block is IPA already."""
    from engine.project.model import VoiceParams
    from engine.synth.cache import ClipCache
    from engine.synth.library import VoiceLibrary
    from tests.support.voices.generate_test_kokoro import generate_kokoro

    generate_kokoro(tmp_path / "voices")
    synth = ClipSynthesizer(VoiceLibrary(user_dir=tmp_path / "voices"), 48_000, ClipCache(tmp_path / "cache"))
    params = VoiceParams(voice="af_alpha", backend="kokoro")
    plan = synth.plan("Hello Penrose, how are you?", params, {"Penrose": "[[pˈɛnɹoʊz]]"})
    spoken = " ".join(unit.phonemes for unit in synth.phonemize(plan))
    assert "stɹˈɛs" not in spoken and "pˈɛnɹOz" in spoken  # Kokoro writes espeak's oʊ as O
    # One sentence, as without the entry: the block does not cut it.
    assert len(synth.phonemize(plan)) == len(synth.phonemize(synth.plan("Hello Penrose, how are you?", params)))
