"""Who each role is: gender and age read from the script, with the evidence.

Evidence kinds, strongest first; a stronger kind decides, a weaker one only fills what is
still unknown: a character introduction in the action ("MARGARET (60s)", "ROSIE, a girl of
nine") or a role introducing itself in its own line ("My name is Lucy, I am nine"), a title
in the cue (MRS., SIR, GRANDMA), kinship words before the name and pronouns after it in the
prose ("her son TOM", "Tom ... he"), an unnamed person brought on just before the role's
first line, and the first name in a name dataset.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache

from engine.project.model import Character, Project
from engine.project.person_words import (
    AGE,
    CHILD_TITLES,
    DESCRIBED,
    FEMALE_TITLES,
    KIN,
    MALE_TITLES,
    OLDER_TITLES,
    PERSON,
    PRONOUNS,
    STATED_AGE,
    TITLES,
    age_of,
    person,
    years,
)

# Titles that say a job or a rank and no gender: stripped from a name like the gendered ones
# ("DR PATEL" is mentioned as "Patel"), never evidence themselves.
_NEUTRAL_TITLES = frozenset({"DR", "DOCTOR", "PROF", "PROFESSOR", "CAPT", "CAPTAIN", "REV", "REVEREND", "NURSE",
                             "HOST", "INSPECTOR", "SERGEANT", "SGT", "OFFICER", "CONSTABLE", "DETECTIVE", "JUDGE",
                             "YOUNG", "CHIEF", "AGENT", "COLONEL", "MAJOR", "LIEUTENANT"})
# Introductions read a bounded stretch: a name's parenthesis and what follows its comma.
_PAREN_MAX, _AFTER_MAX, _SENTENCE_MAX = 80, 80, 240
_KIN_BEFORE = re.compile(rf"\b(?P<kin>{'|'.join(KIN)})\s*,?\s+$", re.IGNORECASE)  # just before a name
_KIN_REACH = max(len(k) for k in KIN) + 16
# A role saying its own age or who it is, in its own line: "I am nine years old", "I'm 70.",
# "I'm an old man". A bare number needs the end of a clause after it ("I'm nine, and..."), so
# "I'm nine minutes late" says nothing.
_AGE_END = r"(?:\s+years?\s+old\b|\s*(?=[,.;:!?]|$)|(?=\s+(?:and|but|now|today)\b))"
_SELF_AGE = re.compile(rf"\bI(?:'m|’m|\s+am)\s+(?:only\s+|just\s+|nearly\s+|almost\s+|now\s+)?{AGE}{_AGE_END}",
                       re.IGNORECASE)
# After a name: maybe a surname or two in capitals (case-sensitive: "Tom runs (fast)" has none),
# then a parenthesis and/or what follows a comma ("ELSIE MORGAN (70s), the keeper"); bounded.
_INTRODUCED = re.compile(
    rf"(?-i:(?:\s+[A-Z][\w'’-]*){{0,2}})(?:\s*\((?P<paren>[^()\n]{{0,{_PAREN_MAX}}})\))?"
    rf"(?:\s*,\s*(?P<after>[^.;:!?()\n]{{0,{_AFTER_MAX}}}))?", re.IGNORECASE)
_AGED = re.compile(rf"\s+(?:is|was|turned|turns)\s+(?:only\s+|just\s+|nearly\s+|almost\s+)?{AGE}{_AGE_END}",
                   re.IGNORECASE)
_NEXT_SENTENCE = re.compile(rf"[^.!?]{{0,{_SENTENCE_MAX}}}[.!?]?\s*[^.!?]{{0,{_SENTENCE_MAX}}}")  # the rest, and one more
_SELF_PERSON = re.compile(rf"\bI(?:'m|’m|\s+am)\s+(?:just\s+|only\s+)?an?\s+{PERSON}", re.IGNORECASE)


@cache
def _first_names() -> dict[str, str]:
    """First name -> "female"/"male" from gender-guesser's nam_dict (Jörg Michael's
    dictionary of ~45,000 first names, shipped inside the package's wheel; its
    usage counts per country let us take Great Britain's reading where it has one).
    Names the dataset calls androgynous, or that it lacks, are left unknown.
    Without the package installed the first-name evidence is simply not used."""
    try:
        from gender_guesser.detector import Detector
    except ImportError:
        return {}
    detector = Detector(case_sensitive=False)
    names: dict[str, str] = {}
    for name in detector.names:
        gender = detector.get_gender(name, "great_britain")
        if gender in ("unknown", "andy"):
            gender = detector.get_gender(name)
        if gender in ("female", "mostly_female"):
            names[name] = "female"
        elif gender in ("male", "mostly_male"):
            names[name] = "male"
    return names


@dataclass
class _Reading:
    gender: str = ""
    age: str = ""
    evidence: list[str] = field(default_factory=list)

    def add(self, gender: str, age: str, why: str) -> None:
        """Fill what is still unknown; say why only where it decided something."""
        used = False
        if gender and not self.gender:
            self.gender, used = gender, True
        if age and not self.age:
            self.age, used = age, True
        if used:
            self.evidence.append(why)


def _name_words(name: str) -> list[str]:
    return [w for w in re.split(r"[\s.,'’\-]+", name.upper()) if w]


def _mentions(name: str) -> list[str]:
    """How a role's name can appear in prose: the full cue, its words without titles
    ("MR. WORTHING" -> "Worthing"), its last word, and its first where that is a first name
    ("ELSIE MORGAN" -> "Elsie")."""
    words = [w for w in _name_words(name) if w not in TITLES | _NEUTRAL_TITLES]
    forms = {re.sub(r"\s+", " ", name.strip())}
    if words:
        forms.add(" ".join(words))
        forms.add(words[-1])
        if words[0].lower() in _first_names():
            forms.add(words[0])
    return sorted((f for f in forms if len(f) > 1), key=len, reverse=True)


def _quote(text: str, start: int, end: int, words_before: int = 0) -> str:
    """The text of a match, with ``words_before`` words of what led to it."""
    for _ in range(words_before):
        start = text.rfind(" ", 0, max(0, start - 1)) + 1
    return text[max(0, start):end].strip().replace("\n", " ")


def infer_characters(project: Project) -> dict[str, Character]:
    """Each role's gender and age as the script tells them, with the evidence;
    a role the producer has set keeps its character. Deterministic."""
    texts: list[tuple[str, str]] = []  # (where, text): action and directions, then dialogue
    for scene in project.scenes:
        texts.extend((f"scene {scene.id} action", note) for note in scene.notes)
    for line in project.lines:
        if line.note:
            texts.append((f"line {line.id} direction", line.note))
    for line in project.lines:
        texts.append((f"line {line.id}", line.text))
    names = _first_names()
    # Each rule reads only the texts that mention the role: an index of the words of every text,
    # built once, finds them, so the reading is linear in the script (a scan of every text per
    # role was roles x lines: 2,000 roles of a line each took 21 s).
    index: dict[str, list[int]] = {}
    for i, (_, text) in enumerate(texts):
        for word in set(_WORD.findall(text.lower())):
            index.setdefault(word, []).append(i)
    own_lines: dict[str, list[tuple[str, str]]] = {}
    first_line: dict[str, int] = {}
    for i, line in enumerate(project.lines):
        own_lines.setdefault(line.role, []).append((f"line {line.id}", line.text))
        first_line.setdefault(line.role, i)
    # Pronouns are read in prose: the action, directions and a narrator's lines. In dialogue a
    # name is mostly called out ("Lucy, have you seen Biscuit? His lead...") and the pronoun
    # after it is someone else.
    prose = {f"line {line.id}" for line in project.lines if _NARRATING.match(line.role)}
    # Every role's name words: a pronoun after another role's name is that role's.
    others = {w.lower() for role in project.cast for w in _name_words(role.name) if w not in TITLES | _NEUTRAL_TITLES}
    result: dict[str, Character] = {}
    for role in project.cast:
        if role.character.by_producer:
            result[role.name] = role.character
            continue
        reading = _Reading()
        forms = _mentions(role.name)
        mentioned = [texts[i] for i in _texts_mentioning(forms, index)]
        # One small pattern per role, its name; what follows a name is read by patterns
        # compiled once (built into each role's, they were most of a 10,000-role import).
        name = re.compile(rf"\b(?:{'|'.join(re.escape(f) for f in forms)})\b", re.IGNORECASE) if forms else None
        if name is not None and mentioned:
            _introductions(reading, name, mentioned)
        _self_introductions(reading, own_lines.get(role.name, []))
        _titles(reading, role.name)
        if name is not None and mentioned:
            own = {w.lower() for form in forms for w in _WORD.findall(form)}
            _kinship_and_pronouns(reading, name, mentioned, prose, own, others - own)
        if role.name in first_line:
            _entrance(reading, first_line[role.name], project)
        words = [w for w in _name_words(role.name) if w not in TITLES | _NEUTRAL_TITLES]
        if words and words[0].lower() in names:
            reading.add(names[words[0].lower()], "", f"first name {words[0].title()} ({names[words[0].lower()]} "
                                                     f"in gender-guesser's name dictionary)")
        result[role.name] = Character(gender=reading.gender, age=reading.age, evidence="; ".join(reading.evidence))
    return result


def _introductions(reading: _Reading, name: re.Pattern[str], texts: list[tuple[str, str]]) -> None:
    """ "MARGARET (60s)", "ELSIE MORGAN (70s), the keeper" for ELSIE, "Ellen (late 30s, oilskins)",
    "ROSIE, a girl of nine", "TOM, 8,", "JOE, aged 70,", "McCrae (70s), a wiry man", "TAM, a man in
    his eighties", "KIT, a nine-year-old boy" in the action and directions."""
    for where, text in texts:
        prose = where.startswith("scene") or "direction" in where  # not a character's words
        for m in name.finditer(text):
            aged = _AGED.match(text, m.end())  # "Tom is twelve": of the name anywhere, dialogue too
            if aged is not None:
                reading.add("", age_of(years(aged.group("n"))), f"{where}: {_quote(text, m.start(), aged.end())[:60]!r}")
            introduced = _INTRODUCED.match(text, m.end()) if prose else None
            if introduced is not None:
                gender, age = _introduced(introduced.group("paren") or "", (introduced.group("after") or "").strip())
                if gender or age:
                    reading.add(gender, age,
                                f"introduced in {where}: {_quote(text, m.start(), introduced.end())[:60]!r}")


