"""The words a script says who a person is with: titles, kinship, pronouns, ages and
descriptions ("a woman in her seventies", "a nine-year-old boy", "(late 60s)", "aged 70").

The vocabulary and the phrase readers of engine/project/casting.py, which decides with them
which role a phrase is about. Every pattern here reads a bounded stretch of text (at most
a few dozen characters past where it starts), so reading a script stays linear in its
length however the words repeat.
"""

from __future__ import annotations

import re

FEMALE_TITLES = frozenset({
    "MRS", "MS", "MISS", "LADY", "DAME", "AUNT", "AUNTIE", "GRANDMA", "GRANNY", "NAN", "NANA", "MOTHER", "MUM",
    "MUMMY", "MOM", "MA", "SISTER", "QUEEN", "PRINCESS", "DUCHESS", "MADAM", "MADAME", "COUNTESS", "NUN", "ABBESS",
    "WIFE", "WOMAN", "GIRL", "DAUGHTER", "WIDOW", "LANDLADY", "WAITRESS", "ACTRESS", "HOSTESS", "MISTRESS",
    "BARONESS", "GRANDMOTHER"})
# HOST, DOCTOR, CAPTAIN, NURSE ... carry no gender: a host may be anyone, and a title that only
# says a job must leave the voice to the other evidence.
MALE_TITLES = frozenset({
    "MR", "SIR", "LORD", "UNCLE", "GRANDPA", "GRANDAD", "GRANDDAD", "GRAMPS", "FATHER", "DAD", "DADDY", "PA",
    "BROTHER", "KING", "PRINCE", "DUKE", "COUNT", "BARON", "MONSIEUR", "HERR", "SENOR", "SIGNOR", "MASTER",
    "HUSBAND", "MAN", "BOY", "SON", "WIDOWER", "LANDLORD", "WAITER", "GRANDFATHER", "MONK", "ABBOT", "FRIAR"})
OLDER_TITLES = frozenset({"GRANDMA", "GRANNY", "NAN", "NANA", "GRANDPA", "GRANDAD", "GRANDDAD", "GRAMPS", "OLD",
                          "ELDERLY", "GRANDMOTHER", "GRANDFATHER", "WIDOW", "WIDOWER", "DAME"})
CHILD_TITLES = frozenset({"GIRL", "BOY", "LITTLE", "KID", "CHILD", "BABY", "YOUNG MASTER"})
TITLES = FEMALE_TITLES | MALE_TITLES | OLDER_TITLES
# Words before a name that say who the person is to someone ("her son TOM", "my daughter Rosie").
KIN = {"daughter": ("female", "child"), "son": ("male", "child"), "granddaughter": ("female", "child"),
       "grandson": ("male", "child"), "niece": ("female", ""), "nephew": ("male", ""),
       "sister": ("female", ""), "brother": ("male", ""), "mother": ("female", ""), "father": ("male", ""),
       "mum": ("female", ""), "dad": ("male", ""), "wife": ("female", ""), "husband": ("male", ""),
       "aunt": ("female", ""), "uncle": ("male", ""), "grandmother": ("female", "older"),
       "grandfather": ("male", "older"), "girl": ("female", "child"), "boy": ("male", "child"),
       "woman": ("female", ""), "man": ("male", ""), "lady": ("female", ""), "gentleman": ("male", ""),
       "widow": ("female", "older"), "widower": ("male", "older"), "girlfriend": ("female", ""),
       "boyfriend": ("male", "")}
PRONOUNS = {"she": "female", "her": "female", "hers": "female", "herself": "female",
            "he": "male", "him": "male", "his": "male", "himself": "male"}
NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
           "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
           "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
           "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
DECADES = {"twenties": 20, "thirties": 30, "forties": 40, "fifties": 50, "sixties": 60, "seventies": 70,
           "eighties": 80, "nineties": 90}
# Jobs that say a gender in their last syllable ("a fisherman", "a policewoman"); a list, not
# any word ending in -man: a German, a human, a Roman say nothing of the kind.
_TRADES = ("fisher|police|post|fire|chair|business|sports|crafts|sales|work|watch|sea|boat|ferry|door|milk|"
           "clergy|country|kins|horse|lines|trades|handy|gentle|middle|noble|news|weather|camera|stunt|bar|"
           "dairy|herds|yeo|foot|dust|coach|cattle|life|coastguards?|lighthouse|church|mad|rag|sand|snow")
_NOUN = (rf"(?P<noun>(?:{_TRADES})(?:wo)?man|woman|man|girl|boy|lady|gentleman|child|kid|teenager|widow|widower|"
         rf"mother|father|grandmother|grandfather)")
# An age: a number or its word, a decade ("70s", "seventies"), maybe "early"/"mid"/"late" before it.
AGE = (r"(?:(?:early|mid|late)[\s-]*)?(?P<n>\d{1,3}|" + "|".join(NUMBERS) + r"|" + "|".join(DECADES)
       + r")(?:'?s)?")
# A person described: up to three words before the noun ("a wiry old man", "a nine-year-old
# girl"), then maybe an age ("a girl of nine", "a man aged 70", "a woman in her seventies").
PERSON = (rf"(?P<adjs>(?:[\w-]+,?\s+){{0,3}}?){_NOUN}\b"
          rf"(?:\s+(?:(?:of|aged)\s+|in\s+(?:his|her|their)\s+){AGE}\b)?")
DESCRIBED = re.compile(rf"(?:an?\s+)?{PERSON}", re.IGNORECASE)
# An age standing alone: "70", "(late 60s)", "aged 9", "nine years old".
STATED_AGE = re.compile(rf"\s*(?:aged\s+)?{AGE}(?:\s+years?(?:\s+old)?|-years?-old)?\b", re.IGNORECASE)
_YEAR_OLD = re.compile(rf"{AGE}-years?-old", re.IGNORECASE)

CHILD_BELOW = 16  # an introduced age under this is a child's voice
OLDER_FROM = 60


def age_of(years: int) -> str:
    return "" if years <= 0 else "child" if years < CHILD_BELOW else "older" if years >= OLDER_FROM else "adult"


def years(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else NUMBERS.get(word, DECADES.get(word, 0))


def person(described: re.Match[str]) -> tuple[str, str]:
    """Gender and age of a match of PERSON: the stated age, else the words before the
    noun (old, little, nine-year-old), else the noun's own (widow: older; girl: child)."""
    noun = described.group("noun").lower()
    gender, kin_age = KIN.get(noun, ("", ""))
    if not gender and noun.endswith("man"):
        gender = "female" if noun.endswith("woman") else "male"
    if described.group("n"):
        return gender, age_of(years(described.group("n")))
    adjs = described.group("adjs").lower()
    year_old = _YEAR_OLD.search(adjs)
    if year_old is not None:
        return gender, age_of(years(year_old.group("n")))
    words = set(re.findall(r"[\w]+", adjs))
    return gender, ("older" if words & {"old", "elderly", "aged"} else
                    "child" if noun in ("child", "kid") or "little" in words else kin_age)
