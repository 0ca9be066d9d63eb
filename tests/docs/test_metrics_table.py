#!/usr/bin/python3
"""tests/docs/test_metrics_table.py SOURCE_DIR [SCALEBENCH | --write] — ctest docs.metrics (label unit): the
metrics are written once, in harness/study/analysis/metrics.def, and the point flags once, in
kFlagRules of harness/study/analysis/point_stats.cpp; this checks that docs/metrics.md's metric
table shows exactly those metric lines (every field, in order) and its flag table exactly those
rules, and, given the binary, that `compare --threshold bogus=1%` names every metric as known.
With --write it rewrites the metric table's rows of docs/metrics.md from metrics.def instead (after
editing metrics.def). It does not check how the metrics are computed (the C++ tests do).
"""
import re
import subprocess
import sys

src = sys.argv[1]
DEF = re.compile(r'^SB_METRIC\((\w+), "([^"]*)", (higher|lower), "([^"]*)", (\w+), (\w+), "(.*)"\)$')
ROW = re.compile(r"^\| `(\w+)` \| ([^|]*) \| (higher|lower) \| ([^|]*) \| (\w+) \| (\w+) \| (.*) \|$")
FLAG_DEF = re.compile(r'^\s*\{"([^"]+)", (".*)\},?$')
FLAG_ROW = re.compile(r"^\| `([^`]+)` \| (.*) \|$")


def lines(path, pattern):
    return [m.groups() for m in map(pattern.match, open(path, encoding="utf-8").read().splitlines()) if m]


defined = [(n, u or "-", b, t, k, s, d) for n, u, b, t, k, s, d in
           lines(f"{src}/harness/study/analysis/metrics.def", DEF)]
assert len(defined) >= 5, f"metrics.def: {len(defined)} SB_METRIC lines; the parser or the file is wrong"
if len(sys.argv) > 2 and sys.argv[2] == "--write":
    doc = open(f"{src}/docs/metrics.md", encoding="utf-8").read().splitlines()
    rows = [i for i, line in enumerate(doc) if ROW.match(line)]
    new = [f"| `{n}` | {u} | {b} | {t} | {k} | {s} | {d} |" for n, u, b, t, k, s, d in defined]
    doc[rows[0]:rows[-1] + 1] = new
    open(f"{src}/docs/metrics.md", "w", encoding="utf-8").write("\n".join(doc) + "\n")
    sys.exit(0)
documented = lines(f"{src}/docs/metrics.md", ROW)
if documented != defined:
    for a, b in zip(documented + [None] * len(defined), defined):
        if a != b:
            sys.exit(f"FAIL: docs/metrics.md's metric table differs from metrics.def first at\n  docs: {a}\n  def:  {b}")

# kFlagRules: {"name", "text" "text"} entries, the C string pieces joined.
code = open(f"{src}/harness/study/analysis/point_stats.cpp", encoding="utf-8").read()
start = code.index("kFlagRules[kFlagCount][2] = {")
block = code[start:code.index("};", start)]
flags = [(name, "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', rest)))
         for name, rest in re.findall(r'\{"([^"]+)",((?:\s*"(?:[^"\\]|\\.)*")+)\}', block)]
count = int(re.search(r"kFlagCount = (\d+);", open(f"{src}/harness/study/analysis/point_stats.h", encoding="utf-8").read())[1])
assert len(flags) == count, f"point_stats.cpp: {len(flags)} flag rules parsed, kFlagCount {count}: the parser or the file is wrong"
doc_flags = [(n, r) for n, r in lines(f"{src}/docs/metrics.md", FLAG_ROW) if n in {f for f, _ in flags}]
if doc_flags != flags:
    sys.exit(f"FAIL: docs/metrics.md's flag table {doc_flags} != kFlagRules {flags}")

if len(sys.argv) > 2:
    r = subprocess.run([sys.argv[2], "compare", "x.h5", "y.h5", "--threshold", "bogus=1%"], capture_output=True,
                       text=True)
    missing = [n for n, *_ in defined if n not in r.stdout + r.stderr]
    if r.returncode == 0 or missing:
        sys.exit(f"FAIL: `compare --threshold bogus=1%` exit {r.returncode}, does not name {missing}:\n{r.stderr}")
print(f"docs.metrics: {len(defined)} metrics and {len(flags)} flags, docs/metrics.md agrees with the sources")