def _introduced(paren: str, after: str) -> tuple[str, str]:
    """Gender and age said in an introduction's parenthesis ("70s", "late 60s, grey", "a girl
    of 9") and in what follows its comma ("70,", "aged 9", "a woman in her seventies")."""
    gender = age = ""
    for part in (paren, after):
        stated = STATED_AGE.match(part)
        if stated is not None and (part is paren or re.match(r"\s*(?:,|$)", part[stated.end():])):
            age = age or age_of(years(stated.group("n")))
            part = part[stated.end():].lstrip(" ,")
        desc = DESCRIBED.match(part.strip())
        if desc is not None:
            described_gender, described_age = person(desc)
            gender, age = gender or described_gender, age or described_age
    return gender, age


def _self_introductions(reading: _Reading, own: list[tuple[str, str]]) -> None:
    """A role saying in its own line how old it is or who it is: "My name is Lucy Parker, I am
    nine years old", "I'm an old man now". A first-person narrator is cast by what it says."""
    for where, text in own:
        for rule in (_SELF_AGE, _SELF_PERSON):
            m = rule.search(text)
            if m is None or _quoted(text, m.start()):
                continue  # "She said, 'I'm nine'": someone else's words
            gender, age = (("", age_of(years(m.group("n")))) if rule is _SELF_AGE else person(m))
            if gender or age:
                reading.add(gender, age, f"says so in {where}: {_quote(text, m.start(), m.end())[:60]!r}")


