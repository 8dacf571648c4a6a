"""Starting voices: every role sounds different from every other from the start.

Until a cast can draw on several voice models, roles share one voice and are
told apart by small changes of its settings. Small on purpose: pitch shifts
of about 3 semitones measurably hurt intelligibility, so pitch stays within
1.5 semitones and is combined with speaking speed (0.90-1.10) and the
model's variation (0.8-1.2); lanes are also panned apart. The settings are
ordered so that each next role is as far as possible from all earlier ones,
with the first (usually the lead) on the voice's own settings.

The importers cast with :func:`starting_voice`; the studio's "Add role" asks
:func:`suggest_new_role`, which picks settings no existing role has.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cache

from engine.project.model import Character, Project, Role, VoiceParams, next_colour

PITCHES = (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5)  # semitones
SPEEDS = (0.90, 0.95, 1.00, 1.05, 1.10)
VARIATIONS = (0.8, 1.0, 1.2)
PANS = (0.0, -0.3, 0.3, -0.15, 0.15, -0.45, 0.45)
_SCALE = (1.5, 0.10, 0.4)  # how far each setting may move; variation counts half as much as the others

Settings = tuple[float, float, float]  # pitch, speed, variation


@cache
def distinct_settings() -> tuple[Settings, ...]:
    """Every (pitch, speed, variation) combination, most distinct first
    (farthest-point order from the voice's own settings)."""
    grid = [(p, s, v) for p in PITCHES for s in SPEEDS for v in VARIATIONS]

    def distance(a: Settings, b: Settings) -> float:
        return math.sqrt(sum(((x - y) / k) ** 2 for x, y, k in zip(a, b, _SCALE, strict=True)))

    neutral = (0.0, 1.0, 1.0)
    order = [neutral]
    nearest = {g: distance(g, neutral) for g in grid if g != neutral}
    while nearest:
        # Farthest from everything chosen; ties go to the one nearer the voice's own sound.
        best = max(nearest, key=lambda g: (round(nearest[g], 9), -distance(g, neutral), g))
        order.append(best)
        del nearest[best]
        for g in nearest:
            nearest[g] = min(nearest[g], distance(g, best))
    return tuple(order)


def starting_voice(index: int, base: VoiceParams | None = None) -> tuple[VoiceParams, float]:
    """Voice settings and pan of the ``index``-th role of a fresh cast."""
    settings = distinct_settings()
    pitch, speed, variation = settings[index % len(settings)]
    voice = (base or VoiceParams()).with_changes(pitch=pitch, speed=speed, variation=variation)
    return voice, PANS[index % len(PANS)]


def casting_summary(roles: int) -> str:
    """What the import did to tell the roles apart, in words a producer reads."""
    n = len(distinct_settings())
    ranges = (f"pitch within ±{max(PITCHES):g} semitones, speed {min(SPEEDS):.2f}-{max(SPEEDS):.2f}×, "
              f"variation {min(VARIATIONS):g}-{max(VARIATIONS):g}")
    if roles <= n:
        return (f"Every role starts with its own settings of the voice ({ranges}) and the lanes are "
                f"panned apart; recast them in the cast panel.")
    return (f"The first {n} roles start with their own settings of the voice ({ranges}); the other "
            f"{roles - n} repeat those settings, since one voice has no more distinct ones. Give them "
            f"other voices in the cast panel.")


def cast_summary(cast: list[Role]) -> str:
    """What a cast drawn from the installed voices does to tell the roles apart."""
    models = {(r.voice.backend, r.voice.voice, r.voice.speaker) for r in cast}
    shared = len(cast) - len(models)
    if not cast:
        return ""
    if shared == 0:
        return (f"Every role has a voice or speaker of its own ({len(models)} in all), leads first; "
                f"recast them in the cast panel.")
    return (f"{len(cast)} roles on {len(models)} voices or speakers, leads first: {shared} share a voice and "
            f"are told apart by small changes of its settings (pitch within ±{max(PITCHES):g} semitones, "
            f"speed {min(SPEEDS):.2f}-{max(SPEEDS):.2f}×). Install more voices (radioplay voices --catalog) "
            f"for more distinct ones.")


def _sound(voice: VoiceParams) -> tuple[object, ...]:
    return (voice.backend, voice.voice, voice.speaker, voice.pitch, voice.speed, voice.variation)


def suggest_new_role(project: Project, name: str | None = None) -> Role:
    """A role for "Add role": the voice model of the last role, settings no role
    has yet (most distinct first), the least used pan and the next colour.
    Without ``name`` it is called ``ROLE n``, unused in the cast."""
    names = set(project.role_names())
    if name is None:
        n = len(project.cast) + 1
        while f"ROLE {n}" in names:
            n += 1
        name = f"ROLE {n}"
    base = project.cast[-1].voice if project.cast else VoiceParams()
    taken = {_sound(role.voice) for role in project.cast}
    voice = next((v for v in (starting_voice(i, base)[0] for i in range(len(distinct_settings())))
                  if _sound(v) not in taken), starting_voice(len(project.cast), base)[0])
    pans = [role.pan for role in project.cast]
    pan = min(PANS, key=lambda p: (sum(1 for q in pans if math.isclose(p, q)), PANS.index(p)))
    return Role(name=name, colour=next_colour(len(project.cast)), voice=voice, pan=pan)


# --- Who each role is: gender and age read from the script, with the evidence ---------------
#
# Evidence kinds, strongest first; a stronger kind decides, a weaker one only fills what is
# still unknown: a character introduction in the action ("MARGARET (60s)", "ROSIE, a girl of
# nine"), a title in the cue (MRS., SIR, GRANDMA), kinship words and pronouns around the name in
# lines and directions ("her son TOM", "Tom ... he"), and the first name in a name dataset.

_FEMALE_TITLES = {"MRS", "MS", "MISS", "LADY", "DAME", "AUNT", "AUNTIE", "GRANDMA", "GRANNY", "NAN", "NANA",
                  "MOTHER", "MUM", "MUMMY", "MOM", "MA", "SISTER", "QUEEN", "PRINCESS", "DUCHESS", "MADAM",
                  "MADAME", "COUNTESS", "NUN", "ABBESS", "WIFE", "WOMAN", "GIRL", "DAUGHTER", "WIDOW",
                  "LANDLADY", "WAITRESS", "ACTRESS", "HOSTESS", "MISTRESS", "BARONESS", "GRANDMOTHER"}
_MALE_TITLES = {"MR", "SIR", "LORD", "UNCLE", "GRANDPA", "GRANDAD", "GRANDDAD", "GRAMPS", "FATHER", "DAD",
                "DADDY", "PA", "BROTHER", "KING", "PRINCE", "DUKE", "COUNT", "BARON", "MONSIEUR", "HERR",
                "SENOR", "SIGNOR", "MASTER", "HUSBAND", "MAN", "BOY", "SON", "WIDOWER", "LANDLORD",
                "WAITER", "HOST", "GRANDFATHER", "MONK", "ABBOT", "FRIAR"}
_OLDER_TITLES = {"GRANDMA", "GRANNY", "NAN", "NANA", "GRANDPA", "GRANDAD", "GRANDDAD", "GRAMPS", "OLD",
                 "ELDERLY", "GRANDMOTHER", "GRANDFATHER", "WIDOW", "WIDOWER", "DAME"}
_CHILD_TITLES = {"GIRL", "BOY", "LITTLE", "KID", "CHILD", "BABY", "YOUNG MASTER"}
# Words before a name that say who the person is to someone ("her son TOM", "my daughter Rosie").
_KIN = {"daughter": ("female", "child"), "son": ("male", "child"), "granddaughter": ("female", "child"),
        "grandson": ("male", "child"), "niece": ("female", ""), "nephew": ("male", ""),
        "sister": ("female", ""), "brother": ("male", ""), "mother": ("female", ""), "father": ("male", ""),
        "mum": ("female", ""), "dad": ("male", ""), "wife": ("female", ""), "husband": ("male", ""),
        "aunt": ("female", ""), "uncle": ("male", ""), "grandmother": ("female", "older"),
        "grandfather": ("male", "older"), "girl": ("female", "child"), "boy": ("male", "child"),
        "woman": ("female", ""), "man": ("male", ""), "lady": ("female", ""), "gentleman": ("male", ""),
        "widow": ("female", "older"), "girlfriend": ("female", ""), "boyfriend": ("male", "")}
_PRONOUNS = {"she": "female", "her": "female", "hers": "female", "herself": "female",
             "he": "male", "him": "male", "his": "male", "himself": "male"}
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
            "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
            "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
            "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_AGE_NOUN = r"(?P<noun>woman|man|girl|boy|lady|gentleman|child|kid|teenager|widow|widower)"
_AGE_NUMBER = r"(?P<n>\d{1,3}|" + "|".join(_NUMBERS) + r")"
# A person described: up to three words before the noun, then maybe an age ("a wiry man",
# "a girl of nine"); read by _person.
_PERSON = rf"(?P<adjs>(?:[\w-]+,?\s+){{0,3}}?){_AGE_NOUN}\b(?:\s+(?:of|aged)\s+{_AGE_NUMBER})?"
# Compiled once: built into each role's pattern they were most of an import's time (10.5 of
# 12 s for 4,000 roles, the regular expression cache of 512 long overflowed).
_NOUN_AGE = re.compile(rf"^(?:an?\s+)?{_PERSON}", re.IGNORECASE)
_KIN_BEFORE = re.compile(rf"\b(?P<kin>{'|'.join(_KIN)})\s*,?\s+$", re.IGNORECASE)  # just before a name
_KIN_REACH = max(len(k) for k in _KIN) + 16

CHILD_BELOW = 16  # an introduced age under this is a child's voice
OLDER_FROM = 60


def _age_of(years: int) -> str:
    return "child" if years < CHILD_BELOW else "older" if years >= OLDER_FROM else "adult"


def _person(described: re.Match[str]) -> tuple[str, str]:
    """Gender and age of a match of _PERSON: the stated age, else the words before the
    noun (old, little), else the noun's own (widow: older; girl: child)."""
    noun = described.group("noun").lower()
    gender, kin_age = _KIN.get(noun, ("", ""))
    if described.group("n"):
        return gender, _age_of(_years(described.group("n")))
    adjs = set(re.findall(r"[\w-]+", described.group("adjs").lower()))
    return gender, ("older" if adjs & {"old", "elderly", "aged"} else
                    "child" if noun in ("child", "kid") or "little" in adjs else kin_age)


def _years(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _NUMBERS.get(word, 0)


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
    """How a role's name can appear in prose: the full cue, and its words
    without titles ("MR. WORTHING" -> "Worthing")."""
    words = [w for w in _name_words(name) if w not in _FEMALE_TITLES | _MALE_TITLES | _OLDER_TITLES | {"YOUNG"}]
    forms = {re.sub(r"\s+", " ", name.strip())}
    if words:
        forms.add(" ".join(words))
        forms.add(words[-1])
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
    own_lines: dict[str, set[str]] = {}
    first_line: dict[str, int] = {}
    for i, line in enumerate(project.lines):
        own_lines.setdefault(line.role, set()).add(line.id)
        first_line.setdefault(line.role, i)
    result: dict[str, Character] = {}
    for role in project.cast:
        if role.character.by_producer:
            result[role.name] = role.character
            continue
        reading = _Reading()
        forms = _mentions(role.name)
        pattern = "|".join(re.escape(f) for f in forms)
        mentioned = [texts[i] for i in _texts_mentioning(forms, index)]
        if pattern and mentioned:
            _introductions(reading, pattern, mentioned)
        _titles(reading, role.name)
        if pattern and mentioned:
            _kinship_and_pronouns(reading, pattern, mentioned, own_lines.get(role.name, set()))
        if role.name in first_line:
            _entrance(reading, first_line[role.name], project)
        words = [w for w in _name_words(role.name) if w not in _FEMALE_TITLES | _MALE_TITLES | _OLDER_TITLES]
        if words and words[0].lower() in names:
            reading.add(names[words[0].lower()], "", f"first name {words[0].title()} ({names[words[0].lower()]} "
                                                     f"in gender-guesser's name dictionary)")
        result[role.name] = Character(gender=reading.gender, age=reading.age, evidence="; ".join(reading.evidence))
    return result


def _introductions(reading: _Reading, pattern: str, texts: list[tuple[str, str]]) -> None:
    """ "MARGARET (60s)", "Ellen (30s, oilskins)", "ROSIE, a girl of nine", "TOM, 8,",
    "McCrae (70s), a wiry man" in the action."""
    introduced = re.compile(
        rf"\b(?:{pattern})\b(?:\s*\((?P<paren>[^)]*)\))?(?:\s*,\s*(?P<after>[^.;:!?]{{0,80}}))?", re.IGNORECASE)
    for where, text in texts:
        if not where.startswith("scene") and "direction" not in where:
            continue  # introductions are the writer's prose, not a character's words
        for m in introduced.finditer(text):
            paren, after = m.group("paren") or "", (m.group("after") or "").strip()
            age_m = re.match(rf"\s*{_AGE_NUMBER}\s*(?P<s>s|'s)?\b", paren, re.IGNORECASE) if paren else None
            if age_m is None and after:
                age_m = re.match(rf"{_AGE_NUMBER}(?P<s>s)?\b\s*(?:,|$)", after, re.IGNORECASE)
            age = _age_of(_years(age_m.group("n"))) if age_m else ""
            gender = ""
            desc = _NOUN_AGE.match(after) if after else None
            if desc is None and paren:
                rest = paren[age_m.end():].lstrip(" ,") if age_m else paren
                desc = _NOUN_AGE.match(rest)
            if desc is not None:
                gender, described_age = _person(desc)
                age = age or described_age
            if gender or age:
                reading.add(gender, age, f"introduced in {where}: {_quote(text, m.start(), m.end())[:60]!r}")


_NARRATING = re.compile(r"^NARRAT(?:OR|ION|RIX|RESS)\b", re.IGNORECASE)
_UNNAMED = re.compile(rf"(?:^|(?<=[.!?])\s+)(?P<who>an?\s+{_PERSON})", re.IGNORECASE)


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
        gender, age = _person(m)
        if gender or age:
            reading.add(gender, age, f"brought on just before the first line, {where}: {m.group('who').strip()!r}")
            return


def _titles(reading: _Reading, name: str) -> None:
    words = _name_words(name)
    for word in words:
        gender = "female" if word in _FEMALE_TITLES else "male" if word in _MALE_TITLES else ""
        age = "older" if word in _OLDER_TITLES else "child" if word in _CHILD_TITLES else ""
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


def _kinship_and_pronouns(reading: _Reading, pattern: str, texts: list[tuple[str, str]],
                          own: set[str]) -> None:
    name = re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE)
    for where, text in texts:
        for m in name.finditer(text):  # "his daughter Rosie", "Aunt, Maud"
            kin = _KIN_BEFORE.search(text, max(0, m.start() - _KIN_REACH), m.start())
            if kin is not None:
                gender, age = _KIN[kin.group("kin").lower()]
                reading.add(gender, age, f"{where}: {_quote(text, kin.start(), m.end(), 1)!r}")
    if reading.gender:
        return
    # Pronouns in the prose right after the name (same or next sentence), counted: "Worthing
    # sets the briefcase down and opens it. He..." A role's own lines never refer to it as he/she.
    after = re.compile(rf"\b(?:{pattern})\b(?P<rest>[^.!?]*[.!?]?\s*[^.!?]*)", re.IGNORECASE)
    votes = {"female": 0, "male": 0}
    first: dict[str, str] = {}
    for where, text in texts:
        if where.split(" ")[1] in own:
            continue
        for m in after.finditer(text):
            for word in re.findall(r"[A-Za-z]+", m.group("rest")):
                pronoun = _PRONOUNS.get(word.lower())
                if pronoun:
                    votes[pronoun] += 1
                    first.setdefault(pronoun, f"{where}: {_quote(text, m.start(), m.end())[:80]!r}")
                    break
    if votes["female"] != votes["male"]:
        winner = max(votes, key=lambda g: votes[g])
        reading.add(winner, "", f"pronouns after the name ({votes[winner]} {winner}, "
                                f"{votes['female' if winner == 'male' else 'male']} other), e.g. {first[winner]}")
