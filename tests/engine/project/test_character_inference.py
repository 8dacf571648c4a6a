"""Who each role is, read from the script: one test per kind of evidence, the
evidence named, the producer's choice kept, and the project file keeping it."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.project.casting import infer_characters
from engine.project.fileformat import (
    ProjectFileError,
    load_project,
    project_from_dict,
    project_to_dict,
    save_project,
)
from engine.project.importers.build import import_script
from engine.project.model import Character


def _import(tmp_path: Path, text: str, suffix: str = ".fountain") -> dict[str, Character]:
    script = tmp_path / f"play{suffix}"
    script.write_text(text, encoding="utf-8")
    project, _ = import_script(script)
    return infer_characters(project)


def test_a_title_in_the_cue_gives_gender_and_age(tmp_path: Path) -> None:
    cast = _import(tmp_path, "MRS. PIKE: Tea?\nSIR ROGER: Please.\nGRANDMA: Two sugars.\nGRANDPA: None for me.\n",
                   ".txt")
    assert (cast["MRS. PIKE"].gender, cast["SIR ROGER"].gender) == ("female", "male")
    assert (cast["GRANDMA"].gender, cast["GRANDMA"].age) == ("female", "older")
    assert (cast["GRANDPA"].gender, cast["GRANDPA"].age) == ("male", "older")
    assert "title Mrs" in cast["MRS. PIKE"].evidence


def test_a_character_introduction_in_the_action_gives_age_and_gender(tmp_path: Path) -> None:
    cast = _import(tmp_path, """INT. KITCHEN - DAY

MARGARET (60s) stirs a pot. ROSIE, a girl of nine, watches. KIT (8) hides under the table. The
stranger, VAUGHAN, a tall man in a wet coat, waits at the door.

MARGARET
Sit down, both of you.

ROSIE
Yes, Gran.

KIT
Do I have to?

VAUGHAN
I'll wait.
""")
    assert cast["MARGARET"].age == "older"
    assert "MARGARET (60s)" in cast["MARGARET"].evidence
    assert (cast["ROSIE"].gender, cast["ROSIE"].age) == ("female", "child")
    assert cast["KIT"].age == "child"
    assert cast["VAUGHAN"].gender == "male"
    assert "a tall man" in cast["VAUGHAN"].evidence


def test_kinship_words_before_a_name_give_gender(tmp_path: Path) -> None:
    # Neither name is in the name dictionary: only the words around them can tell.
    cast = _import(tmp_path, "ZORBIN: Where is my daughter Quessa?\nQUESSA: Here, father.\n"
                             "QUESSA: Have you seen my brother Zorbin?\n", ".txt")
    assert (cast["QUESSA"].gender, cast["QUESSA"].age) == ("female", "child")
    assert "my daughter Quessa" in cast["QUESSA"].evidence
    assert cast["ZORBIN"].gender == "male"


def test_pronouns_after_a_name_in_the_action_give_gender(tmp_path: Path) -> None:
    cast = _import(tmp_path, """INT. OFFICE - NIGHT

Threlkeld looks up. She closes the ledger.

THRELKELD
We are closed.

Vossmer shrugs. He sits anyway.