def _quoted(text: str, at: int) -> bool:
    """Whether ``at`` is inside a double quotation (single quotes are apostrophes too often)."""
    before = text[:at]
    return before.count('"') % 2 == 1 or before.count("“") > before.count("”")


_NARRATING = re.compile(r"^NARRAT(?:OR|ION|RIX|RESS)\b", re.IGNORECASE)
_UNNAMED = re.compile(rf"(?:^|(?<=[.!?])\s+)(?P<who>an?\s+{PERSON})", re.IGNORECASE)


def _entrance(reading: _Reading, first: int, project: Project) -> None:
    """An unnamed person brought on just before a role first speaks is that role: "A woman
    in a dripping coat stood in the torchlight." (the narrator's line right before, or the
    first line's own direction; a sentence that begins with "a woman", "an old man", ...).
    ``first``: the position of the role's first line."""
    told = [(f"line {project.lines[first].id} direction", project.lines[first].note)]
    if first > 0 and _NARRATING.match(project.lines[first - 1].role):
        told.append((f"line {project.lines[first - 1].id}", project.lines[first - 1].text))
    for where, text in told:
        found = list(_UNNAMED.finditer(text or ""))
        if not found:
            continue
        m = found[-1]  # the person brought on last is the one who speaks next
        gender, age = person(m)
        if gender or age:
            reading.add(gender, age, f"brought on just before the first line, {where}: {m.group('who').strip()!r}")
            return


