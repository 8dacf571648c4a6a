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


def assign(roles: Sequence[Role], lines: Mapping[str, int], pool: Sequence[Candidate],
           similarity: np.ndarray, usable: np.ndarray | None = None,
           pinned: Mapping[int, int] | None = None) -> list[int]:
    """A candidate index per role (in ``roles`` order): every role one that fits
    its character (any when none fits) and is usable (``usable[role, candidate]``: it
    sounds clean and keeps the role's words, when any fitting one does), the closest pair as far apart
    as any assignment allows: an exhaustive search (branch and bound), so a cast
    is not stuck where a greedy choice of the leads put it. First of all as few roles
    as may be share a candidate (more roles than candidates: spread over all of them);
    among casts whose closest pairs are within TIE, or all below APART, the least
    transformed wins (leads' voices counting by their lines), then the lower sum of
    similarities.
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
    best_key: tuple[int, int, int, float] | None = None
    best_picks: list[int] = []
    budget = SEARCH_NODES
    # What a candidate would add is kept per depth as arrays over the pool (how many chosen
    # roles have it, its closest pair to the others chosen, its sum of similarities to them),
    # so a node costs the same at depth 10 as at depth 1,000.
    apart_of = np.array(similarity, dtype=np.float64, copy=True)
    np.fill_diagonal(apart_of, -1.0)  # a shared candidate counts in ``shared``, not as a pair
    alike = np.eye(len(pool), dtype=np.int64)
    closest_to = [np.full(len(pool), -1.0)]  # per depth: each candidate's closest pair to the chosen
    summed_to = [np.zeros(len(pool))]
    holders = [np.zeros(len(pool), dtype=np.int64)]  # per depth: the roles chosen on each candidate
    chosen: list[int] = []
    shared, worst, transformed, total = [0], [-1.0], [0], [0.0]
    tried = [0] * (depth_of + 1)  # the next option to try at each depth
    depth = 0
    while depth >= 0:
        if depth == depth_of or tried[depth] >= len(options[depth]) or budget <= 0:
            if depth == depth_of:
                key = (shared[depth], max(round(worst[depth] / TIE), apart), transformed[depth], total[depth])
                if best_key is None or key < best_key:
                    best_key, best_picks = key, list(chosen)
            tried[depth] = 0
            depth -= 1  # back up: the choice made at the depth above is undone
            if chosen:
                chosen.pop()
                del shared[-1], worst[-1], transformed[-1], total[-1], closest_to[-1], summed_to[-1], holders[-1]
            continue
        cand = options[depth][tried[depth]]
        tried[depth] += 1
        budget -= 1  # a huge pool: the best found so far (still the same every time)
        new_shared = shared[depth] + int(holders[depth][cand])
        new_worst = max(worst[depth], float(closest_to[depth][cand]))
        new_transformed = transformed[depth] + pool[cand].transformed * weight[depth]
        if best_key is not None and (new_shared, max(round(new_worst / TIE), apart), new_transformed) > best_key[:3]:
            continue  # sharing, the closest pair and the transformation only grow deeper down
        chosen.append(cand)
        shared.append(new_shared)
        holders.append(holders[depth] + alike[cand])
        worst.append(new_worst)
        transformed.append(new_transformed)
        total.append(total[depth] + float(summed_to[depth][cand]))
        closest_to.append(np.maximum(closest_to[depth], apart_of[cand]))
        summed_to.append(summed_to[depth] + apart_of[cand])
        depth += 1
    by_role = dict(zip(order, best_picks, strict=True))
    return [by_role[i] for i in range(len(roles))]
