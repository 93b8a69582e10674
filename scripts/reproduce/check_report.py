#!/usr/bin/env python3
"""Checks that a study's report holds measured numbers: at least one Markdown table, and in every
table row a number in some column that is not a published reference (a reference column names
its source in the header: paper, published, CleanRL, rl-baselines3-zoo, ...).

  scripts/reproduce/check_report.py runs/reproduce/quick/dqn_classic/dqn_classic.md ...

Exit 0 when every report passes, 1 with the failing rows otherwise. Standard library only."""
import re
import sys
from pathlib import Path

REFERENCE = re.compile(r"paper|published|reference|cleanrl|rl-baselines3-zoo|openai|implementation details|d4rl",
                       re.I)
NUMBER = re.compile(r"[-−+]?\d")


def tables(text):
    """[(header cells, [row cells...], first line number)] of the Markdown tables in text."""
    out, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("|") and i + 1 < len(lines) and re.match(r"^\s*\|[\s:|-]+\|\s*$", lines[i + 1]):
            header = [c.strip() for c in lines[i].strip().strip("|").split("|")]
            rows, j = [], i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                rows.append((j + 1, [c.strip() for c in lines[j].strip().strip("|").split("|")]))
                j += 1
            out.append((header, rows, i + 1))
            i = j
        else:
            i += 1
    return out


def problems(path):
    p = Path(path)
    if not p.exists():
        return [f"{p}: no report (the script did not write it)"]
    found = tables(p.read_text())
    if not found:
        return [f"{p}: no table"]
    issues = []
    for header, rows, line in found:
        measured = [k for k, h in enumerate(header) if k > 0 and not REFERENCE.search(h)]
        if not rows:
            issues.append(f"{p}:{line}: table with no rows")
        for n, cells in rows:
            if not any(k < len(cells) and NUMBER.search(cells[k]) for k in measured):
                issues.append(f"{p}:{n}: no measured number in row '{' | '.join(cells)}'")
    return issues


def main(paths):
    if not paths:
        sys.exit("usage: check_report.py REPORT.md...")
    issues = [i for p in paths for i in problems(p)]
    for i in issues:
        print(i)
    if not issues:
        print(f"check_report: {len(paths)} report(s), every table row has a measured number")
    return 1 if issues else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
