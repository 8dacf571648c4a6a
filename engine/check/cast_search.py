"""Which candidate each role takes, given how alike the candidates sound: the assignment
whose closest pair of roles is farthest apart, by an exhaustive branch-and-bound search.

A loop with its own stack, not a recursion per role: a cast of a thousand roles once ended
in a RecursionError (issue 57). The measured cast searches over its leads only
(engine/check/casting.py ``MEASURED_ROLES``); the node budget bounds the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from engine.project.model import Role
from engine.synth.cast_candidates import Candidate, fits

# Below this the closest pair counts as told apart, and among such casts the least transformed
# wins: every design step costs some words (bench/voices.py, the five-role script: MRS. HALE went
# from jf_gongitsune to her bright colour, +0.125 WER, for a closest pair 0.01 further apart).
APART = 0.75
TIE = 0.005  # similarities this close count as equal: then the less transformed voice wins
SEARCH_NODES = 400_000  # assignments tried at most (seven roles over the measured pool take far fewer)
SAME = 2.0  # two roles on one candidate: farther from apart than any two candidates


def assign(roles: Sequence[Role], lines: Mapping[str, int], pool: Sequence[Candidate],
           similarity: np.ndarray, usable: np.ndarray | None = None,
           pinned: Mapping[int, int] | None = None) -> list[int]:
    """A candidate index per role (in ``roles`` order): every role one that fits
    its character (any when none fits) and is usable (``usable[role, candidate]``: it
    sounds clean and keeps the role's words, when any fitting one does), the closest pair as far apart
    as any assignment allows: an exhaustive search (branch and bound), so a cast
    is not stuck where a greedy choice of the leads put it. Among casts whose
    closest pairs are within TIE, or all below APART, the least transformed wins
    (leads' voices counting by their lines), then the lower sum of similarities.
    ``pinned``: roles (by index) whose candidate is already decided. Deterministic."""
    allowed = []
    for r, each in enumerate(roles):
        if pinned and r in pinned:
            allowed.append([pinned[r]])
            continue
        ok = [c for c, cand in enumerate(pool) if fits(cand, each.character)] or list(range(len(pool)))
        clean = [c for c in ok if usable is None or usable[r, c]]
        allowed.append(sorted(clean or ok, key=lambda c: (pool[c].transformed, c)))
    # The most constrained roles first: the bound prunes sooner; then leads, then file order.
    order = sorted(range(len(roles)), key=lambda i: (len(allowed[i]), -lines.get(roles[i].name, 0), i))
    weight = [1 + lines.get(roles[i].name, 0) for i in order]
    options = [allowed[i] for i in order]
    depth_of = len(order)
    apart = round(APART / TIE)
    best_key: tuple[int, int, float] | None = None
    best_picks: list[int] = []
    budget = SEARCH_NODES
    # The state at each depth: what is chosen above it, its closest pair so far, its
    # transformation and sum of similarities; ``tried[d]``: the next option to try at depth d.
    chosen: list[int] = []
    worst, transformed, total = [-1.0], [0], [0.0]
    tried = [0] * (depth_of + 1)
    depth = 0
    while depth >= 0:
        if depth == depth_of or tried[depth] >= len(options[depth]) or budget <= 0:
            if depth == depth_of:
                key = (max(round(worst[depth] / TIE), apart), transformed[depth], total[depth])
                if best_key is None or key < best_key:
                    best_key, best_picks = key, list(chosen)
            tried[depth] = 0
            depth -= 1  # back up: the choice made at the depth above is undone
            if chosen:
                chosen.pop()
                del worst[-1], transformed[-1], total[-1]
            continue
        cand = options[depth][tried[depth]]
        tried[depth] += 1
        budget -= 1  # a huge pool: the best found so far (still the same every time)
        values = [SAME if cand == other else float(similarity[cand, other]) for other in chosen]
        new_worst = max([worst[depth], *values])
        new_transformed = transformed[depth] + pool[cand].transformed * weight[depth]
        if best_key is not None and (max(round(new_worst / TIE), apart), new_transformed) > best_key[:2]:
            continue  # the closest pair and the transformation only grow deeper down
        chosen.append(cand)
        worst.append(new_worst)
        transformed.append(new_transformed)
        total.append(total[depth] + sum(values))
        depth += 1
    by_role = dict(zip(order, best_picks, strict=True))
    return [by_role[i] for i in range(len(roles))]