VOSSMER
I'll wait.
""")
    assert cast["THRELKELD"].gender == "female"
    assert cast["VOSSMER"].gender == "male"
    assert "pronouns after the name" in cast["VOSSMER"].evidence


def test_an_unnamed_person_brought_on_just_before_a_first_line_is_that_role(tmp_path: Path) -> None:
    # Neither name says who: the narrator's line just before each first line does.
    cast = _import(tmp_path, "NARRATOR: The door banged open. A woman in a dripping coat stood there.\n"
                             "DR. QUILLEN: Don't switch off!\n"
                             "NARRATOR: Behind her, an old man leaned on a stick.\n"
                             "DR. QUILLEN: Come in, come in.\n"
                             "VOSK: Thank you.\n"
                             "TARRANT: (a girl of nine, breathless) Wait for me!\n"
                             "NARRATOR: A man walked past outside.\n"
                             "DR. QUILLEN: Who was that?\n", ".txt")
    assert cast["DR. QUILLEN"].gender == "female"
    assert "brought on just before the first line" in cast["DR. QUILLEN"].evidence
    assert "'A woman'" in cast["DR. QUILLEN"].evidence
    # VOSK first speaks after a line of DR. QUILLEN's, not the narrator's: the old man is not his.
    assert cast["VOSK"] == Character()
    assert (cast["TARRANT"].gender, cast["TARRANT"].age) == ("female", "child")


def test_a_first_name_from_the_name_dataset_gives_gender(tmp_path: Path) -> None:
    cast = _import(tmp_path, "MARGARET: Hello.\nEDMUND: Good evening.\nBLORP: Beep.\n", ".txt")
    assert cast["MARGARET"].gender == "female" and cast["EDMUND"].gender == "male"
    assert "gender-guesser" in cast["MARGARET"].evidence
    assert cast["BLORP"] == Character()  # nothing to go on: unknown, no evidence claimed


def test_stronger_evidence_wins_and_the_producer_choice_is_kept(tmp_path: Path) -> None:
    script = tmp_path / "play.fountain"
    # "Sam" reads male in the dataset, but the introduction says a girl of ten.
    script.write_text("INT. ROOM - DAY\n\nSAM, a girl of ten, reads.\n\nSAM\nListen.\n\nDAVID\nGo on.\n",
                      encoding="utf-8")
    project, _ = import_script(script)
    sam = infer_characters(project)["SAM"]
    assert (sam.gender, sam.age) == ("female", "child")
    assert sam.evidence.startswith("introduced in scene")
    project.role("DAVID").character = Character(gender="female", age="older", evidence="set by the producer",
                                                by_producer=True)
    assert infer_characters(project)["DAVID"] == project.role("DAVID").character


def test_the_project_file_keeps_the_character_and_names_a_bad_field(tmp_path: Path) -> None:
    script = tmp_path / "play.txt"
    script.write_text("MRS. PIKE: Tea?\n", encoding="utf-8")
    project, _ = import_script(script)
    project.cast[0].character = infer_characters(project)["MRS. PIKE"]
    save_project(project, tmp_path / "p.radioplay")
    assert load_project(tmp_path / "p.radioplay").cast[0].character == project.cast[0].character
    data = project_to_dict(project)
    data["cast"][0]["character"]["gender"] = "robot"
    with pytest.raises(ProjectFileError, match=r"cast\[0\]\.character\.gender.*robot"):
        project_from_dict(data, "p.radioplay")


# Each common form of introduction, in a small script of its own (issues 51, 52): the role, who
# the script says it is, and a piece of the evidence that must be named.
INTRODUCTIONS = {
    "name surname (70s)": ("INT. KITCHEN - DAY\n\nELSIE MORGAN (70s), the lighthouse keeper, pours tea.\n\n"
                           "ELSIE\nSit down.\n", "ELSIE", "female", "older", "ELSIE MORGAN (70s)"),
    "name surname (40s), a fisherman": ("EXT. HARBOUR - DAWN\n\nKIRRAN MACLEOD (40s), a fisherman, coils a rope."
                                        "\n\nKIRRAN\nFetch the box.\n", "KIRRAN", "male", "adult", "a fisherman"),
    "name, 70,": ("INT. HALL - DAY\n\nQUORLE, 70, sits by the fire.\n\nQUORLE\nWho's there?\n",
                  "QUORLE", "", "older", "QUORLE, 70"),
    "name, a woman in her seventies": ("INT. HALL - DAY\n\nVORLA, a woman in her seventies, knits.\n\nVORLA\nWell?\n",
                                       "VORLA", "female", "older", "in her seventies"),
    "name (late 60s)": ("INT. HALL - DAY\n\nBRANNOCK (late 60s) dozes.\n\nBRANNOCK\nHm?\n",
                        "BRANNOCK", "", "older", "late 60s"),
    "name, aged 9,": ("INT. HALL - DAY\n\nPIMLO, aged 9, hides.\n\nPIMLO\nBoo!\n", "PIMLO", "", "child", "aged 9"),
    "name, a nine-year-old boy": ("INT. HALL - DAY\n\nPIMLO, a nine-year-old boy, hides.\n\nPIMLO\nBoo!\n",
                                  "PIMLO", "male", "child", "nine-year-old boy"),
    "name, a man in his eighties": ("EXT. PIER - DAY\n\nTAMSO, a man in his eighties with a pipe, watches.\n\n"
                                    "TAMSO\nRain.\n", "TAMSO", "male", "older", "in his eighties"),
    "my name is ..., I am nine": ("ZAXI: My name is Zaxi Parker, I am nine years old, and this is my story.\n"
                                  "HOST: Welcome back.\n", "ZAXI", "", "child", "I am nine years old"),
    "I'm seventy": ("GROBB: I'm seventy, and I've never seen a storm like it.\n", "GROBB", "", "older",
                    "I'm seventy"),
    "I'm an old man": ("GROBB: I'm an old man now, lad.\n", "GROBB", "male", "older", "an old man"),
    "someone is twelve": ("ZAXI: My brother Quen is twelve and knows everything.\nQUEN: I do.\n",
                          "QUEN", "male", "child", "Quen is twelve"),
}


@pytest.mark.parametrize(("script", "name", "gender", "age", "evidence"), INTRODUCTIONS.values(),
                         ids=INTRODUCTIONS.keys())
def test_every_common_form_of_introduction(tmp_path: Path, script: str, name: str, gender: str, age: str,
                                           evidence: str) -> None:
    cast = _import(tmp_path, script, ".fountain" if script.startswith(("INT.", "EXT.")) else ".txt")
    assert (cast[name].gender, cast[name].age) == (gender, age), cast[name].evidence
    assert evidence in cast[name].evidence


def test_a_number_that_is_no_age_and_a_quoted_age_are_not_read() -> None:
    from engine.project.model import Line, Project, Role

    project = Project(cast=[Role(name="ZORRIK"), Role(name="NARRATOR")],
                      lines=[Line(id="L1", role="ZORRIK", text="I'm nine minutes late, sorry."),
                             Line(id="L2", role="NARRATOR", text='The girl said, "I am nine years old."')])
    cast = infer_characters(project)
    assert cast["ZORRIK"].age == "" and cast["NARRATOR"].age == ""


def test_titles_of_a_job_carry_no_gender(tmp_path: Path) -> None:
    cast = _import(tmp_path, "HOST: Welcome back.\nDOCTOR: Next.\nCAPTAIN: Hard a-port.\nDR PATEL: Sit.\n", ".txt")
    for name in ("HOST", "DOCTOR", "CAPTAIN", "DR PATEL"):
        assert cast[name].gender == "", (name, cast[name].evidence)


def test_a_pronoun_after_a_name_called_out_in_dialogue_is_someone_else(tmp_path: Path) -> None:
    # "Zaxi, have you seen Biscuit? His lead..." is the dog's lead, not Zaxi's.
    cast = _import(tmp_path, "MUM: Zaxi, have you seen Biscuit? His lead is still on the hook.\n"
                             "ZAXI: No.\n", ".txt")
    assert cast["ZAXI"].gender == ""


def test_a_pronoun_after_another_person_named_is_theirs(tmp_path: Path) -> None:
    cast = _import(tmp_path, "INT. CABIN - NIGHT\n\nQUORLE (70s) knits. VOSSMER, a stranger, reads his chart.\n\n"
                             "QUORLE\nRough tonight.\n\nVOSSMER\nIt always is.\n")
    assert cast["QUORLE"].gender == ""  # "his chart" is VOSSMER's
    assert cast["VOSSMER"].gender == "male"
