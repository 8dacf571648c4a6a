"""Script revisions: how well the alignment finds the unchanged lines, and how fast it is.

    python bench/revise.py [--drafts 200] [--seed 1] [--json]

Quality: a generator makes revised drafts of the sample (samples/the-last-broadcast.txt)
and of two held-out scripts (bench/five_roles.fountain, bench/tableread/the-night-ferry.txt)
by random edits (a word replaced, dropped or added), moves, splits, merges, inserted and
deleted lines, and knows for each new line which old line it came from and whether its
words are unchanged. The alignment (engine/project/revision_align.py) is scored against
that truth: precision and recall of "unchanged" (a pair old line -> new line with the same
words, moved or not), and of "changed" (an edited line found as its old self, so it keeps
its id and history). The edit rate is 10 % and 30 % of the lines per draft.

Speed: productions of 1,250 to 10,000 generated lines revised by a 10 % draft: the
alignment alone, the whole revision (align + apply on the project), and in the same run
the baseline of difflib's SequenceMatcher over the whole script's lines (which matches
identical lines only), in CPU seconds; then ``radioplay revise``'s own path (load the
production, parse and cast the draft, apply, save) on 5,000 lines, wall and CPU.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from engine.project.fileformat import load_project, save_project  # noqa: E402
from engine.project.importers.build import import_script  # noqa: E402
from engine.project.model import Line, Project, Role, Scene  # noqa: E402
from engine.project.revision_align import Kind, align  # noqa: E402
from engine.project.revision_apply import revise  # noqa: E402

SCRIPTS = {"sample": REPO / "samples/the-last-broadcast.txt", "held-out five_roles": REPO / "bench/five_roles.fountain",
           "held-out night-ferry": REPO / "bench/tableread/the-night-ferry.txt"}
OPERATIONS = ("edit", "punctuate", "move", "move+edit", "split", "merge", "insert", "delete")
# Short lines every script repeats: the quality runs also score scripts with these
# sprinkled in (about one line in eight), where a line's words alone do not say which it is.
STOCK = ("Yes.", "No.", "What?", "I know.", "Go on.", "Wait.")


@dataclass
class NewLine:
    role: str
    text: str
    origin: tuple[int, ...]  # old indices it came from (() = inserted)
    unchanged: bool


def generate(old: list[tuple[str, str]], rate: float, rng: random.Random) -> list[NewLine]:
    """A revised draft of ``old``: round(rate * len) random operations, each on a line
    not yet touched (so the truth stays simple)."""
    draft = [NewLine(role, text, (i,), True) for i, (role, text) in enumerate(old)]
    vocabulary = sorted({w for _, t in old for w in t.split()})
    roles = sorted({r for r, _ in old})
    for _ in range(max(1, round(rate * len(old)))):
        op = rng.choice(OPERATIONS)
        fresh = [k for k, x in enumerate(draft) if x.unchanged]
        if not fresh:
            break
        k = rng.choice(fresh)
        line = draft[k]
        words = line.text.split()
        if op == "split" and len(words) >= 6:
            cut = rng.randrange(2, len(words) - 2)
            draft[k:k + 1] = [NewLine(line.role, " ".join(words[:cut]), line.origin, False),
                              NewLine(line.role, " ".join(words[cut:]), line.origin, False)]
        elif op == "merge" and k + 1 < len(draft) and draft[k + 1].unchanged and draft[k + 1].role == line.role:
            nxt = draft[k + 1]
            draft[k:k + 2] = [NewLine(line.role, f"{line.text} {nxt.text}", line.origin + nxt.origin, False)]
        elif op == "move":
            draft.pop(k)
            draft.insert(rng.randrange(len(draft) + 1), line)
        elif op == "punctuate" and line.text[-1:] in ".?!":  # the smallest change that is heard
            other = {".": "!", "?": ".", "!": "?"}[line.text[-1]]
            draft[k] = NewLine(line.role, line.text[:-1] + other, line.origin, False)
        elif op == "move+edit" and len(words) >= 4:
            words[rng.randrange(len(words))] = rng.choice(vocabulary)
            text = " ".join(words)
            if text != " ".join(line.text.split()):
                draft.pop(k)
                draft.insert(rng.randrange(len(draft) + 1), NewLine(line.role, text, line.origin, False))
        elif op == "insert":
            text = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(4, 14)))
            draft.insert(k, NewLine(rng.choice(roles), text, (), False))
        elif op == "delete":
            draft.pop(k)
        else:  # edit: one or two words replaced, dropped or added
            for _ in range(rng.randint(1, 2)):
                at = rng.randrange(len(words))
                how = rng.choice(("replace", "drop", "add"))
                if how == "drop" and len(words) > 2:
                    words.pop(at)
                elif how == "add":
                    words.insert(at, rng.choice(vocabulary))
                else:
                    words[at] = rng.choice([w for w in vocabulary if w != words[at]] or ["indeed"])
            text = " ".join(words)
            if text != " ".join(line.text.split()):
                draft[k] = NewLine(line.role, text, line.origin, False)
    return draft


def score(old: list[tuple[str, str]], draft: list[NewLine]) -> dict[str, int]:
    alignment = align(old, [(x.role, x.text) for x in draft])
    said_same = {(m.old[0], m.new[0]) for m in alignment.matches if m.kind in (Kind.UNCHANGED, Kind.MOVED)}
    true_same = {(x.origin[0], j) for j, x in enumerate(draft) if x.unchanged}
    edited = {(x.origin[0], j) for j, x in enumerate(draft) if not x.unchanged and len(x.origin) == 1
              and (j == 0 or draft[j - 1].origin != x.origin)}  # edits and first parts of splits
    said_changed = {(m.old[0], m.new[0]) for m in alignment.matches if m.kind in (Kind.CHANGED, Kind.SPLIT)}
    return {"same_true": len(true_same), "same_said": len(said_same), "same_hit": len(said_same & true_same),
            "changed_true": len(edited), "changed_said": len(said_changed),
            "changed_hit": len(said_changed & edited)}


def with_stock_lines(old: list[tuple[str, str]], rng: random.Random) -> list[tuple[str, str]]:
    roles = sorted({r for r, _ in old})
    out: list[tuple[str, str]] = []
    for line in old:
        out.append(line)
        if rng.random() < 1 / 8:
            out.append((rng.choice(roles), rng.choice(STOCK)))
    return out


def quality(drafts: int, seed: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for name, path in SCRIPTS.items():
        project, _ = import_script(path)
        plain = [(x.role, x.text) for x in project.lines]
        for variant, rate in (("", 0.1), ("", 0.3), ("+stock", 0.1), ("+stock", 0.3)):
            old = with_stock_lines(plain, random.Random(seed)) if variant else plain
            rng = random.Random(seed)
            total = dict.fromkeys(("same_true", "same_said", "same_hit", "changed_true", "changed_said",
                                   "changed_hit"), 0)
            for _ in range(drafts):
                for key, value in score(old, generate(old, rate, rng)).items():
                    total[key] += value
            rows.append({"script": name + variant, "lines": len(old), "rate": rate, "drafts": drafts,
                         "unchanged_precision": total["same_hit"] / max(1, total["same_said"]),
                         "unchanged_recall": total["same_hit"] / max(1, total["same_true"]),
                         "changed_precision": total["changed_hit"] / max(1, total["changed_said"]),
                         "changed_recall": total["changed_hit"] / max(1, total["changed_true"])})
    return rows


def big_script(n: int, rng: random.Random) -> list[tuple[str, str]]:
    vocabulary = sorted({w for path in SCRIPTS.values() for x in import_script(path)[0].lines for w in x.text.split()})
    roles = [f"ROLE{k}" for k in range(12)]
    return [(rng.choice(roles), " ".join(rng.choice(vocabulary) for _ in range(rng.randint(3, 18)))) for _ in range(n)]


def _project(lines: list[tuple[str, str]]) -> Project:
    return Project(cast=[Role(name=r) for r in sorted({r for r, _ in lines})], scenes=[Scene("S1")],
                   lines=[Line(id=f"L{k + 1:05d}", role=r, text=t, scene="S1") for k, (r, t) in enumerate(lines)])


def speed(seed: int) -> list[dict[str, float]]:
    rows: list[dict[str, float]] = []
    for n in (1250, 2500, 5000, 10000):
        rng = random.Random(seed)
        old = big_script(n, rng)
        draft = generate(old, 0.1, rng)
        new = [(x.role, x.text) for x in draft]
        started = time.process_time()
        align(old, new)
        align_s = time.process_time() - started
        production = _project(old)
        drafted = _project(new)
        started = time.process_time()
        revise(production, drafted, name="Blue Revision", date="2026-12-01", colour="#4a7bd0")
        revise_s = time.process_time() - started
        started = time.process_time()
        difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
        difflib_s = time.process_time() - started
        rows.append({"lines": n, "align_s": align_s, "revise_s": revise_s, "difflib_whole_s": difflib_s})
    return rows


def command_path(seed: int) -> dict[str, float]:
    """``radioplay revise``'s work on a 5,000-line production: parse + cast the draft, apply, save."""
    from engine.synth.revision_import import revise_from_script

    rng = random.Random(seed)
    old = big_script(5000, rng)
    draft = generate(old, 0.1, rng)
    with tempfile.TemporaryDirectory() as folder:
        first, second = Path(folder) / "v1.txt", Path(folder) / "v2.txt"
        first.write_text("\n".join(f"{r}: {t}" for r, t in old) + "\n")
        second.write_text("\n".join(f"{x.role}: {x.text}" for x in draft) + "\n")
        path = Path(folder) / "big.radioplay"
        save_project(import_script(first)[0], path)
        started, cpu = time.perf_counter(), time.process_time()
        production = load_project(path)
        revised, _ = revise_from_script(production, second, destination=path)
        save_project(revised.project, path)
        return {"lines": 5000, "command_s": time.perf_counter() - started, "command_cpu_s": time.process_time() - cpu}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--drafts", type=int, default=200, help="drafts per script and rate (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    load = os.getloadavg()
    result = {"load_before": load, "quality": quality(args.drafts, args.seed), "speed": speed(args.seed),
              "command": command_path(args.seed), "load_after": os.getloadavg()}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"load average before {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"{'script':<28} {'lines':>5} {'rate':>5} {'drafts':>6}  {'unchanged P':>11} {'R':>6}  {'changed P':>9} "
          f"{'R':>6}")
    for row in result["quality"]:
        print(f"{row['script']:<28} {row['lines']:>5} {row['rate']:>5.0%} {row['drafts']:>6}  "
              f"{row['unchanged_precision']:>11.4f} {row['unchanged_recall']:>6.4f}  "
              f"{row['changed_precision']:>9.4f} {row['changed_recall']:>6.4f}")
    print("CPU seconds (the process's, so the machine's load does not count):")
    print(f"{'lines':>6} {'align s':>8} {'revise s':>9} {'difflib s':>10} {'align/line us':>14}")
    for row in result["speed"]:
        print(f"{row['lines']:>6} {row['align_s']:>8.3f} {row['revise_s']:>9.3f} {row['difflib_whole_s']:>10.3f} "
              f"{row['align_s'] / row['lines'] * 1e6:>14.1f}")
    command = result["command"]
    print(f"radioplay revise's path on {command['lines']} lines (load, parse and cast the draft, apply, save): "
          f"{command['command_s']:.2f} s wall, {command['command_cpu_s']:.2f} s CPU")
    after = result["load_after"]
    print(f"load average after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
