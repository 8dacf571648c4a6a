"""Which line of a new draft is which line of the production: the alignment of a revision.

Each line is (role, text). The alignment is built in passes, each cheap:

1. anchors: lines whose role and words are identical and occur once in both scripts,
   kept where they are in order (the longest increasing run of their positions,
   n log n, as patience diff does), then the same again inside each gap between
   anchors, where a repeated line ("Yes.") may be unique;
2. moved: an identical line left over on both sides is the same line moved (a hash
   index, one look-up per line);
3. inside each gap between two kept lines: a line split in two (the two new lines
   together read as the old one), two lines merged into one, and a line whose words
   changed (same role, similar words), compared only within a window of positions,
   so a rewritten scene costs gap x window comparisons, never n squared;
4. moved and changed: a line left over on both sides that is still very close to one
   of the same role anywhere, through an index by role (rapidfuzz's extractOne).

Similarity is rapidfuzz's normalized Indel ratio (a C++ Levenshtein-family score,
tens of times faster than difflib's on these short strings); everything else
stays unmatched: added in the draft, removed from the production.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from rapidfuzz import fuzz, process

# Words at least this similar (0..1) with the same role: the same line, edited.
CHANGED_MIN = 0.6
# Two lines read together at least this close to one: a split or a merge.
SPLIT_MIN = 0.85
# A line moved *and* edited must stay this close to be recognized anywhere in the script.
MOVED_CHANGED_MIN = 0.8
# How far apart (in lines, inside a gap) an old and a new line may be to be compared.
WINDOW = 40
# Leftover lines compared through the role index at most (beyond: added and removed).
MAX_LEFTOVER_PAIRS = 400_000


class Kind(Enum):
    UNCHANGED = "unchanged"  # same words, in order
    MOVED = "moved"  # same words, elsewhere
    CHANGED = "changed"  # same line, words edited (possibly moved too)
    SPLIT = "split"  # one old line became two or more new ones
    MERGED = "merged"  # two old lines became one new one


@dataclass(frozen=True)
class Match:
    """New lines ``new`` are old lines ``old`` (indices into the two scripts)."""

    kind: Kind
    old: tuple[int, ...]
    new: tuple[int, ...]
    similarity: float = 1.0


@dataclass
class Alignment:
    matches: list[Match] = field(default_factory=list)
    added: list[int] = field(default_factory=list)  # new indices matched to nothing
    removed: list[int] = field(default_factory=list)  # old indices matched to nothing

    def by_new(self) -> dict[int, Match]:
        return {j: m for m in self.matches for j in m.new}

    def by_old(self) -> dict[int, Match]:
        return {i: m for m in self.matches for i in m.old}


Script = Sequence[tuple[str, str]]  # (role, text) per line


def normalized(text: str) -> str:
    """The words as compared: runs of white space are one space (they are not heard)."""
    return " ".join(text.split())


def similarity(a: str, b: str) -> float:
    return float(fuzz.ratio(a, b)) / 100.0


def align(old: Script, new: Script) -> Alignment:
    """Match the lines of ``new`` to the lines of ``old`` (see the module docstring)."""
    old_keys = [(role, normalized(text)) for role, text in old]
    new_keys = [(role, normalized(text)) for role, text in new]
    pairs: list[tuple[int, int]] = []
    _anchor(old_keys, new_keys, 0, len(old_keys), 0, len(new_keys), pairs, depth=0)
    pairs.sort()
    old_used = [False] * len(old_keys)
    new_used = [False] * len(new_keys)
    matches = [Match(Kind.UNCHANGED, (i,), (j,)) for i, j in pairs]
    for i, j in pairs:
        old_used[i] = new_used[j] = True
    matches += _moved(old_keys, new_keys, old_used, new_used)
    # gaps between the in-order anchors: (old start, old end, new start, new end)
    bounds = [(-1, -1), *pairs, (len(old_keys), len(new_keys))]
    for (i0, j0), (i1, j1) in zip(bounds, bounds[1:], strict=False):
        matches += _in_gap(old_keys, new_keys, range(i0 + 1, i1), range(j0 + 1, j1), old_used, new_used)
    matches += _moved_and_changed(old_keys, new_keys, old_used, new_used)
    matches.sort(key=lambda m: m.new[0])
    return Alignment(matches, [j for j, used in enumerate(new_used) if not used],
                     [i for i, used in enumerate(old_used) if not used])


def _anchor(old: list[tuple[str, str]], new: list[tuple[str, str]], i0: int, i1: int, j0: int, j1: int,
            out: list[tuple[int, int]], depth: int) -> None:
    """Patience anchors of old[i0:i1] and new[j0:j1], then the same inside each gap."""
    if i0 >= i1 or j0 >= j1:
        return
    # equal ends first: cheap, and they make the middle smaller
    while i0 < i1 and j0 < j1 and old[i0] == new[j0]:
        out.append((i0, j0))
        i0, j0 = i0 + 1, j0 + 1
    tail: list[tuple[int, int]] = []
    while i0 < i1 and j0 < j1 and old[i1 - 1] == new[j1 - 1]:
        i1, j1 = i1 - 1, j1 - 1
        tail.append((i1, j1))
    out += tail
    if i0 >= i1 or j0 >= j1 or depth > 8:
        return
    once_old = _unique(old, i0, i1)
    once_new = _unique(new, j0, j1)
    common = [(once_old[key], j) for key, j in once_new.items() if key in once_old]
    if not common:
        return
    common.sort(key=lambda p: p[1])
    kept = _increasing_run(common)
    bounds = [(i0 - 1, j0 - 1), *kept, (i1, j1)]
    out += kept
    for (a0, b0), (a1, b1) in zip(bounds, bounds[1:], strict=False):
        _anchor(old, new, a0 + 1, a1, b0 + 1, b1, out, depth + 1)


def _unique(keys: list[tuple[str, str]], start: int, end: int) -> dict[tuple[str, str], int]:
    seen: dict[tuple[str, str], int] = {}
    twice: set[tuple[str, str]] = set()
    for index in range(start, end):
        key = keys[index]
        if key in seen:
            twice.add(key)
        seen[key] = index
    return {key: index for key, index in seen.items() if key not in twice}


def _increasing_run(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of ``pairs`` (sorted by new index) whose old indices increase (n log n)."""
    tails: list[int] = []  # old index ending the best run of each length
    tail_at: list[int] = []  # which pair that is
    before: list[int] = [-1] * len(pairs)
    for k, (i, _) in enumerate(pairs):
        at = bisect.bisect_left(tails, i)
        if at == len(tails):
            tails.append(i)
            tail_at.append(k)
        else:
            tails[at] = i
            tail_at[at] = k
        before[k] = tail_at[at - 1] if at else -1
    run: list[tuple[int, int]] = []
    k = tail_at[-1] if tail_at else -1
    while k >= 0:
        run.append(pairs[k])
        k = before[k]
    return run[::-1]


