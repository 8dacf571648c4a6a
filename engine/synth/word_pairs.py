"""Two word sequences paired in order by their lengths: which written words a run of
spoken ones says.

A line's written words against a clip's spoken words (engine/synth/wordmap.py: the
captions' timings), and a producer's read's words against the plain clip's
(engine/synth/read_transfer.py): each side's words weighed (phonemes, or a written
word's expected length), then grouped by a dynamic programme in a band around the
diagonal, so a number written as one word and said as three, or a word one side
drops, shifts nothing after it. Beside both callers, importing neither.
"""

from __future__ import annotations

# Group shapes (written, spoken) and what choosing one costs beyond the length mismatch.
_MOVES = ((1, 1, 0.0), (1, 2, 0.5), (2, 1, 0.5), (1, 3, 1.0), (3, 1, 1.0), (2, 3, 1.5), (3, 2, 1.5),
          (1, 4, 1.5), (0, 1, 3.0), (1, 0, 3.0))
_BAND = 12  # spoken words either side of the diagonal the alignment may wander
_MAX_CELLS = 30_000  # about half a second of alignment (2,500 words); a longer line is shared out by length


def align(written: list[float], spoken: list[int]) -> list[tuple[int, int, int, int]]:
    """Groups (written from, to, spoken from, to) covering both sequences in order."""
    n, m = len(written), len(spoken)
    scale = sum(spoken) / (sum(written) or 1.0)
    lw = [0.0]
    for x in written:
        lw.append(lw[-1] + x * scale)
    lp = [0.0]
    for y in spoken:
        lp.append(lp[-1] + y)
    band = _BAND + abs(n - m)
    if n * band > _MAX_CELLS:  # a pathological line: one group, shared out by length
        return [(0, n, 0, m)]
    inf = float("inf")
    cost: dict[tuple[int, int], tuple[float, int, int]] = {(0, 0): (0.0, 0, 0)}
    for i in range(n + 1):
        centre = i * m / max(n, 1)
        for j in range(max(0, int(centre) - band), min(m, int(centre) + band) + 1):
            if i == 0 and j == 0:
                continue
            best = (inf, 0, 0)
            for di, dj, penalty in _MOVES:
                prev = cost.get((i - di, j - dj))
                if prev is None:
                    continue
                a, b = lw[i] - lw[i - di], lp[j] - lp[j - dj]
                c = prev[0] + (a - b) ** 2 / (a + b + 1.0) + penalty
                if c < best[0]:
                    best = (c, di, dj)
            if best[0] < inf:
                cost[(i, j)] = best
    if (n, m) not in cost:  # outside the band (cannot happen with abs(n - m) in it): one group
        return [(0, n, 0, m)]
    groups = []
    i, j = n, m
    while i or j:
        _, di, dj = cost[(i, j)]
        groups.append((i - di, i, j - dj, j))
        i, j = i - di, j - dj
    return groups[::-1]