def _titles(reading: _Reading, name: str) -> None:
    words = _name_words(name)
    for word in words:
        gender = "female" if word in FEMALE_TITLES else "male" if word in MALE_TITLES else ""
        age = "older" if word in OLDER_TITLES else "child" if word in CHILD_TITLES else ""
        if gender or age:
            reading.add(gender, age, f"title {word.title()} in the name")


_WORD = re.compile(r"\w+")


def _texts_mentioning(forms: list[str], index: dict[str, list[int]]) -> list[int]:
    """The texts (by position) holding every word of one of ``forms``, found through the rarest
    of its words in ``index``; what the regular expressions then confirm."""
    found: set[int] = set()
    for form in forms:
        words = _WORD.findall(form.lower())
        if not words:
            continue
        postings = [index.get(word, []) for word in words]
        rarest = min(postings, key=len)
        others = [set(p) for p in postings if p is not rarest] if len(words) > 1 else []
        found.update(i for i in rarest if all(i in other for other in others))
    return sorted(found)


def _kinship_and_pronouns(reading: _Reading, name: re.Pattern[str], texts: list[tuple[str, str]],
                          prose: set[str], own: set[str], others: set[str]) -> None:
    """ "her son TOM", "my daughter Rosie" anywhere; the pronouns after the name in the prose
    (``prose``: the narrators' lines; action and directions always are), up to the next
    person named (``others``: the other roles' name words, or a name in capitals as a script
    introduces one, not the role's ``own``): "MAIRI (70s) knits. GREGOR, a man in his forties"
    is not his."""
    for where, text in texts:
        for m in name.finditer(text):  # "his daughter Rosie", "Aunt, Maud"
            kin = _KIN_BEFORE.search(text, max(0, m.start() - _KIN_REACH), m.start())
            if kin is not None:
                gender, age = KIN[kin.group("kin").lower()]
                reading.add(gender, age, f"{where}: {_quote(text, kin.start(), m.end(), 1)!r}")
    if reading.gender:
        return
    # Pronouns in the prose right after the name (same or next sentence), counted: "Worthing
    # sets the briefcase down and opens it. He..." A role's own lines never refer to it as he/she.
    votes = {"female": 0, "male": 0}
    first: dict[str, str] = {}
    for where, text in texts:
        if where.startswith("line") and where not in prose and "direction" not in where:
            continue
        for m in name.finditer(text):
            rest = _NEXT_SENTENCE.match(text, m.end())
            assert rest is not None  # it matches the empty string too
            for word in re.findall(r"[A-Za-z]+", rest.group()):
                if word.lower() in others or (len(word) > 1 and word.isupper() and word.lower() not in own):
                    break  # someone else is named first: the pronoun is theirs
                pronoun = PRONOUNS.get(word.lower())
                if pronoun:
                    votes[pronoun] += 1
                    first.setdefault(pronoun, f"{where}: {_quote(text, m.start(), rest.end())[:80]!r}")
                    break
    if votes["female"] != votes["male"]:
        winner = max(votes, key=lambda g: votes[g])
        reading.add(winner, "", f"pronouns after the name ({votes[winner]} {winner}, "
                                f"{votes['female' if winner == 'male' else 'male']} other), e.g. {first[winner]}")