def _moved(old: list[tuple[str, str]], new: list[tuple[str, str]], old_used: list[bool],
           new_used: list[bool]) -> list[Match]:
    waiting: dict[tuple[str, str], list[int]] = {}
    for i in range(len(old) - 1, -1, -1):  # reversed: pop() gives the earliest first
        if not old_used[i]:
            waiting.setdefault(old[i], []).append(i)
    found: list[Match] = []
    for j, key in enumerate(new):
        if new_used[j] or not waiting.get(key):
            continue
        i = waiting[key].pop()
        old_used[i] = new_used[j] = True
        found.append(Match(Kind.MOVED, (i,), (j,)))
    return found


def _in_gap(old: list[tuple[str, str]], new: list[tuple[str, str]], olds: range, news: range,
            old_used: list[bool], new_used: list[bool]) -> list[Match]:
    """Splits, merges and edited lines between two kept lines."""
    free_old = [i for i in olds if not old_used[i]]
    free_new = [j for j in news if not new_used[j]]
    if not free_old or not free_new:
        return []
    found: list[Match] = []
    found += _splits(old, new, free_old, free_new, old_used, new_used, merged=False)
    found += _splits(new, old, free_new, free_old, new_used, old_used, merged=True)
    candidates: list[tuple[float, int, int]] = []
    for a, i in enumerate(free_old):
        if old_used[i]:
            continue
        role, text = old[i]
        # positions in the gap are compared relative to where each side's gap begins
        lo = max(0, a - WINDOW)
        for j in free_new[lo:a + WINDOW + 1]:
            if new_used[j] or new[j][0] != role:
                continue
            score = fuzz.ratio(text, new[j][1], score_cutoff=CHANGED_MIN * 100)
            if score:
                candidates.append((score / 100.0, i, j))
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    for score, i, j in candidates:
        if old_used[i] or new_used[j]:
            continue
        old_used[i] = new_used[j] = True
        found.append(Match(Kind.CHANGED, (i,), (j,), score))
    return found


def _splits(one: list[tuple[str, str]], two: list[tuple[str, str]], ones: list[int], twos: list[int],
            one_used: list[bool], two_used: list[bool], *, merged: bool) -> list[Match]:
    """A line of ``one`` that reads as two consecutive lines of ``two`` (same role).
    ``merged``: ``one`` is the new draft (two old lines became one)."""
    found: list[Match] = []
    for a, i in enumerate(ones):
        role, text = one[i]
        lo = max(0, a - WINDOW)
        window = twos[lo:a + WINDOW + 1]
        for b in range(len(window) - 1):
            j, k = window[b], window[b + 1]
            if k != j + 1 or one_used[i] or two_used[j] or two_used[k] or two[j][0] != role or two[k][0] != role:
                continue
            joined = f"{two[j][1]} {two[k][1]}"
            score = fuzz.ratio(text, joined, score_cutoff=SPLIT_MIN * 100) / 100.0
            # the pair must read as the line better than its first half alone does
            if score and score > similarity(text, two[j][1]):
                one_used[i] = two_used[j] = two_used[k] = True
                if merged:
                    found.append(Match(Kind.MERGED, (j, k), (i,), score))
                else:
                    found.append(Match(Kind.SPLIT, (i,), (j, k), score))
                break
    return found


def _moved_and_changed(old: list[tuple[str, str]], new: list[tuple[str, str]], old_used: list[bool],
                       new_used: list[bool]) -> list[Match]:
    """Leftovers still close to a leftover line of the same role anywhere in the script."""
    by_role: dict[str, dict[int, str]] = {}
    for i, (role, text) in enumerate(old):
        if not old_used[i]:
            by_role.setdefault(role, {})[i] = text
    leftovers = [j for j, used in enumerate(new_used) if not used]
    cost = sum(len(by_role.get(new[j][0], ())) for j in leftovers)
    if cost > MAX_LEFTOVER_PAIRS:
        return []
    found: list[Match] = []
    for j in leftovers:
        choices = by_role.get(new[j][0])
        if not choices:
            continue
        best = process.extractOne(new[j][1], choices, scorer=fuzz.ratio, score_cutoff=MOVED_CHANGED_MIN * 100)
        if best is None:
            continue
        _, score, i = best
        del choices[i]
        old_used[i] = new_used[j] = True
        found.append(Match(Kind.CHANGED, (i,), (j,), score / 100.0))
    return found
