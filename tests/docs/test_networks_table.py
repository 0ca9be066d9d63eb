#!/usr/bin/python3
"""tests/docs/test_networks_table.py SOURCE_DIR [SCALEBENCH] — ctest docs.networks (label unit): the
named networks are written once, in harness/study/project/networks.def; this checks that the table
of docs/projection.md shows exactly those lines (name, rate, latency, delivered ranges, a transport's
connections together or "—" for a link, whether the range rests on a measurement or is assumed, in
order) and, given the
binary, that `scalebench project --help` names each of them. It does not check the emulated
cluster's use of them (tools/cluster/common.sh reads networks.def itself; ctest cluster.* runs it).
"""
import re
import subprocess
import sys

src = sys.argv[1]
NUM = r", *([0-9]+)"
BASIS = r"(measured|assumed)"
DEF = re.compile(r"^SB_NETWORK\(([a-z0-9]+)" + NUM * 8 + r", *" + BASIS + r"\)$")
# | `name` | 100 Mbit/s | 100 µs | 50–94 Mbit/s | 50–500 µs | — | assumed | ... (the rest of the row: the sources);
# a transport's connections together "800–24000 Mbit/s" where a link has "—" (networks.def's 0, 0)
ROW = re.compile(r"^\| `([a-z0-9]+)` \| ([0-9]+) Mbit/s \| ([0-9]+) µs \| ([0-9]+)–([0-9]+) Mbit/s \| "
                 r"([0-9]+)–([0-9]+) µs \| (?:— \||([0-9]+)–([0-9]+) Mbit/s \|) " + BASIS + r" \|")

def lines(path, pattern):
    return [m.groups() for m in map(pattern.match, open(path, encoding="utf-8").read().splitlines()) if m]


# (name, Mbit/s, latency µs, delivered Mbit/s low, high, latency µs low, high, connections together low,
# high (0, 0: a link), basis) from each side
defined = [(g[0], *map(int, g[1:9]), g[9]) for g in lines(f"{src}/harness/study/project/networks.def", DEF)]
assert len(defined) >= 2, f"networks.def: {len(defined)} SB_NETWORK lines; the parser or the file is wrong"
documented = [(g[0], *map(int, g[1:7]), int(g[7] or 0), int(g[8] or 0), g[9])
              for g in lines(f"{src}/docs/projection.md", ROW)]
if documented != defined:
    sys.exit(f"FAIL: docs/projection.md's network table {documented} != networks.def {defined}")
if len(sys.argv) > 2:
    out = subprocess.run([sys.argv[2], "project", "--help"], capture_output=True, text=True, check=True).stdout
    missing = [d[0] for d in defined if d[0] not in out]
    if missing:
        sys.exit(f"FAIL: `scalebench project --help` does not name {missing}")
print(f"docs.networks: {len(defined)} networks, docs/projection.md and project --help agree with networks.def")
